// tile.cmp with every predicate (floats and integers) and tile.select.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @cmp
tile.func @cmp(%X: !tile.array<64xf32>, %Y: !tile.array<64xf32>) outs(%Z: !tile.array<64xf32>) {
  %x = tile.load %X : !tile.array<64xf32> -> !tile.tile<64xf32>
  %y = tile.load %Y : !tile.array<64xf32> -> !tile.tile<64xf32>
  // CHECK: %eq = tile.cmp eq %x, %y : !tile.tile<64xf32>
  // GENERIC: %eq = "tile.cmp"(%x, %y) <{predicate = "eq"}> : (!tile.tile<64xf32>, !tile.tile<64xf32>) -> !tile.tile<64xi1>
  %eq = tile.cmp eq %x, %y : !tile.tile<64xf32>
  // CHECK-NEXT: %ne = tile.cmp ne %x, %y : !tile.tile<64xf32>
  // GENERIC: <{predicate = "ne"}>
  %ne = tile.cmp ne %x, %y : !tile.tile<64xf32>
  // CHECK-NEXT: %lt = tile.cmp lt %x, %y : !tile.tile<64xf32>
  // GENERIC: <{predicate = "lt"}>
  %lt = tile.cmp lt %x, %y : !tile.tile<64xf32>
  // CHECK-NEXT: %le = tile.cmp le %x, %y : !tile.tile<64xf32>
  // GENERIC: <{predicate = "le"}>
  %le = tile.cmp le %x, %y : !tile.tile<64xf32>
  // CHECK-NEXT: %gt = tile.cmp gt %x, %y : !tile.tile<64xf32>
  // GENERIC: <{predicate = "gt"}>
  %gt = tile.cmp gt %x, %y : !tile.tile<64xf32>
  // CHECK-NEXT: %ge = tile.cmp ge %x, %y {hint} : !tile.tile<64xf32>
  // GENERIC: %ge = "tile.cmp"(%x, %y) <{predicate = "ge"}> {hint} : (!tile.tile<64xf32>, !tile.tile<64xf32>) -> !tile.tile<64xi1>
  %ge = tile.cmp ge %x, %y {hint} : !tile.tile<64xf32>
  // CHECK-NEXT: %r = tile.select %lt, %x, %y : !tile.tile<64xf32>
  // GENERIC: %r = "tile.select"(%lt, %x, %y) : (!tile.tile<64xi1>, !tile.tile<64xf32>, !tile.tile<64xf32>) -> !tile.tile<64xf32>
  %r = tile.select %lt, %x, %y : !tile.tile<64xf32>
  tile.store %r, %Z : !tile.tile<64xf32>, !tile.array<64xf32>
  tile.return
}

// CHECK-LABEL: tile.func @integers
tile.func @integers(%n: index) {
  %a = tile.iota 0 sizes(%n) : !tile.tile<?xi32>
  %b = tile.constant 3 sizes(%n) : !tile.tile<?xi32>
  // CHECK: %m = tile.cmp le %a, %b : !tile.tile<?xi32>
  %m = tile.cmp le %a, %b : !tile.tile<?xi32>
  // CHECK-NEXT: %s = tile.select %m, %a, %b {tag = 1 : i64} : !tile.tile<?xi32>
  %s = tile.select %m, %a, %b {tag = 1 : i64} : !tile.tile<?xi32>
  // A mask may itself be compared and selected.
  // CHECK-NEXT: %mm = tile.cmp eq %m, %m : !tile.tile<?xi1>
  %mm = tile.cmp eq %m, %m : !tile.tile<?xi1>
  // CHECK-NEXT: %ms = tile.select %mm, %m, %m : !tile.tile<?xi1>
  %ms = tile.select %mm, %m, %m : !tile.tile<?xi1>
  tile.return
}
