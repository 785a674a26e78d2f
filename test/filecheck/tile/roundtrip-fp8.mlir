// The 8-bit float element types (xDSL's builtin f8E4M3FN and f8E5M2): arrays, loads, casts,
// arithmetic, constants (rounded as tile.cast rounds: e4m3fn saturates at 448, e5m2 overflows
// to inf), contractions accumulating in f32.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @fp8(%A: !tile.array<?x8xf8E4M3FN>, %B: !tile.array<8x5xf8E4M3FN>) outs(%E: !tile.array<?x8xf8E5M2>, %P: !tile.array<?x5xf32>) {
// GENERIC: function_type = (!tile.array<?x8xf8E4M3FN>, !tile.array<8x5xf8E4M3FN>) -> (!tile.array<?x8xf8E5M2>, !tile.array<?x5xf32>)
tile.func @fp8(%A: !tile.array<?x8xf8E4M3FN>, %B: !tile.array<8x5xf8E4M3FN>) outs(%E: !tile.array<?x8xf8E5M2>, %P: !tile.array<?x5xf32>) {
  // CHECK: %a = tile.load %A : !tile.array<?x8xf8E4M3FN> -> !tile.tile<?x8xf8E4M3FN>
  %a = tile.load %A : !tile.array<?x8xf8E4M3FN> -> !tile.tile<?x8xf8E4M3FN>
  %b = tile.load %B : !tile.array<8x5xf8E4M3FN> -> !tile.tile<8x5xf8E4M3FN>
  // CHECK: %c = tile.constant 4.480000e+02 : !tile.tile<8xf8E4M3FN>
  %c = tile.constant 1000.0 : !tile.tile<8xf8E4M3FN>
  // CHECK: %i = tile.constant 0x7c : !tile.tile<8xf8E5M2>
  %i = tile.constant 1.0e6 : !tile.tile<8xf8E5M2>
  // CHECK: %q = tile.constant 3.125000e-01 : !tile.tile<8xf8E5M2>
  %q = tile.constant 0.3 : !tile.tile<8xf8E5M2>
  %n = tile.dim %A 0 : !tile.array<?x8xf8E4M3FN>
  %cb = tile.broadcast %c sizes(%n) : !tile.tile<8xf8E4M3FN> to !tile.tile<?x8xf8E4M3FN>
  // CHECK: %s = tile.add %a, %cb : !tile.tile<?x8xf8E4M3FN>
  %s = tile.add %a, %cb : !tile.tile<?x8xf8E4M3FN>
  // CHECK: %e = tile.cast %s : !tile.tile<?x8xf8E4M3FN> to !tile.tile<?x8xf8E5M2>
  %e = tile.cast %s : !tile.tile<?x8xf8E4M3FN> to !tile.tile<?x8xf8E5M2>
  // CHECK: %p = tile.contract %a, %b axes [[1, 0]] acc f32 : !tile.tile<?x8xf8E4M3FN>, !tile.tile<8x5xf8E4M3FN> -> !tile.tile<?x5xf32>
  // GENERIC: acc = f32}> : (!tile.tile<?x8xf8E4M3FN>, !tile.tile<8x5xf8E4M3FN>) -> !tile.tile<?x5xf32>
  %p = tile.contract %a, %b axes [[1, 0]] : !tile.tile<?x8xf8E4M3FN>, !tile.tile<8x5xf8E4M3FN> -> !tile.tile<?x5xf32>
  tile.store %e, %E : !tile.tile<?x8xf8E5M2>, !tile.array<?x8xf8E5M2>
  tile.store %p, %P : !tile.tile<?x5xf32>, !tile.array<?x5xf32>
  tile.return
}
