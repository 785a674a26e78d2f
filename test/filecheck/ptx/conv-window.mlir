// mapped.async_copy_window through mapped-to-hw-nv: the A tile of an implicit-GEMM convolution
// (x 2x15x15x64, 3x3 stride 2 pad 1 -> M = 2*8*8, K = 9*64) as 16-byte cp.async chunks with
// src-size 0 in the padding; ptxas accepts the kernel for sm_80 and sm_90a.
// RUN: tilec-opt %s -p lower-to-ptx -t ptx | filecheck %s
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_80}' -t ptx -o %t.ptx && ptxas -arch=sm_80 %t.ptx -o %t.cubin
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_90a}' -t ptx -o %t90.ptx && ptxas -arch=sm_90a %t90.ptx -o %t90.cubin

// In the k loop only the kernel tap is decomposed (k / 64 -> kh, kw), once for the thread's 4
// chunks (they share a column); the row's (n, oh, ow) is hoisted out of the loop.
// CHECK: .visible .entry tilec_u_mm_0_contraction(
// CHECK: $L_for_{{[0-9]+}}:
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK: // mapped.async_copy_window
// CHECK-NOT: shr.u32 %r{{[0-9]+}}, %r{{[0-9]+}}, 3;
// CHECK: rem.u32
// CHECK-NEXT: div.u32
// CHECK-NOT: div.u32
// CHECK-NOT: rem.u32
// CHECK: cp.async.cg.shared.global [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-NOT: div.u32
// CHECK-NOT: rem.u32
// CHECK: cp.async.cg.shared.global [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: // mapped.async_copy
// CHECK: cp.async.cg.shared.global
// CHECK: $L_endfor_{{[0-9]+}}:

builtin.module {
  mapped.kernel @mm_0_contraction(%C: !mapped.buf<128x192xf16, global>, %A: !mapped.buf<2x15x15x64xf16, global>, %B: !mapped.buf<192x576xf16, global>) target gpu grid [2, 2, 1] block [128, 1, 1] smem 65536 {
    %0 = arith.constant 256 : index
    %1 = arith.constant 192 : index
    %2 = arith.constant 128 : index
    %3 = arith.constant 1 : index
    %4 = arith.constant 8 : index
    %5 = arith.constant 2 : index
    %6 = arith.constant 64 : index
    %7 = arith.constant 0 : index
    %8 = arith.constant 32 : index
    %9 = arith.constant 16 : index
    %10 = mapped.alloc : !mapped.buf<4x128x32xf16, shared, swizzle<2, 4, 3>>
    %11 = mapped.alloc : !mapped.buf<4x128x32xf16, shared, swizzle<2, 4, 3>>
    %12 = mapped.block_id x
    %13 = mapped.block_id y
    %14 = mapped.block_id z
    %15 = mapped.grid_dim x
    %16 = mapped.grid_dim y
    %17 = arith.muli %13, %15 : index
    %18 = arith.addi %17, %12 : index
    %19 = arith.muli %15, %4 : index
    %20 = arith.divui %18, %19 : index
    %21 = arith.muli %20, %4 : index
    %22 = arith.subi %16, %21 : index
    %23 = arith.minui %22, %4 : index
    %24 = arith.remui %18, %19 : index
    %25 = arith.remui %24, %23 : index
    %26 = arith.addi %21, %25 : index
    %27 = arith.divui %24, %23 : index
    %28 = arith.muli %26, %2 : index
    %29 = arith.muli %27, %2 : index
    %30 = mapped.warp_id
    %31 = arith.divui %30, %5 : index
    %32 = arith.muli %31, %6 : index
    %33 = arith.remui %30, %5 : index
    %34 = arith.muli %33, %6 : index
    %35 = mapped.frag_fill 0.000000e+00 : !mapped.frag<64x64xf32, acc, m16n8k16>
    %k = arith.constant 576 : index
    %36 = mapped.pipeline %7 to %k step %8 stages 4 iter_args(%35) -> (!mapped.frag<64x64xf32, acc, m16n8k16>) produce {
    ^bb0(%37: index, %38: index):
      mapped.async_copy_window %A[%28, %37] -> %10[%38, %7, %7] shape [128, 32] out [8, 8] kernel [3, 3] stride [2, 2] dilation [1, 1] lhs_dilation [1, 1] pad_lo [1, 1] : !mapped.buf<2x15x15x64xf16, global>, !mapped.buf<4x128x32xf16, shared, swizzle<2, 4, 3>>
      mapped.async_copy %B[%29, %37] -> %11[%38, %7, %7] shape [128, 32] : !mapped.buf<192x576xf16, global>, !mapped.buf<4x128x32xf16, shared, swizzle<2, 4, 3>>
      mapped.yield
    } consume {
    ^bb0(%39: index, %40: index, %41: !mapped.frag<64x64xf32, acc, m16n8k16>):
      %42 = mapped.frag_load %10[%40, %32, %7] : !mapped.buf<4x128x32xf16, shared, swizzle<2, 4, 3>> -> !mapped.frag<64x16xf16, a, m16n8k16>
      %43 = mapped.frag_load %11[%40, %34, %7] transposed : !mapped.buf<4x128x32xf16, shared, swizzle<2, 4, 3>> -> !mapped.frag<16x64xf16, b, m16n8k16>
      %44 = mapped.mma %42, %43, %41 : !mapped.frag<64x16xf16, a, m16n8k16>, !mapped.frag<16x64xf16, b, m16n8k16>, !mapped.frag<64x64xf32, acc, m16n8k16> -> !mapped.frag<64x64xf32, acc, m16n8k16>
      %45 = mapped.frag_load %10[%40, %32, %9] : !mapped.buf<4x128x32xf16, shared, swizzle<2, 4, 3>> -> !mapped.frag<64x16xf16, a, m16n8k16>
      %46 = mapped.frag_load %11[%40, %34, %9] transposed : !mapped.buf<4x128x32xf16, shared, swizzle<2, 4, 3>> -> !mapped.frag<16x64xf16, b, m16n8k16>
      %47 = mapped.mma %45, %46, %44 : !mapped.frag<64x16xf16, a, m16n8k16>, !mapped.frag<16x64xf16, b, m16n8k16>, !mapped.frag<64x64xf32, acc, m16n8k16> -> !mapped.frag<64x64xf32, acc, m16n8k16>
      mapped.yield %47 : !mapped.frag<64x64xf32, acc, m16n8k16>
    }
    %48 = arith.addi %28, %32 : index
    %49 = arith.addi %29, %34 : index
    mapped.frag_store %36, %C[%48, %49] : !mapped.frag<64x64xf32, acc, m16n8k16>, !mapped.buf<128x192xf16, global> epilogue {
    ^bb0(%50: f32, %51: index, %52: index):
      %53 = arith.truncf %50 : f32 to f16
      %54 = arith.extf %53 : f16 to f32
      %55 = arith.truncf %54 : f32 to f16
      mapped.yield %55 : f16
    }
    mapped.return
  }
  mapped.host @mm(%A: !mapped.buf<2x15x15x64xf16, global>, %B: !mapped.buf<192x576xf16, global>) outs(%C: !mapped.buf<128x192xf16, global>) {
    %0 = arith.constant 256 : index
    %1 = arith.constant 192 : index
    %2 = arith.constant 128 : index
    %3 = arith.constant 1 : index
    mapped.launch @mm_0_contraction(%C, %A, %B) : !mapped.buf<128x192xf16, global>, !mapped.buf<2x15x15x64xf16, global>, !mapped.buf<192x576xf16, global>
    mapped.return
  }
}
