// Verifier errors of tile.take, tile.take_along_axis and tile.scatter_add.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

tile.func @take_float_indices() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  %i = tile.constant 1.0 : !tile.tile<3xf32>
  // expected-error @+1 {{take: indices must be an integer tile (signed or unsigned), got !tile.tile<3xf32>}}
  %b = tile.take %a[%i] axis 0 : !tile.tile<4x8xf32>, !tile.tile<3xf32> to !tile.tile<3x8xf32>
  tile.return
}

// -----

tile.func @take_mask_indices() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  %i = tile.constant true : !tile.tile<3xi1>
  // expected-error @+1 {{take: indices must be an integer tile (signed or unsigned), got !tile.tile<3xi1>}}
  %b = tile.take %a[%i] axis 0 : !tile.tile<4x8xf32>, !tile.tile<3xi1> to !tile.tile<3x8xf32>
  tile.return
}

// -----

tile.func @take_wrong_shape() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  %i = tile.constant 1 : !tile.tile<3x2xi64>
  // expected-error @+1 {{take: result shape should be 4x3x2 (source.shape[:1] + indices.shape + source.shape[2:]), got 3x2x8}}
  %b = tile.take %a[%i] axis 1 : !tile.tile<4x8xf32>, !tile.tile<3x2xi64> to !tile.tile<3x2x8xf32>
  tile.return
}

// -----

tile.func @take_axis() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  %i = tile.constant 1 : !tile.tile<3xi64>
  // expected-error @+1 {{take: axis 2 is out of range for a source of rank 2}}
  %b = tile.take %a[%i] axis 2 : !tile.tile<4x8xf32>, !tile.tile<3xi64> to !tile.tile<4x8x3xf32>
  tile.return
}

// -----

tile.func @take_empty_axis() {
  %a = tile.constant 1.0 : !tile.tile<0x8xf32>
  %i = tile.constant 1 : !tile.tile<3xi64>
  // expected-error @+1 {{take: cannot take from the empty axis 0}}
  %b = tile.take %a[%i] axis 0 : !tile.tile<0x8xf32>, !tile.tile<3xi64> to !tile.tile<3x8xf32>
  tile.return
}

// -----

tile.func @take_element_type() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  %i = tile.constant 1 : !tile.tile<3xi64>
  // expected-error @+1 {{take: element type must not change: f32 vs f16}}
  %b = tile.take %a[%i] axis 0 : !tile.tile<4x8xf32>, !tile.tile<3xi64> to !tile.tile<3x8xf16>
  tile.return
}

// -----

tile.func @along_rank() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  %i = tile.constant 1 : !tile.tile<4xi64>
  // expected-error @+1 {{take_along_axis: indices must have the source's rank (2, got 1) and axis 1 lie in it}}
  %b = tile.take_along_axis %a[%i] axis 1 : !tile.tile<4x8xf32>, !tile.tile<4xi64> to !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @along_not_broadcast() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  %i = tile.constant 1 : !tile.tile<1x2xi64>
  // expected-error @+1 {{take_along_axis: indices axis 0 has size 1 but the source's is 4 (broadcast them first)}}
  %b = tile.take_along_axis %a[%i] axis 1 : !tile.tile<4x8xf32>, !tile.tile<1x2xi64> to !tile.tile<1x2xf32>
  tile.return
}

// -----

tile.func @along_result() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  %i = tile.constant 1 : !tile.tile<4x2xi64>
  // expected-error @+1 {{take_along_axis: result shape should be the indices' 4x2}}
  %b = tile.take_along_axis %a[%i] axis 1 : !tile.tile<4x8xf32>, !tile.tile<4x2xi64> to !tile.tile<4x3xf32>
  tile.return
}

// -----

tile.func @scatter_shapes() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  %i = tile.constant 1 : !tile.tile<6x8xi64>
  %u = tile.constant 1.0 : !tile.tile<5x8xf32>
  // expected-error @+1 {{scatter_add: indices 6x8 and updates 5x8 must have one shape}}
  %b = tile.scatter_add %a[%i], %u axis 0 : !tile.tile<4x8xf32>, !tile.tile<6x8xi64>, !tile.tile<5x8xf32> to !tile.tile<4x8xf32>
  tile.return
}

// -----

tile.func @scatter_other_axis() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  %i = tile.constant 1 : !tile.tile<6x7xi64>
  %u = tile.constant 1.0 : !tile.tile<6x7xf32>
  // expected-error @+1 {{scatter_add: indices axis 1 has size 7 but the source's is 8}}
  %b = tile.scatter_add %a[%i], %u axis 0 : !tile.tile<4x8xf32>, !tile.tile<6x7xi64>, !tile.tile<6x7xf32> to !tile.tile<4x8xf32>
  tile.return
}

// -----

tile.func @scatter_types() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  %i = tile.constant 1 : !tile.tile<6x8xi64>
  %u = tile.constant 1.0 : !tile.tile<6x8xf16>
  // expected-error @+1 {{scatter_add: updates and result must have the source's element type and the result its type !tile.tile<4x8xf32>}}
  %b = tile.scatter_add %a[%i], %u axis 0 : !tile.tile<4x8xf32>, !tile.tile<6x8xi64>, !tile.tile<6x8xf16> to !tile.tile<4x8xf32>
  tile.return
}

// -----

tile.func @scatter_mask() {
  %a = tile.constant true : !tile.tile<4x8xi1>
  %i = tile.constant 1 : !tile.tile<6x8xi64>
  %u = tile.constant true : !tile.tile<6x8xi1>
  // expected-error @+1 {{scatter_add: cannot accumulate into a mask (i1) tile}}
  %b = tile.scatter_add %a[%i], %u axis 0 : !tile.tile<4x8xi1>, !tile.tile<6x8xi64>, !tile.tile<6x8xi1> to !tile.tile<4x8xi1>
  tile.return
}
