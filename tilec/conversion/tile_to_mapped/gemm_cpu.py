"""Contraction groups on CPUs: a packed, cache-blocked, register-blocked GEMM with a fused epilogue.

For each batch index (sequentially) the kernel runs three parallel loops (OpenMP, static):

1. **pack B** into NR-column panels, K-blocked: K is cut into blocks of `kc` (the last one may
   be shorter: `kcb` rows), and panel q of block kb is `kcb x NR`, contiguous:
   `Bp[kb*kc*Np + q*kcb*NR + kk*NR + j] = B[kb*kc + kk, q*NR + j]` (0 past N). Only a partial
   last panel checks bounds: the clamped indices of that check made GCC gather full panels.
2. **pack A** into MR-row panels the same way: `Ap[kb*kc*Mp + p*kcb*MR + kk*MR + i]` (0 past M).
   16-bit inputs are converted to the accumulation type here, once.
3. **compute**: C is cut into blocks of (up to) `mc` rows x `nc` columns, one parallel task each.
   A task loops over the K blocks; per K block over its B panels (outer loop) and its A panels
   (inner loop): one B panel stays in L1 while it meets every A panel of the block, and the
   block's A panels stay in L2 while they meet every B panel. A MR x NR tile keeps MR x NR/W
   vector accumulators in registers across the K block (`vector.fma` of a broadcast A element
   with the NR-wide row of B) and adds them into the task's C block: a `reg` buffer of
   `mc x nc` accumulators (on the stack), zeroed when the task starts. After the last K block
   the task applies the group's epilogue (bias, activation, cast: the elementwise ops on the
   contraction result) to the valid part of its C block, row by row, in a `simd` loop.

Block sizes come from the pass options `vector`, `mr`, `nr`, `kc`, `mc`. `vector` is the f32
SIMD width W the micro-kernel is shaped for (the cpu backend sets it from the host: 16 with
AVX-512, else 8 with AVX2, 4 with SSE/NEON); mr/nr/mc default from it (options.CPU_MICRO_TILES):
6 x 16 for 8 lanes (twelve 8 x f32 accumulators, which with two B vectors and the broadcast A
element fill AVX2's 16 registers), 14 x 32 for 16 lanes (28 zmm accumulators and two B vectors of
AVX-512's 32; the A element is broadcast from memory into the FMA), 6 x 8 for 4 lanes; mc is the
multiple of MR nearest 96, kc 512. With a static N that one vector per row pads to fewer columns
(N = 8, 37, ...), the default NR is one vector (e.g. 14 x 16). f64 tiles keep the same bytes per row (NR/2 columns of W/2
lanes); NR is rounded up to a multiple of the lanes. `nc` fills a 96 KiB C block, capped at a static
N's panels (and `mc` at a static M's). A static M below the default MR is MR (decode: no padding
rows), and with at most DIRECT_B_ROWS rows the micro-kernel reads B in place where it is an input
stored row-major K x N of the accumulator's type with whole vectors covering a static N
(`_direct_rhs`): each B element meets so few rows that packing it cost more than it saved. The panels are
shared out evenly among the C blocks (sizes differ by one panel at most), with more, smaller row
blocks when that makes fewer than 8 tasks, so that the static schedule shares out equal work.
Measurements and the choices they led to: benchmarks/cpu_results.md.

The lhs/rhs may have several free or contracted axes and any strides (transposed views): packing
reads them through their views, flattening M, N and K in row-major order. Integer contractions
use a plain loop nest (`naive` kernel) instead.

A tile.conv group runs the same kernel as an implicit GEMM (implicit_gemm.py): batch = groups,
M = (n, *output position), N = output channels per group, K = (*kernel offset, c) in both layouts
(`k_channel_last`: the weight is packed in that order whatever its layout). Its A is never packed
whole (that would be an im2col matrix, K*K times the input): each task packs its own A panels of
one K block (`TASK_KC` = 256 deep, a multiple of C/G) into an `Ablock` on its stack, reading the
input through the window index map (zeros outside) right before the micro-kernel uses them. The
Ablock's panels are row-major (`Ablock[p*MR*kc + i*kc + kk]`, a constant row stride): a K block is
whole runs of C/G channels of one kernel position, so the window check is made once per run and
the run is one simd loop with contiguous stores (and contiguous loads in channels_last; strided
in channels_first), and the micro-kernel's MR broadcasts are constant offsets from one pointer.
B (the weight) is packed up front as for a GEMM.
"""

from __future__ import annotations

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import UnitAttr, VectorType
from xdsl.ir import SSAValue

from tilec.conversion.builder import compute_type
from tilec.conversion.tile_to_mapped.group_info import ContractionAxes, acc_to_result
from tilec.conversion.tile_to_mapped.host import HostBuilder, plain_input
from tilec.conversion.tile_to_mapped.implicit_gemm import ContractGemm, ConvGemm, gemm_view
from tilec.conversion.tile_to_mapped.loopnest import REDUCE_KINDS_ATTR, SIMD, KernelGen
from tilec.dialects import mapped, tile
from tilec.dialects.common import DYNAMIC, bitwidth, is_float

CBUF_BYTES = 96 * 1024  # per-task C accumulator buffer (stack): mc x nc accumulators
TASK_KC = 256  # K block of a convolution, whose task packs its own mc x kc A block on the stack (96 KiB)
MIN_TASKS = 8  # shrink the row blocks until there are this many tasks (when M allows)
DIRECT_B_ROWS = 16
"""GEMMs with at most this many rows (a static M: decode, a GEMV) read B in place, unpacked."""


def blocking(acc_t, options, n: int | None = None, m: int | None = None) -> tuple[int, int, int, int, int, int]:
    """(W, MR, NR, KC, MC, NC) for an accumulator type: lanes, micro-tile, K block, C block. `n`
    and `m`: the static N (columns of C) and M (rows), if known. With the default NR (two
    vectors), one vector is taken when that pads N to fewer columns (N = 8 or 37 with 16 lanes: 16
    or 48 columns, not 32 or 64); with the default MR, an M below it is the micro-tile's rows (a
    decode GEMM of 8 rows computes no padding rows); a C block is never larger than M x N's
    panels (it is zeroed and walked whole: N = 64 in a 224-column block cost 3.5x its work)."""
    lanes32 = options.vector
    nbytes = bitwidth(acc_t) // 8
    width = max(1, lanes32 * 4 // nbytes)
    mr, nr, mc = options.micro_tile(m)
    nr = nr * 4 // nbytes  # the same bytes per tile row for f64 (NR/2 columns)
    nr = max(width, ((nr + width - 1) // width) * width)
    if not options.nr and n and nr > width and -(-n // width) * width < -(-n // nr) * nr:
        nr = width
    kc = options.kc
    mc = max(mr, (mc // mr) * mr)
    if m:
        mc = min(mc, -(-m // mr) * mr)
    panels = max(1, min(16, CBUF_BYTES // (mc * nr * nbytes)))
    if n:
        panels = min(panels, -(-n // nr))
    return width, mr, nr, kc, mc, panels * nr


CPU_REGISTERS = {4: 16, 8: 16, 16: 32}  # vector registers: SSE / AVX2 / NEON-like 16, AVX-512 32
LANES_PER_CYCLE = {4: 8, 8: 16, 16: 16}
"""f32 FMA lanes a core retires per cycle by vector width: two FMA pipes of 128 / 256 bits; 512-bit
FMAs counted as on Zen 4 (double-pumped, one per cycle): a full-width AVX-512 core is faster than
this says, so its 16-lane candidates are never skipped for it."""
LOADS_PER_CYCLE, FMA_LATENCY, ISSUE_WIDTH = 2, 4, 4
CPU_HZ = 3.0e9
L2_BYTES = 512 * 1024
MEMORY_BYTES_PER_S = 10.0e9  # one core's streaming bandwidth
TEAM_START_S = 5e-6  # starting the OpenMP team once


def predicted_seconds(options, acc_t, b: int, m: int, n: int, k: int, threads: int, conv: bool = False) -> float:
    """The analytic time of this kernel on a B x M x N x K problem (static sizes) with `options`,
    for the tuner (`CpuBackend.predicted_gemm_seconds`): only its ratios between candidates matter.

    Per micro-tile and k step, the cycles are the largest of: its FMAs at LANES_PER_CYCLE, its
    loads (NR / W vectors of B, MR broadcasts of A) at LOADS_PER_CYCLE, one FMA latency (each
    accumulator is one dependent chain) and the instructions at ISSUE_WIDTH; accumulators plus B
    vectors beyond the register file are spilled (a store and a load per k step each). A task's A
    block larger than half of L2 slows the k loop; each K block adds a pass over the C block. The tasks (`nrb x ncb`, as the kernel cuts them) are
    shared among `threads` when the work reaches `parallel-work`. Packing reads and writes A and
    B once (B only for a convolution, whose A is packed per task on its stack)."""
    width, mr, nr, kc, mc, nc = blocking(acc_t, options, n, m)
    if conv:
        kc = min(kc, TASK_KC)
    nbytes = bitwidth(acc_t) // 8
    lanes = options.vector  # (f64: half the elements per vector, the same FMAs per vector)
    vecs = nr // width
    accs = mr * vecs
    vector_loads = vecs * max(1, lanes * 4 // 32)  # 512-bit loads count twice
    cycles = max(
        accs * lanes / LANES_PER_CYCLE[lanes],
        (vector_loads + mr) / LOADS_PER_CYCLE,
        FMA_LATENCY,
        (accs + vecs + 3) / ISSUE_WIDTH,
    )
    spill = accs + vecs + 1 - CPU_REGISTERS[lanes]
    if spill > 0:
        cycles += 2 * spill
    if mc * kc * nbytes > L2_BYTES // 2:  # (B panels stream from L2 at full speed: kc 128-512 measured flat)
        cycles *= 1.2
    mpanels, npanels = -(-m // mr), -(-n // nr)
    kblocks = -(-k // kc)
    tile_cycles = k * cycles + kblocks * 2 * accs  # the k loop, then adding into the C block
    # the kernel's tasks (lower_contraction): column blocks of nc // nr panels; row blocks of at
    # most mc // mr panels, more when that makes fewer than MIN_TASKS tasks
    ncb = -(-npanels // max(1, nc // nr))
    nrb = max(-(-mpanels // max(1, mc // mr)), min(-(-MIN_TASKS // max(ncb, 1)), mpanels))
    tasks = nrb * ncb
    parallel = threads > 1 and m * n * k // 16 >= options.parallel_work
    team = threads if parallel else 1
    per_task = mpanels * npanels / tasks * tile_cycles
    compute = b * per_task * -(-tasks // team) / CPU_HZ
    direct = not conv and b == 1 and m <= DIRECT_B_ROWS and n % width == 0  # (B read in place, as a rule)
    packed = (n * k if conv else (m * k if direct else (m + n) * k)) * nbytes * 2  # read and written once
    return compute + b * packed / (MEMORY_BYTES_PER_S * team) + (TEAM_START_S if parallel else 0.0)


def lower_contraction(
    name: str, fused: tile.FusedOp, host: HostBuilder, options
) -> tuple[mapped.KernelOp, list[SSAValue]]:
    view = gemm_view(fused, k_channel_last=True)
    c = view.op
    acc_t = c.acc
    g = KernelGen(name, host, fused, "cpu")
    y = fused.body.block.last_op
    assert isinstance(y, tile.YieldOp)
    outputs = [(v, g.arg_for(host.buffer_for_result(r))) for v, r in zip(y.values, fused.outputs)]
    if not is_float(acc_t):
        assert isinstance(view, ContractGemm)  # integer convolutions are refused by gemm_view
        _naive(g, c, view.sp, outputs, options.parallel_work)
        return g.finish(), g.launch_args
    width, mr, nr, kc, mc, nc = blocking(acc_t, options, view.static_n(), view.static_m())
    # a convolution packs A per task and K block (task_pack): its A would be M x K = an im2col
    task_pack = isinstance(view, ConvGemm)
    # K blocks made of whole runs (channels_last: C/G channels per kernel position; channels_first:
    # the kernel positions of each channel), so the window check is made once per run
    runs = 0
    if task_pack:
        runs = view.run_length()
        kc = runs * (TASK_KC // runs) if runs <= TASK_KC else min(kc, TASK_KC)
        runs = runs if runs <= TASK_KC else 0
    # B read in place (not packed) where the GEMM has few rows: each B element meets at most
    # DIRECT_B_ROWS rows, so packing B (a write and a read of K x N) costs more than it saves
    direct = None if task_pack else _direct_rhs(view, fused, host, acc_t, width, nr)
    if direct is not None:
        direct_b, nr = direct
    pb_max, nbp = mc // mr, nc // nr  # A panels per row block (at most), B panels per column block

    # sizes of the flattened spaces, in the kernel
    bsz, msz, nsz, ksz = view.sizes(g)
    M, N, K, B = g.product(msz), g.product(nsz), g.product(ksz), g.product(bsz)
    # the work that decides whether the thread team starts (options.parallel_work): M x N x K / 16
    work = g.divui(g.muli(g.muli(M, N), K), g.index(16))
    min_work = options.parallel_work

    # packed panels: temporaries allocated by the host (sizes computed on the host)
    he = host.e
    hM, hN, hK = view.host_m(host), view.host_n(host), view.host_k(host)
    hMp = he.muli(he.ceildiv(hM, he.index(mr)), he.index(mr))
    hNp = he.muli(he.ceildiv(hN, he.index(nr)), he.index(nr))
    if task_pack:
        bp_host = he.v(mapped.TempOp(mapped.BufType([DYNAMIC], acc_t, "global"), [he.muli(hNp, hK)]))
        bp_host.name_hint = "Bpack"
        Ap, Bp = None, g.arg_for(bp_host)
    else:
        ap_host = he.v(mapped.TempOp(mapped.BufType([DYNAMIC], acc_t, "global"), [he.muli(hMp, hK)]))
        ap_host.name_hint = "Apack"
        Ap = g.arg_for(ap_host)
        if direct is None:
            bp_host = he.v(mapped.TempOp(mapped.BufType([DYNAMIC], acc_t, "global"), [he.muli(hNp, hK)]))
            bp_host.name_hint = "Bpack"
            Bp = g.arg_for(bp_host)
        else:
            Bp = g.arg_for(direct_b)

    zero_acc = g.const(0.0, acc_t)
    one = g.index(1)

    def ceildiv(a: SSAValue, b: SSAValue) -> SSAValue:
        return g.divui(g.addi(a, g.subi(b, one)), b)

    mpanels = ceildiv(M, g.index(mr))
    npanels = ceildiv(N, g.index(nr))
    Mp, Np = g.muli(mpanels, g.index(mr)), g.muli(npanels, g.index(nr))
    nkb = ceildiv(K, g.index(kc))  # K blocks
    # C blocks: the panels are shared out evenly (block sizes differ by one panel at most), into
    # at least ceil(panels / per-block maximum) blocks; more row blocks when that makes fewer
    # than MIN_TASKS tasks (as many as there are A panels)
    ncb = ceildiv(npanels, g.index(nbp))  # column blocks
    want_rows = ceildiv(g.index(MIN_TASKS), g.ev(arith.MaxSIOp(ncb, one)))  # (ncb is 0 when N is)
    nrb = g.ev(arith.MaxSIOp(ceildiv(mpanels, g.index(pb_max)), g.minui(want_rows, mpanels)))  # row blocks

    # batch loop (sequential)
    bloop, bscope = g.open_for(g.top, g.index(0), B, one)
    bidx = g.delinearize(bscope.block.args[0], bsz) if bsz else []

    def operand_at(v: SSAValue, idx: list[SSAValue]) -> SSAValue:
        x = g.value_at(v, idx)
        ct = compute_type(v.type.element_type)
        if ct != acc_t:
            x = g.ev(arith.ExtFOp(x, acc_t) if bitwidth(acc_t) > bitwidth(ct) else arith.TruncFOp(x, acc_t))
        return x

    def kblock(kb: SSAValue) -> tuple[SSAValue, SSAValue]:
        """(first k, rows) of K block kb."""
        k0 = g.muli(kb, g.index(kc))
        return k0, g.minui(g.index(kc), g.subi(K, k0))

    def pack(panels: SSAValue, padded: SSAValue, size: SSAValue, r: int, packed: SSAValue, at) -> None:
        """packed[kb*kc*padded + p*kcb*r + kk*r + i] = at(p*r + i, k) (0 past `size`).

        A full panel is copied with plain loads; only the last panel, when partial, clamps its
        indices and selects zeros (a clamped index makes the C compiler gather every row)."""
        par, ps = g.open_parallel(bscope, [g.index(0)], [panels], [one], "cores", work, min_work)
        p = ps.block.args[0]
        full = g.ev(arith.CmpiOp(g.muli(g.addi(p, one), g.index(r)), size, "ule"))
        n_full = g.ev(arith.SelectOp(full, one, g.index(0)))  # 1 or 0 trips: a branch
        for variant, trips in (("full", n_full), ("edge", g.subi(one, n_full))):
            vl, vs = g.open_for(ps, g.index(0), trips, one)
            bl, bs = g.open_for(vs, g.index(0), nkb, one)
            k0, kcb = kblock(bs.block.args[0])
            kl, ks = g.open_for(bs, g.index(0), kcb, one)
            kk = ks.block.args[0]
            k = g.addi(k0, kk)
            il, is_ = g.open_for(ks, g.index(0), g.index(r), one, (), {SIMD: UnitAttr()})
            i = is_.block.args[0]
            x = g.addi(g.muli(p, g.index(r)), i)
            if variant == "full":
                val = at(x, k)
            else:
                inside = g.ev(arith.CmpiOp(x, size, "ult"))
                x_safe = g.minui(x, g.subi(size, one))
                val = g.ev(arith.SelectOp(inside, at(x_safe, k), zero_acc))
            base = g.addi(g.muli(k0, padded), g.muli(g.muli(p, kcb), g.index(r)))
            g.emit(mapped.StoreOp(val, packed, [g.addi(base, g.addi(g.muli(kk, g.index(r)), i))]))
            g.close_for(ks, il, is_)
            g.close_for(bs, kl, ks)
            g.close_for(vs, bl, bs)
            g.close_for(ps, vl, vs)
        g.close_parallel(bscope, par)

    # 1. pack B (unless read in place), 2. pack A
    if direct is None:
        pack(
            npanels,
            Np,
            N,
            nr,
            Bp,
            lambda n, k: view.rhs_at(g, bidx, g.delinearize(k, ksz), g.delinearize(n, nsz), operand_at),
        )
    if not task_pack:
        pack(
            mpanels,
            Mp,
            M,
            mr,
            Ap,
            lambda m, k: view.lhs_at(g, bidx, g.delinearize(m, msz), g.delinearize(k, ksz), operand_at),
        )

    # 3. compute: task t -> column block t / nrb, row block t % nrb
    vt = VectorType(acc_t, [width])
    nvec = nr // width
    par, ps = g.open_parallel(bscope, [g.index(0)], [g.muli(nrb, ncb)], [one], "cores", work, min_work)
    t = ps.block.args[0]
    ib, jb = g.remui(t, nrb), g.divui(t, nrb)
    p0 = g.divui(g.muli(ib, mpanels), nrb)  # the task's A panels: [p0, p0 + npb)
    npb = g.subi(g.divui(g.muli(g.addi(ib, one), mpanels), nrb), p0)
    q0 = g.divui(g.muli(jb, npanels), ncb)  # its B panels: [q0, q0 + nqb)
    nqb = g.subi(g.divui(g.muli(g.addi(jb, one), npanels), ncb), q0)
    cbuf = g.emit(mapped.AllocOp(mapped.BufType([mc * nc], acc_t, "reg")), ps).results[0]  # row-major mc x nc
    cbuf.name_hint = "Cblock"
    if task_pack:  # the task's A panels of one K block (on the stack, like the C block)
        Ap = g.emit(mapped.AllocOp(mapped.BufType([pb_max * kc * mr], acc_t, "reg")), ps).results[0]
        Ap.name_hint = "Ablock"

    # the C block starts at zero (no select in the micro-kernel: it would cost registers)
    zl, zs = g.open_for(ps, g.index(0), g.index(mc * nc), one, (), {SIMD: UnitAttr()})
    g.emit(mapped.StoreOp(zero_acc, cbuf, [zs.block.args[0]]))
    g.close_for(ps, zl, zs)

    bl, bs = g.open_for(ps, g.index(0), nkb, one)
    kb = bs.block.args[0]
    k0, kcb = kblock(kb)
    if task_pack:
        _pack_window_block(g, view, Ap, bs, bidx, p0, npb, k0, kcb, kc, M, msz, ksz, mr, runs, operand_at)
    jl, js = g.open_for(bs, g.index(0), nqb, one)
    jq = js.block.args[0]
    if direct is None:  # the packed panel: kcb x NR, contiguous
        bbase = g.addi(g.muli(k0, Np), g.muli(g.muli(g.addi(q0, jq), kcb), g.index(nr)))
    else:  # B itself, K x N: the panel's first column
        bcol = g.muli(g.addi(q0, jq), g.index(nr))
    il, is_ = g.open_for(js, g.index(0), npb, one)
    ip = is_.block.args[0]
    if task_pack:  # the task's A block: row-major MR x kc panels (a row's K run is contiguous)
        abase = g.muli(ip, g.index(mr * kc))
        a_kstep, a_row = 1, kc
    else:  # the packed A: K-major MR-row panels (the MR elements of one k are contiguous)
        a_kstep, a_row = mr, 1
        abase = g.addi(g.muli(k0, Mp), g.muli(g.muli(g.addi(p0, ip), kcb), g.index(mr)))
    cbase = g.addi(g.muli(ip, g.index(mr * nc)), g.muli(jq, g.index(nr)))  # the tile in the C block
    inits = []
    for ii in range(mr):
        for jv in range(nvec):
            inits.append(g.ev(mapped.LoadOp(cbuf, [g.addi(cbase, g.index(ii * nc + jv * width))], vt)))

    def kstep(kk: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
        """One rank-1 update of the tile: accs += A[:, kk] x B[kk, :]."""
        ak = g.addi(abase, g.muli(kk, g.index(a_kstep))) if a_kstep > 1 else g.addi(abase, kk)
        if direct is None:
            bk = g.addi(bbase, g.muli(kk, g.index(nr)))
            bvec = [g.ev(mapped.LoadOp(Bp, [g.addi(bk, g.index(jv * width))], vt)) for jv in range(nvec)]
        else:
            row = g.addi(k0, kk)
            bvec = [g.ev(mapped.LoadOp(Bp, [row, g.addi(bcol, g.index(jv * width))], vt)) for jv in range(nvec)]
        new = []
        for ii in range(mr):
            a = g.ev(mapped.LoadOp(Ap, [g.addi(ak, g.index(ii * a_row))]))
            av = g.ev(vector.BroadcastOp(a, vt))
            for jv in range(nvec):
                new.append(g.ev(vector.FMAOp(av, bvec[jv], accs[ii * nvec + jv])))
        return new

    # the K loop (unrolled 2, 4 or 8 times it measured no faster: benchmarks/cpu_results.md)
    kl, ks = g.open_for(is_, g.index(0), kcb, one, inits)
    final = g.close_for(is_, kl, ks, kstep(ks.block.args[0], list(ks.block.args[1:])))
    for ii in range(mr):
        for jv in range(nvec):
            g.emit(mapped.StoreOp(final[ii * nvec + jv], cbuf, [g.addi(cbase, g.index(ii * nc + jv * width))]))
    g.close_for(js, il, is_)
    g.close_for(bs, jl, js)
    g.close_for(ps, bl, bs)

    # epilogue over the valid part of the task's block, row by row
    m0, n0 = g.muli(p0, g.index(mr)), g.muli(q0, g.index(nr))
    mrows = g.minui(g.muli(npb, g.index(mr)), g.subi(M, m0))
    ncols = g.minui(g.muli(nqb, g.index(nr)), g.subi(N, n0))
    el, es = g.open_for(ps, g.index(0), mrows, one)
    i = es.block.args[0]
    fl, fs = g.open_for(es, g.index(0), ncols, one, (), {SIMD: UnitAttr()})
    j = fs.block.args[0]
    m_idx = g.delinearize(g.addi(m0, i), msz)
    n_idx = g.delinearize(g.addi(n0, j), nsz)
    res_idx = view.result_index(g, bidx, m_idx, n_idx)
    accv = g.ev(mapped.LoadOp(cbuf, [g.addi(g.muli(i, g.index(nc)), j)]))
    accv = acc_to_result(g, accv, acc_t, c.result.type.element_type)
    fs.memo[(c.result, tuple(res_idx))] = accv
    for v, buf in outputs:
        g.store(g.value_at(v, res_idx), buf, res_idx, v.type.element_type)
    g.close_for(es, fl, fs)
    g.close_for(ps, el, es)
    g.close_parallel(bscope, par)
    g.close_for(g.top, bloop, bscope)
    return g.finish(), g.launch_args


def _direct_rhs(view, fused: tile.FusedOp, host: HostBuilder, acc_t, width: int, nr: int):
    """(B's buffer, NR) where the micro-kernel may read B in place instead of packing it: a
    contraction without batch axes of at most DIRECT_B_ROWS static rows, whose B is a group input
    stored row-major K x N in the accumulator's type, with a static N that whole vectors cover
    (NR = one vector unless two cover it: no panel reads past a row, none past B's end); else None."""
    if not isinstance(view, ContractGemm):
        return None
    c, sp = view.op, view.sp
    m, n = view.static_m(), view.static_n()
    if sp.batch or m is None or m > DIRECT_B_ROWS or not n or n % width:
        return None
    if c.rhs.type.rank != 2 or [b for _, b in sp.axes] != [0] or sp.rfree != [1] or c.rhs.type.element_type != acc_t:
        return None
    buf = plain_input(fused, host, c.rhs)
    if buf is None:
        return None
    return buf, nr if n % nr == 0 else width


def _pack_window_block(g, view, Ap, bs, bidx, p0, npb, k0, kcb, kc: int, M, msz, ksz, mr, runs: int, read) -> None:
    """A convolution task's A block for K block [k0, k0 + kcb):
    Ablock[ip*MR*kc + i*kc + kk] = A[(p0 + ip)*MR + i, k0 + kk], 0 past M (the window reads): row-major
    panels with a constant row stride, so a run is a contiguous copy and the micro-kernel's MR
    broadcasts have constant offsets.

    Rows run outside K: a row's output position is decomposed once per K block. With `runs`
    (kcb is a multiple of it, see ConvGemm.run_length) K is walked as (kernel position, channel):
    the window check is made once per kernel position and the channels are one simd loop
    (contiguous in channels_last)."""
    one = g.index(1)
    zero = g.const(0.0, view.acc)
    pl, pls = g.open_for(bs, g.index(0), npb, one)
    rl, rls = g.open_for(pls, g.index(0), g.index(mr), one)
    tp, ti = pls.block.args[0], rls.block.args[0]
    row = g.addi(g.muli(g.addi(p0, tp), g.index(mr)), ti)
    inside = g.ev(arith.CmpiOp(row, M, "ult"))
    m_idx = g.delinearize(g.minui(row, g.subi(M, one)), msz)
    base = g.addi(g.muli(tp, g.index(mr * kc)), g.muli(ti, g.index(kc)))
    if runs:
        ksizes = [g.index(k) for k in view.kernel]
        if view.k_last:  # K = (position, channel): a block is kcb / C/G positions of C/G channels
            cg = g.index(view.cg)
            ql, qls = g.open_for(rls, g.index(0), g.divui(kcb, cg), one)
            q = qls.block.args[0]
            kpos = g.delinearize(g.addi(g.divui(k0, cg), q), ksizes)
            cl, cls = g.open_for(qls, g.index(0), cg, one, (), {SIMD: UnitAttr()})
            c = cls.block.args[0]
            k_idx = [*kpos, c]
            kk = g.addi(g.muli(q, cg), c)
        else:  # K = (channel, position): a block is kcb / KK channels of KK positions
            kpos_n = g.index(runs)
            ql, qls = g.open_for(rls, g.index(0), kpos_n, one)
            q = qls.block.args[0]
            kpos = g.delinearize(q, ksizes)
            cl, cls = g.open_for(qls, g.index(0), g.divui(kcb, kpos_n), one, (), {SIMD: UnitAttr()})
            c = cls.block.args[0]
            k_idx = [g.addi(g.divui(k0, kpos_n), c), *kpos]
            kk = g.addi(g.muli(c, kpos_n), q)
        val = view.lhs_at(g, bidx, m_idx, k_idx, read)
        loops = [(qls, cl, cls), (rls, ql, qls)]
    else:
        tl, tls = g.open_for(rls, g.index(0), kcb, one, (), {SIMD: UnitAttr()})
        kk = tls.block.args[0]
        val = view.lhs_at(g, bidx, m_idx, g.delinearize(g.addi(k0, kk), ksz), read)
        loops = [(rls, tl, tls)]
    val = g.ev(arith.SelectOp(inside, val, zero))
    g.emit(mapped.StoreOp(val, Ap, [g.addi(base, kk)]))
    for scope, loop, inner in loops:
        g.close_for(scope, loop, inner)
    g.close_for(pls, rl, rls)
    g.close_for(bs, pl, pls)


def _naive(g: KernelGen, c: tile.ContractOp, sp: ContractionAxes, outputs, min_work: int) -> None:
    """Integer contractions: result[b, m, n] = sum_k lhs * rhs in the accumulator type."""
    lhs, rhs = c.lhs, c.rhs
    acc_t = c.acc
    res_shape = c.result.type.get_shape()
    sizes = [g.size(c.result, a) for a in range(len(res_shape))]
    one = g.index(1)
    outer = sizes[:-1]
    if outer:
        work = g.muli(g.product(sizes), g.product([g.size(lhs, a) for a, _ in sp.axes]))
        par, ps = g.open_parallel(g.top, [g.index(0)], [g.product(outer)], [one], "cores", work, min_work)
        oidx = g.delinearize(ps.block.args[0], outer)
    else:
        par, ps, oidx = None, g.top, []
    nl, ns = g.open_for(ps, g.index(0), sizes[-1] if sizes else one, one)
    res_idx = [*oidx, ns.block.args[0]] if sizes else []
    nb = len(sp.batch)
    bidx, rest = res_idx[:nb], res_idx[nb:]
    m_idx, n_idx = rest[: len(sp.lfree)], rest[len(sp.lfree) :]
    ksz = [g.size(lhs, a) for a, _ in sp.axes]
    kl, ks = g.open_for(
        ns, g.index(0), g.product(ksz), one, [g.const(0, acc_t)], {SIMD: UnitAttr(), REDUCE_KINDS_ATTR: _kinds("add")}
    )
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
    ns.memo[(c.result, tuple(res_idx))] = acc_to_result(g, total, acc_t, c.result.type.element_type)
    for v, buf in outputs:
        g.store(g.value_at(v, res_idx), buf, res_idx, v.type.element_type)
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
