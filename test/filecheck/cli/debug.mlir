// A pass that fails with a plain Python exception is a bug in the pass: without --debug one
// "internal error in pass" message (no traceback); with --debug the Python traceback.
// RUN: not tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p test-boom > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %s --check-prefix=NOTB < %t
// RUN: not tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p test-boom --debug 2>&1 | filecheck %s --check-prefix=DEBUG
// A user error with --debug also shows where it was raised.
// RUN: not tilec-opt %s -p nope --debug 2>&1 | filecheck %s --check-prefix=USER

// CHECK: {{^}}error: internal error in pass 'test-boom': ZeroDivisionError: integer division or modulo by zero{{$}}
// CHECK-NEXT: {{^}}note: this is a bug in the pass; rerun with --debug for a traceback{{$}}
// CHECK-NOT: {{.}}
// NOTB-NOT: Traceback
// DEBUG: Traceback (most recent call last):
// DEBUG: test_passes.py", line {{[0-9]+}}, in apply
// DEBUG: ZeroDivisionError: integer division or modulo by zero
// USER: Traceback (most recent call last):
// USER: unknown pass 'nope'
tile.func @f() {
  tile.return
}
