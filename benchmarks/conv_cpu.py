"""tilec.conv vs torch's CPU convolution (torch.nn.functional.conv2d), f32, in the same process.

    python benchmarks/conv_cpu.py [--threads T] [--repeats N] [--quick] [--options 'vector=8'] [--cpu-time]
                                  [--out DIR]

Shapes: ResNet-50 3x3 layers at batch 8 (stride 1, padding 1): 64 channels at 56x56 and 128 at
28x28, in channels_first (NCHW, both sides) and channels_last (tilec's NHWC layout against torch's
channels_last memory format). Each tilec result is checked against torch before anything is timed.
Threads: T (default: all CPUs) for both tilec's OpenMP (OMP_NUM_THREADS, set before anything is
imported; GOMP_SPINCOUNT=10000 so idle workers do not steal the other library's cores) and torch
(torch.set_num_threads). Rounds: `--repeats` (default 9) rounds, each a tilec block and a torch block
(order alternating), a block one untimed call then 3 timed calls; reported: each side's median and
the median over rounds of torch_time / tilec_time (> 1: tilec is faster).
tilec's options: the cpu target's defaults (the GEMM's `vector` width is the host's: 16 lanes with
AVX-512), or `--options` (e.g. `vector=8` for the AVX2 micro-kernel); the header line says which.
`--cpu-time` (with `--threads 1` only) times each call by the calling thread's CPU time
(time.thread_time) instead of wall time: with one thread both libraries compute on the calling
thread, and the time the machine's other processes take from it is not counted (on a shared,
loaded machine wall times of one call vary by 2-3x).
`--out DIR` also writes DIR/conv_cpu.json (every timing).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--threads", type=int, default=os.cpu_count())
p.add_argument("--repeats", type=int, default=9)
p.add_argument("--quick", action="store_true", help="one small shape, 2 rounds (seconds; for a smoke test)")
p.add_argument("--options", default="", help="tilec cpu options, e.g. 'vector=8' or 'vector=16 mr=6 nr=64'")
p.add_argument("--cpu-time", action="store_true", help="time by the calling thread's CPU time (--threads 1 only)")
p.add_argument("--out", default=None, help="directory for conv_cpu.json")
ARGS = p.parse_args()
if ARGS.cpu_time and ARGS.threads != 1:
    p.error("--cpu-time needs --threads 1 (other threads' CPU time is not the calling thread's)")
os.environ["OMP_NUM_THREADS"] = str(ARGS.threads)
os.environ.setdefault("GOMP_SPINCOUNT", "10000")

import numpy as np  # noqa: E402
import torch  # noqa: E402

import tilec  # noqa: E402
from tilec import float32, tile_op  # noqa: E402

torch.set_num_threads(ARGS.threads)
F = torch.nn.functional
OPTIONS = {k: int(v) for k, v in (item.split("=") for item in ARGS.options.split())}


def make_op(layout: str):
    @tile_op(dtype=float32)
    def conv3x3(x, w):
        return tilec.conv(x, w, padding=1, layout=layout)

    return conv3x3


CLOCK = time.thread_time if ARGS.cpu_time else time.perf_counter


def block(fn, calls: int = 3) -> list[float]:
    fn()
    out = []
    for _ in range(calls):
        t0 = CLOCK()
        fn()
        out.append(CLOCK() - t0)
    return out


def bench(n: int, c: int, hw: int, layout: str, repeats: int) -> dict:
    rng = np.random.default_rng(0)
    last = layout == "channels_last"
    x = rng.standard_normal((n, c, hw, hw)).astype(np.float32)
    w = (rng.standard_normal((c, c, 3, 3)) / np.sqrt(9 * c)).astype(np.float32)
    tx, tw = torch.from_numpy(x), torch.from_numpy(w)
    if last:
        tx, tw = tx.to(memory_format=torch.channels_last), tw.to(memory_format=torch.channels_last)
        xin = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
        win = np.ascontiguousarray(w.transpose(0, 2, 3, 1))
    else:
        xin, win = x, w
    op = make_op(layout)
    kernel = op.compile("cpu", xin, win, **OPTIONS)
    (got,) = kernel(xin, win)  # the compiled kernel returns its outputs as a tuple
    with torch.no_grad():
        want = F.conv2d(tx, tw, padding=1).numpy()  # NCHW view of either memory format
    if last:
        got = got.transpose(0, 3, 1, 2)
    err = float(np.abs(got - want).max())
    assert err < 1e-3, f"tilec differs from torch by {err}"
    ours, theirs, ratios = [], [], []

    def run_torch():
        with torch.no_grad():
            F.conv2d(tx, tw, padding=1)

    for r in range(repeats):
        pair = [("t", lambda: kernel(xin, win)), ("r", run_torch)]
        if r % 2:
            pair.reverse()
        times = {k: block(fn) for k, fn in pair}
        ours += times["t"]
        theirs += times["r"]
        ratios.append(statistics.median(times["r"]) / statistics.median(times["t"]))
    flops = 2 * n * c * c * 9 * hw * hw
    return {
        "shape": f"N={n} C=O={c} {hw}x{hw} 3x3/1 pad 1",
        "layout": layout,
        "tilec_ms": 1e3 * statistics.median(ours),
        "torch_ms": 1e3 * statistics.median(theirs),
        "tilec_gflops": flops / statistics.median(ours) / 1e9,
        "ratio": statistics.median(ratios),
        "tilec_s": ours,
        "torch_s": theirs,
        "ratios": ratios,
    }


def main() -> None:
    shapes = [(2, 16, 14)] if ARGS.quick else [(8, 64, 56), (8, 128, 28)]
    repeats = 2 if ARGS.quick else ARGS.repeats
    from tilec.backends import get_backend

    options = get_backend("cpu").options(OPTIONS)
    mr, nr, _ = options.micro_tile()
    print(
        f"threads {ARGS.threads} (torch {torch.get_num_threads()}), torch {torch.__version__} "
        f"({torch.backends.cpu.get_cpu_capability()}), {repeats} rounds, {'thread CPU' if ARGS.cpu_time else 'wall'} time, "
        f"load average {os.getloadavg()[0]:.1f}; "
        f"tilec vector={options.vector} (micro-tile {mr}x{nr}){' ' + ARGS.options if ARGS.options else ''}"
    )
    print("| shape | layout | tilec | torch | tilec GFLOP/s | torch / tilec time |")
    print("|---|---|---|---|---|---|")
    results = []
    for n, c, hw in shapes:
        for layout in ("channels_first", "channels_last"):
            r = bench(n, c, hw, layout, repeats)
            results.append(r)
            print(
                f"| {r['shape']} | {r['layout']} | {r['tilec_ms']:.1f} ms | {r['torch_ms']:.1f} ms "
                f"| {r['tilec_gflops']:.1f} | **{r['ratio']:.2f}x** |"
            )
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    if ARGS.out:
        os.makedirs(ARGS.out, exist_ok=True)
        meta = {
            "threads": ARGS.threads,
            "torch": torch.__version__,
            "vector": options.vector,
            "options": OPTIONS,
            "clock": "thread_time" if ARGS.cpu_time else "perf_counter",
        }
        with open(os.path.join(ARGS.out, "conv_cpu.json"), "w") as f:
            json.dump({"meta": meta, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
