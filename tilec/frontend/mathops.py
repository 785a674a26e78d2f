"""The math library of the DSL (docs/dsl.md, "Math functions"): `tilec.sin`, ..., `tilec.clip`.

Functions with a `tile` op (tilec/mathfns.py's table) trace to that op; the exact compositions of
existing ops are written here: `isnan` (x != x), `isinf` (|x| == inf), `isfinite` (|x| < inf) and
`clip` (minimum(maximum(x, lo), hi), numpy's definition, NaN propagating).
"""

from __future__ import annotations

import math

from tilec.dialects.tile import TileOp
from tilec.frontend.errors import user_error
from tilec.frontend.ops import abs_, binary, compare, maximum, minimum, unary
from tilec.frontend.tracer import Tile
from tilec.mathfns import BY_NAME


def _doc(name: str) -> str:
    op: type[TileOp] = BY_NAME[name].op
    return (op.__doc__ or "").split(":", 1)[0].strip() + " (float tiles; f16/bf16 computed in f32)."


def _unary_fn(name: str):
    def fn(x) -> Tile:
        return unary(name, x)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _doc(name)
    return fn


sin = _unary_fn("sin")
cos = _unary_fn("cos")
tan = _unary_fn("tan")
asin = _unary_fn("asin")
acos = _unary_fn("acos")
atan = _unary_fn("atan")
sinh = _unary_fn("sinh")
cosh = _unary_fn("cosh")
asinh = _unary_fn("asinh")
acosh = _unary_fn("acosh")
atanh = _unary_fn("atanh")
expm1 = _unary_fn("expm1")
log1p = _unary_fn("log1p")
log2 = _unary_fn("log2")
log10 = _unary_fn("log10")
exp2 = _unary_fn("exp2")
sigmoid = _unary_fn("sigmoid")
softplus = _unary_fn("softplus")
floor = _unary_fn("floor")
ceil = _unary_fn("ceil")
round_ = _unary_fn("round")
trunc = _unary_fn("trunc")


def sign(x) -> Tile:
    """-1, 0 or 1 by the sign of x, elementwise (NaN stays NaN, sign(-0.0) = 0.0; int tiles too)."""
    return unary("sign", x)


def atan2(y, x) -> Tile:
    """atan(y / x) in the quadrant of (x, y), elementwise with broadcasting (numpy's arctan2)."""
    return binary("atan2", y, x)


def _tile_arg(x, what: str) -> Tile:
    if not isinstance(x, Tile):
        raise user_error(f"{what} expects a tile, got {type(x).__name__}")
    return x


def isnan(x) -> Tile:
    """True where x is NaN (a bool tile; false everywhere for integer tiles)."""
    x = _tile_arg(x, "tilec.isnan")
    return compare("ne", x, x)


def isinf(x) -> Tile:
    """True where x is +inf or -inf (a bool tile; false everywhere for integer tiles)."""
    x = _tile_arg(x, "tilec.isinf")
    if not x.dtype.is_float:
        return compare("ne", x, x)
    return compare("eq", abs_(x), math.inf)


def isfinite(x) -> Tile:
    """True where x is neither infinite nor NaN (a bool tile; true everywhere for integer tiles)."""
    x = _tile_arg(x, "tilec.isfinite")
    if not x.dtype.is_float:
        return compare("eq", x, x)
    return compare("lt", abs_(x), math.inf)


def clip(x, lo, hi) -> Tile:
    """numpy.clip: minimum(maximum(x, lo), hi), elementwise with broadcasting; `lo` / `hi` are tiles,
    numbers or None (that side unbounded). NaN propagates (from x, lo or hi)."""
    x = _tile_arg(x, "tilec.clip")
    if lo is None and hi is None:
        raise user_error("tilec.clip needs at least one of lo and hi (both are None)")
    if lo is not None:
        x = maximum(x, lo)
    if hi is not None:
        x = minimum(x, hi)
    return x


__all__ = [
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "ceil",
    "clip",
    "cos",
    "cosh",
    "exp2",
    "expm1",
    "floor",
    "isfinite",
    "isinf",
    "isnan",
    "log10",
    "log1p",
    "log2",
    "round_",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "softplus",
    "tan",
    "trunc",
]
