// An input without operations (this file holds only comments; Inputs/empty.mlir holds nothing;
// standard input may be empty too) is an error at 1:1, not an empty module.
// RUN: not tilec-opt %s > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t
// RUN: not tilec-opt %inputs/empty.mlir 2>&1 | filecheck %s --check-prefix=EMPTY
// RUN: not tilec-opt < %inputs/empty.mlir 2>&1 | filecheck %s --check-prefix=STDIN

// CHECK: errors-empty-input.mlir:1:1: error: empty input: expected an operation
// CHECK-NEXT: {{^}}// An input without operations
// CHECK-NEXT: {{^\^$}}
// EMPTY: empty.mlir:1:1: error: empty input: expected an operation
// STDIN: <stdin>:1:1: error: empty input: expected an operation
