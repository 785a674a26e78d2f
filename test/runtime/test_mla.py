"""MLA decoding over a paged KV cache (tilec.library.mla, issue 15 item 4) against a dense float64
reference: random block tables (pages in any order, entries past a sequence's end pointing
anywhere), lengths 1, a multiple of the 64-token page and not, f32 and bf16, one and two query
tokens, d = 72 with dv = 64 (the shapes of DeepSeek-V3's 576 / 512, scaled down for speed), the
whole decode as one attention kernel on the CPU (the cache read in place through the block table),
and the errors: causal, a bad cache shape, a block-table entry out of range."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from cpu_util import rng  # noqa: F401  (a fixture)

import tilec
from tilec import bfloat16, float32, int32, tile_op
from tilec.library.mla import mla_decode

PAGE = 64


def dense(q, kv, table, lens, dv, scale):
    """(out, lse) of each sequence's keys gathered densely, in float64."""
    b_n, s_q, h, d = q.shape
    outs, lses = [], []
    for b in range(b_n):
        n = int(lens[b])
        keys = kv[table[b], :, 0, :].reshape(-1, d)[:n].astype(np.float64)
        s = q[b].reshape(s_q * h, d).astype(np.float64) @ keys.T * scale
        m = s.max(-1, keepdims=True)
        p = np.exp(s - m)
        total = p.sum(-1, keepdims=True)
        outs.append(((p / total) @ keys[:, :dv]).reshape(s_q, h, dv))
        lses.append((m + np.log(total)).reshape(s_q, h).T)
    return np.stack(outs), np.stack(lses)


def decoder(dt, dv, scale, causal=False):
    @tile_op(dtypes={"q": dt, "kv": dt, "table": int32, "lens": int32})
    def mla(q, kv, table, lens):
        return mla_decode(q, kv, table, lens, dv, scale, causal=causal)

    return mla


def inputs(rng, npdt, b_n=3, s_q=1, h=16, d=72, n_blocks=11, max_blocks=3):
    q = rng.standard_normal((b_n, s_q, h, d)).astype(npdt)
    kv = rng.standard_normal((n_blocks, PAGE, 1, d)).astype(npdt)
    table = rng.integers(0, n_blocks, (b_n, max_blocks)).astype(np.int32)
    return q, kv, table


@pytest.mark.parametrize("dt", [float32, bfloat16], ids=str)
@pytest.mark.parametrize("s_q", [1, 2])
def test_decode_matches_dense_attention(rng, dt, s_q):
    npdt = np.float32 if dt == float32 else ml_dtypes.bfloat16
    q, kv, table = inputs(rng, npdt, s_q=s_q)
    table[0] = rng.permutation(11)[:3]  # one sequence's pages in a random order
    lens = np.array([1, 130, 3 * PAGE], np.int32)
    mla = decoder(dt, 64, 0.1)
    out, lse = mla(q, kv, table, lens)
    want, want_lse = dense(q, kv, table, lens, 64, 0.1)
    assert out.shape == (3, s_q, 16, 64) and out.dtype == npdt and lse.shape == (3, 16, s_q)
    tol = 1e-5 if dt == float32 else 1e-2
    np.testing.assert_allclose(out.astype(np.float32), want, rtol=tol, atol=tol)
    np.testing.assert_allclose(lse, want_lse, rtol=1e-5, atol=1e-5)
    if s_q == 1:
        # the whole decode is one kernel: pages read through the block table, no scores in memory
        assert mla.ir("mapped", q, kv, table, lens).count("mapped.kernel @") == 1


def test_block_table_entry_out_of_range(rng):
    q, kv, table = inputs(rng, np.float32, b_n=2)
    table[1, 2] = 11
    with pytest.raises(tilec.IndexOutOfRange):
        decoder(float32, 64, 0.1)(q, kv, table, np.array([5, 70], np.int32))


def test_errors(rng):
    q, kv, table = inputs(rng, np.float32, b_n=2)
    lens = np.array([5, 70], np.int32)
    with pytest.raises(tilec.TileError, match="not supported yet: causal MLA decoding"):
        decoder(float32, 64, 0.1, causal=True)(q, kv, table, lens)
    with pytest.raises(tilec.TileError, match=r"kv_cache must be \(num_blocks, page, 1, 72\)"):
        decoder(float32, 64, 0.1)(q, np.repeat(kv, 2, axis=2), table, lens)
    with pytest.raises(tilec.TileError, match="dv must be in 1..72"):
        decoder(float32, 80, 0.1)(q, kv, table, lens)
