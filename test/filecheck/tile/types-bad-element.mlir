// Element types a tile or array cannot hold: reported at the element type, as a parse error.
// RUN: not tilec-opt %s --split-input-file > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t

tile.func @f8() {
  // CHECK: types-bad-element.mlir:[[# @LINE + 3]]:41: error: tile.tile: element type must be f8E4M3FN, f8E5M2, f16, bf16, f32, f64, an integer of width 1, 8, 16, 32 or 64 or an unsigned integer ui8, ui16, ui32 or ui64, got 'f8'
  // CHECK-NEXT: {{^}}  %a = tile.constant 1.0 : !tile.tile<4xf8>{{$}}
  // CHECK-NEXT: {{^}}                                        ^^{{$}}
  %a = tile.constant 1.0 : !tile.tile<4xf8>
  tile.return
}

// -----

// CHECK: types-bad-element.mlir:[[# @LINE + 3]]:34: error: tile.array: element type must be f8E4M3FN, f8E5M2, f16, bf16, f32, f64, an integer of width 1, 8, 16, 32 or 64 or an unsigned integer ui8, ui16, ui32 or ui64, got index
// CHECK-NEXT: {{^}}tile.func @idx(%A: !tile.array<8xindex>) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}                                 ^^^^^{{$}}
tile.func @idx(%A: !tile.array<8xindex>) {
  tile.return
}

// -----

tile.func @i4() {
  // CHECK: types-bad-element.mlir:[[# @LINE + 2]]:41: error: tile.tile: element type must be {{.*}}, got i4
  // CHECK-NEXT: {{^}}  %a = tile.constant 1 : !tile.tile<2x2xi4>{{$}}
  %a = tile.constant 1 : !tile.tile<2x2xi4>
  tile.return
}

// -----

tile.func @nested() {
  // CHECK: types-bad-element.mlir:[[# @LINE + 1]]:39: error: tile.tile: element type must be {{.*}}, got vector<4xf32>
  %a = tile.constant 1 : !tile.tile<4xvector<4xf32>>
  tile.return
}

// -----

tile.func @missing() {
  // CHECK: types-bad-element.mlir:[[# @LINE + 1]]:39: error: tile.tile: element type must be {{.*}}, got '>'
  %a = tile.constant 1 : !tile.tile<4x>
  tile.return
}

// -----

tile.func @f80() {
  // CHECK: types-bad-element.mlir:[[# @LINE + 1]]:39: error: tile.tile: element type must be {{.*}}, got f80
  %a = tile.constant 1.0 : !tile.tile<f80>
  tile.return
}

// -----

tile.func @ui1() {
  // CHECK: types-bad-element.mlir:[[# @LINE + 1]]:39: error: tile.tile: element type must be {{.*}}, got ui1
  %a = tile.constant 1 : !tile.tile<4xui1>
  tile.return
}

// -----

tile.func @si32() {
  // CHECK: types-bad-element.mlir:[[# @LINE + 1]]:39: error: tile.tile: element type must be {{.*}}, got si32
  %a = tile.constant 1 : !tile.tile<4xsi32>
  tile.return
}
