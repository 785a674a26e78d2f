// mapped-to-hw-cpu: mapped kernels and host programs become hw.cpu functions (C-level IR).
// Input: the mapped IR of Inputs/matmul-softmax.mlir, printed and re-parsed first.
// RUN: tilec-opt %S/Inputs/matmul-softmax.mlir -p tile-fuse,tile-to-mapped | tilec-opt -p mapped-to-hw-cpu | filecheck %s
// The hw IR re-parses and prints the same:
// RUN: tilec-opt %S/Inputs/matmul-softmax.mlir -p tile-fuse,tile-to-mapped,mapped-to-hw-cpu > %t.mlir
// RUN: tilec-opt %t.mlir | diff - %t.mlir
// Masks and rank-0 results (the tile IR below):
// RUN: tilec-opt %s -p tile-fuse,tile-to-mapped | tilec-opt -p mapped-to-hw-cpu | filecheck %s --check-prefix=MASK

// A global buffer is a typed pointer plus one index per dynamic dimension; parallel loops are
// OpenMP loops; loads and stores use row-major i64 element offsets; the register block is a stack
// array; vector.broadcast is a splat, vector.fma stays.
// CHECK-LABEL: hw.cpu.func @matmul_0_contraction(%C: !hw.ptr<generic, f32>, %C_d0: index, %C_d1: index,
// CHECK-SAME:    %Apack: !hw.ptr<generic, f32>, %Apack_d0: index, %Bpack: !hw.ptr<generic, f32>, %Bpack_d0: index,
// CHECK-SAME:    %B: !hw.ptr<generic, f32>, %B_d0: index, %B_d1_1: index, %A: !hw.ptr<generic, f32>, %A_d0_1: index, %A_d1_1: index) {
// CHECK-NOT:     mapped.
// CHECK:         hw.cpu.parallel_for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} schedule static if %{{.+}} : index {
// CHECK:           %[[ROW:.+]] = arith.muli %{{.+}}, %B_d1_1 : index
// CHECK-NEXT:      %[[OFF:.+]] = arith.addi %[[ROW]], %{{.+}} : index
// CHECK-NEXT:      %[[OFF64:.+]] = arith.index_cast %[[OFF]] : index to i64
// CHECK-NEXT:      hw.cpu.load %B[%[[OFF64]]] : !hw.ptr<generic, f32> -> f32
// CHECK:           hw.cpu.store %{{.+}}, %Bpack[%{{.+}}] : f32, !hw.ptr<generic, f32>
// CHECK:           hw.cpu.yield
// CHECK:         hw.cpu.parallel_for
// CHECK:           hw.cpu.store %{{.+}}, %Apack[%{{.+}}] : f32, !hw.ptr<generic, f32>
// CHECK:         hw.cpu.parallel_for
// CHECK:           %[[BLOCK:.+]] = hw.cpu.alloca {{[0-9]+}} align 64 : !hw.ptr<local, f32>
// CHECK:             hw.cpu.load %Bpack[%{{.+}}] : !hw.ptr<generic, f32> -> vector<8xf32>
// CHECK:             %[[SPLAT:.+]] = hw.cpu.splat %{{.+}} : f32 -> vector<8xf32>
// CHECK-NEXT:        vector.fma %[[SPLAT]], %{{.+}}, %{{.+}} : vector<8xf32>
// CHECK:             hw.cpu.store %{{.+}}, %[[BLOCK]][%{{.+}}] : vector<8xf32>, !hw.ptr<local, f32>
// CHECK:             hw.cpu.store %{{.+}}, %C[%{{.+}}] : f32, !hw.ptr<generic, f32>
// CHECK:         hw.cpu.return

// The host becomes the entry function: dynamic sizes are parameters, temporaries are malloc'ed
// before the call and freed after it (in reverse order).
// CHECK-LABEL: hw.cpu.func @matmul(%A: !hw.ptr<generic, f32>, %A_d0: index, %A_d1: index, %B: !hw.ptr<generic, f32>, %B_d0: index, %B_d1: index, %C: !hw.ptr<generic, f32>, %C_d0: index, %C_d1: index) attributes {tilec.entry} {
// CHECK:         %Apack = hw.cpu.malloc %[[NA:.+]] : !hw.ptr<generic, f32>
// CHECK:         %Bpack = hw.cpu.malloc %[[NB:.+]] : !hw.ptr<generic, f32>
// CHECK-NEXT:    hw.cpu.call @matmul_0_contraction(%C, %C_d0, %C_d1, %A_d0, %B_d1, %A_d1, %Apack, %[[NA]], %Bpack, %[[NB]], %B, %B_d0, %B_d1, %A, %A_d0, %A_d1)
// CHECK-NEXT:    hw.cpu.free %Bpack
// CHECK-NEXT:    hw.cpu.free %Apack
// CHECK-NEXT:    hw.cpu.return

// Static buffers are bare pointers (the sizes are constants in the kernel).
// CHECK-LABEL: hw.cpu.func @softmax_0_rowwise(%Y: !hw.ptr<generic, f32>, %X: !hw.ptr<generic, f32>) {
// CHECK:         hw.cpu.parallel_for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} schedule static if %{{.+}} : index {
// CHECK:           scf.for {{.+}} -> (f32, i32) {
// CHECK:             hw.cpu.load %X[%{{.+}}] : !hw.ptr<generic, f32> -> f32
// CHECK:           } {tilec.simd, tilec.reduce = ["max", "or"]}
// CHECK:           } {tilec.simd, tilec.reduce = ["add"]}
// CHECK:             hw.cpu.store %{{.+}}, %Y[%{{.+}}] : f32, !hw.ptr<generic, f32>
// CHECK-NEXT:      } {tilec.simd}
// CHECK-NEXT:      hw.cpu.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    hw.cpu.return
// CHECK-LABEL: hw.cpu.func @softmax(%X: !hw.ptr<generic, f32>, %Y: !hw.ptr<generic, f32>) attributes {tilec.entry} {
// CHECK-NOT:     hw.cpu.malloc
// CHECK:         hw.cpu.call @softmax_0_rowwise(%Y, %X) : !hw.ptr<generic, f32>, !hw.ptr<generic, f32>
// CHECK-NEXT:    hw.cpu.return

// Masks (i1) are bytes in memory (numpy's bool): loaded as i8 and compared with 0, stored
// extended to i8. A rank-0 result is a buffer of one element, stored at offset 0.
// MASK-LABEL: hw.cpu.func @mask_0_elementwise(%Y: !hw.ptr<generic, i8>, %Y_d0: index, %X_d0: index, %M: !hw.ptr<generic, i8>, %M_d0: index, %X: !hw.ptr<generic, f32>, %X_d0_1: index) {
// MASK:          %[[B:.+]] = hw.cpu.load %M[%{{.+}}] : !hw.ptr<generic, i8> -> i8
// MASK-NEXT:     %[[Z:.+]] = arith.constant 0 : i8
// MASK-NEXT:     %[[MB:.+]] = arith.cmpi ne, %[[B]], %[[Z]] : i8
// MASK:          %[[P:.+]] = arith.cmpf ogt
// MASK-NEXT:     %[[SEL:.+]] = arith.select %[[MB]], %[[P]], %[[MB]] : i1
// MASK-NEXT:     %[[W:.+]] = arith.extui %[[SEL]] : i1 to i8
// MASK:          hw.cpu.store %[[W]], %Y[%{{.+}}] : i8, !hw.ptr<generic, i8>
// MASK-LABEL: hw.cpu.func @mask_1_rowwise(%S: !hw.ptr<generic, f32>,
// MASK:          %[[SUM:.+]] = scf.for
// MASK:          } {tilec.simd, tilec.reduce = ["add"]}
// MASK-NEXT:     %[[O:.+]] = arith.index_cast %{{.+}} : index to i64
// MASK-NEXT:     hw.cpu.store %[[SUM]], %S[%[[O]]] : f32, !hw.ptr<generic, f32>
// MASK-LABEL: hw.cpu.func @mask(%X: !hw.ptr<generic, f32>, %X_d0: index, %M: !hw.ptr<generic, i8>, %M_d0: index, %Y: !hw.ptr<generic, i8>, %Y_d0: index, %S: !hw.ptr<generic, f32>) attributes {tilec.entry} {
tile.func @mask(%X: !tile.array<?xf32>, %M: !tile.array<?xi1>) outs(%Y: !tile.array<?xi1>, %S: !tile.array<f32>) {
  %x = tile.load %X : !tile.array<?xf32> -> !tile.tile<?xf32>
  %m = tile.load %M : !tile.array<?xi1> -> !tile.tile<?xi1>
  %p = tile.cmp gt %x, %x : !tile.tile<?xf32>
  %y = tile.select %m, %p, %m : !tile.tile<?xi1>
  %s = tile.reduce sum %x [0] : !tile.tile<?xf32> to !tile.tile<f32>
  tile.store %y, %Y : !tile.tile<?xi1>, !tile.array<?xi1>
  tile.store %s, %S : !tile.tile<f32>, !tile.array<f32>
  tile.return
}
