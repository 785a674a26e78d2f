"""What the GPU tests share: CuPy, where an NVIDIA GPU is reachable through it (else None)."""

from __future__ import annotations

try:
    import cupy as cp

    HAVE_GPU = cp.cuda.runtime.getDeviceCount() > 0
except Exception:  # noqa: BLE001 - any failure to reach a GPU means "no GPU here"
    cp = None
    HAVE_GPU = False

__all__ = ["HAVE_GPU", "cp"]
