// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

// One key block of an online softmax (a flash-attention warp): scores -> row maximum ->
// probabilities -> row sum -> the probabilities re-laid as an `a` fragment for the next MMA.
mapped.kernel @softmax_step(%L: !mapped.buf<?x1xf32, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  %s = mapped.frag_fill 0.0 : !mapped.frag<16x32xf32, acc, m16n8k16>
  %m = mapped.frag_reduce max %s : !mapped.frag<16x32xf32, acc, m16n8k16> -> !mapped.frag<16x1xf32, row, m16n8k16>
  %p = mapped.frag_map %s, %m : !mapped.frag<16x32xf32, acc, m16n8k16>, !mapped.frag<16x1xf32, row, m16n8k16> -> !mapped.frag<16x32xf32, acc, m16n8k16> {
  ^bb0(%x: f32, %mx: f32, %row: index, %col: index):
    %d = arith.subf %x, %mx : f32
    %e = math.exp %d : f32
    mapped.yield %e : f32
  }
  %l = mapped.frag_reduce sum %p : !mapped.frag<16x32xf32, acc, m16n8k16> -> !mapped.frag<16x1xf32, row, m16n8k16>
  %pa = mapped.frag_convert %p : !mapped.frag<16x32xf32, acc, m16n8k16> -> !mapped.frag<16x32xf16, a, m16n8k16>
  %p1 = mapped.frag_extract %pa[0, 16] : !mapped.frag<16x32xf16, a, m16n8k16> -> !mapped.frag<16x16xf16, a, m16n8k16>
  mapped.frag_store %l, %L[%c0, %c0] : !mapped.frag<16x1xf32, row, m16n8k16>, !mapped.buf<?x1xf32, global>
  mapped.return
}

// CHECK-LABEL: mapped.kernel @softmax_step
// CHECK:         %m = mapped.frag_reduce max %s : !mapped.frag<16x32xf32, acc, m16n8k16> -> !mapped.frag<16x1xf32, row, m16n8k16>
// CHECK-NEXT:    %p = mapped.frag_map %s, %m : !mapped.frag<16x32xf32, acc, m16n8k16>, !mapped.frag<16x1xf32, row, m16n8k16> -> !mapped.frag<16x32xf32, acc, m16n8k16> {
// CHECK-NEXT:    ^bb0(%x: f32, %mx: f32, %row: index, %col: index):
// CHECK:           mapped.yield %e : f32
// CHECK:         %l = mapped.frag_reduce sum %p
// CHECK-NEXT:    %pa = mapped.frag_convert %p : !mapped.frag<16x32xf32, acc, m16n8k16> -> !mapped.frag<16x32xf16, a, m16n8k16>
// CHECK-NEXT:    %p1 = mapped.frag_extract %pa[0, 16] : !mapped.frag<16x32xf16, a, m16n8k16> -> !mapped.frag<16x16xf16, a, m16n8k16>
// CHECK-NEXT:    mapped.frag_store %l, %L[%c0, %c0] : !mapped.frag<16x1xf32, row, m16n8k16>, !mapped.buf<?x1xf32, global>
