"""An AdamW optimizer step over a list of parameter arrays of different shapes, updated in place.

    python examples/adamw.py [--show-ir]

`tilec.List[float32]` arguments take Python lists of arrays (any shapes, flattened; position j
of every list has the same shape). The body is traced ONCE, on one element (a 1-D array of a
run-time size), and compiled once for any lists: the list length and the shapes are not part
of the program. Assigning to an argument (`params[...] = ...`) writes the caller's arrays in
place; reading `exp_avgs` after its update sees the new value, as in numpy. On the CPU the
whole step over every array is ONE call into the compiled C (chunks of every array on all
cores); on CUDA it is ONE kernel launch over every array (a table of their addresses).

The formulas are torch.optim.AdamW's (decoupled weight decay; bias corrections from the step
count, computed on the host and passed as runtime floats, so a new step does not recompile).
"""

import math
import sys

import numpy as np

import tilec
from tilec import float32, tile_op


@tile_op
def adamw_step(
    params: tilec.List[float32],
    grads: tilec.List[float32],
    exp_avgs: tilec.List[float32],
    exp_avg_sqs: tilec.List[float32],
    lr: float,
    beta1: float,
    beta2: float,
    eps: float,
    weight_decay: float,
    step_size: float,
    bias_correction2_sqrt: float,
):
    params[...] = params * (1.0 - lr * weight_decay)
    exp_avgs[...] = exp_avgs + (1.0 - beta1) * (grads - exp_avgs)  # torch's lerp_
    exp_avg_sqs[...] = exp_avg_sqs * beta2 + (1.0 - beta2) * grads * grads
    denom = tilec.sqrt(exp_avg_sqs) / bias_correction2_sqrt + eps
    params[...] = params - step_size * (exp_avgs / denom)  # torch's addcdiv_


def hyper(step: int, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=1e-2) -> tuple:
    """The runtime scalars of one step (torch computes the bias corrections the same way)."""
    step_size = lr / (1 - beta1**step)
    return lr, beta1, beta2, eps, weight_decay, step_size, math.sqrt(1 - beta2**step)


def reference_step(p, g, m, v, lr, beta1, beta2, eps, weight_decay, step_size, bc2_sqrt) -> None:
    """The same formulas in numpy (float32 arrays, float64 scalars rounded like tilec's weak scalars)."""
    f = np.float32
    p *= f(1.0 - lr * weight_decay)
    m += f(1.0 - beta1) * (g - m)
    v[...] = v * f(beta2) + f(1.0 - beta2) * g * g
    p -= f(step_size) * (m / (np.sqrt(v) / f(bc2_sqrt) + f(eps)))


def rel(a: np.ndarray, b: np.ndarray) -> float:
    """The largest error relative to max(1, |b|), element by element."""
    return float((np.abs(a.astype(np.float64) - b) / np.maximum(1.0, np.abs(b))).max())


def shapes(rng) -> list[tuple]:
    out = [(1,), (7,), (13, 17), (3, 5, 7), (1000,), (1, 1), (2, 257)]
    while len(out) < 120:
        out.append(tuple(int(d) for d in rng.integers(1, 40, size=rng.integers(1, 4))))
    return out


def main() -> int:
    rng = np.random.default_rng(0)
    if "--show-ir" in sys.argv[1:]:
        for level in ("tile", "mapped", "hw"):
            print(f"// ----- {level} IR -----\n{adamw_step.ir(level)}")
        print(f"// ----- C source -----\n{adamw_step.source()}")
    ok = True
    params = [rng.standard_normal(s, dtype=np.float32) for s in shapes(rng)]
    ref = [p.copy() for p in params]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    m_ref, v_ref = [a.copy() for a in m], [a.copy() for a in v]
    torch_params = torch_opt = None
    try:
        import torch

        torch_params = [torch.nn.Parameter(torch.from_numpy(p.copy())) for p in params]
        torch_opt = torch.optim.AdamW(torch_params, lr=1e-3, weight_decay=1e-2, foreach=False)
    except ImportError:
        pass
    for step in range(1, 4):
        grads = [rng.standard_normal(p.shape, dtype=np.float32) for p in params]
        h = hyper(step)
        assert adamw_step(params, grads, m, v, *h) is None  # updates params, m and v in place
        for args in zip(ref, grads, m_ref, v_ref):
            reference_step(*args, *h)
        err = max(rel(a, b) for a, b in zip(params, ref))
        good = err <= 1e-6 and all(np.allclose(a, b, rtol=1e-6, atol=1e-7) for a, b in zip(m, m_ref))
        if torch_opt is not None:
            for tp, g in zip(torch_params, grads):
                tp.grad = torch.from_numpy(g)
            torch_opt.step()
            terr = max(rel(a, tp.detach().numpy()) for a, tp in zip(params, torch_params))
            good &= terr <= 1e-6
            print(f"step {step}: {len(params)} arrays, max error vs numpy {err:.1e}, vs torch.optim.AdamW {terr:.1e}")
        else:
            print(f"step {step}: {len(params)} arrays, max error vs numpy {err:.1e}")
        ok &= good
    kernels = adamw_step.ir("mapped").count("mapped.kernel @")
    one_call = "tilec_foreach_" in adamw_step.source()
    ok &= kernels == 1 and one_call and adamw_step.trace_count == 1
    print(f"kernels: {kernels}, one C call over all arrays: {one_call}, traces: {adamw_step.trace_count}")
    print(f"AdamW step over {len(params)} arrays in place (float32, CPU): {'OK' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
