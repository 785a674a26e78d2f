"""The CUDA target against numpy (and the interpreter), on random inputs with awkward shapes.

Marked `gpu`: every test here skips, saying so, when CuPy or an NVIDIA GPU is missing.
Tolerances: f32 results compare at rtol 2e-5 (ex2.approx-based exp/tanh/erf add ~2 ulp);
f16 at 1e-2 and bf16 at 3e-2 relative to the largest reference magnitude.
Seed: printed; replay with TILEC_TEST_SEED.
"""

from __future__ import annotations

import os

import ml_dtypes
import numpy as np
import pytest
from gpu_util import HAVE_GPU, cp

import tilec
from tilec import bfloat16, float16, float32, tile_contract, tile_op

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine"),
]

SEED = int(os.environ.get("TILEC_TEST_SEED", np.random.SeedSequence().entropy % 2**32))
print(f"test_gpu seed: {SEED} (replay with TILEC_TEST_SEED={SEED})")
rng = np.random.default_rng(SEED)

NP = {float32: np.float32, float16: np.float16, bfloat16: ml_dtypes.bfloat16}
TOL = {float32: 2e-5, float16: 1e-2, bfloat16: 3e-2}


def rand(shape, dt, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(NP[dt])


def check(got, ref, dt):
    got = cp.asnumpy(got).astype(np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    assert got.shape == ref.shape
    assert np.isfinite(got).all() == np.isfinite(ref).all() or np.array_equal(np.isnan(got), np.isnan(ref))
    denom = max(1.0, float(np.abs(ref[np.isfinite(ref)]).max(initial=0)))
    err = float(np.nanmax(np.abs(got - ref), initial=0)) / denom
    assert err <= TOL[dt], f"error {err} > {TOL[dt]}"


def gpu(*arrays):
    return [cp.asarray(a) for a in arrays]


@pytest.mark.parametrize("dt", [float32, float16, bfloat16])
@pytest.mark.parametrize("shape", [(1, 1), (7, 13), (127, 1000), (3, 257)])
def test_elementwise_chain(dt, shape):
    @tile_op(dtype=dt)
    def f(x, y):
        return tilec.exp(x * 0.5) + tilec.tanh(y) * x - tilec.maximum(x, y) / (tilec.abs(y) + 1.0)

    x, y = rand(shape, dt), rand(shape, dt)
    (out,) = [f(*gpu(x, y))]
    xf, yf = x.astype(np.float64), y.astype(np.float64)
    ref = np.exp(xf * 0.5) + np.tanh(yf) * xf - np.maximum(xf, yf) / (np.abs(yf) + 1.0)
    check(out, ref, dt)


@pytest.mark.parametrize("dt", [float32, float16])
@pytest.mark.parametrize("shape", [(1, 5), (13, 7), (64, 1024), (5, 8192), (3, 1001)])
def test_softmax(dt, shape):
    @tile_op(dtype=dt)
    def softmax(x):
        e = tilec.exp(x - tilec.max(x, axis=-1, keepdims=True))
        return e / tilec.sum(e, axis=-1, keepdims=True)

    x = rand(shape, dt, 3.0)
    xf = x.astype(np.float64)
    e = np.exp(xf - xf.max(-1, keepdims=True))
    check(softmax(*gpu(x)), e / e.sum(-1, keepdims=True), dt)


@pytest.mark.parametrize("dt", [float32, float16])
@pytest.mark.parametrize("shape", [(1, 64), (33, 129), (16, 4096)])
def test_layernorm(dt, shape):
    @tile_op(dtype=dt)
    def layernorm(x, g, b):
        mu = tilec.mean(x, axis=-1, keepdims=True)
        d = x - mu
        var = tilec.mean(d * d, axis=-1, keepdims=True)
        return d * tilec.rsqrt(var + 1e-5) * g + b

    x, g, b = rand(shape, dt), rand(shape[-1:], dt), rand(shape[-1:], dt)
    xf = x.astype(np.float64)
    mu = xf.mean(-1, keepdims=True)
    ref = (xf - mu) / np.sqrt(((xf - mu) ** 2).mean(-1, keepdims=True) + 1e-5) * g.astype(np.float64) + b.astype(
        np.float64
    )
    check(layernorm(*gpu(x, g, b)), ref, dt)


@pytest.mark.parametrize("dt", [float32, float16, bfloat16])
@pytest.mark.parametrize("mnk", [(1, 1, 1), (7, 13, 5), (64, 64, 64), (130, 70, 257), (256, 512, 128)])
def test_matmul(dt, mnk):
    m, n, k = mnk

    @tile_op(dtype=dt)
    def mm(a, b):
        return tile_contract(a, b, axes=[(-1, 0)])

    a, b = rand((m, k), dt), rand((k, n), dt)
    check(mm(*gpu(a, b)), a.astype(np.float64) @ b.astype(np.float64), dt)


@pytest.mark.parametrize("dt", [float32, float16])
def test_matmul_bias_gelu_transposed(dt):
    @tile_op(dtype=dt)
    def mlp(x, w, bias):
        h = tile_contract(x, w.T, axes=[(-1, 0)]) + bias
        return 0.5 * h * (1.0 + tilec.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))

    x, w, bias = rand((37, 96), dt), rand((50, 96), dt), rand((50,), dt)
    h = x.astype(np.float64) @ w.astype(np.float64).T + bias.astype(np.float64)
    ref = 0.5 * h * (1 + np.tanh(0.7978845608 * (h + 0.044715 * h**3)))
    check(mlp(*gpu(x, w, bias)), ref, dt)


def test_batched_contraction_and_reductions():
    @tile_op(dtype=float32)
    def f(a, b):
        c = tile_contract(a, b, axes=[(2, 1)], batch=[(0, 0)])
        return tilec.sum(c, axis=1), tilec.max(c, axis=(0, 2)), tilec.min(c, axis=0)

    a, b = rand((3, 17, 9), float32), rand((3, 9, 11), float32)
    c = np.einsum("bmk,bkn->bmn", a.astype(np.float64), b.astype(np.float64))
    s, mx, mn = f(*gpu(a, b))
    check(s, c.sum(1), float32)
    check(mx, c.max((0, 2)), float32)
    check(mn, c.min(0), float32)


def test_dynamic_dims_and_casts():
    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x):
        return (x * 2.0).astype(float16).astype(float32) + x.T.T

    for shape in [(5, 3), (129, 65), (1, 1)]:
        x = rand(shape, float32)
        ref = (x * 2).astype(np.float16).astype(np.float64) + x
        check(f(*gpu(x)), ref, float32)


def test_compare_where_nan():
    @tile_op(dtype=float32)
    def f(x, y):
        return tilec.where(x < y, tilec.maximum(x, y), tilec.minimum(x, y))

    x, y = rand((9, 31), float32), rand((9, 31), float32)
    x[0, 0] = np.nan
    got = cp.asnumpy(f(*gpu(x, y)))
    ref = np.where(x < y, np.maximum(x, y), np.minimum(x, y))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_allclose(got[~np.isnan(ref)], ref[~np.isnan(ref)], rtol=1e-6)


def test_torch_tensors_are_accepted():
    torch = pytest.importorskip("torch")

    @tile_op(dtype=float32)
    def f(x):
        return x + 1.0

    t = torch.randn(4, 5, device="cuda")
    (out,) = [f(t)]
    np.testing.assert_allclose(cp.asnumpy(out), t.cpu().numpy() + 1.0, rtol=1e-6)


def test_matches_interpreter_on_random_program():
    @tile_op(dtype=float32)
    def f(x, w):
        y = tile_contract(x, w, axes=[(-1, 0)])
        return tilec.sum(tilec.exp(y - tilec.max(y, axis=-1, keepdims=True)), axis=-1)

    x, w = rand((23, 40), float32), rand((40, 19), float32)
    ref = tilec.interpret(f, x, w)
    check(f(*gpu(x, w)), ref, float32)


@pytest.mark.parametrize("shape", [(1, 1), (7, 13), (300, 257)])
def test_full_reductions_to_rank_0(shape):
    @tile_op(dtype=float32)
    def f(x):
        return tilec.min(x), tilec.sum(x * 2.0), tilec.max(x, axis=(0, 1))

    x = rand(shape, float32)
    mn, s, mx = f(*gpu(x))
    assert mn.shape == () and s.shape == ()
    check(mn, x.min(), float32)
    check(s, (x.astype(np.float64) * 2).sum(), float32)
    check(mx, x.max(), float32)


# --- runtime scalars, mixed argument dtypes, results that keep their dtype (issue 10, items 1-3) ---


def test_runtime_scalar_two_values_one_compile():
    @tile_op(dtype=float32, dims=["N"])
    def scaled(x, s: float):
        return x * s

    x = rand((1000 + 37,), float32)
    (xd,) = gpu(x)
    first = scaled(xd, 2.0)
    traces, spec = scaled.trace_count, next(iter(scaled._cache.values()))
    second = scaled(xd, -0.375)
    np.testing.assert_array_equal(cp.asnumpy(first), x * np.float32(2.0))
    np.testing.assert_array_equal(cp.asnumpy(second), x * np.float32(-0.375))
    assert scaled.trace_count == traces and len(spec.kernels) == 1
    kernel = next(iter(spec.kernels.values()))
    assert len(kernel._plans._plans) == 1  # planned once: the scalar is read at each call


@pytest.mark.parametrize("N,C", [(1, 1), (7, 5), (129, 1000)])
def test_cross_entropy_int64_labels_scalar_scale(N, C):
    @tile_op(dims=["N", "C"])
    def ce(logits: float32, labels: tilec.int64, classes: tilec.int64, scale: float):
        m = logits.max(axis=1, keepdims=True)
        lse = tilec.log(tilec.sum(tilec.exp(logits - m), axis=1)) + m.reshape(logits.shape[0])
        hit = labels.reshape(labels.shape[0], 1) == classes
        return (lse - tilec.sum(tilec.where(hit, logits, 0.0), axis=1)) * (scale / logits.shape[0])

    logits = rand((N, C), float32, 3.0)
    labels = rng.integers(0, C, N).astype(np.int64)
    classes = np.arange(C, dtype=np.int64)
    x = logits.astype(np.float64)
    m = x.max(axis=1, keepdims=True)
    want = (np.log(np.exp(x - m).sum(axis=1)) + m[:, 0] - x[np.arange(N), labels]) * (0.5 / N)
    check(ce(*gpu(logits, labels, classes), 0.5), want, float32)
    check(ce(*gpu(logits, labels, classes), 0.5), tilec.interpret(ce, logits, labels, classes, 0.5), float32)


@pytest.mark.parametrize("M,N,K", [(1, 1, 1), (7, 13, 257), (256, 128, 64)])
def test_f16_contract_to_f32_is_exact(M, N, K):
    @tile_op(dtype=float16, dims=["M", "N", "K"])
    def mm(A, B):
        C = tile_contract(A, B, axes=[(1, 0)])
        return C.astype(float32), C  # one GEMM: the f16 result is the f32 accumulator rounded once

    A, B = rand((M, K), float16), rand((K, N), float16)
    got, c16 = (cp.asnumpy(r) for r in mm(*gpu(A, B)))
    assert got.dtype == np.float32 and c16.dtype == np.float16
    np.testing.assert_array_equal(c16, got.astype(np.float16))
    exact = A.astype(np.float64) @ B.astype(np.float64)
    bound = 4 * K * 2.0**-24 * (np.abs(A.astype(np.float64)) @ np.abs(B.astype(np.float64)))
    assert np.all(np.abs(got - exact) <= bound + 1e-30)  # f32 accumulation only, never rounded to f16
