// tile-fuse with slices, pads and creation ops: what is read in place, what is materialized.
// RUN: tilec-opt %s --split-input-file -p tile-fuse | filecheck %s
// RUN: tilec-opt %s --split-input-file -p tile-fuse | tilec-opt --split-input-file -p tile-fuse | filecheck %s

// A causal mask (iota <= iota, select -inf) feeding a softmax: the mask depends on no array, so
// it is re-computed inside the softmax's rowwise group: ONE group (one kernel).
// CHECK-LABEL: tile.func @causal_softmax
// CHECK:         tile.fused rowwise
// CHECK:           tile.iota 1
// CHECK:           tile.iota 0
// CHECK:           tile.cmp le
// CHECK:           tile.select
// CHECK:           tile.reduce max
// CHECK:           tile.reduce sum
// CHECK:           tile.yield
// CHECK-NOT:     tile.fused
tile.func @causal_softmax(%s: !tile.array<?x?xf32>) outs(%out: !tile.array<?x?xf32>) {
  %0 = tile.load %s : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %1 = tile.dim %s 0 : !tile.array<?x?xf32>
  %2 = tile.dim %s 1 : !tile.array<?x?xf32>
  %3 = tile.iota 1 sizes(%1, %2) : !tile.tile<?x?xi64>
  %4 = tile.iota 0 sizes(%1, %2) : !tile.tile<?x?xi64>
  %5 = tile.cmp le %3, %4 : !tile.tile<?x?xi64>
  %6 = tile.constant 0xff800000 sizes(%1, %2) : !tile.tile<?x?xf32>
  %7 = tile.select %5, %0, %6 : !tile.tile<?x?xf32>
  %8 = tile.reduce max %7 [1] : !tile.tile<?x?xf32> to !tile.tile<?xf32>
  %9 = tile.reshape %8 sizes(%1) : !tile.tile<?xf32> to !tile.tile<?x1xf32>
  %10 = tile.broadcast %9 sizes(%1, %2) : !tile.tile<?x1xf32> to !tile.tile<?x?xf32>
  %11 = tile.sub %7, %10 : !tile.tile<?x?xf32>
  %12 = tile.exp %11 : !tile.tile<?x?xf32>
  %13 = tile.reduce sum %12 [1] : !tile.tile<?x?xf32> to !tile.tile<?xf32>
  %14 = tile.reshape %13 sizes(%1) : !tile.tile<?xf32> to !tile.tile<?x1xf32>
  %15 = tile.broadcast %14 sizes(%1, %2) : !tile.tile<?x1xf32> to !tile.tile<?x?xf32>
  %16 = tile.div %12, %15 : !tile.tile<?x?xf32>
  tile.store %16, %out : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.return
}


// -----

// A slice of an argument feeding a row sum: the slice is read in place inside the rowwise group.
// CHECK-LABEL: tile.func @slice_rowsum
// CHECK:         %[[X:.+]] = tile.load %x
// CHECK:         tile.fused rowwise (%[[X]], {{.*}}) : (!tile.tile<?x11xf32>, index)
// CHECK:           tile.slice %{{.*}} offsets [0, 2] strides [1, 1]
// CHECK:           tile.reduce sum
// CHECK-NOT:     tile.fused
tile.func @slice_rowsum(%x: !tile.array<?x11xf32>) outs(%out: !tile.array<?xf32>) {
  %0 = tile.load %x : !tile.array<?x11xf32> -> !tile.tile<?x11xf32>
  %1 = tile.slice %0 offsets [0, 2] strides [1, 1] : !tile.tile<?x11xf32> to !tile.tile<?x8xf32>
  %2 = tile.dim %x 0 : !tile.array<?x11xf32>
  %3 = tile.constant 2.000000e+00 sizes(%2) : !tile.tile<?x8xf32>
  %4 = tile.mul %1, %3 : !tile.tile<?x8xf32>
  %5 = tile.reduce sum %4 [1] : !tile.tile<?x8xf32> to !tile.tile<?xf32>
  tile.store %5, %out : !tile.tile<?xf32>, !tile.array<?xf32>
  tile.return
}


// -----

// A pad feeding an elementwise op: one elementwise group over the padded shape.
// CHECK-LABEL: tile.func @pad_exp
// CHECK:         tile.fused elementwise (%{{.*}}) : (!tile.tile<4x6xf32>) -> (!tile.tile<7x9xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tile.pad
// CHECK-NEXT:      tile.exp
// CHECK-NOT:     tile.fused
tile.func @pad_exp(%x: !tile.array<4x6xf32>) outs(%out: !tile.array<7x9xf32>) {
  %0 = tile.load %x : !tile.array<4x6xf32> -> !tile.tile<4x6xf32>
  %1 = tile.pad %0 low [1, 0] high [2, 3] value -1.000000e+00 : !tile.tile<4x6xf32> to !tile.tile<7x9xf32>
  %2 = tile.exp %1 : !tile.tile<7x9xf32>
  tile.store %2, %out : !tile.tile<7x9xf32>, !tile.array<7x9xf32>
  tile.return
}


// -----

// A slice feeding a contraction is materialized first (the GEMM reads a buffer): two groups.
// CHECK-LABEL: tile.func @slice_matmul
// CHECK:         %[[S:.+]] = tile.fused elementwise
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tile.slice
// CHECK-NEXT:      tile.yield
// CHECK:         tile.fused contraction (%[[S]], %{{.*}})
// CHECK-NOT:     tile.fused
tile.func @slice_matmul(%a: !tile.array<?x9xf32>, %w: !tile.array<4x?xf32>) outs(%out: !tile.array<?x?xf32>) {
  %0 = tile.load %a : !tile.array<?x9xf32> -> !tile.tile<?x9xf32>
  %1 = tile.load %w : !tile.array<4x?xf32> -> !tile.tile<4x?xf32>
  %2 = tile.slice %0 offsets [0, 0] strides [1, 1] : !tile.tile<?x9xf32> to !tile.tile<?x4xf32>
  %3 = tile.contract %2, %1 axes [[1, 0]] acc f32 : !tile.tile<?x4xf32>, !tile.tile<4x?xf32> -> !tile.tile<?x?xf32>
  tile.store %3, %out : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.return
}
