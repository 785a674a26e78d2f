// mapped-to-hw-amd on hand-written mapped IR: a block reduction over 64-lane waves, a synchronous
// global -> LDS copy (async copies become synchronous: gfx90a has no async global->LDS copy), and
// the index narrowing to 32 bits.
// RUN: tilec-opt %s -p mapped-to-hw-amd | filecheck %s
// RUN: tilec-opt %s -p mapped-to-hw-amd -t hip | filecheck %s --check-prefix=HIP

// CHECK: hw.amd.kernel @rowsum(%X: !hw.ptr<global, f32>, %X_d0: i64, %S: !hw.ptr<global, f32>, %S_d0: i64) arch "gfx90a" wave 64 launch_bounds 128 {
// CHECK-NEXT: hw.amd.lds @tilec_lds0 512 align 16
// CHECK-NEXT: hw.amd.lds @tilec_reduce_scratch 256 align 16
// CHECK: %X_addr = hw.ptr_to_int %X : !hw.ptr<global, f32> -> i64
// CHECK: hw.amd.global_load %{{.*}} : i64 -> vector<4xf32>
// CHECK: hw.amd.lds_store %{{.*}}, %{{.*}} : i32, vector<4xf32>
// CHECK-NOT: async
// CHECK: hw.amd.barrier
// CHECK: hw.amd.shfl_xor %{{.*}}, 32 : f32
// CHECK: hw.amd.shfl_xor %{{.*}}, 16 : f32
// CHECK: hw.amd.shfl_xor %{{.*}}, 8 : f32
// CHECK: hw.amd.shfl_xor %{{.*}}, 4 : f32
// CHECK: hw.amd.shfl_xor %{{.*}}, 2 : f32
// CHECK: hw.amd.shfl_xor %{{.*}}, 1 : f32
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %{{.*}} : i32
// CHECK: scf.if
// CHECK: hw.amd.lds_store
// CHECK: hw.amd.barrier
// CHECK: arith.cmpi ult, %[[LANE]], %{{.*}} : i32
// CHECK: hw.amd.lds_load %{{.*}} : i32 -> f32
// CHECK: hw.amd.shfl_xor %{{.*}}, 32 : f32
// CHECK: hw.amd.barrier
// CHECK: hw.amd.global_store %{{.*}}, %{{.*}} : i64, f32
// CHECK: hw.amd.return

// HIP: extern "C" __global__ void __launch_bounds__(128) tilec_u_rowsum(float* __restrict__ X, int64_t X_d0, float* __restrict__ S, int64_t S_d0) {
// HIP-NEXT: __shared__ __attribute__((aligned(16))) char tilec_lds[768];
// HIP: char* X_addr = (char*)X;
// HIP: *(const tilec_f32x4*)
// HIP: __shfl_xor({{.*}}, 32, 64);
mapped.kernel @rowsum(%X: !mapped.buf<?x128xf32, global>, %S: !mapped.buf<?xf32, global>) target gpu grid [cdiv(%X:0, 1), 1, 1] block [128, 1, 1] wave 64 smem 512 {
  %c0 = arith.constant 0 : index
  %row = mapped.block_id x
  %t = mapped.thread_id x
  %sX = mapped.alloc : !mapped.buf<1x128xf32, shared>
  mapped.async_copy %X[%row, %c0] -> %sX[%c0, %c0] shape [1, 128] : !mapped.buf<?x128xf32, global>, !mapped.buf<1x128xf32, shared>
  mapped.async_commit
  mapped.async_wait 0
  mapped.barrier
  %x = mapped.load %sX[%c0, %t] : !mapped.buf<1x128xf32, shared> -> f32
  %s = mapped.reduce sum %x across block : f32
  %zero = arith.cmpi eq, %t, %c0 : index
  scf.if %zero {
    mapped.store %s, %S[%row] : f32, !mapped.buf<?xf32, global>
  }
  mapped.return
}
