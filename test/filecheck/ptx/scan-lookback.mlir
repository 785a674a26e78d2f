// The single-pass GPU scan of a long line (scan_gpu.py): each block takes a tile by ticket
// (`mapped.block_ticket`: an atomic add), reads it ONCE (four 16-byte vector loads per thread when
// the buffers are aligned and the tile is whole; guarded scalar loads otherwise), scans it
// (`mapped.scan`), gets its prefix from a decoupled look-back (`mapped.lookback`: relaxed loads
// of the predecessors' flag-and-value words in a spin loop, a relaxed store of its own) and
// writes its outputs ONCE: one kernel, one launch, the status words in a zeroed temporary.
// 64-bit values keep the flag in its own word: stores release it, loads acquire it.
// logcumsumexp scans (max, scaled sum) pairs in the block (`mapped.combine_scan`).
// RUN: tilec-opt %s -p 'tile-canonicalize,tile-fuse,tile-to-mapped{target=cuda}' | filecheck %s --check-prefix=MAPPED
// RUN: tilec-opt %s -p lower-to-ptx -t ptx | filecheck %s
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_80}' -t ptx -o %t.ptx && ptxas -arch=sm_80 %t.ptx -o %t.cubin
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_90a}' -t ptx -o %t90.ptx && ptxas -arch=sm_90a %t90.ptx -o %t90.cubin
// RUN: tilec-opt %s -p lower-to-hip -t hip | filecheck %s --check-prefix=HIP

// MAPPED-LABEL: mapped.kernel @cumsum_0_scan(
// MAPPED:         mapped.is_aligned %x 16
// MAPPED:         mapped.is_aligned %y 16
// MAPPED:         %[[T:.*]] = mapped.block_ticket %scan_status[
// MAPPED:         scf.if
// MAPPED-COUNT-4:   mapped.load %x[%{{.*}}] : !mapped.buf<?xf32, global> -> vector<4xf32>
// MAPPED:         } else {
// MAPPED:         mapped.scan sum %{{.*}} across block : f32
// MAPPED:         mapped.lookback %{{.*}}, %scan_status[%{{.*}}, %{{.*}}] tile %{{.*}} identity %{{.*}} : f32, !mapped.buf<1x?x1xi64, global> {
// MAPPED:           arith.addf
// MAPPED:           mapped.yield
// MAPPED-COUNT-4: mapped.store %{{.*}}, %y[%{{.*}}] : vector<4xf32>, !mapped.buf<?xf32, global>
// MAPPED-LABEL: mapped.host @cumsum
// MAPPED:         %scan_status = mapped.temp zeroed sizes(%{{.*}}) : !mapped.buf<1x?x1xi64, global>
// MAPPED-NEXT:    mapped.launch @cumsum_0_scan(
// MAPPED-NEXT:    mapped.return

// CHECK-LABEL: .entry tilec_u_cumsum_0_scan(
// CHECK:         atom.global.add.u64
// CHECK-NOT:     atom.global
// CHECK-COUNT-4: ld.global.nc.v4.f32
// CHECK-NOT:     ld.global.nc.v4
// CHECK:         st.relaxed.gpu.global.b64
// CHECK:       $L_while
// CHECK:         ld.relaxed.gpu.global.b64
// CHECK:         shfl.sync.bfly
// CHECK-COUNT-4: st.global.v4.f32
// CHECK-NOT:     ld.global.nc.v4
tile.func @cumsum(%x: !tile.array<?xf32>) outs(%y: !tile.array<?xf32>) {
  %0 = tile.load %x : !tile.array<?xf32> -> !tile.tile<?xf32>
  %1 = tile.scan add %0 axis 0 : !tile.tile<?xf32>
  tile.store %1, %y : !tile.tile<?xf32>, !tile.array<?xf32>
  tile.return
}

// MAPPED-LABEL: mapped.kernel @lse_0_scan(
// MAPPED:         mapped.combine_scan (%{{.*}}, %{{.*}}) identity (%{{.*}}, %{{.*}}) across block : f32, f32 {
// MAPPED:           math.exp
// MAPPED:         mapped.lookback
// MAPPED:           math.log1p
// CHECK-LABEL: .entry tilec_u_lse_0_scan(
// CHECK:         ex2.approx
// CHECK:         lg2.approx
tile.func @lse(%x: !tile.array<?xf32>) outs(%y: !tile.array<?xf32>) {
  %0 = tile.load %x : !tile.array<?xf32> -> !tile.tile<?xf32>
  %1 = tile.scan logaddexp %0 axis 0 : !tile.tile<?xf32>
  tile.store %1, %y : !tile.tile<?xf32>, !tile.array<?xf32>
  tile.return
}

// MAPPED-LABEL: mapped.kernel @prod64_0_scan(
// MAPPED:         mapped.lookback %{{.*}} : f64, !mapped.buf<1x?x3xi64, global>
// CHECK-LABEL: .entry tilec_u_prod64_0_scan(
// CHECK:         ld.global.nc.v2.f64
// CHECK:         st.release.gpu.global.b64
// CHECK:         ld.acquire.gpu.global.b64
// HIP-LABEL: tilec_u_cumsum_0_scan(
// HIP:         tilec_fetch_add((unsigned long long*)
// HIP:         for (;;) {
// HIP:           tilec_load_relaxed((unsigned long long*)
// HIP-LABEL: tilec_u_prod64_0_scan(
// HIP:         tilec_store_release((unsigned long long*)
// HIP:         tilec_load_acquire((unsigned long long*)
tile.func @prod64(%x: !tile.array<?xf64>) outs(%y: !tile.array<?xf64>) {
  %0 = tile.load %x : !tile.array<?xf64> -> !tile.tile<?xf64>
  %1 = tile.scan mul %0 axis 0 reverse : !tile.tile<?xf64>
  tile.store %1, %y : !tile.tile<?xf64>, !tile.array<?xf64>
  tile.return
}
