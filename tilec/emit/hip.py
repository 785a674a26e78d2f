"""The HIP emitter: `hw.amd.kernel`s (with arith / math / scf / vector ops) -> HIP C++.

A printer: every decision was made by mapped-to-hw-amd. One SSA value is one local variable
(named after its hint), constants are literals, structured control flow is `for` / `if`.
- Kernels are `extern "C" __global__ void __launch_bounds__(N) name(T* __restrict__ p, ...)`,
  `name` being `tilec.symbols.symbol(the kernel's name)` (`tilec_u_...`: never a HIP / CUDA / libc
  name or a C++ keyword), with the IR name in a comment above.
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
- arith / math ops print through the table shared with the C printer (`cfamily.ARITH_TO_C`, whose
  docstring has the integer semantics: add/sub/mul wrap, i1 is 0/1 with true = -1 when signed,
  shifts are defined for every amount); float->int conversions saturate (NaN -> 0) and
  maximumf/minimumf propagate NaN, as on the other targets. What is HIP's own is `HipEmitter`'s
  class attributes (32-bit `index`, the prelude's overloaded max/min) and the hw.amd ops
  (`AMD_VALUES`, `AMD_STATEMENTS`).

The source includes <hip/hip_runtime.h> unless TILEC_HIP_COMPAT_CUDA is defined: then the
prepended tilec/emit/hip_compat_cuda.h maps every HIP name it uses to CUDA (`cuda_compat_source`),
which is how the portable (wave 32, no MFMA) source is run on NVIDIA GPUs through NVRTC.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import BFloat16Type, Float16Type, FloatAttr, IntegerAttr, ModuleOp, VectorType, f32, f64
from xdsl.ir import Attribute, Operation, SSAValue

from tilec.diagnostics import NotSupportedYet, op_location
from tilec.dialects import mapped
from tilec.dialects.hw import PtrToIntOp, PtrType, amd
from tilec.emit.cfamily import C_KEYWORDS, C_LIBRARY_NAMES, CFamilyPrinter, half_bits, is_i1, op_entry, scalar_ctype
from tilec.symbols import display, symbol

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
/* atomic words of global memory (flags other workgroups publish during the kernel), agent scope */
template <class T> static __device__ __forceinline__ T tilec_load_relaxed(T* p) { return __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); }
template <class T> static __device__ __forceinline__ T tilec_load_acquire(T* p) { return __hip_atomic_load(p, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT); }
template <class T> static __device__ __forceinline__ void tilec_store_relaxed(T* p, T v) { __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); }
template <class T> static __device__ __forceinline__ void tilec_store_release(T* p, T v) { __hip_atomic_store(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT); }
template <class T> static __device__ __forceinline__ T tilec_fetch_add(T* p, T v) { return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); }
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
    ct = scalar_ctype(t, index)
    if ct is None:
        raise NotSupportedYet(f"the HIP type of {t}")
    return ct


def vector_name(t: VectorType) -> str:
    elt = t.get_element_type()
    short = {"float": "f32", "double": "f64", "tilec_f16": "f16", "tilec_bf16": "bf16", "bool": "b8"}.get(
        scalar_type(elt)
    )
    if short is None:
        short = "i" + scalar_type(elt)[3:-2]
    return f"tilec_{short}x{t.get_shape()[0]}"


HIP_RESERVED = frozenset(
    {  # C++ keywords and HIP/libm names a variable must not shadow (C's are in C_KEYWORDS)
        "class",
        "new",
        "delete",
        "this",
        "template",
        "typename",
        "namespace",
        "operator",
        "private",
        "public",
        "protected",
        "virtual",
        "friend",
        "try",
        "catch",
        "throw",
        "using",
        "mutable",
        "explicit",
        "export",
        "asm",
        "half",
        "threadIdx",
        "blockIdx",
        "blockDim",
        "gridDim",
        "warpSize",
        "exp",
        "log",
        "erf",
        "tanh",
        "sqrt",
        "pow",
        "fabs",
        "rsqrt",
        "min",
        "max",
        "abs",
        "std",
        # C++'s alternative operator tokens (`bool xor = ...` does not compile)
        "and",
        "and_eq",
        "bitand",
        "bitor",
        "compl",
        "not",
        "not_eq",
        "or",
        "or_eq",
        "xor",
        "xor_eq",
        # the other C++20 keywords, HIP's object-like macros and types
        "char8_t",
        "char16_t",
        "char32_t",
        "concept",
        "consteval",
        "constinit",
        "const_cast",
        "co_await",
        "co_return",
        "co_yield",
        "decltype",
        "dynamic_cast",
        "noexcept",
        "reinterpret_cast",
        "requires",
        "static_cast",
        "typeid",
        "dim3",
        "hipThreadIdx_x",
        "hipThreadIdx_y",
        "hipThreadIdx_z",
        "hipBlockIdx_x",
        "hipBlockIdx_y",
        "hipBlockIdx_z",
        "hipBlockDim_x",
        "hipBlockDim_y",
        "hipBlockDim_z",
        "hipGridDim_x",
        "hipGridDim_y",
        "hipGridDim_z",
    }
)


class HipEmitter(CFamilyPrinter):
    RESERVED = C_KEYWORDS | C_LIBRARY_NAMES | HIP_RESERVED
    LANGUAGE = "HIP"
    INDEX_BITS = 32  # index is int32_t in kernels (`index_type`)
    # unlike C's 64-bit index, a kernel's 32-bit index (element offsets in large buffers) can
    # overflow: its add / sub / mul / absi wrap (computed unsigned) like those of i32
    WRAP_INDEX = True
    # the prelude's NaN-aware max/min are C++ overloads (float and double), not C's f-suffixed pair
    FLOAT_FN_SPELLING = MappingProxyType(
        {fn: (fn, fn) for fn in ("tilec_maximum", "tilec_minimum", "tilec_maxnum", "tilec_minnum")}
    )

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

    def bit_cast(self, dst: str, src: str, x: str) -> str:
        return f"__builtin_bit_cast({dst}, {x})"

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
                bits = half_bits(x, t)
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
            if is_i1(t):
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
            self.line(
                f"extern __shared__ __attribute__((aligned({align}))) char {LDS}[];  // {static_lds} static bytes, then {k.dynamic_lds} dynamic"
            )
        elif static_lds:
            self.line(f"__shared__ __attribute__((aligned({align}))) char {LDS}[{static_lds}];")
        self.block(k.body.block)
        bounds = f"__launch_bounds__({k.launch_bounds.data}) " if k.launch_bounds is not None else ""
        head = f'extern "C" __global__ void {bounds}{symbol(k.sym_name.data)}({", ".join(params)}) {{'
        return [f"// {display(k.sym_name.data)}", head, *self.lines, "}"]

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
        value = op_entry(AMD_VALUES, op)
        if value is not None:
            self.decl(op.results[0], value(self, op))
            return
        statement = op_entry(AMD_STATEMENTS, op)
        if statement is not None:
            statement(self, op)
            return
        self.shared_op(op)

    def lds_off(self, op: amd.LdsLoadOp | amd.LdsStoreOp) -> str:
        o = op.offset.data
        return f"{self.name(op.addr)} + {o}" if o else self.name(op.addr)

    def operand(self, v: SSAValue) -> str:
        # integer context: a global address (a char*) is its integer value
        return self.int_of(v)


# --- the hw.amd (and vector) ops: how each prints --------------------------------------------------


def _grid_var(var: str) -> Callable[[HipEmitter, Operation], str]:
    return lambda p, op: f"(int32_t){var}.{op.dim.data}"


def _static_position(op: vector.ExtractOp | vector.InsertOp) -> int:
    pos = list(op.static_position.iter_values())
    if op.dynamic_position or len(pos) != 1:
        raise NotSupportedYet(
            f"HIP emission of {op.name} with a dynamic or multi-dimensional position", op_location(op)
        )
    return pos[0]


def _shfl_xor(p: HipEmitter, op: amd.ShflXorOp) -> str:
    mask = p.name(op.mask_reg) if op.mask_reg is not None else str(op.mask.data)
    return f"__shfl_xor({p.name(op.value)}, {mask}, {p.wave})"


def _dpp(p: HipEmitter, op: amd.DppOp) -> str:
    bound = "true" if op.bound_ctrl is not None else "false"
    return f"__builtin_amdgcn_mov_dpp({p.name(op.value)}, {op.ctrl.data:#x}, {op.row_mask.data:#x}, {op.bank_mask.data:#x}, {bound})"


def _mfma(p: HipEmitter, op: amd.MfmaOp) -> str:
    a, b, c = (p.name(v) for v in (op.a, op.b, op.c))
    return f"__builtin_amdgcn_mfma_{op.variant.data}({a}, {b}, {c}, {op.cbsz.data}, {op.abid.data}, {op.blgp.data})"


def _word_type(t: Attribute) -> str:
    """The unsigned C type of an atomic word (i32 / i64)."""
    return "unsigned int" if t.width.data == 32 else "unsigned long long"


def _atomic_load(p: HipEmitter, op: amd.GlobalAtomicLoadOp) -> str:
    w = _word_type(op.result.type)
    return f"({p.ctype(op.result.type)})tilec_load_{op.order.data}(({w}*){p.addr(op.addr)})"


def _atomic_store(p: HipEmitter, op: amd.GlobalAtomicStoreOp) -> None:
    w = _word_type(op.value.type)
    p.line(f"tilec_store_{op.order.data}(({w}*){p.addr(op.addr)}, ({w}){p.name(op.value)});")


def _fetch_add(p: HipEmitter, op: amd.GlobalAtomicFetchAddOp) -> str:
    w = _word_type(op.value.type)
    return f"({p.ctype(op.result.type)})tilec_fetch_add(({w}*){p.addr(op.addr)}, ({w}){p.name(op.value)})"


AMD_VALUES: Mapping[type[Operation], Callable[[HipEmitter, Operation], str]] = MappingProxyType(
    {
        amd.WorkitemIdOp: _grid_var("threadIdx"),
        amd.WorkgroupIdOp: _grid_var("blockIdx"),
        amd.WorkgroupSizeOp: _grid_var("blockDim"),
        amd.NumWorkgroupsOp: _grid_var("gridDim"),
        amd.LaneIdOp: lambda p, op: "(int32_t)__lane_id()",
        amd.GlobalLoadOp: lambda p, op: f"*(const {p.ctype(op.result.type)}*){p.addr(op.addr, op.offset.data)}",
        amd.LdsLoadOp: lambda p, op: f"*(const {p.ctype(op.result.type)}*)({LDS} + {p.lds_off(op)})",
        amd.ShflXorOp: _shfl_xor,
        amd.GlobalAtomicLoadOp: _atomic_load,
        amd.GlobalAtomicFetchAddOp: _fetch_add,
        amd.DsSwizzleOp: lambda p, op: f"__builtin_amdgcn_ds_swizzle({p.name(op.value)}, {op.pattern.data:#06x})",
        amd.DppOp: _dpp,
        amd.MfmaOp: _mfma,
        vector.ExtractOp: lambda p, op: f"{p.name(op.vector)}[{_static_position(op)}]",
        vector.BroadcastOp: lambda p, op: f"({p.ctype(op.vector.type)})({p.name(op.source)})",
    }
)
"""Ops whose result is one expression (declared as a variable), beside the arith / math ones."""


def _constant(p: HipEmitter, op: arith.ConstantOp) -> None:
    if isinstance(op.result.type, VectorType):
        raise NotSupportedYet("HIP emission of vector constants (use vector.broadcast)", op_location(op))
    # printed inline as a literal


def _ptr_to_int(p: HipEmitter, op: PtrToIntOp) -> None:
    p.addresses.add(op.results[0])
    p.line(f"char* {p.name(op.results[0])} = (char*){p.name(op.operands[0])};")


def _lds_addr(p: HipEmitter, op: amd.LdsAddrOp | amd.DynamicLdsAddrOp) -> None:
    """An LDS address is a constant byte offset in the kernel's LDS array: printed inline."""
    off = p.dynamic_lds_offset if isinstance(op, amd.DynamicLdsAddrOp) else p.lds_offsets[op.symbol.root_reference.data]
    p.names[op.result] = f"((int32_t){off})"


def _vector_insert(p: HipEmitter, op: vector.InsertOp) -> None:
    pos = _static_position(op)
    p.decl(op.result, p.name(op.dest))
    p.line(f"{p.name(op.result)}[{pos}] = {p.name(op.source)};")


def _addi(p: HipEmitter, op: arith.AddiOp) -> None:
    """An address plus an integer is a `char*` (keeping the global address space)."""
    if (op.lhs in p.addresses) == (op.rhs in p.addresses):
        p.shared_op(op)
        return
    a, b = (op.lhs, op.rhs) if op.lhs in p.addresses else (op.rhs, op.lhs)
    p.addresses.add(op.result)
    p.line(f"char* {p.name(op.result)} = {p.name(a)} + {p.name(b)};")


def _select(p: HipEmitter, op: arith.SelectOp) -> None:
    if not (op.lhs in p.addresses and op.rhs in p.addresses):
        p.shared_op(op)
        return
    p.addresses.add(op.result)
    p.line(f"char* {p.name(op.result)} = {p.name(op.cond)} ? {p.name(op.lhs)} : {p.name(op.rhs)};")


def _atomic_add(p: HipEmitter, op: amd.GlobalAtomicAddOp) -> None:
    """HIP's atomicAdd overloads: float, double, unsigned int, unsigned long long (integers add as
    unsigned: the same bits as signed)."""
    t = op.value.type
    ct = p.ctype(t) if t in (f32, f64) else ("unsigned int" if t.width.data == 32 else "unsigned long long")
    p.line(f"atomicAdd(({ct}*){p.addr(op.addr, op.offset.data)}, ({ct}){p.name(op.value)});")


AMD_STATEMENTS: Mapping[type[Operation], Callable[[HipEmitter, Operation], None]] = MappingProxyType(
    {
        arith.ConstantOp: _constant,
        amd.ReturnOp: lambda p, op: p.line("return;"),
        amd.LdsOp: lambda p, op: None,  # laid out in the kernel's LDS array
        PtrToIntOp: _ptr_to_int,
        amd.LdsAddrOp: _lds_addr,
        amd.DynamicLdsAddrOp: _lds_addr,
        amd.GlobalStoreOp: lambda p, op: p.line(
            f"*({p.ctype(op.value.type)}*){p.addr(op.addr, op.offset.data)} = {p.name(op.value)};"
        ),
        amd.GlobalAtomicAddOp: _atomic_add,
        amd.GlobalAtomicStoreOp: _atomic_store,
        amd.LdsStoreOp: lambda p, op: p.line(
            f"*({p.ctype(op.value.type)}*)({LDS} + {p.lds_off(op)}) = {p.name(op.value)};"
        ),
        amd.BarrierOp: lambda p, op: p.line("__syncthreads();"),
        vector.InsertOp: _vector_insert,
        arith.AddiOp: _addi,
        arith.SelectOp: _select,
    }
)
"""The other ops HIP prints in its own way; the rest are shared with C (`CFamilyPrinter.shared_op`)."""


def emit_hip(module: ModuleOp, **options) -> str:
    if options:
        raise NotSupportedYet(f"HIP emitter options {sorted(options)}")
    return HipEmitter(module).emit()


def cuda_compat_source(hip_source: str) -> str:
    """The HIP source with tilec/emit/hip_compat_cuda.h prepended: CUDA C++ for NVRTC / nvcc."""
    return COMPAT_HEADER.read_text() + "\n" + hip_source


__all__ = ["emit_hip", "cuda_compat_source", "HipEmitter", "COMPAT_HEADER"]
