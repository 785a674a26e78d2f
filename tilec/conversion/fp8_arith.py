"""fp8 <-> f32 conversions as arith ops on i32, for every target: tilec/fp8.py's algorithm (one
source, also the interpreter's) run with an arith builder. fp8 values live in f32 registers (the
compute type) and in i8 buffers (their codes), so nothing below the tile level knows fp8."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, f32, i8
from xdsl.ir import Operation, SSAValue

from tilec.fp8 import Fp8Format, Ops, decode, encode

I32 = IntegerType(32)


class ArithOps(Ops):
    """tilec/fp8.py's operations as arith ops on i32: `ev` adds an op and returns its result,
    `const(value, type)` a constant."""

    def __init__(self, ev: Callable[[Operation], SSAValue], const: Callable[[int, object], SSAValue]):
        self.ev = ev
        self.const = const

    def c(self, v: int):
        return self.const(v, I32)

    def and_(self, a, b):
        return self.ev(arith.AndIOp(a, b))

    def or_(self, a, b):
        return self.ev(arith.OrIOp(a, b))

    def add(self, a, b):
        return self.ev(arith.AddiOp(a, b))

    def sub(self, a, b):
        return self.ev(arith.SubiOp(a, b))

    def shl(self, a, b):
        return self.ev(arith.ShLIOp(a, b))

    def shru(self, a, b):
        return self.ev(arith.ShRUIOp(a, b))

    def mins(self, a, b):
        return self.ev(arith.MinSIOp(a, b))

    def lts(self, a, b):
        return self.ev(arith.CmpiOp(a, b, "slt"))

    def eq(self, a, b):
        return self.ev(arith.CmpiOp(a, b, "eq"))

    def select(self, cond, a, b):
        return self.ev(arith.SelectOp(cond, a, b))

    def zext(self, cond):
        return self.ev(arith.ExtUIOp(cond, I32))


def f32_to_fp8(ops: ArithOps, x: SSAValue, fmt: Fp8Format) -> SSAValue:
    """The fp8 code (i8) of the f32 value x."""
    bits = ops.ev(arith.BitcastOp(x, I32))
    return ops.ev(arith.TruncIOp(encode(ops, fmt, bits), i8))


def fp8_to_f32(ops: ArithOps, code: SSAValue, fmt: Fp8Format) -> SSAValue:
    """The f32 value of the fp8 code `code` (i8): exact."""
    wide = ops.ev(arith.ExtUIOp(code, I32))
    return ops.ev(arith.BitcastOp(decode(ops, fmt, wide), f32))


__all__ = ["ArithOps", "f32_to_fp8", "fp8_to_f32"]
