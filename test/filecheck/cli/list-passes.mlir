// --list-passes lists the passes (sorted, with the first line of their docstring) and the named
// pipelines, then exits 0 without reading any input. Plugin passes are listed when loaded.
// RUN: tilec-opt --list-passes | filecheck %s
// RUN: tilec-opt --list-passes %inputs/does-not-exist.mlir | filecheck %s
// RUN: tilec-opt --list-passes --load-pass-plugin %plugins/test_passes.py | filecheck %s --check-prefix=PLUGIN

// CHECK:      {{^}}passes:
// CHECK:      {{^  canonicalize +Apply every canonicalization pattern}}
// CHECK:      {{^  cse +Eliminate common subexpressions}}
// CHECK:      {{^  licm +Move side-effect-free ops that do not depend on a loop out of it \(upstream xDSL\).$}}
// CHECK:      {{^  tile-canonicalize +Local simplifications of tile IR}}
// CHECK:      {{^}}named pipelines:
// CHECK-NEXT: {{^  lower-to-c.* +tile -> mapped \(CPU\) -> hw.cpu}}
// CHECK-NEXT: {{^  lower-to-hip +}}
// CHECK-NEXT: {{^  lower-to-ptx +}}
// CHECK-NOT:  test-tag
// PLUGIN: {{^  test-boom +Fails with a plain Python exception: a bug in the pass.}}
// PLUGIN: {{^  test-tag +Sets a `tag` attribute on every tile.func, spelling out the pass options.}}
// PLUGIN: {{^}}named pipelines:
