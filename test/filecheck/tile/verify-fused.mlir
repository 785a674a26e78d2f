// Verifier errors of tile.fused and tile.yield.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

tile.func @kind(%X: !tile.array<4xf32>) {
  %x = tile.load %X : !tile.array<4xf32> -> !tile.tile<4xf32>
  // expected-error @+1 {{fused: unknown kind 'magic' (expected one of contraction, rowwise, elementwise, reduction, scatter, scan, sort, attention, stream, conv_weight_grad)}}
  %y = "tile.fused"(%x) <{kind = "magic"}> ({
  ^bb0(%a: !tile.tile<4xf32>):
    "tile.yield"(%a) : (!tile.tile<4xf32>) -> ()
  }) : (!tile.tile<4xf32>) -> !tile.tile<4xf32>
  tile.return
}

// -----

tile.func @arg_types(%X: !tile.array<4xf32>) {
  %x = tile.load %X : !tile.array<4xf32> -> !tile.tile<4xf32>
  // expected-error @+1 {{fused: block arguments must have the types of the inputs}}
  %y = tile.fused elementwise (%x) : (!tile.tile<4xf32>) -> (!tile.tile<4xf32>) {
  ^bb0(%a: !tile.tile<4xf16>):
    %c = tile.constant 1.0 : !tile.tile<4xf32>
    tile.yield %c : !tile.tile<4xf32>
  }
  tile.return
}

// -----

tile.func @yield_types(%X: !tile.array<4xf32>) {
  %x = tile.load %X : !tile.array<4xf32> -> !tile.tile<4xf32>
  // expected-error @+1 {{fused: tile.yield types must match the results}}
  %y = tile.fused elementwise (%x) : (!tile.tile<4xf32>) -> (!tile.tile<8xf32>) {
  ^bb0(%a: !tile.tile<4xf32>):
    tile.yield %a : !tile.tile<4xf32>
  }
  tile.return
}

// -----

tile.func @func_inside() {
  // expected-error @+1 {{fused: tile.func is not allowed inside a fusion group}}
  tile.fused elementwise () : () -> () {
    tile.func @inner() {
      tile.return
    }
    tile.yield
  }
  tile.return
}

// -----

// A load inside would read an array from outside the group, which isolation already forbids.
tile.func @load_inside(%X: !tile.array<4xf32>) {
  // expected-error @+1 {{fused: Operation using value defined out of its IsolatedFromAbove parent}}
  %y = tile.fused elementwise () : () -> (!tile.tile<4xf32>) {
    %x = tile.load %X : !tile.array<4xf32> -> !tile.tile<4xf32>
    tile.yield %x : !tile.tile<4xf32>
  }
  tile.return
}

// -----

tile.func @count_mismatch(%X: !tile.array<4xf32>) {
  %x = tile.load %X : !tile.array<4xf32> -> !tile.tile<4xf32>
  // expected-error @+1 {{1 inputs but 2 input types}}
  %y = tile.fused elementwise (%x) : (!tile.tile<4xf32>, !tile.tile<4xf32>) -> (!tile.tile<4xf32>) {
  ^bb0(%a: !tile.tile<4xf32>):
    tile.yield %a : !tile.tile<4xf32>
  }
  tile.return
}

// -----

tile.func @array_input(%X: !tile.array<4xf32>) {
  // expected-error @+1 {{fused: an input must be a !tile.tile or a scalar (index, f16, bf16, f32, f64 or an integer), got !tile.array<4xf32>}}
  %y = tile.fused elementwise (%X) : (!tile.array<4xf32>) -> (!tile.tile<4xf32>) {
  ^bb0(%a: !tile.array<4xf32>):
    %c = tile.constant 1.0 : !tile.tile<4xf32>
    tile.yield %c : !tile.tile<4xf32>
  }
  tile.return
}

// -----

// A scalar input of a group (a runtime scalar argument) is accepted.
tile.func @scalar_input(%s: f32) outs(%Y: !tile.array<4xf32>) {
  %y = tile.fused elementwise (%s) : (f32) -> (!tile.tile<4xf32>) {
  ^bb0(%a: f32):
    %t = tile.splat %a : f32 to !tile.tile<4xf32>
    tile.yield %t : !tile.tile<4xf32>
  }
  tile.store %y, %Y : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.return
}
