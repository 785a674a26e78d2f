// Ops may carry explicit locations (`loc("file":line:col)`, e.g. from the Python frontend): they are
// kept, printed by --print-debuginfo, and errors are reported there instead of in this file.
// RUN: tilec-opt %s --print-debuginfo | filecheck %s
// RUN: not tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p test-reject-transpose 2>&1 | filecheck %s --check-prefix=ERR

// CHECK: %t = tile.transpose %x [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32> loc("kernel.py":12:9)
// CHECK: tile.store %t, %Y : !tile.tile<8x4xf32>, !tile.array<8x4xf32> loc("{{.*}}input-locations.mlir":[[# @LINE + 6]]:3)
// ERR: {{^}}kernel.py:12:9: error: in pass 'test-reject-transpose': cannot handle this transpose{{$}}
// ERR-NOT: input-locations.mlir
tile.func @f(%X: !tile.array<4x8xf32>) outs(%Y: !tile.array<8x4xf32>) {
  %x = tile.load %X : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
  %t = tile.transpose %x [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32> loc("kernel.py":12:9)
  tile.store %t, %Y : !tile.tile<8x4xf32>, !tile.array<8x4xf32>
  tile.return
}
