"""tilec's op library: tile-level building blocks of a training step, forward and backward.

Each function takes and returns `tilec.Tile` values inside a tile program (`@tile_op`), so it
fuses with whatever surrounds it; none of them imports torch. The PyTorch bridge maps ATen ops
onto them (tilec/torch/aten/), and user programs may call them directly::

    from tilec.library import nn

    @tile_op(dtype=float32)
    def block(x, w, b):
        return nn.gelu(tile_contract(x, w, axes=[(-1, 0)]) + b)

- `nn`: activations and their backward, softmax / log-softmax and their backward, layer norm
  forward and backward, negative log-likelihood forward and backward.
- `linalg`: matrix products with torch's batch and broadcasting conventions.
- `attention`: scaled dot-product attention forward (with its log-sum-exp) and backward.
- `mla`: multi-head latent attention decoding over a paged KV cache (FlashMLA's shapes).

16-bit float inputs are computed in float32 and rounded once at the end (torch's "opmath").
"""

from __future__ import annotations

from tilec.library import attention, linalg, mla, nn

__all__ = ["attention", "linalg", "mla", "nn"]
