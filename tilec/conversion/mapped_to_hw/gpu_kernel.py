"""What the two GPU kernel lowerings (mapped-to-hw-nv, mapped-to-hw-amd) share.

Both rewrite a mapped.kernel in place inside a new hw kernel: values every thread computes once
(constants, thread/lane indices, buffer base addresses) go to the kernel's top; pure ops whose
operands are all available there are hoisted when they are created (loop-invariant code motion at
creation time, which upstream `licm` does not do on this IR); replaced ops are erased at the end.
A subclass creates `self.func` / `self.block` and implements `convert(op)`.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Block, Operation, SSAValue

from tilec.dialects import mapped
from tilec.conversion.edit import value_before


def in_epilogue_template(op: Operation) -> bool:
    """Ops of a frag_store epilogue are a template: frag_store lowering clones them per element."""
    p = op.parent_op()
    while p is not None:
        if isinstance(p, mapped.FragStoreOp):
            return True
        p = p.parent_op()
    return False


_COMBINE = {
    ("sum", True): arith.AddfOp, ("prod", True): arith.MulfOp, ("max", True): arith.MaximumfOp, ("min", True): arith.MinimumfOp,
    ("sum", False): arith.AddiOp, ("prod", False): arith.MuliOp, ("max", False): arith.MaxSIOp, ("min", False): arith.MinSIOp,
}


class GpuKernelLowering:
    """Base of the per-kernel lowering state; see the module docstring."""

    def __init__(self, old: mapped.KernelOp) -> None:
        self.old = old
        self.block: Block  # set by the subclass, with self.func
        self.dead: list[Operation] = []  # replaced ops, erased last (their results may still be looked up)
        self.scratch = False  # a shared/LDS scratch area for cross-warp reductions is needed
        self.top_ops: list[Operation] = []
        self._top_set: set[Operation] = set()
        self._consts: dict = {}
        self._top_cache: dict[str, SSAValue] = {}

    # --- to override ---------------------------------------------------------------------------

    def convert(self, op: Operation) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def insert_value(self, op: Operation, before: Operation) -> SSAValue:
        """Insert `op` before `before` and return its result (a subclass may choose the location)."""
        return value_before(op, before)

    # --- the kernel's top ----------------------------------------------------------------------

    def _top(self, op: Operation) -> SSAValue:
        op.location = self.old.location
        self.top_ops.append(op)
        self._top_set.add(op)
        return op.results[0]

    def const(self, value, t) -> SSAValue:
        key = (repr(value), str(t))
        if key not in self._consts:
            if isinstance(t, IndexType | IntegerType):
                attr = IntegerAttr(int(value), t)
            else:
                attr = FloatAttr(float(value), t)
            self._consts[key] = self._top(arith.ConstantOp(attr, t))
        return self._consts[key]

    def top_value(self, key: str, make) -> SSAValue:
        """A per-thread value computed once at the top of the kernel (tid, lane, ...)."""
        if key not in self._top_cache:
            ops = make()
            for o in ops:
                self._top(o)
            self._top_cache[key] = ops[-1].results[0]
        return self._top_cache[key]

    def top_defined(self, v: SSAValue) -> bool:
        """Available at the kernel's top level (so computable once, before any loop)."""
        owner = v.owner
        if isinstance(owner, Block):
            return owner is self.block
        return owner in self._top_set or owner.parent_block() is self.block

    def ins(self, op: Operation, before: Operation) -> SSAValue:
        """Insert a pure op before `before`, or at the kernel's top level when all its operands
        are available there (loop-invariant code motion at creation time)."""
        anchor = before
        if all(self.top_defined(o) for o in op.operands):
            while anchor.parent_block() is not self.block and anchor.parent_op() is not None:
                anchor = anchor.parent_op()
        return self.insert_value(op, anchor)

    # --- reductions ----------------------------------------------------------------------------

    def combine(self, kind: str, a: SSAValue, b: SSAValue, before: Operation) -> SSAValue:
        """a (kind) b for a reduction step: sum, prod, max or min, on floats or signed integers."""
        is_float = not isinstance(a.type, IntegerType | IndexType)
        return self.insert_value(_COMBINE[(kind, is_float)](a, b), before)

    # --- running -------------------------------------------------------------------------------

    def convert_all(self) -> None:
        """convert() every op of the body (epilogue templates are cloned later, not converted)."""
        for op in list(self.func.body.walk()):
            if op.parent_block() is not None and not in_epilogue_template(op):
                self.convert(op)

    def place_at_top(self, ops: list[Operation]) -> None:
        """Put `ops`, in order, before the first op of the kernel."""
        first = self.block.first_op
        for op in ops:
            if first is None:
                self.block.add_op(op)
            else:
                self.block.insert_op_before(op, first)

    def erase_dead(self) -> None:
        for op in reversed(self.dead):
            op.detach()
            op.erase()
