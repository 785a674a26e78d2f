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


def _reduction(x: torch.Tensor, p) -> tuple[tuple[int, ...], bool] | str:
    """(axes, keepdim) of a reduction over `dim`, or why tilec does not reduce this."""
    if x.numel() == 0:
        return "a reduction of an empty tensor"
    axes = _axes(x, p.get("dim"))
    return axes if isinstance(axes, str) else (axes, bool(p.get("keepdim", False)))


def _reduce(kind: str):
    def plan(p):
        x = p["self"]
        r = _reduction(x, p)
        if isinstance(r, str):
            return r
        axes, keep = r
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


def _vector_norm(p):
    """linalg_vector_norm: (sum |x|^ord)^(1/ord) over dims; ord inf / -inf: max / min |x|;
    ord 0: the count of non-zeros."""
    x, ord_, dt = p["self"], p.get("ord", 2), p.get("dtype")
    if not is_float(x.dtype) or x.numel() == 0:
        return "a non-float or empty tensor"
    if isinstance(ord_, bool) or not isinstance(ord_, int | float):
        return f"ord {ord_!r}"
    axes = _axes(x, p.get("dim"))
    if isinstance(axes, str):
        return axes
    keep = bool(p.get("keepdim", False))
    out = dt or x.dtype
    if not is_float(out):
        return f"dtype {out}"
    to, o = tilec_dtype(out), float(ord_)

    def body(v):
        a = tilec.abs(opmath(like(v, to)))
        if o == float("inf"):
            r = tilec.max(a, axis=axes, keepdims=keep)
        elif o == float("-inf"):
            r = tilec.min(a, axis=axes, keepdims=keep)
        elif o == 0:
            r = tilec.sum((a != 0).astype(a.dtype), axis=axes, keepdims=keep)
        elif o == 1:
            r = tilec.sum(a, axis=axes, keepdims=keep)
        elif o == 2:
            r = tilec.sqrt(tilec.sum(a * a, axis=axes, keepdims=keep))
        else:
            r = tilec.sum(a**o, axis=axes, keepdims=keep) ** (1.0 / o)
        return like(r, to)

    return Plan((o, axes, keep, str(out)), body, (x,))


def _cumsum(p):
    x, d, dt = p["self"], p["dim"], p.get("dtype")
    if x.numel() == 0 or x.ndim == 0:
        return "an empty or 0-d tensor"
    nd = x.ndim
    if not -nd <= d < nd:
        return f"dim {d} out of range"
    out = dt or (x.dtype if is_float(x.dtype) else torch.int64)
    if tilec_dtype(out) is None or out == torch.bool:
        return f"dtype {out}"
    to, ax = tilec_dtype(out), d % nd
    return Plan((ax, str(out)), lambda v: like(tilec.cumsum(opmath(like(v, to)), ax), to), (x,))


def _any_all(kind: str):
    def plan(p):
        x = p["self"]
        r = _reduction(x, p)
        if isinstance(r, str):
            return r
        axes, keep = r

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
        "linalg_vector_norm.default": _vector_norm,
        "cumsum.default": _cumsum,
        "any.dim": _any_all("any"),
        "any.dims": _any_all("any"),
        "any.default": _any_all("any"),
        "all.dim": _any_all("all"),
        "all.default": _any_all("all"),
    }
