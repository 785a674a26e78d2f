"""`attention` groups -> one CPU loop nest with an online softmax (issue 15, item 2: the CPU version).

The group computes `softmax(f(q k^T)) v` (tilec/transforms/attention_pattern.py). Per query row
(a parallel loop over the batch/head axes and the queries), the keys are walked in blocks of
`KEY_BLOCK`:

    s[t]  = f(q . k[j0 + t])                 the block's scores (f evaluated at (i, j0 + t): scale,
                                             masks from iota/where, bias), into a stack buffer
    m'    = max(m, max_t s[t])               the running row maximum
    c     = exp(m - m');  acc *= c;  l *= c  earlier blocks rescaled
    p[t]  = exp(s[t] - m');  l += p[t];  acc += p[t] * v[j0 + t]

and `out = acc / l`, then the group's epilogue on each element. Nothing of size L x S is stored:
per row, one accumulator row of Ev values and one block of scores. A row whose scores are all
-inf gives NaN (0 / 0), as softmax does; the running maximum is taken as 0 while it is -inf so
that masked blocks add exp(-inf) = 0 instead of NaN.
"""

from __future__ import annotations

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import ArrayAttr, StringAttr, UnitAttr
from xdsl.ir import SSAValue

from tilec.conversion.builder import compute_type
from tilec.conversion.tile_to_mapped.attention_group import (
    epilogue_roots,
    index_of,
    is_row_value,
    match_of_group,
    scores_value,
    to_float,
)
from tilec.conversion.tile_to_mapped.group_info import tile_shape, yielded
from tilec.conversion.tile_to_mapped.host import HostBuilder
from tilec.conversion.tile_to_mapped.loopnest import REDUCE_KINDS_ATTR, SIMD, KernelGen, Scope, parallel_rows
from tilec.conversion.tile_to_mapped.options import CpuMapping
from tilec.diagnostics import TilecError, op_location
from tilec.dialects import mapped, tile
from tilec.dialects.common import DYNAMIC
from tilec.transforms.attention_pattern import causal_shift, match_stream

KEY_BLOCK = 64
"""Keys per block of the online softmax: the scores of one block sit in a stack buffer, and the
accumulator is rescaled once per block."""


def _fexp(g: KernelGen, x: SSAValue) -> SSAValue:
    return g.ev(math.ExpOp(x))


def _dot(g: KernelGen, c1: tile.ContractOp, rows: list[SSAValue], j: SSAValue, scope: Scope) -> SSAValue:
    """q . k for query `rows` (batch indices, then the query) and key j, in c1's accumulator type."""
    acc_t = c1.acc
    q_rank, k_rank = len(tile_shape(c1.lhs)), len(tile_shape(c1.rhs))
    q_idx: list[SSAValue | None] = [None] * q_rank
    k_idx: list[SSAValue | None] = [None] * k_rank
    for (la, rb), b in zip(c1.batch, rows):
        q_idx[la], k_idx[rb] = b, b
    q_free = next(a for a in range(q_rank) if a not in {la for la, _ in [*c1.batch, *c1.axes]})
    k_free = next(b for b in range(k_rank) if b not in {rb for _, rb in [*c1.batch, *c1.axes]})
    q_idx[q_free], k_idx[k_free] = rows[-1], j
    sizes = [g.size(c1.lhs, la) for la, _ in c1.axes]
    attrs = {SIMD: UnitAttr(), REDUCE_KINDS_ATTR: ArrayAttr([StringAttr("add")])}
    loop, inner = g.open_for(scope, g.index(0), g.product(sizes), g.index(1), [g.const(0.0, acc_t)], attrs)
    for (la, rb), e in zip(c1.axes, g.delinearize(inner.block.args[0], sizes)):
        q_idx[la], k_idx[rb] = e, e
    a = to_float(g, g.value_at(c1.lhs, q_idx), acc_t)  # type: ignore[arg-type]
    b = to_float(g, g.value_at(c1.rhs, k_idx), acc_t)  # type: ignore[arg-type]
    total = g.ev(arith.AddfOp(inner.block.args[1], g.ev(arith.MulfOp(a, b))))
    return g.close_for(scope, loop, inner, [total])[0]


def lower_attention(
    name: str, fused: tile.FusedOp, host: HostBuilder, options: CpuMapping
) -> tuple[mapped.KernelOp, list[SSAValue]]:
    m = match_of_group(fused)
    g = KernelGen(name, host, fused, "cpu")
    outputs = [(v, g.arg_for(host.buffer_for_result(r))) for v, r in zip(yielded(fused), fused.outputs)]
    c1, c2 = m.scores, m.values
    rank = len(tile_shape(m.output))
    n_ev = tile_shape(m.output)[-1]
    st = compute_type(m.logits.type.element_type)  # the softmax's type
    at = c2.acc  # the accumulator's
    out_t = compute_type(m.output.type.element_type)
    rows = [g.size(m.output, a) for a in range(rank - 1)]
    n_keys = g.size(c1.result, rank - 1)
    n_e = g.product([g.size(c1.lhs, la) for la, _ in c1.axes])
    work = g.product([*rows, n_keys, g.addi(n_e, g.index(n_ev))])
    scope, idx, par = parallel_rows(g, rows, work, options.parallel_work)
    dshape = tile_shape(m.output)
    # a unit axis' index is the constant 0, as unit-axis reshapes of the output index it
    idx = [g.index(0) if dshape[a] == 1 else i for a, i in enumerate(idx)]
    one = g.index(1)

    acc = g.emit(mapped.AllocOp(mapped.BufType([n_ev], at, "reg")), scope).results[0]
    block = g.emit(mapped.AllocOp(mapped.BufType([KEY_BLOCK], st, "reg")), scope).results[0]
    zl, zs = g.open_for(scope, g.index(0), g.index(n_ev), one, (), {SIMD: UnitAttr()})
    g.emit(mapped.StoreOp(g.const(0.0, at), acc, [zs.block.args[0]]), zs)
    g.close_for(scope, zl, zs)

    neg_inf = g.const(float("-inf"), st)
    # a causal mask: the keys after the last one a query sees are skipped, not computed and masked
    shift = causal_shift(m)
    if shift is not None:
        n_keys = g.minui(n_keys, g.addi(idx[-1], g.index(shift)) if shift else idx[-1])
    kl, ks = g.open_for(scope, g.index(0), n_keys, g.index(KEY_BLOCK), [neg_inf, g.const(0.0, st)])
    j0, m_run, l_run = ks.block.args
    count = g.minui(g.index(KEY_BLOCK), g.subi(n_keys, j0))

    # the block's scores, and their maximum
    sl, ss = g.open_for(ks, g.index(0), count, one, [neg_inf])
    t, bm = ss.block.args
    j = g.addi(j0, t)
    ss.memo[(c1.result, (*idx, j))] = scores_value(g, c1, _dot(g, c1, idx, j, ss))
    s = to_float(g, g.value_at(m.logits, [*idx, j]), st)
    g.emit(mapped.StoreOp(s, block, [t]), ss)
    (block_max,) = g.close_for(ks, sl, ss, [g.ev(arith.MaxnumfOp(bm, s))])

    m_new = g.ev(arith.MaxnumfOp(m_run, block_max))
    m_use = g.ev(arith.SelectOp(g.ev(arith.CmpfOp(m_new, neg_inf, "oeq")), g.const(0.0, st), m_new))
    corr = _fexp(g, g.ev(arith.SubfOp(m_run, m_use)))
    corr_acc = to_float(g, corr, at)
    rl, rs = g.open_for(ks, g.index(0), g.index(n_ev), one, (), {SIMD: UnitAttr()})
    e = rs.block.args[0]
    g.emit(mapped.StoreOp(g.ev(arith.MulfOp(g.ev(mapped.LoadOp(acc, [e])), corr_acc)), acc, [e]), rs)
    g.close_for(ks, rl, rs)

    # p = exp(s - m') in place of s (a vectorized loop), summed into l
    sum_attrs = {SIMD: UnitAttr(), REDUCE_KINDS_ATTR: ArrayAttr([StringAttr("add")])}
    pl, ps = g.open_for(ks, g.index(0), count, one, [g.const(0.0, st)], sum_attrs)
    t, l_blk = ps.block.args
    p = _fexp(g, g.ev(arith.SubfOp(g.ev(mapped.LoadOp(block, [t])), m_use)))
    g.emit(mapped.StoreOp(p, block, [t]), ps)
    (l_add,) = g.close_for(ks, pl, ps, [g.ev(arith.AddfOp(l_blk, p))])
    l_new = g.ev(arith.AddfOp(g.ev(arith.MulfOp(l_run, corr)), l_add))

    # acc += p v, key by key (a vectorized loop over the value axis)
    al, as_ = g.open_for(ks, g.index(0), count, one)
    t = as_.block.args[0]
    p_acc = to_float(g, g.ev(mapped.LoadOp(block, [t])), at)
    j = g.addi(j0, t)
    vl, vs = g.open_for(as_, g.index(0), g.index(n_ev), one, (), {SIMD: UnitAttr()})
    e = vs.block.args[0]
    vv = to_float(g, g.value_at(m.value, [*idx[:-1], j, e]), at)
    g.emit(
        mapped.StoreOp(g.ev(arith.AddfOp(g.ev(mapped.LoadOp(acc, [e])), g.ev(arith.MulfOp(p_acc, vv)))), acc, [e]), vs
    )
    g.close_for(as_, vl, vs)
    g.close_for(ks, al, as_)
    m_fin, l_fin = g.close_for(scope, kl, ks, [m_new, l_new])
    # a row with every score -inf: l = NaN (softmax's exp(-inf - -inf)), so out and lse are NaN
    l_fin = g.ev(arith.SelectOp(g.ev(arith.CmpfOp(m_fin, neg_inf, "oeq")), g.const(float("nan"), st), l_fin))

    # the row values (a log-sum-exp), from the row maximum and sum
    for stat, x in ((m.row_max, m_fin), (m.row_sum, l_fin)):
        scope.memo[(stat.result, tuple(idx))] = to_float(g, x, compute_type(stat.result.type.element_type))
    for v, buf in outputs:
        if is_row_value(v, m):
            at_row = index_of(g, v, [*idx, g.index(0)], (*dshape[:-1], 1))
            g.store(g.value_at(v, at_row), buf, at_row, v.type.element_type)

    # out = acc / l, then the epilogue
    l_acc = to_float(g, l_fin, at)
    ol, os_ = g.open_for(scope, g.index(0), g.index(n_ev), one, (), {SIMD: UnitAttr()})
    e = os_.block.args[0]
    at_out = [*idx, g.index(0) if n_ev == 1 else e]
    os_.memo[(m.output, tuple(at_out))] = to_float(g, g.ev(arith.DivfOp(g.ev(mapped.LoadOp(acc, [e])), l_acc)), out_t)
    for v, buf in outputs:
        if not is_row_value(v, m):
            at_v = index_of(g, v, at_out, dshape)
            g.store(g.value_at(v, at_v), buf, at_v, v.type.element_type)
    g.close_for(scope, ol, os_)
    if par is not None:
        g.close_parallel(g.top, par)
    return g.finish(), g.launch_args


def lower_stream(
    name: str, fused: tile.FusedOp, host: HostBuilder, options: CpuMapping
) -> tuple[mapped.KernelOp, list[SSAValue]]:
    """A `stream` group (attention's backward): per kept index of the (B..., L, S) domain (a
    query for dq, a key for dk and dv), one walk along the streamed axis: the inner contractions
    (q . k, g . v) as dot products, the values computed from them at (i, j), and each outer
    contraction's row accumulated in a stack buffer; then the rows through the epilogue."""
    m = match_stream(list(fused.body.block.ops))
    if m is None:
        raise TilecError(
            "tile.fused stream: the body is not a stream (contractions over one axis of values "
            "computed from (B..., L, S) contractions; see tilec/transforms/attention_pattern.py)",
            op_location(fused),
        )
    g = KernelGen(name, host, fused, "cpu")
    outputs = [(v, g.arg_for(host.buffer_for_result(r))) for v, r in zip(yielded(fused), fused.outputs)]
    f0 = m.outer[0].lhs
    dshape = tile_shape(f0)
    rank = len(dshape)
    kept = rank - 1 if m.axis == rank - 2 else rank - 2
    rows = [g.size(f0, a) for a in (*range(rank - 2), kept)]
    n_x = g.size(f0, m.axis)
    per_pair = sum(_prod_static(tile_shape(c.lhs)[la] for la, _ in c.axes) for c in m.inner)
    per_pair += sum(tile_shape(o.result)[-1] for o in m.outer)
    work = g.product([*rows, n_x, g.index(per_pair)])
    scope, idx, par = parallel_rows(g, rows, work, options.parallel_work)
    idx = [g.index(0) if dshape[a] == 1 else i for a, i in zip((*range(rank - 2), kept), idx)]
    *b, r = idx
    one = g.index(1)

    accs = []
    for o in m.outer:
        ew = tile_shape(o.result)[-1]
        acc = g.emit(mapped.AllocOp(mapped.BufType([ew], o.acc, "reg")), scope).results[0]
        zl, zs = g.open_for(scope, g.index(0), g.index(ew), one, (), {SIMD: UnitAttr()})
        g.emit(mapped.StoreOp(g.const(0.0, o.acc), acc, [zs.block.args[0]]), zs)
        g.close_for(scope, zl, zs)
        accs.append(acc)

    xl, xs = g.open_for(scope, g.index(0), n_x, one)
    x = g.index(0) if dshape[m.axis] == 1 else xs.block.args[0]
    dom = [*b, x, r] if m.axis == rank - 2 else [*b, r, x]
    for c in m.inner:
        xs.memo[(c.result, tuple(dom))] = scores_value(g, c, _dot(g, c, dom[:-1], dom[-1], xs))
    for o, acc in zip(m.outer, accs):
        f = to_float(g, g.value_at(o.lhs, dom), o.acc)
        el, es = g.open_for(xs, g.index(0), g.index(tile_shape(o.result)[-1]), one, (), {SIMD: UnitAttr()})
        e = es.block.args[0]
        w = to_float(g, g.value_at(o.rhs, [*b, x, e]), o.acc)
        g.emit(
            mapped.StoreOp(g.ev(arith.AddfOp(g.ev(mapped.LoadOp(acc, [e])), g.ev(arith.MulfOp(f, w)))), acc, [e]), es
        )
        g.close_for(xs, el, es)
    g.close_for(scope, xl, xs)

    for o, acc in zip(m.outer, accs):
        ew = tile_shape(o.result)[-1]
        ol, os_ = g.open_for(scope, g.index(0), g.index(ew), one, (), {SIMD: UnitAttr()})
        e = os_.block.args[0]
        at = [*b, r, g.index(0) if ew == 1 else e]
        os_.memo[(o.result, tuple(at))] = to_float(
            g, g.ev(mapped.LoadOp(acc, [e])), compute_type(o.result.type.element_type)
        )
        for v, buf in outputs:
            if o.result in epilogue_roots(v):
                at_v = index_of(g, v, at, tile_shape(o.result))
                g.store(g.value_at(v, at_v), buf, at_v, v.type.element_type)
        g.close_for(scope, ol, os_)
    if par is not None:
        g.close_parallel(g.top, par)
    return g.finish(), g.launch_args


def _prod_static(sizes) -> int:
    """The product of static sizes (a `?` size counts 64: only a work estimate)."""
    out = 1
    for d in sizes:
        out *= 64 if d == DYNAMIC else d
    return out


__all__ = ["KEY_BLOCK", "lower_attention", "lower_stream"]
