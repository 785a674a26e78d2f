"""tile-canonicalize: local simplifications of tile IR that never change results.

- identity conversions vanish: `cast`/`broadcast`/`reshape` to the same type, `transpose` by the
  identity permutation;
- chains fold: `transpose(transpose(x))` -> one transpose, `reshape(reshape(x))` -> one reshape,
  `neg(neg(x))` -> x;
- splat constants fold: elementwise ops on splat constants, and broadcast/reshape/transpose/cast
  of a splat, become one splat constant;
- `x * 1` -> x;
- a sort / top-k identical to an earlier one reuses its results (`sort(x)` and `argsort(x)`).

Unused pure ops are removed by the greedy driver as a side effect. `x + 0` is deliberately NOT
folded for floats (it turns -0.0 into +0.0).
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import Operation, SSAValue

from tilec.dialects import tile
from tilec.dialects.common import int_list, is_float
from tilec.fp8 import fp8_format, from_fp8_bits, to_fp8_bits
from tilec.passes.api import PatternPass, PatternRewriter, RewritePattern, op_type_rewrite_pattern, register_pass


def _replace_with_value(rewriter: PatternRewriter, op: Operation, value: SSAValue) -> None:
    rewriter.replace(op, [], [value])


def _splat(value: SSAValue) -> float | int | None:
    owner = value.owner
    if isinstance(owner, tile.ConstantOp):
        return owner.splat_value()
    return None


def _new_constant(op: Operation, value: float | int) -> tile.ConstantOp:
    rt = op.results[0].type
    assert isinstance(rt, tile.TileType)
    if not rt.is_static():
        raise ValueError("dynamic")
    c = tile.ConstantOp(value, rt)
    c.location = op.location
    return c


class IdentityConversion(RewritePattern):
    """cast/broadcast/reshape to the same type and identity transposes are no-ops."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, tile.CastOp | tile.BitcastOp) and op.source.type == op.result.type:
            _replace_with_value(rewriter, op, op.source)
        elif (
            isinstance(op, tile.BroadcastOp | tile.ReshapeOp)
            and op.source.type == op.result.type
            and op.result.type.is_static()  # `?` sizes come from `sizes(...)` and may differ from the source's
        ):
            _replace_with_value(rewriter, op, op.source)
        elif isinstance(op, tile.TransposeOp) and list(int_list(op.permutation)) == list(range(len(op.permutation))):
            _replace_with_value(rewriter, op, op.source)


class FoldTransposeChain(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tile.TransposeOp, rewriter: PatternRewriter) -> None:
        inner = op.source.owner
        if not isinstance(inner, tile.TransposeOp):
            return
        p_in, p_out = int_list(inner.permutation), int_list(op.permutation)
        composed = [p_in[p] for p in p_out]
        new = tile.TransposeOp(inner.source, composed, op.result.type)
        new.location = op.location
        rewriter.replace(op, new)


class FoldReshapeChain(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tile.ReshapeOp, rewriter: PatternRewriter) -> None:
        inner = op.source.owner
        if isinstance(inner, tile.ReshapeOp):
            new = tile.ReshapeOp(inner.source, op.result.type, op.sizes)
            new.location = op.location
            rewriter.replace(op, new)


class FoldDoubleNeg(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tile.NegOp, rewriter: PatternRewriter) -> None:
        inner = op.operand.owner
        if isinstance(inner, tile.NegOp):
            _replace_with_value(rewriter, op, inner.operand)


class FoldMulByOne(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tile.MulOp, rewriter: PatternRewriter) -> None:
        if _splat(op.rhs) == 1:
            _replace_with_value(rewriter, op, op.lhs)
        elif _splat(op.lhs) == 1:
            _replace_with_value(rewriter, op, op.rhs)


_UNARY = {
    tile.NegOp: lambda x: -x,
    tile.AbsOp: abs,
    tile.ExpOp: math.exp,
    tile.LogOp: math.log,
    tile.SqrtOp: math.sqrt,
    tile.RsqrtOp: lambda x: 1.0 / math.sqrt(x),
    tile.TanhOp: math.tanh,
    tile.ErfOp: math.erf,
}
_BINARY = {
    tile.AddOp: lambda a, b: a + b,
    tile.SubOp: lambda a, b: a - b,
    tile.MulOp: lambda a, b: a * b,
    tile.MaxOp: max,
    tile.MinOp: min,
}


def _round_to(value: float | int, elt) -> float | int:
    """Round a folded value the way the tile's element type would store it."""
    fmt = fp8_format(elt)
    if fmt is not None:  # through f32, as tile.cast (tilec/fp8.py)
        with np.errstate(over="ignore"):
            return float(from_fp8_bits(to_fp8_bits(np.float32(value), fmt), fmt))
    if is_float(elt):
        import ml_dtypes

        dtype = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "f32": np.float32, "f64": np.float64}[str(elt)]
        with np.errstate(over="ignore"):
            return float(np.asarray(value, dtype=np.float64).astype(dtype).astype(np.float64))
    return int(value)


class FoldSplatConstants(RewritePattern):
    """Ops whose inputs are all splat constants become a splat constant (static shapes only)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not op.results or not isinstance(op.results[0].type, tile.TileType):
            return
        rt = op.results[0].type
        if not rt.is_static():
            return
        value: float | int | None = None
        try:
            if isinstance(op, tuple(_UNARY)):
                x = _splat(op.operands[0])
                if x is not None and is_float(rt.element_type):
                    value = _UNARY[type(op)](x)
            elif isinstance(op, tuple(_BINARY)):
                a, b = _splat(op.lhs), _splat(op.rhs)
                if a is not None and b is not None and (is_float(rt.element_type)):
                    value = _BINARY[type(op)](a, b)
            elif isinstance(op, tile.BroadcastOp | tile.ReshapeOp | tile.TransposeOp):
                value = _splat(op.source)
            elif isinstance(op, tile.CastOp):
                x = _splat(op.source)
                if x is not None and is_float(rt.element_type):
                    value = float(x)
        except (ValueError, OverflowError, ZeroDivisionError):
            return
        if value is None:
            return
        value = _round_to(value, rt.element_type)
        if isinstance(value, float) and not math.isfinite(value):  # overflow in the tile's element type
            return
        rewriter.replace(op, _new_constant(op, value))


class MergeTwinOrders(RewritePattern):
    """A sort / top-k identical to an earlier one (same op, source and properties) reuses its
    results: `sort(x)` and `argsort(x)` are the two halves of one sort (one kernel)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tile.ORDER_OPS):
            return
        block = op.parent_block()
        for use in op.source.uses:
            twin = use.operation
            if (
                twin is not op
                and type(twin) is type(op)
                and twin.parent_block() is block
                and twin.properties == op.properties
                and block.get_operation_index(twin) < block.get_operation_index(op)
            ):
                rewriter.replace(op, [], list(twin.results))
                return


@register_pass
class TileCanonicalize(PatternPass):
    """Local simplifications of tile IR that never change results (identity ops, chains, splats)."""

    name = "tile-canonicalize"

    def patterns(self):
        return [
            IdentityConversion(),
            FoldTransposeChain(),
            FoldReshapeChain(),
            FoldDoubleNeg(),
            FoldMulByOne(),
            FoldSplatConstants(),
            MergeTwinOrders(),
        ]
