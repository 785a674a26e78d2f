// Bad pass options: unknown names (with the list of known ones), values of the wrong type, a list
// for a single value, a missing value. All are located in <pipeline> and exit 1 before any input is read.
// RUN: not tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p 'test-tag{nope=1}' 2>&1 | filecheck %s --check-prefix=NAME
// RUN: not tilec-opt %s -p 'tile-canonicalize{x=1}' 2>&1 | filecheck %s --check-prefix=NONE
// RUN: not tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p 'test-tag{count=x}' 2>&1 | filecheck %s --check-prefix=INT
// RUN: not tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p 'test-tag{count=1.5}' 2>&1 | filecheck %s --check-prefix=INT2
// RUN: not tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p 'test-tag{enable=3}' 2>&1 | filecheck %s --check-prefix=BOOL
// RUN: not tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p 'test-tag{scale=abc}' 2>&1 | filecheck %s --check-prefix=FLOAT
// RUN: not tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p 'test-tag{sizes=4,b}' 2>&1 | filecheck %s --check-prefix=LIST
// RUN: not tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p 'test-tag{count=1,2}' 2>&1 | filecheck %s --check-prefix=ONE
// RUN: not tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p 'test-tag{count}' 2>&1 | filecheck %s --check-prefix=VALUE
// RUN: not tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p 'cse,test-tag{count=1 count=2}' 2>&1 | filecheck %s --check-prefix=TWICE

// NAME: <pipeline>:1:10: error: pass 'test-tag' has no option 'nope' (options: label, count, scale, enable, sizes, max-depth)
// NAME-NEXT: {{^}}test-tag{nope=1}{{$}}
// NAME-NEXT: {{^}}         ^^^^{{$}}
// NONE: <pipeline>:1:19: error: pass 'tile-canonicalize' has no option 'x' (options: none)
// INT: <pipeline>:1:16: error: option 'count' of pass 'test-tag' expects an integer, got x
// INT-NEXT: {{^}}test-tag{count=x}{{$}}
// INT-NEXT: {{^}}               ^{{$}}
// INT2: <pipeline>:1:16: error: option 'count' of pass 'test-tag' expects an integer, got 1.5
// BOOL: <pipeline>:1:17: error: option 'enable' of pass 'test-tag' expects true or false, got 3
// FLOAT: <pipeline>:1:16: error: option 'scale' of pass 'test-tag' expects a number, got abc
// LIST: <pipeline>:1:16: error: option 'sizes' of pass 'test-tag' expects an integer, got b
// ONE: <pipeline>:1:16: error: option 'count' of pass 'test-tag' takes one value, got 2
// VALUE: <pipeline>:1:10: error: option 'count' of pass 'test-tag' needs a value
// TWICE: <pipeline>:1:22: error: option 'count' given twice
// TWICE-NEXT: {{^}}cse,test-tag{count=1 count=2}{{$}}
// TWICE-NEXT: {{^}}                     ^^^^^{{$}}
tile.func @f() {
  tile.return
}
