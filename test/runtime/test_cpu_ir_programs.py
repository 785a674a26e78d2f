"""Tile IR the DSL does not produce (hand-written, or from other frontends), compiled for the CPU
with `tilec.runtime.compile_module` and compared with the interpreter (`interpret_module`):
iota, reductions over no axis, stored constants, dynamic constants and iotas, index arguments.
Results must match the interpreter exactly (integers) or to cpu_util.TOL (floats)."""

from __future__ import annotations

import pytest
from cpu_util import assert_close, rand, rng  # noqa: F401

from tilec import runtime
from tilec.interpreter import interpret_module
from tilec.ir import make_context, parse_module, verify_module

PROGRAMS = {
    "iota": """
tile.func @f(%X: !tile.array<?x?xf32>) outs(%Y: !tile.array<?x?xf32>, %I: !tile.array<?x?xi32>, %B: !tile.array<?x?xi8>) {
  %x = tile.load %X : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %m = tile.dim %X 0 : !tile.array<?x?xf32>
  %n = tile.dim %X 1 : !tile.array<?x?xf32>
  %c = tile.iota 1 sizes(%m, %n) : !tile.tile<?x?xf32>
  %y = tile.mul %x, %c : !tile.tile<?x?xf32>
  %r = tile.iota 0 sizes(%m, %n) : !tile.tile<?x?xi32>
  %b = tile.iota 1 sizes(%m, %n) : !tile.tile<?x?xi8>
  tile.store %y, %Y : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.store %r, %I : !tile.tile<?x?xi32>, !tile.array<?x?xi32>
  tile.store %b, %B : !tile.tile<?x?xi8>, !tile.array<?x?xi8>
  tile.return
}""",
    "reduce_no_axis": """
tile.func @f(%X: !tile.array<8x3xf32>) outs(%Y: !tile.array<8x3xf32>, %Z: !tile.array<8x3xf32>) {
  %x = tile.load %X : !tile.array<8x3xf32> -> !tile.tile<8x3xf32>
  %e = tile.exp %x : !tile.tile<8x3xf32>
  %r = tile.reduce max %e [] : !tile.tile<8x3xf32> to !tile.tile<8x3xf32>
  %s = tile.reduce sum %x [] : !tile.tile<8x3xf32> to !tile.tile<8x3xf32>
  tile.store %r, %Y : !tile.tile<8x3xf32>, !tile.array<8x3xf32>
  tile.store %s, %Z : !tile.tile<8x3xf32>, !tile.array<8x3xf32>
  tile.return
}""",
    "stored_constants": """
tile.func @f(%X: !tile.array<?xf32>) outs(%Y: !tile.array<?xf32>, %C: !tile.array<2x3xi32>, %S: !tile.array<f32>) {
  %n = tile.dim %X 0 : !tile.array<?xf32>
  %y = tile.constant 2.500000e+00 sizes(%n) : !tile.tile<?xf32>
  %c = tile.constant -7 : !tile.tile<2x3xi32>
  %ones = tile.constant 1.000000e+00 sizes(%n) : !tile.tile<?xf32>
  %s = tile.reduce sum %ones [0] : !tile.tile<?xf32> to !tile.tile<f32>
  tile.store %y, %Y : !tile.tile<?xf32>, !tile.array<?xf32>
  tile.store %c, %C : !tile.tile<2x3xi32>, !tile.array<2x3xi32>
  tile.store %s, %S : !tile.tile<f32>, !tile.array<f32>
  tile.return
}""",
    "index_argument": """
tile.func @f(%X: !tile.array<?xf32>, %k: index) outs(%Y: !tile.array<?x?xf32>) {
  %x = tile.load %X : !tile.array<?xf32> -> !tile.tile<?xf32>
  %n = tile.dim %X 0 : !tile.array<?xf32>
  %b = tile.broadcast %x sizes(%k, %n) : !tile.tile<?xf32> to !tile.tile<?x?xf32>
  %y = tile.exp %b : !tile.tile<?x?xf32>
  tile.store %y, %Y : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.return
}""",
}

INPUTS = {
    "iota": lambda rng: [rand(rng, (5, 7))],
    "reduce_no_axis": lambda rng: [rand(rng, (8, 3))],
    "stored_constants": lambda rng: [rand(rng, (11,))],
    "index_argument": lambda rng: [rand(rng, (6,)), 4],
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_ir_program_matches_interpreter(name, rng):
    module = parse_module(make_context(), PROGRAMS[name], f"<{name}>")
    verify_module(module)
    kernel = runtime.compile_module(module, "cpu")
    inputs = INPUTS[name](rng)
    got = kernel(*inputs)
    want = interpret_module(module, inputs)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert_close(g, w, g.dtype, what=f"{name} result {i}: ")
