// Bad tile.constant literals: reported at the literal.
// RUN: not tilec-opt %s --split-input-file > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t

tile.func @dense_shape() {
  // CHECK: errors-constant-literals.mlir:[[# @LINE + 3]]:22: error: dense literal has shape 2 but the tile is 3
  // CHECK-NEXT: {{^}}  %a = tile.constant dense<[1, 2]> : !tile.tile<3xi32>{{$}}
  // CHECK-NEXT: {{^}}                     ^^^^^^^^^^^^^{{$}}
  %a = tile.constant dense<[1, 2]> : !tile.tile<3xi32>
  tile.return
}

// -----

tile.func @dense_nested_shape() {
  // CHECK: errors-constant-literals.mlir:[[# @LINE + 1]]:22: error: dense literal has shape 1x2 but the tile is 2x1
  %a = tile.constant dense<[[1, 2]]> : !tile.tile<2x1xi32>
  tile.return
}

// -----

tile.func @dense_float_in_int() {
  // CHECK: errors-constant-literals.mlir:[[# @LINE + 1]]:29: error: Expected integer value
  %a = tile.constant dense<[1.5, 2]> : !tile.tile<2xi32>
  tile.return
}

// -----

tile.func @float_out_of_range() {
  // CHECK: errors-constant-literals.mlir:[[# @LINE + 3]]:22: error: 100000.0 is out of range for f16
  // CHECK-NEXT: {{^}}  %a = tile.constant 1.0e5 : !tile.tile<4xf16>{{$}}
  // CHECK-NEXT: {{^}}                     ^^^^^{{$}}
  %a = tile.constant 1.0e5 : !tile.tile<4xf16>
  tile.return
}

// -----

tile.func @int_out_of_range() {
  // CHECK: errors-constant-literals.mlir:[[# @LINE + 1]]:3: error: Integer value 300 is out of range for type i8 which supports values in the range [-128, 256)
  %a = tile.constant 300 : !tile.tile<4xi8>
  tile.return
}

// -----

tile.func @hex_too_wide() {
  // CHECK: errors-constant-literals.mlir:[[# @LINE + 1]]:22: error: hexadecimal literal does not fit in f16
  %a = tile.constant 0x10000 : !tile.tile<4xf16>
  tile.return
}

// -----

tile.func @bool_in_float() {
  // CHECK: errors-constant-literals.mlir:[[# @LINE + 1]]:3: error: constant: value has type i1 but the tile holds f32
  %a = "tile.constant"() <{value = true}> : () -> !tile.tile<4xf32>
  tile.return
}
