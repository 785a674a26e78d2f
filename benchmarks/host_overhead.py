"""Host cost of calling a compiled tilec op: a tiny elementwise op (`x + 1` on 32 float32 elements)
and the MoE gating top-k op of benchmarks/topk_gpu.py (softmax over 256 experts + top-8), called
with numpy arrays (cpu), CuPy arrays and torch CUDA tensors (cuda), against the same work done by
numpy / torch / CuPy themselves.

    python benchmarks/host_overhead.py --target cpu  [--calls N] [--repeats R] [--out DIR]
    python benchmarks/host_overhead.py --target cuda [--calls N] [--repeats R] [--out DIR]

Every row is a callable timed with `time.perf_counter` around a batch of `--calls` calls; the
median over `--repeats` batches (rows interleaved round by round, so load on a shared machine
hits all of them alike), in microseconds per call:
- `host us`: the batch without any synchronization: the host time of a call (on the GPU, the
  launches queue up; a batch of 200 tiny kernels does not fill the launch queue).
- `+ sync us`: the batch followed by one device synchronization, per call: throughput; equal to
  `host us` when the calls are host-bound.
- `each sync us`: a synchronization after every call: the latency of one call.
On the cpu target everything is synchronous: only `host us` is printed; tilec and torch run on
one thread there (OMP_NUM_THREADS=1 unless set, torch.set_num_threads(1)): starting a thread team
is not the host cost of a call, and on a loaded machine it is most of the time of a tiny kernel.
Rows "fast path off" call the same op with tilec's per-op dispatch table bypassed (every call
binds, checks and looks up as on the first call, compiled kernel reused): the cost the fast path
removes. Every tilec result is checked against numpy / torch before anything is timed.
Writes DIR/host_overhead-<target>.json and prints a markdown table last.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

if "--target" in sys.argv and sys.argv[sys.argv.index("--target") + 1 :][:1] == ["cpu"]:
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # before tilec's first kernel loads libgomp

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from timing import machine_name  # noqa: E402  (benchmarks/timing.py)
from topk_gpu import moe_softmax_f32  # noqa: E402  (the MoE gating op, f32, dims [T, 256])

from tilec import float32, tile_op  # noqa: E402
from tilec.frontend.dispatch import Dispatch  # noqa: E402


@tile_op(dtype=float32, dims=["N"])
def tiny(x):
    return x + 1.0


@contextlib.contextmanager
def fast_path_off():
    """Every op call takes the full path (the dispatch table neither answers nor learns)."""
    lookup, remember = Dispatch.lookup, Dispatch.remember
    Dispatch.lookup = lambda self, args: None
    Dispatch.remember = lambda self, *a: None
    try:
        yield
    finally:
        Dispatch.lookup, Dispatch.remember = lookup, remember


class Row:
    def __init__(self, name: str, fn, sync=None, fast: bool = True):
        self.name, self.fn, self.sync, self.fast = name, fn, sync, fast
        self.host: list[float] = []
        self.batch_sync: list[float] = []
        self.each_sync: list[float] = []

    def measure(self, calls: int) -> None:
        ctx = contextlib.nullcontext() if self.fast else fast_path_off()
        fn, sync = self.fn, self.sync
        with ctx:
            fn()
            if sync:
                sync()
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            t1 = time.perf_counter()
            self.host.append((t1 - t0) / calls * 1e6)
            if sync is None:
                return
            sync()
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            sync()
            self.batch_sync.append((time.perf_counter() - t0) / calls * 1e6)
            n = max(calls // 4, 10)
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
                sync()
            self.each_sync.append((time.perf_counter() - t0) / n * 1e6)

    def result(self) -> dict:
        med = lambda v: statistics.median(v) if v else None  # noqa: E731
        return {
            "row": self.name,
            "host_us": med(self.host),
            "batch_sync_us": med(self.batch_sync),
            "each_sync_us": med(self.each_sync),
            "host_us_all": self.host,
        }


def cpu_rows(args) -> list[Row]:
    import torch

    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))

    x = np.random.default_rng(0).standard_normal(32).astype(np.float32)
    xt = torch.from_numpy(x.copy())
    np.testing.assert_array_equal(tiny(x), x + np.float32(1))
    torch.testing.assert_close(tiny(xt), xt + 1, rtol=0, atol=0)
    t = args.moe_tokens or 4
    logits = (np.random.default_rng(1).standard_normal((t, 256)) * 2).astype(np.float32)
    lt = torch.from_numpy(logits.copy())
    vals, idx = moe_softmax_f32(logits)
    ref = torch.topk(torch.softmax(lt.double(), -1), 8)
    np.testing.assert_allclose(vals, ref.values.numpy(), rtol=1e-5)
    soft = torch.softmax(lt.double(), -1).numpy()  # the picked experts have the top scores (ties: either order)
    np.testing.assert_allclose(np.take_along_axis(soft, idx.astype(np.int64), -1), ref.values.numpy(), rtol=1e-5)
    return [
        Row("tilec tiny op, numpy in", lambda: tiny(x)),
        Row("tilec tiny op, numpy in, fast path off", lambda: tiny(x), fast=False),
        Row("tilec tiny op, torch CPU in", lambda: tiny(xt)),
        Row("tilec tiny op, torch CPU in, fast path off", lambda: tiny(xt), fast=False),
        Row("numpy x + 1", lambda: x + np.float32(1)),
        Row("torch x + 1 (CPU)", lambda: xt + 1),
        Row(f"tilec MoE gating {t}x256, numpy in", lambda: moe_softmax_f32(logits)),
        Row(f"tilec MoE gating {t}x256, numpy in, fast path off", lambda: moe_softmax_f32(logits), fast=False),
        Row(f"tilec MoE gating {t}x256, torch CPU in", lambda: moe_softmax_f32(lt)),
        Row(f"torch softmax + topk {t}x256 (CPU)", lambda: torch.topk(torch.softmax(lt, -1), 8)),
    ]


def cuda_rows(args) -> list[Row]:
    import cupy as cp
    import torch

    sync = cp.cuda.runtime.deviceSynchronize
    x = cp.asarray(np.random.default_rng(0).standard_normal(32).astype(np.float32))
    xt = torch.from_dlpack(x).clone()
    np.testing.assert_array_equal(cp.asnumpy(tiny(x)), cp.asnumpy(x) + np.float32(1))
    torch.testing.assert_close(tiny(xt), xt + 1, rtol=0, atol=0)
    k = tiny.compile("cuda", x)
    floor = cp.RawKernel(
        'extern "C" __global__ void add1(const float* x, float* y, int n) {'
        " int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i] + 1.0f; }",
        "add1",
    )
    y = cp.empty_like(x)
    n32 = np.int32(x.size)

    t = args.moe_tokens or 4096
    lt = torch.randn(t, 256, device="cuda") * 2
    lc = cp.from_dlpack(lt)
    vals, idx = moe_softmax_f32(lt)
    ref = torch.topk(torch.softmax(lt.double(), -1), 8)
    torch.testing.assert_close(vals.double(), ref.values, rtol=1e-5, atol=0)
    picked = torch.gather(torch.softmax(lt.double(), -1), 1, idx.long())  # ties: either order
    torch.testing.assert_close(picked, ref.values, rtol=1e-5, atol=0)
    km = moe_softmax_f32.compile("cuda", lc)
    return [
        Row("tilec tiny op, CuPy in", lambda: tiny(x), sync),
        Row("tilec tiny op, CuPy in, fast path off", lambda: tiny(x), sync, fast=False),
        Row("tilec tiny op, torch CUDA in", lambda: tiny(xt), sync),
        Row("tilec tiny op, torch CUDA in, fast path off", lambda: tiny(xt), sync, fast=False),
        Row("tilec compiled kernel k(x), CuPy in", lambda: k(x), sync),
        Row("CuPy RawKernel launch, no allocation (floor)", lambda: floor((1,), (32,), (x, y, n32)), sync),
        Row("CuPy RawKernel launch + cp.empty_like", lambda: floor((1,), (32,), (x, cp.empty_like(x), n32)), sync),
        Row("CuPy x + 1", lambda: x + 1, sync),
        Row("torch x + 1 (CUDA)", lambda: xt + 1, sync),
        Row(f"tilec MoE gating {t}x256, torch CUDA in", lambda: moe_softmax_f32(lt), sync),
        Row(f"tilec MoE gating {t}x256, torch CUDA in, fast path off", lambda: moe_softmax_f32(lt), sync, fast=False),
        Row(f"tilec MoE gating {t}x256, CuPy in", lambda: moe_softmax_f32(lc), sync),
        Row(f"tilec MoE gating {t}x256, compiled kernel k(x)", lambda: km(lc), sync),
        Row(f"torch softmax + topk {t}x256 (CUDA)", lambda: torch.topk(torch.softmax(lt, -1), 8), sync),
    ]


def fmt(v) -> str:
    return "-" if v is None else f"{v:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", choices=["cuda", "cpu"], required=True)
    ap.add_argument("--calls", type=int, default=200, help="calls per timed batch")
    ap.add_argument("--repeats", type=int, default=25, help="batches per row (the median is reported)")
    ap.add_argument("--moe-tokens", type=int, default=0, help="MoE gating rows (default: cuda 4096, cpu 4)")
    ap.add_argument("--quick", action="store_true", help="few calls and repeats (a smoke run)")
    ap.add_argument("--out", default="benchmarks/out")
    args = ap.parse_args()
    if args.quick:
        args.calls, args.repeats = 20, 3
    rows = cuda_rows(args) if args.target == "cuda" else cpu_rows(args)
    for _ in range(args.repeats):
        for r in rows:
            r.measure(args.calls)
    results = [r.result() for r in rows]
    machine = machine_name(args.target)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    doc = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "machine": machine,
        "target": args.target,
        "calls": args.calls,
        "repeats": args.repeats,
        "rows": results,
    }
    (out / f"host_overhead-{args.target}.json").write_text(json.dumps(doc, indent=1))
    print(f"\n{machine}, {doc['date']}, {args.calls} calls per batch, median of {args.repeats}")
    if args.target == "cuda":
        print("| call | host us | + sync us | each sync us |")
        print("|---|---|---|---|")
        for r in results:
            print(f"| {r['row']} | {fmt(r['host_us'])} | {fmt(r['batch_sync_us'])} | {fmt(r['each_sync_us'])} |")
    else:
        print("| call | host us |")
        print("|---|---|")
        for r in results:
            print(f"| {r['row']} | {fmt(r['host_us'])} |")


if __name__ == "__main__":
    main()
