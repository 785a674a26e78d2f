"""ATen's neural-network ops on tilec: softmax / log-softmax and their backward, layer norm and
its backward, NLL loss and its backward, embedding and its dense backward."""

from __future__ import annotations

import dataclasses

import torch

import tilec
from tilec.library import nn
from tilec.library.nn import like, opmath
from tilec.torch.aten.registry import Plan, is_float, masked, tilec_dtype

REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _float(*ts) -> str | None:
    for t in ts:
        if t is not None and not (isinstance(t, torch.Tensor) and is_float(t.dtype)):
            return f"a {getattr(t, 'dtype', type(t).__name__)} operand (floats only)"
    return None


def _dim(x: torch.Tensor, d: int) -> int | str:
    nd = max(x.ndim, 1)
    return d % nd if -nd <= d < nd else f"dim {d} out of range"


def _softmax(log: bool, safe: bool = False):
    def plan(p):
        x = p["self"]
        why = _float(x)
        if why or x.numel() == 0:
            return why or "an empty tensor"
        d = _dim(x, p["dim"])
        if isinstance(d, str):
            return d
        if safe:
            out = p.get("dtype") or x.dtype
            if not is_float(out):
                return f"dtype {out}"
        else:
            out = torch.float32 if p["half_to_float"] and x.dtype == torch.float16 else x.dtype
        to = tilec_dtype(out)
        f = nn.log_softmax if log else nn.safe_softmax if safe else nn.softmax
        if x.ndim == 0:
            return Plan((log, "0-d", str(out)), lambda v: like(v * 0 if log else v * 0 + 1, to), (x,))
        return Plan((log, safe, d, str(out)), lambda v: f(v, d, to), (x,))

    return plan


def _softmax_backward(log: bool):
    def plan(p):
        g, y = p["grad_output"], p["output"]
        why = _float(g, y)
        if why or g.shape != y.shape or g.numel() == 0:
            return why or "shapes"
        d = _dim(y, p["dim"])
        if isinstance(d, str) or y.ndim == 0:
            return "a 0-d softmax" if not isinstance(d, str) else d
        to = tilec_dtype(p["input_dtype"])
        f = nn.log_softmax_backward if log else nn.softmax_backward
        return Plan((log, d, str(p["input_dtype"])), lambda a, b: f(a, b, d, to), (g, y))

    return plan


def _stats_dtype(x: torch.Tensor):
    """native_layer_norm's mean / rstd dtype: the input's on the CPU, float32 for 16-bit inputs
    on CUDA (as torch's kernels). With a float32 weight and a 16-bit input on the CPU, torch's
    kernel gives float32 statistics but its fake tensors the input's dtype; tilec follows the
    fake tensors, so graphs agree with themselves."""
    return tilec.float32 if x.device.type == "cuda" and x.dtype in (torch.float16, torch.bfloat16) else None


def _layer_norm(p):
    x, shape, w, b, eps = p["input"], list(p["normalized_shape"]), p["weight"], p["bias"], p["eps"]
    why = _float(x, w, b)
    if why or x.numel() == 0:
        return why or "an empty tensor"
    k = len(shape)
    if k == 0 or k > x.ndim or list(x.shape[x.ndim - k :]) != shape:
        return "a normalized_shape that is not the input's trailing shape"
    for t in (w, b):  # (a float32 weight with a 16-bit input: autocast on the CPU)
        if t is not None and list(t.shape) != shape:
            return "a weight or bias of another shape"
    axes = tuple(range(x.ndim - k, x.ndim))
    has = (w is not None, b is not None)
    stats = _stats_dtype(x) or tilec_dtype(x.dtype)

    def body(v, *wb):
        it = iter(wb)
        ww = next(it) if has[0] else None
        bb = next(it) if has[1] else None
        y, mean, rstd = nn.layer_norm(v, axes, ww, bb, eps)
        return y, like(mean, stats), like(rstd, stats)

    return Plan((axes, has, float(eps), str(stats)), body, (x, *(t for t in (w, b) if t is not None)))


def _layer_norm_backward(p):
    g, x, shape = p["grad_out"], p["input"], list(p["normalized_shape"])
    mean, rstd, w, mask = p["mean"], p["rstd"], p["weight"], list(p["output_mask"])
    why = _float(g, x, mean, rstd, w)
    if why or x.numel() == 0 or g.shape != x.shape:
        return why or "shapes"
    k = len(shape)
    if k == 0 or list(x.shape[x.ndim - k :]) != shape:
        return "a normalized_shape that is not the input's trailing shape"
    axes = tuple(range(x.ndim - k, x.ndim))
    has_w = w is not None
    want = (mask[0], mask[1] and has_w, mask[2])
    if not any(want):
        return "no output requested"

    def body(gv, xv, m, r, *ww):
        dx, dw, db = nn.layer_norm_backward(gv, xv, opmath(m), opmath(r), axes, ww[0] if ww else None)
        return tuple(t for t, on in zip((dx, dw, db), want) if on)

    return Plan((axes, has_w, want), body, (g, x, mean, rstd, *((w,) if has_w else ())), returns=masked(want))


def _nll_check(x, t, w):
    why = _float(x, w)
    if why:
        return why
    if not isinstance(t, torch.Tensor) or t.dtype not in (torch.int64, torch.int32, torch.uint8):
        return "a target that is not an integer tensor"
    if x.ndim not in (1, 2) or t.ndim != x.ndim - 1 or (x.ndim == 2 and t.shape[0] != x.shape[0]):
        return "shapes"
    if x.numel() == 0:
        return "an empty input"
    if w is not None and (w.ndim != 1 or w.shape[0] != x.shape[-1] or w.dtype != x.dtype):
        return "a weight of another shape or dtype"
    return None


def _nll_loss(p):
    x, t, w, red, ign = p["self"], p["target"], p["weight"], p["reduction"], p["ignore_index"]
    why = _nll_check(x, t, w) or (None if red in REDUCTIONS else f"reduction {red}")
    if why:
        return why
    mode, has_w = REDUCTIONS[red], w is not None

    def body(lp, tg, ign_, *ww):
        return nn.nll_loss(lp, tg, ww[0] if ww else None, mode, ign_)

    return Plan((mode, has_w), body, (x, t, int(ign), *((w,) if has_w else ())))


def _nll_loss_backward(p):
    g, x, t, w = p["grad_output"], p["self"], p["target"], p["weight"]
    red, ign, total = p["reduction"], p["ignore_index"], p["total_weight"]
    why = _nll_check(x, t, w) or _float(g, total) or (None if red in REDUCTIONS else f"reduction {red}")
    if why:
        return why
    mode, has_w = REDUCTIONS[red], w is not None

    def body(gv, lp, tg, tw, ign_, *ww):
        return nn.nll_loss_backward(gv, lp, tg, tw, ww[0] if ww else None, mode, ign_)

    return Plan((mode, has_w), body, (g, x, t, total, int(ign), *((w,) if has_w else ())))


def _embedding(p):
    w, idx = p["weight"], p["indices"]
    if not isinstance(idx, torch.Tensor) or idx.dtype not in (torch.int64, torch.int32):
        return "indices that are not int32 / int64"
    if w.ndim != 2 or idx.numel() == 0:
        return "shapes"
    return Plan((), lambda wv, iv: tilec.take(wv, iv, axis=0), (w, idx))


def _embedding_backward(p):
    g, idx, n, pad = p["grad_output"], p["indices"], p["num_weights"], p["padding_idx"]
    if p["scale_grad_by_freq"]:
        return "scale_grad_by_freq"
    why = _float(g)
    if why or not isinstance(idx, torch.Tensor) or idx.dtype not in (torch.int64, torch.int32):
        return why or "indices that are not int32 / int64"
    if idx.numel() == 0 or tuple(g.shape[:-1]) != tuple(idx.shape):
        return "shapes"
    d = g.shape[-1]
    m = idx.numel()

    def body(gv, iv, pad_):
        rows = gv.reshape(m, d)
        flat = iv.reshape(m)
        keep = (flat != pad_).reshape(m, 1)
        src = opmath(tilec.where(keep, rows, 0))
        out = tilec.index_add(tilec.zeros((n, d), dtype=src.dtype), 0, flat, src)
        return like(out, gv.dtype)

    return Plan((int(n), d, m), body, (g, idx, int(pad)))


def _bn_check(x, *per_channel) -> str | None:
    why = _float(x, *per_channel)
    if why or x.ndim < 2 or x.numel() == 0:
        return why or "shapes"
    for t in per_channel:
        if t is not None and tuple(t.shape) != (x.shape[1],):
            return "per-channel tensors of another shape"
    return None


def _save_dtype(x: torch.Tensor) -> torch.dtype:
    """native_batch_norm's save_mean / save_invstd dtype: float32 for 16-bit inputs on CUDA, the
    input's on the CPU (as torch's kernels and their decomposition)."""
    return torch.float32 if x.device.type == "cuda" and x.dtype in (torch.float16, torch.bfloat16) else x.dtype


def _batch_norm(p):
    x, w, b, rm, rv = p["input"], p["weight"], p["bias"], p["running_mean"], p["running_var"]
    train, momentum, eps = bool(p["training"]), float(p["momentum"]), float(p["eps"])
    why = _bn_check(x, w, b, rm, rv)
    if why:
        return why
    if (rm is None) != (rv is None):
        return "only one of running_mean / running_var"
    has = (w is not None, b is not None, rm is not None)
    sd = tilec_dtype(_save_dtype(x))
    n = x.numel() // x.shape[1]
    if train and n <= 1 and has[2]:
        return "one value per channel (torch raises)"
    inputs = (x, *(t for t in (w, b, rm, rv) if t is not None))
    if not train:
        if not has[2]:
            return "evaluation without running statistics"

        def body_eval(xv, *rest):
            it = iter(rest)
            wv = next(it) if has[0] else None
            bv = next(it) if has[1] else None
            m, v = next(it), next(it)
            return nn.batch_norm(xv, m, tilec.rsqrt(opmath(v) + eps), wv, bv)

        def empties(outs):
            e = torch.empty(0, dtype=_save_dtype(x), device=x.device)
            return outs[0], e, e.clone()

        return Plan(("eval", has, eps), body_eval, inputs, returns=empties)
    updates = (len(inputs) - 2, len(inputs) - 1) if has[2] else ()

    def body(xv, *rest):
        it = iter(rest)
        wv = next(it) if has[0] else None
        bv = next(it) if has[1] else None
        mean, var, invstd = nn.batch_stats(xv, eps)
        y = nn.batch_norm(xv, mean, invstd, wv, bv)
        outs = (y, like(mean, sd), like(invstd, sd))
        if not has[2]:
            return outs
        m, v = next(it), next(it)
        new_m = opmath(m) * (1 - momentum) + mean * momentum
        new_v = opmath(v) * (1 - momentum) + var * (momentum * n / (n - 1))
        return (*outs, new_m, new_v)

    return Plan(("train", has, eps, momentum, n), body, inputs, updates=updates)


def _batch_norm_functional(p):
    """_native_batch_norm_legit_functional (graphs): native_batch_norm in training that returns
    the new running statistics instead of writing them: (out, save_mean, save_invstd, new_mean,
    new_var)."""
    rm = p["running_mean"]
    if not p["training"]:
        return "evaluation through the functional batch norm"
    plan = _batch_norm({**p, "training": True})
    if isinstance(plan, str) or rm is None:
        return plan if isinstance(plan, str) else "no running statistics"
    return dataclasses.replace(plan, updates=(), key=("functional", *plan.key))


def _batch_norm_no_training(p):
    """_native_batch_norm_legit_no_training (graphs): evaluation with the running statistics."""
    return _batch_norm({**p, "training": False})


def _batch_norm_backward(p):
    g, x, w = p["grad_out"], p["input"], p["weight"]
    rm, rv, sm, si = p["running_mean"], p["running_var"], p["save_mean"], p["save_invstd"]
    train, eps, mask = bool(p["train"]), float(p["eps"]), [bool(m) for m in p["output_mask"]]
    why = _bn_check(x, w) or (None if g.shape == x.shape else "shapes")
    if why:
        return why
    mean, stat = (sm, si) if train else (rm, rv)
    if mean is None or stat is None or _bn_check(x, mean, stat):
        return "missing or malformed statistics"
    has_w = w is not None
    want = (mask[0], mask[1], mask[2])

    def body(gv, xv, m, s, *wv):
        invstd = s if train else tilec.rsqrt(opmath(s) + eps)
        dx, dw, db = nn.batch_norm_backward(gv, xv, m, invstd, wv[0] if wv else None, train)
        return tuple(t for t, on in zip((dx, dw, db), want) if on)

    return Plan((train, eps, has_w, want), body, (g, x, mean, stat, *((w,) if has_w else ())), returns=masked(want))


def _cudnn_batch_norm(p):
    """cudnn_batch_norm (what batch_norm dispatches to for CUDA tensors): native_batch_norm's
    computation (cuDNN's saved variance is the inverse standard deviation too) and an empty
    reserve buffer."""
    names = {"exponential_average_factor": "momentum", "epsilon": "eps"}
    plan = _batch_norm({names.get(k, k): v for k, v in p.items()})
    if not isinstance(plan, Plan):
        return plan
    inner, device = plan.returns, p["input"].device

    def returns(outs: tuple) -> tuple:
        return (*(inner(outs) if inner else outs), torch.empty(0, dtype=torch.uint8, device=device))

    return dataclasses.replace(plan, returns=returns)


def _cudnn_batch_norm_backward(p):
    """cudnn_batch_norm_backward: native_batch_norm_backward in training, every gradient."""
    q = {
        "grad_out": p["grad_output"],
        "input": p["input"],
        "weight": p["weight"],
        "running_mean": p["running_mean"],
        "running_var": p["running_var"],
        "save_mean": p["save_mean"],
        "save_invstd": p["save_var"],
        "train": True,
        "eps": p["epsilon"],
        "output_mask": [True, True, True],
    }
    return _batch_norm_backward(q)


def table() -> dict:
    return {
        "native_batch_norm.default": _batch_norm,
        "native_batch_norm_backward.default": _batch_norm_backward,
        "cudnn_batch_norm.default": _cudnn_batch_norm,
        "cudnn_batch_norm_backward.default": _cudnn_batch_norm_backward,
        "_native_batch_norm_legit_functional.default": _batch_norm_functional,
        "_native_batch_norm_legit_no_training.default": _batch_norm_no_training,
        "_softmax.default": _softmax(False),
        "_log_softmax.default": _softmax(True),
        "_safe_softmax.default": _softmax(False, safe=True),
        "_softmax_backward_data.default": _softmax_backward(False),
        "_log_softmax_backward_data.default": _softmax_backward(True),
        "native_layer_norm.default": _layer_norm,
        "native_layer_norm_backward.default": _layer_norm_backward,
        "nll_loss_forward.default": _nll_loss,
        "nll_loss_backward.default": _nll_loss_backward,
        "embedding.default": _embedding,
        "embedding_dense_backward.default": _embedding_backward,
    }
