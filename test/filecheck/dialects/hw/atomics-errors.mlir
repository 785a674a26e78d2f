// RUN: tilec-opt %s --split-input-file --verify-diagnostics

hw.nv.kernel @k(%p: !hw.ptr<global>) sm 90 {
  %a = hw.ptr_to_int %p : !hw.ptr<global> -> i64
  %x = arith.constant 1.5 : f32
  // expected-error @+1 {{red.add.f64 adds a f64, got f32}}
  hw.nv.red_add f64 %a, %x : i64, f32
  hw.nv.return
}

// -----

hw.nv.kernel @k(%p: !hw.ptr<global>) sm 90 {
  %a = hw.ptr_to_int %p : !hw.ptr<global> -> i64
  %n = arith.constant 1 : i64
  // expected-error @+1 {{red.add.u32 adds a i32, got i64}}
  hw.nv.red_add u32 %a, %n : i64, i64
  hw.nv.return
}

// -----

hw.nv.kernel @k(%p: !hw.ptr<global>) sm 90 {
  %a = arith.constant 0 : i32
  %x = arith.constant 1.5 : f32
  // expected-error @+1 {{a global address is i64, got i32}}
  hw.nv.red_add f32 %a, %x : i32, f32
  hw.nv.return
}

// -----

hw.amd.kernel @k(%p: !hw.ptr<global, f32>) arch "gfx90a" wave 64 launch_bounds 64 {
  %a = hw.ptr_to_int %p : !hw.ptr<global, f32> -> i64
  %h = arith.constant 1.0 : f16
  // expected-error @+1 {{atomicAdd adds f32, f64, or 32/64-bit integers, got f16}}
  hw.amd.global_atomic_add %a, %h : i64, f16
  hw.amd.return
}
