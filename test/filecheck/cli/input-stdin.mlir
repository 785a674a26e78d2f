// Reading standard input: with no input argument, and with `-`. Errors name it <stdin>.
// RUN: cat %s | tilec-opt | filecheck %s
// RUN: cat %s | tilec-opt - | filecheck %s
// RUN: tilec-opt - < %s | filecheck %s
// RUN: cat %inputs/ok.mlir | tilec-opt -p test-reject-transpose --load-pass-plugin %plugins/test_passes.py | filecheck %s --check-prefix=OK
// RUN: echo "tile.func @f() {" | not tilec-opt 2>&1 | filecheck %s --check-prefix=ERR

// CHECK:      builtin.module {
// CHECK-NEXT:   tile.func @from_stdin() {
// CHECK-NEXT:     %c = tile.constant 2 : !tile.tile<4xi32>
// CHECK-NEXT:     tile.return
// OK: tile.func @ok
// ERR: <stdin>:2:1: error: expected an operation or '}' to end the region, found end of input
tile.func @from_stdin() {
  %c = tile.constant 2 : !tile.tile<4xi32>
  tile.return
}
