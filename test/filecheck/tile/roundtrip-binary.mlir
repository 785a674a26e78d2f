// The binary elementwise ops: add, sub, mul, div, max, min (floats and integers) and pow (floats).
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @binary
tile.func @binary(%X: !tile.array<16x16xf16>, %Y: !tile.array<16x16xf16>) {
  %x = tile.load %X : !tile.array<16x16xf16> -> !tile.tile<16x16xf16>
  %y = tile.load %Y : !tile.array<16x16xf16> -> !tile.tile<16x16xf16>
  // CHECK: %add = tile.add %x, %y : !tile.tile<16x16xf16>
  // GENERIC: %add = "tile.add"(%x, %y) : (!tile.tile<16x16xf16>, !tile.tile<16x16xf16>) -> !tile.tile<16x16xf16>
  %add = tile.add %x, %y : !tile.tile<16x16xf16>
  // CHECK-NEXT: %sub = tile.sub %add, %y : !tile.tile<16x16xf16>
  // GENERIC: "tile.sub"(%add, %y)
  %sub = tile.sub %add, %y : !tile.tile<16x16xf16>
  // CHECK-NEXT: %mul = tile.mul %sub, %sub : !tile.tile<16x16xf16>
  // GENERIC: "tile.mul"(%sub, %sub)
  %mul = tile.mul %sub, %sub : !tile.tile<16x16xf16>
  // CHECK-NEXT: %div = tile.div %mul, %x : !tile.tile<16x16xf16>
  // GENERIC: "tile.div"(%mul, %x)
  %div = tile.div %mul, %x : !tile.tile<16x16xf16>
  // CHECK-NEXT: %max = tile.max %div, %y : !tile.tile<16x16xf16>
  // GENERIC: "tile.max"(%div, %y)
  %max = tile.max %div, %y : !tile.tile<16x16xf16>
  // CHECK-NEXT: %min = tile.min %max, %x : !tile.tile<16x16xf16>
  // GENERIC: "tile.min"(%max, %x)
  %min = tile.min %max, %x : !tile.tile<16x16xf16>
  // CHECK-NEXT: %pow = tile.pow %min, %y {note = "x**y"} : !tile.tile<16x16xf16>
  // GENERIC: %pow = "tile.pow"(%min, %y) {note = "x**y"} : (!tile.tile<16x16xf16>, !tile.tile<16x16xf16>) -> !tile.tile<16x16xf16>
  %pow = tile.pow %min, %y {note = "x**y"} : !tile.tile<16x16xf16>
  tile.return
}

// CHECK-LABEL: tile.func @integers
tile.func @integers(%n: index) {
  %a = tile.iota 0 sizes(%n) : !tile.tile<?xi64>
  // CHECK: %add = tile.add %a, %a : !tile.tile<?xi64>
  %add = tile.add %a, %a : !tile.tile<?xi64>
  // CHECK-NEXT: %sub = tile.sub %add, %a : !tile.tile<?xi64>
  %sub = tile.sub %add, %a : !tile.tile<?xi64>
  // CHECK-NEXT: %mul = tile.mul %sub, %a : !tile.tile<?xi64>
  %mul = tile.mul %sub, %a : !tile.tile<?xi64>
  // CHECK-NEXT: %div = tile.div %mul, %a : !tile.tile<?xi64>
  %div = tile.div %mul, %a : !tile.tile<?xi64>
  // CHECK-NEXT: %max = tile.max %div, %a : !tile.tile<?xi64>
  %max = tile.max %div, %a : !tile.tile<?xi64>
  // CHECK-NEXT: %min = tile.min %max, %a : !tile.tile<?xi64>
  %min = tile.min %max, %a : !tile.tile<?xi64>
  tile.return
}
