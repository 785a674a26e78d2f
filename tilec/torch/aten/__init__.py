"""ATen ops on tilec kernels: the table from ATen overload names to plans (`registry.Plan`).

One module per family: `pointwise` (arithmetic, comparisons, math, activations and their
backward, in-place and optimizer updates, copies), `reductions` (sum, mean, amax, amin),
`linalg` (mm, addmm, bmm), `nn` (softmax, layer and batch norm, NLL loss, embedding, and their
backward), `conv` (convolution, pooling, and their backward), `shape` (arange, full, cat,
stack, tril / triu, masked_fill), `attention` (scaled dot-product attention and its backward),
`foreach` (the `_foreach_` multi-tensor forms, one tile op per call).
The bodies are built from `tilec.library`'s tile-level functions. `tilec.torch.dispatch()` sends
eager ATen calls here (tilec/torch/dispatch.py).
"""

from __future__ import annotations

from types import MappingProxyType

from tilec.torch.aten import attention, conv, foreach, linalg, nn, pointwise, reductions, shape
from tilec.torch.aten.registry import Decline, Library, NoKernel, Plan, bind


def default_table() -> MappingProxyType:
    """Every ATen overload tilec has a kernel for (name without `aten::`) -> its plan function."""
    t: dict = {}
    for module in (pointwise, reductions, linalg, nn, conv, shape, attention):
        t.update(module.table())
    t.update(foreach.table(t))  # the _foreach_ forms, element by element through the entries above
    return MappingProxyType(t)


__all__ = ["Decline", "Library", "NoKernel", "Plan", "bind", "default_table"]
