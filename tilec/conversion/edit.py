"""Small IR edits shared by the lowering passes (mapped-to-hw-*): insert, replace, guard.

Each new op gets a location: the one given, else the location of the op it is placed before, so
diagnostics and PTX/HIP comments still point at the user's source.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import scf
from xdsl.ir import Block, Operation, Region, SSAValue


def insert_before(op: Operation, before: Operation, location=None) -> Operation:
    op.location = before.location if location is None else location
    before.parent_block().insert_op_before(op, before)
    return op


def value_before(op: Operation, before: Operation, location=None) -> SSAValue:
    """Insert `op` and return its (single) result."""
    return insert_before(op, before, location).results[0]


def rewire(old: Operation, new: Operation) -> None:
    """Let `old`'s users use `new`'s results (keeping the names) and erase `old`."""
    for a, b in zip(old.results, new.results):
        if a.name_hint:
            b.name_hint = a.name_hint
        a.replace_all_uses_with(b)
    old.detach()
    old.erase()


def replace_with(old: Operation, new: Sequence[Operation], location=None) -> None:
    """Put `new` before `old`, let `old`'s users use the last new op's results, erase `old`."""
    for o in new:
        insert_before(o, old, location)
    if old.results:
        rewire(old, new[-1])
    else:
        old.detach()
        old.erase()


def guarded(before: Operation, cond: SSAValue, ops: Sequence[Operation], location=None) -> scf.IfOp:
    """`scf.if cond { ops }` placed before `before`."""
    block = Block([*ops, scf.YieldOp()])
    return insert_before(scf.IfOp(cond, [], Region(block)), before, location)
