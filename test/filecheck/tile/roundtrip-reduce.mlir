// tile.reduce: every kind (sum, max, min, prod, argmax, argmin), one axis, several axes (in any order), all axes
// (rank-0 result), integers and floats, dynamic sizes.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @reduce
tile.func @reduce(%X: !tile.array<?x32x8xf32>) {
  %x = tile.load %X : !tile.array<?x32x8xf32> -> !tile.tile<?x32x8xf32>
  // CHECK: %sum = tile.reduce sum %x [1] : !tile.tile<?x32x8xf32> to !tile.tile<?x8xf32>
  // GENERIC: %sum = "tile.reduce"(%x) <{kind = "sum", axes = array<i64: 1>}> : (!tile.tile<?x32x8xf32>) -> !tile.tile<?x8xf32>
  %sum = tile.reduce sum %x [1] : !tile.tile<?x32x8xf32> to !tile.tile<?x8xf32>
  // CHECK-NEXT: %max = tile.reduce max %x [0, 2] : !tile.tile<?x32x8xf32> to !tile.tile<32xf32>
  // GENERIC: <{kind = "max", axes = array<i64: 0, 2>}>
  %max = tile.reduce max %x [0, 2] : !tile.tile<?x32x8xf32> to !tile.tile<32xf32>
  // CHECK-NEXT: %min = tile.reduce min %x [2, 0] : !tile.tile<?x32x8xf32> to !tile.tile<32xf32>
  // GENERIC: <{kind = "min", axes = array<i64: 2, 0>}>
  %min = tile.reduce min %x [2, 0] : !tile.tile<?x32x8xf32> to !tile.tile<32xf32>
  // CHECK-NEXT: %prod = tile.reduce prod %x [0, 1, 2] : !tile.tile<?x32x8xf32> to !tile.tile<f32>
  // GENERIC: <{kind = "prod", axes = array<i64: 0, 1, 2>}>
  %prod = tile.reduce prod %x [0, 1, 2] : !tile.tile<?x32x8xf32> to !tile.tile<f32>
  // No axes: the identity reduction.
  // CHECK-NEXT: %none = tile.reduce sum %x [] : !tile.tile<?x32x8xf32> to !tile.tile<?x32x8xf32>
  %none = tile.reduce sum %x [] : !tile.tile<?x32x8xf32> to !tile.tile<?x32x8xf32>
  %i = tile.iota 0 : !tile.tile<16xi64>
  // CHECK: %isum = tile.reduce sum %i [0] {tree} : !tile.tile<16xi64> to !tile.tile<i64>
  %isum = tile.reduce sum %i [0] {tree} : !tile.tile<16xi64> to !tile.tile<i64>
  // Arg-reductions: one axis, i64 indices.
  // CHECK: %amax = tile.reduce argmax %x [1] : !tile.tile<?x32x8xf32> to !tile.tile<?x8xi64>
  // GENERIC: %amax = "tile.reduce"(%x) <{kind = "argmax", axes = array<i64: 1>}> : (!tile.tile<?x32x8xf32>) -> !tile.tile<?x8xi64>
  %amax = tile.reduce argmax %x [1] : !tile.tile<?x32x8xf32> to !tile.tile<?x8xi64>
  // CHECK-NEXT: %amin = tile.reduce argmin %i [0] : !tile.tile<16xi64> to !tile.tile<i64>
  %amin = tile.reduce argmin %i [0] : !tile.tile<16xi64> to !tile.tile<i64>
  tile.return
}
