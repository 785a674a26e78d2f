"""tilec.random on the CUDA target: bits, uniforms and bernoulli masks bit-identical to the
interpreter (awkward and dynamic shapes, counters carrying into the high word), dropout forward
and backward with the mask regenerated, normals within the documented ulps (docs/dsl.md).

Marked `gpu`: every test here skips, saying so, when CuPy or an NVIDIA GPU is missing (the PTX of
these programs is assembled by ptxas in test_random.py on every machine)."""

from __future__ import annotations

import numpy as np
import pytest
from gpu_util import HAVE_GPU, cp

import tilec
from tilec.philox import random_bits

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine"),
]

# the programs are shared with the CPU tests (one definition, compiled per target)
from test_random import OFFSETS, SHAPES, as_u64, bits2, dropout, dropout_rowsum, fresh_seed, normals, samples, ulps  # noqa: E402

rng = np.random.default_rng()


def same_bits(got, want):
    got = cp.asnumpy(got)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("shape", [*SHAPES, (1000, 1001)])
@pytest.mark.parametrize("offset", OFFSETS)
def test_bits(shape, offset):
    x = cp.zeros(shape, cp.float32)
    seed = fresh_seed()
    off = offset - 2**64 if offset >= 2**63 else offset
    same_bits(bits2(x, seed, off), random_bits(as_u64(seed), offset, shape))


@pytest.mark.parametrize("shape", [(1, 1), (11, 3), (7, 131), (513, 257)])
def test_uniform_and_bernoulli(shape):
    x = np.zeros(shape, np.float32)
    seed, off = fresh_seed(), int(rng.integers(0, 2**40))
    for g, w in zip(samples(cp.asarray(x), seed, off), tilec.interpret(samples, x, seed, off)):
        same_bits(g, w)


def test_dropout_forward_and_backward_match_the_interpreter():
    @tilec.tile_op(dtype=tilec.float32, dims=["M", "N"])
    def dropout_backward(dy, seed: int, offset: int, p: float):
        keep = tilec.random.bernoulli(1.0 - p, seed, offset, dy.shape)
        return tilec.where(keep, dy / (1.0 - p), 0.0)

    x = rng.standard_normal((333, 517)).astype(np.float32)
    dy = rng.standard_normal(x.shape).astype(np.float32)
    seed = fresh_seed()
    y = dropout(cp.asarray(x), seed, 2**32 - 9, 0.1)
    same_bits(y, tilec.interpret(dropout, x, seed, 2**32 - 9, 0.1))
    dx = dropout_backward(cp.asarray(dy), seed, 2**32 - 9, 0.1)
    same_bits(dx, tilec.interpret(dropout_backward, dy, seed, 2**32 - 9, 0.1))
    assert np.array_equal(cp.asnumpy(y) == 0, cp.asnumpy(dx) == 0)  # the same mask, regenerated
    s = cp.asnumpy(dropout_rowsum(cp.asarray(x), seed, 5))
    np.testing.assert_allclose(s, tilec.interpret(dropout_rowsum, x, seed, 5), rtol=2e-5, atol=2e-5)


def test_normal_within_the_documented_ulps():
    x = np.zeros((257, 1029), np.float32)
    seed, off = fresh_seed(), 77
    g32, g64 = (cp.asnumpy(v) for v in normals(cp.asarray(x), seed, off))
    i32, i64 = tilec.interpret(normals, x, seed, off)
    assert ulps(g32, i32).max() <= 1 and np.count_nonzero(g32 != i32) <= 20
    assert ulps(g64, i64).max() <= 6  # mathlib's f64 log and cos (<= 3 ulp each, measured), ptxas's fma
