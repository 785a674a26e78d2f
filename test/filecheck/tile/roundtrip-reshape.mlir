// tile.reshape: flatten, unflatten, to and from rank 0, dynamic sizes with sizes(...).
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @reshape
tile.func @reshape(%n: index, %X: !tile.array<?x16xf32>) {
  %x = tile.constant 1.0 : !tile.tile<4x16xf32>
  // CHECK: %a = tile.reshape %x : !tile.tile<4x16xf32> to !tile.tile<64xf32>
  // GENERIC: %a = "tile.reshape"(%x) : (!tile.tile<4x16xf32>) -> !tile.tile<64xf32>
  %a = tile.reshape %x : !tile.tile<4x16xf32> to !tile.tile<64xf32>
  // CHECK-NEXT: %b = tile.reshape %a : !tile.tile<64xf32> to !tile.tile<2x2x16xf32>
  %b = tile.reshape %a : !tile.tile<64xf32> to !tile.tile<2x2x16xf32>
  %s = tile.constant 3 : !tile.tile<1x1xi16>
  // CHECK: %c = tile.reshape %s : !tile.tile<1x1xi16> to !tile.tile<i16>
  %c = tile.reshape %s : !tile.tile<1x1xi16> to !tile.tile<i16>
  // CHECK-NEXT: %d = tile.reshape %c : !tile.tile<i16> to !tile.tile<1xi16>
  %d = tile.reshape %c : !tile.tile<i16> to !tile.tile<1xi16>
  %y = tile.load %X : !tile.array<?x16xf32> -> !tile.tile<?x16xf32>
  // CHECK: %e = tile.reshape %y sizes(%n) : !tile.tile<?x16xf32> to !tile.tile<?xf32>
  // GENERIC: %e = "tile.reshape"(%y, %n) : (!tile.tile<?x16xf32>, index) -> !tile.tile<?xf32>
  %e = tile.reshape %y sizes(%n) : !tile.tile<?x16xf32> to !tile.tile<?xf32>
  // CHECK-NEXT: %f = tile.reshape %e sizes(%n, %n) {order = "row-major"} : !tile.tile<?xf32> to !tile.tile<?x4x?xf32>
  %f = tile.reshape %e sizes(%n, %n) {order = "row-major"} : !tile.tile<?xf32> to !tile.tile<?x4x?xf32>
  tile.return
}
