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
- `contraction` groups: a packed GEMM (see `cpu_gemm.py`) whose epilogue evaluates the group's
  elementwise ops on each accumulator element before storing.
"""

from __future__ import annotations

from xdsl.dialects.builtin import UnitAttr
from xdsl.ir import BlockArgument, SSAValue

from tilec.conversion.tile_to_mapped.group_info import tile_shape, yielded
from tilec.conversion.tile_to_mapped.host import HostBuilder
from tilec.conversion.tile_to_mapped.loopnest import SIMD, KernelGen, Scope
from tilec.conversion.tile_to_mapped.options import CpuMapping
from tilec.diagnostics import NotSupportedYet, op_location
from tilec.dialects import mapped, tile
from tilec.dialects.common import DYNAMIC, int_list


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
    g = KernelGen(name, host, fused, "cpu")
    outputs = [(v, g.arg_for(host.buffer_for_result(r))) for v, r in zip(yielded(fused), fused.outputs)]
    if kind == "reduction":
        _reduction_kernel(g, outputs, options.parallel_work)
    elif kind == "scatter":
        _scatter_kernel(g, fused, outputs, options.parallel_work)
    else:
        _row_kernel(g, fused, outputs, options.parallel_work)
    return g.finish(), g.launch_args


def _parallel_rows(
    g: KernelGen, sizes: list[SSAValue], work: SSAValue, min_work: int
) -> tuple[Scope, list[SSAValue], object]:
    """A parallel loop over the flattened `sizes` (or nothing when empty): (scope, indices, op).
    It starts the thread team only when `work` >= `min_work`."""
    if not sizes:
        return g.top, [], None
    total = g.product(sizes)
    par, inner = g.open_parallel(g.top, [g.index(0)], [total], [g.index(1)], "cores", work, min_work)
    idx = g.delinearize(inner.block.args[0], sizes)
    return inner, idx, par


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
    n = len(dshape)
    sizes = [g.size(domain_value, a) for a in range(n)]
    row_scope, outer, par = _parallel_rows(g, sizes[:k], g.product(sizes) if k else None, min_work)
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
        scope, idx, par = _parallel_rows(g, sizes, g.product(sizes) if sizes else None, min_work)
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
    scope, outer, par = _parallel_rows(g, par_sizes, work, min_work)
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
