// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

// CHECK-LABEL: tile.func @matmul(%A: !tile.array<256x128xf32>, %B: !tile.array<128x192xf32>) outs(%C: !tile.array<256x192xf32>) {
tile.func @matmul(%A: !tile.array<256x128xf32>, %B: !tile.array<128x192xf32>) outs(%C: !tile.array<256x192xf32>) {
  // CHECK-NEXT: %a = tile.load %A : !tile.array<256x128xf32> -> !tile.tile<256x128xf32>
  %a = tile.load %A : !tile.array<256x128xf32> -> !tile.tile<256x128xf32>
  %b = tile.load %B : !tile.array<128x192xf32> -> !tile.tile<128x192xf32>
  // CHECK: %c = tile.contract %a, %b axes [[1, 0]] acc f32 : !tile.tile<256x128xf32>, !tile.tile<128x192xf32> -> !tile.tile<256x192xf32>
  %c = tile.contract %a, %b axes [[1, 0]] : !tile.tile<256x128xf32>, !tile.tile<128x192xf32> -> !tile.tile<256x192xf32>
  // CHECK-NEXT: tile.store %c, %C : !tile.tile<256x192xf32>, !tile.array<256x192xf32>
  tile.store %c, %C : !tile.tile<256x192xf32>, !tile.array<256x192xf32>
  // CHECK-NEXT: tile.return
  tile.return
}
