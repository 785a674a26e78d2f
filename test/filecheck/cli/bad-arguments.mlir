// Unknown flags and missing flag values: a usage line and an error, exit status 1 (not argparse's 2).
// RUN: not tilec-opt %s --no-such-flag > %t 2>&1
// RUN: filecheck %s < %t
// RUN: not tilec-opt %s -p 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not tilec-opt %s %s 2>&1 | filecheck %s --check-prefix=TWO

// CHECK: usage: tilec-opt
// CHECK: tilec-opt: error: unrecognized arguments: --no-such-flag
// MISSING: tilec-opt: error: argument -p/--passes: expected one argument
// TWO: tilec-opt: error: unrecognized arguments: {{.*}}bad-arguments.mlir
tile.func @f() {
  tile.return
}
