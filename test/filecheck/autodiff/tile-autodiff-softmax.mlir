// tile-autodiff on softmax: the forward saves the row max and the row sum; the backward reads
// both from its residual inputs, recomputes exp(x - max) from x, and never recomputes a reduction
// of the forward.
// RUN: tilec-opt %s -p 'tile-autodiff{wrt=X mode=split}' | filecheck %s
// RUN: tilec-opt %s -p 'tile-autodiff{wrt=X}' | filecheck %s --check-prefix=VJP

// CHECK-LABEL: tile.func @softmax_fwd(%X: !tile.array<4x?xf32>) outs(%Y: !tile.array<4x?xf32>, %res0: !tile.array<4xf32>, %res1: !tile.array<4xf32>)
// CHECK:         %[[M:.+]] = tile.reduce max
// CHECK:         %[[S:.+]] = tile.reduce sum
// CHECK:         tile.store %[[M]], %res0
// CHECK-NEXT:    tile.store %[[S]], %res1
// CHECK-LABEL: tile.func @softmax_bwd(%X: !tile.array<4x?xf32>, %res0: !tile.array<4xf32>, %res1: !tile.array<4xf32>, %ct_Y: !tile.array<4x?xf32>) outs(%d_X: !tile.array<4x?xf32>)
// CHECK:         tile.load %ct_Y
// CHECK:         tile.load %res0
// CHECK:         tile.exp
// CHECK:         %[[SUM:.+]] = tile.load %res1
// CHECK:         tile.reshape %[[SUM]]
// CHECK-NOT:     tile.reduce max
// CHECK:         tile.store {{.*}}, %d_X
// CHECK-NEXT:    tile.return

// VJP-LABEL: tile.func @softmax_vjp(%X: !tile.array<4x?xf32>, %ct_Y: !tile.array<4x?xf32>) outs(%d_X: !tile.array<4x?xf32>)
// VJP:         tile.reduce max
// VJP:         tile.reduce sum
// VJP:         tile.store {{.*}}, %d_X
tile.func @softmax(%X: !tile.array<4x?xf32>) outs(%Y: !tile.array<4x?xf32>) {
  %x = tile.load %X : !tile.array<4x?xf32> -> !tile.tile<4x?xf32>
  %n = tile.dim %X 1 : !tile.array<4x?xf32>
  %m = tile.reduce max %x [1] : !tile.tile<4x?xf32> to !tile.tile<4xf32>
  %m1 = tile.reshape %m : !tile.tile<4xf32> to !tile.tile<4x1xf32>
  %mb = tile.broadcast %m1 sizes(%n) : !tile.tile<4x1xf32> to !tile.tile<4x?xf32>
  %z = tile.sub %x, %mb : !tile.tile<4x?xf32>
  %e = tile.exp %z : !tile.tile<4x?xf32>
  %s = tile.reduce sum %e [1] : !tile.tile<4x?xf32> to !tile.tile<4xf32>
  %s1 = tile.reshape %s : !tile.tile<4xf32> to !tile.tile<4x1xf32>
  %sb = tile.broadcast %s1 sizes(%n) : !tile.tile<4x1xf32> to !tile.tile<4x?xf32>
  %y = tile.div %e, %sb : !tile.tile<4x?xf32>
  tile.store %y, %Y : !tile.tile<4x?xf32>, !tile.array<4x?xf32>
  tile.return
}
