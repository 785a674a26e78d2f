// arith in the HIP emitter: the same table as the C emitter (tilec/emit/cfamily.py ARITH_TO_C), so
// the same expressions as in test/filecheck/lowering/emit-c-shifts.mlir and emit-c-i1.mlir. Shifts
// are defined for every amount (>= the width: 0, or the sign fill for shrsi); i1 arithmetic wraps
// modulo 2 and a signed true is -1. What differs from C: index is int32_t (and its add wraps, in
// uint32_t), literals are decimal, and a C++ alternative token (`xor`) is no variable name.
// test/runtime/test_emit_c_hip_semantics.py compiles such kernels with hipcc.
// RUN: tilec-opt %s -t hip | filecheck %s

// CHECK-LABEL: extern "C" __global__ void __launch_bounds__(64) tilec_u_arith_ops(int32_t* __restrict__ O, int32_t x, int32_t s, int8_t b, int8_t bs, int64_t y, int64_t ys, int8_t pi, int8_t qi, int32_t u, int32_t v) {
// CHECK:      int32_t l = (int32_t)((uint32_t)s < 32 ? (uint32_t)x << s : 0);
// CHECK-NEXT: int32_t ru = (int32_t)((uint32_t)s < 32 ? (uint32_t)x >> s : 0);
// CHECK-NEXT: int32_t rs = x >> ((uint32_t)s < 32 ? s : 31);
// CHECK-NEXT: int32_t l5 = (int32_t)((uint32_t)x << ((int32_t)5));
// CHECK-NEXT: int32_t ru5 = (int32_t)((uint32_t)x >> ((int32_t)5));
// CHECK-NEXT: int32_t rs5 = x >> ((int32_t)5);
// CHECK-NEXT: int32_t l40 = (int32_t)((uint32_t)((int32_t)40) < 32 ? (uint32_t)x << ((int32_t)40) : 0);
// CHECK-NEXT: int8_t bl = (int8_t)((uint8_t)bs < 8 ? (uint32_t)b << bs : 0);
// CHECK-NEXT: int8_t bru = (int8_t)((uint8_t)bs < 8 ? (uint8_t)b >> bs : 0);
// CHECK-NEXT: int8_t brs = b >> ((uint8_t)bs < 8 ? bs : 7);
// CHECK-NEXT: int64_t yl = (int64_t)((uint64_t)ys < 64 ? (uint64_t)y << ys : 0);
// CHECK-NEXT: int64_t yru = (int64_t)((uint64_t)ys < 64 ? (uint64_t)y >> ys : 0);
// CHECK-NEXT: int64_t yrs = y >> ((uint64_t)ys < 64 ? ys : 63);
// CHECK-NEXT: bool p = pi != ((int8_t)0);
// CHECK-NEXT: bool q = qi != ((int8_t)0);
// CHECK-NEXT: bool add = p != q;
// CHECK-NEXT: bool sub = p != q;
// CHECK-NEXT: bool mul = p && q;
// CHECK-NEXT: bool xor_1 = p != q;
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
// CHECK-NEXT: int32_t idx = (int32_t)(p ? -1 : 0);
// CHECK-NEXT: bool ab = p;
// CHECK-NEXT: bool tr = (x & 1) != 0;
// CHECK-NEXT: bool ucmp = (uint32_t)u < (uint32_t)v;
// CHECK-NEXT: bool ucmp8 = (uint8_t)pi < (uint8_t)qi;
// index is int32_t: its arithmetic wraps in uint32_t, its shifts are guarded at 32 bits.
// CHECK-NEXT: int32_t isum = (int32_t)((uint32_t)idx + (uint32_t)idx);
// CHECK-NEXT: int32_t ishl = (int32_t)((uint32_t)idx < 32 ? (uint32_t)idx << idx : 0);
hw.amd.kernel @arith_ops(%O: !hw.ptr<global, i32>, %x: i32, %s: i32, %b: i8, %bs: i8, %y: i64, %ys: i64, %pi: i8, %qi: i8, %u: i32, %v: i32) arch "gfx90a" wave 64 launch_bounds 64 {
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
  %isum = arith.addi %idx, %idx : index
  %ishl = arith.shli %idx, %idx : index
  %o = hw.ptr_to_int %O : !hw.ptr<global, i32> -> i64
  hw.amd.global_store %o, %l : i64, i32
  hw.amd.return
}
