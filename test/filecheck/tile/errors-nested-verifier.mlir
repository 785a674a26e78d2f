// A verifier error deep inside nested regions is reported at the nested op, and only the first
// error is reported (outer ops are checked before inner ones, then in order).
// RUN: not tilec-opt %s > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t

builtin.module @outer {
  builtin.module @inner {
    tile.func @f(%X: !tile.array<8xf32>) {
      %x = tile.load %X : !tile.array<8xf32> -> !tile.tile<8xf32>
      %g = tile.fused elementwise (%x) : (!tile.tile<8xf32>) -> (!tile.tile<8xf32>) {
      ^bb0(%a: !tile.tile<8xf32>):
        %c = tile.constant 4 : !tile.tile<8xi32>
        // CHECK: errors-nested-verifier.mlir:[[# @LINE + 3]]:9: error: sqrt: needs a float tile, got i32
        // CHECK-NEXT: {{^}}        %i = tile.sqrt %c : !tile.tile<8xi32>{{$}}
        // CHECK-NEXT: {{^}}        ^{{$}}
        %i = tile.sqrt %c : !tile.tile<8xi32>
        %j = tile.log %c : !tile.tile<8xi32>
        tile.yield %a : !tile.tile<8xf32>
      }
      tile.return
    }
  }
  tile.func @later() {
    %k = tile.exp %k2 : !tile.tile<8xi32>
    %k2 = tile.constant 4 : !tile.tile<8xi32>
    tile.return
  }
}
// CHECK-NOT: error:
