// Input files that cannot be read: a missing file, a directory, a file that is not UTF-8 (located at
// the first bad byte, quoted with U+FFFD in its place; on standard input too). Exit 1 and no traceback.
// RUN: not tilec-opt %inputs/does-not-exist.mlir > %t.missing 2>&1
// RUN: filecheck %s --check-prefix=MISSING < %t.missing
// RUN: filecheck %inputs/no-traceback.check < %t.missing
// RUN: not tilec-opt %inputs 2>&1 | filecheck %s --check-prefix=DIR
// RUN: %python %inputs/write_non_utf8.py %t.latin1.mlir
// RUN: not tilec-opt %t.latin1.mlir > %t.bytes 2>&1
// RUN: filecheck %s --check-prefix=BYTES < %t.bytes
// RUN: filecheck %inputs/no-traceback.check < %t.bytes
// RUN: not tilec-opt < %t.latin1.mlir 2>&1 | filecheck %s --check-prefix=STDIN

// MISSING: {{^}}{{.*}}does-not-exist.mlir:1:1: error: cannot open input file: no such file{{$}}
// DIR: {{^}}{{.*}}Inputs:1:1: error: cannot open input file: it is a directory{{$}}
// BYTES: {{^}}{{.*}}.latin1.mlir:3:10: error: input is not UTF-8 text (invalid continuation byte at byte 40){{$}}
// BYTES-NEXT: {{^[}]  // caf.$}}
// BYTES-NEXT: {{^         \^$}}
// STDIN: {{^}}<stdin>:3:10: error: input is not UTF-8 text (invalid continuation byte at byte 40){{$}}
