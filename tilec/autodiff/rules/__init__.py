"""The VJP rules table: one rule per differentiable tile op, from the rule modules.

Each module exposes `RULES` (op class -> rule), `NON_DIFFERENTIABLE` (op class -> why: a located
error when a cotangent reaches it) and `ZERO_COTANGENT` (op class -> why its cotangent is zero
by math: nothing flows through it), all `types.MappingProxyType`. A rule is

    def vjp_<name>(ctx: VjpContext, op: <OpClass>, cts: tuple[Tile | None, ...]) -> tuple[Tile | None, ...]

with one cotangent per result in `cts` (None: zero) and one per operand returned (None: none).
"""

from __future__ import annotations

from types import MappingProxyType

from tilec.autodiff.rules import elementwise, indexing, nn, reduce, shape

MODULES = (elementwise, shape, reduce, indexing, nn)


def _merge(name: str) -> MappingProxyType:
    out: dict = {}
    for m in MODULES:
        table = getattr(m, name)
        for k, v in table.items():
            if k in out:
                raise AssertionError(f"{k.__name__} is listed twice in the autodiff tables ({name})")
            out[k] = v
    return MappingProxyType(out)


RULES = _merge("RULES")
NON_DIFFERENTIABLE = _merge("NON_DIFFERENTIABLE")
ZERO_COTANGENT = _merge("ZERO_COTANGENT")
