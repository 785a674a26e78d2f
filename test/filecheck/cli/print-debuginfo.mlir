// --print-debuginfo prints each op's source location as loc("FILE":LINE:COL). The output reads back
// and keeps the ORIGINAL locations, so a later error still points into this file.
// RUN: tilec-opt %s --print-debuginfo | filecheck %s
// RUN: tilec-opt %s --print-debuginfo | tilec-opt --print-debuginfo | filecheck %s
// RUN: tilec-opt %s --print-debuginfo -p tile-canonicalize | filecheck %s --check-prefix=CANON
// RUN: tilec-opt %s --print-debuginfo | not tilec-opt --load-pass-plugin %plugins/test_passes.py -p test-reject-transpose 2>&1 | filecheck %s --check-prefix=LATER

// CHECK:      builtin.module {
// CHECK-NEXT:   tile.func @f(%X: !tile.array<4x8xf32> loc(unknown)) outs(%Y: !tile.array<8x4xf32> loc(unknown)) {
// CHECK-NEXT:     %x = tile.load %X : !tile.array<4x8xf32> -> !tile.tile<4x8xf32> loc("{{.*}}print-debuginfo.mlir":[[# @LINE + 9]]:3)
// CHECK-NEXT:     %t = tile.transpose %x [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32> loc("{{.*}}print-debuginfo.mlir":[[# @LINE + 9]]:5)
// CHECK-NEXT:     tile.store %t, %Y : !tile.tile<8x4xf32>, !tile.array<8x4xf32> loc("{{.*}}print-debuginfo.mlir":[[# @LINE + 9]]:3)
// CHECK-NEXT:     tile.return loc("{{.*}}print-debuginfo.mlir":[[# @LINE + 9]]:3)
// CHECK-NEXT:   } loc("{{.*}}print-debuginfo.mlir":[[# @LINE + 4]]:1)
// CANON: tile.transpose %x [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32> loc("{{.*}}print-debuginfo.mlir":[[# @LINE + 5]]:5)
// LATER: {{.*}}print-debuginfo.mlir:[[# @LINE + 4]]:5: error: in pass 'test-reject-transpose': cannot handle this transpose
// LATER-NEXT: {{^}}    %t = tile.transpose %x [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>{{$}}
tile.func @f(%X: !tile.array<4x8xf32>) outs(%Y: !tile.array<8x4xf32>) {
  %x = tile.load %X : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
    %t = tile.transpose %x [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
  tile.store %t, %Y : !tile.tile<8x4xf32>, !tile.array<8x4xf32>
  tile.return
}
