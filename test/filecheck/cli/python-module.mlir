// `python -m tilec.cli` is the same tool as tilec-opt (same output, same exit status 1 on errors).
// RUN: %python -m tilec.cli %s -p tile-canonicalize | filecheck %s
// RUN: not %python -m tilec.cli %s -p nope 2>&1 | filecheck %s --check-prefix=ERR

// CHECK: tile.func @f() outs(%Y: !tile.array<2xf32>) {
// CHECK-NEXT: %n = tile.constant -3.000000e+00 : !tile.tile<2xf32>
// ERR: <pipeline>:1:1: error: unknown pass 'nope'
tile.func @f() outs(%Y: !tile.array<2xf32>) {
  %c = tile.constant 3.0 : !tile.tile<2xf32>
  %n = tile.neg %c : !tile.tile<2xf32>
  tile.store %n, %Y : !tile.tile<2xf32>, !tile.array<2xf32>
  tile.return
}
