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

from tilec.conversion.tile_to_mapped.gemm_gpu_tc import (
    begin_tc_kernel,
    fragment_epilogue,
    tensor_core_layout,
    warp_offsets,
)
from tilec.conversion.tile_to_mapped.gpu_kernelgen import GpuKernelGen
from tilec.conversion.tile_to_mapped.group_info import contraction_of
from tilec.conversion.tile_to_mapped.host import HostBuilder
from tilec.conversion.tile_to_mapped.loopnest import Scope
from tilec.conversion.tile_to_mapped.options import NvMapping
from tilec.dialects import mapped, tile

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


def grouped_order(g: GpuKernelGen, bx: SSAValue, by: SSAValue, group: int = GROUP_M) -> tuple[SSAValue, SSAValue]:
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


def lower_mma(name: str, fused: tile.FusedOp, host: HostBuilder, options: NvMapping, copies=None):
    """The mma.sync kernel(s) of a contraction group, or None where its layout does not apply
    (`copies`: tensor_core_layout's, for operands without 16-byte rows or with A stored K x M).
    With split-K (gemm_gpu_tc.split_plan) a list: the partial sums, then their sum."""
    c = contraction_of(fused)
    layout = tensor_core_layout(c, fused, host, copies)
    if layout is None:
        return None
    lv, rv, b_trans, _ = layout
    BM, BN, BK, S = options.block_m, options.block_n, options.block_k, options.stages
    WM, WN = BM // options.warps_m, BN // options.warps_n
    elt = c.lhs.type.element_type
    k = begin_tc_kernel(name, fused, host, lv, rv, 32 * options.warps_m * options.warps_n, BM, BN, BK, options.split_k)
    g, sp, A, B = k.g, k.sp, k.A, k.B
    lhs = c.lhs
    a_sw = swizzle_for_row(BK * 2)
    sA = g.emit(mapped.AllocOp(mapped.BufType([S, BM, BK], elt, "shared", a_sw)), g.top).results[0]
    if b_trans:
        sB = g.emit(mapped.AllocOp(mapped.BufType([S, BN, BK], elt, "shared", swizzle_for_row(BK * 2))), g.top).results[
            0
        ]
    else:
        sB = g.emit(mapped.AllocOp(mapped.BufType([S, BK, BN], elt, "shared", swizzle_for_row(BN * 2))), g.top).results[
            0
        ]
    bx, by, bz = (g.ev(mapped.BlockIdOp(d)) for d in "xyz")
    pid_m, pid_n = grouped_order(g, bx, by, GROUP_M)
    m0 = g.ev(arith.MuliOp(pid_m, g.index(BM)))
    n0 = g.ev(arith.MuliOp(pid_n, g.index(BN)))
    bsz = [g.size(lhs, a) for a, _ in sp.batch]
    bidx = g.delinearize(bz, bsz) if bsz else []
    wm, wn = warp_offsets(g, options.warps_n, WM, WN)
    acc_t = mapped.FragType([WM, WN], f32, "acc", INSTR)
    zero = g.ev(mapped.FragFillOp(0.0, acc_t))
    c0 = g.index(0)
    k_lo, k_hi = k.k_range()

    produce = Block(arg_types=[IndexType(), IndexType()])
    consume = Block(arg_types=[IndexType(), IndexType(), acc_t])
    pipe = mapped.PipelineOp(k_lo, k_hi, g.index(BK), S, [zero], Region(produce), Region(consume))
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
    return fragment_epilogue(k, result, bidx, m0, n0, wm, wn)
