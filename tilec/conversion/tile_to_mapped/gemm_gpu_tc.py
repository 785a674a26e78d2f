"""What the two tensor-core GEMMs (NVIDIA mma.sync: gemm_nv_mma.py, AMD MFMA: gemm_amd_mfma.py)
share: when they apply, the kernel's arguments and launch grid, each warp's tile offsets and the
fragment epilogue. The staging of A and B through shared memory and the fragment loop are each
target's own.
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
    c: tile.ContractOp, fused: tile.FusedOp, host: HostBuilder, pad: Callable[[View], View | None] | None = None
) -> tuple[View, View, bool] | None:
    """(lhs view, rhs view, rhs is N x K) when a tensor-core kernel applies, else None.

    Applies to f16/bf16 operands with f32 accumulation that are plain row-major views: A is
    [batch..., M, K] (K contiguous), B is [batch..., K, N] or [batch..., N, K], with static
    contiguous dimensions that are multiples of 8 (16-byte rows). An operand whose rows are not
    is replaced by `pad(view)` where given (a copy with 16-byte rows, `RowPadding`)."""
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
    if lv.index_map != [*batch_l, ma, ka]:
        return None
    if rv.index_map == [*batch_r, kb, nb]:
        transposed = False
    elif rv.index_map == [*batch_r, nb, kb]:
        transposed = True
    else:
        return None
    lasts = [v.buf_type.get_shape()[-1] for v in (lv, rv)]
    if any(last < 0 for last in lasts) or (pad is None and any(last % 8 for last in lasts)):
        return None
    views = []
    for v, last in zip((lv, rv), lasts):
        if last % 8:
            v = pad(v)
            if v is None:
                return None
        views.append(v)
    return views[0], views[1], transposed


@dataclass
class RowPadding:
    """Copies of operands whose static rows are not whole 16-byte chunks (a K or N that is not a
    multiple of 8), with rows padded by zeros to the next multiple of 8, so that the tensor-core
    kernels (cp.async / TMA need 16-byte rows) take every shape: `pad` gives the copy's view and
    queues the kernel that fills it (`kernels`, launched before the GEMM). The contraction keeps
    its logical sizes: the padding only sets the row stride, and its zeros meet the zeros the
    kernels load outside the other operand."""

    name: str
    fused: tile.FusedOp
    host: HostBuilder
    kernels: list = field(default_factory=list)
    copies: dict = field(default_factory=dict)

    def pad(self, v: View) -> View | None:
        t = v.buf_type
        if any(d < 0 for d in t.get_shape()):
            return None  # dynamic sizes: not supported yet (the SIMT kernel runs)
        if v.buffer not in self.copies:
            *lead, last = t.get_shape()
            padded = mapped.BufType([*lead, -(-last // 8) * 8], t.element_type, "global")
            temp = self.host.e.v(mapped.TempOp(padded, []))
            self.kernels.append(self._fill(v.buffer, temp, len(self.kernels)))
            self.copies[v.buffer] = temp
        return View(self.copies[v.buffer], v.index_map)

    def _fill(self, src: SSAValue, dst: SSAValue, i: int):
        """One thread per element of the padded copy: the source's element, or 0 in the padding."""
        g = GpuKernelGen(f"{self.name}_pad{i}", self.host, self.fused)
        threads = 256
        g.block_threads = threads
        S, D = g.arg_for(src), g.arg_for(dst)
        shape = dst.type.get_shape()
        last = src.type.get_shape()[-1]
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
        v = g.emit(mapped.LoadOp(S, [*idx[:-1], col]), body).results[0]
        zero = g.emit(constant_op(0.0, v.type), body).results[0]
        v = g.emit(arith.SelectOp(inside, v, zero), body).results[0]
        g.emit(mapped.StoreOp(v, D, idx), body)
        g.close_if(g.top, iff)
        return g.finish(), g.launch_args


@dataclass
class TcKernel:
    """A tensor-core GEMM kernel under construction: its generator and the values both kernels use."""

    g: GpuKernelGen
    c: tile.ContractOp
    sp: ContractionAxes
    outputs: list[tuple[SSAValue, SSAValue]]  # (group value, output buffer argument)
    A: SSAValue
    B: SSAValue
    M: SSAValue
    N: SSAValue
    K: SSAValue


def begin_tc_kernel(
    name: str, fused: tile.FusedOp, host: HostBuilder, lv: View, rv: View, threads: int, bm: int, bn: int
) -> TcKernel:
    """The kernel's arguments (outputs, A, B, M, N, K) and its grid: x over N tiles of `bn`,
    y over M tiles of `bm`, z over the batch."""
    c = contraction_of(fused)
    sp = ContractionAxes(c)
    g = GpuKernelGen(name, host, fused)
    g.block_threads = threads
    outputs = [(v, g.arg_for(host.buffer_for_result(r))) for v, r in zip(yielded(fused), fused.outputs)]
    A = g.arg_for(lv.buffer)
    B = g.arg_for(rv.buffer)
    lhs, rhs = c.lhs, c.rhs
    M = g.size(lhs, sp.lfree[0])
    N = g.size(rhs, sp.rfree[0])
    K = g.size(lhs, sp.axes[0][0])
    hM = host.size(lhs, sp.lfree[0])
    hN = host.size(rhs, sp.rfree[0])
    hB = host.e.product([host.size(lhs, a) for a, _ in sp.batch])
    g.set_grid(
        [g.grid_factor(g.host_value(hN), bn)],
        [g.grid_factor(g.host_value(hM), bm)],
        [g.grid_factor(g.host_value(hB), 1)],
    )
    return TcKernel(g, c, sp, outputs, A, B, M, N, K)


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
    type)` gives; returns the finished kernel and its launch args."""
    g, c = k.g, k.c
    row0 = g.ev(arith.AddiOp(m0, wm))
    col0 = g.ev(arith.AddiOp(n0, wn))
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


__all__ = ["RowPadding", "TcKernel", "begin_tc_kernel", "fragment_epilogue", "tensor_core_layout", "warp_offsets"]
