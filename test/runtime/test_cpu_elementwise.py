"""Elementwise ops compiled for the CPU: every unary and binary op, comparisons, masks and
`where`, in f32/f16/bf16/f64 and the integer types, on random values and on special values
(±0, ±inf, NaN, subnormals, huge), against float64 numpy and the interpreter.
Tolerances: cpu_util.TOL (f32 1e-5, f16 1e-2/1e-3, bf16 2e-2); NaN positions, infinities,
masks and integer results must match exactly."""

from __future__ import annotations

import numpy as np
import pytest
from cpu_util import assert_close, check, erf64, f64, rand, rng  # noqa: F401

import tilec
from tilec import bfloat16, bool_, float16, float32, float64, int8, int32, int64, tile_op

FLOATS = [float32, float16, bfloat16, float64]
FIDS = ["f32", "f16", "bf16", "f64"]

SPECIAL = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.5,
    3.0,
    np.inf,
    -np.inf,
    np.nan,
    1e-40,
    -1e-42,
    1e-30,
    3e38,
    -3e38,
    88.0,
    -103.0,
    20.0,
    -9.0,
]


def special(dtype) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.array(SPECIAL, np.float64).astype(tilec.as_dtype(dtype).np)


def unary_(x):
    return (
        -x,
        abs(x),
        tilec.exp(x),
        tilec.log(x),
        tilec.sqrt(x),
        tilec.rsqrt(x),
        tilec.tanh(x),
        tilec.erf(x),
        x**2,
        2.0**x,
        1.0 - x * 3.0,
        x / 4.0,
    )


def unary64(x):
    with np.errstate(all="ignore"):
        return (
            -x,
            np.abs(x),
            np.exp(x),
            np.log(x),
            np.sqrt(x),
            1 / np.sqrt(x),
            np.tanh(x),
            erf64(x),
            x**2,
            2.0**x,
            1.0 - x * 3.0,
            x / 4.0,
        )


def binary_(x, y):
    return (
        x + y,
        x - y,
        x * y,
        x / y,
        tilec.maximum(x, y),
        tilec.minimum(x, y),
        x**y,
        x < y,
        x <= y,
        x > y,
        x >= y,
        x == y,
        x != y,
        tilec.where(x < y, x, y),
        tilec.where(x > 0.0, y, 0.5),
    )


def binary64(x, y):
    with np.errstate(all="ignore"):
        return (
            x + y,
            x - y,
            x * y,
            x / y,
            np.maximum(x, y),
            np.minimum(x, y),
            x**y,
            x < y,
            x <= y,
            x > y,
            x >= y,
            x == y,
            x != y,
            np.where(x < y, x, y),
            np.where(x > 0, y, 0.5),
        )


UNARY = {i: tile_op(dtype=d, dims=["N"])(unary_) for d, i in zip(FLOATS, FIDS)}
BINARY = {i: tile_op(dtype=d, dims=["N"])(binary_) for d, i in zip(FLOATS, FIDS)}


def _compare(got, ref, wants, dtype, rtol=None, atol=None):
    for i, (g, r, w) in enumerate(zip(got, ref, wants)):
        dt = tilec.as_dtype(g.dtype)
        if dt == bool_:
            np.testing.assert_array_equal(g, w, err_msg=f"result {i} vs numpy")
            np.testing.assert_array_equal(g, r, err_msg=f"result {i} vs interpreter")
            continue
        with np.errstate(over="ignore"):
            w = np.asarray(w).astype(dt.np)  # numpy's float64 value rounded to the result type
        assert_close(g, f64(w), dt, rtol, atol, what=f"result {i} vs numpy: ")
        assert_close(g, r, dt, rtol, atol, what=f"result {i} vs interpreter: ")


@pytest.mark.parametrize("dtype", FLOATS, ids=FIDS)
def test_unary_random(dtype, rng):
    op = UNARY[FIDS[FLOATS.index(dtype)]]
    for n in [1, 7, 251, 4099]:
        x = rand(rng, (n,), dtype, 0.01, 5)  # positive: log/sqrt/pow defined
        x[: n // 2] *= -1 if n > 1 else 1
        got = op(x)
        ref = tilec.interpret(op, x)
        _compare(got, ref, unary64(f64(x)), dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=FIDS)
def test_unary_special_values(dtype):
    """exp(-inf) = 0, exp(+inf) = inf, exp overflow = inf, log(0) = -inf, log(<0) = NaN,
    sqrt(-1) = NaN, rsqrt(0) = inf, tanh/erf(±inf) = ±1, NaN in -> NaN out."""
    op = UNARY[FIDS[FLOATS.index(dtype)]]
    x = special(dtype)
    got = op(x)
    ref = tilec.interpret(op, x)
    _compare(got, ref, unary64(f64(x)), dtype)
    e, lg = f64(got[2]), f64(got[3])
    xs = f64(x)
    assert (e[xs == -np.inf] == 0).all() and (e[xs == np.inf] == np.inf).all()
    assert (lg[xs == 0] == -np.inf).all() and np.isnan(lg[xs < 0]).all()
    assert np.isnan(f64(got[4])[xs < 0]).all()


@pytest.mark.parametrize("dtype", FLOATS, ids=FIDS)
def test_binary_random(dtype, rng):
    op = BINARY[FIDS[FLOATS.index(dtype)]]
    for n in [1, 13, 4096]:
        x, y = rand(rng, (n,), dtype, 0.1, 3), rand(rng, (n,), dtype, -3, 3)
        x[::3] = y[::3]  # some equal pairs for == and !=
        got = op(x, y)
        ref = tilec.interpret(op, x, y)
        _compare(got, ref, binary64(f64(x), f64(y)), dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=FIDS)
def test_binary_special_values(dtype):
    """All pairs of special values: IEEE arithmetic, NaN-propagating maximum/minimum, ordered
    comparisons (false with NaN, except !=)."""
    op = BINARY[FIDS[FLOATS.index(dtype)]]
    s = special(dtype)
    x, y = np.repeat(s, len(s)), np.tile(s, len(s))
    got = op(x, y)
    ref = tilec.interpret(op, x, y)
    wants = list(binary64(f64(x), f64(y)))
    # the sign of a zero from max/min of ±0 is unspecified: compare those as values
    _compare(got, ref, wants, dtype)
    X, Y = f64(x), f64(y)
    nan = np.isnan(X) | np.isnan(Y)
    assert np.isnan(f64(got[4])[nan]).all() and np.isnan(f64(got[5])[nan]).all()
    assert not got[7][nan].any() and got[12][nan].all()


def test_logical_ops_on_masks(rng):
    @tile_op(dtype=float32, dims=["N"])
    def f(x, y):
        a, b = x > 0.0, y > 0.0
        return a & b, a | b, a ^ b, ~a, tilec.where(a & ~b, x, -y), (x != x) | (y == 1.0)

    x, y = rand(rng, (257,)), rand(rng, (257,))
    x[5], y[6], y[7] = np.nan, 1.0, np.nan
    a, b = x > 0, y > 0
    got, ref = f(x, y), tilec.interpret(f, x, y)
    wants = [a & b, a | b, a ^ b, ~a]
    for g, r, w in zip(got[:4], ref[:4], wants):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(r, w)
    assert_close(got[4], np.where(a & ~b, f64(x), -f64(y)), float32)
    np.testing.assert_array_equal(got[5], np.isnan(x) | (y == 1.0))


def test_scalar_constants_and_numpy_scalars(rng):
    @tile_op(dtype=float16, dims=["N"])
    def f(x):
        return 2 * x + np.float16(0.5), 1.0 - x, x**3, tilec.where(x > 0.0, 1.0, -1.0)

    x = rand(rng, (33,), float16)
    X = f64(x)
    check(f, [x], (2 * X + 0.5, 1.0 - X, X**3, np.where(X > 0, 1.0, -1.0)), float16)


INTS = [int8, int32, int64]
IIDS = ["i8", "i32", "i64"]


@pytest.mark.parametrize("dtype", INTS, ids=IIDS)
def test_integer_ops_wrap(dtype, rng):
    """Integer add/sub/mul/neg wrap around (two's complement), abs(INT_MIN) = INT_MIN; max, min,
    comparisons and where are exact. Checked at the extremes of each type."""

    @tile_op(dtype=dtype, dims=["N"])
    def f(x, y):
        return (
            x + y,
            x - y,
            x * y,
            -x,
            abs(x),
            tilec.maximum(x, y),
            tilec.minimum(x, y),
            x < y,
            x == y,
            x >= y,
            tilec.where(x > y, x, y * 3),
            x * 2 + 1,
            x + 1 > x,
            abs(x) >= 0,
        )  # both false at the wrap-around (C compilers fold them to true for signed ints)

    info = np.iinfo(dtype.np)
    edge = np.array([info.min, info.max, info.min + 1, info.max - 1, -1, 0, 1, 2, -2], dtype.np)
    r = rand(rng, (40,), dtype, info.min, info.max)
    x = np.concatenate([np.repeat(edge, len(edge)), r])
    y = np.concatenate([np.tile(edge, len(edge)), r[::-1]])
    got, ref = f(x, y), tilec.interpret(f, x, y)
    X, Y = x.astype(object), y.astype(object)  # exact Python ints, wrapped below

    def wrap(v):
        bits = 8 * dtype.np.itemsize
        u = np.array([int(t) % (1 << bits) for t in v], dtype=object)
        return np.array([int(t) - (1 << bits) if t >= (1 << (bits - 1)) else int(t) for t in u], dtype.np)

    wants = [
        wrap(X + Y),
        wrap(X - Y),
        wrap(X * Y),
        wrap(-X),
        wrap(np.abs(X)),
        np.maximum(x, y),
        np.minimum(x, y),
        x < y,
        x == y,
        x >= y,
        np.where(x > y, x, wrap(Y * 3)),
        wrap(X * 2 + 1),
        wrap(X + 1) > x,
        wrap(np.abs(X)) >= 0,
    ]
    for i, (g, rr, w) in enumerate(zip(got, ref, wants)):
        np.testing.assert_array_equal(rr, w, err_msg=f"interpreter result {i}")
        np.testing.assert_array_equal(g, w, err_msg=f"compiled result {i}")


def test_broadcasting_elementwise(rng):
    @tile_op(dtype=float32)
    def f(x, row, col, s):
        return x * row + col - s, tilec.maximum(x, col)

    x, row, col, s = rand(rng, (7, 13)), rand(rng, (13,)), rand(rng, (7, 1)), rand(rng, ())
    X, R, C, S = f64(x), f64(row), f64(col), f64(s)
    check(f, [x, row, col, s], (X * R + C - S, np.maximum(X, C)))


def test_bool_op(rng):
    """An op over masks (dtype bool_): logical ops and where on bools."""

    @tile_op(dtype=bool_, dims=["N"])
    def f(a, b):
        return a & b, a | ~b, tilec.where(a, b, ~b)

    a, b = rng.random(100) < 0.5, rng.random(100) < 0.5
    got, ref = f(a, b), tilec.interpret(f, a, b)
    for g, r, w in zip(got, ref, [a & b, a | ~b, np.where(a, b, ~b)]):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(r, w)


def test_small_work_runs_on_the_calling_thread():
    """Kernels start the OpenMP team only for work >= parallel-work (docs/cpu.md)."""
    from tilec import tile_contract

    @tile_op(dtype=float32)
    def mm(a, b):
        return tile_contract(a, b, axes=[(-1, 0)])

    small = np.ones((1, 1), np.float32)
    src = mm.source("cpu", small, small)
    assert src.count("#pragma omp parallel for") == src.count("if(false)") > 0
    big = np.ones((256, 256), np.float32)
    assert "if(false)" not in mm.source("cpu", big, big)
    np.testing.assert_array_equal(mm(small, small), small)
    assert "if(false)" not in mm.source("cpu", small, small, parallel_work=0)

    @tile_op(dtype=float32, dims=["M", "N"])
    def inc(x):
        return x + 1.0

    assert "if(v" in inc.source("cpu") or " if(" in inc.source("cpu")  # decided at run time
