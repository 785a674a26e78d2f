// --allow-unregistered-dialect accepts ops (generic form) and types of unknown dialects and prints
// them back; without it they are errors at the op or type name.
// RUN: tilec-opt %s --allow-unregistered-dialect | filecheck %s
// RUN: tilec-opt %s --allow-unregistered-dialect | tilec-opt --allow-unregistered-dialect | filecheck %s
// RUN: tilec-opt %s --allow-unregistered-dialect -p tile-canonicalize,cse | filecheck %s --check-prefix=PASSES
// RUN: not tilec-opt %s 2>&1 | filecheck %s --check-prefix=REJECT

// CHECK: tile.func @f(%A: !tile.array<4xf32>) {
// CHECK-NEXT: %a = tile.load %A
// CHECK-NEXT: %m = "zork.magic"(%a) {level = 3 : i64} : (!tile.tile<4xf32>) -> !zork.token
// CHECK-NEXT: "zork.consume"(%m) : (!zork.token) -> ()
// Unknown ops may have side effects: passes keep them.
// PASSES: "zork.magic"
// PASSES: "zork.consume"
// REJECT: allow-unregistered-dialect.mlir:[[# @LINE + 3]]:9: error: unknown operation 'zork.magic'
tile.func @f(%A: !tile.array<4xf32>) {
  %a = tile.load %A : !tile.array<4xf32> -> !tile.tile<4xf32>
  %m = "zork.magic"(%a) {level = 3 : i64} : (!tile.tile<4xf32>) -> !zork.token
  "zork.consume"(%m) : (!zork.token) -> ()
  tile.return
}
