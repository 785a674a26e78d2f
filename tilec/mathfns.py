"""The math library's functions: one row per function, read by every layer.

A row names the `tile` op, the numpy reference (the interpreter's semantics: evaluated in
float64 and rounded once to the element type), the `math` dialect op the loop nest lowers it to,
the C/HIP function (C's spelling for double; float adds `f`) and how PTX computes it:
- "f64": our f64 algorithm of that name in conversion/mapped_to_hw/mathlib.py (f32 inputs are
  extended to f64 and the result rounded once);
- "cvt": a PTX rounding instruction (cvt.rmi / rpi / rni / rzi);
- "composed": the loop nest writes it with other ops (sigmoid, softplus, sign: see `compose`
  in tile_to_mapped/loopnest.py), which then follow their own rows.
Functions that are exact compositions of existing tile ops (isnan isinf isfinite clip, minimum
and maximum) are frontend compositions instead, without a row (NOTES.md, 2026-12-02).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

from xdsl.dialects import math
from xdsl.ir import Operation

from tilec.dialects import tile

SOFTPLUS_THRESHOLD = 20.0


def _sigmoid(x):
    import numpy as np

    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _softplus(x):
    """torch.nn.functional.softplus (beta 1, threshold 20): x above 20, else log1p(exp(x))."""
    import numpy as np

    return np.where(x > SOFTPLUS_THRESHOLD, x, np.log1p(np.exp(np.minimum(x, SOFTPLUS_THRESHOLD))))


def _np(name: str) -> Callable:
    """numpy.<name>, imported when called (the IR tools do not import numpy)."""

    def f(*args):
        import numpy as np

        return getattr(np, name)(*args)

    f.__name__ = f"numpy.{name}"
    return f


@dataclass(frozen=True)
class MathFn:
    name: str  # the DSL's tilec.<name>; the tile op is tile.<name>
    op: type[Operation]  # the tile op
    numpy: Callable  # the reference on float64 numpy arrays
    math: type[Operation] | None  # the math dialect op (None: composed in the loop nest)
    c: str | None  # the C / HIP function for double (float: + "f")
    ptx: str  # "f64", "cvt" or "composed"


MATH_FUNCTIONS: tuple[MathFn, ...] = (
    MathFn("sin", tile.SinOp, _np("sin"), math.SinOp, "sin", "f64"),
    MathFn("cos", tile.CosOp, _np("cos"), math.CosOp, "cos", "f64"),
    MathFn("tan", tile.TanOp, _np("tan"), math.TanOp, "tan", "f64"),
    MathFn("asin", tile.AsinOp, _np("arcsin"), math.AsinOp, "asin", "f64"),
    MathFn("acos", tile.AcosOp, _np("arccos"), math.AcosOp, "acos", "f64"),
    MathFn("atan", tile.AtanOp, _np("arctan"), math.AtanOp, "atan", "f64"),
    MathFn("atan2", tile.Atan2Op, _np("arctan2"), math.Atan2Op, "atan2", "f64"),
    MathFn("sinh", tile.SinhOp, _np("sinh"), math.SinhOp, "sinh", "f64"),
    MathFn("cosh", tile.CoshOp, _np("cosh"), math.CoshOp, "cosh", "f64"),
    MathFn("asinh", tile.AsinhOp, _np("arcsinh"), math.AsinhOp, "asinh", "f64"),
    MathFn("acosh", tile.AcoshOp, _np("arccosh"), math.AcoshOp, "acosh", "f64"),
    MathFn("atanh", tile.AtanhOp, _np("arctanh"), math.AtanhOp, "atanh", "f64"),
    MathFn("expm1", tile.Expm1Op, _np("expm1"), math.ExpM1Op, "expm1", "f64"),
    MathFn("log1p", tile.Log1pOp, _np("log1p"), math.Log1pOp, "log1p", "f64"),
    MathFn("log2", tile.Log2Op, _np("log2"), math.Log2Op, "log2", "f64"),
    MathFn("log10", tile.Log10Op, _np("log10"), math.Log10Op, "log10", "f64"),
    MathFn("exp2", tile.Exp2Op, _np("exp2"), math.Exp2Op, "exp2", "f64"),
    MathFn("sigmoid", tile.SigmoidOp, _sigmoid, None, None, "composed"),
    MathFn("softplus", tile.SoftplusOp, _softplus, None, None, "composed"),
    MathFn("floor", tile.FloorOp, _np("floor"), math.FloorOp, "floor", "cvt"),
    MathFn("ceil", tile.CeilOp, _np("ceil"), math.CeilOp, "ceil", "cvt"),
    MathFn("round", tile.RoundOp, _np("rint"), math.RoundEvenOp, "rint", "cvt"),  # half to even
    MathFn("trunc", tile.TruncOp, _np("trunc"), math.TruncOp, "trunc", "cvt"),
    MathFn("sign", tile.SignOp, _np("sign"), None, None, "composed"),
)

BY_OP: MappingProxyType[type[Operation], MathFn] = MappingProxyType({f.op: f for f in MATH_FUNCTIONS})
BY_NAME: MappingProxyType[str, MathFn] = MappingProxyType({f.name: f for f in MATH_FUNCTIONS})
BY_MATH: MappingProxyType[type[Operation], MathFn] = MappingProxyType(
    {f.math: f for f in MATH_FUNCTIONS if f.math is not None}
)

__all__ = ["BY_MATH", "BY_NAME", "BY_OP", "MATH_FUNCTIONS", "SOFTPLUS_THRESHOLD", "MathFn"]
