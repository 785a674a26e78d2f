// tile.func / tile.return: inputs (arrays and every scalar kind), outputs, no outputs,
// discardable attributes, several functions in one module, an explicit builtin.module.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK: builtin.module {
// CHECK-LABEL: tile.func @no_outputs() {
// CHECK-NEXT:    tile.return
// CHECK-NEXT:  }
// GENERIC: "tile.func"() <{sym_name = "no_outputs", function_type = () -> ()}> ({
// GENERIC-NEXT: "tile.return"() : () -> ()
tile.func @no_outputs() {
  tile.return
}

// CHECK-LABEL: tile.func @scalars(%i: index, %h: f16, %b: bf16, %f: f32, %d: f64, %k: i8, %l: i64, %m: i1) {
// GENERIC: function_type = (index, f16, bf16, f32, f64, i8, i64, i1) -> ()
tile.func @scalars(%i: index, %h: f16, %b: bf16, %f: f32, %d: f64, %k: i8, %l: i64, %m: i1) {
  tile.return
}

// CHECK-LABEL: tile.func @copy(%X: !tile.array<16xf32>) outs(%Y: !tile.array<16xf32>, %Z: !tile.array<16xf32>) {
// CHECK-NEXT:    %x = tile.load %X
// CHECK-NEXT:    tile.store %x, %Y
// CHECK-NEXT:    tile.store %x, %Z
// CHECK-NEXT:    tile.return
// GENERIC: function_type = (!tile.array<16xf32>) -> (!tile.array<16xf32>, !tile.array<16xf32>)
// GENERIC-NEXT: ^bb0(%X: !tile.array<16xf32>, %Y: !tile.array<16xf32>, %Z: !tile.array<16xf32>):
tile.func @copy(%X: !tile.array<16xf32>) outs(%Y: !tile.array<16xf32>, %Z: !tile.array<16xf32>) {
  %x = tile.load %X : !tile.array<16xf32> -> !tile.tile<16xf32>
  tile.store %x, %Y : !tile.tile<16xf32>, !tile.array<16xf32>
  tile.store %x, %Z : !tile.tile<16xf32>, !tile.array<16xf32>
  tile.return
}

// CHECK-LABEL: tile.func @only_outputs() outs(%Y: !tile.array<2xi32>) attributes {kernel = "k", unroll = 4 : i64} {
// CHECK:         tile.return {note = "end"}
tile.func @only_outputs() outs(%Y: !tile.array<2xi32>) attributes {kernel = "k", unroll = 4 : i64} {
  %c = tile.constant 7 : !tile.tile<2xi32>
  tile.store %c, %Y : !tile.tile<2xi32>, !tile.array<2xi32>
  tile.return {note = "end"}
}
