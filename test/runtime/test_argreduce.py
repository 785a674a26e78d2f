"""Arg-reductions (tilec.argmax, argmin): the interpreter and the CPU target against numpy on
fresh random inputs: ties (the first index wins), NaNs (the first NaN wins, numpy's rule for
both), all -inf rows, every axis of a 3-d tile and axis=None, keepdims, float / integer /
unsigned types; an argmax with a max of the same rows is one kernel; located errors (a bool
tile, an empty axis, statically and at run time). Indices are int64 and must be exact."""

from __future__ import annotations

import numpy as np
import pytest
from cpu_util import rand, rng  # noqa: F401
from test_frontend_util import expect_error, line_of

import tilec
from tilec import bfloat16, float16, float32, int8, int32, tile_op, uint8


def kernels(op, *arrays) -> int:
    return op.ir("mapped", *arrays).count("mapped.kernel @")


def exact(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


def awkward(rng, shape, dt):
    """Few distinct values (many ties), some NaNs and infinities in float tiles."""
    x = rand(rng, shape, dt, -3, 3)
    if tilec.as_dtype(dt).is_float:
        x = np.round(x).astype(x.dtype)  # ties
        flat = x.reshape(-1)
        k = max(1, flat.size // 17)
        flat[rng.integers(0, flat.size, k)] = np.nan
        flat[rng.integers(0, flat.size, k)] = np.inf
        flat[rng.integers(0, flat.size, k)] = -np.inf
    return x


@pytest.mark.parametrize("axis", [0, 1, 2, -1, None])
@pytest.mark.parametrize("keepdims", [False, True])
def test_every_axis_ties_nans(rng, axis, keepdims):
    @tile_op(dtype=float32)
    def f(x):
        return tilec.argmax(x, axis, keepdims=keepdims), tilec.argmin(x, axis, keepdims=keepdims)

    x = awkward(rng, (5, 7, 11), float32)
    for res in (f(x), tilec.interpret(f, x)):
        exact(res[0], np.argmax(x, axis=axis, keepdims=keepdims))
        exact(res[1], np.argmin(x, axis=axis, keepdims=keepdims))


def test_axis_none_dynamic_sizes(rng):
    """axis=None over `?` sizes: the row-major index into the flattened tile (no reshape)."""

    @tile_op(dtype=float32, dims=["A", "B", "C"])
    def f(x):
        return tilec.argmax(x), tilec.argmin(x, keepdims=True), tilec.argmax(x, axis=1, keepdims=True)

    x = awkward(rng, (3, 4, 5), float32)
    x[x != x] = 0.0  # no NaN: the max is found by value
    for res in (f(x), tilec.interpret(f, x)):
        exact(res[0], np.argmax(x))
        exact(res[1], np.argmin(x, keepdims=True))
        exact(res[2], np.argmax(x, axis=1, keepdims=True))


@pytest.mark.parametrize("dt", [float16, bfloat16, int32, int8, uint8])
def test_types(rng, dt):
    @tile_op(dtype=dt, dims=["M", "N"])
    def f(x):
        return tilec.argmax(x, -1), tilec.argmin(x, 0)

    x = awkward(rng, (6, 37), dt) if tilec.as_dtype(dt).is_float else rand(rng, (6, 37), dt, -128, 127)
    if dt is uint8:
        x = rand(rng, (6, 37), dt, 0, 255)  # values above 127: the unsigned order matters
    w = x.astype(np.float32) if dt is bfloat16 else x
    for res in (f(x), tilec.interpret(f, x)):
        exact(res[0], np.argmax(w, -1))
        exact(res[1], np.argmin(w, 0))


def test_edge_rows():
    """All -inf (index 0), all NaN (index 0), NaN after the max, max after a NaN, +inf ties."""

    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x):
        return tilec.argmax(x, 1), tilec.argmin(x, 1)

    inf, nan = np.inf, np.nan
    x = np.array(
        [
            [-inf, -inf, -inf, -inf, -inf],
            [nan, nan, nan, nan, nan],
            [1.0, 5.0, nan, 5.0, nan],
            [9.0, nan, 1.0, -inf, 9.0],
            [inf, 0.0, inf, -inf, -inf],
            [0.0, -0.0, 0.0, -0.0, 0.0],
        ],
        np.float32,
    )
    for res in (f(x), tilec.interpret(f, x)):
        exact(res[0], np.argmax(x, 1))
        exact(res[1], np.argmin(x, 1))


@pytest.mark.parametrize("n", [1, 2, 97, 4099])
def test_lengths_and_fused_with_max(rng, n):
    """m = max(x); i = argmax(x) over the same rows: one kernel (the max is computed once)."""

    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x):
        m = tilec.max(x, axis=-1)
        return m, tilec.argmax(x, axis=-1), tilec.argmin(x * 2.0, axis=-1)

    x = rand(rng, (3, n), float32)
    assert kernels(f, x) == 1
    for res in (f(x), tilec.interpret(f, x)):
        np.testing.assert_array_equal(res[0], x.max(-1))
        exact(res[1], np.argmax(x, -1))
        exact(res[2], np.argmin(x, -1))
    mapped = f.ir("mapped", x)
    assert mapped.count("arith.maxnumf") == 1  # one max loop shared by max and argmax


def test_argmax_of_computed_values(rng):
    """Fused with its producers (softmax scores, then the argmax): one kernel."""

    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x, b):
        s = tilec.sigmoid(x + b)
        return tilec.argmax(s, -1), tilec.sum(s, -1)

    x, b = rand(rng, (9, 256), float32), rand(rng, (9, 256), float32)
    assert kernels(f, x, b) == 1
    want = np.argmax(1 / (1 + np.exp(-(x.astype(np.float64) + b))), -1)
    got = f(x, b)
    # scores that tie to within f32 rounding may pick another index: check the value it picked
    s64 = 1 / (1 + np.exp(-(x.astype(np.float64) + b)))
    picked = np.take_along_axis(s64, got[0][:, None], 1)[:, 0]
    np.testing.assert_allclose(picked, s64[np.arange(9), want], rtol=1e-6)
    exact(got[0], tilec.interpret(f, x, b)[0])


def expect(marker: str, *phrases: str):
    return expect_error(__file__, marker, *phrases)


def test_errors():
    @tile_op(dtype=float32)
    def mask(x):
        return tilec.argmax(x > 0, 0)  # E:mask

    @tile_op(dtype=float32)
    def empty(x):
        return tilec.argmin(x, 1)  # E:empty

    @tile_op(dtype=float32, dims=["M", "N"])
    def dynamic_empty(x):
        return tilec.argmax(x, 1)  # E:dyn

    @tile_op(dtype=float32)
    def bad_axis(x):
        return tilec.argmax(x, -3)  # E:axis

    with expect("mask", "tilec.argmax cannot reduce a bool (mask) tile"):
        mask(np.zeros(3, np.float32))
    with expect("empty", "tilec.argmin: axis 1 is empty, so it has no minimum"):
        empty(np.zeros((2, 0), np.float32))
    with pytest.raises(tilec.TilecError, match=r"argmax: axis 1 is empty \(size 0\), so it has no maximum") as e:
        dynamic_empty(np.zeros((2, 0), np.float32))  # checked at run time, before any kernel runs
    assert e.value.location.line == line_of(__file__, "E:dyn")
    with expect("axis", "tilec.argmax: axis -3 is out of range"):
        bad_axis(np.zeros((2, 3), np.float32))
