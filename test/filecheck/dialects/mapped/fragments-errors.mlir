// RUN: tilec-opt %s --split-input-file --verify-diagnostics

// --- the fragment type

// expected-error @+1 {{mapped.frag: a fragment is a static, non-empty 2-D tile, got 64xf32}}
func.func private @f(!mapped.frag<64xf32, acc, m16n8k16>)

// -----

// expected-error @+1 {{mapped.frag: acc fragment 64x20: N = 20 is not a multiple of m16n8k16's n = 8}}
func.func private @f(!mapped.frag<64x20xf32, acc, m16n8k16>)

// -----

// expected-error @+1 {{mapped.frag: a fragment 24x16: M = 24 is not a multiple of m16n8k16's m = 16}}
func.func private @f(!mapped.frag<24x16xf16, a, m16n8k16>)

// -----

// expected-error @+1 {{mapped.frag: b fragment 8x8: K = 8 is not a multiple of m16n8k16's k = 16}}
func.func private @f(!mapped.frag<8x8xf16, b, m16n8k16>)

// -----

// expected-error @+1 {{mapped.frag: m16n8k16 a fragments hold f16 or bf16, got f32}}
func.func private @f(!mapped.frag<16x16xf32, a, m16n8k16>)

// -----

// expected-error @+1 {{mapped.frag: m32n32k8 acc fragments hold f32, got f16}}
func.func private @f(!mapped.frag<32x32xf16, acc, m32n32k8>)

// -----

// expected-error @+1 {{expected a fragment role (a, b, acc, row)}}
func.func private @f(!mapped.frag<16x16xf16, c, m16n8k16>)

// -----

// expected-error @+1 {{expected an instruction shape (m16n8k16, m16n8k8, m32n32k8, m16n16k16, wgmma)}}
func.func private @f(!mapped.frag<16x16xf16, a, m8n8k4>)

// -----

// --- frag_fill

mapped.kernel @k() target cpu {
  // expected-error @+1 {{frag_fill: only exists on gpu: the enclosing kernel @k targets cpu}}
  %z = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{frag_fill: value has type f16 but the fragment holds f32}}
  %z = "mapped.frag_fill"() <{value = 0.0 : f16}> : () -> !mapped.frag<16x8xf32, acc, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{frag_fill: m32n32k8 fragments span 64 lanes but kernel @k runs 32-lane warps (set `wave 64`)}}
  %z = mapped.frag_fill 0.0 : !mapped.frag<32x32xf32, acc, m32n32k8>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [64, 1, 1] wave 64 {
  // expected-error @+1 {{frag_fill: m16n8k16 fragments span 32 lanes but kernel @k runs 64-lane waves (set `wave 32`)}}
  %z = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k(%n: index) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  mapped.parallel (%l) = (%c0) to (%n) step (%c1) on lanes {
    // expected-error @+1 {{frag_fill: a fragment op needs every thread of the warp, but it is inside `mapped.parallel ... on lanes`}}
    %z = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{frag_fill: expected a number}}
  %z = mapped.frag_fill zero : !mapped.frag<16x8xf32, acc, m16n8k16>
  mapped.return
}

// -----

// --- frag_load

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] smem 2048 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<32x32xf16, shared>
  // expected-error @+1 {{frag_load: source !mapped.buf<32x32xf16, shared> has rank 2 but 3 index operand(s) were given}}
  %a = mapped.frag_load %s[%c0, %c0, %c0] : !mapped.buf<32x32xf16, shared> -> !mapped.frag<16x16xf16, a, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] smem 2048 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<1024xf16, shared>
  // expected-error @+1 {{frag_load: the source needs at least 2 axes for a 2-D window, got !mapped.buf<1024xf16, shared>}}
  %a = mapped.frag_load %s[%c0] : !mapped.buf<1024xf16, shared> -> !mapped.frag<16x16xf16, a, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf16, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{frag_load: loads fragments from shared or reg buffers only, got global (copy to shared first)}}
  %a = mapped.frag_load %A[%c0, %c0] : !mapped.buf<?x?xf16, global> -> !mapped.frag<16x16xf16, a, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] smem 2048 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<32x32xf16, shared>
  // expected-error @+1 {{frag_load: buffer holds f16 but the fragment holds bf16}}
  %a = mapped.frag_load %s[%c0, %c0] : !mapped.buf<32x32xf16, shared> -> !mapped.frag<16x16xbf16, a, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] smem 4096 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<32x32xf32, shared>
  // expected-error @+1 {{frag_load: `transposed` applies to a and b fragments only}}
  %c = mapped.frag_load %s[%c0, %c0] transposed : !mapped.buf<32x32xf32, shared> -> !mapped.frag<16x8xf32, acc, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] smem 2048 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<16x64xf16, shared>
  // expected-error @+1 {{frag_load: the 32x16 window (transposed) of a 16x32 b fragment does not fit the source's 16x64 tile}}
  %b = mapped.frag_load %s[%c0, %c0] transposed : !mapped.buf<16x64xf16, shared> -> !mapped.frag<16x32xf16, b, m16n8k16>
  mapped.return
}

// -----

// --- mma

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %a = mapped.frag_fill 0.0 : !mapped.frag<16x16xf16, a, m16n8k16>
  %c = mapped.frag_fill 0.0 : !mapped.frag<16x16xf32, acc, m16n8k16>
  // expected-error @+1 {{mma: the second operand must be an b fragment, got role a (!mapped.frag<16x16xf16, a, m16n8k16>)}}
  %d = mapped.mma %a, %a, %c : !mapped.frag<16x16xf16, a, m16n8k16>, !mapped.frag<16x16xf16, a, m16n8k16>, !mapped.frag<16x16xf32, acc, m16n8k16> -> !mapped.frag<16x16xf32, acc, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %a = mapped.frag_fill 0.0 : !mapped.frag<16x16xf16, a, m16n8k16>
  %b = mapped.frag_fill 0.0 : !mapped.frag<16x8xf16, b, m16n8k8>
  %c = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  // expected-error @+1 {{mma: instruction shapes differ: a m16n8k16, b m16n8k8, acc m16n8k16}}
  %d = mapped.mma %a, %b, %c : !mapped.frag<16x16xf16, a, m16n8k16>, !mapped.frag<16x8xf16, b, m16n8k8>, !mapped.frag<16x8xf32, acc, m16n8k16> -> !mapped.frag<16x8xf32, acc, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %a = mapped.frag_fill 0.0 : !mapped.frag<64x16xf16, a, m16n8k16>
  %b = mapped.frag_fill 0.0 : !mapped.frag<16x32xf16, b, m16n8k16>
  %c = mapped.frag_fill 0.0 : !mapped.frag<32x32xf32, acc, m16n8k16>
  // expected-error @+1 {{mma: a fragment is 64x16 but acc fragment is 32x32 (M must agree)}}
  %d = mapped.mma %a, %b, %c : !mapped.frag<64x16xf16, a, m16n8k16>, !mapped.frag<16x32xf16, b, m16n8k16>, !mapped.frag<32x32xf32, acc, m16n8k16> -> !mapped.frag<32x32xf32, acc, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %a = mapped.frag_fill 0.0 : !mapped.frag<32x16xf16, a, m16n8k16>
  %b = mapped.frag_fill 0.0 : !mapped.frag<16x16xf16, b, m16n8k16>
  %c = mapped.frag_fill 0.0 : !mapped.frag<32x32xf32, acc, m16n8k16>
  // expected-error @+1 {{mma: b fragment is 16x16 but acc fragment is 32x32 (N must agree)}}
  %d = mapped.mma %a, %b, %c : !mapped.frag<32x16xf16, a, m16n8k16>, !mapped.frag<16x16xf16, b, m16n8k16>, !mapped.frag<32x32xf32, acc, m16n8k16> -> !mapped.frag<32x32xf32, acc, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %a = mapped.frag_fill 0.0 : !mapped.frag<32x32xf16, a, m16n8k16>
  %b = mapped.frag_fill 0.0 : !mapped.frag<16x32xf16, b, m16n8k16>
  %c = mapped.frag_fill 0.0 : !mapped.frag<32x32xf32, acc, m16n8k16>
  // expected-error @+1 {{mma: a fragment is 32x32 but b fragment is 16x32 (K must agree)}}
  %d = mapped.mma %a, %b, %c : !mapped.frag<32x32xf16, a, m16n8k16>, !mapped.frag<16x32xf16, b, m16n8k16>, !mapped.frag<32x32xf32, acc, m16n8k16> -> !mapped.frag<32x32xf32, acc, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %a = mapped.frag_fill 0.0 : !mapped.frag<16x16xbf16, a, m16n8k16>
  %b = mapped.frag_fill 0.0 : !mapped.frag<16x8xbf16, b, m16n8k16>
  %c = mapped.frag_fill 0.0 : !mapped.frag<16x8xf16, acc, m16n8k16>
  // expected-error @+1 {{mma: bf16 x bf16 -> f16 is not a legal MMA (f16 x f16 -> f32|f16, bf16 x bf16 -> f32, f32 x f32 -> f32)}}
  %d = mapped.mma %a, %b, %c : !mapped.frag<16x16xbf16, a, m16n8k16>, !mapped.frag<16x8xbf16, b, m16n8k16>, !mapped.frag<16x8xf16, acc, m16n8k16> -> !mapped.frag<16x8xf16, acc, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %a = mapped.frag_fill 0.0 : !mapped.frag<16x16xf16, a, m16n8k16>
  %b = mapped.frag_fill 0.0 : !mapped.frag<16x8xbf16, b, m16n8k16>
  %c = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  // expected-error @+1 {{mma: f16 x bf16 -> f32 is not a legal MMA}}
  %d = mapped.mma %a, %b, %c : !mapped.frag<16x16xf16, a, m16n8k16>, !mapped.frag<16x8xbf16, b, m16n8k16>, !mapped.frag<16x8xf32, acc, m16n8k16> -> !mapped.frag<16x8xf32, acc, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %a = mapped.frag_fill 0.0 : !mapped.frag<16x16xf16, a, m16n8k16>
  %b = mapped.frag_fill 0.0 : !mapped.frag<16x8xf16, b, m16n8k16>
  %c = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  // expected-error @+1 {{mma: result type !mapped.frag<16x8xf16, acc, m16n8k16> must equal the acc type !mapped.frag<16x8xf32, acc, m16n8k16>}}
  %d = mapped.mma %a, %b, %c : !mapped.frag<16x16xf16, a, m16n8k16>, !mapped.frag<16x8xf16, b, m16n8k16>, !mapped.frag<16x8xf32, acc, m16n8k16> -> !mapped.frag<16x8xf16, acc, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %a = mapped.frag_fill 0.0 : !mapped.frag<16x16xf16, a, m16n8k16>
  %b = mapped.frag_fill 0.0 : !mapped.frag<16x8xf16, b, m16n8k16>
  %c = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  // expected-error @+1 {{expected a !mapped.frag type, got !mapped.buf<16x8xf32, reg>}}
  %d = mapped.mma %a, %b, %c : !mapped.frag<16x16xf16, a, m16n8k16>, !mapped.frag<16x8xf16, b, m16n8k16>, !mapped.buf<16x8xf32, reg> -> !mapped.frag<16x8xf32, acc, m16n8k16>
  mapped.return
}

// -----

// --- frag_store

mapped.kernel @k(%C: !mapped.buf<?x?xf32, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  %c = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  // expected-error @+1 {{frag_store: destination !mapped.buf<?x?xf32, global> has rank 2 but 1 index operand(s) were given}}
  mapped.frag_store %c, %C[%c0] : !mapped.frag<16x8xf32, acc, m16n8k16>, !mapped.buf<?x?xf32, global>
  mapped.return
}

// -----

mapped.kernel @k(%C: !mapped.buf<?x?xf16, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  %a = mapped.frag_fill 0.0 : !mapped.frag<16x16xf16, a, m16n8k16>
  // expected-error @+1 {{frag_store: stores accumulator or row fragments only, got a a fragment}}
  mapped.frag_store %a, %C[%c0, %c0] : !mapped.frag<16x16xf16, a, m16n8k16>, !mapped.buf<?x?xf16, global>
  mapped.return
}

// -----

mapped.kernel @k(%C: !mapped.buf<?xf32, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  %c = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  // expected-error @+1 {{frag_store: the destination needs at least 2 axes for a 2-D window, got !mapped.buf<?xf32, global>}}
  mapped.frag_store %c, %C[%c0] : !mapped.frag<16x8xf32, acc, m16n8k16>, !mapped.buf<?xf32, global>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  %r = mapped.alloc : !mapped.buf<16x8xf32, reg>
  %c = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  // expected-error @+1 {{frag_store: stores to global or shared buffers, got reg}}
  mapped.frag_store %c, %r[%c0, %c0] : !mapped.frag<16x8xf32, acc, m16n8k16>, !mapped.buf<16x8xf32, reg>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] smem 1024 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<16x16xf32, shared>
  %c = mapped.frag_fill 0.0 : !mapped.frag<32x8xf32, acc, m16n8k16>
  // expected-error @+1 {{frag_store: the 32x8 fragment does not fit the destination's 16x16 tile}}
  mapped.frag_store %c, %s[%c0, %c0] : !mapped.frag<32x8xf32, acc, m16n8k16>, !mapped.buf<16x16xf32, shared>
  mapped.return
}

// -----

mapped.kernel @k(%C: !mapped.buf<?x?xf16, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  %c = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  // expected-error @+1 {{frag_store: fragment holds f32 but the destination holds f16 (convert in an `epilogue` region)}}
  mapped.frag_store %c, %C[%c0, %c0] : !mapped.frag<16x8xf32, acc, m16n8k16>, !mapped.buf<?x?xf16, global>
  mapped.return
}

// -----

mapped.kernel @k(%C: !mapped.buf<?x?xf16, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  %c = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  // expected-error @+1 {{frag_store: epilogue takes (%v: f32, %row: index, %col: index)}}
  mapped.frag_store %c, %C[%c0, %c0] : !mapped.frag<16x8xf32, acc, m16n8k16>, !mapped.buf<?x?xf16, global> epilogue {
  ^bb0(%v: f32):
    %h = arith.truncf %v : f32 to f16
    mapped.yield %h : f16
  }
  mapped.return
}

// -----

mapped.kernel @k(%C: !mapped.buf<?x?xf16, global>) target gpu grid [1, 1, 1] block [32, 1, 1] {
  %c0 = arith.constant 0 : index
  %c = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  // expected-error @+1 {{frag_store: the epilogue must yield (f16), but yields (f32)}}
  mapped.frag_store %c, %C[%c0, %c0] : !mapped.frag<16x8xf32, acc, m16n8k16>, !mapped.buf<?x?xf16, global> epilogue {
  ^bb0(%v: f32, %row: index, %col: index):
    mapped.yield %v : f32
  }
  mapped.return
}

// -----

mapped.kernel @k(%C: !mapped.buf<?x?xf32, global>) target cpu {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{frag_store: only exists on gpu}}
  "mapped.frag_store"(%f, %C, %c0, %c0) <{operandSegmentSizes = array<i32: 1, 1, 2, 0>}> : (!mapped.frag<16x8xf32, acc, m16n8k16>, !mapped.buf<?x?xf32, global>, index, index) -> ()
  %f = "test.op"() : () -> !mapped.frag<16x8xf32, acc, m16n8k16>
  mapped.return
}
