// RUN: tilec-opt %s --split-input-file --verify-diagnostics

mapped.kernel @k() target cpu {
  // expected-error @+1 {{block_id: only exists on gpu: the enclosing kernel @k targets cpu}}
  %b = mapped.block_id x
  mapped.return
}

// -----

mapped.kernel @k() target cpu {
  // expected-error @+1 {{thread_id: only exists on gpu}}
  %t = mapped.thread_id y
  mapped.return
}

// -----

mapped.kernel @k() target cpu {
  // expected-error @+1 {{block_dim: only exists on gpu}}
  %t = mapped.block_dim z
  mapped.return
}

// -----

mapped.kernel @k() target cpu {
  // expected-error @+1 {{grid_dim: only exists on gpu}}
  %t = mapped.grid_dim x
  mapped.return
}

// -----

mapped.kernel @k() target cpu {
  // expected-error @+1 {{warp_id: only exists on gpu}}
  %w = mapped.warp_id
  mapped.return
}

// -----

mapped.kernel @k() target cpu {
  // expected-error @+1 {{lane_id: only exists on gpu}}
  %l = mapped.lane_id
  mapped.return
}

// -----

mapped.kernel @k() target cpu {
  // expected-error @+1 {{warpgroup_id: only exists on gpu}}
  %g = mapped.warpgroup_id
  mapped.return
}

// -----

func.func @not_a_kernel() -> index {
  // expected-error @+1 {{thread_id: must be inside a mapped.kernel with target gpu}}
  %t = mapped.thread_id x
  func.return %t : index
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{expected a dimension (x, y, z)}}
  %t = mapped.thread_id w
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{block_id: unknown dimension 'w' (expected x, y or z)}}
  %b = "mapped.block_id"() <{dim = "w"}> : () -> index
  mapped.return
}
