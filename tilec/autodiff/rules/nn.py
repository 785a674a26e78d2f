"""VJP rules of the network ops: conv, pool, scan, sort, topk, and random_bits as
non-differentiable (docs/autodiff-rules-nn.md).

- conv: dx is a transposed convolution of ct (tilec.conv_backward_input), dw a convolution of x
  by ct over the batch (tilec.conv_backward_weight); forwards with lhs_dilation or negative
  padding (transposed convolutions, backward convolutions) get the same two convolutions built
  here with the general geometry.
- pool: max via the pool's indices (its own second result, or recomputed), as `tile.pool
  max_grad`; avg as `avg_grad`; adaptive avg as avg_grad (bins of one size) or one small
  contraction per pooled axis; adaptive max as a scatter_add at its indices. The two gradient
  pools are linear in their source, so they differentiate too (double backward).
- scan: cumsum's adjoint is the cumsum running the other way; cumprod and logcumsumexp below.
- sort / topk: the values' cotangent is scattered back through the indices (the indices result
  is integer: no cotangent).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from tilec.dialects.common import int_list
from tilec.dialects.tile import ConvOp, PoolOp, RandomBitsOp, ScanOp, SortOp, TileType, TopkOp
from tilec.frontend import ops
from tilec.frontend.dtypes import int64
from tilec.frontend.tracer import Tile

if TYPE_CHECKING:
    from tilec.autodiff.context import VjpContext

Cts = tuple[Tile | None, ...]


# --- convolution ------------------------------------------------------------------------------


def _static_shape(v) -> list[int]:
    t = v.type
    assert isinstance(t, TileType)
    return list(t.get_shape())


def _spatial(shape: list[int], last: bool) -> list[int]:
    return shape[1:-1] if last else shape[2:]


def _emit_conv(ct: Tile, lhs: Tile, rhs: Tile, out_shape, geometry: dict, op: ConvOp) -> Tile:
    """A tile.conv of lhs by rhs with `geometry` (stride, padding, dilation, lhs_dilation) and
    the forward's groups, layout and accumulator."""
    tr = ct.tracer
    dtype = lhs.dtype
    axes = tuple(tr.const_axis(n) for n in out_shape)
    return tr.op(
        axes,
        dtype,
        lambda: ConvOp(
            lhs.value,
            rhs.value,
            geometry["stride"],
            geometry["padding"],
            geometry["dilation"],
            geometry["lhs_dilation"],
            op.groups.data,
            op.layout.data,
            op.acc,
            tr.tile_type(axes, dtype),
        ),
    )


def _transposed_weight(w: Tile, d: int, last: bool, groups: int) -> Tile:
    """w (O, C/G, *K) (channels_last (O, *K, C/G)) as the weight of dx's convolution, (C, O/G, *K)
    (channels_last (C, *K, O/G)): per group the channel axes swap, and the kernel is flipped."""
    ws = [int(n) for n in w.shape]
    o, ks = ws[0], (ws[1 : d + 1] if last else ws[2:])
    cg = ws[-1] if last else ws[1]
    og = o // groups
    if last:  # (G, Og, *K, Cg) -> (G, Cg, *K, Og)
        t = ops.reshape(w, (groups, og, *ks, cg))
        t = ops.transpose(t, (0, d + 2, *range(2, d + 2), 1))
        t = ops.reshape(t, (groups * cg, *ks, og))
        return ops.flip(t, tuple(range(1, d + 1)))
    t = ops.reshape(w, (groups, og, cg, *ks))  # (G, Og, Cg, *K) -> (G, Cg, Og, *K)
    t = ops.transpose(t, (0, 2, 1, *range(3, d + 3)))
    t = ops.reshape(t, (groups * cg, og, *ks))
    return ops.flip(t, tuple(range(2, d + 2)))


def _general_dx(op: ConvOp, ct: Tile, w: Tile) -> Tile:
    """dx for any tile.conv: ct dilated by the stride (lhs_dilation), padded by
    dilation (K - 1) - lo, convolved with the transposed weight at stride lhs_dilation (which
    keeps exactly the taps of x among those of the dilated x)."""
    d, last = op.spatial_rank, op.channels_last
    xs, ws, ys = _static_shape(op.lhs), _static_shape(op.rhs), _static_shape(op.result)
    stride, dil, ldil = int_list(op.stride), int_list(op.dilation), int_list(op.lhs_dilation)
    pads = []
    for i, (n, k, m) in enumerate(zip(_spatial(xs, last), _spatial(ws, last), _spatial(ys, last))):
        lo = op.padding_pairs[i][0]
        dilated = (n - 1) * ldil[i] + 1
        pads.append((dil[i] * (k - 1) - lo, dilated - 1 - (m - 1) * stride[i] + lo))
    geometry = {"stride": ldil, "padding": pads, "dilation": dil, "lhs_dilation": stride}
    wt = _transposed_weight(w, d, last, op.groups.data)
    return _emit_conv(ct, ct, wt, xs, geometry, op)


def _general_dw(op: ConvOp, ct: Tile, x: Tile) -> Tile:
    """dw for any tile.conv: x (channels as the batch, batch as the channels, regrouped)
    convolved by ct (its batch as the channels) with stride and dilation swapped."""
    d, last, groups = op.spatial_rank, op.channels_last, op.groups.data
    xs, ws, ys = _static_shape(op.lhs), _static_shape(op.rhs), _static_shape(op.result)
    stride, dil, ldil = int_list(op.stride), int_list(op.dilation), int_list(op.lhs_dilation)
    n, o = xs[0], ws[0]
    c = xs[-1] if last else xs[1]
    cg, og = c // groups, o // groups
    sp, osp, ks = _spatial(xs, last), _spatial(ys, last), _spatial(ws, last)
    if last:
        # x (N, *S, G, Cg) -> (Cg, *S, G, N) -> (Cg, *S, G*N); ct (N, *OS, G, Og) -> (G, Og, *OS, N) -> (O, *OS, N)
        lhs = ops.transpose(ops.reshape(x, (n, *sp, groups, cg)), (d + 2, *range(1, d + 1), d + 1, 0))
        lhs = ops.reshape(lhs, (cg, *sp, groups * n))
        rhs = ops.transpose(ops.reshape(ct, (n, *osp, groups, og)), (d + 1, d + 2, *range(1, d + 1), 0))
        rhs = ops.reshape(rhs, (o, *osp, n))
        out = [cg, *ks, o]
    else:
        # x (N, G, Cg, *S) -> (Cg, G, N, *S) -> (Cg, G*N, *S); ct (N, O, *OS) -> (O, N, *OS)
        lhs = ops.transpose(ops.reshape(x, (n, groups, cg, *sp)), (2, 1, 0, *range(3, d + 3)))
        lhs = ops.reshape(lhs, (cg, groups * n, *sp))
        rhs = ops.transpose(ct, (1, 0, *range(2, d + 2)))
        out = [cg, o, *ks]
    pads = []
    for i in range(d):
        lo = op.padding_pairs[i][0]
        dilated = (sp[i] - 1) * ldil[i] + 1
        # taps past the forward's last window are dropped: the result is exactly K long
        pads.append((lo, dil[i] * (ks[i] - 1) + stride[i] * (osp[i] - 1) + 1 - dilated - lo))
    geometry = {"stride": dil, "padding": pads, "dilation": stride, "lhs_dilation": ldil}
    r = _emit_conv(ct, lhs, rhs, out, geometry, op)
    if last:
        return ops.transpose(r, (d + 1, *range(1, d + 1), 0))
    return ops.transpose(r, (1, 0, *range(2, d + 2)))


def vjp_conv(ctx: VjpContext, op: ConvOp, cts: Cts) -> Cts:
    """y = conv(x, w) (stride s, padding (lo, hi), dilation r, lhs_dilation l, groups G):
    dx[q] = sum_{p, k : p s + k r - lo = q l} ct[p] w[k] (a transposed convolution: conv_backward_input)
    and dw[k] = sum_{n, p} ct[n, p] xd[n, p s + k r - lo] (conv_backward_weight), group by group."""
    (ct,) = cts
    if ct is None:
        return (None, None)
    plain = all(v == 1 for v in int_list(op.lhs_dilation)) and all(p >= 0 for p in int_list(op.padding))
    args = {
        "stride": list(int_list(op.stride)),
        "padding": op.padding_pairs,
        "dilation": list(int_list(op.dilation)),
        "groups": op.groups.data,
        "layout": op.layout.data,
    }
    dx = dw = None
    if ctx.needs(op.lhs):  # only the convolutions that are needed: each is a whole GEMM
        w = ctx.primal(op.rhs)
        dx = ops.conv_backward_input(ct, w, _static_shape(op.lhs), **args) if plain else _general_dx(op, ct, w)
    if ctx.needs(op.rhs):
        x = ctx.primal(op.lhs)
        dw = ops.conv_backward_weight(x, ct, _static_shape(op.rhs), **args) if plain else _general_dw(op, ct, x)
    return (dx, dw)


# --- pooling ------------------------------------------------------------------------------------


def _window_props(op: PoolOp) -> dict:
    props = {n: list(int_list(getattr(op, n))) for n in ("kernel", "stride", "padding", "dilation")}
    if op.divisor is not None:
        props["divisor"] = op.divisor.data
    props["exclude_pad"] = op.exclude_pad is not None
    return props


def _pool(ct: Tile, kind: str, like, props: dict, argmax: Tile | None = None) -> Tile:
    """A windowed tile.pool of ct whose result has the leading axes of ct and the pooled sizes
    of `like` (an SSA value)."""
    tr = ct.tracer
    r = len(props["kernel"])
    sizes = _static_shape(like)[-r:]
    axes = (*ct.axes[: ct.ndim - r], *(tr.const_axis(n) for n in sizes))
    props = dict(props)
    if kind in ("max", "max_grad"):
        props.pop("exclude_pad", None)
    return tr.op(
        axes,
        ct.dtype,
        lambda: PoolOp(
            kind, ct.value, tr.tile_type(axes, ct.dtype), argmax=None if argmax is None else argmax.value, **props
        ),
    )


def _pool_indices(ctx: VjpContext, op: PoolOp) -> Tile:
    """The max pool's indices: its own second result, or the same pool recomputed with them."""
    if op.indices is not None:
        return ctx.result(op, 1)
    x = ctx.primal(op.source)
    tr = x.tracer
    y = op.result.type
    assert isinstance(y, TileType)
    kw = _window_props(op) if op.kind.data == "max" else {"rank": op.rank.data}
    kw.pop("exclude_pad", None)
    kw.pop("divisor", None)
    axes = (*x.axes[: x.ndim - op.rank.data], *(tr.const_axis(n) for n in y.get_shape()[x.ndim - op.rank.data :]))
    pool = tr.emit(lambda: PoolOp(op.kind.data, x.value, tr.tile_type(axes, x.dtype), with_indices=True, **kw))
    return Tile(tr, axes, int64, pool.results[1])


def _adaptive_avg_dx(op: PoolOp, ct: Tile) -> Tile:
    """The adjoint of adaptive average pooling. It is separable: along each pooled axis output i
    averages its bin [floor(i n / m), ceil((i + 1) n / m)). Bins of one size (m divides n) are an
    avg pool (kernel = stride = n / m), whose gradient is avg_grad; otherwise each axis is a
    contraction of ct with the (m, n) bin-average matrix."""
    r = op.rank.data
    xs, ys = _static_shape(op.source)[-r:], _static_shape(op.result)[-r:]
    if all(n % m == 0 for n, m in zip(xs, ys)):
        k = [n // m for n, m in zip(xs, ys)]
        props = {"kernel": k, "stride": k, "padding": [0] * r, "dilation": [1] * r}
        return _pool(ct, "avg_grad", op.source, props)
    lead = ct.ndim - r
    for j, (n, m) in enumerate(zip(xs, ys)):
        a = lead + j
        if n == m:
            continue
        i_idx = ops.iota((m, n), 0, int64)
        j_idx = ops.iota((m, n), 1, int64)
        lo = (i_idx * n) // m
        hi = ((i_idx + 1) * n + m - 1) // m
        inside = (j_idx >= lo) & (j_idx < hi)
        weights = ops.where(inside, 1.0 / (hi - lo).astype(ct.dtype), 0.0)
        moved = ops.tile_contract(ct, weights, axes=[(a, 0)])  # the new axis n comes last
        perm = (*range(a), moved.ndim - 1, *range(a, moved.ndim - 1))
        ct = ops.transpose(moved, perm)
    return ct


def vjp_pool(ctx: VjpContext, op: PoolOp, cts: Cts) -> Cts:
    """max / adaptive_max: dx[j] = sum of ct over the windows whose max (first maximum, or last
    NaN: the forward's tie rule) is j, found through the pool's indices; avg: dx = avg_grad(ct);
    adaptive_avg: see _adaptive_avg_dx. avg_grad and max_grad are linear in their source dy:
    d(dy) = avg(ct) (the same windows and divisor), and d(dy)[w] = ct[indices[w]]."""
    ct = cts[0]
    kind = op.kind.data
    n_operands = 2 if kind == "max_grad" else 1
    if ct is None:
        return (None,) * n_operands
    if kind == "max":
        return (_pool(ct, "max_grad", op.source, _window_props(op), _pool_indices(ctx, op)),)
    if kind == "adaptive_max":
        r = op.rank.data
        shape = (*ct.shape[: ct.ndim - r], *_static_shape(op.source)[-r:])
        return (ops.max_pool_backward(ct, _pool_indices(ctx, op), shape, ndim=r),)
    if kind == "avg":
        return (_pool(ct, "avg_grad", op.source, _window_props(op)),)
    if kind == "adaptive_avg":
        return (_adaptive_avg_dx(op, ct),)
    if kind == "avg_grad":
        return (_pool(ct, "avg", op.source, _window_props(op)),)
    # max_grad: dx = sum over windows w of dy[w] at indices[w] (flat in each plane)
    idx = ctx.primal(op.argmax)
    r = op.rank.data
    planes_in = ops.reshape(ct, (-1, _plane(_static_shape(op.result), r)))
    picked = ops.take_along_axis(planes_in, ops.reshape(idx, (-1, _plane(_static_shape(op.source), r))), 1)
    return (ops.reshape(picked, idx.shape), None)


def _plane(shape: list[int], r: int) -> int:
    p = 1
    for n in shape[-r:]:
        p *= n
    return p


# --- scans --------------------------------------------------------------------------------------


def _scan(kind: str, x: Tile, axis: int, reverse: bool, exclusive: bool) -> Tile:
    tr = x.tracer
    return tr.op(x.axes, x.dtype, lambda: ScanOp(kind, x.value, axis, reverse, exclusive))


def _cumprod_dx(ctx: VjpContext, op: ScanOp, ct: Tile) -> Tile:
    """y_i = prod_{j <= i} x_j (or j < i: exclusive; in scan order). dx_j = sum_{i >= j} ct_i
    prod_{k <= i, k != j} x_k. Zeros are handled exactly (torch's rule): before the first zero
    of a row dx_j = S(ct y)_j / x_j (S: the running sum in the other direction); at the first
    zero z, dx_z = S(ct y')_z with y' the cumprod of x with x_z replaced by 1; after it dx = 0
    (every such product holds x_z)."""
    a, rev, excl = op.axis.data, op.is_reverse, op.is_exclusive
    x, y = ctx.primal(op.source), ctx.result(op)
    is_zero = x == 0
    zeros_so_far = _scan("add", is_zero.astype(int64), a, rev, False)
    before = zeros_so_far == 0
    first_zero = is_zero & (zeros_so_far == 1)
    safe_x = ops.where(before, x, 1.0)
    y_skip = _scan("mul", ops.where(first_zero, 1.0, x), a, rev, excl)
    g_before = _scan("add", ct * y, a, not rev, excl) / safe_x
    g_zero = _scan("add", ct * y_skip, a, not rev, excl)
    return ops.where(before, g_before, ops.where(first_zero, g_zero, 0.0))


def _logcumsumexp_dx(ctx: VjpContext, op: ScanOp, ct: Tile) -> Tile:
    """y_i = log sum_{j <= i} exp(x_j): dx_j = sum_{i >= j} ct_i exp(x_j - y_i), computed in
    log space without overflow (torch's rule): the positive and negative parts of ct each
    through a logcumsumexp running the other way, dx = exp(x + L(log ct+ - y)) - exp(x + L(log ct- - y))."""
    a, rev = op.axis.data, op.is_reverse
    x, y = ctx.primal(op.source), ctx.result(op)
    lowest = float(np.finfo(ct.dtype.np).min)  # log(0) without -inf (-inf - -inf would be NaN)
    log_abs = ops.log(ops.abs_(ct))
    pos = ops.where(ct > 0, log_abs, lowest)
    neg = ops.where(ct < 0, log_abs, lowest)
    back_pos = _scan("logaddexp", pos - y, a, not rev, False)
    back_neg = _scan("logaddexp", neg - y, a, not rev, False)
    return ops.exp(back_pos + x) - ops.exp(back_neg + x)


def vjp_scan(ctx: VjpContext, op: ScanOp, cts: Cts) -> Cts:
    """add (cumsum): dx = the same scan of ct running the other way (exclusive stays exclusive);
    mul (cumprod): _cumprod_dx; logaddexp (logcumsumexp): _logcumsumexp_dx."""
    (ct,) = cts
    if ct is None:
        return (None,)
    kind = op.kind.data
    if kind == "add":
        return (_scan("add", ct, op.axis.data, not op.is_reverse, op.is_exclusive),)
    if kind == "mul":
        return (_cumprod_dx(ctx, op, ct),)
    return (_logcumsumexp_dx(ctx, op, ct),)


# --- order --------------------------------------------------------------------------------------


def vjp_order(ctx: VjpContext, op: SortOp | TopkOp, cts: Cts) -> Cts:
    """values = x gathered along the axis at indices: dx = scatter_add(zeros, axis, indices, ct)
    (a sort's indices are a permutation, top-k's are distinct); the indices result is an
    integer: its cotangent is ignored."""
    ct = cts[0]
    if ct is None:
        return (None,)
    idx = ctx.result(op, 1)
    return (ops.scatter_add(ctx.zeros(op.source), op.axis.data, idx, ct),)


RULES = MappingProxyType(
    {
        ConvOp: vjp_conv,
        PoolOp: vjp_pool,
        ScanOp: vjp_scan,
        SortOp: vjp_order,
        TopkOp: vjp_order,
    }
)
NON_DIFFERENTIABLE = MappingProxyType(
    {
        RandomBitsOp: (
            "random bits (an integer result); dropout differentiates through its select, with the mask "
            "regenerated from (seed, offset)"
        ),
    }
)
ZERO_COTANGENT = MappingProxyType({})
