// An elementwise group through lower-to-hip: 256-thread blocks (whole 64-lane waves), 16-byte
// vector accesses (`global_load ... vector<4xf32>` is one global_load_dwordx4), math from the
// device library; the pointers stay `char*` derived from the __restrict__ parameters.
// RUN: tilec-opt %s -p lower-to-hip | filecheck %s --check-prefix=HW
// RUN: tilec-opt %s -p lower-to-hip -t hip | filecheck %s
// RUN: tilec-opt %s -p lower-to-hip -t hip -o %t.hip && grep -c "__global__" %t.hip | filecheck %s --check-prefix=ONE

// HW: hw.amd.kernel @f_0_elementwise(%Y: !hw.ptr<global, f32>, %X: !hw.ptr<global, f32>, %Z: !hw.ptr<global, f32>) arch "gfx90a" wave 64 launch_bounds 256 {
// HW: hw.amd.workgroup_id x : i32
// HW: hw.amd.workitem_id x : i32
// HW: hw.amd.global_load %{{.*}} : i64 -> vector<4xf32>
// HW: math.exp %{{.*}} : f32
// HW: hw.amd.global_store %{{.*}}, %{{.*}} : i64, vector<4xf32>
// CHECK: TILEC_VECTOR(float, 4, tilec_f32x4)
// CHECK: extern "C" __global__ void __launch_bounds__(256) tilec_u_f_0_elementwise(float* __restrict__ Y, float* __restrict__ X, float* __restrict__ Z) {
// CHECK: char* Y_addr = (char*)Y;
// CHECK: int32_t {{.*}} = (int32_t)blockIdx.x;
// CHECK: = *(const tilec_f32x4*)
// CHECK: = expf(
// CHECK: = tilec_maximum(
// CHECK: *(tilec_f32x4*)
// ONE: 1
tile.func @f(%X: !tile.array<64x1024xf32>, %Z: !tile.array<64x1024xf32>) outs(%Y: !tile.array<64x1024xf32>) {
  %x = tile.load %X : !tile.array<64x1024xf32> -> !tile.tile<64x1024xf32>
  %z = tile.load %Z : !tile.array<64x1024xf32> -> !tile.tile<64x1024xf32>
  %e = tile.exp %x : !tile.tile<64x1024xf32>
  %m = tile.max %e, %z : !tile.tile<64x1024xf32>
  tile.store %m, %Y : !tile.tile<64x1024xf32>, !tile.array<64x1024xf32>
  tile.return
}
