// tile.load / tile.store: static, dynamic, rank-0 and every element type.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @static
// CHECK:      %a = tile.load %A : !tile.array<64x128xf16> -> !tile.tile<64x128xf16>
// CHECK-NEXT: tile.store %a, %B : !tile.tile<64x128xf16>, !tile.array<64x128xf16>
// GENERIC: %a = "tile.load"(%A) : (!tile.array<64x128xf16>) -> !tile.tile<64x128xf16>
// GENERIC: "tile.store"(%a, %B) : (!tile.tile<64x128xf16>, !tile.array<64x128xf16>) -> ()
tile.func @static(%A: !tile.array<64x128xf16>) outs(%B: !tile.array<64x128xf16>) {
  %a = tile.load %A : !tile.array<64x128xf16> -> !tile.tile<64x128xf16>
  tile.store %a, %B : !tile.tile<64x128xf16>, !tile.array<64x128xf16>
  tile.return
}

// CHECK-LABEL: tile.func @dynamic
// CHECK:      %a = tile.load %A : !tile.array<?x?xbf16> -> !tile.tile<?x?xbf16>
// CHECK-NEXT: tile.store %a, %B : !tile.tile<?x?xbf16>, !tile.array<?x?xbf16>
tile.func @dynamic(%A: !tile.array<?x?xbf16>) outs(%B: !tile.array<?x?xbf16>) {
  %a = tile.load %A : !tile.array<?x?xbf16> -> !tile.tile<?x?xbf16>
  tile.store %a, %B : !tile.tile<?x?xbf16>, !tile.array<?x?xbf16>
  tile.return
}

// A dynamic array may be read as a tile of static shape, and a static tile stored into a dynamic array.
// CHECK-LABEL: tile.func @mixed
// CHECK:      %a = tile.load %A : !tile.array<?x8xf32> -> !tile.tile<4x8xf32>
// CHECK-NEXT: tile.store %a, %B : !tile.tile<4x8xf32>, !tile.array<4x?xf32>
tile.func @mixed(%A: !tile.array<?x8xf32>) outs(%B: !tile.array<4x?xf32>) {
  %a = tile.load %A : !tile.array<?x8xf32> -> !tile.tile<4x8xf32>
  tile.store %a, %B : !tile.tile<4x8xf32>, !tile.array<4x?xf32>
  tile.return
}

// CHECK-LABEL: tile.func @rank0
// CHECK:      %a = tile.load %A : !tile.array<f64> -> !tile.tile<f64>
// CHECK-NEXT: tile.store %a, %B : !tile.tile<f64>, !tile.array<f64>
tile.func @rank0(%A: !tile.array<f64>) outs(%B: !tile.array<f64>) {
  %a = tile.load %A : !tile.array<f64> -> !tile.tile<f64>
  tile.store %a, %B : !tile.tile<f64>, !tile.array<f64>
  tile.return
}

// CHECK-LABEL: tile.func @ints
// CHECK: tile.load %A1 : !tile.array<3xi1> -> !tile.tile<3xi1>
// CHECK: tile.load %A8 : !tile.array<3xi8> -> !tile.tile<3xi8>
// CHECK: tile.load %A16 : !tile.array<3xi16> -> !tile.tile<3xi16>
// CHECK: tile.load %A32 : !tile.array<3xi32> -> !tile.tile<3xi32>
// CHECK: tile.store %a64, %B : !tile.tile<3xi64>, !tile.array<3xi64>
tile.func @ints(%A1: !tile.array<3xi1>, %A8: !tile.array<3xi8>, %A16: !tile.array<3xi16>, %A32: !tile.array<3xi32>, %A64: !tile.array<3xi64>) outs(%B: !tile.array<3xi64>) {
  %a1 = tile.load %A1 : !tile.array<3xi1> -> !tile.tile<3xi1>
  %a8 = tile.load %A8 : !tile.array<3xi8> -> !tile.tile<3xi8>
  %a16 = tile.load %A16 : !tile.array<3xi16> -> !tile.tile<3xi16>
  %a32 = tile.load %A32 : !tile.array<3xi32> -> !tile.tile<3xi32>
  %a64 = tile.load %A64 : !tile.array<3xi64> -> !tile.tile<3xi64>
  tile.store %a64, %B : !tile.tile<3xi64>, !tile.array<3xi64>
  tile.return
}

// An input stored into: an in-place update (no outputs).
// CHECK-LABEL: tile.func @update
// CHECK:      %n = tile.neg %a : !tile.tile<?xf32>
// CHECK-NEXT: tile.store %n, %A : !tile.tile<?xf32>, !tile.array<?xf32>
tile.func @update(%A: !tile.array<?xf32>) {
  %a = tile.load %A : !tile.array<?xf32> -> !tile.tile<?xf32>
  %n = tile.neg %a : !tile.tile<?xf32>
  tile.store %n, %A : !tile.tile<?xf32>, !tile.array<?xf32>
  tile.return
}
