// Pass options, set in braces and separated by spaces: strings, integers, floats, flags (bare or
// =true/false), lists (commas), quoted strings; option names with dashes or underscores.
// RUN: tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p test-tag | filecheck %s --check-prefix=DEFAULT
// RUN: tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p 'test-tag{label=hi count=3 scale=2.5 enable sizes=4,8}' | filecheck %s --check-prefix=SET
// RUN: tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p 'test-tag{enable=false count=-2 scale=1 sizes=7}' | filecheck %s --check-prefix=SET2
// RUN: tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p 'test-tag{label="a b,c" enable=true}' | filecheck %s --check-prefix=QUOTED
// RUN: tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p 'test-tag{ label=x1 },test-tag{count=9}' | filecheck %s --check-prefix=TWICE
// RUN: tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p 'test-tag{max-depth=3}' | filecheck %s --check-prefix=DASH
// RUN: tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p 'test-tag{max_depth=4}' | filecheck %s --check-prefix=UNDERSCORE

// DEFAULT: tile.func @f() attributes {tag = "label=x count=1 scale=1.0 enable=False sizes=[] max-depth=0"}
// SET: tile.func @f() attributes {tag = "label=hi count=3 scale=2.5 enable=True sizes=[4, 8] max-depth=0"}
// SET2: tile.func @f() attributes {tag = "label=x count=-2 scale=1.0 enable=False sizes=[7] max-depth=0"}
// QUOTED: tile.func @f() attributes {tag = "label=a b,c count=1 scale=1.0 enable=True sizes=[] max-depth=0"}
// TWICE: tile.func @f() attributes {tag = "label=x count=9 scale=1.0 enable=False sizes=[] max-depth=0"}
// DASH: tile.func @f() attributes {tag = "label=x count=1 scale=1.0 enable=False sizes=[] max-depth=3"}
// UNDERSCORE: tile.func @f() attributes {tag = "label=x count=1 scale=1.0 enable=False sizes=[] max-depth=4"}
tile.func @f() {
  tile.return
}
