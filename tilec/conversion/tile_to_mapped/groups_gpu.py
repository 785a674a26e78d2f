"""Fusion groups -> `mapped.kernel`s for GPUs (tile-to-mapped targets cuda and hip).

Heuristics (pass options of tile-to-mapped, documented in docs/cuda.md and docs/hip.md):
- `elementwise`: one thread per V consecutive elements (V x element = 16 bytes when the row
  length allows aligned vector accesses, else 1), `threads` per block, grid = cdiv(E, threads*V).
- `rowwise` (softmax, layernorm, ...): one block per row; each reduction is a strided loop over
  the row (V-wide accesses) followed by a block reduction (warp shuffles + shared memory); the
  outputs are a second strided loop. Rows stay in L1 between the passes.
- `reduction` (non-trailing axes): one thread per output element, a sequential loop.
- `scatter` (one `scatter_add`): one thread per column (an index of every axis but the scattered
  one): it copies the source along the axis, then adds the updates in index order. No atomics:
  duplicate indices are summed in order, so results are deterministic (and equal the CPU's).
- `contraction`: f16/bf16 operands with f32 accumulation -> the target's tensor-core kernel when
  the layout allows (cuda: mma.sync, gemm_nv_mma.py; hip: MFMA, gemm_amd_mfma.py); otherwise the
  SIMT kernel of gemm_gpu_simt.py: a 16x16 thread block computes a 64x64 tile, each thread a 4x4
  register tile, K in steps of 16 through shared memory.

`wave` (32, or 64 for AMD wavefronts) is written into every kernel; block sizes are multiples of it.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntAttr
from xdsl.ir import SSAValue

from tilec.conversion.tile_to_mapped.gpu_kernelgen import GpuKernelGen
from tilec.conversion.tile_to_mapped.group_info import anchor_of, contraction_of, tile_shape, yielded
from tilec.conversion.tile_to_mapped.host import HostBuilder
from tilec.conversion.tile_to_mapped.loopnest import KernelGen, Scope
from tilec.conversion.tile_to_mapped.options import AmdMapping, GpuMapping
from tilec.diagnostics import NotSupportedYet, op_location
from tilec.dialects import mapped, tile
from tilec.dialects.common import bitwidth


def _vector_width(g: GpuKernelGen, fused: tile.FusedOp, last_dim: int, options: GpuMapping) -> int:
    """Lanes per thread: 16 bytes of the narrowest type in the group, if the last axis allows."""
    if last_dim <= 0:
        return 1
    widths = [bitwidth(a.type.element_type) for a in fused.body.block.args if isinstance(a.type, tile.TileType)]
    widths += [bitwidth(v.type.element_type) for v in yielded(fused)]
    bits = max(8, min(widths) if widths else 32)
    width = max(1, (options.vector_bytes * 8) // max(bits, 8))
    width = min(width, 8)
    while width > 1 and last_dim % width:
        width //= 2
    return width


def _host_product(g: GpuKernelGen, value: SSAValue, axes: range) -> SSAValue:
    """The product of `value`'s sizes over `axes`, computed on the host, as a kernel value."""
    he = g.host.e
    p = he.product([g.host.size(value, a) for a in axes])
    c = he.const_value(p)
    if c is not None:
        return g.index(c)
    return g.arg_for(p)


def lower_group(name: str, fused: tile.FusedOp, host: HostBuilder, options: GpuMapping):
    """(kernel, launch args) of one group, or a list of them launched in order (an atomic scatter:
    the copy, then the atomic adds)."""
    if fused.kind.data == "scatter" and not options.deterministic:
        lowered = _atomic_scatter(name, fused, host, options)
    else:
        lowered = [_lower_group(name, fused, host, options)]
    for kernel, _ in lowered:
        if options.wave != 32:
            kernel.properties["wave"] = IntAttr(options.wave)
    return lowered if len(lowered) > 1 else lowered[0]


def _lower_group(name: str, fused: tile.FusedOp, host: HostBuilder, options: GpuMapping):
    kind = fused.kind.data
    if kind == "contraction":
        from tilec.conversion.tile_to_mapped.gemm_gpu_simt import lower_simt

        if isinstance(anchor_of(fused), tile.ConvOp):
            return lower_simt(name, fused, host)  # the generic implicit GEMM (any dtype, layout, groups)
        c = contraction_of(fused)
        lowered = None
        if options.tensor_cores and str(c.lhs.type.element_type) in ("f16", "bf16") and str(c.acc) == "f32":
            if isinstance(options, AmdMapping):
                from tilec.conversion.tile_to_mapped.gemm_amd_mfma import lower_mfma as lower_tc
            else:
                from tilec.conversion.tile_to_mapped.gemm_nv_mma import lower_mma as lower_tc
            lowered = lower_tc(name, fused, host, options)
        return lowered or lower_simt(name, fused, host)
    g = GpuKernelGen(name, host, fused)
    outputs = [(v, g.arg_for(host.buffer_for_result(r))) for v, r in zip(yielded(fused), fused.outputs)]
    if kind == "rowwise":
        _rowwise(g, fused, outputs, options)
    elif kind == "reduction":
        _per_output(g, outputs, options)
    elif kind == "scatter":
        _scatter(g, fused, outputs, options)
    else:
        _elementwise(g, fused, outputs, options)
    return g.finish(), g.launch_args


def _domain_of(fused: tile.FusedOp) -> SSAValue:
    outs = yielded(fused)
    return max(outs, key=lambda v: len(tile_shape(v)))


ELEMENTWISE_UNROLL = 4
"""Vectors per thread in elementwise kernels: several independent 16-byte loads in flight."""


def _elementwise(g: GpuKernelGen, fused: tile.FusedOp, outputs, options: GpuMapping) -> None:
    dom = _domain_of(fused)
    shape = tile_shape(dom)
    n = len(shape)
    width = _vector_width(g, fused, shape[-1], options) if n else 1
    threads = options.threads
    g.block_threads = threads
    sizes = [g.size(dom, a) for a in range(n)]
    total = _host_product(g, dom, range(n))
    per_block = threads * width * ELEMENTWISE_UNROLL
    g._grid_spec = [[g.grid_factor(total, per_block)], [1], [1]]
    bid = g.ev(mapped.BlockIdOp("x"))
    tid = g.ev(mapped.ThreadIdOp("x"))
    start = g.ev(arith.AddiOp(g.ev(arith.MuliOp(bid, g.index(per_block))), g.ev(arith.MuliOp(tid, g.index(width)))))
    # the block's vectors are strided by threads*width: consecutive threads, consecutive vectors.
    # Whole blocks take a fast path where every load comes before every store (the compiler
    # cannot move a load above a store to another buffer: it does not know they do not alias).
    starts = [
        start if u == 0 else g.ev(arith.AddiOp(start, g.index(u * threads * width))) for u in range(ELEMENTWISE_UNROLL)
    ]
    last_end = g.ev(arith.AddiOp(starts[-1], g.index(width)))
    full = g.ev(arith.CmpiOp(last_end, total, "ule"))
    iff, body = g.open_if(g.top, full)
    pending = []
    for e0 in starts:
        base = g.delinearize(g.move_to(e0, body), sizes) if n else []
        lanes_idx = [[*base[:-1], g.lane_index(base[-1], lane, width)] if base else [] for lane in range(width)]
        for v, buf in outputs:
            pending.append(([g.value_at(v, idx) for idx in lanes_idx], buf, base, v.type.element_type))
    for vals, buf, base, elt in pending:
        g.store_lanes(vals, buf, base, elt)
    g.close_if(g.top, iff)
    partial = g.ev(arith.XOrIOp(full, g.const(1, full.type)))
    iff, tail = g.open_if(g.top, partial)
    for e0 in starts:
        e_in = g.move_to(e0, tail)
        inside = g.emit(arith.CmpiOp(e_in, total, "ult"), tail).results[0]
        jf, body = g.open_if(tail, inside)
        e_in2 = g.move_to(e_in, body)  # every index of these elements is re-rooted in the guard
        base = g.delinearize(e_in2, sizes) if n else []
        _eval_lanes(g, outputs, base, width, body)
        g.close_if(tail, jf)
    g.close_if(g.top, iff)


def _eval_lanes(g: GpuKernelGen, outputs, base: list[SSAValue], width: int, scope: Scope) -> None:
    lanes_idx = []
    for lane in range(width):
        if base:
            lanes_idx.append([*base[:-1], g.lane_index(base[-1], lane, width)])
        else:
            lanes_idx.append([])
    for v, buf in outputs:
        vals = [g.value_at(v, idx) for idx in lanes_idx]
        g.store_lanes(vals, buf, base, v.type.element_type)


def _rowwise(g: GpuKernelGen, fused: tile.FusedOp, outputs, options: GpuMapping) -> None:
    red = next(op for op in fused.body.block.ops if isinstance(op, tile.ReduceOp))
    dom = red.source
    shape = tile_shape(dom)
    n = len(shape)
    k = n - len(red.axes)
    inner_static = 1
    for d in shape[k:]:
        inner_static = -1 if d == -1 or inner_static == -1 else inner_static * d
    width = _vector_width(g, fused, shape[-1], options)
    vectors = inner_static // width if inner_static > 0 else -1
    if options.row_threads:
        threads = options.row_threads
    elif vectors > 0:
        # about 4 vectors per thread: loads in flight for latency, small blocks for occupancy;
        # whole warps / wavefronts (multiples of options.wave)
        per_thread = -(-vectors // 4)
        w = options.wave
        threads = max(w, min(1024, (per_thread + w - 1) // w * w))
    else:
        threads = 256
    unroll = vectors // threads if vectors > 0 and vectors % threads == 0 and vectors // threads <= 32 else 0
    g.block_threads = threads
    sizes = [g.size(dom, a) for a in range(n)]
    rows = _host_product(g, dom, range(k))
    g._grid_spec = [[g.grid_factor(rows, 1)], [1], [1]]
    row = g.ev(mapped.BlockIdOp("x"))
    tid = g.ev(mapped.ThreadIdOp("x"))
    outer = g.delinearize(row, sizes[:k])
    inner_sizes = sizes[k:]
    count = g.product(inner_sizes)
    g.row_reduce = (tid, inner_sizes, width, count)
    if unroll:
        first = g.ev(arith.MuliOp(tid, g.index(width)))
        g.row_starts = [
            first if it == 0 else g.ev(arith.AddiOp(first, g.index(it * threads * width))) for it in range(unroll)
        ]
    for op in fused.body.block.ops:
        if isinstance(op, tile.ReduceOp):
            g.value_at(op.result, _row_index(op.result, outer, g, n))
    full = [(v, b) for v, b in outputs if tile_shape(v) == shape and n > k]
    rowlevel = [(v, b) for v, b in outputs if (v, b) not in full]
    if rowlevel:
        # every thread evaluates (the values may need block reductions); thread 0 stores
        vals = [
            (g.to_storage(g.value_at(v, _row_index(v, outer, g, n)), v.type.element_type), v, b) for v, b in rowlevel
        ]
        first = g.ev(arith.CmpiOp(tid, g.index(0), "eq"))
        iff, body = g.open_if(g.top, first)
        for val, v, b in vals:
            idx = [g.move_to(i, body) for i in _row_index(v, outer, g, n)] or [g.index(0)] * b.type.rank
            g.emit(mapped.StoreOp(val, b, idx), body)  # (a rank-0 value lives in a one-element buffer)
        g.close_if(g.top, iff)
    if full and g.row_starts is not None:
        for j0 in g.row_starts:
            inner = g.delinearize(j0, inner_sizes)
            _eval_lanes(g, full, [*outer, *inner], width, g.top)
    elif full:
        start = g.ev(arith.MuliOp(tid, g.index(width)))
        loop, body = g.open_for(g.top, start, count, g.index(threads * width))
        j0 = body.block.args[0]
        inner = g.delinearize(j0, inner_sizes)
        _eval_lanes(g, full, [*outer, *inner], width, body)
        g.close_for(g.top, loop, body)


def _row_index(value: SSAValue, outer: list[SSAValue], g: KernelGen, n: int) -> list[SSAValue]:
    """The index of a row-level `value` at the current row (`outer`: the indices of the n-axis
    domain's first len(outer) axes). A value of rank <= len(outer) aligns its trailing axes with
    the outer ones (numpy broadcasting among row values; a reduction without keepdims has exactly
    the outer axes); a higher-rank one aligns with the whole domain (keepdims). Unit axes read 0.
    (Matching by position matters: a (2, 1, 41) row max has outer axes (2, 1), and pairing its
    non-unit axis with the last outer index read row 0 for every row.)"""
    shape = tile_shape(value)
    k = len(outer)
    off = k - len(shape) if len(shape) <= k else n - len(shape)
    return [outer[off + i] if d != 1 and 0 <= off + i < k else g.index(0) for i, d in enumerate(shape)]


def _per_output(g: GpuKernelGen, outputs, options: GpuMapping) -> None:
    threads = options.threads
    g.block_threads = threads
    for v, buf in outputs:
        shape = tile_shape(v)
        sizes = [g.size(v, a) for a in range(len(shape))]
        total = _host_product(g, v, range(len(shape)))
        g._grid_spec = [[g.grid_factor(total, threads)], [1], [1]]
        bid = g.ev(mapped.BlockIdOp("x"))
        tid = g.ev(mapped.ThreadIdOp("x"))
        e = g.ev(arith.AddiOp(g.ev(arith.MuliOp(bid, g.index(threads))), tid))
        inside = g.ev(arith.CmpiOp(e, total, "ult"))
        iff, body = g.open_if(g.top, inside)
        e_in = g.move_to(e, body)
        idx = g.delinearize(e_in, sizes)
        g.store(g.value_at(v, idx), buf, idx, v.type.element_type)
        g.close_if(g.top, iff)


def _scatter(g: GpuKernelGen, fused: tile.FusedOp, outputs, options: GpuMapping) -> None:
    op = next(o for o in fused.body.block.ops if isinstance(o, tile.ScatterAddOp))
    (value, buf), *rest = outputs
    if rest or value is not op.result:
        raise NotSupportedYet("a scatter group with other outputs", op_location(fused))
    a = op.axis.data
    shape = tile_shape(op.result)
    cols = [d for d in range(len(shape)) if d != a]
    threads = options.threads
    g.block_threads = threads
    he = g.host.e
    total_h = he.product([g.host.size(op.result, d) for d in cols])
    c = he.const_value(total_h)
    total = g.index(c) if c is not None else g.arg_for(total_h)
    g._grid_spec = [[g.grid_factor(total, threads)], [1], [1]]
    bid = g.ev(mapped.BlockIdOp("x"))
    tid = g.ev(mapped.ThreadIdOp("x"))
    e = g.ev(arith.AddiOp(g.ev(arith.MuliOp(bid, g.index(threads))), tid))
    inside = g.ev(arith.CmpiOp(e, total, "ult"))
    iff, body = g.open_if(g.top, inside)
    col = g.delinearize(g.move_to(e, body), [g.size(op.result, d) for d in cols])
    fixed: list = [None] * len(shape)
    for d, i in zip(cols, col):
        fixed[d] = i
    g.scatter_add(op, buf, fixed, body, simd=False)
    g.close_if(g.top, iff)


def _atomic_scatter(name: str, fused: tile.FusedOp, host: HostBuilder, options: GpuMapping):
    """A scatter group as two kernels: the source copied into the output (one thread per
    element), then one thread per update element adding it at its target with an atomic add
    (`KernelGen.scatter_add_atomic`). Float sums of duplicate indices land in an unspecified
    order; `deterministic=true` keeps the in-order scheme (`_scatter`)."""
    op = next(o for o in fused.body.block.ops if isinstance(o, tile.ScatterAddOp))
    if yielded(fused) != [op.result]:
        raise NotSupportedYet("a scatter group with other outputs", op_location(fused))
    elt = op.result.type.element_type
    if str(elt) not in mapped.AtomicAddOp.ELEMENT_TYPES:
        raise NotSupportedYet(
            f"atomic scatter_add of {elt} on GPUs (f16, bf16, f32, f64, 32/64-bit ints); compile with deterministic=true",
            op_location(op),
        )
    kernels = []
    for suffix, value in (("_copy", op.source), ("", op.updates)):
        g = GpuKernelGen(name + suffix, host, fused)
        buf = g.arg_for(host.buffer_for_result(fused.outputs[0]))
        threads = options.threads
        g.block_threads = threads
        shape = tile_shape(value)
        total = _host_product(g, value, range(len(shape)))
        g._grid_spec = [[g.grid_factor(total, threads)], [1], [1]]
        bid = g.ev(mapped.BlockIdOp("x"))
        tid = g.ev(mapped.ThreadIdOp("x"))
        e = g.ev(arith.AddiOp(g.ev(arith.MuliOp(bid, g.index(threads))), tid))
        inside = g.ev(arith.CmpiOp(e, total, "ult"))
        iff, body = g.open_if(g.top, inside)
        idx = g.delinearize(g.move_to(e, body), [g.size(value, d) for d in range(len(shape))])
        if suffix:
            g.store(g.value_at(op.source, idx), buf, idx)
        else:
            g.scatter_add_atomic(op, buf, idx)
        g.close_if(g.top, iff)
        kernels.append((g.finish(), g.launch_args))
    return kernels


__all__ = ["GpuKernelGen", "lower_group", "IndexType"]
