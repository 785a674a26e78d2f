"""`GpuKernelGen`: the KernelGen of GPU kernels (vector lanes, block reductions, the launch grid).

Used by the GPU group lowering (groups_gpu.py) and the GPU GEMMs (gemm_gpu_simt.py,
gemm_gpu_tc.py, gemm_nv_mma.py, gemm_amd_mfma.py).
"""

from __future__ import annotations

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import VectorType, i32
from xdsl.ir import Attribute, Region, SSAValue

from tilec.conversion.builder import compute_type, neutral
from tilec.conversion.tile_to_mapped.group_info import const_index, yielded
from tilec.conversion.tile_to_mapped.host import HostBuilder
from tilec.conversion.tile_to_mapped.loopnest import KernelGen, Scope
from tilec.conversion.tile_to_mapped.options import GpuMapping
from tilec.dialects import mapped, tile
from tilec.dialects.common import bitwidth, is_float, is_unsigned


class GpuKernelGen(KernelGen):
    """KernelGen plus GPU specifics: vector lanes, block-cooperative reductions, the launch grid."""

    def __init__(self, name: str, host: HostBuilder, fused: tile.FusedOp):
        super().__init__(name, host, fused, "gpu")
        self.lanes: dict[SSAValue, tuple[SSAValue, int, int]] = {}
        self.block_threads = 1
        self._grid_spec: list[list] = [[1], [1], [1]]
        self.row_reduce: tuple[SSAValue, list[SSAValue], int, SSAValue] | None = None  # (tid, inner sizes, V, count)
        self.row_starts: list[SSAValue] | None = None  # unrolled rows: each vector's first index
        self.row_valid: list[SSAValue | None] | None = None  # per vector: its mask (None: in the row)
        # V-wide accesses of buffers whose last axis is `?`: the kernel checked it takes whole vectors
        self.dynamic_lanes = False
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
        if last is not None and last in self.lanes and shape[-1] != 0:
            base, lane, width = self.lanes[last]
            nbytes = width * max(1, bitwidth(bt.element_type) // 8)
            whole = shape[-1] % width == 0 if shape[-1] != -1 else self.dynamic_lanes
            if whole and nbytes <= 16 and nbytes >= 4:
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
                return self.to_compute(x, self.leaf_type(arg_index))
        # one load per address and scope (a row's statistic read by every element of the row)
        key = ("load", buf, tuple(bidx))
        for s in self.deepest(bidx).chain():
            if key in s.memo:
                return self.to_compute(s.memo[key], self.leaf_type(arg_index))
        x = self.ev(mapped.LoadOp(buf, bidx))
        self.scope_of[x].memo[key] = x
        return self.to_compute(x, self.leaf_type(arg_index))

    def store_lanes(
        self, values: list[SSAValue], buffer_arg: SSAValue, idx_base: list[SSAValue], elt: Attribute | None = None
    ) -> None:
        """Store V lane values (of the tile element type `elt`, default the buffer's) at idx_base,
        idx_base + 1, ... along the last axis."""
        bt = buffer_arg.type
        assert isinstance(bt, mapped.BufType)
        width = len(values)
        shape = bt.get_shape()
        stored = [self.to_storage(v, bt.element_type if elt is None else elt) for v in values]
        nbytes = width * max(1, bitwidth(bt.element_type) // 8)
        whole = bool(shape) and (shape[-1] % width == 0 if shape[-1] != -1 else self.dynamic_lanes)
        if width > 1 and whole and 4 <= nbytes <= 16:
            vt = VectorType(bt.element_type, [width])
            vec = self.ev(vector.BroadcastOp(stored[0], vt))
            for lane in range(1, width):
                vec = self.ev(vector.InsertOp(stored[lane], vec, [lane]))
            self.emit(mapped.StoreOp(vec, buffer_arg, idx_base))
            return
        for lane, v in enumerate(stored):
            # (a rank-0 value lives in a one-element buffer, at index 0)
            idx = (
                [*idx_base[:-1], self.lane_index(idx_base[-1], lane, width)] if idx_base else [self.index(0)] * bt.rank
            )
            self.emit(mapped.StoreOp(v, buffer_arg, idx))

    # --- reductions --------------------------------------------------------------------------------

    def _block_reduced(self, src: SSAValue, axes: list[int]) -> bool:
        """True when a reduction of `src` over `axes` is this rowwise kernel's block reduction."""
        rr = self.row_reduce
        n = src.type.rank
        return rr is not None and sorted(axes) == list(range(n - len(rr[1]), n))

    def arg_index_type(self, src: SSAValue, axes: list[int]) -> Attribute:
        # threads exchange 32-bit values (rows of up to 2^31 - 1 elements)
        return i32 if self._block_reduced(src, axes) else super().arg_index_type(src, axes)

    def reduce_values(self, kind, elt, src, axes, out_idx, value_of) -> SSAValue:
        if not self._block_reduced(src, axes):
            return super().reduce_values(kind, elt, src, axes, out_idx, value_of)
        tid, inner_sizes, width, count = self.row_reduce
        ct = compute_type(elt)
        fl = is_float(ct)
        init = self.const(neutral(kind, ct), ct)
        scope = self.deepest([*out_idx, tid])
        mkind = {"sum": "sum", "prod": "prod", "max": "max", "min": "min"}[kind]
        flip = is_unsigned(elt) and kind in ("max", "min")  # as KernelGen.reduce_values

        def value(idx: list[SSAValue]) -> SSAValue:
            x = value_of(idx)
            return self.flip_sign(x) if flip else x

        def finish(partial: SSAValue) -> SSAValue:
            scope = self.deepest([*out_idx, tid, partial])
            narrow = not fl and bitwidth(ct) < 32  # threads exchange 32-bit values: i8/i16 travel as i32
            if narrow:
                partial = self.emit(arith.ExtSIOp(partial, i32), scope).results[0]
            r = self.emit(mapped.ReduceOp(mkind, partial, "block"), scope).results[0]
            if narrow:  # (a sum wraps to the same low bits; max/min of sign-extended values fit)
                r = self.emit(arith.TruncIOp(r, ct), scope).results[0]
            if flip:
                r = self.emit(arith.XOrIOp(r, self.const(-(1 << (bitwidth(ct) - 1)), ct)), scope).results[0]
            return r

        if self.row_starts is not None:
            # fully unrolled: every thread's vectors are loaded once and stay in registers
            # (a vector past the row, see `row_valid`, adds the neutral element)
            acc = init
            for j0, ok in zip(self.row_starts, self.row_valid or [None] * len(self.row_starts)):
                for lane in range(width):
                    inner = self.delinearize(self.lane_index(j0, lane, width), inner_sizes)
                    x = value([*out_idx, *inner])
                    if ok is not None:
                        x = self.ev(arith.SelectOp(ok, x, init))
                    acc = self.combine(kind, acc, x, fl)
            return finish(acc)
        start = self.ev(arith.MuliOp(tid, self.index(width)))
        step = self.index(self.block_threads * width)
        loop, body = self.open_for(scope, start, count, step, [init])
        j0 = body.block.args[0]
        acc = body.block.args[1]
        for lane in range(width):
            j = self.lane_index(j0, lane, width)
            inner = self.delinearize(j, inner_sizes)
            acc = self.combine(kind, acc, value([*out_idx, *inner]), fl)
        (partial,) = self.close_for(scope, loop, body, [acc])
        return finish(partial)

    def combine(self, kind: str, acc: SSAValue, x: SSAValue, fl: bool) -> SSAValue:
        """acc (kind) x: sum, prod, or max / min (floats: NaN-propagating; ints: signed)."""
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
        c = const_index(value)
        if c is not None:
            return mapped.GridFactor.constant(max(1, -(-c // tile_size)))
        assert value in self._args.values(), "grid extents must be kernel arguments or constants"
        index = list(self.block.args).index(value)
        return mapped.GridFactor.cdiv([(index, None)], tile_size)

    def set_grid(self, x: list, y: list, z: list) -> None:
        """The launch grid: per extent, a list of factors (ints or `grid_factor(...)`s), multiplied."""
        self._grid_spec = [list(x), list(y), list(z)]

    def host_value(self, h: SSAValue) -> SSAValue:
        """A host index value inside the kernel: the constant itself, else a kernel argument."""
        cv = self.host.e.const_value(h)
        return self.index(cv) if cv is not None else self.arg_for(h)

    def move_to(self, v: SSAValue, scope: Scope) -> SSAValue:
        """Re-root an index value so that ops depending on it are placed in `scope`."""
        if self.scope_of.get(v, self.top).depth >= scope.depth:
            return v
        return self.emit(arith.AddiOp(v, self.index(0)), scope).results[0]  # a scope-local copy

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
        return mapped.GridAttr(
            [
                [f if isinstance(f, mapped.GridFactor) else mapped.GridFactor.constant(f) for f in d]
                for d in self._grid_spec
            ]
        )


def vector_width(fused: tile.FusedOp, last_dim: int, options: GpuMapping) -> int:
    """Lanes per thread: 16 bytes of the narrowest type in the group, if the last axis allows."""
    if last_dim <= 0:
        return 1
    widths = [bitwidth(a.type.element_type) for a in fused.body.block.args if isinstance(a.type, tile.TileType)]
    widths += [bitwidth(v.type.element_type) for v in yielded(fused)]
    bits = max(8, min(widths) if widths else 32)
    width = max(1, (options.vector_bytes * 8) // max(bits, 8))
    width = min(width, 8)
    while width > 1 and last_dim % width:
        width //= 2
    return width


def host_product(g: GpuKernelGen, value: SSAValue, axes: range) -> SSAValue:
    """The product of `value`'s sizes over `axes`, computed on the host, as a kernel value."""
    he = g.host.e
    p = he.product([g.host.size(value, a) for a in axes])
    c = he.const_value(p)
    if c is not None:
        return g.index(c)
    return g.arg_for(p)


__all__ = ["GpuKernelGen", "host_product", "vector_width"]
