"""ATen's reductions on tilec: `sum`, `mean`, `amax`, `amin` over dims (keepdim, dtype=)."""

from __future__ import annotations

import torch

import tilec
from tilec.library.nn import like, opmath
from tilec.torch.aten.registry import Plan, is_float, tilec_dtype


def _axes(x: torch.Tensor, dim) -> tuple[int, ...] | str:
    """The reduced axes, non-negative and sorted: all of them for None or []."""
    if dim is None or (isinstance(dim, list | tuple) and len(dim) == 0):
        return tuple(range(x.ndim))
    dims = [dim] if isinstance(dim, int) else list(dim)
    nd = max(x.ndim, 1)
    if any(not -nd <= d < nd for d in dims):
        return f"dim {dim} out of range for a {x.ndim}-d tensor"
    axes = sorted({d % nd for d in dims})
    if x.ndim == 0:
        return ()
    return tuple(axes)


def _reduce(kind: str):
    def plan(p):
        x = p["self"]
        if x.numel() == 0:
            return "a reduction of an empty tensor"
        axes = _axes(x, p.get("dim"))
        if isinstance(axes, str):
            return axes
        keep = bool(p.get("keepdim", False))
        dt = p.get("dtype")
        if kind in ("sum", "mean"):
            if dt is None:
                dt = x.dtype if is_float(x.dtype) else torch.int64
            if kind == "mean" and not is_float(dt):
                return f"mean of {x.dtype} (torch requires a float dtype)"
        else:
            dt = x.dtype
            if dt == torch.bool:
                return "amax / amin of bool"
        if tilec_dtype(dt) is None:
            return f"dtype {dt}"
        to = tilec_dtype(dt)

        def body(v):
            if kind in ("sum", "mean"):
                v = opmath(like(v, to))
                r = (tilec.sum if kind == "sum" else tilec.mean)(v, axis=axes, keepdims=keep)
            else:
                r = (tilec.max if kind == "amax" else tilec.min)(v, axis=axes, keepdims=keep)
            return like(r, to)

        return Plan((kind, axes, keep, str(dt)), body, (x,))

    return plan


def _any_all(kind: str):
    def plan(p):
        x = p["self"]
        if x.numel() == 0:
            return "a reduction of an empty tensor"
        axes = _axes(x, p.get("dim"))
        if isinstance(axes, str):
            return axes
        keep = bool(p.get("keepdim", False))

        def body(v):
            hits = (v != 0) if not v.dtype.is_bool else v
            count = tilec.sum(hits.astype(tilec.int32), axis=axes, keepdims=keep)
            n = 1
            for a in axes:
                n *= v.shape[a]
            return count > 0 if kind == "any" else count == n

        return Plan((kind, axes, keep), body, (x,))

    return plan


def table() -> dict:
    sums = _reduce("sum")
    means = _reduce("mean")
    return {
        "sum.default": sums,
        "sum.dim_IntList": sums,
        "mean.default": means,
        "mean.dim": means,
        "amax.default": _reduce("amax"),
        "amin.default": _reduce("amin"),
        "any.dim": _any_all("any"),
        "any.dims": _any_all("any"),
        "any.default": _any_all("any"),
        "all.dim": _any_all("all"),
        "all.default": _any_all("all"),
    }
