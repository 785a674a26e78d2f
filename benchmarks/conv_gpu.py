"""GPU convolutions of ResNet-50 (f16, channels-last) vs torch (cuDNN), in one run.

    python benchmarks/conv_gpu.py [--batch 64] [--quick] [--repeats N] [--dtype f16|bf16|f32] [--out PATH]
        [--directions fwd,bwd input,bwd weight] [--alt KEY=VALUE,...] [--shapes TEXT,...] [--breakdown]

Shapes: the 7x7/2 stem (3 -> 64 at 224) and, per stage (56x56 64ch, 28x28 128ch, 14x14 256ch,
7x7 512ch), the bottleneck's 1x1 reduce, its 3x3 (stride 1, and the stride-2 one that opens stages
2-4) and the 1x1 expand. Both sides get the same channels-last data: torch NCHW tensors in
`torch.channels_last` memory format (cuDNN, `torch.backends.cudnn.benchmark = True`), tilec the
same memory as (N, H, W, C) / (O, KH, KW, C) views with `layout="channels_last"`.
Directions: forward, and the two backward convolutions (input gradient, weight gradient) through
`tilec.conv_backward_input` / `tilec.conv_backward_weight` against torch.nn.grad.conv2d_input /
conv2d_weight (skipped, saying so, where those helpers do not exist).
Every tilec result is checked against torch before anything is timed; both are timed with CUDA
events around batches of back-to-back calls after warm-up, median of repeats. The tilec call is
the op called as users call it, `op(x, w)` with torch tensors (after the first call, the per-op
fast path of docs/dsl.md "The cost of a call"; the compiled-kernel object `op.compile(...)(...)`
converts torch tensors to CuPy arrays at every call and costs ~60 us of host time, which made
the small layers host-bound in runs before 2026-12-07). A second pair of columns gives the
kernels' GPU time alone on both sides (torch.profiler's CUDA records, `timing.cuda_kernel_us`).
Prints a markdown table (TFLOP/s, ratio = torch time / tilec time, geomean per direction) and
writes JSON to --out. `--alt` also compiles tilec with those options (e.g.
`wgmma_store=direct`), checks its result the same way and reports its kernels-only ratio.
`--shapes` keeps the layers whose name contains one of the given texts; `--breakdown` adds each
row's kernels by name (GPU us per call, both sides) to the JSON and prints them.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from timing import cuda_kernel_breakdown, cuda_kernel_us, cuda_ms, fmt  # noqa: E402  (benchmarks/timing.py)

import tilec  # noqa: E402
from tilec import bfloat16, float16, float32, tile_op  # noqa: E402

DTYPES = {"f16": float16, "bf16": bfloat16, "f32": float32}


def resnet50_shapes(batch: int, quick: bool) -> list[dict]:
    """(name, N, C, H, W, O, K, stride, padding) of the measured layers."""
    rows = [dict(name="stem 7x7/2 3->64 @224", n=batch, c=3, h=224, o=64, k=7, s=2, p=3)]
    stages = [(56, 64, 256, False), (28, 128, 512, True), (14, 256, 1024, True), (7, 512, 2048, True)]
    for hw, width, out, has_s2 in stages:
        rows.append(dict(name=f"1x1 reduce {out}->{width} @{hw}", n=batch, c=out, h=hw, o=width, k=1, s=1, p=0))
        rows.append(dict(name=f"3x3 {width} @{hw}", n=batch, c=width, h=hw, o=width, k=3, s=1, p=1))
        if has_s2:
            rows.append(dict(name=f"3x3/2 {width} @{2 * hw}", n=batch, c=width, h=2 * hw, o=width, k=3, s=2, p=1))
        rows.append(dict(name=f"1x1 expand {width}->{out} @{hw}", n=batch, c=width, h=hw, o=out, k=1, s=1, p=0))
    return rows[:3] if quick else rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--quick", action="store_true", help="the first 3 shapes, batch 8")
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--dtype", choices=list(DTYPES), default="f16")
    ap.add_argument("--out", default="benchmarks/out/conv_gpu.json")
    ap.add_argument("--directions", default="fwd,bwd input,bwd weight", help="comma-separated subset")
    ap.add_argument("--alt", default="", help="KEY=VALUE,... options of a second tilec variant timed alongside")
    ap.add_argument("--shapes", default="", help="comma-separated texts: only layers whose name contains one")
    ap.add_argument("--breakdown", action="store_true", help="per-kernel GPU time of each row, both sides")
    args = ap.parse_args()
    wanted = [t for t in args.shapes.split(",") if t]
    directions = args.directions.split(",")
    alt = {
        key: int(v) if v.lstrip("-").isdigit() else {"true": True, "false": False}.get(v, v)
        for key, v in (kv.split("=", 1) for kv in args.alt.split(",") if kv)
    }

    import torch
    import torch.nn.functional as F

    torch.backends.cudnn.benchmark = True
    dt = DTYPES[args.dtype]
    tdt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}[args.dtype]
    tol = {"f16": 1e-2, "bf16": 3e-2, "f32": 1e-4}[args.dtype]
    batch = 8 if args.quick else args.batch
    gen = torch.Generator(device="cuda").manual_seed(0)

    def bench(fn, batch_calls=10, warmup=3):
        return cuda_ms(torch, fn, args.repeats, batch_calls, warmup)

    def nhwc(t):  # a channels_last NCHW tensor's memory as an (N, H, W, C) view (no copy)
        v = t.permute(0, 2, 3, 1)
        assert v.is_contiguous()
        return v

    def rel_err(got, ref) -> float:
        got = torch.as_tensor(got, device="cuda").float()
        return float((got - ref.float()).norm() / max(float(ref.float().norm()), 1e-30))

    have_bwd = hasattr(tilec, "conv_backward_input") and hasattr(tilec, "conv_backward_weight")
    if not have_bwd:
        print("tilec.conv_backward_input / conv_backward_weight do not exist here: forward only", flush=True)
    rows = []
    for sh in resnet50_shapes(batch, args.quick):
        if wanted and not any(t in sh["name"] for t in wanted):
            continue
        n, c, h, o, k, s, p = (sh[key] for key in "n c h o k s p".split())
        x = torch.randn(n, c, h, h, device="cuda", generator=gen).to(tdt).contiguous(memory_format=torch.channels_last)
        w = (torch.randn(o, c, k, k, device="cuda", generator=gen) / math.sqrt(c * k * k)).to(tdt)
        w = w.contiguous(memory_format=torch.channels_last)
        y_ref = F.conv2d(x, w, stride=s, padding=p)
        oh = y_ref.shape[2]
        gy = torch.randn_like(y_ref).contiguous(memory_format=torch.channels_last)
        flops = 2 * n * oh * oh * o * c * k * k

        @tile_op(dtype=dt)
        def fwd(xv, wv):
            return tilec.conv(xv, wv, stride=s, padding=p, layout="channels_last")

        cases = [("fwd", fwd, (nhwc(x), nhwc(w)), nhwc(y_ref), lambda: F.conv2d(x, w, stride=s, padding=p))]
        if have_bwd:

            @tile_op(dtype=dt)
            def bwd_input(gyv, wv):
                return tilec.conv_backward_input(gyv, wv, (n, h, h, c), stride=s, padding=p, layout="channels_last")

            @tile_op(dtype=dt)
            def bwd_weight(xv, gyv):
                return tilec.conv_backward_weight(xv, gyv, (o, k, k, c), stride=s, padding=p, layout="channels_last")

            gx_ref = torch.nn.grad.conv2d_input(x.shape, w, gy, stride=s, padding=p)
            gw_ref = torch.nn.grad.conv2d_weight(x, w.shape, gy, stride=s, padding=p)
            cases.append(
                (
                    "bwd input",
                    bwd_input,
                    (nhwc(gy), nhwc(w)),
                    gx_ref.permute(0, 2, 3, 1),
                    lambda: torch.nn.grad.conv2d_input(x.shape, w, gy, stride=s, padding=p),
                )
            )
            cases.append(
                (
                    "bwd weight",
                    bwd_weight,
                    (nhwc(x), nhwc(gy)),
                    gw_ref.permute(0, 2, 3, 1),
                    lambda: torch.nn.grad.conv2d_weight(x, w.shape, gy, stride=s, padding=p),
                )
            )
        for direction, op, tin, ref, torch_fn in cases:
            if direction not in directions:
                continue
            got = op(*tin)  # the user's call: compiles once (torch in, torch out), later calls take the fast path
            err = rel_err(got, ref)
            assert err < tol, f"{sh['name']} {direction}: relative error {err} against torch"
            t = bench(lambda: op(*tin))
            tr = bench(torch_fn)
            k_us, k_n = cuda_kernel_us(torch, lambda: op(*tin), 20)
            kr_us, kr_n = cuda_kernel_us(torch, torch_fn, 20)
            ka_us = None
            if alt:  # kernels only: the compiled-kernel object's calls are host-bound
                other = op.compile("cuda", *tin, **alt)
                (got,) = other(*tin)
                err_alt = rel_err(got, ref)
                assert err_alt < tol, f"{sh['name']} {direction} ({args.alt}): relative error {err_alt} against torch"
                ka_us, _ = cuda_kernel_us(torch, lambda: other(*tin), 20)
            parts = (
                {"tilec": cuda_kernel_breakdown(torch, lambda: op(*tin)), "ref": cuda_kernel_breakdown(torch, torch_fn)}
                if args.breakdown
                else {}
            )
            rows.append(
                {
                    "workload": sh["name"],
                    "direction": direction,
                    "shape": sh,
                    "dtype": args.dtype,
                    "tilec_ms": t,
                    "ref_ms": tr,
                    "tilec_tflops": flops / t / 1e9,
                    "ref_tflops": flops / tr / 1e9,
                    "ratio": tr / t,
                    "rel_err": err,
                    "tilec_kernel_us": k_us,
                    "tilec_kernels": k_n,
                    "ref_kernel_us": kr_us,
                    "ref_kernels": kr_n,
                    "kernel_ratio": kr_us / k_us if k_us and kr_us else None,
                    **({"breakdown": parts} if parts else {}),
                    **(
                        {"alt_kernel_us": ka_us, "alt_kernel_ratio": kr_us / ka_us if ka_us and kr_us else None}
                        if alt
                        else {}
                    ),
                }
            )
            r = rows[-1]
            print(
                f"  {r['workload']} {direction}: {r['tilec_tflops']:.1f} vs cuDNN {r['ref_tflops']:.1f} TFLOP/s "
                f"({r['ratio']:.2f}x; kernels only {fmt(r['kernel_ratio'])}x)"
                + (f"; {args.alt} kernels: {fmt(r['alt_kernel_ratio'])}x" if alt else ""),
                flush=True,
            )
            for side, kernels in parts.items():
                for kname, us in kernels:
                    print(f"      {side}: {us:8.1f} us  {kname[:110]}", flush=True)

    def gmean(xs):
        xs = [x for x in xs if x]
        return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None

    geomean, geomean_kernel, geomean_alt = {}, {}, {}
    for direction in dict.fromkeys(r["direction"] for r in rows):
        geomean[direction] = gmean([r["ratio"] for r in rows if r["direction"] == direction])
        geomean_kernel[direction] = gmean([r["kernel_ratio"] for r in rows if r["direction"] == direction])
        if alt:
            geomean_alt[direction] = gmean([r["alt_kernel_ratio"] for r in rows if r["direction"] == direction])
    machine = torch.cuda.get_device_name(0)
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": machine,
        "batch": batch,
        "dtype": args.dtype,
        "torch": torch.__version__,
        "cudnn": torch.backends.cudnn.version(),
        "rows": rows,
        "geomean": geomean,
        "geomean_kernel": geomean_kernel,
        **({"alt": args.alt, "geomean_alt_kernel": geomean_alt} if alt else {}),
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    print(f"\n{machine}, {result['date']}, batch {batch}, {args.dtype}, channels-last")
    extra = f" {args.alt}: kernels-only ratio |" if alt else ""
    print(
        "| layer | direction | tilec TFLOP/s (ms per call) | cuDNN TFLOP/s (ms per call) | ratio (cuDNN time / tilec time) "
        "| kernels only: tilec us (kernels) / cuDNN us (kernels), ratio |" + extra
    )
    print("|---|---|---|---|---|---|" + ("---|" if alt else ""))
    for r in rows:
        print(
            f"| {r['workload']} | {r['direction']} | {r['tilec_tflops']:.1f} ({r['tilec_ms']:.3f}) "
            f"| {r['ref_tflops']:.1f} ({r['ref_ms']:.3f}) | {r['ratio']:.2f} "
            f"| {fmt(r['tilec_kernel_us'], 1)} ({r['tilec_kernels']:.0f}) / {fmt(r['ref_kernel_us'], 1)} ({r['ref_kernels']:.0f}), "
            f"{fmt(r['kernel_ratio'])} |" + (f" {fmt(r['alt_kernel_ratio'])} |" if alt else "")
        )
    for direction, gm in geomean.items():
        print(
            f"| geomean | {direction} | | | {fmt(gm)} | {fmt(geomean_kernel[direction])} |"
            + (f" {fmt(geomean_alt[direction])} |" if alt else "")
        )


if __name__ == "__main__":
    main()
