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

Each sweep's candidates are ordered by the target's analytic model (`model.predicted_seconds`)
and those it predicts more than `model_margin` slower than the current best are skipped, never
compiled; a model only exists where the target has one (the CPU's packed GEMM, the CUDA wgmma
kernels' tile choice), and a knob it does not see predicts no difference, so it is never
skipped. The rest are built into the disk cache by `workers` processes at once
(`precompile.Precompiler`; default: one per CPU): on the CPU all of them before the timing
starts (the timing then has the cores to itself), on GPUs while the earlier ones are timed.

Timing (`timing.clock_for`): on the CPU `time.perf_counter` around each of `repeats` calls after
two warm-ups; on CUDA, CUDA events around each call with the L2 cache flushed before it; the
median either way.
"""

from __future__ import annotations

import hashlib
import os
import re
import statistics
import time
from dataclasses import dataclass, field

import numpy as np

from tilec.diagnostics import TilecError
from tilec.tuning.model import predicted_seconds
from tilec.tuning.precompile import Precompiler
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
    compile or run), rejected (a result that differs from the default's) and skipped (the
    model predicted them more than `model_margin` slower than the current best: never compiled)."""

    options: dict
    time_s: float
    default_time_s: float
    key: str
    tried: int = 0
    failed: int = 0
    rejected: int = 0
    skipped: int = 0
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
    model_margin: float | None = 1.5,
    overlap: bool | None = None,
) -> TuneResult:
    """Tune `op` (its specialization `spec` for `examples`) on `target`; see the module docstring.
    `model_margin`: skip the candidates the target's model predicts slower than the current
    best's prediction times this (None: time every candidate). `overlap`: time each candidate as
    soon as it is built while the workers build the next (default: on GPUs, whose timing leaves
    the CPU cores free; on the CPU compiles and timing would share the cores)."""
    from tilec.backends import get_backend

    clock = clock_for(target)
    backend = get_backend(target)
    base = backend.options({})
    values = backend.tunable_values(base, [k.replace("-", "_") for k in knobs] if knobs else None)
    arrays = clock.prepare(examples)
    workers = (os.cpu_count() or 1) if workers is None else workers
    overlap = target != "cpu" if overlap is None else overlap
    start = time.perf_counter()
    deadline = start + budget_s
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
        candidates = [p for p in search_points(type(base), base, values, best) if tuple(sorted(p.items())) not in seen]
        points = _by_model(spec, target, backend, base, best, candidates, model_margin, result)
        seen.update(tuple(sorted(p.items())) for p in candidates if p not in points)  # (skipped: once)
        changes = [_changed(base, p) for p in points]
        builds = Precompiler(spec, target, changes, workers)
        try:  # (an error mid-sweep, or the budget: the workers still building are stopped)
            if not overlap:
                builds.wait_all(deadline)
            for i, (point, changed) in enumerate(zip(points, changes)):
                if time.perf_counter() >= deadline:
                    break
                builds.wait(i, deadline)
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
        finally:
            builds.stop()
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


def _by_model(spec, target: str, backend, base, best: dict, points: list[dict], margin, result) -> list[dict]:
    """`points` in the order of their predicted time (tilec.tuning.model), without those predicted
    more than `margin` times slower than `best`'s prediction (counted in `result.skipped` and
    logged); unchanged where the model has no prediction for `best` (or margin is None). A
    point without a prediction is kept, after the predicted ones."""
    if margin is None or not points:
        return points

    def predict(point: dict) -> float | None:
        try:
            return predicted_seconds(spec.module, target, backend.options(_changed(base, point)))
        except TilecError:
            return None

    ref = predict(best)
    if ref is None or ref <= 0:
        return points
    scored = [(predict(p), i, p) for i, p in enumerate(points)]
    kept = sorted((s, i, p) for s, i, p in scored if s is not None and s <= margin * ref)
    for s, _, p in scored:
        if s is not None and s > margin * ref:
            result.skipped += 1
            result.log.append((_changed(base, p), "skipped", f"predicted {s / ref:.2f}x the best"))
    return [p for _, _, p in kept] + [p for s, _, p in scored if s is None]


def _changed(base, point: dict) -> dict:
    return {k: v for k, v in point.items() if v != getattr(base, k)}


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
