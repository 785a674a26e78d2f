// Verifier and parser errors of tile.slice, tile.dynamic_slice, tile.concat and tile.pad.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

tile.func @slice_out_of_range() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{slice: axis 1: offset 6 stride 1 size 4 reads indices 6..9, outside [0, 8)}}
  %b = tile.slice %a offsets [0, 6] strides [1, 1] : !tile.tile<4x8xf32> to !tile.tile<4x4xf32>
  tile.return
}

// -----

tile.func @slice_negative_stride_past_start() {
  %a = tile.constant 1.0 : !tile.tile<8xf32>
  // expected-error @+1 {{slice: axis 0: offset 2 stride -2 size 3 reads indices 2..-2, outside [0, 8)}}
  %b = tile.slice %a offsets [2] strides [-2] : !tile.tile<8xf32> to !tile.tile<3xf32>
  tile.return
}

// -----

tile.func @slice_zero_stride() {
  %a = tile.constant 1.0 : !tile.tile<8xf32>
  // expected-error @+1 {{slice: axis 0: stride must not be 0}}
  %b = tile.slice %a offsets [0] strides [0] : !tile.tile<8xf32> to !tile.tile<3xf32>
  tile.return
}

// -----

tile.func @slice_rank(%n: index) {
  %a = tile.constant 1.0 : !tile.tile<8xf32>
  // expected-error @+1 {{slice: needs one offset and one stride per axis and the same rank: source rank 1, result rank 1, 2 offsets, 1 strides}}
  %b = tile.slice %a offsets [0, 0] strides [1] : !tile.tile<8xf32> to !tile.tile<3xf32>
  tile.return
}

// -----

tile.func @slice_dynamic_part(%X: !tile.array<?xf32>) {
  %x = tile.load %X : !tile.array<?xf32> -> !tile.tile<?xf32>
  // expected-error @+1 {{slice: axis 0: a dynamic result size needs a dynamic source axis kept whole (offsets 0 / strides 1, or offsets -1 / strides -1 to reverse it), got size ? -> ?, offset 1, stride 1}}
  %b = tile.slice %x offsets [1] strides [1] : !tile.tile<?xf32> to !tile.tile<?xf32>
  tile.return
}

// -----

tile.func @slice_dynamic_below_zero(%X: !tile.array<?xf32>) {
  %x = tile.load %X : !tile.array<?xf32> -> !tile.tile<?xf32>
  // expected-error @+1 {{slice: axis 0: offset 2 stride -1 size 4 reads index -1 < 0}}
  %b = tile.slice %x offsets [2] strides [-1] : !tile.tile<?xf32> to !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @slice_element_type() {
  %a = tile.constant 1.0 : !tile.tile<8xf32>
  // expected-error @+1 {{slice: element type must not change: f32 vs f16}}
  %b = tile.slice %a offsets [0] strides [1] : !tile.tile<8xf32> to !tile.tile<3xf16>
  tile.return
}

// -----

tile.func @dynamic_slice_float_start() {
  %a = tile.constant 1.0 : !tile.tile<8xf32>
  %i = tile.constant 1.0 : !tile.tile<f32>
  // expected-error @+1 {{dynamic_slice: start must be a rank-0 integer tile, got !tile.tile<f32>}}
  %b = tile.dynamic_slice %a[%i] axis 0 : !tile.tile<8xf32>, !tile.tile<f32> to !tile.tile<3xf32>
  tile.return
}

// -----

tile.func @dynamic_slice_too_big() {
  %a = tile.constant 1.0 : !tile.tile<8xf32>
  %i = tile.constant 1 : !tile.tile<i64>
  // expected-error @+1 {{dynamic_slice: window size 9 is larger than the source's axis 0 (8)}}
  %b = tile.dynamic_slice %a[%i] axis 0 : !tile.tile<8xf32>, !tile.tile<i64> to !tile.tile<9xf32>
  tile.return
}

// -----

tile.func @dynamic_slice_dynamic_axis(%X: !tile.array<?xf32>) {
  %x = tile.load %X : !tile.array<?xf32> -> !tile.tile<?xf32>
  %i = tile.constant 1 : !tile.tile<i64>
  // expected-error @+1 {{dynamic_slice: the window size on axis 0 must be static, got ? -> ?}}
  %b = tile.dynamic_slice %x[%i] axis 0 : !tile.tile<?xf32>, !tile.tile<i64> to !tile.tile<?xf32>
  tile.return
}

// -----

tile.func @concat_sizes() {
  %a = tile.constant 1.0 : !tile.tile<4x3xf32>
  // expected-error @+1 {{concat: result axis 1 has size 7, the inputs sum to 6}}
  %c = tile.concat %a, %a axis 1 : !tile.tile<4x3xf32>, !tile.tile<4x3xf32> to !tile.tile<4x7xf32>
  tile.return
}

// -----

tile.func @concat_other_axis() {
  %a = tile.constant 1.0 : !tile.tile<4x3xf32>
  %b = tile.constant 1.0 : !tile.tile<5x3xf32>
  // expected-error @+1 {{concat: input 1 axis 0 has size 5 but the result's is 4}}
  %c = tile.concat %a, %b axis 1 : !tile.tile<4x3xf32>, !tile.tile<5x3xf32> to !tile.tile<4x6xf32>
  tile.return
}

// -----

tile.func @concat_dynamic_axis(%X: !tile.array<?xf32>) {
  %x = tile.load %X : !tile.array<?xf32> -> !tile.tile<?xf32>
  // expected-error @+1 {{concat: input 0 has a dynamic size on the concatenated axis 0}}
  %c = tile.concat %x, %x axis 0 : !tile.tile<?xf32>, !tile.tile<?xf32> to !tile.tile<?xf32>
  tile.return
}

// -----

tile.func @concat_types() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  %b = tile.constant 1.0 : !tile.tile<4xf16>
  // expected-error @+1 {{concat: input 1 is !tile.tile<4xf16>, but the result is !tile.tile<8xf32>: element type and rank must agree}}
  %c = tile.concat %a, %b axis 0 : !tile.tile<4xf32>, !tile.tile<4xf16> to !tile.tile<8xf32>
  tile.return
}

// -----

tile.func @pad_size() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // expected-error @+1 {{pad: axis 0: 4 + 1 + 2 is 7, but the result has 8}}
  %b = tile.pad %a low [1] high [2] value 0.0 : !tile.tile<4xf32> to !tile.tile<8xf32>
  tile.return
}

// -----

tile.func @pad_negative() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // expected-error @+1 {{pad: axis 0: widths must be >= 0, got low -1 high 2}}
  %b = tile.pad %a low [-1] high [2] value 0.0 : !tile.tile<4xf32> to !tile.tile<5xf32>
  tile.return
}

// -----

tile.func @pad_float_into_int() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  // expected-error @+1 {{pad: value has type f64 but the tile holds i32}}
  %b = tile.pad %a low [1] high [0] value 0.5 : !tile.tile<4xi32> to !tile.tile<5xi32>
  tile.return
}

// -----

tile.func @pad_dynamic(%X: !tile.array<?xf32>) {
  %x = tile.load %X : !tile.array<?xf32> -> !tile.tile<?xf32>
  // expected-error @+1 {{pad: axis 0: a dynamic axis cannot be padded (? -> ?)}}
  %b = tile.pad %x low [1] high [0] value 0.0 : !tile.tile<?xf32> to !tile.tile<?xf32>
  tile.return
}
