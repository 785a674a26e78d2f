// tile.dim on arrays and on tiles, static and dynamic axes.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @dims
// CHECK:      %n = tile.dim %A 0 : !tile.array<?x64xf32>
// CHECK-NEXT: %k = tile.dim %A 1 : !tile.array<?x64xf32>
// CHECK-NEXT: %a = tile.load %A
// CHECK-NEXT: %m = tile.dim %a 0 : !tile.tile<?x64xf32>
// CHECK-NEXT: %s = tile.dim %a 1 {hint = "static"} : !tile.tile<?x64xf32>
// GENERIC: %n = "tile.dim"(%A) <{axis = #builtin.int<0>}> : (!tile.array<?x64xf32>) -> index
// GENERIC: %s = "tile.dim"(%a) <{axis = #builtin.int<1>}> {hint = "static"} : (!tile.tile<?x64xf32>) -> index
tile.func @dims(%A: !tile.array<?x64xf32>) outs(%B: !tile.array<?x64xf32>) {
  %n = tile.dim %A 0 : !tile.array<?x64xf32>
  %k = tile.dim %A 1 : !tile.array<?x64xf32>
  %a = tile.load %A : !tile.array<?x64xf32> -> !tile.tile<?x64xf32>
  %m = tile.dim %a 0 : !tile.tile<?x64xf32>
  %s = tile.dim %a 1 {hint = "static"} : !tile.tile<?x64xf32>
  tile.store %a, %B : !tile.tile<?x64xf32>, !tile.array<?x64xf32>
  tile.return
}
