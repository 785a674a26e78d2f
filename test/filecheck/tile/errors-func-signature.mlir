// Malformed tile.func signatures and attribute dictionaries: parse errors at the offending token.
// RUN: not tilec-opt %s --split-input-file > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t

// CHECK: errors-func-signature.mlir:[[# @LINE + 3]]:22: error: Expected ':' after block argument name!
// CHECK-NEXT: {{^}}tile.func @no_type(%A) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}                     ^{{$}}
tile.func @no_type(%A) {
  tile.return
}

// -----

// CHECK: errors-func-signature.mlir:[[# @LINE + 1]]:46: error: '(' expected
tile.func @outs_without_parens(%A: f32) outs %B: !tile.array<4xf32> {
  tile.return
}

// -----

// CHECK: errors-func-signature.mlir:[[# @LINE + 1]]:11: error: expect symbol name
tile.func (%A: f32) {
  tile.return
}

// -----

// CHECK: errors-func-signature.mlir:[[# @LINE + 1]]:25: error: SSA value %A is already defined
tile.func @dup(%A: f32, %A: f32) {
  tile.return
}

// -----

tile.func @bad_attr_dict() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // CHECK: errors-func-signature.mlir:[[# @LINE + 1]]:28: error: attribute expected
  %b = tile.neg %a {note = } : !tile.tile<4xf32>
  tile.return
}

// -----

// At the end of the input.
// CHECK: errors-func-signature.mlir:[[# @LINE + 2]]:1: error: Expected region!
tile.func @body_missing(%A: f32)
