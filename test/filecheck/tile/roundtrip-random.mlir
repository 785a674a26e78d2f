// tile.random_bits: static and `?` shapes, rank 0, extra attributes; custom and generic syntax.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @random(%s: i64, %n: index) {
tile.func @random(%s: i64, %n: index) {
  // CHECK-NEXT: %seed = tile.splat %s : i64 to !tile.tile<i64>
  %seed = tile.splat %s : i64 to !tile.tile<i64>
  // CHECK-NEXT: %off = tile.constant 4294967295 : !tile.tile<i64>
  %off = tile.constant 4294967295 : !tile.tile<i64>
  // CHECK-NEXT: %a = tile.random_bits %seed, %off : !tile.tile<4x8xui32>
  // GENERIC: %a = "tile.random_bits"(%seed, %off) : (!tile.tile<i64>, !tile.tile<i64>) -> !tile.tile<4x8xui32>
  %a = tile.random_bits %seed, %off : !tile.tile<4x8xui32>
  // CHECK-NEXT: %b = tile.random_bits %seed, %off sizes(%n) : !tile.tile<?x3xui32>
  // GENERIC: %b = "tile.random_bits"(%seed, %off, %n) : (!tile.tile<i64>, !tile.tile<i64>, index) -> !tile.tile<?x3xui32>
  %b = tile.random_bits %seed, %off sizes(%n) : !tile.tile<?x3xui32>
  // CHECK-NEXT: %c = tile.random_bits %off, %seed {tag} : !tile.tile<ui32>
  %c = tile.random_bits %off, %seed {tag} : !tile.tile<ui32>
  tile.return
}
