"""AdamW over lists of arrays on the CPU: tilec (one call over every array, in place) against the
same formulas in numpy (in place, array by array) and torch's foreach AdamW (CPU tensors).

    python benchmarks/adamw_cpu.py [--rounds 9] [--torch]

Prints per configuration the median time of each and the effective bandwidth of tilec (7 float32
accesses per element: p, g, m, v read; p, m, v written). Every tilec result is checked first.
With --torch, torch is imported and timed in the same process: its OpenMP pool (a second one)
then competes with tilec's threads for the cores, which slows tilec's parallel foreach down
(measured 2-3x on a 2-core machine), so time torch separately from tilec's own numbers.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
from adamw import adamw_step, hyper, reference_step  # noqa: E402


def median_time(fn, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--torch", action="store_true", help="also time torch's foreach AdamW (in this process)")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    torch = None
    if args.torch:  # opt-in: torch's own OpenMP thread pool in the process slows tilec's threads down
        try:
            import torch
            from torch.optim.adamw import adamw as torch_adamw
        except ImportError:
            torch = None
    for n, size in ((120, 1_000), (100, 100_000), (10, 4_000_000)):
        ps = [rng.standard_normal(size, dtype=np.float32) for _ in range(n)]
        gs = [rng.standard_normal(size, dtype=np.float32) for _ in range(n)]
        ms = [np.zeros_like(p) for p in ps]
        vs = [np.zeros_like(p) for p in ps]
        h = hyper(1)
        ref = [[a.copy() for a in x] for x in (ps, gs, ms, vs)]
        adamw_step(ps, gs, ms, vs, *h)
        for args_ in zip(*ref):
            reference_step(*args_, *h)
        assert all(np.allclose(a, b, rtol=1e-6, atol=1e-6) for a, b in zip(ps, ref[0]))
        t_tilec = median_time(lambda: adamw_step(ps, gs, ms, vs, *h), args.rounds)
        t_numpy = median_time(lambda: [reference_step(*a, *h) for a in zip(ps, gs, ms, vs)], args.rounds)
        line = f"{n} x {size:,} f32: tilec {t_tilec * 1e3:.2f} ms ({7 * 4 * n * size / t_tilec / 1e9:.1f} GB/s), "
        line += f"numpy {t_numpy * 1e3:.2f} ms ({t_numpy / t_tilec:.2f}x)"
        if torch is not None:
            tp, tg, tm, tv = ([torch.from_numpy(a) for a in x] for x in (ps, gs, ms, vs))
            steps = [torch.tensor(1.0) for _ in ps]

            def run_torch():
                torch_adamw(tp, tg, tm, tv, [], steps, foreach=True, amsgrad=False, beta1=0.9, beta2=0.999,
                            lr=1e-3, weight_decay=1e-2, eps=1e-8, maximize=False)  # fmt: skip

            t_torch = median_time(run_torch, args.rounds)
            line += f", torch foreach {t_torch * 1e3:.2f} ms ({t_torch / t_tilec:.2f}x)"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
