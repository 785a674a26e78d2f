// A GPU scatter_add (embedding backward with repeated ids): by default two kernels, the copy of
// the source into the output, then one thread per update element adding it with red.global.add
// at its target (an out-of-range index sets the status word and adds nothing); with
// deterministic=true one kernel, one thread per column, the updates added in index order.
// RUN: tilec-opt %s -p 'tile-canonicalize,tile-fuse,tile-to-mapped{target=cuda}' | filecheck %s --check-prefix=MAPPED
// RUN: tilec-opt %s -p lower-to-ptx -t ptx | filecheck %s
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_80}' -t ptx -o %t.ptx && ptxas -arch=sm_80 %t.ptx -o %t.cubin
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_90a}' -t ptx -o %t90.ptx && ptxas -arch=sm_90a %t90.ptx -o %t90.cubin
// RUN: tilec-opt %s -p 'lower-to-ptx{deterministic=true}' -t ptx | filecheck %s --check-prefix=DET
// RUN: tilec-opt %s -p 'lower-to-hip' -t hip | filecheck %s --check-prefix=HIP
// RUN: tilec-opt %s -p 'lower-to-hip{deterministic=true}' -t hip | filecheck %s --check-prefix=HIPDET

// MAPPED-LABEL: mapped.kernel @index_add_0_scatter_copy(%out: !mapped.buf<5x3xf32, global>, %w: !mapped.buf<5x3xf32, global>)
// MAPPED:         mapped.store %{{.*}}, %out[%{{.*}}, %{{.*}}] : f32, !mapped.buf<5x3xf32, global>
// MAPPED-LABEL: mapped.kernel @index_add_0_scatter(
// MAPPED:         arith.cmpi uge, %{{.*}}, %{{.*}} : i64
// MAPPED:         mapped.store %{{.*}}, %status[%{{.*}}] : i32, !mapped.buf<1xi32, global>
// MAPPED:         scf.if
// MAPPED-NEXT:      mapped.atomic_add %{{.*}}, %out[%{{.*}}, %{{.*}}] : f32, !mapped.buf<5x3xf32, global>
// MAPPED:       mapped.host @index_add
// MAPPED:         mapped.launch @index_add_0_scatter_copy
// MAPPED-NEXT:    mapped.launch @index_add_0_scatter(

// CHECK-LABEL: .entry {{.*}}index_add_0_scatter_copy(
// CHECK-NOT:     red.global
// CHECK-LABEL: .entry {{.*}}index_add_0_scatter(
// CHECK:         red.global.add.f32 [%rd{{[0-9]+}}], %f{{[0-9]+}};

// DET-LABEL: .entry {{.*}}index_add_0_scatter(
// DET-NOT:     red.global
// DET-NOT:     .entry

// HIP-LABEL: void {{.*}}index_add_0_scatter_copy(
// HIP-LABEL: void {{.*}}index_add_0_scatter(
// HIP:         atomicAdd((float*)

// HIPDET-NOT:  atomicAdd
// HIPDET-NOT:  scatter_copy
tile.func @index_add(%dy: !tile.array<6x3xf32>, %ids: !tile.array<6xi64>, %w: !tile.array<5x3xf32>) outs(%out: !tile.array<5x3xf32>) {
  %0 = tile.load %dy : !tile.array<6x3xf32> -> !tile.tile<6x3xf32>
  %1 = tile.load %ids : !tile.array<6xi64> -> !tile.tile<6xi64>
  %2 = tile.load %w : !tile.array<5x3xf32> -> !tile.tile<5x3xf32>
  %5 = tile.reshape %1 : !tile.tile<6xi64> to !tile.tile<6x1xi64>
  %6 = tile.broadcast %5 : !tile.tile<6x1xi64> to !tile.tile<6x3xi64>
  %7 = tile.scatter_add %2[%6], %0 axis 0 : !tile.tile<5x3xf32>, !tile.tile<6x3xi64>, !tile.tile<6x3xf32> to !tile.tile<5x3xf32>
  tile.store %7, %out : !tile.tile<5x3xf32>, !tile.array<5x3xf32>
  tile.return
}
