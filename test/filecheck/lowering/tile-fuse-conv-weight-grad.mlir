// tile-fuse with conv-weight-grad=true (the CUDA backend's with gemm=wgmma): a convolution's weight
// gradient as tilec.conv_backward_weight writes it (transposes of x and dy, a convolution with the
// batch axis contracted, a transpose of its result) is ONE `conv_weight_grad` group (issue 11);
// without it, transpose groups around a contraction group. On sm_90a the group is one wgmma
// kernel reading dy as it is and x through the forward convolution's window (cp.async panels).
// A transposed x that something else reads too keeps the ordinary groups.
// RUN: tilec-opt %s --split-input-file -p tile-fuse{conv-weight-grad=true} | filecheck %s
// RUN: tilec-opt %s --split-input-file -p tile-fuse{conv-weight-grad=true} | tilec-opt --split-input-file -p tile-fuse{conv-weight-grad=true} | filecheck %s
// RUN: tilec-opt %s --split-input-file -p tile-fuse | filecheck %s --check-prefix=PLAIN
// RUN: tilec-opt %s --split-input-file -p 'lower-to-ptx{sm=sm_90a}' -t ptx | filecheck %s --check-prefix=PTX
// RUN: tilec-opt %s --split-input-file -p 'lower-to-ptx{sm=sm_80}' -t ptx | filecheck %s --check-prefix=SM80

// CHECK-LABEL: tile.func @wgrad
// CHECK:         %[[W:.*]] = tile.fused conv_weight_grad
// CHECK:           tile.transpose
// CHECK:           tile.transpose
// CHECK:           tile.conv
// CHECK:           %[[T:.*]] = tile.transpose
// CHECK:           tile.yield %[[T]]
// CHECK-NOT:     tile.fused
// CHECK:         tile.store %[[W]], %out
// PLAIN-LABEL: tile.func @wgrad
// PLAIN:         tile.fused elementwise
// PLAIN:         tile.fused elementwise
// PLAIN:         tile.fused contraction
// PLAIN:         tile.fused elementwise
// PLAIN-NOT:     tile.fused conv_weight_grad
// PTX-LABEL:   .visible .entry tilec_u_wgrad_0_conv_weight_grad(
// PTX:           cp.async.cg.shared.global
// PTX:           cp.async.mbarrier.arrive.noinc
// the transposed A (dy stored P x O) and the MN-major B (the window's K x N panels)
// PTX:           wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, 1, 1, 1, 1, 1;
// PTX-NOT:     .entry
// SM80-NOT:    conv_weight_grad
// SM80:        mma.sync
tile.func @wgrad(%x: !tile.array<8x28x28x64xf16>, %dy: !tile.array<8x14x14x64xf16>) outs(%out: !tile.array<64x3x3x64xf16>) {
  %0 = tile.load %x : !tile.array<8x28x28x64xf16> -> !tile.tile<8x28x28x64xf16>
  %1 = tile.load %dy : !tile.array<8x14x14x64xf16> -> !tile.tile<8x14x14x64xf16>
  %2 = tile.reshape %0 : !tile.tile<8x28x28x64xf16> to !tile.tile<8x28x28x1x64xf16>
  %3 = tile.transpose %2 [4, 1, 2, 3, 0] : !tile.tile<8x28x28x1x64xf16> to !tile.tile<64x28x28x1x8xf16>
  %4 = tile.reshape %3 : !tile.tile<64x28x28x1x8xf16> to !tile.tile<64x28x28x8xf16>
  %5 = tile.reshape %1 : !tile.tile<8x14x14x64xf16> to !tile.tile<8x14x14x1x64xf16>
  %6 = tile.transpose %5 [3, 4, 1, 2, 0] : !tile.tile<8x14x14x1x64xf16> to !tile.tile<1x64x14x14x8xf16>
  %7 = tile.reshape %6 : !tile.tile<1x64x14x14x8xf16> to !tile.tile<64x14x14x8xf16>
  %8 = tile.conv %4, %7 stride [1, 1] padding [[1, 0], [1, 0]] dilation [2, 2] lhs_dilation [1, 1] groups 1 layout channels_last acc f32 : !tile.tile<64x28x28x8xf16>, !tile.tile<64x14x14x8xf16> -> !tile.tile<64x3x3x64xf16>
  %9 = tile.transpose %8 [3, 1, 2, 0] : !tile.tile<64x3x3x64xf16> to !tile.tile<64x3x3x64xf16>
  tile.store %9, %out : !tile.tile<64x3x3x64xf16>, !tile.array<64x3x3x64xf16>
  tile.return
}

// -----

// CHECK-LABEL: tile.func @shared_transpose
// CHECK-NOT:     tile.fused conv_weight_grad
// PTX-LABEL:   .visible .entry tilec_u_shared_transpose_0_contraction(
// PTX-NOT:     conv_weight_grad
tile.func @shared_transpose(%x: !tile.array<2x5x5x8xf16>, %dy: !tile.array<2x5x5x8xf16>) outs(%out: !tile.array<8x3x3x8xf16>, %xt: !tile.array<8x5x5x2xf16>) {
  %0 = tile.load %x : !tile.array<2x5x5x8xf16> -> !tile.tile<2x5x5x8xf16>
  %1 = tile.load %dy : !tile.array<2x5x5x8xf16> -> !tile.tile<2x5x5x8xf16>
  %2 = tile.transpose %0 [3, 1, 2, 0] : !tile.tile<2x5x5x8xf16> to !tile.tile<8x5x5x2xf16>
  %3 = tile.transpose %1 [3, 1, 2, 0] : !tile.tile<2x5x5x8xf16> to !tile.tile<8x5x5x2xf16>
  %4 = tile.conv %2, %3 stride [1, 1] padding [[1, 1], [1, 1]] dilation [1, 1] lhs_dilation [1, 1] groups 1 layout channels_last acc f32 : !tile.tile<8x5x5x2xf16>, !tile.tile<8x5x5x2xf16> -> !tile.tile<8x3x3x8xf16>
  %5 = tile.transpose %4 [3, 1, 2, 0] : !tile.tile<8x3x3x8xf16> to !tile.tile<8x3x3x8xf16>
  tile.store %5, %out : !tile.tile<8x3x3x8xf16>, !tile.array<8x3x3x8xf16>
  tile.store %2, %xt : !tile.tile<8x5x5x2xf16>, !tile.array<8x5x5x2xf16>
  tile.return
}
