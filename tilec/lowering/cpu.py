"""Fusion groups -> `mapped.kernel`s for CPUs (one loop nest per group, OpenMP-parallel).

- `elementwise` and `rowwise` groups: a parallel loop over the rows (the outer axes of the
  domain; for elementwise groups all but the last), then per row: the reductions (each one loop
  over the row), values that depend only on the row, and one inner loop over the row computing
  and storing the full-size outputs. Inner loops are `tilec.simd` loops.
- `reduction` groups (reductions over leading/middle axes): a parallel loop over the output
  elements, each reducing its slice.
- `contraction` groups: a packed GEMM (see `cpu_gemm.py`) whose epilogue evaluates the group's
  elementwise ops on each accumulator element before storing.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import SSAValue

from tilec.dialects import mapped, tile
from tilec.lowering.host import HostBuilder
from tilec.lowering.loopnest import SIMD, KernelGen, Scope


@dataclass(frozen=True)
class CpuOptions:
    """Tuning knobs of the CPU lowering (pass options of tile-to-mapped)."""

    mr: int = 6  # GEMM micro-tile rows
    nr: int = 16  # GEMM micro-tile columns (a multiple of the SIMD width)
    kc: int = 512  # GEMM K block: the packed panels of one block stay in cache
    mc: int = 96  # GEMM rows per parallel task (a multiple of mr)
    vector: int = 8  # SIMD lanes of f32 (AVX2: 8)


def _yielded(fused: tile.FusedOp) -> list[SSAValue]:
    y = fused.body.block.last_op
    assert isinstance(y, tile.YieldOp)
    return list(y.values)


def _shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    assert isinstance(t, tile.TileType)
    return t.get_shape()


def _domain(fused: tile.FusedOp) -> tuple[SSAValue, int]:
    """(a value whose shape is the group's iteration domain, number of outer 'row' axes)."""
    ops = list(fused.body.block.ops)
    if fused.kind.data == "rowwise":
        red = next(op for op in ops if isinstance(op, tile.ReduceOp))
        src = red.source
        return src, len(_shape(src)) - len(red.axes)
    outs = _yielded(fused)
    widest = max(outs, key=lambda v: len(_shape(v)))
    rank = len(_shape(widest))
    return widest, max(rank - 1, 0)


def lower_group(name: str, fused: tile.FusedOp, host: HostBuilder, options: CpuOptions) -> tuple[mapped.KernelOp, list[SSAValue]]:
    """Build the kernel for one group; returns it and the host values to launch it with."""
    kind = fused.kind.data
    if kind == "contraction":
        from tilec.lowering.cpu_gemm import lower_contraction

        return lower_contraction(name, fused, host, options)
    g = KernelGen(name, host, fused, "cpu")
    outputs = [(v, g.arg_for(host.buffer_for_result(r))) for v, r in zip(_yielded(fused), fused.outputs)]
    if kind == "reduction":
        _reduction_kernel(g, outputs)
    else:
        _row_kernel(g, fused, outputs)
    return g.finish(), g.launch_args


def _parallel_rows(g: KernelGen, sizes: list[SSAValue]) -> tuple[Scope, list[SSAValue], object]:
    """A parallel loop over the flattened `sizes` (or nothing when empty): (scope, indices, op)."""
    if not sizes:
        return g.top, [], None
    total = g.product(sizes)
    par, inner = g.open_parallel(g.top, [g.index(0)], [total], [g.index(1)], "cores")
    idx = g.delinearize(inner.block.args[0], sizes)
    return inner, idx, par


def _row_index(value: SSAValue, outer: list[SSAValue], g: KernelGen) -> list[SSAValue]:
    """Indices of a row-level value (shape = the outer axes, possibly with unit dims)."""
    shape = _shape(value)
    non_unit = [d for d in shape if d != 1]
    it = iter(outer[-len(non_unit):] if non_unit else [])
    if len(non_unit) != len(outer):
        # unit outer axes were dropped: align the remaining outer indices from the right
        it = iter(outer[len(outer) - len(non_unit):])
    return [next(it) if d != 1 else g.index(0) for d in shape]


def _row_kernel(g: KernelGen, fused: tile.FusedOp, outputs: list[tuple[SSAValue, SSAValue]]) -> None:
    domain_value, k = _domain(fused)
    dshape = _shape(domain_value)
    n = len(dshape)
    sizes = [g.size(domain_value, a) for a in range(n)]
    row_scope, outer, par = _parallel_rows(g, sizes[:k])
    # reductions first, once per row, in program order
    for op in fused.body.block.ops:
        if isinstance(op, tile.ReduceOp):
            g.value_at(op.result, _row_index(op.result, outer, g))
    full = [(v, b) for v, b in outputs if _shape(v) == dshape and n > k]
    rowlevel = [(v, b) for v, b in outputs if (v, b) not in full]
    for v, b in rowlevel:
        idx = _row_index(v, outer, g) if _shape(v) != dshape else outer
        g.store(g.value_at(v, idx), b, idx)
    if full:
        scope, inner_idx, loops = row_scope, [], []
        for a in range(k, n):
            attrs = {SIMD: __import__("xdsl.dialects.builtin", fromlist=["UnitAttr"]).UnitAttr()} if a == n - 1 else None
            loop, body = g.open_for(scope, g.index(0), sizes[a], g.index(1), (), attrs)
            loops.append((scope, loop, body))
            inner_idx.append(body.block.args[0])
            scope = body
        idx = [*outer, *inner_idx]
        for v, b in full:
            g.store(g.value_at(v, idx), b, idx)
        for sc, loop, body in reversed(loops):
            g.close_for(sc, loop, body)
    if par is not None:
        g.close_parallel(g.top, par)


def _reduction_kernel(g: KernelGen, outputs: list[tuple[SSAValue, SSAValue]]) -> None:
    for v, b in outputs:
        shape = _shape(v)
        sizes = [g.size(v, a) for a in range(len(shape))]
        scope, idx, par = _parallel_rows(g, sizes)
        g.store(g.value_at(v, idx), b, idx)
        if par is not None:
            g.close_parallel(g.top, par)
