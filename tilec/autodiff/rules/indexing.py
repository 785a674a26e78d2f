"""VJP rules of the indexing ops: slice, dynamic_slice, concat, pad, take, take_along_axis,
scatter_add (docs/autodiff-rules-nn.md).

Every op here moves elements without arithmetic, so each cotangent is the cotangent of the
result moved back: into zeros at the places the op read (slice, dynamic_slice, pad, the
gathers) or cut out of it (concat, pad, scatter_add). The gathers' adjoint is a scatter_add,
so indices read twice accumulate their cotangents. Index and `start` operands get no
cotangent (None).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING

from tilec.dialects.common import DYNAMIC, int_list
from tilec.dialects.tile import (
    ConcatOp,
    DynamicSliceOp,
    PadOp,
    ScatterAddOp,
    SliceOp,
    TakeAlongAxisOp,
    TakeOp,
    TileType,
)
from tilec.frontend import ops
from tilec.frontend.dtypes import int64
from tilec.frontend.tracer import Tile

if TYPE_CHECKING:
    from tilec.autodiff.context import VjpContext

Cts = tuple[Tile | None, ...]


def _window(axis: int, ndim: int, window: slice) -> tuple:
    """An index for `getitem` taking `window` along `axis` and every other axis whole."""
    return (*(slice(None),) * axis, window, *(slice(None),) * (ndim - axis - 1))


def _spread(ct: Tile, axis: int, low: int, step: int, n: int) -> Tile:
    """A tile of size n along `axis` holding ct[i] at low + step * i and zeros elsewhere (static
    sizes on `axis`): each element followed by step - 1 zeros, then padded to n."""
    m = int(ct.shape[axis])
    if m == 0:
        return ops.zeros((*ct.shape[:axis], n, *ct.shape[axis + 1 :]), ct.dtype)
    if step > 1:
        grown = ops.reshape(ct, (*ct.shape[: axis + 1], 1, *ct.shape[axis + 1 :]))
        widths = [(0, 0)] * grown.ndim
        widths[axis + 1] = (0, step - 1)
        spread = ops.pad(grown, widths)
        ct = ops.reshape(spread, (*ct.shape[:axis], m * step, *ct.shape[axis + 1 :]))
        ct = ct[_window(axis, ct.ndim, slice(0, min(m * step, n - low)))]
    widths = [(0, 0)] * ct.ndim
    widths[axis] = (low, n - low - int(ct.shape[axis]))
    return ops.pad(ct, widths)


def _scatter_window(ct: Tile, axis: int, n, first: Tile | int, step: int) -> Tile:
    """zeros shaped like ct but of size n on `axis`, plus ct[i] at first + step * i along it
    (a scatter_add: for static windows of axes whose size is dynamic)."""
    shape = (*ct.shape[:axis], n, *ct.shape[axis + 1 :])
    idx = ops.iota(ct.shape, axis, int64) * step + first
    return ops.scatter_add(ops.zeros(shape, ct.dtype), axis, idx, ct)


def vjp_slice(ctx: VjpContext, op: SliceOp, cts: Cts) -> Cts:
    """y[i] = x[o + s i] per axis: dx = zeros with ct[i] at o + s i (o < 0 counts from the end;
    a negative stride reverses ct first). A `?` axis kept whole is the identity or a reversal;
    a static window of a `?` axis is a scatter_add into zeros."""
    (ct,) = cts
    if ct is None:
        return (None,)
    src = op.source.type
    assert isinstance(src, TileType)
    offsets, strides = int_list(op.offsets), int_list(op.strides)
    for a, (o, s, n) in enumerate(zip(offsets, strides, src.get_shape())):
        m = ct.shape[a]
        if n == DYNAMIC:
            if op.result.type.get_shape()[a] == DYNAMIC:  # kept whole: (0, 1) or (-1, -1)
                if s < 0:
                    ct = ops.flip(ct, a)
                continue
            size = ctx.shape(op.source)[a]  # the run-time size of the `?` axis
            ct = _scatter_window(ct, a, size, o if o >= 0 else size + o, s)
            continue
        first = o if o >= 0 else o + n
        if s < 0:
            ct = ops.flip(ct, a)
            first, s = first + s * (int(m) - 1), -s
        ct = _spread(ct, a, first, s, n)
    return (ct,)


def vjp_dynamic_slice(ctx: VjpContext, op: DynamicSliceOp, cts: Cts) -> Cts:
    """y = x[s' : s' + m] along the axis, s' = clamp(start, 0, n - m): dx = zeros with ct at
    the window (a scatter_add at s' + i); `start` gets no cotangent."""
    (ct,) = cts
    if ct is None:
        return (None, None)
    a = op.axis.data
    zeros = ctx.zeros(op.source)
    n, m = zeros.shape[a], int(ct.shape[a])
    start = ctx.primal(op.start)
    if start.dtype != int64:
        start = start.astype(int64)
    start = ops.minimum(ops.maximum(start, 0), n - m)
    idx = ops.iota(ct.shape, a, int64) + start
    return (ops.scatter_add(zeros, a, idx, ct), None)


def vjp_concat(ctx: VjpContext, op: ConcatOp, cts: Cts) -> Cts:
    """y = concat(x_0, x_1, ...) along the axis: dx_k is ct's part from offset sum(n_<k)."""
    (ct,) = cts
    if ct is None:
        return tuple(None for _ in op.inputs)
    a = op.axis.data
    out, lo = [], 0
    for v in op.inputs:
        t = v.type
        assert isinstance(t, TileType)
        n = t.get_shape()[a]
        out.append(ct[_window(a, ct.ndim, slice(lo, lo + n))])
        lo += n
    return tuple(out)


def vjp_pad(ctx: VjpContext, op: PadOp, cts: Cts) -> Cts:
    """y = pad(x, low, high, value) (tile.pad's only mode, constant): dx = ct[low : low + n] per
    axis; the pad value is an attribute (a constant), so it has no cotangent."""
    (ct,) = cts
    if ct is None:
        return (None,)
    src = op.source.type
    assert isinstance(src, TileType)
    index = []
    for lo, n in zip(int_list(op.low), src.get_shape()):
        index.append(slice(None) if n == DYNAMIC else slice(lo, lo + n))
    return (ct[tuple(index)] if index else ct,)


def _normalized(idx: Tile, n) -> Tile:
    """Indices as int64 in [0, n): a negative index counts from the end (take's rule)."""
    idx = idx if idx.dtype == int64 else idx.astype(int64)
    return ops.where(idx < 0, idx + n, idx)


def vjp_take(ctx: VjpContext, op: TakeOp, cts: Cts) -> Cts:
    """y[p, j, q] = x[p, idx[j], q]: dx = index_add(zeros, axis, idx, ct) over the flattened j
    (repeated indices accumulate); the indices get no cotangent."""
    (ct,) = cts
    if ct is None:
        return (None, None)
    a = op.axis.data
    zeros = ctx.zeros(op.source)
    idx = _normalized(ctx.primal(op.indices), zeros.shape[a])
    k = idx.ndim
    lead, tail = ct.shape[:a], ct.shape[a + k :]
    flat_idx = ops.reshape(idx, (-1,))
    flat_ct = ops.reshape(ct, (*lead, flat_idx.shape[0], *tail))
    return (ops.index_add(zeros, a, flat_idx, flat_ct), None)


def vjp_take_along_axis(ctx: VjpContext, op: TakeAlongAxisOp, cts: Cts) -> Cts:
    """y[i] = x[i with i[axis] = idx[i]]: dx = scatter_add(zeros, axis, idx, ct) (repeated
    indices accumulate); the indices get no cotangent."""
    (ct,) = cts
    if ct is None:
        return (None, None)
    a = op.axis.data
    zeros = ctx.zeros(op.source)
    idx = _normalized(ctx.primal(op.indices), zeros.shape[a])
    return (ops.scatter_add(zeros, a, idx, ct), None)


def vjp_scatter_add(ctx: VjpContext, op: ScatterAddOp, cts: Cts) -> Cts:
    """y = x + scatter(idx, u): dx = ct; du[i] = ct[i with i[axis] = idx[i]] (a
    take_along_axis); the indices get no cotangent."""
    (ct,) = cts
    if ct is None:
        return (None, None, None)
    idx = ctx.primal(op.indices)
    return (ct, None, ops.take_along_axis(ct, idx, op.axis.data))


RULES = MappingProxyType(
    {
        SliceOp: vjp_slice,
        DynamicSliceOp: vjp_dynamic_slice,
        ConcatOp: vjp_concat,
        PadOp: vjp_pad,
        TakeOp: vjp_take,
        TakeAlongAxisOp: vjp_take_along_axis,
        ScatterAddOp: vjp_scatter_add,
    }
)
NON_DIFFERENTIABLE = MappingProxyType({})
ZERO_COTANGENT = MappingProxyType({})
