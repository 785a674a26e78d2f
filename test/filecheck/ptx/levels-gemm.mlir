// The three levels of the f16 GEMM for NVIDIA, each printed and re-parsed by tilec-opt.
// RUN: tilec-opt %s -p 'tile-canonicalize,tile-fuse,tile-to-mapped{target=cuda}' | filecheck %s --check-prefix=MAPPED
// RUN: tilec-opt %s -p 'tile-canonicalize,tile-fuse,tile-to-mapped{target=cuda}' | tilec-opt -p mapped-expand-pipeline | filecheck %s --check-prefix=EXPANDED
// RUN: tilec-opt %s -p lower-to-ptx | filecheck %s --check-prefix=HW
// RUN: tilec-opt %s -p lower-to-ptx | tilec-opt | tilec-opt -t ptx | filecheck %s --check-prefix=PTX

// MAPPED: mapped.kernel @mm_0_contraction({{.*}}) target gpu grid [2, 2, 1] block [128, 1, 1] smem 65536
// MAPPED: mapped.alloc : !mapped.buf<4x128x32xf16, shared, swizzle<2, 4, 3>>
// MAPPED: mapped.alloc : !mapped.buf<4x32x128xf16, shared, swizzle<3, 4, 4>>
// MAPPED: mapped.frag_fill 0.000000e+00 : !mapped.frag<64x64xf32, acc, m16n8k16>
// MAPPED: mapped.pipeline {{.*}} stages 4
// MAPPED: mapped.async_copy
// MAPPED: mapped.frag_load {{.*}} -> !mapped.frag<64x16xf16, a, m16n8k16>
// MAPPED: mapped.mma
// MAPPED: mapped.frag_store {{.*}} epilogue
// MAPPED: mapped.host @mm(
// MAPPED: mapped.launch @mm_0_contraction
// EXPANDED-NOT: mapped.pipeline
// EXPANDED: mapped.async_commit
// EXPANDED: scf.for
// EXPANDED: mapped.async_wait 2
// EXPANDED: mapped.barrier
// EXPANDED: mapped.mma
// EXPANDED: mapped.async_wait 0
// HW: hw.nv.kernel @mm_0_contraction({{.*}}) sm 90 maxntid [128, 1, 1] smem 65536
// HW: hw.nv.cp_async
// HW: hw.nv.ldmatrix x4 trans
// HW: hw.nv.mma_sync m16n8k16 row col f32 f16 f16 f32
// HW: mapped.host @mm(
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
tile.func @mm(%A: !tile.array<256x128xf16>, %B: !tile.array<128x192xf16>) outs(%C: !tile.array<256x192xf16>) {
  %a = tile.load %A : !tile.array<256x128xf16> -> !tile.tile<256x128xf16>
  %b = tile.load %B : !tile.array<128x192xf16> -> !tile.tile<128x192xf16>
  %c = tile.contract %a, %b axes [[1, 0]] acc f32 : !tile.tile<256x128xf16>, !tile.tile<128x192xf16> -> !tile.tile<256x192xf16>
  tile.store %c, %C : !tile.tile<256x192xf16>, !tile.array<256x192xf16>
  tile.return
}
