"""The 1x1 weight gradient on the CPU: tilec.conv_backward_weight vs torch.nn.grad.conv2d_weight, f32.

    python benchmarks/conv_wgrad_cpu.py [--batch 8] [--threads T] [--repeats N] [--cpu-time] [--quick]

Shapes: ResNet-50's 1x1 layers (reduce and expand of each stage) at `--batch`, channels-last on
both sides (tilec NHWC arrays; torch NCHW tensors in the channels_last memory format). tilec's
1x1 channels-last weight gradient is one GEMM dy^T x (docs/dsl.md). Every tilec result is checked
against torch first. Rounds as benchmarks/conv_cpu.py: `--repeats` rounds, each a tilec block and
a torch block (order alternating), a block one untimed call then 3 timed calls; reported: each
side's median and the median over rounds of torch_time / tilec_time (> 1: tilec is faster).
Threads: T for both (OMP_NUM_THREADS set before import, torch.set_num_threads). `--cpu-time`
(with --threads 1) times by the calling thread's CPU time (the machine's other load not counted).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
p.add_argument("--batch", type=int, default=8)
p.add_argument("--threads", type=int, default=os.cpu_count())
p.add_argument("--repeats", type=int, default=7)
p.add_argument("--cpu-time", action="store_true")
p.add_argument("--quick", action="store_true", help="two small shapes, 2 rounds")
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

LAYERS = [  # (name, H = W, C in, O out)
    ("reduce 256->64 @56", 56, 256, 64),
    ("expand 64->256 @56", 56, 64, 256),
    ("reduce 512->128 @28", 28, 512, 128),
    ("expand 128->512 @28", 28, 128, 512),
    ("reduce 1024->256 @14", 14, 1024, 256),
    ("expand 256->1024 @14", 14, 256, 1024),
    ("reduce 2048->512 @7", 7, 2048, 512),
    ("expand 512->2048 @7", 7, 512, 2048),
]
if args.quick:
    LAYERS = [("reduce 64->16 @14", 14, 64, 16), ("expand 16->64 @14", 14, 16, 64)]
    args.repeats = 2


def make_op(o: int, c: int):
    @tile_op(dtype=float32)
    def wgrad(x, dy):
        return tilec.conv_backward_weight(x, dy, (o, 1, 1, c), layout="channels_last")

    return wgrad


rng = np.random.default_rng(0)
rows = []
for name, hw, c, o in LAYERS:
    n = args.batch
    x = rng.standard_normal((n, hw, hw, c)).astype(np.float32)
    dy = rng.standard_normal((n, hw, hw, o)).astype(np.float32)
    tx = torch.from_numpy(x).permute(0, 3, 1, 2)  # NCHW view of NHWC memory: channels_last format
    tdy = torch.from_numpy(dy).permute(0, 3, 1, 2)

    wgrad = make_op(o, c)

    def ref():
        return torch.nn.grad.conv2d_weight(tx, (o, c, 1, 1), tdy)

    want = ref().permute(0, 2, 3, 1).numpy()
    got = wgrad(x, dy)
    err = float(np.abs(got - want).max() / max(1.0, np.abs(want).max()))
    assert err < 1e-4, f"{name}: error {err}"
    t_tilec, t_torch, ratio = cpu_rounds(lambda: wgrad(x, dy), ref, args.repeats, clock)
    flops = 2.0 * n * hw * hw * c * o
    rows.append((name, t_tilec, t_torch, ratio, flops))
    print(f"{name}: tilec {t_tilec * 1e3:.2f} ms, torch {t_torch * 1e3:.2f} ms", flush=True)

print(f"\nbatch {args.batch}, f32, channels-last, {args.threads} thread(s), {'CPU' if args.cpu_time else 'wall'} time")
print("| 1x1 layer | tilec ms (GFLOP/s) | torch ms (GFLOP/s) | ratio torch/tilec |")
print("|---|---|---|---|")
for name, t, tr, ratio, flops in rows:
    print(f"| {name} | {t * 1e3:.2f} ({flops / t / 1e9:.0f}) | {tr * 1e3:.2f} ({flops / tr / 1e9:.0f}) | {ratio:.2f} |")
print(f"| geomean | | | {statistics.geometric_mean([r[3] for r in rows]):.2f} |")
