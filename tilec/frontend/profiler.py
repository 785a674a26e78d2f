"""`with tilec.profile() as p:` — time every tile op call in the block.

Per call: the tile op, the user's source line that called it (the first frame outside tilec and
torch), the target, the arguments' shapes, the time of its kernels (the compiled program's run:
wall clock on the CPU; CUDA events around it on the current stream on the GPU, read when the
block ends), the bytes it must move (its array arguments and results) and the FLOPs of its
contractions (2 x output elements x contracted size, from the traced IR). `p.table()` sums them
per (op, call site, target): calls, total and mean time, GB/s, TFLOP/s, and the fraction of the
device's measured roofline (`p.roofline(target)`: copy bandwidth and matmul FLOP/s measured once
on this machine, numpy / CuPy). `p.export_chrome_trace(path)` writes the calls as a trace for
chrome://tracing / Perfetto.

While a profile is active, calls take the full path (not the per-signature fast path), so the
host times of a profiled block are not those of an unprofiled one; the kernel times are.
The active profile lives in a `contextvars.ContextVar` (per thread and task), set by `with`.
"""

from __future__ import annotations

import contextvars
import json
import math
import os
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

_ACTIVE: contextvars.ContextVar[Profile | None] = contextvars.ContextVar("tilec_profile", default=None)

_SKIP = (os.sep + "tilec" + os.sep, os.sep + "torch" + os.sep, os.sep + "functorch" + os.sep, "<frozen ")


def active() -> Profile | None:
    """The profile of the enclosing `with tilec.profile()`, or None."""
    return _ACTIVE.get()


def call_site() -> str:
    """file:line of the first frame outside tilec and torch (the user's line)."""
    f = sys._getframe(1)
    while f is not None and any(s in f.f_code.co_filename for s in _SKIP):
        f = f.f_back
    return "?" if f is None else f"{f.f_code.co_filename}:{f.f_lineno}"


def contraction_flops(func) -> int | None:
    """2 x result elements x contracted elements, summed over the tile.contract ops of a traced
    function; None when a size involved is dynamic."""
    from tilec.dialects.tile import ContractOp

    total = 0
    for op in func.walk():
        if not isinstance(op, ContractOp):
            continue
        out = op.result.type.get_shape()
        lhs = op.lhs.type.get_shape()
        k = [lhs[a] for a in op.lhs_contract.get_values()]
        if any(d < 0 for d in (*out, *k)):
            return None
        total += 2 * math.prod(out) * math.prod(k)
    return total


@dataclass
class Call:
    op: str
    site: str
    target: str
    shapes: tuple
    start: float  # seconds since the profile began (host clock, at submission)
    seconds: float | None  # the kernels' time (GPU: filled when the profile ends)
    nbytes: int
    flops: int | None
    events: tuple | None = None  # (start, end) CUDA events until resolved


@dataclass
class Profile:
    """The calls of one `with tilec.profile()` block (see the module docstring)."""

    calls: list[Call] = field(default_factory=list)
    _t0: float = 0.0
    _token: object = None
    _rooflines: dict = field(default_factory=dict)

    def __enter__(self) -> Profile:
        self._t0 = time.perf_counter()
        self._token = _ACTIVE.set(self)
        return self

    def __exit__(self, *exc) -> None:
        _ACTIVE.reset(self._token)
        self.resolve()

    def resolve(self) -> None:
        """Read the CUDA events of GPU calls (synchronizes with them)."""
        for c in self.calls:
            if c.events is not None:
                start, end = c.events
                end.synchronize()
                c.seconds = float(__import__("cupy").cuda.get_elapsed_time(start, end)) / 1e3
                c.events = None

    # -- recording (called by TileFunction.__call__) ------------------------------------------

    def run(self, name: str, spec, target: str, arrays, call):
        """Run `call()` (the compiled program on `arrays`) and record it."""
        site = call_site()
        shapes = tuple(tuple(getattr(a, "shape", ())) for a in arrays)
        inputs = sum(int(getattr(a, "nbytes", 0)) for a in arrays)
        flops = contraction_flops(spec.func)
        start = time.perf_counter() - self._t0
        if target == "cuda":
            import cupy

            ev0, ev1 = cupy.cuda.Event(), cupy.cuda.Event()
            ev0.record()
            outs = call()
            ev1.record()
            seconds, events = None, (ev0, ev1)
        else:
            t = time.perf_counter()
            outs = call()
            seconds, events = time.perf_counter() - t, None
        out_bytes = sum(int(getattr(o, "nbytes", 0)) for o in (outs if isinstance(outs, tuple | list) else (outs,)))
        self.calls.append(Call(name, site, target, shapes, start, seconds, inputs + out_bytes, flops, events))
        return outs

    # -- reading --------------------------------------------------------------------------------

    def roofline(self, target: str) -> tuple[float, float]:
        """(bytes/s, FLOP/s) measured on this machine: the best of 3 copies of 64 MiB, and of 3
        float32 (CPU) / float16 (GPU) matmuls."""
        if target in self._rooflines:
            return self._rooflines[target]
        if target == "cuda":
            import cupy

            xp, dt, n = cupy, np.float16, 4096

            def sync():
                cupy.cuda.get_current_stream().synchronize()
        else:
            xp, dt, n = np, np.float32, 1024

            def sync():
                pass

        a = xp.ones(16 << 20, dtype=np.float32)
        b = xp.empty_like(a)
        m = xp.ones((n, n), dtype=dt)
        bw, fl = 0.0, 0.0
        for _ in range(3):
            sync()
            t = time.perf_counter()
            xp.copyto(b, a)
            sync()
            bw = max(bw, 2 * a.nbytes / (time.perf_counter() - t))
            t = time.perf_counter()
            xp.matmul(m, m)
            sync()
            fl = max(fl, 2 * n**3 / (time.perf_counter() - t))
        self._rooflines[target] = (bw, fl)
        return bw, fl

    def rows(self) -> list[dict]:
        """Per (op, call site, target): calls, total / mean seconds, GB/s, TFLOP/s, roofline %."""
        self.resolve()
        groups: dict = defaultdict(list)
        for c in self.calls:
            groups[(c.op, c.site, c.target)].append(c)
        out = []
        for (op, site, target), cs in groups.items():
            total = sum(c.seconds or 0.0 for c in cs)
            nbytes = sum(c.nbytes for c in cs)
            flops = None if any(c.flops is None for c in cs) else sum(c.flops for c in cs)
            bw, peak = self.roofline(target)
            gbs = nbytes / total / 1e9 if total else 0.0
            tfs = flops / total / 1e12 if flops and total else None
            if flops and total:
                attainable = min(peak, bw * flops / max(nbytes, 1))
                frac = (flops / total) / attainable
            else:
                frac = (nbytes / total) / bw if total else 0.0
            out.append(
                dict(op=op, site=site, target=target, calls=len(cs), total_s=total, mean_s=total / len(cs),
                     gb_s=gbs, tflop_s=tfs, roofline=frac)
            )  # fmt: skip
        return sorted(out, key=lambda r: -r["total_s"])

    def table(self) -> str:
        """The rows as text, largest total time first."""
        lines = [
            f"{'tile op':32} {'called from':40} {'target':6} {'calls':>6} {'total ms':>10} {'mean us':>10} "
            f"{'GB/s':>8} {'TFLOP/s':>8} {'roofline':>8}"
        ]
        for r in self.rows():
            tf = "" if r["tflop_s"] is None else f"{r['tflop_s']:.3f}"
            site = r["site"] if len(r["site"]) <= 40 else "..." + r["site"][-37:]
            lines.append(
                f"{r['op'][:32]:32} {site:40} {r['target']:6} {r['calls']:6} {1e3 * r['total_s']:10.3f} "
                f"{1e6 * r['mean_s']:10.1f} {r['gb_s']:8.2f} {tf:>8} {100 * r['roofline']:7.1f}%"
            )
        return "\n".join(lines)

    def export_chrome_trace(self, path) -> None:
        """The calls as Chrome trace events (one row per target; times in microseconds)."""
        self.resolve()
        events = [
            {
                "name": c.op,
                "ph": "X",
                "ts": 1e6 * c.start,
                "dur": 1e6 * (c.seconds or 0.0),
                "pid": "tilec",
                "tid": c.target,
                "args": {"site": c.site, "shapes": [list(s) for s in c.shapes], "bytes": c.nbytes, "flops": c.flops},
            }
            for c in self.calls
        ]
        with open(path, "w") as f:
            json.dump({"traceEvents": events, "displayTimeUnit": "ms"}, f)


def profile() -> Profile:
    """`with tilec.profile() as p:` ... `print(p.table())`."""
    return Profile()
