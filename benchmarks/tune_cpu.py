"""Kernel selection on the CPU (issue 16): per GEMM shape, the default (analytic) choice and the
tuned one against numpy, and what the model's early stop saves.

For each shape: `op.tune` twice from a cold kernel cache (a fresh op and cache directory each),
once with the model skipping what it rules out (`model_margin=1.5`, the default) and once
measuring every candidate (`model_margin=None`); the wall time of each tuning run, its
candidates (timed, skipped) and its winner. Then the default kernel, both winners and numpy's
`a @ b` are timed in alternating rounds (benchmarks/timing.cpu_rounds: one untimed call, then
the median of 3, per block; medians over rounds), each result first checked against numpy.

    python benchmarks/tune_cpu.py                      # the shapes below, 60 s budget each
    python benchmarks/tune_cpu.py --quick              # two small shapes (seconds)
    python benchmarks/tune_cpu.py --shapes 512x512x512,8x4096x1024 --budget 30

Output: a Markdown table on stdout and benchmarks/out/tune-cpu.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# short spins for both thread pools, before numpy loads OpenBLAS (benchmarks/README.md: an idle
# OpenBLAS worker otherwise spins ~0.1 s after each call, on the cores tilec's next call uses)
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
os.environ.setdefault("GOMP_SPINCOUNT", "10000")

import numpy as np  # noqa: E402
from timing import cpu_rounds, machine_name  # noqa: E402  (benchmarks/timing.py)

SHAPES = [
    # (name, batch, M, N, K)
    ("square 256", 1, 256, 256, 256),
    ("square 1024", 1, 1024, 1024, 1024),
    ("odd 333x517x129", 1, 333, 517, 129),
    ("MLP up 128x3072x768", 1, 128, 3072, 768),
    ("MLP down 128x768x3072", 1, 128, 768, 3072),
    ("decode 8x4096x1024", 1, 8, 4096, 1024),
    ("tall-skinny 2048x64x2048", 1, 2048, 64, 2048),
    ("batched 16x128x128x64", 16, 128, 128, 64),
]
QUICK = [("square 96", 1, 96, 96, 96), ("odd 37x61x29", 1, 37, 61, 29)]


def make_op(batch: int):
    from tilec import float32, tile_contract, tile_op

    if batch == 1:

        @tile_op(dtype=float32)
        def mm(a, b):
            return tile_contract(a, b, axes=[(-1, 0)])

        return mm

    @tile_op(dtype=float32)
    def bmm(a, b):
        return tile_contract(a, b, axes=[(-1, 1)], batch=[(0, 0)])

    return bmm


def tune_cold(batch: int, a, b, budget: float, margin) -> tuple[dict, float, object]:
    """One tuning run from nothing: a fresh op, kernel cache and tuning file."""
    from tilec.tuning import TuneStore

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TILEC_CACHE_DIR"] = str(Path(tmp) / "cache")
        op = make_op(batch)
        t0 = time.perf_counter()
        r = op.tune(a, b, budget_s=budget, progress=False, model_margin=margin, store=TuneStore(Path(tmp) / "t.json"))
        wall = time.perf_counter() - t0
    return r.options, wall, r


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", default="", help="comma-separated MxNxK (or BxMxNxK)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--budget", type=float, default=60.0)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--out", default="benchmarks/out")
    args = ap.parse_args()
    shapes = QUICK if args.quick else SHAPES
    if args.shapes:
        shapes = []
        for s in args.shapes.split(","):
            d = [int(x) for x in s.split("x")]
            shapes.append((s, *([1] + d if len(d) == 3 else d)))
    rng = np.random.default_rng(0)
    rows = []
    for name, batch, m, n, k in shapes:
        lead = (batch,) if batch > 1 else ()
        a = rng.standard_normal((*lead, m, k)).astype(np.float32)
        b = rng.standard_normal((*lead, k, n)).astype(np.float32)
        ref = a @ b
        runs = {}
        for label, margin in (("model", 1.5), ("full", None)):
            opts, wall, r = tune_cold(batch, a, b, args.budget, margin)
            runs[label] = {"options": opts, "wall_s": wall, "tried": r.tried, "skipped": r.skipped, "failed": r.failed}
        # the default and both winners, each checked, then timed against numpy in rounds
        op = make_op(batch)
        kernels = {"default": op.compile("cpu", a, b)}
        for label in ("model", "full"):
            kernels[label] = op.compile("cpu", a, b, **runs[label]["options"])
        for label, kern in kernels.items():
            got = kern(a, b)
            got = got[0] if isinstance(got, tuple) else got
            err = float(np.abs(got - ref).max() / max(1.0, np.abs(ref).max()))
            assert err < 1e-4, (name, label, err)
        times, np_times = {}, []
        for label, kern in kernels.items():
            t_np, times[label], _ = cpu_rounds(lambda: a @ b, lambda kern=kern: kern(a, b), args.rounds)
            np_times.append(t_np)
        t_np = statistics.median(np_times)
        row = {
            "shape": name,
            "b": batch,
            "m": m,
            "n": n,
            "k": k,
            "numpy_ms": 1e3 * t_np,
            **{f"{label}_ms": 1e3 * t for label, t in times.items()},
            "runs": runs,
        }
        rows.append(row)
        print(
            f"{name:28} default {row['default_ms']:.3f} ms, tuned {row['model_ms']:.3f} / {row['full_ms']:.3f} ms, "
            f"numpy {row['numpy_ms']:.3f} ms; tuning {runs['model']['wall_s']:.0f} s "
            f"({runs['model']['tried']} timed, {runs['model']['skipped']} skipped) vs {runs['full']['wall_s']:.0f} s "
            f"({runs['full']['tried']} timed)",
            flush=True,
        )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    meta = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": machine_name("cpu"),
        "budget_s": args.budget,
        "rounds": args.rounds,
        "command": "python benchmarks/tune_cpu.py " + " ".join(sys.argv[1:]),
    }
    (out / "tune-cpu.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    print(
        "\n| shape | numpy ms | default / numpy | tuned / numpy | default / tuned | tuned options | "
        "tuning s (model) | timed / skipped | tuning s (no model) | timed | same winner |"
    )
    print("|" + "---|" * 11)
    within = 0
    for r in rows:
        best = min(r["model_ms"], r["full_ms"])
        within += r["default_ms"] <= 1.1 * best
        mo, fu = r["runs"]["model"], r["runs"]["full"]
        opts = " ".join(f"{k.replace('_', '-')}={v}" for k, v in mo["options"].items()) or "(defaults)"
        print(
            f"| {r['shape']} | {r['numpy_ms']:.3f} | {r['numpy_ms'] / r['default_ms']:.2f}x | "
            f"{r['numpy_ms'] / r['model_ms']:.2f}x | {r['default_ms'] / r['model_ms']:.2f} | {opts} | "
            f"{mo['wall_s']:.0f} | {mo['tried']} / {mo['skipped']} | {fu['wall_s']:.0f} | {fu['tried']} | "
            f"{'yes' if mo['options'] == fu['options'] else 'no'} |"
        )
    speed = lambda key: math.exp(statistics.fmean(math.log(r["numpy_ms"] / r[key]) for r in rows))  # noqa: E731
    print(
        f"\ngeomean vs numpy: default {speed('default_ms'):.2f}x, tuned {speed('model_ms'):.2f}x; "
        f"default within 10% of the best tuned on {within} of {len(rows)} shapes"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
