"""Multi-head latent attention decoding over a paged KV cache (issue 15, item 4: the FlashMLA part).

DeepSeek-V3's MLA at decode time: every query head attends to ONE compressed latent KV per token
(d = 576: the 512-wide latent, which is also the value, and 64 rotary dims), stored in a paged
cache of fixed-size blocks; a block table maps each sequence's logical blocks to cache blocks, and
each sequence has its own length. Shapes follow FlashMLA's `flash_mla_with_kvcache`:

    q            (B, s_q, h_q, d)          the new tokens' queries (s_q = 1 when decoding)
    kv_cache     (num_blocks, page, 1, d)  the latent cache, one KV head
    block_table  (B, max_blocks)  int32    logical block -> cache block, per sequence
    seqlens      (B,)             int32    each sequence's length in tokens (<= max_blocks * page)
    -> out (B, s_q, h_q, dv), lse (B, h_q, s_q)   dv = 512: the value is the latent's first dv dims

The heads (and the s_q tokens) are the query rows of ONE attention over the sequence's keys, as
FlashMLA computes it: scores q . k over all d, keys at positions >= the sequence's length masked.
Written as tile ops, the gather of the pages (`take` by the block table), the value slice and
the length mask are read inside the attention group that tile-fuse makes of it (on the CPU: one
kernel, no gathered copy of the cache, no scores in memory). Entries of the block table past a
sequence's length must still name a cache block (FlashMLA reads them too): an index out of range
is an error (`tilec.IndexOutOfRange`), never an out-of-bounds read.
"""

from __future__ import annotations

import tilec
from tilec.frontend.errors import user_error
from tilec.library.nn import like, opmath


def mla_decode(q, kv_cache, block_table, seqlens, dv: int, scale: float, causal: bool = False):
    """(out, lse) of multi-head latent attention over a paged cache (shapes: the module doc)."""
    if causal:
        raise user_error("not supported yet: causal MLA decoding (s_q > 1 speculative tokens); use causal=False")
    b, s_q, h_q, d = q.shape
    n_blocks, page, h_kv, d_k = kv_cache.shape
    if h_kv != 1 or d_k != d:
        raise user_error(f"mla_decode: kv_cache must be (num_blocks, page, 1, {d}), got {kv_cache.shape}")
    if not 0 < dv <= d:
        raise user_error(f"mla_decode: dv must be in 1..{d}, got {dv}")
    n_keys = block_table.shape[1] * page
    # the sequence's keys: its pages gathered by the block table (read in place by the kernel)
    keys = tilec.take(kv_cache.reshape(n_blocks, page, d), block_table, axis=0).reshape(b, n_keys, d)
    values = keys[:, :, :dv]
    rows = q.reshape(b, s_q * h_q, d)
    s = tilec.tile_contract(opmath(rows), opmath(keys), axes=[(2, 2)], batch=[(0, 0)]) * scale
    n = tilec.broadcast_to(seqlens.astype(tilec.int64).reshape(b, 1, 1), (b, s_q * h_q, n_keys))
    s = tilec.where(tilec.iota((b, s_q * h_q, n_keys), axis=2) < n, s, float("-inf"))
    m = tilec.max(s, axis=-1, keepdims=True)
    p = tilec.exp(s - m)
    total = tilec.sum(p, axis=-1, keepdims=True)
    out = tilec.tile_contract(p, opmath(values), axes=[(2, 1)], batch=[(0, 0)]) / total
    lse = m + tilec.log(total)  # (b, s_q * h_q, 1): with one token, already (b, h_q, s_q)
    if s_q > 1:
        lse = lse.reshape(b, s_q, h_q).transpose(0, 2, 1)
    return like(out, q.dtype).reshape(b, s_q, h_q, dv), lse


__all__ = ["mla_decode"]
