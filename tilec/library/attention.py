"""Scaled dot-product attention over tiles, forward (with its log-sum-exp) and backward.

q is (..., L, E), k (..., S, E), v (..., S, Ev) with the same leading (batch, head) axes. The
scores are computed whole (L x S per batch and head) and fused by the compiler; 16-bit inputs
compute in float32. `causal` keeps key j for query i when j <= i (torch's top-left alignment);
`mask` is a bool tile (True keeps) or a float tile added to the scores, broadcast to (..., L, S).
"""

from __future__ import annotations

import tilec
from tilec.library.nn import like, opmath


def repeat_heads(x, groups: int):
    """Grouped-query attention: each of the Hkv heads of x (..., Hkv, S, E) serves `groups`
    consecutive query heads: (..., Hkv * groups, S, E)."""
    if groups == 1:
        return x
    *lead, h, s, e = x.shape
    return tilec.broadcast_to(x.reshape(*lead, h, 1, s, e), (*lead, h, groups, s, e)).reshape(*lead, h * groups, s, e)


def sum_heads(dx, groups: int):
    """The backward of `repeat_heads`: the gradients of a head's `groups` copies summed."""
    if groups == 1:
        return dx
    *lead, hq, s, e = dx.shape
    return tilec.sum(dx.reshape(*lead, hq // groups, groups, s, e), axis=len(lead) + 1)


def _batch(x) -> list[tuple[int, int]]:
    return [(a, a) for a in range(x.ndim - 2)]


def _scores(q, k, scale: float, causal: bool, mask):
    s = tilec.tile_contract(opmath(q), opmath(k), axes=[(q.ndim - 1, k.ndim - 1)], batch=_batch(q)) * scale
    n_l, n_s = q.shape[-2], k.shape[-2]
    if causal:
        keep = tilec.iota((n_l, n_s), axis=1) <= tilec.iota((n_l, n_s), axis=0)
        s = tilec.where(keep, s, float("-inf"))
    if mask is not None:
        s = tilec.where(mask, s, float("-inf")) if mask.dtype.is_bool else s + opmath(mask)
    return s


def attention(q, k, v, scale: float, causal: bool = False, mask=None):
    """(out, logsumexp): softmax(q k^T * scale [+ mask]) v, and the scores' log-sum-exp per query
    (float32 for 16-bit inputs), the residual the backward needs."""
    s = _scores(q, k, scale, causal, mask)
    m = tilec.max(s, axis=-1, keepdims=True)
    p = tilec.exp(s - m)
    total = tilec.sum(p, axis=-1, keepdims=True)
    out = tilec.tile_contract(p, opmath(v), axes=[(p.ndim - 1, v.ndim - 2)], batch=_batch(p)) / total
    lse = (m + tilec.log(total)).reshape(*s.shape[:-1])
    return like(out, q.dtype), lse


def attention_backward(grad, q, k, v, out, lse, scale: float, causal: bool = False, mask=None):
    """(dq, dk, dv) of `attention`, recomputing the probabilities from the log-sum-exp. An `lse`
    of the scores' full shape (..., L, S) is taken as the probabilities themselves: torch's
    decomposition of its CPU flash attention returns the attention weights in that slot."""
    if lse.ndim == q.ndim:
        p = opmath(lse)
    else:
        s = _scores(q, k, scale, causal, mask)
        p = tilec.exp(s - lse.reshape(*lse.shape, 1))
    g = opmath(grad)
    nd = p.ndim
    b = _batch(p)
    dv = tilec.tile_contract(p, g, axes=[(nd - 2, nd - 2)], batch=b)
    dp = tilec.tile_contract(g, opmath(v), axes=[(nd - 1, nd - 1)], batch=b)
    delta = tilec.sum(g * opmath(out), axis=-1, keepdims=True)
    ds = p * (dp - delta)
    dq = tilec.tile_contract(ds, opmath(k), axes=[(nd - 1, nd - 2)], batch=b) * scale
    dk = tilec.tile_contract(ds, opmath(q), axes=[(nd - 2, nd - 2)], batch=b) * scale
    return like(dq, q.dtype), like(dk, k.dtype), like(dv, v.dtype)
