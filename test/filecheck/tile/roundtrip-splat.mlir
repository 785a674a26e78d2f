// tile.splat: a scalar input of the function, or an index (tile.dim), filling a tile; rank 0,
// static and dynamic shapes (sizes(...)), every scalar kind, a discardable attribute.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @splat(%A: !tile.array<?x4xf16>, %s: f32, %d: f64, %k: i64, %h: f16, %b: i1) {
tile.func @splat(%A: !tile.array<?x4xf16>, %s: f32, %d: f64, %k: i64, %h: f16, %b: i1) {
  // CHECK-NEXT: %n = tile.dim %A 0 : !tile.array<?x4xf16>
  %n = tile.dim %A 0 : !tile.array<?x4xf16>
  // CHECK-NEXT: %0 = tile.splat %s : f32 to !tile.tile<f32>
  // GENERIC: %0 = "tile.splat"(%s) : (f32) -> !tile.tile<f32>
  %0 = tile.splat %s : f32 to !tile.tile<f32>
  // CHECK-NEXT: %1 = tile.splat %d : f64 to !tile.tile<3x5xf64>
  %1 = tile.splat %d : f64 to !tile.tile<3x5xf64>
  // CHECK-NEXT: %2 = tile.splat %k sizes(%n) : i64 to !tile.tile<?x4xi64>
  // GENERIC: %2 = "tile.splat"(%k, %n) : (i64, index) -> !tile.tile<?x4xi64>
  %2 = tile.splat %k sizes(%n) : i64 to !tile.tile<?x4xi64>
  // CHECK-NEXT: %3 = tile.splat %n sizes(%n) : index to !tile.tile<?x4xf16>
  %3 = tile.splat %n sizes(%n) : index to !tile.tile<?x4xf16>
  // CHECK-NEXT: %4 = tile.splat %n : index to !tile.tile<i32>
  %4 = tile.splat %n : index to !tile.tile<i32>
  // CHECK-NEXT: %5 = tile.splat %h {tag} : f16 to !tile.tile<2xf16>
  %5 = tile.splat %h {tag} : f16 to !tile.tile<2xf16>
  // CHECK-NEXT: %6 = tile.splat %b : i1 to !tile.tile<i1>
  %6 = tile.splat %b : i1 to !tile.tile<i1>
  tile.return
}
