// Verifier errors of the math library's ops: float-only functions, atan2's operand types, i1 tiles.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics
tile.func @sin_int() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  // expected-error @+1 {{sin: needs a float tile, got i32}}
  %b = tile.sin %a : !tile.tile<4xi32>
  tile.return
}

// -----

tile.func @atanh_int() {
  %a = tile.constant 1 : !tile.tile<4xi8>
  // expected-error @+1 {{atanh: needs a float tile, got i8}}
  %b = tile.atanh %a : !tile.tile<4xi8>
  tile.return
}

// -----

tile.func @log1p_int() {
  %a = tile.constant 1 : !tile.tile<4xi64>
  // expected-error @+1 {{log1p: needs a float tile, got i64}}
  %b = tile.log1p %a : !tile.tile<4xi64>
  tile.return
}

// -----

tile.func @sigmoid_int() {
  %a = tile.constant 1 : !tile.tile<4xi16>
  // expected-error @+1 {{sigmoid: needs a float tile, got i16}}
  %b = tile.sigmoid %a : !tile.tile<4xi16>
  tile.return
}

// -----

tile.func @softplus_int() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  // expected-error @+1 {{softplus: needs a float tile, got i32}}
  %b = tile.softplus %a : !tile.tile<4xi32>
  tile.return
}

// -----

tile.func @floor_int() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  // expected-error @+1 {{floor: needs a float tile, got i32}}
  %b = tile.floor %a : !tile.tile<4xi32>
  tile.return
}

// -----

tile.func @round_int() {
  %a = tile.constant 1 : !tile.tile<4xi64>
  // expected-error @+1 {{round: needs a float tile, got i64}}
  %b = tile.round %a : !tile.tile<4xi64>
  tile.return
}

// -----

tile.func @exp2_int() {
  %a = tile.constant 1 : !tile.tile<4xi8>
  // expected-error @+1 {{exp2: needs a float tile, got i8}}
  %b = tile.exp2 %a : !tile.tile<4xi8>
  tile.return
}

// -----

tile.func @cos_result() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // expected-error @+1 {{cos: result type !tile.tile<8xf32> must equal operand type !tile.tile<4xf32>}}
  %b = "tile.cos"(%a) : (!tile.tile<4xf32>) -> !tile.tile<8xf32>
  tile.return
}

// -----

tile.func @sign_mask() {
  %a = tile.constant true : !tile.tile<4xi1>
  // expected-error @+1 {{sign: does not apply to i1 (mask) tiles}}
  %b = tile.sign %a : !tile.tile<4xi1>
  tile.return
}

// -----

tile.func @atan2_types() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  %b = tile.constant 1.0 : !tile.tile<4xf64>
  // expected-error @+1 {{atan2: operand types differ: !tile.tile<4xf32> vs !tile.tile<4xf64> (broadcast or cast first)}}
  %c = "tile.atan2"(%a, %b) : (!tile.tile<4xf32>, !tile.tile<4xf64>) -> !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @atan2_int() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  // expected-error @+1 {{atan2: needs a float tile, got i32}}
  %c = tile.atan2 %a, %a : !tile.tile<4xi32>
  tile.return
}
