"""The semantics of tilec's HIP C++ on an NVIDIA GPU: the PORTABLE emission (lower-to-hip
{portable=true}: wave 32, no matrix-core builtins; contractions on the SIMT/FMA kernel) is
compiled by NVRTC through tilec/emit/hip_compat_cuda.h and run by the HIP runtime's host
program (`HipKernel.run_cuda_compat`), against numpy on random inputs with awkward shapes.

Marked `gpu`: every test skips, saying so, without CuPy and an NVIDIA GPU. Tolerances (relative
to the largest reference magnitude): f32 1e-5 (the device library's expf/tanhf/erff are accurate
to a few ulp), f16 1e-2, bf16 3e-2. Seed: printed; replay with TILEC_TEST_SEED.
"""

from __future__ import annotations

import os

import ml_dtypes
import numpy as np
import pytest
from gpu_util import HAVE_GPU

import tilec
from tilec import bfloat16, float16, float32, tile_contract, tile_op

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(
        not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine (the portable HIP C++ runs through NVRTC)"
    ),
]

SEED = int(os.environ.get("TILEC_TEST_SEED", np.random.SeedSequence().entropy % 2**32))
print(f"test_hip_portable seed: {SEED} (replay with TILEC_TEST_SEED={SEED})")
rng = np.random.default_rng(SEED)

NP = {float32: np.float32, float16: np.float16, bfloat16: ml_dtypes.bfloat16}
TOL = {float32: 1e-5, float16: 1e-2, bfloat16: 3e-2}


def rand(shape, dt, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(NP[dt])


def check(got, ref, dt):
    got = np.asarray(got).astype(np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    denom = max(1.0, float(np.abs(ref[np.isfinite(ref)]).max(initial=0)))
    err = float(np.nanmax(np.abs(got - ref), initial=0)) / denom
    assert err <= TOL[dt], f"error {err} > {TOL[dt]}"


def run(op, *arrays):
    """Compile the portable HIP C++ for these shapes and run it on the NVIDIA GPU."""
    k = op.compile("hip", *arrays, portable=True)
    assert k.wave == 32 and "__builtin_amdgcn" not in k.source
    out = k.run_cuda_compat(*arrays)
    return out[0] if len(out) == 1 else out


@pytest.mark.parametrize("dt", [float32, float16, bfloat16])
@pytest.mark.parametrize("shape", [(1, 1), (7, 13), (127, 1000), (3, 257)])
def test_elementwise_chain(dt, shape):
    @tile_op(dtype=dt)
    def f(x, y):
        return tilec.exp(x * 0.5) + tilec.tanh(y) * x - tilec.maximum(x, y) / (tilec.abs(y) + 1.0)

    x, y = rand(shape, dt), rand(shape, dt)
    xf, yf = x.astype(np.float64), y.astype(np.float64)
    ref = np.exp(xf * 0.5) + np.tanh(yf) * xf - np.maximum(xf, yf) / (np.abs(yf) + 1.0)
    check(run(f, x, y), ref, dt)


def test_math_functions():
    @tile_op(dtype=float32)
    def f(x, y):
        return tilec.log(tilec.abs(x) + 1.0) + tilec.sqrt(tilec.abs(y)) + tilec.erf(x) + (tilec.abs(x) + 0.5) ** y

    from math import erf

    x, y = rand((9, 31), float32), rand((9, 31), float32)
    xf, yf = x.astype(np.float64), y.astype(np.float64)
    ref = np.log(np.abs(xf) + 1) + np.sqrt(np.abs(yf)) + np.vectorize(erf)(xf) + (np.abs(xf) + 0.5) ** yf
    check(run(f, x, y), ref, float32)


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
    check(run(softmax, x), e / e.sum(-1, keepdims=True), dt)


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
    check(run(layernorm, x, g, b), ref, dt)


@pytest.mark.parametrize("shape", [(1, 1), (300, 17), (5, 4099)])
def test_reductions_over_each_axis(shape):
    @tile_op(dtype=float32)
    def f(x):
        return tilec.sum(x, axis=0), tilec.max(x, axis=1), tilec.min(x, axis=None, keepdims=True), tilec.mean(x, axis=0)

    x = rand(shape, float32)
    s, mx, mn, mean = run(f, x)
    xf = x.astype(np.float64)
    check(s, xf.sum(0), float32)
    check(mx, xf.max(1), float32)
    check(mn, xf.min(keepdims=True), float32)
    check(mean, xf.mean(0), float32)


@pytest.mark.parametrize("dt", [float32, float16, bfloat16])
@pytest.mark.parametrize("mnk", [(1, 1, 1), (7, 13, 5), (64, 64, 64), (130, 70, 257), (256, 192, 128)])
def test_matmul_simt(dt, mnk):
    m, n, k = mnk

    @tile_op(dtype=dt)
    def mm(a, b):
        return tile_contract(a, b, axes=[(-1, 0)])

    a, b = rand((m, k), dt), rand((k, n), dt)
    check(run(mm, a, b), a.astype(np.float64) @ b.astype(np.float64), dt)


@pytest.mark.parametrize("dt", [float32, float16])
def test_matmul_bias_gelu_transposed(dt):
    @tile_op(dtype=dt)
    def mlp(x, w, bias):
        h = tile_contract(x, w.T, axes=[(-1, 0)]) + bias
        return 0.5 * h * (1.0 + tilec.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))

    x, w, bias = rand((37, 96), dt), rand((50, 96), dt), rand((50,), dt)
    h = x.astype(np.float64) @ w.astype(np.float64).T + bias.astype(np.float64)
    ref = 0.5 * h * (1 + np.tanh(0.7978845608 * (h + 0.044715 * h**3)))
    check(run(mlp, x, w, bias), ref, dt)


def test_batched_contraction_and_reductions():
    @tile_op(dtype=float32)
    def f(a, b):
        c = tile_contract(a, b, axes=[(2, 1)], batch=[(0, 0)])
        return tilec.sum(c, axis=1), tilec.max(c, axis=(0, 2)), tilec.min(c, axis=0)

    a, b = rand((3, 17, 9), float32), rand((3, 9, 11), float32)
    c = np.einsum("bmk,bkn->bmn", a.astype(np.float64), b.astype(np.float64))
    s, mx, mn = run(f, a, b)
    check(s, c.sum(1), float32)
    check(mx, c.max((0, 2)), float32)
    check(mn, c.min(0), float32)


def test_dynamic_dims_one_kernel_many_shapes():
    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x):
        return (x * 2.0).astype(float16).astype(float32) + x.T.T

    k = f.compile("hip", portable=True)
    for shape in [(5, 3), (129, 65), (1, 1), (2, 4097)]:
        x = rand(shape, float32)
        (out,) = k.run_cuda_compat(x)
        check(out, (x * 2).astype(np.float16).astype(np.float64) + x, float32)


def test_dynamic_matmul():
    @tile_op(dtype=float16, dims=["M", "N", "K"])
    def mm(a, b):
        return tile_contract(a, b, axes=[(-1, 0)])

    k = mm.compile("hip", portable=True)
    for m, n, kk in [(70, 24, 40), (1, 3, 2), (65, 129, 33)]:
        a, b = rand((m, kk), float16), rand((kk, n), float16)
        (out,) = k.run_cuda_compat(a, b)
        check(out, a.astype(np.float64) @ b.astype(np.float64), float16)


def test_masks_where_and_integers():
    @tile_op(dtype=float32)
    def f(x, y):
        return (x < y) & (x > 0.0), tilec.where((x > y) | (y < 0.0), x, y)

    x, y = rand((9, 64), float32), rand((9, 64), float32)
    m, w = run(f, x, y)
    assert np.array_equal(m, (x < y) & (x > 0))
    check(w, np.where((x > y) | (y < 0), x, y), float32)

    @tile_op(dtype=tilec.int32)
    def g(a, b):
        return a * b + a - tilec.abs(b), tilec.max(a, axis=-1), tilec.sum(a, axis=0)

    a = rng.integers(-1000, 1000, (9, 33)).astype(np.int32)
    b = rng.integers(-1000, 1000, (9, 33)).astype(np.int32)
    p, mx, s = run(g, a, b)
    assert np.array_equal(p, a * b + a - np.abs(b))
    assert np.array_equal(mx, a.max(-1))
    assert np.array_equal(s, a.sum(0).astype(np.int32))
