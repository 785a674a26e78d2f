"""VJP rules of the reductions (`tile.reduce` sum/max/min/prod; argmax/argmin give indices, which
carry no cotangent) and of `tile.contract` (any contracted axes, batch axes).

Tie rule of max/min reductions: the cotangent is split evenly among the elements equal to the
result (torch's `amax`/`amin` rule; a NaN result gives no element a cotangent).
"""

from __future__ import annotations

from types import MappingProxyType

from tilec.dialects import tile
from tilec.dialects.common import int_list
from tilec.frontend import ops
from tilec.frontend.dtypes import from_ir
from tilec.frontend.tracer import Tile


def _expand(ctx, t: Tile, op) -> Tile:
    """A tile of the reduce's result shape, broadcast back over the reduced axes."""
    axes = set(int_list(op.axes))
    shape = ctx.shape(op.source)
    kept = tuple(1 if i in axes else d for i, d in enumerate(shape))
    return ops.broadcast_to(ops.reshape(t, kept), shape)


def _count(t: Tile, axes: tuple[int, ...], dtype) -> Tile:
    return ops.reduce_sum(ops.where(t, 1.0, 0.0).astype(dtype), axes)


def vjp_reduce(ctx, op, cts):
    """sum: dx = broadcast(g); max/min: dx = g / count where x == y (ties split evenly), else 0;
    prod: dx_i = g prod_{j != i} x_j (one zero: the zero gets the product of the others; two or
    more zeros: 0)"""
    kind = op.kind.data
    g = _expand(ctx, cts[0], op)
    if kind == "sum":
        return (g,)
    x = ctx.primal(op.source)
    axes = tuple(int_list(op.axes))
    if kind in ("max", "min"):
        hit = x == _expand(ctx, ctx.result(op), op)
        n = _expand(ctx, _count(hit, axes, x.dtype), op)
        return (ops.where(hit, g / n, 0.0),)
    if kind == "prod":
        zero = x == 0.0
        nonzero = ops.where(zero, 1.0, x)
        rest = _expand(ctx, tile_prod(nonzero, axes), op)
        zeros = _expand(ctx, _count(zero, axes, x.dtype), op)
        no_zero = g * rest / nonzero
        return (ops.where(zeros == 0.0, no_zero, ops.where((zeros == 1.0) & zero, g * rest, 0.0)),)
    raise AssertionError(f"internal: reduce {kind} with a cotangent")


def tile_prod(x: Tile, axes: tuple[int, ...]) -> Tile:
    """prod over `axes` (the DSL has no prod reduction; the tile op has)."""
    tr = x.tracer
    rest = tuple(a for i, a in enumerate(x.axes) if i not in axes)
    return tr.op(rest, x.dtype, lambda: tile.ReduceOp("prod", x.value, list(axes), tr.tile_type(rest, x.dtype)))


def _contract(tr, a: Tile, b: Tile, axes, batch, acc, dtype) -> Tile:
    """tile.contract of a and b with the accumulator `acc`, as a Tile (result: batch, a free, b free)."""
    used_a = {i for i, _ in axes} | {i for i, _ in batch}
    used_b = {j for _, j in axes} | {j for _, j in batch}
    out = [a.axes[i] for i, _ in batch]
    out += [d for i, d in enumerate(a.axes) if i not in used_a]
    out += [d for j, d in enumerate(b.axes) if j not in used_b]
    return tr.op(out, dtype, lambda: tile.ContractOp(a.value, b.value, axes, batch, acc, tr.tile_type(out, dtype)))


def vjp_contract(ctx, op, cts):
    """C = contract(A, B) (result axes: batch, A free, B free). dA = contract(G, B) over the B-free
    axes of G against B's free axes, batch with batch, transposed to A's axis order; dB likewise
    with A. Both keep the op's accumulator type."""
    tr = ctx.tracer
    a_t, b_t = op.lhs.type, op.rhs.type
    ra, rb = len(a_t.get_shape()), len(b_t.get_shape())
    lc, rc = [i for i, _ in op.axes], [j for _, j in op.axes]
    lb, rbat = [i for i, _ in op.batch], [j for _, j in op.batch]
    lf = [i for i in range(ra) if i not in lc and i not in lb]
    rf = [j for j in range(rb) if j not in rc and j not in rbat]
    nb, nlf = len(lb), len(lf)
    g = cts[0]
    a_dt, b_dt = from_ir(a_t.element_type), from_ir(b_t.element_type)
    if g.dtype is not a_dt:
        g = ops.astype(g, a_dt)
    out = [None, None]
    if ctx.needs(op.lhs):
        b = ctx.primal(op.rhs)
        da = _contract(
            tr, g, b, [(nb + nlf + j, rf[j]) for j in range(len(rf))], [(i, rbat[i]) for i in range(nb)], op.acc, a_dt
        )
        rc_sorted = sorted(rc)
        pos = {}
        for i, ax in enumerate(lb):
            pos[ax] = i
        for j, ax in enumerate(lf):
            pos[ax] = nb + j
        for k, ax in enumerate(lc):
            pos[ax] = nb + nlf + rc_sorted.index(rc[k])
        out[0] = ops.transpose(da, tuple(pos[i] for i in range(ra)))
    if ctx.needs(op.rhs):
        a = ctx.primal(op.lhs)
        db = _contract(tr, a, g, [(lf[j], nb + j) for j in range(nlf)], [(lb[i], i) for i in range(nb)], op.acc, b_dt)
        lc_sorted = sorted(lc)
        ncl = len(lc)
        pos = {}
        for i, ax in enumerate(rbat):
            pos[ax] = i
        for k, ax in enumerate(rc):
            pos[ax] = nb + lc_sorted.index(lc[k])
        for j, ax in enumerate(rf):
            pos[ax] = nb + ncl + j
        out[1] = ops.transpose(db, tuple(pos[j] for j in range(rb)))
    return tuple(out)


RULES = MappingProxyType({tile.ReduceOp: vjp_reduce, tile.ContractOp: vjp_contract})

NON_DIFFERENTIABLE = MappingProxyType({})

ZERO_COTANGENT = MappingProxyType({})
