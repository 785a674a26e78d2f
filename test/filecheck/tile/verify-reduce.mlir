// Verifier errors of tile.reduce.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

tile.func @axis_range() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{reduce: axis 2 is out of range for rank 2}}
  %b = tile.reduce sum %a [2] : !tile.tile<4x8xf32> to !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @axis_negative() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{reduce: axis -1 is out of range for rank 2}}
  %b = tile.reduce sum %a [-1] : !tile.tile<4x8xf32> to !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @axis_twice() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{reduce: axis listed twice: [1, 1]}}
  %b = tile.reduce max %a [1, 1] : !tile.tile<4x8xf32> to !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @mask() {
  %a = tile.constant true : !tile.tile<4x8xi1>
  // expected-error @+1 {{reduce: cannot reduce an i1 (mask) tile}}
  %b = tile.reduce sum %a [1] : !tile.tile<4x8xi1> to !tile.tile<4xi1>
  tile.return
}

// -----

tile.func @elt() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf16>
  // expected-error @+1 {{reduce: element type must not change}}
  %b = tile.reduce sum %a [1] : !tile.tile<4x8xf16> to !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @shape() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{reduce: result shape should be 4, got 8}}
  %b = tile.reduce min %a [1] : !tile.tile<4x8xf32> to !tile.tile<8xf32>
  tile.return
}

// -----

tile.func @rank0() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{reduce: result shape should be , got 1}}
  %b = tile.reduce prod %a [0, 1] : !tile.tile<4x8xf32> to !tile.tile<1xf32>
  tile.return
}

// -----

tile.func @kind() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{reduce: unknown reduction 'mean' (expected one of sum, max, min, prod, argmax, argmin)}}
  %b = "tile.reduce"(%a) <{kind = "mean", axes = array<i64: 1>}> : (!tile.tile<4x8xf32>) -> !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @argmax_axes() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{reduce: argmax needs increasing axes (its index is row-major over them), got [1, 0]}}
  %b = tile.reduce argmax %a [1, 0] : !tile.tile<4x8xf32> to !tile.tile<i64>
  tile.return
}

// -----

tile.func @argmin_type() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{reduce: argmin gives i64 indices, not i32}}
  %b = tile.reduce argmin %a [1] : !tile.tile<4x8xf32> to !tile.tile<4xi32>
  tile.return
}

// -----

tile.func @argmax_shape() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{reduce: result shape should be 8, got 4}}
  %b = tile.reduce argmax %a [0] : !tile.tile<4x8xf32> to !tile.tile<4xi64>
  tile.return
}
