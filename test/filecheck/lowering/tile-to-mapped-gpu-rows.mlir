// tile-to-mapped{target=cuda}: the GPU mappings of column sums (split across blocks) and of rows
// of `?` length (held in registers when they fit, chosen per launch), in the mapped IR.
// RUN: tilec-opt %s --split-input-file -p 'tile-fuse,tile-to-mapped{target=cuda}' | filecheck %s
// RUN: tilec-opt %s --split-input-file -p 'tile-fuse,tile-to-mapped{target=cuda column-blocks=7 row-cache=2}' | filecheck %s --check-prefix=OPT
// RUN: tilec-opt %s --split-input-file -p 'tile-fuse,tile-to-mapped{target=cuda row-cache=0}' | filecheck %s --check-prefix=NOCACHE
// RUN: tilec-opt %s --split-input-file -p 'tile-fuse{column-partials=true},tile-to-mapped{target=cuda}' | filecheck %s --check-prefix=PARTIALS

// A column sum of exp(x): one reduction group re-computing the exp. The partials kernel: a grid
// of column blocks (a warp of outputs: cdiv(cols, 32)) x parts, 8 x 32 threads; each thread
// walks its part's rows 4 per step into 4 accumulators, then the block combines through shared
// memory and its first row of threads writes the part's sums. The second kernel adds each
// column's parts in order (the same walk over the parts, in one part). The host computes the part length from the sizes (1024 blocks aimed
// at, 64-row granules: 8 rows per thread).
// CHECK-LABEL: mapped.kernel @colsum_0_reduction_partials(
// CHECK-SAME:    grid [cdiv(%X_d1, 32) * cdiv(%[[PARTS:.+]], 1), 1, 1] block [256, 1, 1] smem 1024
// CHECK:         scf.for {{.+}} iter_args({{.+}}) -> (f32, f32, f32, f32) {
// CHECK-COUNT-4:   math.exp
// CHECK:         scf.for
// CHECK:         mapped.alloc : !mapped.buf<8x32xf32, shared>
// CHECK:         mapped.barrier
// CHECK:         scf.if
// CHECK-COUNT-8:   mapped.load {{.+}} : !mapped.buf<8x32xf32, shared> -> f32
// CHECK:           mapped.store {{.+}} : f32, !mapped.buf<?x?xf32, global>
// CHECK-LABEL: mapped.kernel @colsum_0_reduction(
// CHECK-SAME:    grid [cdiv(%X_d1, 32) * 1, 1, 1] block [256, 1, 1] smem 1024
// CHECK:         scf.for
// CHECK-COUNT-4:   mapped.load {{.+}} : !mapped.buf<?x?xf32, global> -> f32
// CHECK:         mapped.barrier
// CHECK:         mapped.store {{.+}}, %Y[
// CHECK-LABEL: mapped.host @colsum(
// CHECK:         arith.constant 1024 : index
// CHECK:         arith.constant 64 : index
// CHECK:         mapped.temp sizes(%{{.+}}, %X_d1) : !mapped.buf<?x?xf32, global>
// CHECK-NEXT:    mapped.launch @colsum_0_reduction_partials(
// CHECK-NEXT:    mapped.launch @colsum_0_reduction(
// OPT-LABEL: mapped.host @colsum(
// OPT:         arith.constant 7 : index
tile.func @colsum(%X: !tile.array<?x?xf32>) outs(%Y: !tile.array<?xf32>) {
  %x = tile.load %X : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %e = tile.exp %x : !tile.tile<?x?xf32>
  %y = tile.reduce sum %e [0] : !tile.tile<?x?xf32> to !tile.tile<?xf32>
  tile.store %y, %Y : !tile.tile<?xf32>, !tile.array<?xf32>
  tile.return
}

// -----

// softmax over rows of `?` length. Rows that fit 256 threads x 4 lanes x 4 vectors (row-cache)
// and take whole vectors of aligned buffers (`mapped.is_aligned`): each thread loads its 4 vectors once (clamped into the row, masked past
// it), the max, the sum of exps (one exp per element) and the stores all use those registers;
// vectors past the row are not stored. Other rows: a strided loop of scalars per pass.
// CHECK-LABEL: mapped.kernel @softmax_0_rowwise(
// CHECK:         arith.cmpi ule, %X_d1, %{{.+}} : index
// CHECK:         arith.remui %X_d1
// CHECK-DAG:     mapped.is_aligned %X 16
// CHECK-DAG:     mapped.is_aligned %Y 16
// CHECK:         scf.if %[[HELD:[0-9]+]] {
// CHECK-COUNT-4:   arith.minui
// CHECK-NOT:       scf.for
// CHECK-COUNT-4:   mapped.load %X[{{.+}}] : !mapped.buf<?x?xf32, global> -> vector<4xf32>
// CHECK:           mapped.reduce max
// CHECK-COUNT-16:  math.exp
// CHECK:           mapped.reduce sum
// CHECK-NOT:       math.exp
// CHECK:           scf.if
// CHECK-NEXT:        arith.addi
// CHECK-NEXT:        arith.addi
// CHECK-NEXT:        mapped.store {{.+}} : vector<4xf32>, !mapped.buf<?x?xf32, global>
// CHECK:         %[[OTHER:.+]] = arith.xori %[[HELD]]
// CHECK:         scf.if %[[OTHER]] {
// CHECK:           scf.for
// CHECK:             mapped.load %X[{{.+}}] : !mapped.buf<?x?xf32, global> -> f32
// CHECK:           mapped.reduce max
// CHECK:           scf.for
// CHECK:           mapped.reduce sum
// CHECK:           scf.for
// CHECK:             mapped.store {{.+}} : f32, !mapped.buf<?x?xf32, global>
// OPT-LABEL: mapped.kernel @softmax_0_rowwise(
// OPT:         arith.constant 2048 : index
// OPT:         scf.if
// OPT-COUNT-2:   mapped.load %X[{{.+}}] : !mapped.buf<?x?xf32, global> -> vector<4xf32>
// OPT-NOT:       mapped.load %X[{{.+}}] : !mapped.buf<?x?xf32, global> -> vector<4xf32>
// OPT:           mapped.reduce max
// NOCACHE-LABEL: mapped.kernel @softmax_0_rowwise(
// NOCACHE-NOT:   vector<4xf32>
// NOCACHE:       scf.for
tile.func @softmax(%X: !tile.array<?x?xf32>) outs(%Y: !tile.array<?x?xf32>) {
  %x = tile.load %X : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %m = tile.reduce max %x [1] : !tile.tile<?x?xf32> to !tile.tile<?xf32>
  %r = tile.dim %X 0 : !tile.array<?x?xf32>
  %c = tile.dim %X 1 : !tile.array<?x?xf32>
  %m1 = tile.reshape %m sizes(%r) : !tile.tile<?xf32> to !tile.tile<?x1xf32>
  %mb = tile.broadcast %m1 sizes(%r, %c) : !tile.tile<?x1xf32> to !tile.tile<?x?xf32>
  %d = tile.sub %x, %mb : !tile.tile<?x?xf32>
  %e = tile.exp %d : !tile.tile<?x?xf32>
  %s = tile.reduce sum %e [1] : !tile.tile<?x?xf32> to !tile.tile<?xf32>
  %s1 = tile.reshape %s sizes(%r) : !tile.tile<?xf32> to !tile.tile<?x1xf32>
  %sb = tile.broadcast %s1 sizes(%r, %c) : !tile.tile<?x1xf32> to !tile.tile<?x?xf32>
  %y = tile.div %e, %sb : !tile.tile<?x?xf32>
  tile.store %y, %Y : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.return
}

// -----

// An elementwise kernel over a `?` row length: 4 slots of 4 elements per thread; a launch whose
// rows take whole vectors uses 16-byte accesses (one index computation per slot), else the same
// slots element by element.
// CHECK-LABEL: mapped.kernel @scale_0_elementwise(
// CHECK-SAME:    grid [cdiv(%{{.+}}, 4096), 1, 1] block [256, 1, 1]
// CHECK:         arith.cmpi eq
// CHECK-DAG:     mapped.is_aligned %X 16
// CHECK-DAG:     mapped.is_aligned %Y 16
// CHECK:         scf.if %[[WHOLE:[0-9]+]] {
// CHECK:           scf.if
// CHECK-COUNT-4:     mapped.load %X[{{.+}}] : !mapped.buf<?x?xf32, global> -> vector<4xf32>
// CHECK-COUNT-4:     mapped.store {{.+}} : vector<4xf32>, !mapped.buf<?x?xf32, global>
// CHECK:         %[[SCALAR:.+]] = arith.xori %[[WHOLE]]
// CHECK:         scf.if %[[SCALAR]] {
// CHECK:           scf.if
// CHECK-COUNT-16:    mapped.load %X[{{.+}}] : !mapped.buf<?x?xf32, global> -> f32
tile.func @scale(%X: !tile.array<?x?xf32>) outs(%Y: !tile.array<?x?xf32>) {
  %x = tile.load %X : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %y = tile.mul %x, %x : !tile.tile<?x?xf32>
  tile.store %y, %Y : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.return
}

// -----

// Rows with a column sum (a layernorm-like dx with dbeta), as the GPU backends fuse them
// (column-partials): the rowwise kernel walks chunks of rows (per = 16 cdiv(cdiv(rows + 1, 1024), 16), a grid
// of cdiv(rows, per) blocks); when the row is held, each thread's 16 partial sums are loop-
// carried through its block's rows, then stored (masked) into the block's row of the partial
// temporary; on the loop path they start at 0 there and each row adds into them. The second
// kernel adds the blocks' partials (the column walk over them).
// PARTIALS-LABEL: mapped.kernel @dx_db_0_rowwise(
// PARTIALS-SAME:    grid [cdiv(%{{.+}}, 1), 1, 1] block [256, 1, 1]
// PARTIALS:         scf.if
// PARTIALS:           scf.for {{.+}} iter_args({{.+}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// PARTIALS:             mapped.reduce sum
// PARTIALS:             mapped.store {{.+}}, %DX[{{.+}}] : vector<4xf32>
// PARTIALS:           }
// PARTIALS-COUNT-4:   mapped.store {{.+}} : f32, !mapped.buf<?x?xf32, global>
// PARTIALS:         scf.if
// PARTIALS:           scf.for
// PARTIALS-NEXT:        arith.addi
// PARTIALS-NEXT:        mapped.store %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}] : f32, !mapped.buf<?x?xf32, global>
// PARTIALS:           scf.for
// PARTIALS:             mapped.reduce sum
// PARTIALS:             scf.for
// PARTIALS:               mapped.store {{.+}}, %DX[
// PARTIALS:               mapped.load %{{.+}}[%{{.+}}, %{{.+}}] : !mapped.buf<?x?xf32, global> -> f32
// PARTIALS-NEXT:          arith.addf
// PARTIALS-NEXT:          mapped.store
// PARTIALS-LABEL: mapped.kernel @dx_db_0_rowwise_columns(
// PARTIALS:         mapped.barrier
// PARTIALS:         mapped.store {{.+}}, %DB[
// PARTIALS-LABEL: mapped.host @dx_db(
// PARTIALS-DAG:     arith.constant 16 : index
// PARTIALS-DAG:     arith.constant 1024 : index
// PARTIALS:         mapped.temp sizes(
// PARTIALS-NEXT:    mapped.launch @dx_db_0_rowwise(
// PARTIALS-NEXT:    mapped.launch @dx_db_0_rowwise_columns(
tile.func @dx_db(%X: !tile.array<?x?xf32>, %DY: !tile.array<?x?xf32>) outs(%DX: !tile.array<?x?xf32>, %DB: !tile.array<?xf32>) {
  %dy = tile.load %DY : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %db = tile.reduce sum %dy [0] : !tile.tile<?x?xf32> to !tile.tile<?xf32>
  %x = tile.load %X : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %r = tile.dim %X 0 : !tile.array<?x?xf32>
  %c = tile.dim %X 1 : !tile.array<?x?xf32>
  %p = tile.mul %dy, %x : !tile.tile<?x?xf32>
  %s = tile.reduce sum %p [1] : !tile.tile<?x?xf32> to !tile.tile<?xf32>
  %s1 = tile.reshape %s sizes(%r) : !tile.tile<?xf32> to !tile.tile<?x1xf32>
  %sb = tile.broadcast %s1 sizes(%r, %c) : !tile.tile<?x1xf32> to !tile.tile<?x?xf32>
  %dx = tile.sub %dy, %sb : !tile.tile<?x?xf32>
  tile.store %dx, %DX : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.store %db, %DB : !tile.tile<?xf32>, !tile.array<?xf32>
  tile.return
}
