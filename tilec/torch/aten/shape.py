"""ATen's creation and joining ops on tilec: `arange`, `full` / `zeros` / `ones`, `cat`,
`stack`, `tril` / `triu`, `masked_fill`.

An op with no tensor operand (`arange`, `full`) still needs the target: the plan passes an
empty tensor on the requested device, which the tile op takes and never reads."""

from __future__ import annotations

import math

import numpy as np
import torch

import tilec
from tilec.library.nn import like
from tilec.torch.aten.pointwise import inplace
from tilec.torch.aten.registry import NoKernel, Plan, is_float, tilec_dtype


def _device_anchor(p) -> torch.Tensor | str:
    """An empty tensor on the call's device (which decides the target), or why there is none."""
    if p.get("layout") not in (None, torch.strided):
        return f"layout {p['layout']}"
    dev = torch.device(p["device"]) if p.get("device") is not None else torch.device("cpu")
    if dev.type not in ("cpu", "cuda"):
        return f"a tensor on {dev.type}"
    return torch.empty(0, device=dev)


def _number(v) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _arange(p):
    start, end, step = p.get("start", 0), p["end"], p.get("step", 1)
    if p.get("start") is None:
        start = 0
    if not all(_number(v) for v in (start, end, step)) or step == 0:
        return "non-number or zero arange bounds"
    ints = all(isinstance(v, int) for v in (start, end, step))
    dt = p.get("dtype") or (torch.int64 if ints else torch.get_default_dtype())
    if tilec_dtype(dt) is None or dt == torch.bool:
        return f"dtype {dt}"
    n = max(0, -(-(end - start) // step)) if ints else max(0, int(-(-(end - start) // step)))
    if n == 0:
        return "an empty arange"
    anchor = _device_anchor(p)
    if isinstance(anchor, str):
        return anchor
    to = tilec_dtype(dt)
    # torch computes start + i * step in double (int64 for integers), then converts
    if ints:
        body = lambda a: like(tilec.arange(n, dtype=tilec.int64) * step + start, to)  # noqa: E731
    else:
        body = lambda a: like(tilec.arange(n, dtype=tilec.float64) * float(step) + float(start), to)  # noqa: E731
    return Plan((start, end, step, str(dt)), body, (anchor,))


def _full(value_of):
    def plan(p):
        size = tuple(int(s) for s in p["size"])
        value = value_of(p)
        if isinstance(value, torch.Tensor) or not isinstance(value, int | float | bool):
            return f"a fill value of type {type(value).__name__}"
        default = torch.bool if isinstance(value, bool) else torch.int64 if isinstance(value, int) else None
        dt = p.get("dtype") or default or torch.get_default_dtype()
        if tilec_dtype(dt) is None:
            return f"dtype {dt}"
        if 0 in size:
            return NoKernel("an empty tensor")
        if not is_float(dt) and isinstance(value, float) and not value.is_integer():
            return f"fill value {value} for {dt}"
        anchor = _device_anchor(p)
        if isinstance(anchor, str):
            return anchor
        to = tilec_dtype(dt)
        v = bool(value) if dt == torch.bool else float(value) if is_float(dt) else int(value)
        return Plan((size, str(dt), v), lambda a: tilec.full(size, v, dtype=to), (anchor,))

    return plan


def _cat(stack: bool):
    def plan(p):
        ts, dim = list(p["tensors"]), int(p["dim"])
        if not ts or any(not isinstance(t, torch.Tensor) for t in ts):
            return "an empty or non-tensor list"
        if len({t.dtype for t in ts}) != 1 or len({t.device for t in ts}) != 1:
            return "tensors of several dtypes or devices"
        if not stack:  # torch skips empty inputs: legacy 1-d ones and those empty along dim
            ts = [t for t in ts if t.numel() or not (t.ndim == 1 or t.shape[dim % t.ndim] == 0)]
            if not ts or all(t.numel() == 0 for t in ts):
                return NoKernel("an empty result")
        nd = ts[0].ndim + (1 if stack else 0)
        if not -nd <= dim < nd or any(t.ndim != ts[0].ndim for t in ts):
            return "dims"
        d = dim % nd
        f = tilec.stack if stack else tilec.concatenate
        return Plan((stack, d, len(ts)), lambda *vs: f(list(vs), axis=d), tuple(ts))

    return plan


def _triangle(lower: bool):
    def plan(p):
        x, diag = p["self"], int(p["diagonal"])
        if x.ndim < 2 or tilec_dtype(x.dtype) is None:
            return "a tensor of fewer than 2 dims"
        r, c = x.shape[-2], x.shape[-1]

        def body(v):
            off = tilec.iota((r, c), axis=1) - tilec.iota((r, c), axis=0)
            keep = off <= diag if lower else off >= diag
            return tilec.where(keep, v, tilec.zeros_like(v))

        return Plan((lower, diag, r, c), body, (x,))

    return plan


def _masked_fill(p):
    x, mask, value = p["self"], p["mask"], p["value"]
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool:
        return "a mask that is not a bool tensor"
    if isinstance(value, torch.Tensor):
        if value.ndim != 0:
            return "a non-scalar fill value"
        if value.device != x.device:
            value = value.item()
    if isinstance(value, bool) and x.dtype != torch.bool:
        return "a bool fill value"
    if isinstance(value, float) and not is_float(x.dtype):
        return f"a float fill value for {x.dtype}"
    if torch.broadcast_shapes(x.shape, mask.shape) != x.shape:
        return "a mask of another shape"
    to = tilec_dtype(x.dtype)
    tensor_value = isinstance(value, torch.Tensor)
    if not tensor_value and not isinstance(value, int | float | bool):
        return f"a fill value of type {type(value).__name__}"

    def body(v, m, s):
        return tilec.where(m, like(s, to) if tensor_value else s, v)

    if not tensor_value and (isinstance(value, bool) or (isinstance(value, float) and not _finite(value))):
        # infinities and NaN as static constants (a runtime scalar is fine too; this keeps -inf
        # masks, the common case, one kernel per value)
        return Plan((str(x.dtype), "static", value), lambda v, m: tilec.where(m, value, v), (x, mask))
    return Plan((str(x.dtype), tensor_value), body, (x, mask, value))


def _index_put(p):
    """index_put with one integer index tensor (the other entries None: whole axes), accumulating
    (what the backward of embedding and of indexing decompose into): the values added at the
    indexed positions of that axis, duplicates accumulating."""
    x, indices, values, acc = p["self"], list(p["indices"]), p["values"], bool(p["accumulate"])
    if not acc:
        return "index_put without accumulate (duplicate indices have no defined winner)"
    real = [(k, t) for k, t in enumerate(indices) if t is not None]
    if len(real) != 1 or real[0][1].dtype not in (torch.int64, torch.int32):
        return "index_put with other than one integer index tensor"
    axis, idx = real[0]
    if axis >= x.ndim or idx.numel() == 0 or values.dtype != x.dtype:
        return "shapes or dtypes"
    lead, rest = tuple(x.shape[:axis]), tuple(x.shape[axis + 1 :])
    m, n = idx.numel(), x.shape[axis]
    full = (*lead, *idx.shape, *rest)
    try:
        if torch.broadcast_shapes(values.shape, full) != full:
            return "values of another shape"
    except RuntimeError:
        return "values of another shape"

    def body(v, i, val):
        flat = i.reshape(m)
        flat = tilec.where(flat < 0, flat + n, flat)
        src = tilec.broadcast_to(val, full).reshape(*lead, m, *rest)
        return tilec.index_add(v, axis, flat, src)

    return Plan((axis, m, n, lead, rest, tuple(idx.shape)), body, (x, idx, values))


def _strided_place(base, src, d: int, lo: int, st: int, m: int):
    """base with src's m slices written at lo, lo + st, ... along axis d (st > 1): a take of
    src at every position of the axis, kept where the position is on the grid."""
    n = base.shape[d]
    i = tilec.iota((n,), dtype=tilec.int64)
    on = (i >= lo) & ((i - lo) % st == 0) & (i < lo + st * m)
    spread = tilec.take(src, tilec.clip((i - lo) // st, 0, m - 1), axis=d)
    grid = on.reshape(*[n if k == d else 1 for k in range(base.ndim)])
    return tilec.where(grid, spread, base)


def _slice_scatter(p):
    """slice_scatter: self with src written into self[..., start:end:step, ...]: for step 1 the
    kept parts of self and src concatenated along dim; for a larger step src spread over the
    axis and selected on its grid."""
    x, src, d = p["self"], p["src"], int(p["dim"])
    if src.dtype != x.dtype or src.ndim != x.ndim or x.ndim == 0:
        return "src of another dtype or rank"
    d %= x.ndim
    lo, hi, st = slice(p.get("start"), p.get("end"), int(p.get("step") or 1)).indices(x.shape[d])
    hi = max(hi, lo)
    if st < 1:
        return "a slice step below 1"
    m = len(range(lo, hi, st))
    if tuple(src.shape) != (*x.shape[:d], m, *x.shape[d + 1 :]):
        return "shapes"
    n = x.shape[d]
    if m == 0:
        return Plan((d, "empty"), lambda v, s: v.astype(v.dtype), (x, src))
    if st > 1:
        return Plan((d, lo, st, m), lambda v, s: _strided_place(v, s, d, lo, st, m), (x, src))

    def body(v, s):
        def part(a, b):
            return v[tuple(slice(a, b) if k == d else slice(None) for k in range(v.ndim))]

        pieces = ([part(0, lo)] if lo else []) + [s] + ([part(hi, n)] if hi < n else [])
        return tilec.concatenate(pieces, axis=d) if len(pieces) > 1 else s.astype(s.dtype)

    return Plan((d, lo, hi, n), body, (x, src))


def _strided_positions(size, stride, offset: int):
    """The flat positions of as_strided(size, stride, offset) as an int64 tile of shape `size`."""
    pos = tilec.full(tuple(size), offset, tilec.int64)
    for k, st in enumerate(stride):
        if size[k] > 1 and st:
            pos = pos + tilec.iota(tuple(size), axis=k, dtype=tilec.int64) * st
    return pos


def _strided_args(x, p, what: str):
    """(size, stride, offset) of an as_strided call on x, or why it cannot be a tile value: x
    must be contiguous from its storage's start (its elements are then the storage the call
    reads) and every position must fall inside x."""
    size, stride = [int(v) for v in p["size"]], [int(v) for v in p["stride"]]
    offset = int(p.get("storage_offset") or 0)
    if len(size) != len(stride) or any(v < 0 for v in (*size, *stride, offset)):
        return f"{what} with negative sizes or strides"
    if not x.is_contiguous() or x.storage_offset() != 0:
        return f"{what} of a non-contiguous tensor or one with a storage offset"
    if 0 in size:
        return f"an empty {what}"
    last = offset + sum((n - 1) * st for n, st in zip(size, stride))
    if last >= x.numel():
        return f"{what} reaching past its input's elements"
    return size, stride, offset


def as_strided(p):
    """as_strided (graphs: views.py's table): the elements of the contiguous input at
    offset + sum(i_k * stride_k)."""
    x = p["self"]
    args = _strided_args(x, p, "as_strided")
    if isinstance(args, str):
        return args
    size, stride, offset = args
    return Plan(
        (tuple(size), tuple(stride), offset),
        lambda v: tilec.take(v.reshape(-1), _strided_positions(size, stride, offset)),
        (x,),
    )


def _as_strided_scatter(p):
    """as_strided_scatter: the contiguous input with src written at its as_strided positions
    (which must not overlap: each element written once)."""
    x, src = p["self"], p["src"]
    args = _strided_args(x, p, "as_strided_scatter")
    if isinstance(args, str):
        return args
    size, stride, offset = args
    if src.dtype != x.dtype or tuple(src.shape) != tuple(size):
        return "src of another dtype or shape"
    count = math.prod(size)
    if count > 1 << 22:
        return "an as_strided_scatter too large to check for overlaps"
    pos = offset + sum(np.arange(n).reshape([-1 if j == k else 1 for j in range(len(size))]) * st
                       for k, (n, st) in enumerate(zip(size, stride)))  # fmt: skip
    if np.unique(np.asarray(pos).reshape(-1)).size != count:
        return "an as_strided_scatter whose positions overlap"

    def body(v, s):
        # which element of src lands on each position (1-based, 0: none), then a gather: the
        # values move without arithmetic (-0.0 and NaN payloads kept)
        flat = v.reshape(-1)
        pos = _strided_positions(size, stride, offset).reshape(-1)
        which = tilec.index_add(tilec.zeros(flat.shape, tilec.int64), 0, pos, tilec.iota((count,)) + 1)
        put = tilec.take(s.reshape(-1), tilec.clip(which - 1, 0, count - 1))
        return tilec.where(which > 0, put, flat).reshape(*v.shape)

    return Plan((tuple(size), tuple(stride), offset), body, (x, src))


def _gather(p):
    """torch.gather: out[i][j] = self[index[i][j]][j] along `dim`; the index may be smaller than
    self on the other axes (self is cut to it first)."""
    x, d, idx = p["self"], int(p["dim"]), p["index"]
    if idx.dtype not in (torch.int64, torch.int32) or idx.ndim != x.ndim or x.ndim == 0 or idx.numel() == 0:
        return "an index of another rank or dtype"
    d %= x.ndim
    if any(i > s for k, (i, s) in enumerate(zip(idx.shape, x.shape)) if k != d):
        return "an index larger than self"
    cut = tuple(slice(None) if k == d else slice(0, idx.shape[k]) for k in range(x.ndim))
    n = x.shape[d]

    def body(v, i):
        i = tilec.where(i < 0, i + n, i)
        return tilec.take_along_axis(v[cut], i, axis=d)

    return Plan((d, tuple(idx.shape)), body, (x, idx))


def _scatter_value(p):
    """scatter.value: self with `value` written at each indexed position along `dim` (what
    nll_loss's backward decomposes into). Writing one value, duplicate indices agree."""
    x, d, idx, value = p["self"], int(p["dim"]), p["index"], p["value"]
    if idx.dtype not in (torch.int64, torch.int32) or idx.ndim != x.ndim or x.ndim == 0 or idx.numel() == 0:
        return "an index of another rank or dtype"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"a value {value!r}"
    d %= x.ndim
    if any(i != s for k, (i, s) in enumerate(zip(idx.shape, x.shape)) if k != d):
        return "an index of another shape than self off the scatter axis"
    n, nd = x.shape[d], x.ndim
    perm = [k for k in range(nd) if k != d] + [d]  # the scatter axis last
    back = [perm.index(k) for k in range(nd)]

    def body(v, i, val):
        it = tilec.transpose(tilec.where(i < 0, i + n, i), perm)  # (..., K)
        lanes = tilec.iota((*it.shape, n), axis=nd)  # (..., K, n)
        hit = tilec.sum((it.reshape(*it.shape, 1) == lanes).astype(tilec.int32), axis=nd - 1) > 0
        out = tilec.where(hit, like(val, v.dtype), tilec.transpose(v, perm))
        return tilec.transpose(out, back)

    return Plan((d, tuple(idx.shape)), body, (x, idx, value))


def _flip(p):
    x, dims = p["self"], p["dims"]
    nd = max(x.ndim, 1)
    axes = tuple(sorted({int(d) % nd for d in dims}))
    if not axes or x.ndim == 0:
        return Plan(("id",), lambda v: v.astype(v.dtype), (x,))
    return Plan((axes,), lambda v: tilec.flip(v, axes), (x,))


def _new_full(value_of):
    """new_zeros / new_ones / new_full: dtype and device from self unless given."""

    def plan(p):
        x = p["self"]
        q = {**p, "dtype": p.get("dtype") or x.dtype, "device": p.get("device") or x.device}
        return _full(value_of)(q)

    return plan


def _constant_pad(p):
    """constant_pad_nd: `pad` lists (before, after) pairs from the LAST axis backwards; negative
    amounts crop."""
    x, pad, value = p["self"], [int(v) for v in p["pad"]], p["value"]
    if len(pad) % 2 or len(pad) // 2 > x.ndim:
        return "a pad list of odd length or too many axes"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"a pad value {value!r}"
    if isinstance(value, float) and not is_float(x.dtype) and not value.is_integer():
        return f"a pad value {value} for {x.dtype}"
    widths = [(0, 0)] * x.ndim
    for k in range(len(pad) // 2):
        widths[x.ndim - 1 - k] = (pad[2 * k], pad[2 * k + 1])
    grow = [(max(lo, 0), max(hi, 0)) for lo, hi in widths]
    crop = [(max(-lo, 0), max(-hi, 0)) for lo, hi in widths]
    shape = tuple(x.shape)
    if any(c0 + c1 > n for (c0, c1), n in zip(crop, shape)):
        return "a crop larger than the axis"
    v = float(value) if is_float(x.dtype) else int(value)

    def body(t):
        if any(c0 or c1 for c0, c1 in crop):
            t = t[tuple(slice(c0, n - c1) for (c0, c1), n in zip(crop, shape))]
        return tilec.pad(t, grow, v) if any(g0 or g1 for g0, g1 in grow) else t

    return Plan((tuple(widths), v), body, (x,))


def _slice_backward(p):
    """slice_backward: the gradient of x[..., start:end:step, ...] spread back to x's shape
    (zeros elsewhere): a pad for step 1, a placement on the grid for larger steps."""
    g, sizes, d = p["grad_output"], [int(v) for v in p["input_sizes"]], int(p["dim"])
    start, end, step = p["start"], p["end"], int(p["step"])
    d %= len(sizes)
    lo, hi, st = slice(start, end, step).indices(sizes[d])
    if st < 1:
        return "a slice step below 1"
    m = len(range(lo, max(hi, lo), st))
    if m != g.shape[d] or m == 0:
        return "shapes"
    if st > 1:

        def body(t):
            return _strided_place(tilec.zeros(tuple(sizes), t.dtype), t, d, lo, st, m)

        return Plan((tuple(sizes), d, lo, st, m), body, (g,))
    widths = [(0, 0)] * len(sizes)
    widths[d] = (lo, sizes[d] - max(hi, lo))
    return Plan((tuple(widths),), lambda t: tilec.pad(t, widths, 0), (g,))


def _select_backward(p):
    g, sizes, d, i = p["grad_output"], [int(v) for v in p["input_sizes"]], int(p["dim"]), int(p["index"])
    d %= len(sizes)
    i %= sizes[d]
    widths = [(0, 0)] * len(sizes)
    widths[d] = (i, sizes[d] - i - 1)
    shape = tuple(sizes[:d]) + (1,) + tuple(sizes[d + 1 :])
    return Plan((tuple(widths), shape), lambda t: tilec.pad(t.reshape(*shape), widths, 0), (g,))


def _index(p):
    """index.Tensor with one integer index tensor, on any axis after full slices: x[..., idx]
    as `take` (negative indices count from the end); several index tensors or bool masks fall
    back."""
    x, indices = p["self"], list(p["indices"])
    real = [(k, t) for k, t in enumerate(indices) if t is not None]
    if len(real) != 1:
        return "indexing with several index tensors"
    axis, idx = real[0]
    if idx.dtype not in (torch.int64, torch.int32) or axis >= x.ndim:
        return "a bool or non-integer index"
    return Plan((axis,), lambda v, i: tilec.take(v, i, axis=axis), (x, idx))


def _finite(v: float) -> bool:
    return v == v and v not in (float("inf"), float("-inf"))


def _fill_default(value: int):
    """zeros / ones: the value as the dtype's kind (a float for float dtypes and the default)."""
    return lambda p: float(value) if (p.get("dtype") or torch.get_default_dtype()).is_floating_point else value


def table() -> dict:
    return {
        "arange.default": lambda p: _arange({**p, "start": None}),
        "arange.start": _arange,
        "arange.start_step": _arange,
        "full.default": _full(lambda p: p["fill_value"]),
        "scalar_tensor.default": lambda p: _full(lambda q: q["s"])(
            {**p, "size": (), "dtype": p.get("dtype") or torch.get_default_dtype()}
        ),
        "zeros.default": _full(_fill_default(0)),
        "ones.default": _full(_fill_default(1)),
        "cat.default": _cat(False),
        "stack.default": _cat(True),
        "tril.default": _triangle(True),
        "triu.default": _triangle(False),
        "masked_fill.Scalar": _masked_fill,
        "masked_fill.Tensor": _masked_fill,
        "masked_fill_.Scalar": inplace(_masked_fill),
        "masked_fill_.Tensor": inplace(_masked_fill),
        "index_put.default": _index_put,
        "constant_pad_nd.default": _constant_pad,
        "slice_backward.default": _slice_backward,
        "select_backward.default": _select_backward,
        "index.Tensor": _index,
        "flip.default": _flip,
        "gather.default": _gather,
        "slice_scatter.default": _slice_scatter,
        "as_strided_scatter.default": _as_strided_scatter,
        "scatter.value": _scatter_value,
        "new_zeros.default": _new_full(lambda p: 0),
        "new_ones.default": _new_full(lambda p: 1),
        "new_full.default": _new_full(lambda p: p["fill_value"]),
    }
