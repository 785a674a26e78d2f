"""ATen's scaled dot-product attention on tilec: the CPU flash-attention entry points eager
`F.scaled_dot_product_attention` takes on the CPU (`_scaled_dot_product_flash_attention_for_cpu`
and its backward). Dropout inside attention is a fallback (torch's random stream)."""

from __future__ import annotations

import math

import torch

from tilec.library import attention
from tilec.torch.aten.registry import Plan, is_float


def _check(q, k, v, mask, dropout) -> str | None:
    if dropout:
        return "dropout inside attention (torch's random stream)"
    ts = (q, k, v)
    if any(not isinstance(t, torch.Tensor) or not is_float(t.dtype) for t in ts) or len({t.dtype for t in ts}) != 1:
        return "non-float or mixed-dtype q, k, v"
    if q.ndim < 2 or k.ndim != q.ndim or v.ndim != q.ndim:
        return "ranks"
    if k.shape[:-2] != v.shape[:-2] or k.shape[-2] != v.shape[-2] or _groups(q, k) is None:
        return "q, k, v of different batch / head shapes"
    if q.shape[-1] != k.shape[-1] or 0 in q.shape or 0 in k.shape:
        return "shapes"
    if mask is not None:
        if mask.dtype != torch.bool and mask.dtype != q.dtype:
            return f"a {mask.dtype} attention mask"
        try:
            torch.broadcast_shapes(mask.shape, (*q.shape[:-1], k.shape[-2]))
        except RuntimeError:
            return "an attention mask that does not broadcast"
    return None


def _groups(q, k) -> int | None:
    """Query heads per key / value head (grouped-query attention), or None when the shapes do
    not match that way."""
    if q.shape[:-2] == k.shape[:-2]:
        return 1
    if q.ndim < 3 or q.shape[:-3] != k.shape[:-3] or k.shape[-3] == 0 or q.shape[-3] % k.shape[-3]:
        return None
    return q.shape[-3] // k.shape[-3]


def _scale(p, q) -> float:
    return float(p["scale"]) if p.get("scale") is not None else 1.0 / math.sqrt(q.shape[-1])


def _forward(p):
    q, k, v, mask = p["query"], p["key"], p["value"], p.get("attn_mask")
    why = _check(q, k, v, mask, p.get("dropout_p"))
    if why:
        return why
    scale, causal, has_m, g = _scale(p, q), bool(p["is_causal"]), mask is not None, _groups(q, k)

    def body(qv, kv, vv, *m):
        kv, vv = attention.repeat_heads(kv, g), attention.repeat_heads(vv, g)
        return attention.attention(qv, kv, vv, scale, causal, m[0] if m else None)

    return Plan((scale, causal, has_m, g), body, (q, k, v, *((mask,) if has_m else ())))


def _backward(p):
    g, q, k, v, out, lse = p["grad_out"], p["query"], p["key"], p["value"], p["out"], p["logsumexp"]
    mask = p.get("attn_mask")
    why = _check(q, k, v, mask, p.get("dropout_p"))
    if why:
        return why
    scale, causal, has_m, groups = _scale(p, q), bool(p["is_causal"]), mask is not None, _groups(q, k)

    def body(gv, qv, kv, vv, ov, lv, *m):
        kr, vr = attention.repeat_heads(kv, groups), attention.repeat_heads(vv, groups)
        dq, dk, dv = attention.attention_backward(gv, qv, kr, vr, ov, lv, scale, causal, m[0] if m else None)
        return dq, attention.sum_heads(dk, groups), attention.sum_heads(dv, groups)

    return Plan((scale, causal, has_m, groups), body, (g, q, k, v, out, lse, *((mask,) if has_m else ())))


def table() -> dict:
    return {
        "_scaled_dot_product_flash_attention_for_cpu.default": _forward,
        "_scaled_dot_product_flash_attention_for_cpu_backward.default": _backward,
    }
