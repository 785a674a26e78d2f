"""The IR builder of the conversions: an insertion point, locations, cached constants, arith
shorthands and the small edits (insert before, replace, guard) the lowering passes make.

Lowerings build a lot of index arithmetic; `Emitter` keeps it readable:

    e = Emitter(block)
    n = e.muli(rows, e.index(64))
    with e.for_loop(e.index(0), n, e.index(1)) as (i, _):
        ...

Two ways to place an op, one builder:
- `add(op)` appends at the end of the emitter's block (before its terminator, if it has one); the
  op takes the emitter's `location` when it has one.
- `insert(op, before)` puts it before another op; the op takes `location_at(before)`: by default
  the location of `before`, so diagnostics and PTX/HIP comments still point at the user's source.

Constants are created once per emitter (`const`); `place_const` says where a new one goes: by
default at the top of `const_block` (the kernel entry), after the earlier constants, so loops do
not re-materialize them. `KernelBuilder` (the mapped -> hw GPU lowerings) instead collects them,
with other loop-invariant values, for the top of a new kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    NameLoc,
    StringAttr,
    f32,
    f64,
    i1,
    i8,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.traits import IsTerminator

from tilec.dialects.common import bitwidth, is_float, is_fp8, signless


def compute_type(storage: Attribute) -> Attribute:
    """The type a value is computed in: 8- and 16-bit floats compute in f32 (rounded when stored);
    unsigned integers (`ui8`) in the signless type of their width (arith's ops pick the signedness)."""
    if isinstance(storage, Float16Type | BFloat16Type) or is_fp8(storage):
        return f32
    return signless(storage)


def storage_type(t: Attribute) -> Attribute:
    """The element type of a buffer holding tile elements of type t: fp8 as its i8 code (the
    loop nest converts, tilec/conversion/fp8_arith.py), unsigned integers signless."""
    return i8 if is_fp8(t) else signless(t)


def constant_op(value: float | int | bool, t: Attribute) -> arith.ConstantOp:
    """`arith.constant value : t` (i1 true is -1, as xDSL's signless printer stores it)."""
    if is_float(t):
        attr = FloatAttr(float(value), t)
    elif isinstance(t, IndexType):
        attr = IntegerAttr(int(value), IndexType())
    else:
        assert isinstance(t, IntegerType)
        v = int(value)
        if t.width.data == 1:
            v = -1 if v else 0
        attr = IntegerAttr(v, t)
    return arith.ConstantOp(attr, t)


class Emitter:
    """Builds IR at the end of `block` or before a given op; see the module docstring."""

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

    def location_at(self, before: Operation):
        """The location of an op inserted before `before` (a subclass may choose another)."""
        return before.location

    def insert(self, op: Operation, before: Operation, location=None) -> Operation:
        """Put `op` before `before`, located at `location`, else at `location_at(before)`."""
        op.location = self.location_at(before) if location is None else location
        before.parent_block().insert_op_before(op, before)
        return op

    def value(self, op: Operation, before: Operation, location=None) -> SSAValue:
        """`insert` an op and return its (single) result."""
        return self.insert(op, before, location).results[0]

    # --- edits --------------------------------------------------------------------------------

    @staticmethod
    def erase(op: Operation) -> None:
        op.detach()
        op.erase()

    @staticmethod
    def rewire(old: Operation, new: Operation) -> None:
        """Let `old`'s users use `new`'s results (keeping the names) and erase `old`."""
        for a, b in zip(old.results, new.results):
            if a.name_hint:
                b.name_hint = a.name_hint
            a.replace_all_uses_with(b)
        Emitter.erase(old)

    def replace(self, old: Operation, new: Sequence[Operation], location=None) -> None:
        """Put `new` before `old`, let `old`'s users use the last new op's results, erase `old`."""
        for o in new:
            self.insert(o, old, location)
        if old.results:
            self.rewire(old, new[-1])
        else:
            self.erase(old)

    def guarded(self, before: Operation, cond: SSAValue, ops: Sequence[Operation] = ()) -> Operation:
        """`scf.if cond { ops }` placed before `before` (the ops keep their own locations);
        returns the then-block's yield, before which more guarded ops can go."""
        block = Block([*ops, scf.YieldOp()])
        self.insert(scf.IfOp(cond, [], Region(block)), before)
        return block.last_op

    # --- constants ----------------------------------------------------------------------------

    def const(self, value: float | int | bool, t: Attribute) -> SSAValue:
        key = (repr(value), str(t))
        if key in self._consts:
            return self._consts[key]
        op = constant_op(value, t)
        if self.location is not None:
            op.location = self.location
        self.place_const(op)
        self._consts[key] = op.result
        return op.result

    def place_const(self, op: arith.ConstantOp) -> None:
        """Constants go at the top of the constant block, after the earlier constants."""
        anchor = self.const_block.first_op
        while anchor is not None and isinstance(anchor, arith.ConstantOp):
            anchor = anchor.next_op
        if anchor is None:
            self.const_block.add_op(op)
        else:
            self.const_block.insert_op_before(op, anchor)

    def index(self, value: int) -> SSAValue:
        return self.const(value, IndexType())

    # --- index arithmetic (folds constants) ------------------------------------------------------

    @staticmethod
    def const_value(v: SSAValue) -> int | None:
        op = v.owner
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            return op.value.value.data
        return None

    def _fold(self, a: SSAValue, b: SSAValue, fold: Callable[[int, int], int]) -> SSAValue | None:
        """The folded index constant `fold(a, b)`, or None."""
        ca, cb = self.const_value(a), self.const_value(b)
        if ca is not None and cb is not None and isinstance(a.type, IndexType):
            return self.index(fold(ca, cb))
        return None

    def addi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        folded = self._fold(a, b, lambda x, y: x + y)
        if folded is not None:
            return folded
        if self.const_value(a) == 0:
            return b
        if self.const_value(b) == 0:
            return a
        return self.v(arith.AddiOp(a, b))

    def subi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        folded = self._fold(a, b, lambda x, y: x - y)
        if folded is not None:
            return folded
        if self.const_value(b) == 0:
            return a
        return self.v(arith.SubiOp(a, b))

    def muli(self, a: SSAValue, b: SSAValue) -> SSAValue:
        folded = self._fold(a, b, lambda x, y: x * y)
        if folded is not None:
            return folded
        ca, cb = self.const_value(a), self.const_value(b)
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


class KernelBuilder(Emitter):
    """The builder of a lowering that rewrites a function body in place inside a new function.

    Values every thread computes once (constants, thread/lane indices, buffer base addresses) are
    collected in `top_ops` for the function's top (`top`, `top_value`, and every constant); `ins`
    hoists a pure op there when all its operands are available there (loop-invariant code motion
    at creation time). With `origin_locations`, ops inserted while a mapped or math op is being
    lowered (`lowering(op)`) are located at a `NameLoc` naming that op: the PTX printer turns
    those into comments.
    """

    def __init__(self, block: Block, location, origin_locations: bool = False):
        super().__init__(block, location=location)
        self.origin_locations = origin_locations
        self.origins: list[Operation] = []  # the ops being lowered, innermost last
        self.top_ops: list[Operation] = []
        self._top_set: set[Operation] = set()
        self._top_cache: dict[str, SSAValue] = {}

    # --- locations -------------------------------------------------------------------------------

    @contextmanager
    def lowering(self, op: Operation) -> Iterator[None]:
        """While `op` is lowered, new ops come from it (when it is a mapped or math op)."""
        named = op.name.startswith("mapped.") or op.name.startswith("math.")
        if named:
            self.origins.append(op)
        try:
            yield
        finally:
            if named:
                self.origins.pop()

    def location_at(self, before: Operation):
        """`loc("mapped.load"(file:line:col))` naming the op being lowered, else `before`'s."""
        if self.origin_locations and self.origins:
            src = self.origins[-1]
            inner = src.location
            if isinstance(inner, NameLoc):
                return inner
            return NameLoc(StringAttr(src.name), inner)
        return before.location

    # --- the function's top ----------------------------------------------------------------------

    def top(self, op: Operation) -> SSAValue:
        """Queue `op` for the function's top (located at the function) and return its result."""
        op.location = self.location
        self.top_ops.append(op)
        self._top_set.add(op)
        return op.results[0]

    def place_const(self, op: arith.ConstantOp) -> None:
        self.top(op)

    def top_value(self, key: str, make: Callable[[], list[Operation]]) -> SSAValue:
        """A per-thread value computed once at the top (tid, lane, ...): the last of `make()`'s ops."""
        if key not in self._top_cache:
            ops = make()
            for o in ops:
                self.top(o)
            self._top_cache[key] = ops[-1].results[0]
        return self._top_cache[key]

    def top_defined(self, v: SSAValue) -> bool:
        """Available at the function's top level (so computable once, before any loop)."""
        owner = v.owner
        if isinstance(owner, Block):
            return owner is self.block
        return owner in self._top_set or owner.parent_block() is self.block

    def ins(self, op: Operation, before: Operation) -> SSAValue:
        """Insert a pure op before `before`, or at the top level when all its operands are
        available there (loop-invariant code motion at creation time); return its result."""
        anchor = before
        if all(self.top_defined(o) for o in op.operands):
            while anchor.parent_block() is not self.block and anchor.parent_op() is not None:
                anchor = anchor.parent_op()
        return self.value(op, anchor)

    def put(self, op: Operation, before: Operation):
        """Insert `op` before `before`, hoisting it (`ins`) if it is arith; its result, or the op
        itself when it has no or several results."""
        if op.name.startswith("arith.") and op.results:
            return self.ins(op, before)
        self.insert(op, before)
        return op.results[0] if len(op.results) == 1 else op

    def place_at_top(self, ops: Sequence[Operation]) -> None:
        """Put `ops`, in order, before the first op of the function's block."""
        first = self.block.first_op
        for op in ops:
            if first is None:
                self.block.add_op(op)
            else:
                self.block.insert_op_before(op, first)


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


__all__ = [
    "Emitter",
    "KernelBuilder",
    "compute_type",
    "constant_op",
    "float_type",
    "is_16bit_float",
    "neutral",
    "storage_type",
]
