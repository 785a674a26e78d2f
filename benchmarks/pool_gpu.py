"""Pooling (issue 11) vs torch, side by side in one run: ResNet-50's stem max-pool (3x3, stride 2,
padding 1, with indices) and its backward, an average pool and its backward, the global average
pool before the classifier.

    python benchmarks/pool_gpu.py --target cuda [--quick] [--repeats N] [--out DIR]
    python benchmarks/pool_gpu.py --target cpu  [--quick] [--repeats N] [--out DIR]

Every tilec result is checked against torch before anything is timed (max values and indices
exactly, averages to 1e-2 in f16 and 1e-5 in f32). Pooling is memory-bound: each row reports
GB/s over the bytes the op must move once (the input read, the outputs written: values, and
int64 indices where returned; backward: dy and indices read, dx written) and the fraction of
a plain copy's bandwidth measured in the same run.
- cuda: f16, N=64, C=64, 112x112 (the stem's output) in torch's layout (N, C, H, W), against
  torch on the same GPU (`F.max_pool2d(..., return_indices=True)`, `F.avg_pool2d`,
  `F.adaptive_avg_pool2d`, and the backward kernels autograd runs,
  `torch.ops.aten.max_pool2d_with_indices_backward` / `avg_pool2d_backward`); CUDA events around
  batches of back-to-back calls after warm-up, median of repeats.
- cpu: f32, N=8 (ResNet-50's stem at batch 8), against torch's CPU kernels on the same threads
  (`torch.set_num_threads(OMP_NUM_THREADS or all cores)`); `time.perf_counter`, tilec and torch
  alternating, median of repeats.
Writes DIR/pool-<target>.json and prints a markdown table.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from timing import bandwidth_args, cpu_copy_gbs, cpu_pair_ms, cuda_copy_gbs, cuda_ms, write_bandwidth_report  # noqa: E402  (benchmarks/timing.py)
from timing import bandwidth_row as row

import tilec  # noqa: E402
from tilec import int64, tile_op  # noqa: E402


def programs(dt):
    @tile_op(dtype=dt)
    def max_pool(x):
        return tilec.max_pool(x, 3, 2, 1, return_indices=True)

    @tile_op(dtype=dt)
    def max_pool_values(x):
        return tilec.max_pool(x, 3, 2, 1)

    @tile_op(dtype=dt)
    def avg_pool(x):
        return tilec.avg_pool(x, 3, 2, 1)

    @tile_op(dtype=dt)
    def global_avg(x):
        return tilec.adaptive_avg_pool(x, 1)

    @tile_op(dtype=dt, dtypes={"idx": int64})
    def max_pool_bwd(dy, idx, x):  # given the window: one walk over the windows holding each input
        return tilec.max_pool_backward(dy, idx, x.shape, 3, 2, 1)

    @tile_op(dtype=dt, dtypes={"idx": int64})
    def max_pool_bwd_scatter(dy, idx, x):  # without it: issue 10's scatter_add at the indices
        return tilec.max_pool_backward(dy, idx, x.shape)

    @tile_op(dtype=dt)
    def avg_pool_bwd(dy, x):
        return tilec.avg_pool_backward(dy, x.shape, 3, 2, 1)

    return max_pool, max_pool_values, avg_pool, global_avg, max_pool_bwd, avg_pool_bwd, max_pool_bwd_scatter


def cases(torch, F, x, shape_g):
    """(name, tilec op, its arguments, torch reference, bytes moved, reference name, check kind)."""
    aten = torch.ops.aten
    y, idx = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    dy = torch.randn_like(y)
    xg = torch.randn(shape_g, device=x.device, dtype=x.dtype)
    e = x.element_size()
    n_in, n_out = x.numel(), y.numel()
    mp, mpv, ap, ga, mpb, apb, mps = programs(tilec.float16 if x.dtype == torch.float16 else tilec.float32)
    s = "x".join(str(d) for d in x.shape)
    return [
        (
            f"max_pool 3x3/2 p1 + indices {s}",
            mp,
            (x,),
            lambda: F.max_pool2d(x, 3, 2, 1, return_indices=True),
            n_in * e + n_out * (e + 8),
            "F.max_pool2d(return_indices=True)",
        ),
        (f"max_pool 3x3/2 p1 {s}", mpv, (x,), lambda: F.max_pool2d(x, 3, 2, 1), n_in * e + n_out * e, "F.max_pool2d"),
        (f"avg_pool 3x3/2 p1 {s}", ap, (x,), lambda: F.avg_pool2d(x, 3, 2, 1), n_in * e + n_out * e, "F.avg_pool2d"),
        (
            "global avg pool " + "x".join(str(d) for d in shape_g),
            ga,
            (xg,),
            lambda: F.adaptive_avg_pool2d(xg, 1),
            xg.numel() * e + xg.numel() // (shape_g[2] * shape_g[3]) * e,
            "F.adaptive_avg_pool2d",
        ),
        (
            f"max_pool backward (scatter_add) {s}",
            mps,
            (dy, idx, x),
            lambda: aten.max_pool2d_with_indices_backward(dy, x, [3, 3], [2, 2], [1, 1], [1, 1], False, idx),
            n_out * (e + 8) + n_in * e,
            "aten.max_pool2d_with_indices_backward",
        ),
        (
            f"max_pool backward (window walk) {s}",
            mpb,
            (dy, idx, x),
            lambda: aten.max_pool2d_with_indices_backward(dy, x, [3, 3], [2, 2], [1, 1], [1, 1], False, idx),
            n_out * (e + 8) + n_in * e,
            "aten.max_pool2d_with_indices_backward",
        ),
        (
            f"avg_pool backward {s}",
            apb,
            (dy, x),
            lambda: aten.avg_pool2d_backward(dy, x, [3, 3], [2, 2], [1, 1], False, True, None),
            n_out * e + n_in * e,
            "aten.avg_pool2d_backward",
        ),
    ]


def check(name, got, want, tol):
    """tilec's results against torch's: integers and tol == 0 exactly, else to tol relative."""
    got = list(got) if isinstance(got, tuple | list) else [got]
    want = list(want) if isinstance(want, tuple | list) else [want]
    for g, w in zip(got, want):
        if not w.dtype.is_floating_point or tol == 0:
            assert bool((g.cpu() == w.cpu()).all()), f"{name}: differs from torch"
        else:
            g, w = g.double().cpu(), w.double().cpu()
            err = float((g - w).abs().max()) / max(1.0, float(w.abs().max()))
            assert err < tol, f"{name}: error {err}"


def cuda_rows(args) -> list[dict]:
    import torch
    import torch.nn.functional as F

    def bench(fn, batch=10, warmup=3):
        return cuda_ms(torch, fn, args.repeats, batch, warmup)

    def copy_gbs(nbytes):
        return cuda_copy_gbs(torch, nbytes, args.repeats)

    torch.manual_seed(0)
    n = 8 if args.quick else 64
    x = torch.randn(n, 64, 112, 112, device="cuda", dtype=torch.float16)
    rows = []
    for name, op, arrays, ref, moved, ref_name in cases(torch, F, x, (n, 2048, 7, 7)):
        k = op.compile("cuda", *arrays)
        got = [torch.as_tensor(g, device="cuda") for g in k(*arrays)]
        want = ref()
        exact = "max_pool" in name and "backward" not in name
        check(name, got, want, 0 if exact else 1e-2)
        t, tr = bench(lambda: k(*arrays)), bench(ref)
        rows.append(row(name + " f16", moved, t, tr, copy_gbs(moved), f"torch {ref_name}"))
        if "indices" in name:  # lanes per thread: 16-byte accesses (the default) give 8 outputs x 9 taps
            for vb in (4, 8):
                kv = op.compile("cuda", *arrays, vector_bytes=vb)
                check(name, [torch.as_tensor(g, device="cuda") for g in kv(*arrays)], want, 0)
                t = bench(lambda: kv(*arrays))
                rows.append(row(f"{name} f16, vector_bytes={vb}", moved, t, tr, copy_gbs(moved), f"torch {ref_name}"))
    return rows


def cpu_rows(args) -> list[dict]:
    import torch
    import torch.nn.functional as F

    threads = int(os.environ.get("OMP_NUM_THREADS", os.cpu_count() or 1))
    torch.set_num_threads(threads)

    def pair(f, g, batch=3):
        return cpu_pair_ms(f, g, args.repeats, batch)

    def copy_gbs(nbytes):
        return cpu_copy_gbs(np, nbytes, args.repeats)

    torch.manual_seed(0)
    n = 2 if args.quick else 8
    x = torch.randn(n, 64, 112, 112)
    rows = []
    for name, op, arrays, ref, moved, ref_name in cases(torch, F, x, (n, 2048, 7, 7)):
        nps = [a.numpy() for a in arrays]
        k = op.compile("cpu", *nps)
        got = [torch.from_numpy(np.asarray(g)) for g in k(*nps)]
        exact = "max_pool" in name and "backward" not in name
        check(name, got, ref(), 0 if exact else 1e-5)
        t, tr = pair(lambda: k(*nps), ref)
        rows.append(row(name + " f32", moved, t, tr, copy_gbs(moved), f"torch {ref_name} ({threads} threads)"))
    return rows


def main() -> None:
    args = bandwidth_args(__doc__.split("\n")[0])
    rows = cuda_rows(args) if args.target == "cuda" else cpu_rows(args)
    write_bandwidth_report(rows, "pool", args)


if __name__ == "__main__":
    main()
