// An unknown op, in custom and in generic form, of a known or unknown dialect: reported at its name.
// RUN: not tilec-opt %s --split-input-file > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t

tile.func @custom() {
  // CHECK: errors-unknown-op.mlir:[[# @LINE + 3]]:8: error: unknown operation 'tile.bogus'
  // CHECK-NEXT: {{^}}  %a = tile.bogus 1.0 : !tile.tile<4xf32>{{$}}
  // CHECK-NEXT: {{^}}       ^^^^^^^^^^{{$}}
  %a = tile.bogus 1.0 : !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @generic() {
  // CHECK: errors-unknown-op.mlir:[[# @LINE + 3]]:9: error: unknown operation 'zork.op'
  // CHECK-NEXT: {{^}}  %a = "zork.op"() : () -> i32{{$}}
  // CHECK-NEXT: {{^}}        ^^^^^^^{{$}}
  %a = "zork.op"() : () -> i32
  tile.return
}

// -----

// Nested two regions deep, without results.
builtin.module {
  tile.func @nested() {
    // CHECK: errors-unknown-op.mlir:[[# @LINE + 1]]:5: error: unknown operation 'tile.nop'
    tile.nop
    tile.return
  }
}

// -----

// A stray word after an op is read as the next op's name.
tile.func @junk() {
  // CHECK: errors-unknown-op.mlir:[[# @LINE + 3]]:46: error: unknown operation 'xx'
  // CHECK-NEXT: {{^}}  %a = tile.constant 1.0 : !tile.tile<4xf32> xx{{$}}
  // CHECK-NEXT: {{^}}                                             ^^{{$}}
  %a = tile.constant 1.0 : !tile.tile<4xf32> xx
  tile.return
}
