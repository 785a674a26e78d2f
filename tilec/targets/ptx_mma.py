"""PTX for the tensor-core and async-copy instructions (cp.async, ldmatrix, mma.sync)."""

from __future__ import annotations

from xdsl.ir import Operation


def emit_mma_op(emitter, op: Operation) -> bool:
    """Print `op` if it is one of the tensor-core family; False otherwise."""
    return False
