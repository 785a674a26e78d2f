"""Scans and arg-reductions of issue 11 on an NVIDIA GPU vs torch, in one run: the 2**26-element
f32 cumsum (the issue's bandwidth goal: >= 0.8 of a device copy), row-wise cumsum and
logcumsumexp, and an argmax fused with the max of the same rows (torch.max(dim) gives both).

    python benchmarks/scan_gpu.py [--quick] [--repeats N] [--out DIR] [--sweep]

`--sweep` also times the 1-d cumsum under other tile shapes (the `threads`, `scan-items` and
`scan-tiles-per-block` options), after the main table and in its own table and JSON key (the main
rows are unchanged).

Every tilec result is checked against torch first (float sums against torch in float64, within
a bound that fits float sums in any order: 1e-5 of the largest partial sum of |x|; indices
exactly). Timed with CUDA events around batches of back-to-back calls after warm-up, median of
repeats. Bytes: what each op must read and write once (a scan: N read + N written; argmax + max:
the logits read, the values and int64 indices written); "of copy" divides by the bandwidth of
`y.copy_(x)` over the same number of bytes, measured in the same run.

What tilec runs (docs/cuda.md, NOTES.md 2026-12-06): a 1-d scan is ONE kernel, one pass (N read,
N written): a tile of 4096 elements per block taken by an atomic ticket, 16-byte vector loads and
stores, the tile's prefix from a decoupled look-back; its status words are a temporary zeroed by
a memset on the same stream each call (inside the timed calls). Rows (a dynamic row count) take a
block per row, its 4096-element tiles in a loop; logcumsumexp scans (max, scaled sum) pairs (one
exp and one log per element); max + argmax read each row once (vector loads) and reduce a 64-bit
(value, index) key. Writes DIR/scan_gpu.json and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tilec  # noqa: E402
from tilec import float32, tile_op  # noqa: E402


@tile_op(dtype=float32, dims=["N"])
def cumsum_1d(x):
    return tilec.cumsum(x, 0)


@tile_op(dtype=float32, dims=["M", "N"])
def cumsum_rows(x):
    return tilec.cumsum(x, -1)


@tile_op(dtype=float32, dims=["M", "N"])
def logcumsumexp_rows(x):
    return tilec.logcumsumexp(x, -1)


@tile_op(dtype=float32, dims=["M", "N"])
def max_argmax(x):
    return tilec.max(x, -1), tilec.argmax(x, -1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--out", default="benchmarks/out")
    ap.add_argument("--sweep", action="store_true", help="also time the 1-d cumsum with other tile shapes")
    args = ap.parse_args()
    import torch

    def bench(fn, batch=10, warmup=3):
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(args.repeats):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(batch):
                fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / batch)
        return statistics.median(times)

    def copy_gbs(nbytes):
        x = torch.empty(nbytes // 8, device="cuda")
        y = torch.empty_like(x)
        return nbytes / bench(lambda: y.copy_(x)) / 1e6

    def check_sum(name, got, x, dim):
        ref = torch.cumsum(x.double(), dim)
        bound = 1e-5 * float(torch.cumsum(x.double().abs(), dim).abs().max())
        err = float((got.double() - ref).abs().max())
        tref = float((torch.cumsum(x, dim).double() - ref).abs().max())
        assert err <= bound, f"{name}: max error {err} > {bound} (torch.cumsum's own: {tref})"

    rows = []
    gen = torch.Generator(device="cuda").manual_seed(0)
    q = args.quick
    # 1. the 1-d cumsum
    n = 2**22 if q else 2**26
    x = torch.rand(n, device="cuda", generator=gen) * 2 - 1
    k = cumsum_1d.compile("cuda", x)
    (got,) = k(x)
    check_sum("cumsum 1-d", torch.as_tensor(got, device="cuda"), x, 0)
    moved = 2 * n * 4
    t, tr = bench(lambda: k(x)), bench(lambda: torch.cumsum(x, 0))
    rows.append(row(f"cumsum f32 1-d n=2^{n.bit_length() - 1}", moved, t, tr, copy_gbs(moved), "torch.cumsum"))
    # 2. row-wise scans
    R, C = (1024, 1024) if q else (4096, 4096)
    x = torch.rand(R, C, device="cuda", generator=gen) * 2 - 1
    k = cumsum_rows.compile("cuda", x)
    (got,) = k(x)
    check_sum("cumsum rows", torch.as_tensor(got, device="cuda"), x, 1)
    moved = 2 * R * C * 4
    t, tr = bench(lambda: k(x)), bench(lambda: torch.cumsum(x, 1))
    rows.append(row(f"cumsum f32 rows {R}x{C}", moved, t, tr, copy_gbs(moved), "torch.cumsum(dim=1)"))
    x = torch.randn(R, C, device="cuda", generator=gen) * 10
    k = logcumsumexp_rows.compile("cuda", x)
    (got,) = k(x)
    ref = torch.logcumsumexp(x.double(), 1)
    err = float((torch.as_tensor(got, device="cuda").double() - ref).abs().max())
    assert err <= 1e-4 * float(ref.abs().max()), f"logcumsumexp rows: max error {err}"
    t, tr = bench(lambda: k(x)), bench(lambda: torch.logcumsumexp(x, 1))
    rows.append(row(f"logcumsumexp f32 rows {R}x{C}", moved, t, tr, copy_gbs(moved), "torch.logcumsumexp"))
    # 3. argmax with the max of the same rows (one kernel; torch.max(dim) also returns both)
    R, C = (1024, 4096) if q else (8192, 32000)
    x = torch.randn(R, C, device="cuda", generator=gen)
    x[:, 7] = x[:, 3]  # ties exist; the first index must win
    k = max_argmax.compile("cuda", x)
    m, i = (torch.as_tensor(v, device="cuda") for v in k(x))
    rm, ri = torch.max(x, 1)
    assert torch.equal(m, rm) and torch.equal(i, ri), "max + argmax: wrong result"
    moved = R * C * 4 + R * (4 + 8)
    t, tr = bench(lambda: k(x)), bench(lambda: torch.max(x, 1))
    rows.append(row(f"max + argmax f32 rows {R}x{C}", moved, t, tr, copy_gbs(moved), "torch.max(dim=1)"))

    sweep = []
    if args.sweep:  # the 1-d cumsum under other tile shapes (threads x scan-items elements per tile)
        n = 2**22 if q else 2**26
        x = torch.rand(n, device="cuda", generator=gen) * 2 - 1
        moved = 2 * n * 4
        copy = copy_gbs(moved)
        shapes = [(t, i, 1) for t, i in ((256, 16), (256, 8), (512, 8), (128, 32), (256, 32), (512, 16), (1024, 8))]
        shapes += [(256, 16, r) for r in (2, 4, 8)] + [(256, 8, r) for r in (2, 4)] + [(512, 8, 4)]
        for threads, items, per_block in shapes:
            k = cumsum_1d.compile("cuda", x, threads=threads, scan_items=items, scan_tiles_per_block=per_block)
            (got,) = k(x)
            check_sum(f"cumsum 1-d {threads}x{items}x{per_block}", torch.as_tensor(got, device="cuda"), x, 0)
            t = bench(lambda: k(x))
            gbs = moved / t / 1e6
            sweep.append(
                {
                    "threads": threads,
                    "scan_items": items,
                    "tiles_per_block": per_block,
                    "ms": t,
                    "gbs": gbs,
                    "of_copy": gbs / copy,
                }
            )

    machine = torch.cuda.get_device_name(0)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    result = {"date": time.strftime("%Y-%m-%d"), "machine": machine, "target": "cuda", "rows": rows}
    if sweep:
        result["sweep_cumsum_1d"] = sweep
    (out / "scan_gpu.json").write_text(json.dumps(result, indent=1))
    print(f"\n{machine}, {result['date']}")
    print("| workload | tilec | of copy | reference | ratio (ref time / tilec time) |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['workload']} | {r['tilec_gbs']:.0f} GB/s ({r['tilec_ms']:.3f} ms) | {r['of_copy']:.2f} "
            f"| {r['reference']}: {r['ref_gbs']:.0f} GB/s ({r['ref_ms']:.3f} ms) | {r['ratio']:.2f} |"
        )
    if sweep:
        print(f"\ncumsum f32 1-d n=2^{n.bit_length() - 1}, tile shapes (threads x scan-items, tiles per block)")
        print("| threads | scan-items | scan-tiles-per-block | tilec | of copy |")
        print("|---|---|---|---|---|")
        for r in sweep:
            print(
                f"| {r['threads']} | {r['scan_items']} | {r['tiles_per_block']} | {r['gbs']:.0f} GB/s ({r['ms']:.3f} ms) "
                f"| {r['of_copy']:.2f} |"
            )


def row(workload, moved, t, tr, copy, ref_name):
    return {
        "workload": workload,
        "reference": ref_name,
        "tilec_ms": t,
        "ref_ms": tr,
        "tilec_gbs": moved / t / 1e6,
        "ref_gbs": moved / tr / 1e6,
        "copy_gbs": copy,
        "of_copy": moved / t / 1e6 / copy,
        "ratio": tr / t,
    }


if __name__ == "__main__":
    main()
