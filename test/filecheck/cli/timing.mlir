// --timing reports the time of each pass and of the verification after it, to standard error
// (standard output keeps the IR). With --no-verify-each there are no verification rows.
// RUN: tilec-opt %s -p tile-canonicalize,cse --timing > %t.out 2> %t.err
// RUN: filecheck %s < %t.err
// RUN: filecheck %s --check-prefix=OUT < %t.out
// RUN: tilec-opt %s -p tile-canonicalize,cse --timing --no-verify-each 2>&1 >/dev/null | filecheck %s --check-prefix=NOVERIFY
// Without TILEC_VERIFY_EACH (lit sets it) tilec's own passes are verified only after the last
// one; --verify-each verifies after every pass again; a plugin's pass is always verified.
// RUN: env -u TILEC_VERIFY_EACH tilec-opt %s -p tile-canonicalize,cse --timing 2>&1 >/dev/null | filecheck %s --check-prefix=DEFAULT
// RUN: env -u TILEC_VERIFY_EACH tilec-opt %s -p tile-canonicalize,cse --timing --verify-each 2>&1 >/dev/null | filecheck %s
// RUN: env -u TILEC_VERIFY_EACH not tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p test-break-transpose,cse 2>&1 | filecheck %s --check-prefix=PLUGIN
// The report is printed even when a pass fails.
// RUN: not tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p cse,test-reject-transpose --timing 2>&1 | filecheck %s --check-prefix=FAIL

// CHECK:      tilec pass execution timing
// CHECK:      Total: {{[0-9]+\.[0-9]+}} ms
// CHECK-NEXT: ms        %      pass
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]+ +[0-9]+\.[0-9]%  tile-canonicalize$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]+ +[0-9]+\.[0-9]%  \(verify after tile-canonicalize\)$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]+ +[0-9]+\.[0-9]%  cse$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]+ +[0-9]+\.[0-9]%  \(verify after cse\)$}}
// OUT-NOT: timing
// OUT: tile.func @f
// NOVERIFY:      {{  cse$}}
// NOVERIFY-NOT:  verify after
// DEFAULT:      {{  tile-canonicalize$}}
// DEFAULT-NEXT: {{  cse$}}
// DEFAULT-NEXT: {{  \(verify after cse\)$}}
// PLUGIN: error: IR after pass 'test-break-transpose' does not verify
// FAIL: tilec pass execution timing
// FAIL: {{  cse$}}
// FAIL-NOT: test-reject-transpose$
// FAIL: error: in pass 'test-reject-transpose': cannot handle this transpose
tile.func @f(%X: !tile.array<4x8xf32>) outs(%Y: !tile.array<8x4xf32>) {
  %x = tile.load %X : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
  %t = tile.transpose %x [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
  tile.store %t, %Y : !tile.tile<8x4xf32>, !tile.array<8x4xf32>
  tile.return
}
