// RUN: tilec-opt %s --split-input-file --verify-diagnostics

// --- row fragments

// expected-error @+1 {{mapped.frag: row fragments have NVIDIA accumulator layouts only, not m32n32k8's (not supported yet)}}
func.func private @f(!mapped.frag<32x1xf32, row, m32n32k8>)

// -----

// expected-error @+1 {{mapped.frag: a row fragment is M x 1 with M a multiple of m16n8k16's m = 16, got 16x2}}
func.func private @f(!mapped.frag<16x2xf32, row, m16n8k16>)

// -----

// expected-error @+1 {{mapped.frag: row fragments hold f32, got f16}}
func.func private @f(!mapped.frag<16x1xf16, row, m16n8k16>)

// -----

// --- frag_map

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %s = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  // expected-error @+1 {{frag_map: fragments of different instruction shapes: m16n8k16, m16n8k8}}
  %p = mapped.frag_map %s : !mapped.frag<16x8xf32, acc, m16n8k16> -> !mapped.frag<16x8xf32, acc, m16n8k8> {
  ^bb0(%x: f32, %r: index, %c: index):
    mapped.yield %x : f32
  }
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  // expected-error @+1 {{frag_map: maps at least one fragment}}
  %p = "mapped.frag_map"() ({
  ^bb0(%r: index, %c: index):
    %z = arith.constant 0.0 : f32
    mapped.yield %z : f32
  }) : () -> !mapped.frag<16x8xf32, acc, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %s = mapped.frag_fill 0.0 : !mapped.frag<16x16xf32, acc, m16n8k16>
  // expected-error @+1 {{frag_map: the result is an acc or a row fragment, got role a}}
  %p = mapped.frag_map %s : !mapped.frag<16x16xf32, acc, m16n8k16> -> !mapped.frag<16x16xf16, a, m16n8k16> {
  ^bb0(%x: f32, %r: index, %c: index):
    %h = arith.truncf %x : f32 to f16
    mapped.yield %h : f16
  }
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %s = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  %t = mapped.frag_fill 0.0 : !mapped.frag<16x16xf32, acc, m16n8k16>
  // expected-error @+1 {{frag_map: operand 1 is !mapped.frag<16x16xf32, acc, m16n8k16>; a acc result takes acc 16x8 or row 16x1 fragments}}
  %p = mapped.frag_map %s, %t : !mapped.frag<16x8xf32, acc, m16n8k16>, !mapped.frag<16x16xf32, acc, m16n8k16> -> !mapped.frag<16x8xf32, acc, m16n8k16> {
  ^bb0(%x: f32, %y: f32, %r: index, %c: index):
    mapped.yield %x : f32
  }
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %s = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  // expected-error @+1 {{frag_map: the body takes (f32, index, index): the elements, their row and column}}
  %p = mapped.frag_map %s : !mapped.frag<16x8xf32, acc, m16n8k16> -> !mapped.frag<16x8xf32, acc, m16n8k16> {
  ^bb0(%x: f32):
    mapped.yield %x : f32
  }
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %s = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  // expected-error @+1 {{2 operand(s) but 1 type(s)}}
  %p = mapped.frag_map %s, %s : !mapped.frag<16x8xf32, acc, m16n8k16> -> !mapped.frag<16x8xf32, acc, m16n8k16> {
  ^bb0(%x: f32, %r: index, %c: index):
    mapped.yield %x : f32
  }
  mapped.return
}

// -----

// --- frag_reduce

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %s = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  // expected-error @+1 {{frag_reduce: kind must be one of max, sum, got 'min'}}
  %m = "mapped.frag_reduce"(%s) <{kind = "min"}> : (!mapped.frag<16x8xf32, acc, m16n8k16>) -> !mapped.frag<16x1xf32, row, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %s = mapped.frag_fill 0.0 : !mapped.frag<16x1xf32, row, m16n8k16>
  // expected-error @+1 {{frag_reduce: reduces the rows of an acc fragment, got role row}}
  %m = mapped.frag_reduce max %s : !mapped.frag<16x1xf32, row, m16n8k16> -> !mapped.frag<16x1xf32, row, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %s = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  // expected-error @+1 {{frag_reduce: the result of reducing !mapped.frag<16x8xf32, acc, m16n8k16> is !mapped.frag<16x1xf32, row, m16n8k16>, got !mapped.frag<32x1xf32, row, m16n8k16>}}
  %m = "mapped.frag_reduce"(%s) <{kind = "max"}> : (!mapped.frag<16x8xf32, acc, m16n8k16>) -> !mapped.frag<32x1xf32, row, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %s = mapped.frag_fill 0.0 : !mapped.frag<16x8xf32, acc, m16n8k16>
  // expected-error @+1 {{the result of reducing !mapped.frag<16x8xf32, acc, m16n8k16> is !mapped.frag<16x1xf32, row, m16n8k16>}}
  %m = mapped.frag_reduce sum %s : !mapped.frag<16x8xf32, acc, m16n8k16> -> !mapped.frag<32x1xf32, row, m16n8k16>
  mapped.return
}

// -----

// --- frag_convert

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %s = mapped.frag_fill 0.0 : !mapped.frag<16x16xf16, a, m16n8k16>
  // expected-error @+1 {{frag_convert: converts an f32 acc fragment, got !mapped.frag<16x16xf16, a, m16n8k16>}}
  %p = mapped.frag_convert %s : !mapped.frag<16x16xf16, a, m16n8k16> -> !mapped.frag<16x16xf16, a, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %s = mapped.frag_fill 0.0 : !mapped.frag<16x16xf32, acc, m16n8k16>
  // expected-error @+1 {{frag_convert: gives an f16 or bf16 `a` fragment, got !mapped.frag<16x16xf32, acc, m16n8k16>}}
  %p = mapped.frag_convert %s : !mapped.frag<16x16xf32, acc, m16n8k16> -> !mapped.frag<16x16xf32, acc, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %s = mapped.frag_fill 0.0 : !mapped.frag<16x16xf32, acc, m16n8k8>
  // expected-error @+1 {{frag_convert: converts m16n8k16 fragments only (not supported yet for other shapes)}}
  %p = mapped.frag_convert %s : !mapped.frag<16x16xf32, acc, m16n8k8> -> !mapped.frag<16x16xf16, a, m16n8k8>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %s = mapped.frag_fill 0.0 : !mapped.frag<16x32xf32, acc, m16n8k16>
  // expected-error @+1 {{frag_convert: the shapes must agree: 16x32 vs 16x16}}
  %p = mapped.frag_convert %s : !mapped.frag<16x32xf32, acc, m16n8k16> -> !mapped.frag<16x16xf16, a, m16n8k16>
  mapped.return
}

// -----

// --- frag_extract

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %s = mapped.frag_fill 0.0 : !mapped.frag<16x64xf16, a, m16n8k16>
  // expected-error @+1 {{frag_extract: takes 2 offsets (row, column), got 1}}
  %p = "mapped.frag_extract"(%s) <{offsets = [#builtin.int<0>]}> : (!mapped.frag<16x64xf16, a, m16n8k16>) -> !mapped.frag<16x16xf16, a, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %s = mapped.frag_fill 0.0 : !mapped.frag<16x64xf16, a, m16n8k16>
  // expected-error @+1 {{frag_extract: the result !mapped.frag<16x16xf32, acc, m16n8k16> must have the source's role, element type and instruction shape}}
  %p = mapped.frag_extract %s[0, 16] : !mapped.frag<16x64xf16, a, m16n8k16> -> !mapped.frag<16x16xf32, acc, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %s = mapped.frag_fill 0.0 : !mapped.frag<16x64xf16, a, m16n8k16>
  // expected-error @+1 {{frag_extract: the column offset 8 is not a multiple of the instruction tile's 16}}
  %p = mapped.frag_extract %s[0, 8] : !mapped.frag<16x64xf16, a, m16n8k16> -> !mapped.frag<16x16xf16, a, m16n8k16>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] {
  %s = mapped.frag_fill 0.0 : !mapped.frag<16x64xf16, a, m16n8k16>
  // expected-error @+1 {{frag_extract: the window 16x32 at (0, 48) does not fit !mapped.frag<16x64xf16, a, m16n8k16>}}
  %p = mapped.frag_extract %s[0, 48] : !mapped.frag<16x64xf16, a, m16n8k16> -> !mapped.frag<16x32xf16, a, m16n8k16>
  mapped.return
}

// -----

// --- frag_store of a row fragment

mapped.kernel @k() target gpu grid [1, 1, 1] block [32, 1, 1] smem 64 {
  %c0 = arith.constant 0 : index
  %sm = mapped.alloc : !mapped.buf<16x1xf32, shared>
  %m = mapped.frag_fill 0.0 : !mapped.frag<16x1xf32, row, m16n8k16>
  // expected-error @+1 {{frag_store: stores row fragments to global buffers only, without staging}}
  mapped.frag_store %m, %sm[%c0, %c0] : !mapped.frag<16x1xf32, row, m16n8k16>, !mapped.buf<16x1xf32, shared>
  mapped.return
}
