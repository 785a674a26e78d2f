// The PTX printer's integer semantics (tilec/emit/ptx.py; test/runtime/test_ptx_int_semantics.py runs
// them on a GPU): MLIR arith semantics, as the C and HIP printers (tilec/emit/cfamily.py).
// - i8 lives in a 16-bit register, always sign-extended: loaded with ld.param.s8 / ld.s8, and every
//   op whose 16-bit result may leave the i8 range is followed by cvt.s16.s8; the unsigned ops read
//   the byte zero-extended (cvt.u16.u8);
// - i1 is a predicate: add / sub are xor, mul is and; signed, true is -1: the signed compares
//   reverse the 0 / 1 order, maxsi is and, extsi / sitofp / index_cast of true give -1; trunci to i1
//   keeps the low bit;
// - shift amounts are PTX's u32: an i8 / i16 amount zero-extended, an i64 one clamped to 64 first
//   (2**32 + 1 must not become 1); constants as immediates, clamped to the width. PTX clamps the
//   amount, so >= the width gives 0 (shl, shr.u) or the sign fill (shr.s), as the C / HIP printers.
// RUN: tilec-opt %s -t ptx | filecheck %s
// RUN: tilec-opt %s -t ptx -o %t.ptx
// RUN: ptxas -arch=sm_80 %t.ptx -o %t.cubin
// RUN: sed 's/ sm 80 / sm "90a" /' %s > %t.90a.mlir
// RUN: tilec-opt %t.90a.mlir -t ptx -o %t.90a.ptx
// RUN: ptxas -arch=sm_90a %t.90a.ptx -o %t.90a.cubin
// What PTX cannot compute as arith does is not printed (no output, a located error):
// RUN: sed -n 's#^// BADIR: ##p' %s > %t.bad.mlir
// RUN: not tilec-opt %t.bad.mlir -t ptx 2>&1 | filecheck %s --check-prefix=BAD
// BAD: emit-int-semantics.mlir.tmp.bad.mlir:2:3: error: not supported yet: PTX emission of arith.uitofp
// BAD-NOT: .entry
// BADIR: hw.nv.kernel @bad(%x: i32) sm 80 {
// BADIR:   %f = arith.uitofp %x : i32 to f32
// BADIR:   hw.nv.return
// BADIR: }

// CHECK-LABEL: .visible .entry tilec_u_i8_ops(
// CHECK-NEXT:    .param .s8 tilec_param_0,
// CHECK-NEXT:    .param .s8 tilec_param_1,
// CHECK:         ld.param.s8 [[B:%rs[0-9]+]], [tilec_param_0];
// CHECK-NEXT:    ld.param.s8 [[C:%rs[0-9]+]], [tilec_param_1];
// CHECK-NEXT:    ld.param.s32 [[X:%r[0-9]+]], [tilec_param_2];
// CHECK-NEXT:    add.s16 [[ADD:%rs[0-9]+]], [[B]], [[C]];
// CHECK-NEXT:    cvt.s16.s8 [[ADD]], [[ADD]];
// CHECK-NEXT:    mul.lo.s16 [[MUL:%rs[0-9]+]], [[B]], [[C]];
// CHECK-NEXT:    cvt.s16.s8 [[MUL]], [[MUL]];
// CHECK-NEXT:    cvt.u16.u8 [[UB:%rs[0-9]+]], [[B]];
// CHECK-NEXT:    cvt.u16.u8 [[UC:%rs[0-9]+]], [[C]];
// CHECK-NEXT:    div.u16 [[DIVU:%rs[0-9]+]], [[UB]], [[UC]];
// CHECK-NEXT:    cvt.s16.s8 [[DIVU]], [[DIVU]];
// CHECK:         rem.u16 [[REMU:%rs[0-9]+]], {{%rs[0-9]+}}, {{%rs[0-9]+}};
// CHECK-NEXT:    cvt.s16.s8 [[REMU]], [[REMU]];
// CHECK:         max.u16 [[MAXU:%rs[0-9]+]], {{%rs[0-9]+}}, {{%rs[0-9]+}};
// CHECK-NEXT:    cvt.s16.s8 [[MAXU]], [[MAXU]];
// CHECK-NEXT:    div.s16 {{%rs[0-9]+}}, [[B]], [[C]];
// CHECK-NEXT:    cvt.u32.u8 [[S1:%r[0-9]+]], [[C]];
// CHECK-NEXT:    cvt.u16.u8 [[UB2:%rs[0-9]+]], [[B]];
// CHECK-NEXT:    shr.u16 [[SHRU:%rs[0-9]+]], [[UB2]], [[S1]];
// CHECK-NEXT:    cvt.s16.s8 [[SHRU]], [[SHRU]];
// CHECK-NEXT:    cvt.u32.u8 [[S2:%r[0-9]+]], [[C]];
// CHECK-NEXT:    shr.s16 {{%rs[0-9]+}}, [[B]], [[S2]];
// CHECK-NEXT:    cvt.u32.u8 [[S3:%r[0-9]+]], [[C]];
// CHECK-NEXT:    shl.b16 [[SHL:%rs[0-9]+]], [[B]], [[S3]];
// CHECK-NEXT:    cvt.s16.s8 [[SHL]], [[SHL]];
// CHECK-NEXT:    cvt.u16.u8 [[UB3:%rs[0-9]+]], [[B]];
// CHECK-NEXT:    cvt.u16.u8 [[UC3:%rs[0-9]+]], [[C]];
// CHECK-NEXT:    setp.lo.u16 {{%p[0-9]+}}, [[UB3]], [[UC3]];
// CHECK-NEXT:    setp.lt.s16 {{%p[0-9]+}}, [[B]], [[C]];
// CHECK-NEXT:    setp.eq.b16 {{%p[0-9]+}}, [[B]], [[C]];
// CHECK-NEXT:    cvt.u32.u8 {{%r[0-9]+}}, [[B]];
// CHECK-NEXT:    cvt.s32.s16 {{%r[0-9]+}}, [[B]];
// CHECK-NEXT:    abs.s16 [[ABS:%rs[0-9]+]], [[B]];
// CHECK-NEXT:    cvt.s16.s8 [[ABS]], [[ABS]];
// CHECK-NEXT:    cvt.s16.s8 {{%rs[0-9]+}}, [[X]];
// CHECK-NEXT:    cvt.rn.f32.s16 {{%f[0-9]+}}, [[B]];
// CHECK-NEXT:    mov.b16 {{%rs[0-9]+}}, -1;

// CHECK-LABEL: .visible .entry tilec_u_i1_ops(
// CHECK:         and.b32 [[LX:%r[0-9]+]], [[X:%r[0-9]+]], 1;
// CHECK-NEXT:    setp.ne.b32 [[P:%p[0-9]+]], [[LX]], 0;
// CHECK-NEXT:    and.b32 [[LY:%r[0-9]+]], [[Y:%r[0-9]+]], 1;
// CHECK-NEXT:    setp.ne.b32 [[Q:%p[0-9]+]], [[LY]], 0;
// addi, subi: xor; muli: and; eq, ne
// CHECK-NEXT:    xor.pred {{%p[0-9]+}}, [[P]], [[Q]];
// CHECK-NEXT:    xor.pred {{%p[0-9]+}}, [[P]], [[Q]];
// CHECK-NEXT:    and.pred {{%p[0-9]+}}, [[P]], [[Q]];
// CHECK-NEXT:    xor.pred [[EQ:%p[0-9]+]], [[P]], [[Q]];
// CHECK-NEXT:    not.pred [[EQ]], [[EQ]];
// CHECK-NEXT:    xor.pred {{%p[0-9]+}}, [[P]], [[Q]];
// slt: p and not q (true = -1 < 0); sle: p or not q; sgt: not p and q; sge: not p or q
// CHECK-NEXT:    not.pred [[N1:%p[0-9]+]], [[Q]];
// CHECK-NEXT:    and.pred {{%p[0-9]+}}, [[N1]], [[P]];
// CHECK-NEXT:    not.pred [[N2:%p[0-9]+]], [[Q]];
// CHECK-NEXT:    or.pred {{%p[0-9]+}}, [[N2]], [[P]];
// CHECK-NEXT:    not.pred [[N3:%p[0-9]+]], [[P]];
// CHECK-NEXT:    and.pred {{%p[0-9]+}}, [[N3]], [[Q]];
// CHECK-NEXT:    not.pred [[N4:%p[0-9]+]], [[P]];
// CHECK-NEXT:    or.pred {{%p[0-9]+}}, [[N4]], [[Q]];
// ult: not p and q (0 < 1); ule: not p or q; ugt: p and not q; uge: p or not q
// CHECK-NEXT:    not.pred [[N5:%p[0-9]+]], [[P]];
// CHECK-NEXT:    and.pred {{%p[0-9]+}}, [[N5]], [[Q]];
// CHECK-NEXT:    not.pred [[N6:%p[0-9]+]], [[P]];
// CHECK-NEXT:    or.pred {{%p[0-9]+}}, [[N6]], [[Q]];
// CHECK-NEXT:    not.pred [[N7:%p[0-9]+]], [[Q]];
// CHECK-NEXT:    and.pred {{%p[0-9]+}}, [[N7]], [[P]];
// CHECK-NEXT:    not.pred [[N8:%p[0-9]+]], [[Q]];
// CHECK-NEXT:    or.pred {{%p[0-9]+}}, [[N8]], [[P]];
// maxsi: and; minsi: or; maxui: or; minui: and
// CHECK-NEXT:    and.pred {{%p[0-9]+}}, [[P]], [[Q]];
// CHECK-NEXT:    or.pred {{%p[0-9]+}}, [[P]], [[Q]];
// CHECK-NEXT:    or.pred {{%p[0-9]+}}, [[P]], [[Q]];
// CHECK-NEXT:    and.pred {{%p[0-9]+}}, [[P]], [[Q]];
// shli by true (1 >= the width) is 0: p and not q; shrsi is the sign fill: p; divsi: p; remui: false
// CHECK-NEXT:    not.pred [[N9:%p[0-9]+]], [[Q]];
// CHECK-NEXT:    and.pred {{%p[0-9]+}}, [[P]], [[N9]];
// CHECK-NEXT:    mov.pred {{%p[0-9]+}}, [[P]];
// CHECK-NEXT:    mov.pred {{%p[0-9]+}}, [[P]];
// CHECK-NEXT:    setp.ne.u32 {{%p[0-9]+}}, 0, 0;
// CHECK-NEXT:    mov.pred {{%p[0-9]+}}, [[P]];
// CHECK-NEXT:    selp.b32 {{%r[0-9]+}}, -1, 0, [[P]];
// CHECK-NEXT:    selp.u32 {{%r[0-9]+}}, 1, 0, [[P]];
// CHECK-NEXT:    selp.f32 {{%f[0-9]+}}, 0fBF800000, 0f00000000, [[P]];
// CHECK-NEXT:    selp.f64 {{%fd[0-9]+}}, 0dBFF0000000000000, 0d0000000000000000, [[P]];
// CHECK-NEXT:    selp.b64 {{%rd[0-9]+}}, -1, 0, [[P]];

// CHECK-LABEL: .visible .entry tilec_u_shifts(
// CHECK:         ld.param.s32 [[X:%r[0-9]+]], [tilec_param_0];
// CHECK-NEXT:    ld.param.s32 [[S:%r[0-9]+]], [tilec_param_1];
// CHECK-NEXT:    ld.param.s16 [[H:%rs[0-9]+]], [tilec_param_2];
// CHECK-NEXT:    ld.param.s16 [[HS:%rs[0-9]+]], [tilec_param_3];
// CHECK-NEXT:    ld.param.s64 [[Y:%rd[0-9]+]], [tilec_param_4];
// CHECK-NEXT:    ld.param.s64 [[YS:%rd[0-9]+]], [tilec_param_5];
// CHECK:         shl.b32 {{%r[0-9]+}}, [[X]], [[S]];
// CHECK-NEXT:    shr.u32 {{%r[0-9]+}}, [[X]], [[S]];
// CHECK-NEXT:    shr.s32 {{%r[0-9]+}}, [[X]], [[S]];
// CHECK-NEXT:    shl.b32 {{%r[0-9]+}}, [[X]], 32;
// CHECK-NEXT:    cvt.u32.u16 [[HA:%r[0-9]+]], [[HS]];
// CHECK-NEXT:    shl.b16 {{%rs[0-9]+}}, [[H]], [[HA]];
// CHECK-NEXT:    cvt.u32.u16 [[HB:%r[0-9]+]], [[HS]];
// CHECK-NEXT:    shr.s16 {{%rs[0-9]+}}, [[H]], [[HB]];
// CHECK-NEXT:    min.u64 [[C1:%rd[0-9]+]], [[YS]], 64;
// CHECK-NEXT:    cvt.u32.u64 [[A1:%r[0-9]+]], [[C1]];
// CHECK-NEXT:    shl.b64 {{%rd[0-9]+}}, [[Y]], [[A1]];
// CHECK-NEXT:    min.u64 [[C2:%rd[0-9]+]], [[YS]], 64;
// CHECK-NEXT:    cvt.u32.u64 [[A2:%r[0-9]+]], [[C2]];
// CHECK-NEXT:    shr.u64 {{%rd[0-9]+}}, [[Y]], [[A2]];
// CHECK-NEXT:    min.u64 [[C3:%rd[0-9]+]], [[YS]], 64;
// CHECK-NEXT:    cvt.u32.u64 [[A3:%r[0-9]+]], [[C3]];
// CHECK-NEXT:    shr.s64 {{%rd[0-9]+}}, [[Y]], [[A3]];
// CHECK-NEXT:    shl.b64 {{%rd[0-9]+}}, [[Y]], 5;
// CHECK-NEXT:    shr.s64 {{%rd[0-9]+}}, [[Y]], 64;
// CHECK-NEXT:    max.u64 {{%rd[0-9]+}}, [[Y]], [[YS]];
// CHECK-NEXT:    mov.b64 {{%rd[0-9]+}}, 0x8000000000000000;

// fptosi saturates (to i8: .s8, sign-extended into the register), NaN -> 0 (from f64 and to i64
// cvt gives INT_MIN for NaN: selected to 0); trunci to i1 keeps the low bit,
// to i8 the sign-extended byte; extui of an i8 reads the byte.
// CHECK-LABEL: .visible .entry tilec_u_conversions(
// CHECK:         cvt.rzi.s8.f32 {{%rs[0-9]+}}, {{%f[0-9]+}};
// CHECK-NEXT:    cvt.rzi.s64.f64 [[I64:%rd[0-9]+]], [[D:%fd[0-9]+]];
// CHECK-NEXT:    setp.nan.f64 [[NAN:%p[0-9]+]], [[D]], [[D]];
// CHECK-NEXT:    selp.b64 [[I64]], 0, [[I64]], [[NAN]];
// CHECK-NEXT:    and.b64 [[LOW:%rd[0-9]+]], [[Y:%rd[0-9]+]], 1;
// CHECK-NEXT:    setp.ne.b64 {{%p[0-9]+}}, [[LOW]], 0;
// CHECK-NEXT:    cvt.s16.s8 {{%rs[0-9]+}}, [[Y]];
// CHECK-NEXT:    cvt.u16.u64 {{%rs[0-9]+}}, [[Y]];
// CHECK-NEXT:    mov.b64 [[I:%rd[0-9]+]], [[Y]];
// CHECK-NEXT:    cvt.s16.s8 [[B:%rs[0-9]+]], [[I]];
// CHECK-NEXT:    cvt.u64.u8 {{%rd[0-9]+}}, [[B]];
// CHECK-NEXT:    cvt.rn.f32.s64 {{%f[0-9]+}}, [[Y]];
hw.nv.kernel @i8_ops(%b: i8, %c: i8, %x: i32) sm 80 {
  %add = arith.addi %b, %c : i8
  %mul = arith.muli %b, %c : i8
  %divu = arith.divui %b, %c : i8
  %remu = arith.remui %b, %c : i8
  %maxu = arith.maxui %b, %c : i8
  %divs = arith.divsi %b, %c : i8
  %shru = arith.shrui %b, %c : i8
  %shrs = arith.shrsi %b, %c : i8
  %shl = arith.shli %b, %c : i8
  %ult = arith.cmpi ult, %b, %c : i8
  %slt = arith.cmpi slt, %b, %c : i8
  %eq = arith.cmpi eq, %b, %c : i8
  %zext = arith.extui %b : i8 to i32
  %sext = arith.extsi %b : i8 to i32
  %abs = math.absi %b : i8
  %tr = arith.trunci %x : i32 to i8
  %f = arith.sitofp %b : i8 to f32
  %m1 = arith.constant 255 : i8
  hw.nv.return
}
hw.nv.kernel @i1_ops(%x: i32, %y: i32) sm 80 {
  %p = arith.trunci %x : i32 to i1
  %q = arith.trunci %y : i32 to i1
  %add = arith.addi %p, %q : i1
  %sub = arith.subi %p, %q : i1
  %mul = arith.muli %p, %q : i1
  %eq = arith.cmpi eq, %p, %q : i1
  %ne = arith.cmpi ne, %p, %q : i1
  %slt = arith.cmpi slt, %p, %q : i1
  %sle = arith.cmpi sle, %p, %q : i1
  %sgt = arith.cmpi sgt, %p, %q : i1
  %sge = arith.cmpi sge, %p, %q : i1
  %ult = arith.cmpi ult, %p, %q : i1
  %ule = arith.cmpi ule, %p, %q : i1
  %ugt = arith.cmpi ugt, %p, %q : i1
  %uge = arith.cmpi uge, %p, %q : i1
  %maxs = arith.maxsi %p, %q : i1
  %mins = arith.minsi %p, %q : i1
  %maxu = arith.maxui %p, %q : i1
  %minu = arith.minui %p, %q : i1
  %shl = arith.shli %p, %q : i1
  %shrs = arith.shrsi %p, %q : i1
  %divs = arith.divsi %p, %q : i1
  %remu = arith.remui %p, %q : i1
  %abs = math.absi %p : i1
  %sext = arith.extsi %p : i1 to i32
  %zext = arith.extui %p : i1 to i32
  %f = arith.sitofp %p : i1 to f32
  %d = arith.sitofp %p : i1 to f64
  %ix = arith.index_cast %p : i1 to index
  hw.nv.return
}
hw.nv.kernel @shifts(%x: i32, %s: i32, %h: i16, %hs: i16, %y: i64, %ys: i64) sm 80 {
  %c5 = arith.constant 5 : i64
  %c40 = arith.constant 40 : i32
  %cm1 = arith.constant -1 : i64
  %xl = arith.shli %x, %s : i32
  %xru = arith.shrui %x, %s : i32
  %xrs = arith.shrsi %x, %s : i32
  %xl40 = arith.shli %x, %c40 : i32
  %hl = arith.shli %h, %hs : i16
  %hrs = arith.shrsi %h, %hs : i16
  %yl = arith.shli %y, %ys : i64
  %yru = arith.shrui %y, %ys : i64
  %yrs = arith.shrsi %y, %ys : i64
  %yl5 = arith.shli %y, %c5 : i64
  %yrsm1 = arith.shrsi %y, %cm1 : i64
  %ymaxu = arith.maxui %y, %ys : i64
  %ymin = arith.constant -9223372036854775808 : i64
  hw.nv.return
}
hw.nv.kernel @conversions(%f: f32, %d: f64, %y: i64) sm 80 {
  %i8 = arith.fptosi %f : f32 to i8
  %i64 = arith.fptosi %d : f64 to i64
  %t1 = arith.trunci %y : i64 to i1
  %t8 = arith.trunci %y : i64 to i8
  %t16 = arith.trunci %y : i64 to i16
  %i = arith.index_cast %y : i64 to index
  %b = arith.index_cast %i : index to i8
  %u = arith.extui %b : i8 to i64
  %g = arith.sitofp %y : i64 to f32
  hw.nv.return
}
