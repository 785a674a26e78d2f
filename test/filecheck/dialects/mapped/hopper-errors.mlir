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
  // expected-error @+1 {{ws_pipeline: barriers is a shared 8xi64 buffer (full and empty per stage), got !mapped.buf<6xi64, shared>}}
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
    // expected-error @+1 {{tma_load: the destination must hold 128-byte rows (64 x 16-bit) in the swizzle<3, 4, 3> layout, got !mapped.buf<4x128x64xf16, shared>}}
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
  // expected-error @+1 {{wgmma: accumulates into a wgmma acc fragment, got !mapped.frag<64x64xf32, acc, m16n8k16>}}
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

// -----

mapped.kernel @k(%A: !mapped.buf<256x128xf16, global>, %G: !mapped.buf<4x128x64xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{tma_load: the destination lives in shared memory, got !mapped.buf<4x128x64xf16, global>}}
  mapped.tma_load %A[%c0, %c0] -> %G[%c0, %c0, %c0] shape [128, 64] : !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, global>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<2x256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  // expected-error @+1 {{tma_load: loads from a 2-D global buffer, got !mapped.buf<2x256x128xf16, global>}}
  mapped.tma_load %A[%c0, %c0, %c0] -> %sA[%c0, %c0, %c0] shape [128, 64] : !mapped.buf<2x256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  // expected-error @+1 {{tma_load: the box 64x64 must be the destination's last two axes 128x64}}
  mapped.tma_load %A[%c0, %c0] -> %sA[%c0, %c0, %c0] shape [64, 64] : !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<1024x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %sA = mapped.alloc : !mapped.buf<1x512x64xf16, shared, swizzle<3, 4, 3>>
  // expected-error @+1 {{tma_load: a TMA box has at most 256 rows, got 512}}
  mapped.tma_load %A[%c0, %c0] -> %sA[%c0, %c0, %c0] shape [512, 64] : !mapped.buf<1024x128xf16, global>, !mapped.buf<1x512x64xf16, shared, swizzle<3, 4, 3>>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  // expected-error @+1 {{tma_load: one thread issues a TMA load: it takes no `dist`}}
  mapped.tma_load %A[%c0, %c0] -> %sA[%c0, %c0, %c0] shape [128, 64] {dist = #mapped.dist<threads = [32, 4], vector = 8>} : !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  %sB = mapped.alloc : !mapped.buf<4x64x64xbf16, shared, swizzle<3, 4, 3>>
  %z = mapped.frag_fill 0.0 : !mapped.frag<64x64xf32, acc, wgmma>
  // expected-error @+1 {{wgmma: A and B hold the same f16 or bf16 type, got f16 and bf16}}
  %d = mapped.wgmma %sA[%c0, %c0, %c0], %sB[%c0, %c0, %c0], %z transposed : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>, !mapped.buf<4x64x64xbf16, shared, swizzle<3, 4, 3>>, !mapped.frag<64x64xf32, acc, wgmma>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %sA = mapped.alloc : !mapped.buf<1x128x64xf16, shared, swizzle<3, 4, 3>>
  %sB = mapped.alloc : !mapped.buf<1x264x64xf16, shared, swizzle<3, 4, 3>>
  %z = mapped.frag_fill 0.0 : !mapped.frag<64x264xf32, acc, wgmma>
  // expected-error @+1 {{wgmma: one wgmma computes at most 256 columns, got 264}}
  %d = mapped.wgmma %sA[%c0, %c0, %c0], %sB[%c0, %c0, %c0], %z transposed : !mapped.buf<1x128x64xf16, shared, swizzle<3, 4, 3>>, !mapped.buf<1x264x64xf16, shared, swizzle<3, 4, 3>>, !mapped.frag<64x264xf32, acc, wgmma>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %sA = mapped.alloc : !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>>
  %sB = mapped.alloc : !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>>
  %z = mapped.frag_fill 0.0 : !mapped.frag<128x64xf32, acc, wgmma>
  // expected-error @+1 {{wgmma: the A tile has 64 rows for a 128-row accumulator}}
  %d = mapped.wgmma %sA[%c0, %c0, %c0], %sB[%c0, %c0, %c0], %z transposed : !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>>, !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>>, !mapped.frag<128x64xf32, acc, wgmma>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %sA = mapped.alloc : !mapped.buf<2x128x64xf16, shared, swizzle<3, 4, 3>>
  %sB = mapped.alloc : !mapped.buf<2x128x64xf16, shared, swizzle<3, 4, 3>>
  %z = mapped.frag_fill 0.0 : !mapped.frag<64x128xf32, acc, wgmma>
  // expected-error @+1 {{wgmma: B (K x N) is 64-wide panels [2, 64, 64] for N = 128, got !mapped.buf<2x128x64xf16, shared, swizzle<3, 4, 3>>}}
  %d = mapped.wgmma %sA[%c0, %c0, %c0], %sB[%c0, %c0, %c0], %z : !mapped.buf<2x128x64xf16, shared, swizzle<3, 4, 3>>, !mapped.buf<2x128x64xf16, shared, swizzle<3, 4, 3>>, !mapped.frag<64x128xf32, acc, wgmma>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %sA = mapped.alloc : !mapped.buf<2x1x32x64xf16, shared, swizzle<3, 4, 3>>
  %sB = mapped.alloc : !mapped.buf<2x128x64xf16, shared, swizzle<3, 4, 3>>
  %z = mapped.frag_fill 0.0 : !mapped.frag<64x128xf32, acc, wgmma>
  // expected-error @+1 {{wgmma: A (K x M) is 64-wide panels [1, 64, 64] for M = 64, got !mapped.buf<2x1x32x64xf16, shared, swizzle<3, 4, 3>>}}
  %d = mapped.wgmma %sA[%c0, %c0, %c0, %c0], %sB[%c0, %c0, %c0], %z lhs_transposed transposed : !mapped.buf<2x1x32x64xf16, shared, swizzle<3, 4, 3>>, !mapped.buf<2x128x64xf16, shared, swizzle<3, 4, 3>>, !mapped.frag<64x128xf32, acc, wgmma>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [512, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  // expected-error @+1 {{ws_pipeline: 1 or 2 consumer warpgroups, got 3}}
  mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 3 regs [40, 160] barriers %bars : !mapped.buf<8xi64, shared> produce {
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
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  // expected-error @+1 {{ws_pipeline: regs are [producer, consumer], each a multiple of 8 from 24 to 256, got [40, 230]}}
  mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 regs [40, 230] barriers %bars : !mapped.buf<8xi64, shared> produce {
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
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  // expected-error @+1 {{ws_pipeline: ctas (blocks per SM) is 1 or 2, got 3}}
  mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 ctas 3 regs [40, 232] barriers %bars : !mapped.buf<8xi64, shared> produce {
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
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  // expected-error @+1 {{ws_pipeline: regs [176, 160]: the producer lowers its count and the consumers raise theirs, so producer <= 168 (the count at entry) <= consumer}}
  mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 regs [176, 160] barriers %bars : !mapped.buf<8xi64, shared> produce {
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
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  %sB = mapped.alloc : !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>>
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  // expected-error @+1 {{ws_pipeline: not supported yet: TMA loads and async copies in one produce region (a stage barrier counts either one transaction arrival or one arrival per producer thread)}}
  mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 regs [40, 232] barriers %bars : !mapped.buf<8xi64, shared> produce {
  ^bb0(%k: index, %slot: index):
    mapped.tma_load %A[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 64] : !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
    mapped.async_copy %A[%c0, %k] -> %sB[%slot, %c0, %c0] shape [64, 64] {dist = #mapped.dist<threads = [16, 8], vector = 8>} : !mapped.buf<256x128xf16, global>, !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>>
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
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  // expected-error @+1 {{ws_pipeline: produce issues TMA loads or async copies only (and index arithmetic), got mapped.barrier}}
  mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 regs [40, 232] barriers %bars : !mapped.buf<8xi64, shared> produce {
  ^bb0(%k: index, %slot: index):
    mapped.barrier
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
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  // expected-error @+1 {{ws_pipeline: every load of produce writes slot %slot of its ring (mapped.tma_load)}}
  mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 regs [40, 232] barriers %bars : !mapped.buf<8xi64, shared> produce {
  ^bb0(%k: index, %slot: index):
    mapped.tma_load %A[%c0, %k] -> %sA[%c0, %c0, %c0] shape [128, 64] : !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
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
  %sA = mapped.alloc : !mapped.buf<2x128x64xf16, shared, swizzle<3, 4, 3>>
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  // expected-error @+1 {{ws_pipeline: the ring !mapped.buf<2x128x64xf16, shared, swizzle<3, 4, 3>> has 2 slots for 4 stages}}
  mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 regs [40, 232] barriers %bars : !mapped.buf<8xi64, shared> produce {
  ^bb0(%k: index, %slot: index):
    mapped.tma_load %A[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 64] : !mapped.buf<256x128xf16, global>, !mapped.buf<2x128x64xf16, shared, swizzle<3, 4, 3>>
    mapped.yield
  } consume {
  ^bb0(%k2: index, %slot2: index):
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%C: !mapped.buf<256x128xf16, global>, %A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  %small = mapped.alloc : !mapped.buf<64x64xf16, shared>
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  %z = mapped.frag_fill 0.0 : !mapped.frag<64x128xf32, acc, wgmma>
  %r = mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 regs [40, 232] barriers %bars : !mapped.buf<8xi64, shared> iter_args(%z) -> (!mapped.frag<64x128xf32, acc, wgmma>) produce {
  ^bb0(%k: index, %slot: index):
    mapped.tma_load %A[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 64] : !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
    mapped.yield
  } consume {
  ^bb0(%k2: index, %slot2: index, %acc: !mapped.frag<64x128xf32, acc, wgmma>):
    mapped.yield %acc : !mapped.frag<64x128xf32, acc, wgmma>
  }
  // expected-error @+1 {{frag_store: the staging buffer !mapped.buf<64x64xf16, shared> holds 8192 bytes; 2 warpgroups' 64x128 tile of f16 needs 34816}}
  mapped.frag_store %r, %C[%c0, %c0] via %small : !mapped.frag<64x128xf32, acc, wgmma>, !mapped.buf<256x128xf16, global>, !mapped.buf<64x64xf16, shared> epilogue {
  ^bb0(%v: f32, %i: index, %j: index):
    %h = arith.truncf %v : f32 to f16
    mapped.yield %h : f16
  }
  mapped.return
}

// -----

mapped.kernel @k(%C: !mapped.buf<256x?xf16, global>, %A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  %small = mapped.alloc : !mapped.buf<64x64xf16, shared>
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  %z = mapped.frag_fill 0.0 : !mapped.frag<64x128xf32, acc, wgmma>
  %r = mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 regs [40, 232] barriers %bars : !mapped.buf<8xi64, shared> iter_args(%z) -> (!mapped.frag<64x128xf32, acc, wgmma>) produce {
  ^bb0(%k: index, %slot: index):
    mapped.tma_load %A[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 64] : !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
    mapped.yield
  } consume {
  ^bb0(%k2: index, %slot2: index, %acc: !mapped.frag<64x128xf32, acc, wgmma>):
    mapped.yield %acc : !mapped.frag<64x128xf32, acc, wgmma>
  }
  // expected-error @+1 {{frag_store: a staged store writes rows of whole 16-byte chunks: the destination's rows are dynamic}}
  mapped.frag_store %r, %C[%c0, %c0] via %sA : !mapped.frag<64x128xf32, acc, wgmma>, !mapped.buf<256x?xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>> epilogue {
  ^bb0(%v: f32, %i: index, %j: index):
    %h = arith.truncf %v : f32 to f16
    mapped.yield %h : f16
  }
  mapped.return
}

// -----

mapped.kernel @k(%C: !mapped.buf<256x100xf16, global>, %A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  %small = mapped.alloc : !mapped.buf<64x64xf16, shared>
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  %z = mapped.frag_fill 0.0 : !mapped.frag<64x128xf32, acc, wgmma>
  %r = mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 regs [40, 232] barriers %bars : !mapped.buf<8xi64, shared> iter_args(%z) -> (!mapped.frag<64x128xf32, acc, wgmma>) produce {
  ^bb0(%k: index, %slot: index):
    mapped.tma_load %A[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 64] : !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
    mapped.yield
  } consume {
  ^bb0(%k2: index, %slot2: index, %acc: !mapped.frag<64x128xf32, acc, wgmma>):
    mapped.yield %acc : !mapped.frag<64x128xf32, acc, wgmma>
  }
  // expected-error @+1 {{frag_store: a staged store writes rows of whole 16-byte chunks: the destination's rows are 100 x f16}}
  mapped.frag_store %r, %C[%c0, %c0] via %sA : !mapped.frag<64x128xf32, acc, wgmma>, !mapped.buf<256x100xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>> epilogue {
  ^bb0(%v: f32, %i: index, %j: index):
    %h = arith.truncf %v : f32 to f16
    mapped.yield %h : f16
  }
  mapped.return
}

// -----

mapped.kernel @k(%C: !mapped.buf<256x128xf16, global>, %A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  %small = mapped.alloc : !mapped.buf<64x64xf16, shared>
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  %z = mapped.frag_fill 0.0 : !mapped.frag<64x128xf32, acc, wgmma>
  %r = mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 regs [40, 232] barriers %bars : !mapped.buf<8xi64, shared> iter_args(%z) -> (!mapped.frag<64x128xf32, acc, wgmma>) produce {
  ^bb0(%k: index, %slot: index):
    mapped.tma_load %A[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 64] : !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
    mapped.yield
  } consume {
  ^bb0(%k2: index, %slot2: index, %acc: !mapped.frag<64x128xf32, acc, wgmma>):
    mapped.yield %acc : !mapped.frag<64x128xf32, acc, wgmma>
  }
  // expected-error @+1 {{frag_store: stages the result of a mapped.ws_pipeline only (its consumers run the store)}}
  mapped.frag_store %z, %C[%c0, %c0] via %sA : !mapped.frag<64x128xf32, acc, wgmma>, !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>> epilogue {
  ^bb0(%v: f32, %i: index, %j: index):
    %h = arith.truncf %v : f32 to f16
    mapped.yield %h : f16
  }
  mapped.return
}

// -----

mapped.kernel @k(%C: !mapped.buf<256x128xf16, global>, %A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  %small = mapped.alloc : !mapped.buf<64x64xf16, shared>
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  %z = mapped.frag_fill 0.0 : !mapped.frag<64x128xf32, acc, wgmma>
  %r = mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 regs [40, 232] barriers %bars : !mapped.buf<8xi64, shared> iter_args(%z) -> (!mapped.frag<64x128xf32, acc, wgmma>) produce {
  ^bb0(%k: index, %slot: index):
    mapped.tma_load %A[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 64] : !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
    mapped.yield
  } consume {
  ^bb0(%k2: index, %slot2: index, %acc: !mapped.frag<64x128xf32, acc, wgmma>):
    mapped.yield %acc : !mapped.frag<64x128xf32, acc, wgmma>
  }
  // expected-error @+1 {{frag_store: stages through shared buffers, got !mapped.buf<256x128xf16, global>}}
  mapped.frag_store %r, %C[%c0, %c0] via %A : !mapped.frag<64x128xf32, acc, wgmma>, !mapped.buf<256x128xf16, global>, !mapped.buf<256x128xf16, global> epilogue {
  ^bb0(%v: f32, %i: index, %j: index):
    %h = arith.truncf %v : f32 to f16
    mapped.yield %h : f16
  }
  mapped.return
}

// -----

mapped.kernel @k(%C: !mapped.buf<256x128xi8, global>, %A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  %small = mapped.alloc : !mapped.buf<64x64xf16, shared>
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  %z = mapped.frag_fill 0.0 : !mapped.frag<64x128xf32, acc, wgmma>
  %r = mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 regs [40, 232] barriers %bars : !mapped.buf<8xi64, shared> iter_args(%z) -> (!mapped.frag<64x128xf32, acc, wgmma>) produce {
  ^bb0(%k: index, %slot: index):
    mapped.tma_load %A[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 64] : !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
    mapped.yield
  } consume {
  ^bb0(%k2: index, %slot2: index, %acc: !mapped.frag<64x128xf32, acc, wgmma>):
    mapped.yield %acc : !mapped.frag<64x128xf32, acc, wgmma>
  }
  // expected-error @+1 {{frag_store: a staged store writes 16- or 32-bit elements, got i8}}
  mapped.frag_store %r, %C[%c0, %c0] via %sA : !mapped.frag<64x128xf32, acc, wgmma>, !mapped.buf<256x128xi8, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>> epilogue {
  ^bb0(%v: f32, %i: index, %j: index):
    %h = arith.fptosi %v : f32 to i8
    mapped.yield %h : i8
  }
  mapped.return
}

// -----

mapped.kernel @k(%C: !mapped.buf<256x128xf16, global>, %A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  %small = mapped.alloc : !mapped.buf<64x64xf16, shared>
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  %z = mapped.frag_fill 0.0 : !mapped.frag<64x128xf32, acc, wgmma>
  %r = mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 regs [40, 232] barriers %bars : !mapped.buf<8xi64, shared> iter_args(%z) -> (!mapped.frag<64x128xf32, acc, wgmma>) produce {
  ^bb0(%k: index, %slot: index):
    mapped.tma_load %A[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 64] : !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
    mapped.yield
  } consume {
  ^bb0(%k2: index, %slot2: index, %acc: !mapped.frag<64x128xf32, acc, wgmma>):
    mapped.yield %acc : !mapped.frag<64x128xf32, acc, wgmma>
  }
  // expected-error @+1 {{frag_store: stages through one buffer or one per consumer warpgroup (2), got 3}}
  mapped.frag_store %r, %C[%c0, %c0] via %sA, %sA, %small : !mapped.frag<64x128xf32, acc, wgmma>, !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>, !mapped.buf<64x64xf16, shared> epilogue {
  ^bb0(%v: f32, %i: index, %j: index):
    %h = arith.truncf %v : f32 to f16
    mapped.yield %h : f16
  }
  mapped.return
}

// -----

mapped.kernel @k(%C: !mapped.buf<256x128xf16, global>, %A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  %small = mapped.alloc : !mapped.buf<64x64xf16, shared>
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  %z = mapped.frag_fill 0.0 : !mapped.frag<64x128xf32, acc, wgmma>
  %r = mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 regs [40, 232] barriers %bars : !mapped.buf<8xi64, shared> iter_args(%z) -> (!mapped.frag<64x128xf32, acc, wgmma>) produce {
  ^bb0(%k: index, %slot: index):
    mapped.tma_load %A[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 64] : !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
    mapped.yield
  } consume {
  ^bb0(%k2: index, %slot2: index, %acc: !mapped.frag<64x128xf32, acc, wgmma>):
    mapped.yield %acc : !mapped.frag<64x128xf32, acc, wgmma>
  }
  // expected-error @+1 {{frag_store: the staging buffer !mapped.buf<64x64xf16, shared> holds 8192 bytes; each consumer warpgroup's 64x128 tile of f16 needs 17408}}
  mapped.frag_store %r, %C[%c0, %c0] via %sA, %small : !mapped.frag<64x128xf32, acc, wgmma>, !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>, !mapped.buf<64x64xf16, shared> epilogue {
  ^bb0(%v: f32, %i: index, %j: index):
    %h = arith.truncf %v : f32 to f16
    mapped.yield %h : f16
  }
  mapped.return
}

// -----

mapped.kernel @k(%C: !mapped.buf<64x64xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 40000 {
  %c0 = arith.constant 0 : index
  %sA = mapped.alloc : !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>>
  %z = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  // expected-error @+1 {{frag_store: stages the wgmma accumulators of a mapped.ws_pipeline only, got a m16n8k16 fragment}}
  mapped.frag_store %z, %C[%c0, %c0] via %sA : !mapped.frag<16x8xf32, acc, m16n8k16>, !mapped.buf<64x64xf16, global>, !mapped.buf<4x64x64xf16, shared, swizzle<3, 4, 3>> epilogue {
  ^bb0(%v: f32, %i: index, %j: index):
    %h = arith.truncf %v : f32 to f16
    mapped.yield %h : f16
  }
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<256x128xf16, global>) target gpu grid [1, 1, 1] block [384, 1, 1] smem 99000 {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %sA = mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
  %out = mapped.alloc : !mapped.buf<64x128xf16, shared>
  %bars = mapped.alloc : !mapped.buf<8xi64, shared>
  %z = mapped.frag_fill 0.0 : !mapped.frag<64x128xf32, acc, wgmma>
  %r = mapped.ws_pipeline %c0 to %c64 step %c64 stages 4 consumers 2 regs [40, 232] barriers %bars : !mapped.buf<8xi64, shared> iter_args(%z) -> (!mapped.frag<64x128xf32, acc, wgmma>) produce {
  ^bb0(%k: index, %slot: index):
    mapped.tma_load %A[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 64] : !mapped.buf<256x128xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
    mapped.yield
  } consume {
  ^bb0(%k2: index, %slot2: index, %acc: !mapped.frag<64x128xf32, acc, wgmma>):
    mapped.yield %acc : !mapped.frag<64x128xf32, acc, wgmma>
  }
  // expected-error @+1 {{frag_store: a staged store writes a global buffer, got !mapped.buf<64x128xf16, shared>}}
  mapped.frag_store %r, %out[%c0, %c0] via %sA : !mapped.frag<64x128xf32, acc, wgmma>, !mapped.buf<64x128xf16, shared>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>> epilogue {
  ^bb0(%v: f32, %i: index, %j: index):
    %h = arith.truncf %v : f32 to f16
    mapped.yield %h : f16
  }
  mapped.return
}
