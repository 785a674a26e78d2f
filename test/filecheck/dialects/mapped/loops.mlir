// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

// cpu: tiles spread over host threads, an scf.for inside.
mapped.kernel @cpu_tiles(%A: !mapped.buf<?x?xf32, global>) target cpu {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %M = mapped.dim %A 0 : !mapped.buf<?x?xf32, global>
  %N = mapped.dim %A 1 : !mapped.buf<?x?xf32, global>
  mapped.parallel (%i, %j) = (%c0, %c0) to (%M, %N) step (%c64, %c64) on cores {
    scf.for %k = %c0 to %c64 step %c1 {
      %x = mapped.load %A[%i, %k] : !mapped.buf<?x?xf32, global> -> f32
    }
    mapped.yield
  }
  mapped.return
}

// CHECK-LABEL: mapped.kernel @cpu_tiles
// CHECK:         mapped.parallel (%i, %j) = (%c0, %c0) to (%M, %N) step (%c64, %c64) on cores {
// CHECK-NEXT:      scf.for %k = %c0 to %c64 step %c1 {
// CHECK-NEXT:        %x = mapped.load %A[%i, %k] : !mapped.buf<?x?xf32, global> -> f32
// CHECK-NEXT:      }
// CHECK-NEXT:      mapped.yield
// CHECK-NEXT:    }

// gpu: blocks > warps > lanes, and blocks > threads.
mapped.kernel @gpu_levels(%X: !mapped.buf<?xf32, global>, %n: index) target gpu grid [132, 1, 1] block [128, 1, 1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  mapped.parallel (%b) = (%c0) to (%n) step (%c128) on blocks {
    mapped.parallel (%w) = (%c0) to (%c4) step (%c1) on warps {
      mapped.parallel (%l) = (%c0) to (%c32) step (%c1) on lanes attributes {tilec.tag = 2 : i64} {
        mapped.yield
      }
      mapped.barrier warp
      mapped.yield
    }
    mapped.parallel (%t) = (%c0) to (%c128) step (%c1) on threads {
      %x = mapped.load %X[%t] : !mapped.buf<?xf32, global> -> f32
      mapped.yield
    }
    mapped.barrier
    mapped.yield
  }
  mapped.return
}

// CHECK-LABEL: mapped.kernel @gpu_levels
// CHECK:         mapped.parallel (%b) = (%c0) to (%n) step (%c128) on blocks {
// CHECK-NEXT:      mapped.parallel (%w) = (%c0) to (%c4) step (%c1) on warps {
// CHECK-NEXT:        mapped.parallel (%l) = (%c0) to (%c32) step (%c1) on lanes attributes {tilec.tag = 2 : i64} {
// CHECK-NEXT:          mapped.yield
// CHECK-NEXT:        }
// CHECK-NEXT:        mapped.barrier warp
// CHECK-NEXT:        mapped.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      mapped.parallel (%t) = (%c0) to (%c128) step (%c1) on threads {
// CHECK-NEXT:        %x = mapped.load %X[%t] : !mapped.buf<?xf32, global> -> f32
// CHECK-NEXT:        mapped.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      mapped.barrier
// CHECK-NEXT:      mapped.yield
// CHECK-NEXT:    }

// A 3-stage pipeline with one iter_arg, and a 1-stage one with none.
mapped.kernel @pipe(%A: !mapped.buf<?x?xf16, global>) target gpu grid [cdiv(%A:0, 128), 1, 1] block [128, 1, 1] smem 24576 {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = mapped.dim %A 1 : !mapped.buf<?x?xf16, global>
  %sA = mapped.alloc : !mapped.buf<3x128x32xf16, shared>
  %z = mapped.frag_fill 0.0 : !mapped.frag<32x32xf32, acc, m16n8k16>
  %acc = mapped.pipeline %c0 to %K step %c32 stages 3 iter_args(%z) -> (!mapped.frag<32x32xf32, acc, m16n8k16>) produce {
  ^bb0(%k: index, %slot: index):
    mapped.async_copy %A[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 32] : !mapped.buf<?x?xf16, global>, !mapped.buf<3x128x32xf16, shared>
    mapped.async_commit
    mapped.yield
  } consume {
  ^bb0(%kc: index, %sc: index, %c: !mapped.frag<32x32xf32, acc, m16n8k16>):
    mapped.async_wait 1
    mapped.barrier
    mapped.yield %c : !mapped.frag<32x32xf32, acc, m16n8k16>
  }
  mapped.pipeline %c0 to %K step %c32 stages 1 attributes {tilec.tag = 3 : i64} produce {
  ^bb0(%k1: index, %s1: index):
    mapped.yield
  } consume {
  ^bb0(%k2: index, %s2: index):
    mapped.yield
  }
  mapped.return
}

// CHECK-LABEL: mapped.kernel @pipe
// CHECK:         %acc = mapped.pipeline %c0 to %K step %c32 stages 3 iter_args(%z) -> (!mapped.frag<32x32xf32, acc, m16n8k16>) produce {
// CHECK-NEXT:    ^bb0(%k: index, %slot: index):
// CHECK-NEXT:      mapped.async_copy %A[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 32] : !mapped.buf<?x?xf16, global>, !mapped.buf<3x128x32xf16, shared>
// CHECK-NEXT:      mapped.async_commit
// CHECK-NEXT:      mapped.yield
// CHECK-NEXT:    } consume {
// CHECK-NEXT:    ^bb0(%kc: index, %sc: index, %c: !mapped.frag<32x32xf32, acc, m16n8k16>):
// CHECK-NEXT:      mapped.async_wait 1
// CHECK-NEXT:      mapped.barrier
// CHECK-NEXT:      mapped.yield %c : !mapped.frag<32x32xf32, acc, m16n8k16>
// CHECK-NEXT:    }
// CHECK-NEXT:    mapped.pipeline %c0 to %K step %c32 stages 1 attributes {tilec.tag = 3 : i64} produce {
// CHECK-NEXT:    ^bb0(%k1: index, %s1: index):
// CHECK-NEXT:      mapped.yield
// CHECK-NEXT:    } consume {
// CHECK-NEXT:    ^bb0(%k2: index, %s2: index):
// CHECK-NEXT:      mapped.yield
// CHECK-NEXT:    }
