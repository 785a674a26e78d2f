"""Column reductions on GPUs: `reduction` groups whose reductions keep the last axis (a bias
gradient: the sum over the rows of a (rows, cols) value), split across blocks.

One thread per output walking every row (the mapping of other `reduction` groups) gives a
(16384, 4096) column sum only 16 blocks; here (tile-to-mapped knob `column-blocks`):
- a block is `wave` threads along the outputs (V consecutive outputs each: 16-byte vectors when
  the last axis allows; a wave reads whole rows of wave x V elements, coalesced) times
  threads / wave threads along the reduced extent (L: the product of the reduced axes);
- the reduced extent is cut into `parts` of `rows` each, rows = R0 x cdiv(cdiv(L + 1, cdiv(
  column-blocks, column blocks + 1)), R0) with R0 = 8 rows per thread, parts = cdiv(L, rows)
  (host arithmetic, so `?` sizes work); the grid is column blocks x parts;
- each thread adds its part's rows with a stride of threads / wave, COLUMN_UNROLL rows per step
  into independent accumulators (loads in flight), the block combines its threads' sums through
  shared memory, and `<name>_partials` writes one partial per (part, output) into a temporary;
- `<name>` combines each output's parts in part order (`combine_parts`: the same walk, over the
  parts, in one part) and stores it. When L is static and fits one part, the first kernel
  stores the outputs itself (one kernel).
Every combination has a fixed order: results do not depend on timing (no atomics).
Several reductions of the group (over the same axes of the same shape) share the walk. The
rowwise kernels with column partials (groups_gpu.py) use `part_buffers` and `combine_parts` too.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import i1
from xdsl.ir import SSAValue

from tilec.conversion.builder import compute_type, neutral
from tilec.conversion.tile_to_mapped.gpu_kernelgen import GpuKernelGen, vector_width
from tilec.conversion.tile_to_mapped.group_info import tile_shape, yielded
from tilec.conversion.tile_to_mapped.host import HostBuilder
from tilec.conversion.tile_to_mapped.loopnest import Scope
from tilec.conversion.tile_to_mapped.options import GpuMapping
from tilec.dialects import mapped, tile
from tilec.dialects.common import DYNAMIC, int_list, is_float, is_unsigned

COLUMN_UNROLL = 4
"""Rows each thread loads per step of its walk (independent accumulators)."""
ROWS_PER_THREAD = 8
"""The least rows of a part per thread along the reduced extent."""
COLUMN_KINDS = ("sum", "prod", "max", "min")

# read(g, r, position, col0, width): reduction r's V operand values at reduced position `position`
# (linear over the reduced extent) for outputs col0 .. col0 + width - 1 (linear over the outputs)
Reader = Callable[[GpuKernelGen, int, SSAValue, SSAValue, int], list[SSAValue]]


def column_reductions(fused: tile.FusedOp) -> list[tile.ReduceOp] | None:
    """The reductions of a `reduction` group this mapping takes (one per distinct result: every
    yielded value a sum / prod / max / min over the same axes, not the last, of sources of one
    shape), else None."""
    if fused.kind.data != "reduction":
        return None
    reds: list[tile.ReduceOp] = []
    for v in yielded(fused):
        op = v.owner
        if not isinstance(op, tile.ReduceOp) or op.kind.data not in COLUMN_KINDS:
            return None
        if compute_type(op.result.type.element_type) == i1:
            return None
        if op not in reds:
            reds.append(op)
    if not reds:
        return None
    shape = tile_shape(reds[0].source)
    axes = sorted(int_list(reds[0].axes))
    if len(shape) < 2 or not axes or len(shape) - 1 in axes:
        return None
    for op in reds:
        if sorted(int_list(op.axes)) != axes or tile_shape(op.source) != shape:
            return None
    return reds


def lower_column(name: str, fused: tile.FusedOp, host: HostBuilder, options: GpuMapping):
    """[(kernel, launch args)]: the partials kernel and the combining one, or one kernel."""
    reds = column_reductions(fused)
    assert reds is not None
    src = reds[0].source
    shape = tile_shape(src)
    n = len(shape)
    axes = sorted(int_list(reds[0].axes))
    kept = [a for a in range(n) if a not in axes]
    he = host.e
    total_h = he.product([host.size(src, a) for a in axes])
    count_h = he.product([host.size(src, a) for a in kept])
    wave = options.wave
    by = max(1, options.threads // wave)
    width = vector_width(fused, shape[-1], options) if shape[-1] != DYNAMIC else 1
    cols = wave * width
    r0 = ROWS_PER_THREAD * by
    target = he.ceildiv(he.index(options.column_blocks), he.ceildiv(he.addi(count_h, he.index(1)), he.index(cols)))
    rows_h = he.muli(he.ceildiv(he.ceildiv(he.addi(total_h, he.index(1)), target), he.index(r0)), he.index(r0))
    parts_h = he.ceildiv(total_h, rows_h)

    def read(g: GpuKernelGen, r: int, position: SSAValue, col0: SSAValue, lanes: int) -> list[SSAValue]:
        op = reds[r]
        ridx = g.delinearize(position, [g.size(src, a) for a in axes])
        kidx = g.delinearize(col0, [g.size(src, a) for a in kept])
        out = []
        for lane in range(lanes):
            idx: list = [None] * n
            for a, i in zip(axes, ridx):
                idx[a] = i
            for a, i in zip(kept, kidx):
                idx[a] = i
            if lanes > 1:
                idx[n - 1] = g.lane_index(kidx[-1], lane, lanes)
            out.append(g.value_at(op.source, idx))
        return out

    parts_c = he.const_value(parts_h)
    if parts_c is not None and parts_c <= 1:
        return [column_walk(name, fused, host, options, reds, [], rows_h, parts_h, total_h, width, read)]
    temps = part_buffers(host, reds, parts_h, count_h)
    first = column_walk(name + "_partials", fused, host, options, reds, temps, rows_h, parts_h, total_h, width, read)
    return [first, combine_parts(name, fused, host, options, reds, temps, parts_h)]


def part_buffers(host: HostBuilder, reds, parts_h: SSAValue, count_h: SSAValue) -> list[SSAValue]:
    """One temporary of (parts, outputs) partial results per reduction, in its compute type
    (unsigned max / min: sign-flipped, see `column_walk`)."""
    out = []
    for op in reds:
        ct = compute_type(op.result.type.element_type)
        out.append(host.e.v(mapped.TempOp(mapped.BufType([DYNAMIC, DYNAMIC], ct, "global"), [parts_h, count_h])))
    return out


def combine_parts(name: str, fused: tile.FusedOp, host: HostBuilder, options: GpuMapping, reds, temps, parts_h):
    """(kernel, launch args) combining each output's parts (the rows of `temps`) in part order and
    storing the results: the column walk over the parts, all in one part."""

    def read(g: GpuKernelGen, r: int, position: SSAValue, col0: SSAValue, lanes: int) -> list[SSAValue]:
        return [g.ev(mapped.LoadOp(g.arg_for(temps[r]), [position, col0]))]

    one = host.e.index(1)
    return column_walk(name, fused, host, options, reds, [], parts_h, one, parts_h, 1, read, flipped=True)


def _combine(g: GpuKernelGen, kind: str, acc: SSAValue, x: SSAValue) -> SSAValue:
    """acc (kind) x; float max/min propagate NaN (as the other GPU reductions)."""
    return g.combine(kind, acc, x, is_float(acc.type))


def _flip(op: tile.ReduceOp) -> bool:
    """Unsigned max / min: combined as signed values with the sign bit flipped."""
    return is_unsigned(op.result.type.element_type) and op.kind.data in ("max", "min")


def column_walk(
    name: str,
    fused: tile.FusedOp,
    host: HostBuilder,
    options: GpuMapping,
    reds: list[tile.ReduceOp],
    temps: list[SSAValue],
    rows_h: SSAValue,
    parts_h: SSAValue,
    total_h: SSAValue,
    width: int,
    read: Reader,
    flipped: bool = False,
):
    """(kernel, launch args) of the walk: `reds`' operands (`read`) over `total_h` reduced positions
    cut into `parts_h` parts of `rows_h`, for the outputs of reds[0]'s result shape. With `temps`:
    each part's results go to row `part` of each temporary (sign-flipped for unsigned max/min);
    without: they are the results (one part), stored in the group's outputs. `flipped`: `read`
    gives sign-flipped values already (parts)."""
    g = GpuKernelGen(name, host, fused)
    out_value = reds[0].result
    out_rank = len(tile_shape(out_value))
    wave = options.wave
    by = max(1, options.threads // wave)
    g.block_threads = wave * by
    kept_sizes = [g.size(out_value, a) for a in range(out_rank)]
    count = g.host_value(g.host.e.product([g.host.size(out_value, a) for a in range(out_rank)]))
    total = g.host_value(total_h)
    rows = g.host_value(rows_h)
    parts = g.host_value(parts_h)
    g.set_grid([g.grid_factor(count, wave * width), g.grid_factor(parts, 1)], [1], [1])
    bid = g.ev(mapped.BlockIdOp("x"))
    tid = g.ev(mapped.ThreadIdOp("x"))
    col_blocks = g.divui(g.addi(count, g.index(wave * width - 1)), g.index(wave * width))
    cblock = g.remui(bid, col_blocks)
    part = g.divui(bid, col_blocks)
    tx = g.remui(tid, g.index(wave))
    ty = g.divui(tid, g.index(wave))
    col0 = g.muli(g.addi(g.muli(cblock, g.index(wave)), tx), g.index(width))
    inside = g.ev(arith.CmpiOp(col0, count, "ult"))
    # a thread past the last output walks no rows (every thread reaches the barrier below)
    lo = g.addi(g.muli(part, rows), ty)
    end = g.minui(g.addi(g.muli(part, rows), rows), total)
    hi = g.ev(arith.SelectOp(inside, end, lo))
    cts = [compute_type(op.result.type.element_type) for op in reds]
    flips = [_flip(op) and not flipped for op in reds]
    inits = [g.const(neutral(op.kind.data, ct), ct) for op, ct in zip(reds, cts)]
    unroll = COLUMN_UNROLL
    step = by * unroll
    # main loop: l0, l0 + by, ..., l0 + (unroll - 1) by all below hi
    span = g.index((unroll - 1) * by)
    main_hi = g.ev(arith.SelectOp(g.ev(arith.CmpiOp(hi, span, "ugt")), g.subi(hi, span), g.index(0)))
    accs0 = [init for init in inits for _ in range(unroll * width)]
    loop, body = g.open_for(g.top, lo, main_hi, g.index(step), accs0)
    l0 = body.block.args[0]
    carried = list(body.block.args[1:])
    new = []
    for r, op in enumerate(reds):
        for u in range(unroll):
            lrow = l0 if u == 0 else g.ev(arith.AddiOp(l0, g.index(u * by)))
            for lane, x in enumerate(read(g, r, lrow, col0, width)):
                k = (r * unroll + u) * width + lane
                x = g.flip_sign(x) if flips[r] else x
                new.append(_combine(g, op.kind.data, carried[k], x))
    results = g.close_for(g.top, loop, body, new)
    # the remainder: from the first row the main loop did not take, stride by
    taken = g.ev(
        arith.SelectOp(
            g.ev(arith.CmpiOp(main_hi, lo, "ugt")),
            g.muli(g.divui(g.addi(g.subi(main_hi, lo), g.index(step - 1)), g.index(step)), g.index(step)),
            g.index(0),
        )
    )
    rest = g.addi(lo, taken)
    firsts = [results[(r * unroll) * width + lane] for r in range(len(reds)) for lane in range(width)]
    loop, body = g.open_for(g.top, rest, hi, g.index(by), firsts)
    lrow = body.block.args[0]
    carried = list(body.block.args[1:])
    new = []
    for r, op in enumerate(reds):
        for lane, x in enumerate(read(g, r, lrow, col0, width)):
            x = g.flip_sign(x) if flips[r] else x
            new.append(_combine(g, op.kind.data, carried[r * width + lane], x))
    tails = g.close_for(g.top, loop, body, new)
    # this thread's sums: the remainder's, then the unrolled accumulators in order
    sums = []
    for r, op in enumerate(reds):
        for lane in range(width):
            acc = tails[r * width + lane]
            for u in range(1, unroll):
                acc = _combine(g, op.kind.data, acc, results[(r * unroll + u) * width + lane])
            sums.append(acc)
    # across the block's rows of threads: through shared memory, then the first row of threads
    done = []
    for r, op in enumerate(reds):
        smem = g.emit(mapped.AllocOp(mapped.BufType([by, wave * width], cts[r], "shared")), g.top).results[0]
        for lane in range(width):
            slot = g.addi(g.muli(tx, g.index(width)), g.index(lane))
            g.emit(mapped.StoreOp(sums[r * width + lane], smem, [ty, slot]), g.top)
        done.append(smem)
    g.emit(mapped.BarrierOp(), g.top)
    first = g.ev(arith.AndIOp(g.ev(arith.CmpiOp(ty, g.index(0), "eq")), inside))
    iff, scope = g.open_if(g.top, first)
    for r, op in enumerate(reds):
        for lane in range(width):
            slot = g.addi(g.muli(tx, g.index(width)), g.index(lane))
            acc = None
            for y in range(by):
                x = g.emit(mapped.LoadOp(done[r], [g.index(y), g.move_to(slot, scope)]), scope).results[0]
                acc = x if acc is None else _combine(g, op.kind.data, acc, x)
            col = g.addi(col0, g.index(lane))
            if temps:
                buf = g.arg_for(temps[r])
                g.emit(mapped.StoreOp(acc, buf, [g.move_to(part, scope), g.move_to(col, scope)]), scope)
            else:
                store_result(g, fused, host, op, acc, col, kept_sizes, scope)
    g.close_if(g.top, iff)
    return g.finish(), g.launch_args


def store_result(g: GpuKernelGen, fused, host: HostBuilder, op: tile.ReduceOp, acc, col, kept_sizes, scope: Scope):
    """Store `op`'s result `acc` (sign-flipped for unsigned max / min) for output `col` (linear over
    its shape) into every output buffer of the group that yields it."""
    if _flip(op):
        sign = g.const(-(1 << (acc.type.width.data - 1)), acc.type)
        acc = g.emit(arith.XOrIOp(acc, sign), scope).results[0]
    for v, res in zip(yielded(fused), fused.outputs):
        if v.owner is not op:
            continue
        buf = g.arg_for(host.buffer_for_result(res))
        idx = [g.move_to(i, scope) for i in g.delinearize(g.move_to(col, scope), kept_sizes)]
        x = g.to_storage(acc, v.type.element_type)
        g.emit(mapped.StoreOp(x, buf, idx or [g.index(0)]), scope)


__all__ = [
    "COLUMN_KINDS",
    "COLUMN_UNROLL",
    "ROWS_PER_THREAD",
    "column_reductions",
    "column_walk",
    "combine_parts",
    "lower_column",
    "part_buffers",
    "store_result",
]
