// A type of the wrong kind where a tile or an array is required.
// RUN: not tilec-opt %s --split-input-file > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t

// A tile where an array is required: tile.load reads arrays.
tile.func @load_tile(%A: !tile.array<4xf32>) {
  %t = tile.load %A : !tile.array<4xf32> -> !tile.tile<4xf32>
  // CHECK: types-wrong-kind.mlir:[[# @LINE + 3]]:3: error: tile.load: operand 'source' at position 0 does not verify: !tile.tile<4xf32> should be of base attribute tile.array
  // CHECK-NEXT: {{^}}  %u = tile.load %t : !tile.tile<4xf32> -> !tile.tile<4xf32>{{$}}
  // CHECK-NEXT: {{^}}  ^{{$}}
  %u = tile.load %t : !tile.tile<4xf32> -> !tile.tile<4xf32>
  tile.return
}

// -----

// An array where a tile is required, in an op with a custom type syntax: a parse error at the type.
tile.func @neg_array(%A: !tile.array<4xf32>) {
  // CHECK: types-wrong-kind.mlir:[[# @LINE + 3]]:22: error: expected a !tile.tile type, got !tile.array<4xf32>
  // CHECK-NEXT: {{^}}  %n = tile.neg %A : !tile.array<4xf32>{{$}}
  // CHECK-NEXT: {{^}}                     ^^^^^^^^^^^^^^^^^^{{$}}
  %n = tile.neg %A : !tile.array<4xf32>
  tile.return
}

// -----

// A tile as a function input (inputs are arrays or scalars).
// CHECK: types-wrong-kind.mlir:[[# @LINE + 2]]:1: error: func: an input must be a !tile.array or a scalar (index, f16, bf16, f32, f64 or an integer), got !tile.tile<4xf32>
// CHECK-NEXT: {{^}}tile.func @tile_arg(%T: !tile.tile<4xf32>) {{[{]}}{{$}}
tile.func @tile_arg(%T: !tile.tile<4xf32>) {
  tile.return
}

// -----

// A builtin tensor is not a tile.
tile.func @tensor() {
  // CHECK: types-wrong-kind.mlir:[[# @LINE + 1]]:28: error: expected a !tile.tile type, got tensor<4xf32>
  %c = tile.constant 1.0 : tensor<4xf32>
  tile.return
}

// -----

// A tile stored into a tile.
tile.func @store_tile() {
  %c = tile.constant 1.0 : !tile.tile<4xf32>
  // CHECK: types-wrong-kind.mlir:[[# @LINE + 1]]:3: error: tile.store: operand 'dest' at position 1 does not verify: !tile.tile<4xf32> should be of base attribute tile.array
  "tile.store"(%c, %c) : (!tile.tile<4xf32>, !tile.tile<4xf32>) -> ()
  tile.return
}

// -----

// A dim of a scalar.
tile.func @dim_scalar(%x: f32) {
  // CHECK: types-wrong-kind.mlir:[[# @LINE + 1]]:3: error: tile.dim: operand 'source' at position 0 does not verify: {{.*}}f32
  %n = tile.dim %x 0 : f32
  tile.return
}
