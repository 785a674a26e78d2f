// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

// A CDNA matrix-core step: global -> LDS -> registers, MFMA, wave reduction.
// CHECK-LABEL: hw.amd.kernel @mfma_step(%A: !hw.ptr<global, f16>, %C: !hw.ptr<global, f32>, %n: i32) arch "gfx90a" wave 64 launch_bounds 256 lds 32768 {
hw.amd.kernel @mfma_step(%A: !hw.ptr<global, f16>, %C: !hw.ptr<global, f32>, %n: i32) arch "gfx90a" wave 64 launch_bounds 256 lds 32768 {
  // CHECK-NEXT: hw.amd.lds @sA 16384 align 16
  hw.amd.lds @sA 16384 align 16
  // CHECK-NEXT: hw.amd.lds @sB 512 align 16
  hw.amd.lds @sB 512
  // CHECK-NEXT: %pa = hw.amd.lds_addr @sA : i32
  %pa = hw.amd.lds_addr @sA : i32
  // CHECK-NEXT: %pb = hw.amd.lds_addr @sB : i32
  %pb = hw.amd.lds_addr @sB : i32
  // CHECK-NEXT: %pd = hw.amd.dynamic_lds_addr : i32
  %pd = hw.amd.dynamic_lds_addr : i32
  // CHECK-NEXT: %t = hw.amd.workitem_id x : i32
  %t = hw.amd.workitem_id x : i32
  // CHECK-NEXT: %ty = hw.amd.workitem_id y : i32
  %ty = hw.amd.workitem_id y : i32
  // CHECK-NEXT: %bx = hw.amd.workgroup_id x : i32
  %bx = hw.amd.workgroup_id x : i32
  // CHECK-NEXT: %bz = hw.amd.workgroup_id z : i32
  %bz = hw.amd.workgroup_id z : i32
  // CHECK-NEXT: %nx = hw.amd.workgroup_size x : i32
  %nx = hw.amd.workgroup_size x : i32
  // CHECK-NEXT: %lane = hw.amd.lane_id : i32
  %lane = hw.amd.lane_id : i32
  // CHECK-NEXT: %a = hw.ptr_to_int %A : !hw.ptr<global, f16> -> i64
  %a = hw.ptr_to_int %A : !hw.ptr<global, f16> -> i64
  // CHECK-NEXT: %c = hw.ptr_to_int %C : !hw.ptr<global, f32> -> i64
  %c = hw.ptr_to_int %C : !hw.ptr<global, f32> -> i64
  // CHECK-NEXT: %g = hw.amd.global_load %a + 128 : i64 -> vector<4xf16>
  %g = hw.amd.global_load %a + 128 : i64 -> vector<4xf16>
  // CHECK-NEXT: %g8 = hw.amd.global_load %a : i64 -> vector<8xf16>
  %g8 = hw.amd.global_load %a : i64 -> vector<8xf16>
  // CHECK-NEXT: %s = hw.amd.global_load %a - 2 : i64 -> f16
  %s = hw.amd.global_load %a - 2 : i64 -> f16
  // CHECK-NEXT: hw.amd.lds_store %pa + 64, %g : i32, vector<4xf16>
  hw.amd.lds_store %pa + 64, %g : i32, vector<4xf16>
  // CHECK-NEXT: hw.amd.lds_store %pb, %g8 : i32, vector<8xf16>
  hw.amd.lds_store %pb, %g8 : i32, vector<8xf16>
  // CHECK-NEXT: hw.amd.barrier
  hw.amd.barrier
  // CHECK-NEXT: %x = hw.amd.lds_load %pa + 64 : i32 -> vector<4xf16>
  %x = hw.amd.lds_load %pa + 64 : i32 -> vector<4xf16>
  // CHECK-NEXT: %y = hw.amd.lds_load %pb : i32 -> vector<4xf16>
  %y = hw.amd.lds_load %pb : i32 -> vector<4xf16>
  // CHECK-NEXT: %acc = arith.constant dense<0.000000e+00> : vector<16xf32>
  %acc = arith.constant dense<0.0> : vector<16xf32>
  // CHECK-NEXT: %d = hw.amd.mfma f32_32x32x8f16 %x, %y, %acc cbsz 0 abid 0 blgp 0 : vector<4xf16>, vector<4xf16>, vector<16xf32> -> vector<16xf32>
  %d = hw.amd.mfma f32_32x32x8f16 %x, %y, %acc cbsz 0 abid 0 blgp 0 : vector<4xf16>, vector<4xf16>, vector<16xf32> -> vector<16xf32>
  // CHECK-NEXT: %acc4 = arith.constant dense<0.000000e+00> : vector<4xf32>
  %acc4 = arith.constant dense<0.0> : vector<4xf32>
  // CHECK-NEXT: %d4 = hw.amd.mfma f32_16x16x16f16 %x, %y, %acc4 cbsz 0 abid 0 blgp 0 : vector<4xf16>, vector<4xf16>, vector<4xf32> -> vector<4xf32>
  %d4 = hw.amd.mfma f32_16x16x16f16 %x, %y, %acc4 : vector<4xf16>, vector<4xf16>, vector<4xf32> -> vector<4xf32>
  // CHECK-NEXT: %xb = vector.bitcast %x : vector<4xf16> to vector<4xi16>
  %xb = vector.bitcast %x : vector<4xf16> to vector<4xi16>
  // CHECK-NEXT: %e = hw.amd.mfma f32_32x32x8bf16_1k %xb, %xb, %d cbsz 1 abid 1 blgp 2 : vector<4xi16>, vector<4xi16>, vector<16xf32> -> vector<16xf32>
  %e = hw.amd.mfma f32_32x32x8bf16_1k %xb, %xb, %d cbsz 1 abid 1 blgp 2 : vector<4xi16>, vector<4xi16>, vector<16xf32> -> vector<16xf32>
  // CHECK-NEXT: %e4 = hw.amd.mfma f32_16x16x16bf16_1k %xb, %xb, %d4 cbsz 0 abid 0 blgp 0 : vector<4xi16>, vector<4xi16>, vector<4xf32> -> vector<4xf32>
  %e4 = hw.amd.mfma f32_16x16x16bf16_1k %xb, %xb, %d4 : vector<4xi16>, vector<4xi16>, vector<4xf32> -> vector<4xf32>
  // CHECK-NEXT: %f = vector.extract %e[0] : f32 from vector<16xf32>
  %f = vector.extract %e[0] : f32 from vector<16xf32>
  // CHECK-NEXT: %f16 = hw.amd.mfma f32_32x32x2f32 %f, %f, %e cbsz 0 abid 0 blgp 0 : f32, f32, vector<16xf32> -> vector<16xf32>
  %f16 = hw.amd.mfma f32_32x32x2f32 %f, %f, %e : f32, f32, vector<16xf32> -> vector<16xf32>
  // CHECK-NEXT: %f4 = hw.amd.mfma f32_16x16x4f32 %f, %f, %e4 cbsz 0 abid 0 blgp 0 : f32, f32, vector<4xf32> -> vector<4xf32>
  %f4 = hw.amd.mfma f32_16x16x4f32 %f, %f, %e4 : f32, f32, vector<4xf32> -> vector<4xf32>
  // CHECK-NEXT: %r32 = hw.amd.shfl_xor %f, 32 : f32
  %r32 = hw.amd.shfl_xor %f, 32 : f32
  // CHECK-NEXT: %sum = arith.addf %f, %r32 : f32
  %sum = arith.addf %f, %r32 : f32
  // CHECK-NEXT: %r1 = hw.amd.shfl_xor %sum, %lane : f32
  %r1 = hw.amd.shfl_xor %sum, %lane : f32
  // CHECK-NEXT: %i = hw.amd.shfl_xor %t, 1 : i32
  %i = hw.amd.shfl_xor %t, 1 : i32
  // CHECK-NEXT: %sw = hw.amd.ds_swizzle %i, 0x041f : i32
  %sw = hw.amd.ds_swizzle %i, 0x041f : i32
  // CHECK-NEXT: %dp = hw.amd.dpp %sw ctrl 0x111 row_mask 0xf bank_mask 0xf bound_ctrl : i32
  %dp = hw.amd.dpp %sw ctrl 0x111 row_mask 0xf bank_mask 0xf bound_ctrl : i32
  // CHECK-NEXT: %dq = hw.amd.dpp %dp ctrl 0x04e row_mask 0xf bank_mask 0xf : i32
  %dq = hw.amd.dpp %dp ctrl 0x4e : i32
  // CHECK-NEXT: %v = arith.bitcast %dq : i32 to f32
  %v = arith.bitcast %dq : i32 to f32
  // CHECK-NEXT: hw.amd.global_store %c + 4, %v : i64, f32
  hw.amd.global_store %c + 4, %v : i64, f32
  // CHECK-NEXT: hw.amd.global_store %c, %f4 : i64, vector<4xf32>
  hw.amd.global_store %c, %f4 : i64, vector<4xf32>
  // CHECK-NEXT: hw.amd.return
  hw.amd.return
// CHECK-NEXT: }
}

// RDNA: wave 32, no LDS, discardable attributes kept.
// CHECK-LABEL: hw.amd.kernel @rdna(%X: !hw.ptr<global>, %s: f32) arch "gfx1100" wave 32 attributes {origin = "test"} {
hw.amd.kernel @rdna(%X: !hw.ptr<global>, %s: f32) arch "gfx1100" wave 32 attributes {origin = "test"} {
  // CHECK-NEXT: %r = hw.amd.shfl_xor %s, 16 {note = 1 : i64} : f32
  %r = hw.amd.shfl_xor %s, 16 {note = 1 : i64} : f32
  // CHECK-NEXT: hw.amd.return
  hw.amd.return
// CHECK-NEXT: }
}
