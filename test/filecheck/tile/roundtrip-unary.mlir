// The unary elementwise ops: neg, abs (floats and integers), exp, log, sqrt, rsqrt, tanh, erf.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @unary
tile.func @unary(%X: !tile.array<?x32xf32>, %I: !tile.array<8xi16>) {
  %x = tile.load %X : !tile.array<?x32xf32> -> !tile.tile<?x32xf32>
  // CHECK: %neg = tile.neg %x : !tile.tile<?x32xf32>
  // GENERIC: %neg = "tile.neg"(%x) : (!tile.tile<?x32xf32>) -> !tile.tile<?x32xf32>
  %neg = tile.neg %x : !tile.tile<?x32xf32>
  // CHECK-NEXT: %abs = tile.abs %neg : !tile.tile<?x32xf32>
  // GENERIC: "tile.abs"
  %abs = tile.abs %neg : !tile.tile<?x32xf32>
  // CHECK-NEXT: %exp = tile.exp %abs : !tile.tile<?x32xf32>
  // GENERIC: "tile.exp"
  %exp = tile.exp %abs : !tile.tile<?x32xf32>
  // CHECK-NEXT: %log = tile.log %exp : !tile.tile<?x32xf32>
  // GENERIC: "tile.log"
  %log = tile.log %exp : !tile.tile<?x32xf32>
  // CHECK-NEXT: %sqrt = tile.sqrt %log : !tile.tile<?x32xf32>
  // GENERIC: "tile.sqrt"
  %sqrt = tile.sqrt %log : !tile.tile<?x32xf32>
  // CHECK-NEXT: %rsqrt = tile.rsqrt %sqrt : !tile.tile<?x32xf32>
  // GENERIC: "tile.rsqrt"
  %rsqrt = tile.rsqrt %sqrt : !tile.tile<?x32xf32>
  // CHECK-NEXT: %tanh = tile.tanh %rsqrt : !tile.tile<?x32xf32>
  // GENERIC: "tile.tanh"
  %tanh = tile.tanh %rsqrt : !tile.tile<?x32xf32>
  // CHECK-NEXT: %erf = tile.erf %tanh {approx = true} : !tile.tile<?x32xf32>
  // GENERIC: %erf = "tile.erf"(%tanh) {approx = true} : (!tile.tile<?x32xf32>) -> !tile.tile<?x32xf32>
  %erf = tile.erf %tanh {approx = true} : !tile.tile<?x32xf32>
  %i = tile.load %I : !tile.array<8xi16> -> !tile.tile<8xi16>
  // CHECK: %ineg = tile.neg %i : !tile.tile<8xi16>
  %ineg = tile.neg %i : !tile.tile<8xi16>
  // CHECK-NEXT: %iabs = tile.abs %ineg : !tile.tile<8xi16>
  %iabs = tile.abs %ineg : !tile.tile<8xi16>
  %h = tile.constant 2.0 : !tile.tile<bf16>
  // CHECK: %hexp = tile.exp %h : !tile.tile<bf16>
  %hexp = tile.exp %h : !tile.tile<bf16>
  tile.return
}
