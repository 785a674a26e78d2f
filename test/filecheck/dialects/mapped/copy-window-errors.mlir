// RUN: tilec-opt %s --split-input-file --verify-diagnostics

mapped.kernel @k(%X: !mapped.buf<2x15x15x64xf16, global>, %Y: !mapped.buf<128x32xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{async_copy_window: copies global -> shared only, got global -> global}}
  mapped.async_copy_window %X[%c0, %c0] -> %Y[%c0, %c0] shape [128, 32] out [8, 8] kernel [3, 3] stride [2, 2] dilation [1, 1] lhs_dilation [1, 1] pad_lo [1, 1] : !mapped.buf<2x15x15x64xf16, global>, !mapped.buf<128x32xf16, global>
  mapped.return
}

// -----

mapped.kernel @k(%X: !mapped.buf<2x15x15x64xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 8192 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<128x32xf16, shared>
  // expected-error @+1 {{async_copy_window: stride has 1 entries but the kernel has 2 spatial axes}}
  mapped.async_copy_window %X[%c0, %c0] -> %s[%c0, %c0] shape [128, 32] out [8, 8] kernel [3, 3] stride [2] dilation [1, 1] lhs_dilation [1, 1] pad_lo [1, 1] : !mapped.buf<2x15x15x64xf16, global>, !mapped.buf<128x32xf16, shared>
  mapped.return
}

// -----

mapped.kernel @k(%X: !mapped.buf<2x15x15x64xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 8192 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<128x32xf16, shared>
  // expected-error @+1 {{async_copy_window: dilation entries must be >= 1, got [0, 1]}}
  mapped.async_copy_window %X[%c0, %c0] -> %s[%c0, %c0] shape [128, 32] out [8, 8] kernel [3, 3] stride [2, 2] dilation [0, 1] lhs_dilation [1, 1] pad_lo [1, 1] : !mapped.buf<2x15x15x64xf16, global>, !mapped.buf<128x32xf16, shared>
  mapped.return
}

// -----

mapped.kernel @k(%X: !mapped.buf<2x15x64xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 8192 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<128x32xf16, shared>
  // expected-error @+1 {{async_copy_window: the source !mapped.buf<2x15x64xf16, global> must be (N, *spatial, C): rank 4 for 2 spatial axes}}
  mapped.async_copy_window %X[%c0, %c0] -> %s[%c0, %c0] shape [128, 32] out [8, 8] kernel [3, 3] stride [2, 2] dilation [1, 1] lhs_dilation [1, 1] pad_lo [1, 1] : !mapped.buf<2x15x64xf16, global>, !mapped.buf<128x32xf16, shared>
  mapped.return
}

// -----

mapped.kernel @k(%X: !mapped.buf<2x15x15x3xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 8192 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<128x32xf16, shared>
  // expected-error @+1 {{async_copy_window: channels (3) and window columns (32) must be whole 16-byte chunks of f16 (pad the channels with `channels N`)}}
  mapped.async_copy_window %X[%c0, %c0] -> %s[%c0, %c0] shape [128, 32] out [8, 8] kernel [3, 3] stride [2, 2] dilation [1, 1] lhs_dilation [1, 1] pad_lo [1, 1] : !mapped.buf<2x15x15x3xf16, global>, !mapped.buf<128x32xf16, shared>
  mapped.return
}

// -----

mapped.kernel @k(%X: !mapped.buf<2x15x15x64xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 8192 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<64x32xf16, shared>
  // expected-error @+1 {{async_copy_window: window 128x32 does not fit the destination !mapped.buf<64x32xf16, shared>}}
  mapped.async_copy_window %X[%c0, %c0] -> %s[%c0, %c0] shape [128, 32] out [8, 8] kernel [3, 3] stride [2, 2] dilation [1, 1] lhs_dilation [1, 1] pad_lo [1, 1] : !mapped.buf<2x15x15x64xf16, global>, !mapped.buf<64x32xf16, shared>
  mapped.return
}

// -----

func.func @f(%X: !mapped.buf<2x15x15x64xf16, global>, %s: !mapped.buf<128x32xf16, shared>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{async_copy_window: must be inside a mapped.kernel with target gpu}}
  mapped.async_copy_window %X[%c0, %c0] -> %s[%c0, %c0] shape [128, 32] out [8, 8] kernel [3, 3] stride [2, 2] dilation [1, 1] lhs_dilation [1, 1] pad_lo [1, 1] : !mapped.buf<2x15x15x64xf16, global>, !mapped.buf<128x32xf16, shared>
  func.return
}

// -----

mapped.kernel @k(%X: !mapped.buf<2x15x15x12xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 8192 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<128x32xf16, shared>
  // expected-error @+1 {{async_copy_window: channels 8 is fewer than the source's 12}}
  mapped.async_copy_window %X[%c0, %c0] -> %s[%c0, %c0] shape [128, 32] out [8, 8] kernel [3, 3] stride [2, 2] dilation [1, 1] lhs_dilation [1, 1] pad_lo [1, 1] channels 8 : !mapped.buf<2x15x15x12xf16, global>, !mapped.buf<128x32xf16, shared>
  mapped.return
}

// -----

mapped.kernel @k(%X: !mapped.buf<2x15x15x64xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 8192 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<128x32xf16, shared>
  // expected-error @+1 {{async_copy_window: a convolution has 1 to 3 spatial axes, got kernel [1, 1, 1, 1]}}
  mapped.async_copy_window %X[%c0, %c0] -> %s[%c0, %c0] shape [128, 32] out [1, 1, 1, 1] kernel [1, 1, 1, 1] stride [1, 1, 1, 1] dilation [1, 1, 1, 1] lhs_dilation [1, 1, 1, 1] pad_lo [0, 0, 0, 0] : !mapped.buf<2x15x15x64xf16, global>, !mapped.buf<128x32xf16, shared>
  mapped.return
}

// -----

mapped.kernel @k(%X: !mapped.buf<?x15x15x64xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 8192 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<128x32xf16, shared>
  // expected-error @+1 {{async_copy_window: the source !mapped.buf<?x15x15x64xf16, global> must have static sizes}}
  mapped.async_copy_window %X[%c0, %c0] -> %s[%c0, %c0] shape [128, 32] out [8, 8] kernel [3, 3] stride [2, 2] dilation [1, 1] lhs_dilation [1, 1] pad_lo [1, 1] : !mapped.buf<?x15x15x64xf16, global>, !mapped.buf<128x32xf16, shared>
  mapped.return
}

// -----

mapped.kernel @k(%X: !mapped.buf<2x15x15x64xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 8192 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<128x32xf16, shared>
  // expected-error @+1 {{async_copy_window: takes the tile's (row, column) in the im2col matrix: 2 indices, got 3}}
  mapped.async_copy_window %X[%c0, %c0, %c0] -> %s[%c0, %c0] shape [128, 32] out [8, 8] kernel [3, 3] stride [2, 2] dilation [1, 1] lhs_dilation [1, 1] pad_lo [1, 1] : !mapped.buf<2x15x15x64xf16, global>, !mapped.buf<128x32xf16, shared>
  mapped.return
}

// -----

mapped.kernel @k(%X: !mapped.buf<2x15x15x64xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 8192 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<128x32xf16, shared>
  // expected-error @+1 {{async_copy_window: window shape must be 2 positive sizes [rows, cols], got [128]}}
  mapped.async_copy_window %X[%c0, %c0] -> %s[%c0, %c0] shape [128] out [8, 8] kernel [3, 3] stride [2, 2] dilation [1, 1] lhs_dilation [1, 1] pad_lo [1, 1] : !mapped.buf<2x15x15x64xf16, global>, !mapped.buf<128x32xf16, shared>
  mapped.return
}
