"""Matrix products over tiles with torch's conventions (`mm`, `bmm`, `addmm`)."""

from __future__ import annotations

import tilec


def mm(a, b):
    """a (M x K) @ b (K x N), accumulated in the op's acc type."""
    return tilec.tile_contract(a, b, axes=[(1, 0)])


def bmm(a, b):
    """Batched a (B x M x K) @ b (B x K x N)."""
    return tilec.tile_contract(a, b, axes=[(2, 1)], batch=[(0, 0)])


def addmm(bias, a, b, beta=1, alpha=1):
    """beta * bias + alpha * (a @ b); bias broadcasts to (M, N). beta == 0 ignores bias (NaN in
    it does not propagate, as torch)."""
    prod = mm(a, b)
    if not (isinstance(alpha, int | float) and alpha == 1):
        prod = prod * alpha
    if isinstance(beta, int | float) and beta == 0:
        return prod
    return prod + (bias if isinstance(beta, int | float) and beta == 1 else bias * beta)
