// Verifier errors of tile.dim, tile.constant, tile.iota and tile.splat.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

tile.func @dim_axis(%A: !tile.array<?x64xf32>) {
  // expected-error @+1 {{dim: axis 2 is out of range for rank 2}}
  %n = tile.dim %A 2 : !tile.array<?x64xf32>
  tile.return
}

// -----

tile.func @dim_rank0(%A: !tile.array<f32>) {
  // expected-error @+1 {{dim: axis 0 is out of range for rank 0}}
  %n = tile.dim %A 0 : !tile.array<f32>
  tile.return
}

// -----

tile.func @constant_missing_sizes() {
  // expected-error @+1 {{constant: result type !tile.tile<?x64xf32> has 1 dynamic dimension(s) but 0 size operand(s) were given}}
  %c = tile.constant 1.0 : !tile.tile<?x64xf32>
  tile.return
}

// -----

tile.func @constant_extra_sizes(%n: index) {
  // expected-error @+1 {{constant: result type !tile.tile<4xf32> has 0 dynamic dimension(s) but 1 size operand(s) were given}}
  %c = tile.constant 1.0 sizes(%n) : !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @constant_value_type() {
  // expected-error @+1 {{constant: value has type f16 but the tile holds f32}}
  %c = "tile.constant"() <{value = 1.0 : f16}> : () -> !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @constant_dense_type() {
  // expected-error @+1 {{constant: dense value holds i32 but the tile holds i64}}
  %c = "tile.constant"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> !tile.tile<2xi64>
  tile.return
}

// -----

tile.func @constant_dense_shape() {
  // expected-error @+1 {{constant: dense value has shape 2 but the tile is 3}}
  %c = "tile.constant"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> !tile.tile<3xi32>
  tile.return
}

// -----

tile.func @constant_size_type(%n: i32) {
  // expected-error @+1 {{tile.constant: operand 'sizes' at position 0 does not verify: i32 should be of base attribute index}}
  %c = "tile.constant"(%n) <{value = 1.0 : f32}> : (i32) -> !tile.tile<?xf32>
  tile.return
}

// -----

tile.func @iota_axis() {
  // expected-error @+1 {{iota: axis 1 is out of range for rank 1}}
  %i = tile.iota 1 : !tile.tile<8xi32>
  tile.return
}

// -----

tile.func @iota_mask() {
  // expected-error @+1 {{iota: element type must be an integer wider than i1 or a float, got i1}}
  %i = tile.iota 0 : !tile.tile<8xi1>
  tile.return
}

// -----

tile.func @iota_sizes() {
  // expected-error @+1 {{iota: result type !tile.tile<?x8xi32> has 1 dynamic dimension(s) but 0 size operand(s) were given}}
  %i = tile.iota 0 : !tile.tile<?x8xi32>
  tile.return
}

// -----

tile.func @splat_type_mismatch(%s: f32) {
  // expected-error @+1 {{splat: the scalar has type f32 but the tile holds f16}}
  %t = tile.splat %s : f32 to !tile.tile<4xf16>
  tile.return
}

// -----

tile.func @splat_index_to_mask(%A: !tile.array<?xf32>) {
  %n = tile.dim %A 0 : !tile.array<?xf32>
  // expected-error @+1 {{splat: an index scalar fills integer (wider than i1) or float tiles, not i1}}
  %t = tile.splat %n : index to !tile.tile<i1>
  tile.return
}

// -----

tile.func @splat_missing_sizes(%s: f32) {
  // expected-error @+1 {{splat: result type !tile.tile<?xf32> has 1 dynamic dimension(s) but 0 size operand(s) were given}}
  %t = tile.splat %s : f32 to !tile.tile<?xf32>
  tile.return
}

// -----

tile.func @splat_tile_operand(%A: !tile.array<4xf32>) {
  %a = tile.load %A : !tile.array<4xf32> -> !tile.tile<4xf32>
  // expected-error @+1 {{splat: the scalar must be index, f16, bf16, f32, f64 or an integer, got !tile.tile<4xf32>}}
  %t = tile.splat %a : !tile.tile<4xf32> to !tile.tile<4xf32>
  tile.return
}
