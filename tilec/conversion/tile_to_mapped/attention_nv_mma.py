"""`attention` groups -> one flash-attention kernel on NVIDIA tensor cores (mma.sync, every sm >= 80).

The group computes `softmax(f(q k^T)) v` (tilec/transforms/attention_pattern.py) with 16-bit q, k,
v (`flash_operands`). A block takes `flash_block_m` queries of one (batch, head), one warp per 16
query rows; the queries' Q tile is copied to shared memory once. The keys are walked
in blocks of `flash_block_n` through a `mapped.pipeline` (K and V tiles in a cp.async ring of
`flash_stages` slots). Per key block, each warp, in registers:

    s   = Q K^T                      mma.sync over E (Q and K^T fragments from shared memory)
    s   = f(s) at (query, key)       `mapped.frag_map`: scale, masks from iota/where, bias loads;
                                     keys past the end -inf
    m'  = max(m, rowmax(s))          `mapped.frag_reduce` (a quad of lanes holds a row)
    a   = exp(m - m');  p = exp(s - m');  l = l a + rowsum(p);  acc = acc a
    acc += p V                       p rounded to q's type and re-laid as an `a` fragment in
                                     registers (`mapped.frag_convert`), V fragments from shared

then `out = acc / l` through the group's epilogue (`mapped.frag_store`), and the row values (the
log-sum-exp a backward needs) from m and l. Nothing of size L x S reaches memory. With a causal
mask as the scores' last step, the key loop of a block ends at its last query's diagonal (blocks
above it are skipped, not masked), and blocks run last query block first (the longest first).

The probabilities are rounded to 16 bits before the second MMA (as FlashAttention and cuDNN do):
the one place where the kernel is not the f32 program's arithmetic; the error is of the order of
the 16-bit output's own rounding.
"""

from __future__ import annotations

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import IndexType, f32
from xdsl.ir import Block, Region, SSAValue

from tilec.conversion.builder import compute_type
from tilec.conversion.tile_to_mapped.attention_group import (
    index_of,
    is_row_value,
    match_of_group,
    scores_value,
    to_float,
)
from tilec.conversion.tile_to_mapped.gemm_nv_mma import swizzle_for_row
from tilec.conversion.tile_to_mapped.gpu_kernelgen import GpuKernelGen
from tilec.conversion.tile_to_mapped.group_info import tile_shape, yielded
from tilec.conversion.tile_to_mapped.host import HostBuilder
from tilec.conversion.tile_to_mapped.loopnest import Scope
from tilec.conversion.tile_to_mapped.options import NvMapping
from tilec.diagnostics import NotSupportedYet, op_location
from tilec.dialects import mapped, tile
from tilec.transforms.attention_pattern import causal_shift, flash_operands

INSTR = "m16n8k16"
WARP_ROWS = 16
"""Query rows per warp: one m16 tile (the accumulator, scores and probabilities of 16 rows fit a
thread's registers at head size 128; 32 rows do not)."""


class _FlashGen:
    """One flash kernel under construction (see the module doc)."""

    def __init__(self, name: str, fused: tile.FusedOp, host: HostBuilder, options: NvMapping):
        self.fused, self.host = fused, host
        self.m = m = match_of_group(fused)
        operands = flash_operands(m)
        if operands is None:
            raise NotSupportedYet(
                "an attention group the flash kernel does not take (16-bit q, k, v; head sizes multiples of 16 "
                "up to 256)",
                op_location(fused),
            )
        self.g = g = GpuKernelGen(name, host, fused)
        self.BM, self.BN, self.stages = options.flash_block_m, options.flash_block_n, options.flash_stages
        self.WM = WARP_ROWS
        g.block_threads = 32 * (self.BM // WARP_ROWS)
        self.rank = len(tile_shape(m.output))
        self.nb = self.rank - 2
        body_args = list(fused.body.block.args)
        self.kv_groups = operands.kv_groups
        self.reads = []  # per operand: (buffer argument, view index map, shape of the value read)
        for x, what in zip(operands.arrays, ("q", "k", "v")):
            view = host.view_of(fused.inputs[body_args.index(x)]) if x in body_args else None
            n = len(tile_shape(x))
            if view is None or view.index_map[-2:] != [n - 2, n - 1]:
                raise NotSupportedYet(
                    f"flash attention whose {what} is not read from memory with contiguous rows (computed in the "
                    "group, or a transposed view)",
                    op_location(fused),
                )
            self.reads.append((g.arg_for(view.buffer), view.index_map, tile_shape(x)))
        self.elt = operands.q.type.element_type
        self.E = tile_shape(operands.q)[-1]
        self.Ev = tile_shape(operands.v)[-1]
        self.outputs = [(v, self._dest(v, r)) for v, r in zip(yielded(fused), fused.outputs)]
        self.neg_inf = g.const(float("-inf"), f32)

    def _dest(self, v: SSAValue, result: SSAValue) -> SSAValue:
        """The kernel argument an output is stored to: a row value of shape (B..., L) as a
        (B..., L, 1) view (row fragments store windows of M rows and one column)."""
        m, host = self.m, self.host
        buf = host.buffer_for_result(result)
        dshape = tile_shape(m.output)
        if not is_row_value(v, m):
            if tile_shape(v) != dshape:
                raise NotSupportedYet(
                    "a flash attention output reshaped in the group (stored in the attention result's shape only)",
                    op_location(self.fused),
                )
            return self.g.arg_for(buf)
        rows = tile_shape(m.output)[:-1]
        if tile_shape(v) == (*rows, 1):
            return self.g.arg_for(buf)
        t = buf.type
        view_t = mapped.BufType([*t.get_shape(), 1], t.element_type, "global")
        sizes = [host.size(m.output, a) for a, d in enumerate(rows) if d < 0]
        return self.g.arg_for(host.e.v(mapped.ViewOp(buf, view_t, sizes)))

    def at(self, operand: int, bidx: list[SSAValue], row: SSAValue) -> tuple[SSAValue, list[SSAValue]]:
        """(buffer, indices) of row `row`, column 0 of q, k or v for the batch / head `bidx`: K and V
        of grouped-query attention at head h // groups (or [h // groups, h % groups] of a
        (B..., Hkv, G, S, E) value), through the operand's view."""
        g = self.g
        buf, index_map, shape = self.reads[operand]
        logical = [*bidx, row, g.index(0)]
        if operand and self.kv_groups > 1:
            h, n = bidx[-1], len(shape)
            kv_head = g.divui(h, g.index(self.kv_groups))
            if n == self.rank:
                logical = [*bidx[:-1], kv_head, row, g.index(0)]
            else:  # (B..., Hkv, 1 or G, S, E)
                inner = g.index(0) if shape[-3] == 1 else g.remui(h, g.index(self.kv_groups))
                logical = [*bidx[:-1], kv_head, inner, row, g.index(0)]
        return buf, [g.index(0) if a is None else logical[a] for a in index_map]

    # --- fragment helpers --------------------------------------------------------------------

    def frag(self, rows: int, cols: int, role: str = "acc", elt=f32) -> mapped.FragType:
        return mapped.FragType([rows, cols], elt, role, INSTR)

    def fmap(self, scope: Scope, args: list[SSAValue], result: mapped.FragType, fn) -> SSAValue:
        """`mapped.frag_map` of `args` with the body `fn(body scope, elements, row, col)` -> element;
        the body is built before the op is placed, so the values it puts in outer scopes come first."""
        g = self.g
        block = Block(arg_types=[*(a.type.element_type for a in args), IndexType(), IndexType()])
        inner = Scope(block, scope)
        for a in block.args:
            g.scope_of[a] = inner
        g.open_scopes.append(inner)
        out = fn(inner, list(block.args[:-2]), block.args[-2], block.args[-1])
        g.open_scopes.remove(inner)
        block.add_op(mapped.YieldOp(out))
        return g.emit(mapped.FragMapOp(args, result, Region(block)), scope).results[0]

    def binary(self, scope: Scope, a: SSAValue, b: SSAValue, op) -> SSAValue:
        g = self.g
        return self.fmap(scope, [a, b], a.type, lambda s, v, r, c: g.emit(op(v[0], v[1]), s).results[0])

    # --- the kernel --------------------------------------------------------------------------

    def build(self):
        g, m = self.g, self.m
        BM, BN, WM, E, Ev = self.BM, self.BN, self.WM, self.E, self.Ev
        c0 = g.index(0)
        lead = [g.size(m.output, a) for a in range(self.nb)]
        self.n_l = g.size(m.output, self.nb)
        self.n_s = g.size(m.scores.result, self.nb + 1)
        h_l = self.host.size(m.output, self.nb)
        h_b = self.host.e.product([self.host.size(m.output, a) for a in range(self.nb)])
        g.set_grid([g.grid_factor(g.host_value(h_l), BM)], [g.grid_factor(g.host_value(h_b), 1)], [1])
        # the last query block first: under a causal mask it walks the most keys
        bx, by = g.ev(mapped.BlockIdOp("x")), g.ev(mapped.BlockIdOp("y"))
        last = g.ev(arith.SubiOp(g.ev(mapped.GridDimOp("x")), g.index(1)))
        q0 = g.ev(arith.MuliOp(g.ev(arith.SubiOp(last, bx)), g.index(BM)))
        dshape = tile_shape(m.output)
        # a unit axis' index is the constant 0, as the program's unit-axis reshapes index it
        bidx = g.delinearize(by, lead) if lead else []
        self.bidx = bidx = [g.index(0) if dshape[a] == 1 else i for a, i in enumerate(bidx)]
        self.wrow = g.ev(arith.MuliOp(g.ev(mapped.WarpIdOp()), g.index(WM)))  # this warp's rows in the block
        self.row0 = g.ev(arith.AddiOp(q0, self.wrow))

        def shared(shape, cols):
            return g.emit(mapped.AllocOp(mapped.BufType(shape, self.elt, "shared", swizzle_for_row(cols * 2))), g.top)

        sQ = shared([BM, E], E).results[0]
        sK = shared([self.stages, BN, E], E).results[0]
        sV = shared([self.stages, BN, Ev], Ev).results[0]
        g.emit(mapped.AsyncCopyOp(*self.at(0, bidx, q0), sQ, [c0, c0], [BM, E]), g.top)
        g.emit(mapped.AsyncCommitOp(), g.top)
        g.emit(mapped.AsyncWaitOp(0), g.top)
        g.emit(mapped.BarrierOp("block"), g.top)

        n_keys = self.n_s
        shift = causal_shift(m)
        if shift is not None:  # query i sees keys j < i + shift: the block's last query bounds the walk
            n_keys = g.minui(n_keys, g.addi(q0, g.index(BM - 1 + shift)))
        acc_t, row_t = self.frag(WM, Ev), self.frag(WM, 1, "row")
        inits = [
            g.ev(mapped.FragFillOp(0.0, acc_t)),
            g.ev(mapped.FragFillOp(float("-inf"), row_t)),
            g.ev(mapped.FragFillOp(0.0, row_t)),
        ]
        produce = Block(arg_types=[IndexType(), IndexType()])
        consume = Block(arg_types=[IndexType(), IndexType(), acc_t, row_t, row_t])
        pipe = mapped.PipelineOp(c0, n_keys, g.index(BN), self.stages, inits, Region(produce), Region(consume))
        g.emit(pipe, g.top)
        g.top.anchors.append(pipe)  # what the bodies put at the top goes before the pipeline
        ps, cs = Scope(produce, g.top), Scope(consume, g.top)
        for block, scope in ((produce, ps), (consume, cs)):
            for a in block.args:
                g.scope_of[a] = scope
        j, slot = produce.args
        g.emit(mapped.AsyncCopyOp(*self.at(1, bidx, j), sK, [slot, c0, c0], [BN, E]), ps)
        g.emit(mapped.AsyncCopyOp(*self.at(2, bidx, j), sV, [slot, c0, c0], [BN, Ev]), ps)
        produce.add_op(mapped.YieldOp())
        g.open_scopes.append(cs)
        consume.add_op(mapped.YieldOp(*self.key_block(cs, sQ, sK, sV, *consume.args)))
        g.open_scopes.remove(cs)
        g.top.anchors.pop()
        for r in pipe.results:
            g.scope_of[r] = g.top
        self.epilogue(*pipe.results)
        return g.finish(), g.launch_args

    def key_block(self, cs: Scope, sQ, sK, sV, j, slot, acc, mx, lsum) -> list[SSAValue]:
        g, m = self.g, self.m
        WM, BN, E = self.WM, self.BN, self.E
        c0 = g.index(0)
        s = g.emit(mapped.FragFillOp(0.0, self.frag(WM, BN)), cs).results[0]
        for kk in range(0, E, 16):
            qa = g.emit(mapped.FragLoadOp(sQ, [self.wrow, g.index(kk)], self.frag(WM, 16, "a", self.elt)), cs)
            kb = g.emit(mapped.FragLoadOp(sK, [slot, c0, g.index(kk)], self.frag(16, BN, "b", self.elt), True), cs)
            s = g.emit(mapped.MmaOp(qa.results[0], kb.results[0], s), cs).results[0]

        axes, ends = tile_shape(m.scores.result)[-2:], (self.n_l, self.n_s)

        def logits(scope, v, r, c):
            row = g.addi(self.row0, r)
            col = g.addi(j, c)
            # rows and keys past the end are clamped for what the expression reads (a mask, a bias);
            # their scores are not used (keys: -inf below; rows: never stored)
            at = [
                *self.bidx,
                *(
                    g.index(0) if d == 1 else g.minui(x, g.subi(n, g.index(1)))
                    for x, n, d in zip((row, col), ends, axes)
                ),
            ]
            scope.memo[(m.scores.result, tuple(at))] = scores_value(g, m.scores, v[0])
            x = to_float(g, g.value_at(m.logits, at), f32)
            inside = g.emit(arith.CmpiOp(col, self.n_s, "ult"), scope).results[0]
            return g.emit(arith.SelectOp(inside, x, self.neg_inf), scope).results[0]

        s = self.fmap(cs, [s], s.type, logits)
        m_new = self.binary(cs, mx, g.emit(mapped.FragReduceOp("max", s), cs).results[0], arith.MaxnumfOp)

        def finite(scope, v, r, c):  # a row with no key yet: exp(-inf - 0) = 0, not NaN
            none = g.emit(arith.CmpfOp(v[0], self.neg_inf, "oeq"), scope).results[0]
            return g.emit(arith.SelectOp(none, g.const(0.0, f32), v[0]), scope).results[0]

        m_use = self.fmap(cs, [m_new], m_new.type, finite)

        def exp_diff(scope, v, r, c):
            return g.emit(math.ExpOp(g.emit(arith.SubfOp(v[0], v[1]), scope).results[0]), scope).results[0]

        alpha = self.fmap(cs, [mx, m_use], mx.type, exp_diff)
        p = self.fmap(cs, [s, m_use], s.type, exp_diff)
        row_sum = g.emit(mapped.FragReduceOp("sum", p), cs).results[0]

        def rescale_add(scope, v, r, c):
            return g.emit(arith.AddfOp(g.emit(arith.MulfOp(v[0], v[1]), scope).results[0], v[2]), scope).results[0]

        l_new = self.fmap(cs, [lsum, alpha, row_sum], lsum.type, rescale_add)
        acc = self.binary(cs, acc, alpha, arith.MulfOp)
        pa = g.emit(mapped.FragConvertOp(p, self.frag(WM, BN, "a", self.elt)), cs).results[0]
        for kk in range(0, BN, 16):
            part = g.emit(mapped.FragExtractOp(pa, [0, kk], self.frag(WM, 16, "a", self.elt)), cs).results[0]
            vb = g.emit(mapped.FragLoadOp(sV, [slot, g.index(kk), c0], self.frag(16, self.Ev, "b", self.elt)), cs)
            acc = g.emit(mapped.MmaOp(part, vb.results[0], acc), cs).results[0]
        return [acc, m_new, l_new]

    def epilogue(self, acc: SSAValue, mx: SSAValue, lsum: SSAValue) -> None:
        g, m = self.g, self.m
        top = g.top

        def nan_if_empty(scope, v, r, c):  # every score -inf: NaN, as softmax gives (0 / 0)
            none = g.emit(arith.CmpfOp(v[0], self.neg_inf, "oeq"), scope).results[0]
            return g.emit(arith.SelectOp(none, g.const(float("nan"), f32), v[1]), scope).results[0]

        lsum = self.fmap(top, [mx, lsum], lsum.type, nan_if_empty)
        out = self.binary(top, acc, lsum, arith.DivfOp)
        dshape = tile_shape(m.output)
        out_t = compute_type(m.output.type.element_type)
        for v, buf in self.outputs:
            if is_row_value(v, m):
                self._store_rows(v, buf, mx, lsum)
                continue
            epi = Block(arg_types=[f32, IndexType(), IndexType()])
            es = Scope(epi, top)
            for a in epi.args:
                g.scope_of[a] = es
            val, row, col = epi.args
            at = [*self.bidx, g.index(0) if dshape[-2] == 1 else row, col]
            es.memo[(m.output, tuple(at))] = to_float(g, val, out_t)
            epi.add_op(mapped.YieldOp(g.to_storage(g.value_at(v, index_of(g, v, at, dshape)), buf.type.element_type)))
            g.emit(mapped.FragStoreOp(out, buf, [*self.bidx, self.row0, g.index(0)], Region(epi)), top)

    def _store_rows(self, v: SSAValue, buf: SSAValue, mx: SSAValue, lsum: SSAValue) -> None:
        """A row value (a log-sum-exp) from the row maximum and sum, one per query."""
        g, m = self.g, self.m
        rows = tile_shape(m.output)[:-1]

        def row_value(scope, x, r, c):
            at = [*self.bidx, g.index(0) if rows[-1] == 1 else g.addi(self.row0, r)]
            for stat, y in ((m.row_max, x[0]), (m.row_sum, x[1])):
                scope.memo[(stat.result, tuple(at))] = to_float(g, y, compute_type(stat.result.type.element_type))
            return to_float(g, g.value_at(v, index_of(g, v, [*at, g.index(0)], (*rows, 1))), f32)

        vals = self.fmap(g.top, [mx, lsum], mx.type, row_value)
        dest_t = buf.type.element_type
        region = None
        if dest_t != f32:  # the cast on the way out
            epi = Block(arg_types=[f32, IndexType(), IndexType()])
            es = Scope(epi, g.top)
            for a in epi.args:
                g.scope_of[a] = es
            epi.add_op(mapped.YieldOp(g.to_storage(epi.args[0], dest_t)))
            region = Region(epi)
        g.emit(mapped.FragStoreOp(vals, buf, [*self.bidx, self.row0, g.index(0)], region), g.top)


def lower_flash_mma(name: str, fused: tile.FusedOp, host: HostBuilder, options: NvMapping):
    """The flash kernel of an `attention` group (see the module doc): (kernel, launch args)."""
    return _FlashGen(name, fused, host, options).build()


__all__ = ["lower_flash_mma"]
