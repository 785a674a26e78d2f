"""Derived backward programs (tilec.vjp) vs torch's backward on CUDA, in one run.

    python benchmarks/autodiff_gpu.py [--rows 16384] [--cols 4096] [--quick] [--repeats N] [--out DIR]
    python benchmarks/autodiff_gpu.py --check-cpu     # no GPU needed: CPU numerics and the PTX through ptxas

Workloads (f32): layernorm, softmax, GELU (erf), cross-entropy (probability targets, per-row
loss) over rows x cols, and a 2-layer MLP block (layernorm -> x W1 -> GELU -> h W2 -> + x; width
cols, hidden --hidden, default 4 cols up to 8192; its backward is GEMM-bound: no bandwidth). tilec: the forward-with-residuals runs once, then the
derived backward kernel is timed; torch: the forward runs once with requires_grad, then
`torch.autograd.grad(..., retain_graph=True)` is timed (its hand-written backward kernels, using
the tensors it saved). Every tilec cotangent is checked against torch's before anything is
timed; CUDA events around batches of back-to-back calls after warm-up, median of repeats. For
the memory-bound workloads the table gives the fraction of copy bandwidth: the least bytes the
backward must move (read its inputs once, write its results once) over its time, divided by
the bandwidth of a device-to-device copy measured in the same run. `--out DIR` writes
DIR/autodiff_gpu.json. `VARIANTS` adds rows compiled with other mapping options (layernorm with
`column_partials=False`: dgamma/dbeta in their own split column kernel instead of the rowwise
kernel's partials), to compare the mappings in one run.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tilec  # noqa: E402
from tilec import float32, tile_op  # noqa: E402

EPS = 1e-5
SQRT1_2 = 1.0 / math.sqrt(2.0)


def _layernorm(x, g, b):
    mu = x.mean(-1, keepdims=True)
    xc = x - mu
    rstd = tilec.rsqrt((xc * xc).mean(-1, keepdims=True) + EPS)
    return xc * rstd * g + b


def _gelu(x):
    return 0.5 * x * (1.0 + tilec.erf(x * SQRT1_2))


@tile_op(dtype=float32, dims=["M", "N"])
def layernorm(x, g, b):
    return _layernorm(x, g, b)


@tile_op(dtype=float32, dims=["M", "N"])
def softmax(x):
    e = tilec.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@tile_op(dtype=float32, dims=["M", "N"])
def gelu(x):
    return _gelu(x)


@tile_op(dtype=float32, dims=["M", "N"])
def cross_entropy(z, p):
    """Per-row loss with probability targets p: -sum(p * log_softmax(z))."""
    s = z - z.max(-1, keepdims=True)
    logp = s - tilec.log(tilec.exp(s).sum(-1, keepdims=True))
    return -(p * logp).sum(-1)


@tile_op(dtype=float32, dims=["M", "N", "H"])
def mlp_block(x, g, b, w1, w2):
    h = _gelu(tilec.tile_contract(_layernorm(x, g, b), w1, axes=[(1, 0)]))
    return tilec.tile_contract(h, w2, axes=[(1, 0)]) + x


VARIANTS = {"layernorm (column-partials off)": ("layernorm", {"column_partials": False})}
"""Extra rows: a workload compiled with other mapping options (to compare the mappings)."""


def workloads(rows: int, cols: int, hidden: int):
    """name -> (tilec op, shapes of the primals, torch forward, least bytes of the backward or None,
    compile options of the CUDA backward)."""
    mn = rows * cols * 4
    import torch
    import torch.nn.functional as F

    def ln_torch(x, g, b):
        return F.layer_norm(x, (x.shape[-1],), g, b, EPS)

    def mlp_torch(x, g, b, w1, w2):
        return F.gelu(ln_torch(x, g, b) @ w1) @ w2 + x

    def ce_torch(z, p):
        return F.cross_entropy(z, p, reduction="none")

    out = {
        "layernorm": (layernorm, [(rows, cols), (cols,), (cols,)], ln_torch, 3 * mn, {}),  # x, dy -> dx
        "softmax": (softmax, [(rows, cols)], lambda x: torch.softmax(x, -1), 3 * mn, {}),
        "gelu": (gelu, [(rows, cols)], lambda x: F.gelu(x), 3 * mn, {}),
        "cross_entropy": (cross_entropy, [(rows, cols), (rows, cols)], ce_torch, 4 * mn, {}),  # z, p -> dz, dp
        "mlp_block": (
            mlp_block,
            [(rows, cols), (cols,), (cols,), (cols, hidden), (hidden, cols)],
            mlp_torch,
            None,
            {},
        ),
    }
    for label, (base, options) in VARIANTS.items():
        out[label] = (*out[base][:4], options)
    return out


def make_inputs(shapes, name, gen_np):
    arrs = [gen_np.standard_normal(s).astype(np.float32) for s in shapes]
    if name == "cross_entropy":
        e = np.exp(arrs[1])
        arrs[1] = (e / e.sum(-1, keepdims=True)).astype(np.float32)
    if name == "mlp_block":
        arrs[3] /= math.sqrt(shapes[3][0])
        arrs[4] /= math.sqrt(shapes[4][0])
    return arrs


def torch_backward(torch, fn, arrays, device, ct_np):
    ts = [torch.tensor(a, device=device, requires_grad=True) for a in arrays]
    y = fn(*ts)
    ct = torch.tensor(ct_np, device=device)
    return ts, y, ct, lambda: torch.autograd.grad(y, ts, ct, retain_graph=True)


def rel_err(torch, got, ref) -> float:
    got = torch.as_tensor(got, device=ref.device).double()
    ref = ref.double()
    return float((got - ref).norm() / max(float(ref.norm()), 1e-30))


def check_cpu(args) -> None:
    """CPU numerics of every derived backward (small awkward shapes) against torch CPU, and the
    PTX of every derived program through ptxas."""
    import torch

    gen = np.random.default_rng(0)
    ptxas = shutil.which("ptxas")
    for name, (op, shapes, tfn, _, options) in workloads(37, 129, 67).items():
        v = tilec.vjp(op)
        arrays = make_inputs(shapes, name, gen)
        out, *res = v.forward_with_residuals(*arrays)
        ct = gen.standard_normal(np.shape(out)).astype(np.float32)
        got = v.backward(*arrays, *res, ct)
        got = got if isinstance(got, tuple) else (got,)
        _, _, _, grads = torch_backward(torch, tfn, arrays, "cpu", ct)
        for g, w in zip(got, grads()):
            err = rel_err(torch, g, w)
            assert err < 1e-4, f"{name}: relative error {err} against torch"
        line = f"{name}: CPU backward matches torch ({len(res)} residuals)"
        if ptxas is not None:
            from tilec.emit.ptx import emit_ptx
            from tilec.runtime import lower

            with tempfile.TemporaryDirectory() as d:
                for which in ("forward", "backward", "vjp"):
                    ptx = Path(d) / f"{name}_{which}.ptx"
                    module = v.module(*arrays, which=which)
                    ptx.write_text(emit_ptx(lower(module, "hw", "cuda", sm="sm_90a", **options)))
                    r = subprocess.run(
                        [ptxas, "-arch=sm_90a", str(ptx), "-o", str(ptx.with_suffix(".cubin"))],
                        capture_output=True,
                        text=True,
                    )
                    assert r.returncode == 0, f"{name} {which}: ptxas failed:\n{r.stderr}"
            line += "; PTX (forward, backward, vjp) assembled by ptxas sm_90a"
        print(line, flush=True)
    if ptxas is None:
        print("ptxas is not on PATH: the PTX was not assembled")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=16384)
    ap.add_argument("--cols", type=int, default=4096)
    ap.add_argument("--hidden", type=int, default=0, help="MLP hidden width (default 4 cols, capped at 8192)")
    ap.add_argument("--quick", action="store_true", help="2048 x 1024")
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--check-cpu", action="store_true", help="CPU numerics and the PTX through ptxas; no GPU")
    ap.add_argument("--out", default=None, help="a directory: writes autodiff_gpu.json there")
    args = ap.parse_args()
    if args.check_cpu:
        check_cpu(args)
        return
    import torch

    if not torch.cuda.is_available():
        sys.exit(
            "error: this benchmark needs an NVIDIA GPU (torch.cuda.is_available() is False); "
            "run it with --check-cpu for the CPU checks and the PTX build"
        )
    rows, cols = (2048, 1024) if args.quick else (args.rows, args.cols)
    hidden = args.hidden or min(4 * cols, 8192)

    def bench(fn, batch_calls=10, warmup=3):
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(args.repeats):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(batch_calls):
                fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / batch_calls)
        return statistics.median(times)

    big = torch.empty(256 * 2**20, device="cuda", dtype=torch.float32)
    dst = torch.empty_like(big)
    copy_ms = bench(lambda: dst.copy_(big))
    copy_gbs = 2 * big.numel() * 4 / copy_ms / 1e6
    print(f"device-to-device copy: {copy_gbs:.0f} GB/s", flush=True)
    gen = np.random.default_rng(0)
    rows_out = []
    for name, (op, shapes, tfn, least_bytes, options) in workloads(rows, cols, hidden).items():
        arrays = make_inputs(shapes, name, gen)
        v = tilec.vjp(op)
        dev = [torch.tensor(a, device="cuda") for a in arrays]
        fwd = v.compile("cuda", *dev, which="forward")
        bwd = v.compile("cuda", *dev, which="backward", **options)
        out, *res = fwd(*dev)
        ct_np = gen.standard_normal(tuple(out.shape)).astype(np.float32)
        ct = torch.tensor(ct_np, device="cuda")
        got = bwd(*dev, *res, ct)
        got = got if isinstance(got, tuple) else (got,)
        _, _, _, torch_grads = torch_backward(torch, tfn, arrays, "cuda", ct_np)
        errs = [rel_err(torch, g, w) for g, w in zip(got, torch_grads())]
        assert max(errs) < 1e-3, f"{name}: relative errors {errs} against torch"
        t = bench(lambda: bwd(*dev, *res, ct))
        tr = bench(torch_grads)
        row = {
            "workload": name,
            "options": options,
            "shape": [rows, cols] + ([hidden] if name == "mlp_block" else []),
            "residuals": len(res),
            "tilec_ms": t,
            "torch_ms": tr,
            "ratio": tr / t,
            "max_rel_err": max(errs),
        }
        if least_bytes is not None:
            row["tilec_copy_fraction"] = least_bytes / t / 1e6 / copy_gbs
            row["torch_copy_fraction"] = least_bytes / tr / 1e6 / copy_gbs
        rows_out.append(row)
        frac = f", {row['tilec_copy_fraction']:.2f} of copy bandwidth" if least_bytes else ""
        print(f"  {name}: tilec {t:.3f} ms, torch {tr:.3f} ms ({row['ratio']:.2f}x){frac}", flush=True)
    machine = torch.cuda.get_device_name(0)
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": machine,
        "torch": torch.__version__,
        "copy_gbs": copy_gbs,
        "rows": rows_out,
    }
    if args.out:
        out_dir = Path(args.out)
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "autodiff_gpu.json").write_text(json.dumps(result, indent=1))
    print(f"\n{machine}, {result['date']}, f32, {rows} x {cols} (MLP hidden {hidden}), copy {copy_gbs:.0f} GB/s")
    print("| backward of | tilec ms | torch ms | ratio (torch / tilec) | tilec / torch fraction of copy bandwidth |")
    print("|---|---|---|---|---|")
    for r in rows_out:
        frac = f"{r['tilec_copy_fraction']:.2f} / {r['torch_copy_fraction']:.2f}" if "tilec_copy_fraction" in r else "-"
        print(f"| {r['workload']} | {r['tilec_ms']:.3f} | {r['torch_ms']:.3f} | {r['ratio']:.2f} | {frac} |")


if __name__ == "__main__":
    main()
