"""PTX for the async-copy and tensor-core instructions: cp.async, ldmatrix, mma.sync, and Hopper's
wgmma, TMA (cp.async.bulk.tensor), mbarrier and setmaxnreg."""

from __future__ import annotations

from xdsl.dialects.builtin import i1
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
    return emit_hopper_op(e, op)


def emit_hopper_op(e, op: Operation) -> bool:
    """The sm_90 / sm_90a instructions (see notes in hw.nv's Hopper section)."""
    r = e.reg
    if isinstance(op, nv.WgmmaMmaAsyncOp):
        for res, acc in zip(op.d, op.acc):  # D and C are one register list in PTX
            e.alias(res, acc)
        d = ", ".join(r(v) for v in op.acc)
        name = f"wgmma.mma_async.sync.aligned.{op.shape.data}.{op.dtype.data}.{op.atype.data}.{op.btype.data}"
        imms = f"{op.scale_d.data}, {op.scale_a.data}, {op.scale_b.data}"
        if op.atype.data != "tf32":
            imms += f", {op.trans_a.data}, {op.trans_b.data}"
        e.line(f"{name} {{{d}}}, {r(op.a_desc)}, {r(op.b_desc)}, {imms};")
        return True
    simple = {
        nv.WgmmaFenceOp: "wgmma.fence.sync.aligned;",
        nv.WgmmaCommitGroupOp: "wgmma.commit_group.sync.aligned;",
        nv.FenceProxyAsyncOp: "fence.proxy.async.shared::cta;",
        nv.FenceMbarrierInitOp: "fence.mbarrier_init.release.cluster;",
        nv.ExitOp: "exit;",
    }
    if type(op) in simple:
        e.line(simple[type(op)])
        return True
    if isinstance(op, nv.WgmmaWaitGroupOp):
        e.line(f"wgmma.wait_group.sync.aligned {op.n.data};")
        return True
    if isinstance(op, nv.TmaLoad2dOp):
        x, y = (r(c) for c in op.coords)
        e.line(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
            f"[{r(op.dst)}], [{r(op.tensor_map)}, {{{x}, {y}}}], [{r(op.mbar)}];"
        )
        return True
    if isinstance(op, nv.MbarrierInitOp):
        e.line(f"mbarrier.init.shared::cta.b64 [{r(op.bar)}], {op.count.data};")
        return True
    if isinstance(op, nv.MbarrierArriveExpectTxOp):
        e.line(f"mbarrier.arrive.expect_tx.shared::cta.b64 {r(op.state)}, [{r(op.bar)}], {op.tx_bytes.data};")
        return True
    if isinstance(op, nv.CpAsyncMbarrierArriveOp):
        e.line(f"cp.async.mbarrier.arrive.noinc.shared::cta.b64 [{r(op.bar)}];")
        return True
    if isinstance(op, nv.MbarrierArriveOp):
        e.line(f"mbarrier.arrive.shared::cta.b64 _, [{r(op.bar)}];")
        return True
    if isinstance(op, nv.MbarrierTryWaitOp):
        e.line(f"mbarrier.try_wait.parity.shared::cta.b64 {r(op.done)}, [{r(op.bar)}], {r(op.phase)};")
        return True
    if isinstance(op, nv.MbarrierWaitOp):
        head = e.label("mbar_wait")
        p = e.fresh(i1)
        e.body.append(f"{head}:")
        e.line(f"mbarrier.try_wait.parity.shared::cta.b64 {p}, [{r(op.bar)}], {r(op.phase)};")
        e.line(f"@!{p} bra {head};")
        return True
    if isinstance(op, nv.SetmaxnregOp):
        e.line(f"setmaxnreg.{op.kind.data}.sync.aligned.u32 {op.regs.data};")
        return True
    return False
