// tile-conv-unfold: a 16-bit channels-last convolution whose C is not a multiple of 8 (the stem)
// over its input unfolded along the last spatial axis: x'[n, h, q, (j, c)] = x_padded[n, h, 2q + j, c],
// k x C = 21 channels padded once to 24 (one gather from x's rows by an iota index q * 6 + m - 9,
// zeros where it falls in the padding or m >= 21); the weight reshaped (O, 7, 1, 21) and padded the same way;
// the convolution then has one tap on that axis, stride 1, no padding there. A 3x3 over 3 channels
// (16 of 24 columns) is left alone; with weight-grad, a weight gradient is rewritten the same way
// (its result cut to k x C channels and reshaped); without, it is never read as a forward one.
// RUN: tilec-opt %s --split-input-file -p tile-conv-unfold | filecheck %s
// RUN: tilec-opt %s --split-input-file -p tile-conv-unfold | tilec-opt --split-input-file -p tile-conv-unfold | filecheck %s
// RUN: tilec-opt %s --split-input-file -p tile-conv-unfold{weight-grad=true} | filecheck %s --check-prefix=WG

// CHECK-LABEL: tile.func @stem
// CHECK:         %[[ROW:.*]] = tile.reshape %{{.*}} : !tile.tile<1x9x9x3xf16> to !tile.tile<1x9x27xf16>
// CHECK:         %[[Q:.*]] = tile.iota 0 : !tile.tile<5x24xi32>
// CHECK:         %[[M:.*]] = tile.iota 1 : !tile.tile<5x24xi32>
// CHECK:         %[[QS:.*]] = tile.mul %[[Q]], %{{.*}} : !tile.tile<5x24xi32>
// CHECK:         %[[I0:.*]] = tile.add %[[QS]], %[[M]] : !tile.tile<5x24xi32>
// CHECK:         %[[I:.*]] = tile.sub %[[I0]], %{{.*}} : !tile.tile<5x24xi32>
// CHECK:         tile.cmp lt %[[M]], %{{.*}} : !tile.tile<5x24xi32>
// CHECK:         tile.cmp ge %[[I]], %{{.*}} : !tile.tile<5x24xi32>
// CHECK:         tile.cmp lt %[[I]], %{{.*}} : !tile.tile<5x24xi32>
// CHECK:         %[[LOW:.*]] = tile.min %[[I]], %{{.*}} : !tile.tile<5x24xi32>
// CHECK:         %[[SAFE:.*]] = tile.max %[[LOW]], %{{.*}} : !tile.tile<5x24xi32>
// CHECK:         %[[T:.*]] = tile.take %[[ROW]][%[[SAFE]]] axis 2 : !tile.tile<1x9x27xf16>, !tile.tile<5x24xi32> to !tile.tile<1x9x5x24xf16>
// CHECK:         %[[X:.*]] = tile.select %{{.*}}, %[[T]], %{{.*}} : !tile.tile<1x9x5x24xf16>
// CHECK:         %[[WR:.*]] = tile.reshape %{{.*}} : !tile.tile<8x7x7x3xf16> to !tile.tile<8x7x1x21xf16>
// CHECK:         %[[W:.*]] = tile.pad %[[WR]] low [0, 0, 0, 0] high [0, 0, 0, 3] {{.*}} to !tile.tile<8x7x1x24xf16>
// CHECK:         tile.conv %[[X]], %[[W]] stride [2, 1] padding {{\[\[}}3, 3], [0, 0]] dilation [1, 1] {{.*}} -> !tile.tile<1x5x5x8xf16>
// WG-LABEL:    tile.func @stem
// WG:            tile.take
builtin.module {
  tile.func @stem(%x: !tile.array<1x9x9x3xf16>, %w: !tile.array<8x7x7x3xf16>) outs(%out: !tile.array<1x5x5x8xf16>) {
    %0 = tile.load %x : !tile.array<1x9x9x3xf16> -> !tile.tile<1x9x9x3xf16>
    %1 = tile.load %w : !tile.array<8x7x7x3xf16> -> !tile.tile<8x7x7x3xf16>
    %2 = tile.conv %0, %1 stride [2, 2] padding [[3, 3], [3, 3]] dilation [1, 1] lhs_dilation [1, 1] groups 1 layout channels_last acc f32 : !tile.tile<1x9x9x3xf16>, !tile.tile<8x7x7x3xf16> -> !tile.tile<1x5x5x8xf16>
    tile.store %2, %out : !tile.tile<1x5x5x8xf16>, !tile.array<1x5x5x8xf16>
    tile.return
  }
}

// -----

// CHECK-LABEL: tile.func @narrow
// CHECK-NOT:     tile.take
// CHECK:         tile.conv %{{.*}}, %{{.*}} stride [1, 1] padding {{\[\[}}1, 1], [1, 1]] {{.*}} : !tile.tile<1x5x5x3xf16>, !tile.tile<8x3x3x3xf16>
builtin.module {
  tile.func @narrow(%x: !tile.array<1x5x5x3xf16>, %w: !tile.array<8x3x3x3xf16>) outs(%out: !tile.array<1x5x5x8xf16>) {
    %0 = tile.load %x : !tile.array<1x5x5x3xf16> -> !tile.tile<1x5x5x3xf16>
    %1 = tile.load %w : !tile.array<8x3x3x3xf16> -> !tile.tile<8x3x3x3xf16>
    %2 = tile.conv %0, %1 stride [1, 1] padding [[1, 1], [1, 1]] dilation [1, 1] lhs_dilation [1, 1] groups 1 layout channels_last acc f32 : !tile.tile<1x5x5x3xf16>, !tile.tile<8x3x3x3xf16> -> !tile.tile<1x5x5x8xf16>
    tile.store %2, %out : !tile.tile<1x5x5x8xf16>, !tile.array<1x5x5x8xf16>
    tile.return
  }
}

// -----

// CHECK-LABEL: tile.func @wgrad
// CHECK-NOT:     tile.take
// CHECK:         tile.conv {{.*}} -> !tile.tile<3x5x5x8xf16>
// WG-LABEL:    tile.func @wgrad
// WG:            tile.take {{.*}} to !tile.tile<2x11x6x16xf16>
// WG:            %[[X:.*]] = tile.select {{.*}} : !tile.tile<2x11x6x16xf16>
// WG:            %[[XT:.*]] = tile.transpose %[[X]] [3, 1, 2, 0] : !tile.tile<2x11x6x16xf16> to !tile.tile<16x11x6x2xf16>
// WG:            %[[R:.*]] = tile.conv %[[XT]], %{{.*}} stride [1, 1] padding {{\[\[}}2, 2], [0, 0]] dilation [2, 1] {{.*}} -> !tile.tile<16x5x1x8xf16>
// WG:            %[[DW:.*]] = tile.transpose %[[R]] [3, 1, 2, 0] : !tile.tile<16x5x1x8xf16> to !tile.tile<8x5x1x16xf16>
// WG:            %[[CUT:.*]] = tile.slice %[[DW]] offsets [0, 0, 0, 0] strides [1, 1, 1, 1] : !tile.tile<8x5x1x16xf16> to !tile.tile<8x5x1x15xf16>
// WG:            %[[OUT:.*]] = tile.reshape %[[CUT]] : !tile.tile<8x5x1x15xf16> to !tile.tile<8x5x5x3xf16>
// WG:            tile.store %[[OUT]], %out
// WG-NOT:        tile.conv
builtin.module {
  tile.func @wgrad(%x: !tile.array<2x11x11x3xf16>, %dy: !tile.array<2x6x6x8xf16>) outs(%out: !tile.array<8x5x5x3xf16>) {
    %0 = tile.load %x : !tile.array<2x11x11x3xf16> -> !tile.tile<2x11x11x3xf16>
    %1 = tile.load %dy : !tile.array<2x6x6x8xf16> -> !tile.tile<2x6x6x8xf16>
    %2 = tile.reshape %0 : !tile.tile<2x11x11x3xf16> to !tile.tile<2x11x11x1x3xf16>
    %3 = tile.transpose %2 [4, 1, 2, 3, 0] : !tile.tile<2x11x11x1x3xf16> to !tile.tile<3x11x11x1x2xf16>
    %4 = tile.reshape %3 : !tile.tile<3x11x11x1x2xf16> to !tile.tile<3x11x11x2xf16>
    %5 = tile.reshape %1 : !tile.tile<2x6x6x8xf16> to !tile.tile<2x6x6x1x8xf16>
    %6 = tile.transpose %5 [3, 4, 1, 2, 0] : !tile.tile<2x6x6x1x8xf16> to !tile.tile<1x8x6x6x2xf16>
    %7 = tile.reshape %6 : !tile.tile<1x8x6x6x2xf16> to !tile.tile<8x6x6x2xf16>
    %8 = tile.conv %4, %7 stride [1, 1] padding [[2, 2], [2, 2]] dilation [2, 2] lhs_dilation [1, 1] groups 1 layout channels_last acc f32 : !tile.tile<3x11x11x2xf16>, !tile.tile<8x6x6x2xf16> -> !tile.tile<3x5x5x8xf16>
    %9 = tile.transpose %8 [3, 1, 2, 0] : !tile.tile<3x5x5x8xf16> to !tile.tile<8x5x5x3xf16>
    tile.store %9, %out : !tile.tile<8x5x5x3xf16>, !tile.array<8x5x5x3xf16>
    tile.return
  }
}
