"""Helpers of the autodiff rule tests (test_autodiff_indexing.py, test_autodiff_nn.py,
test_autodiff_e2e.py): a derived VJP (`tilec.vjp`) run through the interpreter or compiled for
the CPU (or CUDA), checked against torch.autograd (CPU torch, float64) and against central finite
differences of the forward program in float64.

The finite-difference check is directional: for a random direction v_k per differentiated
argument, <ct, (f(x + h v) - f(x - h v)) / 2h> must equal sum_k <dx_k, v_k>. It needs only two
forward runs (interpreted) and checks every cotangent at once.
"""

from __future__ import annotations

import numpy as np

import tilec

TARGETS = ("interp", "cpu")


def as_tuple(r) -> tuple:
    return tuple(r) if isinstance(r, tuple | list) else (r,)


def run(op, args, target: str) -> tuple:
    """op's results on `args`: interpreted, compiled for the CPU, or (target "cuda") on the GPU
    through CuPy, copied back to numpy."""
    if target == "interp":
        r = tilec.interpret(op, *args) if isinstance(op, tilec.TileFunction) else op.interpret(*args)
        return tuple(np.asarray(v) for v in as_tuple(r))
    if target == "cpu":
        return tuple(np.asarray(v) for v in as_tuple(op(*args)))
    import cupy as cp

    dev = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    return tuple(cp.asnumpy(v) for v in as_tuple(op(*dev)))


def derived_vjp(op, wrt, primals, cts, target: str) -> tuple:
    """The cotangents of `wrt` from tilec.vjp(op, wrt=...) given output cotangents `cts`."""
    grads = run(tilec.vjp(op, wrt=tuple(wrt)), [*primals, *cts], target)
    assert len(grads) == len(wrt), f"{len(grads)} cotangents for wrt={wrt}"
    return grads


def random_cts(rng, outs) -> list[np.ndarray]:
    return [rng.standard_normal(np.shape(o)).astype(np.asarray(o).dtype) for o in outs]


def torch_vjp(fn, primals, wrt_index, cts) -> list[np.ndarray]:
    """torch.autograd's VJP of fn (torch tensors in, a tensor or a tuple out) at `primals`
    (float arrays become float64 tensors, others stay as they are)."""
    import torch

    ts = []
    for i, p in enumerate(primals):
        if isinstance(p, np.ndarray):
            t = torch.from_numpy(p.astype(np.float64) if p.dtype.kind == "f" else p.copy())
            if i in wrt_index:
                t.requires_grad_(True)
            ts.append(t)
        else:
            ts.append(p)
    outs = fn(*ts)
    outs = outs if isinstance(outs, tuple | list) else (outs,)
    grads = torch.autograd.grad(
        outs,
        [ts[i] for i in wrt_index],
        [torch.from_numpy(np.asarray(c, np.float64)) for c in cts],
        allow_unused=True,
    )
    return [np.zeros(primals[i].shape) if g is None else g.detach().numpy() for i, g in zip(wrt_index, grads)]


def fd_check(op, wrt_index, primals, cts, grads, rng, h=1e-6, rtol=1e-6, tries=3) -> None:
    """Central differences of the interpreted forward of `op` (float64) along a random direction
    against the derived cotangents `grads` (one per index in `wrt_index`). A step that crosses a
    kink (relu at 0, a max-pool near-tie changing hands: two window values 2.7e-6 apart made a
    1e-6 step fail along every direction) makes the difference quotient wrong, not the gradient,
    so up to `tries` fresh directions are tried, each with a step 10x smaller: a wrong gradient
    misses along almost every direction (its error dotted with a Gaussian direction is 0 with
    probability 0)."""
    failures = []
    for attempt in range(tries):
        h = h if attempt == 0 else h / 10
        dirs = [rng.standard_normal(primals[i].shape) for i in wrt_index]

        def shifted(sign, dirs=dirs, h=h):
            args = list(primals)
            for i, v in zip(wrt_index, dirs):
                args[i] = primals[i] + sign * h * v
            return run(op, args, "interp")

        plus, minus = shifted(1.0), shifted(-1.0)
        lhs = sum(float(np.sum(c * (p - m) / (2 * h))) for c, p, m in zip(cts, plus, minus))
        rhs = sum(float(np.sum(g * v)) for g, v in zip(grads, dirs))
        scale = sum(float(np.sum(np.abs(g * v))) for g, v in zip(grads, dirs)) + 1e-30
        if abs(lhs - rhs) <= rtol * scale + 1e-9:
            return
        failures.append(f"finite differences {lhs} vs derived {rhs} (scale {scale})")
    raise AssertionError("; ".join(failures))


def check_rule(
    rng, op, primals, wrt, torch_fn=None, targets=TARGETS, fd=True, rtol=1e-10, atol=1e-10, fd_rtol=1e-6
) -> list[tuple]:
    """The derived VJP of `op` (wrt: parameter names) on `primals` with random output cotangents,
    for each target: against torch_fn's autograd (if given) and, once, finite differences.
    Returns the cotangents of each target."""
    names = list(op.params)
    wrt_index = [names.index(n) for n in wrt]
    outs = run(op, primals, "interp")
    cts = random_cts(rng, outs)
    want = torch_vjp(torch_fn, primals, wrt_index, cts) if torch_fn is not None else None
    results = []
    for target in targets:
        grads = derived_vjp(op, wrt, primals, cts, target)
        for k, g in enumerate(grads):
            p = primals[wrt_index[k]]
            assert g.shape == p.shape and g.dtype == p.dtype, f"{target}: cotangent {wrt[k]} is {g.dtype}{g.shape}"
            if want is not None:
                np.testing.assert_allclose(
                    g, want[k], rtol=rtol, atol=atol, err_msg=f"{target}: d{wrt[k]} vs torch.autograd"
                )
        results.append(grads)
    if fd:
        fd_check(op, wrt_index, primals, cts, results[0], rng, rtol=fd_rtol)
    return results
