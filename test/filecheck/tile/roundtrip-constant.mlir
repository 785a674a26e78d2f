// tile.constant: float / int / bool splats, dense literals (ints, floats, bools, a splat, rank 0),
// sizes(...) for dynamic dimensions, and float bit patterns (how inf and nan print).
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @splats
tile.func @splats(%n: index) {
  // CHECK-NEXT: %f = tile.constant 0.000000e+00 : !tile.tile<64x64xf32>
  // GENERIC: %f = "tile.constant"() <{value = 0.000000e+00 : f32}> : () -> !tile.tile<64x64xf32>
  %f = tile.constant 0.0 : !tile.tile<64x64xf32>
  // CHECK-NEXT: %g = tile.constant -2.500000e-01 : !tile.tile<8xbf16>
  %g = tile.constant -0.25 : !tile.tile<8xbf16>
  // An integer literal fills a float tile too.
  // CHECK-NEXT: %h = tile.constant 3.000000e+00 : !tile.tile<8xf64>
  %h = tile.constant 3 : !tile.tile<8xf64>
  // CHECK-NEXT: %i = tile.constant -7 : !tile.tile<4x4xi32>
  // GENERIC: %i = "tile.constant"() <{value = -7 : i32}> : () -> !tile.tile<4x4xi32>
  %i = tile.constant -7 : !tile.tile<4x4xi32>
  // CHECK-NEXT: %j = tile.constant 127 : !tile.tile<2xi8>
  %j = tile.constant 127 : !tile.tile<2xi8>
  // CHECK-NEXT: %t = tile.constant true : !tile.tile<4xi1>
  // GENERIC: %t = "tile.constant"() <{value = true}> : () -> !tile.tile<4xi1>
  %t = tile.constant true : !tile.tile<4xi1>
  // CHECK-NEXT: %u = tile.constant false : !tile.tile<4xi1>
  %u = tile.constant false : !tile.tile<4xi1>
  // CHECK-NEXT: %s = tile.constant 1.500000e+00 : !tile.tile<f16>
  %s = tile.constant 1.5 : !tile.tile<f16>
  // CHECK-NEXT: %d = tile.constant 1.500000e+00 sizes(%n) : !tile.tile<?x64xf16>
  // GENERIC: %d = "tile.constant"(%n) <{value = 1.500000e+00 : f16}> : (index) -> !tile.tile<?x64xf16>
  %d = tile.constant 1.5 sizes(%n) : !tile.tile<?x64xf16>
  // CHECK-NEXT: %e = tile.constant 0 sizes(%n, %n) {note = "zeros"} : !tile.tile<?x?xi64>
  %e = tile.constant 0 sizes(%n, %n) {note = "zeros"} : !tile.tile<?x?xi64>
  // CHECK-NEXT: tile.return
  tile.return
}

// CHECK-LABEL: tile.func @dense
tile.func @dense() {
  // CHECK-NEXT: %a = tile.constant dense<[1, 2, 3]> : !tile.tile<3xi32>
  // GENERIC: %a = "tile.constant"() <{value = dense<[1, 2, 3]> : tensor<3xi32>}> : () -> !tile.tile<3xi32>
  %a = tile.constant dense<[1, 2, 3]> : !tile.tile<3xi32>
  // CHECK-NEXT: %b = tile.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, -4.000000e+00]]> : !tile.tile<2x2xf32>
  %b = tile.constant dense<[[1.0, 2.0], [3.0, -4.0]]> : !tile.tile<2x2xf32>
  // CHECK-NEXT: %c = tile.constant dense<[true, false, true]> : !tile.tile<3xi1>
  %c = tile.constant dense<[true, false, true]> : !tile.tile<3xi1>
  // CHECK-NEXT: %d = tile.constant dense<2.500000e+00> : !tile.tile<4x4xf16>
  %d = tile.constant dense<2.5> : !tile.tile<4x4xf16>
  // CHECK-NEXT: %e = tile.constant dense<7> : !tile.tile<i64>
  %e = tile.constant dense<7> : !tile.tile<i64>
  tile.return
}

// CHECK-LABEL: tile.func @bits
tile.func @bits() {
  // CHECK-NEXT: %inf = tile.constant 0x7c00 : !tile.tile<4xf16>
  %inf = tile.constant 0x7c00 : !tile.tile<4xf16>
  // CHECK-NEXT: %ninf = tile.constant 0xff800000 : !tile.tile<4xf32>
  %ninf = tile.constant 0xFF800000 : !tile.tile<4xf32>
  // CHECK-NEXT: %nan = tile.constant 0x7fc0 : !tile.tile<4xbf16>
  %nan = tile.constant 0x7FC0 : !tile.tile<4xbf16>
  // A bit pattern of an ordinary number prints as that number.
  // CHECK-NEXT: %one = tile.constant 1.000000e+00 : !tile.tile<4xf32>
  %one = tile.constant 0x3F800000 : !tile.tile<4xf32>
  // In an integer tile a hexadecimal literal is just an integer.
  // CHECK-NEXT: %sixteen = tile.constant 16 : !tile.tile<4xi32>
  %sixteen = tile.constant 0x10 : !tile.tile<4xi32>
  tile.return
}
