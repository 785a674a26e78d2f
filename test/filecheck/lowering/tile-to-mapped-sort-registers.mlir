// GPU sorts / top-k of short static rows in registers (tile-to-mapped, order_gpu.py): a group of
// lanes per row, i64 keys (order bits << 32 | position << 1 | -0.0), no shared memory, no barrier.
// The MoE gating shape (256 experts, top-8 of a softmax): 32 lanes x 8 keys, the softmax's max and
// sum as xor butterflies over the 32 lanes, then 8 rounds of a butterfly minimum over i64 keys.
// A 1024-long argsort: the bitonic network, 32 keys per lane, distances >= 32 across lanes.
// The options move the choice: sort-lanes, topk-method, sort-registers (0: shared memory).
// RUN: tilec-opt %s -p 'tile-canonicalize,tile-fuse,tile-to-mapped{target=cuda}' | filecheck %s
// RUN: tilec-opt %s -p 'tile-canonicalize,tile-fuse,tile-to-mapped{target=cuda sort-lanes=8 topk-method=sort}' | filecheck %s --check-prefix=OPT
// RUN: tilec-opt %s -p 'tile-canonicalize,tile-fuse,tile-to-mapped{target=cuda sort-registers=0}' | filecheck %s --check-prefix=SHARED
// RUN: tilec-opt %s -p 'tile-canonicalize,tile-fuse,tile-to-mapped{target=hip}' | filecheck %s --check-prefix=HIP
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_80}' -t ptx -o %t80.ptx && ptxas -arch=sm_80 %t80.ptx -o %t80.cubin
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_90a}' -t ptx -o %t90.ptx && ptxas -arch=sm_90a %t90.ptx -o %t90.cubin

// CHECK-LABEL: mapped.kernel @gate_0_sort(
// CHECK-SAME:    grid [2, 1, 1] block [128, 1, 1] smem 0
// CHECK-SAME:    tilec.order = "registers rounds: row 256 padded to 256, 32 lanes x 8 keys, 4 rows per block"
// CHECK-NOT:     mapped.alloc
// CHECK:         mapped.load %{{.*}} -> vector<4xf32>
// CHECK:         mapped.shuffle_xor %{{.*}}, 16 : f32
// CHECK:         mapped.shuffle_xor %{{.*}}, 1 : f32
// CHECK:         math.exp
// CHECK:         mapped.shuffle_xor %{{.*}}, 16 : f32
// CHECK-COUNT-8: mapped.shuffle_xor %{{.*}}, 1 : i64
// CHECK-NOT:     mapped.barrier
// CHECK:         mapped.return
// OPT-LABEL:   mapped.kernel @gate_0_sort(
// OPT-SAME:      tilec.order = "registers bitonic: row 256 padded to 256, 8 lanes x 32 keys, 16 rows per block"
// OPT-NOT:       mapped.shuffle_xor %{{.*}}, 16
// SHARED-LABEL: mapped.kernel @gate_0_sort(
// SHARED-NOT:    tilec.order
// SHARED:        mapped.alloc : !mapped.buf<256xf32, shared>
// SHARED:        mapped.barrier
// HIP-LABEL:   mapped.kernel @gate_0_sort(
// HIP-SAME:      block [256, 1, 1] wave 64
// HIP-SAME:      tilec.order = "registers rounds: row 256 padded to 256, 32 lanes x 8 keys, 8 rows per block"
tile.func @gate(%x: !tile.array<6x256xf32>) outs(%v: !tile.array<6x8xf32>, %i: !tile.array<6x8xi64>) {
  %0 = tile.load %x : !tile.array<6x256xf32> -> !tile.tile<6x256xf32>
  %1 = tile.reduce max %0 [1] : !tile.tile<6x256xf32> to !tile.tile<6xf32>
  %2 = tile.reshape %1 : !tile.tile<6xf32> to !tile.tile<6x1xf32>
  %3 = tile.broadcast %2 : !tile.tile<6x1xf32> to !tile.tile<6x256xf32>
  %4 = tile.sub %0, %3 : !tile.tile<6x256xf32>
  %5 = tile.exp %4 : !tile.tile<6x256xf32>
  %6 = tile.reduce sum %5 [1] : !tile.tile<6x256xf32> to !tile.tile<6xf32>
  %7 = tile.reshape %6 : !tile.tile<6xf32> to !tile.tile<6x1xf32>
  %8 = tile.broadcast %7 : !tile.tile<6x1xf32> to !tile.tile<6x256xf32>
  %9 = tile.div %5, %8 : !tile.tile<6x256xf32>
  %tv, %ti = tile.topk %9 k 8 axis 1 : !tile.tile<6x256xf32> -> !tile.tile<6x8xf32>, !tile.tile<6x8xi64>
  tile.store %tv, %v : !tile.tile<6x8xf32>, !tile.array<6x8xf32>
  tile.store %ti, %i : !tile.tile<6x8xi64>, !tile.array<6x8xi64>
  tile.return
}

// CHECK-LABEL: mapped.kernel @rows_0_sort(
// CHECK-SAME:    tilec.order = "registers bitonic: row 1024 padded to 1024, 32 lanes x 32 keys, 4 rows per block"
// CHECK-NOT:     mapped.alloc
// CHECK-COUNT-32: mapped.shuffle_xor %{{.*}}, 1 : i64
// CHECK:         mapped.shuffle_xor %{{.*}}, 16 : i64
// CHECK-NOT:     mapped.barrier
// CHECK:         mapped.store %{{.*}} : vector<2xi64>, !mapped.buf<?x1024xi64, global>
// OPT-LABEL:   mapped.kernel @rows_0_sort(
// OPT-SAME:      tilec.order = "registers bitonic: row 1024 padded to 1024, 32 lanes x 32 keys, 4 rows per block"
// SHARED-LABEL: mapped.kernel @rows_0_sort(
// SHARED:        mapped.alloc : !mapped.buf<1024xf32, shared>
tile.func @rows(%x: !tile.array<?x1024xf32>) outs(%i: !tile.array<?x1024xi64>) {
  %0 = tile.load %x : !tile.array<?x1024xf32> -> !tile.tile<?x1024xf32>
  %v, %k = tile.sort %0 axis 1 : !tile.tile<?x1024xf32> -> !tile.tile<?x1024xf32>, !tile.tile<?x1024xi64>
  tile.store %k, %i : !tile.tile<?x1024xi64>, !tile.array<?x1024xi64>
  tile.return
}

// 16-bit values make i32 keys (16 order bits << 16 | position << 1 | -0.0): one 32-bit shuffle a step.
// CHECK-LABEL: mapped.kernel @half_0_sort(
// CHECK-SAME:    tilec.order = "registers rounds: row 100 padded to 128, 16 lanes x 8 keys, 8 rows per block"
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
// CHECK-COUNT-4: mapped.shuffle_xor %{{.*}} : i32
// CHECK-NOT:     mapped.shuffle_xor %{{.*}} : i64
// CHECK:         mapped.return
tile.func @half(%x: !tile.array<?x100xbf16>) outs(%v: !tile.array<?x4xbf16>, %i: !tile.array<?x4xi64>) {
  %0 = tile.load %x : !tile.array<?x100xbf16> -> !tile.tile<?x100xbf16>
  %tv, %ti = tile.topk %0 k 4 axis 1 : !tile.tile<?x100xbf16> -> !tile.tile<?x4xbf16>, !tile.tile<?x4xi64>
  tile.store %tv, %v : !tile.tile<?x4xbf16>, !tile.array<?x4xbf16>
  tile.store %ti, %i : !tile.tile<?x4xi64>, !tile.array<?x4xi64>
  tile.return
}

// Rows padded past sort-registers (1031 -> 2048) and 64-bit keys stay in shared memory.
// CHECK-LABEL: mapped.kernel @long_0_sort(
// CHECK-NOT:     tilec.order
// CHECK:         mapped.alloc : !mapped.buf<2048xf32, shared>
tile.func @long(%x: !tile.array<?x1031xf32>) outs(%o: !tile.array<?x1031xf32>) {
  %0 = tile.load %x : !tile.array<?x1031xf32> -> !tile.tile<?x1031xf32>
  %v, %k = tile.sort %0 axis 1 : !tile.tile<?x1031xf32> -> !tile.tile<?x1031xf32>, !tile.tile<?x1031xi64>
  tile.store %v, %o : !tile.tile<?x1031xf32>, !tile.array<?x1031xf32>
  tile.return
}

// CHECK-LABEL: mapped.kernel @wide_0_sort(
// CHECK-NOT:     tilec.order
// CHECK:         mapped.barrier
tile.func @wide(%y: !tile.array<?x64xf64>) outs(%p: !tile.array<?x64xf64>) {
  %1 = tile.load %y : !tile.array<?x64xf64> -> !tile.tile<?x64xf64>
  %w, %j = tile.sort %1 axis 1 : !tile.tile<?x64xf64> -> !tile.tile<?x64xf64>, !tile.tile<?x64xi64>
  tile.store %w, %p : !tile.tile<?x64xf64>, !tile.array<?x64xf64>
  tile.return
}
