"""The wgmma kernels' tiles, measured: each (wgmma-m, wgmma-n) candidate against the automatic
choice and the vendor library, on ResNet-50's forward convolutions (f16, channels-last, batch 64)
and square GEMMs, in one run (the data behind gemm_nv_wgmma.TILES / RAMP).

    python benchmarks/wgmma_tiles.py [--batch 64] [--calls 30] [--out FILE]

Every result is checked against torch first. Timed: the kernels' GPU time alone on both sides
(torch.profiler's CUDA records, `timing.cuda_kernel_us`), since the compiled-kernel objects this
script calls cost ~60 us of host time per call with torch tensors (the first sweep, 2026-12-06,
timed calls with CUDA events, which made every tile of the small layers look alike). Prints TFLOP/s
per candidate, the automatic choice and torch (cuDNN / cuBLAS).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from timing import cuda_kernel_us  # noqa: E402  (benchmarks/timing.py)

import tilec  # noqa: E402
from tilec import float16, tile_contract, tile_op  # noqa: E402

CANDIDATES = [(128, 256), (128, 128), (64, 256), (64, 128), (64, 64)]
CONVS = [  # (input size, C, O, kernel, stride)
    (56, 256, 64, 1, 1),
    (56, 64, 64, 3, 1),
    (56, 64, 256, 1, 1),
    (28, 512, 128, 1, 1),
    (28, 128, 128, 3, 1),
    (56, 128, 128, 3, 2),
    (28, 256, 256, 3, 2),
    (14, 512, 512, 3, 2),
    (28, 128, 512, 1, 1),
    (14, 1024, 256, 1, 1),
    (14, 256, 256, 3, 1),
    (14, 256, 1024, 1, 1),
    (7, 2048, 512, 1, 1),
    (7, 512, 512, 3, 1),
    (7, 512, 2048, 1, 1),
]
GEMMS = [1024, 2048, 4096, 8192]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--calls", type=int, default=30, help="calls profiled per candidate")
    ap.add_argument("--out", default="wgmma_tiles.json")
    args = ap.parse_args()
    import torch
    import torch.nn.functional as F

    torch.backends.cudnn.benchmark = True
    rows = []

    def run(name, flops, op, inputs, ref, ref_fn, view):
        t_ref = cuda_kernel_us(torch, ref_fn, args.calls)[0] / 1e3
        line = {"shape": name, "torch_tflops": flops / t_ref / 1e9}
        for label, opts in [("auto", {})] + [(f"{m}x{n}", {"wgmma_m": m, "wgmma_n": n}) for m, n in CANDIDATES]:
            try:
                k = op.compile("cuda", *inputs, **opts)
            except tilec.TilecError as e:
                line[label] = None
                print(f"  {name} {label}: {e}", flush=True)
                continue
            (y,) = k(*inputs)
            y = view(y)
            err = float((y.float() - ref.float()).norm() / ref.float().norm())
            assert err < 1e-2, f"{name} {label}: relative error {err}"
            t = cuda_kernel_us(torch, lambda k=k: k(*inputs), args.calls)[0] / 1e3
            line[label] = flops / t / 1e9
        rows.append(line)
        cells = " ".join(
            f"{line[c]:7.1f}" if line.get(c) else "      -" for c in ["auto"] + [f"{m}x{n}" for m, n in CANDIDATES]
        )
        print(f"{name:<28} torch {line['torch_tflops']:7.1f} | {cells}", flush=True)

    print(f"{'shape':<28} {'':13} | {'auto':>7} " + " ".join(f"{m}x{n:>3}".rjust(7) for m, n in CANDIDATES))
    for h, c, o, kk, s in CONVS:
        x = torch.randn(args.batch, c, h, h, device="cuda", dtype=torch.float16).to(memory_format=torch.channels_last)
        w = (torch.randn(o, c, kk, kk, device="cuda", dtype=torch.float16) / (c * kk * kk) ** 0.5).to(
            memory_format=torch.channels_last
        )
        pad = kk // 2

        @tile_op(dtype=float16)
        def conv(xv, wv):
            return tilec.conv(xv, wv, stride=s, padding=pad, layout="channels_last")

        xl, wl = x.permute(0, 2, 3, 1), w.permute(0, 2, 3, 1)  # the same memory as NHWC / OHWC views
        ref = F.conv2d(x, w, stride=s, padding=pad)
        out = ref.shape[-1]
        flops = 2.0 * args.batch * out * out * o * c * kk * kk
        run(
            f"conv {kk}x{kk}/{s} {c}->{o} @{h}",
            flops,
            conv,
            (xl, wl),
            ref.permute(0, 2, 3, 1),
            lambda x=x, w=w, s=s, pad=pad: F.conv2d(x, w, stride=s, padding=pad),
            lambda y: torch.as_tensor(y, device="cuda"),
        )
    for n in GEMMS:
        a = torch.randn(n, n, device="cuda", dtype=torch.float16)
        b = torch.randn(n, n, device="cuda", dtype=torch.float16)

        @tile_op(dtype=float16)
        def mm(a, b):
            return tile_contract(a, b, axes=[(-1, 0)])

        run(
            f"gemm {n}^3",
            2.0 * n**3,
            mm,
            (a, b),
            a @ b,
            lambda a=a, b=b: a @ b,
            lambda y: torch.as_tensor(y, device="cuda"),
        )
    Path(args.out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
