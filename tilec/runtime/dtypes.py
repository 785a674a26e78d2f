"""numpy dtypes of tile element types (bf16 and fp8 are ml_dtypes.bfloat16 / float8_e4m3fn / float8_e5m2)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from xdsl.ir import Attribute

from tilec.diagnostics import TilecError

_TABLE = {
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "ui8": np.dtype(np.uint8),
    "ui16": np.dtype(np.uint16),
    "ui32": np.dtype(np.uint32),
    "ui64": np.dtype(np.uint64),
    "f8E4M3FN": np.dtype(ml_dtypes.float8_e4m3fn),
    "f8E5M2": np.dtype(ml_dtypes.float8_e5m2),
}


def numpy_dtype(t: Attribute) -> np.dtype:
    try:
        return _TABLE[str(t)]
    except KeyError:
        raise TilecError(f"no numpy dtype for element type {t}") from None


FP8 = (np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e5m2))


def on_device(dt: np.dtype) -> np.dtype:
    """The dtype of a CuPy array holding `dt`: CuPy has no fp8 dtype, so fp8 lives there as uint8 codes."""
    return np.dtype(np.uint8) if dt in FP8 else dt


def device_dtype(t: Attribute) -> np.dtype:
    """The CuPy dtype of elements of type `t` (`numpy_dtype`, with fp8 as uint8)."""
    return on_device(numpy_dtype(t))
