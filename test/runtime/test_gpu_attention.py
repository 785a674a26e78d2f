"""The flash-attention kernel on NVIDIA GPUs (issue 15, item 2: mma.sync, every sm >= 80): the
library's attention and attention written by hand, f16 and bf16, against float64 torch on fresh
random inputs of awkward shapes (L = 1, S = 1, primes, S not a multiple of the 64-key block,
head sizes 16 to 256, E != Ev), causal and not, masks given as arrays (bool and additive, rows
fully masked: NaN as softmax gives), and the log-sum-exp the backward needs; grouped-query
attention through `repeat_heads` (K/V heads read in place).

Marked `gpu`: every test skips, saying so, without CuPy and an NVIDIA GPU.
Seed: printed; replay with TILEC_TEST_SEED.
"""

from __future__ import annotations

import os

import ml_dtypes
import numpy as np
import pytest
from attention_util import reference
from gpu_util import HAVE_GPU, cp

import tilec
from tilec import bfloat16, float16, tile_op
from tilec.library.attention import attention, repeat_heads

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")]

SEED = int(os.environ.get("TILEC_TEST_SEED", np.random.SeedSequence().entropy % 2**32))
print(f"test_gpu_attention seed: {SEED} (replay with TILEC_TEST_SEED={SEED})")
rng = np.random.default_rng(SEED)

NP = {float16: np.float16, bfloat16: ml_dtypes.bfloat16}
TOL = {float16: 1e-2, bfloat16: 4e-2}


def kernels(op, *args) -> int:
    return op.ir("mapped", *args, target="cuda").count("mapped.kernel @")


def randn(shape, dt):
    return rng.standard_normal(shape).astype(NP[dt])


# (B, H, L, S, E, Ev)
SHAPES = [
    (1, 2, 1, 1, 64, 64),
    (2, 3, 77, 131, 64, 64),
    (1, 2, 128, 128, 128, 128),
    (2, 1, 200, 67, 96, 32),
    (1, 1, 33, 300, 256, 256),
    (1, 2, 64, 1000, 16, 48),
]


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("dt", [float16, bfloat16], ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_flash_attention_matches_float64(shape, dt, causal):
    b, h, n_l, n_s, e, ev = shape
    scale = e**-0.5

    @tile_op(dtype=dt)
    def attn(q, k, v):
        return attention(q, k, v, scale, causal=causal)

    q, k, v = randn((b, h, n_l, e), dt), randn((b, h, n_s, e), dt), randn((b, h, n_s, ev), dt)
    assert kernels(attn, q, k, v) == 1
    out, lse = attn(*(cp.asarray(x) for x in (q, k, v)))
    want, want_lse = reference(q, k, v, scale, causal)
    tol = TOL[dt]
    np.testing.assert_allclose(cp.asnumpy(out).astype(np.float32), want, rtol=tol, atol=tol)
    np.testing.assert_allclose(cp.asnumpy(lse), want_lse, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "options", [{}, {"flash_block_m": 128}, {"flash_block_n": 32, "flash_stages": 3}, {"flash_block_n": 128}], ids=str
)
def test_flash_tile_options(options):
    """Every block shape the knobs allow gives the same result (rows and keys past the end)."""
    dt = float16

    @tile_op(dtype=dt)
    def attn(q, k, v):
        return attention(q, k, v, 0.1, causal=True)[0]

    q, k, v = randn((2, 2, 190, 64), dt), randn((2, 2, 201, 64), dt), randn((2, 2, 201, 64), dt)
    fn = attn.compile("cuda", q, k, v, **options)
    out = fn(*(cp.asarray(x) for x in (q, k, v)))
    out = out[0] if isinstance(out, (list, tuple)) else out
    want, _ = reference(q, k, v, 0.1, True)
    np.testing.assert_allclose(cp.asnumpy(out).astype(np.float32), want, rtol=1e-2, atol=1e-2)


def test_epilogue_joins_the_kernel():
    """A residual added to the attention output (and the cast to f16 after it): one kernel."""

    @tile_op(dtype=float16)
    def block(q, k, v, r):
        return attention(q, k, v, 0.125)[0] + r

    dt = float16
    q, k, v = randn((2, 4, 50, 64), dt), randn((2, 4, 70, 64), dt), randn((2, 4, 70, 64), dt)
    r = randn((2, 4, 50, 64), dt)
    assert kernels(block, q, k, v, r) == 1
    out = block(*(cp.asarray(x) for x in (q, k, v, r)))
    want, _ = reference(q, k, v, 0.125)
    np.testing.assert_allclose(cp.asnumpy(out).astype(np.float32), want + r.astype(np.float64), rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("boolean", [False, True], ids=["additive", "boolean"])
def test_masks_given_as_arrays(boolean):
    dt = bfloat16

    @tile_op(dtype=dt, dtypes={"mask": tilec.bool_ if boolean else tilec.float32})
    def attn(q, k, v, mask):
        return attention(q, k, v, 0.2, mask=mask)

    q, k, v = randn((2, 2, 37, 32), dt), randn((2, 2, 90, 32), dt), randn((2, 2, 90, 32), dt)
    if boolean:
        mask = rng.random((2, 2, 37, 90)) < 0.7
        mask[0, 1, 5] = False  # a row with every key masked: NaN
    else:
        mask = (rng.standard_normal((2, 2, 37, 90)) * 2).astype(np.float32)
    assert kernels(attn, q, k, v, mask) == 1
    out, lse = attn(*(cp.asarray(x) for x in (q, k, v, mask)))
    want, want_lse = reference(q, k, v, 0.2, mask=mask)
    if boolean:  # the program's m + log(l) is -inf + log(NaN) there (torch.logsumexp: -inf)
        want_lse[0, 1, 5] = np.nan
        assert np.isnan(cp.asnumpy(out)[0, 1, 5].astype(np.float32)).all()
    np.testing.assert_allclose(cp.asnumpy(out).astype(np.float32), want, rtol=4e-2, atol=4e-2)
    np.testing.assert_allclose(cp.asnumpy(lse), want_lse, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("groups", [2, 4])
def test_grouped_query_attention(groups):
    """K/V heads repeated by `repeat_heads` (a broadcast): the kernel reads head h // groups of K
    and V in place (no repeated copy), one kernel."""
    dt = float16

    @tile_op(dtype=dt)
    def attn(q, k, v):
        return attention(q, repeat_heads(k, groups), repeat_heads(v, groups), 0.25, causal=True)[0]

    q, k, v = randn((2, 2 * groups, 45, 32), dt), randn((2, 2, 45, 32), dt), randn((2, 2, 45, 32), dt)
    assert kernels(attn, q, k, v) == 1
    out = attn(*(cp.asarray(x) for x in (q, k, v)))
    want, _ = reference(q, np.repeat(k, groups, axis=1), np.repeat(v, groups, axis=1), 0.25, True)
    np.testing.assert_allclose(cp.asnumpy(out).astype(np.float32), want, rtol=1e-2, atol=1e-2)


def test_dynamic_sizes():
    """`?` batch, heads, queries and keys: sizes from the launch (one compiled kernel)."""

    @tile_op(dtype=bfloat16, dims=["B", "H", "L", 64, 64, "S"])
    def attn(q, k, v):
        return attention(q, k, v, 0.125, causal=True)

    for b, h, n_l, n_s in ((2, 3, 77, 200), (1, 2, 1, 65)):
        q, k, v = randn((b, h, n_l, 64), bfloat16), randn((b, h, n_s, 64), bfloat16), randn((b, h, n_s, 64), bfloat16)
        out, lse = attn(*(cp.asarray(x) for x in (q, k, v)))
        want, want_lse = reference(q, k, v, 0.125, True)
        np.testing.assert_allclose(cp.asnumpy(out).astype(np.float32), want, rtol=4e-2, atol=4e-2)
        np.testing.assert_allclose(cp.asnumpy(lse), want_lse, rtol=1e-4, atol=1e-4)
