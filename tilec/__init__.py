"""tilec: a tile-level kernel compiler.

The public API is the Python DSL (docs/dsl.md)::

    import tilec
    from tilec import tile_op, tile_contract, float32

    @tile_op(dtype=float32, dims=["M", "N", "K"])
    def matmul(A, B):
        return tile_contract(A, B, axes=[(-1, 0)])

`tilec.sum`, `tilec.max`, `tilec.min`, `tilec.abs` and `tilec.round` shadow Python's builtins inside this
namespace only (as numpy's do). The DSL names are loaded on first use, so tools that only need
the IR (tilec-opt) do not import numpy.
"""

from __future__ import annotations

import importlib

from tilec.diagnostics import IndexOutOfRange, NotSupportedYet, SourceLocation, TilecError

__version__ = "0.1.0"

# public name -> attribute of tilec.frontend
_FRONTEND = {
    name: name
    for name in (
        "DType Dim Tile TileError TileFunction as_dtype astype bfloat16 bool_ broadcast_to debug_print erf exp float16 "
        "float32 float64 int8 int32 int64 interpret log maximum mean minimum reshape rsqrt sqrt tanh "
        "tile_contract tile_op transpose where "
        "int16 uint8 uint16 uint32 uint64 bitcast float8_e4m3fn float8_e5m2 "
        "acos acosh asin asinh atan atan2 atanh ceil clip cos cosh exp2 expm1 floor isfinite isinf isnan log10 "
        "log1p log2 sigmoid sign sin sinh softplus tan trunc"
    ).split()
}
_FRONTEND.update({"ScalarType": "ScalarType", "scalar": "scalar", "profile": "profile"})
_FRONTEND.update({"List": "List", "ListType": "ListType"})
_FRONTEND.update({n: n for n in "index_add one_hot scatter_add take take_along_axis".split()})
_FRONTEND.update(
    {n: n for n in "adaptive_avg_pool adaptive_max_pool avg_pool avg_pool_backward max_pool max_pool_backward".split()}
)  # pooling (issue 11)
_FRONTEND.update({n: n for n in "argmax argmin cumprod cumsum logcumsumexp".split()})
_FRONTEND.update({n: n for n in "argsort sort topk".split()})  # order (issue 11, item 5)
_FRONTEND.update({n: n for n in "conv conv_transpose conv_backward_input conv_backward_weight".split()})
_FRONTEND.update({"abs": "abs_", "sum": "reduce_sum", "max": "reduce_max", "min": "reduce_min", "round": "round_"})
_FRONTEND.update(
    {
        n: n
        for n in "arange concatenate dynamic_slice flip full full_like iota ones ones_like pad stack zeros zeros_like".split()
    }
)

# public name -> attribute of tilec.autodiff (reverse-mode autodiff, docs/autodiff.md)
_AUTODIFF = {n: n for n in "vjp grad".split()}

# sum, max, min, abs and round stay out of `from tilec import *`, which would shadow the builtins
# (and `random`, the stdlib module's name).
__all__ = [
    "IndexOutOfRange",
    "NotSupportedYet",
    "SourceLocation",
    "TilecError",
    *sorted(set(_FRONTEND) - {"abs", "sum", "max", "min", "round"}),
    *sorted(_AUTODIFF),
]


def __getattr__(name: str):
    if name == "random":  # a submodule (tilec/random.py): `from tilec.random import uniform` works too
        return importlib.import_module("tilec.random")
    if name in _AUTODIFF:
        value = getattr(importlib.import_module("tilec.autodiff"), _AUTODIFF[name])
        globals()[name] = value
        return value
    attr = _FRONTEND.get(name)
    if attr is None:
        raise AttributeError(f"module 'tilec' has no attribute '{name}'")
    value = getattr(importlib.import_module("tilec.frontend"), attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_FRONTEND) | set(_AUTODIFF) | {"random"})
