// Negative (and malformed) dimensions in tile and array types.
// RUN: not tilec-opt %s --split-input-file > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t

tile.func @leading() {
  // CHECK: types-negative-dim.mlir:[[# @LINE + 3]]:39: error: tile.tile: negative dimension -4
  // CHECK-NEXT: {{^}}  %a = tile.constant 1.0 : !tile.tile<-4xf32>{{$}}
  // CHECK-NEXT: {{^}}                                      ^^{{$}}
  %a = tile.constant 1.0 : !tile.tile<-4xf32>
  tile.return
}

// -----

// CHECK: types-negative-dim.mlir:[[# @LINE + 2]]:36: error: tile.array: negative dimension -16
// CHECK-NEXT: {{^}}tile.func @inner(%A: !tile.array<8x-16xf32>) {{[{]}}{{$}}
tile.func @inner(%A: !tile.array<8x-16xf32>) {
  tile.return
}

// -----

tile.func @dash() {
  // CHECK: types-negative-dim.mlir:[[# @LINE + 1]]:39: error: tile.tile: expected a dimension or an element type
  %a = tile.constant 1.0 : !tile.tile<-xf32>
  tile.return
}

// -----

tile.func @no_x() {
  // CHECK: types-negative-dim.mlir:[[# @LINE + 1]]:42: error: Expected 'x' in shape delimiter, got GREATER
  %a = tile.constant 1.0 : !tile.tile<4x4>
  tile.return
}
