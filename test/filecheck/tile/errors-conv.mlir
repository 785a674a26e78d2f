// tile.conv verifier errors, each at the op's line.
// RUN: not tilec-opt %s --split-input-file 2>&1 | filecheck %s
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

tile.func @groups() {
  %x = tile.constant 1.0 : !tile.tile<1x6x8x8xf32>
  %w = tile.constant 1.0 : !tile.tile<4x2x3x3xf32>
  // CHECK: errors-conv.mlir:[[# @LINE + 2]]:3: error: conv: input channels (6) are not divisible by groups (4)
  // expected-error @+1 {{conv: input channels (6) are not divisible by groups (4)}}
  %y = tile.conv %x, %w stride [1, 1] padding [[0, 0], [0, 0]] dilation [1, 1] lhs_dilation [1, 1] groups 4 layout channels_first : !tile.tile<1x6x8x8xf32>, !tile.tile<4x2x3x3xf32> -> !tile.tile<1x4x6x6xf32>
  tile.return
}

// -----

tile.func @weight_channels() {
  %x = tile.constant 1.0 : !tile.tile<1x6x8x8xf32>
  %w = tile.constant 1.0 : !tile.tile<4x2x3x3xf32>
  // CHECK: error: conv: weight has 2 input channels per group, expected 6 (= 6 / groups 1)
  // expected-error @+1 {{conv: weight has 2 input channels per group, expected 6 (= 6 / groups 1)}}
  %y = tile.conv %x, %w stride [1, 1] padding [[0, 0], [0, 0]] dilation [1, 1] lhs_dilation [1, 1] groups 1 layout channels_first : !tile.tile<1x6x8x8xf32>, !tile.tile<4x2x3x3xf32> -> !tile.tile<1x4x6x6xf32>
  tile.return
}

// -----

tile.func @out_groups() {
  %x = tile.constant 1.0 : !tile.tile<1x6x8x8xf32>
  %w = tile.constant 1.0 : !tile.tile<4x2x3x3xf32>
  // CHECK: error: conv: output channels (4) are not divisible by groups (3)
  // expected-error @+1 {{conv: output channels (4) are not divisible by groups (3)}}
  %y = tile.conv %x, %w stride [1, 1] padding [[0, 0], [0, 0]] dilation [1, 1] lhs_dilation [1, 1] groups 3 layout channels_first : !tile.tile<1x6x8x8xf32>, !tile.tile<4x2x3x3xf32> -> !tile.tile<1x4x6x6xf32>
  tile.return
}

// -----

tile.func @too_small() {
  %x = tile.constant 1.0 : !tile.tile<1x2x4xf32>
  %w = tile.constant 1.0 : !tile.tile<3x2x3xf32>
  // CHECK: error: conv: spatial axis 0: output size -2 < 1 (input 4, kernel 3, padding [0, 0], stride 1, dilation 3)
  // expected-error @+1 {{conv: spatial axis 0: output size -2 < 1 (input 4, kernel 3, padding [0, 0], stride 1, dilation 3)}}
  %y = tile.conv %x, %w stride [1] padding [[0, 0]] dilation [3] lhs_dilation [1] groups 1 layout channels_first : !tile.tile<1x2x4xf32>, !tile.tile<3x2x3xf32> -> !tile.tile<1x3x1xf32>
  tile.return
}

// -----

tile.func @shape() {
  %x = tile.constant 1.0 : !tile.tile<1x2x9xf32>
  %w = tile.constant 1.0 : !tile.tile<3x2x3xf32>
  // CHECK: error: conv: result shape should be 1x3x4, got 1x3x7
  // expected-error @+1 {{conv: result shape should be 1x3x4, got 1x3x7}}
  %y = tile.conv %x, %w stride [2] padding [[0, 0]] dilation [1] lhs_dilation [1] groups 1 layout channels_first : !tile.tile<1x2x9xf32>, !tile.tile<3x2x3xf32> -> !tile.tile<1x3x7xf32>
  tile.return
}

// -----

tile.func @rank() {
  %x = tile.constant 1.0 : !tile.tile<2x9xf32>
  %w = tile.constant 1.0 : !tile.tile<3x2x3xf32>
  // CHECK: error: conv: input must have rank 3 for 1 spatial axes, got 2x9
  // expected-error @+1 {{conv: input must have rank 3 for 1 spatial axes, got 2x9}}
  %y = tile.conv %x, %w stride [1] padding [[0, 0]] dilation [1] lhs_dilation [1] groups 1 layout channels_first : !tile.tile<2x9xf32>, !tile.tile<3x2x3xf32> -> !tile.tile<1x3x7xf32>
  tile.return
}

// -----

tile.func @lists() {
  %x = tile.constant 1.0 : !tile.tile<1x2x9xf32>
  %w = tile.constant 1.0 : !tile.tile<3x2x3xf32>
  // CHECK: error: conv: dilation has 2 entries, expected 1 for 1 spatial axes
  // expected-error @+1 {{conv: dilation has 2 entries, expected 1 for 1 spatial axes}}
  %y = tile.conv %x, %w stride [1] padding [[0, 0]] dilation [1, 1] lhs_dilation [1] groups 1 layout channels_first : !tile.tile<1x2x9xf32>, !tile.tile<3x2x3xf32> -> !tile.tile<1x3x7xf32>
  tile.return
}

// -----

tile.func @stride0() {
  %x = tile.constant 1.0 : !tile.tile<1x2x9xf32>
  %w = tile.constant 1.0 : !tile.tile<3x2x3xf32>
  // CHECK: error: conv: stride entries must be >= 1, got [0]
  // expected-error @+1 {{conv: stride entries must be >= 1, got [0]}}
  %y = tile.conv %x, %w stride [0] padding [[0, 0]] dilation [1] lhs_dilation [1] groups 1 layout channels_first : !tile.tile<1x2x9xf32>, !tile.tile<3x2x3xf32> -> !tile.tile<1x3x7xf32>
  tile.return
}

// -----

tile.func @types() {
  %x = tile.constant 1.0 : !tile.tile<1x2x9xf32>
  %w = tile.constant 1.0 : !tile.tile<3x2x3xf16>
  // CHECK: error: conv: input holds f32 but weight holds f16 (cast one first)
  // expected-error @+1 {{conv: input holds f32 but weight holds f16 (cast one first)}}
  %y = tile.conv %x, %w stride [1] padding [[0, 0]] dilation [1] lhs_dilation [1] groups 1 layout channels_first : !tile.tile<1x2x9xf32>, !tile.tile<3x2x3xf16> -> !tile.tile<1x3x7xf32>
  tile.return
}

// -----

tile.func @acc() {
  %x = tile.constant 1.0 : !tile.tile<1x2x9xf32>
  %w = tile.constant 1.0 : !tile.tile<3x2x3xf32>
  // CHECK: error: conv: accumulator f16 must be a float at least as wide as the inputs (f32)
  // expected-error @+1 {{conv: accumulator f16 must be a float at least as wide as the inputs (f32)}}
  %y = tile.conv %x, %w stride [1] padding [[0, 0]] dilation [1] lhs_dilation [1] groups 1 layout channels_first acc f16 : !tile.tile<1x2x9xf32>, !tile.tile<3x2x3xf32> -> !tile.tile<1x3x7xf32>
  tile.return
}

// -----

tile.func @dynamic(%n: index) {
  %x = tile.constant 1.0 sizes(%n) : !tile.tile<?x2x9xf32>
  %w = tile.constant 1.0 : !tile.tile<3x2x3xf32>
  // CHECK: error: conv: not supported yet: convolutions over tiles with dynamic sizes (input ?x2x9)
  // expected-error @+1 {{conv: not supported yet: convolutions over tiles with dynamic sizes (input ?x2x9)}}
  %y = tile.conv %x, %w stride [1] padding [[0, 0]] dilation [1] lhs_dilation [1] groups 1 layout channels_first : !tile.tile<?x2x9xf32>, !tile.tile<3x2x3xf32> -> !tile.tile<?x3x7xf32>
  tile.return
}

// -----

tile.func @layout() {
  %x = tile.constant 1.0 : !tile.tile<1x2x9xf32>
  %w = tile.constant 1.0 : !tile.tile<3x2x3xf32>
  // CHECK: errors-conv.mlir:[[# @LINE + 2]]:99: error: expected a convolution layout (channels_first, channels_last)
  // expected-error @+1 {{expected a convolution layout (channels_first, channels_last)}}
  %y = tile.conv %x, %w stride [1] padding [[0, 0]] dilation [1] lhs_dilation [1] groups 1 layout nchw : !tile.tile<1x2x9xf32>, !tile.tile<3x2x3xf32> -> !tile.tile<1x3x7xf32>
  tile.return
}
