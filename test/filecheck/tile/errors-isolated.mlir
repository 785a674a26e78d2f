// A tile.fused body may not use values from outside it (it is isolated from above).
// RUN: not tilec-opt %s > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t

tile.func @f(%X: !tile.array<8xf32>) {
  %x = tile.load %X : !tile.array<8xf32> -> !tile.tile<8xf32>
  // CHECK: errors-isolated.mlir:[[# @LINE + 1]]:3: error: tile.fused: Operation using value defined out of its IsolatedFromAbove parent: {{.*}}tile.neg %x
  %g = tile.fused elementwise () : () -> (!tile.tile<8xf32>) {
    %n = tile.neg %x : !tile.tile<8xf32>
    tile.yield %n : !tile.tile<8xf32>
  }
  tile.return
}
