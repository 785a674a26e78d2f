// --timing without passes: an empty report (a total of zero), still on standard error, exit 0.
// RUN: tilec-opt %s --timing 2>&1 >/dev/null | filecheck %s

// CHECK: tilec pass execution timing
// CHECK: Total: 0.000 ms
// CHECK-NEXT: ms        %      pass
// CHECK-NOT: {{.}}
tile.func @f() {
  tile.return
}
