"""A contraction group's anchor seen as a (batched) GEMM: C[b, m, n] = sum_k A[b, m, k] * B[b, k, n].

The CPU packed GEMM (gemm_cpu.py) and the GPU SIMT kernel (gemm_gpu_simt.py) read their operands
through one of these views, so the same kernel serves both anchors:

- `ContractGemm` (tile.contract): batch / M / N / K are the batch, lhs free, rhs free and
  contracted axes; A and B are the operands read at the assembled index.
- `ConvGemm` (tile.conv, an *implicit* GEMM): batch = the groups, M = (n, *output position),
  N = the output channels of a group, K = (c, *kernel offset) (channels_last: (*kernel offset, c),
  the weight's own row-major order). A is the input read through the window index map
  `xd[n, g*C/G + c, p*stride + k*dilation - lo]`: a position outside the (lhs-dilated) input, or
  between its dilated elements, reads 0, and its index is replaced by 0 before the load (never an
  out-of-bounds access). Nothing is materialized: no im2col buffer; the window indexing happens
  where the kernel stages its operands (packing on the CPU, shared-memory tiles on the GPU).

`read(value, index)` is the caller's operand reader (it converts to the accumulator type); the views
emit the index arithmetic with the KernelGen `g`.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.ir import SSAValue

from tilec.conversion.tile_to_mapped.group_info import ContractionAxes, anchor_of, contraction_of
from tilec.diagnostics import NotSupportedYet, op_location
from tilec.dialects import tile
from tilec.dialects.common import DYNAMIC, int_list, is_float

Reader = Callable[[SSAValue, list[SSAValue]], SSAValue]


class ContractGemm:
    """tile.contract: the operands read at their batch / free / contracted axes."""

    def __init__(self, c: tile.ContractOp):
        self.op = c
        self.sp = ContractionAxes(c)
        self.lhs, self.rhs, self.result, self.acc = c.lhs, c.rhs, c.result, c.acc

    def sizes(self, g) -> tuple[list, list, list, list]:
        """(batch, M, N, K) sizes inside the kernel."""
        sp, lhs, rhs = self.sp, self.lhs, self.rhs
        bsz = [g.size(lhs, a) for a, _ in sp.batch]
        msz = [g.size(lhs, a) for a in sp.lfree]
        nsz = [g.size(rhs, b) for b in sp.rfree]
        ksz = [g.size(lhs, a) for a, _ in sp.axes]
        return bsz, msz, nsz, ksz

    def static_n(self) -> int | None:
        """N (the product of the rhs free sizes) when every one is static, else None."""
        return _static_product(self.rhs.type.get_shape(), self.sp.rfree)

    def static_m(self) -> int | None:
        """M (the product of the lhs free sizes) when every one is static, else None."""
        return _static_product(self.lhs.type.get_shape(), self.sp.lfree)

    def host_m(self, host) -> SSAValue:
        return host.e.product([host.size(self.lhs, a) for a in self.sp.lfree])

    def host_n(self, host) -> SSAValue:
        return host.e.product([host.size(self.rhs, b) for b in self.sp.rfree])

    def host_k(self, host) -> SSAValue:
        return host.e.product([host.size(self.lhs, a) for a, _ in self.sp.axes])

    def host_b(self, host) -> SSAValue:
        return host.e.product([host.size(self.lhs, a) for a, _ in self.sp.batch])

    def _index(self, rank: int, side: int, bidx, free_axes, free_idx, k_idx) -> list[SSAValue]:
        idx: list = [None] * rank
        for pair, i in zip(self.sp.batch, bidx):
            idx[pair[side]] = i
        for a, i in zip(free_axes, free_idx):
            idx[a] = i
        for pair, i in zip(self.sp.axes, k_idx):
            idx[pair[side]] = i
        return idx

    def lhs_at(self, g, bidx, m_idx, k_idx, read: Reader) -> SSAValue:
        return read(self.lhs, self._index(self.lhs.type.rank, 0, bidx, self.sp.lfree, m_idx, k_idx))

    def rhs_at(self, g, bidx, k_idx, n_idx, read: Reader) -> SSAValue:
        return read(self.rhs, self._index(self.rhs.type.rank, 1, bidx, self.sp.rfree, n_idx, k_idx))

    def result_index(self, g, bidx, m_idx, n_idx) -> list[SSAValue]:
        return [*bidx, *m_idx, *n_idx]


class ConvGemm:
    """tile.conv as an implicit GEMM (static sizes: the verifier requires them)."""

    def __init__(self, c: tile.ConvOp, k_channel_last: bool = False):
        self.op = c
        self.lhs, self.rhs, self.result, self.acc = c.lhs, c.rhs, c.result, c.acc
        self.last = c.channels_last
        # K = (*kernel offset, c) when the layout is channels_last or the caller asks for it
        self.k_last = self.last or k_channel_last
        xs, ws, ys = c.lhs.type.get_shape(), c.rhs.type.get_shape(), c.result.type.get_shape()
        sp = c.spatial_axes
        self.groups = c.groups.data
        self.n = xs[0]
        self.cg = ws[c.channel_axis]
        self.og = ws[0] // self.groups
        self.in_sizes = [xs[a] for a in sp]
        self.kernel = [ws[a] for a in sp]
        self.out_sizes = [ys[a] for a in sp]
        self.stride, self.dilation = int_list(c.stride), int_list(c.dilation)
        self.lhs_dilation, self.pads = int_list(c.lhs_dilation), c.padding_pairs

    def run_length(self) -> int:
        """The innermost run of K: C/G channels (channels_last) or the kernel positions
        (channels_first); every kernel position (or channel) is one run."""
        if self.k_last:
            return self.cg
        n = 1
        for k in self.kernel:
            n *= k
        return n

    def sizes(self, g) -> tuple[list, list, list, list]:
        bsz = [g.index(self.groups)] if self.groups > 1 else []
        msz = [g.index(s) for s in (self.n, *self.out_sizes)]
        nsz = [g.index(self.og)]
        ks = [g.index(k) for k in self.kernel]
        ksz = [*ks, g.index(self.cg)] if self.k_last else [g.index(self.cg), *ks]
        return bsz, msz, nsz, ksz

    def static_n(self) -> int:
        return self.og

    def static_m(self) -> int:
        m = self.n
        for s in self.out_sizes:
            m *= s
        return m

    def host_m(self, host) -> SSAValue:
        return host.e.index(self.static_m())

    def host_n(self, host) -> SSAValue:
        return host.e.index(self.og)

    def host_k(self, host) -> SSAValue:
        k = self.cg
        for s in self.kernel:
            k *= s
        return host.e.index(k)

    def host_b(self, host) -> SSAValue:
        return host.e.index(self.groups)

    def _split_k(self, k_idx) -> tuple[SSAValue, list[SSAValue]]:
        return (k_idx[-1], list(k_idx[:-1])) if self.k_last else (k_idx[0], list(k_idx[1:]))

    def _channel(self, g, bidx, per_group: int, i: SSAValue) -> SSAValue:
        return g.addi(g.muli(bidx[0], g.index(per_group)), i) if self.groups > 1 else i

    def _arrange(self, n: SSAValue, chan: SSAValue, spatial: list[SSAValue]) -> list[SSAValue]:
        return [n, *spatial, chan] if self.last else [n, chan, *spatial]

    def lhs_at(self, g, bidx, m_idx, k_idx, read: Reader) -> SSAValue:
        """x at the window position of output m and kernel offset k: 0 outside the input."""
        n, outs = m_idx[0], m_idx[1:]
        c, koffs = self._split_k(k_idx)
        inside = None
        spatial = []
        for i, (p, k) in enumerate(zip(outs, koffs)):
            lo, ld, size = self.pads[i][0], self.lhs_dilation[i], self.in_sizes[i]
            span = (size - 1) * ld + 1  # the dilated input's length
            q = g.addi(g.muli(p, g.index(self.stride[i])), g.muli(k, g.index(self.dilation[i])))  # >= 0
            t = g.subi(q, g.index(lo)) if lo > 0 else g.addi(q, g.index(-lo))  # q - lo (checked below)
            conds = []
            if lo > 0:
                conds.append(g.ev(arith.CmpiOp(q, g.index(lo), "uge")))
            q_max = (self.out_sizes[i] - 1) * self.stride[i] + (self.kernel[i] - 1) * self.dilation[i]
            if q_max - lo >= span:
                conds.append(g.ev(arith.CmpiOp(t, g.index(span), "ult")))
            if ld > 1:
                conds.append(g.ev(arith.CmpiOp(g.remui(t, g.index(ld)), g.index(0), "eq")))
                pos = g.divui(t, g.index(ld))
            else:
                pos = t
            ok = None
            for cond in conds:
                ok = cond if ok is None else g.ev(arith.AndIOp(ok, cond))
            if ok is not None:
                pos = g.ev(arith.SelectOp(ok, pos, g.index(0)))
                inside = ok if inside is None else g.ev(arith.AndIOp(inside, ok))
            spatial.append(pos)
        x = read(self.lhs, self._arrange(n, self._channel(g, bidx, self.cg, c), spatial))
        if inside is None:
            return x
        return g.ev(arith.SelectOp(inside, x, g.const(0.0 if is_float(self.acc) else 0, self.acc)))

    def rhs_at(self, g, bidx, k_idx, n_idx, read: Reader) -> SSAValue:
        c, koffs = self._split_k(k_idx)
        o = self._channel(g, bidx, self.og, n_idx[0])
        return read(self.rhs, [o, *koffs, c] if self.last else [o, c, *koffs])

    def result_index(self, g, bidx, m_idx, n_idx) -> list[SSAValue]:
        return self._arrange(m_idx[0], self._channel(g, bidx, self.og, n_idx[0]), list(m_idx[1:]))


def gemm_view(fused: tile.FusedOp, k_channel_last: bool = False) -> ContractGemm | ConvGemm:
    """The GEMM view of a `contraction` group's anchor; `k_channel_last`: a convolution's K is
    (*kernel offset, c) in either layout (else the weight's own order)."""
    anchor = anchor_of(fused)
    if isinstance(anchor, tile.ConvOp):
        if not is_float(anchor.acc):
            raise NotSupportedYet("compiled integer convolutions (tilec.interpret runs them)", op_location(anchor))
        return ConvGemm(anchor, k_channel_last)
    return ContractGemm(contraction_of(fused))


def _static_product(shape, axes) -> int | None:
    n = 1
    for a in axes:
        if shape[a] == DYNAMIC:
            return None
        n *= shape[a]
    return n


__all__ = ["ContractGemm", "ConvGemm", "gemm_view"]
