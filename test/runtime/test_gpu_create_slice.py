"""Creation ops and slicing/joining on the CUDA target against numpy (random inputs, awkward
shapes, dynamic sizes), and the causal-masked softmax as one kernel.

Marked `gpu`: every test here skips, saying so, when CuPy or an NVIDIA GPU is missing (the PTX of
these programs is assembled by ptxas in test_create_slice.py on every machine). Moving data must
be exact; the softmax compares at rtol 2e-5 (ex2.approx-based exp, test_gpu.py)."""

from __future__ import annotations

import numpy as np
import pytest
from gpu_util import HAVE_GPU, cp

import tilec
from tilec import float32, int64, tile_contract, tile_op

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine"),
]

rng = np.random.default_rng()


def rand(shape):
    return rng.standard_normal(shape).astype(np.float32)


def same(got, want):
    got = cp.asnumpy(got)
    assert got.shape == np.shape(want) and got.dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape", [(1, 1), (7, 13), (127, 1000), (3, 257)])
def test_slices_flips_pads_and_joins(shape):
    @tile_op(dtype=float32, dims=["M", shape[1]])
    def f(x):
        return (
            x[:, 1:] * 2.0 if x.shape[1] > 1 else x * 2.0,
            x[::-1, ::-2],
            tilec.pad(x, ((0, 0), (3, 1)), value=-1.0),
            tilec.concatenate([x, tilec.flip(x, 1)], axis=1),
            tilec.stack([x, x], axis=0),
        )

    x = rand(shape)
    got = f(cp.asarray(x))
    want = (
        (x[:, 1:] if shape[1] > 1 else x) * np.float32(2),
        x[::-1, ::-2],
        np.pad(x, ((0, 0), (3, 1)), constant_values=-1),
        np.concatenate([x, np.flip(x, 1)], 1),
        np.stack([x, x]),
    )
    for g, w in zip(got, want):
        same(g, w)


@pytest.mark.parametrize("start", [-3, 0, 5, 1000])
def test_dynamic_slice_clamps(start):
    @tile_op(dtype=float32)
    def f(x, i):
        return tilec.dynamic_slice(x, i.astype(int64)[0], 4, axis=1)

    x = rand((9, 11))
    s = min(max(start, 0), 7)
    same(f(cp.asarray(x), cp.asarray(np.array([start], np.float32))), x[:, s : s + 4])


def test_creation_with_dynamic_sizes():
    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x):
        m, n = x.shape
        return x * tilec.arange(n).astype(float32) + tilec.iota((m, n), 0, float32), tilec.ones_like(x)

    x = rand((5, 33))
    a, b = f(cp.asarray(x))
    want = x.astype(np.float64) * np.arange(33) + np.arange(5)[:, None]  # (x * pos + row may be one fma)
    np.testing.assert_allclose(cp.asnumpy(a), want, rtol=2e-7, atol=1e-6)
    same(b, np.ones_like(x))


@pytest.mark.parametrize("shape", [(1, 1), (13, 13), (64, 1024)])
def test_causal_softmax_is_one_kernel(shape):
    @tile_op(dtype=float32, dims=["S", "T"])
    def causal(s):
        S, T = s.shape
        z = tilec.where(tilec.iota((S, T), 1) <= tilec.iota((S, T), 0), s, -np.inf)
        e = tilec.exp(z - tilec.max(z, axis=-1, keepdims=True))
        return e / tilec.sum(e, axis=-1, keepdims=True)

    s = rand(shape) * 3
    z = np.where(np.tril(np.ones(shape, bool)), s.astype(np.float64), -np.inf)
    e = np.exp(z - z.max(-1, keepdims=True))
    got = cp.asnumpy(causal(cp.asarray(s)))
    np.testing.assert_allclose(got, e / e.sum(-1, keepdims=True), rtol=2e-5, atol=1e-7)
    assert causal.ir("mapped", s, target="cuda").count("mapped.kernel @") == 1


def test_slice_feeding_sum_and_matmul():
    @tile_op(dtype=float32)
    def f(a, w):
        return tilec.sum(a[:, 3:], axis=-1), tile_contract(a[:, :4], w, axes=[(1, 0)])

    a, w = rand((70, 9)), rand((4, 33))
    s, m = f(cp.asarray(a), cp.asarray(w))
    np.testing.assert_allclose(cp.asnumpy(s), a[:, 3:].astype(np.float64).sum(-1), rtol=2e-5, atol=1e-5)
    np.testing.assert_allclose(cp.asnumpy(m), a[:, :4].astype(np.float64) @ w, rtol=2e-5, atol=1e-5)
