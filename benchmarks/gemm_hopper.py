"""The Hopper GEMM (gemm=wgmma) vs cuBLAS (torch.matmul) and tilec's mma.sync kernel, in one run.

    python benchmarks/gemm_hopper.py [--repeats N] [--shapes 4096,8192] [--out FILE]

f16 and bf16 square GEMMs (f32 accumulate, 16-bit output): every result is checked against
torch.matmul first; then each kernel is timed with CUDA events around 10 back-to-back calls
after warm-up, median of `repeats`. Prints a table (TFLOP/s, ratio to cuBLAS), writes JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cupy as cp  # noqa: E402
import ml_dtypes  # noqa: E402
import torch  # noqa: E402
from timing import cuda_ms  # noqa: E402  (benchmarks/timing.py)

from tilec import bfloat16, float16, tile_contract, tile_op  # noqa: E402

VARIANTS = {
    "default (wgmma, auto tile)": {"sm": "sm_90a"},
    "wgmma, direct stores": {"sm": "sm_90a", "wgmma_store": "direct"},
    "wgmma 128x128 6 stages": {"sm": "sm_90a", "gemm": "wgmma", "wgmma_n": 128, "stages": 6},
    "mma.sync": {"sm": "sm_90a", "gemm": "mma"},
}


def bench(fn, repeats: int) -> float:
    return cuda_ms(torch, fn, repeats)


def cupy_view(t: torch.Tensor):
    """The CuPy array of a 16-bit torch tensor, sharing its memory (bf16 through its bits)."""
    bits = cp.asarray(t.view(torch.int16))
    return bits.view(ml_dtypes.bfloat16 if t.dtype == torch.bfloat16 else cp.float16)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--shapes", default="4096,8192")
    ap.add_argument("--out", default="gemm_hopper.json")
    args = ap.parse_args()
    rows = []
    for dt, tdt in ((float16, torch.float16), (bfloat16, torch.bfloat16)):

        @tile_op(dtype=dt)
        def mm(a, b):
            return tile_contract(a, b, axes=[(-1, 0)])

        for n in (int(s) for s in args.shapes.split(",")):
            a = torch.randn(n, n, device="cuda", dtype=tdt)
            b = torch.randn(n, n, device="cuda", dtype=tdt)
            ref = torch.matmul(a, b)
            t_ref = bench(lambda: torch.matmul(a, b), args.repeats)
            flops = 2.0 * n**3
            ca, cb = (cupy_view(t) for t in (a, b))
            for name, opts in VARIANTS.items():
                kernel = mm.compile("cuda", shapes=[(n, n), (n, n)], **opts)
                (c,) = kernel(ca, cb)
                c = torch.as_tensor(c.view(cp.int16), device="cuda").view(tdt)
                err = float((c.float() - ref.float()).norm() / ref.float().norm())
                assert err < 1e-2, f"{name} {dt.name} {n}: relative error {err}"
                t = bench(lambda: kernel(ca, cb), args.repeats)
                rows.append(
                    {
                        "gemm": f"{dt.name} {n}^3",
                        "kernel": name,
                        "ms": t,
                        "tflops": flops / t / 1e9,
                        "cublas_ms": t_ref,
                        "cublas_tflops": flops / t_ref / 1e9,
                        "ratio": t_ref / t,
                        "rel_err": err,
                    }
                )
                print(json.dumps(rows[-1]), flush=True)
    Path(args.out).write_text(json.dumps(rows, indent=1))
    print(f"\n{'gemm':<16} {'kernel':<20} {'tilec TF/s':>10} {'cuBLAS TF/s':>11} {'ratio':>6}")
    for r in rows:
        print(f"{r['gemm']:<16} {r['kernel']:<20} {r['tflops']:>10.1f} {r['cublas_tflops']:>11.1f} {r['ratio']:>6.2f}")


if __name__ == "__main__":
    main()
