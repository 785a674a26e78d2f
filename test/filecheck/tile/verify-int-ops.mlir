// Verifier errors of the integer ops, tile.bitcast and the unsigned element types.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

tile.func @and_float() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // expected-error @+1 {{and: needs an integer tile, got f32}}
  %b = tile.and %a, %a : !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @shl_float() {
  %a = tile.constant 1.0 : !tile.tile<4xf16>
  // expected-error @+1 {{shl: needs an integer tile, got f16}}
  %b = tile.shl %a, %a : !tile.tile<4xf16>
  tile.return
}

// -----

tile.func @not_float() {
  %a = tile.constant 1.0 : !tile.tile<4xbf16>
  // expected-error @+1 {{not: needs an integer tile, got bf16}}
  %b = tile.not %a : !tile.tile<4xbf16>
  tile.return
}

// -----

tile.func @xor_mask() {
  %a = tile.constant true : !tile.tile<4xi1>
  // expected-error @+1 {{xor: does not apply to i1 (mask) tiles}}
  %b = tile.xor %a, %a : !tile.tile<4xi1>
  tile.return
}

// -----

tile.func @shr_mixed() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  %b = tile.constant 1 : !tile.tile<4xui32>
  // expected-error @+1 {{shr: operand types differ: !tile.tile<4xi32> vs !tile.tile<4xui32> (broadcast or cast first)}}
  %c = "tile.shr"(%a, %b) : (!tile.tile<4xi32>, !tile.tile<4xui32>) -> !tile.tile<4xi32>
  tile.return
}

// -----

tile.func @mod_mask() {
  %a = tile.constant false : !tile.tile<4xi1>
  // expected-error @+1 {{mod: does not apply to i1 (mask) tiles}}
  %b = tile.mod %a, %a : !tile.tile<4xi1>
  tile.return
}

// -----

tile.func @floordiv_result() {
  %a = tile.constant 7 : !tile.tile<4xi8>
  // expected-error @+1 {{floordiv: result type !tile.tile<4xi16> must equal operand type !tile.tile<4xi8>}}
  %b = "tile.floordiv"(%a, %a) : (!tile.tile<4xi8>, !tile.tile<4xi8>) -> !tile.tile<4xi16>
  tile.return
}

// -----

tile.func @bitcast_width() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // expected-error @+1 {{bitcast: element widths differ: f32 has 32 bits, i64 has 64}}
  %b = tile.bitcast %a : !tile.tile<4xf32> to !tile.tile<4xi64>
  tile.return
}

// -----

tile.func @bitcast_mask() {
  %a = tile.constant 1 : !tile.tile<4xi8>
  // expected-error @+1 {{bitcast: does not apply to i1 (mask) tiles: i8 to i1}}
  %b = tile.bitcast %a : !tile.tile<4xi8> to !tile.tile<4xi1>
  tile.return
}

// -----

tile.func @bitcast_shape() {
  %a = tile.constant 1 : !tile.tile<4xui16>
  // expected-error @+1 {{bitcast: shape must not change: 4 vs 2x2}}
  %b = tile.bitcast %a : !tile.tile<4xui16> to !tile.tile<2x2xf16>
  tile.return
}

// -----

tile.func @unsigned_range() {
  // expected-error @+1 {{Integer value 256 is out of range for type ui8}}
  %a = tile.constant 256 : !tile.tile<4xui8>
  tile.return
}
