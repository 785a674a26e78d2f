"""Lowering of the Hopper ops to hw.nv (used by mapped-to-hw-nv, sm_90a): the warp-specialized
pipeline, TMA loads, wgmma and the warpgroup accumulator's stores.

`mapped.ws_pipeline` becomes (hopper.md in the shared notes has the verified protocol):
- thread 0 initializes the stage barriers (full[s]: 1 arrival + the stage's TMA bytes, or with
  async copies one arrival per producer thread; empty[s]: one arrival per consumer thread),
  `fence.mbarrier_init`, then `bar.sync 0` for the block;
- warpgroup 0 (the producer) `setmaxnreg.dec`s; with TMA its thread 0, with async copies all
  its 128 threads loop over the K steps: wait until empty[slot] completed the phase of the
  slot's previous use (parity (round & 1) ^ 1, which a fresh barrier passes at once), then
  either `mbarrier.arrive.expect_tx` full[slot] and the TMA loads (completing on full[slot]) or
  the thread's cp.async chunks followed by `cp.async.mbarrier.arrive.noinc` full[slot]; then
  the producer warpgroup `exit`s;
- the consumers `setmaxnreg.inc` and loop over the same steps carrying their accumulator
  registers: wait for full[slot] (parity round & 1; after async copies a `fence.proxy.async`,
  since cp.async writes through the generic proxy and wgmma reads through the async one), run
  `consume` (wgmma), arrive on empty[slot].
`mapped.tma_load`: `cp.async.bulk.tensor.2d` from the kernel's tensor-map parameter for (source,
box), coordinates (column, row), into the slot's tile, completing on full[slot].
`mapped.wgmma`: shared-memory descriptors (start >> 4, LBO, SBO, 128-byte swizzle), then
`wgmma.fence`, one m64nNk16 per 64 rows and 16-deep K step, `commit_group`, `wait_group 0`.
The `wgmma` accumulator: thread t of the warpgroup (w = t / 32, g = lane / 4, q = lane % 4) holds
in tile (mi, ni) rows 64 mi + 16 w + g + 8 (j >> 1), columns 8 ni + 2 q + (j & 1), j = 0..3.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, i32, i64
from xdsl.ir import Block, Operation, Region, SSAValue

from tilec.conversion.mapped_to_hw import fragments_nv
from tilec.conversion.mapped_to_hw.fragments_nv import store_pairs
from tilec.conversion.mapped_to_hw.gpu_kernel import GpuKernelLowering
from tilec.dialects import mapped
from tilec.dialects.common import bitwidth, int_list
from tilec.dialects.hw import nv

WARPGROUP = 128
SBO = 1024  # 8 rows x 128 bytes: the distance between core-matrix row groups (every operand)
SWIZZLE_128B = 1 << 62
STAGING_BARRIER = 1
"""The named barrier (bar.sync id) of the consumer warpgroups around a staged frag_store; 0 is
the whole block's (its producer warpgroup has exited by then)."""


def _i32(k: GpuKernelLowering, v: SSAValue, before: Operation) -> SSAValue:
    return k.b.ins(arith.IndexCastOp(v, i32), before)


def _tile_address(k: GpuKernelLowering, buf: SSAValue, indices, before: Operation) -> SSAValue:
    """The i32 shared address of element `indices` of a TMA-layout buffer at the start of a
    1024-byte swizzle period (the windows wgmma and TMA use start there): no swizzle applied."""
    base, dims, _, _ = k.bufs[buf]
    off = k.linear(list(indices), dims, before)
    byte = k.b.ins(arith.MuliOp(_i32(k, off, before), k.const(bitwidth(buf.type.element_type) // 8, i32)), before)
    return k.b.ins(arith.AddiOp(base, byte), before)


def _barrier(k: GpuKernelLowering, bars: SSAValue, i: SSAValue, before: Operation) -> SSAValue:
    """The address of mbarrier number `i` (i32) of the barrier buffer."""
    base = k.bufs[bars][0]
    return k.b.ins(arith.AddiOp(base, k.b.ins(arith.MuliOp(i, k.const(8, i32)), before)), before)


def _step(k: GpuKernelLowering, op: mapped.WsPipelineOp, iv: SSAValue, before: Operation):
    """(slot, round) of the K step at `iv`, as i32."""
    i = k.b.ins(arith.DivUIOp(k.b.ins(arith.SubiOp(iv, op.lower_bound), before), op.step), before)
    s = k.index(op.stages.data)
    slot = _i32(k, k.b.ins(arith.RemUIOp(i, s), before), before)
    rnd = _i32(k, k.b.ins(arith.DivUIOp(i, s), before), before)
    return slot, rnd


def _copies(op: mapped.WsPipelineOp) -> bool:
    """Whether the produce region stages by async copies (all producer threads) rather than TMA."""
    return any(isinstance(o, mapped.AsyncCopyOp | mapped.AsyncCopyWindowOp) for o in op.produce.block.ops)


def _ws_pipeline(k: GpuKernelLowering, op: mapped.WsPipelineOp) -> None:
    stages, consumers = op.stages.data, op.consumers.data
    p_regs, c_regs = int_list(op.regs)
    copies = _copies(op)
    c = lambda v: k.const(v, i32)  # noqa: E731
    tid = _i32(k, k.tid_index(), op)
    # the barriers: thread 0 initializes them, the whole block waits. A full barrier completes on
    # one arrival plus the TMA bytes, or on one (cp.async-tracked) arrival per producer thread.
    init = k.b.guarded(op, k.b.ins(arith.CmpiOp(tid, c(0), "eq"), op))
    for s in range(stages):
        k.b.insert(nv.MbarrierInitOp(_barrier(k, op.barriers, c(s), init), WARPGROUP if copies else 1), init)
        k.b.insert(nv.MbarrierInitOp(_barrier(k, op.barriers, c(stages + s), init), consumers * WARPGROUP), init)
    k.b.insert(nv.FenceMbarrierInitOp(), init)
    k.b.insert(nv.BarSyncOp(0), op)
    wg = k.b.ins(arith.DivUIOp(tid, c(WARPGROUP)), op)
    producer = k.b.guarded(op, k.b.ins(arith.CmpiOp(wg, c(0), "eq"), op))
    k.b.insert(nv.SetmaxnregOp("dec", p_regs), producer)
    if copies:  # every producer thread copies its share of each stage
        _producer_loop(k, op, producer, copies)
    else:  # one thread issues the TMA loads
        issuer = k.b.guarded(producer, k.b.ins(arith.CmpiOp(tid, c(0), "eq"), producer))
        _producer_loop(k, op, issuer, copies)
    k.b.insert(nv.ExitOp(), producer)
    k.b.insert(nv.SetmaxnregOp("inc", c_regs), op)
    _consumer_loop(k, op, copies)
    k.dead.append(op)


def _producer_loop(k: GpuKernelLowering, op: mapped.WsPipelineOp, before: Operation, copies: bool) -> None:
    stages = op.stages.data
    body = Block(arg_types=[IndexType()])
    loop = scf.ForOp(op.lower_bound, op.upper_bound, op.step, [], Region(body))
    k.b.insert(loop, before)
    y = scf.YieldOp()
    body.add_op(y)
    slot, rnd = _step(k, op, body.args[0], y)
    parity = k.b.ins(arith.XOrIOp(k.b.ins(arith.AndIOp(rnd, k.const(1, i32)), y), k.const(1, i32)), y)
    k.b.insert(
        nv.MbarrierWaitOp(_barrier(k, op.barriers, k.b.ins(arith.AddiOp(slot, k.const(stages, i32)), y), y), parity), y
    )
    full = _barrier(k, op.barriers, slot, y)
    block = op.produce.block
    loads = [o for o in block.ops if isinstance(o, mapped.TmaLoadOp)]
    if loads:
        tx = sum(o.window[0] * o.window[1] * bitwidth(o.source.type.element_type) // 8 for o in loads)
        k.b.insert(nv.MbarrierArriveExpectTxOp(full, tx), y)
    block.args[0].replace_all_uses_with(body.args[0])
    block.args[1].replace_all_uses_with(k.b.ins(arith.IndexCastOp(slot, IndexType()), y))
    for o in list(block.ops):
        o.detach()
        if isinstance(o, mapped.YieldOp):
            o.erase()
            continue
        body.insert_op_before(o, y)
        if isinstance(o, mapped.TmaLoadOp):
            _tma_load(k, o, full)
        elif isinstance(o, mapped.AsyncCopyOp | mapped.AsyncCopyWindowOp):
            k.copy_threads[o] = WARPGROUP  # lowered later by the walk: chunks dealt to the producer
    if copies:  # this thread's arrival, once its copies of the stage have landed
        k.b.insert(nv.CpAsyncMbarrierArriveOp(full), y)


def _tma_load(k: GpuKernelLowering, op: mapped.TmaLoadOp, full: SSAValue) -> None:
    maps = k.target.tensor_maps[k.old.sym_name.data]
    key = (list(k.old.args).index(op.source), *op.window)
    tmap = k.block.args[len(k.block.args) - len(maps) + maps.index(key)]
    row, col = op.source_indices
    dst = _tile_address(k, op.dest, op.dest_indices, op)
    k.b.insert(nv.TmaLoad2dOp(dst, tmap, [_i32(k, col, op), _i32(k, row, op)], full), op)
    k.b.erase(op)


def _consumer_loop(k: GpuKernelLowering, op: mapped.WsPipelineOp, copies: bool) -> None:
    stages = op.stages.data
    inits: list[SSAValue] = []
    spans = []
    for v in op.inits:
        regs = k.lanes_of(v, op) if isinstance(v.type, mapped.FragType) else [v]
        spans.append((len(inits), len(regs)))
        inits += regs
    body = Block(arg_types=[IndexType(), *[v.type for v in inits]])
    loop = scf.ForOp(op.lower_bound, op.upper_bound, op.step, inits, Region(body))
    k.b.insert(loop, op)
    block = op.consume.block
    old_yield = block.last_op
    y = scf.YieldOp()
    body.add_op(y)
    slot, rnd = _step(k, op, body.args[0], y)
    k.b.insert(nv.MbarrierWaitOp(_barrier(k, op.barriers, slot, y), k.b.ins(arith.AndIOp(rnd, k.const(1, i32)), y)), y)
    if copies:  # cp.async writes shared memory through the generic proxy, wgmma reads it through the async one
        k.b.insert(nv.FenceProxyAsyncOp(), y)
    block.args[0].replace_all_uses_with(body.args[0])
    block.args[1].replace_all_uses_with(k.b.ins(arith.IndexCastOp(slot, IndexType()), y))
    for (start, n), arg, res in zip(spans, block.args[2:], op.res):
        if isinstance(arg.type, mapped.FragType):
            k.lanes[arg] = list(body.args[1 + start : 1 + start + n])
            k.lanes[res] = list(loop.results[start : start + n])
        else:
            arg.replace_all_uses_with(body.args[1 + start])
            res.replace_all_uses_with(loop.results[start])
    mmas = []
    for o in list(block.ops):
        if o is old_yield:
            continue
        o.detach()
        body.insert_op_before(o, y)
        if isinstance(o, mapped.WgmmaOp):
            _wgmma(k, o)
            mmas.append(o)
    empty = _barrier(k, op.barriers, k.b.ins(arith.AddiOp(slot, k.const(stages, i32)), y), y)
    k.b.insert(nv.MbarrierArriveOp(empty), y)
    vals: list[SSAValue] = []
    for v in old_yield.values:
        vals += k.lanes_of(v, old_yield) if isinstance(v.type, mapped.FragType) else [v]
    k.b.insert(scf.YieldOp(*vals), y)
    k.b.erase(y)
    k.b.erase(old_yield)
    for o in reversed(mmas):  # lowered: their results live on as registers
        k.b.erase(o)


def _descriptor(k: GpuKernelLowering, addr: SSAValue, lbo: int, before: Operation) -> SSAValue:
    """The 64-bit wgmma matrix descriptor of a 128-byte-swizzled tile at shared address `addr`."""
    ins = lambda o: k.b.ins(o, before)  # noqa: E731
    start = ins(arith.AndIOp(ins(arith.ShRUIOp(ins(arith.ExtUIOp(addr, i64)), k.const(4, i64))), k.const(0x3FFF, i64)))
    return ins(arith.OrIOp(start, k.const(SWIZZLE_128B | (SBO >> 4) << 32 | (lbo >> 4) << 16, i64)))


def _wgmma(k: GpuKernelLowering, op: mapped.WgmmaOp) -> None:
    """fence; per 16-deep K step and 64-row tile one wgmma.mma_async m64nNk16; commit; wait 0."""
    m, n = op.acc.type.get_shape()
    elt = str(op.lhs.type.element_type)
    # K-major tiles (A [M, 64], B stored N x K [N, 64]): a 16-deep K step is 32 bytes along the
    # row. MN-major 64-wide panels (B stored K x N, A stored K x M): LBO = the next panel, a
    # 16-deep K step is 16 rows = 2048 bytes. Either way the next 64 rows of A are 8192 bytes on.
    lbo_a, a_step = (64 * 128, 128) if op.is_lhs_transposed else (16, 2)
    a = _descriptor(k, _tile_address(k, op.lhs, op.lhs_indices, op), lbo_a, op)
    lbo_b, b_step = (16, 2) if op.is_transposed else (64 * 128, 128)
    b = _descriptor(k, _tile_address(k, op.rhs, op.rhs_indices, op), lbo_b, op)
    regs = list(k.lanes_of(op.acc, op))
    per_tile = n // 2  # accumulator registers of one m64nN tile
    k.b.insert(nv.WgmmaFenceOp(), op)
    for kk in range(mapped.WgmmaOp.K // 16):
        bd = k.b.ins(arith.AddiOp(b, k.const(b_step * kk, i64)), op) if kk else b
        for mi in range(m // 64):
            off = a_step * kk + mi * 64 * 128 // 16
            ad = k.b.ins(arith.AddiOp(a, k.const(off, i64)), op) if off else a
            acc = regs[mi * per_tile : (mi + 1) * per_tile]
            trans = {"trans_a": int(op.is_lhs_transposed), "trans_b": int(not op.is_transposed)}
            w = nv.WgmmaMmaAsyncOp(f"m64n{n}k16", ("f32", elt, elt), ad, bd, acc, **trans)
            regs[mi * per_tile : (mi + 1) * per_tile] = list(k.b.insert(w, op).results)
    k.b.insert(nv.WgmmaCommitGroupOp(), op)
    k.b.insert(nv.WgmmaWaitGroupOp(0), op)
    k.lanes[op.result] = regs


def frag_store_wgmma(k: GpuKernelLowering, op: mapped.FragStoreOp) -> None:
    """Each thread stores its two adjacent columns per (tile, row half) of a warpgroup's
    accumulator; one 4- or 8-byte store when the destination's rows have an even static length.
    Staged (`via`): those pairs go to the warpgroup's rows of the staging buffer instead, and
    the warpgroup then copies its tile out in 16-byte chunks (`_copy_out`)."""
    rows, cols = op.value.type.get_shape()
    ins = lambda o: k.b.ins(o, op)  # noqa: E731
    ci = k.index
    lane = k.lane_index()
    w = ins(arith.RemUIOp(ins(arith.DivUIOp(k.tid_index(), ci(32))), ci(4)))
    r_lane = ins(arith.AddiOp(ins(arith.MuliOp(w, ci(16))), ins(arith.DivUIOp(lane, ci(4)))))
    c_lane = ins(arith.MuliOp(ins(arith.RemUIOp(lane, ci(4))), ci(2)))
    nt = cols // 8
    pairs = []
    for mi in range(rows // 64):
        for ni in range(nt):
            for half in range(2):
                first = (mi * nt + ni) * 4 + 2 * half
                pairs.append((mi * 64 + 8 * half, ni * 8, first))
    if not op.staging:
        store_pairs(k, op, r_lane, c_lane, pairs)
        return
    pipe = op.value.owner
    assert isinstance(pipe, mapped.WsPipelineOp)  # the verifier's rule
    threads = pipe.consumers.data * WARPGROUP
    eb = bitwidth(op.dest.type.element_type) // 8
    pitch = mapped.FragStoreOp.staging_pitch(cols, eb)
    c32 = lambda v: k.const(v, i32)  # noqa: E731
    consumer = ins(arith.SubiOp(_i32(k, ins(arith.DivUIOp(k.tid_index(), ci(WARPGROUP))), op), c32(1)))
    bases = [k.bufs[b][0] for b in op.staging]
    if len(bases) == 1:  # the consumers' tiles one after the other
        region = ins(arith.AddiOp(bases[0], ins(arith.MuliOp(consumer, c32(rows * pitch)))))
    else:  # one buffer per consumer
        region = bases[0]
        for c, b in enumerate(bases[1:], 1):
            region = ins(arith.SelectOp(ins(arith.CmpiOp(consumer, c32(c), "eq")), b, region))

    def sink(anchor: Operation, r: SSAValue, c: SSAValue, packed: list[SSAValue]) -> None:
        off = k.b.ins(arith.MuliOp(_i32(k, r, anchor), c32(pitch)), anchor)
        off = k.b.ins(arith.AddiOp(off, k.b.ins(arith.MuliOp(_i32(k, c, anchor), c32(eb)), anchor)), anchor)
        k.b.insert(nv.StOp("shared", k.b.ins(arith.AddiOp(region, off), anchor), packed), anchor)

    k.b.insert(nv.BarSyncOp(STAGING_BARRIER, threads), op)  # every consumer is done reading the ring
    store_pairs(k, op, r_lane, c_lane, pairs, sink)
    k.b.insert(nv.BarSyncOp(STAGING_BARRIER, threads), op)  # the tile is in shared memory
    _copy_out(k, op, region, rows, cols, pitch)


def _copy_out(k: GpuKernelLowering, op: mapped.FragStoreOp, region: SSAValue, rows: int, cols: int, pitch: int):
    """A warpgroup's staged rows x cols tile (at shared address `region`, rows `pitch` bytes
    apart) to the destination: 16-byte chunks dealt round-robin to its 128 threads (a warp writes
    512 contiguous bytes of a row, or whole rows), each stored if inside the destination (rows
    are whole chunks: the verifier's rule). A destination whose base is not 16-byte aligned (a
    view that starts anywhere) takes the same chunks element by element."""
    dt = op.dest.type.element_type
    eb = bitwidth(dt) // 8
    vec = 16 // eb
    cpr = cols // vec  # chunks per row
    idx = list(op.indices)
    lead, r0, c0 = idx[:-2], idx[-2], idx[-1]
    ins = lambda o: k.b.ins(o, op)  # noqa: E731
    ci = k.index
    base = k.bufs[op.dest][0]
    aligned = ins(arith.CmpiOp(ins(arith.AndIOp(base, k.const(15, i64))), k.const(0, i64), "eq"))
    t = ins(arith.RemUIOp(k.tid_index(), ci(WARPGROUP)))
    for it in range(rows * cpr // WARPGROUP):
        i = ins(arith.AddiOp(t, ci(it * WARPGROUP)))
        row, ch = ins(arith.DivUIOp(i, ci(cpr))), ins(arith.RemUIOp(i, ci(cpr)))
        grow, gcol = ins(arith.AddiOp(r0, row)), ins(arith.AddiOp(c0, ins(arith.MuliOp(ch, ci(vec)))))
        src = ins(arith.AddiOp(ins(arith.MuliOp(row, ci(pitch))), ins(arith.MuliOp(ch, ci(16)))))
        src = ins(arith.AddiOp(region, _i32(k, src, op)))
        at = k.b.guarded(op, k.in_bounds(op.dest, grow, gcol, op))
        dst = k.address(op.dest, [*lead, grow, gcol], at)[0]
        wide, narrow = Block([scf.YieldOp()]), Block([scf.YieldOp()])
        k.b.insert(scf.IfOp(aligned, [], Region(wide), Region(narrow)), at)
        vals = k.b.insert(nv.LdOp("shared", src, i32, width=4), wide.last_op).results
        k.b.insert(nv.StOp("global", dst, list(vals)), wide.last_op)
        for e in range(vec):
            v = k.b.insert(nv.LdOp("shared", src, dt, offset=e * eb), narrow.last_op).results[0]
            k.b.insert(nv.StOp("global", dst, [v], offset=e * eb), narrow.last_op)


def _frag_store(k: GpuKernelLowering, op: mapped.FragStoreOp) -> None:
    if op.value.type.instr.data == "wgmma":
        frag_store_wgmma(k, op)
    else:
        fragments_nv.LOWERINGS[mapped.FragStoreOp](k, op)


def _warpgroup_id(k: GpuKernelLowering, op: mapped.WarpgroupIdOp) -> None:
    k.b.replace(op, [arith.DivUIOp(k.tid_index(), k.index(WARPGROUP))])


LOWERINGS = {
    **fragments_nv.LOWERINGS,
    mapped.FragStoreOp: _frag_store,
    mapped.WsPipelineOp: _ws_pipeline,
    mapped.WarpgroupIdOp: _warpgroup_id,
}

__all__ = ["LOWERINGS", "frag_store_wgmma"]
