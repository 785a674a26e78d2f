// The CUDA flash-attention kernel (issue 15): tile-fuse{attention=true attention_flash=true} (the
// CUDA backend's) makes softmax(q k^T * scale, causal) v of f16 q, k, v with its log-sum-exp ONE
// attention group; tile-to-mapped{target=cuda} makes it ONE kernel: Q staged once, K and V
// through a cp.async pipeline, each warp's scores, row maximum and sum, and probabilities in
// registers (frag_map / frag_reduce), the probabilities re-laid for the second MMA
// (frag_convert), the log-sum-exp stored from row fragments. The key loop stops at the block's
// diagonal (the causal bound). The same program in f32 keeps its plain groups.
// RUN: tilec-opt %s --split-input-file -p 'tile-fuse{attention=true attention_flash=true}' | filecheck %s --check-prefix=FUSE
// RUN: tilec-opt %s --split-input-file -p 'tile-fuse{attention=true attention_flash=true},tile-to-mapped{target=cuda}' | filecheck %s

// FUSE-LABEL: tile.func @attn
// FUSE:         tile.fused attention
// FUSE-NOT:     tile.fused

// CHECK-LABEL: mapped.kernel @attn_0_attention
// CHECK-SAME:    grid [2, 2, 1] block [128, 1, 1]
// CHECK:         mapped.async_copy %q
// CHECK:         %[[BOUND:.*]] = arith.minui
// CHECK:         mapped.pipeline %{{.*}} to %[[BOUND]] step %{{.*}} stages 2 iter_args
// CHECK:         mapped.async_copy %k
// CHECK:         mapped.async_copy %v
// CHECK:         mapped.mma
// CHECK:         mapped.frag_map
// CHECK:         mapped.frag_reduce max
// CHECK:         mapped.frag_reduce sum
// CHECK:         mapped.frag_convert {{.*}} -> !mapped.frag<16x64xf16, a, m16n8k16>
// CHECK:         mapped.frag_extract
// CHECK:         mapped.mma
// CHECK:         mapped.frag_store {{.*}} : !mapped.frag<16x1xf32, row, m16n8k16>, !mapped.buf<2x100x1xf32, global>
// CHECK:         mapped.frag_store {{.*}} : !mapped.frag<16x32xf32, acc, m16n8k16>, !mapped.buf<2x100x32xf16, global>
// CHECK-NOT:   mapped.kernel @attn_1

tile.func @attn(%q: !tile.array<2x100x32xf16>, %k: !tile.array<2x130x32xf16>, %v: !tile.array<2x130x32xf16>) outs(%out0: !tile.array<2x100x32xf16>, %out1: !tile.array<2x100xf32>) {
  %0 = tile.load %q : !tile.array<2x100x32xf16> -> !tile.tile<2x100x32xf16>
  %1 = tile.load %k : !tile.array<2x130x32xf16> -> !tile.tile<2x130x32xf16>
  %2 = tile.load %v : !tile.array<2x130x32xf16> -> !tile.tile<2x130x32xf16>
  %3 = tile.cast %0 : !tile.tile<2x100x32xf16> to !tile.tile<2x100x32xf32>
  %4 = tile.cast %1 : !tile.tile<2x130x32xf16> to !tile.tile<2x130x32xf32>
  %5 = tile.contract %3, %4 axes [[2, 2]] batch [[0, 0]] acc f32 : !tile.tile<2x100x32xf32>, !tile.tile<2x130x32xf32> -> !tile.tile<2x100x130xf32>
  %6 = tile.constant 1.250000e-01 : !tile.tile<2x100x130xf32>
  %7 = tile.mul %5, %6 : !tile.tile<2x100x130xf32>
  %8 = tile.iota 1 : !tile.tile<100x130xi64>
  %9 = tile.iota 0 : !tile.tile<100x130xi64>
  %10 = tile.cmp le %8, %9 : !tile.tile<100x130xi64>
  %11 = tile.broadcast %10 : !tile.tile<100x130xi1> to !tile.tile<2x100x130xi1>
  %12 = tile.constant 0xff800000 : !tile.tile<2x100x130xf32>
  %13 = tile.select %11, %7, %12 : !tile.tile<2x100x130xf32>
  %14 = tile.reduce max %13 [2] : !tile.tile<2x100x130xf32> to !tile.tile<2x100xf32>
  %15 = tile.reshape %14 : !tile.tile<2x100xf32> to !tile.tile<2x100x1xf32>
  %16 = tile.broadcast %15 : !tile.tile<2x100x1xf32> to !tile.tile<2x100x130xf32>
  %17 = tile.sub %13, %16 : !tile.tile<2x100x130xf32>
  %18 = tile.exp %17 : !tile.tile<2x100x130xf32>
  %19 = tile.reduce sum %18 [2] : !tile.tile<2x100x130xf32> to !tile.tile<2x100xf32>
  %20 = tile.reshape %19 : !tile.tile<2x100xf32> to !tile.tile<2x100x1xf32>
  %21 = tile.cast %2 : !tile.tile<2x130x32xf16> to !tile.tile<2x130x32xf32>
  %22 = tile.contract %18, %21 axes [[2, 1]] batch [[0, 0]] acc f32 : !tile.tile<2x100x130xf32>, !tile.tile<2x130x32xf32> -> !tile.tile<2x100x32xf32>
  %23 = tile.broadcast %20 : !tile.tile<2x100x1xf32> to !tile.tile<2x100x32xf32>
  %24 = tile.div %22, %23 : !tile.tile<2x100x32xf32>
  %25 = tile.log %20 : !tile.tile<2x100x1xf32>
  %26 = tile.add %15, %25 : !tile.tile<2x100x1xf32>
  %27 = tile.reshape %26 : !tile.tile<2x100x1xf32> to !tile.tile<2x100xf32>
  %28 = tile.cast %24 : !tile.tile<2x100x32xf32> to !tile.tile<2x100x32xf16>
  tile.store %28, %out0 : !tile.tile<2x100x32xf16>, !tile.array<2x100x32xf16>
  tile.store %27, %out1 : !tile.tile<2x100xf32>, !tile.array<2x100xf32>
  tile.return
}

// -----

// FUSE-LABEL: tile.func @attn_f32
// FUSE-COUNT-3: tile.fused
tile.func @attn_f32(%q: !tile.array<2x100x32xf32>, %k: !tile.array<2x130x32xf32>, %v: !tile.array<2x130x32xf32>) outs(%out0: !tile.array<2x100x32xf32>, %out1: !tile.array<2x100xf32>) {
  %0 = tile.load %q : !tile.array<2x100x32xf32> -> !tile.tile<2x100x32xf32>
  %1 = tile.load %k : !tile.array<2x130x32xf32> -> !tile.tile<2x130x32xf32>
  %2 = tile.load %v : !tile.array<2x130x32xf32> -> !tile.tile<2x130x32xf32>
  %3 = tile.contract %0, %1 axes [[2, 2]] batch [[0, 0]] acc f32 : !tile.tile<2x100x32xf32>, !tile.tile<2x130x32xf32> -> !tile.tile<2x100x130xf32>
  %4 = tile.constant 1.250000e-01 : !tile.tile<2x100x130xf32>
  %5 = tile.mul %3, %4 : !tile.tile<2x100x130xf32>
  %6 = tile.iota 1 : !tile.tile<100x130xi64>
  %7 = tile.iota 0 : !tile.tile<100x130xi64>
  %8 = tile.cmp le %6, %7 : !tile.tile<100x130xi64>
  %9 = tile.broadcast %8 : !tile.tile<100x130xi1> to !tile.tile<2x100x130xi1>
  %10 = tile.constant 0xff800000 : !tile.tile<2x100x130xf32>
  %11 = tile.select %9, %5, %10 : !tile.tile<2x100x130xf32>
  %12 = tile.reduce max %11 [2] : !tile.tile<2x100x130xf32> to !tile.tile<2x100xf32>
  %13 = tile.reshape %12 : !tile.tile<2x100xf32> to !tile.tile<2x100x1xf32>
  %14 = tile.broadcast %13 : !tile.tile<2x100x1xf32> to !tile.tile<2x100x130xf32>
  %15 = tile.sub %11, %14 : !tile.tile<2x100x130xf32>
  %16 = tile.exp %15 : !tile.tile<2x100x130xf32>
  %17 = tile.reduce sum %16 [2] : !tile.tile<2x100x130xf32> to !tile.tile<2x100xf32>
  %18 = tile.reshape %17 : !tile.tile<2x100xf32> to !tile.tile<2x100x1xf32>
  %19 = tile.contract %16, %2 axes [[2, 1]] batch [[0, 0]] acc f32 : !tile.tile<2x100x130xf32>, !tile.tile<2x130x32xf32> -> !tile.tile<2x100x32xf32>
  %20 = tile.broadcast %18 : !tile.tile<2x100x1xf32> to !tile.tile<2x100x32xf32>
  %21 = tile.div %19, %20 : !tile.tile<2x100x32xf32>
  %22 = tile.log %18 : !tile.tile<2x100x1xf32>
  %23 = tile.add %13, %22 : !tile.tile<2x100x1xf32>
  %24 = tile.reshape %23 : !tile.tile<2x100x1xf32> to !tile.tile<2x100xf32>
  tile.store %21, %out0 : !tile.tile<2x100x32xf32>, !tile.array<2x100x32xf32>
  tile.store %24, %out1 : !tile.tile<2x100xf32>, !tile.array<2x100xf32>
  tile.return
}
