// RUN: tilec-opt %s --split-input-file --verify-diagnostics

mapped.kernel @k(%x: f32) target cpu {
  // expected-error @+1 {{scan: only exists on gpu: the enclosing kernel @k targets cpu}}
  %e, %t = mapped.scan sum %x across warp : f32
  mapped.return
}

// -----

mapped.kernel @k(%n: index) target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{scan: scans float or integer scalars, got index}}
  %e, %t = mapped.scan sum %n across warp : index
  mapped.return
}

// -----

mapped.kernel @k(%x: f32) target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{scan: unknown scan 'max' (expected sum, prod)}}
  %e, %t = "mapped.scan"(%x) <{kind = "max", across = "warp"}> : (f32) -> (f32, f32)
  mapped.return
}

// -----

mapped.kernel @k(%x: f32) target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{scan: result types must equal the operand type f32}}
  %e, %t = "mapped.scan"(%x) <{kind = "sum", across = "warp"}> : (f32) -> (f32, f64)
  mapped.return
}
