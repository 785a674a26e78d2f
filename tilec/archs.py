"""Facts about the GPU architectures tilec targets, in one place (no IR, cheap to import).

The hw dialects verify against them, the backends validate their options with them.
"""

from __future__ import annotations

import re

SM_ARCHS = ("sm_80", "sm_86", "sm_89", "sm_90", "sm_90a")
"""NVIDIA architectures the PTX target knows."""

SMEM_LIMIT = {"sm_80": 166912, "sm_86": 101376, "sm_89": 101376, "sm_90": 232448, "sm_90a": 232448}
"""Dynamic shared memory one block may use (bytes)."""

STATIC_SMEM_LIMIT = 49152
"""Static shared memory one block may use without opting in (bytes)."""

HOPPER = ("sm_90", "sm_90a")

GFX_ARCH = re.compile(r"gfx([0-9]{3,4}|[0-9]{2}[a-z])$")
"""AMD GPU targets (`gfx90a`, `gfx942`, `gfx1030`, ...)."""

MFMA_ARCHS = ("gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx950")
"""AMD targets with matrix cores (MFMA)."""

LDS_LIMIT = {"gfx950": 163840}
DEFAULT_LDS_LIMIT = 65536
"""LDS per workgroup (bytes), where it differs from the default."""


def is_wave64_only(arch: str) -> bool:
    """gfx9 (GCN/CDNA) targets run 64-lane wavefronts only."""
    return arch.startswith("gfx9")


__all__ = [
    "DEFAULT_LDS_LIMIT",
    "GFX_ARCH",
    "HOPPER",
    "LDS_LIMIT",
    "MFMA_ARCHS",
    "SMEM_LIMIT",
    "SM_ARCHS",
    "STATIC_SMEM_LIMIT",
    "is_wave64_only",
]
