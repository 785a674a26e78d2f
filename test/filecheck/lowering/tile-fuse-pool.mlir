// Pooling in tile-fuse and tile-to-mapped: relu -> max_pool (with indices) -> scale is ONE group
// over the pooled shape (the relu is evaluated at every window tap, never stored); a relu that
// is also an output keeps its own group and the pool reads it materialized. The CPU kernel of
// a 3x3 window has its 9 taps unrolled (9 loads per output, no tap loop) and only the bound
// checks that can fail (padding 1 before, none after: 56 * 2 + 2 - 1 < 113).
// RUN: tilec-opt %s --split-input-file -p tile-fuse | filecheck %s
// RUN: tilec-opt %s --split-input-file -p tile-fuse,tile-to-mapped | filecheck %s --check-prefix=MAPPED
// RUN: tilec-opt %s --split-input-file -p 'tile-fuse,tile-to-mapped{target=cuda}' | filecheck %s --check-prefix=GPU

// CHECK-LABEL: tile.func @relu_pool_scale
// CHECK:         tile.fused elementwise (%x)
// CHECK:           tile.max
// CHECK-NEXT:      tile.pool max
// CHECK:           tile.mul
// CHECK-NEXT:      tile.yield
// CHECK-NOT:     tile.fused
// MAPPED-LABEL: mapped.kernel @relu_pool_scale_0_elementwise
// MAPPED-COUNT-9: mapped.load
// MAPPED-NOT:     mapped.load
// MAPPED-NOT:     scf.for {{.*}} to %c3
// MAPPED:         mapped.store
// MAPPED:         mapped.store
// MAPPED-NOT:   mapped.kernel @relu_pool_scale_1
// GPU-COUNT-1:  mapped.kernel @relu_pool_scale_0_elementwise
// GPU-NOT:      mapped.kernel @relu_pool_scale_1
tile.func @relu_pool_scale(%X: !tile.array<2x3x113x112xf32>) outs(%Y: !tile.array<2x3x57x56xf32>, %I: !tile.array<2x3x57x56xi64>) {
  %x = tile.load %X : !tile.array<2x3x113x112xf32> -> !tile.tile<2x3x113x112xf32>
  %z = tile.constant 0.0 : !tile.tile<2x3x113x112xf32>
  %r = tile.max %x, %z : !tile.tile<2x3x113x112xf32>
  %p, %i = tile.pool max %r kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] : !tile.tile<2x3x113x112xf32> to !tile.tile<2x3x57x56xf32>, !tile.tile<2x3x57x56xi64>
  %two = tile.constant 2.0 : !tile.tile<2x3x57x56xf32>
  %y = tile.mul %p, %two : !tile.tile<2x3x57x56xf32>
  tile.store %y, %Y : !tile.tile<2x3x57x56xf32>, !tile.array<2x3x57x56xf32>
  tile.store %i, %I : !tile.tile<2x3x57x56xi64>, !tile.array<2x3x57x56xi64>
  tile.return
}

// -----

// CHECK-LABEL: tile.func @relu_kept
// CHECK:         tile.fused elementwise
// CHECK:           tile.max
// CHECK-NEXT:      tile.yield
// CHECK:         tile.fused elementwise
// CHECK:           tile.pool avg
// CHECK-NEXT:      tile.yield
tile.func @relu_kept(%X: !tile.array<4x9xf32>) outs(%R: !tile.array<4x9xf32>, %A: !tile.array<4x5xf32>) {
  %x = tile.load %X : !tile.array<4x9xf32> -> !tile.tile<4x9xf32>
  %z = tile.constant 0.0 : !tile.tile<4x9xf32>
  %r = tile.max %x, %z : !tile.tile<4x9xf32>
  %a = tile.pool avg %r kernel [2] stride [2] padding [1] dilation [1] : !tile.tile<4x9xf32> to !tile.tile<4x5xf32>
  tile.store %r, %R : !tile.tile<4x9xf32>, !tile.array<4x9xf32>
  tile.store %a, %A : !tile.tile<4x5xf32>, !tile.array<4x5xf32>
  tile.return
}
