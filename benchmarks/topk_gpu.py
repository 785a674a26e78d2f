"""Sort and top-k (issue 11, item 5) vs torch, in one run: the MoE gating kernel (softmax or
sigmoid over 256 experts, then top-8, for 4096 tokens: ONE tilec kernel against torch's
softmax + topk) and plain row sorts / top-k.

    python benchmarks/topk_gpu.py --target cuda [--quick] [--repeats N] [--out DIR] [--option NAME=VALUE ...]
    python benchmarks/topk_gpu.py --target cpu  [--quick] [--repeats N] [--out DIR]

`--option` passes a compile option to every tilec kernel (e.g. `--option sort_registers=0` for
the shared-memory paths, `--option topk_method=sort`), to compare mappings in one run.

Every tilec result is checked against torch before anything is timed (values to rounding, the
picked indices by the scores they pick: scores equal to within rounding may come in either
order). cuda: torch on the same GPU, tilec called on torch CUDA tensors, CUDA events around
batches of back-to-back calls after warm-up, median of repeats (a call costs max(host time,
GPU time)); then the kernels' own GPU time per call, from torch.profiler's CUDA records
(`timing.cuda_kernel_us`: tilec's one kernel against torch's kernels; no host time). cpu: torch's CPU ops,
`time.perf_counter`, tilec and torch alternating, median of repeats (torch on its own thread
pool, tilec on OMP_NUM_THREADS threads). Writes DIR/topk-<target>.json and prints a markdown
table; ratio = torch time / tilec time (> 1: tilec is faster).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from timing import compile_option, cpu_pair_ms, cuda_kernel_us, cuda_ms  # noqa: E402  (benchmarks/timing.py)

import tilec  # noqa: E402
from tilec import bfloat16, float32, tile_op  # noqa: E402


def _softmax_topk(logits):
    e = tilec.exp(logits - tilec.max(logits, axis=-1, keepdims=True))
    return tilec.topk(e / tilec.sum(e, axis=-1, keepdims=True), 8)


moe_softmax_f32 = tile_op(dtype=float32, dims=["T", 256])(_softmax_topk)
moe_softmax_bf16 = tile_op(dtype=bfloat16, dims=["T", 256])(_softmax_topk)


@tile_op(dtype=float32, dims=["T", 256])
def moe_sigmoid_f32(logits):
    return tilec.topk(tilec.sigmoid(logits), 8)


@tile_op(dtype=float32, dims=["M", "N"])
def row_argsort(x):
    return tilec.argsort(x, -1)


@tile_op(dtype=float32, dims=["M", "N"])
def row_topk(x):
    return tilec.topk(x, 8)


# the same with the row length in the program (1024): what the register kernels serve
row_argsort_static = tile_op(dtype=float32, dims=["M", 1024])(row_argsort.fn)
row_topk_static = tile_op(dtype=float32, dims=["M", 1024])(row_topk.fn)


def workloads(torch, q: bool):
    """(name, tilec op, torch reference, input maker, check kind)."""
    T = 512 if q else 4096
    M, N = (256, 1024) if q else (4096, 1024)

    def softmax_ref(x):
        return torch.topk(torch.softmax(x, -1), 8)

    def sigmoid_ref(x):
        return torch.topk(torch.sigmoid(x), 8)

    def argsort_ref(x):
        return torch.argsort(x, dim=-1, stable=True)

    return [
        (f"MoE gating softmax + top-8, f32 {T}x256", moe_softmax_f32, softmax_ref, (T, 256, torch.float32), "softmax"),
        (
            f"MoE gating softmax + top-8, bf16 {T}x256",
            moe_softmax_bf16,
            softmax_ref,
            (T, 256, torch.bfloat16),
            "softmax",
        ),
        (f"MoE gating sigmoid + top-8, f32 {T}x256", moe_sigmoid_f32, sigmoid_ref, (T, 256, torch.float32), "sigmoid"),
        (f"argsort rows, f32 {M}x{N}", row_argsort, argsort_ref, (M, N, torch.float32), "exact"),
        (f"top-8 of rows, f32 {M}x{N}", row_topk, lambda x: torch.topk(x, 8), (M, N, torch.float32), "values"),
        (f"argsort rows, f32 {M}x{N}, static N", row_argsort_static, argsort_ref, (M, N, torch.float32), "exact"),
        (
            f"top-8 of rows, f32 {M}x{N}, static N",
            row_topk_static,
            lambda x: torch.topk(x, 8),
            (M, N, torch.float32),
            "values",
        ),
    ]


REF = {"softmax": "softmax + topk", "sigmoid": "sigmoid + topk", "values": "topk", "exact": "argsort(stable)"}


def check(torch, kind, x, got, want):
    if kind == "exact":
        assert torch.equal(_device_tensor(torch, got[0], x.device), want), "argsort: wrong result"
        return
    gv, gi = (_device_tensor(torch, g, x.device) for g in got)
    wv, _ = want
    tol = 1e-2 if x.dtype == torch.bfloat16 else 1e-5
    torch.testing.assert_close(gv.double(), wv.double(), rtol=tol, atol=0)
    if kind == "values":
        assert torch.equal(torch.gather(x, 1, gi), gv), "top-k: indices do not pick the values"
        return
    xd = x.double()
    s = torch.softmax(xd, -1) if kind == "softmax" else torch.sigmoid(xd)
    torch.testing.assert_close(torch.gather(s, 1, gi), wv.double(), rtol=tol, atol=0)


def _device_tensor(torch, a, device):
    """A result as a torch tensor on `device`: torch tensors as they are; a CuPy array of
    ml_dtypes' bfloat16 (CuPy shows it as raw 2-byte void) through its int16 bits."""
    if isinstance(a, torch.Tensor):
        return a
    if getattr(a, "dtype", None) is not None and a.dtype.kind == "V" and a.dtype.itemsize == 2:
        return torch.as_tensor(a.view("int16"), device=device).view(torch.bfloat16)
    return torch.as_tensor(a, device=device)


def _cupy_view(torch, x):
    """The CuPy view of a torch CUDA tensor, no copy (bf16 through its int16 bits)."""
    import cupy

    if x.dtype == torch.bfloat16:
        return cupy.from_dlpack(x.view(torch.int16)).view(bfloat16.np)
    return cupy.from_dlpack(x)


def cuda_rows(args, torch) -> list[dict]:
    def bench(fn, batch=20, warmup=5):
        return cuda_ms(torch, fn, args.repeats, batch, warmup)

    gen = torch.Generator(device="cuda").manual_seed(0)
    rows = []
    for name, op, ref, (m, n, dt), kind in workloads(torch, args.quick):
        x = (torch.randn(m, n, device="cuda", generator=gen) * 2).to(dt)
        k = op.compile("cuda", x, **args.options)
        xc = _cupy_view(torch, x)  # a compiled kernel takes CuPy arrays (op calls take torch tensors too)
        check(torch, kind, x, k(xc), ref(x))
        t, tr = bench(lambda: k(xc)), bench(lambda: ref(x))
        r = row(name, t, tr, "torch " + REF[kind])
        r["tilec_kernel_us"], r["tilec_kernels"] = cuda_kernel_us(torch, lambda: k(xc))
        r["ref_kernel_us"], r["ref_kernels"] = cuda_kernel_us(torch, lambda: ref(x))
        if r["tilec_kernel_us"] and r["ref_kernel_us"]:
            r["kernel_ratio"] = r["ref_kernel_us"] / r["tilec_kernel_us"]
        rows.append(r)
    return rows


def cpu_rows(args, torch) -> list[dict]:
    def pair(f_tilec, f_ref, batch=3):
        return cpu_pair_ms(f_tilec, f_ref, args.repeats, batch)

    gen = torch.Generator().manual_seed(0)
    rows = []
    for name, op, ref, (m, n, dt), kind in workloads(torch, args.quick):
        x = (torch.randn(m, n, generator=gen) * 2).to(dt)
        xa = x.numpy() if dt != torch.bfloat16 else x.view(torch.int16).numpy().view(bfloat16.np)
        k = op.compile("cpu", xa)
        check(torch, kind, x, [_to_torch(torch, a) for a in k(xa)], ref(x))
        t, tr = pair(lambda: k(xa), lambda: ref(x))
        rows.append(row(name, t, tr, "torch CPU " + REF[kind]))
    return rows


def _to_torch(torch, a):
    if a.dtype == bfloat16.np:  # torch.from_numpy does not take ml_dtypes' bfloat16
        return torch.from_numpy(a.view("int16")).view(torch.bfloat16)
    return torch.from_numpy(a)


def row(workload, t, tr, ref_name):
    return {"workload": workload, "reference": ref_name, "tilec_ms": t, "ref_ms": tr, "ratio": tr / t}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", choices=["cuda", "cpu"], required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--out", default="benchmarks/out")
    ap.add_argument("--option", action="append", default=[], help="NAME=VALUE, a tilec compile option (cuda)")
    args = ap.parse_args()
    args.options = dict(compile_option(o) for o in args.option)
    import torch

    rows = cuda_rows(args, torch) if args.target == "cuda" else cpu_rows(args, torch)
    if args.target == "cuda":
        machine = torch.cuda.get_device_name(0)
    else:
        machine = f"{platform.processor() or platform.machine()}, {__import__('os').cpu_count()} CPUs"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": machine,
        "target": args.target,
        "options": args.options,
        "rows": rows,
    }
    (out / f"topk-{args.target}.json").write_text(json.dumps(result, indent=1))
    print(f"\n{machine}, {result['date']}" + (f", tilec options {args.options}" if args.options else ""))
    print("| workload | tilec | reference | ratio (ref time / tilec time) |")
    print("|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['workload']} | {r['tilec_ms']:.3f} ms | {r['reference']}: {r['ref_ms']:.3f} ms | {r['ratio']:.2f} |"
        )
    if args.target == "cuda":
        print("\nKernel time only (torch.profiler CUDA records, per call; no host time):")
        print("| workload | tilec kernels | reference kernels | ratio (ref / tilec) |")
        print("|---|---|---|---|")
        for r in rows:
            print(
                f"| {r['workload']} | {_us(r['tilec_kernel_us'])} ({r['tilec_kernels']:.0f}) "
                f"| {_us(r['ref_kernel_us'])} ({r['ref_kernels']:.0f}) | {r.get('kernel_ratio', float('nan')):.2f} |"
            )


def _us(t: float | None) -> str:
    return "not recorded" if t is None else f"{t:.1f} us"


if __name__ == "__main__":
    main()
