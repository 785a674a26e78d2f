// Reading the input from a file named on the command line; the result goes to standard output
// with exit status 0 and nothing on standard error.
// RUN: tilec-opt %s > %t.out 2> %t.err
// RUN: filecheck %s < %t.out
// RUN: filecheck %s --check-prefix=ERR --allow-empty < %t.err

// CHECK:      builtin.module {
// CHECK-NEXT:   tile.func @from_file(%A: !tile.array<4xf32>) outs(%B: !tile.array<4xf32>) {
// CHECK-NEXT:     %a = tile.load %A : !tile.array<4xf32> -> !tile.tile<4xf32>
// CHECK-NEXT:     tile.store %a, %B : !tile.tile<4xf32>, !tile.array<4xf32>
// CHECK-NEXT:     tile.return
// CHECK-NEXT:   }
// CHECK-NEXT: }
// ERR-NOT: {{.}}
tile.func @from_file(%A: !tile.array<4xf32>) outs(%B: !tile.array<4xf32>) {
  %a = tile.load %A : !tile.array<4xf32> -> !tile.tile<4xf32>
  tile.store %a, %B : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.return
}
