// An unknown target, a malformed target and a target list: located in <target>; exit 1.
// RUN: not tilec-opt %s -t llvm 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not tilec-opt %s -t 'c,ptx' 2>&1 | filecheck %s --check-prefix=TWO
// RUN: not tilec-opt %s -t 'c{' 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not tilec-opt %s -t '' 2>&1 | filecheck %s --check-prefix=EMPTY

// UNKNOWN: <target>:1:1: error: unknown target 'llvm' (targets: mlir, c, ptx, hip)
// UNKNOWN-NEXT: {{^}}llvm{{$}}
// UNKNOWN-NEXT: {{^}}^^^^{{$}}
// TWO: <target>:1:1: error: -t takes exactly one target
// BAD: <target>:1:3: error: missing '}' at end of pass options
// EMPTY: <target>:1:1: error: -t takes exactly one target
tile.func @f() {
  tile.return
}
