"""Scans along the last axis on GPUs, in tiles (tile-to-mapped, targets cuda and hip).

A line (one index of the axes before the last) is cut into tiles of `threads x scan-items` (K)
elements in scan order (from the end of the line for `reverse`). Thread t of a block takes the
tile's K elements t*K .. t*K + K-1, which are consecutive in memory: a whole tile is read and
written with 16-byte vector accesses when the kernel finds every buffer aligned
(`mapped.is_aligned`) and, for rows or a reverse scan, the row length a multiple of the vector
width; a partial tile, or any other case, takes scalar accesses under guards. Each thread scans
its K elements in registers, a block scan (`mapped.scan`) gives each thread the combination of
the threads before it and the tile's total, and the tile's prefix comes

- with few lines (a static count below `LOOKBACK_MAX_LINES`: a 1-d scan is one line): from a
  decoupled look-back, every tile its own block (`mapped.block_ticket` hands tiles out in the
  order blocks start, `mapped.lookback` combines the predecessors' published aggregates and
  prefixes, status words in a zeroed temporary): ONE pass over memory, N read and N written;
- otherwise: from the tiles before it in the same block (one block per line, a loop over the
  line's tiles carrying the prefix in registers).

logcumsumexp (kind logaddexp) runs on (max, scaled sum) pairs, which combine with one exp:
(m1, s1) + (m2, s2) = (M, s1 e^(m1-M) + s2 e^(m2-M)), M = max(m1, m2) (the smaller term's
factor is e^-|m1-m2|, the larger's 1). Each thread's pair is its max and the sum of
e^(x - max) over its elements; the block scan is a `mapped.combine_scan` of pairs; the tile's
aggregate and prefix travel in log form (m + log s) through the look-back or the carry, whose
combine is the exact log-add-exp of tile.scan (log1p, a few per tile); then each thread walks
its elements once from its prefix pair, one exp and one log per element: the value at each
element is m + log s (s >= 1 after the first finite element, so no underflow), where the
log-add-exp chain would take an exp and a log1p per element per combine.
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable, Sequence

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import i32, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from tilec.conversion.builder import compute_type, constant_op
from tilec.conversion.tile_to_mapped.gpu_kernelgen import GpuKernelGen
from tilec.conversion.tile_to_mapped.group_info import tile_shape, yielded
from tilec.conversion.tile_to_mapped.host import HostBuilder
from tilec.conversion.tile_to_mapped.loopnest import Scope, scan_identity
from tilec.conversion.tile_to_mapped.options import GpuMapping
from tilec.dialects import mapped, tile
from tilec.dialects.common import DYNAMIC, bitwidth, is_float

TILED_SCAN_MIN = 32
"""Lines longer than this (or of `?` length) along the last axis are scanned in tiles."""
LOOKBACK_MAX_LINES = 1024
"""A static number of lines below this takes the look-back (a block per tile); more lines, or a
dynamic number, take a block per line (they fill the GPU by themselves)."""


def scan_ops(fused: tile.FusedOp) -> list[tile.ScanOp]:
    return [op for op in fused.body.block.ops if isinstance(op, tile.ScanOp)]


def compute_of(op: tile.ScanOp) -> Attribute:
    """The type a scan computes in (16-bit floats in f32)."""
    return compute_type(op.result.type.element_type)


def exchange_type(ct: Attribute) -> Attribute:
    """Threads exchange at least 32-bit values (a wrapping sum or product has the same low bits)."""
    return i32 if not is_float(ct) and bitwidth(ct) < 32 else ct


def tiled_scan_ok(fused: tile.FusedOp) -> bool:
    """Whether this file lowers the scan group: one scan, along the last axis, longer than
    TILED_SCAN_MIN (or of `?` length), every output of the scan's shape."""
    scans = scan_ops(fused)
    if len(scans) != 1:
        return False
    op = scans[0]
    shape = tile_shape(op.result)
    if op.axis.data != len(shape) - 1 or 0 < shape[-1] <= TILED_SCAN_MIN:
        return False
    return all(tile_shape(v) == shape for v in yielded(fused))


def lower_tiled_scan(name: str, fused: tile.FusedOp, host: HostBuilder, options: GpuMapping):
    """(kernel, launch args) of a scan group `tiled_scan_ok` accepts (see the module docstring)."""
    return _TiledScan(name, fused, host, options).build()


# --- combine functions, as region builders and as kernel ops ---------------------------------------


def _combine_ops(kind: str, a: SSAValue, b: SSAValue, ev: Callable[[Operation], SSAValue], const) -> SSAValue:
    """a (kind) b: add, mul, or logaddexp as tile.scan computes it (hi + log1p(exp(lo - hi)),
    equal values taking d = 0 so that equal infinities give themselves)."""
    fl = is_float(a.type)
    if kind == "add":
        return ev(arith.AddfOp(a, b) if fl else arith.AddiOp(a, b))
    if kind == "mul":
        return ev(arith.MulfOp(a, b) if fl else arith.MuliOp(a, b))
    hi = ev(arith.MaximumfOp(a, b))
    lo = ev(arith.MinimumfOp(a, b))
    same = ev(arith.CmpfOp(lo, hi, "oeq"))
    d = ev(arith.SelectOp(same, const(0.0, a.type), ev(arith.SubfOp(lo, hi))))
    return ev(arith.AddfOp(hi, ev(math.Log1pOp(ev(math.ExpOp(d))))))


def _pair_ops(
    p: Sequence[SSAValue], q: Sequence[SSAValue], ev: Callable[[Operation], SSAValue], const
) -> list[SSAValue]:
    """(m1, s1) + (m2, s2) = (M, s1 e^(m1-M) + s2 e^(m2-M)), one exp: the smaller max's factor is
    e^(lo - M) (1 when equal, so two -inf or two +inf maxima add their sums), the larger's 1. A
    NaN max propagates through M."""
    (m1, s1), (m2, s2) = p, q
    t = m1.type
    big = ev(arith.MaximumfOp(m1, m2))
    lo = ev(arith.MinimumfOp(m1, m2))
    same = ev(arith.CmpfOp(lo, big, "oeq"))
    e = ev(math.ExpOp(ev(arith.SelectOp(same, const(0.0, t), ev(arith.SubfOp(lo, big))))))
    first = ev(arith.CmpfOp(m1, m2, "oge"))
    keep_first = ev(arith.AddfOp(s1, ev(arith.MulfOp(s2, e))))
    keep_second = ev(arith.AddfOp(ev(arith.MulfOp(s1, e)), s2))
    return [big, ev(arith.SelectOp(first, keep_first, keep_second))]


def _region(types: Sequence[Attribute], body: Callable) -> Region:
    """A combine region over tuples of `types`: `body(a, b, ev, const)` returns the combined tuple."""
    block = Block(arg_types=[*types, *types])
    n = len(types)

    def ev(o: Operation) -> SSAValue:
        block.add_op(o)
        return o.results[0]

    def const(v, t):
        return ev(constant_op(v, t))

    out = body(list(block.args[:n]), list(block.args[n:]), ev, const)
    block.add_op(mapped.YieldOp(*out))
    return Region(block)


# --- the kernel ----------------------------------------------------------------------------------


class _TiledScan:
    def __init__(self, name: str, fused: tile.FusedOp, host: HostBuilder, options: GpuMapping):
        (self.op,) = scan_ops(fused)
        self.fused, self.host, self.options = fused, host, options
        self.g = g = GpuKernelGen(name, host, fused)
        self.outputs = [(v, g.arg_for(host.buffer_for_result(r))) for v, r in zip(yielded(fused), fused.outputs)]
        op = self.op
        self.kind = op.kind.data
        self.rev, self.excl = op.is_reverse, op.is_exclusive
        self.ct = compute_of(op)
        self.xt = self.ct if self.kind == "logaddexp" else exchange_type(self.ct)
        self.shape = tile_shape(op.result)
        self.axis = len(self.shape) - 1
        self.k = options.scan_items if bitwidth(self.xt) <= 32 else max(4, options.scan_items // 2)
        n = self.shape[-1]
        threads, w = options.threads, options.wave
        if n != DYNAMIC and n <= threads * self.k:  # one tile: whole warps, as few as it takes
            per_thread = -(-n // self.k)
            threads = max(w, -(-per_thread // w) * w)
        g.block_threads = threads
        self.tile_len = threads * self.k
        lines = self.shape[:-1]
        self.lines_static = pymath.prod(lines) if DYNAMIC not in lines else None
        one_tile = n != DYNAMIC and n <= self.tile_len
        self.lookback = not one_tile and self.lines_static is not None and self.lines_static < LOOKBACK_MAX_LINES
        widest = max(bitwidth(t) // 8 for t in self._stored_types())
        self.v = max(1, min(self.k, options.vector_bytes // max(1, widest)))

    def _stored_types(self) -> list[Attribute]:
        types = [a.type.element_type for a in self.fused.body.block.args if isinstance(a.type, tile.TileType)]
        return types + [v.type.element_type for v, _ in self.outputs]

    # --- helpers ---------------------------------------------------------------------------------

    def ident(self, t: Attribute) -> SSAValue:
        return self.g.const(scan_identity(self.kind, t), t)

    def combine(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return _combine_ops(self.kind, a, b, self.g.ev, self.g.const)

    def pair(self, p: Sequence[SSAValue], q: Sequence[SSAValue]) -> list[SSAValue]:
        return _pair_ops(p, q, self.g.ev, self.g.const)

    def branch(self, scope: Scope, cond: SSAValue, types: list[Attribute], fast, slow) -> list[SSAValue]:
        """`scf.if cond` (the vector path) in `scope` yielding `types`: `fast(inner)` with vector
        accesses, `slow(inner)` with scalar ones."""
        return self.g.if_values(scope, cond, types, lambda sc: self.g.vectorized(fast, sc), slow)

    def vector_lanes(self, q: SSAValue, n: SSAValue) -> list[tuple[SSAValue, list[int]]]:
        """This thread's K elements as K/V vectors: (the vector's first position, the element
        number k of each of its lanes); the positions are registered as vector lanes."""
        g, v = self.g, self.v
        out = []
        for j in range(self.k // v):
            if not self.rev:
                base = g.addi(q, g.index(j * v))
                ks = [j * v + lane for lane in range(v)]
            else:  # positions n - q - (j+1)v .. n - q - jv - 1, the last lane first in scan order
                base = g.subi(g.subi(n, q), g.index((j + 1) * v))
                ks = [j * v + v - 1 - lane for lane in range(v)]
            for lane in range(v):
                g.lane_index(base, lane, v)
            out.append((base, ks))
        return out

    def element_index(self, line: list[SSAValue], pos: SSAValue) -> list[SSAValue]:
        return [*line, pos]

    # --- loads and stores of one tile ------------------------------------------------------------

    def load(self, scope: Scope, line, q0, n, fast) -> list[SSAValue]:
        """The source's K values of this thread (compute type), in scan order; past the line's
        end, the identity."""
        g, src = self.g, self.op.source
        ident = self.ident(self.ct)

        def vectors(inner: Scope) -> list[SSAValue]:
            q = g.move_to(q0, inner)
            vals: list = [None] * self.k
            for base, ks in self.vector_lanes(q, n):
                for lane, k in enumerate(ks):
                    vals[k] = g.value_at(src, self.element_index(line, g.lane_index(base, lane, self.v)))
            return vals

        def scalars(inner: Scope) -> list[SSAValue]:
            q = g.move_to(q0, inner)
            top = g.subi(n, g.index(1))
            vals = []
            for k in range(self.k):
                qk = g.addi(q, g.index(k))
                valid = g.ev(arith.CmpiOp(qk, n, "ult"))
                qc = g.ev(arith.MinUIOp(qk, top))
                pos = g.subi(top, qc) if self.rev else qc
                x = g.value_at(src, self.element_index(line, pos))
                vals.append(g.ev(arith.SelectOp(valid, x, ident)))
            return vals

        if fast is None:
            return scalars(scope)
        return self.branch(scope, fast, [self.ct] * self.k, vectors, scalars)

    def store(self, scope: Scope, line, q0, n, fast, values: list[SSAValue]) -> None:
        """Every output at this thread's K elements, `values` being the scan's."""
        g, res = self.g, self.op.result

        def vectors(inner: Scope) -> list[SSAValue]:
            q = g.move_to(q0, inner)
            pending = []
            for base, ks in self.vector_lanes(q, n):
                idx = [self.element_index(line, g.lane_index(base, lane, self.v)) for lane in range(self.v)]
                for i, k in zip(idx, ks):
                    inner.memo[(res, tuple(i))] = values[k]
                for v, buf in self.outputs:
                    pending.append(([g.value_at(v, i) for i in idx], buf, self.element_index(line, base), v))
            for vals, buf, at, v in pending:  # every load before the first store
                g.store_lanes(vals, buf, at, v.type.element_type)
            return []

        def scalars(inner: Scope) -> list[SSAValue]:
            q = g.move_to(q0, inner)
            for k in range(self.k):
                qk = g.addi(q, g.index(k))
                valid = g.ev(arith.CmpiOp(qk, n, "ult"))
                iff, body = g.open_if(inner, valid)
                qb = g.move_to(qk, body)
                pos = g.subi(g.subi(n, g.index(1)), qb) if self.rev else qb
                idx = self.element_index(line, pos)
                body.memo[(res, tuple(idx))] = values[k]
                for v, buf in self.outputs:
                    g.store(g.value_at(v, idx), buf, idx, v.type.element_type)
                g.close_if(inner, iff)
            return []

        if fast is None:
            scalars(scope)
            return
        self.branch(scope, fast, [], vectors, scalars)

    # --- one tile ----------------------------------------------------------------------------------

    def tile_values(self, scope: Scope, xs: list[SSAValue], prefix_of: Callable[[SSAValue], SSAValue]):
        """The scan's values at this thread's elements `xs` (scan order) and the tile's aggregate
        (exchange type); `prefix_of(aggregate)` gives the tile's exclusive prefix."""
        g, ct, xt = self.g, self.ct, self.xt
        if self.kind == "logaddexp":
            return self.tile_values_logaddexp(scope, xs, prefix_of)
        local = []
        for x in xs:
            local.append(x if not local else self.combine(local[-1], x))
        total = local[-1]
        wide = total if xt == ct else g.ev(arith.ExtSIOp(total, xt))
        sc = g.emit(mapped.ScanOp({"add": "sum", "mul": "prod"}[self.kind], wide, "block"), scope)
        excl, agg = sc.prefix, sc.total
        tile_prefix = prefix_of(agg)
        before = self.combine(tile_prefix, excl)
        before = before if xt == ct else g.ev(arith.TruncIOp(before, ct))
        if self.excl:
            vals = [before] + [self.combine(before, x) for x in local[:-1]]
        else:
            vals = [self.combine(before, x) for x in local]
        return vals, agg

    def tile_values_logaddexp(self, scope: Scope, xs: list[SSAValue], prefix_of):
        g, ct = self.g, self.ct
        zero, one = g.const(0.0, ct), g.const(1.0, ct)
        m = xs[0]
        for x in xs[1:]:
            m = g.ev(arith.MaximumfOp(m, x))
        s = None
        for x in xs:
            d = g.ev(arith.SelectOp(g.ev(arith.CmpfOp(x, m, "oeq")), zero, g.ev(arith.SubfOp(x, m))))
            e = g.ev(math.ExpOp(d))
            s = e if s is None else g.ev(arith.AddfOp(s, e))
        region = _region([ct, ct], lambda a, b, ev, const: _pair_ops(a, b, ev, const))
        sc = g.emit(mapped.CombineScanOp([m, s], [self.ident(ct), zero], "block", region), scope)
        pm, ps = sc.prefixes
        tm, ts = sc.totals
        agg = g.ev(arith.AddfOp(tm, g.ev(math.LogOp(ts))))
        tile_prefix = prefix_of(agg)
        acc = self.pair([tile_prefix, one], [pm, ps])
        vals = []
        for x in xs:
            acc = self.pair(acc, [x, one])
            vals.append(g.ev(arith.AddfOp(acc[0], g.ev(math.LogOp(acc[1])))))
        return vals, agg

    def tile(self, scope: Scope, line, start, n, vec_ok, prefix_of, after_load=None) -> SSAValue:
        """Scan one tile (scan-order start `start`) of line `line`; returns its aggregate.
        `after_load()` runs once the tile's loads are issued (a block takes its next ticket
        there, the atomic's latency hidden under the loads')."""
        g = self.g
        tid = g.ev(mapped.ThreadIdOp("x"))
        q0 = g.addi(start, g.ev(arith.MuliOp(tid, g.index(self.k))))
        fast = None
        if vec_ok is not None:
            full = g.ev(arith.CmpiOp(g.addi(start, g.index(self.tile_len)), n, "ule"))
            fast = g.ev(arith.AndIOp(full, vec_ok))
        xs = self.load(scope, line, q0, n, fast)
        if after_load is not None:
            after_load()
        vals, agg = self.tile_values(scope, xs, prefix_of)
        self.store(scope, line, q0, n, fast, vals)
        return agg

    def vector_check(self, n: SSAValue) -> SSAValue | None:
        """i1: every buffer is 16-byte aligned and the rows a multiple of V (None: never)."""
        g = self.g
        if self.v < 2:
            return None
        if (len(self.shape) > 1 or self.rev) and self.shape[-1] != DYNAMIC and self.shape[-1] % self.v:
            return None
        bufs = []
        for i, a in enumerate(self.fused.body.block.args):
            if isinstance(a.type, tile.TileType) and a.uses:
                bufs.append(g.arg_for(g.view(i).buffer))
        bufs += [b for _, b in self.outputs]
        ok = None
        for b in dict.fromkeys(bufs):
            al = g.ev(mapped.IsAlignedOp(b, self.options.vector_bytes))
            ok = al if ok is None else g.ev(arith.AndIOp(ok, al))
        if (len(self.shape) > 1 or self.rev) and self.shape[-1] == DYNAMIC:
            rem = g.ev(arith.RemUIOp(n, g.index(self.v)))
            ok = g.ev(arith.AndIOp(ok, g.ev(arith.CmpiOp(rem, g.index(0), "eq"))))
        return ok

    # --- the two schedules -------------------------------------------------------------------------

    def build(self):
        g = self.g
        dom = self.op.result
        n = g.size(dom, self.axis)
        sizes = [g.size(dom, d) for d in range(self.axis)]
        vec_ok = self.vector_check(n)
        if self.lookback:
            self.build_lookback(n, sizes, vec_ok)
        else:
            self.build_per_line(n, sizes, vec_ok)
        return g.finish(), g.launch_args

    def build_per_line(self, n, sizes, vec_ok) -> None:
        """One block per line, its tiles in a loop carrying the prefix."""
        g, host = self.g, self.host
        he = host.e
        lines = he.product([host.size(self.op.result, d) for d in range(self.axis)])
        c = he.const_value(lines)
        g.set_grid([g.grid_factor(g.index(c) if c is not None else g.arg_for(lines), 1)], [1], [1])
        line = g.delinearize(g.ev(mapped.BlockIdOp("x")), sizes)
        loop, body = g.open_for(g.top, g.index(0), n, g.index(self.tile_len), [self.ident(self.xt)])
        carry = body.block.args[1]
        agg = self.tile(body, line, body.block.args[0], n, vec_ok, lambda _: carry)
        g.close_for(g.top, loop, body, [self.combine(carry, agg)])

    def build_lookback(self, n, sizes, vec_ok) -> None:
        """Tiles taken by ticket, the prefix from a decoupled look-back; each block scans up to
        `scan-tiles-per-block` tiles in a loop, taking the next ticket while the current tile's
        loads are in flight (the grid has that many times fewer blocks)."""
        g, host = self.g, self.host
        he = host.e
        lines = self.lines_static
        per_block = self.options.scan_tiles_per_block
        tiles = g.divui(g.addi(n, g.index(self.tile_len - 1)), g.index(self.tile_len))
        g.set_grid([g.grid_factor(n, self.tile_len * per_block), lines], [1], [1])
        words = mapped.lookback_words(self.xt)
        slots_h = he.addi(he.ceildiv(host.size(self.op.result, self.axis), he.index(self.tile_len)), he.index(1))
        c = he.const_value(slots_h)
        shape = [lines, DYNAMIC if c is None else c, words]
        ws_h = he.v(mapped.TempOp(mapped.BufType(shape, i64, "global"), [] if c is not None else [slots_h], True))
        ws_h.name_hint = "scan_status"
        ws = g.arg_for(ws_h)
        c0 = g.index(0)
        kind, xt = self.kind, self.xt
        region = _region([xt], lambda a, b, ev, const: [_combine_ops(kind, a[0], b[0], ev, const)])

        def take_ticket(scope: Scope) -> SSAValue:
            return g.emit(mapped.BlockTicketOp(ws, [c0, c0, c0]), scope).results[0]

        def scan_tile(scope: Scope, ticket: SSAValue, after_load=None) -> None:
            line_no = g.divui(ticket, tiles)
            tile_no = g.remui(ticket, tiles)
            slot = g.addi(tile_no, g.index(1))

            def prefix_of(agg: SSAValue) -> SSAValue:
                lb = mapped.LookbackOp(agg, ws, [line_no, slot], tile_no, self.ident(xt), region)
                return g.emit(lb, scope).results[0]

            start = g.ev(arith.MuliOp(tile_no, g.index(self.tile_len)))
            self.tile(scope, g.delinearize(line_no, sizes), start, n, vec_ok, prefix_of, after_load)

        first = take_ticket(g.top)
        if per_block == 1:
            scan_tile(g.top, first)
            return
        total = g.muli(tiles, g.index(lines))
        loop, body = g.open_for(g.top, c0, g.index(per_block), g.index(1), [first])
        ticket = body.block.args[1]
        valid = g.ev(arith.CmpiOp(ticket, total, "ult"))
        iff, inner = g.open_if_else(body, valid, [total])
        nxt: list[SSAValue] = []

        def next_ticket() -> None:  # not in the last round: every ticket taken is scanned by its block
            more = g.ev(arith.CmpiOp(g.move_to(body.block.args[0], inner), g.index(per_block - 1), "ult"))
            jf, taking = g.open_if_else(inner, more, [total])
            nxt.extend(g.close_if_else(inner, jf, taking, [take_ticket(taking)]))

        scan_tile(inner, g.move_to(ticket, inner), next_ticket)
        (after,) = g.close_if_else(body, iff, inner, nxt)
        g.close_for(g.top, loop, body, [after])


__all__ = ["LOOKBACK_MAX_LINES", "TILED_SCAN_MIN", "compute_of", "exchange_type", "lower_tiled_scan", "tiled_scan_ok"]
