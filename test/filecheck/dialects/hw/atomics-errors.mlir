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

// -----

hw.nv.kernel @k(%p: !hw.ptr<global>) sm 90 {
  %a = hw.ptr_to_int %p : !hw.ptr<global> -> i64
  %n = arith.constant 1 : i32
  // expected-error @+1 {{atom.add.u64 adds and returns a i64, got i32}}
  %o = hw.nv.atom_add u64 %a, %n : i64, i32 -> i32
  hw.nv.return
}

// -----

hw.nv.kernel @k(%p: !hw.ptr<global>) sm 90 {
  %a = hw.ptr_to_int %p : !hw.ptr<global> -> i64
  %n = arith.constant 1 : i64
  // expected-error @+1 {{atom.add returns the added type i64, got i32}}
  %o = hw.nv.atom_add u64 %a, %n : i64, i64 -> i32
  hw.nv.return
}

// -----

hw.nv.kernel @k(%p: !hw.ptr<global>) sm 90 {
  %s = arith.constant 0 : i32
  // expected-error @+1 {{acquire accesses are of global or generic memory, not shared}}
  %w = hw.nv.ld shared acquire %s : i32 -> i32
  hw.nv.return
}

// -----

hw.nv.kernel @k(%p: !hw.ptr<global>) sm 90 {
  %a = hw.ptr_to_int %p : !hw.ptr<global> -> i64
  // expected-error @+1 {{acquire accesses move one 32- or 64-bit register, got f32, f32}}
  %v0, %v1 = hw.nv.ld global acquire v2 %a : i64 -> f32, f32
  hw.nv.return
}

// -----

hw.nv.kernel @k(%p: !hw.ptr<global>) sm 90 {
  %a = hw.ptr_to_int %p : !hw.ptr<global> -> i64
  // expected-error @+1 {{relaxed accesses take no cache qualifier (got cg)}}
  %w = hw.nv.ld global relaxed cg %a : i64 -> i64
  hw.nv.return
}

// -----

hw.nv.kernel @k(%p: !hw.ptr<global>) sm 90 {
  %a = hw.ptr_to_int %p : !hw.ptr<global> -> i64
  // expected-error @+1 {{an nc load cannot be acquire: the non-coherent path is not ordered}}
  %w = hw.nv.ld global acquire nc %a : i64 -> i64
  hw.nv.return
}

// -----

hw.nv.kernel @k(%p: !hw.ptr<global>) sm 90 {
  %a = hw.ptr_to_int %p : !hw.ptr<global> -> i64
  %w = arith.constant 1 : i64
  // expected-error @+1 {{unknown memory-order qualifier 'acquire'}}
  "hw.nv.st"(%a, %w) <{space = "global", width = #builtin.int<1>, offset = #builtin.int<0>, sem = "acquire"}> : (i64, i64) -> ()
  hw.nv.return
}

// -----

hw.amd.kernel @k(%p: !hw.ptr<global, f32>) arch "gfx90a" wave 64 launch_bounds 64 {
  %a = hw.ptr_to_int %p : !hw.ptr<global, f32> -> i64
  // expected-error @+1 {{atomic loads, stores and adds move a 32- or 64-bit integer, got f32}}
  %w = hw.amd.global_atomic_load relaxed %a : i64 -> f32
  hw.amd.return
}

// -----

hw.amd.kernel @k(%p: !hw.ptr<global, f32>) arch "gfx90a" wave 64 launch_bounds 64 {
  %a = hw.ptr_to_int %p : !hw.ptr<global, f32> -> i64
  %w = arith.constant 1 : i64
  // expected-error @+1 {{expected a store order}}
  hw.amd.global_atomic_store acquire %a, %w : i64, i64
  hw.amd.return
}

// -----

hw.amd.kernel @k(%p: !hw.ptr<global, f32>) arch "gfx90a" wave 64 launch_bounds 64 {
  %a = hw.ptr_to_int %p : !hw.ptr<global, f32> -> i64
  %w = arith.constant 1 : i64
  // expected-error @+1 {{returns the added type i64, got i32}}
  %o = hw.amd.global_atomic_fetch_add %a, %w : i64, i64 -> i32
  hw.amd.return
}
