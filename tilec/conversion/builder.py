"""A small IR builder for lowerings: an insertion point, cached constants and arith shorthands.

Lowerings build a lot of index arithmetic; `Emitter` keeps it readable:

    e = Emitter(block)
    n = e.muli(rows, e.index(64))
    with e.for_loop(e.index(0), n, e.index(1)) as (i, _):
        ...

Constants are created once per block that owns the emitter's `const_block` (the kernel entry)
so loops do not re-materialize them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    f32,
    f64,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.traits import IsTerminator

from tilec.dialects.common import bitwidth, is_float


def compute_type(storage: Attribute) -> Attribute:
    """The type a value is computed in: 16-bit floats compute in f32 (rounded when stored)."""
    if isinstance(storage, Float16Type | BFloat16Type):
        return f32
    return storage


class Emitter:
    """Appends ops at the end of `block` (before its terminator, if it has one)."""

    def __init__(self, block: Block, const_block: Block | None = None, location=None):
        self.block = block
        self.const_block = const_block or block
        self._consts: dict[tuple, SSAValue] = {}
        self.location = location

    # --- placement ----------------------------------------------------------------------------

    def add(self, op: Operation) -> Operation:
        if self.location is not None:
            op.location = self.location
        last = self.block.last_op
        if last is not None and last.has_trait(IsTerminator):
            self.block.insert_op_before(op, last)
        else:
            self.block.add_op(op)
        return op

    def v(self, op: Operation) -> SSAValue:
        return self.add(op).results[0]

    @contextmanager
    def at(self, block: Block) -> Iterator[None]:
        saved = self.block
        self.block = block
        try:
            yield
        finally:
            self.block = saved

    # --- constants ----------------------------------------------------------------------------

    def const(self, value: float | int | bool, t: Attribute) -> SSAValue:
        key = (repr(value), str(t))
        if key in self._consts:
            return self._consts[key]
        if is_float(t):
            attr = FloatAttr(float(value), t)
        elif isinstance(t, IndexType):
            attr = IntegerAttr(int(value), IndexType())
        else:
            assert isinstance(t, IntegerType)
            v = int(value)
            if t.width.data == 1:
                v = -1 if v else 0  # i1 true is stored as -1 by xDSL's signless printer
            attr = IntegerAttr(v, t)
        op = arith.ConstantOp(attr, t)
        if self.location is not None:
            op.location = self.location
        # constants go at the top of the constant block, after the earlier constants
        anchor = self.const_block.first_op
        while anchor is not None and isinstance(anchor, arith.ConstantOp):
            anchor = anchor.next_op
        if anchor is None:
            self.const_block.add_op(op)
        else:
            self.const_block.insert_op_before(op, anchor)
        self._consts[key] = op.result
        return op.result

    def index(self, value: int) -> SSAValue:
        return self.const(value, IndexType())

    # --- index arithmetic (folds constants) ------------------------------------------------------

    @staticmethod
    def const_value(v: SSAValue) -> int | None:
        op = v.owner
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            return op.value.value.data
        return None

    def addi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        ca, cb = self.const_value(a), self.const_value(b)
        if ca is not None and cb is not None and isinstance(a.type, IndexType):
            return self.index(ca + cb)
        if ca == 0:
            return b
        if cb == 0:
            return a
        return self.v(arith.AddiOp(a, b))

    def subi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        ca, cb = self.const_value(a), self.const_value(b)
        if ca is not None and cb is not None and isinstance(a.type, IndexType):
            return self.index(ca - cb)
        if cb == 0:
            return a
        return self.v(arith.SubiOp(a, b))

    def muli(self, a: SSAValue, b: SSAValue) -> SSAValue:
        ca, cb = self.const_value(a), self.const_value(b)
        if ca is not None and cb is not None and isinstance(a.type, IndexType):
            return self.index(ca * cb)
        if ca == 1:
            return b
        if cb == 1:
            return a
        if ca == 0 or cb == 0:
            return self.index(0) if isinstance(a.type, IndexType) else self.const(0, a.type)
        return self.v(arith.MuliOp(a, b))

    def divui(self, a: SSAValue, b: SSAValue) -> SSAValue:
        ca, cb = self.const_value(a), self.const_value(b)
        if ca is not None and cb is not None and cb != 0:
            return self.index(ca // cb)
        if cb == 1:
            return a
        return self.v(arith.DivUIOp(a, b))

    def remui(self, a: SSAValue, b: SSAValue) -> SSAValue:
        ca, cb = self.const_value(a), self.const_value(b)
        if ca is not None and cb is not None and cb != 0:
            return self.index(ca % cb)
        if cb == 1:
            return self.index(0)
        return self.v(arith.RemUIOp(a, b))

    def minui(self, a: SSAValue, b: SSAValue) -> SSAValue:
        ca, cb = self.const_value(a), self.const_value(b)
        if ca is not None and cb is not None:
            return self.index(min(ca, cb))
        return self.v(arith.MinUIOp(a, b))

    def ceildiv(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.divui(self.addi(a, self.subi(b, self.index(1))), b)

    def product(self, values: Sequence[SSAValue]) -> SSAValue:
        out = self.index(1)
        for v in values:
            out = self.muli(out, v)
        return out

    def delinearize(self, linear: SSAValue, sizes: Sequence[SSAValue]) -> list[SSAValue]:
        """Row-major multi-index of `linear` in a space of `sizes`."""
        out: list[SSAValue] = []
        rest = linear
        for k in range(len(sizes) - 1, -1, -1):
            if k == 0:
                out.append(rest)
            else:
                out.append(self.remui(rest, sizes[k]))
                rest = self.divui(rest, sizes[k])
        return list(reversed(out))

    def linearize(self, idx: Sequence[SSAValue], sizes: Sequence[SSAValue]) -> SSAValue:
        out = self.index(0)
        for i, s in zip(idx, sizes):
            out = self.addi(self.muli(out, s), i)
        return out

    # --- loops ----------------------------------------------------------------------------------

    @contextmanager
    def for_loop(
        self, lb: SSAValue, ub: SSAValue, step: SSAValue, iter_args: Sequence[SSAValue] = (), attrs: dict | None = None
    ) -> Iterator[tuple[SSAValue, list[SSAValue], scf.ForOp]]:
        """Build `scf.for`; inside the `with`, ops go into the body. Yield the new iter values by
        assigning `loop_results` via `yield_values`; without iter_args an empty yield is added."""
        body = Block(arg_types=[IndexType(), *[v.type for v in iter_args]])
        loop = scf.ForOp(lb, ub, step, list(iter_args), Region(body))
        if attrs:
            loop.attributes.update(attrs)
        self.add(loop)
        with self.at(body):
            yield body.args[0], list(body.args[1:]), loop
            if not isinstance(body.last_op, scf.YieldOp):
                assert not iter_args, "a loop with iter_args must end with an explicit yield"
                body.add_op(scf.YieldOp())

    def yield_(self, *values: SSAValue) -> None:
        self.block.add_op(scf.YieldOp(*values))


def float_type(width: int) -> Attribute:
    return {32: f32, 64: f64}[width]


def is_16bit_float(t: Attribute) -> bool:
    return isinstance(t, Float16Type | BFloat16Type)


def neutral(kind: str, t: Attribute) -> float | int:
    """The identity element of a reduction kind in type t."""
    if kind == "sum":
        return 0
    if kind == "prod":
        return 1
    if is_float(t):
        return float("-inf") if kind == "max" else float("inf")
    w = bitwidth(t)
    if t == i1:
        return 0 if kind == "max" else 1
    return -(2 ** (w - 1)) if kind == "max" else 2 ** (w - 1) - 1


__all__ = ["Emitter", "compute_type", "neutral", "is_16bit_float", "float_type"]
