"""Scans (tilec.cumsum, cumprod, logcumsumexp): the interpreter and the CPU target against numpy
and torch on fresh random inputs: every axis of a 3-d tile (odd sizes), reverse / exclusive,
lengths 1, primes and 2**20 + 1, 16-bit floats accumulating in f32, integers wrapping in their
type, logcumsumexp with -inf, +inf, NaN and large values; fusion (a scan with its elementwise
producers and consumers is one kernel); located errors. Float sums run in order on every
target, so the compiled results equal the interpreter's up to the last rounding; against the
float64 reference they are within n * u * cumsum(|x|) (the bound of a sequential sum)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from cpu_util import assert_close, rand, rng  # noqa: F401
from test_frontend_util import expect_error

import tilec
from tilec import bfloat16, float16, float32, float64, int8, int32, tile_op, uint8


def kernels(op, *arrays) -> int:
    return op.ir("mapped", *arrays).count("mapped.kernel @")


def ref_scan(kind: str, x: np.ndarray, axis: int, reverse=False, exclusive=False) -> np.ndarray:
    """numpy/torch reference in float64 (integers: in their own type)."""
    w = x.astype(np.float64) if x.dtype.kind == "f" or x.dtype.name == "bfloat16" else x
    if reverse:
        w = np.flip(w, axis)
    if kind == "logaddexp":
        r = torch.logcumsumexp(torch.from_numpy(np.ascontiguousarray(w)), axis).numpy()
    else:
        fn = np.cumsum if kind == "add" else np.cumprod
        r = fn(w, axis=axis, dtype=w.dtype)
        if exclusive:
            first = np.full_like(np.take(r, [0], axis=axis), 0 if kind == "add" else 1)
            r = np.concatenate([first, np.take(r, range(r.shape[axis] - 1), axis=axis)], axis=axis)
    return np.flip(r, axis) if reverse else r


def seq_bound(x: np.ndarray, axis: int, reverse: bool, unit: float) -> np.ndarray:
    """The error bound of a sequential sum: (k + 1) * u * cumsum(|x|) at position k."""
    a = np.abs(np.flip(x, axis) if reverse else x).astype(np.float64)
    k = np.arange(1, x.shape[axis] + 1, dtype=np.float64).reshape([-1 if i == axis else 1 for i in range(x.ndim)])
    b = (k + 1) * unit * np.cumsum(a, axis=axis)
    return np.flip(b, axis) if reverse else b


FN = {"add": tilec.cumsum, "mul": tilec.cumprod, "logaddexp": tilec.logcumsumexp}


FLAGS = [(False, False), (True, False), (False, True), (True, True)]


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize(
    "kind,reverse,exclusive",
    [("add", *f) for f in FLAGS]
    + [("mul", *f) for f in FLAGS]
    + [("logaddexp", False, False), ("logaddexp", True, False)],
)
def test_every_axis_and_flag(rng, kind, axis, reverse, exclusive):
    flags = {"reverse": reverse} if kind == "logaddexp" else {"reverse": reverse, "exclusive": exclusive}

    @tile_op(dtype=float32)
    def f(x):
        return FN[kind](x, axis, **flags)

    lo, hi = (0.6, 1.4) if kind == "mul" else (-3.0, 3.0)
    x = rand(rng, (3, 5, 7), float32, lo, hi)
    want = ref_scan(kind, x, axis, reverse, exclusive)
    got, interp = f(x), tilec.interpret(f, x)
    assert_close(got, want, float32, rtol=1e-5, atol=1e-5)
    assert_close(interp, want, float32, rtol=1e-5, atol=1e-5)
    assert_close(got, interp, float32, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("n", [1, 2, 13, 1031])
def test_lengths_dynamic(rng, n):
    @tile_op(dtype=float32, dims=["N"])
    def f(x):
        return tilec.cumsum(x, 0), tilec.cumsum(x, 0, reverse=True, exclusive=True)

    x = rand(rng, (n,), float32)
    got, interp = f(x), tilec.interpret(f, x)
    for g, i, (rev, exc) in zip(got, interp, [(False, False), (True, True)]):
        want = ref_scan("add", x, 0, rev, exc)
        assert np.all(np.abs(g.astype(np.float64) - want) <= seq_bound(x, 0, rev, 2.0**-24) + 1e-30)
        np.testing.assert_array_equal(g, i)  # the same additions in the same order


def test_long_scan_2_20_plus_1(rng):
    @tile_op(dtype=float32)
    def f(x):
        return tilec.cumsum(x, 0)

    x = rand(rng, (2**20 + 1,), float32, -1.0, 1.0)
    got = f(x)
    np.testing.assert_array_equal(got, np.cumsum(x, dtype=np.float32))  # numpy's cumsum is sequential too
    assert np.all(np.abs(got.astype(np.float64) - np.cumsum(x.astype(np.float64))) <= seq_bound(x, 0, False, 2.0**-24))


@pytest.mark.parametrize("dt", [float16, bfloat16, float64])
def test_float_types_accumulate_wide(rng, dt):
    """16-bit floats accumulate in f32 (as torch): 4000 ones in f16 sum to 4000, not 2048."""

    @tile_op(dtype=dt)
    def f(x):
        return tilec.cumsum(x, 1), tilec.logcumsumexp(x, 0)

    x = rand(rng, (3, 4001), dt, 0.0, 1.0)
    x[0] = 1.0
    c, lse = f(x)
    ic, ilse = tilec.interpret(f, x)
    want = np.cumsum(x.astype(np.float64), axis=1)
    r = {"float16": 2e-3, "bfloat16": 8e-3, "float64": 1e-12}[tilec.as_dtype(dt).name]
    assert_close(c, want, dt, rtol=r, atol=r)
    assert_close(ic, want, dt, rtol=r, atol=r)
    assert float(c[0, 3999]) == 4000.0  # exact in f16 and bf16 too
    assert_close(lse, ref_scan("logaddexp", x, 0), dt, rtol=r, atol=r)
    assert_close(lse, ilse, dt, rtol=r, atol=r)


@pytest.mark.parametrize(
    "dt,kind,lo,hi",
    [(int32, "add", -(2**30), 2**30), (uint8, "add", 0, 255), (int8, "mul", -7, 7), (int32, "mul", -9, 9)],
)
def test_integers_wrap(rng, dt, kind, lo, hi):
    @tile_op(dtype=dt, dims=["M", "N"])
    def f(x):
        return FN[kind](x, 1), FN[kind](x, 0, reverse=True, exclusive=True)

    x = rand(rng, (4, 37), dt, lo, hi)
    a, b = f(x)
    ia, ib = tilec.interpret(f, x)
    wa, wb = ref_scan(kind, x, 1), ref_scan(kind, x, 0, True, True)
    for g, i, w in ((a, ia, wa), (b, ib, wb)):
        assert g.dtype == x.dtype
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(i, w)


def test_logcumsumexp_edges():
    """-inf (empty probability), +inf, NaN and values whose exp overflows f32, against torch."""

    @tile_op(dtype=float32)
    def f(x):
        return tilec.logcumsumexp(x, 1), tilec.logcumsumexp(x, 1, reverse=True)

    inf, nan = np.inf, np.nan
    x = np.array(
        [
            [-inf, -inf, 0.0, -inf, 1.0, -inf, -inf],
            [1000.0, 1000.0, -1000.0, 88.0, 89.0, 1e30, -1e30],
            [0.0, inf, 1.0, -inf, inf, 2.0, 3.0],
            [1.0, nan, 2.0, 3.0, -inf, 4.0, 5.0],
            [-inf] * 7,
        ],
        np.float32,
    )
    t = torch.from_numpy(x)
    want = (torch.logcumsumexp(t, 1).numpy(), torch.logcumsumexp(t.flip(1), 1).flip(1).numpy())
    for res in (f(x), tilec.interpret(f, x)):
        for g, w in zip(res, want):
            assert_close(g, w, float32, rtol=1e-6, atol=1e-6)


def test_fusion_one_kernel(rng):
    """A scan with its elementwise producers and consumers, and a second scan along the same axis
    and direction (also of the first scan), is one loop; another direction is a second kernel."""

    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x, w):
        c = tilec.cumsum(x * w, 1)
        return c / (tilec.cumsum(c, 1) + 10.0), tilec.cumprod(x, 1)

    @tile_op(dtype=float32, dims=["M", "N"])
    def g(x, w):
        return tilec.cumsum(x * w, 1) + tilec.cumsum(x, 1, reverse=True)

    x, w = rand(rng, (6, 29), float32, 0.5, 1.5), rand(rng, (6, 29), float32, 0.0, 1.0)
    assert kernels(f, x, w) == 1
    assert kernels(g, x, w) == 3
    c = np.cumsum(x.astype(np.float64) * w, 1)
    for res in (f(x, w), tilec.interpret(f, x, w)):
        assert_close(res[0], c / (np.cumsum(c, 1) + 10.0), float32, rtol=1e-5, atol=1e-6)
        assert_close(res[1], np.cumprod(x.astype(np.float64), 1), float32, rtol=1e-5, atol=1e-6)
    assert_close(g(x, w), c + ref_scan("add", x, 1, reverse=True), float32, rtol=1e-5, atol=1e-5)


def test_scan_feeds_a_reduction(rng):
    """A reduction of a scan reads the scan's materialized value (two kernels), correctly."""

    @tile_op(dtype=float32)
    def f(x):
        return tilec.max(tilec.cumsum(x, 0), axis=0)

    x = rand(rng, (17, 5), float32)
    want = np.cumsum(x.astype(np.float64), 0).max(0)
    assert_close(f(x), want, float32, rtol=1e-5, atol=1e-5)


def expect(marker: str, *phrases: str):
    return expect_error(__file__, marker, *phrases)


def test_errors():
    @tile_op(dtype=int32)
    def lse_int(x):
        return tilec.logcumsumexp(x, 0)  # E:lse-int

    @tile_op(dtype=float32)
    def bad_axis(x):
        return tilec.cumsum(x, 2)  # E:axis

    @tile_op(dtype=float32)
    def mask(x):
        return tilec.cumprod(x > 0, 0)  # E:mask

    with expect("lse-int", "tilec.logcumsumexp needs a float tile, got int32"):
        lse_int(np.zeros(3, np.int32))
    with expect("axis", "tilec.cumsum: axis 2 is out of range"):
        bad_axis(np.zeros((2, 3), np.float32))
    with expect("mask", "tilec.cumprod cannot scan a bool (mask) tile"):
        mask(np.zeros(3, np.float32))
