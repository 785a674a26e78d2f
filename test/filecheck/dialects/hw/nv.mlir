// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

// A warp-shuffle row reduction: one warp per row, 4 floats per lane.
// CHECK-LABEL: hw.nv.kernel @row_sum(%X: !hw.ptr<global>, %Y: !hw.ptr<global>, %n: i32) sm 80 maxntid [32, 1, 1] {
hw.nv.kernel @row_sum(%X: !hw.ptr<global>, %Y: !hw.ptr<global>, %n: i32) sm 80 maxntid [32, 1, 1] {
  // CHECK-NEXT: %x = hw.ptr_to_int %X : !hw.ptr<global> -> i64
  %x = hw.ptr_to_int %X : !hw.ptr<global> -> i64
  // CHECK-NEXT: %y = hw.ptr_to_int %Y : !hw.ptr<global> -> i64
  %y = hw.ptr_to_int %Y : !hw.ptr<global> -> i64
  // CHECK-NEXT: %lane = hw.nv.sreg laneid : i32
  %lane = hw.nv.sreg laneid : i32
  // CHECK-NEXT: %row = hw.nv.sreg ctaid.x : i32
  %row = hw.nv.sreg ctaid.x : i32
  // CHECK-NEXT: %v0, %v1, %v2, %v3 = hw.nv.ld global nc v4 %x + 16 : i64 -> f32, f32, f32, f32
  %v0, %v1, %v2, %v3 = hw.nv.ld global nc v4 %x + 16 : i64 -> f32, f32, f32, f32
  // CHECK-NEXT: %s01 = arith.addf %v0, %v1 : f32
  %s01 = arith.addf %v0, %v1 : f32
  // CHECK-NEXT: %s23 = arith.addf %v2, %v3 : f32
  %s23 = arith.addf %v2, %v3 : f32
  // CHECK-NEXT: %s = arith.addf %s01, %s23 : f32
  %s = arith.addf %s01, %s23 : f32
  // CHECK-NEXT: %t16 = hw.nv.shfl bfly %s, 16 : f32
  %t16 = hw.nv.shfl bfly %s, 16 : f32
  // CHECK-NEXT: %a16 = arith.addf %s, %t16 : f32
  %a16 = arith.addf %s, %t16 : f32
  // CHECK-NEXT: %t8 = hw.nv.shfl bfly %a16, 8 : f32
  %t8 = hw.nv.shfl bfly %a16, 8 mask 0xffffffff : f32
  // CHECK-NEXT: %a8 = arith.addf %a16, %t8 : f32
  %a8 = arith.addf %a16, %t8 : f32
  // CHECK-NEXT: %up = hw.nv.shfl up %a8, 1 : f32
  %up = hw.nv.shfl up %a8, 1 : f32
  // CHECK-NEXT: %dn = hw.nv.shfl down %a8, %lane mask 0x0000ffff : f32
  %dn = hw.nv.shfl down %a8, %lane mask 0x0000ffff : f32
  // CHECK-NEXT: %src = arith.constant 0 : i32
  %src = arith.constant 0 : i32
  // CHECK-NEXT: %b = hw.nv.shfl idx %a8, %src : f32
  %b = hw.nv.shfl idx %a8, %src : f32
  // CHECK-NEXT: %e = hw.nv.math ex2 approx ftz %b : f32
  %e = hw.nv.math ex2 approx ftz %b : f32
  // CHECK-NEXT: %r = hw.nv.math rcp rn %e : f32
  %r = hw.nv.math rcp rn %e : f32
  // CHECK-NEXT: %q = hw.nv.math sqrt rn %r : f32
  %q = hw.nv.math sqrt rn %r : f32
  // CHECK-NEXT: %t = hw.nv.math tanh approx %q : f32
  %t = hw.nv.math tanh approx %q : f32
  // CHECK-NEXT: %c0 = arith.constant 0 : i32
  %c0 = arith.constant 0 : i32
  // CHECK-NEXT: %is0 = arith.cmpi eq, %lane, %c0 : i32
  %is0 = arith.cmpi eq, %lane, %c0 : i32
  // CHECK-NEXT: scf.if %is0 {
  scf.if %is0 {
    // CHECK-NEXT: hw.nv.st global %y - 4, %t : i64, f32
    hw.nv.st global %y - 4, %t : i64, f32
  // CHECK-NEXT: }
  }
  // CHECK-NEXT: hw.nv.bar_warp_sync
  hw.nv.bar_warp_sync 0xffffffff
  // CHECK-NEXT: hw.nv.bar_warp_sync 0x0000000f
  hw.nv.bar_warp_sync 0xf
  // CHECK-NEXT: hw.nv.return
  hw.nv.return
// CHECK-NEXT: }
}

// An Ampere-style tensor-core step: cp.async to shared, ldmatrix, mma.sync.
// CHECK-LABEL: hw.nv.kernel @mma_step(%A: !hw.ptr<global>, %n: i32, %eps: f32, %h: f16) sm 90 maxntid [128, 1, 1] smem 65536 align 128 {
hw.nv.kernel @mma_step(%A: !hw.ptr<global>, %n: i32, %eps: f32, %h: f16) sm 90 maxntid [128, 1, 1] smem 65536 align 128 {
  // CHECK-NEXT: hw.nv.shared @sA 8192 align 128
  hw.nv.shared @sA 8192 align 128
  // CHECK-NEXT: hw.nv.shared @sB 4096 align 16
  hw.nv.shared @sB 4096
  // CHECK-NEXT: %a = hw.nv.shared_addr @sA : i32
  %a = hw.nv.shared_addr @sA : i32
  // CHECK-NEXT: %b = hw.nv.shared_addr @sB : i32
  %b = hw.nv.shared_addr @sB : i32
  // CHECK-NEXT: %dyn = hw.nv.dynamic_shared_addr : i32
  %dyn = hw.nv.dynamic_shared_addr : i32
  // CHECK-NEXT: %g = hw.ptr_to_int %A : !hw.ptr<global> -> i64
  %g = hw.ptr_to_int %A : !hw.ptr<global> -> i64
  // CHECK-NEXT: %tid = hw.nv.sreg tid.x : i32
  %tid = hw.nv.sreg tid.x : i32
  // CHECK-NEXT: hw.nv.cp_async %a, %g, 16 : i32, i64
  hw.nv.cp_async cg %a, %g, 16 : i32, i64
  // CHECK-NEXT: hw.nv.cp_async %b, %g, 16 src_bytes %n : i32, i64, i32
  hw.nv.cp_async %b, %g, 16 src_bytes %n : i32, i64, i32
  // CHECK-NEXT: hw.nv.cp_async %dyn, %g, 8 : i32, i64
  hw.nv.cp_async ca %dyn, %g, 8 : i32, i64
  // CHECK-NEXT: hw.nv.cp_async ca %dyn, %g, 16 : i32, i64
  hw.nv.cp_async ca %dyn, %g, 16 : i32, i64
  // CHECK-NEXT: hw.nv.cp_async_commit
  hw.nv.cp_async_commit
  // CHECK-NEXT: hw.nv.cp_async_wait 0
  hw.nv.cp_async_wait 0
  // CHECK-NEXT: hw.nv.bar_sync 0
  hw.nv.bar_sync 0
  // CHECK-NEXT: %a0, %a1, %a2, %a3 = hw.nv.ldmatrix x4 %a : i32 -> i32, i32, i32, i32
  %a0, %a1, %a2, %a3 = hw.nv.ldmatrix x4 %a : i32 -> i32, i32, i32, i32
  // CHECK-NEXT: %b0, %b1 = hw.nv.ldmatrix x2 trans %b : i32 -> i32, i32
  %b0, %b1 = hw.nv.ldmatrix x2 trans %b : i32 -> i32, i32
  // CHECK-NEXT: %k0 = hw.nv.ldmatrix x1 %b : i32 -> i32
  %k0 = hw.nv.ldmatrix x1 %b : i32 -> i32
  // CHECK-NEXT: %z = arith.constant 0.000000e+00 : f32
  %z = arith.constant 0.0 : f32
  // CHECK-NEXT: %d0, %d1, %d2, %d3 = hw.nv.mma_sync m16n8k16 row col f32 f16 f16 f32 (%a0, %a1, %a2, %a3), (%b0, %b1), (%z, %z, %z, %z)
  %d0, %d1, %d2, %d3 = hw.nv.mma_sync m16n8k16 row col f32 f16 f16 f32 (%a0, %a1, %a2, %a3), (%b0, %b1), (%z, %z, %z, %z)
  // CHECK-NEXT: %e0, %e1, %e2, %e3 = hw.nv.mma_sync m16n8k16 row col f32 bf16 bf16 f32 (%a0, %a1, %a2, %a3), (%b0, %b1), (%d0, %d1, %d2, %d3)
  %e0, %e1, %e2, %e3 = hw.nv.mma_sync m16n8k16 row col f32 bf16 bf16 f32 (%a0, %a1, %a2, %a3), (%b0, %b1), (%d0, %d1, %d2, %d3)
  // CHECK-NEXT: %h0, %h1 = hw.nv.mma_sync m16n8k16 row col f16 f16 f16 f16 (%a0, %a1, %a2, %a3), (%b0, %b1), (%k0, %k0)
  %h0, %h1 = hw.nv.mma_sync m16n8k16 row col f16 f16 f16 f16 (%a0, %a1, %a2, %a3), (%b0, %b1), (%k0, %k0)
  // CHECK-NEXT: %t0, %t1, %t2, %t3 = hw.nv.mma_sync m16n8k8 row col f32 tf32 tf32 f32 (%a0, %a1, %a2, %a3), (%b0, %b1), (%e0, %e1, %e2, %e3)
  %t0, %t1, %t2, %t3 = hw.nv.mma_sync m16n8k8 row col f32 tf32 tf32 f32 (%a0, %a1, %a2, %a3), (%b0, %b1), (%e0, %e1, %e2, %e3)
  // CHECK-NEXT: %f0, %f1, %f2, %f3 = hw.nv.mma_sync m16n8k8 row col f32 f16 f16 f32 (%a0, %a1), (%b0), (%t0, %t1, %t2, %t3)
  %f0, %f1, %f2, %f3 = hw.nv.mma_sync m16n8k8 row col f32 f16 f16 f32 (%a0, %a1), (%b0), (%t0, %t1, %t2, %t3)
  // CHECK-NEXT: %i0, %i1, %i2, %i3 = hw.nv.mma_sync m16n8k32 row col s32 s8 s8 s32 (%a0, %a1, %a2, %a3), (%b0, %b1), (%k0, %k0, %k0, %k0)
  %i0, %i1, %i2, %i3 = hw.nv.mma_sync m16n8k32 row col s32 s8 s8 s32 (%a0, %a1, %a2, %a3), (%b0, %b1), (%k0, %k0, %k0, %k0)
  // CHECK-NEXT: %p = hw.nv.pack %h, %h : f16, f16 -> i32
  %p = hw.nv.pack %h, %h : f16, f16 -> i32
  // CHECK-NEXT: %lo, %hi = hw.nv.unpack %h0 : i32 -> f16, f16
  %lo, %hi = hw.nv.unpack %h0 : i32 -> f16, f16
  // CHECK-NEXT: %mw = hw.nv.mul_wide %k0, %b0 : i32, i32 -> i64
  %mw = hw.nv.mul_wide %k0, %b0 : i32, i32 -> i64
  // CHECK-NEXT: %bf = arith.truncf %f0 : f32 to bf16
  %bf = arith.truncf %f0 : f32 to bf16
  // CHECK-NEXT: %pb = hw.nv.pack %bf, %bf : bf16, bf16 -> i32
  %pb = hw.nv.pack %bf, %bf : bf16, bf16 -> i32
  // CHECK-NEXT: %w0, %w1 = hw.nv.ld shared v2 %a + 256 : i32 -> i32, i32
  %w0, %w1 = hw.nv.ld shared v2 %a + 256 : i32 -> i32, i32
  // CHECK-NEXT: hw.nv.st shared v2 %b, %w0, %w1 : i32, i32, i32
  hw.nv.st shared v2 %b, %w0, %w1 : i32, i32, i32
  // CHECK-NEXT: hw.nv.st global wt v4 %g + 64, %f0, %f1, %f2, %f3 : i64, f32, f32, f32, f32
  hw.nv.st global wt v4 %g + 64, %f0, %f1, %f2, %f3 : i64, f32, f32, f32, f32
  // CHECK-NEXT: %l = hw.nv.ld local %tid : i32 -> f64
  %l = hw.nv.ld local %tid : i32 -> f64
  // CHECK-NEXT: %gen = hw.nv.ld generic cv %g : i64 -> i16
  %gen = hw.nv.ld generic cv %g : i64 -> i16
  // CHECK-NEXT: hw.nv.bar_sync 1, 128
  hw.nv.bar_sync 1, 128
  // CHECK-NEXT: hw.nv.return
  hw.nv.return
// CHECK-NEXT: }
}

// Hopper pieces: TMA into shared memory signalled by an mbarrier, then wgmma.
// CHECK-LABEL: hw.nv.kernel @hopper(%tmA: !hw.nv.tensor_map, %x: i32, %y: i32, %da: i64, %db: i64) sm "90a" maxntid [128] {
hw.nv.kernel @hopper(%tmA: !hw.nv.tensor_map, %x: i32, %y: i32, %da: i64, %db: i64) sm "90a" maxntid [128] {
  // CHECK-NEXT: hw.nv.shared @tile 16384 align 1024
  hw.nv.shared @tile 16384 align 1024
  // CHECK-NEXT: hw.nv.shared @bar 8 align 8
  hw.nv.shared @bar 8 align 8
  // CHECK-NEXT: %dst = hw.nv.shared_addr @tile : i32
  %dst = hw.nv.shared_addr @tile : i32
  // CHECK-NEXT: %mbar = hw.nv.shared_addr @bar : i32
  %mbar = hw.nv.shared_addr @bar : i32
  // CHECK-NEXT: hw.nv.mbarrier_init %mbar, 1
  hw.nv.mbarrier_init %mbar, 1
  // CHECK-NEXT: hw.nv.fence_proxy_async
  hw.nv.fence_proxy_async
  // CHECK-NEXT: %state = hw.nv.mbarrier_arrive_expect_tx %mbar, 16384
  %state = hw.nv.mbarrier_arrive_expect_tx %mbar, 16384
  // CHECK-NEXT: hw.nv.tma_load_2d %dst, %tmA[%x, %y], %mbar
  hw.nv.tma_load_2d %dst, %tmA[%x, %y], %mbar
  // CHECK-NEXT: %phase = arith.constant 0 : i32
  %phase = arith.constant 0 : i32
  // CHECK-NEXT: %ready = hw.nv.mbarrier_try_wait %mbar, %phase
  %ready = hw.nv.mbarrier_try_wait %mbar, %phase
  // CHECK-NEXT: %z = arith.constant 0.000000e+00 : f32
  %z = arith.constant 0.0 : f32
  // CHECK-NEXT: %z1 = arith.constant 0.000000e+00 : f32
  %z1 = arith.constant 0.0 : f32
  // CHECK-NEXT: %z2 = arith.constant 0.000000e+00 : f32
  %z2 = arith.constant 0.0 : f32
  // CHECK-NEXT: %z3 = arith.constant 0.000000e+00 : f32
  %z3 = arith.constant 0.0 : f32
  // CHECK-NEXT: hw.nv.wgmma_fence
  hw.nv.wgmma_fence
  // CHECK-NEXT: %c0, %c1, %c2, %c3 = hw.nv.wgmma_mma_async m64n8k16 f32 bf16 bf16 %da, %db, (%z, %z1, %z2, %z3) scale_d 1 scale_a 1 scale_b 1 trans_a 0 trans_b 0
  %c0, %c1, %c2, %c3 = hw.nv.wgmma_mma_async m64n8k16 f32 bf16 bf16 %da, %db, (%z, %z1, %z2, %z3)
  // CHECK-NEXT: %d0, %d1, %d2, %d3 = hw.nv.wgmma_mma_async m64n8k16 f32 f16 f16 %da, %db, (%c0, %c1, %c2, %c3) scale_d 1 scale_a -1 scale_b 1 trans_a 1 trans_b 0
  %d0, %d1, %d2, %d3 = hw.nv.wgmma_mma_async m64n8k16 f32 f16 f16 %da, %db, (%c0, %c1, %c2, %c3) scale_d 1 scale_a -1 scale_b 1 trans_a 1 trans_b 0
  // CHECK-NEXT: %i0, %i1 = hw.nv.wgmma_mma_async m64n8k16 f16 f16 f16 %da, %db, (%x, %y) scale_d 0 scale_a 1 scale_b 1 trans_a 0 trans_b 0
  %i0, %i1 = hw.nv.wgmma_mma_async m64n8k16 f16 f16 f16 %da, %db, (%x, %y) scale_d 0
  // CHECK-NEXT: %t0, %t1, %t2, %t3 = hw.nv.wgmma_mma_async m64n8k8 f32 tf32 tf32 %da, %db, (%d0, %d1, %d2, %d3) scale_d 1 scale_a 1 scale_b 1 trans_a 0 trans_b 0
  %t0, %t1, %t2, %t3 = hw.nv.wgmma_mma_async m64n8k8 f32 tf32 tf32 %da, %db, (%d0, %d1, %d2, %d3)
  // CHECK-NEXT: hw.nv.wgmma_commit_group
  hw.nv.wgmma_commit_group
  // CHECK-NEXT: hw.nv.wgmma_wait_group 0
  hw.nv.wgmma_wait_group 0
  // CHECK-NEXT: hw.nv.return
  hw.nv.return
// CHECK-NEXT: }
}

// Module-level attributes and discardable attributes survive.
// CHECK-LABEL: hw.nv.kernel @attrs(%n: i32) sm 89 attributes {origin = "test"} {
hw.nv.kernel @attrs(%n: i32) sm 89 attributes {origin = "test"} {
  // CHECK-NEXT: %t = hw.nv.sreg ntid.y {note = 1 : i64} : i32
  %t = hw.nv.sreg ntid.y {note = 1 : i64} : i32
  // CHECK-NEXT: hw.nv.return {note = 2 : i64}
  hw.nv.return {note = 2 : i64}
// CHECK-NEXT: }
}
