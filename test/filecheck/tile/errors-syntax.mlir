// Syntax errors: FILE:LINE:COL at the offending token, the source line and a caret; exit 1.
// RUN: not tilec-opt %s --split-input-file > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t

tile.func @missing_colon(%A: !tile.array<4xf32>) {
  // CHECK: errors-syntax.mlir:[[# @LINE + 3]]:21: error: Expected ':'
  // CHECK-NEXT: {{^}}  %a = tile.load %A !tile.array<4xf32> -> !tile.tile<4xf32>{{$}}
  // CHECK-NEXT: {{^}}                    ^^^^^^^^^^^{{$}}
  %a = tile.load %A !tile.array<4xf32> -> !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @missing_comma() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // CHECK: errors-syntax.mlir:[[# @LINE + 1]]:20: error: Expected ','
  %b = tile.add %a %a : !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @bad_predicate() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // CHECK: errors-syntax.mlir:[[# @LINE + 3]]:17: error: expected a comparison predicate (eq, ne, lt, le, gt, ge)
  // CHECK-NEXT: {{^}}  %m = tile.cmp ult %a, %a : !tile.tile<4xf32>{{$}}
  // CHECK-NEXT: {{^}}                ^^^{{$}}
  %m = tile.cmp ult %a, %a : !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @bad_reduction() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // CHECK: errors-syntax.mlir:[[# @LINE + 1]]:20: error: expected a reduction kind (sum, max, min, prod, argmax, argmin)
  %s = tile.reduce mean %a [0] : !tile.tile<4xf32> to !tile.tile<f32>
  tile.return
}

// -----

tile.func @bad_axis_pair() {
  %a = tile.constant 1.0 : !tile.tile<4x4xf32>
  // CHECK: errors-syntax.mlir:[[# @LINE + 1]]:35: error: expected an axis pair [lhs_axis, rhs_axis]
  %c = tile.contract %a, %a axes [[1, 0, 2]] : !tile.tile<4x4xf32>, !tile.tile<4x4xf32> -> !tile.tile<4x4xf32>
  tile.return
}

// -----

tile.func @missing_to() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // CHECK: errors-syntax.mlir:[[# @LINE + 1]]:41: error: Expected 'to'
  %b = tile.cast %a : !tile.tile<4xf32> -> !tile.tile<4xf16>
  tile.return
}

// -----

tile.func @float_in_int() {
  // CHECK: errors-syntax.mlir:[[# @LINE + 1]]:22: error: a float literal cannot fill an i32 tile
  %a = tile.constant 1.5 : !tile.tile<4xi32>
  tile.return
}

// -----

tile.func @bad_literal() {
  // CHECK: errors-syntax.mlir:[[# @LINE + 1]]:22: error: expected a number or a dense<...> literal
  %a = tile.constant "one" : !tile.tile<4xi32>
  tile.return
}

// -----

// CHECK: errors-syntax.mlir:[[# @LINE + 1]]:11: error: expect symbol name
tile.func f() {
  tile.return
}
