"""The Hopper (sm_90a) contraction kernel: TMA, wgmma and warp specialization, as mapped IR.

One block computes a BM x BN tile of C with 1 + C warpgroups (C = 1 consumer for BM = 64, else
2): a `mapped.ws_pipeline` whose producer warpgroup fills a ring of `stages` shared-memory slots
with `mapped.tma_load`s (64-wide K steps: one 128-byte swizzle span; zeros outside the matrices)
and whose consumer warpgroups each accumulate BM / C rows with one `mapped.wgmma` per step; the
slots hand over through full/empty mbarriers. After the pipeline the producer has exited; each
consumer stores its `wgmma` accumulator through `mapped.frag_store`, running the group's fused
epilogue (bias, activation, residual, cast) per element with bounds-checked stores.

Applies where the mma.sync kernel does (tensor_core_layout: f16/bf16 x f16/bf16 -> f32, plain
row-major A [M, K] and B [K, N] or [N, K], 16-byte rows), without batch axes: batched
contractions keep the mma.sync kernel. Tiles: B [K, N] is loaded as BN / 64 panels of 64 x 64;
A stored K x M (a weight gradient's dy^T) likewise as BM / 64 panels, read by wgmma's transposed
A. Grids of few tiles over a long K split K (gemm_gpu_tc.split_plan, the `split-k` option).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, f32, i64
from xdsl.ir import Block, Region, SSAValue

from tilec.conversion.tile_to_mapped.gemm_gpu_tc import (
    begin_tc_kernel,
    fragment_epilogue,
    split_plan,
    tensor_core_layout,
)
from tilec.conversion.tile_to_mapped.gemm_nv_mma import GROUP_M, grouped_order
from tilec.conversion.tile_to_mapped.gpu_kernelgen import GpuKernelGen
from tilec.conversion.tile_to_mapped.group_info import ContractionAxes, contraction_of
from tilec.conversion.tile_to_mapped.host import HostBuilder
from tilec.conversion.tile_to_mapped.loopnest import Scope
from tilec.conversion.tile_to_mapped.options import WGMMA_BK, NvMapping, wgmma_stage_bytes
from tilec.diagnostics import NotSupportedYet
from tilec.dialects import mapped, tile

BK = WGMMA_BK
HOPPER_SMS = 132
"""SMs of the sm_90a parts the kernel is tuned on (H100 SXM, H200): the wave the auto tile fills."""
SMEM_PER_SM = 232448
"""Shared memory of one SM (and at most one block) on sm_90a."""
TILES = {
    False: {(128, 256): 1.16, (128, 128): 1.0, (256, 128): 1.1, (64, 128): 0.66, (64, 64): 0.57},
    True: {(128, 256): 1.4, (128, 128): 1.0, (256, 128): 1.0, (64, 128): 0.9, (64, 64): 0.5},
}
"""Per feed (False: TMA, True: cp.async), (block rows, block columns) -> steady-state throughput
per SM relative to 128 x 128, from benchmarks/wgmma_tiles.py on an H100: square GEMMs for TMA
(2026-12-06), ResNet-50's forward convolutions for cp.async (2026-12-07, kernel times from the
profiler: the factors and RAMP[True] that pick the fastest measured tile on 14 of its 15 layers
and lose at most 5% on the other; the 2026-12-06 factors, fitted to host-bound call times, lost up
to 18%)."""
RAMP = {False: {1: 3.0, 2: 0.5}, True: {1: 2.0, 2: 1.0}}
"""Per feed, K steps a block loses to its pipeline's fill and its epilogue, by blocks per SM: with
one block nothing overlaps them; with two, the other block's main loop runs meanwhile."""


@dataclass(frozen=True)
class WgmmaTile:
    """The shape of a wgmma kernel: block rows and columns, pipeline stages, blocks per SM (64-row
    blocks, one consumer warpgroup each, run two per SM)."""

    bm: int
    bn: int
    stages: int
    ctas: int


def wgmma_tile(
    options: NvMapping, m: int, n: int, k: int, widths=(256, 128), copies: bool = False, split_k: int = 1
) -> WgmmaTile:
    """The tile of an M x N x K problem: wgmma-m / wgmma-n where given; for 0 the candidate whose
    grid keeps the SMs busiest: (tiles / (waves x slots), slots = SMs x blocks per SM) x the share
    of the tiles inside C x the tile's throughput for this feed (TILES; `copies`: staged by
    cp.async) x the share of its K steps not lost to the ramp (RAMP), where the kernel splits K as
    `split_plan(tiles, steps, split_k)` does (`split_k` 1: it does not). Stages:
    `stages`, fewer where two blocks' rings must share an SM. Unknown (dynamic) sizes: 128 x the
    widest."""
    bms = [options.wgmma_m] if options.wgmma_m else [128, 64]
    bns = [options.wgmma_n] if options.wgmma_n else list(widths)
    best, best_score = None, -1.0
    for bm in bms:
        for bn in bns:
            ctas = 2 if bm == 64 else 1
            if (bm == 256 or ctas == 2) and bn > 128:  # a consumer's bm/2 x bn (or 64 x bn at 128 registers
                continue  # per thread with two blocks) accumulator must fit its registers
            stages = min(options.stages, (SMEM_PER_SM // ctas - 1024) // wgmma_stage_bytes(bm, bn))
            if stages < 2:
                continue
            if m < 0 or n < 0 or k < 0:
                score = 2.0 if (bm, bn) == (128, max(bns)) else TILES[copies].get((bm, bn), 0.5)
            else:
                score = tile_score(bm, bn, ctas, m, n, k, copies, split_k)
            if score > best_score:
                best, best_score = WgmmaTile(bm, bn, stages, ctas), score
    if best is None:
        raise NotSupportedYet(
            f"a wgmma tile for wgmma-m={options.wgmma_m} wgmma-n={options.wgmma_n} that fits shared memory"
        )
    return best


def tile_score(bm: int, bn: int, ctas: int, m: int, n: int, k: int, copies: bool, split_k: int) -> float:
    """The throughput of a BM x BN tile (`ctas` blocks per SM) on an M x N x K problem relative
    to a 128 x 128 tile's steady state: the SMs kept busy by the grid (split as split_plan
    does) x the tiles' share inside C x the tile's factor (TILES) x the K steps not lost to the
    pipeline's ramp (RAMP)."""
    tm, tn = -(-m // bm), -(-n // bn)
    slots = HOPPER_SMS * ctas
    splits, steps = split_plan(tm * tn, -(-k // BK), split_k)
    blocks = tm * tn * splits
    busy = blocks / (-(-blocks // slots) * slots)
    useful = m * n / (tm * bm * tn * bn)  # the tiles' share that is inside C
    return busy * useful * TILES[copies].get((bm, bn), 0.5) * steps / (steps + RAMP[copies][ctas])


TILE_FLOPS = 6.6e14
"""FLOP/s of 128 x 128 tiles on every SM in steady state (an H100 / H200, 16-bit inputs): the
unit of `tile_score` in seconds, for the tuner's model (`predicted_seconds`)."""
MEMORY_BYTES_PER_S = 3.0e12
"""The HBM streaming rate the model charges (a round figure below an H100 / H200's copy bandwidth):
split-K's partials here, the ops it does not model in `CudaBackend.predicted_stream_seconds`."""


def predicted_seconds(options: NvMapping, m: int, n: int, k: int, copies: bool = False, widths=(256, 128)) -> float:
    """The model's time of a wgmma kernel on M x N x K with `options`: the tile wgmma_tile picks,
    its score, and with split-K the f32 partials written and read back by the sum kernel."""
    split_k = 1 if copies else options.split_k  # (the convolution's tile score counts no split)
    t = wgmma_tile(options, m, n, k, widths, copies, split_k)
    seconds = 2 * m * n * k / (TILE_FLOPS * tile_score(t.bm, t.bn, t.ctas, m, n, k, copies, split_k))
    splits, _ = split_plan(-(-m // t.bm) * -(-n // t.bn), -(-k // BK), options.split_k)
    if splits > 1:
        seconds += 2 * splits * m * n * 4 / MEMORY_BYTES_PER_S
    return seconds


def wgmma_regs(tile: WgmmaTile, copies: bool) -> tuple[int, int]:
    """setmaxnreg (producer, consumer): the pool at entry is (1 + consumers) x entry registers
    per thread. A TMA producer (one issuing thread) keeps 40 and the consumers take the rest (at
    most 232). With cp.async the producer's 128 threads compute window addresses: the consumers
    keep their accumulators (width / 2 registers) plus 72, the producer gets the rest (ptxas:
    no spills on ResNet-50's convolutions and the square GEMMs)."""
    consumers = consumers_for(tile.bm)
    entry = mapped.entry_registers(128 * (1 + consumers), tile.ctas)
    pool = (1 + consumers) * entry
    if not copies:
        return 40, min(232, (pool - 40) // consumers // 8 * 8)
    consumer = max(entry, min(232, tile.bn // 2 + 72))
    return min(entry, (pool - consumers * consumer) // 8 * 8), consumer


def consumers_for(block_m: int) -> int:
    """Consumer warpgroups of a BM-row tile: one for 64 rows, else two (each BM / 2 rows)."""
    return 1 if block_m == 64 else 2


@dataclass
class WgmmaMainloop:
    """The warp-specialized main loop of a wgmma kernel under construction (`wgmma_mainloop`)."""

    sA: SSAValue  # [stages, BM, 64] ring, TMA layout, or [stages, BM / 64, 64, 64] panels (A stored K x M)
    sB: SSAValue  # [stages, BN, 64] (B stored N x K) or [stages, BN / 64, 64, 64] panels (K x N)
    m0: SSAValue  # the block's first row and column of C
    n0: SSAValue
    row: SSAValue  # this consumer warpgroup's first row within the block tile
    result: SSAValue  # the accumulator after the loop (a wgmma fragment)
    staged: bool  # wgmma-store=staged: stores go through the idle ring (`staging`)

    def staging(self, dest: mapped.BufType) -> list[SSAValue]:
        """The ring buffers a `mapped.frag_store` of the result into `dest` passes through, once
        the pipeline is done with them: the larger ring where it holds every consumer's tile,
        else one ring per consumer (A's for the first, B's for the second) where each holds
        one; none (the store goes direct) for wgmma-store=direct, elements other than 16/32-bit,
        rows that are not whole 16-byte chunks, or rings too small."""
        last, eb = dest.get_shape()[-1], dest.element_bytes
        if not self.staged or eb not in (2, 4) or last < 0 or (last * eb) % 16:
            return []
        pipe = self.result.owner
        assert isinstance(pipe, mapped.WsPipelineOp)
        consumers = pipe.consumers.data
        tile = mapped.FragStoreOp.staging_bytes(self.result.type, dest)
        size = lambda b: b.type.size_bytes() or 0  # noqa: E731
        rings = sorted((self.sA, self.sB), key=size, reverse=True)
        if size(rings[0]) >= consumers * tile:
            return rings[:1]
        if consumers == 2 and size(rings[1]) >= tile:
            return [self.sA, self.sB]
        return []


def wgmma_mainloop(
    g: GpuKernelGen,
    elt,
    tile: WgmmaTile,
    b_trans: bool,
    k_lo: SSAValue,
    k_hi: SSAValue,
    fill: Callable[[Scope, SSAValue, SSAValue, WgmmaMainloop], None],
    copies: bool = False,
    staged: bool = False,
    a_trans: bool = False,
) -> WgmmaMainloop:
    """Allocate the rings and barriers, order the blocks (grouped rasterization: grid x over N
    tiles, y over M tiles) and build the `mapped.ws_pipeline` over K in [k_lo, k_hi): `fill(scope,
    k, slot, loop)` emits the produce region's loads of step k into `slot`; each consumer
    warpgroup runs one `mapped.wgmma` of its BM / consumers rows against the whole B slot.
    `staged`: the result's stores may pass through the ring (`WgmmaMainloop.staging`). `a_trans`:
    A is stored K x M, its ring holds BM / 64 panels of 64 (k) x 64 (m) like B's K x N panels."""
    BM, BN, S = tile.bm, tile.bn, tile.stages
    consumers = consumers_for(BM)
    rows = BM // consumers
    swz = mapped.SwizzleAttr(*mapped.TMA_SWIZZLE)
    alloc = lambda t: g.emit(mapped.AllocOp(t), g.top).results[0]  # noqa: E731
    sA = alloc(mapped.BufType([S, BM // 64, BK, 64] if a_trans else [S, BM, BK], elt, "shared", swz))
    sB = alloc(mapped.BufType([S, BN, BK] if b_trans else [S, BN // 64, BK, 64], elt, "shared", swz))
    bars = alloc(mapped.BufType([2 * S], i64, "shared"))
    bx, by = (g.ev(mapped.BlockIdOp(d)) for d in "xy")
    pid_m, pid_n = grouped_order(g, bx, by, GROUP_M)
    m0 = g.ev(arith.MuliOp(pid_m, g.index(BM)))
    n0 = g.ev(arith.MuliOp(pid_n, g.index(BN)))
    wg = g.ev(mapped.WarpgroupIdOp())
    row = g.ev(arith.MuliOp(g.ev(arith.SubiOp(wg, g.index(1))), g.index(rows)))
    acc_t = mapped.FragType([rows, BN], f32, "acc", "wgmma")
    zero = g.ev(mapped.FragFillOp(0.0, acc_t))
    c0 = g.index(0)
    produce = Block(arg_types=[IndexType(), IndexType()])
    consume = Block(arg_types=[IndexType(), IndexType(), acc_t])
    regs = wgmma_regs(tile, copies)
    pipe = mapped.WsPipelineOp(
        k_lo, k_hi, g.index(BK), bars, S, consumers, regs, [zero], Region(produce), Region(consume), tile.ctas
    )
    g.emit(pipe, g.top)
    loop = WgmmaMainloop(sA, sB, m0, n0, row, pipe.results[0], staged)
    pk, pslot = produce.args
    ps = Scope(produce, g.top)
    for a in produce.args:
        g.scope_of[a] = ps
    fill(ps, pk, pslot, loop)
    produce.add_op(mapped.YieldOp())
    _, cslot, acc = consume.args
    cs = Scope(consume, g.top)
    for a in consume.args:
        g.scope_of[a] = cs
    b_idx = [cslot, c0, c0] if b_trans else [cslot, c0, c0, c0]
    if a_trans:  # this consumer's first panel (its rows are whole panels)
        a_idx = [cslot, g.emit(arith.DivUIOp(row, g.index(64)), cs).results[0], c0, c0]
    else:
        a_idx = [cslot, row, c0]
    wg_op = mapped.WgmmaOp(sA, a_idx, sB, b_idx, acc, transposed=b_trans, lhs_transposed=a_trans)
    d = g.emit(wg_op, cs).results[0]
    consume.add_op(mapped.YieldOp(d))
    g.scope_of[loop.result] = g.top
    return loop


def lower_wgmma(name: str, fused: tile.FusedOp, host: HostBuilder, options: NvMapping, copies=None):
    """The warp-specialized wgmma kernel of a contraction group, or None where it does not apply
    (`copies`: tensor_core_layout's, for operands without 16-byte rows). A stored K x M (a weight
    gradient's dy^T) is read as it is: 64-wide panels and wgmma's transposed A. With split-K
    (gemm_gpu_tc.split_plan) a list: the partial sums, then their sum."""
    c = contraction_of(fused)
    sp = ContractionAxes(c)
    if sp.batch:
        return None
    layout = tensor_core_layout(c, fused, host, copies, a_k_by_m=True)
    if layout is None:
        return None
    lv, rv, b_trans, a_trans = layout
    m, n = (v.type.get_shape()[a] for v, a in ((c.lhs, sp.lfree[0]), (c.rhs, sp.rfree[0])))
    tile = wgmma_tile(options, m, n, c.lhs.type.get_shape()[sp.axes[0][0]], split_k=options.split_k)
    BM, BN = tile.bm, tile.bn
    k = begin_tc_kernel(name, fused, host, lv, rv, 128 * (1 + consumers_for(BM)), BM, BN, BK, options.split_k)
    g, A, B = k.g, k.A, k.B
    c0 = g.index(0)

    def fill(ps: Scope, pk: SSAValue, pslot: SSAValue, loop: WgmmaMainloop) -> None:
        """TMA: the A box (or its 64-wide panels) and the B box (or its panels) of step k into `slot`."""
        if a_trans:
            for j in range(BM // 64):
                mj = g.emit(arith.AddiOp(loop.m0, g.index(64 * j)), ps).results[0] if j else loop.m0
                g.emit(mapped.TmaLoadOp(A, [pk, mj], loop.sA, [pslot, g.index(j), c0, c0], [BK, 64]), ps)
        else:
            g.emit(mapped.TmaLoadOp(A, [loop.m0, pk], loop.sA, [pslot, c0, c0], [BM, BK]), ps)
        if b_trans:
            g.emit(mapped.TmaLoadOp(B, [loop.n0, pk], loop.sB, [pslot, c0, c0], [BN, BK]), ps)
            return
        for j in range(BN // 64):
            nj = g.emit(arith.AddiOp(loop.n0, g.index(64 * j)), ps).results[0] if j else loop.n0
            g.emit(mapped.TmaLoadOp(B, [pk, nj], loop.sB, [pslot, g.index(j), c0, c0], [BK, 64]), ps)

    staged = options.wgmma_store == "staged"
    k_lo, k_hi = k.k_range()
    loop = wgmma_mainloop(g, c.lhs.type.element_type, tile, b_trans, k_lo, k_hi, fill, staged=staged, a_trans=a_trans)
    return fragment_epilogue(k, loop.result, [], loop.m0, loop.n0, loop.row, c0, loop.staging)


__all__ = [
    "BK",
    "WgmmaMainloop",
    "WgmmaTile",
    "consumers_for",
    "lower_wgmma",
    "wgmma_mainloop",
    "wgmma_regs",
    "wgmma_tile",
]
