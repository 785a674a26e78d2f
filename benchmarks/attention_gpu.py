"""Attention on an NVIDIA GPU (issue 15): tilec's flash kernel against torch's
scaled_dot_product_attention in the same run, forward, causal and not.

    python benchmarks/attention_gpu.py [--quick] [--repeats N] [--out DIR] [--option NAME=VALUE ...]

Shapes: the issue's done-means (bf16, B = 4, H = 32, S = 4096, D = 128) and the earlier
measurement (f16, B x H = 32, S = 2048, D = 128: 4 kernels and 0.15x SDPA before the flash
kernel); `--quick`: smaller. Sides: tilec's library `attention` (its output and the log-sum-exp
a backward needs: one kernel), the same program with `flash_attention=false` (the contraction,
rowwise and contraction kernels), and torch SDPA on its default backend and on each backend it
has here (flash, cuDNN, efficient), each timed where it runs. Every result is checked against
SDPA before anything is timed. CUDA events around batches of back-to-back calls after warm-up,
median of repeats, the same for every side (benchmarks/timing.py); TFLOP/s counts 4 B H L S D
(half of it causal). Writes DIR/attention-cuda.json and prints a markdown table; ratio = SDPA
(default) time / tilec time (> 1: tilec is faster).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from timing import compile_option, cuda_ms  # noqa: E402  (benchmarks/timing.py)

from tilec import TilecError, bfloat16, float16, tile_op  # noqa: E402
from tilec.library.attention import attention  # noqa: E402


def _op(dt, scale: float, causal: bool):
    @tile_op(dtype=dt)
    def attn(q, k, v):
        return attention(q, k, v, scale, causal=causal)

    return attn


def _cupy_view(torch, x):
    """The CuPy view of a torch CUDA tensor, no copy (bf16 through its int16 bits)."""
    import cupy

    if x.dtype == torch.bfloat16:
        return cupy.from_dlpack(x.view(torch.int16)).view(bfloat16.np)
    return cupy.from_dlpack(x)


def _torch_view(torch, a, dt):
    """A CuPy result as a torch tensor (bf16 from its bits; the log-sum-exp stays f32)."""
    if a.dtype == bfloat16.np:
        return torch.from_dlpack(a.view("int16")).view(torch.bfloat16)
    return torch.from_dlpack(a)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--out", default="benchmarks/out")
    ap.add_argument("--option", action="append", default=[], help="NAME=VALUE, a tilec compile option")
    ap.add_argument("--no-unfused", action="store_true", help="skip the flash_attention=false side")
    args = ap.parse_args()
    options = dict(compile_option(o) for o in args.option)
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    shapes = [("bf16", 4, 32, 4096, 128), ("f16", 1, 32, 2048, 128)]
    if args.quick:
        shapes = [("bf16", 2, 8, 1024, 128), ("f16", 1, 8, 512, 64)]
    backends = {
        "flash": SDPBackend.FLASH_ATTENTION,
        "cudnn": SDPBackend.CUDNN_ATTENTION,
        "efficient": SDPBackend.EFFICIENT_ATTENTION,
    }
    gen = torch.Generator(device="cuda").manual_seed(0)
    rows = []
    for name, b, h, s, d in shapes:
        tdt, dt = (torch.bfloat16, bfloat16) if name == "bf16" else (torch.float16, float16)
        q, k, v = (torch.randn(b, h, s, d, device="cuda", generator=gen, dtype=tdt) for _ in range(3))
        for causal in (False, True):
            op = _op(dt, d**-0.5, causal)
            want = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            sides = {}
            qc, kc, vc = (_cupy_view(torch, x) for x in (q, k, v))  # compiled kernels take CuPy arrays
            flash = op.compile("cuda", qc, kc, vc, **options)
            out, _ = (_torch_view(torch, x, tdt) for x in flash(qc, kc, vc))
            err = (out.float() - want.float()).abs().max().item()
            assert err < 3e-2, f"tilec flash: max error {err} against SDPA"
            sides["tilec flash"] = cuda_ms(torch, lambda: flash(qc, kc, vc), args.repeats)
            unfused_note = None
            if not args.no_unfused:
                try:
                    plain = op.compile("cuda", qc, kc, vc, **{**options, "flash_attention": False})
                except TilecError as e:  # an L x S temporary of 2^31 elements or more
                    plain, unfused_note = None, e.message.split(": ", 1)[-1]
            if not args.no_unfused and plain is not None:
                out, _ = (_torch_view(torch, x, tdt) for x in plain(qc, kc, vc))
                err2 = (out.float() - want.float()).abs().max().item()
                assert err2 < 3e-2, f"tilec unfused: max error {err2} against SDPA"
                sides["tilec unfused"] = cuda_ms(torch, lambda: plain(qc, kc, vc), args.repeats, batch=3)
            sides["sdpa default"] = cuda_ms(
                torch, lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), args.repeats
            )
            for bname, be in backends.items():
                try:
                    with sdpa_kernel(be):
                        F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                        sides[f"sdpa {bname}"] = cuda_ms(
                            torch, lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), args.repeats
                        )
                except RuntimeError:
                    pass  # that backend does not take this case here
            flops = 4 * b * h * s * s * d / (2 if causal else 1)
            rows.append(
                {
                    "case": f"{name} B={b} H={h} S={s} D={d}{' causal' if causal else ''}",
                    "max_error_vs_sdpa": err,
                    "unfused_note": unfused_note,
                    "ms": sides,
                    "tflops": {k2: flops / (t * 1e-3) / 1e12 for k2, t in sides.items()},
                    "ratio_sdpa_default_over_tilec": sides["sdpa default"] / sides["tilec flash"],
                }
            )
    machine = torch.cuda.get_device_name(0)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": machine,
        "torch": torch.__version__,
        "options": options,
        "rows": rows,
    }
    (out_dir / "attention-cuda.json").write_text(json.dumps(result, indent=1))
    print(f"\n{machine}, {result['date']}, torch {torch.__version__}" + (f", options {options}" if options else ""))
    names = sorted({n for r in rows for n in r["ms"]}, key=lambda n: (not n.startswith("tilec"), n))
    print("| case | " + " | ".join(f"{n} ms (TFLOP/s)" for n in names) + " | SDPA default / tilec |")
    print("|---|" + "---|" * (len(names) + 1))
    for r in rows:
        cells = [f"{r['ms'][n]:.3f} ({r['tflops'][n]:.0f})" if n in r["ms"] else "-" for n in names]
        print(f"| {r['case']} | " + " | ".join(cells) + f" | {r['ratio_sdpa_default_over_tilec']:.2f} |")


if __name__ == "__main__":
    main()
