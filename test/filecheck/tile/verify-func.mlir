// Verifier errors of tile.func and tile.return.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{func: an input must be a !tile.array or a scalar (index, f16, bf16, f32, f64 or an integer), got !tile.tile<4xf32>}}
tile.func @tile_input(%A: !tile.tile<4xf32>) {
  tile.return
}

// -----

// expected-error @+1 {{func: an output must be a !tile.array, got f32}}
tile.func @scalar_output() outs(%y: f32) {
  tile.return
}

// -----

// expected-error @+1 {{func: output %C is never stored}}
tile.func @never_stored() outs(%C: !tile.array<4xf32>) {
  tile.return
}

// -----

// expected-error @+1 {{func: output %C is stored 2 times (exactly once is allowed)}}
tile.func @stored_twice() outs(%C: !tile.array<4xf32>) {
  %c = tile.constant 1.0 : !tile.tile<4xf32>
  tile.store %c, %C : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.store %c, %C : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.return
}

// -----

// expected-error @+1 {{func: body must end with tile.return}}
tile.func @no_return() {
  %c = tile.constant 1.0 : !tile.tile<4xf32>
}

// -----

// expected-error @+1 {{func: entry block arguments must be the inputs followed by the outputs}}
"tile.func"() <{sym_name = "mismatch", function_type = (f32) -> ()}> ({
^bb0(%x: f16):
  "tile.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{tile.return: 'tile.return' expects parent op 'tile.func'}}
tile.return

// -----

// expected-error @+1 {{builtin.module: Redefinition of symbol "twice"}}
builtin.module {
  tile.func @twice() {
    tile.return
  }
  tile.func @twice() {
    tile.return
  }
}
