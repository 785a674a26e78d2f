"""ATen's elementwise ops on tilec: arithmetic, comparisons, math, activations and their
backward, `where`, `clamp`, the optimizers' fused updates (`addcmul_`, `addcdiv_`, `lerp_`), and
copies (`copy_`, `clone`, `_to_copy`, `fill_`).

Types follow torch: the result dtype is `torch.result_type` of the operands (a Python number or
a 0-d tensor counts less than a tensor); 16-bit floats compute in float32 and round once. Python
numbers are runtime scalars of the tile op (a new value does not compile again). In-place
variants (`add_`, ...) write the result into `self`, which must keep its shape.
"""

from __future__ import annotations

import dataclasses

import torch

import tilec
from tilec.library import nn
from tilec.library.nn import like
from tilec.torch.aten.registry import Plan, is_float, tilec_dtype

HALF = (torch.float16, torch.bfloat16)


def compute_dtype(out: torch.dtype) -> torch.dtype:
    """The dtype arithmetic runs in for a result of `out` (float32 for 16-bit floats)."""
    return torch.float32 if out in HALF else out


def _is_number(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _check_operands(values) -> str | None:
    for v in values:
        if isinstance(v, bool):
            return "a bool scalar operand"
        if not isinstance(v, torch.Tensor | int | float):
            return f"an operand of type {type(v).__name__}"
        if isinstance(v, torch.Tensor) and v.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
            return f"dtype {v.dtype} in arithmetic"
    return None


def elementwise(fn, *, result=None, compute=None, names=("self", "other"), extra=(), float_only=False, key=()):
    """An entry for `fn(*operands, *extra)` over the named operands (tensors or numbers) and extra
    runtime numbers (`alpha`, `value`, ...): each operand cast to the compute dtype first.
    `result(out_dtype)` gives the ATen result dtype (default: the promoted one; a comparison
    passes `lambda _: torch.bool`); `float_only`: integer inputs compute in the default float.
    `key`: the static parameters `fn` closes over (one tile op per value)."""

    def plan(p):
        ops = [p[n] for n in names]
        more = [p[n] for n in extra]
        why = _check_operands([*ops, *more])
        if why:
            return why
        promoted = result_dtype(*ops)
        if float_only and not is_float(promoted):
            promoted = torch.get_default_dtype()
        cdt = compute(promoted) if compute else compute_dtype(promoted)
        out = result(promoted) if result else promoted
        if tilec_dtype(cdt) is None or tilec_dtype(out) is None:
            return f"dtype {out}"
        if cdt == torch.bool and result is None:
            return "arithmetic on bool tensors"
        numbers = tuple(_is_number(v) for v in ops)
        tc, to = tilec_dtype(cdt), tilec_dtype(out)

        def body(*vals):
            xs = [v if num else like(v, tc) for v, num in zip(vals[: len(ops)], numbers)]
            return like(fn(*xs, *vals[len(ops) :]), to)

        return Plan((str(cdt), str(out), numbers, len(more), *key), body, (*ops, *more))

    return plan


def result_dtype(*ops) -> torch.dtype:
    """torch's type promotion over any number of operands (tensors and numbers): tensors with
    dimensions outrank 0-d tensors, which outrank Python numbers, within a dtype category."""
    if len(ops) == 1:
        return ops[0].dtype if isinstance(ops[0], torch.Tensor) else torch.result_type(torch.empty(()), ops[0])
    acc = ops[0]
    for nxt in ops[1:]:
        dt = torch.result_type(acc, nxt)
        dims = [v for v in (acc, nxt) if isinstance(v, torch.Tensor)]
        shape = (1,) if any(v.ndim for v in dims) else ()
        acc = torch.empty(shape, dtype=dt) if dims else dt
    return acc.dtype if isinstance(acc, torch.Tensor) else acc


def inplace(entry):
    """The in-place variant of an entry: the result written into `self`, which keeps its shape
    and whose dtype the result must cast to (else torch's own kernel runs and raises its error)."""

    def plan(p):
        plan_ = entry(p)
        if isinstance(plan_, str):
            return plan_
        self = p["self"]
        shapes = [v.shape for v in plan_.inputs if isinstance(v, torch.Tensor)]
        if torch.broadcast_shapes(*shapes) != self.shape:
            return "an in-place result of another shape than self"
        ops = [v for v in plan_.inputs if isinstance(v, torch.Tensor) or _is_number(v)]
        if not torch.can_cast(result_dtype(*ops), self.dtype):
            return f"an in-place {result_dtype(*ops)} result into a {self.dtype} tensor"
        return dataclasses.replace(plan_, updates=(0,))

    return plan


def _where(p):
    c, a, b = p["condition"], p["self"], p["other"]
    why = _check_operands([a, b])
    if why or not isinstance(c, torch.Tensor) or c.dtype != torch.bool:
        return why or "a condition that is not a bool tensor"
    out = result_dtype(a, b)
    if tilec_dtype(out) is None:
        return f"dtype {out}"
    numbers = (_is_number(a), _is_number(b))
    to = tilec_dtype(out)

    def body(cond, x, y):
        x, y = (v if num else like(v, to) for v, num in zip((x, y), numbers))
        return like(tilec.where(cond, x, y), to)

    return Plan((str(out), numbers), body, (c, a, b))


def unary(fn, **kw):
    return elementwise(fn, names=("self",), **kw)


def _sign(x):
    """torch.sign: -1, 0 or 1; 0 for NaN (torch's, unlike numpy's NaN)."""
    z = tilec.zeros_like(x)
    return tilec.where(x > 0, z + 1, tilec.where(x < 0, z - 1, z))


def _relu(x):
    return tilec.maximum(x, 0)  # NaN stays NaN, as torch


def _pow(p):
    e, x = p["exponent"], p["self"]
    if not _is_number(e):
        return "a non-number exponent"
    if not is_float(x.dtype):
        return "pow of an integer tensor"
    out = x.dtype
    tc, to = tilec_dtype(compute_dtype(out)), tilec_dtype(out)
    e = float(e)
    special = {0.0: tilec.ones_like, 1.0: lambda v: v, 2.0: lambda v: v * v, 0.5: tilec.sqrt, -1.0: lambda v: 1 / v}
    if e in special:
        f = special[e]
        return Plan((str(out), e), lambda v: like(f(like(v, tc)), to), (x,))
    if e == 3.0:
        return Plan((str(out), e), lambda v: like(like(v, tc) * like(v, tc) * like(v, tc), to), (x,))
    return Plan((str(out), "runtime"), lambda v, s: like(like(v, tc) ** s, to), (x, e))


def _clamp(p):
    x, lo, hi = p["self"], p.get("min"), p.get("max")
    for v in (lo, hi):
        if v is not None and not _is_number(v):
            return "tensor bounds"
    if lo is None and hi is None:
        return "clamp without bounds"
    if not is_float(x.dtype) and any(isinstance(v, float) for v in (lo, hi)):
        return "float bounds on an integer tensor"
    tc, to = tilec_dtype(compute_dtype(x.dtype)), tilec_dtype(x.dtype)
    has = (lo is not None, hi is not None)

    def body(v, *b):
        v = like(v, tc)
        it = iter(b)
        lo_, hi_ = (next(it) if has[0] else None), (next(it) if has[1] else None)
        if lo_ is not None:
            v = tilec.where(v < lo_, lo_, v)  # NaN stays NaN (comparisons with NaN are false)
        if hi_ is not None:
            v = tilec.where(v > hi_, hi_, v)
        return like(v, to)

    return Plan((str(x.dtype), has), body, (x, *(v for v in (lo, hi) if v is not None)))


def _hardtanh_backward(p):
    """grad where min_val < x < max_val, else 0 (torch's: the bounds themselves pass no gradient)."""
    lo, hi = p["min_val"], p["max_val"]
    if not (_is_number(lo) and _is_number(hi)):
        return "non-number bounds"
    return elementwise(
        lambda g, x, a, b: tilec.where((x > a) & (x < b), g, 0),
        names=("grad_output", "self"),
        extra=("min_val", "max_val"),
    )(p)


def _copy(p):
    """aten.copy (graphs): src cast to self's dtype and broadcast to self's shape."""
    self, src = p["self"], p["src"]
    if not isinstance(src, torch.Tensor) or src.device != self.device:
        return "a copy across devices"
    if torch.broadcast_shapes(self.shape, src.shape) != self.shape:
        return "a copy from another shape"
    shape = tuple(self.shape)
    return Plan((shape,), lambda s, x: tilec.broadcast_to(like(x, s.dtype), shape), (self, src))


def _copy_(p):
    """copy_: aten.copy written into self."""
    plan = _copy(p)
    return plan if isinstance(plan, str) else dataclasses.replace(plan, updates=(0,))


def _fill_(p):
    self, v = p["self"], p["value"]
    if isinstance(v, torch.Tensor):
        if v.ndim:
            return "a fill with a non-scalar tensor"
        return Plan(("tensor",), lambda s, x: x, (self, v), updates=(0,))
    if isinstance(v, bool) or not _is_number(v) or (isinstance(v, float) and not is_float(self.dtype)):
        return f"a fill of {self.dtype} with {v!r}"
    return Plan(("number",), lambda s, x: tilec.broadcast_to(like(x, s.dtype), s.shape), (self, v), updates=(0,))


def _zero_(p):
    self = p["self"]
    return Plan((), tilec.zeros_like, (self,), updates=(0,))


def _full_like(value_of):
    """zeros_like / ones_like / full_like: a tile of the input's shape (the input is not read)."""

    def plan(p):
        x = p["self"]
        value = value_of(p)
        dt = p.get("dtype") or x.dtype
        if p.get("device") is not None and torch.device(p["device"]) != x.device:
            return "a tensor on another device"
        if p.get("layout") not in (None, torch.strided) or tilec_dtype(dt) is None:
            return f"dtype {dt} / layout {p.get('layout')}"
        if isinstance(value, torch.Tensor) or isinstance(value, bool) and dt != torch.bool:
            return f"a fill value {value!r}"
        if not is_float(dt) and isinstance(value, float) and not value.is_integer():
            return f"a fill value {value!r} for {dt}"
        to = tilec_dtype(dt)
        v = bool(value) if dt == torch.bool else float(value) if is_float(dt) else int(value)
        return Plan((str(dt), v), lambda t: tilec.full_like(t, v, dtype=to), (x,))

    return plan


def _random(p):
    return "torch's random stream (tilec's Philox generator draws other numbers)"


def _to_copy(p):
    x = p["self"]
    dt = p.get("dtype") or x.dtype
    if p.get("device") is not None and torch.device(p["device"]) != x.device:
        return "a copy to another device"
    if p.get("layout") not in (None, torch.strided):
        return f"layout {p['layout']}"
    if tilec_dtype(dt) is None:
        return f"dtype {dt}"
    to = tilec_dtype(dt)
    return Plan((str(dt),), lambda v: v.astype(to), (x,))


def _clone(p):
    x = p["self"]
    return Plan((), lambda v: v.astype(v.dtype), (x,))


def _addc(op):
    """addcmul / addcdiv: self + value * (t1 op t2)."""

    def f(s, a, b, value):
        return s + value * op(a, b)

    return f


def _lerp(s, e, w):
    return s + w * (e - s)


def _gelu(p):
    approx = p.get("approximate") or "none"
    if approx not in ("none", "tanh"):
        return f"approximate={approx!r}"
    return unary(lambda x: nn.gelu(x, approx), float_only=True, key=(approx,))(p)


def _gelu_backward(p):
    approx = p.get("approximate") or "none"
    if approx not in ("none", "tanh"):
        return f"approximate={approx!r}"
    return elementwise(lambda g, x: nn.gelu_backward(g, x, approx), names=("grad_output", "self"), key=(approx,))(p)


def _threshold_backward(p):
    t = p["threshold"]
    if not _is_number(t):
        return "a non-number threshold"
    return elementwise(
        lambda g, x, th: tilec.where(x <= th, 0, g), names=("grad_output", "self"), extra=("threshold",)
    )(p)


_ARITH = {
    "add": lambda x, y, a: x + y * a,
    "sub": lambda x, y, a: x - y * a,
}


def _binary_alpha(name):
    f = _ARITH[name]

    def plan(p):
        if p.get("alpha", 1) == 1:
            return elementwise((lambda x, y: x + y) if name == "add" else (lambda x, y: x - y))(p)
        return elementwise(f, extra=("alpha",))(p)

    return plan


def _rsub(p):
    if p.get("alpha", 1) == 1:
        return elementwise(lambda x, y: y - x)(p)
    return elementwise(lambda x, y, a: y - x * a, extra=("alpha",))(p)


def _div(p):
    if p.get("rounding_mode") is not None:
        return f"division with rounding_mode={p['rounding_mode']!r}"
    return elementwise(lambda x, y: x / y, float_only=True)(p)


def _compare(f):
    return elementwise(f, result=lambda _: torch.bool)


_UNARY_FLOAT = {
    "exp": tilec.exp,
    "log": tilec.log,
    "sqrt": tilec.sqrt,
    "rsqrt": tilec.rsqrt,
    "tanh": tilec.tanh,
    "sigmoid": tilec.sigmoid,
    "sin": tilec.sin,
    "cos": tilec.cos,
    "erf": tilec.erf,
    "log1p": tilec.log1p,
    "expm1": tilec.expm1,
    "reciprocal": lambda x: 1.0 / x,
    "silu": nn.silu,
}


def table() -> dict:
    """The elementwise entries: ATen overload name (without `aten::`) -> plan function."""
    t: dict = {}
    for name in ("add", "sub"):
        for ov in ("Tensor", "Scalar"):
            t[f"{name}.{ov}"] = _binary_alpha(name)
            t[f"{name}_.{ov}"] = inplace(_binary_alpha(name))
    for ov in ("Tensor", "Scalar"):
        t[f"rsub.{ov}"] = _rsub
        t[f"mul.{ov}"] = elementwise(lambda x, y: x * y)
        t[f"mul_.{ov}"] = inplace(elementwise(lambda x, y: x * y))
        t[f"div.{ov}"] = _div
        t[f"div_.{ov}"] = inplace(_div)
    t["div.Tensor_mode"] = _div
    t["maximum.default"] = elementwise(tilec.maximum)
    t["minimum.default"] = elementwise(tilec.minimum)
    for name, f in {
        "eq": lambda x, y: x == y,
        "ne": lambda x, y: x != y,
        "lt": lambda x, y: x < y,
        "le": lambda x, y: x <= y,
        "gt": lambda x, y: x > y,
        "ge": lambda x, y: x >= y,
    }.items():
        t[f"{name}.Tensor"] = _compare(f)
        t[f"{name}.Scalar"] = _compare(f)
    for name, f in _UNARY_FLOAT.items():
        t[f"{name}.default"] = unary(f, float_only=True)
        t[f"{name}_.default"] = inplace(unary(f, float_only=True))
    t["neg.default"] = unary(lambda x: -x)
    t["neg_.default"] = inplace(unary(lambda x: -x))
    t["abs.default"] = unary(tilec.abs)
    for name in ("isnan", "isinf", "isfinite"):
        t[f"{name}.default"] = unary(getattr(tilec, name), result=lambda _: torch.bool, float_only=True)
    t["sign.default"] = unary(_sign)
    t["sgn.default"] = unary(_sign)
    t["relu.default"] = unary(_relu)
    t["relu_.default"] = inplace(unary(_relu))
    t["gelu.default"] = _gelu
    t["gelu_.default"] = inplace(_gelu)
    t["gelu_backward.default"] = _gelu_backward
    t["silu_backward.default"] = elementwise(nn.silu_backward, names=("grad_output", "self"))
    t["tanh_backward.default"] = elementwise(nn.tanh_backward, names=("grad_output", "output"))
    t["sigmoid_backward.default"] = elementwise(nn.sigmoid_backward, names=("grad_output", "output"))
    t["threshold_backward.default"] = _threshold_backward
    t["where.self"] = _where
    same = lambda d: d  # noqa: E731  (bitwise ops keep the promoted dtype, bool included)
    t["bitwise_not.default"] = unary(lambda x: ~x, result=same)
    t["logical_not.default"] = unary(lambda x: ~x if x.dtype.is_bool else x == 0, result=lambda _: torch.bool)
    for name, f in (("and", lambda x, y: x & y), ("or", lambda x, y: x | y), ("xor", lambda x, y: x ^ y)):
        t[f"bitwise_{name}.Tensor"] = elementwise(f, result=same)
        t[f"bitwise_{name}_.Tensor"] = inplace(elementwise(f, result=same))
        logical = elementwise(
            lambda x, y, f=f: f(x if x.dtype.is_bool else x != 0, y if y.dtype.is_bool else y != 0),
            result=lambda _: torch.bool,
        )
        t[f"logical_{name}.default"] = logical
        t[f"logical_{name}_.default"] = inplace(logical)
    t["pow.Tensor_Scalar"] = _pow
    t["pow_.Scalar"] = inplace(_pow)
    t["clamp.default"] = _clamp
    hardtanh = lambda p: _clamp({"self": p["self"], "min": p["min_val"], "max": p["max_val"]})  # noqa: E731
    t["hardtanh.default"] = hardtanh
    t["hardtanh_.default"] = inplace(hardtanh)
    t["hardtanh_backward.default"] = _hardtanh_backward
    t["clamp_min.default"] = lambda p: _clamp({"self": p["self"], "min": p["min"], "max": None})
    t["clamp_max.default"] = lambda p: _clamp({"self": p["self"], "min": None, "max": p["max"]})
    for name, op in (("addcmul", lambda a, b: a * b), ("addcdiv", lambda a, b: a / b)):
        entry = elementwise(_addc(op), names=("self", "tensor1", "tensor2"), extra=("value",))
        t[f"{name}.default"] = entry
        t[f"{name}_.default"] = inplace(entry)
    lerp = elementwise(_lerp, names=("self", "end"), extra=("weight",))
    t["lerp.Scalar"] = lerp
    t["lerp_.Scalar"] = inplace(lerp)
    t["copy_.default"] = _copy_
    t["copy.default"] = _copy
    t["fill_.Scalar"] = _fill_
    t["zero_.default"] = _zero_
    t["_to_copy.default"] = _to_copy
    t["zeros_like.default"] = _full_like(lambda p: 0)
    t["ones_like.default"] = _full_like(lambda p: 1)
    t["full_like.default"] = _full_like(lambda p: p["fill_value"])
    for name in ("uniform_.default", "normal_.default", "bernoulli_.float", "bernoulli.default", "randn_like.default"):
        t[name] = _random
    t["clone.default"] = _clone
    t["lift_fresh_copy.default"] = _clone
    return t


__all__ = ["compute_dtype", "elementwise", "inplace", "result_dtype", "table"]
