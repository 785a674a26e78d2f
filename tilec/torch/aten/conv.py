"""ATen's convolution and pooling on tilec: `convolution` (direct and transposed) and its
backward, `max_pool2d_with_indices` / `avg_pool2d` and their backward, `_adaptive_avg_pool2d`.
Layout: torch's (N, C, *spatial); 16-bit floats accumulate in float32."""

from __future__ import annotations

import torch

import tilec
from tilec.library.nn import like, opmath
from tilec.torch.aten.registry import Plan, is_float, masked


def _floats(*ts) -> str | None:
    real = [t for t in ts if t is not None]
    if any(not isinstance(t, torch.Tensor) or not is_float(t.dtype) for t in real):
        return "a non-float operand"
    if len({t.dtype for t in real}) != 1:
        return "operands of different dtypes"
    return None


def _ints(v) -> tuple[int, ...]:
    return tuple(int(i) for i in v)


def _per_axis(v, nd: int) -> tuple[int, ...]:
    """An ATen per-spatial-axis list, which may hold one entry for every axis."""
    t = _ints(v)
    return t * nd if len(t) == 1 else t


def _conv_args(p):
    nd = p["input"].ndim - 2
    return _per_axis(p["stride"], nd), _per_axis(p["padding"], nd), _per_axis(p["dilation"], nd), int(p["groups"])


def _convolution(p):
    x, w, b = p["input"], p["weight"], p["bias"]
    why = _floats(x, w, b)
    if why or x.ndim not in (3, 4, 5) or w.ndim != x.ndim or x.numel() == 0:
        return why or "shapes"
    stride, padding, dilation, groups = _conv_args(p)
    transposed, out_pad = bool(p["transposed"]), _per_axis(p["output_padding"], x.ndim - 2)
    nd, has_b = x.ndim, b is not None

    def body(xv, wv, *bv):
        if transposed:
            y = tilec.conv_transpose(xv, wv, stride, padding, out_pad, groups, dilation)
        else:
            y = tilec.conv(xv, wv, stride, padding, dilation, groups)
        if has_b:
            y = like(opmath(y) + opmath(bv[0]).reshape(bv[0].shape[0], *([1] * (nd - 2))), y.dtype)
        return y

    key = (stride, padding, dilation, groups, transposed, out_pad, has_b)
    return Plan(key, body, (x, w, *((b,) if has_b else ())))


def _convolution_backward(p):
    g, x, w = p["grad_output"], p["input"], p["weight"]
    why = _floats(g, x, w)
    if why or x.ndim not in (3, 4, 5) or x.numel() == 0:
        return why or "shapes"
    if p["transposed"]:
        return "the backward of a transposed convolution"
    stride, padding, dilation, groups = _conv_args(p)
    want = tuple(bool(m) for m in p["output_mask"])
    want = (want[0], want[1], want[2] and p["bias_sizes"] is not None)
    if not any(want):
        return "no output requested"
    xs, ws = tuple(x.shape), tuple(w.shape)
    axes = tuple(a for a in range(x.ndim) if a != 1)

    def body(gv, xv, wv):
        outs = []
        if want[0]:
            outs.append(tilec.conv_backward_input(gv, wv, xs, stride, padding, dilation, groups))
        if want[1]:
            outs.append(tilec.conv_backward_weight(xv, gv, ws, stride, padding, dilation, groups))
        if want[2]:
            outs.append(like(tilec.sum(opmath(gv), axis=axes), gv.dtype))
        return tuple(outs)

    return Plan((stride, padding, dilation, groups, want, xs, ws), body, (g, x, w), returns=masked(want))


def _pool_args(p, ndim: int = 2):
    k = _ints(p["kernel_size"])
    s = _ints(p["stride"]) or k
    pad = _ints(p["padding"])
    k, s, pad = (v * ndim if len(v) == 1 else v for v in (k, s, pad))
    return k, s, pad


def _max_pool(p):
    x = p["self"]
    if _floats(x) or x.ndim not in (3, 4) or x.numel() == 0:
        return _floats(x) or "shapes"
    k, s, pad = _pool_args(p)
    dil = _ints(p["dilation"])
    dil = dil * 2 if len(dil) == 1 else dil
    ceil = bool(p["ceil_mode"])
    return Plan(
        (k, s, pad, dil, ceil),
        lambda v: tilec.max_pool(v, k, s, pad, dil, ceil, return_indices=True),
        (x,),
    )


def _max_pool_backward(p):
    g, x, idx = p["grad_output"], p["self"], p["indices"]
    if _floats(g, x) or x.ndim not in (3, 4) or idx.dtype != torch.int64 or x.numel() == 0:
        return _floats(g, x) or "shapes"
    k, s, pad = _pool_args(p)
    dil = _ints(p["dilation"])
    dil = dil * 2 if len(dil) == 1 else dil
    ceil, xs = bool(p["ceil_mode"]), tuple(x.shape)
    return Plan(
        (k, s, pad, dil, ceil, xs),
        lambda gv, iv: tilec.max_pool_backward(gv, iv, xs, k, s, pad, dil, ceil, ndim=2),
        (g, idx),
    )


def _avg_pool(p):
    x = p["self"]
    if _floats(x) or x.ndim not in (3, 4) or x.numel() == 0:
        return _floats(x) or "shapes"
    k, s, pad = _pool_args(p)
    ceil, inc, div = bool(p["ceil_mode"]), bool(p["count_include_pad"]), p["divisor_override"]
    return Plan((k, s, pad, ceil, inc, div), lambda v: tilec.avg_pool(v, k, s, pad, ceil, inc, div), (x,))


def _avg_pool_backward(p):
    g, x = p["grad_output"], p["self"]
    if _floats(g, x) or x.ndim not in (3, 4) or x.numel() == 0:
        return _floats(g, x) or "shapes"
    k, s, pad = _pool_args(p)
    ceil, inc, div = bool(p["ceil_mode"]), bool(p["count_include_pad"]), p["divisor_override"]
    xs = tuple(x.shape)
    return Plan(
        (k, s, pad, ceil, inc, div, xs),
        lambda gv: tilec.avg_pool_backward(gv, xs, k, s, pad, ceil, inc, div),
        (g,),
    )


def _adaptive_avg_pool(p):
    x = p["self"]
    if _floats(x) or x.ndim not in (3, 4) or x.numel() == 0:
        return _floats(x) or "shapes"
    size = _ints(p["output_size"])
    return Plan((size,), lambda v: tilec.adaptive_avg_pool(v, size), (x,))


def table() -> dict:
    return {
        "convolution.default": _convolution,
        "convolution_backward.default": _convolution_backward,
        "max_pool2d_with_indices.default": _max_pool,
        "max_pool2d_with_indices_backward.default": _max_pool_backward,
        "avg_pool2d.default": _avg_pool,
        "avg_pool2d_backward.default": _avg_pool_backward,
        "_adaptive_avg_pool2d.default": _adaptive_avg_pool,
    }
