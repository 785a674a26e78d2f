"""The cost of a kernel in a NEW process whose disk cache already holds it, minus tracing.

    python benchmarks/warm_start.py --target cpu [--runs 7]     # or --target cuda (needs a GPU)

For a GEMM and a softmax: one process compiles into an empty private cache (cold); then `runs`
fresh processes each time their first call `op(*arrays)` (cache lookup, load, run, sync) and
subtract the time tracing takes in that process (the program's trace, which any first call
needs). Python bytecode is compiled in the cold process, as `pip install` does at install time,
so warm processes do not compile tilec's source. Reports the median warm number, the cold compile, and that no pass ran in the warm
processes (PassManager.run raises there). Prints a JSON line per workload.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import json, os, sys, time
t_import = time.perf_counter()
import numpy as np
import tilec
from tilec import float16, float32, tile_contract, tile_op
from tilec.passes.pipeline import PassManager

target, workload, warm = sys.argv[1], sys.argv[2], sys.argv[3] == "warm"
if warm:
    def refuse(self, ctx, module):
        raise RuntimeError("a pass ran in a warm process")
    PassManager.run = refuse

if target == "cuda":
    import cupy as xp
    dt, np_dt = float16, np.float16
else:
    xp, dt, np_dt = np, float32, np.float32

if workload == "gemm":
    @tile_op(dtype=dt)
    def op(a, b):
        return tile_contract(a, b, axes=[(-1, 0)])
    rng = np.random.default_rng(0)
    arrays = [xp.asarray(rng.standard_normal((512, 512)).astype(np_dt)) for _ in range(2)]
else:
    @tile_op(dtype=dt)
    def op(x):
        e = tilec.exp(x - tilec.max(x, axis=-1, keepdims=True))
        return e / tilec.sum(e, axis=-1, keepdims=True)
    arrays = [xp.asarray(np.random.default_rng(0).standard_normal((1024, 1024)).astype(np_dt))]

if target == "cuda":
    xp.cuda.Device().synchronize()
t0 = time.perf_counter()
op._specialize_arrays(arrays)          # tracing: what every first call needs
t1 = time.perf_counter()
out = op(*arrays)
if target == "cuda":
    xp.cuda.Device().synchronize()
t2 = time.perf_counter()
k = op.compile(target, *arrays)
print(json.dumps({"trace_ms": (t1 - t0) * 1e3, "first_call_ms": (t2 - t1) * 1e3, "hit": k.cache_hit}))
"""


def run_child(target: str, workload: str, warm: bool, env: dict) -> dict:
    r = subprocess.run(
        [sys.executable, "-c", CHILD, target, workload, "warm" if warm else "cold"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    if r.returncode != 0:
        raise SystemExit(f"child failed ({target} {workload} {'warm' if warm else 'cold'}):\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def measure(target: str, runs: int = 7) -> list[dict]:
    out = []
    with tempfile.TemporaryDirectory() as cache:
        # bytecode as an installed tilec has it (pip compiles .pyc files at install time): the
        # cold process writes it under a private prefix, so a read-only tree or
        # PYTHONDONTWRITEBYTECODE does not make every warm process recompile tilec's source
        env = {**os.environ, "TILEC_CACHE_DIR": cache, "PYTHONPYCACHEPREFIX": os.path.join(cache, "pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for workload in ("gemm", "softmax"):
            cold = run_child(target, workload, False, env)
            warm = [run_child(target, workload, True, env) for _ in range(runs)]
            assert all(w["hit"] for w in warm), "a warm process missed the cache"
            row = {
                "target": target,
                "workload": workload,
                "cold_first_call_ms": cold["first_call_ms"],
                "warm_first_call_ms": statistics.median(w["first_call_ms"] for w in warm),
                "warm_spread_ms": max(w["first_call_ms"] for w in warm) - min(w["first_call_ms"] for w in warm),
                "trace_ms": statistics.median(w["trace_ms"] for w in warm),
                "runs": runs,
                "passes_in_warm_processes": 0,
            }
            print(json.dumps(row), flush=True)
            out.append(row)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    rows = measure(args.target, args.runs)
    print("| target | workload | cold first call | warm first call (median) | tracing |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['target']} | {r['workload']} | {r['cold_first_call_ms']:.0f} ms | {r['warm_first_call_ms']:.1f} ms | {r['trace_ms']:.1f} ms |"
        )


if __name__ == "__main__":
    main()
