// tile-autodiff errors: located at the op (file:line:col), no traceback.
// RUN: not tilec-opt %s --split-input-file -p 'tile-autodiff{wrt=X}' > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t

// A bitcast of integers back to floats on the path from X to the output: a cotangent reaches it
// and it cannot pass it on.
tile.func @bits(%X: !tile.array<8xf32>) outs(%Y: !tile.array<8xf32>) {
  %x = tile.load %X : !tile.array<8xf32> -> !tile.tile<8xf32>
  %u = tile.bitcast %x : !tile.tile<8xf32> to !tile.tile<8xui32>
  // CHECK: tile-autodiff-errors.mlir:[[# @LINE + 1]]:3: error: in pass 'tile-autodiff': tile.bitcast is not differentiable (it reinterprets bits), but it lies on a path from 'X' to an output
  %f = tile.bitcast %u : !tile.tile<8xui32> to !tile.tile<8xf32>
  tile.store %f, %Y : !tile.tile<8xf32>, !tile.array<8xf32>
  tile.return
}

// -----

// Already fused IR: autodiff runs on the tile program before tile-fuse.
tile.func @fused(%X: !tile.array<8xf32>) outs(%Y: !tile.array<8xf32>) {
  %x = tile.load %X : !tile.array<8xf32> -> !tile.tile<8xf32>
  // CHECK: tile-autodiff-errors.mlir:[[# @LINE + 1]]:3: error: in pass 'tile-autodiff': not supported yet: differentiating fused IR (tile.fused): autodiff runs before tile-fuse
  %y = tile.fused elementwise (%x) : (!tile.tile<8xf32>) -> (!tile.tile<8xf32>) {
  ^bb0(%a: !tile.tile<8xf32>):
    %e = tile.exp %a : !tile.tile<8xf32>
    tile.yield %e : !tile.tile<8xf32>
  }
  tile.store %y, %Y : !tile.tile<8xf32>, !tile.array<8xf32>
  tile.return
}

// -----

// CHECK: tile-autodiff-errors.mlir:[[# @LINE + 1]]:1: error: in pass 'tile-autodiff': cannot differentiate with respect to 'X': only float array inputs have cotangents, it is !tile.array<8xi32>
tile.func @ints(%X: !tile.array<8xi32>) outs(%Y: !tile.array<8xi32>) {
  %x = tile.load %X : !tile.array<8xi32> -> !tile.tile<8xi32>
  tile.store %x, %Y : !tile.tile<8xi32>, !tile.array<8xi32>
  tile.return
}

// -----

// CHECK: tile-autodiff-errors.mlir:[[# @LINE + 1]]:1: error: in pass 'tile-autodiff': wrt names 'X', which is not an input of @nox (inputs: A)
tile.func @nox(%A: !tile.array<8xf32>) outs(%Y: !tile.array<8xf32>) {
  %x = tile.load %A : !tile.array<8xf32> -> !tile.tile<8xf32>
  tile.store %x, %Y : !tile.tile<8xf32>, !tile.array<8xf32>
  tile.return
}
