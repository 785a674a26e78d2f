"""VJP rules of the elementwise ops: unary and binary math, pow, max/min, select, cast.

In each rule `g` is the cotangent of the result, `x` (`a`, `b`) the primal operands and `y` the
primal result; the docstring states the math. Tie rule of `tile.max` / `tile.min`: where
`a == b` each operand gets half of `g` (torch's rule for `maximum` / `minimum`).
"""

from __future__ import annotations

import math
from types import MappingProxyType

from tilec.autodiff.context import VjpContext
from tilec.dialects import tile
from tilec.frontend import ops
from tilec.frontend.dtypes import from_ir
from tilec.frontend.tracer import Tile


def _un(ctx: VjpContext, op) -> tuple[Tile, Tile]:
    return ctx.primal(op.operand), ctx.result(op)


def _f(name: str, x: Tile) -> Tile:
    return ops.unary(name, x)


# --- unary --------------------------------------------------------------------------------------


def vjp_neg(ctx, op, cts):
    """d(-x) = -g"""
    return (-cts[0],)


def vjp_abs(ctx, op, cts):
    """d|x| = g * sign(x) (0 at x = 0, as torch)"""
    return (cts[0] * _f("sign", ctx.primal(op.operand)),)


def vjp_exp(ctx, op, cts):
    """d exp(x) = g * y"""
    return (cts[0] * ctx.result(op),)


def vjp_log(ctx, op, cts):
    """d log(x) = g / x"""
    return (cts[0] / ctx.primal(op.operand),)


def vjp_sqrt(ctx, op, cts):
    """d sqrt(x) = g / (2 y)"""
    return (cts[0] * 0.5 / ctx.result(op),)


def vjp_rsqrt(ctx, op, cts):
    """d x^(-1/2) = -g y^3 / 2"""
    y = ctx.result(op)
    return (cts[0] * -0.5 * y * y * y,)


def vjp_tanh(ctx, op, cts):
    """d tanh(x) = g (1 - y^2)"""
    y = ctx.result(op)
    return (cts[0] * (1.0 - y * y),)


def vjp_erf(ctx, op, cts):
    """d erf(x) = g 2/sqrt(pi) exp(-x^2)"""
    x = ctx.primal(op.operand)
    return (cts[0] * (2.0 / math.sqrt(math.pi)) * ops.exp(-(x * x)),)


def vjp_sin(ctx, op, cts):
    """d sin(x) = g cos(x)"""
    return (cts[0] * _f("cos", ctx.primal(op.operand)),)


def vjp_cos(ctx, op, cts):
    """d cos(x) = -g sin(x)"""
    return (-(cts[0] * _f("sin", ctx.primal(op.operand))),)


def vjp_tan(ctx, op, cts):
    """d tan(x) = g (1 + y^2)"""
    y = ctx.result(op)
    return (cts[0] * (1.0 + y * y),)


def vjp_asin(ctx, op, cts):
    """d asin(x) = g / sqrt(1 - x^2)"""
    x = ctx.primal(op.operand)
    return (cts[0] * ops.rsqrt(1.0 - x * x),)


def vjp_acos(ctx, op, cts):
    """d acos(x) = -g / sqrt(1 - x^2)"""
    x = ctx.primal(op.operand)
    return (-(cts[0] * ops.rsqrt(1.0 - x * x)),)


def vjp_atan(ctx, op, cts):
    """d atan(x) = g / (1 + x^2)"""
    x = ctx.primal(op.operand)
    return (cts[0] / (1.0 + x * x),)


def vjp_sinh(ctx, op, cts):
    """d sinh(x) = g cosh(x)"""
    return (cts[0] * _f("cosh", ctx.primal(op.operand)),)


def vjp_cosh(ctx, op, cts):
    """d cosh(x) = g sinh(x)"""
    return (cts[0] * _f("sinh", ctx.primal(op.operand)),)


def vjp_asinh(ctx, op, cts):
    """d asinh(x) = g / sqrt(x^2 + 1)"""
    x = ctx.primal(op.operand)
    return (cts[0] * ops.rsqrt(x * x + 1.0),)


def vjp_acosh(ctx, op, cts):
    """d acosh(x) = g / sqrt((x - 1)(x + 1))"""
    x = ctx.primal(op.operand)
    return (cts[0] * ops.rsqrt((x - 1.0) * (x + 1.0)),)


def vjp_atanh(ctx, op, cts):
    """d atanh(x) = g / (1 - x^2)"""
    x = ctx.primal(op.operand)
    return (cts[0] / (1.0 - x * x),)


def vjp_expm1(ctx, op, cts):
    """d (exp(x) - 1) = g (y + 1)"""
    return (cts[0] * (ctx.result(op) + 1.0),)


def vjp_log1p(ctx, op, cts):
    """d log(1 + x) = g / (1 + x)"""
    return (cts[0] / (ctx.primal(op.operand) + 1.0),)


def vjp_log2(ctx, op, cts):
    """d log2(x) = g / (x ln 2)"""
    return (cts[0] / (ctx.primal(op.operand) * math.log(2.0)),)


def vjp_log10(ctx, op, cts):
    """d log10(x) = g / (x ln 10)"""
    return (cts[0] / (ctx.primal(op.operand) * math.log(10.0)),)


def vjp_exp2(ctx, op, cts):
    """d 2^x = g y ln 2"""
    return (cts[0] * ctx.result(op) * math.log(2.0),)


def vjp_sigmoid(ctx, op, cts):
    """d sigmoid(x) = g y (1 - y)"""
    y = ctx.result(op)
    return (cts[0] * y * (1.0 - y),)


def vjp_softplus(ctx, op, cts):
    """d log(1 + exp(x)) = g sigmoid(x)"""
    return (cts[0] * _f("sigmoid", ctx.primal(op.operand)),)


# --- binary -------------------------------------------------------------------------------------


def vjp_add(ctx, op, cts):
    """d(a + b) = (g, g)"""
    return (cts[0], cts[0])


def vjp_sub(ctx, op, cts):
    """d(a - b) = (g, -g)"""
    return (cts[0], -cts[0])


def vjp_mul(ctx, op, cts):
    """d(a b) = (g b, g a)"""
    g = cts[0]
    return (g * ctx.primal(op.rhs), g * ctx.primal(op.lhs))


def vjp_div(ctx, op, cts):
    """d(a / b) = (g / b, -g a / b^2)"""
    g = cts[0]
    a, b = ctx.primal(op.lhs), ctx.primal(op.rhs)
    ga = g / b
    return (ga, -(ga * a / b))


def _split_ties(g: Tile, win: Tile, tie: Tile) -> Tile:
    return ops.where(win, g, ops.where(tie, g * 0.5, 0.0))


def vjp_max(ctx, op, cts):
    """d max(a, b) = (g [a > b], g [b > a]); ties (a == b) give g/2 to each"""
    a, b, g = ctx.primal(op.lhs), ctx.primal(op.rhs), cts[0]
    tie = a == b
    return (_split_ties(g, a > b, tie), _split_ties(g, b > a, tie))


def vjp_min(ctx, op, cts):
    """d min(a, b) = (g [a < b], g [b < a]); ties (a == b) give g/2 to each"""
    a, b, g = ctx.primal(op.lhs), ctx.primal(op.rhs), cts[0]
    tie = a == b
    return (_split_ties(g, a < b, tie), _split_ties(g, b < a, tie))


def vjp_pow(ctx, op, cts):
    """d a^b = (g b a^(b-1), g y log(a)); as torch: 0 for a where b == 0, 0 for b where a == 0
    and b >= 0"""
    a, b, g = ctx.primal(op.lhs), ctx.primal(op.rhs), cts[0]
    y = ctx.result(op)
    ga = ops.where(b == 0.0, 0.0, g * b * ops.binary("pow", a, b - 1.0))
    gb = ops.where((a == 0.0) & (b >= 0.0), 0.0, g * y * ops.log(a))
    return (ga, gb)


def vjp_mod(ctx, op, cts):
    """a mod b = a - b floor(a / b) (floats: numpy.remainder): d = (g, -g floor(a / b))"""
    a, b, g = ctx.primal(op.lhs), ctx.primal(op.rhs), cts[0]
    return (g, -(g * ops.unary("floor", a / b)))


def vjp_atan2(ctx, op, cts):
    """d atan2(y, x) = (g x / (x^2 + y^2), -g y / (x^2 + y^2))"""
    y, x, g = ctx.primal(op.lhs), ctx.primal(op.rhs), cts[0]
    r = g / (x * x + y * y)
    return (r * x, -(r * y))


# --- select and conversions ---------------------------------------------------------------------


def vjp_select(ctx, op, cts):
    """d select(c, a, b) = (none, g where c, g where not c)"""
    c, g = ctx.primal(op.cond), cts[0]
    return (None, ops.where(c, g, 0.0), ops.where(c, 0.0, g))


def vjp_cast(ctx, op, cts):
    """d cast(x) = cast(g) back to x's type (float sources); integer sources get none"""
    src = from_ir(op.source.type.element_type)
    if not src.is_float:
        return (None,)
    return (ops.astype(cts[0], src),)


RULES = MappingProxyType(
    {
        tile.NegOp: vjp_neg,
        tile.AbsOp: vjp_abs,
        tile.ExpOp: vjp_exp,
        tile.LogOp: vjp_log,
        tile.SqrtOp: vjp_sqrt,
        tile.RsqrtOp: vjp_rsqrt,
        tile.TanhOp: vjp_tanh,
        tile.ErfOp: vjp_erf,
        tile.SinOp: vjp_sin,
        tile.CosOp: vjp_cos,
        tile.TanOp: vjp_tan,
        tile.AsinOp: vjp_asin,
        tile.AcosOp: vjp_acos,
        tile.AtanOp: vjp_atan,
        tile.SinhOp: vjp_sinh,
        tile.CoshOp: vjp_cosh,
        tile.AsinhOp: vjp_asinh,
        tile.AcoshOp: vjp_acosh,
        tile.AtanhOp: vjp_atanh,
        tile.Expm1Op: vjp_expm1,
        tile.Log1pOp: vjp_log1p,
        tile.Log2Op: vjp_log2,
        tile.Log10Op: vjp_log10,
        tile.Exp2Op: vjp_exp2,
        tile.SigmoidOp: vjp_sigmoid,
        tile.SoftplusOp: vjp_softplus,
        tile.AddOp: vjp_add,
        tile.SubOp: vjp_sub,
        tile.MulOp: vjp_mul,
        tile.DivOp: vjp_div,
        tile.MaxOp: vjp_max,
        tile.MinOp: vjp_min,
        tile.PowOp: vjp_pow,
        tile.ModOp: vjp_mod,
        tile.Atan2Op: vjp_atan2,
        tile.SelectOp: vjp_select,
        tile.CastOp: vjp_cast,
    }
)

NON_DIFFERENTIABLE = MappingProxyType(
    {
        tile.CmpOp: "a comparison: its i1 result carries no cotangent",
        tile.BitcastOp: "it reinterprets bits",
        tile.NotOp: "an integer op",
        tile.AndOp: "an integer op",
        tile.OrOp: "an integer op",
        tile.XorOp: "an integer op",
        tile.ShlOp: "an integer op",
        tile.ShrOp: "an integer op",
    }
)

ZERO_COTANGENT = MappingProxyType(
    {
        tile.FloorOp: "piecewise constant",
        tile.CeilOp: "piecewise constant",
        tile.RoundOp: "piecewise constant",
        tile.TruncOp: "piecewise constant",
        tile.SignOp: "piecewise constant",
        tile.FloorDivOp: "piecewise constant (floor of a / b)",
    }
)
