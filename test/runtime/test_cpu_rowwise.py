"""Row-wise fusion groups compiled for the CPU: softmax, layernorm, logsumexp (and friends) in
f32, f16 and bf16, static and dynamic sizes, against float64 numpy and the interpreter.
Tolerances: cpu_util.TOL (f32 1e-5, f16 1e-2/1e-3, bf16 2e-2)."""

from __future__ import annotations

import numpy as np
import pytest
from cpu_util import assert_close, check, f64, rand, rng  # noqa: F401

import tilec
from tilec import bfloat16, float16, float32, float64, tile_op

DTYPES = [float32, float16, bfloat16]
IDS = ["f32", "f16", "bf16"]

SHAPES = [(1, 1), (1, 7), (7, 1), (13, 127), (251, 13), (3, 4096), (2, 5000)]


def softmax_(x):
    e = tilec.exp(x - tilec.max(x, axis=-1, keepdims=True))
    return e / tilec.sum(e, axis=-1, keepdims=True)


def layernorm_(x, g, b):
    mu = tilec.mean(x, axis=-1, keepdims=True)
    d = x - mu
    var = tilec.mean(d * d, axis=-1, keepdims=True)
    return d * tilec.rsqrt(var + 1e-5) * g + b


def logsumexp_(x):
    m = tilec.max(x, axis=-1, keepdims=True)
    return tilec.log(tilec.sum(tilec.exp(x - m), axis=-1)) + tilec.reshape(m, m.shape[:-1])


def softmax64(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def layernorm64(x, g, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * g + b


def logsumexp64(x):
    m = x.max(-1, keepdims=True)
    return np.log(np.exp(x - m).sum(-1)) + m[..., 0]


OPS = {}
for _dt, _id in zip(DTYPES, IDS):
    OPS[_id] = (
        tile_op(dtype=_dt, dims=["M", "N"])(softmax_),
        tile_op(dtype=_dt, dims=["M", "N"])(layernorm_),
        tile_op(dtype=_dt, dims=["M", "N"])(logsumexp_),
    )


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("M,N", SHAPES, ids=[f"{m}x{n}" for m, n in SHAPES])
def test_softmax_layernorm_logsumexp(dtype, M, N, rng):
    sm, ln, lse = OPS[IDS[DTYPES.index(dtype)]]
    x = rand(rng, (M, N), dtype, -4, 4)
    g, b = rand(rng, (N,), dtype), rand(rng, (N,), dtype)
    X, G, B = f64(x), f64(g), f64(b)
    check(sm, [x], softmax64(X), dtype)
    # layernorm: the result is O(|g| * 4), its absolute error follows
    rtol, atol = {"float32": (1e-5, 1e-5), "float16": (1e-2, 1e-2), "bfloat16": (3e-2, 6e-2)}[dtype.name]
    if N == 1:  # x - mean(x) is exactly 0: the result is b
        check(ln, [x, g, b], B * np.ones((M, 1)), dtype, rtol, atol)
    else:
        check(ln, [x, g, b], layernorm64(X, G, B), dtype, rtol, atol)
    check(lse, [x], logsumexp64(X), dtype)


def test_rowwise_static_and_rank3(rng):
    @tile_op(dtype=float32, dims=[5, 7, 33])
    def sm3(x):
        return softmax_(x)

    @tile_op(dtype=float32, dims=["A", "B", "C"])
    def sm3d(x):
        return softmax_(x)

    x = rand(rng, (5, 7, 33), float32, -5, 5)
    check(sm3, [x], softmax64(f64(x)))
    check(sm3d, [x], softmax64(f64(x)))
    y = rand(rng, (2, 1, 129), float32, -5, 5)
    check(sm3d, [y], softmax64(f64(y)))


def test_softmax_f64_and_extreme_values(rng):
    sm64 = tile_op(dtype=float64, dims=["M", "N"])(softmax_)
    x = rand(rng, (9, 31), float64, -700, 700)
    check(sm64, [x], softmax64(x))
    sm = OPS["f32"][0]
    # huge logits do not overflow (the max is subtracted); -inf logits give exact zeros
    x = rand(rng, (4, 17), float32, -1e30, 1e30)
    x[1, 3] = -np.inf
    got = check(sm, [x], softmax64(f64(x)), float32, atol=1e-6)[0]
    assert got[1, 3] == 0.0


def test_softmax_nan_row(rng):
    """A NaN in a row makes that row NaN (the max propagates it); other rows are untouched."""
    sm = OPS["f32"][0]
    x = rand(rng, (3, 19))
    x[1, 7] = np.nan
    got = sm(x)
    assert np.isnan(got[1]).all()
    assert_close(got[[0, 2]], softmax64(f64(x[[0, 2]])), float32)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(tilec.interpret(sm, x)))


def test_rowwise_several_results(rng):
    """Several results of one rowwise group: full-size and row-level ones, in any order."""

    @tile_op(dtype=float32, dims=["M", "N"])
    def stats(x):
        mu = tilec.mean(x, axis=-1)
        mx = tilec.max(x, axis=-1, keepdims=True)
        return mu, x - mx, mx, tilec.min(x, axis=1)

    for shape in [(1, 1), (7, 13), (3, 300)]:
        x = rand(rng, shape)
        X = f64(x)
        check(stats, [x], (X.mean(-1), X - X.max(-1, keepdims=True), X.max(-1, keepdims=True), X.min(1)))


def test_rms_norm_with_weight_cast_to_f16(rng):
    """An f16 op computing in f32 inside (astype), the classic RMSNorm."""

    @tile_op(dtype=float16, dims=["M", "N"])
    def rms(x, w):
        xf = x.astype(float32)
        r = tilec.rsqrt(tilec.mean(xf * xf, axis=-1, keepdims=True) + 1e-6)
        return (xf * r * w.astype(float32)).astype(float16)

    for shape in [(1, 1), (5, 77), (2, 4096)]:
        x, w = rand(rng, shape, float16), rand(rng, shape[-1:], float16)
        X, W = f64(x), f64(w)
        want = X / np.sqrt((X * X).mean(-1, keepdims=True) + 1e-6) * W
        check(rms, [x, w], want, float16)
