"""mapped-expand-pipeline: `mapped.pipeline` -> prologue + steady-state loop with async copies.

With S stages the prologue issues the copies of steps 0..S-2 (each guarded by `k < ub`, each
followed by a commit, so every thread always has the same number of groups). Step i then waits
until at most S-2 groups are pending (its own data has landed), synchronizes the block (the
copies of other threads, and everyone done with the slot about to be refilled), computes on slot
i mod S, and issues step i+S-1 into slot (i+S-1) mod S. A final wait drains empty groups.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue

from tilec.dialects import mapped
from tilec.passes.api import TilecPass, register_pass


def _clone_body(block: Block, args: list[SSAValue], before: Operation) -> list[SSAValue]:
    """Clone `block`'s ops (minus its mapped.yield) before `before`; returns the yielded values."""
    mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, args))
    yielded: list[SSAValue] = []
    for op in block.ops:
        if isinstance(op, mapped.YieldOp):
            yielded = [mapping.get(v, v) for v in op.values]
            continue
        new = op.clone(value_mapper=mapping)
        before.parent_block().insert_op_before(new, before)
    return yielded


def _guarded(cond: SSAValue, block: Block, args: list[SSAValue], before: Operation) -> None:
    body = Block([scf.YieldOp()])
    iff = scf.IfOp(cond, [], Region(body))
    before.parent_block().insert_op_before(iff, before)
    _clone_body(block, args, body.last_op)


def _ins(op: Operation, before: Operation) -> SSAValue:
    before.parent_block().insert_op_before(op, before)
    return op.results[0] if op.results else None  # type: ignore[return-value]


def expand(pipe: mapped.PipelineOp) -> None:
    S = pipe.stages.data
    block = pipe.parent_block()
    lb, ub, step = pipe.lower_bound, pipe.upper_bound, pipe.step
    produce, consume = pipe.produce.block, pipe.consume.block
    here = pipe
    for s in range(S - 1):
        off = _ins(arith.ConstantOp.from_int_and_width(s, IndexType()), here)
        k = _ins(arith.AddiOp(lb, _ins(arith.MuliOp(off, step), here)), here)
        cond = _ins(arith.CmpiOp(k, ub, "slt"), here)
        _guarded(cond, produce, [k, off], here)
        _ins(mapped.AsyncCommitOp(), here)
    body = Block(arg_types=[IndexType(), *[v.type for v in pipe.inits]])
    loop = scf.ForOp(lb, ub, step, list(pipe.inits), Region(body))
    here.parent_block().insert_op_before(loop, here)
    yield_op = scf.YieldOp()
    body.add_op(yield_op)
    k = body.args[0]
    stages = _ins(arith.ConstantOp.from_int_and_width(S, IndexType()), yield_op)
    i = _ins(arith.DivUIOp(_ins(arith.SubiOp(k, lb), yield_op), step), yield_op)
    slot = _ins(arith.RemUIOp(i, stages), yield_op)
    _ins(mapped.AsyncWaitOp(S - 2), yield_op)
    _ins(mapped.BarrierOp(), yield_op)
    accs = _clone_body(consume, [k, slot, *body.args[1:]], yield_op)
    ahead = _ins(arith.ConstantOp.from_int_and_width(S - 1, IndexType()), yield_op)
    kn = _ins(arith.AddiOp(k, _ins(arith.MuliOp(ahead, step), yield_op)), yield_op)
    slot_n = _ins(arith.RemUIOp(_ins(arith.AddiOp(i, ahead), yield_op), stages), yield_op)
    cond = _ins(arith.CmpiOp(kn, ub, "slt"), yield_op)
    _guarded(cond, produce, [kn, slot_n], yield_op)
    _ins(mapped.AsyncCommitOp(), yield_op)
    yield_op.detach()
    yield_op.erase()
    body.add_op(scf.YieldOp(*accs))
    _ins(mapped.AsyncWaitOp(0), here)
    for old, new in zip(pipe.results, loop.results):
        old.replace_all_uses_with(new)
    _locate(loop, pipe.location)
    for op in list(block.ops):
        if op.location == _UNKNOWN:
            op.location = pipe.location
    pipe.detach()
    pipe.erase()


from xdsl.dialects.builtin import UnknownLoc  # noqa: E402

_UNKNOWN = UnknownLoc()


def _locate(op: Operation, loc) -> None:
    """Ops the expansion made carry the pipeline's location (what diagnostics and comments show)."""
    for o in op.walk():
        if isinstance(o.location, UnknownLoc):
            o.location = loc


@register_pass
class MappedExpandPipeline(TilecPass):
    """Expand mapped.pipeline loops into prologue + steady state with async copies and waits."""

    name = "mapped-expand-pipeline"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for p in [o for o in op.walk() if isinstance(o, mapped.PipelineOp)]:
            expand(p)
