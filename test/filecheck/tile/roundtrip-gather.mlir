// tile.take, tile.take_along_axis and tile.scatter_add: custom syntax round trip (signed and
// unsigned index types, dynamic sizes, extra attributes) and their generic form.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @gathers
tile.func @gathers(%W: !tile.array<100x16xf32>, %I: !tile.array<4x7xi64>, %L: !tile.array<?x1xui32>, %X: !tile.array<?x10xf16>) {
  %w = tile.load %W : !tile.array<100x16xf32> -> !tile.tile<100x16xf32>
  %i = tile.load %I : !tile.array<4x7xi64> -> !tile.tile<4x7xi64>
  %l = tile.load %L : !tile.array<?x1xui32> -> !tile.tile<?x1xui32>
  %x = tile.load %X : !tile.array<?x10xf16> -> !tile.tile<?x10xf16>
  // CHECK: %e = tile.take %w[%i] axis 0 : !tile.tile<100x16xf32>, !tile.tile<4x7xi64> to !tile.tile<4x7x16xf32>
  // GENERIC: "tile.take"(%w, %i) <{axis = #builtin.int<0>}> : (!tile.tile<100x16xf32>, !tile.tile<4x7xi64>) -> !tile.tile<4x7x16xf32>
  %e = tile.take %w[%i] axis 0 : !tile.tile<100x16xf32>, !tile.tile<4x7xi64> to !tile.tile<4x7x16xf32>
  // CHECK-NEXT: %c = tile.take %w[%i] axis 1 {note} : !tile.tile<100x16xf32>, !tile.tile<4x7xi64> to !tile.tile<100x4x7xf32>
  %c = tile.take %w[%i] axis 1 {note} : !tile.tile<100x16xf32>, !tile.tile<4x7xi64> to !tile.tile<100x4x7xf32>
  // CHECK-NEXT: %p = tile.take_along_axis %x[%l] axis 1 : !tile.tile<?x10xf16>, !tile.tile<?x1xui32> to !tile.tile<?x1xf16>
  // GENERIC: "tile.take_along_axis"(%x, %l) <{axis = #builtin.int<1>}> : (!tile.tile<?x10xf16>, !tile.tile<?x1xui32>) -> !tile.tile<?x1xf16>
  %p = tile.take_along_axis %x[%l] axis 1 : !tile.tile<?x10xf16>, !tile.tile<?x1xui32> to !tile.tile<?x1xf16>
  %ii = tile.iota 0 : !tile.tile<28x16xi32>
  %u = tile.slice %w offsets [0, 0] strides [1, 1] : !tile.tile<100x16xf32> to !tile.tile<28x16xf32>
  // CHECK: %g = tile.scatter_add %w[%ii], %u axis 0 : !tile.tile<100x16xf32>, !tile.tile<28x16xi32>, !tile.tile<28x16xf32> to !tile.tile<100x16xf32>
  // GENERIC: "tile.scatter_add"(%w, %ii, %u) <{axis = #builtin.int<0>}> : (!tile.tile<100x16xf32>, !tile.tile<28x16xi32>, !tile.tile<28x16xf32>) -> !tile.tile<100x16xf32>
  %g = tile.scatter_add %w[%ii], %u axis 0 : !tile.tile<100x16xf32>, !tile.tile<28x16xi32>, !tile.tile<28x16xf32> to !tile.tile<100x16xf32>
  tile.return
}
