// Verifier and syntax errors of tile.sort and tile.topk.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

tile.func @axis_range() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{sort: axis 2 is out of range for rank 2}}
  %v, %i = tile.sort %a axis 2 : !tile.tile<4x8xf32> -> !tile.tile<4x8xf32>, !tile.tile<4x8xi64>
  tile.return
}

// -----

tile.func @mask() {
  %a = tile.constant true : !tile.tile<4x8xi1>
  // expected-error @+1 {{sort: orders float and integer tiles (not i1 or fp8), got i1}}
  %v, %i = tile.sort %a axis 1 : !tile.tile<4x8xi1> -> !tile.tile<4x8xi1>, !tile.tile<4x8xi64>
  tile.return
}

// -----

tile.func @values_type() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{sort: values must be a 4x8 tile of f32, got !tile.tile<4x8xf16>}}
  %v, %i = tile.sort %a axis 1 : !tile.tile<4x8xf32> -> !tile.tile<4x8xf16>, !tile.tile<4x8xi64>
  tile.return
}

// -----

tile.func @indices_type() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{sort: indices must be a 4x8 tile of i64, got !tile.tile<4x8xi32>}}
  %v, %i = tile.sort %a axis 1 : !tile.tile<4x8xf32> -> !tile.tile<4x8xf32>, !tile.tile<4x8xi32>
  tile.return
}

// -----

tile.func @k_too_large() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{topk: k = 9 is larger than axis 1's size 8}}
  %v, %i = tile.topk %a k 9 axis 1 : !tile.tile<4x8xf32> -> !tile.tile<4x9xf32>, !tile.tile<4x9xi64>
  tile.return
}

// -----

tile.func @k_zero() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{topk: k must be at least 1, got 0}}
  %v, %i = tile.topk %a k 0 axis 1 : !tile.tile<4x8xf32> -> !tile.tile<4x0xf32>, !tile.tile<4x0xi64>
  tile.return
}

// -----

tile.func @topk_shape() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{topk: values must be a 4x3 tile of f32, got !tile.tile<4x8xf32>}}
  %v, %i = tile.topk %a k 3 axis 1 : !tile.tile<4x8xf32> -> !tile.tile<4x8xf32>, !tile.tile<4x3xi64>
  tile.return
}

// -----

tile.func @syntax() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{Expected 'axis'}}
  %v, %i = tile.sort %a descending : !tile.tile<4x8xf32> -> !tile.tile<4x8xf32>, !tile.tile<4x8xi64>
  tile.return
}
