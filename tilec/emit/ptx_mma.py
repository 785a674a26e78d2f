"""PTX for the async-copy and tensor-core instructions (cp.async, ldmatrix, mma.sync)."""

from __future__ import annotations

from xdsl.ir import Operation

from tilec.dialects.hw import nv


def emit_mma_op(e, op: Operation) -> bool:
    """Print `op` with PtxEmitter `e` if it is one of this family; False otherwise."""
    r = e.reg
    if isinstance(op, nv.CpAsyncOp):
        extra = f", {r(op.src_bytes)}" if op.src_bytes is not None else ""
        e.line(f"cp.async.{op.cache.data}.shared.global [{r(op.dst)}], [{r(op.src)}], {op.size.data}{extra};")
        return True
    if isinstance(op, nv.CpAsyncCommitOp):
        e.line("cp.async.commit_group;")
        return True
    if isinstance(op, nv.CpAsyncWaitOp):
        e.line(f"cp.async.wait_group {op.n.data};")
        return True
    if isinstance(op, nv.LdmatrixOp):
        regs = ", ".join(r(v) for v in op.regs)
        trans = ".trans" if op.trans is not None else ""
        e.line(f"ldmatrix.sync.aligned.m8n8.x{op.num.data}{trans}.shared.b16 {{{regs}}}, [{r(op.addr)}];")
        return True
    if isinstance(op, nv.MmaSyncOp):
        d = ", ".join(r(v) for v in op.d)
        a = ", ".join(r(v) for v in op.a)
        b = ", ".join(r(v) for v in op.b)
        c = ", ".join(r(v) for v in op.c)
        name = f"mma.sync.aligned.{op.shape.data}.{op.layout_a.data}.{op.layout_b.data}.{op.dtype.data}.{op.atype.data}.{op.btype.data}.{op.ctype.data}"
        e.line(f"{name} {{{d}}}, {{{a}}}, {{{b}}}, {{{c}}};")
        return True
    return False
