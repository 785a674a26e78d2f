"""The 8-bit float formats (float8_e4m3fn, float8_e5m2) and their conversions to and from f32.

The conversions are written ONCE, as 32-bit integer operations on the f32 bits, against a small
set of operations (`Ops`): `NumpyOps` runs them on numpy arrays (the interpreter's semantics),
and the loop nest (conversion/tile_to_mapped) runs the same functions with an arith builder, so
C, PTX and HIP all compute bit-identical results with no target-specific code.

Semantics are torch's (c10 `fp8e4m3fn_from_fp32_value` / `fp8e5m2_from_fp32_value`, checked
against the installed torch and documented in docs/dsl.md):
- f32 -> fp8 rounds to nearest, ties to even, subnormals included; the sign of zero and of NaN
  is kept; NaN becomes the format's NaN (S.1111.111 for e4m3fn, S.11111.11 for e5m2);
- e4m3fn has no infinity: finite values beyond its range and +-inf SATURATE to +-448
  (torch >= 2.6; ml_dtypes gives NaN instead, which is why the interpreter does not use it);
- e5m2 overflows to +-inf (its rounding boundary is 61440: 57344 and above the halfway point
  round up to inf);
- fp8 -> f32 is exact; a NaN becomes the quiet f32 NaN S.11111111.1mm...0 carrying the fp8
  mantissa bits (as torch's).
Every intermediate value stays in [-2^31, 2^31): the algorithm never relies on signed
overflow, and every shift amount is in [0, 31].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

INT_MIN = -(2**31)


@dataclass(frozen=True)
class Fp8Format:
    name: str  # the IR spelling (xDSL's builtin type name)
    mbits: int  # mantissa bits
    bias: int
    finite: bool  # no infinity ("fn"): S.1111.111 is the only NaN, overflow saturates

    @property
    def emax(self) -> int:
        """The largest exponent field."""
        return (1 << (7 - self.mbits)) - 1

    @property
    def special(self) -> int:
        """The first code (without sign) that is not a finite number: 0x7F (e4m3fn NaN) or 0x7C (e5m2 inf)."""
        return 0x7F if self.finite else self.emax << self.mbits

    @property
    def overflow(self) -> int:
        """The code magnitudes at or beyond the largest finite value saturate to (0x7E) or become (inf 0x7C)."""
        return 0x7E if self.finite else self.special

    @property
    def max_finite(self) -> float:
        return float(_decode_np(self, np.array([self.special - 1], np.int64)).view(np.float32)[0])


E4M3FN = Fp8Format("f8E4M3FN", 3, 7, True)
E5M2 = Fp8Format("f8E5M2", 2, 15, False)
FORMATS = {f.name: f for f in (E4M3FN, E5M2)}


def fp8_format(t) -> Fp8Format | None:
    """The format of an element type (an xDSL attribute or its name), or None when it is not fp8."""
    return FORMATS.get(str(t))


class Ops:
    """The operations the conversions use, on 32-bit two's complement integers (values, not
    necessarily Python ints). Subclasses implement them for numpy and for IR."""

    def c(self, v: int): ...
    def and_(self, a, b): ...
    def or_(self, a, b): ...
    def add(self, a, b): ...
    def sub(self, a, b): ...
    def shl(self, a, b): ...
    def shru(self, a, b): ...
    def mins(self, a, b): ...
    def lts(self, a, b): ...  # signed a < b (a boolean)
    def eq(self, a, b): ...
    def select(self, cond, a, b): ...
    def zext(self, cond): ...  # a boolean as 0 / 1


def encode(ops: Ops, fmt: Fp8Format, bits):
    """The fp8 code (in the low 8 bits, the rest 0) of the f32 whose bits are `bits`."""
    c = ops.c
    lsb = 23 - fmt.mbits  # the f32 bit that becomes the fp8 mantissa's last bit
    sign = ops.and_(bits, c(INT_MIN))
    a = ops.and_(bits, c(0x7FFFFFFF))
    # normal results: rebias the exponent, round the mantissa to nearest even (torch's algorithm)
    odd = ops.and_(ops.shru(a, c(lsb)), c(1))
    rebias = ((fmt.bias - 127) << 23) + (1 << (lsb - 1)) - 1
    normal = ops.shru(ops.add(ops.add(a, c(rebias)), odd), c(lsb))
    normal = ops.mins(normal, c(fmt.overflow))  # e4m3fn: a carry into the NaN code saturates
    # subnormal results: the 24-bit significand shifted right, rounded to nearest even
    e = ops.mins(ops.shru(a, c(23)), c(127 - fmt.bias))
    m = ops.or_(ops.and_(a, c(0x7FFFFF)), c(0x800000))
    s = ops.mins(ops.sub(c(150 - (fmt.bias - 1 + fmt.mbits)), e), c(31))
    half_minus_1 = ops.sub(ops.shl(c(1), ops.sub(s, c(1))), c(1))
    sub = ops.shru(ops.add(ops.add(m, half_minus_1), ops.and_(ops.shru(m, s), c(1))), s)
    mag = ops.select(ops.lts(a, c((128 - fmt.bias) << 23)), sub, normal)
    beyond = ((fmt.special >> fmt.mbits) + 127 - fmt.bias) << 23 | (fmt.special & ((1 << fmt.mbits) - 1)) << lsb
    mag = ops.select(ops.lts(a, c(beyond)), mag, c(fmt.overflow))
    mag = ops.select(ops.lts(c(0x7F800000), a), c(0x7F), mag)  # NaN
    return ops.or_(mag, ops.shru(sign, c(24)))


def decode(ops: Ops, fmt: Fp8Format, code):
    """The f32 bits of the fp8 code `code` (0..255): exact."""
    c = ops.c
    lsb = 23 - fmt.mbits
    mmask = (1 << fmt.mbits) - 1
    sign = ops.select(ops.lts(code, c(0x80)), c(0), c(INT_MIN))
    e = ops.and_(ops.shru(code, c(fmt.mbits)), c(fmt.emax))
    m = ops.and_(code, c(mmask))
    normal = ops.or_(ops.shl(ops.add(e, c(127 - fmt.bias)), c(23)), ops.shl(m, c(lsb)))
    p = c(0)  # the position of a subnormal's leading 1
    for k in range(1, fmt.mbits):
        p = ops.add(p, ops.zext(ops.lts(c((1 << k) - 1), m)))
    sub_exp = ops.shl(ops.add(p, c(128 - fmt.bias - fmt.mbits)), c(23))
    sub = ops.or_(sub_exp, ops.and_(ops.shl(m, ops.sub(c(23), p)), c(0x7FFFFF)))
    sub = ops.select(ops.eq(m, c(0)), c(0), sub)
    nan = ops.or_(c(0x7FC00000), ops.shl(m, c(lsb)))
    if fmt.finite:
        special = ops.select(ops.eq(ops.and_(code, c(0x7F)), c(0x7F)), nan, normal)
    else:
        inf_or_nan = ops.select(ops.eq(m, c(0)), c(0x7F800000), nan)
        special = ops.select(ops.eq(e, c(fmt.emax)), inf_or_nan, normal)
    mag = ops.select(ops.eq(e, c(0)), sub, special)
    return ops.or_(mag, sign)


class NumpyOps(Ops):
    """The operations on int64 numpy arrays holding 32-bit values (nothing here overflows 32 bits)."""

    def c(self, v):
        return np.int64(v)

    def and_(self, a, b):
        return np.bitwise_and(a, b)

    def or_(self, a, b):
        return np.bitwise_or(a, b)

    def add(self, a, b):
        return np.add(a, b)

    def sub(self, a, b):
        return np.subtract(a, b)

    def shl(self, a, b):
        return np.left_shift(a, b)

    def shru(self, a, b):
        return np.right_shift(np.bitwise_and(a, 0xFFFFFFFF), b)

    def mins(self, a, b):
        return np.minimum(a, b)

    def lts(self, a, b):
        return np.less(a, b)

    def eq(self, a, b):
        return np.equal(a, b)

    def select(self, cond, a, b):
        return np.where(cond, a, b)

    def zext(self, cond):
        return np.asarray(cond, np.int64)


def _decode_np(fmt: Fp8Format, codes: np.ndarray) -> np.ndarray:
    """f32 bits (as uint32) of int codes."""
    return np.asarray(decode(NumpyOps(), fmt, codes), np.int64).astype(np.uint32)


def to_fp8_bits(x, fmt: Fp8Format) -> np.ndarray:
    """The fp8 codes (uint8) of float32 values."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.int64)
    bits = np.where(bits >= 2**31, bits - 2**32, bits)  # as signed 32-bit values
    return np.asarray(encode(NumpyOps(), fmt, bits), np.int64).astype(np.uint8)


def from_fp8_bits(codes, fmt: Fp8Format) -> np.ndarray:
    """The float32 values of fp8 codes (uint8)."""
    return _decode_np(fmt, np.asarray(codes).astype(np.int64)).view(np.float32)


__all__ = [
    "E4M3FN",
    "E5M2",
    "FORMATS",
    "Fp8Format",
    "NumpyOps",
    "Ops",
    "decode",
    "encode",
    "fp8_format",
    "from_fp8_bits",
    "to_fp8_bits",
]
