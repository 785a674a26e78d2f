// Verifier errors of tile.cast, tile.broadcast, tile.transpose and tile.reshape.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

tile.func @cast_shape() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{cast: shape must not change: 4x8 vs 8x4}}
  %b = tile.cast %a : !tile.tile<4x8xf32> to !tile.tile<8x4xf16>
  tile.return
}

// -----

tile.func @cast_sizes(%n: index) {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // expected-error @+1 {{cast: takes no size operands}}
  %b = tile.cast %a sizes(%n) : !tile.tile<4xf32> to !tile.tile<4xf16>
  tile.return
}

// -----

tile.func @broadcast_elt() {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // expected-error @+1 {{broadcast: element type must not change: f32 vs f16}}
  %b = tile.broadcast %a : !tile.tile<4xf32> to !tile.tile<2x4xf16>
  tile.return
}

// -----

tile.func @broadcast_rank() {
  %a = tile.constant 1.0 : !tile.tile<2x4xf32>
  // expected-error @+1 {{broadcast: cannot broadcast rank 2 to lower rank 1}}
  %b = tile.broadcast %a : !tile.tile<2x4xf32> to !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @broadcast_axis() {
  %a = tile.constant 1.0 : !tile.tile<3x4xf32>
  // expected-error @+1 {{broadcast: source axis 0 has size 3, which is neither 1 nor the result's 6}}
  %b = tile.broadcast %a : !tile.tile<3x4xf32> to !tile.tile<6x4xf32>
  tile.return
}

// -----

tile.func @broadcast_sizes() {
  %a = tile.constant 1.0 : !tile.tile<1x4xf32>
  // expected-error @+1 {{broadcast: result type !tile.tile<?x4xf32> has 1 dynamic dimension(s) but 0 size operand(s) were given}}
  %b = tile.broadcast %a : !tile.tile<1x4xf32> to !tile.tile<?x4xf32>
  tile.return
}

// -----

tile.func @transpose_perm() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{transpose: [0, 0] is not a permutation of the 2 axes}}
  %b = tile.transpose %a [0, 0] : !tile.tile<4x8xf32> to !tile.tile<4x4xf32>
  tile.return
}

// -----

tile.func @transpose_length() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{transpose: [0] is not a permutation of the 2 axes}}
  %b = tile.transpose %a [0] : !tile.tile<4x8xf32> to !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @transpose_shape() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{transpose: result shape should be 8x4, got 4x8}}
  %b = tile.transpose %a [1, 0] : !tile.tile<4x8xf32> to !tile.tile<4x8xf32>
  tile.return
}

// -----

tile.func @transpose_elt() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{transpose: element type must not change}}
  %b = tile.transpose %a [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf16>
  tile.return
}

// -----

tile.func @reshape_count() {
  %a = tile.constant 1.0 : !tile.tile<4x16xf32>
  // expected-error @+1 {{reshape: 4x16 has 64 elements but 65 has 65}}
  %b = tile.reshape %a : !tile.tile<4x16xf32> to !tile.tile<65xf32>
  tile.return
}

// -----

tile.func @reshape_elt() {
  %a = tile.constant 1.0 : !tile.tile<4x16xf32>
  // expected-error @+1 {{reshape: element type must not change}}
  %b = tile.reshape %a : !tile.tile<4x16xf32> to !tile.tile<64xbf16>
  tile.return
}

// -----

tile.func @reshape_sizes(%n: index) {
  %a = tile.constant 1.0 : !tile.tile<4x16xf32>
  // expected-error @+1 {{reshape: result type !tile.tile<?x?xf32> has 2 dynamic dimension(s) but 1 size operand(s) were given}}
  %b = tile.reshape %a sizes(%n) : !tile.tile<4x16xf32> to !tile.tile<?x?xf32>
  tile.return
}

// -----

tile.func @transpose_sizes(%n: index) {
  %a = tile.constant 1.0 : !tile.tile<4xf32>
  // expected-error @+1 {{transpose: takes no size operands (the result's sizes are the source's)}}
  %b = tile.transpose %a [0] sizes(%n) : !tile.tile<4xf32> to !tile.tile<4xf32>
  tile.return
}
