// tile-fuse with gathers and scatters: a take_along_axis of arguments is read in place inside the
// row reduction's group; a scatter_add is a `scatter` group of its own (its computed updates
// come from an elementwise group; its broadcast index is a view read in place).
// RUN: tilec-opt %s --split-input-file -p tile-fuse | filecheck %s
// RUN: tilec-opt %s --split-input-file -p tile-fuse | tilec-opt --split-input-file -p tile-fuse | filecheck %s

// CHECK-LABEL: tile.func @picked_logit
// CHECK:         tile.fused rowwise
// CHECK:           tile.reduce max
// CHECK:           tile.take_along_axis
// CHECK:           tile.sub
// CHECK:           tile.yield
// CHECK-NOT:     tile.fused
tile.func @picked_logit(%x: !tile.array<4x8xf32>, %lab: !tile.array<4xi64>) outs(%out: !tile.array<4xf32>) {
  %0 = tile.load %x : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
  %1 = tile.load %lab : !tile.array<4xi64> -> !tile.tile<4xi64>
  %2 = tile.reduce max %0 [1] : !tile.tile<4x8xf32> to !tile.tile<4xf32>
  %3 = tile.reshape %1 : !tile.tile<4xi64> to !tile.tile<4x1xi64>
  %4 = tile.take_along_axis %0[%3] axis 1 : !tile.tile<4x8xf32>, !tile.tile<4x1xi64> to !tile.tile<4x1xf32>
  %5 = tile.reshape %4 : !tile.tile<4x1xf32> to !tile.tile<4xf32>
  %6 = tile.sub %2, %5 : !tile.tile<4xf32>
  tile.store %6, %out : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.return
}

// -----

// CHECK-LABEL: tile.func @index_add
// CHECK:         %[[I:.*]] = tile.broadcast
// CHECK:         %[[U:.*]] = tile.fused elementwise
// CHECK:           tile.mul
// CHECK:         tile.fused scatter (%{{.*}}, %[[I]], %[[U]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tile.scatter_add
// CHECK-NEXT:      tile.yield
// CHECK-NOT:     tile.fused
tile.func @index_add(%dy: !tile.array<6x3xf32>, %ids: !tile.array<6xi64>, %w: !tile.array<5x3xf32>) outs(%out: !tile.array<5x3xf32>) {
  %0 = tile.load %dy : !tile.array<6x3xf32> -> !tile.tile<6x3xf32>
  %1 = tile.load %ids : !tile.array<6xi64> -> !tile.tile<6xi64>
  %2 = tile.load %w : !tile.array<5x3xf32> -> !tile.tile<5x3xf32>
  %3 = tile.constant 2.000000e+00 : !tile.tile<6x3xf32>
  %4 = tile.mul %0, %3 : !tile.tile<6x3xf32>
  %5 = tile.reshape %1 : !tile.tile<6xi64> to !tile.tile<6x1xi64>
  %6 = tile.broadcast %5 : !tile.tile<6x1xi64> to !tile.tile<6x3xi64>
  %7 = tile.scatter_add %2[%6], %4 axis 0 : !tile.tile<5x3xf32>, !tile.tile<6x3xi64>, !tile.tile<6x3xf32> to !tile.tile<5x3xf32>
  tile.store %7, %out : !tile.tile<5x3xf32>, !tile.array<5x3xf32>
  tile.return
}
