// Verifier and syntax errors of tile.scan.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

tile.func @axis_range() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{scan: axis 2 is out of range for rank 2}}
  %b = tile.scan add %a axis 2 : !tile.tile<4x8xf32>
  tile.return
}

// -----

tile.func @mask() {
  %a = tile.constant true : !tile.tile<4x8xi1>
  // expected-error @+1 {{scan: cannot scan an i1 (mask) tile}}
  %b = tile.scan add %a axis 1 : !tile.tile<4x8xi1>
  tile.return
}

// -----

tile.func @logaddexp_int() {
  %a = tile.constant 1 : !tile.tile<4x8xi32>
  // expected-error @+1 {{scan: logaddexp scans floats, not i32}}
  %b = tile.scan logaddexp %a axis 1 : !tile.tile<4x8xi32>
  tile.return
}

// -----

tile.func @logaddexp_exclusive() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{scan: exclusive applies to add and mul scans}}
  %b = tile.scan logaddexp %a axis 1 exclusive : !tile.tile<4x8xf32>
  tile.return
}

// -----

tile.func @result_type() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{scan: result type !tile.tile<4x8xf16> must equal the source type !tile.tile<4x8xf32>}}
  %b = "tile.scan"(%a) <{kind = "add", axis = #builtin.int<0>}> : (!tile.tile<4x8xf32>) -> !tile.tile<4x8xf16>
  tile.return
}

// -----

tile.func @kind() {
  %a = tile.constant 1.0 : !tile.tile<4x8xf32>
  // expected-error @+1 {{scan: unknown scan 'max' (expected one of add, mul, logaddexp)}}
  %b = "tile.scan"(%a) <{kind = "max", axis = #builtin.int<0>}> : (!tile.tile<4x8xf32>) -> !tile.tile<4x8xf32>
  tile.return
}

// -----

tile.func @fp8(%A: !tile.array<8xf8E4M3FN>) {
  %a = tile.load %A : !tile.array<8xf8E4M3FN> -> !tile.tile<8xf8E4M3FN>
  // expected-error @+1 {{scan: cannot scan f8E4M3FN tiles (cast them to f16 or f32 first)}}
  %b = tile.scan add %a axis 0 : !tile.tile<8xf8E4M3FN>
  tile.return
}
