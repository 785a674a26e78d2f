// By default the IR is verified after every pass, so a pass that leaves invalid IR is caught at
// once, named, and located. --no-verify-each skips that (the broken IR is printed as it is).
// RUN: not tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p test-break-transpose,cse > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t
// RUN: tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p test-break-transpose,cse --no-verify-each | filecheck %s --check-prefix=NOVERIFY

// CHECK: no-verify-each.mlir:[[# @LINE + 6]]:3: error: IR after pass 'test-break-transpose' does not verify: transpose: [0, 0] is not a permutation of the 2 axes
// CHECK-NEXT: {{^}}  %t = tile.transpose %x [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>{{$}}
// CHECK-NEXT: {{^}}  ^{{$}}
// NOVERIFY: %t = tile.transpose %x [0, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
tile.func @f(%X: !tile.array<4x8xf32>) outs(%Y: !tile.array<8x4xf32>) {
  %x = tile.load %X : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
  %t = tile.transpose %x [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
  tile.store %t, %Y : !tile.tile<8x4xf32>, !tile.array<8x4xf32>
  tile.return
}
