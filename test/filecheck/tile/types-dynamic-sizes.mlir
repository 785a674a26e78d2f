// Ops that create a tile with `?` dimensions need one `sizes(...)` index operand per `?`.
// RUN: not tilec-opt %s --split-input-file > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t

tile.func @constant(%n: index) {
  // CHECK: types-dynamic-sizes.mlir:[[# @LINE + 3]]:3: error: constant: result type !tile.tile<?x?xf32> has 2 dynamic dimension(s) but 1 size operand(s) were given
  // CHECK-NEXT: {{^}}  %c = tile.constant 0.0 sizes(%n) : !tile.tile<?x?xf32>{{$}}
  // CHECK-NEXT: {{^}}  ^{{$}}
  %c = tile.constant 0.0 sizes(%n) : !tile.tile<?x?xf32>
  tile.return
}

// -----

tile.func @iota() {
  // CHECK: types-dynamic-sizes.mlir:[[# @LINE + 1]]:3: error: iota: result type !tile.tile<?xi32> has 1 dynamic dimension(s) but 0 size operand(s) were given
  %i = tile.iota 0 : !tile.tile<?xi32>
  tile.return
}

// -----

tile.func @broadcast(%n: index) {
  %r = tile.constant 1.0 : !tile.tile<1x8xf32>
  // CHECK: types-dynamic-sizes.mlir:[[# @LINE + 1]]:3: error: broadcast: result type !tile.tile<?x8xf32> has 1 dynamic dimension(s) but 0 size operand(s) were given
  %b = tile.broadcast %r : !tile.tile<1x8xf32> to !tile.tile<?x8xf32>
  tile.return
}

// -----

tile.func @reshape(%n: index) {
  %r = tile.constant 1.0 : !tile.tile<4x8xf32>
  // CHECK: types-dynamic-sizes.mlir:[[# @LINE + 1]]:3: error: reshape: result type !tile.tile<32xf32> has 0 dynamic dimension(s) but 1 size operand(s) were given
  %b = tile.reshape %r sizes(%n) : !tile.tile<4x8xf32> to !tile.tile<32xf32>
  tile.return
}

// -----

// A size operand must be an index: a parse error at the use of the i32 value.
tile.func @size_type(%k: i32) {
  // CHECK: types-dynamic-sizes.mlir:[[# @LINE + 1]]:32: error: operand is used with type index, but has been previously used or defined with type i32
  %c = tile.constant 0.0 sizes(%k) : !tile.tile<?xf32>
  tile.return
}

// -----

// A dense literal cannot fill a dynamic tile.
tile.func @dense() {
  // CHECK: types-dynamic-sizes.mlir:[[# @LINE + 1]]:22: error: a dense literal needs a static tile shape, got ?
  %c = tile.constant dense<[1, 2]> : !tile.tile<?xi32>
  tile.return
}
