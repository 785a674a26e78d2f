"""Emitters: hw IR -> target text. One emitter per target; emission makes no decisions.

`emit(module, target, **options)` returns the text (C source, PTX, HIP C++). A target whose
emitter is not built yet raises `NotSupportedYet` instead of producing anything.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import ModuleOp

from tilec.diagnostics import NotSupportedYet, TilecError

TARGETS = ("mlir", "c", "ptx", "hip")


def _not_built(name: str) -> Callable[..., str]:
    def emit(module: ModuleOp, **options) -> str:
        raise NotSupportedYet(f"the '{name}' emitter is not built yet")

    return emit


def get_emitter(target: str) -> Callable[..., str]:
    if target == "c":
        from tilec.emit.c import emit_c

        return emit_c
    if target == "ptx":
        from tilec.emit.ptx import emit_ptx

        return emit_ptx
    if target == "hip":
        from tilec.emit.hip import emit_hip

        return emit_hip
    raise TilecError(f"unknown target '{target}' (targets: {', '.join(TARGETS)})")


def emit(module: ModuleOp, target: str, **options) -> str:
    return get_emitter(target)(module, **options)
