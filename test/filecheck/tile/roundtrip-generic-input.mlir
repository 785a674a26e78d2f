// An input written entirely in the generic form (module, function, every kind of op) reads into the
// same IR as the custom form and prints in the custom form.
// RUN: tilec-opt %s | filecheck %s
// RUN: tilec-opt %s | tilec-opt --print-op-generic | tilec-opt | filecheck %s

// CHECK:      builtin.module {
// CHECK-NEXT:   tile.func @g(%X: !tile.array<?x8xf32>, %n: index) outs(%Y: !tile.array<8xf32>) {
// CHECK-NEXT:     %x = tile.load %X : !tile.array<?x8xf32> -> !tile.tile<?x8xf32>
// CHECK-NEXT:     %d = tile.dim %x 0 : !tile.tile<?x8xf32>
// CHECK-NEXT:     %z = tile.constant 0.000000e+00 sizes(%d) : !tile.tile<?x8xf32>
// CHECK-NEXT:     %m = tile.max %x, %z : !tile.tile<?x8xf32>
// CHECK-NEXT:     %s = tile.reduce sum %m [0] : !tile.tile<?x8xf32> to !tile.tile<8xf32>
// CHECK-NEXT:     tile.store %s, %Y : !tile.tile<8xf32>, !tile.array<8xf32>
// CHECK-NEXT:     tile.return
// CHECK-NEXT:   }
// CHECK-NEXT: }
"builtin.module"() ({
  "tile.func"() <{sym_name = "g", function_type = (!tile.array<?x8xf32>, index) -> !tile.array<8xf32>}> ({
  ^bb0(%X: !tile.array<?x8xf32>, %n: index, %Y: !tile.array<8xf32>):
    %x = "tile.load"(%X) : (!tile.array<?x8xf32>) -> !tile.tile<?x8xf32>
    %d = "tile.dim"(%x) <{axis = #builtin.int<0>}> : (!tile.tile<?x8xf32>) -> index
    %z = "tile.constant"(%d) <{value = 0.000000e+00 : f32}> : (index) -> !tile.tile<?x8xf32>
    %m = "tile.max"(%x, %z) : (!tile.tile<?x8xf32>, !tile.tile<?x8xf32>) -> !tile.tile<?x8xf32>
    %s = "tile.reduce"(%m) <{kind = "sum", axes = array<i64: 0>}> : (!tile.tile<?x8xf32>) -> !tile.tile<8xf32>
    "tile.store"(%s, %Y) : (!tile.tile<8xf32>, !tile.array<8xf32>) -> ()
    "tile.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
