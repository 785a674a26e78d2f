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
  each a cp.async with src-size 0 (zero fill) outside the source.
What is not NVIDIA-specific (tile loops, epilogues, bounds, chunk dealing, scf.for carrying
fragments) is gpu_kernel.py's.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import f32, i32
from xdsl.ir import Operation, SSAValue

from tilec.conversion.mapped_to_hw.gpu_kernel import GpuKernelLowering
from tilec.dialects import mapped
from tilec.dialects.common import bitwidth
from tilec.dialects.hw import nv
from tilec.passes.api import PassFailure


def _async_commit(k: GpuKernelLowering, op: mapped.AsyncCommitOp) -> None:
    k.b.insert(nv.CpAsyncCommitOp(), op)
    k.dead.append(op)


def _async_wait(k: GpuKernelLowering, op: mapped.AsyncWaitOp) -> None:
    k.b.insert(nv.CpAsyncWaitOp(op.pending.data), op)
    k.dead.append(op)


def _frag_fill(k: GpuKernelLowering, op: mapped.FragFillOp) -> None:
    k.lanes[op.result] = [k.const(op.value.value.data, f32)] * op.result.type.regs_per_lane()
    k.dead.append(op)


# --- async copies -----------------------------------------------------------------------------------


def _async_copy(k: GpuKernelLowering, op: mapped.AsyncCopyOp) -> None:
    src, dst = op.source, op.dest
    st = src.type
    window = list(op.shape.iter_values())
    if len(window) != 2:
        raise PassFailure(op, "mapped-to-hw-nv: async copies of non-2-D windows are not supported yet")
    cols = window[1]
    ebytes = max(1, bitwidth(st.element_type) // 8)
    per_chunk = 16 // ebytes
    if cols % per_chunk:
        raise PassFailure(
            op, f"mapped-to-hw-nv: async copy rows of {cols} x {st.element_type} are not whole 16-byte chunks"
        )
    base = k.bufs[src][0]
    src_idx = list(op.source_indices)
    ins = lambda o: k.b.ins(o, op)  # noqa: E731
    per_row = cols // per_chunk
    threads = k.copy_threads.get(op, k.block_threads)
    first = None  # with whole rows per round, round i is the first round's chunk i * rows_per_round rows down
    for i, c in enumerate(k.copy_chunks(op, per_row, per_chunk, k.tid_index())):
        ok = ins(arith.AndIOp(c.inside, k.chunk_exists(c, op))) if c.partial else c.inside
        drows = i * threads // per_row
        daddr = None
        if first is not None and threads % per_row == 0 and k.bufs[src][2] == "global":
            saddr = k.global_rows_later(src, first[0], drows, op)
            daddr = k.shifted_address(dst, first[1], drows, 0, op)
        else:
            saddr, _ = k.address(src, [*src_idx[:-2], c.src_row, c.src_col], op)
        if daddr is None:
            # the destination chunk is always this chunk (inside the shared tile): zero-filled when
            # its source is outside the matrix
            daddr, _ = k.address(dst, k.chunk_dest(op, c), op)
        if first is None:
            first = (saddr, daddr)
        saddr = ins(arith.SelectOp(ok, saddr, base))  # a valid address even when nothing is read
        nbytes = ins(arith.SelectOp(ok, k.const(16, i32), k.const(0, i32)))
        # threads past the last chunk copy nothing (src-size 0 into their clamped slot 0 would race)
        k.b.insert(nv.CpAsyncOp(daddr, saddr, 16, nbytes), k.chunk_anchor(c, op))
    k.dead.append(op)


def _async_copy_window(k: GpuKernelLowering, op: mapped.AsyncCopyWindowOp) -> None:
    """The im2col tile of a convolution input as cp.async chunks (GpuKernelLowering.window_chunks:
    16 bytes = 8 f16 channels of one pixel each), zero-filled (src-size 0) where the chunk reads
    nothing (padding, between lhs_dilation taps, past the matrix)."""
    if op.elementwise:  # padded channels: element by element, synchronous
        k.copy_window_elementwise(op)
        return
    base = k.bufs[op.source][0]
    ins = lambda o: k.b.ins(o, op)  # noqa: E731
    per_chunk = 16 // max(1, bitwidth(op.source.type.element_type) // 8)
    for c, src_idx in k.window_chunks(op, per_chunk):
        saddr, _ = k.address(op.source, src_idx, op)
        saddr = ins(arith.SelectOp(c.inside, saddr, base))  # a valid address even when nothing is read
        daddr, _ = k.address(op.dest, k.chunk_dest(op, c), op)
        nbytes = ins(arith.SelectOp(c.inside, k.const(16, i32), k.const(0, i32)))
        k.b.insert(nv.CpAsyncOp(daddr, saddr, 16, nbytes), k.chunk_anchor(c, op))
    k.dead.append(op)


# --- fragments ----------------------------------------------------------------------------------


def _frag_load(k: GpuKernelLowering, op: mapped.FragLoadOp) -> None:
    ft = op.result.type
    role = ft.role_name
    rows, cols = ft.get_shape()
    idx = list(op.indices)
    lead, r0, c0 = idx[:-2], idx[-2], idx[-1]
    ins = lambda o: k.b.ins(o, op)  # noqa: E731
    c = k.index
    lane = k.lane_index()
    l16 = ins(arith.RemUIOp(lane, c(16)))
    hi8 = ins(arith.MuliOp(ins(arith.DivUIOp(lane, c(16))), c(8)))
    regs: list[SSAValue] = []
    firsts: dict[int, tuple[SSAValue, int]] = {}

    def tile_address(row: int, col: int, lane_row: SSAValue, lane_col: SSAValue) -> SSAValue:
        """The lane's address in the tile at (row, col) of the window (the lane reads its
        (lane_row, lane_col)): the first tile of its column plus a constant where the swizzle
        allows (k.shifted_address), else computed in full."""
        if col in firsts:
            first, first_row = firsts[col]
            addr = k.shifted_address(op.source, first, row - first_row, 0, op)
            if addr is not None:
                return addr
        r = ins(arith.AddiOp(r0, ins(arith.AddiOp(c(row), lane_row))))
        cc = ins(arith.AddiOp(c0, ins(arith.AddiOp(c(col), lane_col))))
        addr, _ = k.address(op.source, [*lead, r, cc], op)
        firsts.setdefault(col, (addr, row))
        return addr

    if role == "a":
        if op.is_transposed:  # (the flag was ignored before: A^T read as A)
            raise PassFailure(op, "mapped-to-hw-nv: `transposed` a fragments (A stored K x M) are not supported yet")
        # tiles (mi, ki) of 16x16: lane l reads row l%16, column 8*(l/16)
        for mi in range(rows // 16):
            for ki in range(cols // 16):
                addr = tile_address(mi * 16, ki * 16, l16, hi8)
                regs += list(k.b.insert(nv.LdmatrixOp(4, addr), op).results)
        k.lanes[op.result] = regs
        k.dead.append(op)
        return
    # role b: K x N fragment, tiles (ki, ni) of 16x8, 2 registers each
    kt, nt = rows // 16, cols // 8
    tiles: dict[tuple[int, int], list[SSAValue]] = {}
    trans = op.transposed is None  # stored K x N (N contiguous): ldmatrix .trans
    l8 = ins(arith.RemUIOp(lane, c(8)))
    k8 = ins(arith.MuliOp(ins(arith.RemUIOp(ins(arith.DivUIOp(lane, c(8))), c(2))), c(8)))
    n_lane = ins(arith.AddiOp(l8, hi8))
    for ki in range(kt):
        for nj in range(nt // 2):
            if trans:
                addr = tile_address(ki * 16, nj * 16, l16, hi8)
            else:  # stored N x K: rows are n, columns are k
                addr = tile_address(nj * 16, ki * 16, n_lane, k8)
            v = list(k.b.insert(nv.LdmatrixOp(4, addr, trans=trans), op).results)
            tiles[(ki, 2 * nj)] = v[0:2]
            tiles[(ki, 2 * nj + 1)] = v[2:4]
    for ki in range(kt):
        for ni in range(nt):
            regs += tiles[(ki, ni)]
    k.lanes[op.result] = regs
    k.dead.append(op)


def _mma(k: GpuKernelLowering, op: mapped.MmaOp) -> None:
    """One mma.sync per (m16, n8, k16) tile triple: tiles of 4 (a, acc) and 2 (b) registers."""
    at, bt = op.lhs.type, op.rhs.type
    a, b = k.lanes_of(op.lhs, op), k.lanes_of(op.rhs, op)
    elt = str(at.element_type)

    def step(acc: list[SSAValue], ai: int, bi: int) -> list[SSAValue]:
        m = nv.MmaSyncOp("m16n8k16", ("f32", elt, elt, "f32"), a[ai * 4 : ai * 4 + 4], b[bi * 2 : bi * 2 + 2], acc)
        return list(k.b.insert(m, op).results)

    k.accumulate_tiles(op, (at.get_shape()[0] // 16, bt.get_shape()[1] // 8, at.get_shape()[1] // 16), 4, step)


def _frag_store(k: GpuKernelLowering, op: mapped.FragStoreOp) -> None:
    """Each lane stores rows g, g+8 x columns 2t, 2t+1 of every tile."""
    ft = op.value.type
    if ft.role_name == "row":
        _frag_store_rows(k, op)
        return
    rows, cols = ft.get_shape()
    mt, nt = rows // 16, cols // 8
    ins = lambda o: k.b.ins(o, op)  # noqa: E731
    c = k.index
    lane = k.lane_index()
    g = ins(arith.DivUIOp(lane, c(4)))
    t2 = ins(arith.MuliOp(ins(arith.RemUIOp(lane, c(4))), c(2)))
    pairs = []
    for mi in range(mt):
        for ni in range(nt):
            for half in range(2):  # rows g and g + 8
                pairs.append((mi * 16 + 8 * half, ni * 8, (mi * nt + ni) * 4 + 2 * half))
    store_pairs(k, op, g, t2, pairs)


def store_pairs(
    k: GpuKernelLowering,
    op: mapped.FragStoreOp,
    row: SSAValue,
    col: SSAValue,
    pairs: list[tuple[int, int, int]],
    sink: Callable[[Operation, SSAValue, SSAValue, list[SSAValue]], None] | None = None,
) -> None:
    """The stores of an accumulator whose lane holds pairs of adjacent columns: per (row offset,
    column offset, register) the registers `reg` and `reg + 1` go to (row + dr, col + dc) and the
    next column, each through the epilogue and only inside the destination. When the
    destination's rows have an even static length, a pair goes out as one 4- or 8-byte store,
    or, given a `sink`, to `sink(anchor, row + dr, col + dc, stored registers)` (the pair's
    place in the tile; a 16-bit pair packed into one register) instead."""
    regs = k.lanes_of(op.value, op)
    idx = list(op.indices)
    lead, r0, c0 = idx[:-2], idx[-2], idx[-1]
    dims = k.bufs[op.dest][1]
    dt = op.dest.type.element_type
    ncols = k.b.const_value(dims[-1])
    paired = ncols is not None and ncols % 2 == 0 and bitwidth(dt) in (16, 32)
    if sink is not None and not paired:
        raise PassFailure(op, f"mapped-to-hw-nv: a staged store of {dt} pairs into rows of {ncols} elements")
    ins = lambda o: k.b.ins(o, op)  # noqa: E731
    c = k.index
    epi = op.epilogue.block if op.epilogue is not None and op.epilogue.blocks else None
    r_base = ins(arith.AddiOp(r0, row))
    c_base = ins(arith.AddiOp(c0, col))
    for dr, dc, first in pairs:
        r = ins(arith.AddiOp(r_base, c(dr))) if dr else r_base
        cc0 = ins(arith.AddiOp(c_base, c(dc))) if dc else c_base
        vals = regs[first : first + 2]
        if paired:
            if sink is not None:  # the pair's place in the tile
                local = (ins(arith.AddiOp(row, c(dr))), ins(arith.AddiOp(col, c(dc))))
            anchor = k.b.guarded(op, k.in_bounds(op.dest, r, cc0, op))
            col1 = k.b.ins(arith.AddiOp(cc0, c(1)), anchor)
            outs = [k.epilogue_value(epi, v, r, x, anchor) for v, x in zip(vals, (cc0, col1))]
            packed = [k.b.value(nv.PackOp(outs[0], outs[1]), anchor)] if bitwidth(dt) == 16 else outs
            if sink is not None:
                sink(anchor, *local, packed)
                continue
            addr, space = k.address(op.dest, [*lead, r, cc0], anchor)
            k.b.insert(nv.StOp(space, addr, packed), anchor)
            continue
        for e in range(2):
            x = cc0 if e == 0 else ins(arith.AddiOp(cc0, c(1)))
            anchor = k.b.guarded(op, k.in_bounds(op.dest, r, x, op))
            k.store_element(op, epi, vals[e], r, x, anchor)
    k.dead.append(op)


# --- fragment arithmetic (an online softmax between two MMAs) ------------------------------------
# An acc tile's register e (0..3) sits at row g + 8 * (e // 2), column 2t + e % 2 (g = lane / 4,
# t = lane % 4); a row fragment holds, per 16-row tile, the rows g and g + 8 (2 registers).


def _m16_layout(k: GpuKernelLowering, op: Operation, *frags: mapped.FragType) -> None:
    for f in frags:
        if f.instr.data not in ("m16n8k16", "m16n8k8"):
            raise PassFailure(op, f"mapped-to-hw-nv: {op.name} on {f.instr.data} fragments is not supported yet")


def _lane_row_col(k: GpuKernelLowering, op: Operation) -> tuple[SSAValue, SSAValue]:
    """(g, 2t): this lane's first row and first column in an accumulator tile."""
    ins = lambda o: k.b.ins(o, op)  # noqa: E731
    lane = k.lane_index()
    return ins(arith.DivUIOp(lane, k.index(4))), ins(arith.MuliOp(ins(arith.RemUIOp(lane, k.index(4))), k.index(2)))


def _frag_map(k: GpuKernelLowering, op: mapped.FragMapOp) -> None:
    """The body inlined once per element this lane holds, row fragments broadcast along rows."""
    rt = op.result.type
    _m16_layout(k, op, rt, *(a.type for a in op.args))
    ins = lambda o: k.b.ins(o, op)  # noqa: E731
    rows, cols = rt.get_shape()
    mt, nt = rows // 16, (cols // 8 if rt.role_name == "acc" else 1)
    lanes = [k.lanes_of(a, op) for a in op.args]
    is_row = [a.type.role_name == "row" for a in op.args]
    block = op.body.block
    uses_pos = any(a.uses for a in block.args[-2:])
    g, t2 = _lane_row_col(k, op) if uses_pos else (None, None)
    out: list[SSAValue] = []
    for mi in range(mt):
        for ni in range(nt):
            for e in range(4 if rt.role_name == "acc" else 2):
                half = e // 2 if rt.role_name == "acc" else e
                reg = (mi * nt + ni) * 4 + e
                vals = [regs[mi * 2 + half] if row else regs[reg] for regs, row in zip(lanes, is_row)]
                if uses_pos:
                    r = ins(arith.AddiOp(g, k.index(mi * 16 + 8 * half)))
                    c = ins(arith.AddiOp(t2, k.index(ni * 8 + e % 2))) if rt.role_name == "acc" else k.index(0)
                else:
                    r = c = k.index(0)
                out += k.inline_block(block, [*vals, r, c], op)
    k.lanes[op.result] = out
    k.dead.append(op)


def _frag_reduce(k: GpuKernelLowering, op: mapped.FragReduceOp) -> None:
    """Each row's registers folded in the lane, then across the quad's 4 lanes (xor 1, 2)."""
    st = op.source.type
    _m16_layout(k, op, st)
    ins = lambda o: k.b.ins(o, op)  # noqa: E731
    regs = k.lanes_of(op.source, op)
    rows, cols = st.get_shape()
    mt, nt = rows // 16, cols // 8
    combine = arith.MaxnumfOp if op.kind.data == "max" else arith.AddfOp
    out = []
    for mi in range(mt):
        for half in range(2):
            vals = [regs[(mi * nt + ni) * 4 + 2 * half + e] for ni in range(nt) for e in range(2)]
            while len(vals) > 1:  # a tree: independent operations
                pairs = [ins(combine(a, b)) for a, b in zip(vals[0::2], vals[1::2])]
                vals = pairs + ([vals[-1]] if len(vals) % 2 else [])
            v = vals[0]
            for mask in (1, 2):
                v = ins(combine(v, k.shuffle_xor(v, mask, op)))
            out.append(v)
    k.lanes[op.result] = out
    k.dead.append(op)


def _frag_convert(k: GpuKernelLowering, op: mapped.FragConvertOp) -> None:
    """The a tile (mi, ki) is the acc tiles (mi, 2ki) and (mi, 2ki + 1): registers {0,1}, {2,3} of
    each, rounded and packed in pairs."""
    st, rt = op.source.type, op.result.type
    ins = lambda o: k.b.ins(o, op)  # noqa: E731
    regs = k.lanes_of(op.source, op)
    rows, cols = st.get_shape()
    nt = cols // 8
    out = []
    for mi in range(rows // 16):
        for ki in range(cols // 16):
            for ni in (2 * ki, 2 * ki + 1):
                for half in range(2):
                    first = (mi * nt + ni) * 4 + 2 * half
                    lo, hi = (ins(arith.TruncFOp(regs[first + e], rt.element_type)) for e in range(2))
                    out.append(ins(nv.PackOp(lo, hi)))
    k.lanes[op.result] = out
    k.dead.append(op)


def _frag_extract(k: GpuKernelLowering, op: mapped.FragExtractOp) -> None:
    """The source's instruction tiles (row-major, `regs_per_tile` registers each) in the window."""
    st, rt = op.source.type, op.result.type
    regs = k.lanes_of(op.source, op)
    per = st.regs_per_tile()
    (tr, tc), (_, snt) = st.instr_tile(), st.tile_counts()
    r0, c0 = op.offset_values
    rmt, rnt = rt.tile_counts()
    out = []
    for i in range(rmt):
        for j in range(rnt):
            first = ((r0 // tr + i) * snt + c0 // tc + j) * per
            out += regs[first : first + per]
    k.lanes[op.result] = out
    k.dead.append(op)


def _frag_store_rows(k: GpuKernelLowering, op: mapped.FragStoreOp) -> None:
    """A row fragment: the first lane of each quad stores its rows g and g + 8 of every tile."""
    ins = lambda o: k.b.ins(o, op)  # noqa: E731
    regs = k.lanes_of(op.value, op)
    g, t2 = _lane_row_col(k, op)
    first_lane = ins(arith.CmpiOp(t2, k.index(0), "eq"))
    idx = list(op.indices)
    r0, c0 = idx[-2], idx[-1]
    epi = op.epilogue.block if op.epilogue is not None and op.epilogue.blocks else None
    for i, v in enumerate(regs):
        r = ins(arith.AddiOp(r0, ins(arith.AddiOp(g, k.index((i // 2) * 16 + 8 * (i % 2))))))
        ok = ins(arith.AndIOp(first_lane, k.in_bounds(op.dest, r, c0, op)))
        k.store_element(op, epi, v, r, c0, k.b.guarded(op, ok))
    k.dead.append(op)


# the mapped ops lowered here (NvTarget.lowerings)
LOWERINGS = {
    mapped.AsyncCopyOp: _async_copy,
    mapped.AsyncCopyWindowOp: _async_copy_window,
    mapped.AsyncCommitOp: _async_commit,
    mapped.AsyncWaitOp: _async_wait,
    mapped.FragFillOp: _frag_fill,
    mapped.FragLoadOp: _frag_load,
    mapped.MmaOp: _mma,
    mapped.FragMapOp: _frag_map,
    mapped.FragReduceOp: _frag_reduce,
    mapped.FragConvertOp: _frag_convert,
    mapped.FragExtractOp: _frag_extract,
    mapped.FragStoreOp: _frag_store,
}

__all__ = ["LOWERINGS", "store_pairs"]
