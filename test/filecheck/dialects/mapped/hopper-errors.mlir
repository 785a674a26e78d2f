// RUN: tilec-opt %s --split-input-file --verify-diagnostics

mapped.kernel @k(%A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  // expected-error @+1 {{ws_pipeline: regs [40, 256] do not fit: 40 + 2 x 256 exceeds the 3 x 168 registers per thread at entry}}
  mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 regs [40, 256] barriers %bars : !mapped.buf<8xi64, shared> produce {
  ^bb0(%k: index, %slot: index):
    mapped.yield
  } consume {
  ^bb0(%k2: index, %slot2: index):
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [256, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  // expected-error @+1 {{ws_pipeline: needs 384 threads (1 + 2 warpgroups), but the block has 256}}
  mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 regs [40, 232] barriers %bars : !mapped.buf<8xi64, shared> produce {
  ^bb0(%k: index, %slot: index):
    mapped.yield
  } consume {
  ^bb0(%k2: index, %slot2: index):
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %bars = mapped.alloc : !mapped.buf<6xi64, shared>
  // expected-error @+1 {{ws_pipeline: barriers is a shared 8xi64 buffer (full and empty per stage)}}
  mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 regs [40, 232] barriers %bars : !mapped.buf<6xi64, shared> produce {
  ^bb0(%k: index, %slot: index):
    mapped.yield
  } consume {
  ^bb0(%k2: index, %slot2: index):
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  // expected-error @+1 {{tma_load: belongs in the produce region of a mapped.ws_pipeline (its stage barrier)}}
  mapped.tma_load %A[%c0, %c0] -> %sA[%c0, %c0, %c0] shape [128, 64] : !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared>
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 regs [40, 232] barriers %bars : !mapped.buf<8xi64, shared> produce {
  ^bb0(%k: index, %slot: index):
    // expected-error @+1 {{tma_load: the destination must hold 128-byte rows (64 x 16-bit) in the swizzle<3, 4, 3> layout}}
    mapped.tma_load %A[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 64] : !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared>
    mapped.yield
  } consume {
  ^bb0(%k2: index, %slot2: index):
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  %sB = mapped.alloc : !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>>
  %z = mapped.frag_fill 0.0 : !mapped.frag<64x64xf32, acc, m16n8k16>
  // expected-error @+1 {{wgmma: accumulates into a wgmma acc fragment}}
  %d = mapped.wgmma %sA[%c0, %c0, %c0], %sB[%c0, %c0, %c0], %z transposed : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>, !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>>, !mapped.frag<64x64xf32, acc, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  %sB = mapped.alloc : !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>>
  %z = mapped.frag_fill 0.0 : !mapped.frag<64x128xf32, acc, wgmma>
  // expected-error @+1 {{wgmma: the B tile (N x K) has 64 rows for 128 columns}}
  %d = mapped.wgmma %sA[%c0, %c0, %c0], %sB[%c0, %c0, %c0], %z transposed : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>, !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>>, !mapped.frag<64x128xf32, acc, wgmma>
  mapped.return
}
