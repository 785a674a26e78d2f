// A body without its terminator, and ops after the terminator.
// RUN: not tilec-opt %s --split-input-file > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t

// CHECK: errors-missing-terminator.mlir:[[# @LINE + 3]]:1: error: func: body must end with tile.return
// CHECK-NEXT: {{^}}tile.func @no_return() {{[{]}}{{$}}
// CHECK-NEXT: {{^}}^{{$}}
tile.func @no_return() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
}

// -----

// CHECK: errors-missing-terminator.mlir:[[# @LINE + 1]]:1: error: func: body must end with tile.return
tile.func @empty_body() {
}

// -----

// CHECK: errors-missing-terminator.mlir:[[# @LINE + 1]]:1: error: func: body must end with tile.return
tile.func @op_after_return() {
  tile.return
  %a = tile.constant 1.0 : !tile.tile<4xf32>
}

// -----

tile.func @fused_no_yield(%X: !tile.array<4xf32>) {
  %x = tile.load %X : !tile.array<4xf32> -> !tile.tile<4xf32>
  // CHECK: errors-missing-terminator.mlir:[[# @LINE + 1]]:3: error: fused: body must end with tile.yield
  %g = tile.fused elementwise (%x) : (!tile.tile<4xf32>) -> (!tile.tile<4xf32>) {
  ^bb0(%a: !tile.tile<4xf32>):
    %n = tile.neg %a : !tile.tile<4xf32>
  }
  tile.return
}

// -----

// The terminator of another op.
// CHECK: errors-missing-terminator.mlir:[[# @LINE + 1]]:1: error: func: body must end with tile.return
tile.func @yield_in_func() {
  tile.yield
}

// -----

tile.func @yield_then_return() {
  // CHECK: errors-missing-terminator.mlir:[[# @LINE + 1]]:3: error: tile.yield: 'tile.yield' {{must be the last operation in its parent block|expects parent op 'tile.fused'}}
  tile.yield
  tile.return
}
