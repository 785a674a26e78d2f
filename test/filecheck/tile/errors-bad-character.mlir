// A character the lexer does not know, at the start of the input and inside an op.
// RUN: not tilec-opt %s --split-input-file > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t

tile.func @inside() {
  // CHECK: errors-bad-character.mlir:[[# @LINE + 3]]:22: error: Unexpected character: `
  // CHECK-NEXT: {{^}}  %a = tile.constant `1 : !tile.tile<4xi32>{{$}}
  // CHECK-NEXT: {{^}}                     ^{{$}}
  %a = tile.constant `1 : !tile.tile<4xi32>
  tile.return
}

// -----
` tile.func @first_token() {
  tile.return
}
// The lexer fails on the very first token of this chunk.
// CHECK: errors-bad-character.mlir:[[# @LINE - 4]]:1: error: Unexpected character: `
