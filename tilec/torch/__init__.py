"""The PyTorch bridge (optional: `import tilec` never imports torch; this package does).

- Tensors: every tile op call already takes torch tensors (tilec/frontend/arrays.py, docs/torch.md).
- `tilec.torch.op(tile_op, wrt=...)`: the tile op as a `torch.library` custom op (`tilec::<name>`)
  with a fake implementation from tracing and, for `wrt`, a backward from `tilec.vjp`: it works in
  eager mode, under autograd and inside `torch.compile` graphs (tilec/torch/custom_op.py).
- `with tilec.torch.dispatch() as d:` eager ATen ops on tilec's op library (tilec/torch/aten/),
  the rest in torch with `d.report` naming each fallback (tilec/torch/dispatch.py).
- `torch.compile(model, backend="tilec")` / `tilec.torch.compile(model)` / `backend=Backend()`:
  AOT autograd graphs partitioned into fused regions, one tile op each (tilec/torch/backend.py).

Inside this package `import torch` is the real torch (absolute imports), never this package.
"""

from __future__ import annotations

from tilec.torch.backend import Backend, compile
from tilec.torch.custom_op import TorchOp, op, torch_dtype
from tilec.torch.dispatch import Report, dispatch

__all__ = ["Backend", "Report", "TorchOp", "compile", "dispatch", "op", "torch_dtype"]
