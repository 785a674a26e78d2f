// `-t ptx`: the ptx path is not complete yet. It says "not supported yet" (possibly located at the op it cannot emit),
// exits 1, prints nothing on standard output and writes no output file.
// RUN: rm -f %t.out
// RUN: not tilec-opt %s -t ptx > %t.stdout 2> %t.stderr
// RUN: filecheck %s < %t.stderr
// RUN: filecheck %s --check-prefix=STDOUT --allow-empty < %t.stdout
// RUN: not tilec-opt %s -t ptx -o %t.out 2>&1 | filecheck %s
// RUN: not cat %t.out

// CHECK: {{^([^ ]+:[0-9]+:[0-9]+: )?}}error: not supported yet: {{.+}}
// CHECK-NOT: Traceback
// STDOUT-NOT: {{.}}
tile.func @f() outs(%Y: !tile.array<4xf32>) {
  %c = tile.constant 1.0 : !tile.tile<4xf32>
  tile.store %c, %Y : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.return
}
