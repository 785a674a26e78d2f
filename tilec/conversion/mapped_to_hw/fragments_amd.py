"""Lowering of fragments and `mapped.mma` to MFMA builtins, and of copies (used by mapped-to-hw-amd).

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
- copy / async_copy (global -> LDS windows): synchronous cooperative copies, 16-byte (or narrower)
  chunks dealt round-robin to the block's threads, zero-filled outside the source; async_commit /
  async_wait disappear (gfx90a has no asynchronous global->LDS copy).
What is not AMD-specific (tile loops, epilogues, bounds, chunk dealing, scf.for carrying
fragments) is gpu_kernel.py's.
"""

from __future__ import annotations

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import IntegerType, VectorType, f32, i1, i8, i16
from xdsl.ir import Attribute, Operation, SSAValue

from tilec.conversion.mapped_to_hw.gpu_kernel import GpuKernelLowering
from tilec.dialects import mapped
from tilec.dialects.common import DYNAMIC, bitwidth
from tilec.dialects.hw import amd
from tilec.passes.api import PassFailure

MAX_ACCESS = 16  # bytes of the widest load/store

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


def storage(t: Attribute) -> Attribute:
    """The memory type of a buffer element: bools are bytes."""
    return i8 if t == i1 else t


def _check(k: GpuKernelLowering, op: Operation) -> None:
    """Raise if the target has no matrix cores or the fragments are no MFMA shapes."""
    if k.target.portable:
        raise PassFailure(
            op,
            "mapped-to-hw-amd: portable HIP has no matrix-core instructions; lower contractions with "
            "tensor-cores=false (lower-to-hip{portable=true} does)",
        )
    if k.target.arch not in amd.MFMA_ARCHS:
        raise PassFailure(
            op, f"mapped-to-hw-amd: {k.target.arch} has no matrix cores (MFMA needs {', '.join(amd.MFMA_ARCHS)})"
        )
    for v in [*op.operands, *op.results]:
        t = v.type
        if isinstance(t, mapped.FragType) and t.instr.data not in SHAPES:
            raise PassFailure(
                op, f"mapped-to-hw-amd: {t.instr.data} fragments are not AMD MFMA shapes (m32n32k8, m16n16k16)"
            )


def _tiles(ft: mapped.FragType) -> tuple[int, int, int, int]:
    """(tile rows, tile cols, tiles along rows, tiles along cols)."""
    tr, tc = ft.instr_tile()
    rows, cols = ft.get_shape()
    return tr, tc, rows // tr, cols // tc


def _lane_terms(k, op, div: int) -> tuple[SSAValue, SSAValue]:
    """(lane % div, lane / div) as index values computed once per kernel."""
    lane = k.lane_index()
    return k.b.ins(arith.RemUIOp(lane, k.index(div)), op), k.b.ins(arith.DivUIOp(lane, k.index(div)), op)


# --- fragments ------------------------------------------------------------------------------------


def _frag_fill(k, op: mapped.FragFillOp) -> None:
    _check(k, op)
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
    vec = k.b.value(vector.BroadcastOp(scalar, vt), op)
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
    vec = k.b.value(vector.BroadcastOp(vals[0], vt), op)
    for e in range(1, 4):
        vec = k.b.value(vector.InsertOp(vals[e], vec, [e]), op)
    return vec


def _frag_load(k, op: mapped.FragLoadOp) -> None:
    _check(k, op)
    ft = op.result.type
    role = ft.role_name
    m, n, kk, regs = SHAPES[ft.instr.data]
    tr, tc, nr, nc = _tiles(ft)
    idx = list(op.indices)
    lead, r0, c0 = idx[:-2], idx[-2], idx[-1]
    src = op.source
    if bitwidth(src.type.element_type) != 16 and role != "acc":
        raise PassFailure(op, f"mapped-to-hw-amd: MFMA operands of {src.type.element_type} are not supported yet")
    add = lambda a, b: k.b.ins(arith.AddiOp(a, b), op)  # noqa: E731
    out: list[SSAValue] = []
    if role == "acc":
        for mi in range(nr):
            for ni in range(nc):
                vals = []
                for e in range(regs):
                    i, j = _acc_coords(k, op, ft.instr.data, e)
                    row = add(r0, add(k.index(mi * m), i))
                    col = add(c0, add(k.index(ni * n), j))
                    addr, space = k.address(src, [*lead, row, col], op)
                    vals.append(k.load_value(space, addr, f32, op))
                vec = k.b.value(vector.BroadcastOp(vals[0], VectorType(f32, [regs])), op)
                for e in range(1, regs):
                    vec = k.b.value(vector.InsertOp(vals[e], vec, [e]), op)
                out.append(vec)
        k.lanes[op.result] = out
        k.dead.append(op)
        return
    vt = operand_type(ft.element_type)
    elt = vt.get_element_type()
    outer = m if role == "a" else n  # the lane's row (a: i) or column (b: j) within a tile
    l_out, l_grp = _lane_terms(k, op, outer)
    k4 = k.b.ins(arith.MuliOp(l_grp, k.index(4)), op)
    # K-contiguous storage: a stored M x K, or b stored N x K (`transposed`)
    k_contiguous = (role == "a") != op.is_transposed
    fast = k_contiguous and _contiguous_ok(k, src)
    tiles = (
        [(mi, ki) for mi in range(nr) for ki in range(nc)]
        if role == "a"
        else [(ki, ni) for ki in range(nr) for ni in range(nc)]
    )
    for t0, t1 in tiles:
        if role == "a":
            o = add(k.index(t0 * m), l_out)  # row i within the fragment
            kb = add(k.index(t1 * kk), k4)  # first k
        else:
            o = add(k.index(t1 * n), l_out)  # column j
            kb = add(k.index(t0 * kk), k4)
        if k_contiguous:
            row, col = add(r0, o), add(c0, kb)
            if fast:
                addr, space = k.address(src, [*lead, row, col], op)
                out.append(k.load_value(space, addr, vt, op))
                continue
            coords = [(row, add(col, k.index(e)) if e else col) for e in range(4)]
        else:
            row, col = add(r0, kb), add(c0, o)
            coords = [(add(row, k.index(e)) if e else row, col) for e in range(4)]
        out.append(_gather4(k, op, src, lead, coords, vt))
    if str(src.type.element_type) == "bf16" and elt != i16:
        raise PassFailure(op, "mapped-to-hw-amd: internal: bf16 operands travel as i16")
    k.lanes[op.result] = out
    k.dead.append(op)


def _acc_coords(k, op, instr: str, e: int) -> tuple[SSAValue, SSAValue]:
    """(row, col) within one accumulator tile of this lane's element e."""
    if instr == "m32n32k8":
        l_out, l_grp = _lane_terms(k, op, 32)
        i = k.b.ins(arith.AddiOp(k.b.ins(arith.MuliOp(l_grp, k.index(4)), op), k.index(8 * (e // 4) + e % 4)), op)
        return i, l_out
    l_out, l_grp = _lane_terms(k, op, 16)
    i = k.b.ins(arith.AddiOp(k.b.ins(arith.MuliOp(l_grp, k.index(4)), op), k.index(e)), op)
    return i, l_out


def _mma(k: GpuKernelLowering, op: mapped.MmaOp) -> None:
    """One `hw.amd.mfma` per (m, n, k) tile triple; a tile is one vector."""
    _check(k, op)
    at, bt = op.lhs.type, op.rhs.type
    a, b = k.lanes_of(op.lhs, op), k.lanes_of(op.rhs, op)
    variant = mfma_variant(at.instr.data, at.element_type)

    def step(acc: list[SSAValue], ai: int, bi: int) -> list[SSAValue]:
        return [k.b.value(amd.MfmaOp(variant, a[ai], b[bi], acc[0]), op)]

    k.accumulate_tiles(op, (_tiles(at)[2], _tiles(bt)[3], _tiles(at)[3]), 1, step)


def _frag_store(k: GpuKernelLowering, op: mapped.FragStoreOp) -> None:
    _check(k, op)
    ft = op.value.type
    tiles = k.lanes_of(op.value, op)
    m, n, _, regs = SHAPES[ft.instr.data]
    _, _, nr, nc = _tiles(ft)
    idx = list(op.indices)
    r0, c0 = idx[-2], idx[-1]
    epi = op.epilogue.block if op.epilogue is not None and op.epilogue.blocks else None
    add = lambda a, b: k.b.ins(arith.AddiOp(a, b), op)  # noqa: E731
    for mi in range(nr):
        for ni in range(nc):
            vec = tiles[mi * nc + ni]
            for e in range(regs):
                i, j = _acc_coords(k, op, ft.instr.data, e)
                row = add(r0, add(k.index(mi * m), i))
                col = add(c0, add(k.index(ni * n), j))
                anchor = k.b.guarded(op, k.in_bounds(op.dest, row, col, op))
                val = k.b.value(vector.ExtractOp(vec, [e], f32), anchor, location=op.location)
                k.store_element(op, epi, val, row, col, anchor, location=op.location)
    k.dead.append(op)


# --- copies ---------------------------------------------------------------------------------------


def _copy(k: GpuKernelLowering, op: mapped.CopyOp | mapped.AsyncCopyOp) -> None:
    """A cooperative global -> LDS window copy, synchronous: each thread loads its chunks
    (zeros outside the source) and stores them."""
    src, dst = op.source, op.dest
    st, dt = src.type, dst.type
    window = list(op.shape.iter_values())
    if st.space_name != "global" or dt.space_name != "shared" or len(window) != 2:
        raise PassFailure(op, "mapped-to-hw-amd: only 2-D global -> shared copies are supported yet on AMD GPUs")
    cols = window[1]
    se = storage(st.element_type)
    ebytes = max(1, bitwidth(se) // 8)
    src_last = st.get_shape()[-1]
    dst_last = dt.get_shape()[-1]
    width = MAX_ACCESS // ebytes
    while width > 1 and (
        cols % width or src_last == DYNAMIC or src_last % width or dst_last % width or st.element_type == i1
    ):
        width //= 2
    tid = k.tid_index()
    ins = lambda o: k.b.ins(o, op)  # noqa: E731
    src_idx = list(op.source_indices)
    vt = VectorType(se, [width]) if width > 1 else se
    zero = k.const(0 if isinstance(se, IntegerType) else 0.0, se)
    if width > 1:
        zero = k.b.value(vector.BroadcastOp(zero, vt), op)
    for c in k.copy_chunks(op, cols // width, width, tid):
        # outside the source every index reads element 0 (the value is replaced by zeros)
        sr, sc = (
            ins(arith.SelectOp(c.inside, c.src_row, k.index(0))),
            ins(arith.SelectOp(c.inside, c.src_col, k.index(0))),
        )
        lead = [ins(arith.SelectOp(c.inside, i, k.index(0))) for i in src_idx[:-2]]
        saddr, _ = k.address(src, [*lead, sr, sc], op)
        didx = k.chunk_dest(op, c)
        anchor = k.chunk_anchor(c, op)
        v = k.load_value("global", saddr, vt, anchor)
        v = k.b.value(arith.SelectOp(c.inside, v, zero), anchor)
        daddr, _ = k.address(dst, didx, anchor)
        k.store_value("shared", daddr, v, anchor)
    k.dead.append(op)


def _copy_window(k: GpuKernelLowering, op: mapped.AsyncCopyWindowOp) -> None:
    """The im2col tile of a convolution input (GpuKernelLowering.window_chunks), synchronous as
    `_copy`: each thread loads its 16-byte chunks (8 channels of one pixel; zeros where the chunk
    reads nothing) and stores them to LDS."""
    if op.elementwise:  # padded channels: element by element, synchronous
        k.copy_window_elementwise(op)
        return
    src, dst = op.source, op.dest
    se = storage(src.type.element_type)
    width = MAX_ACCESS // max(1, bitwidth(se) // 8)
    vt = VectorType(se, [width])
    zero = k.b.value(vector.BroadcastOp(k.const(0 if isinstance(se, IntegerType) else 0.0, se), vt), op)
    ins = lambda o: k.b.ins(o, op)  # noqa: E731
    for c, src_idx in k.window_chunks(op, width):
        # a chunk that reads nothing reads element 0 (its value is replaced by zeros)
        saddr, _ = k.address(src, [ins(arith.SelectOp(c.inside, i, k.index(0))) for i in src_idx], op)
        anchor = k.chunk_anchor(c, op)
        v = k.load_value("global", saddr, vt, anchor)
        v = k.b.value(arith.SelectOp(c.inside, v, zero), anchor)
        daddr, _ = k.address(dst, k.chunk_dest(op, c), anchor)
        k.store_value("shared", daddr, v, anchor)
    k.dead.append(op)


def _async_done(k: GpuKernelLowering, op: mapped.AsyncCommitOp | mapped.AsyncWaitOp) -> None:
    k.dead.append(op)  # copies are synchronous here


# the mapped ops lowered here (AmdTarget.lowerings)
LOWERINGS = {
    mapped.FragFillOp: _frag_fill,
    mapped.FragLoadOp: _frag_load,
    mapped.MmaOp: _mma,
    mapped.FragStoreOp: _frag_store,
    mapped.CopyOp: _copy,
    mapped.AsyncCopyOp: _copy,
    mapped.AsyncCopyWindowOp: _copy_window,
    mapped.AsyncCommitOp: _async_done,
    mapped.AsyncWaitOp: _async_done,
}

__all__ = ["LOWERINGS", "MAX_ACCESS", "SHAPES", "mfma_variant", "operand_type", "storage"]
