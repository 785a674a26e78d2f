// tile.transpose: 2-d, 3-d and 4-d permutations, the identity, rank 1, dynamic sizes.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @transpose
tile.func @transpose(%X: !tile.array<64x?xf32>) {
  %x = tile.load %X : !tile.array<64x?xf32> -> !tile.tile<64x?xf32>
  // CHECK: %t = tile.transpose %x [1, 0] : !tile.tile<64x?xf32> to !tile.tile<?x64xf32>
  // GENERIC: %t = "tile.transpose"(%x) <{permutation = array<i64: 1, 0>}> : (!tile.tile<64x?xf32>) -> !tile.tile<?x64xf32>
  %t = tile.transpose %x [1, 0] : !tile.tile<64x?xf32> to !tile.tile<?x64xf32>
  %y = tile.constant 1 : !tile.tile<2x3x5xi32>
  // CHECK: %u = tile.transpose %y [2, 0, 1] : !tile.tile<2x3x5xi32> to !tile.tile<5x2x3xi32>
  %u = tile.transpose %y [2, 0, 1] : !tile.tile<2x3x5xi32> to !tile.tile<5x2x3xi32>
  // CHECK-NEXT: %v = tile.transpose %y [0, 1, 2] : !tile.tile<2x3x5xi32> to !tile.tile<2x3x5xi32>
  %v = tile.transpose %y [0, 1, 2] : !tile.tile<2x3x5xi32> to !tile.tile<2x3x5xi32>
  %z = tile.constant 1.0 : !tile.tile<2x3x5x7xf16>
  // CHECK: %w = tile.transpose %z [3, 1, 2, 0] {note} : !tile.tile<2x3x5x7xf16> to !tile.tile<7x3x5x2xf16>
  %w = tile.transpose %z [3, 1, 2, 0] {note} : !tile.tile<2x3x5x7xf16> to !tile.tile<7x3x5x2xf16>
  %r = tile.constant 1.0 : !tile.tile<9xf64>
  // CHECK: %s = tile.transpose %r [0] : !tile.tile<9xf64> to !tile.tile<9xf64>
  %s = tile.transpose %r [0] : !tile.tile<9xf64> to !tile.tile<9xf64>
  tile.return
}
