// Unsigned integer ops in the C emitter: C's int32_t/int64_t are signed, so divui/remui/minui/maxui
// cast their operands to the unsigned type of the same width. The driver runs them on negative
// (as signed) operands, where the signed versions would give different answers.
// RUN: tilec-opt %s -t c | filecheck %s
// RUN: tilec-opt %s -t c -o %t.c
// RUN: cc -O2 -std=gnu11 -Wall -include %t.c %S/Inputs/unsigned-driver.c -o %t.bin
// RUN: %t.bin | filecheck %s --check-prefix=OUT

// CHECK: int32_t a = (int32_t)((uint32_t)x / (uint32_t)y);
// CHECK: int32_t b = (int32_t)((uint32_t)x % (uint32_t)y);
// CHECK: int32_t c = ((uint32_t)x < (uint32_t)y ? x : y);
// CHECK: int32_t d = ((uint32_t)x > (uint32_t)y ? x : y);

// 0xFFFFFFF8 / 3 = 1431655762 rem 2; minu(-8, 3) = 3; maxu(-8, 3) = -8 (signed: -2 -2 -8 3).
// OUT: 1431655762 2 3 -8
// 7 / 0xFFFFFFFF = 0 rem 7; minu(7, -1) = 7; maxu(7, -1) = -1.
// OUT-NEXT: 0 7 7 -1
hw.cpu.func @unsigned_ops(%O: !hw.ptr<generic, i32>, %x: i32, %y: i32) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %a = arith.divui %x, %y : i32
  %b = arith.remui %x, %y : i32
  %c = arith.minui %x, %y : i32
  %d = arith.maxui %x, %y : i32
  hw.cpu.store %a, %O[%c0] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %b, %O[%c1] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %c, %O[%c2] : i32, !hw.ptr<generic, i32>
  hw.cpu.store %d, %O[%c3] : i32, !hw.ptr<generic, i32>
  hw.cpu.return
}
