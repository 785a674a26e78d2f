// A plugin with a syntax error, one that raises while it is imported, and one that does not exist:
// located errors (the plugin's file:line:col where known), exit 1, no traceback.
// RUN: not tilec-opt %s --load-pass-plugin %plugins/syntax_error.py -p cse > %t.syntax 2>&1
// RUN: filecheck %s --check-prefix=SYNTAX < %t.syntax
// RUN: filecheck %inputs/no-traceback.check < %t.syntax
// RUN: not tilec-opt %s --load-pass-plugin %plugins/import_error.py > %t.import 2>&1
// RUN: filecheck %s --check-prefix=IMPORT < %t.import
// RUN: filecheck %inputs/no-traceback.check < %t.import
// RUN: not tilec-opt %s --load-pass-plugin %plugins/no_such_plugin.py 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not tilec-opt %s --load-pass-plugin %plugins 2>&1 | filecheck %s --check-prefix=DIR
// --list-passes loads plugins too, with the same errors.
// RUN: not tilec-opt --list-passes --load-pass-plugin %plugins/import_error.py 2>&1 | filecheck %s --check-prefix=IMPORT

// SYNTAX: {{.*}}syntax_error.py:4:12: error: syntax error in pass plugin: invalid syntax
// SYNTAX-NEXT: {{^}}def broken(:{{$}}
// SYNTAX-NEXT: {{^}}           ^{{$}}
// IMPORT: {{.*}}import_error.py:3:1: error: pass plugin failed to load: RuntimeError: this plugin refuses to load
// IMPORT-NEXT: {{^}}raise RuntimeError("this plugin refuses to load"){{$}}
// IMPORT-NEXT: {{^}}^{{$}}
// MISSING: {{^}}error: pass plugin '{{.*}}no_such_plugin.py' does not exist
// DIR: {{^}}error: pass plugin '{{.*}}plugins' is a directory, not a Python file
tile.func @f() {
  tile.return
}
