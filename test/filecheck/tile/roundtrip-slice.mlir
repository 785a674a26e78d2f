// tile.slice, tile.dynamic_slice, tile.concat and tile.pad: custom syntax round trip (negative
// offsets and strides, dynamic axes kept whole or reversed, hex pad values, extra attributes).
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @slicing
tile.func @slicing(%X: !tile.array<8x16xf32>, %I: !tile.array<i32>, %Y: !tile.array<?x16xf16>) {
  %x = tile.load %X : !tile.array<8x16xf32> -> !tile.tile<8x16xf32>
  %i = tile.load %I : !tile.array<i32> -> !tile.tile<i32>
  %y = tile.load %Y : !tile.array<?x16xf16> -> !tile.tile<?x16xf16>
  // CHECK: %s = tile.slice %x offsets [0, 1] strides [1, 1] : !tile.tile<8x16xf32> to !tile.tile<8x4xf32>
  // GENERIC: "tile.slice"(%x) <{offsets = array<i64: 0, 1>, strides = array<i64: 1, 1>}> : (!tile.tile<8x16xf32>) -> !tile.tile<8x4xf32>
  %s = tile.slice %x offsets [0, 1] strides [1, 1] : !tile.tile<8x16xf32> to !tile.tile<8x4xf32>
  // CHECK-NEXT: %r = tile.slice %y offsets [-1, 15] strides [-1, -2] : !tile.tile<?x16xf16> to !tile.tile<?x8xf16>
  %r = tile.slice %y offsets [-1, 15] strides [-1, -2] : !tile.tile<?x16xf16> to !tile.tile<?x8xf16>
  // CHECK-NEXT: %v = tile.slice %y offsets [-3, 2] strides [1, 3] : !tile.tile<?x16xf16> to !tile.tile<3x4xf16>
  %v = tile.slice %y offsets [-3, 2] strides [1, 3] : !tile.tile<?x16xf16> to !tile.tile<3x4xf16>
  // CHECK-NEXT: %e = tile.slice %x offsets [3, 0] strides [1, 1] : !tile.tile<8x16xf32> to !tile.tile<0x16xf32>
  %e = tile.slice %x offsets [3, 0] strides [1, 1] : !tile.tile<8x16xf32> to !tile.tile<0x16xf32>
  // CHECK-NEXT: %w = tile.dynamic_slice %x[%i] axis 1 {note} : !tile.tile<8x16xf32>, !tile.tile<i32> to !tile.tile<8x4xf32>
  // GENERIC: "tile.dynamic_slice"(%x, %i) <{axis = #builtin.int<1>}> {note} : (!tile.tile<8x16xf32>, !tile.tile<i32>) -> !tile.tile<8x4xf32>
  %w = tile.dynamic_slice %x[%i] axis 1 {note} : !tile.tile<8x16xf32>, !tile.tile<i32> to !tile.tile<8x4xf32>
  // CHECK-NEXT: %c = tile.concat %s, %w, %s axis 1 : !tile.tile<8x4xf32>, !tile.tile<8x4xf32>, !tile.tile<8x4xf32> to !tile.tile<8x12xf32>
  %c = tile.concat %s, %w, %s axis 1 : !tile.tile<8x4xf32>, !tile.tile<8x4xf32>, !tile.tile<8x4xf32> to !tile.tile<8x12xf32>
  // CHECK-NEXT: %d = tile.concat %y, %y axis 1 : !tile.tile<?x16xf16>, !tile.tile<?x16xf16> to !tile.tile<?x32xf16>
  %d = tile.concat %y, %y axis 1 : !tile.tile<?x16xf16>, !tile.tile<?x16xf16> to !tile.tile<?x32xf16>
  // CHECK-NEXT: %p = tile.pad %c low [1, 0] high [2, 3] value 0xff800000 : !tile.tile<8x12xf32> to !tile.tile<11x15xf32>
  %p = tile.pad %c low [1, 0] high [2, 3] value 0xFF800000 : !tile.tile<8x12xf32> to !tile.tile<11x15xf32>
  // CHECK-NEXT: %q = tile.pad %y low [0, 1] high [0, 0] value -1.500000e+00 : !tile.tile<?x16xf16> to !tile.tile<?x17xf16>
  %q = tile.pad %y low [0, 1] high [0, 0] value -1.5 : !tile.tile<?x16xf16> to !tile.tile<?x17xf16>
  %b = tile.constant true : !tile.tile<3xi1>
  // CHECK: %bp = tile.pad %b low [2] high [0] value false : !tile.tile<3xi1> to !tile.tile<5xi1>
  %bp = tile.pad %b low [2] high [0] value false : !tile.tile<3xi1> to !tile.tile<5xi1>
  %k = tile.constant 7 : !tile.tile<3xi64>
  // CHECK: %kp = tile.pad %k low [0] high [1] value -9 : !tile.tile<3xi64> to !tile.tile<4xi64>
  %kp = tile.pad %k low [0] high [1] value -9 : !tile.tile<3xi64> to !tile.tile<4xi64>
  tile.return
}
