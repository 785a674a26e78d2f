// --verify-diagnostics also checks errors raised by passes (here a PassFailure and IR that no longer
// verifies after a pass), so pass diagnostics can be tested like verifier ones.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics --load-pass-plugin %plugins/test_passes.py -p test-reject-transpose
// RUN: not tilec-opt %s --split-input-file --verify-diagnostics --load-pass-plugin %plugins/test_passes.py -p test-break-transpose 2>&1 | filecheck %s

// CHECK: unexpected error: {{.*}}verify-diagnostics-passes.mlir:[[# @LINE + 4]]:3: error: IR after pass 'test-break-transpose' does not verify: transpose: [0, 0] is not a permutation of the 2 axes
// CHECK: verify-diagnostics-passes.mlir:[[# @LINE + 3]]: error: expected error "in pass 'test-reject-transpose': cannot handle this transpose" was not produced
tile.func @f(%X: !tile.array<4x8xf32>) {
  %x = tile.load %X : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
  %t = tile.transpose %x [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32> // expected-error {{in pass 'test-reject-transpose': cannot handle this transpose}}
  tile.return
}

// -----

// No transpose here: no error, with either pass.
tile.func @g() {
  tile.return
}
