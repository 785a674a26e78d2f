"""tilec's f16 GEMM off the square, vs cuBLAS (torch.matmul), in one run (issue 14's shapes).

    python benchmarks/gemm_shapes.py [--repeats N] [--out FILE] [--alt KEY=VALUE,...]

Shapes: 4095 x 4097 x 1000 (rows that are not 16 bytes: padded copies), M = 16 and M = 1 with
N = K = 4096 (decode), a batched 32 x 1024 x 1024 x 128, short K = 128 at 4096 x 4096, and
4096^3 for reference. Both sides get the same random CUDA tensors; every tilec result is checked
against torch.matmul first; CUDA events around 10 back-to-back calls after warm-up, median of
`repeats` (benchmarks/timing.py). The tilec call is the op as users call it, `op(a, b)` with
torch tensors (the per-op fast path after the first call; before 2026-12-07 this script timed the
compiled-kernel object, whose ~60 us of host time per call made the small shapes host-bound).
Also the kernels' GPU time alone on both sides (torch.profiler, `timing.cuda_kernel_us`).
Prints a table (TFLOP/s, ratio = cuBLAS time / tilec time) and writes JSON. `--alt` also compiles
tilec with those options (e.g. `split_k=1`), checks its result the same way and reports its
kernels-only ratio.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402
from timing import cuda_kernel_us, cuda_ms, fmt  # noqa: E402  (benchmarks/timing.py)

from tilec import float16, tile_contract, tile_op  # noqa: E402

SHAPES = [  # (name, batch, m, n, k)
    ("4096^3", 0, 4096, 4096, 4096),
    ("4095 x 4097 x 1000", 0, 4095, 4097, 1000),
    ("M = 16, N = K = 4096", 0, 16, 4096, 4096),
    ("M = 1, N = K = 4096", 0, 1, 4096, 4096),
    ("batched 32 x 1024 x 1024 x 128", 32, 1024, 1024, 128),
    ("short K: 4096 x 4096 x 128", 0, 4096, 4096, 128),
]


@tile_op(dtype=float16)
def mm(a, b):
    return tile_contract(a, b, axes=[(-1, 0)])


@tile_op(dtype=float16)
def bmm(a, b):
    return tile_contract(a, b, axes=[(2, 1)], batch=[(0, 0)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--out", default="gemm_shapes.json")
    ap.add_argument("--alt", default="", help="KEY=VALUE,... options of a second tilec variant (kernels only)")
    args = ap.parse_args()
    alt = {
        key: int(v) if v.lstrip("-").isdigit() else v
        for key, v in (kv.split("=", 1) for kv in args.alt.split(",") if kv)
    }
    rows = []
    for name, batch, m, n, k in SHAPES:
        lead = (batch,) if batch else ()
        a = torch.randn(*lead, m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(*lead, k, n, device="cuda", dtype=torch.float16)
        op = bmm if batch else mm
        source = op.source("cuda", a, b)  # the PTX the call below runs
        ref = torch.matmul(a, b)
        c = op(a, b)  # the user's call: compiled for these shapes (or from the cache), then the fast path
        err = float((c.float() - ref.float()).norm() / ref.float().norm())
        assert err < 1e-2, f"{name}: relative error {err}"
        entries = [line.split()[-1].rstrip("(") for line in source.splitlines() if ".entry" in line]
        t = cuda_ms(torch, lambda: op(a, b), args.repeats)
        t_ref = cuda_ms(torch, lambda: torch.matmul(a, b), args.repeats)
        k_us, k_n = cuda_kernel_us(torch, lambda: op(a, b), 20)
        kr_us, _ = cuda_kernel_us(torch, lambda: torch.matmul(a, b), 20)
        flops = 2.0 * max(batch, 1) * m * n * k
        extra = {}
        if alt:  # kernels only: the compiled-kernel object's calls are host-bound
            other = op.compile("cuda", a, b, **alt)
            (got,) = other(a, b)  # (CuPy arrays)
            got = torch.as_tensor(got, device="cuda")
            err_alt = float((got.float() - ref.float()).norm() / ref.float().norm())
            assert err_alt < 1e-2, f"{name} ({args.alt}): relative error {err_alt}"
            ka_us, _ = cuda_kernel_us(torch, lambda: other(a, b), 20)
            extra = {"alt_kernel_us": ka_us, "alt_kernel_ratio": kr_us / ka_us if ka_us and kr_us else None}
        rows.append(
            {
                "shape": name,
                "kernels": entries,
                "wgmma": "wgmma.mma_async" in source,
                "ms": t,
                "cublas_ms": t_ref,
                "tflops": flops / t / 1e9,
                "cublas_tflops": flops / t_ref / 1e9,
                "ratio": t_ref / t,
                "kernel_us": k_us,
                "kernels_per_call": k_n,
                "cublas_kernel_us": kr_us,
                "kernel_ratio": kr_us / k_us if k_us and kr_us else None,
                "rel_err": err,
                **extra,
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    Path(args.out).write_text(
        json.dumps({"device": torch.cuda.get_device_name(0), "alt": args.alt, "rows": rows}, indent=1)
    )
    print(f"\n{torch.cuda.get_device_name(0)}, f16, tilec vs cuBLAS (torch.matmul)")
    more = f" {args.alt}: kernels-only ratio |" if alt else ""
    print(
        "| shape | tilec kernels | tilec TFLOP/s | cuBLAS TFLOP/s | ratio | kernels only: tilec us / cuBLAS us, ratio |"
        + more
    )
    print("|---|---|---|---|---|---|" + ("---|" if alt else ""))
    for r in rows:
        kind = ("wgmma" if r["wgmma"] else "mma.sync/SIMT") + f", {len(r['kernels'])} kernel(s)"
        ko = f"{fmt(r['kernel_us'], 1)} / {fmt(r['cublas_kernel_us'], 1)}, {fmt(r['kernel_ratio'])}"
        alt_col = f" {fmt(r.get('alt_kernel_ratio'))} |" if alt else ""
        print(
            f"| {r['shape']} | {kind} | {r['tflops']:.1f} | {r['cublas_tflops']:.1f} | {r['ratio']:.2f} | {ko} |"
            + alt_col
        )


if __name__ == "__main__":
    main()
