"""mapped-to-hw-nv: gpu `mapped.kernel`s -> `hw.nv.kernel`s (PTX-level IR).

- Parameters: a global buffer becomes a `!hw.ptr<global>` plus one i64 per dynamic dimension;
  index scalars become i64. `index` stays the 64-bit integer type inside the body.
- Thread hierarchy ops read special registers (`hw.nv.sreg`); loads/stores compute byte
  addresses (`hw.nv.ld/st`, 1/2/4 registers of up to 16 bytes; 16-bit lanes are packed in pairs);
  vectors of the mapped level live as per-lane values here (no vector registers in PTX).
- Shared buffers are carved out of the dynamic shared segment at 128-byte aligned offsets
  (with their XOR swizzle applied to byte offsets).
- `mapped.reduce` becomes butterfly shuffles (warp) plus a 32-slot shared scratch (block).
- `math` ops become PTX approximations: exp = ex2.approx(x*log2 e), log = lg2.approx*ln 2,
  rsqrt.approx, and tanh/erf/pow as short formulas on those (accuracy in docs/cuda.md).
Fragment ops (`frag_*`, `mma`) and async copies are lowered by `lower_fragments` (gpu_mma).
The `mapped.host` is kept: the CUDA runtime executes it in Python (allocations and launches).
"""

from __future__ import annotations

import math as pymath

from xdsl.context import Context
from xdsl.dialects import arith, math, scf, vector
from xdsl.dialects.builtin import (
    Float32Type,
    NameLoc,
    StringAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    VectorType,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Operation, SSAValue

from tilec.dialects import mapped
from tilec.dialects.common import DYNAMIC, bitwidth
from tilec.dialects.hw import PtrToIntOp, PtrType
from tilec.dialects.hw import nv
from tilec.conversion.builder import neutral
from tilec.conversion.edit import guarded, insert_before, replace_with
from tilec.conversion.mapped_to_hw.gpu_kernel import GpuKernelLowering
from tilec.passes.api import PassFailure, TilecPass, register_pass

SCRATCH = "tilec_reduce_scratch"


class _Kernel(GpuKernelLowering):
    def __init__(self, k: mapped.KernelOp, sm: str, narrow: bool = True):
        super().__init__(k)
        self.narrow = narrow  # index will be 32 bits wide (narrow_index runs after)
        params = []
        for a in k.args:
            t = a.type
            if isinstance(t, mapped.BufType):
                params.append(PtrType("global"))
                params += [i64] * sum(1 for d in t.get_shape() if d == DYNAMIC)
            elif isinstance(t, IndexType):
                params.append(i64)
            else:
                params.append(t)
        block_dims = list(k.block_size.iter_values()) if k.block_size is not None else [1, 1, 1]
        self.block_threads = 1
        for b in block_dims:
            self.block_threads *= b
        self.func = nv.KernelOp(k.sym_name.data, params, sm=sm, maxntid=block_dims, smem=k.smem_bytes or None)
        self.func.location = k.location
        self.block = self.func.body.block
        self.bufs: dict[SSAValue, tuple[SSAValue, list[SSAValue], str, int]] = {}  # base addr, dims, space, swizzle
        self.lanes: dict[SSAValue, list[SSAValue]] = {}
        self.shared_offset = 0
        it = iter(self.block.args)
        for a in k.args:
            t = a.type
            p = next(it)
            if a.name_hint:
                p.name_hint = a.name_hint
            if isinstance(t, mapped.BufType):
                base = self._top(PtrToIntOp(p))
                dims = []
                for ax, d in enumerate(t.get_shape()):
                    if d == DYNAMIC:
                        q = next(it)
                        if a.name_hint:
                            q.name_hint = f"{a.name_hint}_d{ax}"
                        dims.append(self._top(arith.IndexCastOp(q, IndexType())))
                    else:
                        dims.append(self.const(d, IndexType()))
                self.bufs[a] = (base, dims, "global", 0)
            elif isinstance(t, IndexType):
                a.replace_all_uses_with(self._top(arith.IndexCastOp(p, IndexType())))
            else:
                a.replace_all_uses_with(p)
        # buffers the kernel never writes are read through the non-coherent (read-only) path
        written = {op.dest for op in k.body.walk() if isinstance(op, mapped.StoreOp | mapped.FragStoreOp | mapped.CopyOp | mapped.AsyncCopyOp)}
        self.read_only = {a for a in k.args if isinstance(a.type, mapped.BufType) and a not in written}
        for o in list(k.body.block.ops):
            o.detach()
            self.block.add_op(o)

    # --- running --------------------------------------------------------------------------------

    def run(self) -> nv.KernelOp:
        self.convert_all()
        self.place_at_top(([nv.SharedOp(SCRATCH, 256, 16)] if self.scratch else []) + self.top_ops)
        self.erase_dead()
        return self.func

    def insert_value(self, op: Operation, before: Operation) -> SSAValue:
        return _ins(op, before)  # located at the mapped op being lowered (PTX comments name it)

    def convert(self, op: Operation) -> None:
        named = op.name.startswith("mapped.") or op.name.startswith("math.")
        if named:
            _ORIGIN.append(op)
        try:
            self._convert(op)
        finally:
            if named:
                _ORIGIN.pop()

    def _convert(self, op: Operation) -> None:
        from tilec.conversion.mapped_to_hw.fragments_nv import expand_for, expand_yield

        if isinstance(op, scf.ForOp) and expand_for(self, op):
            return
        if isinstance(op, scf.YieldOp) and expand_yield(self, op):
            return
        if isinstance(op, mapped.ReturnOp):
            _replace(op, [nv.ReturnOp()])
        elif isinstance(op, mapped.ThreadIdOp | mapped.BlockIdOp | mapped.BlockDimOp | mapped.GridDimOp):
            reg = {mapped.ThreadIdOp: "tid", mapped.BlockIdOp: "ctaid", mapped.BlockDimOp: "ntid", mapped.GridDimOp: "nctaid"}[type(op)]
            s = nv.SregOp(f"{reg}.{op.dim.data}")
            _replace(op, [s, arith.IndexCastOp(s.results[0], IndexType())])
        elif isinstance(op, mapped.LaneIdOp):
            s = nv.SregOp("laneid")
            _replace(op, [s, arith.IndexCastOp(s.results[0], IndexType())])
        elif isinstance(op, mapped.WarpIdOp):
            s = nv.SregOp("tid.x")
            d = arith.DivUIOp(s.results[0], self.const(32, i32))
            _replace(op, [s, d, arith.IndexCastOp(d.result, IndexType())])
        elif isinstance(op, mapped.DimOp):
            op.result.replace_all_uses_with(self.bufs[op.source][1][op.axis.data])
            op.detach()
            op.erase()
        elif isinstance(op, mapped.AllocOp):
            t = op.result.type
            if t.space_name != "shared":
                raise PassFailure(op, "mapped-to-hw-nv: register buffers are not supported yet on GPUs")
            base = self._top(nv.DynamicSharedAddrOp())
            addr = self._top(arith.AddiOp(base, self.const(self.shared_offset, i32))) if self.shared_offset else base
            self.shared_offset += -(-(t.size_bytes() or 0) // 128) * 128
            sw = t.swizzle
            self.bufs[op.result] = (addr, [self.const(d, IndexType()) for d in t.get_shape()], "shared", sw)
            self.dead.append(op)
        elif isinstance(op, mapped.LoadOp):
            self.load(op)
        elif isinstance(op, mapped.StoreOp):
            self.store(op)
        elif isinstance(op, vector.ExtractOp):
            lanes = self.lanes_of(op.vector, op)
            pos = list(op.static_position.iter_values())[0]
            op.result.replace_all_uses_with(lanes[pos])
            self.dead.append(op)
        elif isinstance(op, vector.BroadcastOp):
            self.lanes[op.vector] = [op.source] * op.vector.type.get_shape()[0]
            self.dead.append(op)
        elif isinstance(op, vector.InsertOp):
            lanes = list(self.lanes_of(op.dest, op))
            lanes[list(op.static_position.iter_values())[0]] = op.source
            self.lanes[op.result] = lanes
            self.dead.append(op)
        elif isinstance(op, mapped.BarrierOp):
            _replace(op, [nv.BarSyncOp(0) if op.scope.data == "block" else nv.BarWarpSyncOp()])
        elif isinstance(op, mapped.ReduceOp):
            self.reduce(op)
        elif isinstance(op, math.ExpOp | math.LogOp | math.TanhOp | math.ErfOp | math.RsqrtOp | math.PowFOp):
            self.math(op)
        elif op.name.startswith("mapped."):
            from tilec.conversion.mapped_to_hw.fragments_nv import lower_fragment_op

            if not lower_fragment_op(self, op):
                raise PassFailure(op, f"mapped-to-hw-nv: {op.name} is not supported yet on NVIDIA GPUs")

    # --- addressing -----------------------------------------------------------------------------------

    def address(self, buf: SSAValue, indices, before: Operation) -> tuple[SSAValue, str]:
        base, dims, space, sw = self.bufs[buf]
        bt = buf.type
        ebytes = max(1, bitwidth(bt.element_type) // 8)
        ins = lambda o: self.ins(o, before)  # noqa: E731
        indices = list(indices)
        if space == "global":
            off = None
            for i, d in zip(indices, dims):
                off = i if off is None else ins(arith.AddiOp(ins(arith.MuliOp(off, d)), i))
            if off is None:
                off = self.const(0, IndexType())
            if self.narrow:
                # zero-extend: the element offset of an access that happens is in [0, 2^31) (the
                # runtime checks buffer sizes), and an out-of-bounds one is never dereferenced;
                # ptxas then folds extend+scale+add into one IMAD.WIDE.U32 (sign extension: 4 instrs)
                off64 = ins(arith.ExtUIOp(ins(arith.IndexCastOp(off, i32)), i64))
            else:
                off64 = ins(arith.IndexCastOp(off, i64))
            byte = ins(arith.MuliOp(off64, self.const(ebytes, i64)))
            return ins(arith.AddiOp(base, byte)), space
        # shared: the last two axes (swizzled, usually loop-invariant) + the leading slot axes; a
        # slot offset is a multiple of the swizzle period (mapped.buf checks it), so it commutes
        inner_idx, lead_idx = indices[-2:], indices[:-2]
        inner_dims, lead_dims = dims[-2:], dims[:-2]
        off = None
        for i, d in zip(inner_idx, inner_dims):
            off = i if off is None else ins(arith.AddiOp(ins(arith.MuliOp(off, d)), i))
        off32 = ins(arith.IndexCastOp(off, i32))
        byte = ins(arith.MuliOp(off32, self.const(ebytes, i32)))
        if sw:
            byte = self.swizzle(sw, byte, before)
        addr = ins(arith.AddiOp(base, byte))
        if lead_idx:
            slice_bytes = ebytes
            for d in bt.get_shape()[-2:]:
                slice_bytes *= d
            lead = None
            for i, d in zip(lead_idx, lead_dims):
                lead = i if lead is None else ins(arith.AddiOp(ins(arith.MuliOp(lead, d)), i))
            lead32 = ins(arith.IndexCastOp(lead, i32))
            addr = ins(arith.AddiOp(addr, ins(arith.MuliOp(lead32, self.const(slice_bytes, i32)))))
        return addr, space

    def swizzle(self, sw, byte: SSAValue, before: Operation) -> SSAValue:
        bits, base_, shift = sw.bits.data, sw.base.data, sw.shift.data
        mask = ((1 << bits) - 1) << base_
        hi = self.ins(arith.ShRUIOp(byte, self.const(shift, i32)), before)
        hi = self.ins(arith.AndIOp(hi, self.const(mask, i32)), before)
        return self.ins(arith.XOrIOp(byte, hi), before)

    def load(self, op: mapped.LoadOp) -> None:
        addr, space = self.address(op.source, op.indices, op)
        t = op.result.type
        if isinstance(t, VectorType):
            elt = t.get_element_type()
            n = t.get_shape()[0]
            nregs, rt = _register_plan(elt, n)
            nc = space == "global" and op.source in self.read_only
            ld = nv.LdOp(space, addr, rt, width=nregs, nc=nc, result_types=[rt] * nregs)
            _insert(ld, op)
            self.lanes[op.result] = _unpack(list(ld.values), elt, n, op)
            self.dead.append(op)
        elif t == i1:  # bools are bytes in memory
            ld = nv.LdOp(space, addr, IntegerType(8))
            _replace(op, [ld, arith.CmpiOp(ld.results[0], self.const(0, IntegerType(8)), "ne")])
        else:
            ld = nv.LdOp(space, addr, t, nc=space == "global" and op.source in self.read_only)
            _replace(op, [ld])

    def store(self, op: mapped.StoreOp) -> None:
        addr, space = self.address(op.dest, op.indices, op)
        t = op.value.type
        if isinstance(t, VectorType):
            elt = t.get_element_type()
            t.get_shape()[0]
            lanes = self.lanes_of(op.value, op)
            regs = _pack(lanes, elt, op)
            _insert(nv.StOp(space, addr, regs), op)
        elif t == i1:
            byte = _ins(arith.ExtUIOp(op.value, IntegerType(8)), op)
            _insert(nv.StOp(space, addr, [byte]), op)
        else:
            _insert(nv.StOp(space, addr, [op.value]), op)
        op.detach()
        op.erase()

    def lanes_of(self, v: SSAValue, at: Operation) -> list[SSAValue]:
        if v not in self.lanes:
            raise PassFailure(at, "mapped-to-hw-nv: vector values must come from loads, broadcasts or inserts")
        return self.lanes[v]

    # --- reductions -------------------------------------------------------------------------------

    def warp_reduce(self, kind: str, x: SSAValue, before: Operation) -> SSAValue:
        for off in (16, 8, 4, 2, 1):
            y = _ins(nv.ShflOp("bfly", x, off), before)
            x = self.combine(kind, x, y, before)
        return x

    def reduce(self, op: mapped.ReduceOp) -> None:
        kind = op.kind.data
        x = op.value
        if bitwidth(x.type) != 32:
            raise PassFailure(op, f"mapped-to-hw-nv: cross-thread reductions of {x.type} are not supported yet (32-bit only)")
        r = self.warp_reduce(kind, x, op)
        if op.scope.data == "block" and self.block_threads > 32:
            self.scratch = True
            nwarps = (self.block_threads + 31) // 32
            base = _ins(nv.SharedAddrOp(SCRATCH), op)
            tid = _ins(nv.SregOp("tid.x"), op)
            warp = _ins(arith.DivUIOp(tid, self.const(32, i32)), op)
            lane = _ins(arith.RemUIOp(tid, self.const(32, i32)), op)
            is_lane0 = _ins(arith.CmpiOp(lane, self.const(0, i32), "eq"), op)
            slot = _ins(arith.AddiOp(base, _ins(arith.MuliOp(warp, self.const(4, i32)), op)), op)
            _if(op, is_lane0, [nv.StOp("shared", slot, [r])])
            _insert(nv.BarSyncOp(0), op)
            lane_slot = _ins(arith.AddiOp(base, _ins(arith.MuliOp(lane, self.const(4, i32)), op)), op)
            live = _ins(arith.CmpiOp(lane, self.const(nwarps, i32), "ult"), op)
            safe_slot = _ins(arith.SelectOp(live, lane_slot, base), op)
            v = _ins(nv.LdOp("shared", safe_slot, x.type), op)
            v = _ins(arith.SelectOp(live, v, self.const(neutral(kind, x.type), x.type)), op)
            v = self.warp_reduce(kind, v, op)  # every warp reduces the partials: no second barrier round
            _insert(nv.BarSyncOp(0), op)  # the scratch may be reused by the next reduction
            r = v
        op.result.replace_all_uses_with(r)
        op.detach()
        op.erase()

    # --- math -------------------------------------------------------------------------------------

    def math(self, op: Operation) -> None:
        t = op.results[0].type
        if not isinstance(t, Float32Type):
            raise PassFailure(op, f"mapped-to-hw-nv: {op.name} on {t} is not supported yet on NVIDIA GPUs (f32 only)")
        x = op.operands[0]
        C = lambda v: self.const(v, f32)  # noqa: E731
        ins = lambda o: _ins(o, op)  # noqa: E731

        def exp(v):
            return ins(nv.MathOp("ex2", "approx", ins(arith.MulfOp(v, C(1.4426950408889634)))))

        if isinstance(op, math.ExpOp):
            y = exp(x)
        elif isinstance(op, math.LogOp):
            y = ins(arith.MulfOp(ins(nv.MathOp("lg2", "approx", x)), C(0.6931471805599453)))
        elif isinstance(op, math.RsqrtOp):
            y = ins(nv.MathOp("rsqrt", "approx", x))
        elif isinstance(op, math.TanhOp) and "tilec.result_bits" in op.attributes:
            # feeds a 16-bit result only: tanh.approx's 2^-11 relative error is f16's rounding
            y = ins(nv.MathOp("tanh", "approx", x))
        elif isinstance(op, math.TanhOp):
            a = ins(math.AbsFOp(x))
            z = ins(arith.MulfOp(x, x))
            p = C(-5.70498872745e-3)
            for coef in (2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1):
                p = ins(arith.AddfOp(ins(arith.MulfOp(p, z)), C(coef)))
            small = ins(arith.AddfOp(x, ins(arith.MulfOp(ins(arith.MulfOp(x, z)), p))))
            e2 = exp(ins(arith.MulfOp(a, C(2.0))))
            rcp = ins(nv.MathOp("rcp", "approx", ins(arith.AddfOp(e2, C(1.0)))))  # 1 ulp; e2 + 1 >= 2
            big = ins(arith.SubfOp(C(1.0), ins(arith.MulfOp(C(2.0), rcp))))
            neg = ins(arith.CmpfOp(x, C(0.0), "olt"))
            big = ins(arith.SelectOp(neg, ins(arith.NegfOp(big)), big))
            use_small = ins(arith.CmpfOp(a, C(0.625), "olt"))
            y = ins(arith.SelectOp(use_small, small, big))
        elif isinstance(op, math.ErfOp):
            a = ins(math.AbsFOp(x))
            z = ins(arith.MulfOp(x, x))
            s = C(-1.0 / 75600.0)
            for coef in (1 / 9360, -1 / 1320, 1 / 216, -1 / 42, 1 / 10, -1 / 3, 1.0):
                s = ins(arith.AddfOp(ins(arith.MulfOp(s, z)), C(coef)))
            small = ins(arith.MulfOp(ins(arith.MulfOp(C(1.1283791670955126), x)), s))
            t_ = ins(nv.MathOp("rcp", "approx", ins(arith.AddfOp(C(1.0), ins(arith.MulfOp(C(0.5), a))))))
            q = C(0.17087277)
            for coef in (-0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418, 0.37409196, 1.00002368, -1.26551223):
                q = ins(arith.AddfOp(ins(arith.MulfOp(q, t_)), C(coef)))
            erfc = ins(arith.MulfOp(t_, exp(ins(arith.AddfOp(ins(arith.NegfOp(z)), q)))))
            big = ins(arith.SubfOp(C(1.0), erfc))
            neg = ins(arith.CmpfOp(x, C(0.0), "olt"))
            big = ins(arith.SelectOp(neg, ins(arith.NegfOp(big)), big))
            use_small = ins(arith.CmpfOp(a, C(0.5), "olt"))
            y = ins(arith.SelectOp(use_small, small, big))
        else:  # pow: 2^(y*log2|x|), sign and NaN fixed for negative x
            base, e = x, op.operands[1]
            mag = ins(nv.MathOp("ex2", "approx", ins(arith.MulfOp(e, ins(nv.MathOp("lg2", "approx", ins(math.AbsFOp(base))))))))
            ei = ins(arith.FPToSIOp(e, i32))
            integral = ins(arith.CmpfOp(ins(arith.SIToFPOp(ei, f32)), e, "oeq"))
            odd = ins(arith.CmpiOp(ins(arith.AndIOp(ei, self.const(1, i32))), self.const(1, i32), "eq"))
            neg_base = ins(arith.CmpfOp(base, C(0.0), "olt"))
            signed = ins(arith.SelectOp(odd, ins(arith.NegfOp(mag)), mag))
            negres = ins(arith.SelectOp(integral, signed, C(pymath.nan)))
            y = ins(arith.SelectOp(neg_base, negres, mag))
            zero_e = ins(arith.CmpfOp(e, C(0.0), "oeq"))
            y = ins(arith.SelectOp(zero_e, C(1.0), y))
        if not isinstance(op, math.PowFOp | math.RsqrtOp | math.LogOp):
            nan = ins(arith.CmpfOp(x, x, "uno"))
            y = ins(arith.SelectOp(nan, x, y))
        op.results[0].replace_all_uses_with(y)
        op.detach()
        op.erase()


def _register_plan(elt, n: int) -> tuple[int, object]:
    """How n lanes of `elt` travel: (number of registers, register type); 16-bit lanes in pairs."""
    if bitwidth(elt) >= 32:
        return n, elt
    return max(1, bitwidth(elt) * n // 32), i32


def _unpack(regs: list[SSAValue], elt, n: int, before: Operation) -> list[SSAValue]:
    if bitwidth(elt) >= 32:
        return regs
    if bitwidth(elt) == 16:
        lanes = []
        for r in regs:
            u = nv.UnpackOp(r, elt)
            _insert(u, before)
            lanes += list(u.results)
        return lanes[:n]
    raise PassFailure(before, f"mapped-to-hw-nv: vectors of {elt} are not supported yet")


def _pack(lanes: list[SSAValue], elt, before: Operation) -> list[SSAValue]:
    if bitwidth(elt) >= 32:
        return lanes
    if bitwidth(elt) == 16:
        return [_ins(nv.PackOp(lanes[i], lanes[i + 1]), before) for i in range(0, len(lanes), 2)]
    raise PassFailure(before, f"mapped-to-hw-nv: vectors of {elt} are not supported yet")


_ORIGIN: list[Operation] = []  # the mapped op being lowered (innermost last)


def origin_location(fallback: Operation):
    """Where a new hw op comes from: `loc("mapped.load"(file:line:col))` naming the mapped op being
    lowered (the PTX printer turns these into comments), else the fallback op's location."""
    if _ORIGIN:
        src = _ORIGIN[-1]
        inner = src.location
        if isinstance(inner, NameLoc):
            return inner
        return NameLoc(StringAttr(src.name), inner)
    return fallback.location


def _insert(op: Operation, before: Operation) -> Operation:
    return insert_before(op, before, origin_location(before))


def _ins(op: Operation, before: Operation) -> SSAValue:
    return _insert(op, before).results[0]


def _replace(old: Operation, new: list[Operation]) -> None:
    replace_with(old, new, origin_location(old))


def _if(before: Operation, cond: SSAValue, ops: list[Operation]) -> None:
    guarded(before, cond, ops, origin_location(before))


def narrow_index(kernel: nv.KernelOp) -> None:
    """Make `index` 32 bits wide inside a GPU kernel (64-bit integer math costs GPUs 2-4x).

    Buffer sizes and element offsets then fit in 31 bits, which the CUDA runtime checks before
    every launch; byte addresses stay 64-bit (the index_cast to i64 before scaling)."""
    for op in list(kernel.body.walk()):
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    if isinstance(arg.type, IndexType):
                        arg._type = i32
        if isinstance(op, arith.ConstantOp) and isinstance(op.result.type, IndexType):
            new = arith.ConstantOp(IntegerAttr(op.value.value.data, i32), i32)
            _replace(op, [new])
            continue
        if isinstance(op, arith.IndexCastOp):
            src, dst = op.input.type, op.result.type
            src_w = 32 if isinstance(src, IndexType) else src.width.data
            dst_w = 32 if isinstance(dst, IndexType) else dst.width.data
            if isinstance(dst, IndexType):
                dst = i32
            if src_w == dst_w:
                op.result.replace_all_uses_with(op.input)
                op.detach()
                op.erase()
            elif src_w < dst_w:
                _replace(op, [arith.ExtSIOp(op.input, dst)])
            else:
                _replace(op, [arith.TruncIOp(op.input, dst)])
            continue
        for r in op.results:
            if isinstance(r.type, IndexType):
                r._type = i32


@register_pass
class MappedToHwNv(TilecPass):
    """Lower gpu mapped kernels to hw.nv kernels (the mapped.host stays for the runtime)."""

    name = "mapped-to-hw-nv"
    sm: str = "sm_90"
    index_bits: int = 32

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        sm = self.sm if self.sm.startswith("sm_") else f"sm_{self.sm}"
        if sm not in ("sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"):
            raise PassFailure(op, f"mapped-to-hw-nv: unknown target {self.sm} (sm_80, sm_86, sm_89, sm_90, sm_90a)")
        block = op.body.block
        for k in list(block.ops):
            if isinstance(k, mapped.KernelOp):
                if k.target.data != "gpu":
                    raise PassFailure(k, f"mapped-to-hw-nv: kernel @{k.sym_name.data} targets {k.target.data}")
                if self.index_bits not in (32, 64):
                    raise PassFailure(k, f"mapped-to-hw-nv: index-bits must be 32 or 64, got {self.index_bits}")
                new = _Kernel(k, sm, narrow=self.index_bits == 32).run()
                if self.index_bits == 32:
                    narrow_index(new)
                block.insert_op_before(new, k)
                k.detach()
                k.erase(safe_erase=False)


__all__ = ["MappedToHwNv"]
