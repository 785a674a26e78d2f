"""Contraction groups on CPUs: a packed, register-blocked GEMM with a fused epilogue.

For each batch index (sequentially) the kernel
1. packs B into NR-column panels (`Bp[q][k][0:NR]`, zero-padded past N) and A into MR-row panels
   (`Ap[p][k][0:MR]`, zero-padded past M), in parallel over panels, converting 16-bit inputs to
   the accumulation type once;
2. computes every MR x NR tile of C in parallel: MR x NR/W vector accumulators live in registers
   across the whole K loop (`vector.fma` of a broadcast A element with an NR-wide row of B), then
   go to a small per-thread scratch tile;
3. applies the group's epilogue (bias, activation, cast: any elementwise ops on the contraction
   result) element by element while storing the valid part of the tile.

The lhs/rhs may have several free or contracted axes and any strides (transposed views): packing
reads them through their views, flattening M, N and K in row-major order. Integer contractions
use a plain loop nest (`naive` kernel) instead.
Heuristic defaults (pass options): MR=6, NR=16 (12 AVX2 accumulators), f32 W=8, f64 W=4.
"""

from __future__ import annotations

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import UnitAttr, VectorType, f32
from xdsl.ir import SSAValue

from tilec.dialects import mapped, tile
from tilec.dialects.common import DYNAMIC, bitwidth, is_float
from tilec.lowering.builder import compute_type
from tilec.lowering.host import HostBuilder
from tilec.lowering.loopnest import REDUCE_KINDS_ATTR, SIMD, KernelGen


def _contract(fused: tile.FusedOp) -> tile.ContractOp:
    return next(op for op in fused.body.block.ops if isinstance(op, tile.ContractOp))


class _Spaces:
    """Axis bookkeeping of one contraction: batch / M / N / K axes of lhs, rhs and the result."""

    def __init__(self, c: tile.ContractOp):
        self.c = c
        lr, rr = c.lhs.type.rank, c.rhs.type.rank
        self.batch = c.batch
        self.axes = c.axes
        used_l = {a for a, _ in c.axes} | {a for a, _ in c.batch}
        used_r = {b for _, b in c.axes} | {b for _, b in c.batch}
        self.lfree = [a for a in range(lr) if a not in used_l]
        self.rfree = [b for b in range(rr) if b not in used_r]


def lower_contraction(name: str, fused: tile.FusedOp, host: HostBuilder, options) -> tuple[mapped.KernelOp, list[SSAValue]]:
    c = _contract(fused)
    acc_t = c.acc
    g = KernelGen(name, host, fused, "cpu")
    y = fused.body.block.last_op
    assert isinstance(y, tile.YieldOp)
    outputs = [(v, g.arg_for(host.buffer_for_result(r))) for v, r in zip(y.values, fused.outputs)]
    sp = _Spaces(c)
    if not is_float(acc_t):
        _naive(g, c, sp, outputs)
        return g.finish(), g.launch_args
    width = 8 if bitwidth(acc_t) == 32 else 4  # lanes per vector (AVX2: 8 x f32, 4 x f64)
    mr, nr = options.mr, options.nr
    if nr % width:
        nr = ((nr + width - 1) // width) * width

    # sizes of the flattened spaces, in the kernel
    lhs, rhs = c.lhs, c.rhs
    bsz = [g.size(lhs, a) for a, _ in sp.batch]
    msz = [g.size(lhs, a) for a in sp.lfree]
    nsz = [g.size(rhs, b) for b in sp.rfree]
    ksz = [g.size(lhs, a) for a, _ in sp.axes]
    M, N, K, B = g.product(msz), g.product(nsz), g.product(ksz), g.product(bsz)

    # packed panels: temporaries allocated by the host (sizes computed on the host)
    he = host.e
    hM = he.product([host.size(lhs, a) for a in sp.lfree])
    hN = he.product([host.size(rhs, b) for b in sp.rfree])
    hK = he.product([host.size(lhs, a) for a, _ in sp.axes])
    hMp = he.muli(he.ceildiv(hM, he.index(mr)), he.index(mr))
    hNp = he.muli(he.ceildiv(hN, he.index(nr)), he.index(nr))
    ap_host = he.v(mapped.TempOp(mapped.BufType([DYNAMIC], acc_t, "global"), [he.muli(hMp, hK)]))
    bp_host = he.v(mapped.TempOp(mapped.BufType([DYNAMIC], acc_t, "global"), [he.muli(hNp, hK)]))
    ap_host.name_hint, bp_host.name_hint = "Apack", "Bpack"
    Ap, Bp = g.arg_for(ap_host), g.arg_for(bp_host)

    zero_acc = g.const(0.0, acc_t)
    one = g.index(1)
    mp_panels = g.divui(g.addi(M, g.index(mr - 1)), g.index(mr))
    np_panels = g.divui(g.addi(N, g.index(nr - 1)), g.index(nr))

    # batch loop (sequential)
    bloop, bscope = g.open_for(g.top, g.index(0), B, one)
    bidx = g.delinearize(bscope.block.args[0], bsz) if bsz else []

    def lhs_index(m_idx: list[SSAValue], k_idx: list[SSAValue]) -> list[SSAValue]:
        idx: list[SSAValue | None] = [None] * lhs.type.rank
        for (a, _), i in zip(sp.batch, bidx):
            idx[a] = i
        for a, i in zip(sp.lfree, m_idx):
            idx[a] = i
        for (a, _), i in zip(sp.axes, k_idx):
            idx[a] = i
        return idx  # type: ignore[return-value]

    def rhs_index(k_idx: list[SSAValue], n_idx: list[SSAValue]) -> list[SSAValue]:
        idx: list[SSAValue | None] = [None] * rhs.type.rank
        for (_, b), i in zip(sp.batch, bidx):
            idx[b] = i
        for b, i in zip(sp.rfree, n_idx):
            idx[b] = i
        for (_, b), i in zip(sp.axes, k_idx):
            idx[b] = i
        return idx  # type: ignore[return-value]

    def operand_at(v: SSAValue, idx: list[SSAValue]) -> SSAValue:
        x = g.value_at(v, idx)
        ct = compute_type(v.type.element_type)
        if ct != acc_t:
            x = g.ev(arith.ExtFOp(x, acc_t) if bitwidth(acc_t) > bitwidth(ct) else arith.TruncFOp(x, acc_t))
        return x

    # 1. pack B: panels q in parallel; Bp[(q*K + k)*nr + j] = B[k, q*nr + j] (0 past N)
    par, ps = g.open_parallel(bscope, [g.index(0)], [np_panels], [one], "cores")
    q = ps.block.args[0]
    kl, ks = g.open_for(ps, g.index(0), K, one)
    k = ks.block.args[0]
    jl, js = g.open_for(ks, g.index(0), g.index(nr), one, (), {SIMD: UnitAttr()})
    j = js.block.args[0]
    n = g.addi(g.muli(q, g.index(nr)), j)
    inside = g.ev(arith.CmpiOp(n, N, "ult"))
    n_safe = g.minui(n, g.subi(N, one))
    val = operand_at(rhs, rhs_index(g.delinearize(k, ksz), g.delinearize(n_safe, nsz)))
    val = g.ev(arith.SelectOp(inside, val, zero_acc))
    g.emit(mapped.StoreOp(val, Bp, [g.addi(g.muli(g.addi(g.muli(q, K), k), g.index(nr)), j)]))
    g.close_for(ks, jl, js)
    g.close_for(ps, kl, ks)
    g.close_parallel(bscope, par)

    # 2. pack A: panels p in parallel; Ap[(p*K + k)*mr + i] = A[p*mr + i, k] (0 past M)
    par, ps = g.open_parallel(bscope, [g.index(0)], [mp_panels], [one], "cores")
    p = ps.block.args[0]
    kl, ks = g.open_for(ps, g.index(0), K, one)
    k = ks.block.args[0]
    il, is_ = g.open_for(ks, g.index(0), g.index(mr), one, (), {SIMD: UnitAttr()})
    i = is_.block.args[0]
    m = g.addi(g.muli(p, g.index(mr)), i)
    inside = g.ev(arith.CmpiOp(m, M, "ult"))
    m_safe = g.minui(m, g.subi(M, one))
    val = operand_at(lhs, lhs_index(g.delinearize(m_safe, msz), g.delinearize(k, ksz)))
    val = g.ev(arith.SelectOp(inside, val, zero_acc))
    g.emit(mapped.StoreOp(val, Ap, [g.addi(g.muli(g.addi(g.muli(p, K), k), g.index(mr)), i)]))
    g.close_for(ks, il, is_)
    g.close_for(ps, kl, ks)
    g.close_parallel(bscope, par)

    # 3. tiles: t -> (q = t / mp_panels, p = t % mp_panels): neighbours share a B panel
    vt = VectorType(acc_t, [width])
    nvec = nr // width
    par, ps = g.open_parallel(bscope, [g.index(0)], [g.muli(mp_panels, np_panels)], [one], "cores")
    t = ps.block.args[0]
    q = g.divui(t, mp_panels)
    p = g.remui(t, mp_panels)
    zero_v = g.emit(vector.BroadcastOp(zero_acc, vt), g.top).results[0]
    inits = [zero_v] * (mr * nvec)
    kl, ks = g.open_for(ps, g.index(0), K, one, inits)
    k = ks.block.args[0]
    accs = list(ks.block.args[1:])
    bbase = g.muli(g.addi(g.muli(q, K), k), g.index(nr))
    abase = g.muli(g.addi(g.muli(p, K), k), g.index(mr))
    bvec = [g.ev(mapped.LoadOp(Bp, [g.addi(bbase, g.index(jv * width))], vt)) for jv in range(nvec)]
    new = []
    for ii in range(mr):
        a = g.ev(mapped.LoadOp(Ap, [g.addi(abase, g.index(ii))]))
        av = g.ev(vector.BroadcastOp(a, vt))
        for jv in range(nvec):
            new.append(g.ev(vector.FMAOp(av, bvec[jv], accs[ii * nvec + jv])))
    final = g.close_for(ps, kl, ks, new)
    scratch = g.emit(mapped.AllocOp(mapped.BufType([mr, nr], acc_t, "reg")), ps).results[0]
    for ii in range(mr):
        for jv in range(nvec):
            g.emit(mapped.StoreOp(final[ii * nvec + jv], scratch, [g.index(ii), g.index(jv * width)]))
    # epilogue over the valid part of the tile
    m0, n0 = g.muli(p, g.index(mr)), g.muli(q, g.index(nr))
    mrows = g.minui(g.index(mr), g.subi(M, m0))
    ncols = g.minui(g.index(nr), g.subi(N, n0))
    il, is_ = g.open_for(ps, g.index(0), mrows, one)
    i = is_.block.args[0]
    jl, js = g.open_for(is_, g.index(0), ncols, one, (), {SIMD: UnitAttr()})
    j = js.block.args[0]
    m_idx = g.delinearize(g.addi(m0, i), msz)
    n_idx = g.delinearize(g.addi(n0, j), nsz)
    res_idx = [*bidx, *m_idx, *n_idx]
    accv = g.ev(mapped.LoadOp(scratch, [i, j]))
    accv = _acc_to_result(g, accv, acc_t, c.result.type.element_type)
    js.memo[(c.result, tuple(res_idx))] = accv
    for v, buf in outputs:
        g.store(g.value_at(v, res_idx), buf, res_idx)
    g.close_for(is_, jl, js)
    g.close_for(ps, il, is_)
    g.close_parallel(bscope, par)
    g.close_for(g.top, bloop, bscope)
    return g.finish(), g.launch_args


def _acc_to_result(g: KernelGen, x: SSAValue, acc_t, elt) -> SSAValue:
    """Round the accumulator to the contraction's result element type (kept in compute type)."""
    ct = compute_type(elt)
    if is_float(elt):
        if ct != elt:  # 16-bit result: round through the narrow type
            narrow = g.ev(arith.TruncFOp(x, elt))
            return g.ev(arith.ExtFOp(narrow, f32))
        if bitwidth(ct) < bitwidth(acc_t):
            return g.ev(arith.TruncFOp(x, ct))
        if bitwidth(ct) > bitwidth(acc_t):
            return g.ev(arith.ExtFOp(x, ct))
        return x
    if bitwidth(ct) < bitwidth(acc_t):
        return g.ev(arith.TruncIOp(x, ct))
    return x


def _naive(g: KernelGen, c: tile.ContractOp, sp: _Spaces, outputs) -> None:
    """Integer contractions: result[b, m, n] = sum_k lhs * rhs in the accumulator type."""
    lhs, rhs = c.lhs, c.rhs
    acc_t = c.acc
    res_shape = c.result.type.get_shape()
    sizes = [g.size(c.result, a) for a in range(len(res_shape))]
    one = g.index(1)
    outer = sizes[:-1]
    if outer:
        par, ps = g.open_parallel(g.top, [g.index(0)], [g.product(outer)], [one], "cores")
        oidx = g.delinearize(ps.block.args[0], outer)
    else:
        par, ps, oidx = None, g.top, []
    nl, ns = g.open_for(ps, g.index(0), sizes[-1] if sizes else one, one)
    res_idx = [*oidx, ns.block.args[0]] if sizes else []
    nb = len(sp.batch)
    bidx, rest = res_idx[:nb], res_idx[nb:]
    m_idx, n_idx = rest[: len(sp.lfree)], rest[len(sp.lfree) :]
    ksz = [g.size(lhs, a) for a, _ in sp.axes]
    kl, ks = g.open_for(ns, g.index(0), g.product(ksz), one, [g.const(0, acc_t)], {SIMD: UnitAttr(), REDUCE_KINDS_ATTR: _kinds("add")})
    k_idx = g.delinearize(ks.block.args[0], ksz)
    li: list = [None] * lhs.type.rank
    ri: list = [None] * rhs.type.rank
    for (a, b), i in zip(sp.batch, bidx):
        li[a], ri[b] = i, i
    for a, i in zip(sp.lfree, m_idx):
        li[a] = i
    for b, i in zip(sp.rfree, n_idx):
        ri[b] = i
    for (a, b), i in zip(sp.axes, k_idx):
        li[a], ri[b] = i, i
    x = _widen(g, g.value_at(lhs, li), acc_t)
    yv = _widen(g, g.value_at(rhs, ri), acc_t)
    s = g.ev(arith.AddiOp(ks.block.args[1], g.ev(arith.MuliOp(x, yv))))
    (total,) = g.close_for(ns, kl, ks, [s])
    ns.memo[(c.result, tuple(res_idx))] = _acc_to_result(g, total, acc_t, c.result.type.element_type)
    for v, buf in outputs:
        g.store(g.value_at(v, res_idx), buf, res_idx)
    g.close_for(ps, nl, ns)
    if par is not None:
        g.close_parallel(g.top, par)


def _widen(g: KernelGen, x: SSAValue, t) -> SSAValue:
    if x.type == t:
        return x
    if bitwidth(x.type) < bitwidth(t):
        return g.ev(arith.ExtSIOp(x, t))
    return g.ev(arith.TruncIOp(x, t))


def _kinds(*names: str):
    from xdsl.dialects.builtin import ArrayAttr, StringAttr

    return ArrayAttr([StringAttr(n) for n in names])


__all__ = ["lower_contraction"]
