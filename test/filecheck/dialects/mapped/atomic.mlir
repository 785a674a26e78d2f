// mapped.atomic_add: round trip (custom and generic syntax).
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

mapped.kernel @atomics(%O: !mapped.buf<?x?xf32, global>, %I: !mapped.buf<7xi64, global>, %H: !mapped.buf<4xf16, global>) target gpu grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = arith.constant 1.5 : f32
  %n = arith.constant -3 : i64
  %h = arith.constant 2.0 : f16
  mapped.atomic_add %x, %O[%c1, %c0] : f32, !mapped.buf<?x?xf32, global>
  mapped.atomic_add %n, %I[%c1] {tilec.tag = 1 : i64} : i64, !mapped.buf<7xi64, global>
  mapped.atomic_add %h, %H[%c0] : f16, !mapped.buf<4xf16, global>
  mapped.return
}

// CHECK-LABEL: mapped.kernel @atomics
// CHECK:         mapped.atomic_add %x, %O[%c1, %c0] : f32, !mapped.buf<?x?xf32, global>
// CHECK-NEXT:    mapped.atomic_add %n, %I[%c1] {tilec.tag = 1 : i64} : i64, !mapped.buf<7xi64, global>
// CHECK-NEXT:    mapped.atomic_add %h, %H[%c0] : f16, !mapped.buf<4xf16, global>
// CHECK-NEXT:    mapped.return
