"""tilec.vjp / tilec.grad end to end: derived backward programs against torch.autograd (CPU,
f64) and central finite differences, through the interpreter and the compiled CPU path."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
from tilec import float64, tile_op

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(12)


def torch_vjp(fn, primals, cts, wrt):
    ts = [torch.tensor(p, dtype=torch.float64, requires_grad=i in wrt) for i, p in enumerate(primals)]
    outs = fn(*ts)
    outs = outs if isinstance(outs, tuple) else (outs,)
    grads = torch.autograd.grad(outs, [ts[i] for i in wrt], [torch.tensor(c) for c in cts], allow_unused=True)
    return [np.zeros_like(primals[i]) if g is None else g.numpy() for i, g in zip(wrt, grads)]


def run_both(v, *args):
    """The VJP through the interpreter and compiled for the CPU (each checked by the caller)."""
    return [v.interpret(*args), v(*args)]


@tile_op(dtype=float64, dims=["M", "N"])
def exp_mul_sum(x, w):
    return (tilec.exp(x) * w + x).sum(-1)


@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (13, 5)])
def test_skeleton_add_mul_exp_sum(shape):
    x, w = RNG.standard_normal(shape), RNG.standard_normal(shape)
    g = RNG.standard_normal(shape[:1])
    want = torch_vjp(lambda x, w: (torch.exp(x) * w + x).sum(-1), [x, w], [g], [0, 1])
    v = tilec.vjp(exp_mul_sum, wrt=("x", "w"))
    for dx, dw in run_both(v, x, w, g):
        np.testing.assert_allclose(dx, want[0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(dw, want[1], rtol=1e-12, atol=1e-12)
