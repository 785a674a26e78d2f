"""The public API for writing passes in Python.

A pass is a frozen dataclass with a `name` and an `apply(ctx, module)` method (an xDSL
`ModulePass`); its dataclass fields are its options (`my-pass{factor=4}` sets `factor`).
Two ways to write one:

- `PatternPass`: list rewrite patterns in `patterns()`; they are applied greedily until nothing
  changes.
- `TilecPass` (or any `ModulePass`): write `apply` yourself and walk the module.

Register it with `@register_pass` so `tilec-opt -p` and `tilec.passes.run_pipeline` find it. From
the command line a pass file is loaded with `tilec-opt --load-pass-plugin my_pass.py`; an installed
package can also expose passes through the `tilec.passes` entry-point group (each entry point
names a pass class). Report input the pass cannot handle with `raise PassFailure(op, "message")`:
the user then sees the op's file:line:col. See docs/writing-a-pass.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from tilec.passes.pipeline import PassFailure

__all__ = [
    "TilecPass",
    "PatternPass",
    "PassFailure",
    "RewritePattern",
    "PatternRewriter",
    "op_type_rewrite_pattern",
    "register_pass",
]


@dataclass(frozen=True)
class TilecPass(ModulePass):
    """Base for whole-module passes: override `apply(self, ctx, module)`."""

    name: ClassVar[str] = "tilec-pass"
    description: ClassVar[str] = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass(frozen=True)
class PatternPass(TilecPass):
    """A pass made of rewrite patterns applied greedily (`walk_reverse` for bottom-up order)."""

    walk_reverse: ClassVar[bool] = False

    def patterns(self) -> Sequence[RewritePattern]:  # pragma: no cover - abstract
        raise NotImplementedError

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(list(self.patterns())),
            walk_reverse=self.walk_reverse,
        ).rewrite_module(op)


P = TypeVar("P", bound=type)


def register_pass(cls: P) -> P:
    """Class decorator: make `cls` a frozen dataclass if it is not one yet, and register it by
    its `name` so pipelines can use it. Returns the class."""
    from tilec.passes import registry

    if "__dataclass_fields__" not in cls.__dict__:
        cls = dataclasses.dataclass(frozen=True)(cls)
    if not issubclass(cls, ModulePass):
        raise TypeError(f"{cls.__name__} must subclass TilecPass, PatternPass or xdsl.passes.ModulePass")
    registry.add_pass(cls)
    return cls
