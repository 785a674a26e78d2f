// RUN: tilec-opt %s --split-input-file --verify-diagnostics

mapped.kernel @k(%n: index) target cpu {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{parallel: needs the same positive number of lower bounds, upper bounds and steps, got 2, 1 and 1}}
  mapped.parallel (%i) = (%c0, %c0) to (%n) step (%c1) on cores {
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%n: index) target cpu {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{parallel: the body takes 1 index induction variable(s)}}
  mapped.parallel (%i, %j) = (%c0) to (%n) step (%c1) on cores {
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%n: index) target cpu {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{parallel: the body must yield (nothing), but yields (index)}}
  mapped.parallel (%i) = (%c0) to (%n) step (%c1) on cores {
    mapped.yield %i : index
  }
  mapped.return
}

// -----

mapped.kernel @k(%n: index) target cpu {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{parallel: the body must end with mapped.yield}}
  mapped.parallel (%i) = (%c0) to (%n) step (%c1) on cores {
    %x = arith.addi %i, %c1 : index
  }
  mapped.return
}

// -----

mapped.kernel @k(%n: index) target cpu {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{expected a parallel level (cores, blocks, warps, threads, lanes)}}
  mapped.parallel (%i) = (%c0) to (%n) step (%c1) on sockets {
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%n: index) target cpu {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{parallel: unknown level 'sockets' (expected cores, blocks, warps, threads, lanes)}}
  "mapped.parallel"(%c0, %n, %c1) <{on = "sockets", operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    "mapped.yield"() : () -> ()
  }) : (index, index, index) -> ()
  mapped.return
}

// -----

mapped.kernel @k(%n: index) target gpu grid [1, 1, 1] block [128, 1, 1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{parallel: `on cores` needs a cpu kernel, but @k targets gpu}}
  mapped.parallel (%i) = (%c0) to (%n) step (%c1) on cores {
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%n: index) target cpu {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{parallel: `on threads` needs a gpu kernel, but @k targets cpu}}
  mapped.parallel (%i) = (%c0) to (%n) step (%c1) on threads {
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%n: index) target cpu {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  mapped.parallel (%i) = (%c0) to (%n) step (%c1) on cores {
    // expected-error @+1 {{parallel: `on cores` cannot be nested inside `on cores`}}
    mapped.parallel (%j) = (%c0) to (%n) step (%c1) on cores {
      mapped.yield
    }
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%n: index) target gpu grid [1, 1, 1] block [128, 1, 1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  mapped.parallel (%w) = (%c0) to (%n) step (%c1) on warps {
    // expected-error @+1 {{parallel: `on threads` cannot be nested inside `on warps`}}
    mapped.parallel (%t) = (%c0) to (%n) step (%c1) on threads {
      mapped.yield
    }
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%n: index) target gpu grid [1, 1, 1] block [128, 1, 1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  mapped.parallel (%l) = (%c0) to (%n) step (%c1) on lanes {
    // expected-error @+1 {{parallel: `on warps` cannot be nested inside `on lanes`}}
    mapped.parallel (%w) = (%c0) to (%n) step (%c1) on warps {
      mapped.yield
    }
    mapped.yield
  }
  mapped.return
}

// -----

// --- pipeline

mapped.kernel @k(%n: index) target cpu {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{pipeline: stages must be >= 1, got 0}}
  mapped.pipeline %c0 to %n step %c1 stages 0 produce {
  ^bb0(%k: index, %s: index):
    mapped.yield
  } consume {
  ^bb0(%k2: index, %s2: index):
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%n: index) target cpu {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{pipeline: produce takes (%k: index, %slot: index)}}
  mapped.pipeline %c0 to %n step %c1 stages 2 produce {
  ^bb0(%k: index):
    mapped.yield
  } consume {
  ^bb0(%k2: index, %s2: index):
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%n: index, %x: f32) target cpu {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{pipeline: consume takes (%k: index, %slot: index, f32)}}
  %r = mapped.pipeline %c0 to %n step %c1 stages 2 iter_args(%x) -> (f32) produce {
  ^bb0(%k: index, %s: index):
    mapped.yield
  } consume {
  ^bb0(%k2: index, %s2: index):
    mapped.yield %x : f32
  }
  mapped.return
}

// -----

mapped.kernel @k(%n: index, %x: f32) target cpu {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{pipeline: produce must yield (nothing), but yields (f32)}}
  %r = mapped.pipeline %c0 to %n step %c1 stages 2 iter_args(%x) -> (f32) produce {
  ^bb0(%k: index, %s: index):
    mapped.yield %x : f32
  } consume {
  ^bb0(%k2: index, %s2: index, %a: f32):
    mapped.yield %a : f32
  }
  mapped.return
}

// -----

mapped.kernel @k(%n: index, %x: f32) target cpu {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{pipeline: consume must yield (f32), but yields (nothing)}}
  %r = mapped.pipeline %c0 to %n step %c1 stages 2 iter_args(%x) -> (f32) produce {
  ^bb0(%k: index, %s: index):
    mapped.yield
  } consume {
  ^bb0(%k2: index, %s2: index, %a: f32):
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%n: index, %x: f32) target cpu {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{pipeline: result types must equal the iter_args types}}
  %r = "mapped.pipeline"(%c0, %n, %c1, %x) <{stages = #builtin.int<2>}> ({
  ^bb0(%k: index, %s: index):
    "mapped.yield"() : () -> ()
  }, {
  ^bb0(%k2: index, %s2: index, %a: f32):
    "mapped.yield"(%a) : (f32) -> ()
  }) : (index, index, index, f32) -> f64
  mapped.return
}

// -----

mapped.kernel @k(%n: index, %x: f32) target cpu {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{1 iter_args but 2 result type(s)}}
  %r = mapped.pipeline %c0 to %n step %c1 stages 2 iter_args(%x) -> (f32, f32) produce {
  ^bb0(%k: index, %s: index):
    mapped.yield
  } consume {
  ^bb0(%k2: index, %s2: index, %a: f32):
    mapped.yield %a : f32
  }
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 16384 {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = mapped.dim %A 1 : !mapped.buf<?x?xf16, global>
  %sA = mapped.alloc : !mapped.buf<2x128x32xf16, shared>
  // expected-error @+1 {{pipeline: produce writes slot %slot of !mapped.buf<2x128x32xf16, shared>, whose leading axis has 2 entries for 3 stages}}
  mapped.pipeline %c0 to %K step %c32 stages 3 produce {
  ^bb0(%k: index, %slot: index):
    mapped.async_copy %A[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 32] : !mapped.buf<?x?xf16, global>, !mapped.buf<2x128x32xf16, shared>
    mapped.yield
  } consume {
  ^bb0(%k2: index, %s2: index):
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%n: index) target gpu grid [1, 1, 1] block [128, 1, 1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = arith.constant true
  // expected-error @+1 {{parallel: `if` applies to `on cores` only (the thread team of a cpu kernel), not `on threads`}}
  mapped.parallel (%i) = (%c0) to (%n) step (%c1) on threads if %t {
    mapped.yield
  }
  mapped.return
}
