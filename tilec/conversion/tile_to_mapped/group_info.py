"""Reading a fusion group: its yielded values, tile shapes, index constants and its contraction.

Shared by the CPU and GPU group lowerings (groups_*.py, gemm_*.py).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, f32
from xdsl.ir import SSAValue

from tilec.conversion.builder import compute_type
from tilec.diagnostics import NotSupportedYet, op_location
from tilec.dialects import tile
from tilec.dialects.common import bitwidth, is_float, is_unsigned
from tilec.fp8 import fp8_format


def yielded(fused: tile.FusedOp) -> list[SSAValue]:
    """The values a group yields (its results, in order)."""
    y = fused.body.block.last_op
    assert isinstance(y, tile.YieldOp)
    return list(y.values)


def tile_shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    assert isinstance(t, tile.TileType)
    return t.get_shape()


def const_index(v: SSAValue) -> int | None:
    """The value of an `index` constant, else None."""
    op = v.owner
    if isinstance(op, arith.ConstantOp):
        val = op.value
        if isinstance(val, IntegerAttr) and isinstance(val.type, IndexType):
            return val.value.data
    return None


def anchor_of(fused: tile.FusedOp) -> tile.ContractOp | tile.ConvOp:
    """The op a `contraction` group is built around: a tile.contract or a tile.conv (lowerings
    dispatch on its class)."""
    return next(op for op in fused.body.block.ops if isinstance(op, tile.ContractOp | tile.ConvOp))


def contraction_of(fused: tile.FusedOp) -> tile.ContractOp:
    """The contraction of a `contraction` group."""
    c = next(op for op in fused.body.block.ops if isinstance(op, tile.ContractOp))
    if any(is_unsigned(t) for t in (c.lhs.type.element_type, c.acc, c.result.type.element_type)):
        raise NotSupportedYet("contractions of unsigned integer tiles in compiled kernels", op_location(c))
    return c


def order_op_of(fused: tile.FusedOp) -> tile.SortOp | tile.TopkOp:
    """The one `tile.sort` / `tile.topk` of a `sort` group."""
    return next(o for o in fused.body.block.ops if isinstance(o, tile.ORDER_OPS))


class ContractionAxes:
    """Axis bookkeeping of one contraction: batch / M / N / K axes of lhs, rhs and the result."""

    def __init__(self, c: tile.ContractOp):
        self.c = c
        lr, rr = c.lhs.type.rank, c.rhs.type.rank
        self.batch = c.batch
        self.axes = c.axes
        used_l = {a for a, _ in c.axes} | {a for a, _ in c.batch}
        used_r = {b for _, b in c.axes} | {b for _, b in c.batch}
        self.lfree = [a for a in range(lr) if a not in used_l]
        self.rfree = [b for b in range(rr) if b not in used_r]


def acc_to_result(g, x: SSAValue, acc_t, elt) -> SSAValue:
    """Round the accumulator `x` (type acc_t) to the contraction's result element type `elt`,
    kept in its compute type; `g` is the KernelGen building the kernel."""
    ct = compute_type(elt)
    fmt = fp8_format(elt)
    if fmt is not None:  # through f32 (as tile.cast), rounded to fp8, kept in f32
        return g.fp8_round(g.ev(arith.TruncFOp(x, f32)) if acc_t != f32 else x, fmt)
    if is_float(elt):
        if ct != elt:  # 16-bit result: round through the narrow type
            narrow = g.ev(arith.TruncFOp(x, elt))
            return g.ev(arith.ExtFOp(narrow, f32))
        if bitwidth(ct) < bitwidth(acc_t):
            return g.ev(arith.TruncFOp(x, ct))
        if bitwidth(ct) > bitwidth(acc_t):
            return g.ev(arith.ExtFOp(x, ct))
        return x
    if bitwidth(ct) < bitwidth(acc_t):
        return g.ev(arith.TruncIOp(x, ct))
    return x


__all__ = [
    "ContractionAxes",
    "acc_to_result",
    "anchor_of",
    "const_index",
    "contraction_of",
    "order_op_of",
    "tile_shape",
    "yielded",
]
