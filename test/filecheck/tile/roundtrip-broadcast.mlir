// tile.broadcast: numpy rules (new leading axes, size-1 axes), to dynamic sizes with sizes(...),
// from rank 0.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @broadcast
tile.func @broadcast(%n: index, %m: index) {
  %row = tile.constant 1.0 : !tile.tile<64xf32>
  // CHECK: %a = tile.broadcast %row : !tile.tile<64xf32> to !tile.tile<32x64xf32>
  // GENERIC: %a = "tile.broadcast"(%row) : (!tile.tile<64xf32>) -> !tile.tile<32x64xf32>
  %a = tile.broadcast %row : !tile.tile<64xf32> to !tile.tile<32x64xf32>
  %col = tile.constant 1.0 : !tile.tile<32x1xf32>
  // CHECK: %b = tile.broadcast %col : !tile.tile<32x1xf32> to !tile.tile<32x64xf32>
  %b = tile.broadcast %col : !tile.tile<32x1xf32> to !tile.tile<32x64xf32>
  // CHECK-NEXT: %c = tile.broadcast %col : !tile.tile<32x1xf32> to !tile.tile<2x3x32x5xf32>
  %c = tile.broadcast %col : !tile.tile<32x1xf32> to !tile.tile<2x3x32x5xf32>
  %y = tile.constant 1.0 : !tile.tile<1x64xf32>
  // CHECK: %d = tile.broadcast %y sizes(%n) : !tile.tile<1x64xf32> to !tile.tile<?x64xf32>
  // GENERIC: %d = "tile.broadcast"(%y, %n) : (!tile.tile<1x64xf32>, index) -> !tile.tile<?x64xf32>
  %d = tile.broadcast %y sizes(%n) : !tile.tile<1x64xf32> to !tile.tile<?x64xf32>
  %s = tile.constant 2 : !tile.tile<i8>
  // CHECK: %e = tile.broadcast %s sizes(%n, %m) {why = "splat"} : !tile.tile<i8> to !tile.tile<?x4x?xi8>
  %e = tile.broadcast %s sizes(%n, %m) {why = "splat"} : !tile.tile<i8> to !tile.tile<?x4x?xi8>
  // A dynamic source axis may broadcast to a dynamic result axis.
  // CHECK-NEXT: %f = tile.broadcast %d sizes(%m) : !tile.tile<?x64xf32> to !tile.tile<?x64xf32>
  %f = tile.broadcast %d sizes(%m) : !tile.tile<?x64xf32> to !tile.tile<?x64xf32>
  tile.return
}
