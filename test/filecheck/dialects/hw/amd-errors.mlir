// RUN: tilec-opt %s --split-input-file --verify-diagnostics

// --- kernel structure

// expected-error @+1 {{amd.kernel: gfx90a runs wave 64 only (wave 32 needs gfx10 or later)}}
hw.amd.kernel @k() arch "gfx90a" wave 32 {
  hw.amd.return
}

// -----

// expected-error @+1 {{amd.kernel: arch must be a gfx target such as "gfx90a" or "gfx1100", got "sm_90"}}
hw.amd.kernel @k() arch "sm_90" wave 64 {
  hw.amd.return
}

// -----

// expected-error @+1 {{amd.kernel: launch_bounds must be from 1 to 1024 threads, got 2048}}
hw.amd.kernel @k() arch "gfx942" wave 64 launch_bounds 2048 {
  hw.amd.return
}

// -----

// expected-error @+1 {{amd.kernel: parameter %p has type !hw.ptr<generic>; parameters must be !hw.ptr<global> (optionally typed) or scalars}}
hw.amd.kernel @k(%p: !hw.ptr<generic>) arch "gfx90a" {
  hw.amd.return
}

// -----

// expected-error @+1 {{amd.kernel: 70000 bytes of LDS (40000 static + 30000 dynamic) exceed the 65536 bytes a workgroup may use on gfx90a}}
hw.amd.kernel @k() arch "gfx90a" lds 30000 {
  hw.amd.lds @sA 40000
  hw.amd.return
}

// -----

// expected-error @+1 {{amd.kernel: body must end with hw.amd.return}}
hw.amd.kernel @k() arch "gfx90a" {
  hw.amd.barrier
}

// -----

// --- ids and LDS

hw.amd.kernel @k() arch "gfx90a" {
  // expected-error @+1 {{expected a dimension (x, y, z)}}
  %t = hw.amd.workitem_id w : i32
  hw.amd.return
}

// -----

hw.amd.kernel @k() arch "gfx90a" {
  // expected-error @+1 {{amd.workgroup_id: the result is i32, got i64}}
  %t = hw.amd.workgroup_id x : i64
  hw.amd.return
}

// -----

hw.amd.kernel @k() arch "gfx90a" {
  // expected-error @+1 {{amd.lds_addr: no hw.amd.lds @sB in the enclosing kernel}}
  %p = hw.amd.lds_addr @sB : i32
  hw.amd.return
}

// -----

hw.amd.kernel @k() arch "gfx90a" {
  // expected-error @+1 {{amd.dynamic_lds_addr: the kernel declares no dynamic LDS (add `lds N` to hw.amd.kernel)}}
  %p = hw.amd.dynamic_lds_addr : i32
  hw.amd.return
}

// -----

// --- loads and stores

hw.amd.kernel @k(%n: i32) arch "gfx90a" {
  // expected-error @+1 {{amd.lds_load: one access moves 1, 2, 4, 8 or 16 bytes; vector<8xf32> is 32}}
  %v = hw.amd.lds_load %n : i32 -> vector<8xf32>
  hw.amd.return
}

// -----

hw.amd.kernel @k(%q: i64) arch "gfx90a" {
  // expected-error @+1 {{amd.global_load: value must be i8, i16, i32, i64, f16, bf16, f32, f64 or a vector<N x one of them> (N = 2, 4, 8, 16), got vector<3xf32>}}
  %v = hw.amd.global_load %q : i64 -> vector<3xf32>
  hw.amd.return
}

// -----

hw.amd.kernel @k(%n: i32, %f: f32) arch "gfx90a" {
  // expected-error @+1 {{amd.global_store: a global address is i64, got i32}}
  hw.amd.global_store %n, %f : i32, f32
  hw.amd.return
}

// -----

// --- MFMA

hw.amd.kernel @k(%f: f32) arch "gfx90a" {
  // expected-error @+1 {{amd.mfma: unknown MFMA variant 'f32_4x4x1f16'}}
  %d = hw.amd.mfma f32_4x4x1f16 %f, %f, %f : f32, f32, f32 -> f32
  hw.amd.return
}

// -----

hw.amd.kernel @k(%h: f16, %f: f32) arch "gfx90a" {
  %c = arith.constant dense<0.0> : vector<16xf32>
  // expected-error @+1 {{amd.mfma: f32_32x32x8f16: A is vector<4xf16>, got f16}}
  %d = hw.amd.mfma f32_32x32x8f16 %h, %h, %c : f16, f16, vector<16xf32> -> vector<16xf32>
  hw.amd.return
}

// -----

hw.amd.kernel @k() arch "gfx908" {
  %a = arith.constant dense<0> : vector<4xi16>
  %c = arith.constant dense<0.0> : vector<4xf32>
  // expected-error @+1 {{amd.mfma: f32_16x16x16bf16_1k needs one of gfx90a, gfx940, gfx941, gfx942, gfx950, but the kernel targets gfx908}}
  %d = hw.amd.mfma f32_16x16x16bf16_1k %a, %a, %c : vector<4xi16>, vector<4xi16>, vector<4xf32> -> vector<4xf32>
  hw.amd.return
}

// -----

hw.amd.kernel @k(%f: f32) arch "gfx90a" {
  %c = arith.constant dense<0.0> : vector<16xf32>
  // expected-error @+1 {{amd.mfma: abid must be below 2^cbsz = 2, got 3}}
  %d = hw.amd.mfma f32_32x32x2f32 %f, %f, %c cbsz 1 abid 3 : f32, f32, vector<16xf32> -> vector<16xf32>
  hw.amd.return
}

// -----

// --- wave operations

hw.amd.kernel @k(%f: f32) arch "gfx1100" wave 32 {
  // expected-error @+1 {{amd.shfl_xor: lane mask must be from 0 to 31, got 32}}
  %r = hw.amd.shfl_xor %f, 32 : f32
  hw.amd.return
}

// -----

hw.amd.kernel @k(%h: f16) arch "gfx90a" {
  // expected-error @+1 {{amd.shfl_xor: shuffles i32, f32, i64 or f64, got f16}}
  %r = hw.amd.shfl_xor %h, 1 : f16
  hw.amd.return
}

// -----

hw.amd.kernel @k(%n: i32) arch "gfx90a" {
  // expected-error @+1 {{amd.dpp: 0x110 is not a DPP control value}}
  %r = hw.amd.dpp %n ctrl 0x110 : i32
  hw.amd.return
}

// -----

hw.amd.kernel @k(%f: f32) arch "gfx90a" {
  // expected-error @+1 {{amd.ds_swizzle: swizzles an i32 (bitcast other types), got f32}}
  %r = hw.amd.ds_swizzle %f, 0x041f : f32
  hw.amd.return
}
