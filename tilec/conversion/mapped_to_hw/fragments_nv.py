"""Lowering of fragments, MMA and async copies to hw.nv (used by mapped-to-hw-nv).

Fragments become per-lane register lists in the m16n8k16 layouts of
notes/ptx-tensor-cores.md: an `a` fragment is (M/16) x (K/16) tiles of 4 b32 registers, `b` is
(K/16) x (N/8) tiles of 2, `acc` is (M/16) x (N/8) tiles of 4 f32, tile-major.
- frag_load: ldmatrix.x4 per 16x16 block (a: rows are M; b stored K x N: `.trans`, giving two
  n8 tiles; b stored N x K: plain, two n8 tiles), addresses through the buffer's swizzle;
- mma: one mma.sync per (m16, n8, k16) tile triple;
- frag_store: lane (g = lane/4, t = lane%4) holds rows g, g+8 and columns 2t, 2t+1 of each tile;
  each element runs the epilogue region and is stored if inside the destination;
- async_copy: the window is cut in 16-byte chunks dealt round-robin to the block's threads,
  each a cp.async with src-size 0 (zero fill) outside the source;
- scf.for / scf.yield carrying fragments are rewritten to carry their registers.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, f32, i32
from xdsl.ir import Block, Operation, Region, SSAValue

from tilec.dialects import mapped
from tilec.dialects.common import bitwidth
from tilec.dialects.hw import nv
from tilec.passes.api import PassFailure


_KERNEL = None  # the _Kernel being lowered (set by lower_fragment_op) for hoisting inserts


def _ins(op: Operation, before: Operation):
    from tilec.conversion.mapped_to_hw.mapped_to_hw_nv import origin_location

    op.location = origin_location(before)
    if _KERNEL is not None and op.name.startswith("arith.") and op.results:
        return _KERNEL.ins(op, before)
    before.parent_block().insert_op_before(op, before)
    return op.results[0] if len(op.results) == 1 else op


def lower_fragment_op(k, op: Operation) -> bool:
    """Lower `op` inside `k` (a mapped-to-hw-nv `_Kernel`); False if it is not handled here."""
    global _KERNEL
    _KERNEL = k
    try:
        return _lower(k, op)
    finally:
        _KERNEL = None


def _lower(k, op: Operation) -> bool:
    if isinstance(op, mapped.AsyncCopyOp):
        _async_copy(k, op)
    elif isinstance(op, mapped.AsyncCommitOp):
        _ins(nv.CpAsyncCommitOp(), op)
        k.dead.append(op)
    elif isinstance(op, mapped.AsyncWaitOp):
        _ins(nv.CpAsyncWaitOp(op.pending.data), op)
        k.dead.append(op)
    elif isinstance(op, mapped.FragFillOp):
        t = op.result.type
        k.lanes[op.result] = [k.const(op.value.value.data, f32)] * t.regs_per_lane()
        k.dead.append(op)
    elif isinstance(op, mapped.FragLoadOp):
        _frag_load(k, op)
    elif isinstance(op, mapped.MmaOp):
        _mma(k, op)
    elif isinstance(op, mapped.FragStoreOp):
        _frag_store(k, op)
    else:
        return False
    return True


def expand_for(k, op: scf.ForOp) -> bool:
    """Rewrite an scf.for whose iter_args include fragments to carry their registers instead."""
    if not any(isinstance(v.type, mapped.FragType) for v in op.iter_args):
        return False
    inits: list[SSAValue] = []
    spans = []
    for v in op.iter_args:
        regs = k.lanes_of(v, op) if isinstance(v.type, mapped.FragType) else [v]
        spans.append((len(inits), len(regs)))
        inits += regs
    old_body = op.body.block
    body = Block(arg_types=[IndexType(), *[v.type for v in inits]])
    new = scf.ForOp(op.lb, op.ub, op.step, inits, Region(body))
    _ins(new, op)
    old_body.args[0].replace_all_uses_with(body.args[0])
    for (start, n), old_arg, old_res in zip(spans, old_body.args[1:], op.results):
        if isinstance(old_arg.type, mapped.FragType):
            k.lanes[old_arg] = list(body.args[1 + start : 1 + start + n])
            k.lanes[old_res] = list(new.results[start : start + n])
        else:
            old_arg.replace_all_uses_with(body.args[1 + start])
            old_res.replace_all_uses_with(new.results[start])
    for o in list(old_body.ops):
        o.detach()
        body.add_op(o)
    k.dead.append(op)
    return True


def expand_yield(k, op: scf.YieldOp) -> bool:
    if not any(isinstance(v.type, mapped.FragType) for v in op.operands):
        return False
    vals: list[SSAValue] = []
    for v in op.operands:
        vals += k.lanes_of(v, op) if isinstance(v.type, mapped.FragType) else [v]
    _ins(scf.YieldOp(*vals), op)
    op.detach()
    op.erase()
    return True


# --- helpers ----------------------------------------------------------------------------------------


def _sreg_index(k, reg: str) -> SSAValue:
    def make():
        s = nv.SregOp(reg)
        return [s, arith.IndexCastOp(s.results[0], IndexType())]

    return k.top_value(reg, make)


def _tid(k, op) -> SSAValue:
    return _sreg_index(k, "tid.x")


def _lane(k, op) -> SSAValue:
    return _sreg_index(k, "laneid")


def _c(k, v: int) -> SSAValue:
    return k.const(v, IndexType())


def _shared_byte_addr(k, buf: SSAValue, indices: list[SSAValue], op: Operation) -> SSAValue:
    """i32 address of element `indices` in a shared buffer (row-major, then swizzled)."""
    addr, _ = k.address(buf, indices, op)
    return addr


# --- async copies -----------------------------------------------------------------------------------


def _async_copy(k, op: mapped.AsyncCopyOp) -> None:
    src, dst = op.source, op.dest
    st = src.type
    window = list(op.shape.iter_values())
    if len(window) != 2:
        raise PassFailure(op, "mapped-to-hw-nv: async copies of non-2-D windows are not supported yet")
    rows, cols = window
    ebytes = max(1, bitwidth(st.element_type) // 8)
    per_chunk = 16 // ebytes
    if cols % per_chunk:
        raise PassFailure(op, f"mapped-to-hw-nv: async copy rows of {cols} x {st.element_type} are not whole 16-byte chunks")
    cpr = cols // per_chunk
    chunks = rows * cpr
    T = k.block_threads
    base, dims, _, _ = k.bufs[src]
    tid = _tid(k, op)
    src_idx = list(op.source_indices)
    dst_idx = list(op.dest_indices)
    for it in range(-(-chunks // T)):
        ch = _ins(arith.AddiOp(tid, _c(k, it * T)), op)
        r = _ins(arith.DivUIOp(ch, _c(k, cpr)), op)
        cc = _ins(arith.MuliOp(_ins(arith.RemUIOp(ch, _c(k, cpr)), op), _c(k, per_chunk)), op)
        gr = _ins(arith.AddiOp(src_idx[-2], r), op)
        gc = _ins(arith.AddiOp(src_idx[-1], cc), op)
        ok = _ins(arith.AndIOp(_ins(arith.CmpiOp(gr, dims[-2], "ult"), op), _ins(arith.CmpiOp(gc, dims[-1], "ult"), op)), op)
        if chunks % T and it == chunks // T:
            ok = _ins(arith.AndIOp(ok, _ins(arith.CmpiOp(ch, _c(k, chunks), "ult"), op)), op)
        saddr, _ = k.address(src, [*src_idx[:-2], gr, gc], op)
        saddr = _ins(arith.SelectOp(ok, saddr, base), op)  # a valid address even when nothing is read
        # the destination chunk is always this chunk (inside the shared tile): zero-filled when
        # its source is outside the matrix
        didx = [*dst_idx[:-2], _ins(arith.AddiOp(dst_idx[-2], r), op), _ins(arith.AddiOp(dst_idx[-1], cc), op)]
        daddr = _shared_byte_addr(k, dst, didx, op)
        nbytes = _ins(arith.SelectOp(ok, k.const(16, i32), k.const(0, i32)), op)
        if chunks % T and it == chunks // T:
            # threads past the last chunk copy nothing (src-size 0 into their clamped slot 0 would race)
            body = Block([scf.YieldOp()])
            iff = scf.IfOp(_ins(arith.CmpiOp(ch, _c(k, chunks), "ult"), op), [], Region(body))
            _ins(iff, op)
            _ins(nv.CpAsyncOp(daddr, saddr, 16, nbytes), body.last_op)
        else:
            _ins(nv.CpAsyncOp(daddr, saddr, 16, nbytes), op)
    k.dead.append(op)


# --- fragments ----------------------------------------------------------------------------------


def _frag_load(k, op: mapped.FragLoadOp) -> None:
    ft = op.result.type
    role = ft.role_name
    rows, cols = ft.get_shape()
    idx = list(op.indices)
    lead, r0, c0 = idx[:-2], idx[-2], idx[-1]
    lane = _lane(k, op)
    l16 = _ins(arith.RemUIOp(lane, _c(k, 16)), op)
    hi8 = _ins(arith.MuliOp(_ins(arith.DivUIOp(lane, _c(k, 16)), op), _c(k, 8)), op)
    regs: list[SSAValue] = []
    if role == "a":
        # tiles (mi, ki) of 16x16: lane l reads row l%16, column 8*(l/16)
        for mi in range(rows // 16):
            for ki in range(cols // 16):
                r = _ins(arith.AddiOp(r0, _ins(arith.AddiOp(_c(k, mi * 16), l16), op)), op)
                c = _ins(arith.AddiOp(c0, _ins(arith.AddiOp(_c(k, ki * 16), hi8), op)), op)
                addr = _shared_byte_addr(k, op.source, [*lead, r, c], op)
                ld = _ins(nv.LdmatrixOp(4, addr), op)
                regs += list(ld.results)
        k.lanes[op.result] = regs
        k.dead.append(op)
        return
    # role b: K x N fragment, tiles (ki, ni) of 16x8, 2 registers each
    kt, nt = rows // 16, cols // 8
    tiles: dict[tuple[int, int], list[SSAValue]] = {}
    trans = op.transposed is None  # stored K x N (N contiguous): ldmatrix .trans
    l8 = _ins(arith.RemUIOp(lane, _c(k, 8)), op)
    k8 = _ins(arith.MuliOp(_ins(arith.RemUIOp(_ins(arith.DivUIOp(lane, _c(k, 8)), op), _c(k, 2)), op), _c(k, 8)), op)
    for ki in range(kt):
        for nj in range(nt // 2):
            if trans:
                r = _ins(arith.AddiOp(r0, _ins(arith.AddiOp(_c(k, ki * 16), l16), op)), op)
                c = _ins(arith.AddiOp(c0, _ins(arith.AddiOp(_c(k, nj * 16), hi8), op)), op)
            else:  # stored N x K: rows are n, columns are k
                r = _ins(arith.AddiOp(r0, _ins(arith.AddiOp(_c(k, nj * 16), _ins(arith.AddiOp(l8, hi8), op)), op)), op)
                c = _ins(arith.AddiOp(c0, _ins(arith.AddiOp(_c(k, ki * 16), k8), op)), op)
            addr = _shared_byte_addr(k, op.source, [*lead, r, c], op)
            ld = _ins(nv.LdmatrixOp(4, addr, trans=trans), op)
            v = list(ld.results)
            tiles[(ki, 2 * nj)] = v[0:2]
            tiles[(ki, 2 * nj + 1)] = v[2:4]
    for ki in range(kt):
        for ni in range(nt):
            regs += tiles[(ki, ni)]
    k.lanes[op.result] = regs
    k.dead.append(op)


def _mma(k, op: mapped.MmaOp) -> None:
    at, bt = op.lhs.type, op.rhs.type
    a, b, c = k.lanes_of(op.lhs, op), k.lanes_of(op.rhs, op), k.lanes_of(op.acc, op)
    mt, kt = at.get_shape()[0] // 16, at.get_shape()[1] // 16
    nt = bt.get_shape()[1] // 8
    elt = str(at.element_type)
    out = list(c)
    for mi in range(mt):
        for ni in range(nt):
            acc = out[(mi * nt + ni) * 4 : (mi * nt + ni) * 4 + 4]
            for ki in range(kt):
                ar = a[(mi * kt + ki) * 4 : (mi * kt + ki) * 4 + 4]
                br = b[(ki * nt + ni) * 2 : (ki * nt + ni) * 2 + 2]
                m = nv.MmaSyncOp("m16n8k16", ("f32", elt, elt, "f32"), ar, br, acc)
                _ins(m, op)
                acc = list(m.results)
            out[(mi * nt + ni) * 4 : (mi * nt + ni) * 4 + 4] = acc
    k.lanes[op.result] = out
    k.dead.append(op)


def _static(v: SSAValue) -> int | None:
    o = v.owner
    if isinstance(o, arith.ConstantOp):
        return o.value.value.data
    return None


def _epilogue_value(k, epi: Block | None, val: SSAValue, row: SSAValue, col: SSAValue, anchor: Operation) -> SSAValue:
    """The epilogue region inlined for one accumulator element, before `anchor`."""
    if epi is None:
        return val
    mapping = dict(zip(epi.args, [val, row, col]))
    clones, out = [], val
    for o in epi.ops:
        if isinstance(o, mapped.YieldOp):
            out = mapping.get(o.values[0], o.values[0])
            continue
        cl = o.clone(value_mapper=mapping)
        cl.location = anchor.location
        anchor.parent_block().insert_op_before(cl, anchor)
        clones.append(cl)
        for old_r, new_r in zip(o.results, cl.results):
            mapping[old_r] = new_r
    for cl in clones:  # the epilogue's own mapped ops (loads, math) lower like any other
        if cl.parent_block() is not None:
            k.convert(cl)
    return out


def _frag_store(k, op: mapped.FragStoreOp) -> None:
    """Each lane stores rows g, g+8 x columns 2t, 2t+1 of every tile. When the destination's
    rows have an even static length, the two adjacent columns go out as one 4- or 8-byte store."""
    ft = op.value.type
    regs = k.lanes_of(op.value, op)
    rows, cols = ft.get_shape()
    mt, nt = rows // 16, cols // 8
    idx = list(op.indices)
    lead, r0, c0 = idx[:-2], idx[-2], idx[-1]
    _, dims, _, _ = k.bufs[op.dest]
    dt = op.dest.type.element_type
    ncols = _static(dims[-1])
    paired = ncols is not None and ncols % 2 == 0 and bitwidth(dt) in (16, 32)
    lane = _lane(k, op)
    g = _ins(arith.DivUIOp(lane, _c(k, 4)), op)
    t2 = _ins(arith.MuliOp(_ins(arith.RemUIOp(lane, _c(k, 4)), op), _c(k, 2)), op)
    epi = op.epilogue.block if op.epilogue is not None and op.epilogue.blocks else None
    for mi in range(mt):
        for ni in range(nt):
            for half in range(2):  # rows g and g + 8
                row = _ins(arith.AddiOp(r0, _ins(arith.AddiOp(g, _c(k, mi * 16 + 8 * half)), op)), op)
                col = _ins(arith.AddiOp(c0, _ins(arith.AddiOp(t2, _c(k, ni * 8)), op)), op)
                vals = [regs[(mi * nt + ni) * 4 + 2 * half + e] for e in range(2)]
                if paired:
                    ok = _ins(arith.AndIOp(_ins(arith.CmpiOp(row, dims[-2], "ult"), op), _ins(arith.CmpiOp(col, dims[-1], "ult"), op)), op)
                    body = Block([scf.YieldOp()])
                    _ins(scf.IfOp(ok, [], Region(body)), op)
                    anchor = body.last_op
                    col1 = _ins(arith.AddiOp(col, _c(k, 1)), anchor)
                    outs = [_epilogue_value(k, epi, v, row, c, anchor) for v, c in zip(vals, (col, col1))]
                    addr, space = k.address(op.dest, [*lead, row, col], anchor)
                    packed = [_ins(nv.PackOp(outs[0], outs[1]), anchor)] if bitwidth(dt) == 16 else outs
                    _ins(nv.StOp(space, addr, packed), anchor)
                    continue
                for e in range(2):
                    c = col if e == 0 else _ins(arith.AddiOp(col, _c(k, 1)), op)
                    ok = _ins(arith.AndIOp(_ins(arith.CmpiOp(row, dims[-2], "ult"), op), _ins(arith.CmpiOp(c, dims[-1], "ult"), op)), op)
                    body = Block([scf.YieldOp()])
                    _ins(scf.IfOp(ok, [], Region(body)), op)
                    anchor = body.last_op
                    out = _epilogue_value(k, epi, vals[e], row, c, anchor)
                    store = mapped.StoreOp(out, op.dest, [*lead, row, c])
                    _ins(store, anchor)
                    k.convert(store)
    k.dead.append(op)


__all__ = ["lower_fragment_op", "expand_for", "expand_yield"]
