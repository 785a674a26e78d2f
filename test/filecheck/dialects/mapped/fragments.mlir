// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

// One warp tile step of a GEMM: a from a swizzled stage slot, b transposed (stored N x K).
mapped.kernel @warp_mma(%C: !mapped.buf<?x?xf16, global>, %bias: !mapped.buf<?xf32, global>) target gpu grid [cdiv(%C:1, 64), cdiv(%C:0, 64), 1] block [32, 1, 1] smem 32768 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sA = mapped.alloc : !mapped.buf<2x64x64xf16, shared, swizzle<3, 4, 3>>
  %sB = mapped.alloc : !mapped.buf<2x64x64xf16, shared, swizzle<3, 4, 3>>
  %z = mapped.frag_fill 0.0 : !mapped.frag<64x32xf32, acc, m16n8k16>
  %a = mapped.frag_load %sA[%c1, %c0, %c0] : !mapped.buf<2x64x64xf16, shared, swizzle<3, 4, 3>> -> !mapped.frag<64x16xf16, a, m16n8k16>
  %b = mapped.frag_load %sB[%c1, %c0, %c0] transposed : !mapped.buf<2x64x64xf16, shared, swizzle<3, 4, 3>> -> !mapped.frag<16x32xf16, b, m16n8k16>
  %d = mapped.mma %a, %b, %z : !mapped.frag<64x16xf16, a, m16n8k16>, !mapped.frag<16x32xf16, b, m16n8k16>, !mapped.frag<64x32xf32, acc, m16n8k16> -> !mapped.frag<64x32xf32, acc, m16n8k16>
  mapped.frag_store %d, %C[%c0, %c0] : !mapped.frag<64x32xf32, acc, m16n8k16>, !mapped.buf<?x?xf16, global> epilogue {
  ^bb0(%v: f32, %row: index, %col: index):
    %bv = mapped.load %bias[%col] : !mapped.buf<?xf32, global> -> f32
    %s = arith.addf %v, %bv : f32
    %h = arith.truncf %s : f32 to f16
    mapped.yield %h : f16
  }
  mapped.return
}

// CHECK-LABEL: mapped.kernel @warp_mma
// CHECK:         %z = mapped.frag_fill 0.000000e+00 : !mapped.frag<64x32xf32, acc, m16n8k16>
// CHECK-NEXT:    %a = mapped.frag_load %sA[%c1, %c0, %c0] : !mapped.buf<2x64x64xf16, shared, swizzle<3, 4, 3>> -> !mapped.frag<64x16xf16, a, m16n8k16>
// CHECK-NEXT:    %b = mapped.frag_load %sB[%c1, %c0, %c0] transposed : !mapped.buf<2x64x64xf16, shared, swizzle<3, 4, 3>> -> !mapped.frag<16x32xf16, b, m16n8k16>
// CHECK-NEXT:    %d = mapped.mma %a, %b, %z : !mapped.frag<64x16xf16, a, m16n8k16>, !mapped.frag<16x32xf16, b, m16n8k16>, !mapped.frag<64x32xf32, acc, m16n8k16> -> !mapped.frag<64x32xf32, acc, m16n8k16>
// CHECK-NEXT:    mapped.frag_store %d, %C[%c0, %c0] : !mapped.frag<64x32xf32, acc, m16n8k16>, !mapped.buf<?x?xf16, global> epilogue {
// CHECK-NEXT:    ^bb0(%v: f32, %row: index, %col: index):
// CHECK-NEXT:      %bv = mapped.load %bias[%col] : !mapped.buf<?xf32, global> -> f32
// CHECK-NEXT:      %s = arith.addf %v, %bv : f32
// CHECK-NEXT:      %h = arith.truncf %s : f32 to f16
// CHECK-NEXT:      mapped.yield %h : f16
// CHECK-NEXT:    }

// The other legal element pairs; f16 accumulation; a plain store; storing to shared.
mapped.kernel @types(%C: !mapped.buf<?x?xf32, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 12288 {
  %c0 = arith.constant 0 : index
  %sh = mapped.alloc : !mapped.buf<32x64xbf16, shared>
  %st = mapped.alloc : !mapped.buf<16x128xf32, shared>
  %ab = mapped.frag_load %sh[%c0, %c0] : !mapped.buf<32x64xbf16, shared> -> !mapped.frag<16x32xbf16, a, m16n8k16>
  %bb = mapped.frag_load %sh[%c0, %c0] : !mapped.buf<32x64xbf16, shared> -> !mapped.frag<32x8xbf16, b, m16n8k16>
  %cb = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  %db = mapped.mma %ab, %bb, %cb : !mapped.frag<16x32xbf16, a, m16n8k16>, !mapped.frag<32x8xbf16, b, m16n8k16>, !mapped.frag<16x8xf32, acc, m16n8k16> -> !mapped.frag<16x8xf32, acc, m16n8k16>
  %ch = mapped.frag_fill 1.5 : !mapped.frag<16x8xf16, acc, m16n8k16>
  %at = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, a, m16n8k8>
  %bt = mapped.frag_fill 0.0 : !mapped.frag<8x8xf32, b, m16n8k8>
  %ct = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k8>
  %dt = mapped.mma %at, %bt, %ct : !mapped.frag<16x8xf32, a, m16n8k8>, !mapped.frag<8x8xf32, b, m16n8k8>, !mapped.frag<16x8xf32, acc, m16n8k8> -> !mapped.frag<16x8xf32, acc, m16n8k8>
  %c2 = mapped.frag_load %st[%c0, %c0] : !mapped.buf<16x128xf32, shared> -> !mapped.frag<16x8xf32, acc, m16n8k16>
  mapped.frag_store %db, %C[%c0, %c0] : !mapped.frag<16x8xf32, acc, m16n8k16>, !mapped.buf<?x?xf32, global>
  mapped.frag_store %db, %st[%c0, %c0] : !mapped.frag<16x8xf32, acc, m16n8k16>, !mapped.buf<16x128xf32, shared>
  mapped.return
}

// CHECK-LABEL: mapped.kernel @types
// CHECK:         %db = mapped.mma %ab, %bb, %cb : !mapped.frag<16x32xbf16, a, m16n8k16>, !mapped.frag<32x8xbf16, b, m16n8k16>, !mapped.frag<16x8xf32, acc, m16n8k16> -> !mapped.frag<16x8xf32, acc, m16n8k16>
// CHECK-NEXT:    %ch = mapped.frag_fill 1.500000e+00 : !mapped.frag<16x8xf16, acc, m16n8k16>
// CHECK:         %dt = mapped.mma %at, %bt, %ct : !mapped.frag<16x8xf32, a, m16n8k8>, !mapped.frag<8x8xf32, b, m16n8k8>, !mapped.frag<16x8xf32, acc, m16n8k8> -> !mapped.frag<16x8xf32, acc, m16n8k8>
// CHECK-NEXT:    %c2 = mapped.frag_load %st[%c0, %c0] : !mapped.buf<16x128xf32, shared> -> !mapped.frag<16x8xf32, acc, m16n8k16>
// CHECK-NEXT:    mapped.frag_store %db, %C[%c0, %c0] : !mapped.frag<16x8xf32, acc, m16n8k16>, !mapped.buf<?x?xf32, global>
// CHECK-NEXT:    mapped.frag_store %db, %st[%c0, %c0] : !mapped.frag<16x8xf32, acc, m16n8k16>, !mapped.buf<16x128xf32, shared>

// AMD MFMA shapes run in a wave-64 kernel; fragments also live inside `on warps`.
mapped.kernel @mfma(%C: !mapped.buf<?x?xf32, global>) target gpu grid [1, 1, 1] block [256, 1, 1] wave 64 smem 4096 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %s = mapped.alloc : !mapped.buf<32x64xf16, shared>
  mapped.parallel (%w) = (%c0) to (%c4) step (%c1) on warps {
    %a = mapped.frag_load %s[%c0, %c0] : !mapped.buf<32x64xf16, shared> -> !mapped.frag<32x8xf16, a, m32n32k8>
    %b = mapped.frag_load %s[%c0, %c0] transposed : !mapped.buf<32x64xf16, shared> -> !mapped.frag<8x32xf16, b, m32n32k8>
    %c = mapped.frag_fill 0.0 : !mapped.frag<32x32xf32, acc, m32n32k8>
    %d = mapped.mma %a, %b, %c : !mapped.frag<32x8xf16, a, m32n32k8>, !mapped.frag<8x32xf16, b, m32n32k8>, !mapped.frag<32x32xf32, acc, m32n32k8> -> !mapped.frag<32x32xf32, acc, m32n32k8>
    %e = mapped.frag_fill 0.0 : !mapped.frag<16x16xf32, acc, m16n16k16>
    mapped.frag_store %d, %C[%c0, %c0] : !mapped.frag<32x32xf32, acc, m32n32k8>, !mapped.buf<?x?xf32, global>
    mapped.yield
  }
  mapped.return
}

// CHECK-LABEL: mapped.kernel @mfma
// CHECK-SAME:    wave 64 smem 4096 {
// CHECK:           %b = mapped.frag_load %s[%c0, %c0] transposed : !mapped.buf<32x64xf16, shared> -> !mapped.frag<8x32xf16, b, m32n32k8>
// CHECK:           %d = mapped.mma %a, %b, %c : !mapped.frag<32x8xf16, a, m32n32k8>, !mapped.frag<8x32xf16, b, m32n32k8>, !mapped.frag<32x32xf32, acc, m32n32k8> -> !mapped.frag<32x32xf32, acc, m32n32k8>
// CHECK-NEXT:      %e = mapped.frag_fill 0.000000e+00 : !mapped.frag<16x16xf32, acc, m16n16k16>
