// Shared input of the lowering tests: a dynamic-size matmul and a static softmax (tile level).
tile.func @matmul(%A: !tile.array<?x?xf32>, %B: !tile.array<?x?xf32>) outs(%C: !tile.array<?x?xf32>) {
  %a = tile.load %A : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %b = tile.load %B : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %c = tile.contract %a, %b axes [[1, 0]] acc f32 : !tile.tile<?x?xf32>, !tile.tile<?x?xf32> -> !tile.tile<?x?xf32>
  tile.store %c, %C : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.return
}

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
