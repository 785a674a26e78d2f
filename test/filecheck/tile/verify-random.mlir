// Verifier and parser errors of tile.random_bits.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

tile.func @not_ui32(%s: i64) {
  %seed = tile.splat %s : i64 to !tile.tile<i64>
  // expected-error @+1 {{random_bits: the result holds ui32, got i32}}
  %r = tile.random_bits %seed, %seed : !tile.tile<4xi32>
  tile.return
}

// -----

tile.func @float_result(%s: i64) {
  %seed = tile.splat %s : i64 to !tile.tile<i64>
  // expected-error @+1 {{random_bits: the result holds ui32, got f32}}
  %r = tile.random_bits %seed, %seed : !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @missing_sizes(%s: i64) {
  %seed = tile.splat %s : i64 to !tile.tile<i64>
  // expected-error @+1 {{random_bits: result type !tile.tile<?x4xui32> has 1 dynamic dimension(s) but 0 size operand(s) were given}}
  %r = tile.random_bits %seed, %seed : !tile.tile<?x4xui32>
  tile.return
}

// -----

tile.func @seed_i32(%s: i32) {
  %seed = tile.splat %s : i32 to !tile.tile<i32>
  // expected-error @+1 {{random_bits: seed must be !tile.tile<i64>, got !tile.tile<i32>}}
  %r = "tile.random_bits"(%seed, %seed) : (!tile.tile<i32>, !tile.tile<i32>) -> !tile.tile<4xui32>
  tile.return
}

// -----

tile.func @offset_not_rank0(%s: i64) {
  %seed = tile.splat %s : i64 to !tile.tile<i64>
  %o = tile.constant 0 : !tile.tile<2xi64>
  // expected-error @+1 {{random_bits: offset must be !tile.tile<i64>, got !tile.tile<2xi64>}}
  %r = "tile.random_bits"(%seed, %o) : (!tile.tile<i64>, !tile.tile<2xi64>) -> !tile.tile<4xui32>
  tile.return
}
