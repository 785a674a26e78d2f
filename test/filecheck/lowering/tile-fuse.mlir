// tile-fuse: which ops share a tile.fused group (one kernel each), and what crosses groups.
// RUN: tilec-opt %s --split-input-file -p tile-fuse | filecheck %s
// The output re-parses, and fusing again changes nothing:
// RUN: tilec-opt %s --split-input-file -p tile-fuse | tilec-opt --split-input-file -p tile-fuse | filecheck %s
// With column-partials (what the GPU backends run), column reductions join the rowwise group:
// RUN: tilec-opt %s --split-input-file -p 'tile-fuse{column-partials=true}' | filecheck %s --check-prefix=PARTIALS

// softmax: max, exp, sum and div over the same rows are one rowwise group.
// CHECK-LABEL: tile.func @softmax
// CHECK:         %x = tile.load %X
// CHECK-NEXT:    %y = tile.fused rowwise (%x) : (!tile.tile<4x16xf32>) -> (!tile.tile<4x16xf32>) {
// CHECK:           tile.reduce max
// CHECK:           tile.exp
// CHECK:           tile.reduce sum
// CHECK:           tile.div
// CHECK-NEXT:      tile.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.store %y, %Y
// CHECK-NOT:     tile.fused
tile.func @softmax(%X: !tile.array<4x16xf32>) outs(%Y: !tile.array<4x16xf32>) {
  %x = tile.load %X : !tile.array<4x16xf32> -> !tile.tile<4x16xf32>
  %m = tile.reduce max %x [1] : !tile.tile<4x16xf32> to !tile.tile<4xf32>
  %m1 = tile.reshape %m : !tile.tile<4xf32> to !tile.tile<4x1xf32>
  %mb = tile.broadcast %m1 : !tile.tile<4x1xf32> to !tile.tile<4x16xf32>
  %d = tile.sub %x, %mb : !tile.tile<4x16xf32>
  %e = tile.exp %d : !tile.tile<4x16xf32>
  %s = tile.reduce sum %e [1] : !tile.tile<4x16xf32> to !tile.tile<4xf32>
  %s1 = tile.reshape %s : !tile.tile<4xf32> to !tile.tile<4x1xf32>
  %sb = tile.broadcast %s1 : !tile.tile<4x1xf32> to !tile.tile<4x16xf32>
  %y = tile.div %e, %sb : !tile.tile<4x16xf32>
  tile.store %y, %Y : !tile.tile<4x16xf32>, !tile.array<4x16xf32>
  tile.return
}

// -----

// layernorm with dynamic sizes, as the DSL traces it: `mean` counts the elements of the `?` row
// by summing a tile of ones. That count depends on no array: it is re-computed inside the group
// (with the size as a group input), so the whole layernorm is ONE rowwise group. (The broadcasts
// of g and b are views of the arguments: group inputs.)
// CHECK-LABEL: tile.func @layernorm
// CHECK:         %[[N:.+]] = tile.dim %X 1
// CHECK:         %[[M:.+]] = tile.dim %X 0
// CHECK:         %[[GB:.+]] = tile.broadcast %g sizes(%[[M]], %[[N]])
// CHECK:         %y = tile.fused rowwise (%x, %[[N]], %[[M]], %[[GB]], %{{.+}}) : (!tile.tile<?x?xf32>, index, index, !tile.tile<?x?xf32>, !tile.tile<?x?xf32>) -> (!tile.tile<?x?xf32>) {
// CHECK-NEXT:    ^bb{{[0-9]+}}(%[[XA:.+]]: !tile.tile<?x?xf32>, %[[NA:.+]]: index, %[[MA:.+]]: index,
// CHECK:           tile.reduce sum %[[XA]] [1]
// CHECK:           %[[ONES:.+]] = tile.constant 1.000000e+00 sizes(%[[NA]]) : !tile.tile<?xf32>
// CHECK-NEXT:      tile.reduce sum %[[ONES]] [0] : !tile.tile<?xf32> to !tile.tile<f32>
// CHECK:           tile.rsqrt
// CHECK:           tile.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.store %y, %Y
// CHECK-NOT:     tile.fused
tile.func @layernorm(%X: !tile.array<?x?xf32>, %G: !tile.array<?xf32>, %B: !tile.array<?xf32>) outs(%Y: !tile.array<?x?xf32>) {
  %x = tile.load %X : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %g = tile.load %G : !tile.array<?xf32> -> !tile.tile<?xf32>
  %b = tile.load %B : !tile.array<?xf32> -> !tile.tile<?xf32>
  %s = tile.reduce sum %x [1] : !tile.tile<?x?xf32> to !tile.tile<?xf32>
  %n = tile.dim %X 1 : !tile.array<?x?xf32>
  %ones = tile.constant 1.000000e+00 sizes(%n) : !tile.tile<?xf32>
  %cnt = tile.reduce sum %ones [0] : !tile.tile<?xf32> to !tile.tile<f32>
  %one = tile.constant 1.000000e+00 : !tile.tile<f32>
  %inv = tile.div %one, %cnt : !tile.tile<f32>
  %m = tile.dim %X 0 : !tile.array<?x?xf32>
  %invb = tile.broadcast %inv sizes(%m) : !tile.tile<f32> to !tile.tile<?xf32>
  %mu = tile.mul %s, %invb : !tile.tile<?xf32>
  %mu1 = tile.reshape %mu sizes(%m) : !tile.tile<?xf32> to !tile.tile<?x1xf32>
  %mub = tile.broadcast %mu1 sizes(%m, %n) : !tile.tile<?x1xf32> to !tile.tile<?x?xf32>
  %d = tile.sub %x, %mub : !tile.tile<?x?xf32>
  %d2 = tile.mul %d, %d : !tile.tile<?x?xf32>
  %v = tile.reduce sum %d2 [1] : !tile.tile<?x?xf32> to !tile.tile<?xf32>
  %var = tile.mul %v, %invb : !tile.tile<?xf32>
  %var1 = tile.reshape %var sizes(%m) : !tile.tile<?xf32> to !tile.tile<?x1xf32>
  %eps = tile.constant 1.000000e-05 sizes(%m) : !tile.tile<?x1xf32>
  %ve = tile.add %var1, %eps : !tile.tile<?x1xf32>
  %r = tile.rsqrt %ve : !tile.tile<?x1xf32>
  %rb = tile.broadcast %r sizes(%m, %n) : !tile.tile<?x1xf32> to !tile.tile<?x?xf32>
  %xn = tile.mul %d, %rb : !tile.tile<?x?xf32>
  %gb = tile.broadcast %g sizes(%m, %n) : !tile.tile<?xf32> to !tile.tile<?x?xf32>
  %xg = tile.mul %xn, %gb : !tile.tile<?x?xf32>
  %bb = tile.broadcast %b sizes(%m, %n) : !tile.tile<?xf32> to !tile.tile<?x?xf32>
  %y = tile.add %xg, %bb : !tile.tile<?x?xf32>
  tile.store %y, %Y : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.return
}

// -----

// matmul + bias + relu: the elementwise ops on the contraction result are its epilogue, one
// contraction group. The bias broadcast is a view of the argument (outside the group).
// CHECK-LABEL: tile.func @mm_bias_relu
// CHECK:         %[[BB:.+]] = tile.broadcast %bias
// CHECK-NEXT:    %y = tile.fused contraction (%a, %b, %[[BB]]) : (!tile.tile<8x32xf32>, !tile.tile<32x16xf32>, !tile.tile<8x16xf32>) -> (!tile.tile<8x16xf32>) {
// CHECK:           tile.contract
// CHECK-NEXT:      tile.add
// CHECK-NEXT:      tile.constant 0.000000e+00
// CHECK-NEXT:      tile.max
// CHECK-NEXT:      tile.yield
// CHECK-NOT:     tile.fused
tile.func @mm_bias_relu(%A: !tile.array<8x32xf32>, %B: !tile.array<32x16xf32>, %Bias: !tile.array<16xf32>) outs(%Y: !tile.array<8x16xf32>) {
  %a = tile.load %A : !tile.array<8x32xf32> -> !tile.tile<8x32xf32>
  %b = tile.load %B : !tile.array<32x16xf32> -> !tile.tile<32x16xf32>
  %bias = tile.load %Bias : !tile.array<16xf32> -> !tile.tile<16xf32>
  %c = tile.contract %a, %b axes [[1, 0]] acc f32 : !tile.tile<8x32xf32>, !tile.tile<32x16xf32> -> !tile.tile<8x16xf32>
  %bb = tile.broadcast %bias : !tile.tile<16xf32> to !tile.tile<8x16xf32>
  %cb = tile.add %c, %bb : !tile.tile<8x16xf32>
  %zero = tile.constant 0.000000e+00 : !tile.tile<8x16xf32>
  %y = tile.max %cb, %zero : !tile.tile<8x16xf32>
  tile.store %y, %Y : !tile.tile<8x16xf32>, !tile.array<8x16xf32>
  tile.return
}

// -----

// A reduction over a leading axis of a computed value: the exp is made of one array only, so
// the reduction group re-computes it (no elementwise group, no temporary).
// CHECK-LABEL: tile.func @colsum
// CHECK:         %y = tile.fused reduction (%x)
// CHECK-NEXT:    ^bb{{[0-9]+}}(%[[X:.+]]: !tile.tile<8x16xf32>):
// CHECK-NEXT:      %[[E:.+]] = tile.exp %[[X]]
// CHECK-NEXT:      tile.reduce sum %[[E]] [0]
// CHECK-NOT:     tile.fused
tile.func @colsum(%X: !tile.array<8x16xf32>) outs(%Y: !tile.array<16xf32>) {
  %x = tile.load %X : !tile.array<8x16xf32> -> !tile.tile<8x16xf32>
  %e = tile.exp %x : !tile.tile<8x16xf32>
  %y = tile.reduce sum %e [0] : !tile.tile<8x16xf32> to !tile.tile<16xf32>
  tile.store %y, %Y : !tile.tile<16xf32>, !tile.array<16xf32>
  tile.return
}

// -----

// layernorm's dbeta and dgamma next to its dx: the column sums over the same axes share one
// reduction group (one walk over dy), which re-computes dy * xhat from dy, x and the saved row
// statistics; the rowwise group computes dx only (dy * xhat is no output of it: no temporary).
// CHECK-LABEL: tile.func @ln_grads
// CHECK:         %{{.+}}, %{{.+}} = tile.fused reduction (%dy, %x, %{{.+}}, %{{.+}})
// CHECK:           tile.reduce sum %{{.+}} [0]
// CHECK:           tile.sub
// CHECK:           tile.mul
// CHECK:           tile.mul
// CHECK:           tile.reduce sum %{{.+}} [0]
// CHECK-NEXT:      tile.yield
// CHECK:         %dx = tile.fused rowwise
// CHECK:           tile.reduce sum %{{.+}} [1]
// CHECK:           tile.yield %{{.+}} : !tile.tile<?x?xf32>
// CHECK-NOT:     tile.fused
// PARTIALS-LABEL: tile.func @ln_grads
// PARTIALS:         %dx, %db, %dg = tile.fused rowwise (%x, %mub, %rsb, %dy, %m, %n)
// PARTIALS:           tile.reduce sum %{{.+}} [1]
// PARTIALS:           tile.reduce sum %{{.+}} [0]
// PARTIALS-NEXT:      tile.reduce sum %{{.+}} [0]
// PARTIALS-NEXT:      tile.yield
// PARTIALS-NEXT:    }
// PARTIALS-NEXT:    tile.store %dx, %DX
tile.func @ln_grads(%X: !tile.array<?x?xf32>, %MU: !tile.array<?x1xf32>, %RS: !tile.array<?x1xf32>, %DY: !tile.array<?x?xf32>) outs(%DX: !tile.array<?x?xf32>, %DG: !tile.array<?xf32>, %DB: !tile.array<?xf32>) {
  %dy = tile.load %DY : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %db = tile.reduce sum %dy [0] : !tile.tile<?x?xf32> to !tile.tile<?xf32>
  %x = tile.load %X : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %m = tile.dim %X 0 : !tile.array<?x?xf32>
  %n = tile.dim %X 1 : !tile.array<?x?xf32>
  %mu = tile.load %MU : !tile.array<?x1xf32> -> !tile.tile<?x1xf32>
  %mub = tile.broadcast %mu sizes(%m, %n) : !tile.tile<?x1xf32> to !tile.tile<?x?xf32>
  %rs = tile.load %RS : !tile.array<?x1xf32> -> !tile.tile<?x1xf32>
  %rsb = tile.broadcast %rs sizes(%m, %n) : !tile.tile<?x1xf32> to !tile.tile<?x?xf32>
  %xc = tile.sub %x, %mub : !tile.tile<?x?xf32>
  %xhat = tile.mul %xc, %rsb : !tile.tile<?x?xf32>
  %p = tile.mul %dy, %xhat : !tile.tile<?x?xf32>
  %dg = tile.reduce sum %p [0] : !tile.tile<?x?xf32> to !tile.tile<?xf32>
  %s = tile.reduce sum %p [1] : !tile.tile<?x?xf32> to !tile.tile<?xf32>
  %s1 = tile.reshape %s sizes(%m) : !tile.tile<?xf32> to !tile.tile<?x1xf32>
  %sb = tile.broadcast %s1 sizes(%m, %n) : !tile.tile<?x1xf32> to !tile.tile<?x?xf32>
  %dx = tile.sub %dy, %sb : !tile.tile<?x?xf32>
  tile.store %dx, %DX : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.store %dg, %DG : !tile.tile<?xf32>, !tile.array<?xf32>
  tile.store %db, %DB : !tile.tile<?xf32>, !tile.array<?xf32>
  tile.return
}

// -----

// Re-computing costs more than the temporary: x * y + z reads three arrays (one more pass than
// writing and reading the temporary), and x * y stored as well is materialized anyway while
// re-computing it reads two arrays. Both column sums read the elementwise group's results.
// CHECK-LABEL: tile.func @colsum_materialized
// CHECK:         %[[P:.+]], %[[Q:.+]] = tile.fused elementwise (%x, %y, %z)
// CHECK:         tile.fused reduction (%[[Q]])
// CHECK:         tile.fused reduction (%[[P]])
tile.func @colsum_materialized(%X: !tile.array<8x16xf32>, %Y: !tile.array<8x16xf32>, %Z: !tile.array<8x16xf32>) outs(%P: !tile.array<8x16xf32>, %S1: !tile.array<16xf32>, %S2: !tile.array<16xf32>) {
  %x = tile.load %X : !tile.array<8x16xf32> -> !tile.tile<8x16xf32>
  %y = tile.load %Y : !tile.array<8x16xf32> -> !tile.tile<8x16xf32>
  %z = tile.load %Z : !tile.array<8x16xf32> -> !tile.tile<8x16xf32>
  %p = tile.mul %x, %y : !tile.tile<8x16xf32>
  %q = tile.add %p, %z : !tile.tile<8x16xf32>
  %s1 = tile.reduce sum %q [0] : !tile.tile<8x16xf32> to !tile.tile<16xf32>
  %s2 = tile.reduce sum %p [0] : !tile.tile<8x16xf32> to !tile.tile<16xf32>
  tile.store %p, %P : !tile.tile<8x16xf32>, !tile.array<8x16xf32>
  tile.store %s1, %S1 : !tile.tile<16xf32>, !tile.array<16xf32>
  tile.store %s2, %S2 : !tile.tile<16xf32>, !tile.array<16xf32>
  tile.return
}

// -----

// A column sum of a value behind a row reduction (softmax) is not re-computed: the softmax is
// materialized by its rowwise group and read by the reduction group.
// CHECK-LABEL: tile.func @colsum_of_softmax
// CHECK:         %[[SM:.+]] = tile.fused rowwise (%x)
// CHECK:         tile.fused reduction (%[[SM]])
// PARTIALS-LABEL: tile.func @colsum_of_softmax
// PARTIALS:         %y = tile.fused rowwise (%x)
// PARTIALS:           tile.div
// PARTIALS-NEXT:      tile.reduce sum %{{.+}} [0]
// PARTIALS-NEXT:      tile.yield
// PARTIALS-NEXT:    }
// PARTIALS-NEXT:    tile.store %y, %Y
tile.func @colsum_of_softmax(%X: !tile.array<8x16xf32>) outs(%Y: !tile.array<16xf32>) {
  %x = tile.load %X : !tile.array<8x16xf32> -> !tile.tile<8x16xf32>
  %e = tile.exp %x : !tile.tile<8x16xf32>
  %s = tile.reduce sum %e [1] : !tile.tile<8x16xf32> to !tile.tile<8xf32>
  %s1 = tile.reshape %s : !tile.tile<8xf32> to !tile.tile<8x1xf32>
  %sb = tile.broadcast %s1 : !tile.tile<8x1xf32> to !tile.tile<8x16xf32>
  %sm = tile.div %e, %sb : !tile.tile<8x16xf32>
  %y = tile.reduce sum %sm [0] : !tile.tile<8x16xf32> to !tile.tile<16xf32>
  tile.store %y, %Y : !tile.tile<16xf32>, !tile.array<16xf32>
  tile.return
}

// -----

// Transposing a computed value starts a new group, which reads the first group's result through a
// transposed view.
// CHECK-LABEL: tile.func @transposed
// CHECK:         %e = tile.fused elementwise (%x)
// CHECK:         %y = tile.fused elementwise (%e)
// CHECK-NEXT:    ^bb{{[0-9]+}}(%[[E:.+]]: !tile.tile<16x8xf32>):
// CHECK-NEXT:      tile.transpose %[[E]] [1, 0]
// CHECK:           tile.add
tile.func @transposed(%X: !tile.array<16x8xf32>) outs(%Y: !tile.array<8x16xf32>) {
  %x = tile.load %X : !tile.array<16x8xf32> -> !tile.tile<16x8xf32>
  %e = tile.exp %x : !tile.tile<16x8xf32>
  %t = tile.transpose %e [1, 0] : !tile.tile<16x8xf32> to !tile.tile<8x16xf32>
  %one = tile.constant 1.000000e+00 : !tile.tile<8x16xf32>
  %y = tile.add %t, %one : !tile.tile<8x16xf32>
  tile.store %y, %Y : !tile.tile<8x16xf32>, !tile.array<8x16xf32>
  tile.return
}

// -----

// A stored view of an input (`return x.T`) gets a copy group that yields its input; a stored
// constant gets a group that computes it.
// CHECK-LABEL: tile.func @stored_view
// CHECK:         %t = tile.transpose %x [1, 0]
// CHECK-NEXT:    %[[T:.+]] = tile.fused elementwise (%t) : (!tile.tile<16x8xf32>) -> (!tile.tile<16x8xf32>) {
// CHECK-NEXT:    ^bb{{[0-9]+}}(%[[A:.+]]: !tile.tile<16x8xf32>):
// CHECK-NEXT:      tile.yield %[[A]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[C:.+]] = tile.fused elementwise () : () -> (!tile.tile<3xf32>) {
// CHECK-NEXT:      %[[K:.+]] = tile.constant 2.500000e+00 : !tile.tile<3xf32>
// CHECK-NEXT:      tile.yield %[[K]]
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.store %[[T]], %Y
// CHECK-NEXT:    tile.store %[[C]], %Z
tile.func @stored_view(%X: !tile.array<8x16xf32>) outs(%Y: !tile.array<16x8xf32>, %Z: !tile.array<3xf32>) {
  %x = tile.load %X : !tile.array<8x16xf32> -> !tile.tile<8x16xf32>
  %t = tile.transpose %x [1, 0] : !tile.tile<8x16xf32> to !tile.tile<16x8xf32>
  %c = tile.constant 2.500000e+00 : !tile.tile<3xf32>
  tile.store %t, %Y : !tile.tile<16x8xf32>, !tile.array<16x8xf32>
  tile.store %c, %Z : !tile.tile<3xf32>, !tile.array<3xf32>
  tile.return
}

// -----

// Independent elementwise ops over the SAME domain share a loop; over domains whose `?` sizes
// come from different places (x's rows vs x's columns, or two arrays) they must not, even though
// their static shapes (?x?) are equal.
// CHECK-LABEL: tile.func @dynamic_domains
// CHECK:         %a, %b = tile.fused elementwise (%x)
// CHECK:           tile.exp
// CHECK-NEXT:      tile.neg
// CHECK-NEXT:      tile.yield
// CHECK:         %c = tile.fused elementwise (%xt)
// CHECK:           tile.sqrt
// CHECK:         %d = tile.fused elementwise (%z)
// CHECK:           tile.abs
tile.func @dynamic_domains(%X: !tile.array<?x?xf32>, %Z: !tile.array<?x?xf32>) outs(%A: !tile.array<?x?xf32>, %B: !tile.array<?x?xf32>, %C: !tile.array<?x?xf32>, %D: !tile.array<?x?xf32>) {
  %x = tile.load %X : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %z = tile.load %Z : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %xt = tile.transpose %x [1, 0] : !tile.tile<?x?xf32> to !tile.tile<?x?xf32>
  %a = tile.exp %x : !tile.tile<?x?xf32>
  %b = tile.neg %x : !tile.tile<?x?xf32>
  %c = tile.sqrt %xt : !tile.tile<?x?xf32>
  %d = tile.abs %z : !tile.tile<?x?xf32>
  tile.store %a, %A : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.store %b, %B : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.store %c, %C : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.store %d, %D : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.return
}

// -----

// A row-level value broadcast back over a `?` axis joins its rowwise group only when that axis is
// the group's: here the sum over x's columns is broadcast to z's column count (another `?`).
// The broadcast joins no group (`broadcast_view`): the next group reads the rowwise group's
// (M, 1) result through it, no full-size copy of the broadcast.
// CHECK-LABEL: tile.func @broadcast_other_size
// CHECK:         %s1 = tile.fused rowwise (%x, %m)
// CHECK:           tile.reduce sum
// CHECK-NEXT:      tile.reshape
// CHECK-NEXT:      tile.yield
// CHECK:         %sb = tile.broadcast %s1 sizes(%m, %k)
// CHECK-NEXT:    %y = tile.fused elementwise (%sb, %z)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tile.mul
tile.func @broadcast_other_size(%X: !tile.array<?x?xf32>, %Z: !tile.array<?x?xf32>) outs(%Y: !tile.array<?x?xf32>) {
  %x = tile.load %X : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %z = tile.load %Z : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %s = tile.reduce sum %x [1] : !tile.tile<?x?xf32> to !tile.tile<?xf32>
  %m = tile.dim %X 0 : !tile.array<?x?xf32>
  %k = tile.dim %Z 1 : !tile.array<?x?xf32>
  %s1 = tile.reshape %s sizes(%m) : !tile.tile<?xf32> to !tile.tile<?x1xf32>
  %sb = tile.broadcast %s1 sizes(%m, %k) : !tile.tile<?x1xf32> to !tile.tile<?x?xf32>
  %y = tile.mul %sb, %z : !tile.tile<?x?xf32>
  tile.store %y, %Y : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.return
}

// -----

// Sizes the program requires to be equal are equal: `x + z` makes z's sizes x's (checked at run
// time before any kernel runs), so the independent exp(z) shares the loop of x + z.
// CHECK-LABEL: tile.func @equal_by_use
// CHECK:         %s, %e = tile.fused elementwise (%x, %z)
// CHECK:           tile.add
// CHECK-NEXT:      tile.exp
// CHECK-NOT:     tile.fused
tile.func @equal_by_use(%X: !tile.array<?x?xf32>, %Z: !tile.array<?x?xf32>) outs(%S: !tile.array<?x?xf32>, %E: !tile.array<?x?xf32>) {
  %x = tile.load %X : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %z = tile.load %Z : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %s = tile.add %x, %z : !tile.tile<?x?xf32>
  %e = tile.exp %z : !tile.tile<?x?xf32>
  tile.store %s, %S : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.store %e, %E : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.return
}

// -----

// A contraction reads transposes and reshapes of group results in place: the GEMM reads the
// materialized cast of w transposed and the (2, 16, 32) result as (32, 32), with no copy group
// making a transposed or reshaped copy first (a linear layer under bf16 autocast: 3 kernels, not 5).
// The views go after their groups, before the contraction.
// CHECK-LABEL: tile.func @linear_views
// CHECK:         %xc = tile.fused elementwise (%x)
// CHECK:         %wc = tile.fused elementwise (%w)
// CHECK:         %wt = tile.transpose %wc [1, 0]
// CHECK-NEXT:    %x2 = tile.reshape %xc
// CHECK-NEXT:    %y = tile.fused contraction (%x2, %wt)
// CHECK-NOT:     tile.fused
tile.func @linear_views(%X: !tile.array<2x16x32xf32>, %W: !tile.array<24x32xf32>) outs(%Y: !tile.array<32x24xbf16>) {
  %x = tile.load %X : !tile.array<2x16x32xf32> -> !tile.tile<2x16x32xf32>
  %w = tile.load %W : !tile.array<24x32xf32> -> !tile.tile<24x32xf32>
  %xe = tile.exp %x : !tile.tile<2x16x32xf32>
  %xc = tile.cast %xe : !tile.tile<2x16x32xf32> to !tile.tile<2x16x32xbf16>
  %wc = tile.cast %w : !tile.tile<24x32xf32> to !tile.tile<24x32xbf16>
  %x2 = tile.reshape %xc : !tile.tile<2x16x32xbf16> to !tile.tile<32x32xbf16>
  %wt = tile.transpose %wc [1, 0] : !tile.tile<24x32xbf16> to !tile.tile<32x24xbf16>
  %y = tile.contract %x2, %wt axes [[1, 0]] acc f32 : !tile.tile<32x32xbf16>, !tile.tile<32x24xbf16> -> !tile.tile<32x24xbf16>
  tile.store %y, %Y : !tile.tile<32x24xbf16>, !tile.array<32x24xbf16>
  tile.return
}

// -----

// A transpose of a group result that an elementwise op also reads is materialized by a group of
// its own (the elementwise op reads it there), so the contraction reads that group's result.
// CHECK-LABEL: tile.func @transpose_read_twice
// CHECK:         tile.fused elementwise (%w)
// CHECK:         tile.fused elementwise
// CHECK:         tile.fused contraction
tile.func @transpose_read_twice(%X: !tile.array<8x16xf32>, %W: !tile.array<8x16xf32>) outs(%Y: !tile.array<8x8xf32>, %Z: !tile.array<16x8xf32>) {
  %x = tile.load %X : !tile.array<8x16xf32> -> !tile.tile<8x16xf32>
  %w = tile.load %W : !tile.array<8x16xf32> -> !tile.tile<8x16xf32>
  %we = tile.exp %w : !tile.tile<8x16xf32>
  %wt = tile.transpose %we [1, 0] : !tile.tile<8x16xf32> to !tile.tile<16x8xf32>
  %y = tile.contract %x, %wt axes [[1, 0]] acc f32 : !tile.tile<8x16xf32>, !tile.tile<16x8xf32> -> !tile.tile<8x8xf32>
  %z = tile.neg %wt : !tile.tile<16x8xf32>
  tile.store %y, %Y : !tile.tile<8x8xf32>, !tile.array<8x8xf32>
  tile.store %z, %Z : !tile.tile<16x8xf32>, !tile.array<16x8xf32>
  tile.return
}

// -----

// A cast of one array, broadcast into an epilogue, is re-computed there from the array (a
// `view_function`): the bias's cast joins the GEMM's epilogue instead of being a group of its own
// whose broadcast a third group materializes (a bf16 linear layer: 2 kernels, not 5).
// CHECK-LABEL: tile.func @linear_bias
// CHECK:         %wc = tile.fused elementwise (%w)
// CHECK:         %wt = tile.transpose %wc [1, 0]
// CHECK-NEXT:    %z = tile.fused contraction (%x, %wt, %b)
// CHECK:           tile.contract
// CHECK-NEXT:      tile.cast
// CHECK-NEXT:      tile.broadcast
// CHECK-NEXT:      tile.add
// CHECK:         tile.store %z, %Y
// CHECK-NOT:     tile.fused
tile.func @linear_bias(%X: !tile.array<32x32xbf16>, %W: !tile.array<24x32xf32>, %B: !tile.array<24xf32>) outs(%Y: !tile.array<32x24xbf16>) {
  %x = tile.load %X : !tile.array<32x32xbf16> -> !tile.tile<32x32xbf16>
  %w = tile.load %W : !tile.array<24x32xf32> -> !tile.tile<24x32xf32>
  %b = tile.load %B : !tile.array<24xf32> -> !tile.tile<24xf32>
  %bc = tile.cast %b : !tile.tile<24xf32> to !tile.tile<24xbf16>
  %wc = tile.cast %w : !tile.tile<24x32xf32> to !tile.tile<24x32xbf16>
  %wt = tile.transpose %wc [1, 0] : !tile.tile<24x32xbf16> to !tile.tile<32x24xbf16>
  %y = tile.contract %x, %wt axes [[1, 0]] acc f32 : !tile.tile<32x32xbf16>, !tile.tile<32x24xbf16> -> !tile.tile<32x24xbf16>
  %bb = tile.broadcast %bc : !tile.tile<24xbf16> to !tile.tile<32x24xbf16>
  %z = tile.add %y, %bb : !tile.tile<32x24xbf16>
  tile.store %z, %Y : !tile.tile<32x24xbf16>, !tile.array<32x24xbf16>
  tile.return
}

// -----

// A broadcast of a group result that cannot join its group (a statistic over the leading and
// trailing axes, (C,) reshaped to (C, 1)) joins no group (`broadcast_view`): the reader reads the
// (C, 1) temporary through it. The reader starts a group after the statistic's group (it cannot
// join the exp group, whose kernel runs before the statistic exists).
// CHECK-LABEL: tile.func @stats_broadcast_view
// CHECK:         %e = tile.fused elementwise (%x)
// CHECK:         %s = tile.fused reduction (%e)
// CHECK:         %r1 = tile.fused elementwise (%s)
// CHECK:           tile.rsqrt
// CHECK-NEXT:      tile.reshape
// CHECK:         %rb = tile.broadcast %r1
// CHECK-NEXT:    %y = tile.fused elementwise (%e, %rb)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tile.mul
// CHECK-NOT:     tile.fused
tile.func @stats_broadcast_view(%X: !tile.array<4x8x5xf32>) outs(%Y: !tile.array<4x8x5xf32>) {
  %x = tile.load %X : !tile.array<4x8x5xf32> -> !tile.tile<4x8x5xf32>
  %e = tile.exp %x : !tile.tile<4x8x5xf32>
  %s = tile.reduce sum %e [0, 2] : !tile.tile<4x8x5xf32> to !tile.tile<8xf32>
  %r = tile.rsqrt %s : !tile.tile<8xf32>
  %r1 = tile.reshape %r : !tile.tile<8xf32> to !tile.tile<8x1xf32>
  %rb = tile.broadcast %r1 : !tile.tile<8x1xf32> to !tile.tile<4x8x5xf32>
  %y = tile.mul %e, %rb : !tile.tile<4x8x5xf32>
  tile.store %y, %Y : !tile.tile<4x8x5xf32>, !tile.array<4x8x5xf32>
  tile.return
}

// -----

// A conv bias under autocast, `cast(cast(b)).reshape(C, 1, 1)` broadcast over the output: a view
// function through a unit-axis reshape, re-computed in the conv's epilogue (one kernel).
// CHECK-LABEL: tile.func @conv_bias_view_function
// CHECK:         %yc = tile.fused contraction (%x, %w, %b)
// CHECK:           tile.conv
// CHECK-NEXT:      tile.cast
// CHECK-NEXT:      tile.cast
// CHECK-NEXT:      tile.reshape
// CHECK-NEXT:      tile.broadcast
// CHECK-NEXT:      tile.add
// CHECK-NOT:     tile.fused

tile.func @conv_bias_view_function(%X: !tile.array<2x3x6x6xbf16>, %W: !tile.array<4x3x3x3xbf16>, %B: !tile.array<4xf32>) outs(%Y: !tile.array<2x4x4x4xbf16>) {
  %x = tile.load %X : !tile.array<2x3x6x6xbf16> -> !tile.tile<2x3x6x6xbf16>
  %w = tile.load %W : !tile.array<4x3x3x3xbf16> -> !tile.tile<4x3x3x3xbf16>
  %b = tile.load %B : !tile.array<4xf32> -> !tile.tile<4xf32>
  %c = tile.conv %x, %w stride [1, 1] padding [[0, 0], [0, 0]] dilation [1, 1] lhs_dilation [1, 1] groups 1 layout channels_first acc f32 : !tile.tile<2x3x6x6xbf16>, !tile.tile<4x3x3x3xbf16> -> !tile.tile<2x4x4x4xf32>
  %bc = tile.cast %b : !tile.tile<4xf32> to !tile.tile<4xbf16>
  %bf = tile.cast %bc : !tile.tile<4xbf16> to !tile.tile<4xf32>
  %b1 = tile.reshape %bf : !tile.tile<4xf32> to !tile.tile<4x1x1xf32>
  %bb = tile.broadcast %b1 : !tile.tile<4x1x1xf32> to !tile.tile<2x4x4x4xf32>
  %y = tile.add %c, %bb : !tile.tile<2x4x4x4xf32>
  %yc = tile.cast %y : !tile.tile<2x4x4x4xf32> to !tile.tile<2x4x4x4xbf16>
  tile.store %yc, %Y : !tile.tile<2x4x4x4xbf16>, !tile.array<2x4x4x4xbf16>
  tile.return
}

// -----

// A static reshape of a group result that is only stored (a 1x1 weight gradient's (O, C) GEMM
// result stored as (O, 1, 1, C)) joins no group and makes no copy group: the contraction's group
// writes the output array through it (`stored_view`).
// CHECK-LABEL: tile.func @stored_reshape
// CHECK:         %c = tile.fused contraction
// CHECK:         }
// CHECK-NEXT:    %r = tile.reshape %c : !tile.tile<40x24xf32> to !tile.tile<40x1x1x24xf32>
// CHECK-NEXT:    tile.store %r, %W
// CHECK-NOT:     tile.fused
tile.func @stored_reshape(%DY: !tile.array<70x40xf32>, %X: !tile.array<70x24xf32>) outs(%W: !tile.array<40x1x1x24xf32>) {
  %dy = tile.load %DY : !tile.array<70x40xf32> -> !tile.tile<70x40xf32>
  %x = tile.load %X : !tile.array<70x24xf32> -> !tile.tile<70x24xf32>
  %c = tile.contract %dy, %x axes [[0, 0]] acc f32 : !tile.tile<70x40xf32>, !tile.tile<70x24xf32> -> !tile.tile<40x24xf32>
  %r = tile.reshape %c : !tile.tile<40x24xf32> to !tile.tile<40x1x1x24xf32>
  tile.store %r, %W : !tile.tile<40x1x1x24xf32>, !tile.array<40x1x1x24xf32>
  tile.return
}

// -----

// The same reshape read by anything else is a group's (here an elementwise one's) input.
// CHECK-LABEL: tile.func @reshape_stored_and_read
// CHECK:         tile.fused contraction
// CHECK:         tile.fused elementwise
tile.func @reshape_stored_and_read(%DY: !tile.array<70x40xf32>, %X: !tile.array<70x24xf32>) outs(%W: !tile.array<40x1x1x24xf32>, %V: !tile.array<40x1x1x24xf32>) {
  %dy = tile.load %DY : !tile.array<70x40xf32> -> !tile.tile<70x40xf32>
  %x = tile.load %X : !tile.array<70x24xf32> -> !tile.tile<70x24xf32>
  %c = tile.contract %dy, %x axes [[0, 0]] acc f32 : !tile.tile<70x40xf32>, !tile.tile<70x24xf32> -> !tile.tile<40x24xf32>
  %r = tile.reshape %c : !tile.tile<40x24xf32> to !tile.tile<40x1x1x24xf32>
  %e = tile.exp %r : !tile.tile<40x1x1x24xf32>
  tile.store %r, %W : !tile.tile<40x1x1x24xf32>, !tile.array<40x1x1x24xf32>
  tile.store %e, %V : !tile.tile<40x1x1x24xf32>, !tile.array<40x1x1x24xf32>
  tile.return
}

// -----

// Stored into an input (an in-place update): not a view; a copy group writes the input.
// CHECK-LABEL: tile.func @reshape_stored_in_place
// CHECK:         tile.fused contraction
// CHECK:         tile.fused elementwise
tile.func @reshape_stored_in_place(%DY: !tile.array<70x40xf32>, %X: !tile.array<70x24xf32>, %W: !tile.array<40x1x1x24xf32>) {
  %dy = tile.load %DY : !tile.array<70x40xf32> -> !tile.tile<70x40xf32>
  %x = tile.load %X : !tile.array<70x24xf32> -> !tile.tile<70x24xf32>
  %c = tile.contract %dy, %x axes [[0, 0]] acc f32 : !tile.tile<70x40xf32>, !tile.tile<70x24xf32> -> !tile.tile<40x24xf32>
  %r = tile.reshape %c : !tile.tile<40x24xf32> to !tile.tile<40x1x1x24xf32>
  tile.store %r, %W : !tile.tile<40x1x1x24xf32>, !tile.array<40x1x1x24xf32>
  tile.return
}
