// Upstream canonicalize and dce on tile IR: tile ops declare no canonicalization patterns, so only
// unused pure ops go away (tile-canonicalize is the pass that simplifies tile IR).
// RUN: tilec-opt %s -p canonicalize | filecheck %s
// RUN: tilec-opt %s -p dce | filecheck %s
// RUN: tilec-opt %s -p tile-canonicalize | filecheck %s --check-prefix=TILE

// CHECK-LABEL: tile.func @f
// CHECK-NEXT:    %x = tile.load %X
// CHECK-NEXT:    %n1 = tile.neg %x
// CHECK-NEXT:    %n2 = tile.neg %n1
// CHECK-NEXT:    %t = tile.transpose %n2 [0]
// CHECK-NEXT:    tile.store %t, %Y
// CHECK-NEXT:    tile.return
// TILE-LABEL: tile.func @f
// TILE-NEXT:    %x = tile.load %X
// TILE-NEXT:    tile.store %x, %Y
tile.func @f(%X: !tile.array<8xf32>) outs(%Y: !tile.array<8xf32>) {
  %x = tile.load %X : !tile.array<8xf32> -> !tile.tile<8xf32>
  %n1 = tile.neg %x : !tile.tile<8xf32>
  %n2 = tile.neg %n1 : !tile.tile<8xf32>
  %dead = tile.exp %n2 : !tile.tile<8xf32>
  %dead2 = tile.reduce sum %dead [0] : !tile.tile<8xf32> to !tile.tile<f32>
  %t = tile.transpose %n2 [0] : !tile.tile<8xf32> to !tile.tile<8xf32>
  tile.store %t, %Y : !tile.tile<8xf32>, !tile.array<8xf32>
  tile.return
}
