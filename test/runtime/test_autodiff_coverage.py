"""Every tile op is accounted for by autodiff: it has a VJP rule, or is listed non-differentiable
or zero-cotangent (with a reason), or is structure the transformation handles itself. A new
differentiable op without a rule fails here."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from tilec.autodiff import rules
from tilec.autodiff.rules import NON_DIFFERENTIABLE, RULES, ZERO_COTANGENT
from tilec.dialects import tile

# handled by the transformation itself (tilec/autodiff/transform.py): loads accumulate into their
# array's cotangent, stores seed the output cotangents; fused IR is refused (autodiff runs first)
STRUCTURAL = {tile.FuncOp, tile.ReturnOp, tile.LoadOp, tile.StoreOp, tile.FusedOp, tile.YieldOp}


@pytest.mark.parametrize("op", sorted(tile.Tile.operations, key=lambda o: o.name), ids=lambda o: o.name)
def test_every_op_is_accounted_for(op):
    where = [
        name
        for name, table in (
            ("RULES", RULES),
            ("NON_DIFFERENTIABLE", NON_DIFFERENTIABLE),
            ("ZERO_COTANGENT", ZERO_COTANGENT),
            ("STRUCTURAL", STRUCTURAL),
        )
        if op in table
    ]
    assert len(where) == 1, f"{op.name} is in {where or 'no table'}: give it a VJP rule or list it with a reason"


def test_tables_are_read_only_with_reasons_and_documented_rules():
    for m in (*rules.MODULES, rules):
        for name in ("RULES", "NON_DIFFERENTIABLE", "ZERO_COTANGENT"):
            assert isinstance(getattr(m, name), MappingProxyType), (m.__name__, name)
    for op, reason in {**NON_DIFFERENTIABLE, **ZERO_COTANGENT}.items():
        assert isinstance(reason, str) and reason, op.name
    for op, rule in RULES.items():
        assert rule.__doc__ and rule.__doc__.strip(), f"the rule of {op.name} needs a docstring stating its math"
