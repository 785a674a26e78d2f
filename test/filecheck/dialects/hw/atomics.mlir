// hw.nv.red_add, atom_add, the ordered ld / st, and hw.amd's global atomics: round trip (custom
// and generic syntax).
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

// CHECK-LABEL: hw.nv.kernel @red
hw.nv.kernel @red(%p: !hw.ptr<global>) sm 90 {
  %a = hw.ptr_to_int %p : !hw.ptr<global> -> i64
  %x = arith.constant 1.5 : f32
  %d = arith.constant 2.5 : f64
  %n = arith.constant 7 : i32
  %l = arith.constant -7 : i64
  %h = arith.constant 1.0 : f16
  %b = arith.constant 1.0 : bf16
  // CHECK: hw.nv.red_add f32 %a, %x : i64, f32
  hw.nv.red_add f32 %a, %x : i64, f32
  // CHECK-NEXT: hw.nv.red_add f64 %a + 8, %d : i64, f64
  hw.nv.red_add f64 %a + 8, %d : i64, f64
  // CHECK-NEXT: hw.nv.red_add u32 %a, %n : i64, i32
  hw.nv.red_add u32 %a, %n : i64, i32
  // CHECK-NEXT: hw.nv.red_add u64 %a, %l : i64, i64
  hw.nv.red_add u64 %a, %l : i64, i64
  // CHECK-NEXT: hw.nv.red_add noftz.f16 %a, %h : i64, f16
  hw.nv.red_add noftz.f16 %a, %h : i64, f16
  // CHECK-NEXT: hw.nv.red_add noftz.bf16 %a, %b : i64, bf16
  hw.nv.red_add noftz.bf16 %a, %b : i64, bf16
  // CHECK-NEXT: %old = hw.nv.atom_add u64 %a + 8, %l : i64, i64 -> i64
  %old = hw.nv.atom_add u64 %a + 8, %l : i64, i64 -> i64
  // CHECK-NEXT: %o32 = hw.nv.atom_add u32 %a, %n : i64, i32 -> i32
  %o32 = hw.nv.atom_add u32 %a, %n : i64, i32 -> i32
  // CHECK-NEXT: %w = hw.nv.ld global acquire %a : i64 -> i64
  %w = hw.nv.ld global acquire %a : i64 -> i64
  // CHECK-NEXT: %r = hw.nv.ld global relaxed %a + 8 : i64 -> i32
  %r = hw.nv.ld global relaxed %a + 8 : i64 -> i32
  // CHECK-NEXT: hw.nv.st global release %a, %w : i64, i64
  hw.nv.st global release %a, %w : i64, i64
  // CHECK-NEXT: hw.nv.st global relaxed %a + 16, %x : i64, f32
  hw.nv.st global relaxed %a + 16, %x : i64, f32
  hw.nv.return
}

// CHECK-LABEL: hw.amd.kernel @atomic
hw.amd.kernel @atomic(%p: !hw.ptr<global, f32>) arch "gfx90a" wave 64 launch_bounds 64 {
  %a = hw.ptr_to_int %p : !hw.ptr<global, f32> -> i64
  %x = arith.constant 1.5 : f32
  %l = arith.constant -7 : i64
  // CHECK: hw.amd.global_atomic_add %a + 4, %x : i64, f32
  hw.amd.global_atomic_add %a + 4, %x : i64, f32
  // CHECK-NEXT: hw.amd.global_atomic_add %a, %l : i64, i64
  hw.amd.global_atomic_add %a, %l : i64, i64
  // CHECK-NEXT: %w = hw.amd.global_atomic_load acquire %a : i64 -> i64
  %w = hw.amd.global_atomic_load acquire %a : i64 -> i64
  // CHECK-NEXT: hw.amd.global_atomic_store release %a, %w : i64, i64
  hw.amd.global_atomic_store release %a, %w : i64, i64
  // CHECK-NEXT: hw.amd.global_atomic_store relaxed %a, %w : i64, i64
  hw.amd.global_atomic_store relaxed %a, %w : i64, i64
  // CHECK-NEXT: %old = hw.amd.global_atomic_fetch_add %a, %l : i64, i64 -> i64
  %old = hw.amd.global_atomic_fetch_add %a, %l : i64, i64 -> i64
  hw.amd.return
}
