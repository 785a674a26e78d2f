"""The backends: one object per target, the only list of targets tilec has.

from tilec.backends import get_backend
b = get_backend("cuda")
options = b.options(block_m=64)
hw = b.lower(module, options)
ptx = b.emit(hw)
"""

from __future__ import annotations

from tilec.backends.base import LEVELS, Backend
from tilec.backends.cpu import CpuBackend
from tilec.backends.cuda import CudaBackend
from tilec.backends.hip import HipBackend
from tilec.diagnostics import TilecError

BACKENDS: tuple[Backend, ...] = (CpuBackend(), CudaBackend(), HipBackend())
TARGETS: tuple[str, ...] = tuple(b.name for b in BACKENDS)
LANGUAGES: tuple[str, ...] = tuple(b.language for b in BACKENDS)


def get_backend(target: str) -> Backend:
    """The backend of a target name (`cpu`, `cuda`, `hip`)."""
    for b in BACKENDS:
        if b.name == target:
            return b
    import difflib

    close = difflib.get_close_matches(str(target), TARGETS, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    raise TilecError(f"unknown target '{target}' (targets: {', '.join(TARGETS)}){hint}")


def backend_for_language(language: str) -> Backend | None:
    """The backend whose emitter writes `language` (`-t c|ptx|hip`)."""
    return next((b for b in BACKENDS if b.language == language), None)


def backend_for_pipeline(name: str) -> Backend | None:
    """The backend whose named pipeline is `name` (`lower-to-c`, ...)."""
    return next((b for b in BACKENDS if b.pipeline_name == name), None)


__all__ = [
    "BACKENDS",
    "Backend",
    "LANGUAGES",
    "LEVELS",
    "TARGETS",
    "backend_for_language",
    "backend_for_pipeline",
    "get_backend",
]
