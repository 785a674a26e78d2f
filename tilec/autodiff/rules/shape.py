"""VJP rules of the shape ops: broadcast (sum over the broadcast axes), reshape, transpose; and
the no-gradient sources (constants, iota, splats, `tile.dim`): they have no tile operand, so
nothing flows through them."""

from __future__ import annotations

from types import MappingProxyType

from tilec.dialects import tile
from tilec.dialects.common import int_list
from tilec.frontend import ops


def vjp_broadcast(ctx, op, cts):
    """d broadcast(x) = sum of g over the new leading axes and the axes x had as 1, reshaped to x"""
    g = cts[0]
    src = op.source.type.get_shape()
    res = op.result.type.get_shape()
    off = len(res) - len(src)
    axes = list(range(off)) + [off + i for i, d in enumerate(src) if d == 1 and res[off + i] != 1]
    if axes:
        g = ops.reduce_sum(g, tuple(axes))
    return (ops.reshape(g, ctx.shape(op.source)),)


def vjp_reshape(ctx, op, cts):
    """d reshape(x) = reshape(g) to x's shape"""
    return (ops.reshape(cts[0], ctx.shape(op.source)),)


def vjp_transpose(ctx, op, cts):
    """d transpose(x, p) = transpose(g, inverse of p)"""
    perm = int_list(op.permutation)
    inverse = [perm.index(i) for i in range(len(perm))]
    return (ops.transpose(cts[0], tuple(inverse)),)


RULES = MappingProxyType(
    {
        tile.BroadcastOp: vjp_broadcast,
        tile.ReshapeOp: vjp_reshape,
        tile.TransposeOp: vjp_transpose,
    }
)

NON_DIFFERENTIABLE = MappingProxyType({})

ZERO_COTANGENT = MappingProxyType(
    {
        tile.ConstantOp: "a constant (no tile operand)",
        tile.IotaOp: "a constant (no tile operand)",
        tile.SplatOp: "a run-time scalar source (scalar arguments have no cotangent)",
        tile.DimOp: "an index (a size)",
    }
)
