// The f16 GEMM on Hopper (gemm=wgmma, sm_90a): a warp-specialized pipeline whose producer
// warpgroup fills a ring of 128-byte-swizzled stages by TMA and whose consumer warpgroups run
// wgmma on them; the mapped IR shows the schedule, the PTX the instructions; ptxas accepts it.
// RUN: tilec-opt %s -p 'tile-canonicalize,tile-fuse,tile-to-mapped{target=cuda gemm=wgmma wgmma-m=128 wgmma-n=64}' | filecheck %s --check-prefix=MAPPED
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_90a}' -t ptx | filecheck %s --check-prefix=PTX
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_90a}' -t ptx -o %t90.ptx && ptxas -arch=sm_90a %t90.ptx -o %t90.cubin
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_90a wgmma-store=direct}' -t ptx | filecheck %s --check-prefix=DIRECT
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_80}' -t ptx | filecheck %s --check-prefix=SM80
// RUN: not tilec-opt %s -p 'lower-to-ptx{sm=sm_80 gemm=wgmma}' -t ptx 2>&1 | filecheck %s --check-prefix=ERR

// MAPPED:      mapped.kernel @mm_0_contraction({{.*}}) target gpu grid [3, 2, 1] block [384, 1, 1]
// MAPPED:        mapped.alloc : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
// MAPPED:        mapped.alloc : !mapped.buf<4x1x64x64xf16, shared, swizzle<3, 4, 3>>
// MAPPED:        mapped.alloc : !mapped.buf<8xi64, shared>
// MAPPED:        mapped.warpgroup_id
// MAPPED:        mapped.ws_pipeline {{.*}} stages 4 consumers 2 regs [40, 232] barriers {{.*}} iter_args({{.*}}) -> (!mapped.frag<64x64xf32, acc, wgmma>) produce {
// MAPPED:          mapped.tma_load %A[{{.*}}] -> {{.*}} shape [128, 64]
// MAPPED:          mapped.tma_load %B[{{.*}}] -> {{.*}} shape [64, 64]
// MAPPED:        } consume {
// MAPPED:          mapped.wgmma
// The store passes through the larger ring buffer (wgmma-store=staged, the default):
// MAPPED:        mapped.frag_store {{.*}} via %{{[0-9]+}} : !mapped.frag<64x64xf32, acc, wgmma>, !mapped.buf<256x192xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>> epilogue {

// PTX:      .target sm_90a
// PTX:      .param .align 64 .b8 tilec_param_3[128],
// PTX:      .param .align 64 .b8 tilec_param_4[128]
// The automatic tile of this small problem (K = 128: two steps) is 64 x 128 with two blocks per
// SM, each one producer and one consumer warpgroup (256 threads at 128 registers each).
// PTX:      .maxntid 256, 1, 1
// PTX:      .minnctapersm 2
// PTX:      mbarrier.init.shared::cta.b64 [%r{{[0-9]+}}], 1;
// PTX:      mbarrier.init.shared::cta.b64 [%r{{[0-9]+}}], 128;
// PTX:      fence.mbarrier_init.release.cluster;
// PTX:      setmaxnreg.dec.sync.aligned.u32 40;
// PTX:      mbarrier.try_wait.parity.shared::cta.b64
// PTX:      mbarrier.arrive.expect_tx.shared::cta.b64 %rd{{[0-9]+}}, [%r{{[0-9]+}}], 24576;
// PTX:      cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX:      exit;
// PTX:      setmaxnreg.inc.sync.aligned.u32 216;
// PTX:      wgmma.fence.sync.aligned;
// PTX:      wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX:      wgmma.commit_group.sync.aligned;
// PTX:      wgmma.wait_group.sync.aligned 0;
// PTX:      mbarrier.arrive.shared::cta.b64
// The staged epilogue: the consumers meet (named barrier 1), write their pairs of columns to
// the ring, meet again, then copy 16-byte chunks out (element by element where C's base is not
// 16-byte aligned).
// PTX:      bar.sync 1, 128;
// PTX:      st.shared.b32
// PTX:      bar.sync 1, 128;
// PTX:      ld.shared.v4.b32
// PTX:      st.global.v4.b32
// PTX:      ld.shared.b16
// PTX:      st.global.b16
// PTX-NOT:  mma.sync

// wgmma-store=direct: pairs of columns straight from the accumulator registers
// DIRECT:     wgmma.wait_group.sync.aligned 0;
// DIRECT-NOT: bar.sync 1
// DIRECT:     st.global.b32
// DIRECT-NOT: bar.sync 1

// sm_80 keeps the mma.sync kernel (gemm=auto)
// SM80:     .target sm_80
// SM80-NOT: wgmma.mma_async
// SM80:     mma.sync.aligned.m16n8k16

// ERR: error: pipeline 'lower-to-ptx': options of target cuda: gemm=wgmma needs sm=sm_90a

tile.func @mm(%A: !tile.array<256x128xf16>, %B: !tile.array<128x192xf16>) outs(%C: !tile.array<256x192xf16>) {
  %a = tile.load %A : !tile.array<256x128xf16> -> !tile.tile<256x128xf16>
  %b = tile.load %B : !tile.array<128x192xf16> -> !tile.tile<128x192xf16>
  %c = tile.contract %a, %b axes [[1, 0]] acc f32 : !tile.tile<256x128xf16>, !tile.tile<128x192xf16> -> !tile.tile<256x192xf16>
  tile.store %c, %C : !tile.tile<256x192xf16>, !tile.array<256x192xf16>
  tile.return
}
