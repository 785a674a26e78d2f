// tile.conv: 2-d strided (the op's documented form), 1-d grouped channels-last with asymmetric
// and negative (cropping) padding, 3-d dilated with lhs_dilation (a transposed convolution),
// depthwise, integers (i32 accumulator by default).
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @conv
tile.func @conv() {
  %x = tile.constant 1.0 : !tile.tile<8x64x56x56xf16>
  %w = tile.constant 1.0 : !tile.tile<64x64x3x3xf16>
  // CHECK: %y = tile.conv %x, %w stride [2, 2] padding [[1, 1], [1, 1]] dilation [1, 1] lhs_dilation [1, 1] groups 1 layout channels_first acc f32 : !tile.tile<8x64x56x56xf16>, !tile.tile<64x64x3x3xf16> -> !tile.tile<8x64x28x28xf16>
  // GENERIC: %y = "tile.conv"(%x, %w) <{stride = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, groups = #builtin.int<1>, layout = "channels_first", acc = f32}> : (!tile.tile<8x64x56x56xf16>, !tile.tile<64x64x3x3xf16>) -> !tile.tile<8x64x28x28xf16>
  %y = tile.conv %x, %w stride [2, 2] padding [[1, 1], [1, 1]] dilation [1, 1] lhs_dilation [1, 1] groups 1 layout channels_first acc f32 : !tile.tile<8x64x56x56xf16>, !tile.tile<64x64x3x3xf16> -> !tile.tile<8x64x28x28xf16>
  // The accumulator defaults as tile.contract's and is always printed.
  // CHECK-NEXT: %y2 = tile.conv %x, %w stride [1, 1] padding [[0, 0], [0, 0]] dilation [1, 1] lhs_dilation [1, 1] groups 1 layout channels_first acc f32 : !tile.tile<8x64x56x56xf16>, !tile.tile<64x64x3x3xf16> -> !tile.tile<8x64x54x54xf32>
  %y2 = tile.conv %x, %w stride [1, 1] padding [[0, 0], [0, 0]] dilation [1, 1] lhs_dilation [1, 1] groups 1 layout channels_first : !tile.tile<8x64x56x56xf16>, !tile.tile<64x64x3x3xf16> -> !tile.tile<8x64x54x54xf32>

  // 1-d, channels last, 2 groups: (13 + 2 - 1 - 5) // 3 + 1 = 4
  %a = tile.constant 1.0 : !tile.tile<2x13x6xf32>
  %b = tile.constant 1.0 : !tile.tile<4x5x3xf32>
  // CHECK: %c = tile.conv %a, %b stride [3] padding [[2, -1]] dilation [1] lhs_dilation [1] groups 2 layout channels_last acc f32 {note = "x"} : !tile.tile<2x13x6xf32>, !tile.tile<4x5x3xf32> -> !tile.tile<2x4x4xf32>
  %c = tile.conv %a, %b stride [3] padding [[2, -1]] dilation [1] lhs_dilation [1] groups 2 layout channels_last {note = "x"} : !tile.tile<2x13x6xf32>, !tile.tile<4x5x3xf32> -> !tile.tile<2x4x4xf32>

  // 3-d: lhs_dilation 2 makes 5 -> 9; dilation 2, kernel 3 spans 5; padding 4 + 5: (9 + 9 - 4 - 1) + 1 = 14
  %p = tile.constant 1.0 : !tile.tile<1x2x5x5x5xf64>
  %q = tile.constant 1.0 : !tile.tile<3x2x3x3x3xf64>
  // CHECK: %r = tile.conv %p, %q stride [1, 1, 1] padding [[4, 5], [0, 0], [1, 1]] dilation [2, 1, 1] lhs_dilation [2, 1, 1] groups 1 layout channels_first acc f64 : !tile.tile<1x2x5x5x5xf64>, !tile.tile<3x2x3x3x3xf64> -> !tile.tile<1x3x14x3x5xf64>
  %r = tile.conv %p, %q stride [1, 1, 1] padding [[4, 5], [0, 0], [1, 1]] dilation [2, 1, 1] lhs_dilation [2, 1, 1] groups 1 layout channels_first : !tile.tile<1x2x5x5x5xf64>, !tile.tile<3x2x3x3x3xf64> -> !tile.tile<1x3x14x3x5xf64>

  // depthwise: groups = C, one input channel per group
  %dx = tile.constant 1.0 : !tile.tile<2x7x7x32xbf16>
  %dw = tile.constant 1.0 : !tile.tile<32x3x3x1xbf16>
  // CHECK: %dy = tile.conv %dx, %dw stride [1, 1] padding [[1, 1], [1, 1]] dilation [1, 1] lhs_dilation [1, 1] groups 32 layout channels_last acc f32 : !tile.tile<2x7x7x32xbf16>, !tile.tile<32x3x3x1xbf16> -> !tile.tile<2x7x7x32xbf16>
  %dy = tile.conv %dx, %dw stride [1, 1] padding [[1, 1], [1, 1]] dilation [1, 1] lhs_dilation [1, 1] groups 32 layout channels_last : !tile.tile<2x7x7x32xbf16>, !tile.tile<32x3x3x1xbf16> -> !tile.tile<2x7x7x32xbf16>

  %i = tile.constant 1 : !tile.tile<1x4x9xi8>
  %j = tile.constant 1 : !tile.tile<2x4x3xi8>
  // CHECK: %k = tile.conv %i, %j stride [1] padding [[0, 0]] dilation [1] lhs_dilation [1] groups 1 layout channels_first acc i32 : !tile.tile<1x4x9xi8>, !tile.tile<2x4x3xi8> -> !tile.tile<1x2x7xi32>
  %k = tile.conv %i, %j stride [1] padding [[0, 0]] dilation [1] lhs_dilation [1] groups 1 layout channels_first : !tile.tile<1x4x9xi8>, !tile.tile<2x4x3xi8> -> !tile.tile<1x2x7xi32>
  tile.return
}
