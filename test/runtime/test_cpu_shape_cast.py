"""Shape and type ops compiled for the CPU: transpose, reshape, broadcast_to (of arguments and of
computed values, static and dynamic) and astype between every pair of element types, against
numpy and the interpreter.

Conversions must match the interpreter (docs/interpreter.md) exactly: float->float and
int->float round to nearest even ONCE (f64->bf16 and big int->bf16 must not round twice),
float->int truncates and saturates with NaN -> 0, int->int keeps the low bits, ->bool is != 0.
Value-moving ops (transpose, reshape, broadcast) are exact.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from cpu_util import assert_close, check, f64, rand, rng  # noqa: F401

import tilec
from tilec import bfloat16, bool_, float16, float32, float64, int8, int32, int64, tile_op

ALL = [float32, float16, bfloat16, float64, int8, int32, int64, bool_]
IDS = ["f32", "f16", "bf16", "f64", "i8", "i32", "i64", "bool"]


def _conv_op(src):
    @tile_op(dtype=src, dims=["N"])
    def conv(x):
        return tuple(x.astype(d) for d in ALL)

    return conv


CONV = {i: _conv_op(d) for d, i in zip(ALL, IDS)}


def _inputs(dtype, rng) -> np.ndarray:
    dt = tilec.as_dtype(dtype)
    if dt.is_bool:
        return np.array([True, False, True, True, False])
    if dt.is_int:
        info = np.iinfo(dt.np)
        edge = [
            info.min,
            info.max,
            info.min + 1,
            -1,
            0,
            1,
            127,
            128,
            -129,
            255,
            256,
            2049,
            65504,
            65520,
            2**24 + 1,
            2**24 + 2**16 + 1,
            -(2**24 + 2**16 + 1),
            2**31 - 1,
            2**53 + 1,
            2**62 + 2**38 + 1,
        ]
        edge = [v for v in edge if info.min <= v <= info.max]
        return np.concatenate([np.array(edge, dt.np), rand(rng, (50,), dt, info.min, info.max)])
    vals = [
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        0.9999,
        -0.9999,
        127.9,
        128.0,
        -128.5,
        -129.0,
        255.5,
        300.0,
        2049.0,
        65504.0,
        65519.0,
        65520.0,
        1e5,
        -1e5,
        2.0**31,
        -(2.0**31) - 4096,
        2.0**31 - 128,
        3e9,
        -3e9,
        2.0**63,
        -(2.0**63),
        1e19,
        -1e19,
        1e30,
        3e38,
        -3e38,
        1e-40,
        6e-8,
        1e-45,
        np.inf,
        -np.inf,
        np.nan,
        1 + 2.0**-8 + 2.0**-30,
        1 + 2.0**-11 + 2.0**-40,
        1 + 3 * 2.0**-8,
    ]
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.array(vals, np.float64).astype(dt.np)
        r = (rng.standard_normal(60) * np.exp(rng.uniform(-20, 20, 60))).astype(dt.np)
    return np.concatenate([x, r])


@pytest.mark.parametrize("src", ALL, ids=IDS)
def test_astype_every_pair(src, rng):
    """Every conversion from `src`: equal to the interpreter bit for bit (NaN as NaN), and to
    numpy where numpy's conversion is the documented one."""
    op = CONV[IDS[ALL.index(src)]]
    x = _inputs(src, rng)
    got = op(x)
    ref = tilec.interpret(op, x)
    X = f64(x)
    for dst, g, r in zip(ALL, got, ref):
        what = f"{tilec.as_dtype(src).name} -> {tilec.as_dtype(dst).name}"
        assert g.dtype == tilec.as_dtype(dst).np, what
        if tilec.as_dtype(dst).is_float:
            np.testing.assert_array_equal(f64(g), f64(r), err_msg=what)  # NaN == NaN here
        else:
            np.testing.assert_array_equal(g, r, err_msg=what)
        dt = tilec.as_dtype(dst)
        if tilec.as_dtype(src).is_float and dt.is_int:  # truncate, saturate, NaN -> 0
            info = np.iinfo(dt.np)
            want = [0 if v != v else info.max if v >= info.max else info.min if v <= info.min else int(v) for v in X]
            np.testing.assert_array_equal(g, np.array(want, dtype=object).astype(dt.np), err_msg=what)
        if dt == bool_:
            np.testing.assert_array_equal(g, x != 0, err_msg=what)


def test_astype_single_rounding():
    """Conversions round once: f64 -> bf16 and int -> bf16 do not go through a rounded f32."""
    x = np.array([1 + 2.0**-8 + 2.0**-30, -(1 + 2.0**-8 + 2.0**-30), 1 + 2.0**-8], np.float64)
    got = CONV["f64"](x)
    want_bf16 = np.array([1 + 2.0**-7, -(1 + 2.0**-7), 1.0], np.float64)  # the last one is a tie: to even
    np.testing.assert_array_equal(f64(got[2]), want_bf16)
    i = np.array([2**24 + 2**16 + 1, -(2**24 + 2**16 + 1)], np.int32)
    got = CONV["i32"](i)
    np.testing.assert_array_equal(f64(got[2]), [2.0**24 + 2**17, -(2.0**24 + 2**17)])
    np.testing.assert_array_equal(
        got[2], np.array([2**24 + 2**17, -(2**24 + 2**17)], np.float64).astype(ml_dtypes.bfloat16)
    )


def test_astype_chains_round_in_between(rng):
    """f32 -> f16 -> f32 inside one kernel keeps the f16 rounding (16-bit values compute in f32)."""

    @tile_op(dtype=float32, dims=["N"])
    def f(x):
        return (
            x.astype(float16).astype(float32),
            x.astype(bfloat16).astype(float32) * 2.0,
            x.astype(int32).astype(float32),
        )

    x = rand(rng, (101,), float32, -300, 300)
    check(f, [x], (f64(x.astype(np.float16)), f64(x.astype(ml_dtypes.bfloat16)) * 2, np.trunc(f64(x))), rtol=0, atol=0)


@tile_op(dtype=float32, dims=["A", "B", "C"])
def transposes(x):
    return x.T, x.transpose(1, 0, 2), tilec.transpose(x, (2, 0, 1)) + 1.0, (x * 2.0).transpose(0, 2, 1)


@pytest.mark.parametrize("shape", [(1, 1, 1), (2, 3, 5), (7, 1, 13), (17, 19, 3)])
def test_transpose(shape, rng):
    x = rand(rng, shape)
    X = f64(x)
    got = check(transposes, [x], (X.T, X.transpose(1, 0, 2), X.transpose(2, 0, 1) + 1, (X * 2).transpose(0, 2, 1)))
    np.testing.assert_array_equal(got[0], x.T)
    np.testing.assert_array_equal(got[1], x.transpose(1, 0, 2))


@tile_op(dtype=float32, dims=["M", 6])
def reshapes(x):
    a = x.reshape(1, -1, x.shape[1])  # a view of the argument, unit dims only
    b = (x + 1.0).reshape(x.shape[0], 1, x.shape[1]) * 2.0  # unit dims on a computed value
    c = (x * 3.0).reshape(-1, 2, 3)  # a real reshape of a computed value: a new group reads its buffer
    d = tilec.exp(x.reshape(x.shape[0], 3, 2))  # a real reshape of the argument (a view)
    return a, b, c, d


@pytest.mark.parametrize("M", [1, 7, 251])
def test_reshape(M, rng):
    x = rand(rng, (M, 6))
    X = f64(x)
    check(
        reshapes,
        [x],
        (X.reshape(1, -1, 6), (X + 1).reshape(M, 1, 6) * 2, (X * 3).reshape(-1, 2, 3), np.exp(X.reshape(M, 3, 2))),
    )


def test_reshape_static_non_unit(rng):
    @tile_op(dtype=float32)
    def f(x):
        y = tilec.tanh(x).reshape(6, 35)  # a real reshape (not unit dims) of a computed value
        return y.sum(axis=1), x.reshape(5, 7, 6) * 1.5, y.T

    x = rand(rng, (10, 21))
    X = f64(x)
    y = np.tanh(X).reshape(6, 35)
    check(f, [x], (y.sum(1), X.reshape(5, 7, 6) * 1.5, y.T))


@tile_op(dtype=float32)
def broadcasts(x, row, col):
    return (
        tilec.broadcast_to(row, x.shape),
        tilec.broadcast_to(col, x.shape) * x,
        tilec.broadcast_to(tilec.exp(row), (2, *x.shape)),
    )


@tile_op(dtype=float32, dims=["M", "N"])
def broadcasts_dyn(x, row):
    return tilec.broadcast_to(row, x.shape), tilec.broadcast_to(tilec.exp(row), x.shape) + x


def test_broadcast_to(rng):
    for M, N in [(1, 1), (7, 13), (3, 1)]:
        x, row, col = rand(rng, (M, N)), rand(rng, (N,)), rand(rng, (M, 1))
        X, R, C = f64(x), f64(row), f64(col)
        check(broadcasts, [x, row, col], (np.broadcast_to(R, (M, N)), C * X, np.broadcast_to(np.exp(R), (2, M, N))))
        check(broadcasts_dyn, [x, row], (np.broadcast_to(R, (M, N)), np.exp(R) + X))


def test_return_argument_and_views(rng):
    """Returning an argument (a copy), its transpose and a broadcast view of it."""

    @tile_op(dtype=int32)
    def f(x, v):
        return x, x.T, tilec.broadcast_to(v, (3, 5)), v.reshape(1, 5)

    x, v = rand(rng, (4, 6), int32, -9, 9), rand(rng, (5,), int32, -9, 9)
    got = f(x, v)
    assert got[0] is not x and not np.shares_memory(got[0], x)
    for g, r, w in zip(got, tilec.interpret(f, x, v), (x, x.T, np.broadcast_to(v, (3, 5)), v.reshape(1, 5))):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(r, w)
