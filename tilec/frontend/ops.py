"""The operations of the DSL: what `tilec.exp`, `tilec.tile_contract`, `x + y`, ... do while tracing.

Each function checks its operands (raising `TileError` at the user's line), works out the result's
axes with the tracer's axis algebra, and in build mode appends the `tile` ops.
"""

from __future__ import annotations

import builtins
import math
import operator
from collections import Counter

import numpy as np

from tilec.dialects.tile import (
    AbsOp,
    AddOp,
    AndOp,
    Atan2Op,
    BitcastOp,
    CastOp,
    CmpOp,
    ConcatOp,
    ConstantOp,
    ContractOp,
    ConvOp,
    DivOp,
    DynamicSliceOp,
    ErfOp,
    ExpOp,
    FloorDivOp,
    IotaOp,
    LogOp,
    MaxOp,
    MinOp,
    ModOp,
    MulOp,
    NegOp,
    NotOp,
    OrOp,
    PadOp,
    PoolOp,
    PowOp,
    RandomBitsOp,
    ReduceOp,
    ReshapeOp,
    RsqrtOp,
    ScanOp,
    ScatterAddOp,
    SelectOp,
    ShlOp,
    ShrOp,
    SliceOp,
    SortOp,
    SqrtOp,
    SubOp,
    TakeAlongAxisOp,
    TakeOp,
    TanhOp,
    TopkOp,
    TransposeOp,
    UnaryOp,
    XorOp,
    conv_result_shape,
    pool_output_size,
)
from tilec.fp8 import fp8_format, from_fp8_bits, to_fp8_bits
from tilec.frontend import dtypes
from tilec.frontend.dtypes import DType, as_dtype, bool_, default_acc, float64, from_ir, int64
from tilec.frontend.errors import user_error
from tilec.frontend.tracer import Dim, Tile, Tracer, current_tracer
from tilec.mathfns import MATH_FUNCTIONS

# --- operands -----------------------------------------------------------------------------------


def _own(t: Tile, what: str) -> Tracer:
    """The tracer `t` belongs to, which must be the one running now."""
    tr = current_tracer()
    if not t.tracer.active or tr is None:
        raise user_error(
            f"{what}: this tile comes from a trace of tile op '{t.tracer.op_name}' that has finished; "
            f"tiles exist only while their op is traced and cannot be kept or used outside it"
        )
    if t.tracer is not tr:
        raise user_error(
            f"{what}: this tile belongs to tile op '{t.tracer.op_name}', not to '{tr.op_name}'; "
            f"tiles cannot be shared between ops (pass the data as an argument instead)"
        )
    return tr


def _need_tile(x, what: str) -> Tile:
    if isinstance(x, Tile):
        return x
    if isinstance(x, np.ndarray):
        raise user_error(
            f"{what} expects a tile, got a numpy array: arrays cannot be captured in a tile program; "
            f"pass them as arguments of the op"
        )
    raise user_error(
        f"{what} expects a tile, got {type(x).__name__} (tilec functions work on tiles inside a @tile_op function)"
    )


class _Scalar:
    """A Python number standing for a splat constant of the other operands' dtype."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _int_range(dtype: DType) -> tuple[int, int]:
    if dtype.is_unsigned:
        return 0, 2**dtype.bits - 1
    return -(2 ** (dtype.bits - 1)), 2 ** (dtype.bits - 1) - 1


def _scalar(x, dtype: DType, what: str):
    """A Python/numpy scalar converted to a value of `dtype` (no silent lossy conversion)."""
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x[()]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, np.ndarray):
        raise user_error(
            f"{what}: numpy arrays cannot be mixed with tiles inside a tile program; pass the array as an argument of the op"
        )
    if isinstance(x, bool):
        if dtype.is_bool:
            return x
        return float(x) if dtype.is_float else int(x)
    if isinstance(x, int):
        if dtype.is_float:
            return _scalar(float(x), dtype, what) if abs(x) < 2**1023 else (math.inf if x > 0 else -math.inf)
        if dtype.is_int:
            lo, hi = _int_range(dtype)
            if not lo <= x <= hi:
                raise user_error(f"{what}: the constant {x} does not fit in {dtype.name}")
            return x
        raise user_error(f"{what}: the number {x} cannot be combined with a bool (mask) tile; use True or False")
    if isinstance(x, float):
        if dtype.is_float:
            # The constant the kernel will see: rounded to the dtype (overflow gives inf, as numpy;
            # fp8 as tile.cast rounds, torch's rules: e4m3fn saturates at 448)
            fmt = fp8_format(dtype.short)
            with np.errstate(over="ignore"):
                if fmt is not None:
                    return float(from_fp8_bits(to_fp8_bits(np.float32(x), fmt), fmt))
                return float(np.float64(x).astype(dtype.np))
        if dtype.is_int and x.is_integer():
            return _scalar(int(x), dtype, what)
        raise user_error(
            f"{what}: the float {x} cannot be combined with a {dtype.name} tile (no implicit conversion); "
            f"convert the tile with .astype(...)"
        )
    raise user_error(f"{what}: expected a tile or a Python number, got {type(x).__name__}")


def _sizes_to_operands(xs) -> list:
    """Sizes (`x.shape[i]`) among elementwise operands: static ones are ints, dynamic ones their
    run-time value as a rank-0 tile of the other operands' dtype (float64 / int64 next to numbers)."""
    tiles = [x for x in xs if isinstance(x, Tile)]
    strong = [t for t in tiles if not t.weak]
    if strong or tiles:
        dtype = (strong or tiles)[0].dtype
    else:
        dtype = float64 if any(isinstance(x, float | np.floating) for x in xs) else int64
    out = []
    for x in xs:
        if isinstance(x, Dim):
            n = x.static()
            x = n if n is not None else x.as_tile(dtype)
        out.append(x)
    return out


def _operands(what: str, *xs):
    """(tracer, dtype, operands) for an elementwise operation: at least one tile, all tiles of this
    trace and of one dtype; Python numbers become `_Scalar`s of that dtype; sizes are numbers
    (static) or run-time values (dynamic)."""
    if any(isinstance(x, Dim) for x in xs):
        xs = tuple(_sizes_to_operands(xs))
    tiles = [x for x in xs if isinstance(x, Tile)]
    if not tiles:
        raise user_error(f"{what} needs at least one tile operand")
    tr = _own(tiles[0], what)
    for t in tiles[1:]:
        _own(t, what)
    if any(t.weak for t in tiles) and len({t.dtype for t in tiles}) > 1:
        xs = _adopt_dtype(what, xs, tiles)
        tiles = [x for x in xs if isinstance(x, Tile)]
    if all(t.weak and t.dtype.is_int for t in tiles) and any(isinstance(x, float | np.floating) for x in xs):
        # only runtime ints and a float literal: a float, as in Python (`k * 0.5`)
        xs = tuple(_weak(astype(x, float64)) if isinstance(x, Tile) else x for x in xs)
        tiles = [x for x in xs if isinstance(x, Tile)]
    dtype = tiles[0].dtype
    for t in tiles[1:]:
        if t.dtype is not dtype:
            raise user_error(
                f"{what}: operands have different dtypes {dtype.name} and {t.dtype.name}; "
                f"convert one with .astype(...) (there is no implicit promotion)"
            )
    out = [x if isinstance(x, Tile) else _Scalar(_scalar(x, dtype, what)) for x in xs]
    return tr, dtype, out


def _adopt_dtype(what: str, xs, tiles):
    """Runtime Python numbers (weak scalar tiles, `x: float`) take the dtype of the other tiles,
    as literals do: an int scalar converts to a float dtype, a float scalar to an int one is an
    error. Between weak scalars alone, float wins."""
    strong = [t for t in tiles if not t.weak]
    if strong:
        dtype = strong[0].dtype
    else:
        dtype = next((t.dtype for t in tiles if t.dtype.is_float), tiles[0].dtype)
    out = []
    for x in xs:
        if isinstance(x, Tile) and x.weak and x.dtype is not dtype:
            if dtype.is_bool or (x.dtype.is_float and not dtype.is_float):
                kind = "float" if x.dtype.is_float else "int"
                raise user_error(
                    f"{what}: a runtime {kind} scalar cannot be combined with a {dtype.name} tile "
                    f"(no implicit conversion); convert one side with .astype(...)"
                )
            x = _weak(astype(x, dtype))
        out.append(x)
    return out


def _weak(t: Tile) -> Tile:
    t.weak = True
    return t


def _splat(tr: Tracer, value, axes, dtype: DType) -> Tile:
    return tr.op(axes, dtype, lambda: ConstantOp(value, tr.tile_type(axes, dtype), tr.sizes_for(axes)))


def _materialize(tr: Tracer, x, axes, dtype: DType) -> Tile:
    if isinstance(x, _Scalar):
        return _splat(tr, x.value, axes, dtype)
    return tr.broadcast_tile(x, axes)


def _broadcast_all(tr: Tracer, what: str, xs) -> tuple:
    return tr.broadcast_shapes([x.axes for x in xs if isinstance(x, Tile)], what)


# --- elementwise --------------------------------------------------------------------------------

_BINARY = {
    "add": (AddOp, "'+'"),
    "sub": (SubOp, "'-'"),
    "mul": (MulOp, "'*'"),
    "div": (DivOp, "'/'"),
    "pow": (PowOp, "'**'"),
    "max": (MaxOp, "tilec.maximum"),
    "min": (MinOp, "tilec.minimum"),
    "floordiv": (FloorDivOp, "'//'"),
    "mod": (ModOp, "'%'"),
    "and": (AndOp, "'&'"),
    "or": (OrOp, "'|'"),
    "xor": (XorOp, "'^'"),
    "shl": (ShlOp, "'<<'"),
    "shr": (ShrOp, "'>>'"),
    "atan2": (Atan2Op, "tilec.atan2"),
}


def binary(kind: str, a, b) -> Tile:
    opcls, what = _BINARY[kind]
    tr, dtype, (a, b) = _operands(what, a, b)
    if dtype.is_bool:
        raise user_error(f"{what} cannot be applied to bool (mask) tiles; convert with .astype(...) first")
    if kind == "div" and dtype.is_int:
        raise user_error(
            f"{what}: true division of {dtype.name} tiles is not supported; convert with .astype(tilec.float32) first"
        )
    if opcls.FLOAT_ONLY and not dtype.is_float:
        raise user_error(f"{what} needs float tiles, got {dtype.name}")
    if opcls.INT_ONLY and not dtype.is_int:
        raise user_error(f"{what} needs integer tiles, got {dtype.name}")
    axes = _broadcast_all(tr, what, (a, b))
    a2, b2 = _materialize(tr, a, axes, dtype), _materialize(tr, b, axes, dtype)
    r = tr.op(axes, dtype, lambda: opcls(a2.value, b2.value))
    r.weak = all(x.weak for x in (a, b) if isinstance(x, Tile))
    return r


_UNARY = {
    "neg": (NegOp, "unary '-'"),
    "abs": (AbsOp, "abs"),
    "exp": (ExpOp, "tilec.exp"),
    "log": (LogOp, "tilec.log"),
    "sqrt": (SqrtOp, "tilec.sqrt"),
    "rsqrt": (RsqrtOp, "tilec.rsqrt"),
    "tanh": (TanhOp, "tilec.tanh"),
    "erf": (ErfOp, "tilec.erf"),
    "not": (NotOp, "'~'"),
}
_UNARY.update({f.name: (f.op, f"tilec.{f.name}") for f in MATH_FUNCTIONS if issubclass(f.op, UnaryOp)})


def unary(kind: str, x) -> Tile:
    opcls, what = _UNARY[kind]
    x = _need_tile(x, what)
    tr = _own(x, what)
    if x.dtype.is_bool:
        raise user_error(f"{what} cannot be applied to a bool (mask) tile; convert with .astype(...) first")
    if opcls.FLOAT_ONLY and not x.dtype.is_float:
        raise user_error(f"{what} needs a float tile, got {x.dtype.name}; convert with .astype(...) first")
    if opcls.INT_ONLY and not x.dtype.is_int:
        raise user_error(f"{what} needs an integer tile, got {x.dtype.name}")
    r = tr.op(x.axes, x.dtype, lambda: opcls(x.value))
    r.weak = x.weak
    return r


_CMP_SYMBOL = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def compare(pred: str, a, b) -> Tile:
    what = f"'{_CMP_SYMBOL[pred]}'"
    tr, dtype, (a, b) = _operands(what, a, b)
    axes = _broadcast_all(tr, what, (a, b))
    a2, b2 = _materialize(tr, a, axes, dtype), _materialize(tr, b, axes, dtype)
    return tr.op(axes, bool_, lambda: CmpOp(pred, a2.value, b2.value))


def logical(kind: str, a, b) -> Tile:
    """`&`, `|`, `^`: bitwise on integer tiles; on masks (bool tiles) as selects and a comparison."""
    what = {"and": "'&'", "or": "'|'", "xor": "'^'"}[kind]
    tr, dtype, (a, b) = _operands(what, a, b)
    if dtype.is_int:
        return binary(kind, a.value if isinstance(a, _Scalar) else a, b.value if isinstance(b, _Scalar) else b)
    if not dtype.is_bool:
        raise user_error(f"{what} applies to integer and bool (mask) tiles only, got {dtype.name}")
    axes = _broadcast_all(tr, what, (a, b))
    a2, b2 = _materialize(tr, a, axes, dtype), _materialize(tr, b, axes, dtype)
    if kind == "xor":
        return tr.op(axes, bool_, lambda: CmpOp("ne", a2.value, b2.value))
    if kind == "and":
        f = _splat(tr, False, axes, bool_)
        return tr.op(axes, bool_, lambda: SelectOp(a2.value, b2.value, f.value))
    t = _splat(tr, True, axes, bool_)
    return tr.op(axes, bool_, lambda: SelectOp(a2.value, t.value, b2.value))


def logical_not(x) -> Tile:
    what = "'~'"
    tr = _own(x, what)
    if x.dtype.is_int:
        return unary("not", x)
    if not x.dtype.is_bool:
        raise user_error(f"{what} applies to integer and bool (mask) tiles only, got {x.dtype.name}")
    f = _splat(tr, False, x.axes, bool_)
    t = _splat(tr, True, x.axes, bool_)
    return tr.op(x.axes, bool_, lambda: SelectOp(x.value, f.value, t.value))


def exp(x) -> Tile:
    """e**x, elementwise (float tiles)."""
    return unary("exp", x)


def log(x) -> Tile:
    """Natural logarithm, elementwise (float tiles)."""
    return unary("log", x)


def sqrt(x) -> Tile:
    """Square root, elementwise (float tiles)."""
    return unary("sqrt", x)


def rsqrt(x) -> Tile:
    """1/sqrt(x), elementwise (float tiles)."""
    return unary("rsqrt", x)


def tanh(x) -> Tile:
    """Hyperbolic tangent, elementwise (float tiles)."""
    return unary("tanh", x)


def erf(x) -> Tile:
    """The error function, elementwise (float tiles)."""
    return unary("erf", x)


def abs_(x) -> Tile:
    """Absolute value, elementwise (also `abs(x)`)."""
    return unary("abs", x)


def maximum(a, b) -> Tile:
    """The larger of two, elementwise, with broadcasting; NaN propagates."""
    return binary("max", a, b)


def minimum(a, b) -> Tile:
    """The smaller of two, elementwise, with broadcasting; NaN propagates."""
    return binary("min", a, b)


def where(mask, a, b) -> Tile:
    """`a` where `mask` is true, else `b` (numpy broadcasting; `a`/`b` may be Python numbers)."""
    what = "tilec.where"
    mask = _need_tile(mask, f"{what} (mask)")
    tr = _own(mask, what)
    if not mask.dtype.is_bool:
        raise user_error(f"{what}: the mask must be a bool tile (from a comparison), got {mask.dtype.name}")
    if isinstance(a, Tile) or isinstance(b, Tile):
        _, dtype, (a, b) = _operands(what, a, b)
    else:
        dtype = tr.dtype
        if dtype is None:
            raise user_error(
                f"{what}: both branches are numbers and the op has no dtype to give them; "
                f"give @tile_op a dtype=, or make one branch a tile"
            )
        a, b = _Scalar(_scalar(a, dtype, what)), _Scalar(_scalar(b, dtype, what))
    axes = _broadcast_all(tr, what, (mask, a, b))
    m2 = tr.broadcast_tile(mask, axes)
    a2, b2 = _materialize(tr, a, axes, dtype), _materialize(tr, b, axes, dtype)
    r = tr.op(axes, dtype, lambda: SelectOp(m2.value, a2.value, b2.value))
    r.weak = any(isinstance(x, Tile) for x in (a, b)) and all(x.weak for x in (a, b) if isinstance(x, Tile))
    return r


# --- contraction --------------------------------------------------------------------------------


def _axis(i, rank: int, what: str, side: str) -> int:
    try:
        i = operator.index(i)
    except TypeError:
        raise user_error(f"{what}: axes must be integers, got {i!r}") from None
    if not -rank <= i < rank:
        raise user_error(f"{what}: axis {i} is out of range for the {side} operand of rank {rank}")
    return i % rank


def _pairs(spec, ra: int, rb: int, what: str, name: str) -> list[tuple[int, int]]:
    """`axes`/`batch`: a list of (lhs_axis, rhs_axis) pairs, one pair, or (axes only) an int n:
    the last n axes of lhs against the first n of rhs, as numpy.tensordot."""
    if spec is None:
        return []
    if isinstance(spec, int | np.integer) and not isinstance(spec, bool):
        n = int(spec)
        if name != "axes" or not 0 <= n <= builtins.min(ra, rb):
            raise user_error(f"{what}: {name}={n} is not valid for operands of rank {ra} and {rb}")
        return [(ra - n + k, k) for k in range(n)]
    try:
        items = list(spec)
    except TypeError:
        raise user_error(f"{what}: {name} must be a list of (lhs_axis, rhs_axis) pairs, got {spec!r}") from None
    if len(items) == 2 and all(isinstance(v, int | np.integer) for v in items):
        items = [tuple(items)]
    out = []
    for p in items:
        try:
            a, b = p
        except (TypeError, ValueError):
            raise user_error(f"{what}: {name} must be a list of (lhs_axis, rhs_axis) pairs, got {spec!r}") from None
        out.append((_axis(a, ra, what, "lhs"), _axis(b, rb, what, "rhs")))
    return out


def tile_contract(a, b, axes, batch=()) -> Tile:
    """General contraction, like `numpy.tensordot` with optional batch axes.

    `axes` pairs an axis of `a` with the axis of `b` it is summed against; `batch` pairs axes that
    run in lock step. Result axes: batch axes, then the free axes of `a`, then those of `b`.
    The result holds the operands' dtype; products are accumulated in the op's `acc` (or
    the default acc of the operands' dtype). `.astype(t)` applied to the result rounds the
    accumulator to `t` once (in an f16 op, `tile_contract(a, b, 1).astype(float32)` is exact f32)."""
    what = "tile_contract"
    a, b = _need_tile(a, what), _need_tile(b, what)
    tr = _own(a, what)
    _own(b, what)
    if a.dtype is not b.dtype:
        raise user_error(
            f"{what}: lhs holds {a.dtype.name} but rhs holds {b.dtype.name}; convert one with .astype(...)"
        )
    if a.dtype.is_bool:
        raise user_error(f"{what} cannot contract bool (mask) tiles")
    if a.dtype.is_unsigned:
        raise user_error(
            f"{what}: not supported yet: contractions of unsigned integer tiles ({a.dtype.name}); "
            f"convert them with .astype(...) first"
        )
    pairs = _pairs(axes, a.ndim, b.ndim, what, "axes")
    bpairs = _pairs(batch, a.ndim, b.ndim, what, "batch")
    for side, used in (("lhs", [p[0] for p in pairs + bpairs]), ("rhs", [p[1] for p in pairs + bpairs])):
        dup = [k for k, n in Counter(used).items() if n > 1]
        if dup:
            raise user_error(f"{what}: {side} axis {dup[0]} is used twice in axes/batch")
    for kind, ps in (("batch axis", bpairs), ("axis", pairs)):
        for i, j in ps:
            tr.same(
                a.axes[i],
                b.axes[j],
                lambda x, y, i=i, j=j, kind=kind: (
                    f"{what}: lhs {kind} {i} has size {x} but rhs {kind} {j} has size {y} "
                    f"(lhs shape {tr.describe_shape(a.axes)}, rhs shape {tr.describe_shape(b.axes)})"
                ),
            )
    used_a = {i for i, _ in pairs + bpairs}
    used_b = {j for _, j in pairs + bpairs}
    res = [a.axes[i] for i, _ in bpairs]
    res += [ax for i, ax in enumerate(a.axes) if i not in used_a]
    res += [ax for j, ax in enumerate(b.axes) if j not in used_b]
    acc = tr.acc
    if acc is None or acc.kind != a.dtype.kind or acc.bits < a.dtype.bits:
        acc = default_acc(a.dtype)
    rdt = a.dtype  # the operands' dtype; `.astype(t)` on the result takes the accumulator to t directly
    return tr.op(res, rdt, lambda: ContractOp(a.value, b.value, pairs, bpairs, acc.ir, tr.tile_type(res, rdt)))


def matmul(a, b) -> Tile:
    """`a @ b` for tiles of rank 1 or 2 (as numpy.matmul); use tile_contract(batch=...) for more."""
    what = "'@'"
    a, b = _need_tile(a, what), _need_tile(b, what)
    if not (1 <= a.ndim <= 2 and 1 <= b.ndim <= 2):
        raise user_error(
            f"{what} supports tiles of rank 1 or 2 (got {a.ndim} and {b.ndim}); "
            f"use tilec.tile_contract(a, b, axes=..., batch=...) for batched products"
        )
    return tile_contract(a, b, axes=[(a.ndim - 1, 0 if b.ndim == 1 else b.ndim - 2)])


# --- reductions ---------------------------------------------------------------------------------


def _reduce_axes(axis, ndim: int, what: str) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    items = axis if isinstance(axis, tuple | list) else (axis,)
    out = [_axis(i, ndim, what, "input") for i in items]
    if len(set(out)) != len(out):
        raise user_error(f"{what}: an axis is listed twice in axis={axis!r}")
    return tuple(sorted(out))


def _sum_dtype(tr: Tracer, dtype: DType) -> DType:
    """Sums accumulate in the op's acc for tiles of the op's dtype, else in the default acc."""
    acc = tr.acc if dtype is tr.dtype else default_acc(dtype)
    if acc.kind != dtype.kind or acc.bits < dtype.bits:
        acc = default_acc(dtype)
    return acc


def _reduce(kind: str, x, axis, keepdims: bool) -> Tile:
    what = f"tilec.{kind}"
    x = _need_tile(x, what)
    tr = _own(x, what)
    axes = _reduce_axes(axis, x.ndim, what)
    if x.dtype.is_bool:
        raise user_error(f"{what} cannot reduce a bool (mask) tile; convert it with .astype(...) first")
    if kind == "mean" and not x.dtype.is_float:
        raise user_error(f"{what} needs a float tile, got {x.dtype.name}; convert with .astype(...) first")
    if not axes:
        return x
    rest = tuple(ax for i, ax in enumerate(x.axes) if i not in axes)
    work = astype(x, _sum_dtype(tr, x.dtype)) if kind in ("sum", "mean") else x
    ir_kind = "sum" if kind == "mean" else kind
    r = tr.op(rest, work.dtype, lambda: ReduceOp(ir_kind, work.value, list(axes), tr.tile_type(rest, work.dtype)))
    if kind == "mean":
        r = _divide_by_count(tr, r, [x.axes[i] for i in axes])
    r = astype(r, x.dtype)
    if keepdims:
        kept = tuple(tr.const_axis(1) if i in axes else ax for i, ax in enumerate(x.axes))
        r = tr.op(kept, r.dtype, lambda: ReshapeOp(r.value, tr.tile_type(kept, r.dtype), tr.sizes_for(kept)))
    return r


def _divide_by_count(tr: Tracer, r: Tile, reduced_axes) -> Tile:
    """r * (1/n), n the number of reduced elements. A dynamic n is counted on the device by summing
    a tile of ones per dynamic axis (the tile dialect has no index-to-float conversion)."""
    if not tr.build:
        return r
    static = 1
    dynamic = []
    for ax in reduced_axes:
        if isinstance(ax, int):
            static *= ax
        else:
            dynamic.append(ax)
    if not dynamic:
        return binary("mul", r, 1.0 / static if static else math.inf)
    count = None
    for name in dynamic:
        ones = _splat(tr, 1.0, (name,), r.dtype)
        n = tr.op((), r.dtype, lambda ones=ones: ReduceOp("sum", ones.value, [0], tr.tile_type((), r.dtype)))
        count = n if count is None else binary("mul", count, n)
    if static != 1:
        count = binary("mul", count, float(static))
    return binary("mul", r, binary("div", 1.0, count))


def reduce_sum(x, axis=None, keepdims=False) -> Tile:
    """Sum over `axis` (None: all axes; an int; a tuple), accumulated in the op's acc."""
    return _reduce("sum", x, axis, keepdims)


def reduce_max(x, axis=None, keepdims=False) -> Tile:
    """Maximum over `axis` (None: all axes; an int; a tuple)."""
    return _reduce("max", x, axis, keepdims)


def reduce_min(x, axis=None, keepdims=False) -> Tile:
    """Minimum over `axis` (None: all axes; an int; a tuple)."""
    return _reduce("min", x, axis, keepdims)


def mean(x, axis=None, keepdims=False) -> Tile:
    """Mean over `axis`: the sum (in acc) times 1/n (float tiles)."""
    return _reduce("mean", x, axis, keepdims)


# --- shape and type -----------------------------------------------------------------------------


def astype(x, dtype) -> Tile:
    """Element type conversion (floats round to nearest even; float to int truncates)."""
    x = _need_tile(x, "astype")
    tr = _own(x, "astype")
    dt = as_dtype(dtype)
    if dt is x.dtype:
        return x
    if tr.build and x.value is not None and dt.kind == x.dtype.kind:
        wide = _accumulator(tr, x)
        if wide is not None:
            # a contraction's accumulator goes to `dt` in one rounding, never through x's type:
            # in an f16 op, contract(...).astype(float32) is the exact f32 accumulator
            return wide if dt is wide.dtype else tr.op(x.axes, dt, lambda: CastOp(wide.value, tr.tile_type(x.axes, dt)))
    return tr.op(x.axes, dt, lambda: CastOp(x.value, tr.tile_type(x.axes, dt)))


def _accumulator(tr: Tracer, x: Tile) -> Tile | None:
    """The accumulator of contraction `x` (a tile of its acc type) when x holds a narrower type,
    else None. The first time, the contraction is rebuilt in place to give its acc type, and x
    (and every use so far) reads it cast to x's type: the same single rounding, and later uses
    of x stay one GEMM, not two (the cast is erased if nothing reads it)."""
    wide = tr.accumulators.get(x.value)
    if wide is not None:
        return Tile(tr, x.axes, from_ir(wide.type.element_type), wide)
    c = x.value.owner
    if not isinstance(c, ContractOp | ConvOp) or c.acc == x.dtype.ir:
        return None
    acc = from_ir(c.acc)
    old = c.results[0]
    # the same op (properties and all) giving its accumulator type
    full = tr.emit(
        lambda: type(c).create(
            operands=[c.lhs, c.rhs], result_types=[tr.tile_type(x.axes, acc)], properties=dict(c.properties)
        )
    )
    narrow = tr.emit(lambda: CastOp(full.results[0], old.type))
    for op in (full, narrow):
        op.detach()
        op.location = c.location
    tr.block.insert_op_after(full, c)
    tr.block.insert_op_after(narrow, full)
    old.replace_all_uses_with(narrow.results[0])
    tr.block.erase_op(c)
    x.value = narrow.results[0]
    tr.accumulators[x.value] = full.results[0]
    return Tile(tr, x.axes, acc, full.results[0])


def bitcast(x, dtype) -> Tile:
    """The same bits as another dtype of the same width (`float32` <-> `int32`/`uint32`, `float16`
    <-> `uint16`, ...), as numpy's `x.view(dtype)`; not for bool tiles."""
    what = "tilec.bitcast"
    x = _need_tile(x, what)
    tr = _own(x, what)
    dt = as_dtype(dtype)
    if x.dtype.is_bool or dt.is_bool:
        raise user_error(f"{what} does not apply to bool (mask) tiles ({x.dtype.name} to {dt.name}); use .astype(...)")
    if dt.bits != x.dtype.bits:
        raise user_error(
            f"{what}: {x.dtype.name} has {x.dtype.bits} bits but {dt.name} has {dt.bits}; the widths must be equal"
        )
    if dt is x.dtype:
        return x
    return tr.op(x.axes, dt, lambda: BitcastOp(x.value, tr.tile_type(x.axes, dt)))


def transpose(x, perm=None) -> Tile:
    """Permute axes: result axis i is axis perm[i] of x (default: reversed, as x.T)."""
    what = "tilec.transpose"
    x = _need_tile(x, what)
    tr = _own(x, what)
    if perm is None:
        perm = tuple(reversed(range(x.ndim)))
    perm = tuple(_axis(p, x.ndim, what, "input") for p in perm)
    if sorted(perm) != list(range(x.ndim)):
        raise user_error(f"{what}: {list(perm)} is not a permutation of the {x.ndim} axes")
    if perm == tuple(range(x.ndim)):
        return x
    axes = tuple(x.axes[p] for p in perm)
    return tr.op(axes, x.dtype, lambda: TransposeOp(x.value, perm, tr.tile_type(axes, x.dtype)))


def _size_entries(tr: Tracer, shape, what: str, allow_minus_one: bool) -> list:
    """Sizes given by the user: ints, entries of x.shape (Dim), and maybe one -1 (returned as None)."""
    if isinstance(shape, int | np.integer | Dim) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        entries = list(shape)
    except TypeError:
        raise user_error(f"{what}: expected a shape (a tuple of sizes), got {shape!r}") from None
    out = []
    for e in entries:
        if isinstance(e, Dim):
            if e._tracer is not tr:
                raise user_error(f"{what}: this size comes from another trace")
            out.append(e._axis)
            continue
        try:
            n = operator.index(e)
        except TypeError:
            raise user_error(f"{what}: sizes must be ints or entries of x.shape, got {e!r}") from None
        if n == -1 and allow_minus_one:
            out.append(None)
        elif n < 0:
            raise user_error(f"{what}: invalid size {n}")
        else:
            out.append(tr.const_axis(n))
    if out.count(None) > 1:
        raise user_error(f"{what}: only one size can be -1")
    return out


def _split_sizes(tr: Tracer, axes) -> tuple[int, Counter]:
    """(static product, multiset of symbolic factors) of a list of axes."""
    static, atoms = 1, Counter()
    for ax in axes:
        s = tr.static_size(ax)
        if s is not None:
            static *= s
        else:
            atoms[ax if tr.build else ax.root()] += 1
    return static, atoms


def reshape(x, shape) -> Tile:
    """Same elements in row-major order, new shape. Sizes are ints, entries of x.shape, or one -1."""
    what = "tilec.reshape"
    x = _need_tile(x, what)
    tr = _own(x, what)
    target = _size_entries(tr, shape, what, allow_minus_one=True)
    src_static, src_atoms = _split_sizes(tr, x.axes)
    known_static, known_atoms = _split_sizes(tr, [t for t in target if t is not None])

    def describe_target():
        return (
            "("
            + ", ".join("-1" if t is None else tr.describe(t) for t in target)
            + ("," if len(target) == 1 else "")
            + ")"
        )

    mismatch = f"{what}: cannot reshape {tr.describe_shape(x.axes)} into {describe_target()}"
    if None in target:
        rest = src_atoms - known_atoms
        divides = not (known_atoms - src_atoms) and known_static != 0 and src_static % known_static == 0
        if not divides and (tr.build or not src_atoms):
            raise user_error(f"{mismatch}: the sizes do not divide")
        q = src_static // known_static if divides else 0
        if not divides:
            # symbolic trace: sizes that dims will make static are still symbols here, so the
            # division cannot be checked yet (the second trace checks it with the real sizes)
            inferred = tr._new_sym()
        elif not rest:
            inferred = tr.const_axis(q)
        elif sum(rest.values()) == 1 and q == 1:
            inferred = next(iter(rest))
        elif tr.build:
            raise user_error(
                f"{mismatch}: -1 would be a product of dynamic sizes, which the tile dialect cannot "
                f"express (it has no index arithmetic)"
            )
        else:
            inferred = tr._new_sym()
        target = [inferred if t is None else t for t in target]
    elif tr.build or (not src_atoms and not known_atoms):
        if src_static != known_static or src_atoms != known_atoms:
            raise user_error(f"{mismatch}: the element counts differ or cannot be shown equal")
    target = tuple(target)
    if len(target) == x.ndim and all(tr.axes_equal(a, b) for a, b in zip(target, x.axes)):
        return x
    return tr.op(target, x.dtype, lambda: ReshapeOp(x.value, tr.tile_type(target, x.dtype), tr.sizes_for(target)))


def broadcast_to(x, shape) -> Tile:
    """numpy.broadcast_to: trailing axes align; each axis of x is 1 or equals the target size."""
    what = "tilec.broadcast_to"
    x = _need_tile(x, what)
    tr = _own(x, what)
    target = _size_entries(tr, shape, what, allow_minus_one=False)
    if len(target) < x.ndim:
        raise user_error(f"{what}: cannot broadcast rank {x.ndim} to the lower rank {len(target)}")
    off = len(target) - x.ndim
    for i, ax in enumerate(x.axes):
        if tr.is_one(ax):
            continue
        tr.same(
            ax,
            target[off + i],
            lambda a, b, i=i: (
                f"{what}: axis {i} of {tr.describe_shape(x.axes)} has size {a}, which is neither 1 nor the target's {b}"
            ),
        )
    return tr.broadcast_tile(x, target)


# --- creation -----------------------------------------------------------------------------------


def _tracer_for(what: str) -> Tracer:
    tr = current_tracer()
    if tr is None:
        raise user_error(f"{what} makes a tile, so it can only be called inside a @tile_op function while it is traced")
    return tr


def full(shape, value, dtype=None) -> Tile:
    """A tile of `shape` filled with `value` (numpy.full). `dtype` defaults to the op's dtype.
    Sizes are ints or entries of an argument's `.shape` (static or dynamic)."""
    return _full("tilec.full", shape, value, dtype)


def _full(what: str, shape, value, dtype) -> Tile:
    tr = _tracer_for(what)
    axes = tuple(_size_entries(tr, shape, what, allow_minus_one=False))
    dt = tr.dtype if dtype is None else as_dtype(dtype)
    if dt.is_bool and type(value) is int and value in (0, 1):
        value = bool(value)
    return _splat(tr, _scalar(value, dt, what), axes, dt)


def zeros(shape, dtype=None) -> Tile:
    """A tile of zeros (numpy.zeros); `dtype` defaults to the op's dtype."""
    return _full("tilec.zeros", shape, 0, dtype)


def ones(shape, dtype=None) -> Tile:
    """A tile of ones (numpy.ones); `dtype` defaults to the op's dtype."""
    return _full("tilec.ones", shape, 1, dtype)


def full_like(x, value, dtype=None) -> Tile:
    """A tile with `x`'s shape filled with `value`; `dtype` defaults to `x`'s."""
    what = "tilec.full_like"
    x = _need_tile(x, what)
    tr = _own(x, what)
    dt = x.dtype if dtype is None else as_dtype(dtype)
    return _splat(tr, _scalar(value, dt, what), x.axes, dt)


def zeros_like(x, dtype=None) -> Tile:
    """A tile of zeros with `x`'s shape; `dtype` defaults to `x`'s."""
    x = _need_tile(x, "tilec.zeros_like")
    dt = x.dtype if dtype is None else as_dtype(dtype)
    return full_like(x, False if dt.is_bool else 0, dt)


def ones_like(x, dtype=None) -> Tile:
    """A tile of ones with `x`'s shape; `dtype` defaults to `x`'s."""
    x = _need_tile(x, "tilec.ones_like")
    dt = x.dtype if dtype is None else as_dtype(dtype)
    return full_like(x, True if dt.is_bool else 1, dt)


def iota(shape, axis=0, dtype=None) -> Tile:
    """A tile whose value at each index is that index along `axis` (default dtype int64)."""
    what = "tilec.iota"
    tr = _tracer_for(what)
    axes = tuple(_size_entries(tr, shape, what, allow_minus_one=False))
    a = _axis(axis, len(axes), what, "result")
    dt = int64 if dtype is None else as_dtype(dtype)
    if dt.is_bool or not (dt.is_int or dt.is_float):
        raise user_error(f"{what}: dtype must be an integer or float type, got {dt.name}")
    if dt.is_int and tr.static_size(axes[a]) is not None and tr.static_size(axes[a]) - 1 > _int_range(dt)[1]:
        raise user_error(f"{what}: indices up to {tr.static_size(axes[a]) - 1} do not fit in {dt.name}")
    return tr.op(axes, dt, lambda: IotaOp(a, tr.tile_type(axes, dt), tr.sizes_for(axes)))


def _arange_number(v, what: str):
    if isinstance(v, Dim):
        return int(v)
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise user_error(f"{what}: start, stop and step must be Python numbers or sizes, got {type(v).__name__}")
    return v


def arange(start, stop=None, step=None, dtype=None) -> Tile:
    """numpy.arange: `arange(n)` or `arange(start, stop, step)`, length ceil((stop - start) / step).

    The default dtype follows numpy: int64 when start, stop and step are ints, else the op's
    dtype if it is a float type (else float64). `arange(n)` takes a dynamic size too."""
    what = "tilec.arange"
    tr = _tracer_for(what)
    if stop is None and step is None and isinstance(start, Dim):
        dt = int64 if dtype is None else as_dtype(dtype)
        return iota((start,), 0, dt)
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    start, stop, step = (_arange_number(v, what) for v in (start, stop, step))
    if step == 0:
        raise user_error(f"{what}: step must not be 0")
    all_int = all(isinstance(v, int) for v in (start, stop, step))
    if dtype is not None:
        dt = as_dtype(dtype)
    elif all_int:
        dt = int64
    else:
        dt = tr.dtype if tr.dtype.is_float else float64
    if dt.is_bool:
        raise user_error(f"{what}: dtype must be an integer or float type, got {dt.name}")
    n = (
        builtins.max(0, math.ceil((stop - start) / step))
        if not all_int
        else builtins.max(0, -(-(stop - start) // step))
    )
    if dt.is_int:
        if not all_int:
            raise user_error(f"{what}: float start/stop/step with the integer dtype {dt.name}")
        lo, hi = _int_range(dt)
        for v in (start, start + step * builtins.max(n - 1, 0)):
            if not lo <= v <= hi:
                raise user_error(f"{what}: the value {v} does not fit in {dt.name}")
    r = iota((n,), 0, dt)
    if step != 1:
        r = r * step
    if start != 0:
        r = r + start
    return r


# --- random numbers (Philox-4x32-10: tilec/philox.py; docs/dsl.md "Random numbers") -------------

# significant bits of a uniform sample per dtype: k * 2^-p for k < 2^p, exact in the dtype
_UNIFORM_BITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


def _random_counter(tr: Tracer, v, what: str, name: str) -> Tile:
    """`seed` / `offset` as a rank-0 int64 tile: a Python int (taken modulo 2^64) or a run-time
    integer scalar (`seed: int`; its 64 bits, sign-extended from narrower types) or a size."""
    if isinstance(v, Dim):
        v = v.static() if v.static() is not None else v.as_tile(int64)
    if isinstance(v, Tile):
        _own(v, what)
        if not v.dtype.is_int:
            raise user_error(f"{what}: {name} must be an int or an integer scalar, got a {v.dtype.name} tile")
        if v.ndim and not all(tr.static_size(ax) == 1 for ax in v.axes):
            raise user_error(f"{what}: {name} must be one value (a rank-0 tile), got shape {v.shape}")
        if v.ndim:
            v = _reshape_axes(tr, v, ())
        return astype(v, int64)
    if isinstance(v, np.integer):
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise user_error(
            f"{what}: {name} must be an int or a run-time int argument (`{name}: int`), got {type(v).__name__}"
        )
    v %= 2**64
    return _splat(tr, v - 2**64 if v >= 2**63 else v, (), int64)


def _random_words(what: str, seed, offset, shape, k: int) -> list[Tile]:
    """`k` uint32 tiles of `shape`: word j of element i is random bit word k * i + j of (seed, offset)."""
    tr = _tracer_for(what)
    axes = tuple(_size_entries(tr, shape, what, allow_minus_one=False))
    s, o = _random_counter(tr, seed, what, "seed"), _random_counter(tr, offset, what, "offset")
    full = axes + ((tr.const_axis(k),) if k > 1 else ())
    bits = tr.op(
        full,
        dtypes.uint32,
        lambda: RandomBitsOp(s.value, o.value, tr.tile_type(full, dtypes.uint32), tr.sizes_for(full)),
    )
    if k == 1:
        return [bits]
    out = []
    for j in range(k):
        one = _slice_op(tr, bits, [0] * len(axes) + [j], [1] * (len(axes) + 1), axes + (tr.const_axis(1),))
        out.append(_reshape_axes(tr, one, axes))
    return out


def _random_dtype(tr: Tracer, dtype, what: str) -> DType:
    dt = (
        (tr.dtype if tr.dtype is not None and tr.dtype.is_float else dtypes.float32)
        if dtype is None
        else as_dtype(dtype)
    )
    if dt.name not in _UNIFORM_BITS:
        raise user_error(f"{what}: dtype must be one of {', '.join(_UNIFORM_BITS)}, got {dt.name}")
    return dt


def _uniform_bits(words: list[Tile], p: int) -> Tile:
    """The top `p` bits of one word (p <= 32) or of two words (hi, lo): an integer in [0, 2^p)."""
    if len(words) == 1:
        return binary("shr", words[0], 32 - p)
    hi, lo = (astype(w, dtypes.uint64) for w in words)
    return binary("or", binary("shl", binary("shr", hi, 64 - p), 32), lo)


def random_bits(seed, offset, shape) -> Tile:
    """Raw Philox-4x32-10 bits (uint32): element i is word i % 4 of the counter offset + i // 4."""
    return _random_words("tilec.random.bits", seed, offset, shape, 1)[0]


def random_uniform(seed, offset, shape, dtype=None) -> Tile:
    """Uniform samples in [0, 1): k * 2^-p with p = 24 (float32), 53 (float64, two words per
    element), 11 (float16), 8 (bfloat16); `dtype` defaults to the op's float dtype, else float32."""
    what = "tilec.random.uniform"
    dt = _random_dtype(_tracer_for(what), dtype, what)
    p = _UNIFORM_BITS[dt.name]
    words = _random_words(what, seed, offset, shape, 2 if p > 32 else 1)
    # scaled in float32 (float64) and converted exactly: no integer -> 16-bit float conversion
    wide = float64 if dt is float64 else dtypes.float32
    return astype(binary("mul", astype(_uniform_bits(words, p), wide), 2.0**-p), dt)


def random_normal(seed, offset, shape, dtype=None) -> Tile:
    """Standard normal samples (Box-Muller, computed in float64 and rounded once to `dtype`): two
    words per element (u1, u2 with 24 bits each) below float64, four (53 bits each) for float64."""
    what = "tilec.random.normal"
    dt = _random_dtype(_tracer_for(what), dtype, what)
    p = 53 if dt is float64 else 24
    words = _random_words(what, seed, offset, shape, 4 if p > 32 else 2)
    half = len(words) // 2
    a, b = (astype(_uniform_bits(ws, p), float64) for ws in (words[:half], words[half:]))
    u1 = binary("mul", binary("add", a, 1.0), 2.0**-p)  # in (0, 1]: log(u1) is finite
    u2 = binary("mul", b, 2.0**-p)
    r = unary("sqrt", binary("mul", unary("log", u1), -2.0))
    z = binary("mul", r, unary("cos", binary("mul", u2, 2 * math.pi)))
    return astype(z, dt)


def random_bernoulli(p, seed, offset, shape) -> Tile:
    """A bool tile, True with probability `p` (a Python float in [0, 1], a run-time float scalar
    or a float tile broadcastable to `shape`, rounded to float32): uniform(seed, offset, shape,
    float32) < p."""
    what = "tilec.random.bernoulli"
    if isinstance(p, np.floating | np.integer):
        p = p.item()
    if isinstance(p, Tile):
        if not p.dtype.is_float:
            raise user_error(f"{what}: p must be a float or a run-time float scalar, got a {p.dtype.name} tile")
        p = _weak(astype(p, dtypes.float32)) if p.dtype is not dtypes.float32 else p
    elif isinstance(p, bool) or not isinstance(p, int | float):
        raise user_error(f"{what}: p must be a float in [0, 1] or a run-time float argument, got {type(p).__name__}")
    elif not 0.0 <= p <= 1.0:
        raise user_error(f"{what}: p must be in [0, 1], got {p}")
    u = random_uniform(seed, offset, shape, dtypes.float32)
    return compare("lt", u, p)


# --- slicing and joining ------------------------------------------------------------------------


def _slice_op(tr: Tracer, x: Tile, offsets, strides, axes) -> Tile:
    axes = tuple(axes)
    if all(o == 0 and s == 1 for o, s in zip(offsets, strides)) and all(
        tr.axes_equal(a, b) for a, b in zip(axes, x.axes)
    ):
        return x
    return tr.op(axes, x.dtype, lambda: SliceOp(x.value, offsets, strides, tr.tile_type(axes, x.dtype)))


def _reshape_axes(tr: Tracer, x: Tile, axes) -> Tile:
    axes = tuple(axes)
    if len(axes) == x.ndim and all(tr.axes_equal(a, b) for a, b in zip(axes, x.axes)):
        return x
    return tr.op(axes, x.dtype, lambda: ReshapeOp(x.value, tr.tile_type(axes, x.dtype), tr.sizes_for(axes)))


def _dynamic_axis_error(tr: Tracer, x: Tile, k: int, what: str):
    return user_error(
        f"not supported yet: {what} on axis {k} of {tr.describe_shape(x.axes)}, whose size is dynamic: its "
        f"result would have a size computed from the axis size; on a dynamic axis a slice keeps it whole "
        f"(x[:], x[::-1]) or takes a window whose length does not depend on it (x[1:5], x[-3:], x[0]); "
        f"give the size an int in dims"
    )


def getitem(x: Tile, index) -> Tile:
    """numpy basic indexing: ints, slices (negative indices and steps), None and `...`."""
    what = "indexing"
    tr = _own(x, what)
    items = list(index) if isinstance(index, tuple) else [index]
    for it in items:
        if isinstance(it, Tile):
            raise user_error(
                "not supported yet: indexing a tile with a tile (gather); use tilec.take(x, idx, axis) or "
                "tilec.take_along_axis, or basic indexing with ints and slices"
            )
        if not (it is None or it is Ellipsis or isinstance(it, slice | Dim | int | np.integer)) or isinstance(it, bool):
            raise user_error(
                f"{what}: index entries must be ints, slices, None or ..., got {type(it).__name__} ({it!r})"
            )
    if sum(1 for it in items if it is Ellipsis) > 1:
        raise user_error(f"{what}: an index can only have a single ellipsis ('...')")
    used = sum(1 for it in items if it is not None and it is not Ellipsis)
    if used > x.ndim:
        raise user_error(f"{what}: too many indices for a tile of rank {x.ndim}: {used} were given")
    if Ellipsis in items:
        e = next(i for i, it in enumerate(items) if it is Ellipsis)
        items[e : e + 1] = [slice(None)] * (x.ndim - used)
    else:
        items += [slice(None)] * (x.ndim - used)
    offsets, strides, sliced, final = [], [], [], []
    k = 0
    for it in items:
        if it is None:
            final.append(tr.const_axis(1))
            continue
        ax = x.axes[k]
        n = tr.static_size(ax)
        if isinstance(it, slice):
            parts = [None if p is None else _slice_number(p, what) for p in (it.start, it.stop, it.step)]
            if parts[2] == 0:
                raise user_error(f"{what}: slice step cannot be zero (axis {k})")
            if parts[0] is None and parts[1] is None and parts[2] in (None, 1, -1):
                rev = parts[2] == -1
                offsets.append(-1 if rev else 0)
                strides.append(-1 if rev else 1)
                sliced.append(ax)
                final.append(ax)
            elif n is None:
                window = _window_of_unknown_axis(*parts)
                if window is None:
                    if tr.build:
                        raise _dynamic_axis_error(tr, x, k, f"slicing with {_slice_str(it)}")
                    window = (0, 1, None)
                o, st, m = window
                offsets.append(o)
                strides.append(st)
                out = tr.const_axis(m) if m is not None else tr._new_sym()  # (known in the build trace)
                sliced.append(out)
                final.append(out)
            else:
                start, stop, step = slice(*parts).indices(n)
                m = len(range(start, stop, step))
                offsets.append(start if m else 0)
                strides.append(step)
                out = tr.const_axis(m)
                sliced.append(out)
                final.append(out)
        else:
            i = _slice_number(it, what)
            if n is not None and not -n <= i < n:
                raise user_error(f"{what}: index {i} is out of range for axis {k} of size {n}")
            offsets.append(i + n if n is not None and i < 0 else i)
            strides.append(1)
            sliced.append(tr.const_axis(1))
        k += 1
    if not tr.build:
        return Tile(tr, tuple(final), x.dtype, None)
    y = _slice_op(tr, x, offsets, strides, sliced)
    return _reshape_axes(tr, y, final)


def _window_of_unknown_axis(start, stop, step) -> tuple[int, int, int] | None:
    """(offset, stride, size) of a slice whose length does not depend on the axis size (both ends
    counted from the start, or both from the end: `1:5`, `-3:`, `:4`, `5::-1`); None otherwise.
    A negative offset counts from the end, as in tile.slice."""
    step = 1 if step is None else step
    if step > 0:
        first = 0 if start is None else start
        last = stop  # None: the end
        from_end = (first < 0, last is None or last < 0)
        stop_value = 0 if last is None else last
    else:
        first = -1 if start is None else start
        last = stop  # None: before index 0
        from_end = (first < 0, last is not None and last < 0)
        stop_value = -1 if last is None else last
    if from_end[0] != from_end[1]:
        return None
    if from_end[0] and step > 0 and stop_value == 0 and first == 0:
        return None
    return first, step, len(range(first, stop_value, step))


def _slice_number(v, what: str) -> int:
    if isinstance(v, Dim):
        return int(v)
    try:
        return operator.index(v)
    except TypeError:
        raise user_error(f"{what}: slice bounds must be ints, got {type(v).__name__} ({v!r})") from None


def _slice_str(s: slice) -> str:
    parts = ["" if p is None else str(p) for p in (s.start, s.stop, s.step)]
    return ":".join(parts if s.step is not None else parts[:2])


def _axes_arg(axis, ndim: int, what: str) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = tuple(axis) if isinstance(axis, tuple | list) else (axis,)
    out = tuple(_axis(a, ndim, what, "input") for a in axes)
    if len(set(out)) != len(out):
        raise user_error(f"{what}: repeated axis in {list(axes)}")
    return out


def flip(x, axis=None) -> Tile:
    """numpy.flip: reverse the order of elements along `axis` (an int, a tuple, or None = all)."""
    what = "tilec.flip"
    x = _need_tile(x, what)
    tr = _own(x, what)
    axes = _axes_arg(axis, x.ndim, what)
    if not axes:
        return x
    offsets = [-1 if a in axes else 0 for a in range(x.ndim)]
    strides = [-1 if a in axes else 1 for a in range(x.ndim)]
    return tr.op(x.axes, x.dtype, lambda: SliceOp(x.value, offsets, strides, tr.tile_type(x.axes, x.dtype)))


def dynamic_slice(x, start, size: int, axis: int = 0) -> Tile:
    """`size` elements of `x` along `axis` from a run-time `start` (a rank-0 integer tile, e.g. read
    from a 1-element argument, or an int). Like jax.lax.dynamic_slice, `start` is clamped to
    [0, n - size] so the window always lies inside `x` (a dynamic axis shorter than `size` is an
    error at the call)."""
    what = "tilec.dynamic_slice"
    x = _need_tile(x, what)
    tr = _own(x, what)
    a = _axis(axis, x.ndim, what, "input")
    n = tr.static_size(x.axes[a])
    try:
        m = operator.index(size)
    except TypeError:
        raise user_error(f"{what}: size must be an int, got {type(size).__name__}") from None
    if m < 0 or (n is not None and m > n):
        raise user_error(f"{what}: size {m} does not fit in axis {a} of size {tr.describe(x.axes[a])}")
    if isinstance(start, Tile):
        _own(start, what)
        if not start.dtype.is_int:
            raise user_error(f"{what}: start must be an integer tile, got a {start.dtype.name} tile")
        if start.ndim and not all(tr.static_size(ax) == 1 for ax in start.axes):
            raise user_error(f"{what}: start must be one element (a rank-0 tile), got shape {start.shape}")
        if start.ndim:
            start = _reshape_axes(tr, start, ())
    else:
        i = _slice_number(start, what)
        start = _splat(tr, _scalar(i, int64, what), (), int64)
    axes = tuple(tr.const_axis(m) if j == a else ax for j, ax in enumerate(x.axes))
    return tr.op(axes, x.dtype, lambda: DynamicSliceOp(x.value, start.value, a, tr.tile_type(axes, x.dtype)))


def concatenate(tiles, axis=0) -> Tile:
    """numpy.concatenate: tiles of one dtype and rank joined along `axis` (static sizes there)."""
    what = "tilec.concatenate"
    if isinstance(tiles, Tile) or not isinstance(tiles, list | tuple) or not tiles:
        raise user_error(f"{what} takes a non-empty list or tuple of tiles")
    tiles = [_need_tile(t, what) for t in tiles]
    tr = _own(tiles[0], what)
    first = tiles[0]
    a = _axis(axis, first.ndim, what, "input") if first.ndim else None
    if a is None:
        raise user_error(f"{what}: rank-0 tiles cannot be concatenated (use tilec.stack)")
    total: int | None = 0
    for k, t in enumerate(tiles):
        _own(t, what)
        if t.dtype is not first.dtype:
            raise user_error(
                f"{what}: tile {k} is {t.dtype.name} but tile 0 is {first.dtype.name}; convert with .astype(...)"
            )
        if t.ndim != first.ndim:
            raise user_error(f"{what}: tile {k} has rank {t.ndim} but tile 0 has rank {first.ndim}")
        for i in range(t.ndim):
            if i != a:
                tr.same(
                    first.axes[i],
                    t.axes[i],
                    lambda p, q, k=k, i=i: f"{what}: axis {i} of tile {k} has size {q} but tile 0 has {p}",
                )
        n = tr.static_size(t.axes[a])
        if n is None:
            if tr.build:
                raise _dynamic_axis_error(tr, t, a, what)
            total = None
        elif total is not None:
            total += n
    if len(tiles) == 1:
        return first
    joined = tr.const_axis(total) if total is not None else tr._new_sym()
    axes = tuple(joined if i == a else ax for i, ax in enumerate(first.axes))
    return tr.op(axes, first.dtype, lambda: ConcatOp([t.value for t in tiles], a, tr.tile_type(axes, first.dtype)))


def stack(tiles, axis=0) -> Tile:
    """numpy.stack: tiles of one shape joined along a new axis `axis`."""
    what = "tilec.stack"
    if isinstance(tiles, Tile) or not isinstance(tiles, list | tuple) or not tiles:
        raise user_error(f"{what} takes a non-empty list or tuple of tiles")
    tiles = [_need_tile(t, what) for t in tiles]
    tr = _own(tiles[0], what)
    a = _axis(axis, tiles[0].ndim + 1, what, "result")
    for k, t in enumerate(tiles[1:], 1):
        if t.ndim != tiles[0].ndim:
            raise user_error(f"{what}: tile {k} has rank {t.ndim} but tile 0 has rank {tiles[0].ndim}")
    grown = [_reshape_axes(tr, t, t.axes[:a] + (tr.const_axis(1),) + t.axes[a:]) for t in tiles]
    return concatenate(grown, a)


def pad(x, pad_width, value=0, *, mode="constant", constant_values=None) -> Tile:
    """numpy.pad in constant mode: `pad_width` is an int, `(before, after)` or one pair per axis;
    the padding is `value` (numpy's `constant_values` is accepted too)."""
    what = "tilec.pad"
    x = _need_tile(x, what)
    tr = _own(x, what)
    if mode != "constant":
        raise user_error(f"not supported yet: {what} with mode={mode!r} (only mode='constant')")
    if constant_values is not None:
        value = constant_values
    try:
        widths = np.broadcast_to(np.asarray(pad_width, dtype=object), (x.ndim, 2))
        widths = [(operator.index(lo), operator.index(hi)) for lo, hi in widths]
    except (ValueError, TypeError):
        raise user_error(
            f"{what}: pad_width must be an int, a (before, after) pair, or one pair per axis "
            f"({x.ndim} axes), got {pad_width!r}"
        ) from None
    for a, (lo, hi) in enumerate(widths):
        if lo < 0 or hi < 0:
            raise user_error(f"{what}: pad widths must be >= 0, got ({lo}, {hi}) for axis {a}")
    v = _scalar(value, x.dtype, what)
    axes = []
    for a, ((lo, hi), ax) in enumerate(zip(widths, x.axes)):
        n = tr.static_size(ax)
        if lo == hi == 0:
            axes.append(ax)
        elif n is None:
            if tr.build:
                raise _dynamic_axis_error(tr, x, a, what)
            axes.append(tr._new_sym())
        else:
            axes.append(tr.const_axis(n + lo + hi))
    if all(lo == hi == 0 for lo, hi in widths):
        return x
    axes = tuple(axes)
    low, high = [lo for lo, _ in widths], [hi for _, hi in widths]
    return tr.op(axes, x.dtype, lambda: PadOp(x.value, low, high, v, tr.tile_type(axes, x.dtype)))


# --- gather and scatter -------------------------------------------------------------------------


def _indices_arg(tr: Tracer, idx, what: str) -> Tile:
    """An index argument: an integer tile (signed or unsigned) of this trace, or a Python int."""
    if isinstance(idx, bool) or not isinstance(idx, Tile | int | np.integer):
        raise user_error(f"{what}: indices must be an integer tile, got {type(idx).__name__}")
    if not isinstance(idx, Tile):
        return _splat(tr, _scalar(int(idx), int64, what), (), int64)
    _own(idx, what)
    if not idx.dtype.is_int or idx.dtype.is_bool:
        raise user_error(
            f"{what}: indices must be an integer tile (int32, int64, uint8, ...), got a {idx.dtype.name} tile "
            f"(convert it with .astype(tilec.int64) if its values are whole numbers)"
        )
    return idx


def _flat(tr: Tracer, x: Tile, what: str) -> Tile:
    """x as one axis (numpy's axis=None)."""
    if x.ndim == 1:
        return x
    return reshape(x, (-1,))


def take(x, indices, axis=None) -> Tile:
    """numpy.take: x[..., indices, ...] along `axis` (None: of the flattened x). The result has the
    shape x.shape[:axis] + indices.shape + x.shape[axis+1:]; negative indices in [-n, n) count
    from the end; others are out of range (`tilec.IndexOutOfRange`, compiled code never reads
    out of bounds)."""
    what = "tilec.take"
    x = _need_tile(x, what)
    tr = _own(x, what)
    idx = _indices_arg(tr, indices, what)
    if axis is None:
        x, a = _flat(tr, x, what), 0
    else:
        a = _axis(axis, x.ndim, what, "input")
    axes = (*x.axes[:a], *idx.axes, *x.axes[a + 1 :])
    return tr.op(axes, x.dtype, lambda: TakeOp(x.value, idx.value, a, tr.tile_type(axes, x.dtype)))


def take_along_axis(x, indices, axis) -> Tile:
    """numpy.take_along_axis: result[i] = x[i with i[axis] replaced by indices[i]]; x and indices
    have one rank and broadcast against each other on the other axes (axis None: x flattened,
    indices 1-D). Negative indices count from the end, as in numpy."""
    what = "tilec.take_along_axis"
    x = _need_tile(x, what)
    tr = _own(x, what)
    idx = _indices_arg(tr, indices, what)
    if axis is None:
        x, a = _flat(tr, x, what), 0
    else:
        a = _axis(axis, x.ndim, what, "input")
    if idx.ndim != x.ndim:
        raise user_error(
            f"{what}: indices must have the rank of x ({x.ndim}), got shape {tr.describe_shape(idx.axes)} "
            f"(add axes with indices[:, None])"
        )
    others = tr.broadcast_shapes([x.axes[:a] + x.axes[a + 1 :], idx.axes[:a] + idx.axes[a + 1 :]], what)
    xb = tr.broadcast_tile(x, (*others[:a], x.axes[a], *others[a:]))
    axes = (*others[:a], idx.axes[a], *others[a:])
    ib = tr.broadcast_tile(idx, axes)
    return tr.op(axes, x.dtype, lambda: TakeAlongAxisOp(xb.value, ib.value, a, tr.tile_type(axes, x.dtype)))


def _scatter(tr: Tracer, x: Tile, a: int, idx: Tile, src: Tile, what: str) -> Tile:
    if src.dtype != x.dtype:
        raise user_error(f"{what}: src has dtype {src.dtype.name} but x has {x.dtype.name} (use .astype)")
    if x.dtype.is_bool:
        raise user_error(f"{what}: cannot accumulate into a bool tile")
    return tr.op(x.axes, x.dtype, lambda: ScatterAddOp(x.value, idx.value, src.value, a, tr.tile_type(x.axes, x.dtype)))


def scatter_add(x, axis, index, src) -> Tile:
    """torch.scatter_add(x, axis, index, src) as a new value: x plus, for every element i of
    `index`, src[i] added at i with i[axis] replaced by index[i] (duplicates accumulate, in
    order). index has x's rank and x's sizes on the other axes; src may be larger than index
    (only its leading part is used, as in torch). Indices must lie in [0, n): negative ones
    are out of range, as in torch."""
    what = "tilec.scatter_add"
    x = _need_tile(x, what)
    tr = _own(x, what)
    a = _axis(axis, x.ndim, what, "input")
    idx = _indices_arg(tr, index, what)
    src = _need_tile(src, what)
    _own(src, what)
    if not (idx.ndim == src.ndim == x.ndim):
        raise user_error(
            f"{what}: x, index and src must have one rank, got {tr.describe_shape(x.axes)}, "
            f"{tr.describe_shape(idx.axes)} and {tr.describe_shape(src.axes)}"
        )
    offsets, strides, cut = [0] * x.ndim, [1] * x.ndim, False
    for d in range(x.ndim):
        ni, ns = tr.static_size(idx.axes[d]), tr.static_size(src.axes[d])
        if not tr.axes_equal(idx.axes[d], src.axes[d]) and ni is not None and ns is not None and ni < ns:
            cut = True  # torch reads src[:index.shape[d]]
        else:
            tr.same(idx.axes[d], src.axes[d], lambda p, q, d=d: f"{what}: index axis {d} has size {p} but src has {q}")
        if d != a:
            nx = tr.static_size(x.axes[d])
            if ni is not None and nx is not None and ni < nx:
                raise user_error(
                    f"not supported yet: {what} with an index smaller than x on axis {d} ({ni} < {nx}); "
                    f"pad the index or slice x"
                )
            tr.same(idx.axes[d], x.axes[d], lambda p, q, d=d: f"{what}: index axis {d} has size {p} but x has {q}")
    if cut:
        src = _slice_op(tr, src, offsets, strides, idx.axes)
    return _scatter(tr, x, a, idx, src, what)


def index_add(x, axis, index, src, alpha=1) -> Tile:
    """torch.index_add(x, axis, index, src, alpha=alpha) as a new value: x plus alpha * src[..., j, ...]
    added at x[..., index[j], ...] for each j (duplicates accumulate, in order). index is 1-D;
    src has x's shape with axis `axis` of index's length. Indices must lie in [0, n)."""
    what = "tilec.index_add"
    x = _need_tile(x, what)
    tr = _own(x, what)
    a = _axis(axis, x.ndim, what, "input")
    idx = _indices_arg(tr, index, what)
    src = _need_tile(src, what)
    _own(src, what)
    if idx.ndim != 1 or src.ndim != x.ndim:
        raise user_error(
            f"{what}: index must be 1-D and src of x's rank, got index {tr.describe_shape(idx.axes)}, "
            f"x {tr.describe_shape(x.axes)}, src {tr.describe_shape(src.axes)}"
        )
    tr.same(src.axes[a], idx.axes[0], lambda p, q: f"{what}: src axis {a} has size {p} but index has {q} elements")
    for d in range(x.ndim):
        if d != a:
            tr.same(src.axes[d], x.axes[d], lambda p, q, d=d: f"{what}: src axis {d} has size {p} but x has {q}")
    if not (isinstance(alpha, int | float | np.number) and not isinstance(alpha, bool)):
        raise user_error(f"{what}: alpha must be a number, got {type(alpha).__name__}")
    if alpha != 1:
        src = src * alpha
    one = tr.const_axis(1)
    column = _reshape_axes(tr, idx, tuple(idx.axes[0] if d == a else one for d in range(x.ndim)))
    return _scatter(tr, x, a, tr.broadcast_tile(column, src.axes), src, what)


def one_hot(indices, num_classes, dtype=None) -> Tile:
    """torch.nn.functional.one_hot: indices.shape + (num_classes,), 1 where the last index equals
    the index, else 0 (default dtype int64, torch's). Built as `iota(...) == indices[..., None]`,
    so it fuses into its consumer and costs no memory; an index outside [0, num_classes) gives
    a row of zeros (jax.nn.one_hot's rule; torch raises)."""
    what = "tilec.one_hot"
    idx = _need_tile(indices, what)
    tr = _own(idx, what)
    idx = _indices_arg(tr, idx, what)
    dt = int64 if dtype is None else as_dtype(dtype)
    axes = (*idx.axes, *_size_entries(tr, (num_classes,), what, allow_minus_one=False))
    # compared as int64 (an index dtype like uint8 could not count 300 classes)
    classes = tr.op(axes, int64, lambda: IotaOp(len(axes) - 1, tr.tile_type(axes, int64), tr.sizes_for(axes)))
    wide = idx if idx.dtype == int64 else astype(idx, int64)
    column = _reshape_axes(tr, wide, (*idx.axes, tr.const_axis(1)))
    return astype(compare("eq", classes, column), dt)


# --- numpy interop ------------------------------------------------------------------------------

_UFUNC_OPERATORS = {
    np.add: operator.add,
    np.subtract: operator.sub,
    np.multiply: operator.mul,
    np.true_divide: operator.truediv,
    np.power: operator.pow,
    np.less: operator.lt,
    np.less_equal: operator.le,
    np.greater: operator.gt,
    np.greater_equal: operator.ge,
    np.equal: operator.eq,
    np.not_equal: operator.ne,
    np.negative: operator.neg,
}

_SUGGEST = {
    "exp": "tilec.exp",
    "log": "tilec.log",
    "sqrt": "tilec.sqrt",
    "tanh": "tilec.tanh",
    "absolute": "tilec.abs",
    "fabs": "tilec.abs",
    "maximum": "tilec.maximum",
    "minimum": "tilec.minimum",
    "fmax": "tilec.maximum",
    "fmin": "tilec.minimum",
    "sum": "tilec.sum",
    "max": "tilec.max",
    "amax": "tilec.max",
    "min": "tilec.min",
    "amin": "tilec.min",
    "mean": "tilec.mean",
    "transpose": "tilec.transpose",
    "reshape": "tilec.reshape",
    "broadcast_to": "tilec.broadcast_to",
    "where": "tilec.where",
    "tensordot": "tilec.tile_contract",
    "matmul": "tilec.tile_contract",
    "dot": "tilec.tile_contract",
    "einsum": "tilec.tile_contract",
}


def _suggestion(name: str) -> str:
    s = _SUGGEST.get(name)
    return f"use {s} instead" if s else "use the tilec functions (tilec.exp, tilec.sum, tilec.where, ...) instead"


def numpy_ufunc(ufunc, method, inputs, kwargs):
    """Operators with numpy scalars (`np.float32(2) * x`) work; other numpy calls raise."""
    if method == "__call__" and not kwargs and ufunc in _UFUNC_OPERATORS:
        if not any(isinstance(i, np.ndarray) for i in inputs):
            args = [i.item() if isinstance(i, np.generic) else i for i in inputs]
            return _UFUNC_OPERATORS[ufunc](*args)
        raise user_error(
            "numpy arrays cannot be mixed with tiles inside a tile program; pass the array as an argument of the op"
        )
    raise user_error(
        f"numpy.{ufunc.__name__} cannot be applied to a tile (a tile has no numpy value while tracing); "
        f"{_suggestion(ufunc.__name__)}"
    )


def numpy_function(func):
    name = getattr(func, "__name__", str(func))
    raise user_error(
        f"numpy.{name} cannot be applied to a tile (a tile has no numpy value while tracing); {_suggestion(name)}"
    )


# --- pooling (issue 11): max/avg/adaptive pools and their backward --------------------------------


def _pool_rank(x: Tile, kernel, what: str, ndim=None) -> int:
    """The number of pooled (trailing) axes: `ndim`, or len(kernel) for a tuple, else x.ndim - 2
    (torch's batched layout (N, C, *S)); x is (N, C, *S) or (C, *S)."""
    if ndim is not None:
        d = operator.index(ndim)
    elif isinstance(kernel, tuple | list):
        d = len(kernel)
    else:
        d = x.ndim - 2
    if not 1 <= d <= 3 or x.ndim not in (d + 1, d + 2):
        raise user_error(
            f"{what}: pools 1 to 3 spatial axes of a (N, C, *spatial) or (C, *spatial) tile; "
            f"got a {x.ndim}-d tile and {d} spatial axes (an int kernel pools x.ndim - 2 axes: "
            f"give a tuple kernel for an unbatched tile)"
        )
    return d


def _per_axis(value, d: int, what: str, name: str, minimum: int) -> list[int]:
    items = list(value) if isinstance(value, tuple | list) else [value] * d
    if len(items) == 1:
        items = items * d
    try:
        items = [operator.index(v) for v in items]
    except TypeError:
        raise user_error(f"{what}: {name} must be an int or a tuple of {d} ints, got {value!r}") from None
    if len(items) != d:
        raise user_error(f"{what}: {name} must be an int or a tuple of {d} ints, got {value!r}")
    if any(v < minimum for v in items):
        raise user_error(f"{what}: {name} must be >= {minimum}, got {value!r}")
    return items


def _spatial_sizes(tr: Tracer, axes, what: str) -> list[int]:
    sizes = [Dim(tr, ax).static() for ax in axes]  # (while matching dims: the provisional sizes)
    if None in sizes:
        raise user_error(f"not supported yet: {what} over a dynamic spatial axis (the pooled axes need static sizes)")
    return sizes  # type: ignore[return-value]


def _pool_input(x, what: str) -> tuple[Tile, Tracer]:
    x = _need_tile(x, what)
    tr = _own(x, what)
    if not x.dtype.is_float or fp8_format(x.dtype.ir) is not None:
        raise user_error(f"{what}: pools float16, bfloat16, float32 or float64 tiles, got {x.dtype.name}")
    return x, tr


def _window_args(what, d, kernel, stride, padding, dilation, sizes):
    k = _per_axis(kernel, d, what, "kernel", 1)
    s = k if stride is None else _per_axis(stride, d, what, "stride", 1)
    p = _per_axis(padding, d, what, "padding", 0)
    dl = _per_axis(dilation, d, what, "dilation", 1)
    for a in range(d):
        if 2 * p[a] > k[a]:
            raise user_error(
                f"{what}: padding should be at most half of the kernel, got padding {p[a]} for kernel {k[a]} "
                f"(spatial axis {a})"
            )
    return k, s, p, dl


def _pooled_sizes(what, sizes, window, ceil_mode) -> list[int]:
    out = [pool_output_size(n, *w, ceil_mode) for n, w in zip(sizes, window)]
    if any(m < 1 for m in out):
        raise user_error(
            f"{what}: the input's spatial size {tuple(sizes)} is too small for kernel "
            f"{tuple(w[0] for w in window)} with dilation {tuple(w[3] for w in window)} and padding "
            f"{tuple(w[2] for w in window)}: the output size would be {tuple(out)}"
        )
    return out


def _emit_pool(tr: Tracer, x: Tile, d: int, out_spatial, kind: str, want_indices: bool = False, **props):
    axes = (*x.axes[: x.ndim - d], *(tr.const_axis(m) for m in out_spatial))
    if not tr.build:
        y = Tile(tr, axes, x.dtype, None)
        return (y, Tile(tr, axes, int64, None)) if want_indices else y
    rank = None if kind in PoolOp.WINDOWED else d
    op = tr.emit(
        lambda: PoolOp(kind, x.value, tr.tile_type(axes, x.dtype), rank=rank, with_indices=want_indices, **props)
    )
    y = Tile(tr, axes, x.dtype, op.results[0])
    return (y, Tile(tr, axes, int64, op.results[1])) if want_indices else y


def max_pool(x, kernel, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """torch.nn.functional.max_pool{1,2,3}d on (N, C, *S) or (C, *S) (a tuple kernel for the
    latter): the first maximum of each window (or its last NaN, as torch); with return_indices,
    also its int64 index, flat within each (N, C) plane of the input (torch's encoding)."""
    what = "tilec.max_pool"
    x, tr = _pool_input(x, what)
    d = _pool_rank(x, kernel, what)
    sizes = _spatial_sizes(tr, x.axes[x.ndim - d :], what)
    k, s, p, dl = _window_args(what, d, kernel, stride, padding, dilation, sizes)
    out = _pooled_sizes(what, sizes, list(zip(k, s, p, dl)), ceil_mode)
    w = {"kernel": k, "stride": s, "padding": p, "dilation": dl}
    return _emit_pool(tr, x, d, out, "max", return_indices, **w)


def avg_pool(x, kernel, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    """torch.nn.functional.avg_pool{1,2,3}d: each window's sum divided by `divisor_override`, or
    by its number of taps (with count_include_pad, the padding counts up to its end; without,
    only taps inside the input). Sums accumulate in float32 (float64 for float64)."""
    what = "tilec.avg_pool"
    x, tr = _pool_input(x, what)
    d = _pool_rank(x, kernel, what)
    sizes = _spatial_sizes(tr, x.axes[x.ndim - d :], what)
    k, s, p, dl = _window_args(what, d, kernel, stride, padding, 1, sizes)
    out = _pooled_sizes(what, sizes, list(zip(k, s, p, dl)), ceil_mode)
    div = _divisor(divisor_override, what)
    w = {"kernel": k, "stride": s, "padding": p, "dilation": dl}
    return _emit_pool(tr, x, d, out, "avg", divisor=div, exclude_pad=not count_include_pad, **w)


def _divisor(divisor_override, what: str) -> int | None:
    if divisor_override is None:
        return None
    if isinstance(divisor_override, bool) or not isinstance(divisor_override, int | np.integer):
        raise user_error(f"{what}: divisor_override must be an int, got {divisor_override!r}")
    if divisor_override == 0:
        raise user_error(f"{what}: divisor_override must not be zero")
    return int(divisor_override)


def _adaptive(kind: str, x, output_size, return_indices: bool = False):
    what = f"tilec.{kind}_pool"
    x, tr = _pool_input(x, what)
    d = _pool_rank(x, output_size, what)
    sizes = _spatial_sizes(tr, x.axes[x.ndim - d :], what)
    items = list(output_size) if isinstance(output_size, tuple | list) else [output_size] * d
    out = [n if o is None else o for o, n in zip(items, sizes)]  # None keeps the input's size, as torch
    out = _per_axis(out, d, what, "output_size", 1)
    return _emit_pool(tr, x, d, out, kind, return_indices)


def adaptive_avg_pool(x, output_size):
    """torch.nn.functional.adaptive_avg_pool{1,2,3}d: output i of an axis of n averages
    [floor(i n / m), ceil((i + 1) n / m)). `output_size` is an int or a tuple (None keeps a size)."""
    return _adaptive("adaptive_avg", x, output_size)


def adaptive_max_pool(x, output_size, return_indices=False):
    """torch.nn.functional.adaptive_max_pool{1,2,3}d (bins as adaptive_avg_pool, max as max_pool)."""
    return _adaptive("adaptive_max", x, output_size, return_indices)


def _input_spatial(tr: Tracer, input_shape, dy: Tile, d: int, what: str) -> list[int]:
    shape = list(input_shape) if isinstance(input_shape, tuple | list) else None
    if shape is None or len(shape) != dy.ndim:
        raise user_error(f"{what}: input_shape must be the pooled input's shape ({dy.ndim} sizes), got {input_shape!r}")
    out = []
    for v in shape[-d:]:
        n = v.static() if isinstance(v, Dim) else v
        if isinstance(n, bool) or not isinstance(n, int | np.integer):
            raise user_error(f"{what}: the spatial sizes of input_shape must be static ints, got {input_shape!r}")
        out.append(int(n))
    return out


def max_pool_backward(
    dy, indices, input_shape, kernel=None, stride=None, padding=0, dilation=1, ceil_mode=False, ndim=None
):
    """The gradient of max_pool with respect to its input: each input element sums the dy of
    the windows whose index (max_pool's return_indices) names it, zeros elsewhere. `input_shape`
    is the input's shape. With max_pool's window arguments (`kernel`, ...) this is one window
    walk over dy (no scatter, deterministic everywhere); without them, a `scatter_add` of dy at
    the indices over the flattened planes (`ndim`: the spatial axes, default len(input_shape) - 2)."""
    what = "tilec.max_pool_backward"
    dy, tr = _pool_input(dy, what)
    idx = _indices_arg(tr, indices, what)
    d = _pool_rank(dy, kernel, what, ndim if ndim is not None or kernel is not None else dy.ndim - 2)
    spatial = _input_spatial(tr, input_shape, dy, d, what)
    if idx.ndim != dy.ndim:
        raise user_error(f"{what}: indices must have dy's shape, got {tr.describe_shape(idx.axes)}")
    for a in range(dy.ndim):
        tr.same(idx.axes[a], dy.axes[a], lambda p, q, a=a: f"{what}: indices axis {a} has size {p} but dy has {q}")
    got = _spatial_sizes(tr, dy.axes[dy.ndim - d :], what)
    if kernel is not None:
        k, s, p, dl = _window_args(what, d, kernel, stride, padding, dilation, spatial)
        out = _pooled_sizes(what, spatial, list(zip(k, s, p, dl)), ceil_mode)
        if got != out:
            raise user_error(
                f"{what}: dy's spatial sizes {tuple(got)} are not max_pool's output {tuple(out)} for this input"
            )
        if idx.dtype != int64:
            idx = astype(idx, int64)
        axes = (*dy.axes[: dy.ndim - d], *(tr.const_axis(n) for n in spatial))
        w = {"kernel": k, "stride": s, "padding": p, "dilation": dl}
        return tr.op(
            axes,
            dy.dtype,
            lambda: PoolOp("max_grad", dy.value, tr.tile_type(axes, dy.dtype), argmax=idx.value, **w),
        )
    lead = dy.shape[: dy.ndim - d]
    g = reshape(dy, (-1, math.prod(got)))
    i = reshape(idx, (-1, math.prod(got)))
    dx = scatter_add(zeros((g.shape[0], math.prod(spatial)), dy.dtype), 1, i, g)
    return reshape(dx, (*lead, *spatial))


def avg_pool_backward(
    dy, input_shape, kernel, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
):
    """The gradient of avg_pool (same arguments) with respect to its input: each input element
    sums dy / divisor over the windows that hold it (one window sum, no scatter)."""
    what = "tilec.avg_pool_backward"
    dy, tr = _pool_input(dy, what)
    d = _pool_rank(dy, kernel, what)
    spatial = _input_spatial(tr, input_shape, dy, d, what)
    k, s, p, dl = _window_args(what, d, kernel, stride, padding, 1, spatial)
    out = _pooled_sizes(what, spatial, list(zip(k, s, p, dl)), ceil_mode)
    got = _spatial_sizes(tr, dy.axes[dy.ndim - d :], what)
    if got != out:
        raise user_error(
            f"{what}: dy's spatial sizes {tuple(got)} are not avg_pool's output {tuple(out)} for this input"
        )
    div = _divisor(divisor_override, what)
    w = {"kernel": k, "stride": s, "padding": p, "dilation": dl}
    return _emit_pool(tr, dy, d, spatial, "avg_grad", divisor=div, exclude_pad=not count_include_pad, **w)


# --- scans and arg-reductions (issue 11) -----------------------------------------------------------


def _scan(kind: str, what: str, x, axis, reverse: bool, exclusive: bool) -> Tile:
    x = _need_tile(x, what)
    tr = _own(x, what)
    if x.ndim == 0:
        raise user_error(f"{what} needs a tile of rank >= 1, got a rank-0 tile")
    a = _axis(axis, x.ndim, what, "input")
    if x.dtype.is_bool:
        raise user_error(f"{what} cannot scan a bool (mask) tile; convert it with .astype(...) first")
    if x.dtype.name.startswith("float8"):
        raise user_error(f"{what} cannot scan {x.dtype.name} tiles; convert them with .astype(tilec.float32) first")
    if kind == "logaddexp" and not x.dtype.is_float:
        raise user_error(f"{what} needs a float tile, got {x.dtype.name}; convert with .astype(...) first")
    return tr.op(x.axes, x.dtype, lambda: ScanOp(kind, x.value, a, bool(reverse), bool(exclusive)))


def cumsum(x, axis, reverse=False, exclusive=False) -> Tile:
    """numpy.cumsum(x, axis, dtype=x.dtype): running sums along `axis` (16-bit floats accumulate in
    float32, integers wrap in their type). `reverse`: from the end of the axis; `exclusive`: each
    element left out of its own sum (the first is 0)."""
    return _scan("add", "tilec.cumsum", x, axis, reverse, exclusive)


def cumprod(x, axis, reverse=False, exclusive=False) -> Tile:
    """numpy.cumprod(x, axis, dtype=x.dtype): running products along `axis` (flags as cumsum's;
    an exclusive product starts at 1)."""
    return _scan("mul", "tilec.cumprod", x, axis, reverse, exclusive)


def logcumsumexp(x, axis, reverse=False) -> Tile:
    """torch.logcumsumexp(x, axis): log(cumsum(exp(x))) computed without overflow (each step is a
    log-add-exp: max + log1p(exp(min - max))); float tiles."""
    return _scan("logaddexp", "tilec.logcumsumexp", x, axis, reverse, False)


def _arg_reduce(kind: str, x, axis, keepdims: bool) -> Tile:
    what = f"tilec.{kind}"
    x = _need_tile(x, what)
    tr = _own(x, what)
    if x.dtype.is_bool:
        raise user_error(f"{what} cannot reduce a bool (mask) tile; convert it with .astype(...) first")
    if x.dtype.name.startswith("float8"):
        raise user_error(f"{what} of {x.dtype.name} tiles: convert them with .astype(tilec.float32) first")
    if x.ndim == 0:
        raise user_error(f"{what} needs a tile of rank >= 1, got a rank-0 tile")
    # axis=None: the index into the flattened x, row-major over every axis (no reshape needed)
    axes = list(range(x.ndim)) if axis is None else [_axis(axis, x.ndim, what, "input")]
    for a in axes:
        if x.axes[a] == 0:
            raise user_error(f"{what}: axis {a} is empty, so it has no {kind[3:]}imum")
    rest = tuple(ax for i, ax in enumerate(x.axes) if i not in axes)
    r = tr.op(rest, int64, lambda: ReduceOp(kind, x.value, axes, tr.tile_type(rest, int64)))
    if keepdims:
        kept = tuple(tr.const_axis(1) if i in axes else ax for i, ax in enumerate(x.axes))
        r = tr.op(kept, r.dtype, lambda: ReshapeOp(r.value, tr.tile_type(kept, r.dtype), tr.sizes_for(kept)))
    return r


def argmax(x, axis=None, keepdims=False) -> Tile:
    """numpy.argmax: the int64 index of the first maximum along `axis` (None: of the flattened x);
    a NaN counts as the maximum (the first NaN wins)."""
    return _arg_reduce("argmax", x, axis, keepdims)


def argmin(x, axis=None, keepdims=False) -> Tile:
    """numpy.argmin: the int64 index of the first minimum along `axis` (None: of the flattened x);
    a NaN counts as the minimum (the first NaN wins)."""
    return _arg_reduce("argmin", x, axis, keepdims)


# --- order: sort, argsort, top-k (issue 11, item 5) ------------------------------------------------


def _order_input(x, axis, what: str) -> tuple[Tracer, Tile, int]:
    x = _need_tile(x, what)
    tr = _own(x, what)
    if x.ndim == 0:
        raise user_error(f"{what}: x must have at least one axis, got a rank-0 tile")
    if x.dtype.is_bool:
        raise user_error(f"{what}: cannot order a bool tile (cast it with .astype(tilec.int32))")
    if fp8_format(x.dtype.ir) is not None:
        raise user_error(f"{what}: cannot order {x.dtype.name} tiles yet (cast them to float16 or float32 first)")
    return tr, x, _axis(axis, x.ndim, what, "input")


def _order_results(tr: Tracer, axes, dtype: DType, make) -> tuple[Tile, Tile]:
    """The (values, i64 indices) pair of a tile.sort / tile.topk."""
    axes = tuple(axes)
    if not tr.build:
        return Tile(tr, axes, dtype, None), Tile(tr, axes, int64, None)
    op = tr.emit(make)
    return Tile(tr, axes, dtype, op.results[0]), Tile(tr, axes, int64, op.results[1])


def _sort_pair(x, axis, descending, stable, what: str) -> tuple[Tile, Tile]:
    tr, x, a = _order_input(x, axis, what)
    return _order_results(tr, x.axes, x.dtype, lambda: SortOp(x.value, a, bool(descending), bool(stable)))


def sort(x, axis=-1, descending=False, stable=True) -> Tile:
    """The values of x sorted along `axis` (numpy.sort; torch.sort's values). torch's total
    order: NaN is the largest value (last ascending, first descending), -0.0 equals 0.0; equal
    values keep their input order (stable), descending too."""
    return _sort_pair(x, axis, descending, stable, "tilec.sort")[0]


def argsort(x, axis=-1, descending=False, stable=True) -> Tile:
    """The int64 indices that sort x along `axis` (numpy.argsort with kind="stable"; torch.sort's
    indices): the same order as `sort`."""
    return _sort_pair(x, axis, descending, stable, "tilec.argsort")[1]


def topk(x, k, axis=-1, largest=True, sorted=True) -> tuple[Tile, Tile]:
    """torch.topk: (values, int64 indices) of the k largest (largest=False: smallest) elements
    along `axis`, largest first (smallest first). NaN counts as the largest value; among equal
    values the lower index comes first. k must be an int in [1, n]."""
    what = "tilec.topk"
    tr, x, a = _order_input(x, axis, what)
    if isinstance(k, builtins.bool) or not isinstance(k, int | np.integer):
        raise user_error(f"{what}: k must be an int, got {k!r}")
    k = int(k)
    n = tr.static_size(x.axes[a])
    if k < 1:
        raise user_error(f"{what}: k must be at least 1, got {k}")
    if n is not None and k > n:
        raise user_error(f"{what}: k = {k} is larger than the size {n} of axis {a}")
    axes = (*x.axes[:a], tr.const_axis(k), *x.axes[a + 1 :])
    return _order_results(tr, axes, x.dtype, lambda: TopkOp(x.value, k, a, bool(largest), bool(sorted)))


# --- convolution (issue 11: tilec.conv and its transposed / backward forms) ---------------------

_CONV_LAYOUTS = ("channels_first", "channels_last")


def _conv_ints(v, d: int, what: str, name: str, low: int) -> list[int]:
    """An int or a sequence of d ints, each >= low."""
    items = [v] * d if isinstance(v, int | np.integer) and not isinstance(v, bool) else v
    try:
        items = list(items)
    except TypeError:
        raise user_error(f"{what}: {name} must be an int or a tuple of {d} ints, got {v!r}") from None
    if len(items) != d or not all(isinstance(i, int | np.integer) and not isinstance(i, bool) for i in items):
        raise user_error(f"{what}: {name} must be an int or a tuple of {d} ints (one per spatial axis), got {v!r}")
    if any(i < low for i in items):
        raise user_error(f"{what}: {name} entries must be >= {low}, got {v!r}")
    return [int(i) for i in items]


def _conv_padding(padding, d: int, ks, stride, dilation, what: str) -> list[tuple[int, int]]:
    """int | d ints | d (lo, hi) pairs | "same" | "valid" -> (lo, hi) per spatial axis."""
    if isinstance(padding, str):
        if padding == "valid":
            return [(0, 0)] * d
        if padding == "same":
            if any(s != 1 for s in stride):
                raise user_error(f"{what}: padding='same' needs stride 1 (as torch), got stride {tuple(stride)}")
            out = []
            for k, dl in zip(ks, dilation):
                total = dl * (k - 1)
                out.append((total // 2, total - total // 2))
            return out
        raise user_error(f"{what}: padding must be an int, a tuple, 'same' or 'valid', got {padding!r}")
    if isinstance(padding, int | np.integer) and not isinstance(padding, bool):
        if padding < 0:
            raise user_error(f"{what}: padding must be >= 0, got {padding}")
        return [(int(padding), int(padding))] * d
    try:
        items = list(padding)
    except TypeError:
        raise user_error(f"{what}: padding must be an int, a tuple, 'same' or 'valid', got {padding!r}") from None
    if len(items) != d:
        raise user_error(f"{what}: padding needs one entry per spatial axis ({d}), got {padding!r}")
    out = []
    for p in items:
        if isinstance(p, int | np.integer) and not isinstance(p, bool):
            pair = (p, p)
        else:
            try:
                pair = tuple(p)
            except TypeError:
                pair = ()
        if len(pair) != 2 or not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in pair):
            raise user_error(f"{what}: padding entries must be ints or (lo, hi) pairs of ints, got {padding!r}")
        if min(pair) < 0:
            raise user_error(f"{what}: padding must be >= 0, got {padding!r}")
        out.append((int(pair[0]), int(pair[1])))
    return out


def _conv_static(tr: Tracer, t: Tile, what: str, name: str) -> list[int]:
    if tr.build and not all(isinstance(a, int) for a in t.axes):
        raise user_error(
            f"{what}: not supported yet: convolutions over dynamic sizes ({name} shape {tr.describe_shape(t.axes)})"
        )
    return [tr.axis_int(a) for a in t.axes]


def _conv_operands(x, w, layout, what: str):
    """(tracer, x, w, d, channels_last) after the checks every convolution makes."""
    x, w = _need_tile(x, what), _need_tile(w, what)
    tr = _own(x, what)
    _own(w, what)
    if layout not in _CONV_LAYOUTS:
        raise user_error(f"{what}: layout must be 'channels_first' or 'channels_last', got {layout!r}")
    if x.dtype is not w.dtype:
        raise user_error(
            f"{what}: input holds {x.dtype.name} but weight holds {w.dtype.name}; convert one with .astype(...)"
        )
    if x.dtype.is_bool or x.dtype.is_unsigned:
        raise user_error(f"{what}: not supported yet: convolutions of {x.dtype.name} tiles")
    d = x.ndim - 2
    if not 1 <= d <= 3:
        raise user_error(f"{what}: the input must have rank 3 to 5 (N, C and 1 to 3 spatial axes), got rank {x.ndim}")
    if w.ndim != x.ndim:
        raise user_error(f"{what}: the weight must have the input's rank ({x.ndim}), got rank {w.ndim}")
    return tr, x, w, d, layout == "channels_last"


def _conv_op(tr: Tracer, x: Tile, w: Tile, stride, pads, dilation, lhs_dilation, groups: int, layout: str, what: str):
    """The tile.conv of already normalized arguments."""
    xs, ws = _conv_static(tr, x, what, "input"), _conv_static(tr, w, what, "weight")
    try:
        shape = conv_result_shape(xs, ws, stride, pads, dilation, lhs_dilation, groups, layout)
    except ValueError as e:
        raise user_error(f"{what}: {e} (input shape {tuple(xs)}, weight shape {tuple(ws)})") from None
    last = layout == "channels_last"
    n_ax, o_ax = x.axes[0], w.axes[0]
    spatial = [tr.const_axis(s) for s in (shape[1:-1] if last else shape[2:])]
    res = (n_ax, *spatial, o_ax) if last else (n_ax, o_ax, *spatial)
    acc = tr.acc
    if acc is None or acc.kind != x.dtype.kind or acc.bits < x.dtype.bits:
        acc = default_acc(x.dtype)
    return tr.op(
        res,
        x.dtype,
        lambda: ConvOp(
            x.value, w.value, stride, pads, dilation, lhs_dilation, groups, layout, acc.ir, tr.tile_type(res, x.dtype)
        ),
    )


def _kernel_sizes(tr: Tracer, w: Tile, d: int, last: bool, what: str) -> list[int]:
    ws = _conv_static(tr, w, what, "weight")
    return ws[1 : d + 1] if last else ws[2:]


def _groups(groups, what: str) -> int:
    if not isinstance(groups, int | np.integer) or isinstance(groups, bool) or groups < 1:
        raise user_error(f"{what}: groups must be an int >= 1, got {groups!r}")
    return int(groups)


def conv(x, w, stride=1, padding=0, dilation=1, groups=1, layout="channels_first") -> Tile:
    """N-d convolution (cross-correlation, as torch.nn.functional.conv1d/2d/3d) of x by w.

    channels_first: x (N, C, *S), w (O, C/groups, *K) -> (N, O, *OS); channels_last: x (N, *S, C),
    w (O, *K, C/groups) -> (N, *OS, O). `padding`: an int, one int or (lo, hi) pair per spatial axis,
    'valid' (none) or 'same' (stride 1; the extra element goes to the high side, as torch).
    Products accumulate like tile_contract's (f32 for f16/bf16)."""
    what = "tilec.conv"
    tr, x, w, d, last = _conv_operands(x, w, layout, what)
    stride = _conv_ints(stride, d, what, "stride", 1)
    dilation = _conv_ints(dilation, d, what, "dilation", 1)
    pads = _conv_padding(padding, d, _kernel_sizes(tr, w, d, last, what), stride, dilation, what)
    return _conv_op(tr, x, w, stride, pads, dilation, [1] * d, _groups(groups, what), layout, what)


def _transposed_weight(tr: Tracer, w: Tile, d: int, last: bool, groups: int, what: str) -> Tile:
    """A transposed convolution's weight (C_in, C_out/G, *K) (channels_last: (C_in, *K, C_out/G)) as
    the weight of the equivalent tile.conv, (C_out, C_in/G, *K) (channels_last: (C_out, *K, C_in/G)):
    per group the two channel axes swap, and the kernel is flipped."""
    ws = _conv_static(tr, w, what, "weight")
    cin, ks = ws[0], (ws[1 : d + 1] if last else ws[2:])
    og = ws[-1] if last else ws[1]
    if cin % groups:
        raise user_error(f"{what}: the weight's {cin} input channels are not divisible by groups ({groups})")
    cg = cin // groups
    if groups == 1:  # one transpose (a view of w: the flip and a phase's taps stay views, one copy)
        perm = (d + 1, *range(1, d + 1), 0) if last else (1, 0, *range(2, d + 2))
        return flip(transpose(w, perm), tuple(range(1, d + 1) if last else range(2, d + 2)))
    if last:  # (G, Cg, *K, Og) -> (G, Og, *K, Cg)
        t = reshape(w, (groups, cg, *ks, og))
        t = transpose(t, (0, d + 2, *range(2, d + 2), 1))
        t = reshape(t, (groups * og, *ks, cg))
        return flip(t, tuple(range(1, d + 1)))
    t = reshape(w, (groups, cg, og, *ks))  # (G, Cg, Og, *K) -> (G, Og, Cg, *K)
    t = transpose(t, (0, 2, 1, *range(3, d + 3)))
    t = reshape(t, (groups * og, cg, *ks))
    return flip(t, tuple(range(2, d + 2)))


def _transposed_conv(tr, x, w, d, last, stride, pads, out_sizes, dilation, groups, layout, what) -> Tile:
    """The convolution whose input gradient this is: x (its output) dilated by `stride`, padded so
    that the result has `out_sizes`, convolved with the transposed weight w (C_in, C_out/G, *K).
    (Backends that gain rewrite a stride-dilated convolution by phases of the stride: the
    tile-conv-phases pass.)"""
    ks = _kernel_sizes(tr, w, d, last, what)
    xs = _conv_static(tr, x, what, "input")
    xs = xs[1 : d + 1] if last else xs[2:]
    new_pads = []
    for i in range(d):
        lo = dilation[i] * (ks[i] - 1) - pads[i][0]
        # the result has out_sizes[i] = (xs-1)*stride + 1 + lo + hi - dilation*(k-1)
        hi = out_sizes[i] - 1 - (xs[i] - 1) * stride[i] - lo + dilation[i] * (ks[i] - 1)
        new_pads.append((lo, hi))
    wt = _transposed_weight(tr, w, d, last, groups, what)
    return _conv_op(tr, x, wt, [1] * d, new_pads, dilation, stride, groups, layout, what)


def conv_transpose(x, w, stride=1, padding=0, output_padding=0, groups=1, dilation=1, layout="channels_first") -> Tile:
    """Transposed convolution, as torch.nn.functional.conv_transpose1d/2d/3d: w is (C_in, C_out/groups,
    *K) (channels_last: (C_in, *K, C_out/groups)); output size (S-1)*stride - 2*padding +
    dilation*(K-1) + output_padding + 1. Built as a tile.conv with lhs_dilation = stride over the
    flipped, group-wise channel-swapped weight (tile-level reshapes, transposes and reverse slices)."""
    what = "tilec.conv_transpose"
    tr, x, w, d, last = _conv_operands(x, w, layout, what)
    stride = _conv_ints(stride, d, what, "stride", 1)
    dilation = _conv_ints(dilation, d, what, "dilation", 1)
    pad = _conv_ints(padding, d, what, "padding", 0)
    out_pad = _conv_ints(output_padding, d, what, "output_padding", 0)
    for i in range(d):
        if out_pad[i] >= max(stride[i], dilation[i]):
            raise user_error(
                f"{what}: output_padding must be smaller than stride or dilation, got output_padding "
                f"{tuple(out_pad)}, stride {tuple(stride)}, dilation {tuple(dilation)}"
            )
    groups = _groups(groups, what)
    xs = _conv_static(tr, x, what, "input")
    xs = xs[1 : d + 1] if last else xs[2:]
    ks = _kernel_sizes(tr, w, d, last, what)
    out = [(xs[i] - 1) * stride[i] - 2 * pad[i] + dilation[i] * (ks[i] - 1) + out_pad[i] + 1 for i in range(d)]
    if any(o < 1 for o in out):
        raise user_error(f"{what}: the output would have spatial size {tuple(out)} (each must be >= 1)")
    return _transposed_conv(tr, x, w, d, last, stride, [(p, p) for p in pad], out, dilation, groups, layout, what)


def conv_backward_input(dy, w, input_shape, stride=1, padding=0, dilation=1, groups=1, layout="channels_first") -> Tile:
    """The gradient of `conv(x, w, stride, padding, dilation, groups, layout)` with respect to x
    (of shape `input_shape`), given the gradient dy of its output: a transposed convolution of dy
    (padding may be anything conv takes, 'same' included)."""
    what = "tilec.conv_backward_input"
    tr, dy, w, d, last = _conv_operands(dy, w, layout, what)
    stride = _conv_ints(stride, d, what, "stride", 1)
    dilation = _conv_ints(dilation, d, what, "dilation", 1)
    groups = _groups(groups, what)
    shape = _conv_ints(tuple(input_shape), d + 2, what, "input_shape", 1) if len(input_shape) == d + 2 else None
    if shape is None:
        raise user_error(f"{what}: input_shape must have {d + 2} entries, got {tuple(input_shape)}")
    ks = _kernel_sizes(tr, w, d, last, what)
    pads = _conv_padding(padding, d, ks, stride, dilation, what)
    ws = _conv_static(tr, w, what, "weight")
    try:
        expect = conv_result_shape(shape, ws, stride, pads, dilation, [1] * d, groups, layout)
    except ValueError as e:
        raise user_error(f"{what}: {e} (input_shape {tuple(shape)}, weight shape {tuple(ws)})") from None
    got = _conv_static(tr, dy, what, "dy")
    if list(got) != list(expect):
        raise user_error(
            f"{what}: dy has shape {tuple(got)}, but the convolution of {tuple(shape)} by {tuple(ws)} gives {tuple(expect)}"
        )
    spatial = shape[1 : d + 1] if last else shape[2:]
    return _transposed_conv(tr, dy, w, d, last, stride, pads, spatial, dilation, groups, layout, what)


def conv_backward_weight(
    x, dy, weight_shape, stride=1, padding=0, dilation=1, groups=1, layout="channels_first"
) -> Tile:
    """The gradient of `conv(x, w, stride, padding, dilation, groups, layout)` with respect to w
    (of shape `weight_shape`), given the gradient dy of its output: a convolution of x by dy with
    the batch axis contracted (it becomes the channel axis), stride and dilation swapped. Groups
    (depthwise included) become the convolution's own groups: x is regrouped to
    (C/G, G*N, *S) and dy to (G*O/G, N, *OS) (channels_last: (C/G, *S, G*N) and (O, *OS, N)).
    A 1x1 channels-last convolution with stride 1, no padding and one group is one contraction
    instead, dy^T x over the N x positions rows."""
    what = "tilec.conv_backward_weight"
    tr, x, dy, d, last = _conv_operands(x, dy, layout, what)
    stride = _conv_ints(stride, d, what, "stride", 1)
    dilation = _conv_ints(dilation, d, what, "dilation", 1)
    groups = _groups(groups, what)
    if len(weight_shape) != d + 2:
        raise user_error(f"{what}: weight_shape must have {d + 2} entries, got {tuple(weight_shape)}")
    wshape = _conv_ints(tuple(weight_shape), d + 2, what, "weight_shape", 1)
    ks = wshape[1 : d + 1] if last else wshape[2:]
    pads = _conv_padding(padding, d, ks, stride, dilation, what)
    xs = _conv_static(tr, x, what, "input")
    try:
        expect = conv_result_shape(xs, wshape, stride, pads, dilation, [1] * d, groups, layout)
    except ValueError as e:
        raise user_error(f"{what}: {e} (input shape {tuple(xs)}, weight_shape {tuple(wshape)})") from None
    got = _conv_static(tr, dy, what, "dy")
    if list(got) != list(expect):
        raise user_error(
            f"{what}: dy has shape {tuple(got)}, but the convolution of {tuple(xs)} by {tuple(wshape)} gives {tuple(expect)}"
        )
    n, o = xs[0], wshape[0]
    c = xs[-1] if last else xs[1]
    cg, og = c // groups, o // groups
    sp, osp = (xs[1 : d + 1], got[1 : d + 1]) if last else (xs[2:], got[2:])
    pointwise = all(k == 1 for k in ks) and all(s == 1 for s in stride) and all(p == (0, 0) for p in pads)
    if last and groups == 1 and pointwise:
        # 1x1, stride 1, unpadded, channels-last: dw[o, c] = sum over the M = N x positions rows
        # of dy[m, o] x[m, c], one GEMM dy^T x of the tensors as they are (no transposes: the
        # tensor-core kernels read dy as an A stored K x M)
        rows = n * math.prod(sp)
        r = tile_contract(reshape(dy, (rows, o)), reshape(x, (rows, c)), axes=[(0, 0)])
        return reshape(r, (o, *ks, c))
    if last:
        # x (N, *S, G, Cg) -> (Cg, *S, G, N) -> (Cg, *S, G*N); dy (N, *OS, G, Og) -> (G, Og, *OS, N) -> (O, *OS, N)
        lhs = transpose(reshape(x, (n, *sp, groups, cg)), (d + 2, *range(1, d + 1), d + 1, 0))
        lhs = reshape(lhs, (cg, *sp, groups * n))
        rhs = transpose(reshape(dy, (n, *osp, groups, og)), (d + 1, d + 2, *range(1, d + 1), 0))
        rhs = reshape(rhs, (o, *osp, n))
    else:
        # x (N, G, Cg, *S) -> (Cg, G, N, *S) -> (Cg, G*N, *S); dy (N, O, *OS) -> (O, N, *OS)
        lhs = transpose(reshape(x, (n, groups, cg, *sp)), (2, 1, 0, *range(3, d + 3)))
        lhs = reshape(lhs, (cg, groups * n, *sp))
        rhs = transpose(dy, (1, 0, *range(2, d + 2)))
    # positions past the forward's last window are dropped: hi makes the result exactly K long
    new_pads = []
    for i in range(d):
        lo = pads[i][0]
        hi = dilation[i] * (ks[i] - 1) + stride[i] * (osp[i] - 1) + 1 - sp[i] - lo
        new_pads.append((lo, hi))
    r = _conv_op(tr, lhs, rhs, dilation, new_pads, stride, [1] * d, groups, layout, what)  # (Cg, O, *K) / (Cg, *K, O)
    if last:
        return transpose(r, (d + 1, *range(1, d + 1), 0))
    return transpose(r, (1, 0, *range(2, d + 2)))
