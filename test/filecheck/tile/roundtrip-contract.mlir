// tile.contract: plain matmul (default accumulator), explicit accumulators, mixed precision
// (f16 inputs, f32 accumulation, f16 result), batch axes, several contracted axes, integers,
// dynamic sizes, a full contraction to rank 0.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @contract
tile.func @contract(%n: index) {
  %a = tile.constant 1.0 : !tile.tile<64x32xf16>
  %b = tile.constant 1.0 : !tile.tile<32x16xf16>
  // The default accumulator of f16 is f32, and it is always printed.
  // CHECK: %c = tile.contract %a, %b axes [[1, 0]] acc f32 : !tile.tile<64x32xf16>, !tile.tile<32x16xf16> -> !tile.tile<64x16xf16>
  // GENERIC: %c = "tile.contract"(%a, %b) <{lhs_contract = array<i64: 1>, rhs_contract = array<i64: 0>, lhs_batch = array<i64>, rhs_batch = array<i64>, acc = f32}> : (!tile.tile<64x32xf16>, !tile.tile<32x16xf16>) -> !tile.tile<64x16xf16>
  %c = tile.contract %a, %b axes [[1, 0]] : !tile.tile<64x32xf16>, !tile.tile<32x16xf16> -> !tile.tile<64x16xf16>
  // Mixed precision: f16 in, f32 accumulation, f32 out.
  // CHECK-NEXT: %d = tile.contract %a, %b axes [[1, 0]] acc f32 : !tile.tile<64x32xf16>, !tile.tile<32x16xf16> -> !tile.tile<64x16xf32>
  %d = tile.contract %a, %b axes [[1, 0]] acc f32 : !tile.tile<64x32xf16>, !tile.tile<32x16xf16> -> !tile.tile<64x16xf32>
  // CHECK-NEXT: %e = tile.contract %a, %b axes [[1, 0]] acc f64 {algo = "split-k"} : !tile.tile<64x32xf16>, !tile.tile<32x16xf16> -> !tile.tile<64x16xf16>
  %e = tile.contract %a, %b axes [[1, 0]] acc f64 {algo = "split-k"} : !tile.tile<64x32xf16>, !tile.tile<32x16xf16> -> !tile.tile<64x16xf16>
  // Transposed operand: contract lhs axis 0 with rhs axis 1.
  // CHECK-NEXT: %f = tile.contract %b, %a axes [[0, 1]] acc f32 : !tile.tile<32x16xf16>, !tile.tile<64x32xf16> -> !tile.tile<16x64xf16>
  %f = tile.contract %b, %a axes [[0, 1]] : !tile.tile<32x16xf16>, !tile.tile<64x32xf16> -> !tile.tile<16x64xf16>

  %x = tile.constant 1.0 : !tile.tile<8x64x32xf32>
  %y = tile.constant 1.0 : !tile.tile<8x32x16xf32>
  // Batch axes lead the result.
  // CHECK: %g = tile.contract %x, %y axes [[2, 1]] batch [[0, 0]] acc f32 : !tile.tile<8x64x32xf32>, !tile.tile<8x32x16xf32> -> !tile.tile<8x64x16xf32>
  // GENERIC: lhs_contract = array<i64: 2>, rhs_contract = array<i64: 1>, lhs_batch = array<i64: 0>, rhs_batch = array<i64: 0>, acc = f32
  %g = tile.contract %x, %y axes [[2, 1]] batch [[0, 0]] acc f32 : !tile.tile<8x64x32xf32>, !tile.tile<8x32x16xf32> -> !tile.tile<8x64x16xf32>

  // Two contracted axes, and a contraction over everything (rank-0 result).
  %p = tile.constant 1.0 : !tile.tile<4x5x6xf64>
  %q = tile.constant 1.0 : !tile.tile<6x5xf64>
  // CHECK: %h = tile.contract %p, %q axes [[1, 1], [2, 0]] acc f64 : !tile.tile<4x5x6xf64>, !tile.tile<6x5xf64> -> !tile.tile<4xf64>
  %h = tile.contract %p, %q axes [[1, 1], [2, 0]] : !tile.tile<4x5x6xf64>, !tile.tile<6x5xf64> -> !tile.tile<4xf64>
  %v = tile.constant 1.0 : !tile.tile<7xbf16>
  // CHECK: %dot = tile.contract %v, %v axes [[0, 0]] acc f32 : !tile.tile<7xbf16>, !tile.tile<7xbf16> -> !tile.tile<bf16>
  %dot = tile.contract %v, %v axes [[0, 0]] : !tile.tile<7xbf16>, !tile.tile<7xbf16> -> !tile.tile<bf16>
  // An outer product contracts nothing.
  // CHECK: %outer = tile.contract %v, %v axes [] acc f32 : !tile.tile<7xbf16>, !tile.tile<7xbf16> -> !tile.tile<7x7xbf16>
  %outer = tile.contract %v, %v axes [] : !tile.tile<7xbf16>, !tile.tile<7xbf16> -> !tile.tile<7x7xbf16>

  // Integers accumulate in i32 by default.
  %i = tile.constant 1 : !tile.tile<16x16xi8>
  // CHECK: %k = tile.contract %i, %i axes [[1, 0]] acc i32 : !tile.tile<16x16xi8>, !tile.tile<16x16xi8> -> !tile.tile<16x16xi32>
  %k = tile.contract %i, %i axes [[1, 0]] : !tile.tile<16x16xi8>, !tile.tile<16x16xi8> -> !tile.tile<16x16xi32>
  // CHECK-NEXT: %l = tile.contract %i, %i axes [[1, 0]] acc i64 : !tile.tile<16x16xi8>, !tile.tile<16x16xi8> -> !tile.tile<16x16xi8>
  %l = tile.contract %i, %i axes [[1, 0]] acc i64 : !tile.tile<16x16xi8>, !tile.tile<16x16xi8> -> !tile.tile<16x16xi8>

  // Dynamic sizes on either side.
  %da = tile.constant 1.0 sizes(%n, %n) : !tile.tile<?x?xf32>
  %db = tile.constant 1.0 sizes(%n) : !tile.tile<?x16xf32>
  // CHECK: %m = tile.contract %da, %db axes [[1, 0]] acc f32 : !tile.tile<?x?xf32>, !tile.tile<?x16xf32> -> !tile.tile<?x16xf32>
  %m = tile.contract %da, %db axes [[1, 0]] : !tile.tile<?x?xf32>, !tile.tile<?x16xf32> -> !tile.tile<?x16xf32>
  tile.return
}
