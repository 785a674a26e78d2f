// Softmax rows on the GPU: one block per row, 16-byte read-only loads, warp shuffles + shared scratch.
// RUN: tilec-opt %s -p lower-to-ptx -t ptx | filecheck %s
// RUN: tilec-opt %s -p lower-to-ptx -t ptx -o %t.ptx && ptxas -arch=sm_90 %t.ptx -o %t.cubin

// CHECK: .visible .entry tilec_u_softmax_0_rowwise(
// CHECK: .maxntid 256, 1, 1
// CHECK: .shared .align 16 .b8 tilec_u_tilec_reduce_scratch[256];  // @tilec_reduce_scratch
// CHECK: ld.global.nc.v4.b32
// CHECK: max.NaN.f32
// CHECK: shfl.sync.bfly.b32 %f{{[0-9]+}}, %f{{[0-9]+}}, 16, 31, 0xffffffff;
// CHECK: ex2.approx.f32
// CHECK: st.global.v4.b32
tile.func @softmax(%X: !tile.array<?x8192xf16>) outs(%Y: !tile.array<?x8192xf16>) {
  %x = tile.load %X : !tile.array<?x8192xf16> -> !tile.tile<?x8192xf16>
  %n = tile.dim %X 0 : !tile.array<?x8192xf16>
  %xf = tile.cast %x : !tile.tile<?x8192xf16> to !tile.tile<?x8192xf32>
  %m = tile.reduce max %xf [1] : !tile.tile<?x8192xf32> to !tile.tile<?xf32>
  %m1 = tile.reshape %m sizes(%n) : !tile.tile<?xf32> to !tile.tile<?x1xf32>
  %mb = tile.broadcast %m1 sizes(%n) : !tile.tile<?x1xf32> to !tile.tile<?x8192xf32>
  %d = tile.sub %xf, %mb : !tile.tile<?x8192xf32>
  %e = tile.exp %d : !tile.tile<?x8192xf32>
  %s = tile.reduce sum %e [1] : !tile.tile<?x8192xf32> to !tile.tile<?xf32>
  %s1 = tile.reshape %s sizes(%n) : !tile.tile<?xf32> to !tile.tile<?x1xf32>
  %sb = tile.broadcast %s1 sizes(%n) : !tile.tile<?x1xf32> to !tile.tile<?x8192xf32>
  %y = tile.div %e, %sb : !tile.tile<?x8192xf32>
  %yh = tile.cast %y : !tile.tile<?x8192xf32> to !tile.tile<?x8192xf16>
  tile.store %yh, %Y : !tile.tile<?x8192xf16>, !tile.array<?x8192xf16>
  tile.return
}
