// Verifier errors are printed at the failing op: FILE:LINE:COL (the op's first token, here the
// result name), then the source line and a caret under that column. Exit status 1, no traceback.
// RUN: not tilec-opt %s --split-input-file > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t

tile.func @elementwise() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  // CHECK: errors-located.mlir:[[# @LINE + 3]]:3: error: exp: needs a float tile, got i32
  // CHECK-NEXT: {{^}}  %b = tile.exp %a : !tile.tile<4xi32>{{$}}
  // CHECK-NEXT: {{^}}  ^{{$}}
  %b = tile.exp %a : !tile.tile<4xi32>
  tile.return
}

// -----

// An op without results is located at its name.
tile.func @store(%A: !tile.array<4xf16>) {
  %c = tile.constant 1.0 : !tile.tile<4xf32>
  // CHECK: errors-located.mlir:[[# @LINE + 3]]:7: error: store: tile holds f32 but the array holds f16
  // CHECK-NEXT: {{^}}      tile.store %c, %A : !tile.tile<4xf32>, !tile.array<4xf16>{{$}}
  // CHECK-NEXT: {{^}}      ^{{$}}
      tile.store %c, %A : !tile.tile<4xf32>, !tile.array<4xf16>
  tile.return
}

// -----

// The function itself, at `tile.func`.
// CHECK: errors-located.mlir:[[# @LINE + 3]]:1: error: func: output %Out is never stored
// CHECK-NEXT: {{^}}tile.func @unstored() outs(%Out: !tile.array<4xf32>) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}^{{$}}
tile.func @unstored() outs(%Out: !tile.array<4xf32>) {
  tile.return
}

// -----

// Several results: the first token is the first result.
tile.func @multi(%X: !tile.array<4xf32>) {
  %x = tile.load %X : !tile.array<4xf32> -> !tile.tile<4xf32>
  // CHECK: errors-located.mlir:[[# @LINE + 3]]:5: error: fused: unknown kind 'weird' (expected one of contraction, rowwise, elementwise, reduction, scatter, scan, sort, attention, stream, conv_weight_grad)
  // CHECK-NEXT: {{^}}    %p, %q = "tile.fused"(%x) <{kind = "weird"}> ({{[{]}}{{$}}
  // CHECK-NEXT: {{^}}    ^{{$}}
    %p, %q = "tile.fused"(%x) <{kind = "weird"}> ({
    ^bb0(%y: !tile.tile<4xf32>):
      "tile.yield"(%y, %y) : (!tile.tile<4xf32>, !tile.tile<4xf32>) -> ()
    }) : (!tile.tile<4xf32>) -> (!tile.tile<4xf32>, !tile.tile<4xf32>)
  tile.return
}

// -----

// A chunk that verifies still prints; its output joins the others'.
// CHECK: builtin.module {
// CHECK-NEXT: tile.func @fine() {
tile.func @fine() {
  tile.return
}
