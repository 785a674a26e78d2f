"""ATen's view ops as tile-level values, for graphs (the `torch.compile` backend): inside a
fused region a view is a `reshape`, `transpose`, `broadcast_to` or slice of a tile, not an alias.
Eager dispatch runs views in torch (they launch no kernel), so these are not in the default
table; `view_table()` adds them for graph regions."""

from __future__ import annotations

import torch

import tilec
from tilec.torch.aten.registry import Plan
from tilec.torch.aten.shape import as_strided


def _shape(x: torch.Tensor, size) -> tuple[int, ...] | str:
    size = [int(s) for s in size]
    if size.count(-1) > 1:
        return "several -1 sizes"
    if -1 in size:
        known = 1
        for s in size:
            if s != -1:
                known *= s
        if known == 0:
            return "a -1 size next to a 0 size"
        size[size.index(-1)] = x.numel() // known
    out = tuple(size)
    n = 1
    for s in out:
        n *= s
    return out if n == x.numel() else f"a view of {x.numel()} elements as {out}"


def _reshape(p):
    x = p["self"]
    shape = _shape(x, p["size"])
    if isinstance(shape, str):
        return shape
    return Plan((shape,), lambda v: v.reshape(*shape) if shape else v.reshape(()), (x,))


def _permute(p):
    x, dims = p["self"], [int(d) % max(p["self"].ndim, 1) for d in p["dims"]]
    return Plan((tuple(dims),), lambda v: tilec.transpose(v, dims), (x,))


def _transpose(p):
    x = p["self"]
    nd = max(x.ndim, 1)
    a, b = int(p["dim0"]) % nd, int(p["dim1"]) % nd
    perm = list(range(x.ndim))
    if x.ndim:
        perm[a], perm[b] = perm[b], perm[a]
    return Plan((tuple(perm),), lambda v: tilec.transpose(v, perm) if perm else v, (x,))


def _t(p):
    x = p["self"]
    return Plan((x.ndim,), lambda v: v.T if v.ndim == 2 else v, (x,))


def _expand(p):
    x, size = p["self"], [int(s) for s in p["size"]]
    lead = len(size) - x.ndim
    if lead < 0:
        return "an expand to fewer dims"
    shape = tuple(x.shape[i - lead] if s == -1 else s for i, s in enumerate(size))
    return Plan((shape,), lambda v: tilec.broadcast_to(v, shape), (x,))


def _unsqueeze(p):
    x, d = p["self"], int(p["dim"])
    d = d % (x.ndim + 1)
    shape = (*x.shape[:d], 1, *x.shape[d:])
    return Plan((shape,), lambda v: v.reshape(*shape), (x,))


def _squeeze(p):
    x = p["self"]
    dims = p.get("dim")
    if dims is None:
        dims = [i for i, s in enumerate(x.shape) if s == 1]
    dims = [dims] if isinstance(dims, int) else list(dims)
    nd = max(x.ndim, 1)
    drop = {int(d) % nd for d in dims if x.ndim and x.shape[int(d) % nd] == 1}
    shape = tuple(s for i, s in enumerate(x.shape) if i not in drop)
    return Plan((shape,), lambda v: v.reshape(*shape) if shape else v.reshape(()), (x,))


def _identity(p):
    return Plan((), lambda v: v, (p["self"],))


def _slice(p):
    x, d = p["self"], int(p["dim"]) % max(p["self"].ndim, 1)
    start, end, step = p.get("start"), p.get("end"), int(p.get("step") or 1)
    n = x.shape[d]
    lo, hi, st = slice(start, end, step).indices(n)
    if st <= 0:
        return "a slice step below 1"

    def body(v):
        idx = [slice(None)] * v.ndim
        idx[d] = slice(lo, hi, st)
        return v[tuple(idx)]

    return Plan((d, lo, hi, st), body, (x,))


def _select(p):
    x, d, i = p["self"], int(p["dim"]) % max(p["self"].ndim, 1), int(p["index"])
    n = x.shape[d]
    if not -n <= i < n:
        return "an index out of range"
    i %= n

    def body(v):
        idx = [slice(None)] * v.ndim
        idx[d] = i
        return v[tuple(idx)]

    return Plan((d, i), body, (x,))


def _split_with_sizes(p):
    x, sizes, d = p["self"], [int(s) for s in p["split_sizes"]], int(p["dim"]) % max(p["self"].ndim, 1)
    if sum(sizes) != x.shape[d]:
        return "split sizes that do not add up"
    bounds = [sum(sizes[:k]) for k in range(len(sizes) + 1)]

    def body(v):
        outs = []
        for lo, hi in zip(bounds, bounds[1:]):
            idx = [slice(None)] * v.ndim
            idx[d] = slice(lo, hi)
            outs.append(v[tuple(idx)])
        return tuple(outs)

    return Plan((tuple(sizes), d), body, (x,), returns=list)


def _split(p):
    x, size, d = p["self"], int(p["split_size"]), int(p["dim"]) % max(p["self"].ndim, 1)
    n = x.shape[d]
    sizes = [min(size, n - s) for s in range(0, n, size)] or [0]
    return _split_with_sizes({"self": x, "split_sizes": sizes, "dim": d})


def view_table() -> dict:
    """View and alias overloads as tile values: reshape, transpose, broadcast, slice, select."""
    return {
        "view.default": _reshape,
        "_unsafe_view.default": _reshape,
        "reshape.default": _reshape,
        "permute.default": _permute,
        "transpose.int": _transpose,
        "t.default": _t,
        "expand.default": _expand,
        "unsqueeze.default": _unsqueeze,
        "squeeze.dim": _squeeze,
        "squeeze.dims": _squeeze,
        "squeeze.default": _squeeze,
        "alias.default": _identity,
        "detach.default": _identity,
        "slice.Tensor": _slice,
        "select.int": _select,
        "split_with_sizes.default": _split_with_sizes,
        "split.Tensor": _split,
        "as_strided.default": as_strided,
    }
