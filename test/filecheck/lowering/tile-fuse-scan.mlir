// tile-fuse with scans and arg-reductions: a scan joins the elementwise group of its operand,
// a scan of that scan and elementwise consumers join it (one `scan` group); a scan in the other
// direction is a group of its own. An argmax of a loaded array joins the rowwise group of a max
// over the same rows (one kernel).
// RUN: tilec-opt %s --split-input-file -p tile-fuse | filecheck %s
// RUN: tilec-opt %s --split-input-file -p tile-fuse | tilec-opt --split-input-file -p tile-fuse | filecheck %s

// CHECK-LABEL: tile.func @scans
// CHECK:         tile.fused scan
// CHECK:           tile.mul
// CHECK:           tile.scan add %{{.*}} axis 1 :
// CHECK:           tile.scan add %{{.*}} axis 1 :
// CHECK:           tile.div
// CHECK:           tile.yield
// CHECK:         tile.fused scan
// CHECK:           tile.scan mul %{{.*}} axis 1 reverse :
// CHECK:           tile.yield
// CHECK-NOT:     tile.fused
tile.func @scans(%x: !tile.array<8x33xf32>, %w: !tile.array<8x33xf32>) outs(%a: !tile.array<8x33xf32>, %b: !tile.array<8x33xf32>) {
  %0 = tile.load %x : !tile.array<8x33xf32> -> !tile.tile<8x33xf32>
  %1 = tile.load %w : !tile.array<8x33xf32> -> !tile.tile<8x33xf32>
  %2 = tile.mul %0, %1 : !tile.tile<8x33xf32>
  %3 = tile.scan add %2 axis 1 : !tile.tile<8x33xf32>
  %4 = tile.scan add %3 axis 1 : !tile.tile<8x33xf32>
  %5 = tile.div %3, %4 : !tile.tile<8x33xf32>
  %6 = tile.scan mul %0 axis 1 reverse : !tile.tile<8x33xf32>
  tile.store %5, %a : !tile.tile<8x33xf32>, !tile.array<8x33xf32>
  tile.store %6, %b : !tile.tile<8x33xf32>, !tile.array<8x33xf32>
  tile.return
}

// -----

// CHECK-LABEL: tile.func @max_argmax
// CHECK:         tile.fused rowwise
// CHECK:           tile.reduce max
// CHECK:           tile.reduce argmax
// CHECK:           tile.yield
// CHECK-NOT:     tile.fused
tile.func @max_argmax(%x: !tile.array<?x?xf32>) outs(%m: !tile.array<?xf32>, %i: !tile.array<?xi64>) {
  %0 = tile.load %x : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %1 = tile.reduce max %0 [1] : !tile.tile<?x?xf32> to !tile.tile<?xf32>
  %2 = tile.reduce argmax %0 [1] : !tile.tile<?x?xf32> to !tile.tile<?xi64>
  tile.store %1, %m : !tile.tile<?xf32>, !tile.array<?xf32>
  tile.store %2, %i : !tile.tile<?xi64>, !tile.array<?xi64>
  tile.return
}
