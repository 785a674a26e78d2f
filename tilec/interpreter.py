"""The reference interpreter of the `tile` dialect: the oracle every target is tested against.

    from tilec.interpreter import interpret_func, interpret_module
    outs = interpret_func(func_op, [a, b, 2.5])          # -> tuple of numpy arrays, one per output
    outs = interpret_module(module, [a, b], name="mm")   # the only (or the named) tile.func

Inputs are numpy arrays for `!tile.array` arguments (exact dtype, see below; a numpy scalar is a
rank-0 array) and Python/numpy scalars for scalar arguments. Each is checked against its argument type: rank, static sizes and
dtype must match; a `?` dimension takes the size of the given array. Any mismatch, and any error
only visible at run time (two `?` sizes that disagree, integer division by zero, ...), raises a
`TilecError`: input errors at the `tile.func`, run-time errors at the failing op.

Semantics (docs/interpreter.md has the same text with the reasoning):

* dtypes: f16 -> numpy.float16, bf16 -> ml_dtypes.bfloat16, f32 -> float32, f64 -> float64,
  i1 -> bool_, i8/i16/i32/i64 -> int8/int16/int32/int64 (two's complement), ui8/ui16/ui32/ui64 ->
  uint8/uint16/uint32/uint64, index -> Python int; f8E4M3FN / f8E5M2 -> ml_dtypes.float8_e4m3fn /
  float8_e5m2 (the values; the roundings are tilec/fp8.py's, torch's, not ml_dtypes').
* fp8: computed in float32 like f16/bf16; every rounding to fp8 goes through float32 (f64 and
  int sources too: two roundings, as torch's c10::Float8_* constructors take a float), to nearest
  even; e4m3fn saturates finite overflow and +-inf to +-448, e5m2 overflows to +-inf; NaN stays
  NaN (tilec/fp8.py). fp8 -> any float is exact; fp8 -> int is float32 -> int.
* Every op's result is a tile of its element type: a value is rounded to that type after EACH op.
  Conversions between floating types round to nearest, ties to even, once (float64 -> bf16 and
  int -> bf16 are done with round-to-odd intermediates, because ml_dtypes rounds them twice).
* Floats, basic ops (neg abs add sub mul div max min sqrt, cmp): computed in float32 for
  f16/bf16/f32, float64 for f64, then rounded. For these ops this equals the correctly rounded
  result in the element type (float32 has >= 2p+2 bits for p = 11 and 8).
* Floats, transcendental ops (exp log tanh erf pow rsqrt): evaluated in float64 and rounded once
  to the element type (numpy's float32 kernels differ between CPUs by an ulp; float64 then
  rounding is nearly always the correctly rounded value). `rsqrt(x) = 1/sqrt(x)`. `erf` is a
  vectorized port of fdlibm's s_erf.c (< 1 ulp in float64). IEEE special values throughout
  (x/0 = +-inf, 0/0 = NaN, log(0) = -inf, ...); no warnings.
* The math library's ops (sin ... sign, atan2: tilec/mathfns.py): the row's numpy function in
  float64, rounded once to the element type (integers: `sign` in the integer type).
* `max`/`min` propagate NaN. `cmp` is ordered (false when either side is NaN) except `ne` (true).
* Integers wrap around (two's complement) on add, sub, mul, neg; abs(INT_MIN) = INT_MIN. `div`
  truncates toward zero; a zero divisor, or INT_MIN / -1, is a TilecError at the op.
  `floordiv`/`mod` are Python's `//`/`%` (floor; the remainder has the divisor's sign) with
  numpy's results where those are undefined: x // 0 = x % 0 = 0, INT_MIN // -1 = INT_MIN; on
  floats numpy.floor_divide / numpy.remainder. `and or xor not` are bitwise; `shl`/`shr` by an
  amount outside [0, width) give 0 (shl, unsigned shr) or the sign fill (signed shr), as numpy
  on x86; `shr` is arithmetic for signed, logical for unsigned types. max/min/cmp/div of
  unsigned types compare as unsigned.
* `bitcast` reinterprets the bits (same width).
* `cast`: float -> float and int -> float round to nearest even; float -> int truncates toward
  zero and saturates to the integer range (unsigned: [0, UINT_MAX]), NaN -> 0 (like PTX cvt.rzi.sat); int -> int keeps the
  low bits (sign-extends when widening); anything -> i1 is `!= 0` (NaN -> true); i1 -> number
  gives 0 or 1.
* `contract`: numpy.tensordot with batch axes; result axes are (batch, lhs free, rhs free).
  Both inputs are first converted to `acc` (cast semantics). f32/f64 `acc`: one BLAS matmul in
  that type (summation order unspecified, like a GPU). f16/bf16 `acc`: a sequential
  fused-multiply-add chain, acc = round(acc + a*b) for each contracted index in row-major order.
  Integer `acc`: exact sum of products modulo 2**width (wraparound). Then the accumulator is
  converted to the result element type (cast semantics). An empty contraction gives 0.
* `reduce`: sum/prod accumulate in float32 for f16/bf16 (rounded once at the end), in the element
  type otherwise (order unspecified: numpy's pairwise summation); integers wrap. max/min
  propagate NaN. Over an empty axis: sum 0, prod 1, max -inf / INT_MIN, min +inf / INT_MAX.
* `broadcast` numpy-style (trailing axes align), `transpose` result axis i = source axis
  perm[i], `reshape` row-major, `iota` the index along `axis` converted like `cast` (wraps for
  small ints), `constant` the attribute's value converted like `cast` (splat or dense), `dim`
  the run-time size. `slice` is numpy basic slicing (offset, stride, the result's size; a
  negative offset counts from the end; indices outside a `?` axis are an error at the op);
  `dynamic_slice` clamps its start to [0, n - size] like `jax.lax.dynamic_slice` (n < size is an
  error); `concat` is numpy.concatenate; `pad` is numpy.pad in constant mode,
  the value converted like `constant`. `random_bits` is `philox.random_bits(seed, offset,
  shape)` (seed and offset read as uint64). `take` / `take_along_axis` are numpy's (negative indices
  in [-n, n) count from the end); `scatter_add` is torch's (indices in [0, n), duplicates
  accumulate in row-major order of the indices, rounding after each addition); an index out of
  range is an `IndexOutOfRange` at the op. `sort` / `topk` are a stable order (NaN largest, -0.0
  equal to 0.0, ties in input order, descending too; top-k: its first k). `load` copies the whole input
  array, `store` copies the whole tile into the output. A `store` into an input (an in-place
  update) writes the given input array itself, after every op ran (loads see the entry values); a
  read-only input array is then an error. Size operands must be >= 0.
* A `?` dimension of an output array takes the size of the tile stored into it; `tile.dim` on
  such an axis before the store is an error.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from tilec import philox
from tilec.diagnostics import IndexOutOfRange, TilecError, op_location
from tilec.dialects import tile
from tilec.dialects.common import DYNAMIC, int_list, is_unsigned, shape_str
from tilec.fp8 import E4M3FN, E5M2, from_fp8_bits, to_fp8_bits
from tilec.ir import verify_module
from tilec.mathfns import BY_OP

__all__ = ["StepInterpreter", "interpret_func", "interpret_module", "numpy_dtype", "convert", "erf"]

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
BOOL = np.dtype(np.bool_)
F8E4M3FN = np.dtype(ml_dtypes.float8_e4m3fn)
F8E5M2 = np.dtype(ml_dtypes.float8_e5m2)
FP8_FORMATS = {F8E4M3FN: E4M3FN, F8E5M2: E5M2}
FLOAT_DTYPES = (F16, BF16, F32, F64, F8E4M3FN, F8E5M2)
INT_DTYPES = {8: np.dtype(np.int8), 16: np.dtype(np.int16), 32: np.dtype(np.int32), 64: np.dtype(np.int64)}
UINT_DTYPES = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32), 64: np.dtype(np.uint64)}


def numpy_dtype(t: Attribute) -> np.dtype:
    """The numpy dtype that holds elements of the tile element type `t`."""
    if isinstance(t, Float16Type):
        return F16
    if isinstance(t, BFloat16Type):
        return BF16
    if isinstance(t, Float32Type):
        return F32
    if isinstance(t, Float64Type):
        return F64
    if isinstance(t, Float8E4M3FNType):
        return F8E4M3FN
    if isinstance(t, Float8E5M2Type):
        return F8E5M2
    if isinstance(t, IntegerType):
        w = t.width.data
        if w == 1:
            return BOOL
        if is_unsigned(t) and w in UINT_DTYPES:
            return UINT_DTYPES[w]
        if w in INT_DTYPES and not is_unsigned(t):
            return INT_DTYPES[w]
    if isinstance(t, IndexType):
        return INT_DTYPES[64]
    raise TilecError(f"the interpreter has no numpy type for {t}")


def _is_float(dt: np.dtype) -> bool:
    return dt in FLOAT_DTYPES


def _dtype_desc(dt: np.dtype) -> str:
    return f"ml_dtypes.{dt.name}" if dt in (BF16, F8E4M3FN, F8E5M2) else f"numpy.{dt.name}"


def _round(x: np.ndarray, dst: np.dtype) -> np.ndarray:
    """float32/float64 results rounded to the float type `dst` (fp8: via float32, torch's rules)."""
    fmt = FP8_FORMATS.get(dst)
    if fmt is not None:
        return to_fp8_bits(np.asarray(x).astype(F32), fmt).view(dst)
    return np.asarray(x).astype(dst)


# --- exact conversions --------------------------------------------------------------------------


def _f64_to_f32_odd(x: np.ndarray) -> np.ndarray:
    """float64 -> float32 rounded to odd: a correct intermediate for one more rounding to bf16."""
    f = x.astype(F32)
    back = f.astype(F64)
    adjust = (back != x) & ~np.isnan(x) & ((f.view(np.uint32) & 1) == 0)
    if adjust.any():
        toward = np.where(x > back, np.float32(np.inf), np.float32(-np.inf))
        f = np.where(adjust, np.nextafter(f, toward), f)
    return f


def _i64_to_f64_odd(x: np.ndarray) -> np.ndarray:
    """int64 -> float64 rounded to odd (exact when |x| <= 2**53)."""
    f = x.astype(F64)
    big = f >= 2.0**63  # x close to INT64_MAX rounded up to 2**63
    back = np.where(big, 0.0, f).astype(np.int64)
    err = np.where(big, (x - np.int64(2**63 - 1)) - 1, x - back)  # x - f, exactly
    adjust = (err != 0) & ((f.view(np.uint64) & np.uint64(1)) == 0)
    if adjust.any():
        f = np.where(adjust, np.nextafter(f, np.where(err > 0, np.inf, -np.inf)), f)
    return f


def _f64_to(x: np.ndarray, dst: np.dtype) -> np.ndarray:
    """float64 -> a float type, one rounding to nearest even (fp8: via float32, as torch)."""
    if dst in FP8_FORMATS:
        return _round(x, dst)
    if dst == BF16:
        return _f64_to_f32_odd(x).astype(BF16)
    return x.astype(dst)  # numpy converts float64 -> float16/float32 directly


def convert(x: np.ndarray, dst: np.dtype) -> np.ndarray:
    """`tile.cast` semantics from x's dtype to `dst` (documented in the module docstring)."""
    x = np.asarray(x)
    src = x.dtype
    dst = np.dtype(dst)
    with np.errstate(all="ignore"):
        if src == dst:
            return x
        if src in FP8_FORMATS:  # exact in float32
            return convert(from_fp8_bits(x.view(np.uint8), FP8_FORMATS[src]), dst)
        if dst in FP8_FORMATS:  # through float32, as torch (c10::Float8_* are built from a float)
            return _round(convert(x, F32), dst)
        if dst == BOOL:
            return x != 0
        if src == BOOL:
            return x.astype(dst)
        if _is_float(dst):
            if _is_float(src):
                if dst == F64:
                    return x.astype(F64)
                if src == F64:
                    return _f64_to(x, dst)
                return x.astype(F32).astype(dst)  # f16/bf16/f32 -> f32 is exact; f32 -> dst rounds once
            if dst in (F32, F64):
                return x.astype(dst)  # a C int -> float conversion: rounds once
            if src.kind == "u":  # via float64, rounded once: harmless for f16/bf16 (53 >= 2p + 2)
                return _f64_to(x.astype(F64), dst)
            i64 = x.astype(np.int64)
            if dst == F16:
                return i64.astype(F64).astype(F16)  # exact below 2**53; beyond that f16 is inf anyway
            return _f64_to_f32_odd(_i64_to_f64_odd(i64)).astype(BF16)
        if _is_float(src):
            info = np.iinfo(dst)
            t = np.trunc(x.astype(F64))
            nan = np.isnan(t)
            hi = t >= float(info.max) + 1.0  # 2**(bits - 1), 2**bits unsigned: exact in float64
            lo = t < float(info.min)
            r = np.where(nan | hi | lo, 0.0, t).astype(dst)
            r = np.where(hi, dst.type(info.max), r)
            return np.where(lo, dst.type(info.min), r).astype(dst)
        return x.astype(dst)  # int -> int: keep the low bits


def _scalar_to(value: float | int, dst: np.dtype) -> np.ndarray:
    """A Python number as a 0-d array of `dst` (float: rounded once; int: wraps; i1: != 0)."""
    if dst == BOOL:
        return np.asarray(value != 0)
    if _is_float(dst):
        if isinstance(value, int) and -(2**63) <= value < 2**63:
            return convert(np.asarray(value, np.int64), dst)
        return _f64_to(np.asarray(float(value), F64), dst)
    if dst.kind == "u":
        return np.asarray(int(value) % (1 << (dst.itemsize * 8)), dst)
    return np.asarray(_wrap_int(int(value), dst.itemsize * 8), dst)


def _wrap_int(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


# --- erf (fdlibm s_erf.c, vectorized, float64) --------------------------------------------------

_ERX = 8.45062911510467529297e-01
_EFX8 = 1.02703333676410069053e00
_PP = (1.28379167095512558561e-01, -3.25042107247001499370e-01, -2.84817495755985104766e-02,
       -5.77027029648944159157e-03, -2.37630166566501626084e-05)  # fmt: skip
_QQ = (1.0, 3.97917223959155352819e-01, 6.50222499887672944485e-02, 5.08130628187576562776e-03,
       1.32494738004321644526e-04, -3.96022827877536812320e-06)  # fmt: skip
_PA = (-2.36211856075265944077e-03, 4.14856118683748331666e-01, -3.72207876035701323847e-01,
       3.18346619901161753674e-01, -1.10894694282396677476e-01, 3.54783043256182359371e-02,
       -2.16637559486879084300e-03)  # fmt: skip
_QA = (1.0, 1.06420880400844228286e-01, 5.40397917702171048937e-01, 7.18286544141962662868e-02,
       1.26171219808761642112e-01, 1.36370839120290507362e-02, 1.19844998467991074170e-02)  # fmt: skip
_RA = (-9.86494403484714822705e-03, -6.93858572707181764372e-01, -1.05586262253232909814e01,
       -6.23753324503260060396e01, -1.62396669462573470355e02, -1.84605092906711035994e02,
       -8.12874355063065934246e01, -9.81432934416914548592e00)  # fmt: skip
_SA = (1.0, 1.96512716674392571292e01, 1.37657754143519042600e02, 4.34565877475229228821e02,
       6.45387271733267880336e02, 4.29008140027567833386e02, 1.08635005541779435134e02,
       6.57024977031928170135e00, -6.04244152148580987438e-02)  # fmt: skip
_RB = (-9.86494292470009928597e-03, -7.99283237680523006574e-01, -1.77579549177547519889e01,
       -1.60636384855821916062e02, -6.37566443368389627722e02, -1.02509513161107724954e03,
       -4.83519191608651397019e02)  # fmt: skip
_SB = (1.0, 3.03380607434824582924e01, 3.25792512996573918826e02, 1.53672958608443695994e03,
       3.19985821950859553908e03, 2.55305040643316442583e03, 4.74528541206955367215e02,
       -2.24409524465858183362e01)  # fmt: skip
_ERF_TINY = 2.0**-28  # fdlibm: high word < 0x3e300000
_ERF_SMALL = 0.84375  # 0x3feb0000
_ERF_MID = 1.25  # 0x3ff40000
_ERF_TAIL = float(np.array(0x4006DB6E00000000, np.uint64).view(np.float64))  # ~1/0.35
_ERF_ONE = 6.0  # 0x40180000


def _poly(coeffs: Sequence[float], s: np.ndarray) -> np.ndarray:
    r = np.full_like(s, coeffs[-1])
    for c in reversed(coeffs[:-1]):
        r = c + s * r
    return r


def erf(x: np.ndarray) -> np.ndarray:
    """The error function in float64, elementwise (fdlibm's algorithm; < 1 ulp)."""
    x = np.asarray(x, F64)
    out = np.array(x, dtype=F64, copy=True)  # NaN stays NaN
    ax = np.abs(x)
    sign = np.where(np.signbit(x), -1.0, 1.0)
    with np.errstate(all="ignore"):
        m = ax < _ERF_TINY
        out[m] = 0.125 * (8.0 * x[m] + _EFX8 * x[m])
        m = (ax >= _ERF_TINY) & (ax < _ERF_SMALL)
        z = x[m] * x[m]
        out[m] = x[m] + x[m] * (_poly(_PP, z) / _poly(_QQ, z))
        m = (ax >= _ERF_SMALL) & (ax < _ERF_MID)
        s = ax[m] - 1.0
        out[m] = sign[m] * (_ERX + _poly(_PA, s) / _poly(_QA, s))
        m = ax >= _ERF_ONE
        out[m] = sign[m]
        m = (ax >= _ERF_MID) & (ax < _ERF_ONE)
        a = ax[m]
        s = 1.0 / (a * a)
        near = a < _ERF_TAIL
        r_over_s = np.where(near, _poly(_RA, s) / _poly(_SA, s), _poly(_RB, s) / _poly(_SB, s))
        zz = (a.view(np.uint64) & np.uint64(0xFFFFFFFF00000000)).view(F64)
        r = np.exp(-zz * zz - 0.5625) * np.exp((zz - a) * (zz + a) + r_over_s)
        out[m] = sign[m] * (1.0 - r / a)
    return out


# --- the interpreter ----------------------------------------------------------------------------


def _value_name(v: SSAValue) -> str:
    return f"%{v.name_hint}" if v.name_hint else "the value"


def _arg_name(func: tile.FuncOp, i: int) -> str:
    arg = func.body.block.args[i]
    return f"%{arg.name_hint}" if arg.name_hint else f"#{i}"


class _Interpreter:
    def __init__(self, func: tile.FuncOp):
        self.func = func
        self.env: dict[SSAValue, object] = {}
        self.outputs: dict[SSAValue, np.ndarray] = {}
        self.updates: dict[SSAValue, np.ndarray] = {}  # input array -> its new value (written at the end)

    # errors and shape helpers

    def error(self, op: Operation, message: str) -> TilecError:
        return TilecError(f"{op.name.split('.', 1)[-1]}: {message}", op_location(op))

    def tile_type(self, value: SSAValue) -> tile.TileType:
        t = value.type
        assert isinstance(t, tile.TileType)
        return t

    def check_shape(self, op: Operation, shape: Sequence[int], static: Sequence[int], what: str) -> None:
        if len(shape) != len(static) or any(s != DYNAMIC and s != d for s, d in zip(static, shape)):
            raise self.error(
                op,
                f"{what} has shape {shape_str(shape) or 'scalar'} at run time, which does not fit {shape_str(static) or 'scalar'}",
            )

    def result_shape(self, op: Operation, t: tile.TileType, sizes: Sequence[SSAValue]) -> tuple[int, ...]:
        """The run-time shape of a created tile: static sizes, with `?` taken from `sizes`."""
        values = [self.env[s] for s in sizes]
        for v in values:
            if v < 0:
                raise self.error(op, f"size operand is negative ({v})")
        it = iter(values)
        return tuple(next(it) if d == DYNAMIC else d for d in t.get_shape())

    def same_shapes(self, op: Operation, arrays: Sequence[np.ndarray], names: Sequence[str]) -> None:
        first = arrays[0].shape
        for a, n in zip(arrays[1:], names[1:]):
            if a.shape != first:
                raise self.error(
                    op, f"{names[0]} has shape {shape_str(first)} but {n} has shape {shape_str(a.shape)} at run time"
                )

    def set(self, op: Operation, value: np.ndarray) -> None:
        t = self.tile_type(op.results[0])
        value = np.asarray(value)
        dt = numpy_dtype(t.element_type)
        if value.dtype != dt:
            value = convert(value, dt)
        self.check_shape(op, value.shape, t.get_shape(), "the result")
        self.env[op.results[0]] = value

    # inputs

    def bind_inputs(self, inputs: Sequence[object]) -> None:
        func = self.func
        loc = op_location(func)
        fname = f"tile.func @{func.sym_name.data}"
        if isinstance(inputs, np.ndarray) or not isinstance(inputs, Sequence):
            raise TilecError(
                f"{fname}: inputs must be a list or tuple of arrays/scalars, got {type(inputs).__name__}", loc
            )
        names = ", ".join(_arg_name(func, i) for i in range(func.num_inputs)) or "none"
        if len(inputs) != func.num_inputs:
            raise TilecError(f"{fname} takes {func.num_inputs} input(s) ({names}), got {len(inputs)}", loc)
        for i, (arg, value) in enumerate(zip(func.input_args, inputs)):
            what = f"{fname}: input {_arg_name(func, i)} (argument {i}) of type {arg.type}"
            if isinstance(arg.type, tile.ArrayType):
                self.env[arg] = self.check_array(arg.type, value, what, loc)
            else:
                self.env[arg] = self.check_scalar(arg.type, value, what, loc)

    def check_array(self, t: tile.ArrayType, value: object, what: str, loc) -> np.ndarray:
        dt = numpy_dtype(t.element_type)
        if isinstance(value, np.generic):  # a numpy scalar is a rank-0 array
            value = np.asarray(value)
        if not isinstance(value, np.ndarray):
            raise TilecError(f"{what} must be a numpy array of {_dtype_desc(dt)}, got {type(value).__name__}", loc)
        if value.dtype != dt:
            raise TilecError(f"{what} must hold {_dtype_desc(dt)}, got an array of {_dtype_desc(value.dtype)}", loc)
        shape = t.get_shape()
        if value.ndim != len(shape):
            raise TilecError(f"{what} must have rank {len(shape)}, got an array of shape {value.shape}", loc)
        for axis, (want, got) in enumerate(zip(shape, value.shape)):
            if want != DYNAMIC and want != got:
                raise TilecError(
                    f"{what} must have size {want} on axis {axis}, got an array of shape {value.shape}", loc
                )
        return value

    def check_scalar(self, t: Attribute, value: object, what: str, loc) -> object:
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value[()]
        if isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width.data > 1):
            bits = 64 if isinstance(t, IndexType) else t.width.data
            if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
                raise TilecError(f"{what} must be an integer, got {type(value).__name__}", loc)
            v = int(value)
            if isinstance(t, IntegerType) and is_unsigned(t):
                if not 0 <= v < 2**bits:
                    raise TilecError(f"{what}: {v} does not fit in {bits} unsigned bits", loc)
                return np.asarray(v, numpy_dtype(t))
            if not -(2 ** (bits - 1)) <= v < 2 ** (bits - 1):
                raise TilecError(f"{what}: {v} does not fit in {bits} signed bits", loc)
            return v if isinstance(t, IndexType) else np.asarray(v, INT_DTYPES[bits])
        if isinstance(t, IntegerType):  # i1
            if isinstance(value, bool | np.bool_) or (isinstance(value, numbers.Integral) and int(value) in (0, 1)):
                return np.asarray(bool(value))
            raise TilecError(f"{what} must be a bool (or 0/1), got {value!r}", loc)
        dt = numpy_dtype(t)
        if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
            raise TilecError(f"{what} must be a real number, got {type(value).__name__}", loc)
        if isinstance(value, numbers.Integral):
            return _scalar_to(int(value), dt)
        return convert(np.asarray(value), dt) if isinstance(value, np.generic) else _scalar_to(float(value), dt)

    # running

    def step(self, op: Operation) -> None:
        """Run one op (its operands have values already)."""
        if isinstance(op, tile.ReturnOp):
            return
        handler = _HANDLERS.get(type(op))
        if handler is None:
            if isinstance(op, tile.UnaryOp):
                handler = _Interpreter.unary
            elif isinstance(op, tile.BinaryOp):
                handler = _Interpreter.binary
            else:
                raise TilecError(f"the interpreter does not support '{op.name}'", op_location(op))
        with np.errstate(all="ignore"):
            handler(self, op)

    def run(self, inputs: Sequence[object]) -> tuple[np.ndarray, ...]:
        self.bind_inputs(inputs)
        for op in self.func.body.block.ops:
            if isinstance(op, tile.ReturnOp):
                break
            self.step(op)
        outs = []
        for i, arg in enumerate(self.func.output_args):
            if arg not in self.outputs:  # the verifier makes this unreachable for a verified func
                raise TilecError(
                    f"output {_arg_name(self.func, self.func.num_inputs + i)} was never stored", op_location(self.func)
                )
            outs.append(self.outputs[arg])
        self.write_updates()
        return tuple(outs)

    def write_updates(self) -> None:
        """In-place updates take effect after every op ran: each updated input array is written."""
        for arg, value in self.updates.items():
            np.copyto(self.env[arg], value, casting="no")

    # memory boundary

    def load(self, op: tile.LoadOp) -> None:
        x = self.env[op.source]
        static = self.tile_type(op.result).get_shape()
        self.check_shape(op, x.shape, static, f"the array {_value_name(op.source)}")
        self.set(op, np.array(x, copy=True))

    def store(self, op: tile.StoreOp) -> None:
        value = self.env[op.value]
        dt = op.dest.type
        assert isinstance(dt, tile.ArrayType)
        if op.dest in self.env:  # an input: an in-place update, written after every op ran
            target = self.env[op.dest]
            self.check_shape(op, value.shape, target.shape, f"the stored tile (into the input {_value_name(op.dest)})")
            if not target.flags.writeable:
                raise self.error(op, f"the input {_value_name(op.dest)} is updated in place but its array is read-only")
            self.updates[op.dest] = np.array(value, dtype=numpy_dtype(dt.element_type), copy=True, order="C")
            return
        self.check_shape(op, value.shape, dt.get_shape(), f"the stored tile (into an output of type {dt})")
        self.outputs[op.dest] = np.array(value, dtype=numpy_dtype(dt.element_type), copy=True, order="C")

    def dim(self, op: tile.DimOp) -> None:
        src, axis = op.source, op.axis.data
        if src in self.env:
            self.env[op.result] = int(np.shape(self.env[src])[axis])
            return
        if src in self.outputs:
            self.env[op.result] = int(self.outputs[src].shape[axis])
            return
        t = src.type
        assert isinstance(t, tile.ArrayType)
        size = t.get_shape()[axis]
        if size == DYNAMIC:
            raise self.error(
                op, f"axis {axis} of output {_value_name(src)} is dynamic and nothing has been stored into it yet"
            )
        self.env[op.result] = size

    # creation

    def constant(self, op: tile.ConstantOp) -> None:
        t = self.tile_type(op.result)
        dt = numpy_dtype(t.element_type)
        shape = self.result_shape(op, t, op.sizes)
        v = op.value
        if isinstance(v, FloatAttr | IntegerAttr):
            self.set(op, np.broadcast_to(_scalar_to(v.value.data, dt), shape))
            return
        assert isinstance(v, DenseIntOrFPElementsAttr)
        values = list(v.get_values())
        if dt == BOOL or not _is_float(dt):
            arr = np.array([_scalar_to(int(x), dt) for x in values], dtype=dt)
        else:
            arr = _f64_to(np.array([float(x) for x in values], F64), dt)
        if len(values) == 1:
            self.set(op, np.broadcast_to(arr.reshape(()), shape))
        else:
            self.set(op, arr.reshape(tuple(v.get_shape())))

    def iota(self, op: tile.IotaOp) -> None:
        t = self.tile_type(op.result)
        shape = self.result_shape(op, t, op.sizes)
        axis = op.axis.data
        line = convert(np.arange(shape[axis], dtype=np.int64), numpy_dtype(t.element_type))
        view = [1] * len(shape)
        view[axis] = shape[axis]
        self.set(op, np.broadcast_to(line.reshape(view), shape))

    def splat(self, op: tile.SplatOp) -> None:
        t = self.tile_type(op.result)
        dt = numpy_dtype(t.element_type)
        shape = self.result_shape(op, t, op.sizes)
        s = self.env[op.scalar]
        value = _scalar_to(int(s), dt) if isinstance(op.scalar.type, IndexType) else np.asarray(s, dt)
        self.set(op, np.broadcast_to(value, shape))

    def random_bits(self, op: tile.RandomBitsOp) -> None:
        shape = self.result_shape(op, self.tile_type(op.result), op.sizes)
        seed, offset = (int(np.asarray(self.env[v]).astype(np.uint64)) for v in (op.seed, op.offset))
        self.set(op, philox.random_bits(seed, offset, shape))

    # elementwise

    def unary(self, op: tile.UnaryOp) -> None:
        x = self.env[op.operand]
        dt = x.dtype
        name = op.name.split(".", 1)[1]
        fn = BY_OP.get(type(op))
        if fn is not None:
            r = _math_function(fn.numpy, [x], dt)
        elif _is_float(dt):
            if name in _TRANSCENDENTAL:
                r = _f64_to(np.asarray(_TRANSCENDENTAL[name](x.astype(F64)), F64), dt)
            else:
                ct = F64 if dt == F64 else F32
                r = _round(_BASIC_UNARY[name](x.astype(ct)), dt)
        elif name == "not":
            r = np.invert(x)
        else:
            r = _BASIC_UNARY[name](x)
        self.set(op, r)

    def binary(self, op: tile.BinaryOp) -> None:
        a, b = self.env[op.lhs], self.env[op.rhs]
        self.same_shapes(op, [a, b], ["lhs", "rhs"])
        dt = a.dtype
        name = op.name.split(".", 1)[1]
        fn = BY_OP.get(type(op))
        if fn is not None:
            r = _math_function(fn.numpy, [a, b], dt)
        elif _is_float(dt):
            if name == "pow":
                r = _f64_to(np.asarray(np.power(a.astype(F64), b.astype(F64))), dt)
            elif name in _INT_ONLY_BINARY:
                raise self.error(op, f"needs integer tiles, got {dt.name}")
            else:
                ct = F64 if dt == F64 else F32
                r = _round(_BASIC_BINARY[name](a.astype(ct), b.astype(ct)), dt)
        elif name == "div":
            r = self.int_div(op, a, b)
        elif name in _INT_BINARY:
            r = _INT_BINARY[name](a, b)
        else:
            r = _BASIC_BINARY[name](a, b)
        self.set(op, r)

    def int_div(self, op: Operation, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        zero = b == 0
        if zero.any():
            idx = tuple(int(i) for i in np.argwhere(zero)[0])
            raise self.error(op, f"integer division by zero ({a[idx]} / 0 at index {list(idx)})")
        overflow = (a == np.iinfo(a.dtype).min) & (b == -1)
        if overflow.any():
            idx = tuple(int(i) for i in np.argwhere(overflow)[0])
            raise self.error(
                op, f"integer division overflow ({a[idx]} / -1 does not fit in {a.dtype.name}, at index {list(idx)})"
            )
        rem = np.fmod(a, b)  # C remainder: the sign of the dividend
        return (a - rem) // b  # exact division

    def cmp(self, op: tile.CmpOp) -> None:
        a, b = self.env[op.lhs], self.env[op.rhs]
        self.same_shapes(op, [a, b], ["lhs", "rhs"])
        if _is_float(a.dtype):
            ct = F64 if a.dtype == F64 else F32
            a, b = a.astype(ct), b.astype(ct)
        self.set(op, _CMP[op.predicate.data](a, b))

    def select(self, op: tile.SelectOp) -> None:
        c, a, b = self.env[op.cond], self.env[op.true_value], self.env[op.false_value]
        self.same_shapes(op, [c, a, b], ["condition", "true value", "false value"])
        self.set(op, np.where(c, a, b))

    # type and shape changes

    def cast(self, op: tile.CastOp) -> None:
        self.set(op, convert(self.env[op.source], numpy_dtype(self.tile_type(op.result).element_type)))

    def bitcast(self, op: tile.BitcastOp) -> None:
        x = np.ascontiguousarray(self.env[op.source])
        self.set(op, x.view(numpy_dtype(self.tile_type(op.result).element_type)))

    def broadcast(self, op: tile.BroadcastOp) -> None:
        x = self.env[op.source]
        shape = self.result_shape(op, self.tile_type(op.result), op.sizes)
        off = len(shape) - x.ndim
        for i, d in enumerate(x.shape):
            if d != 1 and d != shape[off + i]:
                raise self.error(
                    op,
                    f"source axis {i} has size {d} at run time, which is neither 1 nor the result's {shape[off + i]}",
                )
        self.set(op, np.broadcast_to(x, shape))

    def transpose(self, op: tile.TransposeOp) -> None:
        perm = [int(p) for p in op.permutation.iter_values()]
        self.set(op, np.transpose(self.env[op.source], perm))

    def reshape(self, op: tile.ReshapeOp) -> None:
        x = self.env[op.source]
        shape = self.result_shape(op, self.tile_type(op.result), op.sizes)
        if int(np.prod(shape, dtype=np.int64)) != x.size:
            raise self.error(
                op,
                f"cannot reshape {shape_str(x.shape) or 'a scalar'} ({x.size} elements) to {shape_str(shape) or 'a scalar'} at run time",
            )
        self.set(op, x.reshape(shape))

    def slice(self, op: tile.SliceOp) -> None:
        x = self.env[op.source]
        out_shape = self.tile_type(op.result).get_shape()
        index = []
        for a, (o, st) in enumerate(zip(int_list(op.offsets), int_list(op.strides))):
            n = x.shape[a]
            m = n if out_shape[a] == DYNAMIC else out_shape[a]
            first = o + n if o < 0 else o
            last = first + st * (m - 1)
            if m and not (0 <= first < n and 0 <= last < n):
                raise self.error(
                    op, f"axis {a} has size {n}, but the slice reads indices {first}..{last} (offset {o}, stride {st})"
                )
            stop = last + (1 if st > 0 else -1)
            index.append(slice(first, None if stop < 0 else stop, st) if m else slice(0, 0))
        self.set(op, x[tuple(index)])

    def dynamic_slice(self, op: tile.DynamicSliceOp) -> None:
        x, start = self.env[op.source], int(self.env[op.start])
        a = op.axis.data
        m = self.tile_type(op.result).get_shape()[a]
        if x.shape[a] < m:
            raise self.error(op, f"axis {a} has size {x.shape[a]}, shorter than the window of {m}")
        start = min(max(start, 0), x.shape[a] - m)  # clamped, like jax.lax.dynamic_slice
        index = [slice(None)] * x.ndim
        index[a] = slice(start, start + m)
        self.set(op, x[tuple(index)])

    def concat(self, op: tile.ConcatOp) -> None:
        parts = [self.env[v] for v in op.inputs]
        a = op.axis.data
        for k, p in enumerate(parts[1:], 1):
            for i in range(p.ndim):
                if i != a and p.shape[i] != parts[0].shape[i]:
                    raise self.error(
                        op, f"input {k} axis {i} has size {p.shape[i]} but input 0 has {parts[0].shape[i]} at run time"
                    )
        self.set(op, np.concatenate(parts, axis=a))

    def pad(self, op: tile.PadOp) -> None:
        x = self.env[op.source]
        widths = list(zip(int_list(op.low), int_list(op.high)))
        value = _scalar_to(op.pad_value(), x.dtype)
        self.set(op, np.pad(x, widths, mode="constant", constant_values=value))

    def _indices(self, op: Operation, idx: np.ndarray, axis: int, n: int, wrap: bool) -> np.ndarray:
        """Indices checked against an axis of size n (negative ones count from the end when `wrap`,
        as numpy's; else, as torch's scatters, they are out of range), as intp."""
        if is_unsigned(self.tile_type(op.indices).element_type):
            bad = idx >= n
            out = idx
        else:
            i = idx.astype(np.int64)
            bad = (i >= n) | (i < (-n if wrap else 0))
            out = np.where(i < 0, i + n, i)
        if bad.any():
            first = idx[bad].flat[0]
            allowed = f"[-{n}, {n})" if wrap else f"[0, {n})"
            raise IndexOutOfRange(
                f"{op.name.split('.', 1)[-1]}: index {first} is out of range {allowed} for axis {axis} "
                f"(in {tile.index_origin(op.indices)})",
                op_location(op),
            )
        return out.astype(np.intp)

    def take(self, op: tile.TakeOp) -> None:
        x, a = self.env[op.source], op.axis.data
        idx = self._indices(op, self.env[op.indices], a, x.shape[a], wrap=True)
        self.set(op, np.take(x, idx, axis=a))

    def take_along_axis(self, op: tile.TakeAlongAxisOp) -> None:
        x, a = self.env[op.source], op.axis.data
        raw = self.env[op.indices]
        for i in range(x.ndim):
            if i != a and raw.shape[i] != x.shape[i]:
                raise self.error(op, f"indices axis {i} has size {raw.shape[i]} but the source's is {x.shape[i]}")
        idx = self._indices(op, raw, a, x.shape[a], wrap=True)
        self.set(op, np.take_along_axis(x, idx, axis=a))

    def scatter_add(self, op: tile.ScatterAddOp) -> None:
        x, a = self.env[op.source], op.axis.data
        raw, upd = self.env[op.indices], self.env[op.updates]
        for i in range(x.ndim):
            if raw.shape[i] != upd.shape[i] or (i != a and raw.shape[i] != x.shape[i]):
                raise self.error(
                    op, f"indices {raw.shape}, updates {upd.shape} and source {x.shape} do not fit at run time"
                )
        idx = self._indices(op, raw, a, x.shape[a], wrap=False)
        out = np.array(x, copy=True)
        where = list(np.indices(idx.shape, sparse=True))
        where[a] = idx
        # in row-major order of the indices, rounding after every addition (as the kernels do)
        np.add.at(out, tuple(where), upd)
        self.set(op, out)

    def reduce(self, op: tile.ReduceOp) -> None:
        x = self.env[op.source]
        axes = tuple(int(a) for a in op.axes.iter_values())
        kind = op.kind.data
        dt = x.dtype
        if kind in ("sum", "prod"):
            fn = np.sum if kind == "sum" else np.prod
            if _is_float(dt):
                ct = F64 if dt == F64 else F32
                r = _round(fn(x.astype(ct), axis=axes, dtype=ct), dt)
            else:
                r = fn(x, axis=axes, dtype=dt)
        else:
            fn = np.max if kind == "max" else np.min
            if _is_float(dt):
                ident = -np.inf if kind == "max" else np.inf
                ct = F64 if dt == F64 else F32
                r = _round(fn(x.astype(ct), axis=axes, initial=ident), dt)
            else:
                info = np.iinfo(dt)
                r = fn(x, axis=axes, initial=info.min if kind == "max" else info.max)
        self.set(op, np.asarray(r, dtype=dt))

    # order: sort, argsort, top-k (issue 11, item 5)

    def _order(self, x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
        """The stable order along `axis` (an intp index array): torch's total order, NaN the
        largest, -0.0 equal to 0.0; equal values keep their input order in both directions."""
        if _is_float(x.dtype):
            xf = x.astype(F64)
            nan = np.isnan(xf)
            # np.lexsort is stable; its last key is the primary one: NaN or not
            if not descending:
                return np.lexsort((np.where(nan, 0.0, xf), nan), axis=axis)
            return np.lexsort((np.where(nan, 0.0, -xf), ~nan), axis=axis)
        return np.argsort(~x if descending else x, axis=axis, kind="stable")

    def sort(self, op: tile.SortOp) -> None:
        x, a = self.env[op.source], op.axis.data
        idx = self._order(x, a, op.is_descending)
        self.env[op.values] = np.take_along_axis(x, idx, axis=a)
        self.env[op.indices] = idx.astype(np.int64)

    def topk(self, op: tile.TopkOp) -> None:
        x, a, k = self.env[op.source], op.axis.data, op.k.data
        if k > x.shape[a]:
            raise self.error(op, f"k = {k} is larger than axis {a}'s size {x.shape[a]} at run time")
        idx = np.take(self._order(x, a, op.is_largest), np.arange(k), axis=a)
        self.env[op.values] = np.take_along_axis(x, idx, axis=a)
        self.env[op.indices] = idx.astype(np.int64)

    # contraction

    def contract(self, op: tile.ContractOp) -> None:
        a, b = self.env[op.lhs], self.env[op.rhs]
        axes, batch = op.axes, op.batch
        for kind, pairs in (("axis", axes), ("batch axis", batch)):
            for i, j in pairs:
                if a.shape[i] != b.shape[j]:
                    raise self.error(
                        op, f"lhs {kind} {i} has size {a.shape[i]} but rhs {kind} {j} has size {b.shape[j]} at run time"
                    )
        lc, rc = [i for i, _ in axes], [j for _, j in axes]
        lb, rb = [i for i, _ in batch], [j for _, j in batch]
        lf = [i for i in range(a.ndim) if i not in lc and i not in lb]
        rf = [j for j in range(b.ndim) if j not in rc and j not in rb]
        batch_shape = [a.shape[i] for i in lb]
        lf_shape, rf_shape = [a.shape[i] for i in lf], [b.shape[j] for j in rf]
        nb, m, n = _prod(batch_shape), _prod(lf_shape), _prod(rf_shape)
        k = _prod([a.shape[i] for i in lc])
        acc = numpy_dtype(op.acc)
        # (batch, m, k) @ (batch, k, n)
        lhs = convert(a, acc).transpose(lb + lf + lc).reshape(nb, m, k)
        rhs = convert(b, acc).transpose(rb + rc + rf).reshape(nb, k, n)
        if acc in (F32, F64):
            r = np.matmul(lhs, rhs)
        elif acc in (F16, BF16):
            r = _fma_chain(lhs, rhs, acc)
        else:
            r = _int_matmul(lhs, rhs, acc)
        self.set(
            op,
            convert(r.reshape(batch_shape + lf_shape + rf_shape), numpy_dtype(self.tile_type(op.result).element_type)),
        )


def _prod(xs: Sequence[int]) -> int:
    p = 1
    for x in xs:
        p *= int(x)
    return p


def _fma_chain(lhs: np.ndarray, rhs: np.ndarray, acc: np.dtype) -> np.ndarray:
    """acc = round(acc + a[k] * b[k]) for k = 0, 1, ... in a 16-bit float type (one rounding per step)."""
    nb, m, k = lhs.shape
    n = rhs.shape[2]
    total = np.zeros((nb, m, n), dtype=acc)
    l64, r64 = lhs.astype(F64), rhs.astype(F64)
    for i in range(k):
        p = l64[:, :, i, None] * r64[:, None, i, :]  # exact: <= 22 significant bits
        t = total.astype(F64)
        s = t + p
        bb = s - t
        err = (t - (s - bb)) + (p - bb)  # s + err == t + p exactly (TwoSum)
        adjust = np.isfinite(err) & (err != 0) & ((s.view(np.uint64) & np.uint64(1)) == 0)
        if adjust.any():  # round to odd, so the final rounding to 16 bits is the only one that counts
            s = np.where(adjust, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
        total = _f64_to(s, acc)
    return total


def _int_matmul(lhs: np.ndarray, rhs: np.ndarray, acc: np.dtype) -> np.ndarray:
    """Sum of products modulo 2**width of `acc` (the result of wraparound accumulation in any order)."""
    k = lhs.shape[2]
    if lhs.size and rhs.size:
        bound = float(np.abs(lhs.astype(F64)).max()) * float(np.abs(rhs.astype(F64)).max()) * k
    else:
        bound = 0.0
    if bound < 2.0**53:  # every partial sum is an integer below 2**53: float64 BLAS is exact
        return np.matmul(lhs.astype(F64), rhs.astype(F64)).astype(np.int64).astype(acc)
    u_l = lhs.astype(np.int64).view(np.uint64)
    u_r = rhs.astype(np.int64).view(np.uint64)
    return np.matmul(u_l, u_r).view(np.int64).astype(acc)  # unsigned arithmetic wraps by definition


def _math_function(f: Callable[..., np.ndarray], args: list[np.ndarray], dt) -> np.ndarray:
    """A math library function (tilec/mathfns.py): floats evaluated in float64 and rounded once."""
    if not _is_float(dt):
        return np.asarray(f(*args)).astype(dt)
    with np.errstate(all="ignore"):
        return _f64_to(np.asarray(f(*[a.astype(F64) for a in args]), F64), dt)


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return 1.0 / np.sqrt(x)


_TRANSCENDENTAL: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "exp": np.exp,
    "log": np.log,
    "tanh": np.tanh,
    "erf": erf,
    "rsqrt": _rsqrt,
}
_BASIC_UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "neg": np.negative,
    "abs": np.abs,
    "sqrt": np.sqrt,
}
_BASIC_BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "max": np.maximum,
    "min": np.minimum,
    "floordiv": np.floor_divide,
    "mod": np.remainder,
}


def _int_floordiv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    zero = b == 0
    with np.errstate(all="ignore"):  # INT_MIN // -1 wraps to INT_MIN (numpy's result)
        return np.where(zero, a.dtype.type(0), np.floor_divide(a, np.where(zero, b.dtype.type(1), b)))


def _int_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    zero = b == 0
    return np.where(zero, a.dtype.type(0), np.remainder(a, np.where(zero, b.dtype.type(1), b)))


def _shift(a: np.ndarray, b: np.ndarray, left: bool) -> np.ndarray:
    """numpy's shifts (x86): an amount read as unsigned >= the width gives 0 or the sign fill."""
    bits = a.dtype.itemsize * 8
    u = b.astype(UINT_DTYPES[bits]) if b.dtype.kind != "u" else b
    big = u >= bits
    s = np.where(big, b.dtype.type(0), b)
    if left:
        return np.where(big, a.dtype.type(0), np.left_shift(a, s))
    fill = np.where(a < 0, a.dtype.type(-1), a.dtype.type(0)) if a.dtype.kind == "i" else a.dtype.type(0)
    return np.where(big, fill, np.right_shift(a, s))


_INT_ONLY_BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
    "shl": lambda a, b: _shift(a, b, True),
    "shr": lambda a, b: _shift(a, b, False),
}
_INT_BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    **_INT_ONLY_BINARY,
    "floordiv": _int_floordiv,
    "mod": _int_mod,
}
_CMP: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}

_HANDLERS: dict[type[Operation], Callable[[_Interpreter, Operation], None]] = {
    tile.LoadOp: _Interpreter.load,
    tile.StoreOp: _Interpreter.store,
    tile.DimOp: _Interpreter.dim,
    tile.ConstantOp: _Interpreter.constant,
    tile.IotaOp: _Interpreter.iota,
    tile.SplatOp: _Interpreter.splat,
    tile.RandomBitsOp: _Interpreter.random_bits,
    tile.ContractOp: _Interpreter.contract,
    tile.CmpOp: _Interpreter.cmp,
    tile.SelectOp: _Interpreter.select,
    tile.CastOp: _Interpreter.cast,
    tile.BitcastOp: _Interpreter.bitcast,
    tile.BroadcastOp: _Interpreter.broadcast,
    tile.TransposeOp: _Interpreter.transpose,
    tile.ReshapeOp: _Interpreter.reshape,
    tile.ReduceOp: _Interpreter.reduce,
    tile.SliceOp: _Interpreter.slice,
    tile.DynamicSliceOp: _Interpreter.dynamic_slice,
    tile.ConcatOp: _Interpreter.concat,
    tile.PadOp: _Interpreter.pad,
    tile.TakeOp: _Interpreter.take,
    tile.TakeAlongAxisOp: _Interpreter.take_along_axis,
    tile.ScatterAddOp: _Interpreter.scatter_add,
    tile.SortOp: _Interpreter.sort,
    tile.TopkOp: _Interpreter.topk,
}


# --- public API ---------------------------------------------------------------------------------


class StepInterpreter:
    """The interpreter one op at a time, as a program is traced (`TILEC_INTERPRET=1`): bind the
    arguments' values, `step` each op as it is created, read any value."""

    def __init__(self) -> None:
        self._impl = _Interpreter(None)  # type: ignore[arg-type]

    def bind(self, arg: SSAValue, value: np.ndarray) -> None:
        self._impl.env[arg] = value

    def step(self, op: Operation) -> None:
        self._impl.step(op)

    def value(self, v: SSAValue) -> np.ndarray:
        return self._impl.env[v]

    def output(self, arg: SSAValue) -> np.ndarray:
        return self._impl.outputs[arg]

    def update(self, arg: SSAValue) -> np.ndarray | None:
        """The new value of an input array the program updates in place (None if it does not)."""
        return self._impl.updates.get(arg)


def interpret_func(func_op: tile.FuncOp, inputs: Sequence[object]) -> tuple[np.ndarray, ...]:
    """Run one `tile.func` on numpy inputs; returns its outputs in order (fresh C-ordered arrays).

    The function is verified first; every error is a `TilecError` (see the module docstring)."""
    if not isinstance(func_op, tile.FuncOp):
        raise TilecError(f"interpret_func needs a tile.func, got {getattr(func_op, 'name', type(func_op).__name__)}")
    verify_module(func_op)
    return _Interpreter(func_op).run(inputs)


def interpret_module(module: Operation, inputs: Sequence[object], name: str | None = None) -> tuple[np.ndarray, ...]:
    """Run the only `tile.func` of `module`, or the one named `name` (without the `@`)."""
    if isinstance(module, tile.FuncOp):
        funcs = [module]
    else:
        funcs = [op for op in module.walk() if isinstance(op, tile.FuncOp)]
    loc = op_location(module)
    if name is not None:
        name = name.removeprefix("@")
        found = [f for f in funcs if f.sym_name.data == name]
        if not found:
            have = ", ".join(f"@{f.sym_name.data}" for f in funcs) or "none"
            raise TilecError(f"no tile.func named @{name} in the module (it has: {have})", loc)
        return interpret_func(found[0], inputs)
    if not funcs:
        raise TilecError("the module has no tile.func to run", loc)
    if len(funcs) > 1:
        have = ", ".join(f"@{f.sym_name.data}" for f in funcs)
        raise TilecError(f"the module has {len(funcs)} tile.func ops ({have}); pass name= to pick one", loc)
    return interpret_func(funcs[0], inputs)
