"""Lowering of fragments and `mapped.mma` to MFMA builtins (used by mapped-to-hw-amd).

A fragment becomes one vector per instruction tile, tile-major (a: (M/m) x (K/k) tiles, b:
(K/k) x (N/n), acc: (M/m) x (N/n)), each in the register layout of the gfx90a instruction
(AMD's matrix instruction tables; lane l of a 64-lane wavefront, element e of its vector):

| shape | A (vector<4 x f16/bf16>) | B (vector<4 x ...>) | C/D (vector<R x f32>) |
|---|---|---|---|
| m32n32k8 (R = 16) | i = l%32, k = 4(l/32)+e | j = l%32, k = 4(l/32)+e | i = 8(e/4) + 4(l/32) + e%4, j = l%32 |
| m16n16k16 (R = 4) | i = l%16, k = 4(l/16)+e | j = l%16, k = 4(l/16)+e | i = 4(l/16) + e, j = l%16 |

bf16 operands travel as their bits (vector<4xi16>, the `_1k` builtins).
- frag_load: where the four k values of a lane are contiguous in the LDS window (a stored M x K,
  b stored N x K, i.e. `transposed`) one 8-byte `lds_load`; otherwise four 2-byte loads inserted
  into the vector (b stored K x N: consecutive lanes read consecutive columns);
- mma: one `hw.amd.mfma` per (m, n, k) tile triple, accumulating along k;
- frag_store: every element of every tile runs the epilogue region and is stored if inside the
  destination (lanes of one register hold consecutive columns: coalesced);
- scf.for / scf.yield carrying fragments are rewritten to carry their vectors.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf, vector
from xdsl.dialects.builtin import IndexType, VectorType, f32, i16
from xdsl.ir import Block, Operation, Region, SSAValue

from tilec.dialects import mapped
from tilec.dialects.common import bitwidth
from tilec.dialects.hw import amd
from tilec.passes.api import PassFailure

# instruction shape -> (m, n, k, accumulator registers per lane)
SHAPES = {"m32n32k8": (32, 32, 8, 16), "m16n16k16": (16, 16, 16, 4)}


def mfma_variant(instr: str, elt) -> str:
    """The builtin suffix (`f32_32x32x8f16`, `f32_16x16x16bf16_1k`, ...) for a shape and element type."""
    m, n, k, _ = SHAPES[instr]
    e = str(elt)
    if e == "f16":
        return f"f32_{m}x{n}x{k}f16"
    if e == "bf16":
        return f"f32_{m}x{n}x{k}bf16_1k"
    raise ValueError(f"no MFMA for {e}")


def operand_type(elt) -> VectorType:
    """The per-lane A/B vector of one tile: 4 halves (bf16 as i16 bits)."""
    return VectorType(i16 if str(elt) == "bf16" else elt, [4])


def lower_fragment_op(k, op: Operation) -> bool:
    """Lower `op` inside `k` (a mapped-to-hw-amd `_Kernel`); False if it is not handled here."""
    if isinstance(op, mapped.FragFillOp | mapped.FragLoadOp | mapped.MmaOp | mapped.FragStoreOp):
        _check(k, op)
    if isinstance(op, mapped.FragFillOp):
        _frag_fill(k, op)
    elif isinstance(op, mapped.FragLoadOp):
        _frag_load(k, op)
    elif isinstance(op, mapped.MmaOp):
        _mma(k, op)
    elif isinstance(op, mapped.FragStoreOp):
        _frag_store(k, op)
    else:
        return False
    return True


def _check(k, op: Operation) -> None:
    if k.portable:
        raise PassFailure(
            op, "mapped-to-hw-amd: portable HIP has no matrix-core instructions; lower contractions with "
            "tensor-cores=false (lower-to-hip{portable=true} does)"
        )
    if k.arch not in amd.MFMA_ARCHS:
        raise PassFailure(op, f"mapped-to-hw-amd: {k.arch} has no matrix cores (MFMA needs {', '.join(amd.MFMA_ARCHS)})")
    for v in [*op.operands, *op.results]:
        t = v.type
        if isinstance(t, mapped.FragType) and t.instr.data not in SHAPES:
            raise PassFailure(op, f"mapped-to-hw-amd: {t.instr.data} fragments are not AMD MFMA shapes (m32n32k8, m16n16k16)")


def _ins(k, op: Operation, before: Operation):
    op.location = before.location
    if op.name.startswith("arith.") and op.results:
        return k.ins(op, before)
    before.parent_block().insert_op_before(op, before)
    return op.results[0] if len(op.results) == 1 else op


def _c(k, v: int) -> SSAValue:
    return k.const(v, IndexType())


def _tiles(ft: mapped.FragType) -> tuple[int, int, int, int]:
    """(tile rows, tile cols, tiles along rows, tiles along cols)."""
    tr, tc = ft.instr_tile()
    rows, cols = ft.get_shape()
    return tr, tc, rows // tr, cols // tc


def _lane_terms(k, op, div: int) -> tuple[SSAValue, SSAValue]:
    """(lane % div, lane / div) as index values computed once per kernel."""
    lane = k.lane_index()
    return _ins(k, arith.RemUIOp(lane, _c(k, div)), op), _ins(k, arith.DivUIOp(lane, _c(k, div)), op)


# --- loops ----------------------------------------------------------------------------------------


def expand_for(k, op: scf.ForOp) -> bool:
    """Rewrite an scf.for whose iter_args include fragments to carry their vectors instead."""
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
    new.location = op.location
    op.parent_block().insert_op_before(new, op)
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
    new = scf.YieldOp(*vals)
    op.parent_block().insert_op_before(new, op)
    op.detach()
    op.erase()
    return True


# --- fragments ------------------------------------------------------------------------------------


def _frag_fill(k, op: mapped.FragFillOp) -> None:
    ft = op.result.type
    tr, tc, nr, nc = _tiles(ft)
    m, n, kk, regs = SHAPES[ft.instr.data]
    if ft.role_name == "acc":
        vt = VectorType(f32, [regs])
        scalar = k.const(op.value.value.data, f32)
    else:
        vt = operand_type(ft.element_type)
        if str(ft.element_type) == "bf16":
            import ml_dtypes
            import numpy as np

            bits = int(np.array(op.value.value.data, np.float64).astype(ml_dtypes.bfloat16).view(np.uint16))
            scalar = k.const(bits - (1 << 16) if bits >= 1 << 15 else bits, i16)
        else:
            scalar = k.const(op.value.value.data, ft.element_type)
    vec = _ins(k, vector.BroadcastOp(scalar, vt), op)
    k.lanes[op.result] = [vec] * (nr * nc)
    k.dead.append(op)


def _contiguous_ok(k, buf: SSAValue) -> bool:
    """Four consecutive 16-bit elements of a row are one aligned 8-byte LDS access."""
    _, _, space, sw = k.bufs[buf]
    row = buf.type.get_shape()[-1]
    return space == "shared" and row % 4 == 0 and (sw is None or sw.chunk_bytes >= 8)


def _gather4(k, op, buf, lead, coords: list[tuple[SSAValue, SSAValue]], vt: VectorType) -> SSAValue:
    """Four scalar loads (one per k) assembled into the operand vector."""
    elt = vt.get_element_type()
    vals = []
    for r, c in coords:
        addr, space = k.address(buf, [*lead, r, c], op)
        vals.append(k.load_value(space, addr, elt, op))
    vec = _ins(k, vector.BroadcastOp(vals[0], vt), op)
    for e in range(1, 4):
        vec = _ins(k, vector.InsertOp(vals[e], vec, [e]), op)
    return vec


def _frag_load(k, op: mapped.FragLoadOp) -> None:
    ft = op.result.type
    role = ft.role_name
    m, n, kk, regs = SHAPES[ft.instr.data]
    tr, tc, nr, nc = _tiles(ft)
    idx = list(op.indices)
    lead, r0, c0 = idx[:-2], idx[-2], idx[-1]
    src = op.source
    if bitwidth(src.type.element_type) != 16 and role != "acc":
        raise PassFailure(op, f"mapped-to-hw-amd: MFMA operands of {src.type.element_type} are not supported yet")
    add = lambda a, b: _ins(k, arith.AddiOp(a, b), op)  # noqa: E731
    out: list[SSAValue] = []
    if role == "acc":
        for mi in range(nr):
            for ni in range(nc):
                vals = []
                for e in range(regs):
                    i, j = _acc_coords(k, op, ft.instr.data, e)
                    row = add(r0, add(_c(k, mi * m), i))
                    col = add(c0, add(_c(k, ni * n), j))
                    addr, space = k.address(src, [*lead, row, col], op)
                    vals.append(k.load_value(space, addr, f32, op))
                vec = _ins(k, vector.BroadcastOp(vals[0], VectorType(f32, [regs])), op)
                for e in range(1, regs):
                    vec = _ins(k, vector.InsertOp(vals[e], vec, [e]), op)
                out.append(vec)
        k.lanes[op.result] = out
        k.dead.append(op)
        return
    vt = operand_type(ft.element_type)
    elt = vt.get_element_type()
    outer = m if role == "a" else n  # the lane's row (a: i) or column (b: j) within a tile
    l_out, l_grp = _lane_terms(k, op, outer)
    k4 = _ins(k, arith.MuliOp(l_grp, _c(k, 4)), op)
    # K-contiguous storage: a stored M x K, or b stored N x K (`transposed`)
    k_contiguous = (role == "a") != op.is_transposed
    fast = k_contiguous and _contiguous_ok(k, src)
    tiles = [(mi, ki) for mi in range(nr) for ki in range(nc)] if role == "a" else [(ki, ni) for ki in range(nr) for ni in range(nc)]
    for t0, t1 in tiles:
        if role == "a":
            o = add(_c(k, t0 * m), l_out)  # row i within the fragment
            kb = add(_c(k, t1 * kk), k4)  # first k
        else:
            o = add(_c(k, t1 * n), l_out)  # column j
            kb = add(_c(k, t0 * kk), k4)
        if k_contiguous:
            row, col = add(r0, o), add(c0, kb)
            if fast:
                addr, space = k.address(src, [*lead, row, col], op)
                out.append(k.load_value(space, addr, vt, op))
                continue
            coords = [(row, add(col, _c(k, e)) if e else col) for e in range(4)]
        else:
            row, col = add(r0, kb), add(c0, o)
            coords = [(add(row, _c(k, e)) if e else row, col) for e in range(4)]
        out.append(_gather4(k, op, src, lead, coords, vt))
    if str(src.type.element_type) == "bf16" and elt != i16:
        raise PassFailure(op, "mapped-to-hw-amd: internal: bf16 operands travel as i16")
    k.lanes[op.result] = out
    k.dead.append(op)


def _acc_coords(k, op, instr: str, e: int) -> tuple[SSAValue, SSAValue]:
    """(row, col) within one accumulator tile of this lane's element e."""
    if instr == "m32n32k8":
        l_out, l_grp = _lane_terms(k, op, 32)
        i = _ins(k, arith.AddiOp(_ins(k, arith.MuliOp(l_grp, _c(k, 4)), op), _c(k, 8 * (e // 4) + e % 4)), op)
        return i, l_out
    l_out, l_grp = _lane_terms(k, op, 16)
    i = _ins(k, arith.AddiOp(_ins(k, arith.MuliOp(l_grp, _c(k, 4)), op), _c(k, e)), op)
    return i, l_out


def _mma(k, op: mapped.MmaOp) -> None:
    at, bt = op.lhs.type, op.rhs.type
    a, b, c = k.lanes_of(op.lhs, op), k.lanes_of(op.rhs, op), k.lanes_of(op.acc, op)
    instr = at.instr.data
    variant = mfma_variant(instr, at.element_type)
    _, _, mt, kt = _tiles(at)
    _, _, _, nt = _tiles(bt)
    out = list(c)
    for mi in range(mt):
        for ni in range(nt):
            acc = out[mi * nt + ni]
            for ki in range(kt):
                acc = _ins(k, amd.MfmaOp(variant, a[mi * kt + ki], b[ki * nt + ni], acc), op)
            out[mi * nt + ni] = acc
    k.lanes[op.result] = out
    k.dead.append(op)


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
    ft = op.value.type
    tiles = k.lanes_of(op.value, op)
    m, n, kk, regs = SHAPES[ft.instr.data]
    _, _, nr, nc = _tiles(ft)
    idx = list(op.indices)
    lead, r0, c0 = idx[:-2], idx[-2], idx[-1]
    _, dims, _, _ = k.bufs[op.dest]
    epi = op.epilogue.block if op.epilogue is not None and op.epilogue.blocks else None
    add = lambda a, b: _ins(k, arith.AddiOp(a, b), op)  # noqa: E731
    for mi in range(nr):
        for ni in range(nc):
            vec = tiles[mi * nc + ni]
            for e in range(regs):
                i, j = _acc_coords(k, op, ft.instr.data, e)
                row = add(r0, add(_c(k, mi * m), i))
                col = add(c0, add(_c(k, ni * n), j))
                ok = _ins(k, arith.AndIOp(_ins(k, arith.CmpiOp(row, dims[-2], "ult"), op), _ins(k, arith.CmpiOp(col, dims[-1], "ult"), op)), op)
                body = Block([scf.YieldOp()])
                iff = scf.IfOp(ok, [], Region(body))
                iff.location = op.location
                op.parent_block().insert_op_before(iff, op)
                anchor = body.last_op
                val = vector.ExtractOp(vec, [e], f32)
                val.location = op.location
                anchor.parent_block().insert_op_before(val, anchor)
                out = _epilogue_value(k, epi, val.result, row, col, anchor)
                store = mapped.StoreOp(out, op.dest, [*lead, row, col])
                store.location = op.location
                anchor.parent_block().insert_op_before(store, anchor)
                k.convert(store)
    k.dead.append(op)


__all__ = ["lower_fragment_op", "expand_for", "expand_yield", "mfma_variant", "SHAPES"]
