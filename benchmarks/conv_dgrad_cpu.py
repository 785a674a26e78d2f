"""Strided input gradients on the CPU: tilec.conv_backward_input vs torch.nn.grad.conv2d_input, f32.

    python benchmarks/conv_dgrad_cpu.py [--batch 4] [--threads T] [--repeats N] [--cpu-time] [--quick]

Shapes: ResNet-50's strided layers (the 3x3/2 of stages 2-4 and a 1x1/2 downsample) at `--batch`,
channels-last on both sides (tilec NHWC arrays; torch NCHW tensors in the channels_last memory
format). tilec computes a strided input gradient by phases: one stride-1 convolution of dy per
phase of the stride, then one interleave (docs/dsl.md). Every tilec result is checked against
torch first. Rounds as benchmarks/conv_cpu.py: `--repeats` rounds, each a tilec block and a torch
block (order alternating), a block one untimed call then 3 timed calls; reported: each side's
median and the median over rounds of torch_time / tilec_time (> 1: tilec is faster). Threads: T
for both (OMP_NUM_THREADS set before import, torch.set_num_threads). `--cpu-time` (with
--threads 1) times by the calling thread's CPU time (the machine's other load not counted).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
p.add_argument("--batch", type=int, default=4)
p.add_argument("--threads", type=int, default=os.cpu_count())
p.add_argument("--repeats", type=int, default=5)
p.add_argument("--cpu-time", action="store_true")
p.add_argument("--quick", action="store_true", help="one small shape, 2 rounds")
args = p.parse_args()
if args.cpu_time and args.threads != 1:
    p.error("--cpu-time needs --threads 1")
os.environ["OMP_NUM_THREADS"] = str(args.threads)
os.environ.setdefault("GOMP_SPINCOUNT", "10000")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from timing import cpu_rounds  # noqa: E402  (benchmarks/timing.py)

import tilec  # noqa: E402
from tilec import float32, tile_op  # noqa: E402

torch.set_num_threads(args.threads)
clock = time.thread_time if args.cpu_time else time.perf_counter

LAYERS = [  # (name, H = W of the input, C in, O out, kernel, stride, padding)
    ("3x3/2 128 @56", 56, 128, 128, 3, 2, 1),
    ("3x3/2 256 @28", 28, 256, 256, 3, 2, 1),
    ("3x3/2 512 @14", 14, 512, 512, 3, 2, 1),
    ("1x1/2 256->512 @56", 56, 256, 512, 1, 2, 0),
]
if args.quick:
    LAYERS = [("3x3/2 16 @14", 14, 16, 16, 3, 2, 1)]
    args.repeats = 2


def make_op(shape, k: int, s: int, pad: int):
    @tile_op(dtype=float32)
    def dgrad(dy, w):
        return tilec.conv_backward_input(dy, w, shape, stride=s, padding=pad, layout="channels_last")

    return dgrad


rng = np.random.default_rng(0)
rows = []
for name, hw, c, o, k, s, pad in LAYERS:
    n = args.batch
    ohw = (hw + 2 * pad - k) // s + 1
    dy = rng.standard_normal((n, ohw, ohw, o)).astype(np.float32)
    w = (rng.standard_normal((o, k, k, c)) / np.sqrt(k * k * c)).astype(np.float32)
    tdy = torch.from_numpy(dy).permute(0, 3, 1, 2)  # NCHW view of NHWC memory: channels_last format
    tw = torch.from_numpy(w).permute(0, 3, 1, 2)
    dgrad = make_op((n, hw, hw, c), k, s, pad)

    def ref():
        return torch.nn.grad.conv2d_input((n, c, hw, hw), tw, tdy, stride=s, padding=pad)

    want = ref().permute(0, 2, 3, 1).numpy()
    got = dgrad(dy, w)
    err = float(np.abs(got - want).max() / max(1.0, np.abs(want).max()))
    assert err < 1e-4, f"{name}: error {err}"
    t_tilec, t_torch, ratio = cpu_rounds(lambda: dgrad(dy, w), ref, args.repeats, clock)
    flops = 2.0 * n * ohw * ohw * o * k * k * c
    rows.append((name, t_tilec, t_torch, ratio, flops))
    print(f"{name}: tilec {t_tilec * 1e3:.2f} ms, torch {t_torch * 1e3:.2f} ms", flush=True)

print(f"\nbatch {args.batch}, f32, channels-last, {args.threads} thread(s), {'CPU' if args.cpu_time else 'wall'} time")
print("| input gradient | tilec ms (GFLOP/s) | torch ms (GFLOP/s) | ratio torch/tilec |")
print("|---|---|---|---|")
for name, t, tr, ratio, flops in rows:
    print(f"| {name} | {t * 1e3:.2f} ({flops / t / 1e9:.0f}) | {tr * 1e3:.2f} ({flops / tr / 1e9:.0f}) | {ratio:.2f} |")
print(f"| geomean | | | {statistics.geometric_mean([r[3] for r in rows]):.2f} |")
