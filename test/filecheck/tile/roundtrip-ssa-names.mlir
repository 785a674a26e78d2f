// SSA names: readable names are kept, numeric names are renumbered in order, a `_N` suffix is
// xDSL's uniquing suffix (dropped when the name is free), a name may be reused in another function.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

// CHECK-LABEL: tile.func @numbered(%0: !tile.array<4xf32>) outs(%1: !tile.array<4xf32>) {
// CHECK-NEXT:    %2 = tile.load %0
// CHECK-NEXT:    %3 = tile.neg %2
// CHECK-NEXT:    %x = tile.abs %3
// CHECK-NEXT:    %x_1 = tile.abs %x
// CHECK-NEXT:    tile.store %x_1, %1
tile.func @numbered(%7: !tile.array<4xf32>) outs(%8: !tile.array<4xf32>) {
  %10 = tile.load %7 : !tile.array<4xf32> -> !tile.tile<4xf32>
  %11 = tile.neg %10 : !tile.tile<4xf32>
  %x_1 = tile.abs %11 : !tile.tile<4xf32>
  %x = tile.abs %x_1 : !tile.tile<4xf32>
  tile.store %x, %8 : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.return
}

// CHECK-LABEL: tile.func @same_names(%A: !tile.array<4xf32>) outs(%B: !tile.array<4xf32>) {
// CHECK-NEXT:    %x = tile.load %A
// CHECK-NEXT:    tile.store %x, %B
tile.func @same_names(%A: !tile.array<4xf32>) outs(%B: !tile.array<4xf32>) {
  %x = tile.load %A : !tile.array<4xf32> -> !tile.tile<4xf32>
  tile.store %x, %B : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.return
}

// CHECK-LABEL: tile.func @reuse(%A: !tile.array<4xf32>) outs(%B: !tile.array<4xf32>) {
// CHECK-NEXT:    %x = tile.load %A
tile.func @reuse(%A: !tile.array<4xf32>) outs(%B: !tile.array<4xf32>) {
  %x = tile.load %A : !tile.array<4xf32> -> !tile.tile<4xf32>
  tile.store %x, %B : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.return
}
