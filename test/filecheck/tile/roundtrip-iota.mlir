// tile.iota along each axis, integer and float element types, with sizes(...) for `?`.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @iota(%n: index) {
tile.func @iota(%n: index) {
  // CHECK-NEXT: %a = tile.iota 0 : !tile.tile<4x8xi32>
  // GENERIC: %a = "tile.iota"() <{axis = #builtin.int<0>}> : () -> !tile.tile<4x8xi32>
  %a = tile.iota 0 : !tile.tile<4x8xi32>
  // CHECK-NEXT: %b = tile.iota 1 : !tile.tile<4x8xi64>
  %b = tile.iota 1 : !tile.tile<4x8xi64>
  // CHECK-NEXT: %c = tile.iota 0 : !tile.tile<16xf32>
  %c = tile.iota 0 : !tile.tile<16xf32>
  // CHECK-NEXT: %d = tile.iota 0 sizes(%n) : !tile.tile<?xf16>
  // GENERIC: %d = "tile.iota"(%n) <{axis = #builtin.int<0>}> : (index) -> !tile.tile<?xf16>
  %d = tile.iota 0 sizes(%n) : !tile.tile<?xf16>
  // CHECK-NEXT: %e = tile.iota 2 sizes(%n) {tag} : !tile.tile<2x?x3xi8>
  %e = tile.iota 2 sizes(%n) {tag} : !tile.tile<2x?x3xi8>
  tile.return
}
