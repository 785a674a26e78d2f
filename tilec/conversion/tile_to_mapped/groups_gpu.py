"""Fusion groups -> `mapped.kernel`s for GPUs (target gpu).

Heuristics (pass options of tile-to-mapped, documented in docs/cuda.md):
- `elementwise`: one thread per V consecutive elements (V x element = 16 bytes when the row
  length allows aligned vector accesses, else 1), `threads` per block, grid = cdiv(E, threads*V).
- `rowwise` (softmax, layernorm, ...): one block per row; each reduction is a strided loop over
  the row (V-wide accesses) followed by a block reduction (warp shuffles + shared memory); the
  outputs are a second strided loop. Rows stay in L1 between the passes.
- `reduction` (non-trailing axes): one thread per output element, a sequential loop.
- `contraction`: f16/bf16 operands -> the tensor-core kernel (tilec/conversion/tile_to_mapped/gemm_gpu_simt.py) when
  the layout allows; otherwise a SIMT kernel: a 16x16 thread block computes a 64x64 tile, each
  thread a 4x4 register tile, K in steps of 16 through shared memory. With `wave 64` (AMD) the
  f16/bf16 kernel is the matrix-core (MFMA) one of tilec/conversion/tile_to_mapped/gemm_amd_mfma.py.

`wave` (32, or 64 for AMD wavefronts) is written into every kernel; block sizes are multiples of it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import IndexType, IntAttr, VectorType
from xdsl.ir import Region, SSAValue

from tilec.dialects import mapped, tile
from tilec.dialects.common import bitwidth, int_list, is_float
from tilec.conversion.builder import compute_type, neutral
from tilec.conversion.tile_to_mapped.host import HostBuilder
from tilec.conversion.tile_to_mapped.loopnest import KernelGen, Scope


@dataclass(frozen=True)
class GpuOptions:
    """Mapping knobs for GPUs (tile-to-mapped options with target=gpu)."""

    threads: int = 256  # block size of elementwise kernels
    row_threads: int = 0  # block size of rowwise kernels (0: chosen from the row length)
    vector_bytes: int = 16  # widest per-thread access
    block_m: int = 128  # tensor-core GEMM block tile
    block_n: int = 128
    block_k: int = 32
    warps_m: int = 2  # warps per block along M and N
    warps_n: int = 2
    stages: int = 4  # cp.async pipeline depth
    tensor_cores: bool = True
    wave: int = 32  # lanes per warp / wavefront (64 on AMD CDNA), written into every kernel
    mfma: str = "m32n32k8"  # matrix-core instruction shape of wave-64 contractions (or m16n16k16)


def _shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    assert isinstance(t, tile.TileType)
    return t.get_shape()


def _yielded(fused: tile.FusedOp) -> list[SSAValue]:
    y = fused.body.block.last_op
    assert isinstance(y, tile.YieldOp)
    return list(y.values)


class GpuKernelGen(KernelGen):
    """KernelGen plus GPU specifics: vector lanes, block-cooperative reductions, the launch grid."""

    def __init__(self, name: str, host: HostBuilder, fused: tile.FusedOp):
        super().__init__(name, host, fused, "gpu")
        self.lanes: dict[SSAValue, tuple[SSAValue, int, int]] = {}
        self.block_threads = 1
        self._grid_spec: list[list] = [[1], [1], [1]]
        self.row_reduce: tuple[SSAValue, list[SSAValue], int, SSAValue] | None = None  # (tid, inner sizes, V, count)
        self.row_starts: list[SSAValue] | None = None  # unrolled rows: each vector's first index
        self._lane_cache: dict = {}

    # --- lanes: V consecutive indices along the last axis handled by one thread ------------------

    def lane_index(self, base: SSAValue, lane: int, width: int) -> SSAValue:
        key = (base, lane)
        if key in self._lane_cache:
            return self._lane_cache[key]
        v = base if lane == 0 else self.ev(arith.AddiOp(base, self.index(lane)))
        self.lanes[v] = (base, lane, width)
        self._lane_cache[key] = v
        return v

    def row_lane_indices(self) -> list[SSAValue]:
        """Every element index this thread handles in an unrolled row (vector starts x lanes)."""
        width = self.row_reduce[2]
        return [self.lane_index(j0, lane, width) for j0 in self.row_starts for lane in range(width)]

    def delinearize(self, linear, sizes):
        key = ("delin", linear, tuple(sizes))
        for s in self.deepest([linear, *sizes]).chain():
            if key in s.memo:
                return s.memo[key]
        out = super().delinearize(linear, sizes)
        self.deepest([linear, *sizes]).memo[key] = out
        return out

    def load_leaf(self, arg_index: int, idx: list[SSAValue]) -> SSAValue:
        view = self.view(arg_index)
        bt = view.buf_type
        buf = self.arg_for(view.buffer)
        bidx = [idx[m] if m is not None else self._zero() for m in view.index_map]
        last = bidx[-1] if bidx else None
        shape = bt.get_shape()
        if last is not None and last in self.lanes and shape[-1] > 0:
            base, lane, width = self.lanes[last]
            nbytes = width * max(1, bitwidth(bt.element_type) // 8)
            if shape[-1] != -1 and shape[-1] % width == 0 and nbytes <= 16 and nbytes >= 4:
                vidx = [*bidx[:-1], base]
                key = ("vload", buf, tuple(vidx))
                scope = self.deepest(vidx)
                vec = None
                for s in scope.chain():
                    if key in s.memo:
                        vec = s.memo[key]
                        break
                if vec is None:
                    vec = self.ev(mapped.LoadOp(buf, vidx, VectorType(bt.element_type, [width])))
                    self.scope_of[vec].memo[key] = vec
                x = self.ev(vector.ExtractOp(vec, [lane], bt.element_type))
                return self.to_compute(x, bt.element_type)
        x = self.ev(mapped.LoadOp(buf, bidx))
        return self.to_compute(x, bt.element_type)

    def store_lanes(self, values: list[SSAValue], buffer_arg: SSAValue, idx_base: list[SSAValue]) -> None:
        """Store V lane values at idx_base, idx_base + 1, ... along the last axis."""
        bt = buffer_arg.type
        assert isinstance(bt, mapped.BufType)
        width = len(values)
        shape = bt.get_shape()
        stored = [self.to_storage(v, bt.element_type) for v in values]
        nbytes = width * max(1, bitwidth(bt.element_type) // 8)
        if width > 1 and shape and shape[-1] != -1 and shape[-1] % width == 0 and 4 <= nbytes <= 16:
            vt = VectorType(bt.element_type, [width])
            vec = self.ev(vector.BroadcastOp(stored[0], vt))
            for lane in range(1, width):
                vec = self.ev(vector.InsertOp(stored[lane], vec, [lane]))
            self.emit(mapped.StoreOp(vec, buffer_arg, idx_base))
            return
        for lane, v in enumerate(stored):
            idx = [*idx_base[:-1], self.lane_index(idx_base[-1], lane, width)] if idx_base else []
            self.emit(mapped.StoreOp(v, buffer_arg, idx))

    # --- reductions --------------------------------------------------------------------------------

    def reduce_at(self, op: tile.ReduceOp, out_idx: list[SSAValue]) -> SSAValue:
        rr = self.row_reduce
        st = op.source.type
        n = st.rank
        axes = sorted(int_list(op.axes))
        if rr is None or axes != list(range(n - len(rr[1]), n)):
            return super().reduce_at(op, out_idx)
        tid, inner_sizes, width, count = rr
        kind = op.kind.data
        ct = compute_type(st.element_type)
        fl = is_float(ct)
        init = self.const(neutral(kind, ct), ct)
        scope = self.deepest([*out_idx, tid])
        mkind = {"sum": "sum", "prod": "prod", "max": "max", "min": "min"}[kind]
        if self.row_starts is not None:
            # fully unrolled: every thread's vectors are loaded once and stay in registers
            acc = init
            for j in self.row_lane_indices():
                inner = self.delinearize(j, inner_sizes)
                acc = self._combine(kind, acc, self.value_at(op.source, [*out_idx, *inner]), fl)
            return self.emit(mapped.ReduceOp(mkind, acc, "block"), scope).results[0]
        start = self.ev(arith.MuliOp(tid, self.index(width)))
        step = self.index(self.block_threads * width)
        loop, body = self.open_for(scope, start, count, step, [init])
        j0 = body.block.args[0]
        acc = body.block.args[1]
        for lane in range(width):
            j = self.lane_index(j0, lane, width)
            inner = self.delinearize(j, inner_sizes)
            x = self.value_at(op.source, [*out_idx, *inner])
            acc = self._combine(kind, acc, x, fl)
        (partial,) = self.close_for(scope, loop, body, [acc])
        return self.emit(mapped.ReduceOp(mkind, partial, "block"), scope).results[0]

    def _combine(self, kind: str, acc: SSAValue, x: SSAValue, fl: bool) -> SSAValue:
        if kind == "sum":
            return self.ev(arith.AddfOp(acc, x) if fl else arith.AddiOp(acc, x))
        if kind == "prod":
            return self.ev(arith.MulfOp(acc, x) if fl else arith.MuliOp(acc, x))
        if fl:
            return self.ev(arith.MaximumfOp(acc, x) if kind == "max" else arith.MinimumfOp(acc, x))
        return self.ev(arith.MaxSIOp(acc, x) if kind == "max" else arith.MinSIOp(acc, x))

    # --- finishing --------------------------------------------------------------------------------

    def grid_factor(self, value: SSAValue, tile_size: int):
        """A grid factor cdiv(value, tile) for a kernel index value (a constant or an argument)."""
        c = _const(value)
        if c is not None:
            return mapped.GridFactor.constant(max(1, -(-c // tile_size)))
        assert value in self._args.values(), "grid extents must be kernel arguments or constants"
        index = list(self.block.args).index(value)
        return mapped.GridFactor.cdiv([(index, None)], tile_size)

    def finish(self) -> mapped.KernelOp:
        self.block.add_op(mapped.ReturnOp())
        smem = 0
        for op in self.block.ops:
            if isinstance(op, mapped.AllocOp) and op.result.type.space_name == "shared":
                smem += -(-(op.result.type.size_bytes() or 0) // 128) * 128
        k = mapped.KernelOp(
            self.name,
            [a.type for a in self.block.args],
            target="gpu",
            grid=self._grid_attr(),
            block=[self.block_threads, 1, 1],
            smem=smem,
            body=Region(self.block),
        )
        k.location = self.location
        return k

    def _grid_attr(self):
        return mapped.GridAttr([[f if isinstance(f, mapped.GridFactor) else mapped.GridFactor.constant(f) for f in d] for d in self._grid_spec])


def _const(v: SSAValue) -> int | None:
    from tilec.conversion.tile_to_mapped.loopnest import _const_int

    return _const_int(v)


def _vector_width(g: GpuKernelGen, fused: tile.FusedOp, last_dim: int, options: GpuOptions) -> int:
    """Lanes per thread: 16 bytes of the narrowest type in the group, if the last axis allows."""
    if last_dim <= 0:
        return 1
    widths = [bitwidth(a.type.element_type) for a in fused.body.block.args if isinstance(a.type, tile.TileType)]
    widths += [bitwidth(v.type.element_type) for v in _yielded(fused)]
    bits = max(8, min(widths) if widths else 32)
    width = max(1, (options.vector_bytes * 8) // max(bits, 8))
    width = min(width, 8)
    while width > 1 and last_dim % width:
        width //= 2
    return width


def _host_product(g: GpuKernelGen, value: SSAValue, axes: range) -> SSAValue:
    """The product of `value`'s sizes over `axes`, computed on the host, as a kernel value."""
    he = g.host.e
    p = he.product([g.host.size(value, a) for a in axes])
    c = he.const_value(p)
    if c is not None:
        return g.index(c)
    return g.arg_for(p)


def lower_group(name: str, fused: tile.FusedOp, host: HostBuilder, options: GpuOptions):
    kernel, args = _lower_group(name, fused, host, options)
    if options.wave != 32:
        kernel.properties["wave"] = IntAttr(options.wave)
    return kernel, args


def _lower_group(name: str, fused: tile.FusedOp, host: HostBuilder, options: GpuOptions):
    kind = fused.kind.data
    if kind == "contraction":
        if options.wave == 64:
            from tilec.conversion.tile_to_mapped.gemm_amd_mfma import lower_contraction_wave64

            return lower_contraction_wave64(name, fused, host, options)
        from tilec.conversion.tile_to_mapped.gemm_gpu_simt import lower_contraction

        return lower_contraction(name, fused, host, options)
    g = GpuKernelGen(name, host, fused)
    outputs = [(v, g.arg_for(host.buffer_for_result(r))) for v, r in zip(_yielded(fused), fused.outputs)]
    if kind == "rowwise":
        _rowwise(g, fused, outputs, options)
    elif kind == "reduction":
        _per_output(g, outputs, options)
    else:
        _elementwise(g, fused, outputs, options)
    return g.finish(), g.launch_args


def _domain_of(fused: tile.FusedOp) -> SSAValue:
    outs = _yielded(fused)
    return max(outs, key=lambda v: len(_shape(v)))


ELEMENTWISE_UNROLL = 4
"""Vectors per thread in elementwise kernels: several independent 16-byte loads in flight."""


def _elementwise(g: GpuKernelGen, fused: tile.FusedOp, outputs, options: GpuOptions) -> None:
    dom = _domain_of(fused)
    shape = _shape(dom)
    n = len(shape)
    width = _vector_width(g, fused, shape[-1], options) if n else 1
    threads = options.threads
    g.block_threads = threads
    sizes = [g.size(dom, a) for a in range(n)]
    total = _host_product(g, dom, range(n))
    per_block = threads * width * ELEMENTWISE_UNROLL
    g._grid_spec = [[g.grid_factor(total, per_block)], [1], [1]]
    bid = g.ev(mapped.BlockIdOp("x"))
    tid = g.ev(mapped.ThreadIdOp("x"))
    start = g.ev(arith.AddiOp(g.ev(arith.MuliOp(bid, g.index(per_block))), g.ev(arith.MuliOp(tid, g.index(width)))))
    # the block's vectors are strided by threads*width: consecutive threads, consecutive vectors.
    # Whole blocks take a fast path where every load comes before every store (the compiler
    # cannot move a load above a store to another buffer: it does not know they do not alias).
    starts = [start if u == 0 else g.ev(arith.AddiOp(start, g.index(u * threads * width))) for u in range(ELEMENTWISE_UNROLL)]
    last_end = g.ev(arith.AddiOp(starts[-1], g.index(width)))
    full = g.ev(arith.CmpiOp(last_end, total, "ule"))
    iff, body = g.open_if(g.top, full)
    pending = []
    for e0 in starts:
        base = g.delinearize(_move_to(g, e0, body), sizes) if n else []
        lanes_idx = [[*base[:-1], g.lane_index(base[-1], lane, width)] if base else [] for lane in range(width)]
        for v, buf in outputs:
            pending.append(([g.value_at(v, idx) for idx in lanes_idx], buf, base))
    for vals, buf, base in pending:
        g.store_lanes(vals, buf, base)
    g.close_if(g.top, iff)
    partial = g.ev(arith.XOrIOp(full, g.const(1, full.type)))
    iff, tail = g.open_if(g.top, partial)
    for e0 in starts:
        e_in = _move_to(g, e0, tail)
        inside = g.emit(arith.CmpiOp(e_in, total, "ult"), tail).results[0]
        jf, body = g.open_if(tail, inside)
        e_in2 = _move_to(g, e_in, body)  # every index of these elements is re-rooted in the guard
        base = g.delinearize(e_in2, sizes) if n else []
        _eval_lanes(g, outputs, base, width, body)
        g.close_if(tail, jf)
    g.close_if(g.top, iff)


def _move_to(g: GpuKernelGen, v: SSAValue, scope: Scope) -> SSAValue:
    """Re-root an index value so that ops depending on it are placed in `scope`."""
    if g.scope_of.get(v, g.top).depth >= scope.depth:
        return v
    moved = g.emit(arith.AddiOp(v, g.index(0)), scope).results[0]  # a scope-local copy
    return moved


def _eval_lanes(g: GpuKernelGen, outputs, base: list[SSAValue], width: int, scope: Scope) -> None:
    lanes_idx = []
    for lane in range(width):
        if base:
            lanes_idx.append([*base[:-1], g.lane_index(base[-1], lane, width)])
        else:
            lanes_idx.append([])
    for v, buf in outputs:
        vals = [g.value_at(v, idx) for idx in lanes_idx]
        g.store_lanes(vals, buf, base)


def _rowwise(g: GpuKernelGen, fused: tile.FusedOp, outputs, options: GpuOptions) -> None:
    red = next(op for op in fused.body.block.ops if isinstance(op, tile.ReduceOp))
    dom = red.source
    shape = _shape(dom)
    n = len(shape)
    k = n - len(red.axes)
    inner_static = 1
    for d in shape[k:]:
        inner_static = -1 if d == -1 or inner_static == -1 else inner_static * d
    width = _vector_width(g, fused, shape[-1], options)
    vectors = inner_static // width if inner_static > 0 else -1
    if options.row_threads:
        threads = options.row_threads
    elif vectors > 0:
        # about 4 vectors per thread: loads in flight for latency, small blocks for occupancy;
        # whole warps / wavefronts (multiples of options.wave)
        per_thread = -(-vectors // 4)
        w = options.wave
        threads = max(w, min(1024, (per_thread + w - 1) // w * w))
    else:
        threads = 256
    unroll = vectors // threads if vectors > 0 and vectors % threads == 0 and vectors // threads <= 32 else 0
    g.block_threads = threads
    sizes = [g.size(dom, a) for a in range(n)]
    rows = _host_product(g, dom, range(k))
    g._grid_spec = [[g.grid_factor(rows, 1)], [1], [1]]
    row = g.ev(mapped.BlockIdOp("x"))
    tid = g.ev(mapped.ThreadIdOp("x"))
    outer = g.delinearize(row, sizes[:k])
    inner_sizes = sizes[k:]
    count = g.product(inner_sizes)
    g.row_reduce = (tid, inner_sizes, width, count)
    if unroll:
        first = g.ev(arith.MuliOp(tid, g.index(width)))
        g.row_starts = [first if it == 0 else g.ev(arith.AddiOp(first, g.index(it * threads * width))) for it in range(unroll)]
    for op in fused.body.block.ops:
        if isinstance(op, tile.ReduceOp):
            g.value_at(op.result, _row_index(op.result, outer, g))
    full = [(v, b) for v, b in outputs if _shape(v) == shape and n > k]
    rowlevel = [(v, b) for v, b in outputs if (v, b) not in full]
    if rowlevel:
        # every thread evaluates (the values may need block reductions); thread 0 stores
        vals = [(g.to_storage(g.value_at(v, _row_index(v, outer, g)), b.type.element_type), v, b) for v, b in rowlevel]
        first = g.ev(arith.CmpiOp(tid, g.index(0), "eq"))
        iff, body = g.open_if(g.top, first)
        for val, v, b in vals:
            idx = [_move_to(g, i, body) for i in _row_index(v, outer, g)] or [g.index(0)] * b.type.rank
            g.emit(mapped.StoreOp(val, b, idx), body)  # (a rank-0 value lives in a one-element buffer)
        g.close_if(g.top, iff)
    if full and g.row_starts is not None:
        for j0 in g.row_starts:
            inner = g.delinearize(j0, inner_sizes)
            _eval_lanes(g, full, [*outer, *inner], width, g.top)
    elif full:
        start = g.ev(arith.MuliOp(tid, g.index(width)))
        loop, body = g.open_for(g.top, start, count, g.index(threads * width))
        j0 = body.block.args[0]
        inner = g.delinearize(j0, inner_sizes)
        _eval_lanes(g, full, [*outer, *inner], width, body)
        g.close_for(g.top, loop, body)


def _row_index(value: SSAValue, outer: list[SSAValue], g: KernelGen) -> list[SSAValue]:
    shape = _shape(value)
    non_unit = [d for d in shape if d != 1]
    it = iter(outer[len(outer) - len(non_unit):] if non_unit else [])
    return [next(it) if d != 1 else g.index(0) for d in shape]


def _per_output(g: GpuKernelGen, outputs, options: GpuOptions) -> None:
    threads = options.threads
    g.block_threads = threads
    for v, buf in outputs:
        shape = _shape(v)
        sizes = [g.size(v, a) for a in range(len(shape))]
        total = _host_product(g, v, range(len(shape)))
        g._grid_spec = [[g.grid_factor(total, threads)], [1], [1]]
        bid = g.ev(mapped.BlockIdOp("x"))
        tid = g.ev(mapped.ThreadIdOp("x"))
        e = g.ev(arith.AddiOp(g.ev(arith.MuliOp(bid, g.index(threads))), tid))
        inside = g.ev(arith.CmpiOp(e, total, "ult"))
        iff, body = g.open_if(g.top, inside)
        e_in = _move_to(g, e, body)
        idx = g.delinearize(e_in, sizes)
        g.store(g.value_at(v, idx), buf, idx)
        g.close_if(g.top, iff)


__all__ = ["GpuOptions", "GpuKernelGen", "lower_group", "IndexType"]
