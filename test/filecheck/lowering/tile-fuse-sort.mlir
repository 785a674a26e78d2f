// tile-fuse with sorts: a top-k along the last axis joins the rowwise group computing its
// source (softmax then top-k: one `sort` group); a sort along a leading axis of a computed
// value is a `sort` group of its own reading the elementwise group's result; the GPU lowering
// holds the short row in registers (no shared memory, no barrier) and picks the top 2 in one kernel.
// RUN: tilec-opt %s --split-input-file -p tile-fuse | filecheck %s
// RUN: tilec-opt %s --split-input-file -p tile-fuse | tilec-opt --split-input-file -p tile-fuse | filecheck %s
// RUN: tilec-opt %s --split-input-file -p lower-to-ptx -t ptx | filecheck %s --check-prefix=PTX

// CHECK-LABEL: tile.func @gate
// CHECK:         tile.fused sort
// CHECK:           tile.reduce max
// CHECK:           tile.exp
// CHECK:           tile.reduce sum
// CHECK:           tile.div
// CHECK:           tile.topk %{{.*}} k 2 axis 1
// CHECK:           tile.yield
// CHECK-NOT:     tile.fused
// PTX-LABEL:   .entry tilec_u_gate_0_sort(
// PTX-NOT:       bar.sync
// PTX:           ex2.approx
// PTX:           min.u64
// PTX-NOT:       bar.sync
// PTX-NOT:     .entry
tile.func @gate(%x: !tile.array<4x8xf32>) outs(%v: !tile.array<4x2xf32>, %i: !tile.array<4x2xi64>) {
  %0 = tile.load %x : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
  %1 = tile.reduce max %0 [1] : !tile.tile<4x8xf32> to !tile.tile<4xf32>
  %2 = tile.reshape %1 : !tile.tile<4xf32> to !tile.tile<4x1xf32>
  %3 = tile.broadcast %2 : !tile.tile<4x1xf32> to !tile.tile<4x8xf32>
  %4 = tile.sub %0, %3 : !tile.tile<4x8xf32>
  %5 = tile.exp %4 : !tile.tile<4x8xf32>
  %6 = tile.reduce sum %5 [1] : !tile.tile<4x8xf32> to !tile.tile<4xf32>
  %7 = tile.reshape %6 : !tile.tile<4xf32> to !tile.tile<4x1xf32>
  %8 = tile.broadcast %7 : !tile.tile<4x1xf32> to !tile.tile<4x8xf32>
  %9 = tile.div %5, %8 : !tile.tile<4x8xf32>
  %tv, %ti = tile.topk %9 k 2 axis 1 : !tile.tile<4x8xf32> -> !tile.tile<4x2xf32>, !tile.tile<4x2xi64>
  tile.store %tv, %v : !tile.tile<4x2xf32>, !tile.array<4x2xf32>
  tile.store %ti, %i : !tile.tile<4x2xi64>, !tile.array<4x2xi64>
  tile.return
}

// -----

// CHECK-LABEL: tile.func @columns
// CHECK:         %[[E:.*]] = tile.fused elementwise
// CHECK:           tile.mul
// CHECK:         tile.fused sort (%[[E]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tile.sort %{{.*}} axis 0 descending
// CHECK-NEXT:      tile.yield
// CHECK-NOT:     tile.fused
// PTX-LABEL:   .entry tilec_u_columns_0_elementwise(
// PTX:         .entry tilec_u_columns_1_sort(
tile.func @columns(%x: !tile.array<5x3xf32>) outs(%o: !tile.array<5x3xf32>) {
  %0 = tile.load %x : !tile.array<5x3xf32> -> !tile.tile<5x3xf32>
  %1 = tile.mul %0, %0 : !tile.tile<5x3xf32>
  %v, %i = tile.sort %1 axis 0 descending : !tile.tile<5x3xf32> -> !tile.tile<5x3xf32>, !tile.tile<5x3xi64>
  tile.store %v, %o : !tile.tile<5x3xf32>, !tile.array<5x3xf32>
  tile.return
}
