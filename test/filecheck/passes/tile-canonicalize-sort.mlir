// tile-canonicalize: a sort / top-k identical to an earlier one (same source and properties)
// reuses its results; different properties stay two ops.
// RUN: tilec-opt %s -p tile-canonicalize | filecheck %s

// CHECK-LABEL: tile.func @twins
// CHECK:         %[[V:.*]], %[[I:.*]] = tile.sort %{{.*}} axis 1 descending
// CHECK-NEXT:    %{{.*}}, %[[J:.*]] = tile.sort %{{.*}} axis 1 :
// CHECK-NEXT:    %[[T:.*]], %{{.*}} = tile.topk %{{.*}} k 2 axis 1
// CHECK-NOT:     tile.sort
// CHECK-NOT:     tile.topk
// CHECK:         tile.store %[[V]], %A
// CHECK-NEXT:    tile.store %[[I]], %B
// CHECK-NEXT:    tile.store %[[J]], %C
// CHECK-NEXT:    tile.store %[[T]], %D
tile.func @twins(%X: !tile.array<4x8xf32>) outs(%A: !tile.array<4x8xf32>, %B: !tile.array<4x8xi64>, %C: !tile.array<4x8xi64>, %D: !tile.array<4x2xf32>) {
  %x = tile.load %X : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
  %v, %i = tile.sort %x axis 1 descending : !tile.tile<4x8xf32> -> !tile.tile<4x8xf32>, !tile.tile<4x8xi64>
  %v2, %i2 = tile.sort %x axis 1 descending : !tile.tile<4x8xf32> -> !tile.tile<4x8xf32>, !tile.tile<4x8xi64>
  %v3, %i3 = tile.sort %x axis 1 : !tile.tile<4x8xf32> -> !tile.tile<4x8xf32>, !tile.tile<4x8xi64>
  %t, %ti = tile.topk %x k 2 axis 1 : !tile.tile<4x8xf32> -> !tile.tile<4x2xf32>, !tile.tile<4x2xi64>
  %t2, %ti2 = tile.topk %x k 2 axis 1 : !tile.tile<4x8xf32> -> !tile.tile<4x2xf32>, !tile.tile<4x2xi64>
  tile.store %v, %A : !tile.tile<4x8xf32>, !tile.array<4x8xf32>
  tile.store %i2, %B : !tile.tile<4x8xi64>, !tile.array<4x8xi64>
  tile.store %i3, %C : !tile.tile<4x8xi64>, !tile.array<4x8xi64>
  tile.store %t2, %D : !tile.tile<4x2xf32>, !tile.array<4x2xf32>
  tile.return
}
