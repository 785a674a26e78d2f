// Verifier errors of tile.contract.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

tile.func @sizes() {
  %a = tile.constant 1.0 : !tile.tile<16x64xf32>
  %b = tile.constant 1.0 : !tile.tile<32x8xf32>
  // expected-error @+1 {{contract: lhs axis 1 has size 64 but rhs axis 0 has size 32}}
  %c = tile.contract %a, %b axes [[1, 0]] : !tile.tile<16x64xf32>, !tile.tile<32x8xf32> -> !tile.tile<16x8xf32>
  tile.return
}

// -----

tile.func @axis_range() {
  %a = tile.constant 1.0 : !tile.tile<16x64xf32>
  %b = tile.constant 1.0 : !tile.tile<64x8xf32>
  // expected-error @+1 {{contract: lhs axis 2 is out of range for a rank-2 tile}}
  %c = tile.contract %a, %b axes [[2, 0]] : !tile.tile<16x64xf32>, !tile.tile<64x8xf32> -> !tile.tile<16x8xf32>
  tile.return
}

// -----

tile.func @rhs_axis_range() {
  %a = tile.constant 1.0 : !tile.tile<16x64xf32>
  %b = tile.constant 1.0 : !tile.tile<64x8xf32>
  // expected-error @+1 {{contract: rhs axis 5 is out of range for a rank-2 tile}}
  %c = tile.contract %a, %b axes [[1, 5]] : !tile.tile<16x64xf32>, !tile.tile<64x8xf32> -> !tile.tile<16x8xf32>
  tile.return
}

// -----

tile.func @axis_twice() {
  %a = tile.constant 1.0 : !tile.tile<8x8xf32>
  %b = tile.constant 1.0 : !tile.tile<8x8xf32>
  // expected-error @+1 {{contract: lhs axis used twice in axes/batch: [1, 1]}}
  %c = tile.contract %a, %b axes [[1, 0], [1, 1]] : !tile.tile<8x8xf32>, !tile.tile<8x8xf32> -> !tile.tile<8xf32>
  tile.return
}

// -----

tile.func @batch_sizes() {
  %a = tile.constant 1.0 : !tile.tile<4x8x16xf32>
  %b = tile.constant 1.0 : !tile.tile<2x16x8xf32>
  // expected-error @+1 {{contract: lhs batch axis 0 has size 4 but rhs batch axis 0 has size 2}}
  %c = tile.contract %a, %b axes [[2, 1]] batch [[0, 0]] : !tile.tile<4x8x16xf32>, !tile.tile<2x16x8xf32> -> !tile.tile<4x8x8xf32>
  tile.return
}

// -----

tile.func @element_types() {
  %a = tile.constant 1.0 : !tile.tile<8x8xf32>
  %b = tile.constant 1.0 : !tile.tile<8x8xf16>
  // expected-error @+1 {{contract: lhs holds f32 but rhs holds f16 (cast one first)}}
  %c = tile.contract %a, %b axes [[1, 0]] : !tile.tile<8x8xf32>, !tile.tile<8x8xf16> -> !tile.tile<8x8xf32>
  tile.return
}

// -----

tile.func @narrow_acc() {
  %a = tile.constant 1.0 : !tile.tile<8x8xf32>
  // expected-error @+1 {{contract: accumulator f16 must be a float at least as wide as the inputs (f32)}}
  %c = tile.contract %a, %a axes [[1, 0]] acc f16 : !tile.tile<8x8xf32>, !tile.tile<8x8xf32> -> !tile.tile<8x8xf32>
  tile.return
}

// -----

tile.func @int_acc_for_float() {
  %a = tile.constant 1.0 : !tile.tile<8x8xf16>
  // expected-error @+1 {{contract: accumulator i32 must be a float at least as wide as the inputs (f16)}}
  %c = tile.contract %a, %a axes [[1, 0]] acc i32 : !tile.tile<8x8xf16>, !tile.tile<8x8xf16> -> !tile.tile<8x8xf16>
  tile.return
}

// -----

tile.func @int_acc() {
  %a = tile.constant 1 : !tile.tile<8x8xi8>
  // expected-error @+1 {{contract: integer contractions accumulate in i32 or i64, got i16}}
  %c = tile.contract %a, %a axes [[1, 0]] acc i16 : !tile.tile<8x8xi8>, !tile.tile<8x8xi8> -> !tile.tile<8x8xi32>
  tile.return
}

// -----

tile.func @result_shape() {
  %a = tile.constant 1.0 : !tile.tile<16x64xf32>
  %b = tile.constant 1.0 : !tile.tile<64x8xf32>
  // expected-error @+1 {{contract: result shape should be 16x8 (batch, lhs free, rhs free axes), got 8x16}}
  %c = tile.contract %a, %b axes [[1, 0]] : !tile.tile<16x64xf32>, !tile.tile<64x8xf32> -> !tile.tile<8x16xf32>
  tile.return
}

// -----

tile.func @result_kind() {
  %a = tile.constant 1.0 : !tile.tile<8x8xf32>
  // expected-error @+1 {{contract: result element type i32 does not match the kind of the inputs (f32)}}
  %c = tile.contract %a, %a axes [[1, 0]] : !tile.tile<8x8xf32>, !tile.tile<8x8xf32> -> !tile.tile<8x8xi32>
  tile.return
}

// -----

tile.func @axis_lists() {
  %a = tile.constant 1.0 : !tile.tile<8x8xf32>
  // expected-error @+1 {{contract: lhs and rhs contracted axis lists differ in length}}
  %c = "tile.contract"(%a, %a) <{lhs_contract = array<i64: 1>, rhs_contract = array<i64>, lhs_batch = array<i64>, rhs_batch = array<i64>, acc = f32}> : (!tile.tile<8x8xf32>, !tile.tile<8x8xf32>) -> !tile.tile<8x8xf32>
  tile.return
}

// -----

tile.func @batch_lists() {
  %a = tile.constant 1.0 : !tile.tile<8x8xf32>
  // expected-error @+1 {{contract: lhs and rhs batch axis lists differ in length}}
  %c = "tile.contract"(%a, %a) <{lhs_contract = array<i64: 1>, rhs_contract = array<i64: 0>, lhs_batch = array<i64: 0>, rhs_batch = array<i64>, acc = f32}> : (!tile.tile<8x8xf32>, !tile.tile<8x8xf32>) -> !tile.tile<8x8xf32>
  tile.return
}
