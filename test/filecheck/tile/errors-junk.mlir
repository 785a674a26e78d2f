// Text that is not an operation, inside a region and at the top level.
// RUN: not tilec-opt %s --split-input-file > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t

tile.func @in_region() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // CHECK: errors-junk.mlir:[[# @LINE + 3]]:3: error: expected an operation or '}' to end the region, found '123'
  // CHECK-NEXT: {{^}}  123{{$}}
  // CHECK-NEXT: {{^}}  ^^^{{$}}
  123
  tile.return
}

// -----

tile.func @extra_brace() {
  tile.return
}
// CHECK: errors-junk.mlir:[[# @LINE + 3]]:1: error: expected an operation, found '}'
// CHECK-NEXT: {{^[}]$}}
// CHECK-NEXT: {{^\^$}}
}

// -----

// CHECK: errors-junk.mlir:[[# @LINE + 1]]:1: error: expected an operation, found '->'
-> tile.func
