// Verifier errors of tile.pool (every message carries file:line:col).
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

tile.func @padding_over_half() {
  %x = tile.constant 1.0 : !tile.tile<2x8xf32>
  // expected-error @+1 {{pool: axis 1: padding 2 is more than half the kernel 3}}
  %y = tile.pool max %x kernel [3] stride [1] padding [2] dilation [1] : !tile.tile<2x8xf32> to !tile.tile<2x10xf32>
  tile.return
}

// -----

tile.func @wrong_size() {
  %x = tile.constant 1.0 : !tile.tile<2x8xf32>
  // expected-error @+1 {{pool: axis 1: 8 pooled by kernel 3, stride 2, padding 1, dilation 1 gives 4 or 5, not 6}}
  %y = tile.pool max %x kernel [3] stride [2] padding [1] dilation [1] : !tile.tile<2x8xf32> to !tile.tile<2x6xf32>
  tile.return
}

// -----

tile.func @zero_size() {
  %x = tile.constant 1.0 : !tile.tile<2x8xf32>
  // expected-error @+1 {{pool: pooled axis 1: sizes must be >= 1, got 8 -> 0}}
  %y = tile.pool max %x kernel [5] stride [1] padding [0] dilation [3] : !tile.tile<2x8xf32> to !tile.tile<2x0xf32>
  tile.return
}

// -----

tile.func @indices_of_avg() {
  %x = tile.constant 1.0 : !tile.tile<2x8xf32>
  // expected-error @+1 {{pool: only max pools have an indices result, not avg}}
  %y, %i = tile.pool avg %x kernel [2] stride [2] padding [0] dilation [1] : !tile.tile<2x8xf32> to !tile.tile<2x4xf32>, !tile.tile<2x4xi64>
  tile.return
}

// -----

tile.func @indices_type() {
  %x = tile.constant 1.0 : !tile.tile<2x8xf32>
  // expected-error @+1 {{pool: the indices must be !tile.tile<2x4xi64>, got !tile.tile<2x4xi32>}}
  %y, %i = tile.pool max %x kernel [2] stride [2] padding [0] dilation [1] : !tile.tile<2x8xf32> to !tile.tile<2x4xf32>, !tile.tile<2x4xi32>
  tile.return
}

// -----

tile.func @avg_dilation() {
  %x = tile.constant 1.0 : !tile.tile<2x8xf32>
  // expected-error @+1 {{pool: axis 1: average pools have no dilation (got 2)}}
  %y = tile.pool avg %x kernel [2] stride [2] padding [0] dilation [2] : !tile.tile<2x8xf32> to !tile.tile<2x4xf32>
  tile.return
}

// -----

tile.func @lead_changes() {
  %x = tile.constant 1.0 : !tile.tile<2x8xf32>
  // expected-error @+1 {{pool: the leading axes must not change: 2x8 vs 3x4}}
  %y = tile.pool adaptive_avg %x rank 1 : !tile.tile<2x8xf32> to !tile.tile<3x4xf32>
  tile.return
}

// -----

tile.func @rank_too_big() {
  %x = tile.constant 1.0 : !tile.tile<2x8xf32>
  // expected-error @+1 {{pool: pools 1 to 2 trailing axes, got rank 3}}
  %y = tile.pool adaptive_avg %x rank 3 : !tile.tile<2x8xf32> to !tile.tile<2x4xf32>
  tile.return
}

// -----

tile.func @window_arity() {
  %x = tile.constant 1.0 : !tile.tile<2x8xf32>
  // expected-error @+1 {{pool: needs one kernel, stride, padding and dilation per pooled axis (2)}}
  %y = tile.pool max %x kernel [2, 2] stride [2] padding [0] dilation [1] : !tile.tile<2x8xf32> to !tile.tile<2x4xf32>
  tile.return
}

// -----

tile.func @divisor_of_max() {
  %x = tile.constant 1.0 : !tile.tile<2x8xf32>
  // expected-error @+1 {{pool: divisor and exclude_pad belong to average pools, not max}}
  %y = tile.pool max %x kernel [2] stride [2] padding [0] dilation [1] divisor 2 : !tile.tile<2x8xf32> to !tile.tile<2x4xf32>
  tile.return
}

// -----

tile.func @int_tile() {
  %x = tile.constant 1 : !tile.tile<2x8xi32>
  // expected-error @+1 {{pool: pools f16, bf16, f32 or f64 tiles, got i32}}
  %y = tile.pool max %x kernel [2] stride [2] padding [0] dilation [1] : !tile.tile<2x8xi32> to !tile.tile<2x4xi32>
  tile.return
}

// -----

tile.func @dynamic_pooled_axis(%X: !tile.array<2x?xf32>) {
  %x = tile.load %X : !tile.array<2x?xf32> -> !tile.tile<2x?xf32>
  // expected-error @+1 {{pool: the pooled axes must have static sizes}}
  %y = tile.pool adaptive_max %x rank 1 : !tile.tile<2x?xf32> to !tile.tile<2x4xf32>
  tile.return
}

// -----

tile.func @unknown_kind() {
  %x = tile.constant 1.0 : !tile.tile<2x8xf32>
  // expected-error @+1 {{expected a pooling kind}}
  %y = tile.pool median %x rank 1 : !tile.tile<2x8xf32> to !tile.tile<2x4xf32>
  tile.return
}

// -----

tile.func @max_grad_without_indices() {
  %dy = tile.constant 1.0 : !tile.tile<2x4xf32>
  // expected-error @+1 {{pool: max_grad takes the forward's indices (`%dy[%indices]`), and only it does}}
  %g = tile.pool max_grad %dy kernel [2] stride [2] padding [0] dilation [1] : !tile.tile<2x4xf32> to !tile.tile<2x8xf32>
  tile.return
}

// -----

tile.func @max_grad_index_type() {
  %dy = tile.constant 1.0 : !tile.tile<2x4xf32>
  %i = tile.constant 0 : !tile.tile<2x4xi32>
  // expected-error @+1 {{pool: the indices must be !tile.tile<2x4xi64>, got !tile.tile<2x4xi32>}}
  %g = tile.pool max_grad %dy[%i] kernel [2] stride [2] padding [0] dilation [1] : !tile.tile<2x4xf32>, !tile.tile<2x4xi32> to !tile.tile<2x8xf32>
  tile.return
}
