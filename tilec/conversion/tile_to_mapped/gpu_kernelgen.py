"""`GpuKernelGen`: the KernelGen of GPU kernels (vector lanes, block reductions, the launch grid).

Used by the GPU group lowering (groups_gpu.py) and the GPU GEMMs (gemm_gpu_simt.py,
gemm_gpu_tc.py, gemm_nv_mma.py, gemm_amd_mfma.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf, vector
from xdsl.dialects.builtin import VectorType, i1, i32, i64
from xdsl.ir import Attribute, Block, Region, SSAValue

from tilec.conversion.builder import compute_type, neutral
from tilec.conversion.tile_to_mapped.group_info import const_index, tile_shape, yielded
from tilec.conversion.tile_to_mapped.host import HostBuilder
from tilec.conversion.tile_to_mapped.loopnest import KernelGen, Scope
from tilec.conversion.tile_to_mapped.options import GpuMapping
from tilec.dialects import mapped, tile
from tilec.dialects.common import bitwidth, int_list, is_float, is_unsigned

ARG_UNROLL = 4
"""Vectors (or elements) each thread of a one-pass arg-reduction loads per loop step."""


@dataclass
class RowGroup:
    """A row held by a group of `lanes` lanes (a power of two, aligned in the warp): this lane's
    elements as (index along the row, i1 "is a real element" or None when always). Reductions
    along the row combine the lane's elements (padding gives the neutral value), then xor
    butterflies over the group (`mapped.shuffle_xor`)."""

    lanes: int
    elements: list[tuple[SSAValue, SSAValue | None]]


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
        self._lane_cache: dict = {}
        # lane indices of a last axis of dynamic size take vector accesses too: set while building
        # a path the kernel guards itself (aligned buffers, a row length that V divides)
        self.dynamic_vectors = False
        self.row_group: RowGroup | None = None  # rows held by lane groups (register sorts)
        self.attrs: dict[str, Attribute] = {}  # discardable attributes of the kernel (how it is mapped)

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
        if last is not None and last in self.lanes and (shape[-1] > 0 or self.dynamic_vectors):
            base, lane, width = self.lanes[last]
            nbytes = width * max(1, bitwidth(bt.element_type) // 8)
            if self._vector_ok(shape[-1], width) and nbytes <= 16 and nbytes >= 4:
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
        if width > 1 and shape and self._vector_ok(shape[-1], width) and 4 <= nbytes <= 16:
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

    def _vector_ok(self, last: int, width: int) -> bool:
        """Whether rows of length `last` (-1: dynamic) take `width`-lane vector accesses."""
        if last == -1:
            return self.dynamic_vectors
        return last % width == 0

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
        if self.row_group is not None:
            return self._group_reduce(kind, elt, out_idx, value_of)
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

    # --- paths the kernel chooses at run time ----------------------------------------------------

    def if_values(self, scope: Scope, cond: SSAValue, types: list[Attribute], then_fn, else_fn) -> list[SSAValue]:
        """`scf.if cond` in `scope` yielding `types`: `then_fn(inner)` / `else_fn(inner)` build each
        branch and return its values (indices they re-root with `move_to` keep their loads
        inside the branch)."""
        iff = scf.IfOp(cond, types, Region(Block()), Region(Block()))
        self.emit(iff, scope)
        scope.anchors.append(iff)
        for region, fn in ((iff.true_region, then_fn), (iff.false_region, else_fn)):
            inner = Scope(region.block, scope)
            self.open_scopes.append(inner)
            vals = fn(inner)
            self.open_scopes.remove(inner)
            region.block.add_op(scf.YieldOp(*vals))
        scope.anchors.pop()
        return list(iff.results)

    def vectorized(self, build, *args):
        """`build(*args)` with lane indices of dynamic-size rows taking vector accesses (the
        caller checked alignment and divisibility in the kernel)."""
        saved = self.dynamic_vectors
        self.dynamic_vectors = True
        try:
            return build(*args)
        finally:
            self.dynamic_vectors = saved

    def widest_input_bytes(self) -> int:
        """Bytes of the widest element of the group's array inputs (at least 1)."""
        sizes = [
            bitwidth(a.type.element_type) // 8 for a in self.fused.body.block.args if isinstance(a.type, tile.TileType)
        ]
        return max([1, *sizes])

    def row_buffers(self, src: SSAValue) -> list[SSAValue]:
        """The kernel arguments of the group's array inputs (what a vector path reads)."""
        out = []
        for i, a in enumerate(self.fused.body.block.args):
            if isinstance(a.type, tile.TileType) and a.uses:
                out.append(self.arg_for(self.view(i).buffer))
        return list(dict.fromkeys(out))

    # --- arg-reductions of rows: one pass for the index and the value -------------------------------

    def _arg_pair_ok(self, src: SSAValue, axes: list[int]) -> bool:
        """A block-reduced arg-reduction of 32-bit (or narrower) values: `arg_pair` computes it."""
        ct = compute_type(src.type.element_type)
        return self._block_reduced(src, axes) and bitwidth(ct) <= 32 and ct != i1

    def _has_arg_reduction(self, kind: str, src: SSAValue, axes: list[int]) -> bool:
        arg = {"max": "argmax", "min": "argmin"}.get(kind)
        return any(
            isinstance(op, tile.ReduceOp)
            and op.kind.data == arg
            and op.source == src
            and sorted(int_list(op.axes)) == sorted(axes)
            for op in self.fused.body.block.ops
        )

    def shared_reduction(self, kind: str, src: SSAValue, axes: list[int], out_idx: list[SSAValue]) -> SSAValue:
        # a max (min) beside an argmax (argmin) of the same rows: both from one pass
        if kind in ("max", "min") and self._arg_pair_ok(src, axes) and self._has_arg_reduction(kind, src, axes):
            return self.arg_pair("arg" + kind, src, axes, out_idx)[0]
        return super().shared_reduction(kind, src, axes, out_idx)

    def arg_reduce_at(self, op: tile.ReduceOp, out_idx: list[SSAValue]) -> SSAValue:
        src, axes = op.source, sorted(int_list(op.axes))
        if not self._arg_pair_ok(src, axes):
            return super().arg_reduce_at(op, out_idx)
        i = self.arg_pair(op.kind.data, src, axes, out_idx)[1]
        return self.emit(arith.ExtSIOp(i, i64), self.scope_of[i]).results[0]

    def arg_pair(self, kind: str, src: SSAValue, axes: list[int], out_idx: list[SSAValue]) -> tuple[SSAValue, SSAValue]:
        """(value, i32 index) of an argmax / argmin of block-reduced rows in ONE pass over the row:
        each thread keeps its best (value, index), its elements visited in increasing index order
        (a strictly better value replaces: the first index wins ties; a NaN beats any number and
        the first NaN wins: numpy's rule); one block max of a 64-bit key (an order-preserving
        encoding of the value, NaN highest, -0 = +0, then the complemented index) picks the
        winner, and a second block reduction hands the winner's value to every thread: the
        max (min) is the element at the argmax (argmin). Rows of dynamic length are read with
        vector loads when the buffers are aligned and V divides the length (checked in the
        kernel), ARG_UNROLL loads in flight per thread."""
        key = ("argpair", kind, src, tuple(axes), tuple(out_idx))
        for s in self.deepest(out_idx).chain():
            if key in s.memo:
                return s.memo[key]
        tid, inner_sizes, width, count = self.row_reduce
        elt = src.type.element_type
        ct = compute_type(elt)
        fl = is_float(ct)
        unsigned = is_unsigned(elt)
        scope = self.deepest([*out_idx, tid])
        is_max = kind == "argmax"
        worst = self.const(neutral("max" if is_max else "min", ct), ct)
        none = self.const(-1, i32)
        threads = self.block_threads

        def update(acc: list[SSAValue], x: SSAValue, j: SSAValue, valid: SSAValue) -> list[SSAValue]:
            v, i = acc
            if fl:
                cmp = self.ev(arith.CmpfOp(x, v, "ogt" if is_max else "olt"))
                nan = self.ev(arith.AndIOp(self.ev(arith.CmpfOp(x, x, "uno")), self.ev(arith.CmpfOp(v, v, "ord"))))
                cmp = self.ev(arith.OrIOp(cmp, nan))
            else:
                pred = ("ugt" if is_max else "ult") if unsigned else ("sgt" if is_max else "slt")
                cmp = self.ev(arith.CmpiOp(x, v, pred))
            first = self.ev(arith.CmpiOp(i, none, "eq"))
            take = self.ev(arith.AndIOp(valid, self.ev(arith.OrIOp(first, cmp))))
            ji = self.ev(arith.IndexCastOp(j, i32))
            return [self.ev(arith.SelectOp(take, x, v)), self.ev(arith.SelectOp(take, ji, i))]

        def row_loop(sc: Scope, vec: int) -> list[SSAValue]:
            """This thread's best (value, index) over its elements: vectors of `vec` lanes (1:
            scalars), ARG_UNROLL of them per step, strided by the block."""
            per = threads * vec
            start = self.ev(arith.MuliOp(self.move_to(tid, sc), self.index(vec)))
            loop, body = self.open_for(sc, start, count, self.index(per * ARG_UNROLL), [worst, none])
            acc = list(body.block.args[1:])
            j0 = body.block.args[0]
            last = self.subi(count, self.index(vec))
            for u in range(ARG_UNROLL):
                ju = self.ev(arith.AddiOp(j0, self.index(u * per))) if u else j0
                valid = self.ev(arith.CmpiOp(ju, count, "ult"))
                jc = self.ev(arith.MinUIOp(ju, last))  # in bounds: read, then ignored
                for lane in range(vec):
                    j = self.lane_index(jc, lane, vec) if vec > 1 else jc
                    jl = self.ev(arith.AddiOp(ju, self.index(lane))) if lane else ju
                    x = self.value_at(src, [*out_idx, *self.delinearize(j, inner_sizes)])
                    acc = update(acc, x, jl, valid)
            return self.close_for(sc, loop, body, acc)

        vec = 16 // self.widest_input_bytes() if len(inner_sizes) == 1 else 1
        vec = max(1, min(vec, 8))
        static = const_index(count)
        if vec > 1 and static is not None and static % vec == 0 and width > 1:
            best = row_loop(scope, vec)  # a static row: aligned as every static vector access
        elif vec > 1 and static is None:
            ok = self.ev(arith.CmpiOp(self.remui(count, self.index(vec)), self.index(0), "eq"))
            for b in self.row_buffers(src):
                ok = self.ev(arith.AndIOp(ok, self.ev(mapped.IsAlignedOp(b, 16))))
            best = self.if_values(
                scope, ok, [ct, i32], lambda sc: self.vectorized(row_loop, sc, vec), lambda sc: row_loop(sc, 1)
            )
        else:
            best = row_loop(scope, 1)
        v, i = best
        if fl:
            bits = self.ev(arith.BitcastOp(v, i32))
            zero = self.ev(arith.CmpfOp(v, self.const(0.0, ct), "oeq"))
            bits = self.ev(arith.SelectOp(zero, self.const(0, i32), bits))  # -0 ties with +0
            neg = self.ev(arith.CmpiOp(bits, self.const(0, i32), "slt"))
            order = self.ev(
                arith.SelectOp(
                    neg,
                    self.ev(arith.XOrIOp(bits, self.const(-1, i32))),
                    self.ev(arith.XOrIOp(bits, self.const(-(2**31), i32))),
                )
            )
        else:
            wide = self.ev((arith.ExtUIOp if unsigned else arith.ExtSIOp)(v, i32)) if bitwidth(ct) < 32 else v
            order = wide if unsigned else self.ev(arith.XOrIOp(wide, self.const(-(2**31), i32)))
        good = order if is_max else self.ev(arith.XOrIOp(order, self.const(-1, i32)))
        if fl:
            good = self.ev(arith.SelectOp(self.ev(arith.CmpfOp(v, v, "uno")), self.const(-1, i32), good))
        hi = self.ev(
            arith.ShLIOp(
                self.ev(arith.ExtSIOp(self.ev(arith.XOrIOp(good, self.const(-(2**31), i32))), i64)), self.const(32, i64)
            )
        )
        lo = self.ev(arith.ExtUIOp(self.ev(arith.XOrIOp(i, self.const(-1, i32))), i64))
        k = self.ev(arith.OrIOp(hi, lo))
        k = self.ev(arith.SelectOp(self.ev(arith.CmpiOp(i, none, "eq")), self.const(-(2**63), i64), k))
        kmax = self.emit(mapped.ReduceOp("max", k, "block"), scope).results[0]
        index = self.ev(arith.XOrIOp(self.ev(arith.TruncIOp(kmax, i32)), self.const(-1, i32)))
        mine = self.ev(arith.CmpiOp(k, kmax, "eq"))
        red = "max" if is_max else "min"
        exch = i32 if not fl and bitwidth(ct) < 32 else ct
        cand = self.ev(arith.SelectOp(mine, v, worst))
        cand = cand if exch == ct else self.ev(arith.ExtSIOp(cand, exch))
        value = self.emit(mapped.ReduceOp(red, cand, "block"), scope).results[0]
        value = value if exch == ct else self.ev(arith.TruncIOp(value, ct))
        out = (value, index)
        self.scope_of.get(index, self.top).memo[key] = out
        return out

    def _group_reduce(self, kind, elt, out_idx, value_of) -> SSAValue:
        """The reduction of a row held by a lane group (`row_group`; one row axis): the lane's
        elements (padding: neutral), then a butterfly of shuffles across the group."""
        ct = compute_type(elt)
        fl = is_float(ct)
        init = self.const(neutral(kind, ct), ct)
        flip = is_unsigned(elt) and kind in ("max", "min")  # as KernelGen.reduce_values
        xs = []
        for j, real in self.row_group.elements:
            x = value_of([*out_idx, j])
            x = self.flip_sign(x) if flip else x
            xs.append(x if real is None else self.ev(arith.SelectOp(real, x, init)))
        while len(xs) > 1:  # a balanced tree: short dependency chains
            nxt = [self.combine(kind, xs[i], xs[i + 1], fl) for i in range(0, len(xs) - 1, 2)]
            xs = nxt + ([xs[-1]] if len(xs) % 2 else [])
        acc = xs[0]
        narrow = not fl and bitwidth(ct) < 32  # shuffles move 32- or 64-bit values
        if narrow:
            acc = self.ev(arith.ExtSIOp(acc, i32))
        m = self.row_group.lanes // 2
        while m >= 1:
            acc = self.combine(kind, acc, self.ev(mapped.ShuffleXorOp(acc, m)), fl)
            m //= 2
        if narrow:
            acc = self.ev(arith.TruncIOp(acc, ct))
        return self.flip_sign(acc) if flip else acc

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
        k.attributes |= self.attrs
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


def row_index(value: SSAValue, outer: list[SSAValue], g: KernelGen, n: int) -> list[SSAValue]:
    """The index of a row-level `value` at the current row (`outer`: the indices of the n-axis
    domain's first len(outer) axes). A value of rank <= len(outer) aligns its trailing axes with
    the outer ones (numpy broadcasting among row values; a reduction without keepdims has exactly
    the outer axes); a higher-rank one aligns with the whole domain (keepdims). Unit axes read 0.
    (Matching by position matters: a (2, 1, 41) row max has outer axes (2, 1), and pairing its
    non-unit axis with the last outer index read row 0 for every row.)"""
    shape = tile_shape(value)
    k = len(outer)
    off = k - len(shape) if len(shape) <= k else n - len(shape)
    return [outer[off + i] if d != 1 and 0 <= off + i < k else g.index(0) for i, d in enumerate(shape)]


__all__ = ["GpuKernelGen", "RowGroup", "host_product", "row_index", "vector_width"]
