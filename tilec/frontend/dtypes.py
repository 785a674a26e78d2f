"""Element types of the DSL: each knows its numpy dtype and its IR element type."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

from tilec.frontend.errors import user_error


class DType:
    """A tile element type: `tilec.float32`, `tilec.bfloat16`, ... (singletons).

    `np` is the numpy dtype (bfloat16 is `ml_dtypes.bfloat16`), `ir` the IR element type.
    Compares equal to itself and to the matching numpy dtype (`x.dtype == np.float32`)."""

    __slots__ = ("name", "np", "_ir", "kind", "bits", "short")

    def __init__(self, name: str, np_dtype, ir_factory, kind: str, bits: int, short: str):
        self.name = name
        self.np = np.dtype(np_dtype)
        self._ir = ir_factory
        self.kind = kind  # "float", "int" or "bool"
        self.bits = bits
        self.short = short  # the IR spelling: f32, bf16, i8, i1, ...

    @property
    def ir(self) -> Attribute:
        return self._ir()

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_int(self) -> bool:
        return self.kind == "int"

    @property
    def is_bool(self) -> bool:
        return self.kind == "bool"

    @property
    def is_unsigned(self) -> bool:
        """uint8 .. uint64 (ints that are not unsigned are signed; bool is not an int)."""
        return self.short.startswith("ui")

    def __repr__(self) -> str:
        return f"tilec.{self.name}"

    def __str__(self) -> str:
        return self.name

    def __eq__(self, other) -> bool:
        if isinstance(other, DType):
            return self is other
        try:
            return _lookup(other) is self
        except Exception:
            return False

    def __hash__(self) -> int:
        return hash(self.name)

    def __reduce__(self):
        return (as_dtype, (self.name,))


float16 = DType("float16", np.float16, Float16Type, "float", 16, "f16")
bfloat16 = DType("bfloat16", ml_dtypes.bfloat16, BFloat16Type, "float", 16, "bf16")
float32 = DType("float32", np.float32, Float32Type, "float", 32, "f32")
float64 = DType("float64", np.float64, Float64Type, "float", 64, "f64")
int8 = DType("int8", np.int8, lambda: IntegerType(8), "int", 8, "i8")
int16 = DType("int16", np.int16, lambda: IntegerType(16), "int", 16, "i16")
int32 = DType("int32", np.int32, lambda: IntegerType(32), "int", 32, "i32")
int64 = DType("int64", np.int64, lambda: IntegerType(64), "int", 64, "i64")
uint8 = DType("uint8", np.uint8, lambda: IntegerType(8, Signedness.UNSIGNED), "int", 8, "ui8")
uint16 = DType("uint16", np.uint16, lambda: IntegerType(16, Signedness.UNSIGNED), "int", 16, "ui16")
uint32 = DType("uint32", np.uint32, lambda: IntegerType(32, Signedness.UNSIGNED), "int", 32, "ui32")
uint64 = DType("uint64", np.uint64, lambda: IntegerType(64, Signedness.UNSIGNED), "int", 64, "ui64")
bool_ = DType("bool_", np.bool_, lambda: IntegerType(1), "bool", 1, "i1")
float8_e4m3fn = DType("float8_e4m3fn", ml_dtypes.float8_e4m3fn, Float8E4M3FNType, "float", 8, "f8E4M3FN")
float8_e5m2 = DType("float8_e5m2", ml_dtypes.float8_e5m2, Float8E5M2Type, "float", 8, "f8E5M2")

ALL_DTYPES = (
    float16,
    bfloat16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    bool_,
    float8_e4m3fn,
    float8_e5m2,
)

_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NAME.update({d.short: d for d in ALL_DTYPES})
_BY_NAME.update({"bool": bool_, "half": float16, "float": float32, "double": float64})
_BY_NP = {d.np: d for d in ALL_DTYPES}


def _lookup(obj) -> DType | None:
    if isinstance(obj, DType):
        return obj
    if isinstance(obj, str) and obj in _BY_NAME:
        return _BY_NAME[obj]
    if obj is bool:
        return bool_
    if obj is float or obj is int:
        return None  # Python's types have no fixed width: ask for an explicit dtype
    try:
        return _BY_NP.get(np.dtype(obj))
    except TypeError:
        return None


def as_dtype(obj) -> DType:
    """A tilec dtype from a tilec dtype, a numpy dtype or scalar type, or a name ("float32", "bf16")."""
    d = _lookup(obj)
    if d is None:
        names = ", ".join(x.name for x in ALL_DTYPES)
        raise user_error(f"unsupported dtype {obj!r} (supported: {names})")
    return d


def from_ir(t: Attribute) -> DType:
    for d in ALL_DTYPES:
        if d.ir == t:
            return d
    raise user_error(f"element type {t} has no DSL dtype")


def default_acc(dtype: DType) -> DType:
    """f32 for 8- and 16-bit floats, int32 for int8/int16/uint8/uint16, else the dtype itself (as
    `tile.contract`'s default)."""
    if dtype.is_float and dtype.bits < 32:
        return float32
    if dtype.is_int and dtype.bits < 32:
        return int32
    return dtype


class ScalarType:
    """The type of a runtime scalar argument: `tilec.scalar(float32)`, or a parameter annotated
    `float` / `int`. Such an argument takes a Python number at each call; its value is a kernel
    parameter, so changing it does not recompile.

    `weak` (the `float` / `int` annotations) means Python-number semantics inside the program:
    the scalar takes the dtype of the tile it is combined with, as a literal does
    (`p - lr * g` in an f16 op computes in f16). `tilec.scalar(dt)` is a rank-0 tile of exactly
    `dt` (no implicit conversion)."""

    __slots__ = ("dtype", "weak")

    def __init__(self, dtype: DType, weak: bool = False):
        self.dtype = dtype
        self.weak = weak

    def __repr__(self) -> str:
        if self.weak:
            return "float" if self.dtype.is_float else "int"
        return f"tilec.scalar({self.dtype!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, ScalarType) and other.dtype is self.dtype and other.weak == self.weak

    def __hash__(self) -> int:
        return hash((self.dtype.name, self.weak))


def scalar(dtype) -> ScalarType:
    """`tilec.scalar(float32)`: the annotation (or `dtypes=` entry) of a runtime scalar argument
    of exactly that dtype (see ScalarType)."""
    dt = as_dtype(dtype)
    if dt.is_bool:
        raise user_error("tilec.scalar: bool scalars are not supported; pass an int (0 or 1)")
    if dt.is_float and dt.bits == 8:
        raise user_error(f"tilec.scalar: not supported yet: {dt.name} scalars (pass a float32 scalar and cast it)")
    return ScalarType(dt)


class ListType:
    """The type of a list-of-arrays argument, `tilec.List[float32]`: the call takes a list (or
    tuple) of arrays of that dtype, of any shapes, and the program's body is applied to each
    (see docs/dsl.md, Lists of arrays)."""

    __slots__ = ("dtype",)

    def __init__(self, dtype: DType):
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"tilec.List[{self.dtype.name}]"

    def __eq__(self, other) -> bool:
        return isinstance(other, ListType) and other.dtype is self.dtype

    def __hash__(self) -> int:
        return hash(("list", self.dtype.name))


class List:
    """`tilec.List[dtype]`: the annotation (or `dtypes=` entry) of a list-of-arrays argument."""

    def __class_getitem__(cls, dtype) -> ListType:
        dt = as_dtype(dtype)
        return ListType(dt)

    def __init__(self, *args, **kwargs):
        raise user_error("tilec.List is an annotation: write `params: tilec.List[tilec.float32]`")


WEAK_FLOAT = ScalarType(float64, weak=True)
WEAK_INT = ScalarType(int64, weak=True)


def as_arg_type(obj) -> DType | ScalarType | ListType:
    """An argument's type from an annotation or a `dtypes=` entry: a dtype (an array of it),
    `float` / `int` (a runtime Python number) or `tilec.scalar(dtype)`."""
    if isinstance(obj, ScalarType | ListType):
        return obj
    if obj is float:
        return WEAK_FLOAT
    if obj is int:
        return WEAK_INT
    return as_dtype(obj)
