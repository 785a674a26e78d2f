// Upstream cse on tile IR: identical pure tile ops (same operands, properties and types) merge; ops
// that differ in a property (permutation, predicate, axes, kind, value) do not; tile.load is not
// pure and is never merged; unused pure ops go away.
// RUN: tilec-opt %s -p cse | filecheck %s

// CHECK-LABEL: tile.func @merge
// CHECK-NEXT:    %x = tile.load %X
// CHECK-NEXT:    %x2 = tile.load %X
// CHECK-NEXT:    %e1 = tile.exp %x
// CHECK-NEXT:    %s = tile.add %e1, %e1
// CHECK-NEXT:    %c1 = tile.constant 2.000000e+00
// CHECK-NEXT:    %p = tile.mul %s, %c1
// CHECK-NEXT:    %q = tile.mul %p, %c1
// CHECK-NEXT:    %d = tile.sub %q, %x2
// CHECK-NEXT:    tile.store %d, %Y
tile.func @merge(%X: !tile.array<8xf32>) outs(%Y: !tile.array<8xf32>) {
  %x = tile.load %X : !tile.array<8xf32> -> !tile.tile<8xf32>
  %x2 = tile.load %X : !tile.array<8xf32> -> !tile.tile<8xf32>
  %e1 = tile.exp %x : !tile.tile<8xf32>
  %e2 = tile.exp %x : !tile.tile<8xf32>
  %s = tile.add %e1, %e2 : !tile.tile<8xf32>
  %c1 = tile.constant 2.0 : !tile.tile<8xf32>
  %p = tile.mul %s, %c1 : !tile.tile<8xf32>
  %c2 = tile.constant 2.0 : !tile.tile<8xf32>
  %q = tile.mul %p, %c2 : !tile.tile<8xf32>
  %unused = tile.neg %q : !tile.tile<8xf32>
  %d = tile.sub %q, %x2 : !tile.tile<8xf32>
  tile.store %d, %Y : !tile.tile<8xf32>, !tile.array<8xf32>
  tile.return
}

// CHECK-LABEL: tile.func @keep
// CHECK:         %t1 = tile.transpose %x [1, 0, 2]
// CHECK-NEXT:    %t2 = tile.transpose %x [0, 2, 1]
// CHECK:         %r1 = tile.reduce sum %x [0]
// CHECK-NEXT:    %r2 = tile.reduce max %x [0]
// CHECK-NEXT:    %r3 = tile.reduce sum %x [1]
// CHECK:         %k1 = tile.cmp lt %a, %b
// CHECK-NEXT:    %k2 = tile.cmp le %a, %b
// CHECK:         %c1 = tile.constant 1.000000e+00
// CHECK-NEXT:    %c2 = tile.constant 2.000000e+00
// CHECK-NEXT:    %c3 = tile.constant 1.000000e+00 : !tile.tile<2x2xf64>
tile.func @keep(%X: !tile.array<2x2x2xf32>) outs(%T1: !tile.array<2x2x2xf32>, %T2: !tile.array<2x2x2xf32>, %R1: !tile.array<2x2xf32>, %R2: !tile.array<2x2xf32>,
    %R3: !tile.array<2x2xf32>, %K1: !tile.array<2x2xi1>, %K2: !tile.array<2x2xi1>, %C1: !tile.array<2x2xf32>, %C2: !tile.array<2x2xf32>, %C3: !tile.array<2x2xf64>) {
  %x = tile.load %X : !tile.array<2x2x2xf32> -> !tile.tile<2x2x2xf32>
  %t1 = tile.transpose %x [1, 0, 2] : !tile.tile<2x2x2xf32> to !tile.tile<2x2x2xf32>
  %t2 = tile.transpose %x [0, 2, 1] : !tile.tile<2x2x2xf32> to !tile.tile<2x2x2xf32>
  tile.store %t1, %T1 : !tile.tile<2x2x2xf32>, !tile.array<2x2x2xf32>
  tile.store %t2, %T2 : !tile.tile<2x2x2xf32>, !tile.array<2x2x2xf32>
  %r1 = tile.reduce sum %x [0] : !tile.tile<2x2x2xf32> to !tile.tile<2x2xf32>
  %r2 = tile.reduce max %x [0] : !tile.tile<2x2x2xf32> to !tile.tile<2x2xf32>
  %r3 = tile.reduce sum %x [1] : !tile.tile<2x2x2xf32> to !tile.tile<2x2xf32>
  tile.store %r1, %R1 : !tile.tile<2x2xf32>, !tile.array<2x2xf32>
  tile.store %r2, %R2 : !tile.tile<2x2xf32>, !tile.array<2x2xf32>
  tile.store %r3, %R3 : !tile.tile<2x2xf32>, !tile.array<2x2xf32>
  %a = tile.reduce min %x [2] : !tile.tile<2x2x2xf32> to !tile.tile<2x2xf32>
  %b = tile.reduce prod %x [2] : !tile.tile<2x2x2xf32> to !tile.tile<2x2xf32>
  %k1 = tile.cmp lt %a, %b : !tile.tile<2x2xf32>
  %k2 = tile.cmp le %a, %b : !tile.tile<2x2xf32>
  tile.store %k1, %K1 : !tile.tile<2x2xi1>, !tile.array<2x2xi1>
  tile.store %k2, %K2 : !tile.tile<2x2xi1>, !tile.array<2x2xi1>
  %c1 = tile.constant 1.0 : !tile.tile<2x2xf32>
  %c2 = tile.constant 2.0 : !tile.tile<2x2xf32>
  %c3 = tile.constant 1.0 : !tile.tile<2x2xf64>
  tile.store %c1, %C1 : !tile.tile<2x2xf32>, !tile.array<2x2xf32>
  tile.store %c2, %C2 : !tile.tile<2x2xf32>, !tile.array<2x2xf32>
  tile.store %c3, %C3 : !tile.tile<2x2xf64>, !tile.array<2x2xf64>
  tile.return
}

// Values of different functions are never merged.
// CHECK-LABEL: tile.func @other
// CHECK-NEXT:    %c = tile.constant 2.000000e+00 : !tile.tile<8xf32>
tile.func @other() outs(%Y: !tile.array<8xf32>) {
  %c = tile.constant 2.0 : !tile.tile<8xf32>
  tile.store %c, %Y : !tile.tile<8xf32>, !tile.array<8xf32>
  tile.return
}
