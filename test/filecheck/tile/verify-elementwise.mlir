// Verifier errors of the elementwise ops (unary, binary), tile.cmp and tile.select.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

tile.func @unary_result() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // expected-error @+1 {{neg: result type !tile.tile<8xf32> must equal operand type !tile.tile<4xf32>}}
  %b = "tile.neg"(%a) : (!tile.tile<4xf32>) -> !tile.tile<8xf32>
  tile.return
}

// -----

tile.func @exp_int() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  // expected-error @+1 {{exp: needs a float tile, got i32}}
  %b = tile.exp %a : !tile.tile<4xi32>
  tile.return
}

// -----

tile.func @log_int() {
  %a = tile.constant 1 : !tile.tile<4xi8>
  // expected-error @+1 {{log: needs a float tile, got i8}}
  %b = tile.log %a : !tile.tile<4xi8>
  tile.return
}

// -----

tile.func @sqrt_int() {
  %a = tile.constant 1 : !tile.tile<4xi64>
  // expected-error @+1 {{sqrt: needs a float tile, got i64}}
  %b = tile.sqrt %a : !tile.tile<4xi64>
  tile.return
}

// -----

tile.func @rsqrt_int() {
  %a = tile.constant 1 : !tile.tile<4xi16>
  // expected-error @+1 {{rsqrt: needs a float tile, got i16}}
  %b = tile.rsqrt %a : !tile.tile<4xi16>
  tile.return
}

// -----

tile.func @tanh_int() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  // expected-error @+1 {{tanh: needs a float tile, got i32}}
  %b = tile.tanh %a : !tile.tile<4xi32>
  tile.return
}

// -----

tile.func @erf_int() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  // expected-error @+1 {{erf: needs a float tile, got i32}}
  %b = tile.erf %a : !tile.tile<4xi32>
  tile.return
}

// -----

tile.func @abs_mask() {
  %a = tile.constant true : !tile.tile<4xi1>
  // expected-error @+1 {{abs: does not apply to i1 (mask) tiles}}
  %b = tile.abs %a : !tile.tile<4xi1>
  tile.return
}

// -----

tile.func @add_mask() {
  %a = tile.constant true : !tile.tile<4xi1>
  // expected-error @+1 {{add: does not apply to i1 (mask) tiles}}
  %b = tile.add %a, %a : !tile.tile<4xi1>
  tile.return
}

// -----

tile.func @pow_int() {
  %a = tile.constant 2 : !tile.tile<4xi32>
  // expected-error @+1 {{pow: needs a float tile, got i32}}
  %b = tile.pow %a, %a : !tile.tile<4xi32>
  tile.return
}

// -----

tile.func @binary_operands() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  %b = tile.constant 1.0 : !tile.tile<1xf32>
  // expected-error @+1 {{mul: operand types differ: !tile.tile<4xf32> vs !tile.tile<1xf32> (broadcast or cast first)}}
  %c = "tile.mul"(%a, %b) : (!tile.tile<4xf32>, !tile.tile<1xf32>) -> !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @binary_result() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // expected-error @+1 {{sub: result type !tile.tile<4xf16> must equal operand type !tile.tile<4xf32>}}
  %c = "tile.sub"(%a, %a) : (!tile.tile<4xf32>, !tile.tile<4xf32>) -> !tile.tile<4xf16>
  tile.return
}

// -----

tile.func @binary_not_tile(%x: f32) {
  // expected-error @+1 {{tile.div: operand 'lhs' at position 0 does not verify: f32 should be of base attribute tile.tile}}
  %c = "tile.div"(%x, %x) : (f32, f32) -> !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @cmp_predicate() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // expected-error @+1 {{cmp: unknown predicate 'ult' (expected one of eq, ne, lt, le, gt, ge)}}
  %m = "tile.cmp"(%a, %a) <{predicate = "ult"}> : (!tile.tile<4xf32>, !tile.tile<4xf32>) -> !tile.tile<4xi1>
  tile.return
}

// -----

tile.func @cmp_operands() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  %b = tile.constant 1.0 : !tile.tile<4xf64>
  // expected-error @+1 {{cmp: operand types differ: !tile.tile<4xf32> vs !tile.tile<4xf64>}}
  %m = "tile.cmp"(%a, %b) <{predicate = "eq"}> : (!tile.tile<4xf32>, !tile.tile<4xf64>) -> !tile.tile<4xi1>
  tile.return
}

// -----

tile.func @cmp_result() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // expected-error @+1 {{cmp: result must be !tile.tile<4xi1>, got !tile.tile<4xf32>}}
  %m = "tile.cmp"(%a, %a) <{predicate = "eq"}> : (!tile.tile<4xf32>, !tile.tile<4xf32>) -> !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @select_values() {
  %m = tile.constant true : !tile.tile<4xi1>
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  %b = tile.constant 1.0 : !tile.tile<4xf16>
  // expected-error @+1 {{select: value types differ: !tile.tile<4xf32> vs !tile.tile<4xf16>}}
  %r = "tile.select"(%m, %a, %b) : (!tile.tile<4xi1>, !tile.tile<4xf32>, !tile.tile<4xf16>) -> !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @select_condition() {
  %m = tile.constant 1 : !tile.tile<4xi8>
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // expected-error @+1 {{select: condition must be !tile.tile<4xi1>, got !tile.tile<4xi8>}}
  %r = "tile.select"(%m, %a, %a) : (!tile.tile<4xi8>, !tile.tile<4xf32>, !tile.tile<4xf32>) -> !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @select_result() {
  %m = tile.constant true : !tile.tile<4xi1>
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // expected-error @+1 {{select: result type !tile.tile<4xf64> must equal value type !tile.tile<4xf32>}}
  %r = "tile.select"(%m, %a, %a) : (!tile.tile<4xi1>, !tile.tile<4xf32>, !tile.tile<4xf32>) -> !tile.tile<4xf64>
  tile.return
}
