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
contractions keep the mma.sync kernel. Tiles: B [K, N] is loaded as BN / 64 panels of 64 x 64.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, f32, i64
from xdsl.ir import Block, Region, SSAValue

from tilec.archs import SMEM_LIMIT
from tilec.conversion.tile_to_mapped.gemm_gpu_tc import begin_tc_kernel, fragment_epilogue, tensor_core_layout
from tilec.conversion.tile_to_mapped.gemm_nv_mma import GROUP_M, grouped_order
from tilec.conversion.tile_to_mapped.gpu_kernelgen import GpuKernelGen
from tilec.conversion.tile_to_mapped.group_info import ContractionAxes, contraction_of
from tilec.conversion.tile_to_mapped.host import HostBuilder
from tilec.conversion.tile_to_mapped.loopnest import Scope
from tilec.conversion.tile_to_mapped.options import WGMMA_BK, WGMMA_WIDTHS, NvMapping, wgmma_stage_bytes
from tilec.dialects import mapped, tile

BK = WGMMA_BK
REGS = (40, 232)
"""setmaxnreg: the producer warpgroup drops to 40 registers, the consumers rise to 232 (DeepGEMM's split)."""


HOPPER_SMS = 132
"""SMs of the sm_90a parts the kernel is tuned on (H100 SXM, H200): the wave the auto tile fills."""
WIDE_EFFICIENCY = 1.25
"""Throughput per SM of a 256-wide tile over a 128-wide one (measured on the H100: 675 vs 536
TFLOP/s at 4096^3 f16): a narrower tile must fill the SMs this much better to be chosen."""


def wgmma_width(options: NvMapping, m: int, n: int, smem: int | None = None) -> int:
    """The block width: wgmma-n, or for 0 the width whose grid of BM x width tiles keeps the
    SMs busiest (tiles / (waves x SMs), the wide tile credited WIDE_EFFICIENCY), among those whose
    stages fit `smem` bytes. Unknown (dynamic) sizes take the widest."""
    if options.wgmma_n:
        return options.wgmma_n
    fits = [
        w
        for w in WGMMA_WIDTHS
        if (smem is None or options.stages * wgmma_stage_bytes(options.block_m, w) <= smem)
        and (options.block_m < 256 or w <= 128)  # a consumer's 128 x w accumulator must fit its registers
    ]
    if not fits:
        return WGMMA_WIDTHS[-1]
    if m < 0 or n < 0:
        return fits[0]

    def score(w: int) -> float:
        tiles = -(-m // options.block_m) * -(-n // w)
        waves = -(-tiles // HOPPER_SMS)
        return tiles / (waves * HOPPER_SMS) * (WIDE_EFFICIENCY if w == 256 else 1.0)

    return max(fits, key=score)


def consumers_for(block_m: int) -> int:
    """Consumer warpgroups of a BM-row tile: one for 64 rows, else two (each BM / 2 rows)."""
    return 1 if block_m == 64 else 2


@dataclass
class WgmmaMainloop:
    """The warp-specialized main loop of a wgmma kernel under construction (`wgmma_mainloop`)."""

    sA: SSAValue  # [stages, BM, 64] ring, TMA layout
    sB: SSAValue  # [stages, BN, 64] (B stored N x K) or [stages, BN / 64, 64, 64] panels (K x N)
    m0: SSAValue  # the block's first row and column of C
    n0: SSAValue
    row: SSAValue  # this consumer warpgroup's first row within the block tile
    result: SSAValue  # the accumulator after the loop (a wgmma fragment)


def wgmma_mainloop(
    g: GpuKernelGen,
    elt,
    BM: int,
    BN: int,
    S: int,
    b_trans: bool,
    k_lo: SSAValue,
    k_hi: SSAValue,
    fill: Callable[[Scope, SSAValue, SSAValue, WgmmaMainloop], None],
    regs: tuple[int, int] = REGS,
) -> WgmmaMainloop:
    """Allocate the rings and barriers, order the blocks (grouped rasterization: grid x over N
    tiles, y over M tiles) and build the `mapped.ws_pipeline` over K in [k_lo, k_hi): `fill(scope,
    k, slot, loop)` emits the produce region's loads of step k into `slot`; each consumer
    warpgroup runs one `mapped.wgmma` of its BM / consumers rows against the whole B slot."""
    consumers = consumers_for(BM)
    rows = BM // consumers
    swz = mapped.SwizzleAttr(*mapped.TMA_SWIZZLE)
    alloc = lambda t: g.emit(mapped.AllocOp(t), g.top).results[0]  # noqa: E731
    sA = alloc(mapped.BufType([S, BM, BK], elt, "shared", swz))
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
    pipe = mapped.WsPipelineOp(
        k_lo, k_hi, g.index(BK), bars, S, consumers, regs, [zero], Region(produce), Region(consume)
    )
    g.emit(pipe, g.top)
    loop = WgmmaMainloop(sA, sB, m0, n0, row, pipe.results[0])
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
    d = g.emit(mapped.WgmmaOp(sA, [cslot, row, c0], sB, b_idx, acc, transposed=b_trans), cs).results[0]
    consume.add_op(mapped.YieldOp(d))
    g.scope_of[loop.result] = g.top
    return loop


def lower_wgmma(name: str, fused: tile.FusedOp, host: HostBuilder, options: NvMapping):
    """The warp-specialized wgmma kernel of a contraction group, or None where it does not apply."""
    c = contraction_of(fused)
    layout = tensor_core_layout(c, fused, host)
    sp = ContractionAxes(c)
    if layout is None or sp.batch:
        return None
    lv, rv, b_trans = layout
    BM, S = options.block_m, options.stages
    m, n = (v.type.get_shape()[a] for v, a in ((c.lhs, sp.lfree[0]), (c.rhs, sp.rfree[0])))
    BN = wgmma_width(options, m, n, SMEM_LIMIT["sm_90a"])
    k = begin_tc_kernel(name, fused, host, lv, rv, 128 * (1 + consumers_for(BM)), BM, BN)
    g, A, B = k.g, k.A, k.B
    c0 = g.index(0)

    def fill(ps: Scope, pk: SSAValue, pslot: SSAValue, loop: WgmmaMainloop) -> None:
        """TMA: the A box and the B box (or its 64-wide panels) of step k into `slot`."""
        g.emit(mapped.TmaLoadOp(A, [loop.m0, pk], loop.sA, [pslot, c0, c0], [BM, BK]), ps)
        if b_trans:
            g.emit(mapped.TmaLoadOp(B, [loop.n0, pk], loop.sB, [pslot, c0, c0], [BN, BK]), ps)
            return
        for j in range(BN // 64):
            nj = g.emit(arith.AddiOp(loop.n0, g.index(64 * j)), ps).results[0] if j else loop.n0
            g.emit(mapped.TmaLoadOp(B, [pk, nj], loop.sB, [pslot, g.index(j), c0, c0], [BK, 64]), ps)

    loop = wgmma_mainloop(g, c.lhs.type.element_type, BM, BN, S, b_trans, c0, k.K, fill)
    return fragment_epilogue(k, loop.result, [], loop.m0, loop.n0, loop.row, c0)


__all__ = ["BK", "REGS", "WgmmaMainloop", "consumers_for", "lower_wgmma", "wgmma_mainloop", "wgmma_width"]
