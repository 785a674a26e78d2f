"""Fusion groups -> `mapped.kernel`s for GPUs (tile-to-mapped targets cuda and hip).

Heuristics (pass options of tile-to-mapped, documented in docs/cuda.md and docs/hip.md):
- `elementwise`: each thread takes ELEMENTWISE_UNROLL slots of V consecutive elements (V x
  element = 16 bytes when the row length allows aligned vector accesses; a `?` row length is
  checked per launch, the slots then V scalar elements each), `threads` per block.
- `elementwise` reading an input across its contiguous axis (a transpose moving the last axis):
  T x T tiles through shared memory, reads and stores coalesced (transpose_gpu.py, knob
  `transpose-tile`).
- `rowwise` (softmax, layernorm, ...): one block per row; each reduction is a pass over the row
  followed by a block reduction (warp shuffles + shared memory); the outputs are a last pass.
  A row that fits `threads x V x row-cache` elements is held in registers through the passes
  (`_RowPlan`: read once, each value computed once; a `?` row decides per launch), else each
  pass is a strided loop (rows stay in L1/L2 between the passes).
- `reduction` (non-trailing axes): reductions keeping the last axis (column sums) split across
  blocks and combined by a second kernel (column_gpu.py, knob `column-blocks`); others (arg-
  reductions, the last axis reduced) one thread per output element, a sequential loop.
- `scatter` (one `scatter_add`): one thread per column (an index of every axis but the scattered
  one): it copies the source along the axis, then adds the updates in index order. No atomics:
  duplicate indices are summed in order, so results are deterministic (and equal the CPU's).
- `scan`: one scan along the last axis (lines longer than 32 or `?`): in tiles, a single pass
  with a decoupled look-back across blocks when there are few lines (scan_gpu.py); several
  scans along the last axis, or along another axis with fewer than 2048 static lines: one block
  per line, chunks of threads x 4 elements scanned in registers, then across the threads
  (`mapped.scan`, `_block_scan`); else one thread per line, a sequential loop (`_scan`).
- `sort` (one `sort` / `topk` with the producers of its source): a static row of a type of
  at most 32 bits whose power-of-two padding is at most `sort-registers` lives in registers,
  a group of lanes per row (order_gpu.py: packed keys, a bitonic network or k rounds of a
  group minimum; no shared memory, no barrier). Otherwise one block per row; the
  group's reductions as in `rowwise`, then: a static row whose power-of-two padding fits
  `BITONIC_BYTES` of shared memory (and is not a top-k with k <= `RANK_TOPK_MAX_K`) is a
  bitonic sort in shared memory (keys + i32 positions, stable by position, padding after
  every element); otherwise each thread takes elements i of the row (strided by the block)
  and stores each at its rank (`KernelGen.order_rank`, O(n^2) per row; the row staged in
  shared memory when static and small; a top-k element stops counting once k come first).
  Rows longer than `SORT_MAX_ROW` are refused.
- `contraction`: f16/bf16 operands with f32 accumulation -> the target's tensor-core kernel when
  the layout allows (cuda: mma.sync, gemm_nv_mma.py; hip: MFMA, gemm_amd_mfma.py); otherwise the
  SIMT kernel of gemm_gpu_simt.py: a 16x16 thread block computes a 64x64 tile, each thread a 4x4
  register tile, K in steps of 16 through shared memory.

`wave` (32, or 64 for AMD wavefronts) is written into every kernel; block sizes are multiples of it.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntAttr, i1, i32, i64
from xdsl.ir import SSAValue

from tilec.conversion.builder import compute_type, neutral
from tilec.conversion.tile_to_mapped.column_gpu import column_reductions, combine_parts, lower_column, part_buffers
from tilec.conversion.tile_to_mapped.gpu_kernelgen import GpuKernelGen, host_product, row_index, vector_width
from tilec.conversion.tile_to_mapped.group_info import (
    anchor_of,
    const_index,
    contraction_of,
    order_op_of,
    tile_shape,
    yielded,
)
from tilec.conversion.tile_to_mapped.host import HostBuilder
from tilec.conversion.tile_to_mapped.loopnest import Scope, scan_identity
from tilec.conversion.tile_to_mapped.options import AmdMapping, GpuMapping, NvMapping
from tilec.conversion.tile_to_mapped.order_gpu import lower_register_order, plan_register_order
from tilec.conversion.tile_to_mapped.scan_gpu import compute_of, exchange_type, lower_tiled_scan, tiled_scan_ok
from tilec.conversion.tile_to_mapped.transpose_gpu import lower_transposed, transposed_axis
from tilec.diagnostics import NotSupportedYet, op_location
from tilec.dialects import mapped, tile
from tilec.dialects.common import DYNAMIC, bitwidth, int_list, is_float, is_unsigned


def lower_group(name: str, fused: tile.FusedOp, host: HostBuilder, options: GpuMapping):
    """(kernel, launch args) of one group, or a list of them launched in order (an atomic scatter:
    the copy, then the atomic adds; a split-K convolution: the partial sums, then their sum)."""
    if fused.kind.data == "scatter" and not options.deterministic:
        lowered = _atomic_scatter(name, fused, host, options)
    elif fused.kind.data == "scan" and tiled_scan_ok(fused):
        lowered = [lower_tiled_scan(name, fused, host, options)]
    else:
        lowered = _lower_group(name, fused, host, options)  # a list: a split-K convolution
        lowered = lowered if isinstance(lowered, list) else [lowered]
    for kernel, _ in lowered:
        if options.wave != 32:
            kernel.properties["wave"] = IntAttr(options.wave)
    return lowered if len(lowered) > 1 else lowered[0]


def _lower_group(name: str, fused: tile.FusedOp, host: HostBuilder, options: GpuMapping):
    kind = fused.kind.data
    if kind == "attention" and isinstance(options, NvMapping):
        from tilec.conversion.tile_to_mapped.attention_nv_mma import lower_flash_mma

        return lower_flash_mma(name, fused, host, options)
    if kind == "conv_weight_grad" and isinstance(options, NvMapping):
        from tilec.conversion.tile_to_mapped.conv_nv_wgmma import lower_conv_weight_grad

        return lower_conv_weight_grad(name, fused, host, options)
    if kind == "conv_weight_grad":
        raise NotSupportedYet(
            "conv_weight_grad groups on AMD targets (their tile-fuse forms none: conv-weight-grad=false)",
            op_location(fused),
        )
    if kind in ("attention", "stream"):
        raise NotSupportedYet(
            f"{kind} groups on {'AMD' if isinstance(options, AmdMapping) else 'GPU'} targets (their tile-fuse "
            "forms none: attention=false, or attention-flash=true on CUDA, which makes no stream groups)",
            op_location(fused),
        )
    if kind == "contraction":
        if isinstance(anchor_of(fused), tile.ConvOp):
            from tilec.conversion.tile_to_mapped.conv_gpu import lower_conv

            if isinstance(options, NvMapping) and options.gemm == "wgmma" and options.tensor_cores:
                from tilec.conversion.tile_to_mapped.conv_nv_wgmma import lower_conv_wgmma

                lowered = lower_conv_wgmma(name, fused, host, options)  # None where it does not apply
                if lowered is not None:
                    return lowered

            return lower_conv(name, fused, host, options)
        from tilec.conversion.tile_to_mapped.gemm_gpu_simt import lower_simt

        c = contraction_of(fused)
        lowered = None
        if options.tensor_cores and str(c.lhs.type.element_type) in ("f16", "bf16") and str(c.acc) == "f32":
            from tilec.conversion.tile_to_mapped.gemm_gpu_tc import OperandCopies

            copies = OperandCopies(name, fused, host)  # operands in layouts the kernels do not read
            if isinstance(options, AmdMapping):
                from tilec.conversion.tile_to_mapped.gemm_amd_mfma import lower_mfma as lower_tc
            else:
                from tilec.conversion.tile_to_mapped.gemm_nv_mma import lower_mma as lower_tc

                if options.gemm == "wgmma":  # where it does not apply (batch axes), mma.sync
                    from tilec.conversion.tile_to_mapped.gemm_nv_wgmma import lower_wgmma

                    lowered = lower_wgmma(name, fused, host, options, copies)
            lowered = lowered or lower_tc(name, fused, host, options, copies)
            if lowered is not None and copies.kernels:  # the copies, then the GEMM
                return [*copies.kernels, *(lowered if isinstance(lowered, list) else [lowered])]
        return lowered or lower_simt(name, fused, host)
    if kind == "reduction" and column_reductions(fused) is not None:
        return lower_column(name, fused, host, options)
    if kind == "rowwise" and _row_columns(fused, _row_reduction(fused)):
        return _rowwise_columns(name, fused, host, options)
    g = GpuKernelGen(name, host, fused)
    outputs = [(v, g.arg_for(host.buffer_for_result(r))) for v, r in zip(yielded(fused), fused.outputs)]
    if kind == "rowwise":
        _rowwise(g, fused, outputs, options)
    elif kind == "reduction":
        _per_output(g, outputs, options)  # (column reductions: lower_column, above)
    elif kind == "scatter":
        _scatter(g, fused, outputs, options)
    elif kind == "scan":
        _scan(g, fused, outputs, options)
    elif kind == "sort":
        _sort(g, fused, outputs, options)
    elif (axis := transposed_axis(g, fused, options)) is not None:
        lower_transposed(g, fused, outputs, axis, options)
    else:
        _elementwise(g, fused, outputs, options)
    return g.finish(), g.launch_args


def _domain_of(fused: tile.FusedOp) -> SSAValue:
    outs = yielded(fused)
    return max(outs, key=lambda v: len(tile_shape(v)))


ELEMENTWISE_UNROLL = 4
"""Vectors per thread in elementwise kernels: several independent 16-byte loads in flight."""


def _elementwise(g: GpuKernelGen, fused: tile.FusedOp, outputs, options: GpuMapping) -> None:
    """Each thread takes ELEMENTWISE_UNROLL slots of V consecutive elements (V-wide accesses),
    the block's slots strided by threads x V. With a `?` last axis, V comes from the element
    types and each launch checks that the last axis takes whole vectors: if not, the same slots
    are V scalar elements each (same grid), each element's index computed on its own."""
    dom = _domain_of(fused)
    shape = tile_shape(dom)
    n = len(shape)
    dynamic_last = n > 0 and shape[-1] == DYNAMIC
    width = vector_width(fused, 1 << 20 if dynamic_last else shape[-1], options) if n else 1
    threads = options.threads
    g.block_threads = threads
    sizes = [g.size(dom, a) for a in range(n)]
    total = host_product(g, dom, range(n))
    per_block = threads * width * ELEMENTWISE_UNROLL
    g._grid_spec = [[g.grid_factor(total, per_block)], [1], [1]]
    bid = g.ev(mapped.BlockIdOp("x"))
    tid = g.ev(mapped.ThreadIdOp("x"))
    start = g.ev(arith.AddiOp(g.ev(arith.MuliOp(bid, g.index(per_block))), g.ev(arith.MuliOp(tid, g.index(width)))))
    # the block's vectors are strided by threads*width: consecutive threads, consecutive vectors.
    starts = [
        start if u == 0 else g.ev(arith.AddiOp(start, g.index(u * threads * width))) for u in range(ELEMENTWISE_UNROLL)
    ]
    if not dynamic_last or width == 1:
        _elementwise_slots(g, outputs, starts, sizes, total, width, g.top, vector=True)
        return
    whole = g.ev(arith.CmpiOp(g.remui(sizes[-1], g.index(width)), g.index(0), "eq"))
    whole = g.ev(arith.AndIOp(whole, _aligned(g, outputs)))
    for vector in (True, False):
        cond = whole if vector else g.ev(arith.XOrIOp(whole, g.const(1, i1)))
        iff, scope = g.open_if(g.top, cond)
        g.dynamic_vectors = vector
        _elementwise_slots(g, outputs, starts, sizes, total, width, scope, vector)
        g.dynamic_vectors = False
        g.close_if(g.top, iff)


def _aligned(g: GpuKernelGen, outputs) -> SSAValue:
    """i1: every array input and output buffer of the group starts at a 16-byte boundary (a view
    the caller passes may start anywhere), so its rows of whole vectors take vector accesses."""
    ok = g.const(True, i1)
    for b in [*g.row_buffers(None), *dict.fromkeys(buf for _, buf in outputs)]:
        ok = g.ev(arith.AndIOp(ok, g.ev(mapped.IsAlignedOp(b, 16))))
    return ok


def _elementwise_slots(g: GpuKernelGen, outputs, starts, sizes, total, width: int, scope: Scope, vector: bool):
    """The thread's slots (first elements `starts`, V = width elements each) in `scope`. Whole
    blocks take a fast path where every load comes before every store (the compiler cannot move a
    load above a store to another buffer: it does not know they do not alias); the last block
    guards each slot (V-wide) or element."""
    n = len(sizes)

    def elements(e0: SSAValue, sc: Scope):
        """(index, lanes) of each access of the slot at e0: one V-wide, or V scalar ones."""
        if vector:
            base = g.delinearize(e0, sizes) if n else []
            return [
                (base, [[*base[:-1], g.lane_index(base[-1], lane, width)] if base else [] for lane in range(width)])
            ]
        out = []
        for lane in range(width):
            e = e0 if lane == 0 else g.emit(arith.AddiOp(e0, g.index(lane)), sc).results[0]
            idx = g.delinearize(e, sizes)
            out.append((idx, [idx]))
        return out

    last_end = g.ev(arith.AddiOp(starts[-1], g.index(width)))
    full = g.ev(arith.CmpiOp(last_end, total, "ule"))
    iff, body = g.open_if(scope, full)
    pending = []
    for e0 in starts:
        for base, lanes_idx in elements(g.move_to(e0, body), body):
            for v, buf in outputs:
                if tile_shape(v) != tile_shape(_domain_of_outputs(outputs)):
                    pending.extend(_reshaped_lanes(g, v, buf, _domain_of_outputs(outputs), lanes_idx))
                    continue
                pending.append(([g.value_at(v, idx) for idx in lanes_idx], buf, base, v.type.element_type))
    for vals, buf, base, elt in pending:
        g.store_lanes(vals, buf, base, elt)
    g.close_if(scope, iff)
    partial = g.ev(arith.XOrIOp(full, g.const(1, full.type)))
    iff, tail = g.open_if(scope, partial)
    for e0 in starts:
        e_in = g.move_to(e0, tail)
        for lane in range(1 if vector else width):
            e = e_in if lane == 0 else g.emit(arith.AddiOp(e_in, g.index(lane)), tail).results[0]
            inside = g.emit(arith.CmpiOp(e, total, "ult"), tail).results[0]
            jf, guarded = g.open_if(tail, inside)
            e_g = g.move_to(e, guarded)  # every index of these elements is re-rooted in the guard
            if vector:
                base = g.delinearize(e_g, sizes) if n else []
                _eval_lanes(g, outputs, base, width, guarded)
            else:
                _eval_lanes(g, outputs, g.delinearize(e_g, sizes), 1, guarded)
            g.close_if(tail, jf)
    g.close_if(scope, iff)


def _eval_lanes(g: GpuKernelGen, outputs, base: list[SSAValue], width: int, scope: Scope, dom=None) -> None:
    """The outputs' `width` lanes at `base` (an index of `dom`, default the widest output)."""
    dom = _domain_of_outputs(outputs) if dom is None else dom
    lanes_idx = []
    for lane in range(width):
        if base:
            lanes_idx.append([*base[:-1], g.lane_index(base[-1], lane, width)])
        else:
            lanes_idx.append([])
    for v, buf in outputs:
        if tile_shape(v) != tile_shape(dom):
            for vals, b, at, elt in _reshaped_lanes(g, v, buf, dom, lanes_idx):
                g.store_lanes(vals, b, at, elt)
            continue
        vals = [g.value_at(v, idx) for idx in lanes_idx]
        g.store_lanes(vals, buf, base, v.type.element_type)


def _domain_of_outputs(outputs):
    return max((v for v, _ in outputs), key=lambda v: len(tile_shape(v)))


def _reshaped_lanes(g: GpuKernelGen, v: SSAValue, buf: SSAValue, dv: SSAValue, lanes_idx) -> list:
    """Stores of an output whose shape is not the domain's (`dv`: a value of the domain's shape;
    the same elements under other unit axes, e.g. a row statistic (C,) yielded beside its
    (C, 1, 1) reshape): each lane's domain index mapped to the output's, one scalar store per
    lane, as store_lanes' (values, buffer, index, type) entries."""
    return [
        ([_reshaped_value(g, v, dv, idx)], buf, _reshaped_at(g, v, dv, idx), v.type.element_type) for idx in lanes_idx
    ]


def _reshaped_at(g: GpuKernelGen, v: SSAValue, dv: SSAValue, idx: list[SSAValue]) -> list[SSAValue]:
    """The index of output `v` holding the element at domain index `idx` (`dv`: domain-shaped)."""
    dom, vs = tile_shape(dv), tile_shape(v)
    if [d for d in dom if d != 1] == [d for d in vs if d != 1]:
        it = iter([i for i, d in zip(idx, dom) if d != 1])
        return [next(it) if d != 1 else g.index(0) for d in vs]
    flat = g.linearize(idx, [g.size(dv, a) for a in range(len(dom))])
    return g.delinearize(flat, [g.size(v, a) for a in range(len(vs))])


def _reshaped_value(g: GpuKernelGen, v: SSAValue, dv: SSAValue, idx: list[SSAValue]) -> SSAValue:
    """Output `v` at domain index `idx`: a reshape of a domain-shaped value is that value at
    `idx` itself (the row's reductions are then the ones already computed at the domain index:
    evaluating at the reshaped index would run them again, block barriers included)."""
    op = v.owner
    if isinstance(op, tile.ReshapeOp) and tile_shape(op.source) == tile_shape(dv):
        return g.value_at(op.source, idx)
    return g.value_at(v, _reshaped_at(g, v, dv, idx))


def _row_reduction(fused: tile.FusedOp) -> tile.ReduceOp:
    """The reduction giving a rowwise group its domain: over a trailing suffix of the axes of the
    widest value reduced (reductions of constants, e.g. `mean`'s count, reduce narrower ones)."""
    reds = [op for op in fused.body.block.ops if isinstance(op, tile.ReduceOp)]
    rows = []
    for op in reds:
        n, axes = len(tile_shape(op.source)), sorted(int_list(op.axes))
        if axes and axes == list(range(n - len(axes), n)):
            rows.append(op)
    return max(rows, key=lambda op: len(tile_shape(op.source)))


def _row_columns(fused: tile.FusedOp, red: tile.ReduceOp) -> list[tile.ReduceOp]:
    """The column reductions of a rowwise group (tile-fuse `column-partials`): reductions of
    domain-shaped values over the leading axes the row reductions keep."""
    shape = tile_shape(red.source)
    k = len(shape) - len(red.axes)
    return [
        op
        for op in fused.body.block.ops
        if isinstance(op, tile.ReduceOp)
        and tile_shape(op.source) == shape
        and sorted(int_list(op.axes)) == list(range(k))
    ]


def _rowwise(g: GpuKernelGen, fused: tile.FusedOp, outputs, options: GpuMapping) -> None:
    """One block per row (see `_row_plan` for how a thread covers its part of the row)."""
    red = _row_reduction(fused)
    dom = red.source
    shape = tile_shape(dom)
    n = len(shape)
    k = n - len(red.axes)
    plan = _row_plan(fused, shape[k:], options)
    g.block_threads = plan.threads
    sizes = [g.size(dom, a) for a in range(n)]
    rows = host_product(g, dom, range(k))
    g._grid_spec = [[g.grid_factor(rows, 1)], [1], [1]]
    row = g.ev(mapped.BlockIdOp("x"))
    tid = g.ev(mapped.ThreadIdOp("x"))
    outer = g.delinearize(row, sizes[:k])
    inner_sizes = sizes[k:]
    count = g.product(inner_sizes)

    def body(sub: _RowPlan, scope: Scope) -> None:
        tid_s = g.move_to(tid, scope)  # every per-thread value of this form is computed in `scope`
        starts, valid = _row_places(g, sub, tid_s, count)
        _row_core(g, fused, outputs, sub, shape, k, outer, tid_s, inner_sizes, count, scope, starts, valid)

    _row_forms(g, plan, shape, inner_sizes, count, outputs, body)


def _rowwise_columns(name: str, fused: tile.FusedOp, host: HostBuilder, options: GpuMapping):
    """A rowwise group with column reductions (tile-fuse `column-partials`, e.g. layernorm's dx
    with dgamma and dbeta): blocks walk chunks of rows (multiples of COLUMN_ROWS_PER_BLOCK rows, at
    most about `column-blocks` blocks; each row handled as in `_rowwise`), each thread accumulating the column operands of its places in the
    row across its block's rows (registers when the row is held; on the loop path, in its
    block's row of the partial temporaries, which only that thread touches at those places);
    the block's partials go to row `block` of one temporary per column reduction, and
    `<name>_columns` combines them in block order (`combine_parts`: deterministic)."""
    red = _row_reduction(fused)
    cols = _row_columns(fused, red)
    g = GpuKernelGen(name, host, fused)
    col_results = {op.result for op in cols}
    outputs = [
        (v, g.arg_for(host.buffer_for_result(r))) for v, r in zip(yielded(fused), fused.outputs) if v not in col_results
    ]
    dom = red.source
    shape = tile_shape(dom)
    n = len(shape)
    k = n - len(red.axes)
    plan = _row_plan(fused, shape[k:], options)
    g.block_threads = plan.threads
    he = host.e
    rows_h = he.product([host.size(dom, a) for a in range(k)])
    count_h = he.product([host.size(dom, a) for a in range(k, n)])
    # rows per block: a multiple of COLUMN_ROWS_PER_BLOCK (the partials' extra traffic, 2 x blocks
    # x columns, stays small next to the rows), at most about column-blocks blocks
    granule = he.index(COLUMN_ROWS_PER_BLOCK)
    per_h = he.muli(
        he.ceildiv(he.ceildiv(he.addi(rows_h, he.index(1)), he.index(options.column_blocks)), granule), granule
    )
    blocks_h = he.ceildiv(rows_h, per_h)
    temps = part_buffers(host, cols, blocks_h, count_h)
    blocks, per, rows = g.host_value(blocks_h), g.host_value(per_h), g.host_value(rows_h)
    g.set_grid([g.grid_factor(blocks, 1)], [1], [1])
    b = g.ev(mapped.BlockIdOp("x"))
    tid = g.ev(mapped.ThreadIdOp("x"))
    lo = g.muli(b, per)
    hi = g.minui(g.addi(lo, per), rows)
    sizes = [g.size(dom, a) for a in range(n)]
    inner_sizes = sizes[k:]
    count = g.product(inner_sizes)
    parts = [g.arg_for(t) for t in temps]

    def body(sub: _RowPlan, scope: Scope) -> None:
        tid_s = g.move_to(tid, scope)
        starts, valid = _row_places(g, sub, tid_s, count)
        _row_walk(g, fused, outputs, sub, shape, k, sizes, tid_s, count, scope, lo, hi, starts, valid, cols, parts, b)

    _row_forms(g, plan, shape, inner_sizes, count, outputs, body)
    return [(g.finish(), g.launch_args), combine_parts(name + "_columns", fused, host, options, cols, temps, blocks_h)]


COLUMN_ROWS_PER_BLOCK = 16
"""A rowwise kernel with column partials gives each block a multiple of this many rows."""


def _row_forms(g: GpuKernelGen, plan, shape, inner_sizes, count, outputs, body) -> None:
    """`body(plan, scope)` for a static plan; for a `?` row, the registers-held form when the row
    fits (and its last axis takes whole vectors of aligned buffers), else the strided loop of
    scalars: a uniform branch per launch."""
    if plan.kind != "dynamic":
        body(plan, g.top)
        return
    width = plan.width
    cap = plan.threads * width * plan.vectors
    fits = g.ev(
        arith.AndIOp(g.ev(arith.CmpiOp(count, g.index(cap), "ule")), g.ev(arith.CmpiOp(count, g.index(0), "ugt")))
    )
    if width > 1:
        whole = g.ev(arith.CmpiOp(g.remui(inner_sizes[-1], g.index(width)), g.index(0), "eq"))
        fits = g.ev(arith.AndIOp(fits, g.ev(arith.AndIOp(whole, _aligned(g, outputs)))))
    for cached in (True, False):
        cond = fits if cached else g.ev(arith.XOrIOp(fits, g.const(1, i1)))
        iff, scope = g.open_if(g.top, cond)
        g.open_scopes.append(scope)
        sub = _RowPlan("cached", plan.threads, width, plan.vectors) if cached else _RowPlan("loop", plan.threads, 1, 0)
        g.dynamic_vectors = cached and shape[-1] == DYNAMIC
        body(sub, scope)
        g.dynamic_vectors = False
        g.open_scopes.remove(scope)
        g.close_if(g.top, iff)


def _row_walk(
    g: GpuKernelGen, fused, outputs, plan, shape, k, sizes, tid, count, scope, lo, hi, starts, valid, cols, parts, b
):
    """Rows lo .. hi - 1 of the block, each as in `_rowwise`, with the column operands of the
    thread's places accumulated (see `_rowwise_columns`)."""
    inner_sizes = sizes[k:]
    width = plan.width
    cts = [compute_type(op.result.type.element_type) for op in cols]
    flips = [is_unsigned(op.result.type.element_type) and op.kind.data in ("max", "min") for op in cols]
    neutrals = [g.const(neutral(op.kind.data, ct), ct) for op, ct in zip(cols, cts)]

    def operand(op, flip, idx):
        x = g.value_at(op.source, idx)
        return g.flip_sign(x) if flip else x

    if starts is not None:
        per_col = len(starts) * width
        inits = [neutrals[c] for c in range(len(cols)) for _ in range(per_col)]
        loop, body = g.open_for(scope, lo, hi, g.index(1), inits)
        outer = g.delinearize(body.block.args[0], sizes[:k])
        accs = list(body.block.args[1:])
        _row_core(g, fused, outputs, plan, shape, k, outer, tid, inner_sizes, count, body, starts, valid)
        new = []
        for c, op in enumerate(cols):
            for u, (j0, ok) in enumerate(zip(starts, valid)):
                for lane in range(width):
                    x = operand(op, flips[c], [*outer, *g.delinearize(g.lane_index(j0, lane, width), inner_sizes)])
                    if ok is not None:
                        x = g.ev(arith.SelectOp(ok, x, neutrals[c]))
                    acc = accs[c * per_col + u * width + lane]
                    new.append(g.combine(op.kind.data, acc, x, is_float(cts[c])))
        sums = g.close_for(scope, loop, body, new)
        for u, (j0, ok) in enumerate(zip(starts, valid)):
            sc = scope
            if ok is not None:
                iff, sc = g.open_if(scope, ok)
            for c in range(len(cols)):
                for lane in range(width):
                    j = g.move_to(g.addi(j0, g.index(lane)), sc)
                    g.emit(mapped.StoreOp(sums[c * per_col + u * width + lane], parts[c], [g.move_to(b, sc), j]), sc)
            if ok is not None:
                g.close_if(scope, iff)
        return
    # the loop path: the thread's places of its block's partial rows start at the neutral element,
    # then each row adds into them (load, combine, store: only this thread touches them)
    step = g.index(plan.threads * width)
    loop, body = g.open_for(scope, g.ev(arith.MuliOp(tid, g.index(width))), count, step)
    for c in range(len(cols)):
        for lane in range(width):
            j = g.addi(body.block.args[0], g.index(lane))
            g.emit(mapped.StoreOp(neutrals[c], parts[c], [g.move_to(b, body), j]), body)
    g.close_for(scope, loop, body)

    def column_hook(j0: SSAValue, outer, sc: Scope) -> None:
        for c, op in enumerate(cols):
            for lane in range(width):
                j = g.lane_index(j0, lane, width)
                x = operand(op, flips[c], [*outer, *g.delinearize(j, inner_sizes)])
                at = [g.move_to(b, sc), j]
                p = g.emit(mapped.LoadOp(parts[c], at), sc).results[0]
                g.emit(mapped.StoreOp(g.combine(op.kind.data, p, x, is_float(cts[c])), parts[c], at), sc)

    loop, body = g.open_for(scope, lo, hi, g.index(1))
    outer = g.delinearize(body.block.args[0], sizes[:k])
    _row_core(g, fused, outputs, plan, shape, k, outer, tid, inner_sizes, count, body, None, None, column_hook)
    g.close_for(scope, loop, body)


class _RowPlan:
    """How a rowwise kernel's thread covers its part of a row:
    - `unrolled` / `cached`: `vectors` V-wide vectors at fixed places (tid x V, then strides of
      threads x V), loaded once and kept in registers through every pass over the row (each
      reduction, then the stores): the row is read from memory once. `unrolled`: the vectors
      cover the row exactly; `cached`: the last ones may fall past the row (their loads read
      the row's last vector, masked out of the reductions and not stored);
    - `loop`: a strided loop per pass (the row re-read from L1/L2 each time);
    - `dynamic`: a `?` row, `cached` when it fits threads x V x vectors (decided per launch)."""

    def __init__(self, kind: str, threads: int, width: int, vectors: int):
        self.kind, self.threads, self.width, self.vectors = kind, threads, width, vectors


def _row_plan(fused: tile.FusedOp, inner_shape, options: GpuMapping) -> _RowPlan:
    # rows with an arg-reduction: its one-pass (value, index) loop reads the row itself
    # (GpuKernelGen.arg_pair); the held form would only duplicate it
    cache = 0 if any(_is_arg(op) for op in fused.body.block.ops) else options.row_cache
    inner_static = 1
    for d in inner_shape:
        inner_static = -1 if d == DYNAMIC or inner_static == -1 else inner_static * d
    last = inner_shape[-1]
    width = vector_width(fused, last, options) if last != DYNAMIC else vector_width(fused, 1 << 20, options)
    if inner_static < 0:
        threads = options.row_threads or 256
        if cache:
            return _RowPlan("dynamic", threads, width, cache)
        return _RowPlan("loop", threads, 1 if last == DYNAMIC else width, 0)
    vectors = inner_static // width
    if vectors == 0:
        return _RowPlan("loop", options.row_threads or options.wave, width, 0)
    if options.row_threads:
        threads = options.row_threads
    else:
        # about 4 vectors per thread: loads in flight for latency, small blocks for occupancy;
        # whole warps / wavefronts (multiples of options.wave)
        per_thread = -(-vectors // 4)
        w = options.wave
        threads = max(w, min(1024, (per_thread + w - 1) // w * w))
    per = -(-vectors // threads)
    if vectors % threads == 0 and per <= 32:
        return _RowPlan("unrolled", threads, width, per)
    if 0 < per <= cache:
        return _RowPlan("cached", threads, width, per)
    return _RowPlan("loop", threads, width, 0)


def _is_arg(op) -> bool:
    return isinstance(op, tile.ReduceOp) and op.kind.data in tile.ARG_REDUCE_KINDS


def _row_places(g: GpuKernelGen, plan: _RowPlan, tid: SSAValue, count: SSAValue):
    """(first index of each of the thread's vectors, its mask or None) of a held row (clamped into
    the row when it may fall past it), or (None, None) for the loop."""
    if plan.kind not in ("unrolled", "cached"):
        return None, None
    threads, width = plan.threads, plan.width
    first = g.ev(arith.MuliOp(tid, g.index(width)))
    starts = [
        first if it == 0 else g.ev(arith.AddiOp(first, g.index(it * threads * width))) for it in range(plan.vectors)
    ]
    valid: list = [None] * len(starts)
    if plan.kind == "cached":
        static = const_index(count)
        last_start = g.subi(count, g.index(width))
        for it, j0 in enumerate(starts):
            if static is not None and (it + 1) * threads * width <= static:
                continue  # every thread's vector `it` lies in the row
            valid[it] = g.ev(arith.CmpiOp(j0, count, "ult"))
            starts[it] = g.ev(arith.MinUIOp(j0, last_start))  # in bounds: read, masked, not stored
    return starts, valid


def _row_core(
    g: GpuKernelGen,
    fused,
    outputs,
    plan,
    shape,
    k,
    outer,
    tid,
    inner_sizes,
    count,
    scope,
    starts,
    valid,
    column_hook=None,
):
    """One row's reductions and stores, in `scope`: held at the places `starts` (masks `valid`),
    or strided loops (starts None; `column_hook(j0, outer, loop scope)` runs in the last one)."""
    n = len(shape)
    threads, width = plan.threads, plan.width
    g.row_reduce = (tid, inner_sizes, width, count)
    g.row_starts = starts
    g.row_valid = valid
    red = _row_reduction(fused)
    columns = set(_row_columns(fused, red))
    for op in fused.body.block.ops:
        if isinstance(op, tile.ReduceOp) and op not in columns:
            g.value_at(op.result, row_index(op.result, outer, g, n))
    full = [(v, b) for v, b in outputs if _full_size(v, shape, k)]
    rowlevel = [(v, b) for v, b in outputs if (v, b) not in full]
    dom = red.source  # the domain's shape (`full` may hold reshapes of it only)
    if rowlevel:
        # every thread evaluates (the values may need block reductions); thread 0 stores
        vals = [
            (g.to_storage(g.value_at(v, row_index(v, outer, g, n)), v.type.element_type), v, b) for v, b in rowlevel
        ]
        first = g.ev(arith.CmpiOp(tid, g.index(0), "eq"))
        iff, body = g.open_if(scope, first)
        for val, v, b in vals:
            idx = [g.move_to(i, body) for i in row_index(v, outer, g, n)] or [g.index(0)] * b.type.rank
            g.emit(mapped.StoreOp(val, b, idx), body)  # (a rank-0 value lives in a one-element buffer)
        g.close_if(scope, iff)
    if full and starts is not None:
        for j0, ok in zip(starts, valid):
            inner = g.delinearize(j0, inner_sizes)
            _store_vector(g, full, [*outer, *inner], width, scope, ok, dom)
    elif full or (column_hook is not None and starts is None):
        start = g.ev(arith.MuliOp(tid, g.index(width)))
        loop, body = g.open_for(scope, start, count, g.index(threads * width))
        j0 = body.block.args[0]
        inner = g.delinearize(j0, inner_sizes)
        _eval_lanes(g, full, [*outer, *inner], width, body, dom)
        if column_hook is not None:
            column_hook(j0, outer, body)
        g.close_for(scope, loop, body)
    g.row_starts = None
    g.row_valid = None


def _store_vector(g: GpuKernelGen, outputs, base: list[SSAValue], width: int, scope: Scope, valid, dom) -> None:
    """The outputs' V lanes at `base` (an index of `dom`'s shape), computed in `scope` (from the
    values the reductions left in registers; every value before the guard: the computation may
    hold block reductions, whose barriers every thread must reach) and stored when `valid`
    (None: always); an output reshaped from the domain's shape takes one scalar store per lane."""
    lanes_idx = [[*base[:-1], g.lane_index(base[-1], lane, width)] for lane in range(width)]
    plain = [(v, b) for v, b in outputs if tile_shape(v) == tile_shape(dom)]
    vals = [(v, b, [g.value_at(v, idx) for idx in lanes_idx]) for v, b in plain]
    reshaped = [
        (v, b, [_reshaped_value(g, v, dom, idx) for idx in lanes_idx]) for v, b in outputs if (v, b) not in plain
    ]
    if valid is None:
        for v, b, xs in vals:
            g.store_lanes(xs, b, base, v.type.element_type)
        for v, b, xs in reshaped:
            for x, idx in zip(xs, lanes_idx):
                g.store_lanes([x], b, _reshaped_at(g, v, dom, idx), v.type.element_type)
        return
    iff, inside = g.open_if(scope, valid)
    moved = [g.move_to(i, inside) for i in base]
    for v, b, xs in vals:
        g.store_lanes(xs, b, moved, v.type.element_type)
    for v, b, xs in reshaped:
        for x, idx in zip(xs, lanes_idx):
            at = _reshaped_at(g, v, dom, [g.move_to(i, inside) for i in idx])
            g.store_lanes([x], b, at, v.type.element_type)
    g.close_if(scope, iff)


def _full_size(v: SSAValue, shape, k: int) -> bool:
    """Whether output `v` of a rowwise group over `shape` (rows: the first k axes) holds one
    value per domain element: the domain's shape, or a reshape of it by unit axes (the (N, 1)
    index column of a loss beside its full (N,) reduction), not a row-level value."""
    if len(shape) <= k:
        return False
    vs = tile_shape(v)
    if vs == shape:
        return True
    non_unit = [d for d in vs if d != 1]
    return non_unit == [d for d in shape if d != 1] and non_unit != [d for d in shape[:k] if d != 1]


SORT_MAX_ROW = 16384
"""The longest row a GPU sort / top-k takes (rank sort: n^2 comparisons per row, one block)."""
SORT_SHARED_BYTES = 32768
"""Rows of static length up to this many bytes (in the compute type) are staged in shared memory."""


def _sort(g: GpuKernelGen, fused: tile.FusedOp, outputs, options: GpuMapping) -> None:
    op = order_op_of(fused)
    src, a = op.source, op.axis.data
    shape = tile_shape(src)
    rank = len(shape)
    if shape[a] > SORT_MAX_ROW:
        raise NotSupportedYet(
            f"{op.name.split('.')[-1]} on GPUs of rows longer than {SORT_MAX_ROW} elements (axis {a} has {shape[a]})",
            op_location(op),
        )
    plan = plan_register_order(op, options)
    if plan is not None:
        lower_register_order(g, fused, outputs, plan, vector_width(fused, shape[a], options) if a == rank - 1 else 1)
        return
    w = options.wave
    threads = options.row_threads or (min(1024, max(w, -(-shape[a] // w) * w)) if shape[a] > 0 else 256)
    g.block_threads = threads
    sizes = [g.size(src, d) for d in range(rank)]
    n = sizes[a]
    row_axes = [d for d in range(rank) if d != a]
    he = g.host.e
    rows_h = he.product([g.host.size(src, d) for d in row_axes])
    c = he.const_value(rows_h)
    rows = g.index(c) if c is not None else g.arg_for(rows_h)
    g._grid_spec = [[g.grid_factor(rows, 1)], [1], [1]]
    row = g.ev(mapped.BlockIdOp("x"))
    tid = g.ev(mapped.ThreadIdOp("x"))
    outer = g.delinearize(row, [sizes[d] for d in row_axes])

    def at(j: SSAValue) -> list[SSAValue]:
        return [*outer[:a], j, *outer[a:]]

    if a == rank - 1:  # producers' reductions (only along the last axis): block reductions
        g.row_reduce = (tid, [n], 1, n)
        for red in fused.body.block.ops:
            if isinstance(red, tile.ReduceOp):
                g.value_at(red.result, row_index(red.result, outer, g, rank))
    ordered = {v: b for v, b in outputs if v in (op.values, op.indices)}
    full = [(v, b) for v, b in outputs if v not in ordered and tile_shape(v) == shape and a == rank - 1]
    rowlevel = [(v, b) for v, b in outputs if v not in ordered and (v, b) not in full]
    if rowlevel:
        if a != rank - 1:
            raise NotSupportedYet("row-level outputs of a sort group along a leading axis", op_location(fused))
        vals = [
            (g.to_storage(g.value_at(v, row_index(v, outer, g, rank)), v.type.element_type), v, b) for v, b in rowlevel
        ]
        first = g.ev(arith.CmpiOp(tid, g.index(0), "eq"))
        iff, body = g.open_if(g.top, first)
        for val, v, b in vals:
            idx = [g.move_to(i, body) for i in row_index(v, outer, g, rank)] or [g.index(0)] * b.type.rank
            g.emit(mapped.StoreOp(val, b, idx), body)
        g.close_if(g.top, iff)

    if _bitonic_size(op, shape[a]):
        _bitonic(g, op, at, n, tid, threads, ordered, full)
        return

    def computed(j: SSAValue) -> SSAValue:
        return g.order_key_at(src, at(j))

    staged = _staged_row(g, src, a, at, n, tid, threads, full)
    if staged is not None:
        full = []  # stored by the staging loop
    value = staged or computed
    loop, body = g.open_for(g.top, tid, n, g.index(threads))
    i = body.block.args[0]
    for v, b in full:
        g.store(g.value_at(v, at(i)), b, at(i), v.type.element_type)
    g.order_store(op, value, at, i, n, ordered)
    g.close_for(g.top, loop, body)


BITONIC_BYTES = 32768
"""A GPU sort (or a top-k with k > RANK_TOPK_MAX_K) of a static row whose power-of-two padding
fits this many bytes of shared memory (keys in the compute type + i32 positions) is a bitonic
sort in shared memory; other rows are ranked."""
RANK_TOPK_MAX_K = 32
"""A GPU top-k with k up to this ranks (each element stops counting once k come first)."""


def _bitonic_size(op, n: int) -> int:
    """The padded length of a bitonic sort of `op`'s static row of n elements, or 0 (rank it)."""
    if n < 2 or (isinstance(op, tile.TopkOp) and op.k.data <= RANK_TOPK_MAX_K):
        return 0
    p = 1 << (n - 1).bit_length()
    ct = compute_type(op.source.type.element_type)
    return p if p * (bitwidth(ct) // 8 + 4) <= BITONIC_BYTES else 0


def _bitonic(g: GpuKernelGen, op, at, n: SSAValue, tid: SSAValue, threads: int, ordered, full) -> None:
    """A bitonic sort of one row in shared memory (the block, padded to a power of two P): keys
    in the compute type with their i32 positions; a padding slot (position >= n) comes after
    every element, and equal keys order by position, so the network is stable and the padding
    is never returned. log2(P)(log2(P)+1)/2 stages, each P/2 compare-exchanges over the block
    and a barrier (unrolled: P is static)."""
    src = op.source
    size = tile_shape(src)[op.axis.data]
    p_len = _bitonic_size(op, size)
    ct = compute_type(src.type.element_type)
    keys = g.emit(mapped.AllocOp(mapped.BufType([p_len], ct, "shared")), g.top).results[0]
    pos = g.emit(mapped.AllocOp(mapped.BufType([p_len], i32, "shared")), g.top).results[0]
    step = g.index(threads)
    loop, body = g.open_for(g.top, tid, g.index(p_len), step)
    i = body.block.args[0]
    real = g.emit(arith.CmpiOp(i, n, "ult"), body).results[0]
    iff, inside = g.open_if(body, real)
    g.emit(mapped.StoreOp(g.order_key_at(src, at(i)), keys, [i]), inside)
    for v, b in full:
        g.store(g.value_at(v, at(i)), b, at(i), v.type.element_type)
    g.close_if(body, iff)
    g.emit(mapped.StoreOp(g.emit(arith.IndexCastOp(i, i32), body).results[0], pos, [i]), body)
    g.close_for(g.top, loop, body)
    g.emit(mapped.BarrierOp(), g.top)
    n32 = g.emit(arith.IndexCastOp(n, i32), g.top).results[0]
    true = g.const(True, i1)

    def first(ka, ia, kb, ib) -> SSAValue:
        """(ka, ia) comes before (kb, ib): real before padding, then the order, then the position."""
        a_real = g.ev(arith.CmpiOp(ia, n32, "slt"))
        b_pad = g.ev(arith.CmpiOp(ib, n32, "sge"))
        lower = g.ev(arith.CmpiOp(ia, ib, "slt"))
        ab = g.order_before(op, ka, kb)
        ba = g.order_before(op, kb, ka)
        tie = g.ev(arith.AndIOp(g.ev(arith.XOrIOp(ba, true)), lower))
        by_key = g.ev(arith.OrIOp(ab, tie))
        real_pair = g.ev(arith.SelectOp(b_pad, true, by_key))
        both_pad = g.ev(arith.AndIOp(g.ev(arith.XOrIOp(a_real, true)), lower))
        return g.ev(arith.SelectOp(a_real, real_pair, both_pad))

    k = 2
    while k <= p_len:
        j = k // 2
        while j >= 1:
            loop, body = g.open_for(g.top, tid, g.index(p_len // 2), step)
            t = body.block.args[0]
            hi_part = g.emit(arith.MuliOp(g.emit(arith.DivUIOp(t, g.index(j)), body).results[0], g.index(2 * j)), body)
            lo = g.emit(arith.AddiOp(hi_part.results[0], g.emit(arith.RemUIOp(t, g.index(j)), body).results[0]), body)
            a_i = lo.results[0]
            b_i = g.emit(arith.AddiOp(a_i, g.index(j)), body).results[0]
            ka = g.emit(mapped.LoadOp(keys, [a_i]), body).results[0]
            kb = g.emit(mapped.LoadOp(keys, [b_i]), body).results[0]
            ia = g.emit(mapped.LoadOp(pos, [a_i]), body).results[0]
            ib = g.emit(mapped.LoadOp(pos, [b_i]), body).results[0]
            up = g.emit(arith.CmpiOp(g.emit(arith.AndIOp(a_i, g.index(k)), body).results[0], g.index(0), "eq"), body)
            b_first = first(kb, ib, ka, ia)  # ascending pairs swap when b comes first
            a_first = first(ka, ia, kb, ib)
            swap = g.emit(arith.SelectOp(up.results[0], b_first, a_first), body).results[0]
            g.emit(mapped.StoreOp(g.emit(arith.SelectOp(swap, kb, ka), body).results[0], keys, [a_i]), body)
            g.emit(mapped.StoreOp(g.emit(arith.SelectOp(swap, ka, kb), body).results[0], keys, [b_i]), body)
            g.emit(mapped.StoreOp(g.emit(arith.SelectOp(swap, ib, ia), body).results[0], pos, [a_i]), body)
            g.emit(mapped.StoreOp(g.emit(arith.SelectOp(swap, ia, ib), body).results[0], pos, [b_i]), body)
            g.close_for(g.top, loop, body)
            g.emit(mapped.BarrierOp(), g.top)
            j //= 2
        k *= 2
    count = g.index(op.k.data) if isinstance(op, tile.TopkOp) else n
    loop, body = g.open_for(g.top, tid, count, step)
    i = body.block.args[0]
    if op.values in ordered:
        v = g.emit(mapped.LoadOp(keys, [i]), body).results[0]
        g.store(v, ordered[op.values], at(i), op.values.type.element_type)
    if op.indices in ordered:
        x = g.emit(mapped.LoadOp(pos, [i]), body).results[0]
        g.emit(mapped.StoreOp(g.emit(arith.ExtSIOp(x, i64), body).results[0], ordered[op.indices], at(i)), body)
    g.close_for(g.top, loop, body)


def _staged_row(g: GpuKernelGen, src: SSAValue, a: int, at, n: SSAValue, tid: SSAValue, threads: int, full):
    """For a static row of <= SORT_SHARED_BYTES (compute type): the row's values computed once by
    the block (e.g. softmax's exp and division) into shared memory, with the group's other
    full-size outputs stored in the same loop, then a barrier; returns the reader of the staged
    row, or None (the row is then evaluated where it is needed)."""
    size = tile_shape(src)[a]
    ct = compute_type(src.type.element_type)
    if size <= 0 or size * bitwidth(ct) // 8 > SORT_SHARED_BYTES:
        return None
    staged = g.emit(mapped.AllocOp(mapped.BufType([size], ct, "shared")), g.top).results[0]
    loop, body = g.open_for(g.top, tid, n, g.index(threads))
    i = body.block.args[0]
    g.emit(mapped.StoreOp(g.order_key_at(src, at(i)), staged, [i]), body)
    for v, b in full:
        g.store(g.value_at(v, at(i)), b, at(i), v.type.element_type)
    g.close_for(g.top, loop, body)
    g.emit(mapped.BarrierOp(), g.top)

    def value(j: SSAValue) -> SSAValue:
        key = ("sort-staged", j)
        s = g.scope_of.get(j, g.top)
        if key not in s.memo:
            s.memo[key] = g.ev(mapped.LoadOp(staged, [j]))
        return s.memo[key]

    return value


def _per_output(g: GpuKernelGen, outputs, options: GpuMapping) -> None:
    threads = options.threads
    g.block_threads = threads
    for v, buf in outputs:
        shape = tile_shape(v)
        sizes = [g.size(v, a) for a in range(len(shape))]
        total = host_product(g, v, range(len(shape)))
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


def _scan(g: GpuKernelGen, fused: tile.FusedOp, outputs, options: GpuMapping) -> None:
    """One thread per line (every index of the axes other than the scan axis), each a sequential
    loop along the axis (`KernelGen.scan_line`): consecutive threads take consecutive lines of the
    last axis, so a scan along any axis but the last reads and writes coalesced."""
    scan = next(op for op in fused.body.block.ops if isinstance(op, tile.ScanOp))
    dom, a = scan.result, scan.axis.data
    shape = tile_shape(dom)
    for v, _ in outputs:
        if tile_shape(v) != shape:
            raise NotSupportedYet(
                f"an output of shape {tile_shape(v)} in a scan group over {shape}", op_location(fused)
            )
    other = [d for i, d in enumerate(shape) if i != a]
    few_lines = DYNAMIC not in other and math.prod(other) < THREAD_SCAN_MIN_LINES
    long = shape[a] == DYNAMIC or shape[a] > BLOCK_SCAN_MIN
    if long and (a == len(shape) - 1 or (few_lines and shape[a] != DYNAMIC)):
        _block_scan(g, fused, outputs, options)
        return
    others = [d for d in range(len(shape)) if d != a]
    threads = options.threads
    g.block_threads = threads
    he = g.host.e
    total = g.host_value(he.product([g.host.size(dom, d) for d in others]))
    g._grid_spec = [[g.grid_factor(total, threads)], [1], [1]]
    bid = g.ev(mapped.BlockIdOp("x"))
    tid = g.ev(mapped.ThreadIdOp("x"))
    e = g.ev(arith.AddiOp(g.ev(arith.MuliOp(bid, g.index(threads))), tid))
    inside = g.ev(arith.CmpiOp(e, total, "ult"))
    iff, body = g.open_if(g.top, inside)
    line = g.delinearize(g.move_to(e, body), [g.size(dom, d) for d in others])
    fixed: list = [None] * len(shape)
    for d, i in zip(others, line):
        fixed[d] = i
    g.scan_line(body, fixed, outputs)
    g.close_if(g.top, iff)


BLOCK_SCAN_MIN = 32
"""Scans along the last axis longer than this (or of `?` length) take one block per line."""
THREAD_SCAN_MIN_LINES = 2048
"""Along another axis, one thread per line (coalesced) needs this many lines (static sizes) to
fill the GPU; fewer lines longer than BLOCK_SCAN_MIN take one block per line (strided reads)."""
SCAN_PER_THREAD = 4
"""Consecutive elements each thread of a block scan takes per chunk of the line."""


def _block_scan(g: GpuKernelGen, fused: tile.FusedOp, outputs, options: GpuMapping) -> None:
    """One block per line (`_scan_range` over the whole line)."""
    scans = [op for op in fused.body.block.ops if isinstance(op, tile.ScanOp)]
    dom, a = scans[0].result, scans[0].axis.data
    shape = tile_shape(dom)
    threads = options.threads
    if shape[a] != DYNAMIC:  # short lines: fewer threads (whole warps)
        w = options.wave
        threads = max(w, min(threads, -(-(-(-shape[a] // SCAN_PER_THREAD)) // w) * w))
    g.block_threads = threads
    others = [d for d in range(len(shape)) if d != a]
    lines = g.host_value(g.host.e.product([g.host.size(dom, d) for d in others]))
    g._grid_spec = [[g.grid_factor(lines, 1)], [1], [1]]
    line = g.delinearize(g.ev(mapped.BlockIdOp("x")), [g.size(dom, d) for d in others])
    fixed: list = [None] * len(shape)
    for d, i in zip(others, line):
        fixed[d] = i
    n = g.size(dom, a)
    inits = [g.const(scan_identity(op.kind.data, compute_of(op)), compute_of(op)) for op in scans]
    _scan_range(g, scans, outputs, fixed, g.index(0), n, inits)


def _shuffle_scan(op: tile.ScanOp, xt) -> bool:
    """Whether the threads' totals are scanned with `mapped.scan` (shuffles: add and mul of
    32-bit values) rather than through shared memory."""
    return op.kind.data in ("add", "mul") and bitwidth(xt) == 32


def _scan_range(g: GpuKernelGen, scans, outputs, fixed, lo, hi, carries) -> None:
    """The block scans elements [lo, hi) of its line (`fixed`: the index, None at the scan axis),
    starting from `carries` (one per scan), in chunks of threads x SCAN_PER_THREAD elements:
    each thread scans its elements in registers, the threads' totals are block-scanned
    (`mapped.scan`, or Hillis-Steele through shared memory: see `_shuffle_scan`), and the carry
    of the chunks before is combined in. Every scan of the group, in program order (a scan of a scan sees its values),
    then every output is stored. Elements past `hi` read the last one (in bounds) and are not
    stored."""
    tid = g.ev(mapped.ThreadIdOp("x"))
    threads, per = g.block_threads, SCAN_PER_THREAD
    dom, a, rev = scans[0].result, scans[0].axis.data, scans[0].is_reverse
    n = g.size(dom, a)
    cts = [compute_of(op) for op in scans]
    xts = [exchange_type(ct) for ct in cts]
    smem = [
        None
        if _shuffle_scan(op, xt)
        else g.emit(mapped.AllocOp(mapped.BufType([threads], xt, "shared")), g.top).results[0]
        for op, xt in zip(scans, xts)
    ]
    idents = [g.const(scan_identity(op.kind.data, ct), ct) for op, ct in zip(scans, cts)]
    loop, body = g.open_for(g.top, lo, hi, g.index(threads * per), carries)
    base = g.ev(arith.AddiOp(body.block.args[0], g.ev(arith.MuliOp(tid, g.index(per)))))
    top = g.ev(arith.SubiOp(hi, g.index(1)))
    last = g.subi(n, g.index(1))
    lanes = []
    for lane in range(per):
        j = g.ev(arith.AddiOp(base, g.index(lane))) if lane else base
        jc = g.ev(arith.MinUIOp(j, top))
        pos = g.ev(arith.SubiOp(last, jc)) if rev else jc
        lanes.append((g.ev(arith.CmpiOp(j, hi, "ult")), [pos if d is None else d for d in fixed]))
    new_carries = []
    for op, carry, ident, s, ct, xt in zip(scans, body.block.args[1:], idents, smem, cts, xts):
        kind = op.kind.data
        local = []
        for valid, idx in lanes:
            x = g.ev(arith.SelectOp(valid, g.value_at(op.source, idx), ident))
            local.append(x if not local else g.scan_combine(kind, local[-1], x))

        def put(v, i, s=s, ct=ct, xt=xt):
            g.emit(mapped.StoreOp(v if xt == ct else g.ev(arith.ExtSIOp(v, xt)), s, [i]), body)

        def get(i, s=s, ct=ct, xt=xt):
            v = g.emit(mapped.LoadOp(s, [i]), body).results[0]
            return v if xt == ct else g.ev(arith.TruncIOp(v, ct))

        total = local[-1]
        if s is None:  # shuffles: `mapped.scan` (xor butterflies, a slot per warp)
            wide = total if xt == ct else g.ev(arith.ExtSIOp(total, xt))
            sc = g.emit(mapped.ScanOp({"add": "sum", "mul": "prod"}[kind], wide, "block"), body)
            excl, chunk = sc.prefix, sc.total
            if xt != ct:
                excl, chunk = g.ev(arith.TruncIOp(excl, ct)), g.ev(arith.TruncIOp(chunk, ct))
        else:  # Hillis-Steele through shared memory (logaddexp, 64-bit values)
            put(total, tid)
            g.emit(mapped.BarrierOp(), body)
            off = 1
            while off < threads:
                has = g.ev(arith.CmpiOp(tid, g.index(off), "uge"))
                src = g.ev(arith.SelectOp(has, g.ev(arith.SubiOp(tid, g.index(off))), tid))
                y = g.ev(arith.SelectOp(has, get(src), ident))
                g.emit(mapped.BarrierOp(), body)
                total = g.scan_combine(kind, y, total)
                put(total, tid)
                g.emit(mapped.BarrierOp(), body)
                off *= 2
            first = g.ev(arith.CmpiOp(tid, g.index(0), "eq"))
            prev = g.ev(arith.SelectOp(first, g.index(0), g.ev(arith.SubiOp(tid, g.index(1)))))
            excl = g.ev(arith.SelectOp(first, ident, get(prev)))
            chunk = get(g.index(threads - 1))
            g.emit(mapped.BarrierOp(), body)  # the next chunk (or scan) rewrites the slots
        prefix = g.scan_combine(kind, carry, excl)
        for lane, (_, idx) in enumerate(lanes):
            if op.is_exclusive:
                val = prefix if lane == 0 else g.scan_combine(kind, prefix, local[lane - 1])
            else:
                val = g.scan_combine(kind, prefix, local[lane])
            body.memo[(op.result, tuple(idx))] = val
        new_carries.append(g.scan_combine(kind, carry, chunk))
    for valid, idx in lanes:
        vals = [(g.to_storage(g.value_at(v, idx), v.type.element_type), b) for v, b in outputs]
        iff, inside = g.open_if(body, valid)
        for x, b in vals:
            g.emit(mapped.StoreOp(x, b, idx), inside)
        g.close_if(body, iff)
    g.close_for(g.top, loop, body, new_carries)


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
        total = host_product(g, value, range(len(shape)))
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
