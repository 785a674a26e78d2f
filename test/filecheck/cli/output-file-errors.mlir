// An output file that cannot be written is an error (exit 1, no traceback); when the input has an
// error, the output file is not written at all.
// RUN: not tilec-opt %s -o %t.no-such-dir/out.mlir 2>&1 | filecheck %s --check-prefix=NODIR
// RUN: rm -f %t.out
// RUN: not tilec-opt %inputs/empty.mlir -o %t.out 2>&1 | filecheck %s --check-prefix=BADINPUT
// RUN: not cat %t.out

// NODIR: {{^}}error: cannot write output file '{{.*}}.no-such-dir/out.mlir': No such file or directory
// NODIR-NOT: Traceback
// BADINPUT: empty.mlir:1:1: error: empty input: expected an operation
tile.func @f() {
  tile.return
}
