"""ATen's scaled dot-product attention on tilec: the entry points `F.scaled_dot_product_attention`
takes, forward and backward: on the CPU `_scaled_dot_product_flash_attention_for_cpu`; on CUDA
`_scaled_dot_product_efficient_attention` (f32, or an attention bias),
`_scaled_dot_product_flash_attention` and `_scaled_dot_product_cudnn_attention` (16-bit). Each
forward returns what torch's kernel returns, shapes included (the efficient kernel's log-sum-exp
is padded to a multiple of 32 queries, cuDNN's has a trailing axis of 1), so torch's backward
could consume tilec's forward and the other way round; the random-number state outputs are
zeros (no dropout). Dropout inside attention is a fallback (torch's random stream), so is a
gradient for the attention bias and flash's debug mask."""

from __future__ import annotations

import math

import torch

import tilec
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


def _gqa_attention(qv, kv, vv, groups: int, scale: float, causal: bool, mask):
    """(out, lse) with each key / value head serving `groups` query heads."""
    kv, vv = attention.repeat_heads(kv, groups), attention.repeat_heads(vv, groups)
    return attention.attention(qv, kv, vv, scale, causal, mask)


def _gqa_backward(gv, qv, kv, vv, ov, lse, groups: int, scale: float, causal: bool, mask):
    """(dq, dk, dv) of `_gqa_attention`: the copies' key / value gradients summed per head."""
    kr, vr = attention.repeat_heads(kv, groups), attention.repeat_heads(vv, groups)
    dq, dk, dv = attention.attention_backward(gv, qv, kr, vr, ov, lse, scale, causal, mask)
    return dq, attention.sum_heads(dk, groups), attention.sum_heads(dv, groups)


def _forward(p):
    q, k, v, mask = p["query"], p["key"], p["value"], p.get("attn_mask")
    why = _check(q, k, v, mask, p.get("dropout_p"))
    if why:
        return why
    scale, causal, has_m, g = _scale(p, q), bool(p["is_causal"]), mask is not None, _groups(q, k)

    def body(qv, kv, vv, *m):
        return _gqa_attention(qv, kv, vv, g, scale, causal, m[0] if m else None)

    return Plan((scale, causal, has_m, g), body, (q, k, v, *((mask,) if has_m else ())))


def _backward(p):
    g, q, k, v, out, lse = p["grad_out"], p["query"], p["key"], p["value"], p["out"], p["logsumexp"]
    mask = p.get("attn_mask")
    why = _check(q, k, v, mask, p.get("dropout_p"))
    if why:
        return why
    scale, causal, has_m, groups = _scale(p, q), bool(p["is_causal"]), mask is not None, _groups(q, k)

    def body(gv, qv, kv, vv, ov, lv, *m):
        return _gqa_backward(gv, qv, kv, vv, ov, lv, groups, scale, causal, m[0] if m else None)

    return Plan((scale, causal, has_m, groups), body, (g, q, k, v, out, lse, *((mask,) if has_m else ())))


def _lse_rows(lse, n_l: int):
    """A torch kernel's log-sum-exp as (..., L): the efficient kernel pads the queries to a
    multiple of 32, cuDNN's has a trailing axis of 1."""
    if lse.ndim == 4:
        lse = lse.reshape(*lse.shape[:3])
    return lse[..., :n_l] if lse.shape[-1] != n_l else lse


def _seed(dtype=tilec.int64, shape=()):
    return tilec.zeros(shape, dtype)


def _efficient_forward(p):
    """(out, logsumexp padded to 32 queries or empty, philox seed, philox offset)."""
    q, k, v, bias = p["query"], p["key"], p["value"], p.get("attn_bias")
    why = _check(q, k, v, bias, p.get("dropout_p"))
    if why:
        return why
    scale, causal, has_b, g = _scale(p, q), bool(p["is_causal"]), bias is not None, _groups(q, k)
    n_l, want_lse = q.shape[-2], bool(p["compute_log_sumexp"])
    padded = -(-n_l // 32) * 32 if want_lse else 0

    def body(qv, kv, vv, *b):
        out, lse = _gqa_attention(qv, kv, vv, g, scale, causal, b[0] if b else None)
        lse = (
            tilec.pad(lse, [(0, 0)] * (lse.ndim - 1) + [(0, padded - n_l)])
            if want_lse
            else tilec.zeros((*lse.shape[:-1], 0), lse.dtype)
        )
        return out, lse, _seed(), _seed()

    return Plan(("efficient", scale, causal, has_b, g, padded), body, (q, k, v, *((bias,) if has_b else ())))


def _efficient_backward(p):
    g, q, k, v, out, lse = p["grad_out_"], p["query"], p["key"], p["value"], p["out"], p["logsumexp"]
    bias, want = p.get("attn_bias"), tuple(bool(w) for w in p["grad_input_mask"])
    if want[3]:
        return "the gradient of the attention bias"
    if lse.shape[-1] < q.shape[-2]:
        return "no log-sum-exp from the forward (compute_log_sumexp=False)"
    why = _check(q, k, v, bias, p.get("dropout_p"))
    if why:
        return why
    scale, causal, has_b, groups = _scale(p, q), bool(p["is_causal"]), bias is not None, _groups(q, k)
    n_l = q.shape[-2]

    def body(gv, qv, kv, vv, ov, lv, *b):
        return _gqa_backward(gv, qv, kv, vv, ov, _lse_rows(lv, n_l), groups, scale, causal, b[0] if b else None)

    def returns(outs):
        return (*outs, None)

    inputs = (g, q, k, v, out, lse, *((bias,) if has_b else ()))
    return Plan(("efficient", scale, causal, has_b, groups, n_l), body, inputs, returns=returns)


def _flash_forward(p, cudnn: bool):
    """flash: (out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, rng_state, unused, debug_attn_mask);
    cuDNN: the same with (philox seed, philox offset) for (rng_state, unused) and logsumexp (..., L, 1)."""
    q, k, v = p["query"], p["key"], p["value"]
    bias = p.get("attn_bias") if cudnn else None
    if p.get("return_debug_mask"):
        return "flash attention's debug mask"
    if cudnn and not p.get("compute_log_sumexp", True):
        return "cuDNN attention without its log-sum-exp"
    why = _check(q, k, v, bias, p.get("dropout_p"))
    if why:
        return why
    if q.ndim != 4:
        return "ranks"
    scale, causal, has_b, g = _scale(p, q), bool(p["is_causal"]), bias is not None, _groups(q, k)
    n_l, n_s = q.shape[-2], k.shape[-2]

    def body(qv, kv, vv, *b):
        out, lse = _gqa_attention(qv, kv, vv, g, scale, causal, b[0] if b else None)
        if cudnn:
            return out, lse.reshape(*lse.shape, 1), _seed(), _seed()
        return out, lse, _seed(tilec.uint64, (2,)), _seed(tilec.uint64), tilec.zeros((0,), qv.dtype)

    def returns(outs):
        if cudnn:
            out, lse, seed, offset = outs
            return out, lse, None, None, n_l, n_s, seed, offset, None
        out, lse, seed, offset, debug = outs
        return out, lse, None, None, n_l, n_s, seed, offset, debug

    key = ("cudnn" if cudnn else "flash", scale, causal, has_b, g)
    return Plan(key, body, (q, k, v, *((bias,) if has_b else ())), returns=returns)


def _flash_backward(p, cudnn: bool):
    g, q, k, v, out, lse = p["grad_out"], p["query"], p["key"], p["value"], p["out"], p["logsumexp"]
    bias = p.get("attn_bias") if cudnn else None
    why = _check(q, k, v, bias, p.get("dropout_p"))
    if why:
        return why
    scale, causal, has_b, groups = _scale(p, q), bool(p["is_causal"]), bias is not None, _groups(q, k)
    n_l = q.shape[-2]

    def body(gv, qv, kv, vv, ov, lv, *b):
        return _gqa_backward(gv, qv, kv, vv, ov, _lse_rows(lv, n_l), groups, scale, causal, b[0] if b else None)

    inputs = (g, q, k, v, out, lse, *((bias,) if has_b else ()))
    return Plan(("cudnn" if cudnn else "flash", scale, causal, has_b, groups, n_l), body, inputs)


def table() -> dict:
    return {
        "_scaled_dot_product_flash_attention_for_cpu.default": _forward,
        "_scaled_dot_product_flash_attention_for_cpu_backward.default": _backward,
        "_scaled_dot_product_efficient_attention.default": _efficient_forward,
        "_scaled_dot_product_efficient_attention_backward.default": _efficient_backward,
        "_scaled_dot_product_flash_attention.default": lambda p: _flash_forward(p, cudnn=False),
        "_scaled_dot_product_flash_attention_backward.default": lambda p: _flash_backward(p, cudnn=False),
        "_scaled_dot_product_cudnn_attention.default": lambda p: _flash_forward(p, cudnn=True),
        "_scaled_dot_product_cudnn_attention_backward.default": lambda p: _flash_backward(p, cudnn=True),
    }
