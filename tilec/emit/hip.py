"""The HIP emitter: `hw.amd.kernel`s (with arith / math / scf / vector ops) -> HIP C++.

A printer: every decision was made by mapped-to-hw-amd. One SSA value is one local variable
(named after its hint), constants are literals, structured control flow is `for` / `if`.
- Kernels are `extern "C" __global__ void __launch_bounds__(N) name(T* __restrict__ p, ...)`.
- A global byte address (the i64 `hw.ptr_to_int` of a pointer, plus byte offsets) is printed as a
  `char*` derived from the kernel parameter, so loads and stores keep the global address space
  (`global_load_dwordx4`, not flat accesses); `hw.amd.global_load %a : i64 -> T` is
  `*(const T*)(a)`.
- The kernel's `hw.amd.lds` arrays are laid out, in order and aligned, in ONE
  `__shared__ char tilec_lds[]` array: an LDS address (`hw.amd.lds_addr`) is a byte offset in the
  workgroup's LDS, as on the hardware, and `hw.amd.lds_load %p` is `*(T*)(tilec_lds + p)`. With
  dynamic LDS (`lds N`) the array is `extern __shared__` and the dynamic part follows the static
  arrays (the launch provides both).
- Vectors are `ext_vector_type` typedefs (`tilec_f16x8`), declared through `TILEC_VECTOR`;
  16-bit floats are `tilec_f16` (`_Float16`) and `tilec_bf16` (its bits); every arithmetic op on
  them was extended to f32 by the lowering.
- Integer add/sub/mul wrap (computed unsigned), float->int conversions saturate (NaN -> 0) and
  maximumf/minimumf propagate NaN, as on the other targets.

The source includes <hip/hip_runtime.h> unless TILEC_HIP_COMPAT_CUDA is defined: then the
prepended tilec/emit/hip_compat_cuda.h maps every HIP name it uses to CUDA (`cuda_compat_source`),
which is how the portable (wave 32, no MFMA) source is run on NVIDIA GPUs through NVRTC.
"""

from __future__ import annotations

from pathlib import Path

from xdsl.dialects import arith, math, scf, vector
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from tilec.diagnostics import NotSupportedYet, op_location
from tilec.dialects import mapped
from tilec.dialects.hw import PtrToIntOp, PtrType
from tilec.dialects.hw import amd
from tilec.emit.cfamily import C_KEYWORDS, CFamilyPrinter, cmpf_expr, cmpi_name

COMPAT_HEADER = Path(__file__).with_name("hip_compat_cuda.h")
LDS = "tilec_lds"

PRELUDE = r"""#if !defined(TILEC_HIP_COMPAT_CUDA)
#include <hip/hip_runtime.h>
#include <stdint.h>
typedef _Float16 tilec_f16;
#define TILEC_VECTOR(T, N, NAME) typedef T NAME __attribute__((ext_vector_type(N)));
static __device__ __forceinline__ float tilec_f16_to_f32(tilec_f16 x) { return (float)x; }
static __device__ __forceinline__ tilec_f16 tilec_f32_to_f16(float x) { return (tilec_f16)x; }
static __device__ __forceinline__ tilec_f16 tilec_f16_bits(uint16_t b) { return __builtin_bit_cast(tilec_f16, b); }
#endif
typedef uint16_t tilec_bf16;

static __device__ __forceinline__ float tilec_bf16_to_f32(tilec_bf16 h) { return __uint_as_float((uint32_t)h << 16); }
static __device__ __forceinline__ tilec_bf16 tilec_f32_to_bf16(float f) {
  /* round to nearest even; NaN stays a (quiet) NaN */
  uint32_t u = __float_as_uint(f);
  uint32_t rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
  return (tilec_bf16)((f != f) ? ((u >> 16) | 0x40u) : rounded);
}
/* double -> float rounded to odd: a later rounding to a 16-bit float is then correctly rounded */
static __device__ __forceinline__ float tilec_f64_to_f32_odd(double x) {
  float f = (float)x;
  uint32_t u = __float_as_uint(f);
  bool inexact = (double)f != x && x == x;
  u = (inexact && fabs((double)f) > fabs(x)) ? u - 1u : u;
  u = inexact ? (u | 1u) : u;
  return __uint_as_float(u);
}
static __device__ __forceinline__ tilec_f16 tilec_f64_to_f16(double x) { return tilec_f32_to_f16(tilec_f64_to_f32_odd(x)); }
static __device__ __forceinline__ tilec_bf16 tilec_f64_to_bf16(double x) { return tilec_f32_to_bf16(tilec_f64_to_f32_odd(x)); }

/* NaN-propagating max/min (tile.max / tile.min) and NaN-ignoring ones */
static __device__ __forceinline__ float tilec_maximum(float a, float b) { return (a != a || b != b) ? (a + b) : (a > b ? a : (b > a ? b : __uint_as_float(__float_as_uint(a) & __float_as_uint(b)))); }
static __device__ __forceinline__ float tilec_minimum(float a, float b) { return (a != a || b != b) ? (a + b) : (a < b ? a : (b < a ? b : __uint_as_float(__float_as_uint(a) | __float_as_uint(b)))); }
static __device__ __forceinline__ double tilec_maximum(double a, double b) { return (a != a || b != b) ? (a + b) : (a > b ? a : (b > a ? b : __longlong_as_double(__double_as_longlong(a) & __double_as_longlong(b)))); }
static __device__ __forceinline__ double tilec_minimum(double a, double b) { return (a != a || b != b) ? (a + b) : (a < b ? a : (b < a ? b : __longlong_as_double(__double_as_longlong(a) | __double_as_longlong(b)))); }
static __device__ __forceinline__ float tilec_maxnum(float a, float b) { return (b > a || a != a) ? b : a; }
static __device__ __forceinline__ float tilec_minnum(float a, float b) { return (b < a || a != a) ? b : a; }
static __device__ __forceinline__ double tilec_maxnum(double a, double b) { return (b > a || a != a) ? b : a; }
static __device__ __forceinline__ double tilec_minnum(double a, double b) { return (b < a || a != a) ? b : a; }

/* float -> int conversions saturate and send NaN to 0 */
#define TILEC_FPTOSI(NAME, FT, IT, LO, HI, ILO, IHI) \
  static __device__ __forceinline__ IT NAME(FT x) { \
    return (x != x) ? (IT)0 : (x <= (FT)(LO)) ? (IT)(ILO) : (x >= (FT)(HI)) ? (IT)(IHI) : (IT)x; }
TILEC_FPTOSI(tilec_f32_to_i8, float, int8_t, -128, 127, -128, 127)
TILEC_FPTOSI(tilec_f32_to_i16, float, int16_t, -32768, 32767, -32768, 32767)
TILEC_FPTOSI(tilec_f32_to_i32, float, int32_t, -2147483648.0, 2147483647.0, (-2147483647 - 1), 2147483647)
TILEC_FPTOSI(tilec_f32_to_i64, float, int64_t, -9223372036854775808.0, 9223372036854775807.0, (-9223372036854775807LL - 1), 9223372036854775807LL)
TILEC_FPTOSI(tilec_f64_to_i8, double, int8_t, -128, 127, -128, 127)
TILEC_FPTOSI(tilec_f64_to_i16, double, int16_t, -32768, 32767, -32768, 32767)
TILEC_FPTOSI(tilec_f64_to_i32, double, int32_t, -2147483648.0, 2147483647.0, (-2147483647 - 1), 2147483647)
TILEC_FPTOSI(tilec_f64_to_i64, double, int64_t, -9223372036854775808.0, 9223372036854775807.0, (-9223372036854775807LL - 1), 9223372036854775807LL)
"""


def scalar_type(t: Attribute, index: str = "int32_t") -> str:
    if isinstance(t, Float32Type):
        return "float"
    if isinstance(t, Float64Type):
        return "double"
    if isinstance(t, Float16Type):
        return "tilec_f16"
    if isinstance(t, BFloat16Type):
        return "tilec_bf16"
    if isinstance(t, IndexType):
        return index
    if isinstance(t, IntegerType):
        w = t.width.data
        if w == 1:
            return "bool"
        if w in (8, 16, 32, 64):
            return f"int{w}_t"
    raise NotSupportedYet(f"the HIP type of {t}")


def vector_name(t: VectorType) -> str:
    elt = t.get_element_type()
    short = {"float": "f32", "double": "f64", "tilec_f16": "f16", "tilec_bf16": "bf16", "bool": "b8"}.get(scalar_type(elt))
    if short is None:
        short = "i" + scalar_type(elt)[3:-2]
    return f"tilec_{short}x{t.get_shape()[0]}"


def _unsigned(t: Attribute) -> str:
    w = 32 if isinstance(t, IndexType) else t.width.data
    return "uint64_t" if w > 32 else "uint32_t"


def _same_unsigned(t: Attribute) -> str:
    w = 32 if isinstance(t, IndexType) else t.width.data
    return f"uint{max(8, w)}_t"


HIP_RESERVED = frozenset({  # C++ keywords and HIP/libm names a variable must not shadow (C's are in C_KEYWORDS)
    "class", "new", "delete", "this", "template", "typename", "namespace", "operator", "private",
    "public", "protected", "virtual", "friend", "try", "catch", "throw", "using", "mutable", "explicit",
    "export", "asm", "half", "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "exp", "log",
    "erf", "tanh", "sqrt", "pow", "fabs", "rsqrt", "min", "max", "abs", "std",
})


class HipEmitter(CFamilyPrinter):
    RESERVED = C_KEYWORDS | HIP_RESERVED

    def __init__(self, module: ModuleOp):
        super().__init__()
        self.module = module
        self.vector_types: dict[str, VectorType] = {}

    # --- module ---------------------------------------------------------------------------------

    def emit(self) -> str:
        kernels = [op for op in self.module.body.block.ops if isinstance(op, amd.KernelOp)]
        if not kernels:
            raise NotSupportedYet("HIP emission of a module without hw.amd kernels (run -p lower-to-hip first)")
        for op in self.module.body.block.ops:
            if not isinstance(op, amd.KernelOp | mapped.HostOp):  # the host program runs in the runtime
                raise NotSupportedYet(f"HIP emission of {op.name} (only hw.amd kernels are emitted)", op_location(op))
        bodies = []
        for k in kernels:
            bodies += self.kernel(k) + [""]
        targets = sorted({f"{k.arch.data} wave {k.wave.data}" for k in kernels})
        out = [f"// generated by tilec: HIP C++ for AMD GPUs (hw.amd level; {', '.join(targets)})", PRELUDE]
        for name, t in sorted(self.vector_types.items()):
            out.append(f"TILEC_VECTOR({scalar_type(t.get_element_type())}, {t.get_shape()[0]}, {name})")
        out.append("")
        return "\n".join(out + bodies)

    # --- names and types ------------------------------------------------------------------------

    def ctype(self, t: Attribute) -> str:
        if isinstance(t, VectorType):
            if len(t.get_shape()) != 1:
                raise NotSupportedYet(f"HIP vectors of shape {t}")
            name = vector_name(t)
            self.vector_types[name] = t
            return name
        return scalar_type(t, self.index_type)

    def literal(self, op: arith.ConstantOp) -> str:
        val, t = op.value, op.result.type
        if isinstance(val, FloatAttr):
            x = val.value.data
            if isinstance(t, Float16Type | BFloat16Type):
                import ml_dtypes
                import numpy as np

                np_t = np.float16 if isinstance(t, Float16Type) else ml_dtypes.bfloat16
                bits = int(np.array(x, np.float64).astype(np_t).view(np.uint16))
                if isinstance(t, Float16Type):
                    return f"tilec_f16_bits(0x{bits:04X})"
                return f"((tilec_bf16)0x{bits:04X})"
            ft = scalar_type(t)
            if x != x:
                return "__int_as_float(0x7FC00000)" if ft == "float" else "__longlong_as_double(0x7FF8000000000000LL)"
            if x in (float("inf"), float("-inf")):
                inf = "__int_as_float(0x7F800000)" if ft == "float" else "__longlong_as_double(0x7FF0000000000000LL)"
                return f"(-{inf})" if x < 0 else inf
            lit = repr(float(x))  # round-trips; decimal, not C++17 hex floats (NVRTC compiles C++14)
            return f"(({ft}){lit}{'f' if ft == 'float' else ''})"
        if isinstance(val, IntegerAttr):
            x = val.value.data
            if isinstance(t, IntegerType) and t.width.data == 1:
                return "true" if x else "false"
            ct = scalar_type(t, self.index_type)
            if ct == "int64_t":
                if x == -(2**63):
                    return "((int64_t)(-9223372036854775807LL - 1))"
                return f"((int64_t){x}LL)"
            if ct == "int32_t" and x == -(2**31):
                return "((int32_t)(-2147483647 - 1))"
            return f"(({ct}){x})"
        raise NotSupportedYet(f"a constant of type {t} in HIP", op_location(op))

    # --- kernels ----------------------------------------------------------------------------------

    def kernel(self, k: amd.KernelOp) -> list[str]:
        self.reset_names()
        self.addresses: set[SSAValue] = set()
        self.lines: list[str] = []
        self.indent = 1
        self.wave = k.wave.data
        self.index_type = "int32_t"
        self.lds_offsets: dict[str, int] = {}
        off, align = 0, 16
        for s in k.lds_arrays():
            a = s.alignment.data
            align = max(align, a)
            off = (off + a - 1) // a * a
            self.lds_offsets[s.sym_name.data] = off
            off += s.size.data
        static_lds = off
        self.dynamic_lds_offset = (off + 15) // 16 * 16
        params = []
        for a in k.body.block.args:
            t = a.type
            if isinstance(t, PtrType):
                elt = scalar_type(t.pointee) if t.pointee is not None else "char"
                params.append(f"{elt}* __restrict__ {self.name(a)}")
            else:
                params.append(f"{self.ctype(t)} {self.name(a)}")
        if k.dynamic_lds:
            self.line(f"extern __shared__ __attribute__((aligned({align}))) char {LDS}[];  // {static_lds} static bytes, then {k.dynamic_lds} dynamic")
        elif static_lds:
            self.line(f"__shared__ __attribute__((aligned({align}))) char {LDS}[{static_lds}];")
        self.block(k.body.block)
        bounds = f"__launch_bounds__({k.launch_bounds.data}) " if k.launch_bounds is not None else ""
        head = f'extern "C" __global__ void {bounds}{k.sym_name.data}({", ".join(params)}) {{'
        return [head, *self.lines, "}"]

    def block(self, block: Block) -> None:
        for op in block.ops:
            self.op(op)

    # --- ops --------------------------------------------------------------------------------------

    def addr(self, v: SSAValue, off: int = 0) -> str:
        """A global byte address as a `char*` expression."""
        n = self.name(v)
        base = n if v in self.addresses else f"((char*)(uintptr_t){n})"
        return f"({base} + {off})" if off else base

    def int_of(self, v: SSAValue) -> str:
        """An operand in integer context (addresses as integers)."""
        n = self.name(v)
        return f"((int64_t)(uintptr_t){n})" if v in self.addresses else n

    def op(self, op: Operation) -> None:
        n = self.name
        if isinstance(op, arith.ConstantOp):
            if isinstance(op.result.type, VectorType):
                raise NotSupportedYet("HIP emission of vector constants (use vector.broadcast)", op_location(op))
            return  # printed inline as a literal
        if isinstance(op, amd.ReturnOp):
            self.line("return;")
            return
        if isinstance(op, amd.LdsOp):
            return  # laid out in the kernel's LDS array
        if isinstance(op, PtrToIntOp):
            self.addresses.add(op.results[0])
            self.line(f"char* {n(op.results[0])} = (char*){n(op.operands[0])};")
            return
        if isinstance(op, amd.WorkitemIdOp | amd.WorkgroupIdOp | amd.WorkgroupSizeOp | amd.NumWorkgroupsOp):
            var = {amd.WorkitemIdOp: "threadIdx", amd.WorkgroupIdOp: "blockIdx", amd.WorkgroupSizeOp: "blockDim", amd.NumWorkgroupsOp: "gridDim"}[type(op)]
            self.decl(op.result, f"(int32_t){var}.{op.dim.data}")
            return
        if isinstance(op, amd.LaneIdOp):
            self.decl(op.result, "(int32_t)__lane_id()")
            return
        if isinstance(op, amd.LdsAddrOp):
            self.names[op.result] = f"((int32_t){self.lds_offsets[op.symbol.root_reference.data]})"
            return
        if isinstance(op, amd.DynamicLdsAddrOp):
            self.names[op.result] = f"((int32_t){self.dynamic_lds_offset})"
            return
        if isinstance(op, amd.GlobalLoadOp):
            t = self.ctype(op.result.type)
            self.decl(op.result, f"*(const {t}*){self.addr(op.addr, op.offset.data)}")
            return
        if isinstance(op, amd.GlobalStoreOp):
            t = self.ctype(op.value.type)
            self.line(f"*({t}*){self.addr(op.addr, op.offset.data)} = {n(op.value)};")
            return
        if isinstance(op, amd.LdsLoadOp):
            t = self.ctype(op.result.type)
            self.decl(op.result, f"*(const {t}*)({LDS} + {self._lds_off(op)})")
            return
        if isinstance(op, amd.LdsStoreOp):
            t = self.ctype(op.value.type)
            self.line(f"*({t}*)({LDS} + {self._lds_off(op)}) = {n(op.value)};")
            return
        if isinstance(op, amd.BarrierOp):
            self.line("__syncthreads();")
            return
        if isinstance(op, amd.ShflXorOp):
            mask = n(op.mask_reg) if op.mask_reg is not None else str(op.mask.data)
            self.decl(op.result, f"__shfl_xor({n(op.value)}, {mask}, {self.wave})")
            return
        if isinstance(op, amd.DsSwizzleOp):
            self.decl(op.result, f"__builtin_amdgcn_ds_swizzle({n(op.value)}, {op.pattern.data:#06x})")
            return
        if isinstance(op, amd.DppOp):
            bound = "true" if op.bound_ctrl is not None else "false"
            self.decl(op.result, f"__builtin_amdgcn_mov_dpp({n(op.value)}, {op.ctrl.data:#x}, {op.row_mask.data:#x}, {op.bank_mask.data:#x}, {bound})")
            return
        if isinstance(op, amd.MfmaOp):
            self.decl(op.d, f"__builtin_amdgcn_mfma_{op.variant.data}({n(op.a)}, {n(op.b)}, {n(op.c)}, {op.cbsz.data}, {op.abid.data}, {op.blgp.data})")
            return
        if isinstance(op, vector.ExtractOp):
            pos = list(op.static_position.iter_values())
            if op.dynamic_position or len(pos) != 1:
                raise NotSupportedYet("HIP emission of vector.extract with a dynamic or multi-dimensional position", op_location(op))
            self.decl(op.result, f"{n(op.vector)}[{pos[0]}]")
            return
        if isinstance(op, vector.InsertOp):
            pos = list(op.static_position.iter_values())
            if op.dynamic_position or len(pos) != 1:
                raise NotSupportedYet("HIP emission of vector.insert with a dynamic or multi-dimensional position", op_location(op))
            self.decl(op.result, n(op.dest))
            self.line(f"{n(op.result)}[{pos[0]}] = {n(op.source)};")
            return
        if isinstance(op, vector.BroadcastOp):
            t = self.ctype(op.vector.type)
            self.decl(op.vector, f"({t})({n(op.source)})")
            return
        if isinstance(op, scf.ForOp):
            self.for_loop(op)
            return
        if isinstance(op, scf.IfOp):
            self.if_op(op)
            return
        if isinstance(op, arith.AddiOp) and (op.lhs in self.addresses) != (op.rhs in self.addresses):
            a, b = (op.lhs, op.rhs) if op.lhs in self.addresses else (op.rhs, op.lhs)
            self.addresses.add(op.result)
            self.line(f"char* {n(op.result)} = {n(a)} + {n(b)};")
            return
        if isinstance(op, arith.SelectOp) and op.lhs in self.addresses and op.rhs in self.addresses:
            self.addresses.add(op.result)
            self.line(f"char* {n(op.result)} = {n(op.cond)} ? {n(op.lhs)} : {n(op.rhs)};")
            return
        expr = self.expr(op)
        if expr is None:
            raise NotSupportedYet(f"HIP emission of {op.name}", op_location(op))
        self.decl(op.results[0], expr)

    def _lds_off(self, op) -> str:
        o = op.offset.data
        return f"{self.name(op.addr)} + {o}" if o else self.name(op.addr)

    def for_loop(self, op: scf.ForOp) -> None:
        n = self.name
        body = op.body.block
        iv, carried = body.args[0], body.args[1:]
        results = list(op.results)
        for r, init, c in zip(results, op.iter_args, carried):
            self.decl(r, n(init))
            self.names[c] = n(r)  # the loop-carried variable is the result variable
        it = self.ctype(iv.type)
        self.line(f"for ({it} {n(iv)} = {n(op.lb)}; {n(iv)} < {n(op.ub)}; {n(iv)} += {n(op.step)}) {{")
        self.indent += 1
        y = body.last_op
        for o in body.ops:
            if o is not y:
                self.op(o)
        assert isinstance(y, scf.YieldOp)
        self.assign(results, list(y.operands))
        self.indent -= 1
        self.line("}")

    # --- expressions --------------------------------------------------------------------------------

    def expr(self, op: Operation) -> str | None:
        n = self.int_of
        ops = op.operands
        if not op.results:
            return None
        t = op.results[0].type
        if not isinstance(op, arith.ExtFOp | arith.TruncFOp | arith.SelectOp) and any(
            isinstance(v.type, Float16Type | BFloat16Type) for v in [*ops, *op.results]
        ):
            raise NotSupportedYet(f"HIP emission of {op.name} on a 16-bit float (extend it to f32 first)", op_location(op))
        ct = self.ctype(t)
        if isinstance(op, arith.AddiOp | arith.SubiOp | arith.MuliOp):
            sym = {arith.AddiOp: "+", arith.SubiOp: "-", arith.MuliOp: "*"}[type(op)]
            if t == IntegerType(1):
                return {"+": f"{n(ops[0])} != {n(ops[1])}", "-": f"{n(ops[0])} != {n(ops[1])}", "*": f"{n(ops[0])} && {n(ops[1])}"}[sym]
            u = _unsigned(t)
            return f"({ct})(({u}){n(ops[0])} {sym} ({u}){n(ops[1])})"
        if isinstance(op, arith.DivUIOp | arith.RemUIOp):
            u = _same_unsigned(t)
            sym = "/" if isinstance(op, arith.DivUIOp) else "%"
            return f"({ct})(({u}){n(ops[0])} {sym} ({u}){n(ops[1])})"
        if isinstance(op, arith.ShLIOp):
            return f"({ct})(({_unsigned(t)}){n(ops[0])} << {n(ops[1])})"
        if isinstance(op, arith.ShRUIOp):
            return f"({ct})(({_same_unsigned(t)}){n(ops[0])} >> {n(ops[1])})"
        if isinstance(op, arith.ShRSIOp):
            return f"{n(ops[0])} >> {n(ops[1])}"
        binops = {
            arith.AddfOp: "+", arith.SubfOp: "-", arith.MulfOp: "*", arith.DivfOp: "/",
            arith.DivSIOp: "/", arith.RemSIOp: "%", arith.AndIOp: "&", arith.OrIOp: "|", arith.XOrIOp: "^",
        }
        for cls, sym in binops.items():
            if isinstance(op, cls):
                if t == IntegerType(1) and sym == "^":
                    return f"{n(ops[0])} != {n(ops[1])}"
                return f"{n(ops[0])} {sym} {n(ops[1])}"
        if isinstance(op, arith.NegfOp):
            return f"-{n(ops[0])}"
        minmax = {
            arith.MaximumfOp: "tilec_maximum", arith.MinimumfOp: "tilec_minimum",
            arith.MaxnumfOp: "tilec_maxnum", arith.MinnumfOp: "tilec_minnum",
        }
        for cls, fn in minmax.items():
            if isinstance(op, cls):
                return f"{fn}({n(ops[0])}, {n(ops[1])})"
        if isinstance(op, arith.MaxSIOp):
            return f"({n(ops[0])} > {n(ops[1])} ? {n(ops[0])} : {n(ops[1])})"
        if isinstance(op, arith.MinSIOp):
            return f"({n(ops[0])} < {n(ops[1])} ? {n(ops[0])} : {n(ops[1])})"
        if isinstance(op, arith.MaxUIOp | arith.MinUIOp):
            u = _same_unsigned(t)
            sym = ">" if isinstance(op, arith.MaxUIOp) else "<"
            return f"(({u}){n(ops[0])} {sym} ({u}){n(ops[1])} ? {n(ops[0])} : {n(ops[1])})"
        if isinstance(op, arith.SelectOp):
            return f"{n(ops[0])} ? {self.name(ops[1])} : {self.name(ops[2])}"
        if isinstance(op, arith.CmpfOp):
            a, b = n(ops[0]), n(ops[1])
            return cmpf_expr(op, a, b)
        if isinstance(op, arith.CmpiOp):
            a, b = n(ops[0]), n(ops[1])
            pred = cmpi_name(op)
            sym = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=",
                   "ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}[pred]
            if pred.startswith("u") and ops[0].type != IntegerType(1):
                u = _same_unsigned(ops[0].type)
                return f"({u}){a} {sym} ({u}){b}"
            return f"{a} {sym} {b}"
        if isinstance(op, arith.ExtFOp):
            src = ops[0].type
            if isinstance(src, BFloat16Type | Float16Type):
                v = f"tilec_{_short(src)}_to_f32({n(ops[0])})"
                return v if isinstance(t, Float32Type) else f"(double){v}"
            return f"({ct}){n(ops[0])}"
        if isinstance(op, arith.TruncFOp):
            if isinstance(t, BFloat16Type | Float16Type):
                return f"tilec_{_short(ops[0].type)}_to_{_short(t)}({n(ops[0])})"
            return f"({ct}){n(ops[0])}"
        if isinstance(op, arith.FPToSIOp):
            src = "f32" if isinstance(ops[0].type, Float32Type) else "f64"
            return f"tilec_{src}_to_i{t.width.data}({n(ops[0])})"
        if isinstance(op, arith.SIToFPOp):
            return f"({ct}){n(ops[0])}"
        if isinstance(op, arith.TruncIOp) and t == IntegerType(1):
            return f"({n(ops[0])} & 1) != 0"
        if isinstance(op, arith.ExtSIOp) and ops[0].type == IntegerType(1):
            return f"({ct})({n(ops[0])} ? -1 : 0)"
        if isinstance(op, arith.ExtSIOp | arith.TruncIOp | arith.IndexCastOp):
            return f"({ct}){n(ops[0])}"
        if isinstance(op, arith.ExtUIOp):
            src = ops[0].type
            if isinstance(src, IntegerType) and src.width.data == 1:
                return f"({ct})({n(ops[0])} ? 1 : 0)"
            return f"({ct})({_same_unsigned(src)}){n(ops[0])}"
        f = "f" if isinstance(t, Float32Type) else ""
        unary_math = {
            math.ExpOp: "exp", math.LogOp: "log", math.TanhOp: "tanh", math.ErfOp: "erf",
            math.RsqrtOp: "rsqrt", math.SqrtOp: "sqrt", math.AbsFOp: "fabs",
        }
        for cls, fn in unary_math.items():
            if isinstance(op, cls):
                if not isinstance(t, Float32Type | Float64Type):
                    return None
                return f"{fn}{f}({n(ops[0])})"
        if isinstance(op, math.PowFOp):
            return f"pow{f}({n(ops[0])}, {n(ops[1])})"
        if isinstance(op, math.AbsIOp):
            x = n(ops[0])
            u = _unsigned(t)
            return f"({x} < 0 ? ({ct})(({u})0 - ({u}){x}) : {x})"
        return None


def _short(t: Attribute) -> str:
    return {Float16Type: "f16", BFloat16Type: "bf16", Float32Type: "f32", Float64Type: "f64"}[type(t)]




def emit_hip(module: ModuleOp, **options) -> str:
    if options:
        raise NotSupportedYet(f"HIP emitter options {sorted(options)}")
    return HipEmitter(module).emit()


def cuda_compat_source(hip_source: str) -> str:
    """The HIP source with tilec/emit/hip_compat_cuda.h prepended: CUDA C++ for NVRTC / nvcc."""
    return COMPAT_HEADER.read_text() + "\n" + hip_source


__all__ = ["emit_hip", "cuda_compat_source", "HipEmitter", "COMPAT_HEADER"]
