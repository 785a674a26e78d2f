// `-o FILE` writes the output there (nothing on standard output); --output-file is the long form.
// RUN: rm -f %t.mlir
// RUN: tilec-opt %s -o %t.mlir > %t.stdout
// RUN: cat %t.mlir | filecheck %s
// RUN: filecheck %s --check-prefix=STDOUT --allow-empty < %t.stdout
// RUN: tilec-opt %s --output-file %t.2.mlir -p tile-canonicalize
// RUN: filecheck %s --check-prefix=CANON < %t.2.mlir
// The written file reads back.
// RUN: tilec-opt %t.mlir | filecheck %s

// CHECK: builtin.module {
// CHECK-NEXT: tile.func @f() outs(%Y: !tile.array<4xf32>) {
// CHECK-NEXT: %c = tile.constant 2.000000e+00 : !tile.tile<4xf32>
// CHECK-NEXT: %t = tile.transpose %c [0] : !tile.tile<4xf32> to !tile.tile<4xf32>
// STDOUT-NOT: {{.}}
// CANON: tile.func @f
// CANON-NEXT: %c = tile.constant 2.000000e+00 : !tile.tile<4xf32>
// CANON-NEXT: tile.store %c, %Y
tile.func @f() outs(%Y: !tile.array<4xf32>) {
  %c = tile.constant 2.0 : !tile.tile<4xf32>
  %t = tile.transpose %c [0] : !tile.tile<4xf32> to !tile.tile<4xf32>
  tile.store %t, %Y : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.return
}
