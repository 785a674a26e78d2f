// RUN: tilec-opt %s --split-input-file --verify-diagnostics

mapped.kernel @k(%x: f32) target cpu {
  // expected-error @+1 {{reduce: only exists on gpu: the enclosing kernel @k targets cpu}}
  %r = mapped.reduce sum %x across warp : f32
  mapped.return
}

// -----

mapped.kernel @k(%n: index) target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{reduce: reduces float or integer scalars, got index}}
  %r = mapped.reduce sum %n across warp : index
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?xf32, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  %v = mapped.load %A[%c0] : !mapped.buf<?xf32, global> -> vector<4xf32>
  // expected-error @+1 {{reduce: reduces float or integer scalars, got vector<4xf32>}}
  %r = mapped.reduce max %v across warp : vector<4xf32>
  mapped.return
}

// -----

mapped.kernel @k(%x: f32) target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{expected a reduction kind (sum, max, min, prod)}}
  %r = mapped.reduce mean %x across warp : f32
  mapped.return
}

// -----

mapped.kernel @k(%x: f32) target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{expected a reduction scope (warp, block)}}
  %r = mapped.reduce sum %x across grid : f32
  mapped.return
}

// -----

mapped.kernel @k(%x: f32) target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{reduce: unknown reduction 'mean' (expected sum, max, min, prod)}}
  %r = "mapped.reduce"(%x) <{kind = "mean", across = "warp"}> : (f32) -> f32
  mapped.return
}

// -----

mapped.kernel @k(%x: f32) target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{reduce: unknown scope 'grid' (expected warp or block)}}
  %r = "mapped.reduce"(%x) <{kind = "sum", across = "grid"}> : (f32) -> f32
  mapped.return
}

// -----

mapped.kernel @k(%x: f32) target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{reduce: result type f64 must equal the operand type f32}}
  %r = "mapped.reduce"(%x) <{kind = "sum", across = "warp"}> : (f32) -> f64
  mapped.return
}

// -----

mapped.kernel @k(%x: f32, %n: index) target gpu grid [1, 1, 1] block [128, 1, 1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  mapped.parallel (%w) = (%c0) to (%n) step (%c1) on warps {
    // expected-error @+1 {{reduce: a reduction across the block needs every thread of the block, but it is inside `mapped.parallel ... on warps`}}
    %r = mapped.reduce sum %x across block : f32
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%x: i32, %n: index) target gpu grid [1, 1, 1] block [128, 1, 1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  mapped.parallel (%t) = (%c0) to (%n) step (%c1) on threads {
    // expected-error @+1 {{reduce: a reduction across the warp needs every thread of the warp, but it is inside `mapped.parallel ... on threads`}}
    %r = mapped.reduce min %x across warp : i32
    mapped.yield
  }
  mapped.return
}
