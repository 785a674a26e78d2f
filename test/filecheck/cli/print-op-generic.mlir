// --print-op-generic prints every op in the generic form (also after passes), and that form reads back.
// RUN: tilec-opt %s --print-op-generic | filecheck %s
// RUN: tilec-opt %s --print-op-generic -p tile-canonicalize | filecheck %s --check-prefix=CANON
// RUN: tilec-opt %s --print-op-generic | tilec-opt --print-op-generic | filecheck %s

// CHECK:      "builtin.module"() ({
// CHECK-NEXT:   "tile.func"() <{sym_name = "f", function_type = (!tile.array<4x8xf32>) -> !tile.array<8x4xf32>}> ({
// CHECK-NEXT:   ^bb0(%X: !tile.array<4x8xf32>, %Y: !tile.array<8x4xf32>):
// CHECK-NEXT:     %x = "tile.load"(%X) : (!tile.array<4x8xf32>) -> !tile.tile<4x8xf32>
// CHECK-NEXT:     %t = "tile.transpose"(%x) <{permutation = array<i64: 1, 0>}> : (!tile.tile<4x8xf32>) -> !tile.tile<8x4xf32>
// CHECK-NEXT:     %u = "tile.transpose"(%t) <{permutation = array<i64: 1, 0>}> : (!tile.tile<8x4xf32>) -> !tile.tile<4x8xf32>
// CHECK-NEXT:     %v = "tile.transpose"(%u) <{permutation = array<i64: 1, 0>}> : (!tile.tile<4x8xf32>) -> !tile.tile<8x4xf32>
// CHECK-NEXT:     "tile.store"(%v, %Y) : (!tile.tile<8x4xf32>, !tile.array<8x4xf32>) -> ()
// CHECK-NEXT:     "tile.return"() : () -> ()
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NOT: tile.func @

// CANON: %x = "tile.load"(%X)
// CANON-NEXT: %v = "tile.transpose"(%x) <{permutation = array<i64: 1, 0>}> : (!tile.tile<4x8xf32>) -> !tile.tile<8x4xf32>
// CANON-NEXT: "tile.store"(%v, %Y)
tile.func @f(%X: !tile.array<4x8xf32>) outs(%Y: !tile.array<8x4xf32>) {
  %x = tile.load %X : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
  %t = tile.transpose %x [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
  %u = tile.transpose %t [1, 0] : !tile.tile<8x4xf32> to !tile.tile<4x8xf32>
  %v = tile.transpose %u [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
  tile.store %v, %Y : !tile.tile<8x4xf32>, !tile.array<8x4xf32>
  tile.return
}
