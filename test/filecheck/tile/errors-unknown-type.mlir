// Unknown types (in the tile dialect, in an unknown dialect, a builtin typo) and unknown
// attributes: reported at the name, with exit status 1.
// RUN: not tilec-opt %s --split-input-file > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t

tile.func @tile_dialect() {
  // CHECK: errors-unknown-type.mlir:[[# @LINE + 3]]:28: error: unknown type '!tile.tensor'
  // CHECK-NEXT: {{^}}  %a = tile.constant 1.0 : !tile.tensor<4xf32>{{$}}
  // CHECK-NEXT: {{^}}                           ^^^^^^^^^^^^{{$}}
  %a = tile.constant 1.0 : !tile.tensor<4xf32>
  tile.return
}

// -----

// CHECK: errors-unknown-type.mlir:[[# @LINE + 3]]:30: error: unknown type '!zork.array'
// CHECK-NEXT: {{^}}tile.func @other_dialect(%A: !zork.array<4xf32>) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}                             ^^^^^^^^^^^{{$}}
tile.func @other_dialect(%A: !zork.array<4xf32>) {
  tile.return
}

// -----

// CHECK: errors-unknown-type.mlir:[[# @LINE + 1]]:38: error: unknown attribute '#zork.x'
tile.func @attr() attributes {note = #zork.x<1>} {
  tile.return
}

// -----

// CHECK: errors-unknown-type.mlir:[[# @LINE + 2]]:29: error: type expected
// CHECK-NEXT: {{^}}tile.func @builtin_typo(%x: f33) {{[{]}}{{$}}
tile.func @builtin_typo(%x: f33) {
  tile.return
}
