// mapped.async_copy_window (the im2col staging of the implicit-GEMM convolution): syntax round trip.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

mapped.kernel @win(%X: !mapped.buf<2x15x15x64xf16, global>, %S: !mapped.buf<1x224x224x3xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 24576 {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = arith.constant 576 : index
  %sA = mapped.alloc : !mapped.buf<3x128x32xf16, shared>
  mapped.pipeline %c0 to %K step %c32 stages 3 produce {
  ^bb0(%k: index, %slot: index):
    mapped.async_copy_window %X[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 32] out [8, 8] kernel [3, 3] stride [2, 2] dilation [1, 1] lhs_dilation [1, 1] pad_lo [1, -1] : !mapped.buf<2x15x15x64xf16, global>, !mapped.buf<3x128x32xf16, shared>
    mapped.async_copy_window %S[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 32] out [112, 112] kernel [7, 7] stride [2, 2] dilation [1, 1] lhs_dilation [1, 1] pad_lo [3, 3] channels 8 : !mapped.buf<1x224x224x3xf16, global>, !mapped.buf<3x128x32xf16, shared>
    mapped.yield
  } consume {
  ^bb0(%k2: index, %s2: index):
    mapped.yield
  }
  mapped.return
}

// CHECK-LABEL: mapped.kernel @win
// CHECK: mapped.async_copy_window %X[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 32] out [8, 8] kernel [3, 3] stride [2, 2] dilation [1, 1] lhs_dilation [1, 1] pad_lo [1, -1] : !mapped.buf<2x15x15x64xf16, global>, !mapped.buf<3x128x32xf16, shared>
// CHECK: mapped.async_copy_window %S[%c0, %k] -> %sA[%slot, %c0, %c0] shape [128, 32] out [112, 112] kernel [7, 7] stride [2, 2] dilation [1, 1] lhs_dilation [1, 1] pad_lo [3, 3] channels 8 : !mapped.buf<1x224x224x3xf16, global>, !mapped.buf<3x128x32xf16, shared>
