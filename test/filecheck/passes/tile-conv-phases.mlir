// tile-conv-phases: a convolution of a stride-dilated input (what conv_transpose and a strided
// input gradient trace to) as one stride-1 convolution per phase of the stride: output i = 2q + r
// only meets the taps k0 + 2j with k0 = (lo - r) mod 2. Phases no tap reaches are zeros; the
// phases are interleaved (unit reshapes, a concat, a merging reshape) and cut to the output size.
// `max-channels` leaves convolutions with more output channels per group alone (the GPU backends').
// RUN: tilec-opt %s --split-input-file -p tile-conv-phases | filecheck %s
// RUN: tilec-opt %s --split-input-file -p tile-conv-phases | tilec-opt --split-input-file -p tile-conv-phases | filecheck %s
// RUN: tilec-opt %s --split-input-file -p tile-conv-phases{max-channels=4} | filecheck %s --check-prefix=WIDE
// RUN: tilec-opt %s --split-input-file -p lower-to-c -t c | filecheck %s --check-prefix=C

// A 1-d stride-2 input gradient, kernel 3, padding 1, 7 outputs: lo = 1, phase 0 takes tap 1, phase
// 1 taps 0 and 2 (4 positions each, cut from 8 to 7).
// CHECK-LABEL: tile.func @dgrad
// CHECK-NOT:     lhs_dilation [2]
// CHECK:         %[[W0:.*]] = tile.slice %{{.*}} offsets [0, 1, 0] strides [1, 2, 1] : !tile.tile<6x3x5xf32> to !tile.tile<6x1x5xf32>
// CHECK:         %[[P0:.*]] = tile.conv %{{.*}}, %[[W0]] stride [1] padding {{\[\[}}0, 0]] dilation [1] lhs_dilation [1] {{.*}} -> !tile.tile<2x4x6xf32>
// CHECK:         %[[W1:.*]] = tile.slice %{{.*}} offsets [0, 0, 0] strides [1, 2, 1] : !tile.tile<6x3x5xf32> to !tile.tile<6x2x5xf32>
// CHECK:         %[[P1:.*]] = tile.conv %{{.*}}, %[[W1]] stride [1] padding {{\[\[}}0, 1]] dilation [1] lhs_dilation [1] {{.*}} -> !tile.tile<2x4x6xf32>
// CHECK:         tile.concat {{.*}} axis 2 : !tile.tile<2x4x1x6xf32>, !tile.tile<2x4x1x6xf32> to !tile.tile<2x4x2x6xf32>
// CHECK:         tile.reshape {{.*}} to !tile.tile<2x8x6xf32>
// CHECK:         %[[Y:.*]] = tile.slice {{.*}} offsets [0, 0, 0] strides [1, 1, 1] : !tile.tile<2x8x6xf32> to !tile.tile<2x7x6xf32>
// CHECK:         tile.store %[[Y]], %out
// WIDE-LABEL:  tile.func @dgrad
// WIDE:          tile.conv {{.*}} lhs_dilation [2]
// (each phase's taps copied, its convolution, then the interleave: one copy kernel)
// C-LABEL:     tilec_u_dgrad_0_elementwise(
// C:           tilec_u_dgrad_1_contraction(
// C:           tilec_u_dgrad_2_elementwise(
// C:           tilec_u_dgrad_3_contraction(
// C:           tilec_u_dgrad_4_elementwise(
// C-NOT:       tilec_u_dgrad_5_
tile.func @dgrad(%dy: !tile.array<2x4x5xf32>, %w: !tile.array<6x3x5xf32>) outs(%out: !tile.array<2x7x6xf32>) {
  %0 = tile.load %dy : !tile.array<2x4x5xf32> -> !tile.tile<2x4x5xf32>
  %1 = tile.load %w : !tile.array<6x3x5xf32> -> !tile.tile<6x3x5xf32>
  %2 = tile.conv %0, %1 stride [1] padding [[1, 1]] dilation [1] lhs_dilation [2] groups 1 layout channels_last acc f32 : !tile.tile<2x4x5xf32>, !tile.tile<6x3x5xf32> -> !tile.tile<2x7x6xf32>
  tile.store %2, %out : !tile.tile<2x7x6xf32>, !tile.array<2x7x6xf32>
  tile.return
}

// -----

// A 1x1 kernel with stride 3 (a downsample's input gradient): phases 1 and 2 get no tap (zeros).
// CHECK-LABEL: tile.func @downsample
// CHECK-NOT:     tile.slice %1
// CHECK:         tile.conv %0, %1 {{.*}} lhs_dilation [1, 1]
// CHECK-COUNT-2: tile.constant 0.000000e+00 : !tile.tile<1x4x5x5xf32>
// CHECK-NOT:     tile.conv
// CHECK:         tile.concat {{.*}} axis 3
// C-LABEL:     tilec_u_downsample_0_contraction(
// C:           tilec_u_downsample_1_elementwise(
// C-NOT:       tilec_u_downsample_2_
tile.func @downsample(%dy: !tile.array<1x4x5x8xf32>, %w: !tile.array<5x1x1x8xf32>) outs(%out: !tile.array<1x4x12x5xf32>) {
  %0 = tile.load %dy : !tile.array<1x4x5x8xf32> -> !tile.tile<1x4x5x8xf32>
  %1 = tile.load %w : !tile.array<5x1x1x8xf32> -> !tile.tile<5x1x1x8xf32>
  %2 = tile.conv %0, %1 stride [1, 1] padding [[0, 0], [0, 2]] dilation [1, 1] lhs_dilation [1, 3] groups 1 layout channels_last acc f32 : !tile.tile<1x4x5x8xf32>, !tile.tile<5x1x1x8xf32> -> !tile.tile<1x4x15x5xf32>
  %3 = tile.slice %2 offsets [0, 0, 0, 0] strides [1, 1, 1, 1] : !tile.tile<1x4x15x5xf32> to !tile.tile<1x4x12x5xf32>
  tile.store %3, %out : !tile.tile<1x4x12x5xf32>, !tile.array<1x4x12x5xf32>
  tile.return
}
