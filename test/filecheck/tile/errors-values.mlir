// SSA value errors: an undefined value (at its first use, not at the end of the file), a value
// defined twice, a value used with another type than its definition's.
// RUN: not tilec-opt %s --split-input-file > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t

tile.func @undefined() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // CHECK: errors-values.mlir:[[# @LINE + 3]]:21: error: use of undefined value %b
  // CHECK-NEXT: {{^}}  %c = tile.add %a, %b : !tile.tile<4xf32>{{$}}
  // CHECK-NEXT: {{^}}                    ^^{{$}}
  %c = tile.add %a, %b : !tile.tile<4xf32>
  tile.return
}

// -----

// Used twice before (never) being defined: the first use is reported.
tile.func @undefined_twice() {
  // CHECK: errors-values.mlir:[[# @LINE + 1]]:17: error: use of undefined value %x
  %a = tile.neg %x : !tile.tile<4xf32>
  %b = tile.neg %x : !tile.tile<4xf32>
  tile.return
}

// -----

// In generic form.
tile.func @undefined_generic() {
  // CHECK: errors-values.mlir:[[# @LINE + 1]]:19: error: use of undefined value %q
  %a = "tile.neg"(%q) : (!tile.tile<4xf32>) -> !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @redefined() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // CHECK: errors-values.mlir:[[# @LINE + 3]]:3: error: SSA value %a is already defined
  // CHECK-NEXT: {{^}}  %a = tile.constant 2.0 : !tile.tile<4xf32>{{$}}
  // CHECK-NEXT: {{^}}  ^^{{$}}
  %a = tile.constant 2.0 : !tile.tile<4xf32>
  tile.return
}

// -----

// A function argument redefined in the body.
tile.func @redefined_arg(%A: !tile.array<4xf32>) {
  // CHECK: errors-values.mlir:[[# @LINE + 1]]:3: error: SSA value %A is already defined
  %A = tile.constant 2.0 : !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @type_mismatch() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // CHECK: errors-values.mlir:[[# @LINE + 3]]:17: error: operand is used with type !tile.tile<8xf32>, but has been previously used or defined with type !tile.tile<4xf32>
  // CHECK-NEXT: {{^}}  %b = tile.exp %a : !tile.tile<8xf32>{{$}}
  // CHECK-NEXT: {{^}}                ^^{{$}}
  %b = tile.exp %a : !tile.tile<8xf32>
  tile.return
}

// -----

// An argument used as a tile of another element type.
tile.func @arg_mismatch(%A: !tile.array<4xf32>) outs(%B: !tile.array<4xf32>) {
  %a = tile.load %A : !tile.array<4xf32> -> !tile.tile<4xf32>
  // CHECK: errors-values.mlir:[[# @LINE + 1]]:18: error: operand is used with type !tile.array<4xf16>, but has been previously used or defined with type !tile.array<4xf32>
  tile.store %a, %B : !tile.tile<4xf32>, !tile.array<4xf16>
  tile.return
}

// -----

// Used above its definition (xDSL's parser resolves the forward reference; tilec rejects it).
tile.func @use_before_def() {
  // CHECK: errors-values.mlir:[[# @LINE + 3]]:3: error: neg: operand %b is used before it is defined (or where it is not visible)
  // CHECK-NEXT: {{^}}  %c = tile.neg %b : !tile.tile<4xf32>{{$}}
  // CHECK-NEXT: {{^}}  ^{{$}}
  %c = tile.neg %b : !tile.tile<4xf32>
  %b = tile.constant 1.0 : !tile.tile<4xf32>
  tile.return
}

// -----

// An op using its own result.
tile.func @self_use() {
  // CHECK: errors-values.mlir:[[# @LINE + 1]]:3: error: add: operand %c is used before it is defined (or where it is not visible)
  %c = tile.add %c, %c : !tile.tile<4xf32>
  tile.return
}
