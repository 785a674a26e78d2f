// Shifts in the C emitter (the arith -> C table shared with HIP, tilec/emit/cfamily.py): shli is
// computed unsigned (no signed overflow), shrui on the zero-extended value, shrsi arithmetic. An
// amount >= the bit width (read as unsigned) is poison in arith and undefined behaviour in C: the
// C is guarded to give 0 (shli, shrui) or the sign fill (shrsi), as PTX's clamped shifts do. A
// literal amount within the width needs no guard. The driver (the DRIVER lines below) runs them on
// a negative value with amounts 0, 1, width - 1, width and -1 (all ones: huge as unsigned).
// RUN: tilec-opt %s -t c | filecheck %s
// RUN: tilec-opt %s -t c -o %t.c
// RUN: sed -n 's#^// DRIVER: ##p' %s > %t.driver.c
// RUN: cc -O2 -std=gnu11 -Wall -include %t.c %t.driver.c -o %t.bin
// RUN: %t.bin | filecheck %s --check-prefix=OUT

// CHECK:      int32_t l = (int32_t)((uint32_t)s < 32 ? (uint32_t)x << s : 0);
// CHECK-NEXT: int32_t ru = (int32_t)((uint32_t)s < 32 ? (uint32_t)x >> s : 0);
// CHECK-NEXT: int32_t rs = x >> ((uint32_t)s < 32 ? s : 31);
// CHECK-NEXT: int32_t l5 = (int32_t)((uint32_t)x << ((int32_t)5LL));
// CHECK-NEXT: int32_t ru5 = (int32_t)((uint32_t)x >> ((int32_t)5LL));
// CHECK-NEXT: int32_t rs5 = x >> ((int32_t)5LL);
// A literal amount out of range keeps the guard:
// CHECK-NEXT: int32_t l40 = (int32_t)((uint32_t)((int32_t)40LL) < 32 ? (uint32_t)x << ((int32_t)40LL) : 0);
// i8 shifts in uint32_t / on the uint8_t value; i64 in uint64_t:
// CHECK-NEXT: int8_t bl = (int8_t)((uint8_t)bs < 8 ? (uint32_t)b << bs : 0);
// CHECK-NEXT: int8_t bru = (int8_t)((uint8_t)bs < 8 ? (uint8_t)b >> bs : 0);
// CHECK-NEXT: int8_t brs = b >> ((uint8_t)bs < 8 ? bs : 7);
// CHECK-NEXT: int64_t yl = (int64_t)((uint64_t)ys < 64 ? (uint64_t)y << ys : 0);
// CHECK-NEXT: int64_t yru = (int64_t)((uint64_t)ys < 64 ? (uint64_t)y >> ys : 0);
// CHECK-NEXT: int64_t yrs = y >> ((uint64_t)ys < 64 ? ys : 63);

// x = -7 = 0xFFFFFFF9; the literal shifts: -7 << 5 = -224, 0xFFFFFFF9 >> 5 = 134217727, -7 >> 5 = -1.
// OUT:      s=0: -7 -7 -7 | -224 134217727 -1 0 | -7 -7 -7 | -7 -7 -7
// OUT-NEXT: s=1: -14 2147483644 -4 | -224 134217727 -1 0 | -14 124 -4 | -14 9223372036854775804 -4
// OUT-NEXT: s=w-1: -2147483648 1 -1 | -224 134217727 -1 0 | -128 1 -1 | -9223372036854775808 1 -1
// OUT-NEXT: s=w: 0 0 -1 | -224 134217727 -1 0 | 0 0 -1 | 0 0 -1
// OUT-NEXT: s=-1: 0 0 -1 | -224 134217727 -1 0 | 0 0 -1 | 0 0 -1
// DRIVER: #include <stdio.h>
// DRIVER: static void run(const char* what, int32_t s, int8_t bs, int64_t ys) {
// DRIVER:   int32_t o[10];
// DRIVER:   int64_t o64[3];
// DRIVER:   tilec_u_shifts(o, o64, -7, s, -7, bs, -7, ys);
// DRIVER:   printf("s=%s: %d %d %d | %d %d %d %d | %d %d %d | %lld %lld %lld\n", what, o[0], o[1], o[2], o[3], o[4], o[5], o[6],
// DRIVER:          o[7], o[8], o[9], (long long)o64[0], (long long)o64[1], (long long)o64[2]);
// DRIVER: }
// DRIVER: int main(void) {
// DRIVER:   run("0", 0, 0, 0);
// DRIVER:   run("1", 1, 1, 1);
// DRIVER:   run("w-1", 31, 7, 63);
// DRIVER:   run("w", 32, 8, 64);
// DRIVER:   run("-1", -1, -1, -1);
// DRIVER:   return 0;
// DRIVER: }
hw.cpu.func @shifts(%O: !hw.ptr<generic, i32>, %O64: !hw.ptr<generic, i64>, %x: i32, %s: i32, %b: i8, %bs: i8, %y: i64, %ys: i64) attributes {tilec.entry} {
  %c5 = arith.constant 5 : i32
  %c40 = arith.constant 40 : i32
  %l = arith.shli %x, %s : i32
  %ru = arith.shrui %x, %s : i32
  %rs = arith.shrsi %x, %s : i32
  %l5 = arith.shli %x, %c5 : i32
  %ru5 = arith.shrui %x, %c5 : i32
  %rs5 = arith.shrsi %x, %c5 : i32
  %l40 = arith.shli %x, %c40 : i32
  %bl = arith.shli %b, %bs : i8
  %bru = arith.shrui %b, %bs : i8
  %brs = arith.shrsi %b, %bs : i8
  %yl = arith.shli %y, %ys : i64
  %yru = arith.shrui %y, %ys : i64
  %yrs = arith.shrsi %y, %ys : i64
  %bl32 = arith.extsi %bl : i8 to i32
  %bru32 = arith.extsi %bru : i8 to i32
  %brs32 = arith.extsi %brs : i8 to i32
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
  hw.cpu.store %l, %O[%i0] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %ru, %O[%i1] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %rs, %O[%i2] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %l5, %O[%i3] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %ru5, %O[%i4] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %rs5, %O[%i5] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %l40, %O[%i6] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %bl32, %O[%i7] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %bru32, %O[%i8] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %brs32, %O[%i9] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %yl, %O64[%i0] : i64, !hw.ptr<generic, i64>
  hw.cpu.store %yru, %O64[%i1] : i64, !hw.ptr<generic, i64>
  hw.cpu.store %yrs, %O64[%i2] : i64, !hw.ptr<generic, i64>
  hw.cpu.return
}
