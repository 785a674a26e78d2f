"""What the attention groups' lowerings (attention_cpu.py, attention_nv_mma.py) share: the
pattern found again in a group's body, which outputs are row values, where an output is read.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import SSAValue

from tilec.conversion.builder import compute_type
from tilec.conversion.tile_to_mapped.group_info import tile_shape, yielded
from tilec.conversion.tile_to_mapped.loopnest import KernelGen
from tilec.diagnostics import TilecError, op_location
from tilec.dialects import tile
from tilec.transforms.attention_pattern import AttentionMatch, match_attention


def match_of_group(fused: tile.FusedOp) -> AttentionMatch:
    """The attention pattern of an `attention` group's body (an error at the group if none)."""
    contractions = [op for op in fused.body.block.ops if isinstance(op, tile.ContractOp)]
    m = match_attention(contractions[-1]) if contractions else None
    rows = tile_shape(m.output)[:-1] if m is not None else ()
    if m is None or not all(
        not is_row_value(v, m) or tile_shape(v) in (tuple(rows), (*rows, 1)) for v in yielded(fused)
    ):
        raise TilecError(
            "tile.fused attention: the body is not an attention pattern "
            "(softmax(f(q k^T)) v with an elementwise epilogue; see tilec/transforms/attention_pattern.py)",
            op_location(fused),
        )
    return m


def is_row_value(v: SSAValue, m: AttentionMatch) -> bool:
    """Whether `v` is a per-query value of the pattern (computed from the row maximum and sum)."""
    return m.output not in epilogue_roots(v)


_ELEMENTWISE = (tile.UnaryOp, tile.BinaryOp, tile.CastOp, tile.SelectOp, tile.CmpOp)


def epilogue_roots(value: SSAValue) -> set[SSAValue]:
    """The values `value` is computed from by elementwise ops and reshapes."""
    seen: set[SSAValue] = set()
    todo = [value]
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        op = v.owner
        if isinstance(op, (*_ELEMENTWISE, tile.ReshapeOp)):
            todo += list(op.operands)
    return seen


def index_of(g: KernelGen, v: SSAValue, idx: list[SSAValue], shape) -> list[SSAValue]:
    """The index of `v` (the value of that shape, or a unit-axis reshape of it) at `idx`: its
    non-unit axes take the indices of the non-unit axes of `shape`, in order; unit axes 0."""
    it = iter([i for i, d in zip(idx, shape) if d != 1])
    return [g.index(0) if d == 1 else next(it) for d in tile_shape(v)]


def to_float(g: KernelGen, x: SSAValue, t) -> SSAValue:
    """A float value converted to float type t."""
    if x.type == t:
        return x
    wider = t.bitwidth > x.type.bitwidth  # type: ignore[attr-defined]
    return g.ev(arith.ExtFOp(x, t) if wider else arith.TruncFOp(x, t))


def scores_value(g: KernelGen, c1: tile.ContractOp, dot: SSAValue) -> SSAValue:
    """The dot product as the scores contraction's result holds it: rounded to its element type
    (a 16-bit result keeps 16 bits, as a stored one would), in that type's compute type."""
    elt = c1.result.type.element_type
    ct = compute_type(elt)
    if ct != elt:
        return g.to_compute(g.to_storage(to_float(g, dot, ct), elt), elt)
    return to_float(g, dot, ct)


__all__ = ["epilogue_roots", "index_of", "is_row_value", "match_of_group", "scores_value", "to_float"]
