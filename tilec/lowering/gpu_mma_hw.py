"""Lowering of fragment ops (frag_fill/frag_load/mma/frag_store) and async copies to hw.nv.

Filled in with the tensor-core GEMM; until then every such op is reported as unsupported by the
caller (mapped-to-hw-nv), never silently dropped.
"""

from __future__ import annotations

from xdsl.ir import Operation


def lower_fragment_op(kernel, op: Operation) -> bool:
    """Lower `op` inside `kernel` (a mapped-to-hw-nv `_Kernel`); False if it is not handled here."""
    return False
