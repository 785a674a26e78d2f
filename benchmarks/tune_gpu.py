"""Kernel selection on the GPU (issue 16's report): per f16 GEMM shape, the default (analytic)
choice and the tuned one against cuBLAS (torch.matmul), in one run; then a second process that
must re-tune nothing.

For each of the 20 shapes (square, LLM layers, decode, skinny, odd, batched): `op.tune(a, b,
target="cuda", budget_s=...)` from a cold tuning file (the kernel cache as it is), its wall time,
candidates (timed, skipped by the model) and winner. Then the op as users call it, `op(a, b)` with
torch tensors, in two instances: one whose first call ignores the tuning file (TILEC_TUNED=0, the
analytic default) and one that compiles the stored winner; each result checked against
torch.matmul first; CUDA events around 10 back-to-back calls after warm-up, median of `repeats`
(timing.cuda_ms), and the kernels' GPU time alone from the profiler (timing.cuda_kernel_us), on
both sides. Last, a child process with TILEC_AUTOTUNE=1 makes the first call of every shape: it
must find every choice stored (the tuning file is unchanged; its wall time is reported).

    python benchmarks/tune_gpu.py [--budget 30] [--repeats 10] [--shapes NAME,...] [--out DIR]

Output: a Markdown table on stdout and DIR/tune-gpu.json (default benchmarks/out).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SHAPES = [  # (name, batch, m, n, k)
    ("square 1024", 1, 1024, 1024, 1024),
    ("square 2048", 1, 2048, 2048, 2048),
    ("square 4096", 1, 4096, 4096, 4096),
    ("square 8192", 1, 8192, 8192, 8192),
    ("Llama-7B qkv 4096x12288x4096", 1, 4096, 12288, 4096),
    ("Llama-7B up 4096x11008x4096", 1, 4096, 11008, 4096),
    ("Llama-7B down 4096x4096x11008", 1, 4096, 4096, 11008),
    ("GPT-2 qkv 8192x2304x768", 1, 8192, 2304, 768),
    ("GPT-2 proj 8192x768x3072", 1, 8192, 768, 3072),
    ("Mixtral up 2048x14336x4096", 1, 2048, 14336, 4096),
    ("decode M=1 4096x4096", 1, 1, 4096, 4096),
    ("decode M=16 4096x4096", 1, 16, 4096, 4096),
    ("decode M=64 4096x14336", 1, 64, 14336, 4096),
    ("skinny N=128 65536x128x1024", 1, 65536, 128, 1024),
    ("short K 4096x4096x128", 1, 4096, 4096, 128),
    ("odd 4095x4097x1000", 1, 4095, 4097, 1000),
    ("odd 1000x3001x777", 1, 1000, 3001, 777),
    ("batched 32x1024x1024x128", 32, 1024, 1024, 128),
    ("batched 64x512x512x64", 64, 512, 512, 64),
    ("batched 16x2048x2048x128", 16, 2048, 2048, 128),
]

CHILD = """
import json, sys, time
import torch
sys.path[:0] = [{root!r}, {here!r}]
from tune_gpu import SHAPES, make_op
t0 = time.perf_counter()
for name, batch, m, n, k in SHAPES:
    if name not in {names!r}:
        continue
    lead = (batch,) if batch > 1 else ()
    a = torch.randn(*lead, m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(*lead, k, n, device="cuda", dtype=torch.float16)
    make_op(batch)(a, b)
torch.cuda.synchronize()
print(json.dumps({{"wall_s": time.perf_counter() - t0}}))
"""


def make_op(batch: int):
    from tilec import float16, tile_contract, tile_op

    if batch == 1:

        @tile_op(dtype=float16)
        def mm(a, b):
            return tile_contract(a, b, axes=[(-1, 0)])

        return mm

    @tile_op(dtype=float16)
    def bmm(a, b):
        return tile_contract(a, b, axes=[(2, 1)], batch=[(0, 0)])

    return bmm


def main() -> int:
    import torch
    from timing import cuda_kernel_us, cuda_ms  # (benchmarks/timing.py)

    from tilec.tuning import TuneStore

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget", type=float, default=30.0)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--shapes", default="", help="comma-separated names (default: all 20)")
    ap.add_argument("--out", default="benchmarks/out")
    args = ap.parse_args()
    shapes = [s for s in SHAPES if not args.shapes or s[0] in args.shapes.split(",")]
    tmp = Path(tempfile.mkdtemp())
    os.environ["TILEC_TUNE_FILE"] = str(tmp / "tuning.json")
    store = TuneStore()
    torch.manual_seed(0)
    rows = []
    for name, batch, m, n, k in shapes:
        lead = (batch,) if batch > 1 else ()
        a = torch.randn(*lead, m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(*lead, k, n, device="cuda", dtype=torch.float16)
        ref = torch.matmul(a, b).double()
        t0 = time.perf_counter()
        r = make_op(batch).tune(a, b, target="cuda", budget_s=args.budget, progress=False)
        tune_s = time.perf_counter() - t0
        os.environ["TILEC_TUNED"] = "0"
        default = make_op(batch)
        default(a, b)  # (its first call: the defaults, the tuning file ignored)
        del os.environ["TILEC_TUNED"]
        tuned = make_op(batch)
        for label, op in (("default", default), ("tuned", tuned)):
            err = (op(a, b).double() - ref).abs().max().item() / max(1.0, ref.abs().max().item())
            assert err < 1e-2, (name, label, err)
        row = {"shape": name, "b": batch, "m": m, "n": n, "k": k, "tune_s": tune_s, "options": r.options}
        row.update(tried=r.tried, skipped=r.skipped, failed=r.failed, rejected=r.rejected)
        for label, fn in (
            ("cublas", lambda: torch.matmul(a, b)),
            ("default", lambda: default(a, b)),
            ("tuned", lambda: tuned(a, b)),
        ):
            row[f"{label}_ms"] = cuda_ms(torch, fn, args.repeats)
            row[f"{label}_kernel_us"], _ = cuda_kernel_us(torch, fn)
        row["tflops_tuned"] = 2 * batch * m * n * k / row["tuned_ms"] / 1e9
        rows.append(row)
        print(
            f"{name:32} cuBLAS {row['cublas_ms']:.3f} ms, default {row['default_ms']:.3f}, tuned {row['tuned_ms']:.3f} "
            f"({r.options or 'defaults'}); tuning {tune_s:.1f} s, {r.tried} timed, {r.skipped} skipped",
            flush=True,
        )
    entries = store.entries()
    here = Path(__file__).resolve().parent
    child = subprocess.run(
        [sys.executable, "-c", CHILD.format(root=str(here.parent), here=str(here), names=[s[0] for s in shapes])],
        env={**os.environ, "TILEC_AUTOTUNE": "1"},
        capture_output=True,
        text=True,
    )
    second = (
        json.loads(child.stdout.strip().splitlines()[-1]) if child.returncode == 0 else {"error": child.stderr[-500:]}
    )
    second["retuned"] = len(set(store.entries()) - set(entries)) if child.returncode == 0 else None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    meta = {
        "date": time.strftime("%Y-%m-%d"),
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "budget_s": args.budget,
        "repeats": args.repeats,
        "command": "python benchmarks/tune_gpu.py " + " ".join(sys.argv[1:]),
    }
    (out / "tune-gpu.json").write_text(json.dumps({"meta": meta, "rows": rows, "second_process": second}, indent=1))
    print(
        "\n| shape | cuBLAS ms | default / cuBLAS | tuned / cuBLAS | kernels: default / cuBLAS | kernels: tuned / cuBLAS "
        "| default within 10% | tuned options | tuning s | timed / skipped |"
    )
    print("|" + "---|" * 10)
    within = 0
    for r in rows:
        ok = r["default_ms"] <= 1.1 * r["tuned_ms"]
        within += ok
        kd = r["cublas_kernel_us"] / r["default_kernel_us"] if r["default_kernel_us"] else float("nan")
        kt = r["cublas_kernel_us"] / r["tuned_kernel_us"] if r["tuned_kernel_us"] else float("nan")
        opts = " ".join(f"{k.replace('_', '-')}={v}" for k, v in r["options"].items()) or "(defaults)"
        print(
            f"| {r['shape']} | {r['cublas_ms']:.3f} | {r['cublas_ms'] / r['default_ms']:.2f}x | "
            f"{r['cublas_ms'] / r['tuned_ms']:.2f}x | {kd:.2f}x | {kt:.2f}x | {'yes' if ok else 'no'} | {opts} | "
            f"{r['tune_s']:.1f} | {r['tried']} / {r['skipped']} |"
        )
    geo = lambda key: math.exp(statistics.fmean(math.log(r["cublas_ms"] / r[key]) for r in rows))  # noqa: E731
    print(
        f"\ngeomean vs cuBLAS: default {geo('default_ms'):.2f}x, tuned {geo('tuned_ms'):.2f}x; default within 10% of "
        f"tuned on {within} of {len(rows)}; longest tuning {max(r['tune_s'] for r in rows):.1f} s; second process: "
        f"{second}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
