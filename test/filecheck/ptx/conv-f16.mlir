// A ResNet-style f16 channels-last 3x3/2 conv with bias + residual + relu through the GPU backends:
// an implicit GEMM on tensor cores, one kernel, no im2col buffer in global memory.
// RUN: tilec-opt %s -p 'tile-canonicalize,tile-fuse,tile-to-mapped{target=cuda}' | filecheck %s --check-prefix=MAPPED
// RUN: tilec-opt %s -p lower-to-ptx -t ptx | filecheck %s --check-prefix=PTX
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_80}' -t ptx -o %t.ptx && ptxas -arch=sm_80 %t.ptx -o %t.cubin
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_90a}' -t ptx -o %t90.ptx && ptxas -arch=sm_90a %t90.ptx -o %t90.cubin
// RUN: tilec-opt %s -p lower-to-hip -t hip | filecheck %s --check-prefix=HIP

// The weight and the output are host views (W^T [O, K], Y [M, O]); x is read through the window
// copy; the kernel's buffers are those of the program: no temporary.
// MAPPED: mapped.kernel @block_0_contraction(%0: !mapped.buf<128x96xf16, global>, %X: !mapped.buf<2x15x15x64xf16, global>, %1: !mapped.buf<96x576xf16, global>, %B: !mapped.buf<96xf16, global>, %R: !mapped.buf<2x8x8x96xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1]
// MAPPED: mapped.pipeline
// MAPPED: mapped.async_copy_window %X[{{.*}}] shape [128, 32] out [8, 8] kernel [3, 3] stride [2, 2] dilation [1, 1] lhs_dilation [1, 1] pad_lo [1, 1]
// MAPPED: mapped.async_copy %1[
// MAPPED: mapped.mma
// MAPPED: mapped.frag_store {{.*}} epilogue {
// MAPPED: mapped.load %B[
// MAPPED: mapped.load %R[
// MAPPED: mapped.host @block
// MAPPED-NOT: mapped.temp
// MAPPED: mapped.view %W : !mapped.buf<96x3x3x64xf16, global> to !mapped.buf<96x576xf16, global>
// MAPPED: mapped.view %Y : !mapped.buf<2x8x8x96xf16, global> to !mapped.buf<128x96xf16, global>
// MAPPED-NOT: mapped.temp
// MAPPED: mapped.launch @block_0_contraction
// MAPPED-NOT: mapped.launch

// PTX: .visible .entry tilec_u_block_0_contraction(
// PTX-COUNT-5: .param .u64
// PTX-NEXT: )
// PTX: cp.async.cg.shared.global
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX: max.NaN.f32
// PTX-NOT: .entry

// HIP: extern "C" __global__ void __launch_bounds__(256) tilec_u_block_0_contraction(
// HIP: __builtin_amdgcn_mfma_f32_32x32x8f16
// HIP-NOT: __global__
tile.func @block(%X: !tile.array<2x15x15x64xf16>, %W: !tile.array<96x3x3x64xf16>, %B: !tile.array<96xf16>, %R: !tile.array<2x8x8x96xf16>) outs(%Y: !tile.array<2x8x8x96xf16>) {
  %x = tile.load %X : !tile.array<2x15x15x64xf16> -> !tile.tile<2x15x15x64xf16>
  %w = tile.load %W : !tile.array<96x3x3x64xf16> -> !tile.tile<96x3x3x64xf16>
  %b = tile.load %B : !tile.array<96xf16> -> !tile.tile<96xf16>
  %r = tile.load %R : !tile.array<2x8x8x96xf16> -> !tile.tile<2x8x8x96xf16>
  %c = tile.conv %x, %w stride [2, 2] padding [[1, 1], [1, 1]] dilation [1, 1] lhs_dilation [1, 1] groups 1 layout channels_last acc f32 : !tile.tile<2x15x15x64xf16>, !tile.tile<96x3x3x64xf16> -> !tile.tile<2x8x8x96xf16>
  %bb = tile.broadcast %b : !tile.tile<96xf16> to !tile.tile<2x8x8x96xf16>
  %y0 = tile.add %c, %bb : !tile.tile<2x8x8x96xf16>
  %y1 = tile.add %y0, %r : !tile.tile<2x8x8x96xf16>
  %z = tile.constant 0.0 : !tile.tile<2x8x8x96xf16>
  %y = tile.max %y1, %z : !tile.tile<2x8x8x96xf16>
  tile.store %y, %Y : !tile.tile<2x8x8x96xf16>, !tile.array<2x8x8x96xf16>
  tile.return
}
