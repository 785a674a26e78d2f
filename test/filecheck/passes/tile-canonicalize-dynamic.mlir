// tile-canonicalize on tiles with `?` sizes: rewrites that do not depend on the sizes happen
// (identity cast and transpose, chains, x * 1, double neg); those that would need them do not
// (identity broadcast/reshape between equal dynamic types, folding a splat into a dynamic tile).
// RUN: tilec-opt %s -p tile-canonicalize | filecheck %s

// CHECK-LABEL: tile.func @dynamic
// CHECK-NEXT:    %x = tile.load %X : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
// CHECK-NEXT:    %n = tile.dim %x 0
// CHECK-NEXT:    %m = tile.dim %x 1
// CHECK-NEXT:    %one = tile.constant 1.000000e+00 sizes(%n, %m) : !tile.tile<?x?xf32>
// CHECK-NEXT:    tile.store %x, %A
// CHECK-NEXT:    %t3 = tile.transpose %x [1, 0] : !tile.tile<?x?xf32> to !tile.tile<?x?xf32>
// CHECK-NEXT:    tile.store %t3, %B
// CHECK-NEXT:    %r2 = tile.reshape %x sizes(%m, %n) : !tile.tile<?x?xf32> to !tile.tile<?x?xf32>
// CHECK-NEXT:    tile.store %r2, %C
// CHECK-NEXT:    %e = tile.exp %one : !tile.tile<?x?xf32>
// CHECK-NEXT:    tile.store %e, %D
// CHECK-NEXT:    tile.return
tile.func @dynamic(%X: !tile.array<?x?xf32>) outs(%A: !tile.array<?x?xf32>, %B: !tile.array<?x?xf32>, %C: !tile.array<?x?xf32>, %D: !tile.array<?x?xf32>) {
  %x = tile.load %X : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %n = tile.dim %x 0 : !tile.tile<?x?xf32>
  %m = tile.dim %x 1 : !tile.tile<?x?xf32>
  %c = tile.cast %x : !tile.tile<?x?xf32> to !tile.tile<?x?xf32>
  %n1 = tile.neg %c : !tile.tile<?x?xf32>
  %n2 = tile.neg %n1 : !tile.tile<?x?xf32>
  %one = tile.constant 1.0 sizes(%n, %m) : !tile.tile<?x?xf32>
  %p = tile.mul %n2, %one : !tile.tile<?x?xf32>
  tile.store %p, %A : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  %t1 = tile.transpose %x [1, 0] : !tile.tile<?x?xf32> to !tile.tile<?x?xf32>
  %t2 = tile.transpose %t1 [1, 0] : !tile.tile<?x?xf32> to !tile.tile<?x?xf32>
  %t3 = tile.transpose %t2 [1, 0] : !tile.tile<?x?xf32> to !tile.tile<?x?xf32>
  tile.store %t3, %B : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  %r1 = tile.reshape %x sizes(%n, %m) : !tile.tile<?x?xf32> to !tile.tile<?x?xf32>
  %r2 = tile.reshape %r1 sizes(%m, %n) : !tile.tile<?x?xf32> to !tile.tile<?x?xf32>
  tile.store %r2, %C : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  %e = tile.exp %one : !tile.tile<?x?xf32>
  tile.store %e, %D : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.return
}
