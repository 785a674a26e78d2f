// --load-pass-plugin FILE runs a Python file whose @register_pass classes become usable with -p
// (alone, with options, mixed with built-in passes). The flag repeats; loading a file twice is harmless.
// RUN: tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p test-tag | filecheck %s
// RUN: tilec-opt %s --load-pass-plugin=%plugins/test_passes.py -p 'tile-canonicalize,test-tag{label=y},cse' | filecheck %s --check-prefix=MIXED
// RUN: tilec-opt %s --load-pass-plugin %plugins/test_passes.py --load-pass-plugin %plugins/test_passes.py -p test-tag | filecheck %s
// Without the plugin the pass is unknown.
// RUN: not tilec-opt %s -p test-tag 2>&1 | filecheck %s --check-prefix=UNKNOWN

// CHECK: tile.func @f() outs(%Y: !tile.array<4xf32>) attributes {tag = "label=x count=1 scale=1.0 enable=False sizes=[] max-depth=0"} {
// CHECK-NEXT: %c = tile.constant 1.000000e+00 : !tile.tile<4xf32>
// CHECK-NEXT: %n = tile.neg %c
// MIXED: tile.func @f() outs(%Y: !tile.array<4xf32>) attributes {tag = "label=y
// MIXED-NEXT: %n = tile.constant -1.000000e+00 : !tile.tile<4xf32>
// UNKNOWN: <pipeline>:1:1: error: unknown pass 'test-tag' (see tilec-opt --list-passes)
tile.func @f() outs(%Y: !tile.array<4xf32>) {
  %c = tile.constant 1.0 : !tile.tile<4xf32>
  %n = tile.neg %c : !tile.tile<4xf32>
  tile.store %n, %Y : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.return
}
