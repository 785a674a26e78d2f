// tile-to-mapped{target=cpu}: one mapped.kernel per fusion group plus a mapped.host that
// allocates temporaries and launches the kernels. Input: Inputs/matmul-softmax.mlir.
// RUN: tilec-opt %S/Inputs/matmul-softmax.mlir -p tile-fuse,tile-to-mapped | filecheck %s
// The vector width (the cpu backend's default is the host's; the pass's own default is 8): 16 lanes
// give the AVX-512 micro-kernel, 14 x 32 = 14 rows of 2 vector<16xf32> accumulators (28 FMAs per k).
// RUN: tilec-opt %S/Inputs/matmul-softmax.mlir -p 'tile-fuse,tile-to-mapped{target=cpu vector=16}' | filecheck %s --check-prefix=V16
// RUN: tilec-opt %S/Inputs/matmul-softmax.mlir -p 'tile-fuse,tile-to-mapped{target=cpu vector=4}' | filecheck %s --check-prefix=V4
// The mapped IR re-parses and prints the same:
// RUN: tilec-opt %S/Inputs/matmul-softmax.mlir -p tile-fuse,tile-to-mapped > %t.mlir
// RUN: tilec-opt %t.mlir | diff - %t.mlir
// Options reach the GEMM: nr=32 gives 4 vectors of 8 f32 per micro-tile row.
// RUN: tilec-opt %S/Inputs/matmul-softmax.mlir -p 'tile-fuse,tile-to-mapped{target=cpu mr=4 nr=32}' | filecheck %s --check-prefix=OPT

// The matmul: a packed GEMM. B and A are packed into temporaries in parallel over panels (simd
// inner loops), then the tiles of C are computed in parallel with vector FMAs into a
// register-level accumulator block, and stored.
// CHECK-LABEL: mapped.kernel @matmul_0_contraction(
// CHECK-SAME:    %C: !mapped.buf<?x?xf32, global>
// CHECK-SAME:    %Apack: !mapped.buf<?xf32, global>, %Bpack: !mapped.buf<?xf32, global>
// CHECK-SAME:    target cpu {
// CHECK:         mapped.parallel
// CHECK-SAME:      on cores if %{{.+}} {
// CHECK:           mapped.load %B[
// CHECK:           mapped.store {{.+}}, %Bpack[
// CHECK:         } {tilec.simd}
// CHECK:         mapped.parallel
// CHECK-SAME:      on cores if %{{.+}} {
// CHECK:           mapped.load %A[
// CHECK:           mapped.store {{.+}}, %Apack[
// CHECK:         } {tilec.simd}
// CHECK:         mapped.parallel
// CHECK-SAME:      on cores if %{{.+}} {
// CHECK:           mapped.alloc : !mapped.buf<{{[0-9]+}}xf32, reg>
// CHECK:           scf.for
// CHECK:             mapped.load %Bpack[{{.+}}] : !mapped.buf<?xf32, global> -> vector<8xf32>
// CHECK:             mapped.load %Apack[{{.+}}] : !mapped.buf<?xf32, global> -> f32
// CHECK-NEXT:        vector.broadcast {{.+}} : f32 to vector<8xf32>
// CHECK-NEXT:        vector.fma {{.+}} : vector<8xf32>
// CHECK:           scf.for
// CHECK:             mapped.store {{.+}}, %C[{{.+}}] : f32, !mapped.buf<?x?xf32, global>
// CHECK:           } {tilec.simd}
// CHECK:         mapped.return

// The host: the sizes of the packed panels (rounded up to MR=6 rows / NR=16 columns) from the
// dynamic sizes, two temporaries, one launch.
// CHECK-LABEL: mapped.host @matmul(%A: !mapped.buf<?x?xf32, global>, %B: !mapped.buf<?x?xf32, global>) outs(%C: !mapped.buf<?x?xf32, global>) {
// CHECK-DAG:     %A_d0 = mapped.dim %A 0
// CHECK-DAG:     %B_d1 = mapped.dim %B 1
// CHECK-DAG:     %A_d1 = mapped.dim %A 1
// CHECK:         %Apack = mapped.temp sizes(%{{.+}}) : !mapped.buf<?xf32, global>
// CHECK:         %Bpack = mapped.temp sizes(%{{.+}}) : !mapped.buf<?xf32, global>
// CHECK-NEXT:    mapped.launch @matmul_0_contraction(%C, {{.*}}%Apack, %Bpack, {{.+}})
// CHECK-NEXT:    mapped.return

// The softmax: one rowwise kernel, parallel over the 4 rows; per row a max loop (NaN tracked by
// an `or`), a sum-of-exp loop and the loop storing the row, all simd loops.
// CHECK-LABEL: mapped.kernel @softmax_0_rowwise(%Y: !mapped.buf<4x16xf32, global>, %X: !mapped.buf<4x16xf32, global>) target cpu {
// CHECK:         mapped.parallel (%[[I:.+]]) = (%{{.+}}) to (%{{.+}}) step (%{{.+}}) on cores if %{{.+}} {
// CHECK-NEXT:      %{{.+}}, %{{.+}} = scf.for %[[J:.+]] = {{.+}} iter_args({{.+}}) -> (f32, i32) {
// CHECK-NEXT:        mapped.load %X[%[[I]], %[[J]]]
// CHECK-NEXT:        arith.cmpf uno
// CHECK-NEXT:        arith.extui
// CHECK-NEXT:        arith.maxnumf
// CHECK-NEXT:        arith.ori
// CHECK-NEXT:        scf.yield
// CHECK-NEXT:      } {tilec.simd, tilec.reduce = ["max", "or"]}
// CHECK-NEXT:      arith.cmpi ne
// CHECK-NEXT:      %[[MAX:.+]] = arith.select
// CHECK-NEXT:      %[[SUM:.+]] = scf.for {{.+}} -> (f32) {
// CHECK:             math.exp
// CHECK-NEXT:        arith.addf
// CHECK-NEXT:        scf.yield
// CHECK-NEXT:      } {tilec.simd, tilec.reduce = ["add"]}
// CHECK-NEXT:      scf.for %[[K:.+]] = {{.+}} {
// CHECK:             math.exp
// CHECK-NEXT:        arith.divf %{{.+}}, %[[SUM]]
// CHECK-NEXT:        mapped.store %{{.+}}, %Y[%[[I]], %[[K]]] : f32, !mapped.buf<4x16xf32, global>
// CHECK-NEXT:      } {tilec.simd}
// CHECK-NEXT:      mapped.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    mapped.return
// CHECK-LABEL: mapped.host @softmax(%X: !mapped.buf<4x16xf32, global>) outs(%Y: !mapped.buf<4x16xf32, global>) {
// CHECK-NOT:     mapped.temp
// CHECK:         mapped.launch @softmax_0_rowwise(%Y, %X)
// CHECK-NEXT:    mapped.return

// OPT-LABEL: mapped.kernel @matmul_0_contraction
// OPT-COUNT-4: vector.fma
// OPT-NOT:     vector.fma
// OPT:         mapped.load %Apack
// OPT-COUNT-4: vector.fma

// V16-LABEL: mapped.kernel @matmul_0_contraction
// V16:         scf.for {{.+}} -> (vector<16xf32>{{(, vector<16xf32>)+}}) {
// V16-COUNT-2:   mapped.load %Bpack[{{.+}}] : !mapped.buf<?xf32, global> -> vector<16xf32>
// V16-COUNT-28:  vector.fma {{.+}} : vector<16xf32>
// V16-NOT:       vector.fma
// V16:           scf.yield
// V16-NOT:     vector<8xf32>
// V16-LABEL: mapped.host @matmul(
// V16:         arith.constant 14 : index
// V16:         arith.constant 32 : index

// V4-LABEL: mapped.kernel @matmul_0_contraction
// V4:         scf.for {{.+}} -> (vector<4xf32>{{(, vector<4xf32>)+}}) {
// V4-COUNT-12:  vector.fma {{.+}} : vector<4xf32>
// V4-NOT:       vector.fma
