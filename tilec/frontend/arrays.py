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
once by the target's runtime (documented in docs/dsl.md). bf16 and fp8 tensors cross as their bits
(int16 / uint8 views), since numpy and DLPack consumers may not know them. CuPy has no fp8 dtype:
on the device an fp8 array is a CuPy uint8 array of its codes (torch CUDA fp8 tensors are viewed
so, and come back as torch fp8 tensors; CuPy callers pass and get uint8 arrays).
"""

from __future__ import annotations

import contextlib
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


def mixed_kinds(kinds) -> str | None:
    """Why the arguments' kinds cannot go together in one call, or None. numpy and CuPy arrays keep
    their rules (host and device do not mix); torch tensors mix with nothing else, since the kind
    of the results would be a guess; torch CUDA tensors must be on one device."""
    families = {"torch" if k in (TORCH_CPU, TORCH_CUDA) else k for k in kinds}
    if "torch" in families and len(families) > 1:
        others = ", ".join(sorted(families - {"torch"}))
        return (
            f"arguments mix torch tensors and other arrays ({others}); pass all of one kind "
            f"(torch.from_numpy(a) / torch.from_dlpack(a) wrap an array without a copy)"
        )
    return None


def unsupported_tensor(t) -> str | None:
    """Why tilec cannot take this torch tensor, or None: it runs on CPU and CUDA tensors."""
    if t.device.type not in ("cpu", "cuda"):
        return f"is a torch tensor on device '{t.device}': tilec takes CPU and CUDA tensors"
    if t.is_complex():
        return f"is a complex tensor ({t.dtype}): tilec has no complex dtypes"
    return None


def _devices(values) -> set:
    return {v.device for v in values if _is_torch(v) and v.device.type == "cuda"}


def several_devices(values) -> str | None:
    """Why torch CUDA tensors cannot go together in one call (they are on several GPUs), or None."""
    devices = _devices(values)
    if len(devices) > 1:
        return (
            f"the torch CUDA tensors are on several devices ({', '.join(sorted(map(str, devices)))}); "
            f"move them to one (tensor.to(device))"
        )
    return None


@contextlib.contextmanager
def stream_scope(args, kwargs, kind: str):
    """Inside: CuPy's current device and stream are the torch CUDA tensors' device and torch's
    current stream on it, so tilec's launches are ordered with the caller's torch work (CuPy and
    other device callers keep CuPy's current stream)."""
    if kind != TORCH_CUDA:
        yield
        return
    devices = _devices([*args, *kwargs])
    assert len(devices) == 1, "checked by several_devices"
    import cupy

    torch = _torch()
    device = devices.pop()
    index = device.index if device.index is not None else torch.cuda.current_device()
    stream = torch.cuda.current_stream(index)
    with cupy.cuda.Device(index), cupy.cuda.ExternalStream(stream.cuda_stream, index):
        yield


def _torch():
    import torch

    return torch


def _bits_views(torch) -> dict:
    """torch dtypes numpy has not -> (the torch dtype of their bits, the ml_dtypes numpy dtype)."""
    return {
        torch.bfloat16: (torch.int16, np.dtype(ml_dtypes.bfloat16)),
        torch.float8_e4m3fn: (torch.uint8, np.dtype(ml_dtypes.float8_e4m3fn)),
        torch.float8_e5m2: (torch.uint8, np.dtype(ml_dtypes.float8_e5m2)),
    }


def is_fp8(dt) -> bool:
    return np.dtype(dt) in (np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e5m2))


def array_dtype(a: Any, kind: str) -> np.dtype:
    """The numpy dtype of an accepted array as tilec sees it: torch's bf16 / fp8 are ml_dtypes'."""
    if kind in (TORCH_CPU, TORCH_CUDA):
        torch = _torch()
        bits = _bits_views(torch).get(a.dtype)
        if bits is not None:
            return bits[1]
        return np.dtype(str(a.dtype).removeprefix("torch."))
    return np.dtype(a.dtype)


def to_native(a: Any, kind: str):
    """A zero-copy numpy (cpu) or CuPy (cuda) view of the caller's array."""
    if kind == NUMPY:
        return a
    if kind == TORCH_CPU:
        torch = _torch()
        t = a.detach().resolve_neg()  # a lazily negated view (torch._neg_view): its one copy
        bits = _bits_views(torch).get(t.dtype)
        if bits is not None:
            return t.view(bits[0]).numpy().view(bits[1])
        return t.numpy()
    if kind == CUPY:
        return a
    try:
        import cupy
    except ImportError:  # the cuda runtime says that it needs CuPy
        return a
    if kind == TORCH_CUDA:
        torch = _torch()
        t = a.detach().resolve_neg()
        bits = _bits_views(torch).get(t.dtype)
        if bits is not None and is_fp8(bits[1]):
            return cupy.from_dlpack(t.view(bits[0]))  # CuPy has no fp8 dtype: the codes
        if bits is not None:
            return cupy.from_dlpack(t.view(bits[0])).view(bits[1])
        return cupy.from_dlpack(t)
    return cupy.asarray(a)


def to_caller(out, kind: str, dtype=None):
    """An output array (numpy or CuPy) as the caller's kind, without a copy; `dtype` is the
    result's dtype when the array holds its bytes (fp8 on the device: CuPy uint8)."""
    if kind in (NUMPY, CUPY, CUDA):
        return out
    torch = _torch()
    if dtype is not None and is_fp8(dtype) and out.dtype == np.uint8:
        t = torch.from_numpy(out) if kind == TORCH_CPU else torch.from_dlpack(out)
        return t.view(next(k for k, (_, d) in _bits_views(torch).items() if d == np.dtype(dtype)))
    for tdt, (bits, npdt) in _bits_views(torch).items():
        if out.dtype == npdt:
            as_bits = out.view(np.dtype(str(bits).removeprefix("torch.")))
            t = torch.from_numpy(as_bits) if kind == TORCH_CPU else torch.from_dlpack(as_bits)
            return t.view(tdt)
    if kind == TORCH_CPU:
        return torch.from_numpy(out)
    return torch.from_dlpack(out)


def torch_output(dtype) -> tuple:
    """How to make a torch tensor of numpy (or ml_dtypes) dtype `dtype`: (the torch dtype, the
    numpy dtype of its bits when numpy cannot hold it for torch, else `dtype`); the torch dtype
    is None when torch has none."""
    torch = _torch()
    dt = np.dtype(dtype)
    for tdt, (bits, npdt) in _bits_views(torch).items():
        if dt == npdt:
            return tdt, np.dtype(str(bits).removeprefix("torch."))
    if dt == np.bool_:
        return torch.bool, dt
    found = getattr(torch, dt.name, None)
    return (found if isinstance(found, torch.dtype) else None), dt


def raw_stream_of_torch():
    """A function: CUDA device index -> the handle of torch's current stream on it (as an int).
    torch's own fast accessor where it has one (what its compiled code uses), else the public one."""
    torch = _torch()
    fast = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if fast is not None:
        return fast
    return lambda index: torch.cuda.current_stream(index).cuda_stream


def from_host(out: np.ndarray, kind: str):
    """A numpy result as the caller's kind (copied to the GPU for device kinds; fp8 as uint8)."""
    if kind in (NUMPY, TORCH_CPU):
        return to_caller(out if out.flags.c_contiguous else np.ascontiguousarray(out), kind)  # (keeps 0-d arrays 0-d)
    import cupy

    dtype = out.dtype
    if is_fp8(dtype):
        out = (out if out.flags.c_contiguous else np.ascontiguousarray(out)).view(np.uint8)
    return to_caller(cupy.asarray(out), CUPY if kind == CUDA else kind, dtype)


def to_host(a: Any, kind: str, dtype=None) -> np.ndarray:
    """A numpy copy of any accepted array (the interpreter runs on the host); `dtype`: the
    argument's dtype, for the bytes of an fp8 device array (CuPy uint8)."""
    native = to_native(a, kind)
    if kind in DEVICE_KINDS:
        import cupy

        host = cupy.asnumpy(native)
        if dtype is not None and is_fp8(dtype) and host.dtype == np.uint8:
            return host.view(dtype)
        return host
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
    "mixed_kinds",
    "raw_stream_of_torch",
    "several_devices",
    "stream_scope",
    "to_caller",
    "to_host",
    "to_native",
    "torch_output",
    "unsupported_tensor",
    "write_back",
]
