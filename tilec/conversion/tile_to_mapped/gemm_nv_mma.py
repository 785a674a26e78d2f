"""The tensor-core contraction kernel (f16/bf16 inputs, f32 accumulation), as mapped IR.

One block computes a BM x BN tile of C with warps_m x warps_n warps, each owning a
(BM/warps_m) x (BN/warps_n) accumulator fragment in the m16n8k16 layout. K advances BK at a
time through a `mapped.pipeline` of `stages` shared-memory slots filled with `mapped.async_copy`
(cp.async, zero-filled outside the matrices); shared tiles are XOR-swizzled so fragment loads
(ldmatrix) are free of bank conflicts. The group's epilogue runs in `mapped.frag_store`.

Applies when the operands are plain row-major views: A is [batch..., M, K] with K contiguous,
B is [batch..., K, N] (N contiguous) or [batch..., N, K] (K contiguous), with static contiguous
dimensions that are multiples of 8 (16-byte rows for cp.async). Other contractions take the
SIMT kernel (gpu_gemm.py).
"""

from __future__ import annotations

import math as pymath

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, f32
from xdsl.ir import Block, Region, SSAValue

from tilec.dialects import mapped, tile
from tilec.conversion.tile_to_mapped.gemm_cpu import _acc_to_result, _contract, _Spaces
from tilec.conversion.tile_to_mapped.groups_gpu import GpuKernelGen, GpuOptions, _yielded
from tilec.conversion.tile_to_mapped.host import HostBuilder, View
from tilec.conversion.tile_to_mapped.loopnest import Scope

INSTR = "m16n8k16"


def swizzle_for_row(row_bytes: int) -> mapped.SwizzleAttr:
    """The XOR swizzle that makes 8 rows x 16-byte ldmatrix reads conflict-free for this row size."""
    chunks = row_bytes // 16
    bits = min(3, int(pymath.log2(chunks)))
    shift = max(3, int(pymath.log2(row_bytes)) - 4)
    return mapped.SwizzleAttr(bits, 4, shift)


GROUP_M = 8
"""Blocks run in groups of GROUP_M tile rows (column by column inside a group), so the A and B
panels a wave of blocks reads stay in L2 (the usual grouped rasterization)."""


def _grouped_order(g: GpuKernelGen, bx: SSAValue, by: SSAValue, group: int) -> tuple[SSAValue, SSAValue]:
    """(tile row, tile column) of this block under grouped rasterization."""
    gx = g.ev(mapped.GridDimOp("x"))
    gy = g.ev(mapped.GridDimOp("y"))
    pid = g.ev(arith.AddiOp(g.ev(arith.MuliOp(by, gx)), bx))
    per_group = g.ev(arith.MuliOp(gx, g.index(group)))
    gid = g.ev(arith.DivUIOp(pid, per_group))
    first_m = g.ev(arith.MuliOp(gid, g.index(group)))
    gm = g.ev(arith.MinUIOp(g.ev(arith.SubiOp(gy, first_m)), g.index(group)))
    within = g.ev(arith.RemUIOp(pid, per_group))
    pid_m = g.ev(arith.AddiOp(first_m, g.ev(arith.RemUIOp(within, gm))))
    pid_n = g.ev(arith.DivUIOp(within, gm))
    return pid_m, pid_n


def tc_layout(c: tile.ContractOp, fused: tile.FusedOp, host: HostBuilder) -> tuple[View, View, bool] | None:
    """(lhs view, rhs view, rhs is N x K) when the tensor-core kernel applies, else None."""
    if str(c.lhs.type.element_type) not in ("f16", "bf16") or str(c.acc) != "f32":
        return None
    sp = _Spaces(c)
    if len(sp.lfree) != 1 or len(sp.rfree) != 1 or len(sp.axes) != 1:
        return None
    body_args = list(fused.body.block.args)
    if c.lhs not in body_args or c.rhs not in body_args:
        return None
    try:
        lv = host.view_of(fused.inputs[body_args.index(c.lhs)])
        rv = host.view_of(fused.inputs[body_args.index(c.rhs)])
    except Exception:  # noqa: BLE001 - a view tilec cannot express: the SIMT kernel handles it
        return None
    (ka, kb), = sp.axes
    ma, nb = sp.lfree[0], sp.rfree[0]
    batch_l = [a for a, _ in sp.batch]
    batch_r = [b for _, b in sp.batch]
    if None in lv.index_map or None in rv.index_map:
        return None
    if lv.index_map != [*batch_l, ma, ka]:
        return None
    if rv.index_map == [*batch_r, kb, nb]:
        transposed = False
    elif rv.index_map == [*batch_r, nb, kb]:
        transposed = True
    else:
        return None
    for v in (lv, rv):
        last = v.buf_type.get_shape()[-1]
        if last < 0 or last % 8:
            return None
    return lv, rv, transposed


def lower_tensor_core(name: str, fused: tile.FusedOp, host: HostBuilder, options: GpuOptions):
    c = _contract(fused)
    layout = tc_layout(c, fused, host)
    if layout is None:
        from tilec.conversion.tile_to_mapped.gemm_gpu_simt import _simt

        return _simt(name, fused, host)
    lv, rv, b_trans = layout
    sp = _Spaces(c)
    BM, BN, BK, S = options.block_m, options.block_n, options.block_k, options.stages
    WM, WN = BM // options.warps_m, BN // options.warps_n
    elt = c.lhs.type.element_type
    g = GpuKernelGen(name, host, fused)
    g.block_threads = 32 * options.warps_m * options.warps_n
    outputs = [(v, g.arg_for(host.buffer_for_result(r))) for v, r in zip(_yielded(fused), fused.outputs)]
    A = g.arg_for(lv.buffer)
    B = g.arg_for(rv.buffer)
    lhs, rhs = c.lhs, c.rhs
    g.size(lhs, sp.lfree[0])
    g.size(rhs, sp.rfree[0])
    K = g.size(lhs, sp.axes[0][0])
    he = host.e
    hM = host.size(lhs, sp.lfree[0])
    hN = host.size(rhs, sp.rfree[0])
    hB = he.product([host.size(lhs, a) for a, _ in sp.batch])

    def kv(h: SSAValue) -> SSAValue:
        cv = he.const_value(h)
        return g.index(cv) if cv is not None else g.arg_for(h)

    g._grid_spec = [[g.grid_factor(kv(hN), BN)], [g.grid_factor(kv(hM), BM)], [g.grid_factor(kv(hB), 1)]]
    a_sw = swizzle_for_row(BK * 2)
    sA = g.emit(mapped.AllocOp(mapped.BufType([S, BM, BK], elt, "shared", a_sw)), g.top).results[0]
    if b_trans:
        sB = g.emit(mapped.AllocOp(mapped.BufType([S, BN, BK], elt, "shared", swizzle_for_row(BK * 2))), g.top).results[0]
    else:
        sB = g.emit(mapped.AllocOp(mapped.BufType([S, BK, BN], elt, "shared", swizzle_for_row(BN * 2))), g.top).results[0]
    bx, by, bz = (g.ev(mapped.BlockIdOp(d)) for d in "xyz")
    pid_m, pid_n = _grouped_order(g, bx, by, GROUP_M)
    m0 = g.ev(arith.MuliOp(pid_m, g.index(BM)))
    n0 = g.ev(arith.MuliOp(pid_n, g.index(BN)))
    bsz = [g.size(lhs, a) for a, _ in sp.batch]
    bidx = g.delinearize(bz, bsz) if bsz else []
    warp = g.ev(mapped.WarpIdOp())
    wm = g.ev(arith.MuliOp(g.ev(arith.DivUIOp(warp, g.index(options.warps_n))), g.index(WM)))
    wn = g.ev(arith.MuliOp(g.ev(arith.RemUIOp(warp, g.index(options.warps_n))), g.index(WN)))
    acc_t = mapped.FragType([WM, WN], f32, "acc", INSTR)
    zero = g.ev(mapped.FragFillOp(0.0, acc_t))
    c0 = g.index(0)

    produce = Block(arg_types=[IndexType(), IndexType()])
    consume = Block(arg_types=[IndexType(), IndexType(), acc_t])
    pipe = mapped.PipelineOp(c0, K, g.index(BK), S, [zero], Region(produce), Region(consume))
    g.emit(pipe, g.top)
    # produce: the A and B tiles of step k into `slot`
    pk, pslot = produce.args
    ps = Scope(produce, g.top)
    for a in produce.args:
        g.scope_of[a] = ps
    g.emit(mapped.AsyncCopyOp(A, [*bidx, m0, pk], sA, [pslot, c0, c0], [BM, BK]), ps)
    if b_trans:
        g.emit(mapped.AsyncCopyOp(B, [*bidx, n0, pk], sB, [pslot, c0, c0], [BN, BK]), ps)
    else:
        g.emit(mapped.AsyncCopyOp(B, [*bidx, pk, n0], sB, [pslot, c0, c0], [BK, BN]), ps)
    produce.add_op(mapped.YieldOp())
    # consume: BK / 16 fragment steps
    ck, cslot, acc = consume.args
    cs = Scope(consume, g.top)
    for a in consume.args:
        g.scope_of[a] = cs
    for kk in range(0, BK, 16):
        a_t = mapped.FragType([WM, 16], elt, "a", INSTR)
        b_t = mapped.FragType([16, WN], elt, "b", INSTR)
        fa = g.emit(mapped.FragLoadOp(sA, [cslot, wm, g.index(kk)], a_t), cs).results[0]
        if b_trans:
            fb = g.emit(mapped.FragLoadOp(sB, [cslot, wn, g.index(kk)], b_t, transposed=True), cs).results[0]
        else:
            fb = g.emit(mapped.FragLoadOp(sB, [cslot, g.index(kk), wn], b_t), cs).results[0]
        acc = g.emit(mapped.MmaOp(fa, fb, acc), cs).results[0]
    consume.add_op(mapped.YieldOp(acc))
    result = pipe.results[0]
    g.scope_of[result] = g.top
    # epilogue: one frag_store per output of the group
    row0 = g.ev(arith.AddiOp(m0, wm))
    col0 = g.ev(arith.AddiOp(n0, wn))
    for v, buf in outputs:
        epi = Block(arg_types=[f32, IndexType(), IndexType()])
        es = Scope(epi, g.top)
        for a in epi.args:
            g.scope_of[a] = es
        val, row, col = epi.args
        res_idx = [*bidx, row, col]
        es.memo[(c.result, tuple(res_idx))] = _acc_to_result(g, val, f32, c.result.type.element_type)
        out = g.to_storage(g.value_at(v, res_idx), buf.type.element_type)
        epi.add_op(mapped.YieldOp(out))
        g.emit(mapped.FragStoreOp(result, buf, [*bidx, row0, col0], Region(epi)), g.top)
    return g.finish(), g.launch_args
