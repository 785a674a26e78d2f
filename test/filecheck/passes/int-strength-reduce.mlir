// int-strength-reduce: unsigned div/rem by a constant power of two -> shift/mask; everything else
// (signed ops, other divisors, zero, non-constant divisors) is left as it is.
// RUN: tilec-opt %s -p int-strength-reduce | filecheck %s
// RUN: tilec-opt %s -p int-strength-reduce,canonicalize | filecheck %s --check-prefix=FOLD

// CHECK-LABEL: func.func @reduced
// CHECK:         %c5 = arith.constant 5 : i32
// CHECK-NEXT:    %q = arith.shrui %x, %c5 : i32
// CHECK-NEXT:    %c3 = arith.constant 3 : i32
// CHECK-NEXT:    %r = arith.andi %q, %c3 : i32
// CHECK-NEXT:    %c1023 = arith.constant 1023 : i64
// CHECK-NEXT:    %w = arith.andi %y, %c1023 : i64
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    %i = arith.shrui %z, %c4 : index
// CHECK-NEXT:    func.return %r, %x, %w, %i
func.func @reduced(%x: i32, %y: i64, %z: index) -> (i32, i32, i64, index) {
  %c32 = arith.constant 32 : i32
  %c4 = arith.constant 4 : i32
  %c1 = arith.constant 1 : i32
  %c1024 = arith.constant 1024 : i64
  %c16 = arith.constant 16 : index
  %q = arith.divui %x, %c32 : i32
  %r = arith.remui %q, %c4 : i32
  %one = arith.divui %x, %c1 : i32
  %w = arith.remui %y, %c1024 : i64
  %i = arith.divui %z, %c16 : index
  func.return %r, %one, %w, %i : i32, i32, i64, index
}

// CHECK-LABEL: func.func @kept
// CHECK:         arith.divsi %x, %c4
// CHECK-NEXT:    arith.remsi %x, %c4
// CHECK-NEXT:    arith.divui %x, %c6
// CHECK-NEXT:    arith.remui %x, %c0
// CHECK-NEXT:    arith.divui %x, %x
// CHECK-NEXT:    arith.divui %x, %cm8
func.func @kept(%x: i32) -> (i32, i32, i32, i32, i32, i32) {
  %c4 = arith.constant 4 : i32
  %c6 = arith.constant 6 : i32
  %c0 = arith.constant 0 : i32
  %cm8 = arith.constant -8 : i32
  %a = arith.divsi %x, %c4 : i32
  %b = arith.remsi %x, %c4 : i32
  %c = arith.divui %x, %c6 : i32
  %d = arith.remui %x, %c0 : i32
  %e = arith.divui %x, %x : i32
  %f = arith.divui %x, %cm8 : i32
  func.return %a, %b, %c, %d, %e, %f : i32, i32, i32, i32, i32, i32
}

// FOLD-LABEL: func.func @reduced
// FOLD-NOT:     arith.divui
// FOLD-NOT:     arith.remui
// FOLD:         func.return
