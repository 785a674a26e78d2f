// A pass that rejects its input with PassFailure: the error names the pass and points at the op,
// with the source line and caret; exit 1; the rest of the pipeline does not run.
// RUN: not tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p test-reject-transpose,test-tag > %t.out 2> %t.err
// RUN: filecheck %s < %t.err
// RUN: filecheck %inputs/no-traceback.check < %t.err
// RUN: filecheck %s --check-prefix=OUT --allow-empty < %t.out
// With --split-input-file the other chunks still print.
// RUN: not tilec-opt %s --split-input-file --load-pass-plugin %plugins/test_passes.py -p test-reject-transpose 2>&1 | filecheck %s --check-prefix=SPLIT

// CHECK: pass-failure.mlir:[[# @LINE + 9]]:3: error: in pass 'test-reject-transpose': cannot handle this transpose
// CHECK-NEXT: {{^}}  %t = tile.transpose %x [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>{{$}}
// CHECK-NEXT: {{^}}  ^{{$}}
// OUT-NOT: {{.}}
// SPLIT: pass-failure.mlir:[[# @LINE + 5]]:3: error: in pass 'test-reject-transpose': cannot handle this transpose
// SPLIT: builtin.module {
// SPLIT-NEXT: tile.func @no_transpose()
tile.func @f(%X: !tile.array<4x8xf32>) outs(%Y: !tile.array<8x4xf32>) {
  %x = tile.load %X : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
  %t = tile.transpose %x [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
  tile.store %t, %Y : !tile.tile<8x4xf32>, !tile.array<8x4xf32>
  tile.return
}

// -----

tile.func @no_transpose() {
  tile.return
}
