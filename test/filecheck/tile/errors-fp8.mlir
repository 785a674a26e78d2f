// fp8 tiles accumulate in f32: an fp8 accumulator is refused, at the contraction; fp8 is not a
// scalar argument type.
// RUN: not tilec-opt %s --split-input-file 2>&1 | filecheck %s
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

tile.func @acc(%A: !tile.array<4x8xf8E4M3FN>) {
  %a = tile.load %A : !tile.array<4x8xf8E4M3FN> -> !tile.tile<4x8xf8E4M3FN>
  // CHECK: errors-fp8.mlir:[[# @LINE + 2]]:3: error: contract: accumulator f8E4M3FN: fp8 accumulators are not supported (fp8 inputs accumulate in f32)
  // expected-error @+1 {{contract: accumulator f8E4M3FN: fp8 accumulators are not supported (fp8 inputs accumulate in f32)}}
  %c = tile.contract %a, %a axes [[1, 1]] acc f8E4M3FN : !tile.tile<4x8xf8E4M3FN>, !tile.tile<4x8xf8E4M3FN> -> !tile.tile<4x4xf8E4M3FN>
  tile.return
}

// -----

// CHECK: errors-fp8.mlir:[[# @LINE + 2]]:1: error: func: an input must be a !tile.array or a scalar (index, f16, bf16, f32, f64 or an integer), got f8E5M2
// expected-error @+1 {{an input must be a !tile.array or a scalar (index, f16, bf16, f32, f64 or an integer), got f8E5M2}}
tile.func @scalar(%s: f8E5M2) {
  tile.return
}
