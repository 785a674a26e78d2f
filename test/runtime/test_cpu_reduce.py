"""Reductions compiled for the CPU: sum/max/min/mean over every subset of axes (leading, middle,
trailing, all) of rank 1-4 tiles, keepdims, f32/f16/bf16/f64/int, NaN propagation and empty
axes, against float64 numpy and the interpreter.

Tolerances: max/min are exact (they pick an input). sum and mean use the error bound of a
length-n sum in the accumulator (f32 for 16-bit inputs): |s - s64| <= 2 n u_acc sum|x|
+ u_out |s64| (+ the rounding of 1/n for mean); cpu_util.TOL on top against the interpreter.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from cpu_util import UNIT, f64, rand, rng  # noqa: F401

import tilec
from tilec import bfloat16, float16, float32, float64, int8, int32, int64, tile_op


def subsets(rank: int) -> list[tuple[int, ...]]:
    return [c for k in range(1, rank + 1) for c in itertools.combinations(range(rank), k)]


def make_op(dtype, rank: int, dims: bool, keepdims: bool = False):
    kinds = ["sum", "max", "min"] + (["mean"] if tilec.as_dtype(dtype).is_float else [])
    axes_list = subsets(rank)

    def reduce_all(x):
        outs = []
        for axes in axes_list:
            for kind in kinds:
                outs.append(getattr(tilec, kind)(x, axis=axes, keepdims=keepdims))
        outs.append(tilec.sum(x))  # axis=None
        outs.append(tilec.max(x, axis=-1))  # a negative axis
        return tuple(outs)

    names = [f"D{i}" for i in range(rank)] if dims else None
    return tile_op(dtype=dtype, dims=names)(reduce_all), kinds, axes_list


def _check_all(op, kinds, axes_list, x, keepdims=False):
    dt = tilec.as_dtype(x.dtype)
    got = op(x)
    ref = tilec.interpret(op, x)
    X = f64(x)
    acc = "float32" if dt.name in ("float16", "bfloat16") else dt.name
    cases = [(axes, kind) for axes in axes_list for kind in kinds] + [(None, "sum"), ((-1,), "max")]
    assert len(got) == len(cases)
    for i, ((axes, kind), g, r) in enumerate(zip(cases, got, ref)):
        what = f"{kind} over axes {axes} of shape {x.shape}"
        npk = {"sum": np.sum, "max": np.max, "min": np.min, "mean": np.mean}[kind]
        kd = keepdims and i < len(axes_list) * len(kinds)  # the last two never keep dims
        want = npk(X, axis=axes, keepdims=kd)
        assert g.dtype == x.dtype, what
        assert g.shape == np.shape(want), what
        if not dt.is_float:
            if kind == "sum":
                bits = 8 * x.dtype.itemsize
                want = np.asarray(npk(x.astype(object), axis=axes, keepdims=kd), dtype=object)
                want = np.asarray((want + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1)), dtype=object).astype(
                    x.dtype
                )
            np.testing.assert_array_equal(g, want, err_msg=what)
            np.testing.assert_array_equal(r, want, err_msg=what)
            continue
        if kind in ("max", "min"):
            np.testing.assert_array_equal(g, want.astype(x.dtype), err_msg=what)
            np.testing.assert_array_equal(r, want.astype(x.dtype), err_msg=what)
            continue
        n = x.size // max(np.size(want), 1)
        mag = np.sum(np.abs(X), axis=axes, keepdims=kd) / (n if kind == "mean" else 1)
        bound = 2 * n * UNIT[acc] * mag + 2 * UNIT[dt.name] * np.abs(want) + 1e-30
        for label, v in (("compiled", g), ("interpreter", r)):
            err = np.abs(f64(v) - want)
            assert np.all(err <= bound), f"{label} {what}: max err {err.max()} (bound {bound.min()})"


@pytest.mark.parametrize("rank,shape", [(1, (251,)), (2, (13, 7)), (3, (7, 1, 13)), (4, (3, 5, 7, 6))])
def test_reduce_every_axis_subset_f32(rank, shape, rng):
    op, kinds, axes_list = make_op(float32, rank, dims=True)
    for s in [shape, tuple(d + 3 for d in shape), (1,) * rank]:
        _check_all(op, kinds, axes_list, rand(rng, s), False)


@pytest.mark.parametrize(
    "dtype", [float16, bfloat16, float64, int32, int8, int64], ids=["f16", "bf16", "f64", "i32", "i8", "i64"]
)
def test_reduce_every_axis_subset_other_dtypes(dtype, rng):
    op, kinds, axes_list = make_op(dtype, 3, dims=True)
    lo, hi = (-2, 2) if tilec.as_dtype(dtype).is_float else (-100, 100)
    for s in [(7, 5, 13), (2, 1, 300)]:
        _check_all(op, kinds, axes_list, rand(rng, s, dtype, lo, hi))


def test_reduce_static_keepdims(rng):
    op, kinds, axes_list = make_op(float32, 3, dims=False, keepdims=True)
    _check_all(op, kinds, axes_list, rand(rng, (6, 17, 9)), keepdims=True)


def test_reduce_int8_sum_wraps(rng):
    """int8 sums accumulate in int32 (the op's acc) and return int8: the int32 sum, wrapped."""

    @tile_op(dtype=int8, dims=["M", "N"])
    def f(x):
        return tilec.sum(x, axis=1)

    x = np.full((3, 300), 100, np.int8)
    want = np.full(3, np.int64(30000) % 256 - (256 if 30000 % 256 >= 128 else 0), np.int8)
    np.testing.assert_array_equal(f(x), want)
    np.testing.assert_array_equal(tilec.interpret(f, x), want)


def test_reduce_nan_propagates(rng):
    """A NaN in a slice makes its max, min, sum and mean NaN, whatever the axis."""
    op, kinds, axes_list = make_op(float32, 3, dims=True)
    x = rand(rng, (5, 6, 7))
    x[2, 3, 4] = np.nan
    x[0, 0, 0] = np.nan
    got = op(x)
    ref = tilec.interpret(op, x)
    cases = [(axes, kind) for axes in axes_list for kind in kinds] + [(None, "sum"), ((-1,), "max")]
    for (axes, kind), g, r in zip(cases, got, ref):
        want_nan = np.isnan(np.sum(x.astype(np.float64), axis=axes))
        np.testing.assert_array_equal(np.isnan(g), want_nan, err_msg=f"{kind} {axes}")
        np.testing.assert_array_equal(np.isnan(r), want_nan, err_msg=f"{kind} {axes}")


def test_reduce_max_min_with_infinities(rng):
    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x):
        return tilec.max(x, axis=1), tilec.min(x, axis=0), tilec.sum(x, axis=1)

    x = np.full((4, 9), -np.inf, np.float32)
    x[1] = np.inf
    x[2, 3] = 5.0
    x[3] = rand(rng, (9,))
    x[3, 0] = np.inf
    got = f(x)
    X = f64(x)
    with np.errstate(invalid="ignore"):
        wants = (X.max(1), X.min(0), X.sum(1))
    for g, r, w in zip(got, tilec.interpret(f, x), wants):
        np.testing.assert_array_equal(f64(g), w)
        np.testing.assert_array_equal(f64(r), w)


def test_reduce_empty_axis():
    """Reducing an empty axis gives the identity: sum 0, max -inf, min +inf (and INT_MIN/MAX)."""

    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x):
        return tilec.sum(x, axis=1), tilec.max(x, axis=1), tilec.min(x, axis=1), tilec.sum(x, axis=0)

    x = np.zeros((3, 0), np.float32)
    got = f(x)
    for g, r in zip(got, tilec.interpret(f, x)):
        np.testing.assert_array_equal(g, r)
    np.testing.assert_array_equal(got[0], np.zeros(3, np.float32))
    np.testing.assert_array_equal(got[1], np.full(3, -np.inf, np.float32))
    np.testing.assert_array_equal(got[2], np.full(3, np.inf, np.float32))
    assert got[3].shape == (0,)

    @tile_op(dtype=int32, dims=["M", "N"])
    def g(x):
        return tilec.max(x, axis=0), tilec.min(x, axis=0)

    y = np.zeros((0, 2), np.int32)
    mx, mn = g(y)
    np.testing.assert_array_equal(mx, np.full(2, np.iinfo(np.int32).min, np.int32))
    np.testing.assert_array_equal(mn, np.full(2, np.iinfo(np.int32).max, np.int32))


def test_reduce_then_elementwise_then_reduce(rng):
    """Reductions of computed values over leading axes (reduction groups reading temporaries)
    and chains of them."""

    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x):
        col = tilec.sum(tilec.exp(x), axis=0)  # a non-trailing reduction of a computed value
        t = x.T * 2.0  # a transposed computed value
        return col, tilec.max(t, axis=0), tilec.mean(tilec.max(x, axis=1) * col.sum())

    x = rand(rng, (13, 7))
    X = f64(x)
    col = np.exp(X).sum(0)
    wants = (col, (X.T * 2).max(0), (X.max(1) * col.sum()).mean())
    got, ref = f(x), tilec.interpret(f, x)
    for g, r, w in zip(got, ref, wants):
        np.testing.assert_allclose(f64(g), w, rtol=2e-5)
        np.testing.assert_allclose(f64(g), f64(r), rtol=2e-5)
