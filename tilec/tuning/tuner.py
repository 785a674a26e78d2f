"""Measured tuning of one tile op on example arrays (`TileOp.tune`).

A coordinate search over the target's tunable knobs (`space.search_points`), starting from the
default options: each candidate is compiled (a compile error drops it, counted), run on the
examples and checked against the default's results before it is timed; a candidate whose kernel
source equals one already timed takes that time (knobs that do not touch this op's kernels cost
a compile, not a measurement). The best candidate that beats the current best by more than
`min_gain` becomes the start of the next sweep, until a sweep finds nothing better or the time
budget runs out. The winner is timed once more against the default, alternately, and kept only
if it still wins by `min_gain` (one noisy measurement crowns nothing). The winner is stored (`store.TuneStore`) under the op's key; later calls with
shapes of the same bucket compile with it.

Each sweep's candidates are first built into the disk cache by `workers` processes at once
(`precompile`; default: one per CPU), then timed one by one with the cores to themselves.

Timing (`timing.clock_for`): on the CPU `time.perf_counter` around each of `repeats` calls after
two warm-ups; on CUDA, CUDA events around each call with the L2 cache flushed before it; the
median either way.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import statistics
import time
from dataclasses import dataclass, field

import numpy as np

from tilec.diagnostics import TilecError
from tilec.tuning.space import search_points
from tilec.tuning.store import TuneStore, device_name, shape_bucket, tune_key
from tilec.tuning.timing import clock_for

TOLERANCE = {1: 0.13, 2: 2e-2, 4: 1e-4, 8: 1e-9}
"""Relative error (to the largest magnitude of the default's result) a candidate may differ by, per
element size in bytes: a different blocking sums in a different order, nothing more."""


@dataclass
class TuneResult:
    """What `TileOp.tune` found: the winning options (those that differ from the defaults), its
    time and the default's, and the candidates tried (compiled and checked), failed (did not
    compile or run) and rejected (a result that differs from the default's)."""

    options: dict
    time_s: float
    default_time_s: float
    key: str
    tried: int = 0
    failed: int = 0
    rejected: int = 0
    log: list = field(default_factory=list)

    @property
    def speedup(self) -> float:
        return self.default_time_s / self.time_s if self.time_s else 1.0


def _confirm(clock, default, best, arrays, repeats: int) -> tuple[float, float]:
    """Median times of the default and the best kernel, measured alternately (`repeats` rounds)."""
    times: tuple[list, list] = ([], [])
    for _ in range(max(3, repeats)):
        for i, k in enumerate((default, best)):
            times[i].append(clock.time(k, arrays, 3))
    return statistics.median(times[0]), statistics.median(times[1])


def precompile(spec, target: str, points: list[dict], workers: int, deadline: float | None = None) -> None:
    """Build the candidates `points` (options dicts) into the disk cache in `workers` processes at
    once (`python -m tilec.tuning.compile_worker`, each a share of the points), so that the sweep's
    `spec.kernel` calls load them: the compilers run in parallel, and the timing, after, has the
    cores to itself. Nothing to do without the cache or with one worker; a point that fails is
    left for the sweep to meet (and count) when it compiles it itself. Workers still running at
    `deadline` (the tuning budget's end) are stopped."""
    import subprocess
    import sys

    from tilec import cache
    from tilec.ir import print_module

    if workers < 2 or not cache.enabled():
        return
    from tilec.backends import get_backend
    from tilec.runtime import kernel_key

    backend = get_backend(target)

    def cached(p: dict) -> bool:
        try:
            return cache.lookup(kernel_key(spec.module, target, backend.options(p), {})) is not None
        except TilecError:
            return True  # (illegal options: the sweep meets the error itself)

    todo = [p for p in points if p and not cached(p)]
    workers = min(workers, len(todo))
    if workers < 2:
        return
    text = print_module(spec.module, debuginfo=True)  # (the kernel cache's key holds the locations)
    procs = []
    for w in range(workers):
        job = json.dumps({"text": text, "target": target, "points": todo[w::workers]})
        p = subprocess.Popen(
            [sys.executable, "-m", "tilec.tuning.compile_worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        p.stdin.write(job)
        p.stdin.close()
        procs.append(p)
    for p in procs:  # workers still building at the deadline (time.perf_counter) are stopped
        try:
            p.wait(None if deadline is None else max(0.0, deadline - time.perf_counter()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def _agrees(got: list[np.ndarray], want: list[np.ndarray]) -> bool:
    for g, w in zip(got, want):
        if g.shape != w.shape:
            return False
        if not (np.issubdtype(w.dtype, np.floating) or w.dtype.name.startswith(("bfloat", "float8"))):
            if not np.array_equal(g, w):
                return False
            continue
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        if not np.array_equal(np.isnan(g64), np.isnan(w64)):
            return False
        scale = max(1.0, float(np.nanmax(np.abs(w64), initial=0.0)))
        err = float(np.nanmax(np.abs(g64 - w64), initial=0.0))
        if err > TOLERANCE.get(w.dtype.itemsize, 1e-4) * scale:
            return False
    return True


_TYPE_DIMS = re.compile(r"<((?:\d+x)+)")


def bucketed_ir(text: str) -> str:
    """The tile IR with every static size in its types rounded up to its bucket (a power of two):
    the same program on shapes of one bucket gives one text."""

    def one(m: re.Match) -> str:
        dims = [int(d) for d in m.group(1).split("x") if d]
        return "<" + "".join(f"{1 << (d - 1).bit_length() if d > 0 else d}x" for d in dims)

    return _TYPE_DIMS.sub(one, text)


def call_shapes(arrays) -> list[tuple]:
    """The shapes of a call's arguments (a runtime scalar: ())."""
    return [tuple(int(d) for d in np.shape(a)) if hasattr(a, "shape") else () for a in arrays]


def spec_key(spec, target: str, shapes=None) -> str:
    """The store key of a specialization on this machine: its tile IR with sizes bucketed, the
    shape bucket of `shapes` (a call's argument shapes; default the specialization's own, which
    for an op with dynamic dims holds their names: one bucket for every shape), the argument
    types."""
    dtypes = tuple(str(t) for t in spec.func.function_type.inputs.data)
    ir = bucketed_ir(str(spec.module))
    bucket = shape_bucket(spec.arg_shapes if shapes is None else shapes)
    return tune_key(ir, bucket, bucketed_ir(repr(dtypes)), target, device_name(target))


def tune(
    op,
    spec,
    examples,
    target: str = "cpu",
    knobs: list[str] | None = None,
    budget_s: float = 60.0,
    repeats: int = 5,
    min_gain: float = 0.03,
    store: TuneStore | None = None,
    progress: bool = True,
    workers: int | None = None,
) -> TuneResult:
    """Tune `op` (its specialization `spec` for `examples`) on `target`; see the module docstring."""
    from tilec.backends import get_backend

    clock = clock_for(target)
    backend = get_backend(target)
    base = backend.options({})
    values = backend.tunable_values(base, [k.replace("-", "_") for k in knobs] if knobs else None)
    arrays = clock.prepare(examples)
    workers = (os.cpu_count() or 1) if workers is None else workers
    start = time.perf_counter()
    default = spec.kernel(target, {})
    want = clock.outputs(default, arrays)
    default_t = clock.time(default, arrays, repeats)
    key = spec_key(spec, target, call_shapes(examples))  # (dynamic dims: the examples' bucket)
    best = {name: getattr(base, name) for name in values}
    best_t = default_t
    timed_sources: dict[str, float] = {hashlib.sha256(default.source.encode()).hexdigest(): default_t}
    result = TuneResult({}, default_t, default_t, key)
    seen: set = {tuple(sorted(best.items()))}
    bar = _progress(progress, op.name)
    improved = True
    while improved and time.perf_counter() - start < budget_s:
        improved = False
        sweep_best, sweep_t = None, best_t
        points = [p for p in search_points(type(base), base, values, best) if tuple(sorted(p.items())) not in seen]
        changes = [{k: v for k, v in p.items() if v != getattr(base, k)} for p in points]
        precompile(spec, target, changes, workers, start + budget_s)
        for point, changed in zip(points, changes):
            if time.perf_counter() - start >= budget_s:
                break
            seen.add(tuple(sorted(point.items())))
            try:
                kernel = spec.kernel(target, changed)
                got = clock.outputs(kernel, arrays)
            except TilecError as e:
                result.failed += 1
                result.log.append((changed, "failed", e.message.splitlines()[0]))
                continue
            result.tried += 1
            if not _agrees(got, want):
                result.rejected += 1
                result.log.append((changed, "rejected", "result differs from the default's"))
                continue
            digest = hashlib.sha256(kernel.source.encode()).hexdigest()
            t = timed_sources.get(digest)
            if t is None:
                t = timed_sources[digest] = clock.time(kernel, arrays, repeats)
            result.log.append((changed, "timed", t))
            if t < sweep_t * (1 - min_gain):
                sweep_best, sweep_t = point, t
            if bar is not None:
                bar.update(1)
                bar.set_postfix_str(f"best {min(sweep_t, best_t) * 1e3:.3f} ms (default {default_t * 1e3:.3f})")
        if sweep_best is not None:
            best, best_t, improved = sweep_best, sweep_t, True
    if bar is not None:
        bar.close()
    result.options = {k: v for k, v in best.items() if v != getattr(base, k)}
    if result.options:  # the winner against the default once more, interleaved: noise cannot crown it
        default_t, best_t = _confirm(clock, default, spec.kernel(target, result.options), arrays, repeats)
        result.default_time_s = default_t
        if best_t > default_t * (1 - min_gain):
            result.log.append((result.options, "not confirmed", best_t))
            result.options, best_t = {}, default_t
    result.time_s = best_t
    (store or TuneStore()).put(
        key,
        {
            "op": op.name,
            "target": target,
            "device": device_name(target),
            "bucket": repr(shape_bucket(call_shapes(examples))),
            "options": result.options,
            "time_s": best_t,
            "default_time_s": default_t,
            "tried": result.tried,
        },
    )
    return result


def _progress(enabled: bool, name: str):
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(desc=f"tuning {name}", unit="candidate", leave=False)


def stored_options(spec, target: str, store: TuneStore | None = None, shapes=None) -> dict:
    """The options stored for this specialization (for arguments of `shapes`' bucket) on this
    machine, or {} (nothing tuned, or the store file does not exist)."""
    store = store or TuneStore()
    if not store.path.exists():
        return {}
    record = store.get(spec_key(spec, target, shapes))
    return dict(record["options"]) if record else {}


__all__ = ["TuneResult", "call_shapes", "spec_key", "stored_options", "tune"]
