// --split-input-file with errors: each failing chunk is reported at its line in the ORIGINAL file,
// the other chunks are still processed and printed (joined by `// -----`), and the exit status is 1.
// RUN: not tilec-opt %s --split-input-file > %t.out 2> %t.err
// RUN: filecheck %s --check-prefix=ERR < %t.err
// RUN: filecheck %s --check-prefix=OUT < %t.out
// RUN: filecheck %inputs/no-traceback.check < %t.err
// Without the flag the first error stops everything.
// RUN: not tilec-opt %s > %t.whole 2>&1
// RUN: filecheck %s --check-prefix=WHOLE < %t.whole

// OUT:      tile.func @good_first()
// OUT:      // -----
// OUT-NEXT: builtin.module {
// OUT-NEXT:   tile.func @good_last()
// OUT-NOT:  bad

// WHOLE: split-input-file-errors.mlir:[[# @LINE + 14]]:17: error: operand is used with type
// WHOLE-NOT: error:
tile.func @good_first() {
  tile.return
}

// -----

// A parse error in the second chunk.
tile.func @bad_parse() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // ERR: split-input-file-errors.mlir:[[# @LINE + 3]]:17: error: operand is used with type !tile.tile<8xf32>, but has been previously used or defined with type !tile.tile<4xf32>
  // ERR-NEXT: {{^}}  %b = tile.neg %a : !tile.tile<8xf32>{{$}}
  // ERR-NEXT: {{^}}                ^^{{$}}
  %b = tile.neg %a : !tile.tile<8xf32>
  tile.return
}

// -----

// A verifier error in the third.
tile.func @bad_verify() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  // ERR: split-input-file-errors.mlir:[[# @LINE + 3]]:3: error: exp: needs a float tile, got i32
  // ERR-NEXT: {{^}}  %b = tile.exp %a : !tile.tile<4xi32>{{$}}
  // ERR-NEXT: {{^}}  ^{{$}}
  %b = tile.exp %a : !tile.tile<4xi32>
  tile.return
}

// -----

tile.func @good_last() {
  tile.return
}
