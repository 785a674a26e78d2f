// `-t mlir` (the default) prints the IR; `--target` is the long form.
// RUN: tilec-opt %s -t mlir | filecheck %s
// RUN: tilec-opt %s --target mlir | filecheck %s
// RUN: tilec-opt %s -t mlir -p tile-canonicalize | filecheck %s --check-prefix=CANON

// CHECK: builtin.module {
// CHECK-NEXT: tile.func @f() outs(%Y: !tile.array<4xf32>) {
// CHECK-NEXT: %c = tile.constant 1.000000e+00 : !tile.tile<4xf32>
// CHECK-NEXT: %n = tile.neg %c : !tile.tile<4xf32>
// CANON: %n = tile.constant -1.000000e+00 : !tile.tile<4xf32>
// CANON-NEXT: tile.store %n, %Y
tile.func @f() outs(%Y: !tile.array<4xf32>) {
  %c = tile.constant 1.0 : !tile.tile<4xf32>
  %n = tile.neg %c : !tile.tile<4xf32>
  tile.store %n, %Y : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.return
}
