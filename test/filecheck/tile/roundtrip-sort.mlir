// tile.sort and tile.topk: axis, descending / unstable, k / smallest / unsorted, dynamic sizes,
// integers, extra attributes, and the generic form.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @order
tile.func @order(%X: !tile.array<?x7xf32>, %I: !tile.array<5xui32>) {
  %x = tile.load %X : !tile.array<?x7xf32> -> !tile.tile<?x7xf32>
  %i = tile.load %I : !tile.array<5xui32> -> !tile.tile<5xui32>
  // CHECK: %v, %j = tile.sort %x axis 1 : !tile.tile<?x7xf32> -> !tile.tile<?x7xf32>, !tile.tile<?x7xi64>
  // GENERIC: "tile.sort"(%x) <{axis = #builtin.int<1>}> : (!tile.tile<?x7xf32>) -> (!tile.tile<?x7xf32>, !tile.tile<?x7xi64>)
  %v, %j = tile.sort %x axis 1 : !tile.tile<?x7xf32> -> !tile.tile<?x7xf32>, !tile.tile<?x7xi64>
  // CHECK-NEXT: %w, %k = tile.sort %i axis 0 descending unstable {note} : !tile.tile<5xui32> -> !tile.tile<5xui32>, !tile.tile<5xi64>
  // GENERIC: <{axis = #builtin.int<0>, descending, unstable}> {note}
  %w, %k = tile.sort %i axis 0 descending unstable {note} : !tile.tile<5xui32> -> !tile.tile<5xui32>, !tile.tile<5xi64>
  // CHECK-NEXT: %t, %ti = tile.topk %x k 3 axis 1 : !tile.tile<?x7xf32> -> !tile.tile<?x3xf32>, !tile.tile<?x3xi64>
  // GENERIC: "tile.topk"(%x) <{axis = #builtin.int<1>, k = #builtin.int<3>}>
  %t, %ti = tile.topk %x k 3 axis 1 : !tile.tile<?x7xf32> -> !tile.tile<?x3xf32>, !tile.tile<?x3xi64>
  // CHECK-NEXT: %s, %si = tile.topk %x k 2 axis 0 smallest unsorted : !tile.tile<?x7xf32> -> !tile.tile<2x7xf32>, !tile.tile<2x7xi64>
  // GENERIC: <{axis = #builtin.int<0>, k = #builtin.int<2>, smallest, unsorted}>
  %s, %si = tile.topk %x k 2 axis 0 smallest unsorted : !tile.tile<?x7xf32> -> !tile.tile<2x7xf32>, !tile.tile<2x7xi64>
  tile.return
}
