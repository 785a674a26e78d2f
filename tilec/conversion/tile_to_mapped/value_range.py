"""Static integer ranges of tile values: what a gather's index check can prove unnecessary.

`int_range(v)` is the interval [lo, hi] every element of the integer tile `v` lies in, or None
when it cannot tell: splat constants, `iota` (its axis' static size), +, -, x, min and max of such
values, `select` (both sides), and the moves that keep values (broadcast, reshape, transpose,
slice). An interval that leaves the element type's range (where the kernel's arithmetic would wrap)
is None. A `tile.take` whose indices provably lie inside the source axis needs no range check, and
so no status word: a compiled call then never reads the status back from the device (on CUDA that
read is a synchronization per call).
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from tilec.dialects import tile
from tilec.dialects.common import DYNAMIC, bitwidth, is_int, is_unsigned

_MOVES = (tile.BroadcastOp, tile.ReshapeOp, tile.TransposeOp, tile.SliceOp)


def _fits(r: tuple[int, int], elt) -> tuple[int, int] | None:
    w = bitwidth(elt)
    lo, hi = (0, 2**w - 1) if is_unsigned(elt) else (-(2 ** (w - 1)), 2 ** (w - 1) - 1)
    return r if lo <= r[0] and r[1] <= hi else None


def int_range(value: SSAValue, depth: int = 0) -> tuple[int, int] | None:
    """[lo, hi] bounding every element of the integer tile `value`, or None (see the module docstring)."""
    t = value.type
    if not isinstance(t, tile.TileType) or not is_int(t.element_type) or depth > 32:
        return None
    op = value.owner
    r = None
    if isinstance(op, tile.ConstantOp):
        v = op.splat_value()
        r = (int(v), int(v)) if v is not None else None
    elif isinstance(op, tile.IotaOp):
        n = t.get_shape()[op.axis.data]
        r = (0, max(n - 1, 0)) if n != DYNAMIC else None
    elif isinstance(op, _MOVES):
        r = int_range(op.operands[0], depth + 1)
    elif isinstance(op, tile.SelectOp):
        a, b = int_range(op.true_value, depth + 1), int_range(op.false_value, depth + 1)
        r = (min(a[0], b[0]), max(a[1], b[1])) if a and b else None
    elif isinstance(op, tile.AddOp | tile.SubOp | tile.MulOp | tile.MinOp | tile.MaxOp):
        a, b = int_range(op.lhs, depth + 1), int_range(op.rhs, depth + 1)
        if a is None or b is None:
            return None
        if isinstance(op, tile.AddOp):
            r = (a[0] + b[0], a[1] + b[1])
        elif isinstance(op, tile.SubOp):
            r = (a[0] - b[1], a[1] - b[0])
        elif isinstance(op, tile.MulOp):
            products = [x * y for x in a for y in b]
            r = (min(products), max(products))
        elif isinstance(op, tile.MinOp):
            r = (min(a[0], b[0]), min(a[1], b[1]))
        else:
            r = (max(a[0], b[0]), max(a[1], b[1]))
    return _fits(r, t.element_type) if r is not None else None


__all__ = ["int_range"]
