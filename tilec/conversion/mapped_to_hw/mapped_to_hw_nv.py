"""mapped-to-hw-nv: gpu `mapped.kernel`s -> `hw.nv.kernel`s (PTX-level IR).

The algorithm is gpu_kernel.py's (shared with mapped-to-hw-amd); this file holds the pass and the
NVIDIA answers to its questions (`NvTarget`):
- Parameters: a global buffer becomes an untyped `!hw.ptr<global>` plus one i64 per dynamic
  dimension.
- Thread hierarchy ops read special registers (`hw.nv.sreg`); loads/stores are `hw.nv.ld/st`
  (1/2/4 registers of up to 16 bytes; 16-bit lanes are packed in pairs, 8-bit ones in fours with
  shifts; buffers the kernel never
  writes are read through the non-coherent path); vectors of the mapped level live as per-lane
  values here (no vector registers in PTX).
- Shared buffers are carved out of the dynamic shared segment at 128-byte aligned offsets.
- `mapped.reduce` shuffles with `shfl.bfly`; the block scratch has 4-byte slots.
- `math` ops become PTX approximations: exp = ex2.approx(x*log2 e), log = lg2.approx*ln 2,
  rsqrt.approx, and tanh/erf/pow as short formulas on those (accuracy in docs/cuda.md); the
  math library's functions (sin, atan2, log1p, ...; f64 exp and log) are our f64 algorithms
  (mathlib.py), f32 ones evaluated in f64 and rounded once.
- New ops are located at a NameLoc naming the mapped op they come from: the PTX printer turns
  those into comments.
Fragment ops (`frag_*`, `mma`) and async copies are lowered in fragments_nv.py, the Hopper ops
(`ws_pipeline`, `tma_load`, `wgmma`, `wgmma` accumulators) in hopper_nv.py.
The `mapped.host` is kept: the CUDA runtime executes it in Python (allocations and launches).
"""

from __future__ import annotations

import math as pymath

from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    ModuleOp,
    StringAttr,
    VectorType,
    f32,
    f64,
    i32,
    i64,
)
from xdsl.ir import Operation, SSAValue

from tilec.archs import HOPPER
from tilec.conversion.mapped_to_hw import hopper_nv, mathlib
from tilec.conversion.mapped_to_hw.gpu_kernel import (
    GpuKernelLowering,
    GpuTarget,
    lower_gpu_kernels,
)
from tilec.conversion.tile_to_mapped.loopnest import MUL_WIDE
from tilec.dialects import mapped
from tilec.dialects.common import bitwidth
from tilec.dialects.hw import PtrType, nv
from tilec.mathfns import BY_MATH, MATH_FUNCTIONS
from tilec.passes.api import PassFailure, TilecPass, register_pass

MATHLIB_OPS = tuple(f.math for f in MATH_FUNCTIONS if f.ptx == "f64")
"""The math library's ops computed by our f64 algorithms (mathlib.py)."""

SREGS = {mapped.ThreadIdOp: "tid", mapped.BlockIdOp: "ctaid", mapped.BlockDimOp: "ntid", mapped.GridDimOp: "nctaid"}


class NvTarget(GpuTarget):
    """The NVIDIA (PTX) hooks of the GPU kernel lowering."""

    pass_name = "mapped-to-hw-nv"
    gpus = "NVIDIA GPUs"
    origin_locations = True  # PTX comments name the mapped op each instruction comes from
    keep_load_names = True
    scale_unit_stride = True  # ptxas folds the scale into the address arithmetic anyway
    scratch_slot = 4
    shuffle_word_bits = 32
    lowerings = hopper_nv.LOWERINGS  # fragments_nv.py's and the Hopper ops'
    math_ops = (math.ExpOp, math.LogOp, math.TanhOp, math.ErfOp, math.RsqrtOp, math.PowFOp) + MATHLIB_OPS
    math_ops += (arith.MuliOp,)  # only those marked MUL_WIDE change (lower_mul_wide)

    def __init__(self, sm: str) -> None:
        self.sm = sm
        self.tensor_maps: dict[str, list[tuple[int, int, int]]] = {}  # per kernel (mapped.tensor_maps)

    # --- the kernel ------------------------------------------------------------------------------

    def buffer_param(self, t: mapped.BufType) -> PtrType:
        return PtrType("global")

    def kernel_op(self, kernel, params, block_dims, threads) -> nv.KernelOp:
        """A PTX entry; a kernel with TMA loads gets one tensor-map parameter per (source, box)
        after its others, and a warp-specialized one `minnctapersm` = its blocks per SM (so setmaxnreg applies)
        and 1024-byte aligned shared memory (the 128-byte swizzle's period)."""
        maps = mapped.tensor_maps(kernel)
        self.tensor_maps[kernel.sym_name.data] = maps
        ws = [op for op in kernel.body.walk() if isinstance(op, mapped.WsPipelineOp)]
        return nv.KernelOp(
            kernel.sym_name.data,
            [*params, *[nv.TensorMapType()] * len(maps)],
            sm=self.sm,
            maxntid=block_dims,
            smem=kernel.smem_bytes or None,
            smem_align=1024 if ws and kernel.smem_bytes else None,
            minnctapersm=max(p.blocks_per_sm for p in ws) if ws else None,
        )

    def return_op(self) -> Operation:
        return nv.ReturnOp()

    # --- registers and synchronization -----------------------------------------------------------

    def hierarchy_register(self, op) -> Operation:
        return nv.SregOp(f"{SREGS[type(op)]}.{op.dim.data}")

    def tid_register(self) -> Operation:
        return nv.SregOp("tid.x")

    def lane_register(self) -> Operation:
        return nv.SregOp("laneid")

    def lower_lane_id(self, k: GpuKernelLowering, op: mapped.LaneIdOp) -> None:
        k.b.replace(op, k.as_index(self.lane_register()))

    def lower_warp_id(self, k: GpuKernelLowering, op: mapped.WarpIdOp) -> None:
        s = self.tid_register()
        d = arith.DivUIOp(s.results[0], k.const(32, i32))
        k.b.replace(op, [s, d, arith.IndexCastOp(d.result, IndexType())])

    def barrier(self, scope: str, op: Operation) -> Operation:
        return nv.BarSyncOp(0) if scope == "block" else nv.BarWarpSyncOp()

    def shuffle_xor(self, x: SSAValue, offset: int) -> Operation:
        return nv.ShflOp("bfly", x, offset)

    def reduce_problem(self, t) -> str | None:
        return None if bitwidth(t) == 32 else "32-bit only"

    # --- memory ----------------------------------------------------------------------------------

    def shared_decl(self, name: str, size: int, align: int) -> Operation:
        return nv.SharedOp(name, size, align)

    def shared_addr(self, name: str) -> Operation:
        return nv.SharedAddrOp(name)

    def shared_alloc(self, k: GpuKernelLowering, t: mapped.BufType) -> SSAValue:
        """A 128-byte aligned slice of the dynamic shared segment."""
        base = k.b.top(nv.DynamicSharedAddrOp())
        addr = k.b.top(arith.AddiOp(base, k.const(k.shared_offset, i32))) if k.shared_offset else base
        k.shared_offset += -(-(t.size_bytes() or 0) // 128) * 128
        return addr

    def global_offset(self, k: GpuKernelLowering, off: SSAValue, before: Operation) -> SSAValue:
        if not k.narrow:
            return super().global_offset(k, off, before)
        # zero-extend: the element offset of an access that happens is in [0, 2^31) (the runtime
        # checks buffer sizes), and an out-of-bounds one is never dereferenced; ptxas then folds
        # extend+scale+add into one IMAD.WIDE.U32 (sign extension: 4 instrs)
        return k.b.ins(arith.ExtUIOp(k.b.ins(arith.IndexCastOp(off, i32), before), i64), before)

    def load_op(self, space: str, addr: SSAValue, t, read_only: bool) -> Operation:
        return nv.LdOp(space, addr, t, nc=read_only)

    def store_op(self, space: str, addr: SSAValue, v: SSAValue) -> Operation:
        return nv.StOp(space, addr, [v])

    def atomic_add_op(self, addr: SSAValue, v: SSAValue, op: Operation) -> Operation:
        t = v.type
        kind = {"f32": "f32", "f64": "f64", "f16": "noftz.f16", "bf16": "noftz.bf16"}.get(str(t))
        if kind is None and isinstance(t, IntegerType) and t.width.data in (32, 64):
            kind = f"u{t.width.data}"
        if kind is None:
            raise PassFailure(
                op,
                f"mapped-to-hw-nv: atomic adds of {t} are not supported yet on NVIDIA GPUs; compile with deterministic=true",
            )
        if kind == "noftz.bf16" and self.sm not in HOPPER:
            raise PassFailure(
                op,
                f"mapped-to-hw-nv: atomic adds of bf16 are not supported yet on {self.sm} "
                "(red.global.add.noftz.bf16 needs sm_90); compile with deterministic=true",
            )
        return nv.RedAddOp(kind, addr, v)

    def atomic_load_op(self, addr: SSAValue, t, order: str) -> Operation:
        return nv.LdOp("global", addr, t, sem=order)

    def atomic_store_op(self, addr: SSAValue, v: SSAValue, order: str) -> Operation:
        return nv.StOp("global", addr, [v], sem=order)

    def fetch_add_op(self, addr: SSAValue, v: SSAValue) -> Operation:
        return nv.AtomAddOp(f"u{bitwidth(v.type)}", addr, v)

    def per_lane(self, t) -> bool:
        return isinstance(t, VectorType)

    def load_lanes(self, k, space, addr, t, before, read_only) -> list[SSAValue]:
        """One `ld` of 1, 2 or 4 registers; 16-bit lanes come packed in pairs."""
        elt, n = t.get_element_type(), t.get_shape()[0]
        nregs, rt = register_plan(elt, n)
        ld = k.b.insert(nv.LdOp(space, addr, rt, width=nregs, nc=read_only, result_types=[rt] * nregs), before)
        regs = list(ld.values)
        if bitwidth(elt) >= 32:
            return regs
        if _byte_lanes(elt) and n % 4 == 0:  # bytes: four per 32-bit register, lane j in bits 8j..8j+7
            lanes = []
            for r in regs:
                for j in range(4):
                    s = r if j == 0 else k.b.value(arith.ShRUIOp(r, k.const(8 * j, i32)), before)
                    lanes.append(k.b.value(arith.TruncIOp(s, elt), before))
            return lanes
        self.check_lanes(before, elt)
        lanes = []
        for r in regs:
            lanes += list(k.b.insert(nv.UnpackOp(r, elt), before).results)
        return lanes[:n]

    def store_lanes(self, k, space, addr, lanes, t, before) -> None:
        elt = t.get_element_type()
        regs = lanes
        if _byte_lanes(elt) and len(lanes) % 4 == 0:  # as load_lanes: four bytes per register
            regs = []
            for i in range(0, len(lanes), 4):
                word = None
                for j in range(4):
                    b = k.b.value(arith.ExtUIOp(lanes[i + j], i32), before)
                    if j:
                        b = k.b.value(arith.ShLIOp(b, k.const(8 * j, i32)), before)
                    word = b if word is None else k.b.value(arith.OrIOp(word, b), before)
                regs.append(word)
        elif bitwidth(elt) < 32:
            self.check_lanes(before, elt)
            regs = [k.b.value(nv.PackOp(lanes[i], lanes[i + 1]), before) for i in range(0, len(lanes), 2)]
        k.b.insert(nv.StOp(space, addr, regs), before)

    @staticmethod
    def check_lanes(op: Operation, elt) -> None:
        if bitwidth(elt) != 16:
            raise PassFailure(op, f"mapped-to-hw-nv: vectors of {elt} are not supported yet")

    # --- the rest --------------------------------------------------------------------------------

    def lower_math(self, k: GpuKernelLowering, op: Operation) -> None:
        if isinstance(op, arith.MuliOp):
            lower_mul_wide(k, op)
            return
        lower_math(k, op)


def lower_mul_wide(k: GpuKernelLowering, op: arith.MuliOp) -> None:
    """A zero-extending 32x32 -> 64 product that the loop nest marked (MUL_WIDE): `extui(a) *
    constant < 2^32` on i64 becomes one `mul.wide.u32`. Other products stay as they are."""
    a, c = op.lhs.owner, op.rhs.owner
    if (
        MUL_WIDE not in op.attributes
        or not isinstance(a, arith.ExtUIOp)
        or a.input.type != i32
        or not isinstance(c, arith.ConstantOp)
        or not 0 <= c.value.value.data < 2**32
    ):
        return
    v = c.value.value.data
    wide = nv.MulWideOp(a.input, k.const(v - 2**32 if v >= 2**31 else v, i32))
    k.b.replace(op, [wide])


def _byte_lanes(elt) -> bool:
    """i8 and i1 lanes: one byte each in memory (an i1 is stored as a 0 / 1 byte)."""
    return bitwidth(elt) in (1, 8)


def register_plan(elt, n: int) -> tuple[int, object]:
    """How n lanes of `elt` travel: (number of registers, register type); 16-bit lanes in pairs,
    bytes in fours."""
    if bitwidth(elt) >= 32:
        return n, elt
    return max(1, (8 if _byte_lanes(elt) else bitwidth(elt)) * n // 32), i32


def lower_math(k: GpuKernelLowering, op: Operation) -> None:
    """An f32 math op as PTX approximations (NaN inputs propagate); the math library's functions
    (and f64 exp / log / tanh / erf) as our f64 algorithms (mathlib.py); f64 rsqrt as 1 / sqrt."""
    t = op.results[0].type
    fn = BY_MATH.get(type(op))
    wide = isinstance(t, Float64Type)
    if fn is not None or (isinstance(op, math.ExpOp | math.LogOp | math.TanhOp | math.ErfOp) and wide):
        lower_with_mathlib(k, op, fn.name if fn is not None else op.name.split(".")[1])
        return
    if isinstance(op, math.RsqrtOp) and wide:  # sqrt.rn and div.rn: within 1 ulp
        root = k.b.value(math.SqrtOp(op.operands[0]), op)
        k.b.replace(op, [arith.DivfOp(k.const(1.0, t), root)])
        return
    if not isinstance(t, Float32Type):
        raise PassFailure(op, f"mapped-to-hw-nv: {op.name} on {t} is not supported yet on NVIDIA GPUs (f32 only)")
    x = op.operands[0]
    C = lambda v: k.const(v, f32)  # noqa: E731
    ins = lambda o: k.b.value(o, op)  # noqa: E731

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
        for coef in (
            -0.82215223,
            1.48851587,
            -1.13520398,
            0.27886807,
            -0.18628806,
            0.09678418,
            0.37409196,
            1.00002368,
            -1.26551223,
        ):
            q = ins(arith.AddfOp(ins(arith.MulfOp(q, t_)), C(coef)))
        erfc = ins(arith.MulfOp(t_, exp(ins(arith.AddfOp(ins(arith.NegfOp(z)), q)))))
        big = ins(arith.SubfOp(C(1.0), erfc))
        neg = ins(arith.CmpfOp(x, C(0.0), "olt"))
        big = ins(arith.SelectOp(neg, ins(arith.NegfOp(big)), big))
        use_small = ins(arith.CmpfOp(a, C(0.5), "olt"))
        y = ins(arith.SelectOp(use_small, small, big))
    else:  # pow: 2^(y*log2|x|), sign and NaN fixed for negative x
        base, e = x, op.operands[1]
        mag = ins(
            nv.MathOp("ex2", "approx", ins(arith.MulfOp(e, ins(nv.MathOp("lg2", "approx", ins(math.AbsFOp(base)))))))
        )
        ei = ins(arith.FPToSIOp(e, i32))
        integral = ins(arith.CmpfOp(ins(arith.SIToFPOp(ei, f32)), e, "oeq"))
        odd = ins(arith.CmpiOp(ins(arith.AndIOp(ei, k.const(1, i32))), k.const(1, i32), "eq"))
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
    k.b.erase(op)


def lower_with_mathlib(k: GpuKernelLowering, op: Operation, name: str) -> None:
    """`op` as mathlib's f64 algorithm `name`; f32 operands are extended and the result rounded once."""
    t = op.results[0].type
    if not isinstance(t, Float32Type | Float64Type):
        raise PassFailure(op, f"mapped-to-hw-nv: {op.name} on {t} is not supported yet on NVIDIA GPUs (f32 and f64)")
    ins = lambda o: k.b.value(o, op)  # noqa: E731
    args = [x if isinstance(t, Float64Type) else ins(arith.ExtFOp(x, f64)) for x in op.operands]
    y = mathlib.emit(name, args, ins, k.const)
    if not isinstance(t, Float64Type):
        y = ins(arith.TruncFOp(y, t))
    op.results[0].replace_all_uses_with(y)
    k.b.erase(op)


@register_pass
class MappedToHwNv(TilecPass):
    """Lower gpu mapped kernels to hw.nv kernels (the mapped.host stays for the runtime)."""

    name = "mapped-to-hw-nv"
    sm: str = "sm_90"
    index_bits: int = 32

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        sm = self.sm if self.sm.startswith("sm_") else f"sm_{self.sm}"
        if sm not in nv.SM_ARCHS:
            raise PassFailure(op, f"mapped-to-hw-nv: unknown target {self.sm} ({', '.join(nv.SM_ARCHS)})")
        lower_gpu_kernels(op, NvTarget(sm), self.index_bits)
        op.attributes[nv.MODULE_SM_ATTR] = StringAttr(sm)


__all__ = ["MappedToHwNv", "NvTarget"]
