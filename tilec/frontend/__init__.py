"""The Python DSL: `@tile_op` functions traced into the `tile` dialect (see docs/dsl.md)."""

from tilec.frontend.dtypes import (
    DType,
    as_dtype,
    bfloat16,
    bool_,
    float16,
    float32,
    float64,
    int8,
    int32,
    int64,
)
from tilec.frontend.errors import TileError
from tilec.frontend.op import Specialization, TileFunction, debug_print, interpret, tile_op
from tilec.frontend.ops import (
    abs_,
    astype,
    broadcast_to,
    erf,
    exp,
    log,
    maximum,
    mean,
    minimum,
    reduce_max,
    reduce_min,
    reduce_sum,
    reshape,
    rsqrt,
    sqrt,
    tanh,
    tile_contract,
    transpose,
    where,
)
from tilec.frontend.tracer import Dim, Tile

__all__ = [
    "DType", "Dim", "Specialization", "Tile", "TileError", "TileFunction",
    "abs_", "as_dtype", "astype", "bfloat16", "bool_", "broadcast_to", "erf", "exp", "float16",
    "float32", "float64", "int8", "int32", "int64", "interpret", "debug_print", "log", "maximum", "mean", "minimum",
    "reduce_max", "reduce_min", "reduce_sum", "reshape", "rsqrt", "sqrt", "tanh", "tile_contract",
    "tile_op", "transpose", "where",
]
