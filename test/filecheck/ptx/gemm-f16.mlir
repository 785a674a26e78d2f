// The f16 GEMM through lower-to-ptx: tensor cores, async copies, swizzled ldmatrix; ptxas accepts it.
// RUN: tilec-opt %s -p lower-to-ptx -t ptx | filecheck %s
// RUN: tilec-opt %s -p lower-to-ptx -t ptx | filecheck %s --check-prefix=LOOP
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_80}' -t ptx -o %t.ptx && ptxas -arch=sm_80 %t.ptx -o %t.cubin
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_90a}' -t ptx -o %t90.ptx && ptxas -arch=sm_90a %t90.ptx -o %t90.cubin

// The main loop's pipeline slot ((k - lb) / 32) % 4 is shift and mask (int-strength-reduce), not
// div/rem, which ptxas expands into long dependent sequences; global offsets are zero-extended.
// LOOP:      $L_for_{{[0-9]+}}:
// LOOP-NOT:  div.u32
// LOOP-NOT:  rem.u32
// LOOP:      shr.u32
// LOOP-NOT:  div.u32
// LOOP-NOT:  rem.u32
// LOOP:      and.b32
// LOOP:      bar.sync 0;
// LOOP:      cvt.u64.u32
// LOOP-NOT:  cvt.s64.s32
// LOOP:      cp.async.cg.shared.global
// LOOP:      $L_endfor_{{[0-9]+}}:

// CHECK: .version 8.0
// CHECK: .target sm_90
// CHECK: .extern .shared .align 128 .b8 tilec_dsmem[];
// CHECK: .visible .entry tilec_u_mm_0_contraction(
// CHECK: .maxntid 128, 1, 1
// CHECK: // mapped.block_id ({{.*}}gemm-f16.mlir:[[# @LINE + 14]]:3)
// CHECK: // mapped.async_copy
// CHECK: cp.async.cg.shared.global [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: cp.async.commit_group;
// CHECK: cp.async.wait_group 2;
// CHECK: bar.sync 0;
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK: cvt.rn.f16.f32
// CHECK: st.global.b32
tile.func @mm(%A: !tile.array<256x128xf16>, %B: !tile.array<128x192xf16>) outs(%C: !tile.array<256x192xf16>) {
  %a = tile.load %A : !tile.array<256x128xf16> -> !tile.tile<256x128xf16>
  %b = tile.load %B : !tile.array<128x192xf16> -> !tile.tile<128x192xf16>
  %c = tile.contract %a, %b axes [[1, 0]] acc f32 : !tile.tile<256x128xf16>, !tile.tile<128x192xf16> -> !tile.tile<256x192xf16>
  tile.store %c, %C : !tile.tile<256x192xf16>, !tile.array<256x192xf16>
  tile.return
}
