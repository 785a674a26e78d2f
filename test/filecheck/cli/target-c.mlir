// `-t c` on tile-level IR: a located error naming the op and the pipeline to run first; it
// exits 1, prints nothing on standard output and writes no output file.
// RUN: rm -f %t.out
// RUN: not tilec-opt %s -t c > %t.stdout 2> %t.stderr
// RUN: filecheck %s < %t.stderr
// RUN: filecheck %s --check-prefix=STDOUT --allow-empty < %t.stdout
// RUN: not tilec-opt %s -t c -o %t.out 2>&1 | filecheck %s
// RUN: not cat %t.out

// CHECK: target-c.mlir:[[# @LINE + 3]]:1: error: -t c prints hw.cpu IR, but the input has tile.func (lower it first, e.g. -p lower-to-c)
// CHECK-NOT: Traceback
// STDOUT-NOT: {{.}}
tile.func @f() outs(%Y: !tile.array<4xf32>) {
  %c = tile.constant 1.0 : !tile.tile<4xf32>
  tile.store %c, %Y : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.return
}
