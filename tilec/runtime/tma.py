"""TMA tensor maps (CUtensorMap) for the CUDA runtime, encoded with the driver's
`cuTensorMapEncodeTiled` through ctypes (no cuda-python needed) and cached per array and box.

A kernel with `mapped.tma_load`s takes, after its other parameters, one 128-byte map per (source
argument, box): a 2-D row-major f16/bf16 matrix [rows, cols], 128-byte swizzle, zero fill
outside the matrix (shared/notes/hopper.md §1-2 has the verified facts). The map embeds the
array's address, so the key is (address, shape, dtype, box): an array freed and another one
allocated at the same address with the same shape gets the same, still valid, map.
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict

import numpy as np

from tilec.diagnostics import TilecError

DATA_TYPES = {"float16": 6, "bfloat16": 9}
"""CUtensorMapDataType of the element types a TMA load moves."""
SWIZZLE_128B = 3
L2_PROMOTION_128B = 2
CACHE_SIZE = 256


class TensorMaps:
    """Encodes tensor maps and keeps the most recent CACHE_SIZE of them (with their buffers)."""

    def __init__(self) -> None:
        self._encode = None
        self._cache: OrderedDict[tuple, tuple] = OrderedDict()

    def _encoder(self):
        if self._encode is None:
            try:
                lib = ctypes.CDLL("libcuda.so.1")
            except OSError as e:
                raise TilecError(f"TMA tensor maps need the CUDA driver library (libcuda.so.1): {e}") from None
            f = lib.cuTensorMapEncodeTiled
            f.restype = ctypes.c_int
            u64p, u32p = ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint32)
            f.argtypes = [
                ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p, u64p, u64p, u32p, u32p,
                ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
            ]  # fmt: skip
            self._encode = f
        return self._encode

    def get(self, array, rows: int, cols: int):
        """The kernel parameter (a CuPy CPointer to the 128 bytes) of the map of a 2-D array."""
        return self.get_raw(int(array.data.ptr), tuple(array.shape), np.dtype(array.dtype), rows, cols)

    def get_raw(self, ptr: int, shape: tuple, dtype: np.dtype, rows: int, cols: int):
        """The same for a row-major [shape] matrix of `dtype` at device address `ptr`."""
        from cupy.cuda.function import CPointer

        key = (ptr, shape, dtype.str, rows, cols)
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit[1]
        buf = _encode(self._encoder(), ptr, shape, dtype, rows, cols)
        param = CPointer(ctypes.addressof(buf))
        self._cache[key] = (buf, param)
        if len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return param


def _encode(encode, ptr: int, shape: tuple, dtype: np.dtype, rows: int, cols: int):
    """A 64-byte aligned ctypes buffer holding the map of a [shape] row-major matrix at `ptr`."""
    # bf16 may arrive as its 16 bits: a 2-byte void (how plans and CuPy, which has no bf16, name it)
    name = "bfloat16" if dtype.kind == "V" and dtype.itemsize == 2 else dtype.name
    if len(shape) != 2 or name not in DATA_TYPES:
        raise TilecError(f"a TMA tensor map covers a 2-D f16/bf16 array, got {shape} {dtype.name}")
    if ptr % 16:
        raise TilecError(
            f"not supported yet: a TMA load of an array whose address is not 16-byte aligned ({ptr:#x}); "
            "pass a contiguous array that starts on its own allocation, or compile with gemm=mma"
        )
    raw = ctypes.create_string_buffer(128 + 64)
    addr = -(-ctypes.addressof(raw) // 64) * 64
    dims = (ctypes.c_uint64 * 2)(shape[1], shape[0])
    strides = (ctypes.c_uint64 * 1)(shape[1] * dtype.itemsize)
    box = (ctypes.c_uint32 * 2)(cols, rows)
    elem = (ctypes.c_uint32 * 2)(1, 1)
    err = encode(addr, DATA_TYPES[name], 2, ptr, dims, strides, box, elem, 0, SWIZZLE_128B, L2_PROMOTION_128B, 0)
    if err:
        raise TilecError(
            f"cuTensorMapEncodeTiled failed (CUresult {err}) for a {shape} {dtype.name} array, box {rows}x{cols}"
        )
    out = ctypes.create_string_buffer(128)
    ctypes.memmove(out, addr, 128)
    return out


__all__ = ["TensorMaps"]
