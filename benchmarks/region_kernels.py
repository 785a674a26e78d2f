"""Kernels per `torch.compile` region of a suite model, lowered for a GPU target without a GPU.

    python benchmarks/region_kernels.py MODEL [--bf16] [--batch N] [--target cuda|hip] [--sm sm_90a] [--no-ptxas]

MODEL is a name of `python -m tilec.bench.models --list` (the published-size ones included).
The model's training step (forward, loss, backward) is traced on the CPU with
`torch.compile(backend=tilec.torch.Backend())`; instead of running each region, this lowers it
for `--target` (PTX for `--sm`, assembled by ptxas unless `--no-ptxas`; or HIP C++) and counts
its kernels; the region's values come from torch running the region's own graph nodes on the
CPU. So the fusion of the GPU pipeline (kernels, lowering time, ptxas errors) can be read on a
machine with no GPU. Under `--bf16` the graphs are CPU autocast's, close to but not the same as
CUDA autocast's (attention and layer norm dispatch differently). One line per region: graph
nodes, kernels, lowering seconds, ptxas seconds and its verdict. When torch's CPU kernels cannot
run a node of an autocast graph (to make the next region's inputs), it says so and exits 1.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import torch

import tilec.torch as tt
from tilec.bench.models import base_cases, cases
from tilec.torch import backend as tb


def _run_nodes(region: tb.Region, env: dict) -> None:
    """The region's values by torch (in the graph's dtypes: CPU kernels may differ under autocast)."""
    for node in region.nodes:
        args = torch.fx.node.map_arg(node.args, env.__getitem__)
        kwargs = torch.fx.node.map_arg(node.kwargs, env.__getitem__)
        value = node.target(*args, **kwargs)
        fake = node.meta.get("val")
        if isinstance(value, torch.Tensor) and isinstance(fake, torch.Tensor) and value.dtype != fake.dtype:
            value = value.to(fake.dtype)
        env[node] = value


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("--bf16", action="store_true", help="bf16 autocast (the CPU's)")
    ap.add_argument("--batch", type=int, default=None, help="batch size of the published-size models")
    ap.add_argument("--target", default="cuda", choices=["cuda", "hip"])
    ap.add_argument("--sm", default="sm_90a")
    ap.add_argument("--no-ptxas", action="store_true")
    args = ap.parse_args(argv)
    suite, why = cases()
    case = next((c for c in suite + ([] if why else base_cases(args.batch)) if c.name == args.model), None)
    if case is None:
        print(f"error: unknown model {args.model!r} (python -m tilec.bench.models --list)", file=sys.stderr)
        return 1
    ptxas = None if args.no_ptxas or args.target != "cuda" else shutil.which("ptxas")
    rows: list[tuple] = []

    def lower(step: tb.Region, env: dict) -> None:
        t = time.perf_counter()
        opts = {"sm": args.sm} if args.target == "cuda" else {}
        src = step.op.source(args.target, *tb.region_args(step, env), **opts)
        lowered = time.perf_counter() - t
        kernels = src.count(".entry ") if args.target == "cuda" else src.count("__global__")
        verdict, assembled = "-", 0.0
        if ptxas:
            with tempfile.TemporaryDirectory() as d:
                Path(d, "k.ptx").write_text(src)
                t = time.perf_counter()
                r = subprocess.run(
                    [ptxas, f"-arch={args.sm}", f"{d}/k.ptx", "-o", f"{d}/k.cubin"], capture_output=True, text=True
                )
                assembled = time.perf_counter() - t
            verdict = "ok" if r.returncode == 0 else "ptxas: " + r.stderr.strip()[-300:]
        rows.append((len(step.steps), kernels, lowered, assembled, verdict))
        print(f"region {len(rows)}: {rows[-1][0]} nodes, {kernels} kernels, lowered in {lowered:.1f} s, "
              f"ptxas {assembled:.1f} s {verdict}", flush=True)  # fmt: skip
        _run_nodes(step, env)

    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    model = case.build().train()
    batch = case.batch(g)
    backend = tt.Backend(strict=False)
    torch._dynamo.reset()
    original = tb.Partition.__call__
    tb.Partition.__call__ = lambda part, *inputs: part.run(inputs, region=lower)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
                loss = case.loss(torch.compile(model, backend=backend), batch)
            loss.backward()
    except RuntimeError as e:  # torch's CPU kernels on a graph made for autocast, e.g. a mixed-dtype op
        print(f"stopped after region {len(rows)}: torch could not run the graph's nodes on the CPU: "
              f"{str(e).splitlines()[0][:200]}")  # fmt: skip
        rows.append((0, 0, 0.0, 0.0, "stopped"))
    finally:
        tb.Partition.__call__ = original
        torch._dynamo.reset()
    print(
        f"{args.model}: {sum(r[4] != 'stopped' for r in rows)} regions, {sum(r[1] for r in rows)} kernels, "
        f"coverage {100 * backend.report.coverage:.1f}%, fallbacks {dict(backend.report.fallbacks) or '-'}"
    )
    return 0 if all(r[4] in ("ok", "-") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
