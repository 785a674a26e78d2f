// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

// A Hopper GEMM tile: a producer warpgroup's TMA loads into a 4-stage ring, two consumer
// warpgroups' wgmma on it, the accumulator stored with an epilogue.
mapped.kernel @ws(%C: !mapped.buf<256x192xf16, global>, %A: !mapped.buf<256x128xf16, global>, %B: !mapped.buf<192x128xf16, global>) target gpu grid [3, 2, 1] block [384, 1, 1] smem 98432 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  %sB = mapped.alloc : !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>>
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  %wg = mapped.warpgroup_id
  %w = arith.subi %wg, %c1 : index
  %row = arith.muli %w, %c64 : index
  %z = mapped.frag_fill 0.0 : !mapped.frag<64x64xf32, acc, wgmma>
  %r = mapped.ws_pipeline %c0 to %c128 step %c64 stages 4 consumers 2 regs [40, 232] barriers %bars : !mapped.buf<8xi64, shared> iter_args(%z) -> (!mapped.frag<64x64xf32, acc, wgmma>) produce {
  ^bb0(%k: index, %slot: index):
    mapped.tma_load %A[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 64] : !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
    mapped.tma_load %B[%c0, %k] -> %sB[%slot, %c0, %c0] shape [64, 64] : !mapped.buf<192x128xf16, global>, !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>>
    mapped.yield
  } consume {
  ^bb0(%k2: index, %slot2: index, %acc: !mapped.frag<64x64xf32, acc, wgmma>):
    %d = mapped.wgmma %sA[%slot2, %row, %c0], %sB[%slot2, %c0, %c0], %acc transposed : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>, !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>>, !mapped.frag<64x64xf32, acc, wgmma>
    mapped.yield %d : !mapped.frag<64x64xf32, acc, wgmma>
  }
  mapped.frag_store %r, %C[%row, %c0] : !mapped.frag<64x64xf32, acc, wgmma>, !mapped.buf<256x192xf16, global> epilogue {
  ^bb0(%v: f32, %i: index, %j: index):
    %h = arith.truncf %v : f32 to f16
    mapped.yield %h : f16
  }
  mapped.frag_store %r, %C[%row, %c64] via %sA, %sB : !mapped.frag<64x64xf32, acc, wgmma>, !mapped.buf<256x192xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>, !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>> epilogue {
  ^bb0(%v2: f32, %i2: index, %j2: index):
    %h2 = arith.truncf %v2 : f32 to f16
    mapped.yield %h2 : f16
  }
  mapped.return
}

// CHECK-LABEL: mapped.kernel @ws
// CHECK:         %wg = mapped.warpgroup_id
// CHECK:         %r = mapped.ws_pipeline %c0 to %c128 step %c64 stages 4 consumers 2 regs [40, 232] barriers %bars : !mapped.buf<8xi64, shared> iter_args(%z) -> (!mapped.frag<64x64xf32, acc, wgmma>) produce {
// CHECK-NEXT:    ^bb0(%k: index, %slot: index):
// CHECK-NEXT:      mapped.tma_load %A[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 64] : !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
// CHECK-NEXT:      mapped.tma_load %B[%c0, %k] -> %sB[%slot, %c0, %c0] shape [64, 64]
// CHECK-NEXT:      mapped.yield
// CHECK-NEXT:    } consume {
// CHECK-NEXT:    ^bb0(%k2: index, %slot2: index, %acc: !mapped.frag<64x64xf32, acc, wgmma>):
// CHECK-NEXT:      %d = mapped.wgmma %sA[%slot2, %row, %c0], %sB[%slot2, %c0, %c0], %acc transposed : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>, !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>>, !mapped.frag<64x64xf32, acc, wgmma>
// CHECK-NEXT:      mapped.yield %d : !mapped.frag<64x64xf32, acc, wgmma>
// CHECK-NEXT:    }
// CHECK:         mapped.frag_store %r, %C[%row, %c0] : !mapped.frag<64x64xf32, acc, wgmma>
// CHECK:         mapped.frag_store %r, %C[%row, %c64] via %sA, %sB : !mapped.frag<64x64xf32, acc, wgmma>, !mapped.buf<256x192xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>, !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>> epilogue {

// A stored K x M (a weight gradient's dy^T): TMA boxes of 64 (k) x 64 (m) into the panels of
// A's ring, read by wgmma's transposed A (`lhs_transposed`).
mapped.kernel @ws_at(%C: !mapped.buf<128x64xf16, global>, %A: !mapped.buf<128x128xf16, global>, %B: !mapped.buf<64x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %sA = mapped.alloc : !mapped.buf<4x2x64x64xf16, shared, swizzle<3, 4, 3>>
  %sB = mapped.alloc : !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>>
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  %wg = mapped.warpgroup_id
  %w = arith.subi %wg, %c1 : index
  %z = mapped.frag_fill 0.0 : !mapped.frag<64x64xf32, acc, wgmma>
  %r = mapped.ws_pipeline %c0 to %c128 step %c64 stages 4 consumers 2 regs [40, 232] barriers %bars : !mapped.buf<8xi64, shared> iter_args(%z) -> (!mapped.frag<64x64xf32, acc, wgmma>) produce {
  ^bb0(%k: index, %slot: index):
    mapped.tma_load %A[%k, %c0] -> %sA[%slot, %c0, %c0, %c0] shape [64, 64] : !mapped.buf<128x128xf16, global>, !mapped.buf<4x2x64x64xf16, shared, swizzle<3, 4, 3>>
    mapped.tma_load %A[%k, %c64] -> %sA[%slot, %c1, %c0, %c0] shape [64, 64] : !mapped.buf<128x128xf16, global>, !mapped.buf<4x2x64x64xf16, shared, swizzle<3, 4, 3>>
    mapped.tma_load %B[%c0, %k] -> %sB[%slot, %c0, %c0] shape [64, 64] : !mapped.buf<64x128xf16, global>, !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>>
    mapped.yield
  } consume {
  ^bb0(%k2: index, %slot2: index, %acc: !mapped.frag<64x64xf32, acc, wgmma>):
    %d = mapped.wgmma %sA[%slot2, %w, %c0, %c0], %sB[%slot2, %c0, %c0], %acc lhs_transposed transposed : !mapped.buf<4x2x64x64xf16, shared, swizzle<3, 4, 3>>, !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>>, !mapped.frag<64x64xf32, acc, wgmma>
    mapped.yield %d : !mapped.frag<64x64xf32, acc, wgmma>
  }
  mapped.return
}

// CHECK-LABEL: mapped.kernel @ws_at
// CHECK:         mapped.tma_load %A[%k, %c64] -> %sA[%slot, %c1, %c0, %c0] shape [64, 64]
// CHECK:         %d = mapped.wgmma %sA[%slot2, %w, %c0, %c0], %sB[%slot2, %c0, %c0], %acc lhs_transposed transposed : !mapped.buf<4x2x64x64xf16, shared, swizzle<3, 4, 3>>
