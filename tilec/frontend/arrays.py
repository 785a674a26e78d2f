"""The array boundary: what a tile op accepts and returns.

A call takes numpy arrays, CuPy arrays, torch tensors (CPU or CUDA) or any array with
`__cuda_array_interface__` / `__dlpack__` on a CUDA device, and returns the caller's kind:

| the caller passes | tilec runs on | it returns |
|---|---|---|
| numpy arrays | cpu | numpy arrays |
| torch CPU tensors | cpu (through zero-copy numpy views) | torch CPU tensors |
| CuPy arrays | cuda | CuPy arrays |
| torch CUDA tensors | cuda (through zero-copy CuPy views) | torch CUDA tensors |
| other CUDA arrays | cuda | CuPy arrays |

No element is copied on the way in or out, except that a non-contiguous input is made contiguous
once by the target's runtime (documented in docs/dsl.md). bf16 tensors cross as their bits (int16
views), since numpy and DLPack consumers may not know bf16.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

NUMPY, CUPY, TORCH_CPU, TORCH_CUDA, CUDA = "numpy", "cupy", "torch-cpu", "torch-cuda", "cuda"
DEVICE_KINDS = (CUPY, TORCH_CUDA, CUDA)


def _is_torch(a: Any) -> bool:
    return type(a).__module__.split(".")[0] == "torch" and hasattr(a, "device") and hasattr(a, "dtype")


def kind_of(a: Any) -> str | None:
    """numpy, cupy, torch-cpu, torch-cuda, cuda (another CUDA array), or None (not an array)."""
    if isinstance(a, np.ndarray):
        return NUMPY
    if _is_torch(a):
        return TORCH_CUDA if a.device.type == "cuda" else TORCH_CPU
    if type(a).__module__.split(".")[0] == "cupy" and hasattr(a, "__cuda_array_interface__"):
        return CUPY
    if hasattr(a, "__cuda_array_interface__"):
        return CUDA
    return None


def _torch():
    import torch

    return torch


def to_native(a: Any, kind: str):
    """A zero-copy numpy (cpu) or CuPy (cuda) view of the caller's array."""
    if kind == NUMPY:
        return a
    if kind == TORCH_CPU:
        torch = _torch()
        t = a.detach()
        if t.dtype == torch.bfloat16:
            return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
        return t.numpy()
    if kind == CUPY:
        return a
    try:
        import cupy
    except ImportError:  # the cuda runtime says that it needs CuPy
        return a
    if kind == TORCH_CUDA:
        torch = _torch()
        t = a.detach()
        if t.dtype == torch.bfloat16:
            return cupy.from_dlpack(t.view(torch.int16)).view(ml_dtypes.bfloat16)
        return cupy.from_dlpack(t)
    return cupy.asarray(a)


def to_caller(out, kind: str):
    """An output array (numpy or CuPy) as the caller's kind, without a copy."""
    if kind in (NUMPY, CUPY, CUDA):
        return out
    torch = _torch()
    bf16 = out.dtype == np.dtype(ml_dtypes.bfloat16)
    if kind == TORCH_CPU:
        if bf16:
            return torch.from_numpy(out.view(np.int16)).view(torch.bfloat16)
        return torch.from_numpy(out)
    if bf16:
        return torch.from_dlpack(out.view(np.int16)).view(torch.bfloat16)
    return torch.from_dlpack(out)


def from_host(out: np.ndarray, kind: str):
    """A numpy result as the caller's kind (copied to the GPU for device kinds)."""
    if kind in (NUMPY, TORCH_CPU):
        return to_caller(np.ascontiguousarray(out), kind)
    import cupy

    return to_caller(cupy.asarray(out), CUPY if kind == CUDA else kind)


def to_host(a: Any, kind: str) -> np.ndarray:
    """A numpy copy of any accepted array (the interpreter runs on the host)."""
    native = to_native(a, kind)
    if kind in DEVICE_KINDS:
        import cupy

        return cupy.asnumpy(native)
    return np.asarray(native)


def write_back(native: Any, value: np.ndarray) -> None:
    """Write a host value into an argument updated in place (a numpy or CuPy array, `to_native`'s)."""
    if isinstance(native, np.ndarray):
        np.copyto(native, value, casting="no")
        return
    import cupy

    native[...] = cupy.asarray(value)


__all__ = [
    "CUDA",
    "CUPY",
    "DEVICE_KINDS",
    "NUMPY",
    "TORCH_CPU",
    "TORCH_CUDA",
    "from_host",
    "kind_of",
    "to_caller",
    "to_host",
    "to_native",
    "write_back",
]
