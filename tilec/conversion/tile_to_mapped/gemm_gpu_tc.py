"""What the tensor-core GEMMs (NVIDIA mma.sync: gemm_nv_mma.py, wgmma: gemm_nv_wgmma.py, AMD
MFMA: gemm_amd_mfma.py) share: when they apply, the operand copies some layouts need
(`OperandCopies`), the kernel's arguments and launch grid, split-K (`split_plan`, the f32
partial sums and `split_k_sum_gemm`), each warp's tile offsets and the fragment epilogue. The
staging of A and B through shared memory and the fragment loop are each target's own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, f32
from xdsl.ir import Block, Region, SSAValue

from tilec.conversion.builder import constant_op
from tilec.conversion.tile_to_mapped.gpu_kernelgen import GpuKernelGen
from tilec.conversion.tile_to_mapped.group_info import ContractionAxes, acc_to_result, contraction_of, yielded
from tilec.conversion.tile_to_mapped.host import HostBuilder, View
from tilec.conversion.tile_to_mapped.loopnest import Scope
from tilec.dialects import mapped, tile


def tensor_core_layout(
    c: tile.ContractOp,
    fused: tile.FusedOp,
    host: HostBuilder,
    copies: OperandCopies | None = None,
    a_k_by_m: bool = False,
) -> tuple[View, View, bool, bool] | None:
    """(lhs view, rhs view, rhs is N x K, lhs is K x M) when a tensor-core kernel applies, else None.

    Applies to f16/bf16 operands with f32 accumulation that are plain row-major views: A is
    [batch..., M, K] (K contiguous) or [K, M] (M contiguous, a weight gradient's dy^T: read as it
    is where the kernel can (`a_k_by_m`, no batch axes), else through `copies.transpose`), B is
    [batch..., K, N] or [batch..., N, K], with static contiguous dimensions that are multiples of
    8 (16-byte rows). An operand whose rows are not is replaced by `copies.pad(view)` where given
    (a copy with 16-byte rows)."""
    if str(c.lhs.type.element_type) not in ("f16", "bf16") or str(c.acc) != "f32":
        return None
    sp = ContractionAxes(c)
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
    ((ka, kb),) = sp.axes
    ma, nb = sp.lfree[0], sp.rfree[0]
    batch_l = [a for a, _ in sp.batch]
    batch_r = [b for _, b in sp.batch]
    if None in lv.index_map or None in rv.index_map:
        return None
    a_trans = False
    if lv.index_map == [*batch_l, ka, ma]:
        if a_k_by_m and not batch_l:
            a_trans = True
        elif copies is not None and all(d >= 0 for d in lv.buf_type.get_shape()):
            lv = copies.transpose(lv)
        else:
            return None
    elif lv.index_map != [*batch_l, ma, ka]:
        return None
    if rv.index_map == [*batch_r, kb, nb]:
        transposed = False
    elif rv.index_map == [*batch_r, nb, kb]:
        transposed = True
    else:
        return None
    lasts = [v.buf_type.get_shape()[-1] for v in (lv, rv)]
    if any(last < 0 for last in lasts) or (copies is None and any(last % 8 for last in lasts)):
        return None
    views = []
    for v, last in zip((lv, rv), lasts):
        if last % 8:
            v = copies.pad(v)
            if v is None:
                return None
        views.append(v)
    return views[0], views[1], transposed, a_trans


@dataclass
class OperandCopies:
    """Copies of operands in layouts the tensor-core kernels do not read, made by kernels queued
    in `kernels` (launched before the GEMM):

    - `pad`: static rows that are not whole 16-byte chunks (a K or N that is not a multiple of
      8), padded by zeros to the next multiple of 8, so that cp.async / TMA (16-byte rows) take
      every shape. The contraction keeps its logical sizes: the padding only sets the row
      stride, and its zeros meet the zeros the kernels load outside the other operand.
    - `transpose`: A stored K x M ([..., K, M], a weight gradient's dy^T) for kernels that read
      A as M x K only (mma.sync, MFMA): one copy [..., M, K'] (K' = K rounded up to 8, zeros)."""

    name: str
    fused: tile.FusedOp
    host: HostBuilder
    kernels: list = field(default_factory=list)
    copies: dict = field(default_factory=dict)

    def pad(self, v: View) -> View | None:
        t = v.buf_type
        if any(d < 0 for d in t.get_shape()):
            return None  # dynamic sizes: not supported yet (the SIMT kernel runs)
        key = (v.buffer, "pad")
        if key not in self.copies:
            *lead, last = t.get_shape()
            self.copies[key] = self._copy(v.buffer, [*lead, -(-last // 8) * 8], transpose=False)
        return View(self.copies[key], v.index_map)

    def transpose(self, v: View) -> View:
        """The [..., M, K'] copy of A stored [..., K, M] (static sizes)."""
        *lead, k, m = v.buf_type.get_shape()
        key = (v.buffer, "transpose")
        if key not in self.copies:
            self.copies[key] = self._copy(v.buffer, [*lead, m, -(-k // 8) * 8], transpose=True)
        *batch, ka, ma = v.index_map
        return View(self.copies[key], [*batch, ma, ka])

    def _copy(self, src: SSAValue, shape: list[int], transpose: bool) -> SSAValue:
        t = src.type
        temp = self.host.e.v(mapped.TempOp(mapped.BufType(shape, t.element_type, "global"), []))
        self.kernels.append(self._fill(src, temp, len(self.kernels), transpose))
        return temp

    def _fill(self, src: SSAValue, dst: SSAValue, i: int, transpose: bool):
        """One thread per element of the copy (consecutive threads write consecutive elements):
        the source's element (the last two axes swapped with `transpose`), or 0 in the padding."""
        g = GpuKernelGen(f"{self.name}_{'transpose' if transpose else 'pad'}{i}", self.host, self.fused)
        threads = 256
        g.block_threads = threads
        S, D = g.arg_for(src), g.arg_for(dst)
        shape = dst.type.get_shape()
        last = src.type.get_shape()[-2 if transpose else -1]  # the source's extent along the copy's last axis
        total = 1
        for d in shape:
            total *= d
        g.set_grid([-(-total // threads)], [1], [1])
        bid, tid = g.ev(mapped.BlockIdOp("x")), g.ev(mapped.ThreadIdOp("x"))
        e = g.ev(arith.AddiOp(g.ev(arith.MuliOp(bid, g.index(threads))), tid))
        iff, body = g.open_if(g.top, g.ev(arith.CmpiOp(e, g.index(total), "ult")))
        idx = g.delinearize(g.move_to(e, body), [g.index(d) for d in shape])
        inside = g.emit(arith.CmpiOp(idx[-1], g.index(last), "ult"), body).results[0]
        col = g.emit(arith.MinUIOp(idx[-1], g.index(last - 1)), body).results[0]  # an address inside
        at = [*idx[:-2], col, idx[-2]] if transpose else [*idx[:-1], col]
        v = g.emit(mapped.LoadOp(S, at), body).results[0]
        zero = g.emit(constant_op(0.0, v.type), body).results[0]
        v = g.emit(arith.SelectOp(inside, v, zero), body).results[0]
        g.emit(mapped.StoreOp(v, D, idx), body)
        g.close_if(g.top, iff)
        return g.finish(), g.launch_args


SPLIT_TARGET_BLOCKS = 264
"""Blocks a tensor-core kernel should launch (two per SM of an H200): a grid of fewer than a
quarter of this splits K over grid z (a weight gradient: M x N is a few blocks, K = N x positions)."""
MIN_SPLIT_STEPS = 32
"""K steps each split keeps at least (the pipeline's prologue and epilogue amortized)."""


def split_plan(blocks: int, steps: int, split_k: int = 0) -> tuple[int, int]:
    """(splits, K steps per split) of a grid of `blocks` output tiles over `steps` K steps: the
    `split-k` option where it is not 0 (1: never), else automatic (SPLIT_TARGET_BLOCKS,
    MIN_SPLIT_STEPS)."""
    if split_k == 1 or steps < 2:
        return 1, steps
    if split_k > 1:
        splits = min(split_k, steps)
    elif blocks * 4 > SPLIT_TARGET_BLOCKS:
        return 1, steps
    else:
        splits = min(-(-SPLIT_TARGET_BLOCKS // blocks), steps // MIN_SPLIT_STEPS)
    if splits < 2:
        return 1, steps
    per = -(-steps // splits)
    return -(-steps // per), per


@dataclass
class TcKernel:
    """A tensor-core GEMM kernel under construction: its generator and the values both kernels use.
    With split-K (`splits` > 1) grid z is the split, each block accumulates `split_steps` K
    steps and stores its f32 partial sums into the [splits, M, N] workspace `ws` (kernel
    argument `WS`); `outputs` is then empty and `split_k_sum_gemm` runs the epilogue."""

    g: GpuKernelGen
    c: tile.ContractOp
    sp: ContractionAxes
    outputs: list[tuple[SSAValue, SSAValue]]  # (group value, output buffer argument)
    A: SSAValue
    B: SSAValue
    M: SSAValue
    N: SSAValue
    K: SSAValue
    name: str = ""
    fused: tile.FusedOp | None = None
    host: HostBuilder | None = None
    splits: int = 1
    split_steps: int = 0
    bk: int = 0
    ws: SSAValue | None = None
    WS: SSAValue | None = None

    def k_range(self) -> tuple[SSAValue, SSAValue]:
        """[k_lo, k_hi) of this block's K steps: the whole K, or its split's share (grid z)."""
        return split_k_range(self.g, self.splits, self.split_steps * self.bk, self.K)


def split_k_range(g: GpuKernelGen, splits: int, span: int, k: SSAValue | int) -> tuple[SSAValue, SSAValue]:
    """[k_lo, k_hi) of this block's share of a K of `k` (an index value or a static size): all of
    it without splits, else `span` from grid z's split on, cut at K."""
    if splits == 1:
        return g.index(0), g.index(k) if isinstance(k, int) else k
    k_lo = g.ev(arith.MuliOp(g.ev(mapped.BlockIdOp("z")), g.index(span)))
    hi = g.ev(arith.AddiOp(k_lo, g.index(span)))
    return k_lo, g.ev(arith.MinUIOp(hi, g.index(k) if isinstance(k, int) else k))


def static_mnk(c: tile.ContractOp, sp: ContractionAxes) -> tuple[int, int, int] | None:
    """(M, N, K) of a contraction without batch axes whose sizes are static, else None."""
    if sp.batch:
        return None
    dims = (c.lhs.type.get_shape()[sp.lfree[0]], c.rhs.type.get_shape()[sp.rfree[0]])
    k = c.lhs.type.get_shape()[sp.axes[0][0]]
    return None if min(*dims, k) < 0 else (*dims, k)


def begin_tc_kernel(
    name: str,
    fused: tile.FusedOp,
    host: HostBuilder,
    lv: View,
    rv: View,
    threads: int,
    bm: int,
    bn: int,
    bk: int = 0,
    split_k: int = 1,
) -> TcKernel:
    """The kernel's arguments (outputs, A, B, M, N, K) and its grid: x over N tiles of `bn`,
    y over M tiles of `bm`, z over the batch, or over K splits of `bk`-deep steps where
    `split_plan(tiles, steps, split_k)` splits (static sizes, no batch axes; `split_k` 1: never)."""
    c = contraction_of(fused)
    sp = ContractionAxes(c)
    g = GpuKernelGen(name, host, fused)
    g.block_threads = threads
    splits, steps = 1, 0
    mnk = static_mnk(c, sp)
    if mnk is not None and bk and split_k != 1:
        splits, steps = split_plan(-(-mnk[0] // bm) * -(-mnk[1] // bn), -(-mnk[2] // bk), split_k)
    ws = WS = None
    if splits > 1:
        ws = host.e.v(mapped.TempOp(mapped.BufType([splits, mnk[0], mnk[1]], f32, "global")))
        WS = g.arg_for(ws)
        outputs = []
    else:
        outputs = [(v, g.arg_for(host.buffer_for_result(r))) for v, r in zip(yielded(fused), fused.outputs)]
    A = g.arg_for(lv.buffer)
    B = g.arg_for(rv.buffer)
    lhs, rhs = c.lhs, c.rhs
    M = g.size(lhs, sp.lfree[0])
    N = g.size(rhs, sp.rfree[0])
    K = g.size(lhs, sp.axes[0][0])
    k = TcKernel(g, c, sp, outputs, A, B, M, N, K, name, fused, host, splits, steps, bk, ws, WS)
    if splits > 1:
        g.set_grid([-(-mnk[1] // bn)], [-(-mnk[0] // bm)], [splits])
        g.name = name + "_partial"
        return k
    hM = host.size(lhs, sp.lfree[0])
    hN = host.size(rhs, sp.rfree[0])
    hB = host.e.product([host.size(lhs, a) for a, _ in sp.batch])
    g.set_grid(
        [g.grid_factor(g.host_value(hN), bn)],
        [g.grid_factor(g.host_value(hM), bm)],
        [g.grid_factor(g.host_value(hB), 1)],
    )
    return k


def split_k_sum_kernel(
    name: str,
    fused: tile.FusedOp,
    host: HostBuilder,
    ws: SSAValue,
    splits: int,
    m: int,
    n: int,
    place: Callable[[GpuKernelGen, Scope, SSAValue, SSAValue, SSAValue], list[SSAValue]],
    keep: Callable[[GpuKernelGen, Scope, SSAValue], SSAValue] | None = None,
):
    """The kernel after a split-K kernel: one thread per element (i, j) of the [M, N] result adds
    the splits' partial sums of the f32 workspace [splits, M, N] (in split order); `place(g,
    scope, i, j, sum)` records the sum as the anchor's value in `scope` (rounded as the anchor
    does) and gives the index the group's outputs are evaluated and stored at. `keep(g, scope,
    j)`: an i1, false for workspace columns that are no result (a zero-padded operand's)."""
    g = GpuKernelGen(name, host, fused)
    threads = 256
    g.block_threads = threads
    outputs = [(v, g.arg_for(host.buffer_for_result(r))) for v, r in zip(yielded(fused), fused.outputs)]
    W = g.arg_for(ws)
    total = m * n
    g.set_grid([-(-total // threads)], [1], [1])
    e = g.ev(
        arith.AddiOp(g.ev(arith.MuliOp(g.ev(mapped.BlockIdOp("x")), g.index(threads))), g.ev(mapped.ThreadIdOp("x")))
    )
    iff, body = g.open_if(g.top, g.ev(arith.CmpiOp(e, g.index(total), "ult")))
    i, j = g.delinearize(g.move_to(e, body), [g.index(m), g.index(n)])
    inner, at = None, body
    if keep is not None:  # a nested if: only result columns are loaded and stored
        inner, at = g.open_if(body, keep(g, body, j))
        i, j = g.move_to(i, at), g.move_to(j, at)
    acc = None
    for z in range(splits):
        part = g.emit(mapped.LoadOp(W, [g.index(z), i, j]), at).results[0]
        acc = part if acc is None else g.emit(arith.AddfOp(acc, part), at).results[0]
    idx = place(g, at, i, j, acc)
    for v, buf in outputs:
        g.emit(mapped.StoreOp(g.to_storage(g.value_at(v, idx), buf.type.element_type), buf, idx), at)
    if inner is not None:
        g.close_if(body, inner)
    g.close_if(g.top, iff)
    return g.finish(), g.launch_args


def split_k_sum_gemm(k: TcKernel):
    """The kernel after a split-K GEMM (`split_k_sum_kernel` over C [M, N])."""
    c = k.c
    m, n, _ = static_mnk(c, k.sp)

    def place(g: GpuKernelGen, body: Scope, i: SSAValue, j: SSAValue, acc: SSAValue) -> list[SSAValue]:
        body.memo[(c.result, (i, j))] = acc_to_result(g, acc, f32, c.result.type.element_type)
        return [i, j]

    return split_k_sum_kernel(k.name, k.fused, k.host, k.ws, k.splits, m, n, place)


def warp_offsets(g: GpuKernelGen, warps_n: int, wm_rows: int, wn_cols: int) -> tuple[SSAValue, SSAValue]:
    """(first row, first column) of this warp's accumulator tile inside the block tile."""
    warp = g.ev(mapped.WarpIdOp())
    wm = g.ev(arith.MuliOp(g.ev(arith.DivUIOp(warp, g.index(warps_n))), g.index(wm_rows)))
    wn = g.ev(arith.MuliOp(g.ev(arith.RemUIOp(warp, g.index(warps_n))), g.index(wn_cols)))
    return wm, wn


def fragment_epilogue(
    k: TcKernel,
    acc: SSAValue,
    bidx: list[SSAValue],
    m0: SSAValue,
    n0: SSAValue,
    wm: SSAValue,
    wn: SSAValue,
    staging: Callable[[mapped.BufType], list[SSAValue]] | None = None,
):
    """One `mapped.frag_store` of the accumulator per output of the group, each element running
    the group's epilogue (bias, activation, casts), through the shared buffers `staging(dest
    type)` gives; returns the finished kernel and its launch args (with split-K: the partial-sums
    kernel and `split_k_sum_gemm`'s, a list)."""
    g, c = k.g, k.c
    row0 = g.ev(arith.AddiOp(m0, wm))
    col0 = g.ev(arith.AddiOp(n0, wn))
    if k.splits > 1:  # the f32 partial sums into this split's slice of the workspace
        epi = Block(arg_types=[f32, IndexType(), IndexType()])
        epi.add_op(mapped.YieldOp(epi.args[0]))
        via = staging(k.WS.type) if staging is not None else []
        at = [g.ev(mapped.BlockIdOp("z")), row0, col0]
        g.emit(mapped.FragStoreOp(acc, k.WS, at, Region(epi), via), g.top)
        return [(g.finish(), g.launch_args), split_k_sum_gemm(k)]
    for v, buf in k.outputs:
        epi = Block(arg_types=[f32, IndexType(), IndexType()])
        es = Scope(epi, g.top)
        for a in epi.args:
            g.scope_of[a] = es
        val, row, col = epi.args
        res_idx = [*bidx, row, col]
        es.memo[(c.result, tuple(res_idx))] = acc_to_result(g, val, f32, c.result.type.element_type)
        out = g.to_storage(g.value_at(v, res_idx), buf.type.element_type)
        epi.add_op(mapped.YieldOp(out))
        via = staging(buf.type) if staging is not None else []
        g.emit(mapped.FragStoreOp(acc, buf, [*bidx, row0, col0], Region(epi), via), g.top)
    return g.finish(), g.launch_args


__all__ = [
    "MIN_SPLIT_STEPS",
    "SPLIT_TARGET_BLOCKS",
    "OperandCopies",
    "TcKernel",
    "begin_tc_kernel",
    "fragment_epilogue",
    "split_k_sum_gemm",
    "split_k_range",
    "split_k_sum_kernel",
    "split_plan",
    "static_mnk",
    "tensor_core_layout",
    "warp_offsets",
]
