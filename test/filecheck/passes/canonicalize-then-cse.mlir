// tile-canonicalize then cse: each exposes work for the other; the order of the pipeline matters.
// RUN: tilec-opt %s -p tile-canonicalize,cse | filecheck %s
// RUN: tilec-opt %s -p cse,tile-canonicalize | filecheck %s --check-prefix=REVERSED
// RUN: tilec-opt %s -p cse,tile-canonicalize,cse | filecheck %s

// After tile-canonicalize, both branches are exp(transpose(x)); cse then keeps one of each.
// CHECK-LABEL: tile.func @f
// CHECK-NEXT:    %x = tile.load %X
// CHECK-NEXT:    %{{.*}} = tile.transpose %x [1, 0]
// CHECK-NEXT:    %[[E:.*]] = tile.exp
// CHECK-NEXT:    %[[S:.*]] = tile.add %[[E]], %[[E]]
// CHECK-NEXT:    tile.store %[[S]], %Y
// REVERSED-LABEL: tile.func @f
// REVERSED-COUNT-2: tile.exp
tile.func @f(%X: !tile.array<4x8xf32>) outs(%Y: !tile.array<8x4xf32>) {
  %x = tile.load %X : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
  %a1 = tile.transpose %x [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
  %e1 = tile.exp %a1 : !tile.tile<8x4xf32>
  %b1 = tile.transpose %x [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
  %b2 = tile.transpose %b1 [1, 0] : !tile.tile<8x4xf32> to !tile.tile<4x8xf32>
  %b3 = tile.transpose %b2 [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
  %e2 = tile.exp %b3 : !tile.tile<8x4xf32>
  %s = tile.add %e1, %e2 : !tile.tile<8x4xf32>
  tile.store %s, %Y : !tile.tile<8x4xf32>, !tile.array<8x4xf32>
  tile.return
}
