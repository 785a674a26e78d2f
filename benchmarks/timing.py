"""The timing and reporting the benchmark scripts share (METHOD: warm-up, then medians of repeats).

- `cuda_ms(torch, fn, repeats)`: CUDA events around a batch of back-to-back calls, after
  warm-up; the median over `repeats` batches, in ms per call. Used for tilec and the reference
  alike, so both sides are timed the same way.
- `cpu_pair_ms(f, g, repeats)`: wall clock (perf_counter) of two functions in alternating
  batches (each round runs both, so load on a shared machine hits both sides); medians in ms.
- `cpu_rounds(f, g, repeats, clock)`: `repeats` rounds, each a block of `f` and a block of `g`
  (order alternating; a block is one untimed call, then the median of 3 timed calls by `clock`,
  e.g. time.thread_time for one thread's CPU time); medians of each side's blocks and of the
  per-round ratios g / f, in seconds.
- `cuda_kernel_us(torch, fn, calls)`: the GPU time of the kernels `fn` launches (any launcher in
  the process: torch's, CuPy's), from torch.profiler's CUDA activity records: microseconds per
  call summed over kernels, and kernels per call. Host time is left out: it tells what the
  kernels cost when the host keeps ahead (a timed call costs max(host time, GPU time)).
- `cuda_copy_gbs` / `cpu_copy_gbs`: the bandwidth of a device-to-device (numpy: in-memory)
  copy of `nbytes`, measured in the same run: the "of copy" denominator of memory-bound rows.
- `bandwidth_args` / `write_bandwidth_report`: the command line and the JSON + markdown table of
  the memory-bound scripts (pool_gpu.py, training_ops.py).
- `compile_option`: a `--option name=value` argument as a tilec compile option.
- `fmt`: a number for a table cell, "n/a" for None (a ratio the profiler could not give).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path


def cuda_ms(torch, fn, repeats: int, batch: int = 10, warmup: int = 3) -> float:
    """Median ms per call of `fn` on the current CUDA stream (CUDA events, `batch` calls a sample)."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(batch):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / batch)
    return statistics.median(times)


def _cuda_kernel_records(torch, fn, calls: int) -> list:
    """The profiler's CUDA kernel records of `calls` calls of `fn` (after one untimed call)."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    return [e for e in prof.events() if e.device_type == DeviceType.CUDA]


def cuda_kernel_us(torch, fn, calls: int = 50) -> tuple[float | None, float]:
    """(kernel microseconds per call, kernels per call) of `fn`, from the profiler's CUDA
    kernel records; (None, 0) when the profiler records no kernel (no CUPTI)."""
    kernels = _cuda_kernel_records(torch, fn, calls)
    if not kernels:
        return None, 0.0
    return sum(e.time_range.elapsed_us() for e in kernels) / calls, len(kernels) / calls


def cuda_kernel_breakdown(torch, fn, calls: int = 20) -> list[tuple[str, float]]:
    """(kernel name, microseconds per call) of the kernels `fn` launches, largest first, from the
    same profiler records as `cuda_kernel_us`; [] when the profiler records no kernel."""
    per: dict[str, float] = {}
    for e in _cuda_kernel_records(torch, fn, calls):
        per[e.name] = per.get(e.name, 0.0) + e.time_range.elapsed_us() / calls
    return sorted(per.items(), key=lambda kv: -kv[1])


def cuda_copy_gbs(torch, nbytes: int, repeats: int) -> float:
    """GB/s of `y.copy_(x)` over `nbytes` (read + written) on the device."""
    x = torch.empty(nbytes // 4, device="cuda")
    y = torch.empty_like(x)
    return 2 * x.numel() * 4 / cuda_ms(torch, lambda: y.copy_(x), repeats) / 1e6


def cpu_pair_ms(f, g, repeats: int, batch: int = 3) -> tuple[float, float]:
    """Median ms per call of `f` and of `g`, timed in alternating batches (order flipped each round)."""
    f(), g()
    ta, tb = [], []
    for i in range(repeats):
        for fn, acc in ((f, ta), (g, tb))[:: 1 if i % 2 == 0 else -1]:
            t0 = time.perf_counter()
            for _ in range(batch):
                fn()
            acc.append((time.perf_counter() - t0) / batch * 1e3)
    return statistics.median(ta), statistics.median(tb)


def cpu_rounds(f, g, repeats: int, clock=time.perf_counter) -> tuple[float, float, float]:
    """(median s of f, median s of g, median of the rounds' g / f): see the module docstring."""

    def block(fn) -> float:
        fn()
        times = []
        for _ in range(3):
            t = clock()
            fn()
            times.append(clock() - t)
        return statistics.median(times)

    tf, tg, ratios = [], [], []
    for r in range(repeats):
        got = {}
        for key, fn in (("f", f), ("g", g)) if r % 2 == 0 else (("g", g), ("f", f)):
            got[key] = block(fn)
        tf.append(got["f"])
        tg.append(got["g"])
        ratios.append(got["g"] / got["f"])
    return statistics.median(tf), statistics.median(tg), statistics.median(ratios)


def cpu_copy_gbs(np, nbytes: int, repeats: int) -> float:
    """GB/s of `np.copyto` over `nbytes` (read + written)."""
    a = np.ones(nbytes // 4, np.float32)
    b = np.empty_like(a)
    t, _ = cpu_pair_ms(lambda: np.copyto(b, a), lambda: None, repeats)
    return 2 * a.nbytes / t / 1e6


def machine_name(target: str) -> str:
    if target == "cuda":
        import torch

        return torch.cuda.get_device_name(0)
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs"


def bandwidth_args(description: str) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--target", choices=["cuda", "cpu"], required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--out", default="benchmarks/out")
    return ap.parse_args()


def bandwidth_row(workload: str, moved: int, t: float, tr: float, copy: float, ref_name: str) -> dict:
    """One memory-bound row: `moved` bytes, tilec `t` ms, reference `tr` ms, copy GB/s."""
    gbs = moved / t / 1e6
    return {
        "workload": workload,
        "reference": ref_name,
        "bytes": moved,
        "tilec_ms": t,
        "ref_ms": tr,
        "tilec_gbs": gbs,
        "ref_gbs": moved / tr / 1e6,
        "copy_gbs": copy,
        "of_copy": gbs / copy,
        "ratio": tr / t,
    }


def write_bandwidth_report(rows: list[dict], name: str, args: argparse.Namespace) -> None:
    """DIR/<name>-<target>.json and a markdown table on stdout."""
    machine = machine_name(args.target)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    result = {"date": time.strftime("%Y-%m-%d"), "machine": machine, "target": args.target, "rows": rows}
    (out / f"{name}-{args.target}.json").write_text(json.dumps(result, indent=1))
    print(f"\n{machine}, {result['date']}")
    print("| workload | tilec | of copy | reference | ratio (ref time / tilec time) |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['workload']} | {r['tilec_gbs']:.0f} GB/s ({r['tilec_ms']:.3f} ms) | {r['of_copy']:.2f} "
            f"| {r['reference']}: {r['ref_gbs']:.0f} GB/s ({r['ref_ms']:.3f} ms) | {r['ratio']:.2f} |"
        )


def compile_option(text: str) -> tuple[str, object]:
    """`name=value` (a `--option` argument) -> (name, int / bool / str value), dashes as underscores."""
    name, _, value = text.partition("=")
    if value.lstrip("-").isdigit():
        return name.replace("-", "_"), int(value)
    if value in ("true", "false"):
        return name.replace("-", "_"), value == "true"
    return name.replace("-", "_"), value


def fmt(x, digits: int = 2) -> str:
    """`x` with `digits` decimals, or "n/a" for None."""
    return "n/a" if x is None else f"{x:.{digits}f}"
