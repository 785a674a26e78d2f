// RUN: tilec-opt %s --split-input-file --verify-diagnostics

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] smem 16 {
  %X = mapped.alloc : !mapped.buf<4xf32, shared>
  // expected-error @+1 {{is_aligned: asks about global buffers, got !mapped.buf<4xf32, shared>}}
  %ok = mapped.is_aligned %X 16 : !mapped.buf<4xf32, shared>
  mapped.return
}

// -----

mapped.kernel @k(%X: !mapped.buf<?xf32, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{is_aligned: the alignment must be a power of two, got 12}}
  %ok = mapped.is_aligned %X 12 : !mapped.buf<?xf32, global>
  mapped.return
}

// -----

mapped.kernel @k(%W: !mapped.buf<?xi32, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{block_ticket: the counter is a global buffer of i64 words, got !mapped.buf<?xi32, global>}}
  %t = mapped.block_ticket %W[%c0] : !mapped.buf<?xi32, global>
  mapped.return
}

// -----

mapped.kernel @k(%W: !mapped.buf<?xi64, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  mapped.parallel (%i) = (%c0) to (%c4) step (%c1) on warps {
    // expected-error @+1 {{block_ticket: a block ticket needs every thread of the block}}
    %t = mapped.block_ticket %W[%c0] : !mapped.buf<?xi64, global>
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%x: f32, %W: !mapped.buf<?x1xi64, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i32
  // expected-error @+1 {{lookback: the identity and the result have the aggregate's type f32}}
  %p = "mapped.lookback"(%x, %W, %c0, %c0, %z) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>}> ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    mapped.yield %c : f32
  }) : (f32, !mapped.buf<?x1xi64, global>, index, index, i32) -> f32
  mapped.return
}

// -----

mapped.kernel @k(%x: i16, %W: !mapped.buf<?x1xi64, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{lookback: combines 32- or 64-bit float or integer scalars, got i16}}
  %p = mapped.lookback %x, %W[%c0] tile %c0 identity %x : i16, !mapped.buf<?x1xi64, global> {
  ^bb0(%a: i16, %b: i16):
    %c = arith.addi %a, %b : i16
    mapped.yield %c : i16
  }
  mapped.return
}

// -----

mapped.kernel @k(%x: f32, %W: !mapped.buf<?x1xf64, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{lookback: the status is a global buffer of i64 words, got !mapped.buf<?x1xf64, global>}}
  %p = mapped.lookback %x, %W[%c0] tile %c0 identity %x : f32, !mapped.buf<?x1xf64, global> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    mapped.yield %c : f32
  }
  mapped.return
}

// -----

mapped.kernel @k(%x: f32, %W: !mapped.buf<?x?x1xi64, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{lookback: status !mapped.buf<?x?x1xi64, global> has rank 3: give an index for every axis but the last (the tile's words), got 1}}
  %p = mapped.lookback %x, %W[%c0] tile %c0 identity %x : f32, !mapped.buf<?x?x1xi64, global> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    mapped.yield %c : f32
  }
  mapped.return
}

// -----

mapped.kernel @k(%x: f64, %W: !mapped.buf<?x1xi64, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{lookback: a f64 status entry is 3 i64 word(s): the last axis must be 3, got !mapped.buf<?x1xi64, global>}}
  %p = mapped.lookback %x, %W[%c0] tile %c0 identity %x : f64, !mapped.buf<?x1xi64, global> {
  ^bb0(%a: f64, %b: f64):
    %c = arith.addf %a, %b : f64
    mapped.yield %c : f64
  }
  mapped.return
}

// -----

mapped.kernel @k(%x: f32, %W: !mapped.buf<?x1xi64, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{lookback: the combine region takes (f32, f32): two tuples of the values}}
  %p = mapped.lookback %x, %W[%c0] tile %c0 identity %x : f32, !mapped.buf<?x1xi64, global> {
  ^bb0(%a: f32):
    mapped.yield %a : f32
  }
  mapped.return
}

// -----

mapped.kernel @k(%x: f32, %W: !mapped.buf<?x1xi64, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{lookback: the combine region computes with arith and math ops only, got mapped.thread_id}}
  %p = mapped.lookback %x, %W[%c0] tile %c0 identity %x : f32, !mapped.buf<?x1xi64, global> {
  ^bb0(%a: f32, %b: f32):
    %t = mapped.thread_id x
    mapped.yield %a : f32
  }
  mapped.return
}

// -----

mapped.kernel @k(%x: f32, %W: !mapped.buf<?x1xi64, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  mapped.parallel (%i) = (%c0) to (%c4) step (%c1) on threads {
    // expected-error @+1 {{lookback: a look-back needs every thread of the block}}
    %p = mapped.lookback %x, %W[%c0] tile %c0 identity %x : f32, !mapped.buf<?x1xi64, global> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      mapped.yield %c : f32
    }
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%x: f32) target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{combine_scan: the identity must be one value of each type (f32)}}
  %p, %t = "mapped.combine_scan"(%x, %x, %x) <{across = "block", operandSegmentSizes = array<i32: 1, 2>}> ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    mapped.yield %c : f32
  }) : (f32, f32, f32) -> (f32, f32)
  mapped.return
}

// -----

mapped.kernel @k(%x: f32) target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{combine_scan: scans at least one value}}
  "mapped.combine_scan"() <{across = "block", operandSegmentSizes = array<i32: 0, 0>}> ({
  ^bb0:
    mapped.yield
  }) : () -> ()
  mapped.return
}

// -----

mapped.kernel @k(%x: f32) target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{combine_scan: the results are the prefix and the total tuples, of the values' types}}
  %p = "mapped.combine_scan"(%x, %x) <{across = "block", operandSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    mapped.yield %c : f32
  }) : (f32, f32) -> (f32)
  mapped.return
}

// -----

mapped.kernel @k(%x: f32) target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{combine_scan: unknown scope 'grid' (expected warp or block)}}
  %p, %t = "mapped.combine_scan"(%x, %x) <{across = "grid", operandSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    mapped.yield %c : f32
  }) : (f32, f32) -> (f32, f32)
  mapped.return
}

// -----

mapped.kernel @k(%x: f32) target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{combine_scan: 1 value(s), 2 identity value(s), 1 type(s)}}
  %p, %t = mapped.combine_scan (%x) identity (%x, %x) across block : f32 {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    mapped.yield %c : f32
  }
  mapped.return
}

// -----

mapped.kernel @k(%x: f32) target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{combine_scan: the combine region must yield (f32), but yields (f32, f32)}}
  %p, %t = mapped.combine_scan (%x) identity (%x) across block : f32 {
  ^bb0(%a: f32, %b: f32):
    mapped.yield %a, %b : f32, f32
  }
  mapped.return
}
