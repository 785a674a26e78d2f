// tile-canonicalize rewrites inside nested regions too (tile.fused bodies, nested modules), and keeps
// the locations of the ops it creates: an error in a later pass still points at the source.
// RUN: tilec-opt %s -p tile-canonicalize | filecheck %s
// RUN: tilec-opt %s -p tile-canonicalize --print-debuginfo | filecheck %s --check-prefix=LOC

// CHECK-LABEL: tile.func @f
// CHECK:         tile.fused elementwise (%x) : (!tile.tile<4x8xf32>) -> (!tile.tile<8x4xf32>) {
// CHECK-NEXT:    ^bb0(%a: !tile.tile<4x8xf32>):
// CHECK-NEXT:      %t3 = tile.transpose %a [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
// CHECK-NEXT:      %c = tile.constant 2.500000e+00 : !tile.tile<8x4xf32>
// CHECK-NEXT:      %m = tile.max %t3, %c : !tile.tile<8x4xf32>
// CHECK-NEXT:      tile.yield %m : !tile.tile<8x4xf32>
// LOC: %t3 = tile.transpose %a [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32> loc("{{.*}}tile-canonicalize-nested.mlir":[[# @LINE + 9]]:7)
// LOC: %c = tile.constant 2.500000e+00 : !tile.tile<8x4xf32> loc("{{.*}}tile-canonicalize-nested.mlir":[[# @LINE + 10]]:7)
builtin.module @outer {
  tile.func @f(%X: !tile.array<4x8xf32>) outs(%Y: !tile.array<8x4xf32>) {
    %x = tile.load %X : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
    %y = tile.fused elementwise (%x) : (!tile.tile<4x8xf32>) -> (!tile.tile<8x4xf32>) {
    ^bb0(%a: !tile.tile<4x8xf32>):
      %t1 = tile.transpose %a [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
      %t2 = tile.transpose %t1 [1, 0] : !tile.tile<8x4xf32> to !tile.tile<4x8xf32>
      %t3 = tile.transpose %t2 [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
      %s = tile.constant 2.5 : !tile.tile<f32>
      %c = tile.broadcast %s : !tile.tile<f32> to !tile.tile<8x4xf32>
      %m = tile.max %t3, %c : !tile.tile<8x4xf32>
      tile.yield %m : !tile.tile<8x4xf32>
    }
    tile.store %y, %Y : !tile.tile<8x4xf32>, !tile.array<8x4xf32>
    tile.return
  }
}
