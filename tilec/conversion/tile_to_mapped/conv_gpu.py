"""Convolution groups on GPUs: implicit GEMMs (no im2col buffer in memory), as mapped IR.

A convolution (`tile.conv`, group g of G) is the GEMM Y_g[M, O/G] = A_g[M, K] x W_g[K, O/G] with
a row m = (n, *output position) per output pixel and a column k per (input channel, kernel tap):
k = (*tap, c) in channels-last (c fastest: a channels-last weight (O, *taps, C/G) is W_g^T as a
row-major [O/G, K] matrix) and k = (c, *tap) in channels-first (the weight (O, C/G, *taps)
row-major). A's element (m, k) is the input at p*stride + tap*dilation - pad_lo of the input
dilated by lhs_dilation, or 0 in the padding / between dilated taps: that indexing happens while
tiles are staged into shared memory.

- `lower_conv_tc` (f16/bf16 with f32 accumulation, channels-last, groups 1): the GEMM kernel of
  gemm_nv_mma.py (cp.async pipeline, swizzled shared tiles, ldmatrix, mma.sync m16n8k16, grouped
  rasterization; MFMA fragments and two synchronously filled slots on AMD) whose A tiles come
  from `mapped.async_copy_window` (16-byte chunks = 8 channels of one pixel, zero-filled outside
  the input; C not a multiple of 8: channels padded, element by element). The weight is the
  plain B^T operand (a host view [O, K]) and the output a host view [M, O] of y, written by
  `mapped.frag_store` with the group's epilogue (bias, residual, activation, casts). A grid of
  few tiles with a long K (weight gradients) splits K over grid z (`split_plan`).
- `lower_conv_direct` (grouped convs with at most DIRECT_MAX_OG output channels per group,
  depthwise): one thread per output element, a loop over C/G x taps.
- everything else (any layout, groups, dilation, lhs_dilation, negative padding, element type):
  gemm_gpu_simt's SIMT kernel through implicit_gemm.ConvGemm (the conv helper's generic lowering).
HIP runs the same kernels (MFMA fragments in lower_conv_tc).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, f32
from xdsl.ir import Block, Operation, Region, SSAValue

from tilec.conversion.builder import compute_type
from tilec.conversion.tile_to_mapped.gemm_amd_mfma import mfma_tiles_ok
from tilec.conversion.tile_to_mapped.gemm_amd_mfma import swizzle_for_row as amd_swizzle_for_row
from tilec.conversion.tile_to_mapped.gemm_gpu_simt import lower_simt
from tilec.conversion.tile_to_mapped.gemm_gpu_tc import split_k_range, split_k_sum_kernel, split_plan, warp_offsets
from tilec.conversion.tile_to_mapped.gemm_nv_mma import INSTR, grouped_order, swizzle_for_row
from tilec.conversion.tile_to_mapped.gpu_kernelgen import GpuKernelGen
from tilec.conversion.tile_to_mapped.group_info import acc_to_result, tile_shape, yielded
from tilec.conversion.tile_to_mapped.host import HostBuilder, plain_input
from tilec.conversion.tile_to_mapped.loopnest import Scope
from tilec.conversion.tile_to_mapped.options import AmdMapping, GpuMapping, NvMapping
from tilec.dialects import mapped, tile
from tilec.dialects.common import DYNAMIC, bitwidth, int_list, is_float


def _prod(values) -> int:
    out = 1
    for v in values:
        out *= v
    return out


@dataclass(frozen=True)
class ConvGeometry:
    """The static shape of one tile.conv and its implicit-GEMM view."""

    x: SSAValue
    w: SSAValue
    y: SSAValue
    channels_last: bool
    n: int
    c: int
    o: int
    groups: int
    spatial: tuple[int, ...]
    kernel: tuple[int, ...]
    out: tuple[int, ...]
    stride: tuple[int, ...]
    dilation: tuple[int, ...]
    lhs_dilation: tuple[int, ...]
    pad_lo: tuple[int, ...]

    @property
    def cg(self) -> int:
        return self.c // self.groups

    @property
    def og(self) -> int:
        return self.o // self.groups

    @property
    def m(self) -> int:
        return self.n * _prod(self.out)

    @property
    def k(self) -> int:
        return self.cg * _prod(self.kernel)

    def x_index(self, n, c, pos: list) -> list:
        return [n, *pos, c] if self.channels_last else [n, c, *pos]

    def w_index(self, o, c, taps: list) -> list:
        return [o, *taps, c] if self.channels_last else [o, c, *taps]

    def y_index(self, n, o, pos: list) -> list:
        return [n, *pos, o] if self.channels_last else [n, o, *pos]

    def window(self) -> dict[str, tuple[int, ...]]:
        """The geometry properties of mapped.async_copy_window."""
        return {
            "out": self.out,
            "kernel": self.kernel,
            "stride": self.stride,
            "dilation": self.dilation,
            "lhs_dilation": self.lhs_dilation,
            "pad_lo": self.pad_lo,
        }


def _int(attr) -> int:
    v = getattr(attr, "value", attr)
    return int(getattr(v, "data", v))


def conv_geometry(op: Operation) -> ConvGeometry:
    """The geometry of a tile.conv (all sizes static: its verifier says so)."""
    x, w = op.operands[0], op.operands[1]
    y = op.results[0]
    cl = op.layout.data == "channels_last"
    xs, ws, ys = x.type.get_shape(), w.type.get_shape(), y.type.get_shape()
    assert DYNAMIC not in (*xs, *ws, *ys)
    d = len(xs) - 2
    pad = int_list(op.padding)
    sp = slice(1, 1 + d) if cl else slice(2, 2 + d)
    return ConvGeometry(
        x=x,
        w=w,
        y=y,
        channels_last=cl,
        n=xs[0],
        c=xs[-1] if cl else xs[1],
        o=ws[0],
        groups=_int(op.groups),
        spatial=tuple(xs[sp]),
        kernel=tuple(ws[sp]),
        out=tuple(ys[sp]),
        stride=int_list(op.stride),
        dilation=int_list(op.dilation),
        lhs_dilation=int_list(op.lhs_dilation),
        pad_lo=tuple(pad[2 * i] for i in range(d)),
    )


def conv_of(fused: tile.FusedOp) -> Operation | None:
    """The tile.conv anchoring a `contraction` group, or None (a tile.contract group)."""
    return next((op for op in fused.body.block.ops if isinstance(op, tile.ConvOp)), None)


def _input_position(g: GpuKernelGen, geo: ConvGeometry, pos: list, taps: list) -> tuple[SSAValue | None, list]:
    """(i1 inside or None when always inside, input indices) of output position `pos` and kernel
    taps `taps`: p*stride + tap*dilation - pad_lo in the lhs-dilated input, which must be inside
    it (an unsigned compare: a position in the low padding wraps around) and on a tap."""
    ok = None
    idx = []
    for i, (p, t) in enumerate(zip(pos, taps)):
        q = g.addi(g.muli(p, g.index(geo.stride[i])), g.muli(t, g.index(geo.dilation[i])))
        lo, ld = geo.pad_lo[i], geo.lhs_dilation[i]
        q = g.subi(q, g.index(lo)) if lo >= 0 else g.addi(q, g.index(-lo))
        extent = (geo.spatial[i] - 1) * ld + 1
        inside = g.ev(arith.CmpiOp(q, g.index(extent), "ult"))
        if ld > 1:
            on_tap = g.ev(arith.CmpiOp(g.remui(q, g.index(ld)), g.index(0), "eq"))
            inside = g.ev(arith.AndIOp(inside, on_tap))
            q = g.divui(q, g.index(ld))
        ok = inside if ok is None else g.ev(arith.AndIOp(ok, inside))
        idx.append(q)
    return ok, idx


def _column_taps(g: GpuKernelGen, geo: ConvGeometry, k: SSAValue) -> tuple[SSAValue, list]:
    """(channel within the group, kernel taps) of GEMM column `k`."""
    if geo.channels_last:
        *taps, c = g.delinearize(k, [*map(g.index, geo.kernel), g.index(geo.cg)])
    else:
        c, *taps = g.delinearize(k, [g.index(geo.cg), *map(g.index, geo.kernel)])
    return c, taps


DIRECT_MAX_OG = 8
"""Output channels per group below which a grouped conv (depthwise: 1) runs the direct kernel:
the GEMM's 64-column tiles would be almost all padding."""


def lower_conv_direct(name: str, fused: tile.FusedOp, host: HostBuilder):
    """A grouped convolution with few output channels per group (depthwise): one thread per output
    element sums its C/G x taps products directly (bounds-checked reads; in channels-last,
    neighbouring threads read neighbouring channels)."""
    op = conv_of(fused)
    geo = conv_geometry(op)
    g = GpuKernelGen(name, host, fused)
    threads = 256
    g.block_threads = threads
    outputs = [(v, g.arg_for(host.buffer_for_result(r))) for v, r in zip(yielded(fused), fused.outputs)]
    acc_t = op.acc
    fl = is_float(acc_t)
    total = geo.m * geo.o
    g.set_grid([-(-total // threads)], [1], [1])
    e = g.addi(g.muli(g.ev(mapped.BlockIdOp("x")), g.index(threads)), g.ev(mapped.ThreadIdOp("x")))
    iff, body = g.open_if(g.top, g.ev(arith.CmpiOp(e, g.index(total), "ult")))
    e_in = g.move_to(e, body)
    shape = [g.index(v) for v in geo.y.type.get_shape()]
    res_idx = g.delinearize(e_in, shape)
    if geo.channels_last:
        n_i, *pos, o = res_idx
    else:
        n_i, o, *pos = res_idx
    c_base = g.muli(g.divui(o, g.index(geo.og)), g.index(geo.cg))
    zero = g.const(0.0 if fl else 0, acc_t)
    loop, ls = g.open_for(body, g.index(0), g.index(geo.k), g.index(1), [zero])
    kk = ls.block.args[0]
    c, taps = _column_taps(g, geo, kk)
    inside, xpos = _input_position(g, geo, pos, taps)
    xpos = [g.ev(arith.SelectOp(inside, q, g.index(0))) for q in xpos]
    zero_x = g.const(0.0 if fl else 0, acc_t)

    def operand(v: SSAValue, idx: list) -> SSAValue:
        x = g.value_at(v, idx)
        ct = compute_type(v.type.element_type)
        if ct != acc_t:
            wider = bitwidth(acc_t) > bitwidth(ct)
            if fl:
                x = g.ev(arith.ExtFOp(x, acc_t) if wider else arith.TruncFOp(x, acc_t))
            else:
                x = g.ev(arith.ExtSIOp(x, acc_t) if wider else arith.TruncIOp(x, acc_t))
        return x

    a = g.ev(arith.SelectOp(inside, operand(geo.x, geo.x_index(n_i, g.addi(c_base, c), xpos)), zero_x))
    b = operand(geo.w, geo.w_index(o, c, taps))
    prod = g.ev(arith.MulfOp(a, b) if fl else arith.MuliOp(a, b))
    acc = ls.block.args[1]
    (total_v,) = g.close_for(body, loop, ls, [g.ev(arith.AddfOp(acc, prod) if fl else arith.AddiOp(acc, prod))])
    g.scope_of[total_v] = body
    body.memo[(geo.y, tuple(res_idx))] = acc_to_result(g, total_v, acc_t, geo.y.type.element_type)
    for v, buf in outputs:
        g.emit(mapped.StoreOp(g.to_storage(g.value_at(v, res_idx), buf.type.element_type), buf, res_idx), body)
    g.close_if(g.top, iff)
    return g.finish(), g.launch_args


def mma_applies(geo: ConvGeometry, op: Operation, fused: tile.FusedOp) -> str | None:
    """Why the mma.sync kernel does not apply to this convolution group (None: it does)."""
    elt = str(geo.x.type.element_type)
    if elt not in ("f16", "bf16") or str(op.acc) != "f32":
        return "not f16/bf16 with f32 accumulation"
    if not geo.channels_last:
        return "channels-first layout"
    if geo.groups != 1:
        return "grouped"
    if any(tile_shape(v) != geo.y.type.get_shape() for v in yielded(fused)):
        return "a group output of another shape"
    return None


def _fit_block_n(options, o: int, amd: bool):
    """`options` with block-n lowered to the smallest power of two covering the O output channels
    (ResNet's 64-channel layers under the default 128: half of every B tile and of the MMAs would be
    zeros), keeping whole fragments per warp (n16 on NVIDIA, the MFMA's n on AMD)."""
    unit = (mapped.MMA_SHAPES[options.mfma].n if amd else 16) * options.warps_n
    threads = options.wave * options.warps_m * options.warps_n

    def ok(bn: int) -> bool:  # (AMD's options also deal the B tile's 16-byte chunks evenly)
        return bn >= max(o, unit) and bn % unit == 0 and (not amd or (bn * options.block_k // 8) % threads == 0)

    bn = options.block_n
    while ok(bn // 2):
        bn //= 2
    return options if bn == options.block_n else replace(options, block_n=bn)


def split_k_sum(name: str, fused: tile.FusedOp, host: HostBuilder, geo: ConvGeometry, ws: SSAValue, splits: int):
    """The kernel after a split-K convolution (gemm_gpu_tc.split_k_sum_kernel over Y [M, O]): the
    group's outputs evaluated at each (n, *position, o)."""

    def place(g: GpuKernelGen, body: Scope, m: SSAValue, o: SSAValue, acc: SSAValue) -> list[SSAValue]:
        n_i, *p_i = g.delinearize(m, [g.index(geo.n), *map(g.index, geo.out)])
        res_idx = [g.move_to(i, body) for i in geo.y_index(n_i, o, p_i)]
        body.memo[(geo.y, tuple(res_idx))] = acc_to_result(g, acc, f32, geo.y.type.element_type)
        return res_idx

    return split_k_sum_kernel(name, fused, host, ws, splits, geo.m, geo.o, place)


def lower_conv_tc(name: str, fused: tile.FusedOp, host: HostBuilder, options: NvMapping | AmdMapping):
    """The tensor-core implicit-GEMM kernel of a convolution group (mma.sync on NVIDIA, MFMA on
    AMD), or None where it does not apply."""
    op = conv_of(fused)
    geo = conv_geometry(op)
    if mma_applies(geo, op, fused) is not None:
        return None
    amd = isinstance(options, AmdMapping)
    if amd and not mfma_tiles_ok(options):
        return None
    options = _fit_block_n(options, geo.o, amd)
    xbuf = plain_input(fused, host, geo.x)
    wbuf = plain_input(fused, host, geo.w)
    if xbuf is None or wbuf is None:
        return None
    elt = geo.x.type.element_type
    BM, BN, BK = options.block_m, options.block_n, options.block_k
    WM, WN = BM // options.warps_m, BN // options.warps_n
    if amd:
        # gfx90a copies synchronously (no cp.async): two slots, LDS swizzled in 16-byte chunks
        instr, S, kstep, sw = options.mfma, 2, BK, amd_swizzle_for_row(BK * 2)
    else:
        instr, S, kstep, sw = INSTR, options.stages, 16, swizzle_for_row(BK * 2)
    # channels not a multiple of 8 (ResNet's stem, C = 3): both operands are staged element by
    # element into columns (*tap, c) with c padded to `cp` channels (zeros), w as the im2col
    # matrix of a 1x1 output (its rows are o, its columns (*tap, c))
    cp = -(-geo.c // 8) * 8
    padded = cp != geo.c
    k_total = _prod(geo.kernel) * cp
    if padded:
        S = 2  # synchronous staging: more slots only hold more registers
    g = GpuKernelGen(name, host, fused)
    g.block_threads = options.wave * options.warps_m * options.warps_n
    he = host.e
    # the weight as W^T [O, K] and each output as [M, O]: host views, no copies
    w2 = None if padded else he.v(mapped.ViewOp(wbuf, mapped.BufType([geo.o, geo.k], elt, "global")))
    splits, split_steps = split_plan(-(-geo.o // BN) * -(-geo.m // BM), -(-k_total // BK), options.split_k)
    outputs, ws, WS = gemm_outputs(g, fused, host, geo, splits)
    pointwise = not padded and is_pointwise(geo)
    x2 = g.arg_for(he.v(mapped.ViewOp(xbuf, mapped.BufType([geo.m, geo.c], elt, "global")))) if pointwise else None
    X = None if pointwise else g.arg_for(xbuf)
    B = g.arg_for(wbuf if padded else w2)
    g.set_grid([-(-geo.o // BN)], [-(-geo.m // BM)], [splits])
    sA = g.emit(mapped.AllocOp(mapped.BufType([S, BM, BK], elt, "shared", sw)), g.top).results[0]
    sB = g.emit(mapped.AllocOp(mapped.BufType([S, BN, BK], elt, "shared", sw)), g.top).results[0]
    bx, by = (g.ev(mapped.BlockIdOp(d)) for d in "xy")
    pid_m, pid_n = grouped_order(g, bx, by)
    m0 = g.ev(arith.MuliOp(pid_m, g.index(BM)))
    n0 = g.ev(arith.MuliOp(pid_n, g.index(BN)))
    wm, wn = warp_offsets(g, options.warps_n, WM, WN)
    acc_t = mapped.FragType([WM, WN], f32, "acc", instr)
    zero = g.ev(mapped.FragFillOp(0.0, acc_t))
    c0 = g.index(0)
    produce = Block(arg_types=[IndexType(), IndexType()])
    consume = Block(arg_types=[IndexType(), IndexType(), acc_t])
    k_lo, k_hi = split_k_range(g, splits, split_steps * BK, k_total)  # this block's share of K
    pipe = mapped.PipelineOp(k_lo, k_hi, g.index(BK), S, [zero], Region(produce), Region(consume))
    g.emit(pipe, g.top)
    pk, pslot = produce.args
    ps = Scope(produce, g.top)
    for a in produce.args:
        g.scope_of[a] = ps
    if x2 is not None:  # a 1x1 stride-1 unpadded conv: A is x itself, as [M, C]
        g.emit(mapped.AsyncCopyOp(x2, [m0, pk], sA, [pslot, c0, c0], [BM, BK]), ps)
    else:
        g.emit(
            mapped.AsyncCopyWindowOp(X, [m0, pk], sA, [pslot, c0, c0], [BM, BK], geo.window(), cp if padded else None),
            ps,
        )
    if padded:
        d = len(geo.kernel)
        ones, zeros = (1,) * d, (0,) * d
        w_geo = dict(out=ones, kernel=geo.kernel, stride=ones, dilation=ones, lhs_dilation=ones, pad_lo=zeros)
        g.emit(mapped.AsyncCopyWindowOp(B, [n0, pk], sB, [pslot, c0, c0], [BN, BK], w_geo, cp), ps)
    else:
        g.emit(mapped.AsyncCopyOp(B, [n0, pk], sB, [pslot, c0, c0], [BN, BK]), ps)
    produce.add_op(mapped.YieldOp())
    _, cslot, acc = consume.args
    cs = Scope(consume, g.top)
    for a in consume.args:
        g.scope_of[a] = cs
    for kk in range(0, BK, kstep):
        a_t = mapped.FragType([WM, kstep], elt, "a", instr)
        b_t = mapped.FragType([kstep, WN], elt, "b", instr)
        fa = g.emit(mapped.FragLoadOp(sA, [cslot, wm, g.index(kk)], a_t), cs).results[0]
        fb = g.emit(mapped.FragLoadOp(sB, [cslot, wn, g.index(kk)], b_t, transposed=True), cs).results[0]
        acc = g.emit(mapped.MmaOp(fa, fb, acc), cs).results[0]
    consume.add_op(mapped.YieldOp(acc))
    result = pipe.results[0]
    g.scope_of[result] = g.top
    row0 = g.ev(arith.AddiOp(m0, wm))
    col0 = g.ev(arith.AddiOp(n0, wn))
    if splits > 1:
        # each block's f32 partial sums into its slice of a [splits, M, O] workspace; a second
        # kernel adds the slices in order and runs the epilogue (deterministic, no atomics)
        epi = Block(arg_types=[f32, IndexType(), IndexType()])
        epi.add_op(mapped.YieldOp(epi.args[0]))
        bz = g.ev(mapped.BlockIdOp("z"))
        g.emit(mapped.FragStoreOp(result, WS, [bz, row0, col0], Region(epi)), g.top)
        g.name = name + "_partial"
        return [(g.finish(), g.launch_args), split_k_sum(name, fused, host, geo, ws, splits)]
    conv_epilogue(g, geo, result, outputs, row0, col0)
    return g.finish(), g.launch_args


def gemm_outputs(g: GpuKernelGen, fused: tile.FusedOp, host: HostBuilder, geo: ConvGeometry, splits: int):
    """(outputs, workspace, its kernel argument) of an implicit-GEMM kernel: each group output
    as a [M, O] host view (no copy) with its kernel argument, or with split-K (`splits` > 1) the
    f32 [splits, M, O] workspace of partial sums instead."""
    he = host.e
    if splits > 1:
        ws = he.v(mapped.TempOp(mapped.BufType([splits, geo.m, geo.o], f32, "global")))
        return [], ws, g.arg_for(ws)
    outputs = []
    for v, r in zip(yielded(fused), fused.outputs):
        buf = host.buffer_for_result(r)
        view = mapped.ViewOp(buf, mapped.BufType([geo.m, geo.o], buf.type.element_type, "global"))
        outputs.append((v, g.arg_for(he.v(view))))
    return outputs, None, None


def is_pointwise(geo: ConvGeometry) -> bool:
    """A 1x1 stride-1 unpadded convolution: its A matrix is x itself, as [M, C]."""
    ones = all(v == 1 for v in (*geo.kernel, *geo.stride, *geo.lhs_dilation))
    return ones and not any(geo.pad_lo) and geo.out == geo.spatial


def conv_epilogue(
    g: GpuKernelGen,
    geo: ConvGeometry,
    acc: SSAValue,
    outputs: list,
    row0: SSAValue,
    col0: SSAValue,
    staging: Callable[[mapped.BufType], list[SSAValue]] | None = None,
) -> None:
    """One `mapped.frag_store` of the accumulator per group output (each a [M, O] view), every
    element running the group's epilogue at its (n, *position, o) (bias, residual, activation),
    through the shared buffers `staging(dest type)` gives."""
    for v, buf in outputs:
        epi = Block(arg_types=[f32, IndexType(), IndexType()])
        es = Scope(epi, g.top)
        for a in epi.args:
            g.scope_of[a] = es
        val, row, col = epi.args
        n_i, *p_i = g.delinearize(row, [g.index(geo.n), *map(g.index, geo.out)])
        res_idx = geo.y_index(n_i, col, p_i)
        es.memo[(geo.y, tuple(res_idx))] = acc_to_result(g, val, f32, geo.y.type.element_type)
        out = g.to_storage(g.value_at(v, res_idx), buf.type.element_type)
        epi.add_op(mapped.YieldOp(out))
        via = staging(buf.type) if staging is not None else []
        g.emit(mapped.FragStoreOp(acc, buf, [row0, col0], Region(epi), via), g.top)


def lower_conv(name: str, fused: tile.FusedOp, host: HostBuilder, options: GpuMapping):
    """The kernel of a convolution group: the tensor-core implicit GEMM where it applies
    (tensor-cores on), else the SIMT implicit GEMM."""
    if options.tensor_cores:
        lowered = lower_conv_tc(name, fused, host, options)
        if lowered is not None:
            return lowered
    geo = conv_geometry(conv_of(fused))
    if geo.groups > 1 and geo.og <= DIRECT_MAX_OG:
        return lower_conv_direct(name, fused, host)
    return lower_simt(name, fused, host)  # the generic implicit GEMM (implicit_gemm.ConvGemm)


__all__ = [
    "ConvGeometry",
    "conv_epilogue",
    "conv_geometry",
    "conv_of",
    "gemm_outputs",
    "is_pointwise",
    "lower_conv",
    "lower_conv_tc",
    "mma_applies",
    "split_k_sum",
]
