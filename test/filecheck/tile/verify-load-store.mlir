// Verifier errors of tile.load and tile.store.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

tile.func @load_elt(%A: !tile.array<4xf32>) {
  // expected-error @+1 {{load: array holds f32 but the tile holds f16}}
  %a = tile.load %A : !tile.array<4xf32> -> !tile.tile<4xf16>
  tile.return
}

// -----

tile.func @load_shape(%A: !tile.array<4x8xf32>) {
  // expected-error @+1 {{load: array shape 4x8 does not match tile shape 8x4}}
  %a = tile.load %A : !tile.array<4x8xf32> -> !tile.tile<8x4xf32>
  tile.return
}

// -----

tile.func @load_rank(%A: !tile.array<?xf32>) {
  // expected-error @+1 {{load: array shape ? does not match tile shape ?x1}}
  %a = tile.load %A : !tile.array<?xf32> -> !tile.tile<?x1xf32>
  tile.return
}

// -----

tile.func @store_elt() outs(%C: !tile.array<4xi32>) {
  %c = tile.constant 1 : !tile.tile<4xi64>
  // expected-error @+1 {{store: tile holds i64 but the array holds i32}}
  tile.store %c, %C : !tile.tile<4xi64>, !tile.array<4xi32>
  tile.return
}

// -----

tile.func @store_shape() outs(%C: !tile.array<5xf32>) {
  %c = tile.constant 1.0 : !tile.tile<4xf32>
  // expected-error @+1 {{store: tile shape 4 does not match array shape 5}}
  tile.store %c, %C : !tile.tile<4xf32>, !tile.array<5xf32>
  tile.return
}

// -----

// An input may be stored (an in-place update), but only once.
// expected-error @+1 {{func: input %A is stored 2 times (an input is updated in place at most once)}}
tile.func @input_stored_twice(%A: !tile.array<4xf32>) {
  %c = tile.constant 1.0 : !tile.tile<4xf32>
  tile.store %c, %A : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.store %c, %A : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.return
}
