"""ATen's matrix products on tilec: `mm`, `addmm`, `bmm` (same float dtype on both sides, as
torch requires; accumulated in float32 for 16-bit inputs)."""

from __future__ import annotations

import torch

from tilec.library import linalg
from tilec.torch.aten.registry import Plan, is_float


def _check(*ts) -> str | None:
    if any(not isinstance(t, torch.Tensor) for t in ts):
        return "a non-tensor operand"
    if len({t.dtype for t in ts}) != 1:
        return "operands of different dtypes"
    if not is_float(ts[0].dtype):
        return f"a matrix product of {ts[0].dtype}"
    return None


def _mm(p):
    a, b = p["self"], p["mat2"]
    why = _check(a, b)
    if why or a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        return why or "shapes"
    return Plan((), linalg.mm, (a, b))


def _bmm(p):
    a, b = p["self"], p["mat2"]
    why = _check(a, b)
    if why or a.ndim != 3 or b.ndim != 3 or a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        return why or "shapes"
    return Plan((), linalg.bmm, (a, b))


def _addmm(p):
    bias, a, b, beta, alpha = p["self"], p["mat1"], p["mat2"], p["beta"], p["alpha"]
    why = _check(bias, a, b)
    if why or a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        return why or "shapes"
    if torch.broadcast_shapes(bias.shape, (a.shape[0], b.shape[1])) != (a.shape[0], b.shape[1]):
        return "a bias of another shape"
    for v in (beta, alpha):
        if isinstance(v, bool) or not isinstance(v, int | float):
            return "a non-number beta or alpha"
    unit = (beta == 1, alpha == 1, beta == 0)
    extra = tuple(v for v, one in ((beta, unit[0] or unit[2]), (alpha, unit[1])) if not one)

    def body(c, x, y, *s):
        it = iter(s)
        be = 1 if unit[0] else 0 if unit[2] else next(it)
        al = 1 if unit[1] else next(it)
        return linalg.addmm(c, x, y, beta=be, alpha=al)

    return Plan(unit, body, (bias, a, b, *extra))


def table() -> dict:
    return {"mm.default": _mm, "bmm.default": _bmm, "addmm.default": _addmm}
