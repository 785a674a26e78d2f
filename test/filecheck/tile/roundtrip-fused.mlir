// tile.fused / tile.yield (made by tile-fuse): one and several results, index inputs, every kind.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @groups
tile.func @groups(%X: !tile.array<8x16xf32>, %n: index) outs(%Y: !tile.array<8x16xf32>) {
  %x = tile.load %X : !tile.array<8x16xf32> -> !tile.tile<8x16xf32>
  // CHECK:      %y = tile.fused rowwise (%x) : (!tile.tile<8x16xf32>) -> (!tile.tile<8x16xf32>) {
  // CHECK-NEXT: ^bb{{[0-9]+}}(%a: !tile.tile<8x16xf32>):
  // CHECK-NEXT:   %e = tile.exp %a : !tile.tile<8x16xf32>
  // CHECK-NEXT:   tile.yield %e : !tile.tile<8x16xf32>
  // CHECK-NEXT: }
  // GENERIC: %y = "tile.fused"(%x) <{kind = "rowwise"}> ({
  // GENERIC: "tile.yield"(%e) : (!tile.tile<8x16xf32>) -> ()
  %y = tile.fused rowwise (%x) : (!tile.tile<8x16xf32>) -> (!tile.tile<8x16xf32>) {
  ^bb0(%a: !tile.tile<8x16xf32>):
    %e = tile.exp %a : !tile.tile<8x16xf32>
    tile.yield %e : !tile.tile<8x16xf32>
  }
  // CHECK:      %s, %t = tile.fused elementwise (%y, %n) {tag} : (!tile.tile<8x16xf32>, index) -> (!tile.tile<8x16xf32>, !tile.tile<8x16xf32>) {
  // CHECK-NEXT: ^bb{{[0-9]+}}(%b: !tile.tile<8x16xf32>, %m: index):
  // CHECK-NEXT:   %c = tile.neg %b : !tile.tile<8x16xf32>
  // CHECK-NEXT:   tile.yield %c, %b : !tile.tile<8x16xf32>, !tile.tile<8x16xf32>
  // CHECK-NEXT: }
  %s, %t = tile.fused elementwise (%y, %n) {tag} : (!tile.tile<8x16xf32>, index) -> (!tile.tile<8x16xf32>, !tile.tile<8x16xf32>) {
  ^bb0(%b: !tile.tile<8x16xf32>, %m: index):
    %c = tile.neg %b : !tile.tile<8x16xf32>
    tile.yield %c, %b : !tile.tile<8x16xf32>, !tile.tile<8x16xf32>
  }
  // CHECK: tile.fused reduction () : () -> () {
  // CHECK-NEXT: tile.yield
  // CHECK-NEXT: }
  tile.fused reduction () : () -> () {
    tile.yield
  }
  tile.store %t, %Y : !tile.tile<8x16xf32>, !tile.array<8x16xf32>
  tile.return
}
