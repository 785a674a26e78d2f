"""Static integer ranges of tile values: what a gather's index check can prove unnecessary.

`int_range(v)` is the interval [lo, hi] every element of the integer tile `v` lies in, or None
when it cannot tell: splat constants, `iota` (its axis' static size), +, -, x, floor division and
modulo by a positive constant, `select` (both sides), the moves that keep values (broadcast,
reshape, transpose, slice), and min / max, which bound their result even where an operand is
unknown (a clamp `max(min(i, n - 1), 0)` is [0, n - 1] whatever i is). An interval that leaves the
element type's range (where the kernel's arithmetic would wrap) is unknown. A `tile.take` whose indices provably lie inside the source axis needs no range check, and
so no status word: a compiled call then never reads the status back from the device (on CUDA that
read is a synchronization per call).
"""

from __future__ import annotations

import math

from xdsl.ir import SSAValue

from tilec.dialects import tile
from tilec.dialects.common import DYNAMIC, bitwidth, is_int, is_unsigned

_MOVES = (tile.BroadcastOp, tile.ReshapeOp, tile.TransposeOp, tile.SliceOp)
_UNKNOWN = (-math.inf, math.inf)


def _type_range(elt) -> tuple[int, int]:
    w = bitwidth(elt)
    return (0, 2**w - 1) if is_unsigned(elt) else (-(2 ** (w - 1)), 2 ** (w - 1) - 1)


def int_range(value: SSAValue) -> tuple[int, int] | None:
    """[lo, hi] bounding every element of the integer tile `value`, or None (see the module docstring)."""
    lo, hi = _bounds(value, 0)
    return None if math.isinf(lo) or math.isinf(hi) else (int(lo), int(hi))


def _bounds(value: SSAValue, depth: int) -> tuple[float, float]:
    """[lo, hi] with infinite ends where unknown. An interval that leaves the element type's range
    is unknown (the kernel's arithmetic wraps there); min / max clamp whatever their input was."""
    t = value.type
    if not isinstance(t, tile.TileType) or not is_int(t.element_type) or depth > 32:
        return _UNKNOWN
    op, d = value.owner, depth + 1
    r = _UNKNOWN
    if isinstance(op, tile.ConstantOp):
        v = op.splat_value()
        r = (int(v), int(v)) if v is not None else _UNKNOWN
    elif isinstance(op, tile.IotaOp):
        n = t.get_shape()[op.axis.data]
        r = (0, max(n - 1, 0)) if n != DYNAMIC else _UNKNOWN
    elif isinstance(op, _MOVES):
        r = _bounds(op.operands[0], d)
    elif isinstance(op, tile.SelectOp):
        a, b = _bounds(op.true_value, d), _bounds(op.false_value, d)
        r = (min(a[0], b[0]), max(a[1], b[1]))
    elif isinstance(op, tile.MinOp | tile.MaxOp):
        a, b = _bounds(op.lhs, d), _bounds(op.rhs, d)
        pick = min if isinstance(op, tile.MinOp) else max
        return (pick(a[0], b[0]), pick(a[1], b[1]))  # (in range whenever both operands are)
    elif isinstance(op, tile.AddOp | tile.SubOp | tile.MulOp | tile.FloorDivOp | tile.ModOp):
        a, b = _bounds(op.lhs, d), _bounds(op.rhs, d)
        if isinstance(op, tile.AddOp):
            r = (a[0] + b[0], a[1] + b[1])
        elif isinstance(op, tile.SubOp):
            r = (a[0] - b[1], a[1] - b[0])
        elif isinstance(op, tile.MulOp):
            if not any(math.isinf(v) for v in (*a, *b)):
                products = [x * y for x in a for y in b]
                r = (min(products), max(products))
        elif b[0] == b[1] and b[0] > 0 and not is_unsigned(t.element_type):  # by a positive constant
            c = b[0]
            r = (0, c - 1) if isinstance(op, tile.ModOp) else (math.floor(a[0] / c), math.floor(a[1] / c))
    lo, hi = _type_range(t.element_type)
    return r if lo <= r[0] and r[1] <= hi else _UNKNOWN


__all__ = ["int_range"]
