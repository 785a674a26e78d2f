// tile.cast between every pair of element kinds: float widths, float <-> int, int widths, masks.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @cast
tile.func @cast(%X: !tile.array<?x8xf32>) {
  %x = tile.load %X : !tile.array<?x8xf32> -> !tile.tile<?x8xf32>
  // CHECK: %h = tile.cast %x : !tile.tile<?x8xf32> to !tile.tile<?x8xf16>
  // GENERIC: %h = "tile.cast"(%x) : (!tile.tile<?x8xf32>) -> !tile.tile<?x8xf16>
  %h = tile.cast %x : !tile.tile<?x8xf32> to !tile.tile<?x8xf16>
  // CHECK-NEXT: %b = tile.cast %h : !tile.tile<?x8xf16> to !tile.tile<?x8xbf16>
  %b = tile.cast %h : !tile.tile<?x8xf16> to !tile.tile<?x8xbf16>
  // CHECK-NEXT: %d = tile.cast %b : !tile.tile<?x8xbf16> to !tile.tile<?x8xf64>
  %d = tile.cast %b : !tile.tile<?x8xbf16> to !tile.tile<?x8xf64>
  // CHECK-NEXT: %i = tile.cast %d : !tile.tile<?x8xf64> to !tile.tile<?x8xi32>
  %i = tile.cast %d : !tile.tile<?x8xf64> to !tile.tile<?x8xi32>
  // CHECK-NEXT: %j = tile.cast %i : !tile.tile<?x8xi32> to !tile.tile<?x8xi8>
  %j = tile.cast %i : !tile.tile<?x8xi32> to !tile.tile<?x8xi8>
  // CHECK-NEXT: %m = tile.cast %j : !tile.tile<?x8xi8> to !tile.tile<?x8xi1>
  %m = tile.cast %j : !tile.tile<?x8xi8> to !tile.tile<?x8xi1>
  // CHECK-NEXT: %f = tile.cast %m {rounding = "rne"} : !tile.tile<?x8xi1> to !tile.tile<?x8xf32>
  %f = tile.cast %m {rounding = "rne"} : !tile.tile<?x8xi1> to !tile.tile<?x8xf32>
  // A cast to the same type is allowed (tile-canonicalize removes it).
  // CHECK-NEXT: %same = tile.cast %f : !tile.tile<?x8xf32> to !tile.tile<?x8xf32>
  %same = tile.cast %f : !tile.tile<?x8xf32> to !tile.tile<?x8xf32>
  %s = tile.constant 1 : !tile.tile<i64>
  // CHECK: %sf = tile.cast %s : !tile.tile<i64> to !tile.tile<f16>
  %sf = tile.cast %s : !tile.tile<i64> to !tile.tile<f16>
  tile.return
}
