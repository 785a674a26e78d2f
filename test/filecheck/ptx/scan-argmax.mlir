// GPU lowering of scans and arg-reductions: a row scan (a dynamic number of rows) is one block per
// row, its tiles in a loop, each a block scan (`mapped.scan`: shuffles and a slot per warp; no
// global temporary); a long 1-d scan is ONE kernel in one pass, a tile per block with a decoupled
// look-back (ticket, status words in a zeroed temporary; scan-lookback.mlir has the details); max
// + argmax of the same rows is one kernel, one pass over each row (butterfly shuffles). ptxas accepts
// all of it for sm_80 and sm_90a; HIP and C emit too.
// RUN: tilec-opt %s -p 'tile-canonicalize,tile-fuse,tile-to-mapped{target=cuda}' | filecheck %s --check-prefix=MAPPED
// RUN: tilec-opt %s -p lower-to-ptx -t ptx | filecheck %s
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_80}' -t ptx -o %t.ptx && ptxas -arch=sm_80 %t.ptx -o %t.cubin
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_90a}' -t ptx -o %t90.ptx && ptxas -arch=sm_90a %t90.ptx -o %t90.cubin
// RUN: tilec-opt %s -p lower-to-hip -t hip | filecheck %s --check-prefix=HIP
// RUN: tilec-opt %s -p lower-to-c -t c | filecheck %s --check-prefix=C

// On the CPU: rows in parallel, each a sequential loop; max + argmax: two simd reductions.
// C-LABEL: static void tilec_u_rows_0_scan(float* restrict y,
// C:         #pragma omp parallel for
// C-LABEL: static void tilec_u_top_0_rowwise(float* restrict m,
// C:         #pragma omp parallel for
// C:         #pragma omp simd reduction(max:{{.*}}) reduction(|:{{.*}})
// C:         #pragma omp simd reduction(min:

// MAPPED-LABEL: mapped.kernel @rows_0_scan(
// MAPPED:         mapped.scan sum %{{.*}} across block : f32
// MAPPED-LABEL: mapped.host @rows
// MAPPED-NOT:     mapped.temp
// MAPPED:         mapped.launch @rows_0_scan
tile.func @rows(%x: !tile.array<?x?xf32>) outs(%y: !tile.array<?x?xf32>) {
  %0 = tile.load %x : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %1 = tile.scan add %0 axis 1 : !tile.tile<?x?xf32>
  tile.store %1, %y : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.return
}

// MAPPED-LABEL: mapped.kernel @long_0_scan(
// MAPPED:         mapped.block_ticket
// MAPPED:         mapped.scan sum %{{.*}} across block : f32
// MAPPED:         mapped.lookback
// MAPPED-LABEL: mapped.host @long
// MAPPED:         mapped.temp zeroed
// MAPPED-NEXT:    mapped.launch @long_0_scan(
// MAPPED-NEXT:    mapped.return
tile.func @long(%x: !tile.array<?xf32>) outs(%y: !tile.array<?xf32>) {
  %0 = tile.load %x : !tile.array<?xf32> -> !tile.tile<?xf32>
  %1 = tile.scan add %0 axis 0 : !tile.tile<?xf32>
  tile.store %1, %y : !tile.tile<?xf32>, !tile.array<?xf32>
  tile.return
}

// CHECK-LABEL: .entry tilec_u_rows_0_scan(
// CHECK-COUNT-5: shfl.sync.bfly
// max + argmax: ONE pass over the row (four 16-byte vector loads per step when the buffer is
// aligned and 4 divides the row: a check in the kernel; else scalar loads), then a block max of
// the 64-bit (value, index) key (two 32-bit shuffles per step) and one of the winner's value.
// CHECK-LABEL: .entry tilec_u_top_0_rowwise(
// CHECK-COUNT-4: ld.global.nc.v4.f32
// CHECK-NOT:     ld.global.nc.v4
// CHECK-COUNT-4: ld.global.nc.f32
// CHECK-NOT:     ld.global
// CHECK:         shfl.sync.bfly
// CHECK:         max.s64
// CHECK:         max.NaN.f32
// CHECK-NOT:   .entry
// HIP: __global__ void __launch_bounds__({{[0-9]+}}) tilec_u_top_0_rowwise(
// HIP: __shfl_xor(
tile.func @top(%x: !tile.array<?x?xf32>) outs(%m: !tile.array<?xf32>, %i: !tile.array<?xi64>) {
  %0 = tile.load %x : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %1 = tile.reduce max %0 [1] : !tile.tile<?x?xf32> to !tile.tile<?xf32>
  %2 = tile.reduce argmax %0 [1] : !tile.tile<?x?xf32> to !tile.tile<?xi64>
  tile.store %1, %m : !tile.tile<?xf32>, !tile.array<?xf32>
  tile.store %2, %i : !tile.tile<?xi64>, !tile.array<?xi64>
  tile.return
}
