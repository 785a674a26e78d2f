// A region that is never closed: reported at the end of the input.
// RUN: not tilec-opt %s > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t

// CHECK: errors-unclosed-region.mlir:[[# @LINE + 5]]:1: error: expected an operation or '}' to end the region, found end of input
tile.func @open() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  tile.return

