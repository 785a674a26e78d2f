// RUN: tilec-opt %s --split-input-file --verify-diagnostics

// --- types and kernel structure

// expected-error @+1 {{hw.ptr: expected an address space (global, shared, generic, local)}}
hw.nv.kernel @k(%p: !hw.ptr<texture>) sm 90 {
  hw.nv.return
}

// -----

// expected-error @+1 {{nv.kernel: parameter %p has type !hw.ptr<shared>; parameters must be !hw.ptr<global>, !hw.ptr<generic>, !hw.nv.tensor_map or scalars}}
hw.nv.kernel @k(%p: !hw.ptr<shared>) sm 90 {
  hw.nv.return
}

// -----

// expected-error @+1 {{nv.kernel: unknown target sm_75 (expected sm 80, 86, 89, 90 or "90a")}}
hw.nv.kernel @k() sm 75 {
  hw.nv.return
}

// -----

// expected-error @+1 {{nv.kernel: maxntid [64, 32] is 2048 threads; a block has at most 1024}}
hw.nv.kernel @k() sm 90 maxntid [64, 32] {
  hw.nv.return
}

// -----

// expected-error @+1 {{nv.kernel: body must end with hw.nv.return}}
hw.nv.kernel @k() sm 90 {
  hw.nv.bar_sync 0
}

// -----

// expected-error @+1 {{nv.kernel: 65536 bytes of static shared memory; ptxas allows at most 49152 for 90 (use dynamic shared memory: smem N)}}
hw.nv.kernel @k() sm 90 {
  hw.nv.shared @sA 65536
  hw.nv.return
}

// -----

// expected-error @+1 {{nv.kernel: 200000 bytes of shared memory (0 static + 200000 dynamic) exceed the 101376 bytes a block may use on 86}}
hw.nv.kernel @k() sm 86 smem 200000 {
  hw.nv.return
}

// -----

// --- shared memory and special registers

hw.nv.kernel @k() sm 90 {
  // expected-error @+1 {{shared_addr: no hw.nv.shared @sB in the enclosing kernel}}
  %a = hw.nv.shared_addr @sB : i32
  hw.nv.return
}

// -----

hw.nv.kernel @k() sm 90 {
  // expected-error @+1 {{dynamic_shared_addr: the kernel declares no dynamic shared memory (add `smem N` to hw.nv.kernel)}}
  %a = hw.nv.dynamic_shared_addr : i32
  hw.nv.return
}

// -----

hw.nv.kernel @k() sm 90 {
  // expected-error @+1 {{shared: alignment must be a power of two, got 24}}
  hw.nv.shared @sA 64 align 24
  hw.nv.return
}

// -----

hw.nv.kernel @k() sm 90 {
  // expected-error @+1 {{sreg: unknown special register 'tid.w'}}
  %t = hw.nv.sreg tid.w : i32
  hw.nv.return
}

// -----

// --- loads, stores, copies

hw.nv.kernel @k(%q: i64) sm 90 {
  // expected-error @+1 {{ld: v4 x f64 is 32 bytes; one access moves at most 16}}
  %v:4 = hw.nv.ld global v4 %q : i64 -> f64, f64, f64, f64
  hw.nv.return
}

// -----

hw.nv.kernel @k(%n: i32) sm 90 {
  // expected-error @+1 {{ld: a global address is i64, got i32}}
  %v = hw.nv.ld global %n : i32 -> f32
  hw.nv.return
}

// -----

hw.nv.kernel @k(%q: i64) sm 90 {
  // expected-error @+1 {{ld: nc loads take cache qualifier ca, cg, cs, got lu}}
  %v = hw.nv.ld global nc lu %q : i64 -> f32
  hw.nv.return
}

// -----

hw.nv.kernel @k(%q: i64, %f: f32) sm 90 {
  // expected-error @+1 {{v2 store needs 2 value(s), got 1}}
  hw.nv.st global v2 %q, %f : i64, f32
  hw.nv.return
}

// -----

hw.nv.kernel @k(%n: i32, %f: f32) sm 90 {
  // expected-error @+1 {{st: cache qualifiers apply to global, local and generic stores, not shared}}
  hw.nv.st shared cg %n, %f : i32, f32
  hw.nv.return
}

// -----

hw.nv.kernel @k(%n: i32, %q: i64) sm 90 {
  // expected-error @+1 {{cp_async: cg copies 16 bytes only, got 8 (use ca for 4 or 8)}}
  hw.nv.cp_async cg %n, %q, 8 : i32, i64
  hw.nv.return
}

// -----

hw.nv.kernel @k(%q: i64) sm 90 {
  // expected-error @+1 {{cp_async: destination is a shared address (i32), got i64}}
  hw.nv.cp_async %q, %q, 16 : i64, i64
  hw.nv.return
}

// -----

// --- tensor cores

hw.nv.kernel @k(%n: i32) sm 90 {
  // expected-error @+1 {{ldmatrix: x4 gives 4 registers, got 2 results}}
  %r:2 = hw.nv.ldmatrix x4 %n : i32 -> i32, i32
  hw.nv.return
}

// -----

hw.nv.kernel @k(%n: i32, %f: f32) sm 90 {
  // expected-error @+1 {{mma_sync: m16n8k16 f32.f16.f16.f32 takes 4 A register(s) (i32), got 3}}
  %d:4 = hw.nv.mma_sync m16n8k16 row col f32 f16 f16 f32 (%n, %n, %n), (%n, %n), (%f, %f, %f, %f)
  hw.nv.return
}

// -----

hw.nv.kernel @k(%n: i32, %f: f32) sm 90 {
  // expected-error @+1 {{mma_sync: unsupported variant m16n8k16 f16.bf16.bf16.f16}}
  %d:2 = hw.nv.mma_sync m16n8k16 row col f16 bf16 bf16 f16 (%n, %n, %n, %n), (%n, %n), (%n, %n)
  hw.nv.return
}

// -----

hw.nv.kernel @k(%n: i32, %f: f32) sm 90 {
  // expected-error @+1 {{mma_sync: m16n8k16 takes layouts row col only, got row row}}
  %d:4 = hw.nv.mma_sync m16n8k16 row row f32 f16 f16 f32 (%n, %n, %n, %n), (%n, %n), (%f, %f, %f, %f)
  hw.nv.return
}

// -----

hw.nv.kernel @k(%q: i64, %f: f32) sm 90 {
  // expected-error @+1 {{wgmma_fence: wgmma needs sm 90a, but the kernel targets 90}}
  hw.nv.wgmma_fence
  hw.nv.return
}

// -----

hw.nv.kernel @k(%q: i64, %f: f32) sm "90a" {
  // expected-error @+1 {{wgmma_mma_async: m64n16 f32 takes 8 accumulator registers (f32), got 4}}
  %d:4 = hw.nv.wgmma_mma_async m64n16k16 f32 f16 f16 %q, %q, (%f, %f, %f, %f)
  hw.nv.return
}

// -----

hw.nv.kernel @k(%tm: !hw.nv.tensor_map, %n: i32) sm 80 {
  // expected-error @+1 {{tma_load_2d: TMA needs sm 90 or 90a, but the kernel targets 80}}
  hw.nv.tma_load_2d %n, %tm[%n, %n], %n
  hw.nv.return
}

// -----

// --- warp and block operations, math, packing

hw.nv.kernel @k(%q: i64) sm 90 {
  // expected-error @+1 {{shfl: shuffles one 32-bit register (i32 or f32), got i64}}
  %r = hw.nv.shfl bfly %q, 16 : i64
  hw.nv.return
}

// -----

hw.nv.kernel @k(%f: f32) sm 90 {
  // expected-error @+1 {{shfl: lane operand must be from 0 to 31, got 32}}
  %r = hw.nv.shfl down %f, 32 : f32
  hw.nv.return
}

// -----

hw.nv.kernel @k() sm 90 {
  // expected-error @+1 {{bar_sync: thread count must be a positive multiple of 32 up to 1024, got 100}}
  hw.nv.bar_sync 1, 100
  hw.nv.return
}

// -----

hw.nv.kernel @k(%d: f64) sm 90 {
  // expected-error @+1 {{math: lg2.approx.f64 is not a PTX instruction}}
  %y = hw.nv.math lg2 approx %d : f64
  hw.nv.return
}

// -----

hw.nv.kernel @k(%h: f16) sm 90 {
  // expected-error @+1 {{math: ftz applies to f32 only, got f16}}
  %y = hw.nv.math tanh approx ftz %h : f16
  hw.nv.return
}

// -----

hw.nv.kernel @k(%f: f32) sm 90 {
  // expected-error @+1 {{pack: halves are f16, bf16 or i16, got f32}}
  %p = hw.nv.pack %f, %f : f32, f32 -> i32
  hw.nv.return
}

// -----

hw.nv.kernel @k(%q: i64) sm 90 {
  // expected-error @+1 {{mul_wide: multiplies two i32 into an i64, got i64, i64 -> i64}}
  %p = hw.nv.mul_wide %q, %q : i64, i64 -> i64
  hw.nv.return
}
