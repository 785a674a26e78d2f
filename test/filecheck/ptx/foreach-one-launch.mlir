// A program over lists (`tilec.foreach`) whose host program is one launch: the kernel takes the
// table of the positions (addresses, sizes, first blocks, block -> position) and the number of
// positions instead of its buffers and sizes, reads position j = table[(K + 2) n + blockIdx.x]
// (K = 2 buffers), the size table[K n + j], the first block table[(K + 1) n + j] and the buffers'
// addresses table[k n + j]; the body runs as block blockIdx.x - first. Same algorithm for HIP.
// RUN: tilec-opt %s -p lower-to-ptx -t ptx | filecheck %s
// RUN: tilec-opt %s -p lower-to-hip -t hip | filecheck %s --check-prefix=HIP
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_80}' -t ptx -o %t.ptx && ptxas -arch=sm_80 %t.ptx -o %t.cubin
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_90a}' -t ptx -o %t90.ptx && ptxas -arch=sm_90a %t90.ptx -o %t90.cubin

// CHECK:      .visible .entry tilec_u_sgd_0_elementwise(
// CHECK-NEXT:   .param .u64 tilec_param_0,
// CHECK-NEXT:   .param .s64 tilec_param_1,
// CHECK-NEXT:   .param .f64 tilec_param_2
// CHECK-NEXT: )
// CHECK:        mov.u32 %[[BID:r[0-9]+]], %ctaid.x;
// CHECK:        ld.global.nc.b64 %{{rd[0-9]+}}, [%{{rd[0-9]+}}];
// CHECK:        ld.global.nc.b64
// CHECK:        ld.global.nc.b64
// CHECK:        sub.s32 %{{r[0-9]+}}, %[[BID]], %{{r[0-9]+}};
// CHECK:        ld.global.nc.b64
// CHECK:        ld.global.nc.b64
// CHECK-NOT:    ctaid
// CHECK:        ret;

// HIP: __global__ void __launch_bounds__(256) tilec_u_sgd_0_elementwise(int64_t* __restrict__ table, int64_t npos, double lr) {
// HIP:   int32_t [[BID:v_[0-9]+]] = (int32_t)blockIdx.x;
// HIP:   - (uint32_t)
// HIP-NOT: blockIdx

tile.func @sgd(%p: !tile.array<?xf32>, %g: !tile.array<?xf32>, %lr: f64) attributes {tilec.foreach} {
  %0 = tile.load %p : !tile.array<?xf32> -> !tile.tile<?xf32>
  %1 = tile.load %g : !tile.array<?xf32> -> !tile.tile<?xf32>
  %n = tile.dim %p 0 : !tile.array<?xf32>
  %2 = tile.splat %lr : f64 to !tile.tile<f64>
  %3 = tile.cast %2 : !tile.tile<f64> to !tile.tile<f32>
  %4 = tile.broadcast %3 sizes(%n) : !tile.tile<f32> to !tile.tile<?xf32>
  %5 = tile.mul %4, %1 : !tile.tile<?xf32>
  %6 = tile.sub %0, %5 : !tile.tile<?xf32>
  tile.store %6, %p : !tile.tile<?xf32>, !tile.array<?xf32>
  tile.return
}
