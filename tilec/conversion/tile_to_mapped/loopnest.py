"""Building a kernel's loop nests and evaluating a fusion group's values at an index.

`KernelGen` owns one `mapped.kernel` under construction:
- kernel arguments are created on demand (`buffer_arg`, `size`), each remembering the host value
  the launch must pass;
- *scopes* are the kernel body and loop bodies. An op is placed in the deepest scope among the
  scopes of its operands, so a value that only depends on a row index is computed once per row,
  before the row's inner loops, even when it is first needed inside them;
- `value_at(v, idx)` computes the tile value `v` of the group at a multi-index, as scalar
  arith/math ops (16-bit floats in f32), inlining elementwise chains, broadcasts, transposes and
  reshapes, and building reduction loops for `tile.reduce`. Results are memoized per scope.

Inner loops are plain `scf.for` loops marked `tilec.simd` (and `tilec.reduce` with the combining
kind of each loop-carried value) for the C compiler to vectorize.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from xdsl.dialects import arith, math, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntegerType,
    StringAttr,
    UnitAttr,
    f32,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.traits import IsTerminator

from tilec import philox
from tilec.conversion.builder import Emitter, compute_type, is_16bit_float, neutral
from tilec.conversion.fp8_arith import ArithOps, f32_to_fp8, fp8_to_f32
from tilec.conversion.tile_to_mapped.group_info import const_index
from tilec.conversion.tile_to_mapped.host import HostBuilder, View
from tilec.conversion.tile_to_mapped.value_range import int_range
from tilec.diagnostics import NotSupportedYet, op_location
from tilec.dialects import mapped, tile
from tilec.dialects.common import DYNAMIC, bitwidth, int_list, is_float, is_unsigned, signless
from tilec.fp8 import fp8_format
from tilec.mathfns import BY_OP, SOFTPLUS_THRESHOLD, MathFn


class Scope:
    def __init__(self, block: Block, parent: Scope | None):
        self.block = block
        self.parent = parent
        self.depth = 0 if parent is None else parent.depth + 1
        self.anchors: list[Operation] = []
        self.memo: dict = {}

    def insert(self, op: Operation) -> None:
        if self.anchors:
            self.block.insert_op_before(op, self.anchors[-1])
            return
        last = self.block.last_op
        if last is not None and last.has_trait(IsTerminator):
            self.block.insert_op_before(op, last)
        else:
            self.block.add_op(op)

    def chain(self):
        s = self
        while s is not None:
            yield s
            s = s.parent


SIMD = "tilec.simd"
PRECISION_ATTR = "tilec.result_bits"
"""On a math op: the bits of precision its group's results keep (16: a 16-bit float)."""
REDUCE_KINDS_ATTR = "tilec.reduce"
MUL_WIDE = "tilec.mul_wide"
"""On an i64 `arith.muli` of a zero-extended i32 and a constant < 2^32: targets may use a 32x32 ->
64-bit multiply (PTX `mul.wide.u32`)."""


RANK_CHUNK = 32
"""Elements a top-k's rank count (GPUs) compares between checks whether it already reached k."""


class KernelGen:
    def __init__(self, name: str, host: HostBuilder, fused: tile.FusedOp, target: str = "cpu"):
        self.name = name
        self.host = host
        self.fused = fused
        self.target = target
        self.block = Block()
        self.top = Scope(self.block, None)
        self.scope_of: dict[SSAValue, Scope] = {}
        self.launch_args: list[SSAValue] = []
        self._args: dict[SSAValue, SSAValue] = {}
        self._constants = Emitter(self.block, location=fused.location)  # the kernel's one constant cache
        self.views: dict[int, View] = {}
        self.location = fused.location
        self.open_scopes: list[Scope] = [self.top]  # the loop bodies being built, innermost last
        self._scalar_values: dict = {}  # (scalar input, element type) -> its value in the kernel
        self._in_range: dict = {}  # (gather, axis) -> its indices are proven inside the axis
        # static [lo, hi) of loop indices whose loop covers a known range (a split inner loop):
        # pads and concatenations read only the input that covers the range, unclamped
        self.ranges: dict[SSAValue, tuple[int, int]] = {}

    # --- arguments ------------------------------------------------------------------------------

    def arg_for(self, host_value: SSAValue) -> SSAValue:
        """The kernel argument that receives `host_value` at launch."""
        if host_value not in self._args:
            arg = self.block.insert_arg(host_value.type, len(self.block.args))
            if host_value.name_hint:
                arg.name_hint = host_value.name_hint
            self._args[host_value] = arg
            self.launch_args.append(host_value)
            self.scope_of[arg] = self.top
        return self._args[host_value]

    def size(self, value: SSAValue, axis: int) -> SSAValue:
        """`value`'s size along `axis` inside the kernel (a constant or an index argument)."""
        h = self.host.size(value, axis)
        c = const_index(h)
        if c is not None:
            return self.index(c)
        return self.arg_for(h)

    def view(self, arg_index: int) -> View:
        if arg_index not in self.views:
            self.views[arg_index] = self.host.view_of(self.fused.inputs[arg_index])
        return self.views[arg_index]

    # --- constants and op placement -----------------------------------------------------------

    def const(self, value, t: Attribute) -> SSAValue:
        """A constant of the kernel (created once, at the top of its entry block)."""
        v = self._constants.const(value, t)
        self.scope_of.setdefault(v, self.top)
        return v

    def index(self, value: int) -> SSAValue:
        return self.const(value, IndexType())

    def deepest(self, values: Sequence[SSAValue]) -> Scope:
        best = self.top
        for v in values:
            s = self.scope_of.get(v, self.top)
            if s.depth > best.depth:
                best = s
        return best

    def emit(self, op: Operation, scope: Scope | None = None) -> Operation:
        op.location = self.location
        if scope is None:
            scope = self.deepest(op.operands)
        scope.insert(op)
        for r in op.results:
            self.scope_of[r] = scope
        return op

    def ev(self, op: Operation) -> SSAValue:
        return self.emit(op).results[0]

    # --- index arithmetic -----------------------------------------------------------------------

    def addi(self, a, b):
        ca, cb = const_index(a), const_index(b)
        if ca is not None and cb is not None:
            return self.index(ca + cb)
        if ca == 0:
            return b
        if cb == 0:
            return a
        return self.ev(arith.AddiOp(a, b))

    def muli(self, a, b):
        ca, cb = const_index(a), const_index(b)
        if ca is not None and cb is not None:
            return self.index(ca * cb)
        if ca == 1:
            return b
        if cb == 1:
            return a
        return self.ev(arith.MuliOp(a, b))

    def subi(self, a, b):
        ca, cb = const_index(a), const_index(b)
        if ca is not None and cb is not None:
            return self.index(ca - cb)
        if cb == 0:
            return a
        return self.ev(arith.SubiOp(a, b))

    def divui(self, a, b):
        ca, cb = const_index(a), const_index(b)
        if ca is not None and cb is not None:
            return self.index(ca // cb)
        if cb == 1:
            return a
        return self.ev(arith.DivUIOp(a, b))

    def remui(self, a, b):
        ca, cb = const_index(a), const_index(b)
        if ca is not None and cb is not None:
            return self.index(ca % cb)
        if cb == 1:
            return self.index(0)
        return self.ev(arith.RemUIOp(a, b))

    def minui(self, a, b):
        ca, cb = const_index(a), const_index(b)
        if ca is not None and cb is not None:
            return self.index(min(ca, cb))
        return self.ev(arith.MinUIOp(a, b))

    def product(self, values):
        out = self.index(1)
        for v in values:
            out = self.muli(out, v)
        return out

    def delinearize(self, linear, sizes):
        """Row-major multi-index of `linear` in a space of `sizes` (no index for no sizes)."""
        if not sizes:
            return []
        out, rest = [], linear
        for k in range(len(sizes) - 1, 0, -1):
            out.append(self.remui(rest, sizes[k]))
            rest = self.divui(rest, sizes[k])
        out.append(rest)
        return list(reversed(out))

    def linearize(self, idx, sizes):
        out = self.index(0)
        for i, s in zip(idx, sizes):
            out = self.addi(self.muli(out, s), i)
        return out

    # --- loops ------------------------------------------------------------------------------------

    def open_for(self, scope: Scope, lb, ub, step, iter_args=(), attrs=None) -> tuple[scf.ForOp, Scope]:
        body = Block(arg_types=[IndexType(), *[v.type for v in iter_args]])
        loop = scf.ForOp(lb, ub, step, list(iter_args), Region(body))
        if attrs:
            loop.attributes.update(attrs)
        self.emit(loop, scope)
        scope.anchors.append(loop)
        inner = Scope(body, scope)
        for a in body.args:
            self.scope_of[a] = inner
        self.open_scopes.append(inner)
        return loop, inner

    def close_for(self, scope: Scope, loop: Operation, inner: Scope, yields: Sequence[SSAValue] = ()) -> list[SSAValue]:
        inner.block.add_op(scf.YieldOp(*yields))
        assert scope.anchors and scope.anchors[-1] is loop
        scope.anchors.pop()
        self.open_scopes.remove(inner)
        return list(loop.results)

    def open_parallel(
        self, scope: Scope, lbs, ubs, steps, level: str, work: SSAValue | None = None, min_work: int = 0
    ) -> tuple[mapped.ParallelOp, Scope]:
        """A parallel loop; on cores with `work` (an index) and `min_work`, it starts the thread team
        only when work >= min_work (`if`), else it runs on the calling thread."""
        cond = None
        if work is not None and min_work > 0:
            c = const_index(work)
            if c is None:
                cond = self.ev(arith.CmpiOp(work, self.index(min_work), "uge"))
            elif c < min_work:
                cond = self.const(False, i1)
        body = Block([mapped.YieldOp()], arg_types=[IndexType()] * len(lbs))
        par = mapped.ParallelOp(lbs, ubs, steps, level, Region(body), cond)
        self.emit(par, scope)
        scope.anchors.append(par)
        inner = Scope(body, scope)
        for a in body.args:
            self.scope_of[a] = inner
        self.open_scopes.append(inner)
        return par, inner

    def open_if(self, scope: Scope, cond: SSAValue) -> tuple[scf.IfOp, Scope]:
        """`scf.if cond` (no results) in `scope`; ops the body needs from `scope` go before it."""
        iff = scf.IfOp(cond, [], Region(Block([scf.YieldOp()])))
        self.emit(iff, scope)
        scope.anchors.append(iff)
        return iff, Scope(iff.true_region.block, scope)

    def open_if_else(self, scope: Scope, cond: SSAValue, else_values: Sequence[SSAValue]) -> tuple[scf.IfOp, Scope]:
        """`scf.if cond` with results, the else branch yielding `else_values`; close with
        `close_if_else`, which gives the results."""
        iff = scf.IfOp(cond, [v.type for v in else_values], Region(Block()), Region(Block([scf.YieldOp(*else_values)])))
        self.emit(iff, scope)
        scope.anchors.append(iff)
        return iff, Scope(iff.true_region.block, scope)

    def close_if_else(
        self, scope: Scope, iff: scf.IfOp, inner: Scope, then_values: Sequence[SSAValue]
    ) -> list[SSAValue]:
        inner.block.add_op(scf.YieldOp(*then_values))
        assert scope.anchors and scope.anchors[-1] is iff
        scope.anchors.pop()
        return list(iff.results)

    def close_if(self, scope: Scope, iff: Operation) -> None:
        assert scope.anchors and scope.anchors[-1] is iff
        scope.anchors.pop()

    def close_parallel(self, scope: Scope, par: Operation) -> None:
        assert scope.anchors and scope.anchors[-1] is par
        scope.anchors.pop()
        self.open_scopes = [s for s in self.open_scopes if s.block is not par.body.block]

    # --- storage <-> compute types ------------------------------------------------------------------

    def to_compute(self, x: SSAValue, storage: Attribute) -> SSAValue:
        """A loaded element in its compute type; `storage` is the buffer's element type or the
        tile element type (they differ for fp8 only: an i8 code decoded to f32)."""
        fmt = fp8_format(storage)
        if fmt is not None:
            return fp8_to_f32(ArithOps(self.ev, self.const), x, fmt)
        ct = compute_type(storage)
        if ct != signless(storage):
            return self.ev(arith.ExtFOp(x, ct))
        return x

    def to_storage(self, x: SSAValue, storage: Attribute) -> SSAValue:
        """A computed value as a buffer stores it; `storage` as in `to_compute` (fp8: the i8 code)."""
        fmt = fp8_format(storage)
        if fmt is not None:
            return f32_to_fp8(ArithOps(self.ev, self.const), x, fmt)
        if x.type != signless(storage):
            return self.ev(arith.TruncFOp(x, storage))
        return x

    def fp8_round(self, x: SSAValue, fmt) -> SSAValue:
        """An f32 value rounded to the fp8 format, in f32 (encode, then decode: exact)."""
        ops = ArithOps(self.ev, self.const)
        return fp8_to_f32(ops, f32_to_fp8(ops, x, fmt), fmt)

    def leaf_type(self, arg_index: int) -> Attribute:
        """The tile element type of the group's input `arg_index` (its buffer holds fp8 as i8)."""
        return self.fused.body.block.args[arg_index].type.element_type

    # --- evaluation ---------------------------------------------------------------------------------

    def value_at(self, v: SSAValue, idx: Sequence[SSAValue]) -> SSAValue:
        """`v` at `idx`. A value memoized in any scope that is open now is reused, also when it
        sits deeper than `idx` needs (e.g. the GEMM accumulator of the current element)."""
        key = (v, tuple(idx))
        target = self.deepest(idx)
        chain = list(self.open_scopes[-1].chain())
        if target not in chain:
            chain = list(target.chain())
        for s in chain:
            if key in s.memo:
                return s.memo[key]
        out = self._compute(v, list(idx))
        self.scope_of.get(out, self.top).memo[key] = out
        return out

    def _zero(self):
        return self.index(0)

    def _compute(self, v: SSAValue, idx: list[SSAValue]) -> SSAValue:
        if isinstance(v, BlockArgument) and v.owner is self.fused.body.block:
            return self.load_leaf(v.index, idx)
        op = v.owner
        t = v.type
        assert isinstance(t, tile.TileType)
        elt = t.element_type
        ct = compute_type(elt)
        if isinstance(op, tile.ConstantOp):
            value = op.splat_value()
            if value is None:
                raise NotSupportedYet("dense constants in compiled kernels", op_location(op))
            return self.const(value, ct)
        if isinstance(op, tile.SplatOp):
            return self.scalar_value(op.scalar, elt)
        if isinstance(op, tile.IotaOp):
            i = idx[op.axis.data]
            as_int = self.ev(arith.IndexCastOp(i, i64))
            if fp8_format(elt) is not None:  # rounded to fp8, as tile.cast rounds
                return self._cast(as_int, i64, elt)
            if is_float(ct):
                return self.ev(arith.SIToFPOp(as_int, ct))
            if ct != i64:
                return self.ev(arith.TruncIOp(as_int, ct))
            return as_int
        if isinstance(op, tile.RandomBitsOp):
            return self._random_bits_at(op, idx)
        if isinstance(op, tile.UnaryOp):
            return self._unary(op, self.value_at(op.operand, idx), ct)
        if isinstance(op, tile.BinaryOp):
            return self._binary(op, self.value_at(op.lhs, idx), self.value_at(op.rhs, idx), ct)
        if isinstance(op, tile.CmpOp):
            a, b = self.value_at(op.lhs, idx), self.value_at(op.rhs, idx)
            src = op.lhs.type.element_type
            pred = op.predicate.data
            if is_float(src):
                fpred = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}[pred]
                return self.ev(arith.CmpfOp(a, b, fpred))
            ipred = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}[pred]
            if is_unsigned(src) and ipred[0] == "s":
                ipred = "u" + ipred[1:]
            return self.ev(arith.CmpiOp(a, b, ipred))
        if isinstance(op, tile.SelectOp):
            c = self.value_at(op.cond, idx)
            return self.ev(arith.SelectOp(c, self.value_at(op.true_value, idx), self.value_at(op.false_value, idx)))
        if isinstance(op, tile.CastOp):
            return self._cast(self.value_at(op.source, idx), op.source.type.element_type, elt)
        if isinstance(op, tile.BitcastOp):
            return self._bitcast(self.value_at(op.source, idx), op.source.type.element_type, elt)
        if isinstance(op, tile.BroadcastOp):
            ss, rs = op.source.type.get_shape(), t.get_shape()
            off = len(rs) - len(ss)
            src_idx = [self._zero() if (d == 1 and rs[off + j] != 1) else idx[off + j] for j, d in enumerate(ss)]
            return self.value_at(op.source, src_idx)
        if isinstance(op, tile.TransposeOp):
            perm = int_list(op.permutation)
            src_idx = [self._zero()] * len(perm)
            for i, p in enumerate(perm):
                src_idx[p] = idx[i]
            return self.value_at(op.source, src_idx)
        if isinstance(op, tile.ReshapeOp):
            return self.value_at(op.source, self._reshape_index(op, idx))
        if isinstance(op, tile.SliceOp):
            return self.value_at(op.source, self._slice_index(op, idx))
        if isinstance(op, tile.DynamicSliceOp):
            return self._dynamic_slice_at(op, idx)
        if isinstance(op, tile.ConcatOp):
            return self._concat_at(op, idx, ct)
        if isinstance(op, tile.PadOp):
            return self._pad_at(op, idx, ct)
        if isinstance(op, tile.TakeOp):
            a, k = op.axis.data, op.indices.type.rank
            row = self.checked_index(op, self.value_at(op.indices, idx[a : a + k]), a, wrap=True)
            return self.value_at(op.source, [*idx[:a], row, *idx[a + k :]])
        if isinstance(op, tile.TakeAlongAxisOp):
            a = op.axis.data
            src_idx = list(idx)
            src_idx[a] = self.checked_index(op, self.value_at(op.indices, idx), a, wrap=True)
            return self.value_at(op.source, src_idx)
        if isinstance(op, tile.ReduceOp):
            return self.reduce_at(op, idx)
        if isinstance(op, tile.PoolOp):
            return self.pool_at(op, idx, v)
        raise NotSupportedYet(f"{op.name} inside a {self.fused.kind.data} kernel", op_location(op))

    def scalar_value(self, v: SSAValue, elt: Attribute) -> SSAValue:
        """A group's scalar input `v` (a scalar argument of the tile.func, or an index) in the
        compute type of `elt`: a kernel argument (or a constant index), converted once."""
        key = (v, elt)
        if key not in self._scalar_values:
            self._scalar_values[key] = self._scalar_value(v, elt)
        return self._scalar_values[key]

    def _scalar_value(self, v: SSAValue, elt: Attribute) -> SSAValue:
        h = self.host.index_value(v)
        if isinstance(v.type, IndexType):
            c = const_index(h)
            i = self.index(c) if c is not None else self.arg_for(h)
            as_int = self.ev(arith.IndexCastOp(i, i64))
            ct = compute_type(elt)
            if fp8_format(elt) is not None:  # the index rounded to fp8, as tile.cast rounds it
                return self._cast(as_int, i64, elt)
            if is_float(ct):
                return self.ev(arith.SIToFPOp(as_int, ct))
            return self.ev(arith.TruncIOp(as_int, ct)) if ct != i64 else as_int
        return self.to_compute(self.arg_for(h), elt)

    # --- random numbers: Philox-4x32-10 as integer arith ops (tilec/philox.py) ----------------------

    def _i32(self, value: int) -> SSAValue:
        value %= 2**32
        return self.const(value - 2**32 if value >= 2**31 else value, i32)

    def _random_bits_at(self, op: tile.RandomBitsOp, idx: list[SSAValue]) -> SSAValue:
        """Word i % 4 of Philox((lo32(c), hi32(c), 0, 0), (lo32(seed), hi32(seed))), c = offset + i // 4,
        for the row-major linear index i of `idx`. The same integer ops on every target (32x32 -> 64-bit
        products as extui + muli + shrui), so the bits equal the interpreter's. The key schedule
        depends on the seed only and lands in the kernel's top scope."""
        shape = op.result.type.get_shape()
        sizes = [self.size(op.result, a) for a in range(len(shape))]
        seed, offset = self.value_at(op.seed, []), self.value_at(op.offset, [])
        word_axis = bool(shape) and shape[-1] in (2, 4) and const_index(idx[-1]) is not None
        if word_axis:
            # the words of one multi-word sample (`x[..., j]` of a (..., 2) or (..., 4) tile): all
            # of them lie in the block of counter offset + (prefix * n) // 4, computed once
            n, j = shape[-1], const_index(idx[-1])
            prefix = self.ev(arith.IndexCastOp(self.linearize(idx[:-1], sizes[:-1]), i64))
            key = ("philox", op, tuple(idx[:-1]))
            c = self._memo_get(key, idx[:-1])
            if c is None:
                block = prefix if n == 4 else self.ev(arith.ShRUIOp(prefix, self.const(1, i64)))
                c = self._philox(seed, self.ev(arith.AddiOp(offset, block)))
                self.scope_of.get(c[0], self.top).memo[key] = c
            if n == 4:
                return c[j]
            word = self.ev(
                arith.AddiOp(
                    self.ev(arith.ShLIOp(self.ev(arith.AndIOp(prefix, self.const(1, i64))), self.const(1, i64))),
                    self.const(j, i64),
                )
            )
            return self._pick_word(c, word)
        lin = self.ev(arith.IndexCastOp(self.linearize(idx, sizes), i64))
        ctr = self.ev(arith.AddiOp(offset, self.ev(arith.ShRUIOp(lin, self.const(2, i64)))))
        word = self.ev(arith.AndIOp(lin, self.const(3, i64)))
        return self._pick_word(self._philox(seed, ctr), word)

    def _memo_get(self, key, idx: Sequence[SSAValue]):
        """A value memoized under `key` in a scope that is open now (as `value_at` looks up)."""
        target = self.deepest(idx)
        chain = list(self.open_scopes[-1].chain())
        if target not in chain:
            chain = list(target.chain())
        for s in chain:
            if key in s.memo:
                return s.memo[key]
        return None

    def _pick_word(self, c: list[SSAValue], word: SSAValue) -> SSAValue:
        out = c[0]
        for w in (1, 2, 3):
            pick = self.ev(arith.CmpiOp(word, self.const(w, i64), "eq"))
            out = self.ev(arith.SelectOp(pick, c[w], out))
        return out

    def _philox(self, seed: SSAValue, ctr: SSAValue) -> list[SSAValue]:
        """The four words of Philox-4x32-10 for counter (lo32(ctr), hi32(ctr), 0, 0) and key
        (lo32(seed), hi32(seed)), both i64."""

        def lo_hi(v):
            return self.ev(arith.TruncIOp(v, i32)), self.ev(
                arith.TruncIOp(self.ev(arith.ShRUIOp(v, self.const(32, i64))), i32)
            )

        def xor(*vs):  # None is a known 0
            out = None
            for v in vs:
                if v is not None:
                    out = v if out is None else self.ev(arith.XOrIOp(out, v))
            return out

        def mulhilo(m, x):
            if x is None:
                return None, None
            mul = arith.MuliOp(self.ev(arith.ExtUIOp(x, i64)), self.const(m, i64))
            mul.attributes[MUL_WIDE] = UnitAttr()
            p = self.ev(mul)
            return self.ev(arith.TruncIOp(self.ev(arith.ShRUIOp(p, self.const(32, i64))), i32)), self.ev(
                arith.TruncIOp(p, i32)
            )

        k0, k1 = lo_hi(seed)
        c: list = [*lo_hi(ctr), None, None]
        for r in range(philox.ROUNDS):
            rk0 = self.ev(arith.AddiOp(k0, self._i32(r * philox.W0))) if r else k0
            rk1 = self.ev(arith.AddiOp(k1, self._i32(r * philox.W1))) if r else k1
            hi0, lo0 = mulhilo(philox.M0, c[0])
            hi1, lo1 = mulhilo(philox.M1, c[2])
            c = [xor(hi1, c[1], rk0), lo1, xor(hi0, c[3], rk1), lo0]
        return c

    def _reshape_index(self, op: tile.ReshapeOp, idx: list[SSAValue]) -> list[SSAValue]:
        ss, rs = op.source.type.get_shape(), op.result.type.get_shape()
        if [d for d in ss if d != 1] == [d for d in rs if d != 1] and (
            [d for d in ss if d != 1].count(-1) <= 1 or self._same_sizes(op)
        ):  # unit axes in or out only: the other axes keep their indices
            it = iter([i for i, d in zip(idx, rs) if d != 1])
            return [next(it) if d != 1 else self._zero() for d in ss]
        res_sizes = [self.size(op.result, a) for a in range(len(rs))]
        src_sizes = [self.size(op.source, a) for a in range(len(ss))]
        return self.delinearize(self.linearize(idx, res_sizes), src_sizes)

    def _same_sizes(self, op: tile.ReshapeOp) -> bool:
        """Whether the non-unit axes of a reshape's source and result have the same sizes, axis for
        axis (dynamic ones: the same host values), so that it only adds or drops unit axes."""
        ss, rs = op.source.type.get_shape(), op.result.type.get_shape()
        src = [self.host.size(op.source, a) for a, d in enumerate(ss) if d != 1]
        res = [self.host.size(op.result, a) for a, d in enumerate(rs) if d != 1]
        return len(src) == len(res) and all(a is b for a, b in zip(src, res))

    # --- index maps of slices, concatenations and pads (every read stays inside its source) ------

    def _slice_index(self, op: tile.SliceOp, idx: list[SSAValue]) -> list[SSAValue]:
        """source index = offset + stride * i per axis (a negative offset counts from the end)."""
        out = []
        for a, (o, st) in enumerate(zip(int_list(op.offsets), int_list(op.strides))):
            first = self.subi(self.size(op.source, a), self.index(-o)) if o < 0 else self.index(o)
            step = self.muli(self.index(abs(st)), idx[a])
            out.append(self.addi(first, step) if st > 0 else self.subi(first, step))
        return out

    def _clamp_local(self, i: SSAValue, start: int, size: int) -> SSAValue:
        """i - start, clamped into [0, size): an in-bounds index (used only where it is selected)."""
        if start:
            below = self.ev(arith.CmpiOp(i, self.index(start), "ult"))
            i = self.ev(arith.SelectOp(below, self.index(0), self.subi(i, self.index(start))))
        return self.minui(i, self.index(size - 1))

    def _dynamic_slice_at(self, op: tile.DynamicSliceOp, idx: list[SSAValue]) -> SSAValue:
        a = op.axis.data
        n, m = op.source.type.get_shape()[a], op.result.type.get_shape()[a]
        start = self.value_at(op.start, [])
        it = op.start.type.element_type
        if n == DYNAMIC:  # n >= m is checked at the call
            top = self.subi(self.size(op.source, a), self.index(m))
            top = self.ev(arith.IndexCastOp(top, it))
        else:
            top = self.const(n - m, it)
        clamped = self.ev(arith.MaxSIOp(start, self.const(0, it)))
        clamped = self.ev(arith.MinSIOp(clamped, top))
        off = self.ev(arith.IndexCastOp(clamped, IndexType()))
        src_idx = list(idx)
        src_idx[a] = self.addi(off, idx[a])
        return self.value_at(op.source, src_idx)

    def _concat_at(self, op: tile.ConcatOp, idx: list[SSAValue], ct: Attribute) -> SSAValue:
        a = op.axis.data
        parts, start = [], 0
        for v in op.inputs:
            size = v.type.get_shape()[a]
            if size:
                parts.append((v, start, size))
            start += size
        i = idx[a]
        r = self.ranges.get(i)
        if r is not None:
            parts = [p for p in parts if p[1] < r[1] and p[1] + p[2] > r[0]]  # those the range touches
            if len(parts) == 1:  # the whole range reads one input
                local = list(idx)
                local[a] = self.subi(i, self.index(parts[0][1]))
                return self.value_at(parts[0][0], local)
        out = None
        for v, begin, size in reversed(parts):
            local = list(idx)
            local[a] = self._clamp_local(i, begin, size) if len(parts) > 1 else self.subi(i, self.index(begin))
            x = self.value_at(v, local)
            if out is None:
                out = x
            else:
                after = self.ev(arith.CmpiOp(i, self.index(begin + size), "uge"))
                out = self.ev(arith.SelectOp(after, out, x))
        return self.const(0, ct) if out is None else out  # all inputs empty: never read

    def _pad_at(self, op: tile.PadOp, idx: list[SSAValue], ct: Attribute) -> SSAValue:
        ss = op.source.type.get_shape()
        pad = self.const(op.pad_value(), ct)
        if 0 in ss:
            return pad
        inside = None
        src_idx = []
        for a, (lo, hi) in enumerate(zip(int_list(op.low), int_list(op.high))):
            i = idx[a]
            if lo == hi == 0:
                src_idx.append(i)
                continue
            n = ss[a]
            r = self.ranges.get(i)
            if r is not None and (r[1] <= lo or r[0] >= lo + n):
                return pad  # the whole range is padding
            if r is not None and lo <= r[0] and r[1] <= lo + n:
                src_idx.append(self.subi(i, self.index(lo)))  # the whole range reads the source
                continue
            src_idx.append(self._clamp_local(i, lo, n))
            conds = []
            if lo:
                conds.append(self.ev(arith.CmpiOp(i, self.index(lo), "uge")))
            if hi:
                conds.append(self.ev(arith.CmpiOp(i, self.index(lo + n), "ult")))
            for c in conds:
                inside = c if inside is None else self.ev(arith.AndIOp(inside, c))
        x = self.value_at(op.source, src_idx)
        if inside is None:
            return x
        return self.ev(arith.SelectOp(inside, x, pad))

    # --- gathers and scatters: checked indices ------------------------------------------------------

    def checked_index(self, op: Operation, i: SSAValue, axis: int, wrap: bool) -> SSAValue:
        """Index value `i` (an element of `op`'s integer indices) as an `index` into `op.source`'s
        `axis`: with `wrap`, a negative signed index counts from the end. An index outside the
        axis becomes 0 (never an out-of-bounds access) and sets the call's status word to the
        op's code (`flag`)."""
        if self.in_range(op, axis):
            return self.ev(arith.IndexCastOp(i, IndexType()))
        safe, bad = self.check_index(op, i, axis, wrap)
        self.flag(op, bad)
        return safe

    def in_range(self, op: Operation, axis: int) -> bool:
        """`op`'s indices provably lie in [0, size) of its source's `axis` (value_range.int_range:
        e.g. iota arithmetic clamped by min / max): no check, no status word."""
        key = (op, axis)
        if key not in self._in_range:  # (asked at every element the kernel gathers)
            r = int_range(op.indices)
            n = const_index(self.size(op.source, axis))
            self._in_range[key] = r is not None and n is not None and 0 <= r[0] and r[1] < n
        return self._in_range[key]

    def check_index(self, op: Operation, i: SSAValue, axis: int, wrap: bool) -> tuple[SSAValue, SSAValue]:
        """`checked_index`, and the i1 that is true when the index was out of range."""
        idx_type = op.indices.type.element_type
        w = bitwidth(idx_type)
        size = self.size(op.source, axis)
        static = const_index(size)
        # 32-bit indices into an axis of static size under 2^31: checked in 32 bits (GPUs pay 2-4x
        # for 64-bit integer math; a gather computes this at every element)
        wide = i32 if w <= 32 and static is not None and static < 2**31 else i64
        if w < wide.width.data:
            i = self.ev(arith.ExtUIOp(i, wide) if is_unsigned(idx_type) else arith.ExtSIOp(i, wide))
        n = self.const(static, wide) if wide == i32 else self.ev(arith.IndexCastOp(size, i64))
        if wrap and not is_unsigned(idx_type):
            neg = self.ev(arith.CmpiOp(i, self.const(0, wide), "slt"))
            i = self.ev(arith.SelectOp(neg, self.ev(arith.AddiOp(i, n)), i))
        bad = self.ev(arith.CmpiOp(i, n, "uge"))  # unsigned: a negative index is huge
        safe = self.ev(arith.SelectOp(bad, self.const(0, wide), i))
        return self.ev(arith.IndexCastOp(safe, IndexType())), bad

    def scatter_add(
        self,
        op: tile.ScatterAddOp,
        out: SSAValue,
        fixed: list[SSAValue | None],
        scope: Scope,
        simd: bool,
        last: tuple[SSAValue, SSAValue] | None = None,
    ) -> None:
        """`op` computed into the kernel buffer `out` for the columns `fixed` (per axis other than
        op's: the index there, or None for an axis looped over inside, in order, innermost
        last; `simd` marks the innermost loop; `last`, a (lo, hi) range the loop over the last
        axis is limited to): first the source along the axis, then, for each index j in order,
        out[..., indices[..., j, ...], ...] += updates[..., j, ...]. Whoever runs a column owns it
        (no atomics; deterministic). An out-of-range index adds nothing (the element at index 0
        is written back unchanged) and sets the status word."""
        a = op.axis.data
        free = [d for d, f in enumerate(fixed) if d != a and f is None]
        rank = len(fixed)

        def loops(outer: Scope, lo_hi: list[tuple[int, SSAValue]]):
            opened, idx, sc = [], {}, outer
            for k, (d, ub) in enumerate(lo_hi):
                attrs = {SIMD: UnitAttr()} if simd and k == len(lo_hi) - 1 and d != a else None
                lb = self.index(0)
                if last is not None and d == rank - 1 and d != a:
                    lb, ub = last
                loop, body = self.open_for(sc, lb, ub, self.index(1), (), attrs)
                opened.append((sc, loop, body))
                idx[d] = body.block.args[0]
                sc = body
            return opened, idx, sc

        def close(opened) -> None:
            for sc, loop, body in reversed(opened):
                self.close_for(sc, loop, body)

        def full(idx: dict) -> list[SSAValue]:
            return [idx[d] if d in idx else fixed[d] for d in range(len(fixed))]

        # the source, copied along the axis
        opened, idx, _ = loops(scope, [(a, self.size(op.source, a)), *((d, self.size(op.source, d)) for d in free)])
        at = full(idx)
        self.store(self.value_at(op.source, at), out, at)
        close(opened)
        # the updates, accumulated in index order
        opened, idx, _ = loops(scope, [(a, self.size(op.indices, a)), *((d, self.size(op.indices, d)) for d in free)])
        at = full(idx)
        target, bad = self.check_index(op, self.value_at(op.indices, at), a, wrap=False)
        self.flag(op, bad)
        dest = list(at)
        dest[a] = target
        elt = op.result.type.element_type
        old = self.to_compute(self.ev(mapped.LoadOp(out, dest)), elt)
        upd = self.value_at(op.updates, at)
        new = self.ev(arith.AddfOp(old, upd) if is_float(elt) else arith.AddiOp(old, upd))
        self.store(self.ev(arith.SelectOp(bad, old, new)), out, dest)
        close(opened)

    def scatter_add_atomic(self, op: tile.ScatterAddOp, out: SSAValue, at: list[SSAValue]) -> None:
        """The update of `op` at index `at` (of its indices/updates) added atomically to `out` at
        its target (`out` already holds the source): an out-of-range index adds nothing and sets
        the status word."""
        a = op.axis.data
        target, bad = self.check_index(op, self.value_at(op.indices, at), a, wrap=False)
        self.flag(op, bad)
        dest = list(at)
        dest[a] = target
        upd = self.to_storage(self.value_at(op.updates, at), out.type.element_type)
        good = self.ev(arith.XOrIOp(bad, self.const(1, i1)))
        scope = self.deepest([good, upd, *dest])
        iff, body = self.open_if(scope, good)
        self.emit(mapped.AtomicAddOp(upd, out, dest), body)
        self.close_if(scope, iff)

    def flag(self, op: Operation, bad: SSAValue) -> None:
        """`if (bad) status[0] = code(op)`, where `bad` is computed."""
        status, code = self.host.status_check(op)
        buf = self.arg_for(status)
        scope = self.deepest([bad])
        iff, body = self.open_if(scope, bad)
        self.emit(mapped.StoreOp(self.const(code, i32), buf, [self.index(0)]), body)
        self.close_if(scope, iff)

    def load_leaf(self, arg_index: int, idx: list[SSAValue]) -> SSAValue:
        view = self.view(arg_index)
        buf = self.arg_for(view.buffer)
        bidx = [idx[m] if m is not None else self._zero() for m in view.index_map]
        x = self.ev(mapped.LoadOp(buf, bidx))
        return self.to_compute(x, self.leaf_type(arg_index))

    # --- scalar op semantics ------------------------------------------------------------------------

    def _unary(self, op: tile.UnaryOp, x: SSAValue, ct: Attribute) -> SSAValue:
        fl = is_float(ct)
        if isinstance(op, tile.NegOp):
            return self.ev(arith.NegfOp(x)) if fl else self.ev(arith.SubiOp(self.const(0, ct), x))
        if isinstance(op, tile.AbsOp) and is_unsigned(op.operand.type.element_type):
            return x
        if isinstance(op, tile.AbsOp):
            return self.ev(math.AbsFOp(x)) if fl else self.ev(math.AbsIOp(x))
        if isinstance(op, tile.NotOp):
            return self.ev(arith.XOrIOp(x, self.const(-1, ct)))
        fn = BY_OP.get(type(op))
        if fn is not None:
            return self.ev(fn.math(x)) if fn.math is not None else self.compose(fn, x, ct)
        table = {
            tile.ExpOp: math.ExpOp,
            tile.LogOp: math.LogOp,
            tile.SqrtOp: math.SqrtOp,
            tile.RsqrtOp: math.RsqrtOp,
            tile.TanhOp: math.TanhOp,
            tile.ErfOp: math.ErfOp,
        }
        m = table[type(op)](x)
        if self.half_precision_outputs():
            # every result of this group is rounded to a 16-bit float: targets may use
            # approximations whose error is below that rounding (docs/cuda.md)
            m.attributes[PRECISION_ATTR] = StringAttr("16")
        return self.ev(m)

    def compose(self, fn: MathFn, x: SSAValue, ct: Attribute) -> SSAValue:
        """The math functions without a `math` op (mathfns.py's "composed" rows). sigmoid and
        softplus compute in f64 (one rounding to f32 at the end: within an ulp on every target,
        whose exp / log1p are then f64 ones)."""
        if fn.name == "sign":
            if is_float(ct):
                pos, neg = (
                    self.ev(arith.CmpfOp(x, self.const(0.0, ct), "ogt")),
                    self.ev(arith.CmpfOp(x, self.const(0.0, ct), "olt")),
                )
                nan = self.ev(arith.CmpfOp(x, x, "uno"))
                rest = self.ev(arith.SelectOp(nan, x, self.const(0.0, ct)))
            else:
                pos, neg = (
                    self.ev(arith.CmpiOp(x, self.const(0, ct), "sgt")),
                    self.ev(arith.CmpiOp(x, self.const(0, ct), "slt")),
                )
                rest = self.const(0, ct)
            one, minus = (
                self.const(1 if not is_float(ct) else 1.0, ct),
                self.const(-1 if not is_float(ct) else -1.0, ct),
            )
            return self.ev(arith.SelectOp(pos, one, self.ev(arith.SelectOp(neg, minus, rest))))
        w = self.ev(arith.ExtFOp(x, f64)) if ct != f64 else x
        if fn.name == "sigmoid":
            e = self.ev(math.ExpOp(self.ev(arith.NegfOp(self.ev(math.AbsFOp(w))))))
            d = self.ev(arith.AddfOp(self.const(1.0, f64), e))
            pos = self.ev(arith.CmpfOp(w, self.const(0.0, f64), "oge"))
            y = self.ev(
                arith.SelectOp(pos, self.ev(arith.DivfOp(self.const(1.0, f64), d)), self.ev(arith.DivfOp(e, d)))
            )
        else:  # softplus, torch's: linear above the threshold
            sp = self.ev(math.Log1pOp(self.ev(math.ExpOp(w))))
            big = self.ev(arith.CmpfOp(w, self.const(SOFTPLUS_THRESHOLD, f64), "ogt"))
            y = self.ev(arith.SelectOp(big, w, sp))
        return self.ev(arith.TruncFOp(y, ct)) if ct != f64 else y

    def half_precision_outputs(self) -> bool:
        if not hasattr(self, "_half_out"):
            y = self.fused.body.block.last_op
            outs = [v.type.element_type for v in y.operands] if y is not None else []
            self._half_out = bool(outs) and all(str(t) in ("f16", "bf16") for t in outs)
        return self._half_out

    def _binary(self, op: tile.BinaryOp, a: SSAValue, b: SSAValue, ct: Attribute) -> SSAValue:
        unsigned = is_unsigned(op.lhs.type.element_type)
        if isinstance(op, tile.FloorDivOp | tile.ModOp):
            if is_float(ct):
                raise NotSupportedYet(f"{op.name} of float tiles in compiled kernels", op_location(op))
            return self._int_floor_div(a, b, ct, unsigned, isinstance(op, tile.ModOp))
        if unsigned:
            table = {
                tile.AddOp: arith.AddiOp,
                tile.SubOp: arith.SubiOp,
                tile.MulOp: arith.MuliOp,
                tile.DivOp: arith.DivUIOp,
                tile.MaxOp: arith.MaxUIOp,
                tile.MinOp: arith.MinUIOp,
                tile.AndOp: arith.AndIOp,
                tile.OrOp: arith.OrIOp,
                tile.XorOp: arith.XOrIOp,
                tile.ShlOp: arith.ShLIOp,
                tile.ShrOp: arith.ShRUIOp,
            }
        elif is_float(ct):
            table = {
                tile.AddOp: arith.AddfOp,
                tile.SubOp: arith.SubfOp,
                tile.MulOp: arith.MulfOp,
                tile.DivOp: arith.DivfOp,
                tile.MaxOp: arith.MaximumfOp,
                tile.MinOp: arith.MinimumfOp,
                tile.PowOp: math.PowFOp,
                tile.Atan2Op: math.Atan2Op,
            }
        else:
            table = {
                tile.AddOp: arith.AddiOp,
                tile.SubOp: arith.SubiOp,
                tile.MulOp: arith.MuliOp,
                tile.DivOp: arith.DivSIOp,
                tile.MaxOp: arith.MaxSIOp,
                tile.MinOp: arith.MinSIOp,
                tile.AndOp: arith.AndIOp,
                tile.OrOp: arith.OrIOp,
                tile.XorOp: arith.XOrIOp,
                tile.ShlOp: arith.ShLIOp,  # every target defines shifts by any amount (emit/cfamily.py)
                tile.ShrOp: arith.ShRSIOp,
            }
        return self.ev(table[type(op)](a, b))

    def _int_floor_div(self, a: SSAValue, b: SSAValue, ct: Attribute, unsigned: bool, want_mod: bool) -> SSAValue:
        """Python's a // b or a % b on integers, with numpy's results where C's are undefined:
        x // 0 = x % 0 = 0 and INT_MIN // -1 = INT_MIN (wraps). The divisor that reaches the
        division is never 0 or -1, so no target divides by zero or overflows."""
        zero, one = self.const(0, ct), self.const(1, ct)
        b_zero = self.ev(arith.CmpiOp(b, zero, "eq"))
        if unsigned:
            d = self.ev(arith.SelectOp(b_zero, one, b))
            r = self.ev(arith.RemUIOp(a, d) if want_mod else arith.DivUIOp(a, d))
            return self.ev(arith.SelectOp(b_zero, zero, r))
        b_minus1 = self.ev(arith.CmpiOp(b, self.const(-1, ct), "eq"))
        special = self.ev(arith.OrIOp(b_zero, b_minus1))
        d = self.ev(arith.SelectOp(special, one, b))
        rem = self.ev(arith.RemSIOp(a, d))  # C's remainder: the sign of the dividend
        # floor: step down when the remainder is nonzero and its sign differs from the divisor's
        signs_differ = self.ev(
            arith.XOrIOp(self.ev(arith.CmpiOp(rem, zero, "slt")), self.ev(arith.CmpiOp(d, zero, "slt")))
        )
        adjust = self.ev(arith.AndIOp(self.ev(arith.CmpiOp(rem, zero, "ne")), signs_differ))
        if want_mod:
            r = self.ev(arith.SelectOp(adjust, self.ev(arith.AddiOp(rem, d)), rem))
            return self.ev(arith.SelectOp(special, zero, r))  # x % 0 = x % -1 = 0
        q = self.ev(arith.DivSIOp(a, d))
        q = self.ev(arith.SelectOp(adjust, self.ev(arith.SubiOp(q, one)), q))
        negated = self.ev(arith.SubiOp(zero, a))  # a // -1 = -a, wrapping: INT_MIN // -1 = INT_MIN
        return self.ev(arith.SelectOp(b_zero, zero, self.ev(arith.SelectOp(b_minus1, negated, q))))

    def _bitcast(self, x: SSAValue, src: Attribute, dst: Attribute) -> SSAValue:
        """The bits of x (in compute_type(src)) as dst, in compute_type(dst). fp8 bits are their
        i8 code (a NaN's payload becomes the canonical NaN, as for 16-bit floats)."""
        if fp8_format(src) is not None:
            x = self.to_storage(x, src)  # the i8 code
        elif is_16bit_float(src):
            x = self.ev(arith.TruncFOp(x, src))  # exact: x holds a value of src
        if fp8_format(dst) is not None:
            return self.to_compute(x, dst)
        bits = compute_type(dst) if not is_16bit_float(dst) else dst
        y = x if x.type == bits else self.ev(arith.BitcastOp(x, bits))
        return self.ev(arith.ExtFOp(y, f32)) if is_16bit_float(dst) else y

    def _cast(self, x: SSAValue, src: Attribute, dst: Attribute) -> SSAValue:
        """x is in compute_type(src); the result is in compute_type(dst), rounded as dst stores."""
        cs, cd = compute_type(src), compute_type(dst)
        if src == dst:
            return x
        fmt = fp8_format(dst)
        if fmt is not None:  # through f32, as torch: c10::Float8_* are built from a float
            return self.fp8_round(self._cast(x, src, f32), fmt)
        if is_float(src) and is_float(dst):
            if is_16bit_float(dst):
                narrow = self.ev(arith.TruncFOp(x, dst))
                return self.ev(arith.ExtFOp(narrow, f32))
            if bitwidth(cd) > bitwidth(cs):
                return self.ev(arith.ExtFOp(x, cd))
            if bitwidth(cd) < bitwidth(cs):
                return self.ev(arith.TruncFOp(x, cd))
            return x
        if is_float(src) and dst == i1:
            return self.ev(arith.CmpfOp(x, self.const(0.0, cs), "une"))
        if is_float(src) and is_unsigned(dst):
            return self._float_to_unsigned(x, cs, cd)
        if is_float(src):
            return self.ev(arith.FPToSIOp(x, cd))
        if src == i1:
            wide = self.ev(arith.ExtUIOp(x, IntegerType(32)))
            return self._cast(wide, IntegerType(32), dst)
        if is_unsigned(src) and is_float(dst):
            return self._unsigned_to_float(x, cs, dst)
        if is_unsigned(src) and dst != i1 and bitwidth(cd) > bitwidth(cs):
            return self.ev(arith.ExtUIOp(x, cd))
        if is_float(dst):
            if is_16bit_float(dst):
                # via f64 (exact for i32; for i64 53 >= 2*11+2 bits make the second rounding
                # harmless): int -> f32 -> bf16 would round twice
                wide = self.ev(arith.SIToFPOp(x, f64))
                narrow = self.ev(arith.TruncFOp(wide, dst))
                return self.ev(arith.ExtFOp(narrow, f32))
            return self.ev(arith.SIToFPOp(x, cd))
        if dst == i1:
            return self.ev(arith.CmpiOp(x, self.const(0, cs), "ne"))
        if cs == cd:  # int8 <-> uint8, ...: the same bits
            return x
        if bitwidth(cd) > bitwidth(cs):
            return self.ev(arith.ExtSIOp(x, cd))
        return self.ev(arith.TruncIOp(x, cd))

    def _unsigned_to_float(self, x: SSAValue, cs: Attribute, dst: Attribute) -> SSAValue:
        """An unsigned integer (bits in the signless cs) to the float dst, rounded once, with the
        targets' signed conversion only (sitofp): narrower than 64 bits through a zero-extended
        wider integer; 64 bits as (x >> 1 | x & 1) * 2 when the top bit is set (the dropped bit
        kept sticky, as compilers do it)."""
        w = bitwidth(cs)
        if w < 64:
            wide = IntegerType(32 if w < 32 else 64)
            return self._cast(self.ev(arith.ExtUIOp(x, wide)), wide, dst)
        ft = f64 if is_16bit_float(dst) or dst == f64 else f32
        one = self.const(1, cs)
        half = self.ev(arith.OrIOp(self.ev(arith.ShRUIOp(x, one)), self.ev(arith.AndIOp(x, one))))
        hf = self.ev(arith.SIToFPOp(half, ft))
        big = self.ev(arith.CmpiOp(x, self.const(0, cs), "slt"))
        f = self.ev(arith.SelectOp(big, self.ev(arith.AddfOp(hf, hf)), self.ev(arith.SIToFPOp(x, ft))))
        if is_16bit_float(dst):  # via f64: a second rounding that cannot change the result (53 >= 2p + 2)
            return self.ev(arith.ExtFOp(self.ev(arith.TruncFOp(f, dst)), f32))
        return f

    def _float_to_unsigned(self, x: SSAValue, cs: Attribute, cd: Attribute) -> SSAValue:
        """Truncating, saturating to [0, UINT_MAX], NaN -> 0, with the targets' saturating signed
        conversion (fptosi): narrower than 64 bits through i64 and a clamp; 64 bits by
        subtracting 2**63 from values at or above it."""
        w = bitwidth(cd)
        if w < 64:
            wide = self.ev(arith.FPToSIOp(x, i64))  # saturating, NaN -> 0
            clamped = self.ev(
                arith.MinSIOp(self.ev(arith.MaxSIOp(wide, self.const(0, i64))), self.const((1 << w) - 1, i64))
            )
            return self.ev(arith.TruncIOp(clamped, cd))
        two63 = self.const(2.0**63, cs)
        high = self.ev(arith.CmpfOp(x, two63, "oge"))
        low = self.ev(arith.FPToSIOp(self.ev(arith.SelectOp(high, self.ev(arith.SubfOp(x, two63)), x)), i64))
        # >= 2**63: low + 2**63 (saturates at 2**64 - 1); below 0: fptosi gives <= 0, clamped to 0
        top = self.ev(arith.XOrIOp(low, self.const(-(2**63), i64)))
        pos = self.ev(arith.MaxSIOp(low, self.const(0, i64)))
        return self.ev(arith.SelectOp(high, top, pos))

    # --- reductions -------------------------------------------------------------------------------

    def reduce_at(self, op: tile.ReduceOp, out_idx: list[SSAValue]) -> SSAValue:
        if op.kind.data in tile.ARG_REDUCE_KINDS:
            return self.arg_reduce_at(op, out_idx)
        axes = sorted(int_list(op.axes))
        if not axes:  # reducing no axis: every output element is its one input element
            return self.value_at(op.source, out_idx)
        return self.shared_reduction(op.kind.data, op.source, axes, out_idx)

    def shared_reduction(self, kind: str, src: SSAValue, axes: list[int], out_idx: list[SSAValue]) -> SSAValue:
        """`kind` of `src` over `axes` at `out_idx`, computed once per kernel scope: a max and an
        argmax of the same values share it (memoized like `value_at`)."""
        key = ("reduction", kind, src, tuple(axes), tuple(out_idx))
        for s in self.deepest(out_idx).chain():
            if key in s.memo:
                return s.memo[key]
        out = self.reduce_values(kind, src.type.element_type, src, axes, out_idx, lambda idx: self.value_at(src, idx))
        self.scope_of.get(out, self.top).memo[key] = out
        return out

    def arg_reduce_at(self, op: tile.ReduceOp, out_idx: list[SSAValue]) -> SSAValue:
        """argmax / argmin as two reductions in the same kernel: m = max (min) of the row, then
        the smallest index i with x[i] == m or x[i] NaN (if there is a NaN, m is NaN and no
        x[i] equals it, so the first NaN wins: numpy's rule). The max is shared with a max of
        the same values in the group (`shared_reduction`)."""
        src, axes = op.source, list(int_list(op.axes))
        m = self.shared_reduction("max" if op.kind.data == "argmax" else "min", src, axes, out_idx)
        it = self.arg_index_type(src, axes)
        r = self.first_index(src, axes, out_idx, m, it)
        return r if it == i64 else self.ev(arith.ExtSIOp(r, i64))

    def arg_index_type(self, src: SSAValue, axes: list[int]) -> Attribute:
        """The integer type an arg-reduction's index is reduced in (GPUs: i32 across threads)."""
        return i64

    def first_index(self, src: SSAValue, axes: list[int], out_idx, m: SSAValue, it: Attribute) -> SSAValue:
        """The smallest row-major index over `axes` of `src` (as `it`) where it equals `m` or is NaN."""
        fl = is_float(compute_type(src.type.element_type))
        none = self.const(2 ** (bitwidth(it) - 1) - 1, it)
        sizes = [self.size(src, a) for a in axes]

        def candidate(idx: list[SSAValue]) -> SSAValue:
            x = self.value_at(src, idx)
            if fl:
                hit = self.ev(arith.OrIOp(self.ev(arith.CmpfOp(x, m, "oeq")), self.ev(arith.CmpfOp(x, x, "uno"))))
            else:
                hit = self.ev(arith.CmpiOp(x, m, "eq"))
            i = self.ev(arith.IndexCastOp(self.linearize([idx[a] for a in axes], sizes), it))
            return self.ev(arith.SelectOp(hit, i, none))

        return self.reduce_values("min", it, src, axes, out_idx, candidate)

    def reduce_values(self, kind, elt, src, axes, out_idx, value) -> SSAValue:
        """The `kind` reduction (sum, prod, max, min) over `axes` of `src`'s index space of
        `value(idx)` (values of tile element type `elt`), at `out_idx` (the kept axes)."""
        st = src.type
        assert isinstance(st, tile.TileType)
        ct = compute_type(elt)
        fl = is_float(ct)
        # unsigned max/min: on the values with the sign bit flipped, which order as signed ints (so
        # the targets' signed reductions, omp's included, apply); the result flipped back
        flip = is_unsigned(elt) and kind in ("max", "min")
        track_nan = fl and kind in ("max", "min")
        inits = [self.const(neutral(kind, ct), ct)]
        if track_nan:  # an int flag (compilers vectorize an int |-reduction, not a bool one)
            inits.append(self.const(0, IntegerType(32)))
        full: list[SSAValue | None] = [None] * st.rank
        kept = [a for a in range(st.rank) if a not in axes]
        for a, i in zip(kept, out_idx):
            full[a] = i
        scope = self.deepest(out_idx)

        def combine(accs: list[SSAValue], x: SSAValue) -> list[SSAValue]:
            acc = accs[0]
            if kind == "sum":
                new = [self.ev(arith.AddfOp(acc, x) if fl else arith.AddiOp(acc, x))]
            elif kind == "prod":
                new = [self.ev(arith.MulfOp(acc, x) if fl else arith.MuliOp(acc, x))]
            elif fl:
                cmp = arith.MaxnumfOp if kind == "max" else arith.MinnumfOp
                isnan = self.ev(arith.ExtUIOp(self.ev(arith.CmpfOp(x, x, "uno")), IntegerType(32)))
                new = [self.ev(cmp(acc, x)), self.ev(arith.OrIOp(accs[1], isnan))]
            else:
                new = [self.ev(arith.MaxSIOp(acc, x) if kind == "max" else arith.MinSIOp(acc, x))]
            return new

        reduce_kinds = {"sum": "add", "prod": "mul", "max": "max", "min": "min"}[kind]
        kinds_attr = ArrayAttr([StringAttr(reduce_kinds)] + ([StringAttr("or")] if track_nan else []))

        def level(j: int, accs: list[SSAValue], sc: Scope) -> list[SSAValue]:
            a = axes[j]
            last = j == len(axes) - 1
            attrs = {SIMD: UnitAttr(), REDUCE_KINDS_ATTR: kinds_attr} if last else None
            loop, inner = self.open_for(sc, self.index(0), self.size(src, a), self.index(1), accs, attrs)
            full[a] = inner.block.args[0]
            carried = list(inner.block.args[1:])
            if last:
                x = value(full)
                new = combine(carried, self.flip_sign(x) if flip else x)
            else:
                new = level(j + 1, carried, inner)
            return self.close_for(sc, loop, inner, new)

        results = level(0, inits, scope)
        if flip:
            sign = self.const(-(1 << (bitwidth(ct) - 1)), ct)
            return self.emit(arith.XOrIOp(results[0], sign), scope).results[0]
        if track_nan:
            nan = self.const(float("nan"), ct)
            seen = self.emit(arith.CmpiOp(results[1], self.const(0, IntegerType(32)), "ne"), scope).results[0]
            return self.emit(arith.SelectOp(seen, nan, results[0]), scope).results[0]
        return results[0]

    # --- scans ------------------------------------------------------------------------------------

    def scan_line(self, scope: Scope, fixed: list[SSAValue | None], outputs, simd: bool = False) -> None:
        """The scan group's values along one line of its scan axis (`fixed`: the domain index with
        None at the scan axis): one sequential loop carrying each `tile.scan`'s running value
        (in the compute type), storing every output at each step. Scans see the values of the
        scans before them at the same step, so scans of scans need no temporary."""
        scans = [op for op in self.fused.body.block.ops if isinstance(op, tile.ScanOp)]
        a, rev = scans[0].axis.data, scans[0].is_reverse
        n = self.size(scans[0].result, a)
        inits = [
            self.const(scan_identity(op.kind.data, compute_type(op.result.type.element_type)), _ct(op)) for op in scans
        ]
        loop, body = self.open_for(scope, self.index(0), n, self.index(1), inits)
        i = body.block.args[0]
        pos = self.subi(self.subi(n, self.index(1)), i) if rev else i
        idx = [pos if d is None else d for d in fixed]
        new = []
        for op, acc in zip(scans, body.block.args[1:]):
            x = self.value_at(op.source, idx)
            nxt = self.scan_combine(op.kind.data, acc, x)
            new.append(nxt)
            body.memo[(op.result, tuple(idx))] = acc if op.is_exclusive else nxt
        for v, b in outputs:
            self.store(self.value_at(v, idx), b, idx, v.type.element_type)
        self.close_for(scope, loop, body, new)

    def scan_combine(self, kind: str, acc: SSAValue, x: SSAValue) -> SSAValue:
        fl = is_float(x.type)
        if kind == "add":
            return self.ev(arith.AddfOp(acc, x) if fl else arith.AddiOp(acc, x))
        if kind == "mul":
            return self.ev(arith.MulfOp(acc, x) if fl else arith.MuliOp(acc, x))
        # log(exp(acc) + exp(x)) = hi + log1p(exp(lo - hi)); equal values (infinities included)
        # give hi + log(2) (so -inf stays -inf, +inf stays +inf); a NaN propagates
        hi = self.ev(arith.MaximumfOp(acc, x))
        lo = self.ev(arith.MinimumfOp(acc, x))
        same = self.ev(arith.CmpfOp(lo, hi, "oeq"))
        d = self.ev(arith.SelectOp(same, self.const(0.0, x.type), self.ev(arith.SubfOp(lo, hi))))
        return self.ev(arith.AddfOp(hi, self.ev(math.Log1pOp(self.ev(math.ExpOp(d))))))

    def flip_sign(self, x: SSAValue) -> SSAValue:
        """x with its sign bit flipped: unsigned order becomes signed order (an involution)."""
        return self.ev(arith.XOrIOp(x, self.const(-(1 << (bitwidth(x.type) - 1)), x.type)))

    # --- pooling (issue 11): a window reduction per output element ---------------------------------

    def pool_at(self, op: tile.PoolOp, idx: list[SSAValue], v: SSAValue) -> SSAValue:
        """`op`'s result (or its indices) at `idx`: the window's taps in row-major order, unrolled
        when there are at most POOL_UNROLL of them (checks that cannot fail left out), else one
        loop per pooled axis. A tap outside the input reads an in-bounds element that is not used."""
        kind = op.kind.data
        r = op.rank.data
        st, rt = op.source.type, op.result.type
        lead = rt.rank - r
        grad = kind in tile.PoolOp.GRADS
        fwd_in = list((rt if grad else st).get_shape()[lead:])
        fwd_out = list((st if grad else rt).get_shape()[lead:])
        axes = [_PoolAxis(self, op, a, fwd_in[a], fwd_out[a], idx[lead + a]) for a in range(r)]
        ct = compute_type(st.element_type)
        is_max = kind in ("max", "adaptive_max")
        want_idx = is_max and op.indices is not None
        scope = self.deepest(idx)
        if kind == "max_grad":  # this input element's index within its plane, as max's indices say
            here = self.ev(arith.IndexCastOp(self.linearize(idx[lead:], [self.index(n) for n in fwd_in]), i64))

        def tap(ks, accs: list[SSAValue]) -> list[SSAValue]:
            taps = [ax.tap(k) for ax, k in zip(axes, ks)]
            valid = None
            for _, ok in taps:
                if ok is not None:
                    valid = ok if valid is None else self.ev(arith.AndIOp(valid, ok))
            pos = [p for p, _ in taps]
            x = self.value_at(op.source, [*idx[:lead], *pos])
            if is_max:
                # torch's `x > acc || isnan(x)`; isnan as x != x (one compare, no C `||`: vectorizes)
                better = self.ev(
                    arith.OrIOp(self.ev(arith.CmpfOp(x, accs[0], "ogt")), self.ev(arith.CmpfOp(x, x, "une")))
                )
                if valid is not None:
                    better = self.ev(arith.AndIOp(better, valid))
                new = [self.ev(arith.SelectOp(better, x, accs[0]))]
                if want_idx:
                    flat = self.ev(arith.IndexCastOp(self.linearize(pos, [self.index(n) for n in fwd_in]), i64))
                    new.append(self.ev(arith.SelectOp(better, flat, accs[1])))
                return new
            if kind == "max_grad":  # dy of the windows whose maximum is this element
                hit = self.ev(arith.CmpiOp(self.value_at(op.argmax, [*idx[:lead], *pos]), here, "eq"))
                valid = hit if valid is None else self.ev(arith.AndIOp(valid, hit))
                return [self.ev(arith.AddfOp(accs[0], self._zero_unless(valid, x, ct)))]
            if valid is not None:  # (masked before the division: a C compiler if-converts no division)
                x = self._zero_unless(valid, x, ct)
            if grad:  # dy / divisor of the window this tap is the output of
                x = self.ev(arith.DivfOp(x, self._pool_divisor(op, [ax.count(p) for ax, p in zip(axes, pos)], ct)))
            return [self.ev(arith.AddfOp(accs[0], x))]

        if is_max:
            inits = [self.const(float("-inf"), ct)]
            if want_idx:  # the window's first tap inside the input, as torch starts
                inits.append(
                    self.ev(
                        arith.IndexCastOp(
                            self.linearize([ax.first() for ax in axes], [self.index(n) for n in fwd_in]), i64
                        )
                    )
                )
        else:
            inits = [self.const(0.0, ct)]
        counts = [ax.taps for ax in axes]
        if _prod_int(counts) <= POOL_UNROLL:
            accs = inits
            for ks in itertools.product(*[range(c) for c in counts]):
                accs = tap(ks, accs)
        else:

            def level(j: int, accs: list[SSAValue], sc: Scope, ks: list) -> list[SSAValue]:
                lo, hi = axes[j].loop_bounds()
                loop, inner = self.open_for(sc, lo, hi, self.index(1), accs)
                ks = [*ks, inner.block.args[0]]
                carried = list(inner.block.args[1:])
                new = tap(ks, carried) if j == r - 1 else level(j + 1, carried, inner, ks)
                return self.close_for(sc, loop, inner, new)

            accs = level(0, inits, scope, [])
        out = accs[0]
        if kind in ("avg", "adaptive_avg"):
            div = self._pool_divisor(op, [ax.count(ax.o) for ax in axes], ct)
            out = self.emit(arith.DivfOp(out, div), self.deepest([out, div])).results[0]
        if want_idx:
            key = (op.indices, tuple(idx))
            self.scope_of.get(accs[1], self.top).memo[key] = accs[1]
            self.scope_of.get(out, self.top).memo[(op.result, tuple(idx))] = out
            return accs[1] if v is op.indices else out
        return out

    def _zero_unless(self, valid: SSAValue, x: SSAValue, ct: Attribute) -> SSAValue:
        """x where `valid`, else +0.0, as a mask of x's bits: `valid ? x : 0.0` lets GCC turn the
        load of x into a masked load, and a masked gather does not vectorize."""
        bits = IntegerType(bitwidth(ct))
        mask = self.ev(arith.SelectOp(valid, self.const(-1, bits), self.const(0, bits)))
        kept = self.ev(arith.AndIOp(self.ev(arith.BitcastOp(x, bits)), mask))
        return self.ev(arith.BitcastOp(kept, ct))

    def _pool_divisor(self, op: tile.PoolOp, counts: list[SSAValue], ct: Attribute) -> SSAValue:
        """An average window's divisor in the compute type: `divisor`, or the product of its
        per-axis tap counts."""
        if op.divisor is not None:
            return self.const(float(op.divisor.data), ct)
        n = self.ev(arith.IndexCastOp(self.product(counts), i64))
        return self.ev(arith.SIToFPOp(n, ct))

    # --- order: sort / top-k by rank (issue 11, item 5) --------------------------------------------

    def order_key_at(self, src: SSAValue, idx) -> SSAValue:
        """Element `idx` of an order op's source in the compute type, rounded to the source's
        16-bit float type when it was computed in f32 (a fused sigmoid / softmax): the order and
        its tie rule are those of the tile's own values, which the interpreter rounds."""
        x = self.value_at(src, idx)
        elt = src.type.element_type
        if isinstance(src, BlockArgument) or not is_float(elt) or compute_type(elt) == elt:
            return x
        return self.ev(arith.ExtFOp(self.ev(arith.TruncFOp(x, elt)), compute_type(elt)))

    def order_before(self, op: tile.SortOp | tile.TopkOp, a: SSAValue, b: SSAValue) -> SSAValue:
        """i1: value `a` comes strictly before value `b` in `op`'s order (compute-type values;
        torch's total order: NaN is the largest, -0.0 == 0.0, unsigned ints as unsigned)."""
        descending = op.is_descending if isinstance(op, tile.SortOp) else op.is_largest
        if descending:
            a, b = b, a
        elt = op.source.type.element_type
        if is_float(compute_type(elt)):
            # a < b in the total order: a is not NaN and (b is NaN or a < b)
            return self.ev(arith.AndIOp(self.ev(arith.CmpfOp(a, b, "ult")), self.ev(arith.CmpfOp(a, a, "ord"))))
        return self.ev(arith.CmpiOp(a, b, "ult" if is_unsigned(elt) else "slt"))

    def order_rank(
        self, op: tile.SortOp | tile.TopkOp, value, i: SSAValue, n: SSAValue, stop_at: int | None = None
    ) -> SSAValue:
        """The position of element `i` of its row in `op`'s stable order (an i32): how many
        elements j of the row (value(j): element j in the compute type, j in [0, n)) come
        before it, equal ones counting when j < i. Two `simd` counting loops, j < i and j > i,
        one comparison each. (Rank sort: O(n^2) per row, every element independent.)
        With `stop_at` (a top-k's k), the loops run in chunks of RANK_CHUNK and skip the rest
        once the count reaches it (the element is out; the count returned is then >= stop_at)."""
        xi = value(i)
        scope = self.deepest([i, xi])
        one = self.index(1)
        attrs = {SIMD: UnitAttr(), REDUCE_KINDS_ATTR: ArrayAttr([StringAttr("add")])}
        count = self.const(0, i32)
        true = self.const(True, i1)

        def counted(sc: Scope, lo, hi, earlier: bool, start: SSAValue) -> SSAValue:
            loop, body = self.open_for(sc, lo, hi, one, [start], attrs)
            xj = value(body.block.args[0])
            if earlier:  # j < i: j comes first unless i is strictly before it
                c = self.ev(arith.XOrIOp(self.order_before(op, xi, xj), true))
            else:
                c = self.order_before(op, xj, xi)
            acc = self.ev(arith.AddiOp(body.block.args[1], self.ev(arith.ExtUIOp(c, i32))))
            return self.close_for(sc, loop, body, [acc])[0]

        for lo, hi, earlier in ((self.index(0), i, True), (self.addi(i, one), n, False)):
            if stop_at is None:
                count = counted(scope, lo, hi, earlier, count)
                continue
            chunks, cs = self.open_for(scope, lo, hi, self.index(RANK_CHUNK), [count])
            c0, acc = cs.block.args
            going = self.emit(arith.CmpiOp(acc, self.const(stop_at, i32), "slt"), cs).results[0]
            iff, then = self.open_if_else(cs, going, [acc])
            c1 = self.emit(
                arith.MinUIOp(self.emit(arith.AddiOp(c0, self.index(RANK_CHUNK)), then).results[0], hi), then
            )
            new = counted(then, c0, c1.results[0], earlier, acc)
            (count,) = self.close_for(scope, chunks, cs, self.close_if_else(cs, iff, then, [new]))
        return count

    def order_store(
        self, op: tile.SortOp | tile.TopkOp, value, at, i: SSAValue, n: SSAValue, outs: dict[SSAValue, SSAValue]
    ) -> None:
        """Element `i` of its row (`value` as in `order_rank`) stored at its rank: its value into
        the buffer of `outs[op.values]`, `i` into that of `outs[op.indices]` (those yielded), at
        the multi-index at(rank) of the row; for a top-k only when rank < k."""
        rank = self.order_rank(
            op, value, i, n, op.k.data if isinstance(op, tile.TopkOp) and self.target != "cpu" else None
        )
        outer = scope = self.deepest([rank])
        iff = None
        if isinstance(op, tile.TopkOp):
            kept = self.emit(arith.CmpiOp(rank, self.const(op.k.data, i32), "slt"), outer).results[0]
            iff, scope = self.open_if(outer, kept)
        dest = at(self.emit(arith.IndexCastOp(rank, IndexType()), scope).results[0])
        if op.values in outs:
            x = self.to_storage(value(i), op.values.type.element_type)
            self.emit(mapped.StoreOp(x, outs[op.values], dest), scope)
        if op.indices in outs:
            pos = self.emit(arith.IndexCastOp(i, i64), scope).results[0]
            self.emit(mapped.StoreOp(pos, outs[op.indices], dest), scope)
        if iff is not None:
            self.close_if(outer, iff)

    # --- finishing --------------------------------------------------------------------------------

    def store(
        self, value: SSAValue, buffer_arg: SSAValue, idx: Sequence[SSAValue], elt: Attribute | None = None
    ) -> None:
        """Store `value` (a value of the tile element type `elt`, default the buffer's)."""
        bt = buffer_arg.type
        assert isinstance(bt, mapped.BufType)
        x = self.to_storage(value, bt.element_type if elt is None else elt)
        if not idx:  # a rank-0 value lives in a buffer of one element
            idx = [self.index(0)] * bt.rank
        self.emit(mapped.StoreOp(x, buffer_arg, list(idx)))

    def finish(self) -> mapped.KernelOp:
        self.block.add_op(mapped.ReturnOp())
        from xdsl.ir import Region as _Region

        k = mapped.KernelOp(self.name, [a.type for a in self.block.args], target=self.target, body=_Region(self.block))
        k.location = self.location
        return k


POOL_UNROLL = 64
"""Windows of at most this many taps are unrolled (straight-line code per output element)."""


def parallel_rows(
    g: KernelGen, sizes: list[SSAValue], work: SSAValue, min_work: int
) -> tuple[Scope, list[SSAValue], object]:
    """A parallel loop over the flattened `sizes` (or nothing when empty): (scope, indices, op).
    It starts the thread team only when `work` >= `min_work`."""
    if not sizes:
        return g.top, [], None
    total = g.product(sizes)
    par, inner = g.open_parallel(g.top, [g.index(0)], [total], [g.index(1)], "cores", work, min_work)
    idx = g.delinearize(inner.block.args[0], sizes)
    return inner, idx, par


def _prod_int(xs) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


class _PoolAxis:
    """One pooled axis of a `tile.pool` at output index `o`: its taps (position, validity), the
    window's first tap inside the input and the divisor count of the window at a forward output.
    Index arithmetic is unsigned: positions are shifted by the padding before they are compared."""

    def __init__(self, g: KernelGen, op: tile.PoolOp, a: int, n: int, m: int, o: SSAValue):
        self.g, self.n, self.m, self.o = g, n, m, o
        self.kind = op.kind.data
        self.exclude_pad = op.exclude_pad is not None
        if self.kind in tile.PoolOp.WINDOWED:
            self.k, self.s, self.p, self.d = op.window()[a]
        if self.kind.startswith("adaptive"):
            bins = tile.adaptive_bins(n, m)
            lengths = [e - b for b, e in bins]
            self.taps, self.min_len = max(lengths), min(lengths)
        elif self.kind in tile.PoolOp.GRADS:  # the outputs whose windows can hold an input element
            self.taps = -(-self.k // self.s) if self.d == 1 else self.k
        else:
            self.taps = self.k

    def _bin(self, o: SSAValue) -> tuple[SSAValue, SSAValue]:
        g = self.g
        if o is self.o and hasattr(self, "bin"):
            return self.bin
        start = g.divui(g.muli(o, g.index(self.n)), g.index(self.m))
        end = g.divui(g.addi(g.muli(g.addi(o, g.index(1)), g.index(self.n)), g.index(self.m - 1)), g.index(self.m))
        if o is self.o:
            self.bin = (start, end)
        return start, end

    def _cmp(self, a: SSAValue, b: SSAValue, pred: str) -> SSAValue:
        return self.g.ev(arith.CmpiOp(a, b, pred))

    def tap(self, k) -> tuple[SSAValue, SSAValue | None]:
        """(position in the source, i1 validity or None when always valid) of tap `k` (an int when
        unrolled, else a loop index)."""
        memo = self.__dict__.setdefault("taps_done", {})
        if k not in memo:
            memo[k] = self._tap(k)
        return memo[k]

    def _tap(self, k) -> tuple[SSAValue, SSAValue | None]:
        g = self.g
        ck = k if isinstance(k, int) else None
        ki = g.index(k) if isinstance(k, int) else k
        if self.kind.startswith("adaptive"):
            start, end = self._bin(self.o)
            q = g.addi(start, ki)
            if ck is not None and ck < self.min_len:
                return q, None
            return g.minui(q, g.subi(end, g.index(1))), self._cmp(q, end, "ult")
        if self.kind in tile.PoolOp.GRADS and self.d > 1:
            # input position i is tap k of output o when i + p = o s + k d
            shifted = g.addi(self.o, g.index(self.p))
            kd = g.muli(ki, g.index(self.d))
            conds = [] if ck == 0 else [self._cmp(shifted, kd, "uge")]
            t = shifted if ck == 0 else g.subi(g.ev(arith.MaxUIOp(shifted, kd)), kd)
            conds.append(self._cmp(g.remui(t, g.index(self.s)), g.index(0), "eq"))
            oo = g.divui(t, g.index(self.s))
            conds.append(self._cmp(oo, g.index(self.m), "ult"))
            return g.minui(oo, g.index(self.m - 1)), self._and(conds)
        if self.kind in tile.PoolOp.GRADS:
            # input position i is in the window of output ob - k, ob = (i + p) // s, when that
            # output exists and its window (o*s - p, o*s - p + K] reaches i
            shifted = g.addi(self.o, g.index(self.p))
            ob = g.divui(shifted, g.index(self.s))
            conds, oo = [], ob
            if ck != 0:
                conds.append(self._cmp(ob, ki, "uge"))
                oo = g.ev(arith.MaxUIOp(ob, ki))  # clamped with min/max (see below)
            oo = g.subi(oo, ki)
            pos = oo
            if (self.n - 1 + self.p) // self.s - (ck or 0) >= self.m:
                conds.append(self._cmp(oo, g.index(self.m), "ult"))
                pos = g.minui(oo, g.index(self.m - 1))
            if ck != 0 or self.s > self.k:
                conds.append(self._cmp(g.addi(g.muli(oo, g.index(self.s)), g.index(self.k)), shifted, "ugt"))
            return pos, self._and(conds)
        shifted = g.addi(self._base(), g.muli(ki, g.index(self.d)))
        # the position clamped with min/max, not selected by the checks: C compilers thread jumps
        # over selects that share a condition, and the loop no longer vectorizes
        pos, conds = shifted, []
        if self.p and (ck is None or ck * self.d < self.p):
            conds.append(self._cmp(shifted, g.index(self.p), "uge"))
            pos = g.ev(arith.MaxUIOp(pos, g.index(self.p)))
        pos = g.subi(pos, g.index(self.p))
        last = (self.m - 1) * self.s + (self.k - 1 if ck is None else ck) * self.d - self.p
        if last >= self.n:
            conds.append(self._cmp(shifted, g.index(self.n + self.p), "ult"))
            pos = g.minui(pos, g.index(self.n - 1))
        return pos, self._and(conds)

    def _and(self, conds: list[SSAValue]) -> SSAValue | None:
        ok = None
        for c in conds:
            ok = c if ok is None else self.g.ev(arith.AndIOp(ok, c))
        return ok

    def _base(self) -> SSAValue:
        if not hasattr(self, "base"):
            self.base = self.g.muli(self.o, self.g.index(self.s))
        return self.base

    def loop_bounds(self) -> tuple[SSAValue, SSAValue]:
        """The taps [lo, hi) a window loop walks. A forward max / avg window whose extent is larger
        than the padded input can hold (k d > n + 2 p: HF EfficientNet's `AvgPool2d(hidden_dim,
        ceil_mode=True)` as a global pool, a 320 x 320 window on 1 x 1) walks only its taps inside
        the input, per output: t with p <= o s + t d < n + p. Taps outside add nothing (avg: zeros;
        max: never better), so the result and its summation order are the same. Other kinds and
        windows: all of their taps."""
        g = self.g
        if self.kind not in ("max", "avg") or self.k * self.d <= self.n + 2 * self.p:
            return g.index(0), g.index(self.taps)
        base, d = self._base(), g.index(self.d)
        lo = g.divui(g.addi(g.subi(g.ev(arith.MaxUIOp(base, g.index(self.p))), base), g.index(self.d - 1)), d)
        room = g.subi(g.ev(arith.MaxUIOp(g.index(self.n + self.p), base)), base)  # n + p - o s, or 0
        hi = g.minui(g.index(self.k), g.divui(g.addi(room, g.index(self.d - 1)), d))
        return lo, g.ev(arith.MaxUIOp(lo, hi))

    def first(self) -> SSAValue:
        """The position of the window's first tap inside the input (max pools)."""
        g = self.g
        if self.kind.startswith("adaptive"):
            return self._bin(self.o)[0]
        base = self._base()
        if not self.p:
            return base
        p = g.index(self.p)
        if self.d == 1:
            return g.subi(g.ev(arith.MaxUIOp(base, p)), p)
        # base < p: the first tap k with base + k d >= p, k = ceil((p - base) / d)
        inside = self._cmp(base, p, "uge")
        gap = g.subi(p, base)
        k = g.divui(g.addi(gap, g.index(self.d - 1)), g.index(self.d))
        before = g.subi(g.muli(k, g.index(self.d)), gap)
        return g.ev(arith.SelectOp(inside, g.subi(base, p), before))

    def count(self, o: SSAValue) -> SSAValue:
        """The divisor count of the window of forward output `o` along this axis."""
        g = self.g
        if self.kind.startswith("adaptive"):
            start, end = self._bin(o)
            return g.subi(end, start)
        base = self._base() if o is self.o else g.muli(o, g.index(self.s))
        top = g.addi(base, g.index(self.k))
        if self.exclude_pad:
            hi = g.minui(top, g.index(self.n + self.p))
            lo = g.ev(arith.MaxUIOp(base, g.index(self.p))) if self.p else base
            return g.subi(hi, lo)
        return g.subi(g.minui(top, g.index(self.n + 2 * self.p)), base)


def scan_identity(kind: str, ct: Attribute):
    """The value a scan starts from (and an exclusive scan's first element)."""
    if kind == "logaddexp":
        return float("-inf")
    one = 1 if kind == "mul" else 0
    return float(one) if is_float(ct) else one


def _ct(op: tile.ScanOp) -> Attribute:
    return compute_type(op.result.type.element_type)


__all__ = ["KernelGen", "Scope", "SIMD", "REDUCE_KINDS_ATTR", "parallel_rows", "scan_identity"]
