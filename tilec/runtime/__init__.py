"""Compiling tile modules to loaded kernels, per target, with a disk cache.

Interface used by the frontend (`tilec.frontend`):

- `lower(module, level, target, **options) -> ModuleOp`: a NEW module at `level` ("tile",
  "mapped" or "hw") for `target` ("c", "cuda", "hip"); the input is not modified.
- `compile_module(module, target, **options) -> Kernel`: the tile module lowered, emitted,
  compiled and loaded (cached in memory and on disk).
- `Kernel.source`: the emitted text; `Kernel(*arrays)` runs it and returns the outputs (a tuple).
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from tilec.diagnostics import NotSupportedYet

LEVELS = ("tile", "mapped", "hw")
TARGETS = ("c", "cuda", "hip")


def lower(module: ModuleOp, level: str, target: str = "c", **options) -> ModuleOp:
    raise NotSupportedYet(f"lowering to the '{level}' level for target '{target}'")


def compile_module(module: ModuleOp, target: str = "c", **options):
    raise NotSupportedYet(f"compiling for target '{target}'")
