// RUN: tilec-opt %s --split-input-file --verify-diagnostics

mapped.kernel @k(%O: !mapped.buf<8xf32, global>) target gpu grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %c0 = arith.constant 0 : index
  %x = arith.constant 1.0 : f32
  // expected-error @+1 {{destination !mapped.buf<8xf32, global> has rank 1 but 2 index operand(s) were given}}
  mapped.atomic_add %x, %O[%c0, %c0] : f32, !mapped.buf<8xf32, global>
  mapped.return
}

// -----

mapped.kernel @k(%O: !mapped.buf<8xf32, global>) target gpu grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %c0 = arith.constant 0 : index
  %x = arith.constant 1.0 : f64
  // expected-error @+1 {{buffer holds f32 but the added value is f64}}
  mapped.atomic_add %x, %O[%c0] : f64, !mapped.buf<8xf32, global>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] smem 32 {
  %c0 = arith.constant 0 : index
  %x = arith.constant 1.0 : f32
  %s = mapped.alloc : !mapped.buf<8xf32, shared>
  // expected-error @+1 {{atomic adds go to global buffers, got !mapped.buf<8xf32, shared>}}
  mapped.atomic_add %x, %s[%c0] : f32, !mapped.buf<8xf32, shared>
  mapped.return
}

// -----

mapped.kernel @k(%O: !mapped.buf<8xf32, global>) target gpu grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %c0 = arith.constant 0 : index
  %x = arith.constant 1.0 : f32
  %v = vector.broadcast %x : f32 to vector<2xf32>
  // expected-error @+1 {{the added value must be a scalar, got vector<2xf32>}}
  mapped.atomic_add %v, %O[%c0] : vector<2xf32>, !mapped.buf<8xf32, global>
  mapped.return
}

// -----

mapped.kernel @k(%O: !mapped.buf<8xi8, global>) target gpu grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %c0 = arith.constant 0 : index
  %x = arith.constant 1 : i8
  // expected-error @+1 {{atomic adds of i8 are not supported (f16, bf16, f32, f64, 32/64-bit ints)}}
  mapped.atomic_add %x, %O[%c0] : i8, !mapped.buf<8xi8, global>
  mapped.return
}
