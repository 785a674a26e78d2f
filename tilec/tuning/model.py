"""The analytic side of tuning: a predicted time per candidate, so that the tuner skips the
candidates the model says cannot win (`tune(model_margin=...)`) before compiling them.

The prediction of a tile module under some options is the sum over its contractions and
convolutions (static sizes) of the target's GEMM model (`Backend.predicted_gemm_seconds`, written
beside each kernel generator, reading the same blocking / tile choice as the kernel) plus the
bytes of every other op's result at the target's streaming rate (`Backend.predicted_stream_seconds`:
the same for every candidate, it keeps the ratios honest when the GEMM is a small part). None
where the target has no model for a contraction (or a size is dynamic): such candidates are never
skipped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute

from tilec.dialects import tile
from tilec.dialects.common import bitwidth, is_float


@dataclass(frozen=True)
class GemmProblem:
    """One contraction or convolution as a batched GEMM: B x (M x K) @ (K x N), the input and
    accumulator element types; `conv`: an implicit GEMM (its A is the input's window)."""

    b: int
    m: int
    n: int
    k: int
    in_t: Attribute
    acc_t: Attribute
    conv: bool = False

    @property
    def flops(self) -> int:
        return 2 * self.b * self.m * self.n * self.k


def _prod(xs) -> int:
    return math.prod(int(x) for x in xs)


def gemm_problem(op) -> GemmProblem | None:
    """The GEMM of a `tile.contract` or `tile.conv` with static sizes, else None."""
    if isinstance(op, tile.ContractOp):
        ls, rs = op.lhs.type.get_shape(), op.rhs.type.get_shape()
        if any(d < 0 for d in (*ls, *rs)):
            return None
        axes, batch = op.axes, op.batch
        used_l = {a for a, _ in axes} | {a for a, _ in batch}
        used_r = {b for _, b in axes} | {b for _, b in batch}
        return GemmProblem(
            _prod(ls[a] for a, _ in batch),
            _prod(d for i, d in enumerate(ls) if i not in used_l),
            _prod(d for i, d in enumerate(rs) if i not in used_r),
            _prod(ls[a] for a, _ in axes),
            op.lhs.type.element_type,
            op.acc,
        )
    if isinstance(op, tile.ConvOp):
        ws, ys = op.rhs.type.get_shape(), op.result.type.get_shape()
        if any(d < 0 for d in (*ws, *ys)):
            return None
        groups = op.groups.data
        return GemmProblem(
            groups, _prod(ys) // ws[0], ws[0] // groups, _prod(ws[1:]), op.lhs.type.element_type, op.acc, conv=True
        )
    return None


def _result_bytes(op) -> int:
    total = 0
    for r in op.results:
        t = r.type
        if isinstance(t, tile.TileType) and all(d >= 0 for d in t.get_shape()):
            total += _prod(t.get_shape()) * max(1, bitwidth(t.element_type) // 8)
    return total


def predicted_seconds(module: ModuleOp, target: str, options) -> float | None:
    """The model's time of `module` (tile IR) compiled for `target` with `options`, or None."""
    from tilec.backends import get_backend

    backend = get_backend(target)
    total, streamed = 0.0, 0
    for op in module.walk():
        if isinstance(op, (tile.ContractOp, tile.ConvOp)):
            problem = gemm_problem(op)
            if problem is None or not is_float(problem.acc_t):
                return None
            t = backend.predicted_gemm_seconds(options, problem)
            if t is None:
                return None
            total += t
        elif op.results and not isinstance(op, tile.FusedOp):
            streamed += _result_bytes(op)
    return total + backend.predicted_stream_seconds(options, streamed)


__all__ = ["GemmProblem", "gemm_problem", "predicted_seconds"]
