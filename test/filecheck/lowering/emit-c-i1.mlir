// i1 in the C emitter (the arith -> C table shared with HIP, tilec/emit/cfamily.py): a bool, 0 or 1,
// whose arithmetic wraps modulo 2 (true + true = false) and whose SIGNED value of true is -1: so
// maxsi is `and`, minsi `or`, the signed compares reverse the order of 0/1, extsi / sitofp /
// index_cast give -1, and trunci to i1 keeps the low bit (2 -> false). The driver (the DRIVER
// lines) runs every pair of operands.
// RUN: tilec-opt %s -t c | filecheck %s
// RUN: tilec-opt %s -t c -o %t.c
// RUN: sed -n 's#^// DRIVER: ##p' %s > %t.driver.c
// RUN: cc -O2 -std=gnu11 -Wall -include %t.c %t.driver.c -o %t.bin
// RUN: %t.bin | filecheck %s --check-prefix=OUT

// CHECK:      bool add = p != q;
// CHECK-NEXT: bool sub = p != q;
// CHECK-NEXT: bool mul = p && q;
// CHECK-NEXT: bool xor = p != q;
// CHECK-NEXT: bool maxs = (p && q);
// CHECK-NEXT: bool mins = (p || q);
// CHECK-NEXT: bool maxu = ((uint8_t)p > (uint8_t)q ? p : q);
// CHECK-NEXT: bool minu = ((uint8_t)p < (uint8_t)q ? p : q);
// CHECK-NEXT: bool slt = q < p;
// CHECK-NEXT: bool sle = q <= p;
// CHECK-NEXT: bool sgt = q > p;
// CHECK-NEXT: bool sge = q >= p;
// CHECK-NEXT: bool ult = p < q;
// CHECK-NEXT: bool ule = p <= q;
// CHECK-NEXT: int32_t ext = (int32_t)(p ? -1 : 0);
// CHECK-NEXT: float fl = (float)(p ? -1 : 0);
// CHECK-NEXT: int64_t idx = (int64_t)(p ? -1 : 0);
// CHECK-NEXT: bool ab = p;
// CHECK-NEXT: bool tr = (x & 1) != 0;
// Unsigned compares cast to the unsigned type of the operands' width:
// CHECK-NEXT: bool ucmp = (uint32_t)u < (uint32_t)v;
// CHECK-NEXT: bool ucmp8 = (uint8_t)pi < (uint8_t)qi;

//          p q: add sub mul xor maxs mins maxu minu slt sle sgt sge ult ule ext fl idx abs | tr ucmp
// OUT:      0 0: 0 0 0 0 0 0 0 0 0 1 0 1 0 1 0 0 0 0 | 0 0
// OUT-NEXT: 0 1: 1 1 0 1 0 1 1 0 0 0 1 1 1 1 0 0 0 0 | 0 0
// OUT-NEXT: 1 0: 1 1 0 1 0 1 1 0 1 1 0 0 0 0 -1 -1 -1 1 | 1 0
// OUT-NEXT: 1 1: 0 0 1 0 1 1 1 1 0 1 0 1 0 1 -1 -1 -1 1 | 1 0
// DRIVER: #include <stdio.h>
// DRIVER: int main(void) {
// DRIVER:   for (int p = 0; p < 2; p++)
// DRIVER:     for (int q = 0; q < 2; q++) {
// DRIVER:       int32_t o[20];
// DRIVER:       float f;
// DRIVER:       tilec_u_i1_ops(o, &f, (int8_t)p, (int8_t)q, 2 + p, -1, 1);
// DRIVER:       printf("%d %d:", p, q);
// DRIVER:       for (int i = 0; i < 17; i++) {
// DRIVER:         printf(" %d", o[i]);
// DRIVER:         if (i == 14) printf(" %g", f);
// DRIVER:       }
// DRIVER:       printf(" | %d %d\n", o[17], o[18]);
// DRIVER:     }
// DRIVER:   return 0;
// DRIVER: }
hw.cpu.func @i1_ops(%O: !hw.ptr<generic, i32>, %F: !hw.ptr<generic, f32>, %pi: i8, %qi: i8, %x: i32, %u: i32, %v: i32) attributes {tilec.entry} {
  %z8 = arith.constant 0 : i8
  %p = arith.cmpi ne, %pi, %z8 : i8
  %q = arith.cmpi ne, %qi, %z8 : i8
  %add = arith.addi %p, %q : i1
  %sub = arith.subi %p, %q : i1
  %mul = arith.muli %p, %q : i1
  %xor = arith.xori %p, %q : i1
  %maxs = arith.maxsi %p, %q : i1
  %mins = arith.minsi %p, %q : i1
  %maxu = arith.maxui %p, %q : i1
  %minu = arith.minui %p, %q : i1
  %slt = arith.cmpi slt, %p, %q : i1
  %sle = arith.cmpi sle, %p, %q : i1
  %sgt = arith.cmpi sgt, %p, %q : i1
  %sge = arith.cmpi sge, %p, %q : i1
  %ult = arith.cmpi ult, %p, %q : i1
  %ule = arith.cmpi ule, %p, %q : i1
  %ext = arith.extsi %p : i1 to i32
  %fl = arith.sitofp %p : i1 to f32
  %idx = arith.index_cast %p : i1 to index
  %ab = math.absi %p : i1
  %tr = arith.trunci %x : i32 to i1
  %ucmp = arith.cmpi ult, %u, %v : i32
  %ucmp8 = arith.cmpi ult, %pi, %qi : i8
  %i0 = arith.constant 0 : i64
  %i1 = arith.constant 1 : i64
  %i2 = arith.constant 2 : i64
  %i3 = arith.constant 3 : i64
  %i4 = arith.constant 4 : i64
  %i5 = arith.constant 5 : i64
  %i6 = arith.constant 6 : i64
  %i7 = arith.constant 7 : i64
  %i8 = arith.constant 8 : i64
  %i9 = arith.constant 9 : i64
  %i10 = arith.constant 10 : i64
  %i11 = arith.constant 11 : i64
  %i12 = arith.constant 12 : i64
  %i13 = arith.constant 13 : i64
  %i14 = arith.constant 14 : i64
  %i15 = arith.constant 15 : i64
  %i16 = arith.constant 16 : i64
  %i17 = arith.constant 17 : i64
  %i18 = arith.constant 18 : i64
  %o0 = arith.extui %add : i1 to i32
  %o1 = arith.extui %sub : i1 to i32
  %o2 = arith.extui %mul : i1 to i32
  %o3 = arith.extui %xor : i1 to i32
  %o4 = arith.extui %maxs : i1 to i32
  %o5 = arith.extui %mins : i1 to i32
  %o6 = arith.extui %maxu : i1 to i32
  %o7 = arith.extui %minu : i1 to i32
  %o8 = arith.extui %slt : i1 to i32
  %o9 = arith.extui %sle : i1 to i32
  %o10 = arith.extui %sgt : i1 to i32
  %o11 = arith.extui %sge : i1 to i32
  %o12 = arith.extui %ult : i1 to i32
  %o13 = arith.extui %ule : i1 to i32
  %idx64 = arith.index_cast %idx : index to i64
  %o15 = arith.trunci %idx64 : i64 to i32
  %o16 = arith.extui %ab : i1 to i32
  %o17 = arith.extui %tr : i1 to i32
  %o18 = arith.extui %ucmp : i1 to i32
  hw.cpu.store %o0, %O[%i0] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %o1, %O[%i1] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %o2, %O[%i2] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %o3, %O[%i3] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %o4, %O[%i4] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %o5, %O[%i5] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %o6, %O[%i6] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %o7, %O[%i7] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %o8, %O[%i8] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %o9, %O[%i9] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %o10, %O[%i10] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %o11, %O[%i11] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %o12, %O[%i12] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %o13, %O[%i13] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %ext, %O[%i14] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %fl, %F[%i0] : f32, !hw.ptr<generic, f32>
  hw.cpu.store %o15, %O[%i15] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %o16, %O[%i16] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %o17, %O[%i17] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %o18, %O[%i18] : i32, !hw.ptr<generic, i32>
  hw.cpu.return
}
