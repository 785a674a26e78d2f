// tile-fuse with attention=true (the CPU backend's): softmax(q k^T * scale, causal) v with the
// log-sum-exp beside it is ONE `attention` group (issue 15); without it (GPU backends), the same
// program is a contraction, rowwise and contraction groups. The C target computes the group in
// one kernel with an online softmax: no 5x7 scores buffer.
// RUN: tilec-opt %s --split-input-file -p tile-fuse{attention=true} | filecheck %s
// RUN: tilec-opt %s --split-input-file -p tile-fuse{attention=true} | tilec-opt --split-input-file -p tile-fuse{attention=true} | filecheck %s
// RUN: tilec-opt %s --split-input-file -p tile-fuse | filecheck %s --check-prefix=PLAIN
// RUN: tilec-opt %s --split-input-file -p lower-to-c -t c | filecheck %s --check-prefix=C

// CHECK-LABEL: tile.func @attn
// CHECK:         %[[O:.*]], %[[L:.*]] = tile.fused attention
// CHECK:           tile.contract {{.*}} axes {{\[\[}}2, 2]] batch {{\[\[}}0, 0]]
// CHECK:           tile.iota
// CHECK:           tile.select
// CHECK:           tile.reduce max
// CHECK:           tile.exp
// CHECK:           tile.reduce sum
// CHECK:           tile.contract {{.*}} axes {{\[\[}}2, 1]] batch {{\[\[}}0, 0]]
// CHECK:           tile.div
// CHECK:           tile.log
// CHECK:           tile.yield
// CHECK-NOT:     tile.fused
// CHECK:         tile.store %[[O]], %out
// CHECK:         tile.store %[[L]], %lse
// PLAIN-LABEL: tile.func @attn
// PLAIN:         tile.fused contraction
// PLAIN:         tile.fused rowwise
// PLAIN:         tile.fused contraction
// PLAIN-NOT:     tile.fused attention
// C-LABEL:     tilec_u_attn_0_attention(
// C:             tilec_expf
// C-NOT:       tilec_u_attn_1_
tile.func @attn(%q: !tile.array<2x5x8xf32>, %k: !tile.array<2x7x8xf32>, %v: !tile.array<2x7x3xf32>) outs(%out: !tile.array<2x5x3xf32>, %lse: !tile.array<2x5xf32>) {
  %0 = tile.load %q : !tile.array<2x5x8xf32> -> !tile.tile<2x5x8xf32>
  %1 = tile.load %k : !tile.array<2x7x8xf32> -> !tile.tile<2x7x8xf32>
  %2 = tile.load %v : !tile.array<2x7x3xf32> -> !tile.tile<2x7x3xf32>
  %3 = tile.contract %0, %1 axes [[2, 2]] batch [[0, 0]] acc f32 : !tile.tile<2x5x8xf32>, !tile.tile<2x7x8xf32> -> !tile.tile<2x5x7xf32>
  %4 = tile.constant 3.5e-01 : !tile.tile<2x5x7xf32>
  %5 = tile.mul %3, %4 : !tile.tile<2x5x7xf32>
  %6 = tile.iota 1 : !tile.tile<5x7xi64>
  %7 = tile.iota 0 : !tile.tile<5x7xi64>
  %8 = tile.cmp le %6, %7 : !tile.tile<5x7xi64>
  %9 = tile.broadcast %8 : !tile.tile<5x7xi1> to !tile.tile<2x5x7xi1>
  %10 = tile.constant 0xff800000 : !tile.tile<2x5x7xf32>
  %11 = tile.select %9, %5, %10 : !tile.tile<2x5x7xf32>
  %12 = tile.reduce max %11 [2] : !tile.tile<2x5x7xf32> to !tile.tile<2x5xf32>
  %13 = tile.reshape %12 : !tile.tile<2x5xf32> to !tile.tile<2x5x1xf32>
  %14 = tile.broadcast %13 : !tile.tile<2x5x1xf32> to !tile.tile<2x5x7xf32>
  %15 = tile.sub %11, %14 : !tile.tile<2x5x7xf32>
  %16 = tile.exp %15 : !tile.tile<2x5x7xf32>
  %17 = tile.reduce sum %16 [2] : !tile.tile<2x5x7xf32> to !tile.tile<2x5xf32>
  %18 = tile.reshape %17 : !tile.tile<2x5xf32> to !tile.tile<2x5x1xf32>
  %19 = tile.contract %16, %2 axes [[2, 1]] batch [[0, 0]] acc f32 : !tile.tile<2x5x7xf32>, !tile.tile<2x7x3xf32> -> !tile.tile<2x5x3xf32>
  %20 = tile.broadcast %18 : !tile.tile<2x5x1xf32> to !tile.tile<2x5x3xf32>
  %21 = tile.div %19, %20 : !tile.tile<2x5x3xf32>
  %22 = tile.log %18 : !tile.tile<2x5x1xf32>
  %23 = tile.add %13, %22 : !tile.tile<2x5x1xf32>
  %24 = tile.reshape %23 : !tile.tile<2x5x1xf32> to !tile.tile<2x5xf32>
  tile.store %21, %out : !tile.tile<2x5x3xf32>, !tile.array<2x5x3xf32>
  tile.store %24, %lse : !tile.tile<2x5xf32>, !tile.array<2x5xf32>
  tile.return
}

// -----

// The probabilities are also returned: an S-sized value leaves the pattern, so no attention group.
// CHECK-LABEL: tile.func @probs_escape
// CHECK-NOT:     tile.fused attention
// CHECK:         tile.fused contraction
// CHECK-NOT:     tile.fused attention
// C-LABEL:     tilec_u_probs_escape_0_contraction(
tile.func @probs_escape(%q: !tile.array<4x8xf32>, %k: !tile.array<6x8xf32>, %v: !tile.array<6x3xf32>) outs(%out: !tile.array<4x3xf32>, %p: !tile.array<4x6xf32>) {
  %0 = tile.load %q : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
  %1 = tile.load %k : !tile.array<6x8xf32> -> !tile.tile<6x8xf32>
  %2 = tile.load %v : !tile.array<6x3xf32> -> !tile.tile<6x3xf32>
  %3 = tile.contract %0, %1 axes [[1, 1]] acc f32 : !tile.tile<4x8xf32>, !tile.tile<6x8xf32> -> !tile.tile<4x6xf32>
  %4 = tile.reduce max %3 [1] : !tile.tile<4x6xf32> to !tile.tile<4xf32>
  %5 = tile.reshape %4 : !tile.tile<4xf32> to !tile.tile<4x1xf32>
  %6 = tile.broadcast %5 : !tile.tile<4x1xf32> to !tile.tile<4x6xf32>
  %7 = tile.sub %3, %6 : !tile.tile<4x6xf32>
  %8 = tile.exp %7 : !tile.tile<4x6xf32>
  %9 = tile.reduce sum %8 [1] : !tile.tile<4x6xf32> to !tile.tile<4xf32>
  %10 = tile.reshape %9 : !tile.tile<4xf32> to !tile.tile<4x1xf32>
  %11 = tile.broadcast %10 : !tile.tile<4x1xf32> to !tile.tile<4x6xf32>
  %12 = tile.div %8, %11 : !tile.tile<4x6xf32>
  %13 = tile.contract %12, %2 axes [[1, 0]] acc f32 : !tile.tile<4x6xf32>, !tile.tile<6x3xf32> -> !tile.tile<4x3xf32>
  tile.store %13, %out : !tile.tile<4x3xf32>, !tile.array<4x3xf32>
  tile.store %12, %p : !tile.tile<4x6xf32>, !tile.array<4x6xf32>
  tile.return
}

// -----

// Attention's backward (tilec.library.attention.attention_backward, causal): delta = rowsum(g * out)
// is a rowwise group; dq is a `stream` group walking the keys of each query, dk and dv one
// walking the queries of each key; each re-computes q k^T, p = exp(s - lse) and ds (the values
// both streams read are cloned for the second one): no 5x7 value in memory.
// CHECK-LABEL: tile.func @bwd
// CHECK:         tile.fused rowwise
// CHECK:           tile.reduce sum
// CHECK:         %[[DQ:.*]] = tile.fused stream
// CHECK:           tile.contract {{.*}} axes {{\[\[}}2, 2]] batch
// CHECK:           tile.exp
// CHECK:           tile.contract {{.*}} axes {{\[\[}}2, 2]] batch
// CHECK:           tile.contract {{.*}} axes {{\[\[}}2, 1]] batch
// CHECK:           tile.yield
// CHECK:         %[[DV:.*]], %[[DK:.*]] = tile.fused stream
// CHECK:           tile.contract {{.*}} axes {{\[\[}}1, 1]] batch
// CHECK:           tile.contract {{.*}} axes {{\[\[}}1, 1]] batch
// CHECK:           tile.yield
// CHECK-NOT:     tile.fused
// CHECK:         tile.store %[[DQ]], %out0
// CHECK:         tile.store %[[DK]], %out1
// CHECK:         tile.store %[[DV]], %out2
// C-LABEL:     tilec_u_bwd_0_rowwise(
// C:           tilec_u_bwd_1_stream(
// C:           tilec_u_bwd_2_stream(
// C-NOT:       tilec_u_bwd_3_
tile.func @bwd(%g: !tile.array<2x5x3xf32>, %q: !tile.array<2x5x8xf32>, %k: !tile.array<2x7x8xf32>, %v: !tile.array<2x7x3xf32>, %out: !tile.array<2x5x3xf32>, %lse: !tile.array<2x5xf32>) outs(%out0: !tile.array<2x5x8xf32>, %out1: !tile.array<2x7x8xf32>, %out2: !tile.array<2x7x3xf32>) {
  %0 = tile.load %g : !tile.array<2x5x3xf32> -> !tile.tile<2x5x3xf32>
  %1 = tile.load %q : !tile.array<2x5x8xf32> -> !tile.tile<2x5x8xf32>
  %2 = tile.load %k : !tile.array<2x7x8xf32> -> !tile.tile<2x7x8xf32>
  %3 = tile.load %v : !tile.array<2x7x3xf32> -> !tile.tile<2x7x3xf32>
  %4 = tile.load %out : !tile.array<2x5x3xf32> -> !tile.tile<2x5x3xf32>
  %5 = tile.load %lse : !tile.array<2x5xf32> -> !tile.tile<2x5xf32>
  %6 = tile.contract %1, %2 axes [[2, 2]] batch [[0, 0]] acc f32 : !tile.tile<2x5x8xf32>, !tile.tile<2x7x8xf32> -> !tile.tile<2x5x7xf32>
  %7 = tile.constant 3.000000e-01 : !tile.tile<2x5x7xf32>
  %8 = tile.mul %6, %7 : !tile.tile<2x5x7xf32>
  %9 = tile.iota 1 : !tile.tile<5x7xi64>
  %10 = tile.iota 0 : !tile.tile<5x7xi64>
  %11 = tile.cmp le %9, %10 : !tile.tile<5x7xi64>
  %12 = tile.broadcast %11 : !tile.tile<5x7xi1> to !tile.tile<2x5x7xi1>
  %13 = tile.constant 0xff800000 : !tile.tile<2x5x7xf32>
  %14 = tile.select %12, %8, %13 : !tile.tile<2x5x7xf32>
  %15 = tile.reshape %5 : !tile.tile<2x5xf32> to !tile.tile<2x5x1xf32>
  %16 = tile.broadcast %15 : !tile.tile<2x5x1xf32> to !tile.tile<2x5x7xf32>
  %17 = tile.sub %14, %16 : !tile.tile<2x5x7xf32>
  %18 = tile.exp %17 : !tile.tile<2x5x7xf32>
  %19 = tile.contract %18, %0 axes [[1, 1]] batch [[0, 0]] acc f32 : !tile.tile<2x5x7xf32>, !tile.tile<2x5x3xf32> -> !tile.tile<2x7x3xf32>
  %20 = tile.contract %0, %3 axes [[2, 2]] batch [[0, 0]] acc f32 : !tile.tile<2x5x3xf32>, !tile.tile<2x7x3xf32> -> !tile.tile<2x5x7xf32>
  %21 = tile.mul %0, %4 : !tile.tile<2x5x3xf32>
  %22 = tile.reduce sum %21 [2] : !tile.tile<2x5x3xf32> to !tile.tile<2x5xf32>
  %23 = tile.reshape %22 : !tile.tile<2x5xf32> to !tile.tile<2x5x1xf32>
  %24 = tile.broadcast %23 : !tile.tile<2x5x1xf32> to !tile.tile<2x5x7xf32>
  %25 = tile.sub %20, %24 : !tile.tile<2x5x7xf32>
  %26 = tile.mul %18, %25 : !tile.tile<2x5x7xf32>
  %27 = tile.contract %26, %2 axes [[2, 1]] batch [[0, 0]] acc f32 : !tile.tile<2x5x7xf32>, !tile.tile<2x7x8xf32> -> !tile.tile<2x5x8xf32>
  %28 = tile.constant 3.000000e-01 : !tile.tile<2x5x8xf32>
  %29 = tile.mul %27, %28 : !tile.tile<2x5x8xf32>
  %30 = tile.contract %26, %1 axes [[1, 1]] batch [[0, 0]] acc f32 : !tile.tile<2x5x7xf32>, !tile.tile<2x5x8xf32> -> !tile.tile<2x7x8xf32>
  %31 = tile.constant 3.000000e-01 : !tile.tile<2x7x8xf32>
  %32 = tile.mul %30, %31 : !tile.tile<2x7x8xf32>
  tile.store %29, %out0 : !tile.tile<2x5x8xf32>, !tile.array<2x5x8xf32>
  tile.store %32, %out1 : !tile.tile<2x7x8xf32>, !tile.array<2x7x8xf32>
  tile.store %19, %out2 : !tile.tile<2x7x3xf32>, !tile.array<2x7x3xf32>
  tile.return
}
