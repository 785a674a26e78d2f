"""The numpy backend of mathlib.py: the PTX math algorithms run on float64 arrays, so tests and
benchmarks/math_accuracy.py measure on the CPU what the GPU computes."""

from __future__ import annotations

import numpy as np

from tilec.conversion.mapped_to_hw.mathlib import FUNCTIONS, Builder, V

# --- the numpy backend ------------------------------------------------------------------------------

_NP_CMP = {
    "olt": np.less,
    "ole": np.less_equal,
    "ogt": np.greater,
    "oge": np.greater_equal,
    "oeq": np.equal,
    "uno": lambda a, b: np.isnan(a) | np.isnan(b),
}
_NP_ICMP = {"slt": np.less, "eq": np.equal}


class NumpyBuilder(Builder):
    """The algorithms on float64 arrays (the GPU's arithmetic is IEEE f64 too; ptxas may fuse a
    multiply-add, which changes results by at most a rounding)."""

    def const(self, v):
        return np.float64(v)

    def add(self, a, b):
        return np.add(a, b)

    def sub(self, a, b):
        return np.subtract(a, b)

    def mul(self, a, b):
        return np.multiply(a, b)

    def div(self, a, b):
        return np.divide(a, b)

    def neg(self, a):
        return np.negative(a)

    def abs(self, a):
        return np.abs(a)

    def sqrt(self, a):
        return np.sqrt(a)

    def rint(self, a):
        return np.rint(a)

    def cmp(self, pred, a, b):
        return _NP_CMP[pred](a, b)

    def select(self, c, a, b):
        return np.where(c, a, b)

    def both(self, c, d):
        return np.logical_and(c, d)

    def either(self, c, d):
        return np.logical_or(c, d)

    def to_int(self, a):
        a = np.asarray(a, np.float64)
        return np.where(np.isfinite(a), a, 0.0).astype(np.int64)  # PTX's cvt.rzi: NaN -> 0

    def bits(self, a):
        return np.asarray(a, np.float64).view(np.int64)

    def from_bits(self, i):
        return np.asarray(i, np.int64).view(np.float64)

    def iconst(self, v):
        return np.int64(v)

    def iadd(self, a, b):
        return np.add(a, b)

    def isub(self, a, b):
        return np.subtract(a, b)

    def iand(self, a, b):
        return np.bitwise_and(a, b)

    def ior(self, a, b):
        return np.bitwise_or(a, b)

    def ishl(self, a, n):
        return np.left_shift(a, np.int64(n))

    def ishr(self, a, n):
        return np.right_shift(a, np.int64(n))

    def icmp(self, pred, a, b):
        return _NP_ICMP[pred](a, b)

    def itof(self, a):
        return np.asarray(a).astype(np.float64)


def evaluate_numpy(name: str, *args: np.ndarray) -> np.ndarray:
    """Run algorithm `name` on float64 arrays with the numpy backend (what the GPU computes)."""
    b = NumpyBuilder()
    with np.errstate(all="ignore"):
        vals = [V(b, np.asarray(a, np.float64)) for a in args]
        return np.asarray(FUNCTIONS[name](*vals).v, np.float64)


__all__ = ["NumpyBuilder", "evaluate_numpy"]
