// tile-autodiff on a dense layer (x W + b, tanh): the forward saves the contraction's result (a
// GEMM is not recomputed), the backward recomputes the cheap tanh from it, sends the cotangent
// through the two backward contractions (dx = dz W^T over W's columns, dW = x^T dz over the
// rows) and sums it over the broadcast axis for db.
// RUN: tilec-opt %s -p 'tile-autodiff{wrt=X,W,B mode=split}' | filecheck %s
// RUN: tilec-opt %s -p 'tile-autodiff{wrt=W mode=backward}' | filecheck %s --check-prefix=ONLYW

// CHECK-LABEL: tile.func @dense_fwd(
// CHECK-SAME:    outs(%Y: !tile.array<8x4xf32>, %res0: !tile.array<8x4xf32>)
// CHECK:         %[[H:.+]] = tile.contract %x, %w axes {{\[\[}}1, 0]]
// CHECK:         tile.store %[[H]], %res0
// CHECK-LABEL: tile.func @dense_bwd(
// CHECK-SAME:    %res0: !tile.array<8x4xf32>, %ct_Y: !tile.array<8x4xf32>) outs(%d_X: !tile.array<8x16xf32>, %d_W: !tile.array<16x4xf32>, %d_B: !tile.array<4xf32>)
// CHECK:         %[[CT:.+]] = tile.load %ct_Y
// CHECK:         %[[HS:.+]] = tile.load %res0
// CHECK:         %[[Z:.+]] = tile.add %[[HS]],
// CHECK-NEXT:    %[[T:.+]] = tile.tanh %[[Z]]
// CHECK:         %[[DZ:.+]] = tile.mul %[[CT]], %{{.+}} : !tile.tile<8x4xf32>
// CHECK:         %[[DB:.+]] = tile.reduce sum %[[DZ]] [0]
// CHECK:         %[[DX:.+]] = tile.contract %[[DZ]], %w axes {{\[\[}}1, 1]]
// CHECK:         %[[DW:.+]] = tile.contract %x, %[[DZ]] axes {{\[\[}}0, 0]]
// CHECK-NOT:     tile.contract
// CHECK:         tile.store %[[DX]], %d_X
// CHECK-NEXT:    tile.store %[[DW]], %d_W
// CHECK-NEXT:    tile.store %[[DB]], %d_B

// Only W: no dx contraction, no db reduction.
// ONLYW-LABEL: tile.func @dense_bwd(
// ONLYW-SAME:    outs(%d_W: !tile.array<16x4xf32>)
// ONLYW:         tile.contract %x, %{{.+}} axes {{\[\[}}0, 0]]
// ONLYW-NOT:     tile.contract
// ONLYW-NOT:     tile.reduce
// ONLYW:         tile.return
tile.func @dense(%X: !tile.array<8x16xf32>, %W: !tile.array<16x4xf32>, %B: !tile.array<4xf32>) outs(%Y: !tile.array<8x4xf32>) {
  %x = tile.load %X : !tile.array<8x16xf32> -> !tile.tile<8x16xf32>
  %w = tile.load %W : !tile.array<16x4xf32> -> !tile.tile<16x4xf32>
  %b = tile.load %B : !tile.array<4xf32> -> !tile.tile<4xf32>
  %h = tile.contract %x, %w axes [[1, 0]] acc f32 : !tile.tile<8x16xf32>, !tile.tile<16x4xf32> -> !tile.tile<8x4xf32>
  %bb = tile.broadcast %b : !tile.tile<4xf32> to !tile.tile<8x4xf32>
  %z = tile.add %h, %bb : !tile.tile<8x4xf32>
  %t = tile.tanh %z : !tile.tile<8x4xf32>
  tile.store %t, %Y : !tile.tile<8x4xf32>, !tile.array<8x4xf32>
  tile.return
}
