"""Fusion groups -> `mapped.kernel`s for CPUs (one loop nest per group, OpenMP-parallel).

- `elementwise` and `rowwise` groups: a parallel loop over the rows (the outer axes of the
  domain; for elementwise groups all but the last), then per row: the reductions (each one loop
  over the row), values that depend only on the row, and one inner loop over the row computing
  and storing the full-size outputs. Inner loops are `tilec.simd` loops.
- `reduction` groups (reductions over leading/middle axes): a parallel loop over the output
  elements, each reducing its slice.
- `scatter` groups (one `scatter_add`): a parallel loop over the axes before the scattered one
  (none: one thread); per such row, the source copied along the axis, then the updates added
  in index order, with the axes after it as inner `simd` loops. A thread owns its rows, so
  duplicate indices need no atomics and the sums are deterministic.
- `scan` groups (scans along one axis with their elementwise producers and consumers): a
  parallel loop over the lines (every index of the other axes), each one sequential loop along
  the scan axis that carries the running values and stores every output.
- `sort` groups (one `sort` / `topk`, with the producers of its source along the last axis):
  a parallel loop over the rows (every axis but the sorted one); per row, the group's
  reductions, then a stable merge sort of the row (a top-k: its first k), or for a top-k with
  k <= TOPK_SELECT_MAX_K a one-pass selection into a sorted stack buffer.
- `attention` groups: an online softmax over blocks of keys per query row (`attention_cpu.py`).
- `contraction` groups: a packed GEMM (see `cpu_gemm.py`) whose epilogue evaluates the group's
  elementwise ops on each accumulator element before storing.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import UnitAttr, i1, i64
from xdsl.ir import BlockArgument, SSAValue

from tilec.conversion.builder import compute_type
from tilec.conversion.tile_to_mapped.group_info import order_op_of, tile_shape, yielded
from tilec.conversion.tile_to_mapped.host import HostBuilder, buf_type_for
from tilec.conversion.tile_to_mapped.loopnest import SIMD, KernelGen, Scope, parallel_rows, scan_identity
from tilec.conversion.tile_to_mapped.options import CpuMapping
from tilec.diagnostics import NotSupportedYet, op_location
from tilec.dialects import mapped, tile
from tilec.dialects.common import DYNAMIC, bitwidth, int_list


def _reads_input(v: SSAValue, memo: dict) -> bool:
    """True when `v` depends on a tile input of the group (not only on constants and sizes)."""
    if v not in memo:
        if isinstance(v, BlockArgument):
            memo[v] = isinstance(v.type, tile.TileType)
        else:
            memo[v] = any(_reads_input(o, memo) for o in v.owner.operands)
    return memo[v]


def _domain(fused: tile.FusedOp) -> tuple[SSAValue, int]:
    """(a value whose shape is the group's iteration domain, number of outer 'row' axes)."""
    ops = list(fused.body.block.ops)
    if fused.kind.data == "rowwise":
        # the group's reductions all reduce the same suffix of the domain; reductions of
        # constants (e.g. `mean`'s element count, re-computed in the group) may reduce others
        memo: dict = {}
        reds = [op for op in ops if isinstance(op, tile.ReduceOp)]
        red = next((op for op in reds if _reads_input(op.source, memo)), reds[0])
        src = red.source
        return src, len(tile_shape(src)) - len(red.axes)
    outs = yielded(fused)
    # every value of an elementwise group runs along the whole domain, up to unit dimensions
    widest = max(outs, key=lambda v: (len(_nonunit(tile_shape(v))), len(tile_shape(v))))
    rank = len(tile_shape(widest))
    return widest, max(rank - 1, 0)


def lower_group(
    name: str, fused: tile.FusedOp, host: HostBuilder, options: CpuMapping
) -> tuple[mapped.KernelOp, list[SSAValue]]:
    """Build the kernel for one group; returns it and the host values to launch it with."""
    kind = fused.kind.data
    if kind == "contraction":
        from tilec.conversion.tile_to_mapped.gemm_cpu import lower_contraction

        return lower_contraction(name, fused, host, options)
    if kind == "attention":
        from tilec.conversion.tile_to_mapped.attention_cpu import lower_attention

        return lower_attention(name, fused, host, options)
    if kind == "conv_weight_grad":
        raise NotSupportedYet(
            "conv_weight_grad groups on the CPU (its tile-fuse forms none: conv-weight-grad=false)", op_location(fused)
        )
    if kind == "stream":
        from tilec.conversion.tile_to_mapped.attention_cpu import lower_stream

        return lower_stream(name, fused, host, options)
    g = KernelGen(name, host, fused, "cpu")
    outputs = [(v, g.arg_for(host.buffer_for_result(r))) for v, r in zip(yielded(fused), fused.outputs)]
    if kind == "reduction":
        _reduction_kernel(g, outputs, options.parallel_work)
    elif kind == "scatter":
        _scatter_kernel(g, fused, outputs, options.parallel_work)
    elif kind == "scan":
        _scan_kernel(g, fused, outputs, options.parallel_work)
    elif kind == "sort":
        _sort_kernel(g, fused, outputs, options.parallel_work)
    else:
        _row_kernel(g, fused, outputs, options.parallel_work)
    return g.finish(), g.launch_args


def _nonunit(shape) -> list[int]:
    return [a for a, d in enumerate(shape) if d != 1]


def _index_in(g: KernelGen, value: SSAValue, dshape, idx: list[SSAValue]) -> list[SSAValue] | None:
    """The index of `value` at domain index `idx` (over the domain axes dshape[:len(idx)]), or None
    when `value` does not run along exactly those axes. Group values run along domain axes in
    order, up to unit dimensions (tile-fuse's tags): the non-unit dimensions of `value` take the
    indices of the non-unit domain axes, its unit dimensions index 0."""
    axes = _nonunit(dshape[: len(idx)])
    dims = _nonunit(tile_shape(value))
    if len(axes) != len(dims):
        return None
    out = [g.index(0)] * len(tile_shape(value))
    for j, a in zip(dims, axes):
        out[j] = idx[a]
    return out


def _row_kernel(g: KernelGen, fused: tile.FusedOp, outputs: list[tuple[SSAValue, SSAValue]], min_work: int) -> None:
    domain_value, k = _domain(fused)
    dshape = tile_shape(domain_value)
    for op in fused.body.block.ops:
        if (
            isinstance(op, tile.ReduceOp)
            and tile_shape(op.source) == dshape
            and sorted(int_list(op.axes)) == list(range(k))
        ):
            raise NotSupportedYet(
                "column reductions inside a rowwise group on CPUs (tile-fuse column-partials=true is for GPU targets)",
                op_location(op),
            )
    n = len(dshape)
    sizes = [g.size(domain_value, a) for a in range(n)]
    row_scope, outer, par = parallel_rows(g, sizes[:k], g.product(sizes) if k else None, min_work)
    # the group's reductions first, once per row, in program order (reductions of constants
    # are computed where they are used)
    memo: dict = {}
    for op in fused.body.block.ops:
        if isinstance(op, tile.ReduceOp) and _reads_input(op.source, memo):
            idx = _index_in(g, op.result, dshape, outer)
            assert idx is not None, "a rowwise reduction must keep the row axes"
            g.value_at(op.result, idx)
    # an output is full-size (stored in the inner loops) when it runs along every non-unit
    # domain axis, row-level when it runs along the row axes only
    full, rowlevel = [], []
    for v, b in outputs:
        if n > k and len(_nonunit(tile_shape(v))) == len(_nonunit(dshape)):
            full.append((v, b))
        elif len(_nonunit(tile_shape(v))) == len(_nonunit(dshape[:k])):
            rowlevel.append((v, b))
        else:
            raise NotSupportedYet(
                f"an output of shape {tile_shape(v)} in a {fused.kind.data} group over {dshape}", op_location(fused)
            )
    for v, b in rowlevel:
        idx = _index_in(g, v, dshape, outer)
        g.store(g.value_at(v, idx), b, idx, v.type.element_type)
    if full:
        scope, inner_idx, loops = row_scope, [], []
        for a in range(k, n - 1):
            loop, body = g.open_for(scope, g.index(0), sizes[a], g.index(1), ())
            loops.append((scope, loop, body))
            inner_idx.append(body.block.args[0])
            scope = body
        # the innermost loop, split where pads and concatenations change source (one plain
        # contiguous loop per piece, which the C compiler vectorizes)
        bounds = _inner_bounds(fused, dshape)
        pieces = list(zip(bounds, bounds[1:])) or [None]
        for piece in pieces:
            lo, hi = (g.index(0), sizes[n - 1]) if piece is None else (g.index(piece[0]), g.index(piece[1]))
            loop, body = g.open_for(scope, lo, hi, g.index(1), (), {SIMD: UnitAttr()})
            iv = body.block.args[0]
            if piece is not None:
                g.ranges[iv] = piece
            for v, b in full:
                idx = _index_in(g, v, dshape, [*outer, *inner_idx, iv])
                g.store(g.value_at(v, idx), b, idx, v.type.element_type)
            g.close_for(scope, loop, body)
        for sc, loop, body in reversed(loops):
            g.close_for(sc, loop, body)
    if par is not None:
        g.close_parallel(g.top, par)


MAX_INNER_PIECES = 8
"""The most pieces an innermost loop is split into at pad / concatenation boundaries."""


def _inner_bounds(fused: tile.FusedOp, dshape) -> list[int]:
    """Where to cut the innermost domain axis: the points where a pad or a concatenation along the
    last axis of a domain-wide value changes its source, with 0 and the size ([] = no cut; only
    static sizes, at most MAX_INNER_PIECES pieces)."""
    n = dshape[-1] if dshape else DYNAMIC
    if n == DYNAMIC:
        return []
    cuts: set[int] = set()
    for op in fused.body.block.ops:
        if not op.results or not isinstance(op.results[0].type, tile.TileType):
            continue
        shape = tile_shape(op.results[0])
        if not shape or shape[-1] != n:
            continue
        if isinstance(op, tile.PadOp):
            lo = int_list(op.low)[-1]
            cuts |= {lo, lo + tile_shape(op.source)[-1]}
        elif isinstance(op, tile.ConcatOp) and op.axis.data == len(shape) - 1:
            at = 0
            for v in op.inputs:
                at += tile_shape(v)[-1]
                cuts.add(at)
    bounds = sorted({0, n, *(c for c in cuts if 0 < c < n)})
    if len(bounds) <= 2 or len(bounds) - 1 > MAX_INNER_PIECES:
        return []
    return bounds


def _reduction_kernel(g: KernelGen, outputs: list[tuple[SSAValue, SSAValue]], min_work: int) -> None:
    for v, b in outputs:
        shape = tile_shape(v)
        sizes = [g.size(v, a) for a in range(len(shape))]
        scope, idx, par = parallel_rows(g, sizes, g.product(sizes) if sizes else None, min_work)
        g.store(g.value_at(v, idx), b, idx, v.type.element_type)
        if par is not None:
            g.close_parallel(g.top, par)


def _scatter_kernel(g: KernelGen, fused: tile.FusedOp, outputs: list[tuple[SSAValue, SSAValue]], min_work: int) -> None:
    op = next(o for o in fused.body.block.ops if isinstance(o, tile.ScatterAddOp))
    (value, buf), *rest = outputs
    if rest or value is not op.result:
        raise NotSupportedYet("a scatter group with other outputs", op_location(fused))
    a = op.axis.data
    shape = tile_shape(op.result)
    rank = len(shape)
    pre = [g.size(op.result, d) for d in range(a)]
    chunked = a < rank - 1  # the last axis is a column axis: split it into chunks across threads too
    n = g.size(op.result, rank - 1)
    chunks = g.divui(g.addi(n, g.index(SCATTER_CHUNK - 1)), g.index(SCATTER_CHUNK)) if chunked else None
    par_sizes = [*pre, chunks] if chunked else pre
    work = g.product([g.size(op.indices, d) for d in range(rank)]) if par_sizes else None
    scope, outer, par = parallel_rows(g, par_sizes, work, min_work)
    last = None
    if chunked:
        *outer, c = outer
        lo = g.muli(c, g.index(SCATTER_CHUNK))
        last = (lo, g.minui(g.addi(lo, g.index(SCATTER_CHUNK)), n))
    g.scatter_add(op, buf, [*outer, *([None] * (rank - a))], scope, simd=True, last=last)
    if par is not None:
        g.close_parallel(g.top, par)


SCATTER_CHUNK = 64
"""Columns of the last axis per parallel task of a CPU scatter (a multiple of the 8 SIMD lanes):
the rows of an embedding-backward scatter (axis 0, D columns) are D/64 tasks, each adding all
the updates of its columns in index order (deterministic; per task: 64 x 4 bytes of each row)."""


def _scan_kernel(g: KernelGen, fused: tile.FusedOp, outputs: list[tuple[SSAValue, SSAValue]], min_work: int) -> None:
    scan = next(op for op in fused.body.block.ops if isinstance(op, tile.ScanOp))
    dom, a = scan.result, scan.axis.data
    for v, _ in outputs:
        if tile_shape(v) != tile_shape(dom):
            raise NotSupportedYet(
                f"an output of shape {tile_shape(v)} in a scan group over {tile_shape(dom)}", op_location(fused)
            )
    rank = len(tile_shape(dom))
    sizes = [g.size(dom, d) for d in range(rank)]
    if a < rank - 1:
        _scan_columns(g, fused, outputs, sizes, a, min_work)
        return
    others = [d for d in range(rank) if d != a]
    scope, idx, par = parallel_rows(g, [sizes[d] for d in others], g.product(sizes) if others else None, min_work)
    fixed: list = [None] * rank
    for d, i in zip(others, idx):
        fixed[d] = i
    g.scan_line(scope, fixed, outputs)
    if par is not None:
        g.close_parallel(g.top, par)


SCAN_CHUNK = 64
"""Columns per parallel task of a CPU scan along a non-last axis (a multiple of the 8 lanes)."""


def _scan_columns(g: KernelGen, fused: tile.FusedOp, outputs, sizes: list[SSAValue], a: int, min_work: int) -> None:
    """A scan along a non-last axis: the lines are the columns of the flattened axes after it, so
    each task takes SCAN_CHUNK consecutive columns (of one index of the axes before it) and walks
    the scan axis once, an inner `simd` loop over its columns carrying each scan's running values
    in a register buffer: contiguous loads and stores, vectorized, instead of one strided walk
    per column."""
    scans = [op for op in fused.body.block.ops if isinstance(op, tile.ScanOp)]
    rev = scans[0].is_reverse
    cols = g.product(sizes[a + 1 :])
    chunks = g.divui(g.addi(cols, g.index(SCAN_CHUNK - 1)), g.index(SCAN_CHUNK))
    scope, idx, par = parallel_rows(g, [*sizes[:a], chunks], g.product(sizes), min_work)
    *outer, c = idx
    lo = g.muli(c, g.index(SCAN_CHUNK))
    hi = g.minui(g.addi(lo, g.index(SCAN_CHUNK)), cols)
    cts = [compute_type(op.result.type.element_type) for op in scans]
    carry = [g.emit(mapped.AllocOp(mapped.BufType([SCAN_CHUNK], ct, "reg")), scope).results[0] for ct in cts]
    zl, zs = g.open_for(scope, g.index(0), g.index(SCAN_CHUNK), g.index(1), (), {SIMD: UnitAttr()})
    for op, buf, ct in zip(scans, carry, cts):
        g.emit(mapped.StoreOp(g.const(scan_identity(op.kind.data, ct), ct), buf, [zs.block.args[0]]), zs)
    g.close_for(scope, zl, zs)
    n = sizes[a]
    sl, ss = g.open_for(scope, g.index(0), n, g.index(1))
    i = ss.block.args[0]
    pos = g.subi(g.subi(n, g.index(1)), i) if rev else i
    cl, cs = g.open_for(ss, lo, hi, g.index(1), (), {SIMD: UnitAttr()})
    col = cs.block.args[0]
    slot = g.subi(col, lo)
    full = [*outer, pos, *g.delinearize(col, sizes[a + 1 :])]
    for op, buf in zip(scans, carry):
        acc = g.emit(mapped.LoadOp(buf, [slot]), cs).results[0]
        nxt = g.scan_combine(op.kind.data, acc, g.value_at(op.source, full))
        g.emit(mapped.StoreOp(nxt, buf, [slot]), cs)
        cs.memo[(op.result, tuple(full))] = acc if op.is_exclusive else nxt
    for v, b in outputs:
        g.store(g.value_at(v, full), b, full, v.type.element_type)
    g.close_for(ss, cl, cs)
    g.close_for(scope, sl, ss)
    if par is not None:
        g.close_parallel(g.top, par)


# --- order: sort / top-k (issue 11, item 5) -------------------------------------------------------


def _sort_kernel(g: KernelGen, fused: tile.FusedOp, outputs: list[tuple[SSAValue, SSAValue]], min_work: int) -> None:
    op = order_op_of(fused)
    src, a = op.source, op.axis.data
    shape = tile_shape(src)
    rank = len(shape)
    sizes = [g.size(src, d) for d in range(rank)]
    n = sizes[a]
    rows = [sizes[d] for d in range(rank) if d != a]
    work = g.muli(g.product(sizes), n)  # rank sort: n comparisons per element
    row_scope, outer, par = parallel_rows(g, rows, work if rows else None, min_work)

    def at(j: SSAValue) -> list[SSAValue]:
        return [*outer[:a], j, *outer[a:]]

    memo: dict = {}
    for red in fused.body.block.ops:  # producers' reductions (a == rank - 1 then), once per row
        if isinstance(red, tile.ReduceOp) and _reads_input(red.source, memo):
            idx = _index_in(g, red.result, shape, outer)
            assert idx is not None, "a rowwise reduction must keep the row axes"
            g.value_at(red.result, idx)
    ordered = {v: b for v, b in outputs if v in (op.values, op.indices)}
    full, rowlevel = [], []
    for v, b in outputs:
        if v in ordered:
            continue
        if tile_shape(v) == shape and a == rank - 1:
            full.append((v, b))
        elif a == rank - 1 and len(_nonunit(tile_shape(v))) == len(_nonunit(shape[:-1])):
            rowlevel.append((v, b))
        else:
            raise NotSupportedYet(
                f"an output of shape {tile_shape(v)} in a sort group over {shape}", op_location(fused)
            )
    for v, b in rowlevel:
        idx = _index_in(g, v, shape, outer)
        g.store(g.value_at(v, idx), b, idx, v.type.element_type)
    if isinstance(op, tile.TopkOp) and op.k.data <= TOPK_SELECT_MAX_K:
        _topk_select(g, op, at, n, row_scope, ordered, full)
    else:
        _merge_sort(g, op, at, n, row_scope, ordered, full)
    if par is not None:
        g.close_parallel(g.top, par)


TOPK_SELECT_MAX_K = 32
"""A CPU top-k with k up to this keeps the k best of its row in a sorted stack buffer (one pass
over the row, an insertion for each element that beats the k-th best) instead of sorting."""


SELECT_STAGE_BYTES = 32768
"""A computed row of static length up to this many bytes (compute type) is evaluated into a stack
buffer by a `simd` loop before a top-k selection reads it."""


def _merge_sort(g: KernelGen, op, at, n: SSAValue, row_scope: Scope, ordered, full) -> None:
    """A stable bottom-up merge sort of each row (O(n log n)): the row's values (compute type)
    and positions copied into scratch arrays A, then passes of doubling width, two per step
    (A -> B with width w, B -> A with 2w; a pass whose width covers the row is a copy), until
    the width reaches the row; then A (its first k for a top-k) into the outputs. The scratch
    arrays are host temporaries of the source's shape (each row owns its part)."""
    src = op.source
    st = src.type
    ct = compute_type(st.element_type)
    host = g.host
    dyn = [host.size(src, d) for d, x in enumerate(st.get_shape()) if x == DYNAMIC]

    def scratch(elt):
        return g.arg_for(host.e.v(mapped.TempOp(buf_type_for(tile.TileType(st.get_shape(), elt)), dyn)))

    (av, ai), (bv, bi) = (scratch(ct), scratch(i64)), (scratch(ct), scratch(i64))
    one, zero = g.index(1), g.index(0)
    loop, body = g.open_for(row_scope, zero, n, one, ())
    j = body.block.args[0]
    g.emit(mapped.StoreOp(g.order_key_at(src, at(j)), av, at(j)), body)
    g.emit(mapped.StoreOp(g.emit(arith.IndexCastOp(j, i64), body).results[0], ai, at(j)), body)
    for v, b in full:
        g.store(g.value_at(v, at(j)), b, at(j), v.type.element_type)
    g.close_for(row_scope, loop, body)

    def merge_pass(scope: Scope, sv, si, dv, di, w: SSAValue) -> None:
        step = g.emit(arith.AddiOp(w, w), scope).results[0]
        runs, rs = g.open_for(scope, zero, n, step, ())
        lo = rs.block.args[0]
        mid = g.emit(arith.MinUIOp(g.emit(arith.AddiOp(lo, w), rs).results[0], n), rs).results[0]
        hi = g.emit(arith.MinUIOp(g.emit(arith.AddiOp(lo, step), rs).results[0], n), rs).results[0]
        last = g.emit(arith.SubiOp(n, one), rs).results[0]
        merge, ms = g.open_for(rs, lo, hi, one, [lo, mid])
        t, ia, ib = ms.block.args
        # exhausted runs read a clamped (valid) index; its value is not taken
        ca = g.emit(arith.MinUIOp(ia, last), ms).results[0]
        cb = g.emit(arith.MinUIOp(ib, last), ms).results[0]
        va = g.emit(mapped.LoadOp(sv, at(ca)), ms).results[0]
        vb = g.emit(mapped.LoadOp(sv, at(cb)), ms).results[0]
        b_done = g.emit(arith.CmpiOp(ib, hi, "uge"), ms).results[0]
        a_left = g.emit(arith.CmpiOp(ia, mid, "ult"), ms).results[0]
        b_first = g.order_before(op, vb, va)  # stable: the left run wins ties
        not_b = g.emit(arith.XOrIOp(b_first, g.const(True, i1)), ms).results[0]
        take_a = g.emit(arith.OrIOp(b_done, g.emit(arith.AndIOp(a_left, not_b), ms).results[0]), ms).results[0]
        xa = g.emit(mapped.LoadOp(si, at(ca)), ms).results[0]
        xb = g.emit(mapped.LoadOp(si, at(cb)), ms).results[0]
        g.emit(mapped.StoreOp(g.emit(arith.SelectOp(take_a, va, vb), ms).results[0], dv, at(t)), ms)
        g.emit(mapped.StoreOp(g.emit(arith.SelectOp(take_a, xa, xb), ms).results[0], di, at(t)), ms)
        na = g.emit(arith.SelectOp(take_a, g.emit(arith.AddiOp(ia, one), ms).results[0], ia), ms).results[0]
        nb = g.emit(arith.SelectOp(take_a, ib, g.emit(arith.AddiOp(ib, one), ms).results[0]), ms).results[0]
        g.close_for(rs, merge, ms, [na, nb])
        g.close_for(scope, runs, rs)

    # widths 1, 4, 16, ... (A -> B with w, B -> A with 2w) while w < n: 32 steps cover 2^64
    steps, ss = g.open_for(row_scope, zero, g.index(32), one, [one])
    w = ss.block.args[1]
    more = g.emit(arith.CmpiOp(w, n, "ult"), ss).results[0]
    iff, body = g.open_if(ss, more)
    merge_pass(body, av, ai, bv, bi, w)
    merge_pass(body, bv, bi, av, ai, g.emit(arith.AddiOp(w, w), body).results[0])
    g.close_if(ss, iff)
    w4 = g.emit(arith.MinUIOp(g.emit(arith.MuliOp(w, g.index(4)), ss).results[0], n), ss).results[0]
    g.close_for(row_scope, steps, ss, [w4])
    count = g.index(op.k.data) if isinstance(op, tile.TopkOp) else n
    loop, body = g.open_for(row_scope, zero, count, one, ())
    j = body.block.args[0]
    if op.values in ordered:
        v = g.emit(mapped.LoadOp(av, at(j)), body).results[0]
        g.store(v, ordered[op.values], at(j), op.values.type.element_type)
    if op.indices in ordered:
        g.emit(mapped.StoreOp(g.emit(mapped.LoadOp(ai, at(j)), body).results[0], ordered[op.indices], at(j)), body)
    g.close_for(row_scope, loop, body)


def _topk_select(g: KernelGen, op: tile.TopkOp, at, n: SSAValue, row_scope: Scope, ordered, full) -> None:
    """Top-k of one row by selection: the k best so far, in order, in stack buffers (values in
    the compute type, i64 positions). Each element that beats the k-th best (or arrives while
    fewer than k are held) is inserted by one unrolled pass over the k slots: it takes the first
    slot it is strictly before, and everything after shifts down one. Strictly: an equal value
    that arrives later stays behind, so ties keep the lower index first, as the rank sort."""
    k = op.k.data
    ct = compute_type(op.source.type.element_type)
    vals = g.emit(mapped.AllocOp(mapped.BufType([k], ct, "reg")), row_scope).results[0]
    idxs = g.emit(mapped.AllocOp(mapped.BufType([k], i64, "reg")), row_scope).results[0]
    for p in range(k):  # defined contents (never used before they are written by an insertion)
        g.emit(mapped.StoreOp(g.const(0, ct), vals, [g.index(p)]), row_scope)
        g.emit(mapped.StoreOp(g.const(0, i64), idxs, [g.index(p)]), row_scope)
    src = op.source
    size = tile_shape(src)[op.axis.data]
    staged = None
    if not isinstance(src, BlockArgument) and 0 < size and size * bitwidth(ct) // 8 <= SELECT_STAGE_BYTES:
        # a computed row (softmax, sigmoid) evaluated by a vectorized loop first, not inside
        # the selection loop's branches
        staged = g.emit(mapped.AllocOp(mapped.BufType([size], ct, "reg")), row_scope).results[0]
        loop, body = g.open_for(row_scope, g.index(0), n, g.index(1), (), {SIMD: UnitAttr()})
        j = body.block.args[0]
        g.emit(mapped.StoreOp(g.order_key_at(src, at(j)), staged, [j]), body)
        g.close_for(row_scope, loop, body)
    loop, body = g.open_for(row_scope, g.index(0), n, g.index(1), ())
    j = body.block.args[0]
    x = g.order_key_at(src, at(j)) if staged is None else g.emit(mapped.LoadOp(staged, [j]), body).results[0]
    for v, b in full:
        g.store(g.value_at(v, at(j)), b, at(j), v.type.element_type)
    worst = g.emit(mapped.LoadOp(vals, [g.index(k - 1)]), body).results[0]
    filling = g.emit(arith.CmpiOp(j, g.index(k), "ult"), body).results[0]
    enter = g.emit(arith.OrIOp(filling, g.order_before(op, x, worst)), body).results[0]
    iff, ins = g.open_if(body, enter)
    carry_v, carry_i = x, g.emit(arith.IndexCastOp(j, i64), ins).results[0]
    shifting = g.const(False, i1)
    for p in range(k):
        at_p = [g.index(p)]
        old_v = g.emit(mapped.LoadOp(vals, at_p), ins).results[0]
        old_i = g.emit(mapped.LoadOp(idxs, at_p), ins).results[0]
        empty = g.emit(arith.CmpiOp(j, g.index(p), "ule"), ins).results[0]  # slots [0, min(j, k)) hold values
        take = g.emit(arith.OrIOp(shifting, empty), ins).results[0]
        take = g.emit(arith.OrIOp(take, g.order_before(op, carry_v, old_v)), ins).results[0]
        g.emit(mapped.StoreOp(g.emit(arith.SelectOp(take, carry_v, old_v), ins).results[0], vals, at_p), ins)
        g.emit(mapped.StoreOp(g.emit(arith.SelectOp(take, carry_i, old_i), ins).results[0], idxs, at_p), ins)
        carry_v = g.emit(arith.SelectOp(take, old_v, carry_v), ins).results[0]
        carry_i = g.emit(arith.SelectOp(take, old_i, carry_i), ins).results[0]
        shifting = take
    g.close_if(body, iff)
    g.close_for(row_scope, loop, body)
    for p in range(k):
        at_p = [g.index(p)]
        if op.values in ordered:
            v = g.emit(mapped.LoadOp(vals, at_p), row_scope).results[0]
            g.store(v, ordered[op.values], at(g.index(p)), op.values.type.element_type)
        if op.indices in ordered:
            i = g.emit(mapped.LoadOp(idxs, at_p), row_scope).results[0]
            g.emit(mapped.StoreOp(i, ordered[op.indices], at(g.index(p))), row_scope)
