// --split-input-file on standard input: errors are located in <stdin> at their original lines.
// RUN: cat %s | not tilec-opt --split-input-file 2>&1 | filecheck %s

// CHECK: <stdin>:[[# @LINE + 11]]:3: error: neg: operand %b is used before it is defined (or where it is not visible)
// CHECK-NEXT: {{^}}  %a = tile.neg %b : !tile.tile<2xf32>{{$}}
// CHECK: builtin.module {
// CHECK-NEXT: tile.func @ok()
tile.func @ok() {
  tile.return
}

// -----

tile.func @bad() {
  %a = tile.neg %b : !tile.tile<2xf32>
  %b = tile.constant 1.0 : !tile.tile<2xf32>
  tile.return
}
