// An unknown pass name: located at the name, with a did-you-mean when one is close (passes and
// named pipelines both count), else a pointer to --list-passes. Checked before the input is read.
// RUN: not tilec-opt %s -p 'tile-canonicalise' 2>&1 | filecheck %s --check-prefix=TYPO
// RUN: not tilec-opt %s -p 'cse,tile-canonicalise,dce' 2>&1 | filecheck %s --check-prefix=MIDDLE
// RUN: not tilec-opt %s -p 'lower-to-cc' 2>&1 | filecheck %s --check-prefix=NAMED
// RUN: not tilec-opt %s -p 'xyzzy' 2>&1 | filecheck %s --check-prefix=FAR
// RUN: not tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p 'test-tags' 2>&1 | filecheck %s --check-prefix=PLUGIN
// RUN: not tilec-opt %inputs/does-not-exist.mlir -p 'xyzzy' 2>&1 | filecheck %s --check-prefix=FAR

// TYPO: <pipeline>:1:1: error: unknown pass 'tile-canonicalise' (did you mean 'tile-canonicalize'?)
// TYPO-NEXT: {{^}}tile-canonicalise{{$}}
// TYPO-NEXT: {{^}}^^^^^^^^^^^^^^^^^{{$}}
// MIDDLE: <pipeline>:1:5: error: unknown pass 'tile-canonicalise' (did you mean 'tile-canonicalize'?)
// MIDDLE-NEXT: {{^}}cse,tile-canonicalise,dce{{$}}
// MIDDLE-NEXT: {{^}}    ^^^^^^^^^^^^^^^^^{{$}}
// NAMED: <pipeline>:1:1: error: unknown pass 'lower-to-cc' (did you mean 'lower-to-c'?)
// FAR: <pipeline>:1:1: error: unknown pass 'xyzzy' (see tilec-opt --list-passes)
// PLUGIN: <pipeline>:1:1: error: unknown pass 'test-tags' (did you mean 'test-tag'?)
tile.func @f() {
  tile.return
}
