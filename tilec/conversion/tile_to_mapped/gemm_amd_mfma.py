"""Contractions on wave-64 GPUs (AMD CDNA), as mapped IR: the matrix-core (MFMA) kernel.

Selected by `tile-to-mapped{target=hip}` (wave 64) for f16/bf16 operands with f32 accumulation
when the operands are plain row-major views (`gemm_gpu_tc.tensor_core_layout`: A is
[batch..., M, K], B is [batch..., K, N] or [batch..., N, K], contiguous rows of whole 16-byte
chunks); everything else (f32, integers, other layouts, `tensor-cores=false`) takes the SIMT
kernel of gemm_gpu_simt.py, which is wave-agnostic.

One block of warps_m x warps_n wavefronts (64 lanes each) computes a BM x BN tile of C; each
wavefront owns a (BM/warps_m) x (BN/warps_n) accumulator fragment in the layout of the MFMA shape
(`mfma` option: m32n32k8, the default, or m16n16k16). K advances BK at a time through two LDS
slots (double buffering, one barrier per step). gfx90a has no asynchronous global->LDS copy, so
the copy is staged through registers: every thread loads its 16-byte chunks of the NEXT A and B
tiles from global memory (bounds-checked: zeros outside the matrices) before the fragment loads
and MFMAs of the current step, and writes them to the other LDS slot after them, so the global
loads are in flight while the matrix cores work:

    stage(k=0) -> slot 0; barrier
    for k: next = load(k + BK); frag_load slot; mma; store next -> other slot; barrier

A/B tiles whose rows are K-contiguous are XOR-swizzled in 16-byte chunks so a wavefront's
fragment reads (32 or 16 rows at one column) spread over the LDS banks. The group's epilogue
(bias, activation, casts) runs in `mapped.frag_store` on every accumulator element.
"""

from __future__ import annotations

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import VectorType, f32
from xdsl.ir import SSAValue

from tilec.conversion.tile_to_mapped.gemm_gpu_tc import (
    begin_tc_kernel,
    fragment_epilogue,
    tensor_core_layout,
    warp_offsets,
)
from tilec.conversion.tile_to_mapped.group_info import contraction_of
from tilec.conversion.tile_to_mapped.host import HostBuilder
from tilec.conversion.tile_to_mapped.loopnest import Scope
from tilec.conversion.tile_to_mapped.options import AmdMapping
from tilec.dialects import mapped, tile

WAVE = 64
CHUNK = 8
"""Elements of one 16-byte global->LDS chunk (f16/bf16)."""


def swizzle_for_row(row_bytes: int) -> mapped.SwizzleAttr | None:
    """XOR 16-byte chunks with the row bits just above one 128-byte bank line (none for 1-chunk rows)."""
    chunks = row_bytes // 16
    if chunks < 2:
        return None
    bits = min(3, chunks.bit_length() - 1)
    shift = max(3, row_bytes.bit_length() - 1 - 4)
    return mapped.SwizzleAttr(bits, 4, shift)


def lower_mfma(name: str, fused: tile.FusedOp, host: HostBuilder, options: AmdMapping, copies=None):
    """The MFMA kernel(s) of a contraction group, or None where its layout does not apply
    (`copies`: tensor_core_layout's, for operands without 16-byte rows or with A stored K x M).
    With split-K (gemm_gpu_tc.split_plan) a list: the partial sums, then their sum."""
    if not mfma_tiles_ok(options):
        return None
    c = contraction_of(fused)
    layout = tensor_core_layout(c, fused, host, copies)
    if layout is None:
        return None
    return _mfma(name, fused, host, options, layout)


def mfma_tiles_ok(o: AmdMapping) -> bool:
    """Block tiles the MFMA kernel can use (else the SIMT kernel runs; the options are hints)."""
    shape = mapped.MMA_SHAPES[o.mfma]
    if o.warps_m < 1 or o.warps_n < 1 or WAVE * o.warps_m * o.warps_n > 1024:
        return False
    wm, wn = o.block_m // o.warps_m, o.block_n // o.warps_n
    threads = WAVE * o.warps_m * o.warps_n
    return (
        o.block_m % o.warps_m == 0
        and o.block_n % o.warps_n == 0
        and wm % shape.m == 0
        and wn % shape.n == 0
        and o.block_k % max(shape.k, CHUNK) == 0
        and (o.block_m * o.block_k // CHUNK) % threads == 0
        and (o.block_n * o.block_k // CHUNK) % threads == 0
    )


def _mfma(name: str, fused: tile.FusedOp, host: HostBuilder, options: AmdMapping, layout):
    lv, rv, b_trans, _ = layout
    instr = options.mfma
    BM, BN, BK = options.block_m, options.block_n, options.block_k
    WM, WN = BM // options.warps_m, BN // options.warps_n
    T = WAVE * options.warps_m * options.warps_n
    k = begin_tc_kernel(name, fused, host, lv, rv, T, BM, BN, BK, options.split_k)
    g, c, sp, A, B, M, N, K = k.g, k.c, k.sp, k.A, k.B, k.M, k.N, k.K
    elt = c.lhs.type.element_type
    lhs = c.lhs
    ebytes = 2
    sA = g.emit(
        mapped.AllocOp(mapped.BufType([2, BM, BK], elt, "shared", swizzle_for_row(BK * ebytes))), g.top
    ).results[0]
    if b_trans:
        sB = g.emit(
            mapped.AllocOp(mapped.BufType([2, BN, BK], elt, "shared", swizzle_for_row(BK * ebytes))), g.top
        ).results[0]
    else:
        sB = g.emit(mapped.AllocOp(mapped.BufType([2, BK, BN], elt, "shared")), g.top).results[0]
    tid = g.ev(mapped.ThreadIdOp("x"))
    bx, by, bz = (g.ev(mapped.BlockIdOp(d)) for d in "xyz")
    m0 = g.ev(arith.MuliOp(by, g.index(BM)))
    n0 = g.ev(arith.MuliOp(bx, g.index(BN)))
    bsz = [g.size(lhs, a) for a, _ in sp.batch]
    bidx = g.delinearize(bz, bsz) if bsz else []
    wm, wn = warp_offsets(g, options.warps_n, WM, WN)
    c0 = g.index(0)
    vt = VectorType(elt, [CHUNK])
    zero_chunk = g.ev(vector.BroadcastOp(g.const(0.0, elt), vt))

    # (global buffer, rows, cols, row base, col base or None for k, row extent, col extent):
    # the tile a thread stages is `rows x cols` of the operand's last two axes
    tiles = [(A, sA, BM, BK, m0, None, M, K)]
    if b_trans:
        tiles.append((B, sB, BN, BK, n0, None, N, K))
    else:
        tiles.append((B, sB, BK, BN, None, n0, K, N))

    def chunk_coords(rows: int, cols: int) -> list[tuple[SSAValue, SSAValue]]:
        per_row = cols // CHUNK
        out = []
        for it in range(rows * per_row // T):
            ch = g.ev(arith.AddiOp(tid, g.index(it * T))) if it else tid
            r = g.ev(arith.DivUIOp(ch, g.index(per_row)))
            cc = g.ev(arith.MuliOp(g.ev(arith.RemUIOp(ch, g.index(per_row))), g.index(CHUNK)))
            out.append((r, cc))
        return out

    coords = [chunk_coords(rows, cols) for (_, _, rows, cols, *_rest) in tiles]

    def load_stage(k0: SSAValue, scope: Scope) -> list[list[SSAValue]]:
        """This thread's chunks of the A and B tiles at k0 (zeros outside the matrices)."""
        stage = []
        for (buf, _, rows, cols, rbase, cbase, rext, cext), cs in zip(tiles, coords):
            vals = []
            for r, cc in cs:
                gr = g.emit(arith.AddiOp(rbase if rbase is not None else k0, r), scope).results[0]
                gc = g.emit(arith.AddiOp(cbase if cbase is not None else k0, cc), scope).results[0]
                ok_r = g.emit(arith.CmpiOp(gr, rext, "ult"), scope).results[0]
                ok_c = g.emit(arith.CmpiOp(gc, cext, "ult"), scope).results[0]
                ok = g.emit(arith.AndIOp(ok_r, ok_c), scope).results[0]
                sr = g.emit(arith.SelectOp(ok, gr, c0), scope).results[0]
                sc = g.emit(arith.SelectOp(ok, gc, c0), scope).results[0]
                v = g.emit(mapped.LoadOp(buf, [*bidx, sr, sc], vt), scope).results[0]
                vals.append(g.emit(arith.SelectOp(ok, v, zero_chunk), scope).results[0])
            stage.append(vals)
        return stage

    def store_stage(stage: list[list[SSAValue]], slot: SSAValue, scope: Scope) -> None:
        for (_, sbuf, *_rest), cs, vals in zip(tiles, coords, stage):
            for (r, cc), v in zip(cs, vals):
                g.emit(mapped.StoreOp(v, sbuf, [slot, r, cc]), scope)

    k_lo, k_hi = k.k_range()
    store_stage(load_stage(k_lo, g.top), c0, g.top)
    g.emit(mapped.BarrierOp(), g.top)

    acc_t = mapped.FragType([WM, WN], f32, "acc", instr)
    zero = g.ev(mapped.FragFillOp(0.0, acc_t))
    loop, body = g.open_for(g.top, k_lo, k_hi, g.index(BK), [zero])
    k0 = body.block.args[0]
    acc = body.block.args[1]
    done = g.emit(arith.SubiOp(k0, k_lo), body).results[0] if k.splits > 1 else k0
    step = g.emit(arith.DivUIOp(done, g.index(BK)), body).results[0]
    slot = g.emit(arith.RemUIOp(step, g.index(2)), body).results[0]
    other = g.emit(arith.SubiOp(g.index(1), slot), body).results[0]
    k_next = g.emit(arith.AddiOp(k0, g.index(BK)), body).results[0]
    nxt = load_stage(k_next, body)
    a_t = mapped.FragType([WM, BK], elt, "a", instr)
    b_t = mapped.FragType([BK, WN], elt, "b", instr)
    fa = g.emit(mapped.FragLoadOp(sA, [slot, wm, c0], a_t), body).results[0]
    if b_trans:
        fb = g.emit(mapped.FragLoadOp(sB, [slot, wn, c0], b_t, transposed=True), body).results[0]
    else:
        fb = g.emit(mapped.FragLoadOp(sB, [slot, c0, wn], b_t), body).results[0]
    acc = g.emit(mapped.MmaOp(fa, fb, acc), body).results[0]
    store_stage(nxt, other, body)
    g.emit(mapped.BarrierOp(), body)
    (result,) = g.close_for(g.top, loop, body, [acc])
    g.scope_of[result] = g.top

    return fragment_epilogue(k, result, bidx, m0, n0, wm, wn)


__all__ = ["lower_mfma", "mfma_tiles_ok", "swizzle_for_row"]
