"""tilec on an NVIDIA GPU vs the vendor libraries, in one run.

    python benchmarks/gpu.py [--quick] [--out DIR] [--repeats N]

Measures with CUDA events after warm-up, median of repeats, on random inputs (each tilec result
is checked against the reference before timing):
- f16 GEMM (f32 accumulate) vs cuBLAS (cupy.matmul): TFLOP/s and ratio;
- softmax, layernorm (f16 32768 x 8192), an elementwise chain and a row sum: GB/s (bytes read +
  written once) vs torch and vs a plain device copy;
- compile time of a GEMM (cold: empty disk cache; warm: disk cache hit) and the host overhead
  of calling a tiny kernel.
Writes DIR/gpu.json and DIR/gpu.png and prints a table.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cupy as cp  # noqa: E402

import tilec  # noqa: E402
from tilec import float16, tile_contract, tile_op  # noqa: E402


def bench(fn, repeats: int, warmup: int = 3, batch: int = 10) -> tuple[float, float]:
    """Median and spread (max-min)/median of one call of `fn`, in ms, timed with CUDA events
    around `batch` back-to-back calls (steady-state throughput: the host enqueues while the GPU
    runs; the host cost of one call is reported separately as launch overhead)."""
    for _ in range(warmup):
        fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(repeats):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        for _ in range(batch):
            fn()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / batch)
    med = statistics.median(times)
    return med, (max(times) - min(times)) / med


def rel_err(a, b) -> float:
    a = cp.asarray(a, dtype=cp.float32)
    b = cp.asarray(b, dtype=cp.float32)
    return float(cp.linalg.norm(a - b) / max(float(cp.linalg.norm(b)), 1e-30))


def gemm_rows(shapes, repeats, options):
    rows = []
    for m, n, k in shapes:

        @tile_op(dtype=float16)
        def mm(a, b):
            return tile_contract(a, b, axes=[(-1, 0)])

        a = cp.random.standard_normal((m, k), dtype=cp.float32).astype(cp.float16)
        b = cp.random.standard_normal((k, n), dtype=cp.float32).astype(cp.float16)
        kernel = mm.compile("cuda", a, b, **options)
        (c,) = kernel(a, b)
        ref = cp.matmul(a, b)
        err = rel_err(c, ref)
        assert err < 5e-3, f"GEMM {m}x{n}x{k}: relative error {err}"
        t_tilec, s1 = bench(lambda: kernel(a, b), repeats)
        t_cublas, s2 = bench(lambda: cp.matmul(a, b), repeats)
        flops = 2 * m * n * k
        rows.append(
            {
                "workload": f"gemm f16 {m}x{n}x{k}",
                "tilec_tflops": flops / t_tilec / 1e9,
                "ref_tflops": flops / t_cublas / 1e9,
                "ratio": t_cublas / t_tilec,
                "tilec_ms": t_tilec,
                "ref_ms": t_cublas,
                "spread": max(s1, s2),
                "rel_err": err,
            }
        )
        print(
            f"  {rows[-1]['workload']}: {rows[-1]['tilec_tflops']:.0f} vs {rows[-1]['ref_tflops']:.0f} TFLOP/s",
            flush=True,
        )
    return rows


def memory_rows(rows_n, cols, repeats):
    import torch

    out = []
    x = cp.random.standard_normal((rows_n, cols), dtype=cp.float32).astype(cp.float16)
    g = cp.random.standard_normal((cols,), dtype=cp.float32).astype(cp.float16)
    bb = cp.random.standard_normal((cols,), dtype=cp.float32).astype(cp.float16)
    tx, tg, tb = (torch.as_tensor(v, device="cuda") for v in (x, g, bb))
    nbytes = x.nbytes

    def copy():
        y = cp.empty_like(x)
        y[...] = x
        return y

    t_copy, _ = bench(copy, repeats)
    copy_gbs = 2 * nbytes / t_copy / 1e6

    @tile_op(dtype=float16)
    def softmax(x):
        e = tilec.exp(x - tilec.max(x, axis=-1, keepdims=True))
        return e / tilec.sum(e, axis=-1, keepdims=True)

    @tile_op(dtype=float16)
    def layernorm(x, g, b):
        mu = tilec.mean(x, axis=-1, keepdims=True)
        d = x - mu
        var = tilec.mean(d * d, axis=-1, keepdims=True)
        return d * tilec.rsqrt(var + 1e-5) * g + b

    @tile_op(dtype=float16)
    def chain(x):
        y = x * 1.5 + 0.25
        return 0.5 * y * (1.0 + tilec.tanh(0.7978845608 * (y + 0.044715 * y * y * y)))

    @tile_op(dtype=float16)
    def rowsum(x):
        return tilec.sum(x, axis=-1)

    cases = [
        ("softmax f16", softmax, (x,), lambda: torch.softmax(tx, -1), 2 * nbytes),
        (
            "layernorm f16",
            layernorm,
            (x, g, bb),
            lambda: torch.nn.functional.layer_norm(tx, (cols,), tg, tb, 1e-5),
            2 * nbytes,
        ),
        (
            "gelu chain f16",
            chain,
            (x,),
            lambda: torch.nn.functional.gelu((tx * 1.5 + 0.25), approximate="tanh"),
            2 * nbytes,
        ),
        ("row sum f16", rowsum, (x,), lambda: tx.sum(-1), nbytes + rows_n * 2),
    ]
    for name, op, args, ref_fn, moved in cases:
        kernel = op.compile("cuda", *args)
        (res,) = kernel(*args)
        ref = cp.asarray(ref_fn())
        err = rel_err(res, ref)
        assert err < 2e-2, f"{name}: relative error {err}"
        t, s = bench(lambda: kernel(*args), repeats)
        tr, s2 = bench(ref_fn, repeats)
        out.append(
            {
                "workload": f"{name} {rows_n}x{cols}",
                "tilec_gbs": moved / t / 1e6,
                "ref_gbs": moved / tr / 1e6,
                "copy_gbs": copy_gbs,
                "ratio": tr / t,
                "of_copy": (moved / t / 1e6) / copy_gbs,
                "tilec_ms": t,
                "ref_ms": tr,
                "spread": max(s, s2),
                "rel_err": err,
            }
        )
        print(
            f"  {out[-1]['workload']}: {out[-1]['tilec_gbs']:.0f} GB/s vs torch {out[-1]['ref_gbs']:.0f}, copy {copy_gbs:.0f}",
            flush=True,
        )
    return out


def compile_rows():
    """Cold compile and warm start (a new process, warm disk cache: first call minus tracing),
    measured in fresh processes by benchmarks/warm_start.py; then the host overhead of a call."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from warm_start import measure

    rows = measure("cuda", runs=5)
    gemm = next(r for r in rows if r["workload"] == "gemm")
    cold, warm = gemm["cold_first_call_ms"] / 1e3, gemm["warm_first_call_ms"] / 1e3

    @tile_op(dtype=float16)
    def tiny(x):
        return x + 1.0

    x = cp.ones((32,), dtype=cp.float16)
    tiny(x)
    cp.cuda.Device().synchronize()
    n = 2000
    t0 = time.perf_counter()
    for _ in range(n):
        tiny(x)
    cp.cuda.Device().synchronize()
    launch_us = (time.perf_counter() - t0) / n * 1e6
    return {"compile_cold_s": cold, "compile_warm_s": warm, "launch_overhead_us": launch_us, "warm_start": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--out", default="benchmarks/out")
    ap.add_argument(
        "--option", action="append", default=[], help="tile-to-mapped option for the GEMM, e.g. block_n=256"
    )
    ap.add_argument("--gemm-only", action="store_true", help="only the GEMM rows (for tuning)")
    ap.add_argument("--sizes", default="", help="GEMM sizes m,n,k;m,n,k (overrides the default list)")
    args = ap.parse_args()
    options = {}
    for o in args.option:
        k, v = o.split("=")
        options[k] = int(v) if v.isdigit() else (v == "true" if v in ("true", "false") else v)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    gemm = (
        [(1024, 1024, 1024), (2048, 2048, 2048)]
        if args.quick
        else [
            (1024, 1024, 1024),
            (2048, 2048, 2048),
            (4096, 4096, 4096),
            (8192, 8192, 8192),
            (16384, 4096, 4096),
            (4096, 11008, 4096),
        ]
    )
    if args.sizes:
        gemm = [tuple(int(x) for x in t.split(",")) for t in args.sizes.split(";")]
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"device: {device}", flush=True)
    result = {"device": device, "date": time.strftime("%Y-%m-%d"), "options": options}
    result["gemm"] = gemm_rows(gemm, args.repeats, options)
    if args.gemm_only:
        for r in result["gemm"]:
            print(f"| {r['workload']} {options} | {r['tilec_tflops']:.0f} | {r['ref_tflops']:.0f} | {r['ratio']:.2f} |")
        return
    result["memory"] = memory_rows(4096 if args.quick else 32768, 8192, args.repeats)
    result["compile"] = compile_rows()
    (out / "gpu.json").write_text(json.dumps(result, indent=1))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.5))
        names = [r["workload"].replace("gemm f16 ", "") for r in result["gemm"]]
        xs = np.arange(len(names))
        ax1.bar(xs - 0.2, [r["tilec_tflops"] for r in result["gemm"]], 0.4, label="tilec")
        ax1.bar(xs + 0.2, [r["ref_tflops"] for r in result["gemm"]], 0.4, label="cuBLAS")
        ax1.set_xticks(xs, names, rotation=30, fontsize=7)
        ax1.set_ylabel("TFLOP/s")
        ax1.set_title("f16 GEMM")
        ax1.legend()
        names = [r["workload"] for r in result["memory"]]
        xs = np.arange(len(names))
        ax2.bar(xs - 0.2, [r["tilec_gbs"] for r in result["memory"]], 0.4, label="tilec")
        ax2.bar(xs + 0.2, [r["ref_gbs"] for r in result["memory"]], 0.4, label="torch")
        ax2.axhline(result["memory"][0]["copy_gbs"], color="k", ls="--", label="device copy")
        ax2.set_xticks(xs, names, rotation=30, fontsize=7)
        ax2.set_ylabel("GB/s")
        ax2.legend()
        fig.suptitle(f"tilec on {device}, {result['date']}")
        fig.tight_layout()
        fig.savefig(out / "gpu.png", dpi=110)
    except ImportError:
        print("(matplotlib missing: no chart)")
    print("\n| workload | tilec | reference | ratio |")
    print("|---|---|---|---|")
    for r in result["gemm"]:
        print(
            f"| {r['workload']} | {r['tilec_tflops']:.0f} TFLOP/s | {r['ref_tflops']:.0f} TFLOP/s (cuBLAS) | {r['ratio']:.2f} |"
        )
    for r in result["memory"]:
        print(
            f"| {r['workload']} | {r['tilec_gbs']:.0f} GB/s ({r['of_copy']:.2f} of copy) | {r['ref_gbs']:.0f} GB/s (torch) | {r['ratio']:.2f} |"
        )
    c = result["compile"]
    print(
        f"| GEMM first call: cold / warm disk cache in a new process (minus tracing) | {c['compile_cold_s']:.2f} s / {c['compile_warm_s'] * 1000:.1f} ms | | |"
    )
    print(f"| host launch overhead (tiny op) | {c['launch_overhead_us']:.1f} us | | |")


if __name__ == "__main__":
    main()
