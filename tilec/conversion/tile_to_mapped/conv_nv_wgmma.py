"""Convolutions on Hopper (sm_90a, gemm=wgmma): the implicit GEMM of conv_gpu.py on the
warp-specialized wgmma main loop of gemm_nv_wgmma.py.

Y[M, O] = A[M, K] x W^T[O, K]^T with M = N x output positions, K = taps x C (channels-last,
groups 1, f16/bf16 with f32 accumulation; where C is not a multiple of 8, as in the 3-channel
stem, x and w are first copied with their channels padded by zeros to the next multiple:
`gemm_gpu_tc.OperandCopies`). The producer warpgroup's 128 threads stage each 64-deep K step by cp.async: the A tile by `mapped.async_copy_window` (16-byte
chunks = 8 channels of one input pixel, zero-filled in the padding: no im2col buffer in global
memory; a 1x1 stride-1 unpadded conv reads x as a plain [M, C] matrix) and the weight tile by
`mapped.async_copy` of the host view W^T [O, K], both into the 128-byte-swizzled rings wgmma
reads; each thread's copies complete on the stage's `full` barrier. The consumer warpgroups run
wgmma and the fused epilogue (bias, residual, activation, cast). A grid of few tiles with a long
K (weight gradients) splits K over grid z as conv_gpu.py does (f32 partial sums, then an
ordered sum kernel running the epilogue).

`lower_conv_weight_grad` computes a `conv_weight_grad` group (tilec/transforms/conv_grad_pattern.py)
on the same main loop: dw [O, K x C] = dy^T [O, P] x im2col(x) [P, K x C] over the P = N x output
positions, A = dy read as it is (a [P, O] matrix: 64 x 64 panels, wgmma's transposed A) and B =
the forward convolution's im2col matrix by `mapped.async_copy_window` into 64 x 64 panels (K x
N, wgmma's MN-major B); P is long, so K is usually split over grid z. dw is written as the
weight's (O, *K, C) directly: no transposed copies of x, dy or dw.
"""

from __future__ import annotations

import math
from dataclasses import replace

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, f32
from xdsl.ir import Block, Region, SSAValue

from tilec.conversion.tile_to_mapped.conv_gpu import (
    conv_epilogue,
    conv_geometry,
    conv_of,
    gemm_outputs,
    is_pointwise,
    mma_applies,
    split_k_sum,
)
from tilec.conversion.tile_to_mapped.gemm_gpu_tc import OperandCopies, split_k_range, split_k_sum_kernel, split_plan
from tilec.conversion.tile_to_mapped.gemm_nv_wgmma import (
    BK,
    WgmmaMainloop,
    WgmmaTile,
    consumers_for,
    wgmma_mainloop,
    wgmma_tile,
)
from tilec.conversion.tile_to_mapped.gpu_kernelgen import GpuKernelGen
from tilec.conversion.tile_to_mapped.group_info import acc_to_result, yielded
from tilec.conversion.tile_to_mapped.host import HostBuilder, View, plain_input
from tilec.conversion.tile_to_mapped.loopnest import Scope
from tilec.conversion.tile_to_mapped.options import NvMapping
from tilec.diagnostics import NotSupportedYet, op_location
from tilec.dialects import mapped, tile
from tilec.transforms.conv_grad_pattern import match_weight_grad


def conv_widths(o: int) -> tuple[int, ...]:
    """The block widths the implicit GEMM's tile is chosen among: 64 too where O is at most 64
    (ResNet's 64-channel layers: wider blocks would be mostly empty columns)."""
    return (256, 128, 64) if o <= 64 else (256, 128)


def conv_tile(options: NvMapping, m: int, o: int, k: int) -> WgmmaTile:
    """The tile of the implicit GEMM: gemm_nv_wgmma's choice among `conv_widths(o)`."""
    return wgmma_tile(options, m, o, k, conv_widths(o), copies=True)


def lower_conv_wgmma(name: str, fused: tile.FusedOp, host: HostBuilder, options: NvMapping):
    """The wgmma implicit-GEMM kernel(s) of a convolution group, or None where it does not apply
    (then conv_gpu.lower_conv_tc's mma.sync kernel is tried)."""
    op = conv_of(fused)
    geo = conv_geometry(op)
    if mma_applies(geo, op, fused) is not None:
        return None
    xbuf, wbuf = plain_input(fused, host, geo.x), plain_input(fused, host, geo.w)
    if xbuf is None or wbuf is None:
        return None
    padding = OperandCopies(name, fused, host)
    if geo.c % 8:  # (the 3-channel stem) x and w copied with channels padded by zeros to 16 bytes
        xbuf = padding.pad(View(xbuf, list(range(xbuf.type.rank)))).buffer
        wbuf = padding.pad(View(wbuf, list(range(wbuf.type.rank)))).buffer
        geo = replace(geo, c=-(-geo.c // 8) * 8)
    lowered = _conv_wgmma(name, fused, host, options, geo, xbuf, wbuf)
    return [*padding.kernels, *lowered] if padding.kernels else lowered


def _conv_wgmma(name, fused, host, options, geo, xbuf, wbuf):
    elt = geo.x.type.element_type
    tile = conv_tile(options, geo.m, geo.o, geo.k)
    BM, BN = tile.bm, tile.bn
    g = GpuKernelGen(name, host, fused)
    g.block_threads = 128 * (1 + consumers_for(BM))
    he = host.e
    w2 = he.v(mapped.ViewOp(wbuf, mapped.BufType([geo.o, geo.k], elt, "global")))  # W^T [O, K]: no copy
    steps = -(-geo.k // BK)
    splits, split_steps = split_plan(-(-geo.o // BN) * -(-geo.m // BM), steps, options.split_k)
    outputs, ws, WS = gemm_outputs(g, fused, host, geo, splits)
    pointwise = is_pointwise(geo)
    if pointwise:  # A is x itself, as [M, C]
        X = g.arg_for(he.v(mapped.ViewOp(xbuf, mapped.BufType([geo.m, geo.c], elt, "global"))))
    else:
        X = g.arg_for(xbuf)
    B = g.arg_for(w2)
    g.set_grid([-(-geo.o // BN)], [-(-geo.m // BM)], [splits])
    c0 = g.index(0)
    k_lo, k_hi = split_k_range(g, splits, split_steps * BK, geo.k)  # this block's share of K

    def fill(ps: Scope, pk: SSAValue, pslot: SSAValue, loop: WgmmaMainloop) -> None:
        if pointwise:
            g.emit(mapped.AsyncCopyOp(X, [loop.m0, pk], loop.sA, [pslot, c0, c0], [BM, BK]), ps)
        else:
            g.emit(mapped.AsyncCopyWindowOp(X, [loop.m0, pk], loop.sA, [pslot, c0, c0], [BM, BK], geo.window()), ps)
        g.emit(mapped.AsyncCopyOp(B, [loop.n0, pk], loop.sB, [pslot, c0, c0], [BN, BK]), ps)

    loop = wgmma_mainloop(g, elt, tile, True, k_lo, k_hi, fill, copies=True, staged=options.wgmma_store == "staged")
    row0 = g.ev(arith.AddiOp(loop.m0, loop.row))
    if splits > 1:
        epi = Block(arg_types=[f32, IndexType(), IndexType()])
        epi.add_op(mapped.YieldOp(epi.args[0]))
        split = [g.ev(mapped.BlockIdOp("z")), row0, loop.n0]
        g.emit(mapped.FragStoreOp(loop.result, WS, split, Region(epi), loop.staging(WS.type)), g.top)
        g.name = name + "_partial"
        return [(g.finish(), g.launch_args), split_k_sum(name, fused, host, geo, ws, splits)]
    conv_epilogue(g, geo, loop.result, outputs, row0, loop.n0, loop.staging)
    return [(g.finish(), g.launch_args)]


def lower_conv_weight_grad(name: str, fused: tile.FusedOp, host: HostBuilder, options: NvMapping):
    """The wgmma kernel(s) of a `conv_weight_grad` group (see the module docstring): the main loop,
    then with split-K the sum of its partials. Where C is not a multiple of 8 (the 3-channel
    stem), x is first copied with its channels zero-padded to 16 bytes (a `_pad` kernel) and the
    main loop always writes f32 partials, so that the sum kernel stores only the real channels."""
    conv = conv_of(fused)
    m = match_weight_grad(conv) if conv is not None else None
    if m is None:
        raise NotSupportedYet(
            "a conv_weight_grad group that is not a weight-gradient pattern (tilec/transforms/conv_grad_pattern.py)",
            op_location(fused),
        )
    if not (options.gemm == "wgmma" and options.tensor_cores):
        raise NotSupportedYet(
            "a conv_weight_grad group without gemm=wgmma (tile-fuse's conv-weight-grad is for the Hopper kernel)",
            op_location(fused),
        )
    xbuf, dybuf = plain_input(fused, host, m.x), plain_input(fused, host, m.dy)
    if xbuf is None or dybuf is None:
        raise NotSupportedYet("a conv_weight_grad group whose x or dy is not a row-major array", op_location(fused))
    xs, dys = m.x.type.get_shape(), m.dy.type.get_shape()
    elt = m.x.type.element_type
    o, c = dys[-1], xs[-1]
    padding = OperandCopies(name, fused, host)
    cp = -(-c // 8) * 8  # x's channels as the kernel reads them
    if cp != c:  # (the 3-channel stem) x copied with its channels padded by zeros to 16 bytes
        xbuf = padding.pad(View(xbuf, list(range(xbuf.type.rank)))).buffer
    rows = math.prod(dys[:-1])  # P: the GEMM's K
    cols = math.prod(m.kernel) * cp  # K x C: the GEMM's N
    tile_ = wgmma_tile(options, o, cols, rows, (256, 128), copies=True, split_k=options.split_k)
    BM, BN = tile_.bm, tile_.bn
    g = GpuKernelGen(name, host, fused)
    g.block_threads = 128 * (1 + consumers_for(BM))
    he = host.e
    A = g.arg_for(he.v(mapped.ViewOp(dybuf, mapped.BufType([rows, o], elt, "global"))))  # dy as [P, O]: no copy
    X = g.arg_for(xbuf)
    splits, split_steps = split_plan(-(-o // BM) * -(-cols // BN), -(-rows // BK), options.split_k)
    g.set_grid([-(-cols // BN)], [-(-o // BM)], [splits])
    c0 = g.index(0)
    partials = splits > 1 or cp != c  # padded columns: the f32 sums, then the kernel storing the real ones
    k_lo, k_hi = split_k_range(g, splits, split_steps * BK, rows)  # this block's share of P
    window = m.window()

    def fill(ps: Scope, pk: SSAValue, pslot: SSAValue, loop: WgmmaMainloop) -> None:
        """dy's [64 (p), 64 (o)] panels and the im2col matrix's [64 (p), 64 (k, c)] panels of step pk."""
        for j in range(BM // 64):
            mj = g.emit(arith.AddiOp(loop.m0, g.index(64 * j)), ps).results[0] if j else loop.m0
            g.emit(mapped.AsyncCopyOp(A, [pk, mj], loop.sA, [pslot, g.index(j), c0, c0], [BK, 64]), ps)
        for j in range(BN // 64):
            nj = g.emit(arith.AddiOp(loop.n0, g.index(64 * j)), ps).results[0] if j else loop.n0
            g.emit(mapped.AsyncCopyWindowOp(X, [pk, nj], loop.sB, [pslot, g.index(j), c0, c0], [BK, 64], window), ps)

    staged = options.wgmma_store == "staged"
    loop = wgmma_mainloop(g, elt, tile_, False, k_lo, k_hi, fill, copies=True, staged=staged, a_trans=True)
    row0 = g.ev(arith.AddiOp(loop.m0, loop.row))

    def place(gen: GpuKernelGen, scope: Scope, row: SSAValue, col: SSAValue, acc: SSAValue) -> list[SSAValue]:
        """dw[o, *k, c] = the sum at (o, (k, c)): the value of the convolution's (C, *K, O) result
        at (c, *k, o), which the group's output transposes."""
        *taps, ch = gen.delinearize(col, [*map(gen.index, m.kernel), gen.index(cp)])
        scope.memo[(m.conv.result, (ch, *taps, row))] = acc_to_result(gen, acc, f32, m.conv.result.type.element_type)
        return [row, *taps, ch]

    def real(gen: GpuKernelGen, scope: Scope, col: SSAValue) -> SSAValue:
        """Column (k, c) holds a channel of x, not its zero padding."""
        ch = gen.emit(arith.RemUIOp(col, gen.index(cp)), scope).results[0]
        return gen.emit(arith.CmpiOp(ch, gen.index(c), "ult"), scope).results[0]

    if partials:
        ws = he.v(mapped.TempOp(mapped.BufType([splits, o, cols], f32, "global")))
        WS = g.arg_for(ws)
        epi = Block(arg_types=[f32, IndexType(), IndexType()])
        epi.add_op(mapped.YieldOp(epi.args[0]))
        at = [g.ev(mapped.BlockIdOp("z")) if splits > 1 else c0, row0, loop.n0]
        g.emit(mapped.FragStoreOp(loop.result, WS, at, Region(epi), loop.staging(WS.type)), g.top)
        g.name = name + "_partial"
        keep = real if cp != c else None
        done = split_k_sum_kernel(name, fused, host, ws, splits, o, cols, place, keep)
        return [*padding.kernels, (g.finish(), g.launch_args), done]
    for v, r in zip(yielded(fused), fused.outputs):
        buf = host.buffer_for_result(r)
        out = g.arg_for(he.v(mapped.ViewOp(buf, mapped.BufType([o, cols], buf.type.element_type, "global"))))
        epi = Block(arg_types=[f32, IndexType(), IndexType()])
        es = Scope(epi, g.top)
        for a in epi.args:
            g.scope_of[a] = es
        val, row, col = epi.args
        idx = place(g, es, row, col, val)
        epi.add_op(mapped.YieldOp(g.to_storage(g.value_at(v, idx), out.type.element_type)))
        g.emit(mapped.FragStoreOp(loop.result, out, [row0, loop.n0], Region(epi), loop.staging(out.type)), g.top)
    return [(g.finish(), g.launch_args)]


__all__ = ["conv_tile", "conv_widths", "lower_conv_wgmma", "lower_conv_weight_grad"]
