// RUN: tilec-opt %s --split-input-file --verify-diagnostics

mapped.kernel @k(%x: f32) target cpu {
  // expected-error @+1 {{shuffle_xor: only exists on gpu: the enclosing kernel @k targets cpu}}
  %r = mapped.shuffle_xor %x, 1 : f32
  mapped.return
}

// -----

mapped.kernel @k(%x: f16) target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{shuffle_xor: shuffles a 32- or 64-bit integer or float, got f16}}
  %r = mapped.shuffle_xor %x, 1 : f16
  mapped.return
}

// -----

mapped.kernel @k(%x: i32) target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{shuffle_xor: mask must be from 1 to 31 (the kernel's wave), got 32}}
  %r = mapped.shuffle_xor %x, 32 : i32
  mapped.return
}

// -----

mapped.kernel @k(%x: i32) target gpu grid [1, 1, 1] block [64, 1, 1] wave 64 {
  // expected-error @+1 {{shuffle_xor: mask must be from 1 to 63 (the kernel's wave), got 0}}
  %r = mapped.shuffle_xor %x, 0 : i32
  mapped.return
}

// -----

mapped.kernel @k(%x: i32) target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{shuffle_xor: result type i64 must equal the operand type i32}}
  %r = "mapped.shuffle_xor"(%x) <{mask = #builtin.int<1>}> : (i32) -> i64
  mapped.return
}

// -----

mapped.kernel @k(%x: i32, %n: index) target gpu grid [1, 1, 1] block [128, 1, 1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  mapped.parallel (%t) = (%c0) to (%n) step (%c1) on threads {
    // expected-error @+1 {{shuffle_xor: a shuffle needs every thread of the warp, but it is inside `mapped.parallel ... on threads`}}
    %r = mapped.shuffle_xor %x, 2 : i32
    mapped.yield
  }
  mapped.return
}
