tile.func @conv_bias_relu(%X: !tile.array<2x9x7x5xf32>, %W: !tile.array<6x3x3x5xf32>, %B: !tile.array<6xf32>) outs(%Y: !tile.array<2x5x4x6xf32>) {
  %x = tile.load %X : !tile.array<2x9x7x5xf32> -> !tile.tile<2x9x7x5xf32>
  %w = tile.load %W : !tile.array<6x3x3x5xf32> -> !tile.tile<6x3x3x5xf32>
  %b = tile.load %B : !tile.array<6xf32> -> !tile.tile<6xf32>
  %y = tile.conv %x, %w stride [2, 2] padding [[1, 1], [1, 1]] dilation [1, 1] lhs_dilation [1, 1] groups 1 layout channels_last : !tile.tile<2x9x7x5xf32>, !tile.tile<6x3x3x5xf32> -> !tile.tile<2x5x4x6xf32>
  %bb = tile.broadcast %b : !tile.tile<6xf32> to !tile.tile<2x5x4x6xf32>
  %s = tile.add %y, %bb : !tile.tile<2x5x4x6xf32>
  %z = tile.constant 0.0 : !tile.tile<2x5x4x6xf32>
  %r = tile.max %s, %z : !tile.tile<2x5x4x6xf32>
  tile.store %r, %Y : !tile.tile<2x5x4x6xf32>, !tile.array<2x5x4x6xf32>
  tile.return
}
