"""Kernel selection (issue 16, first part): the search space, the tuning store's keys, its file
(concurrent writers, export / import, errors), tuning on the CPU, and later calls (in this process
and another) compiling with the stored choice."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tilec import float32, float64, tile_contract, tile_op
from tilec.backends import get_backend
from tilec.diagnostics import TilecError
from tilec.frontend.errors import TileError
from tilec.options import OptionError
from tilec.tuning import TuneStore, knob_values, search_points, shape_bucket
from tilec.tuning.space import legal
from tilec.tuning.tuner import _agrees, spec_key

try:
    import cupy as cp

    HAVE_GPU = cp.cuda.runtime.getDeviceCount() > 0
except Exception:  # noqa: BLE001 - any failure to reach a GPU means "no GPU here"
    cp = None
    HAVE_GPU = False


@pytest.fixture
def store(tmp_path, monkeypatch):
    path = tmp_path / "tuning.json"
    monkeypatch.setenv("TILEC_TUNE_FILE", str(path))
    return TuneStore(path)


def _mm():
    @tile_op(dtype=float32)
    def mm(a, b):
        return tile_contract(a, b, axes=[(-1, 0)])

    return mm


# --- the search space ------------------------------------------------------------------------


def test_cpu_space_starts_at_the_default_and_prunes_illegal_points():
    backend = get_backend("cpu")
    base = backend.options({})
    values = backend.tunable_values(base)
    assert {"mr", "nr", "kc", "mc", "parallel_work", "vector"} <= set(values)
    for name, vals in values.items():
        assert vals[0] == getattr(base, name)  # the default first
        assert len(set(vals)) == len(vals)
    assert all(v <= base.vector for v in values["vector"])  # wider than the host's: would not run here
    cls = type(base)
    start = {n: getattr(base, n) for n in values}
    points = list(search_points(cls, base, values, start))
    assert points and all(legal(cls, {**base.items(), **p}) for p in points)
    # nr=24 with a 16-lane vector (or nr=8 with 16 lanes) breaks `nr % vector`: never proposed
    bad = [p for p in points if p["nr"] % p["vector"]]
    assert not bad, bad


def test_space_of_named_knobs_and_an_unknown_one():
    backend = get_backend("cpu")
    base = backend.options({})
    assert set(backend.tunable_values(base, ["kc", "mr"])) == {"kc", "mr"}
    with pytest.raises(OptionError, match="not tunable here: deterministic"):
        backend.tunable_values(base, ["deterministic"])
    cuda = get_backend("cuda")
    assert "split_k" in knob_values(cuda.Options, cuda.Options())


# --- keys --------------------------------------------------------------------------------------


def _key(op, *arrays):
    return spec_key(op._specialize_static(arrays, None), "cpu")


def test_key_ignores_docstrings_and_comments_but_not_dtypes_or_buckets():
    def make(doc: bool, dtype):
        if doc:

            @tile_op(dtype=dtype)
            def mm(a, b):
                """A docstring and a comment that change nothing the op computes."""
                return tile_contract(a, b, axes=[(-1, 0)])  # a comment

            return mm

        @tile_op(dtype=dtype)
        def mm(a, b):
            return tile_contract(a, b, axes=[(-1, 0)])

        return mm

    a, b = np.zeros((300, 64), np.float32), np.zeros((64, 20), np.float32)
    assert _key(make(False, float32), a, b) == _key(make(True, float32), a, b)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    assert _key(make(False, float32), a, b) != _key(make(False, float64), a64, b64)
    assert shape_bucket([(300, 64), (64, 20)]) == ((512, 64), (64, 32))
    assert shape_bucket([(1, 7, "n")]) == ((1, 8, "n"),)
    # 300 and 400 rows: one bucket (512), one key; 600 rows: another
    same, other = np.zeros((400, 64), np.float32), np.zeros((600, 64), np.float32)
    assert _key(make(False, float32), a, b) == _key(make(False, float32), same, b)
    assert _key(make(False, float32), a, b) != _key(make(False, float32), other, b)


# --- the file --------------------------------------------------------------------------------


def _writer(path: str, worker: int) -> None:
    s = TuneStore(path)
    for i in range(10):
        s.put(f"w{worker}-{i}", {"op": "x", "options": {"kc": 128 + i}, "time_s": 1.0, "default_time_s": 1.0})


def test_concurrent_writers_keep_every_entry(tmp_path):
    path = str(tmp_path / "tuning.json")
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, w)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    entries = TuneStore(path).entries()
    assert len(entries) == 40 and entries["w3-9"]["options"] == {"kc": 137}


def test_export_import_and_unreadable_files(tmp_path):
    a, b = TuneStore(tmp_path / "a.json"), TuneStore(tmp_path / "b.json")
    a.put("k1", {"op": "mm", "options": {"kc": 256}})
    assert a.export(tmp_path / "shipped.json") == 1
    assert b.import_file(tmp_path / "shipped.json") == 1
    assert b.get("k1") == {"op": "mm", "options": {"kc": 256}}
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(TilecError, match="cannot be read"):
        b.import_file(tmp_path / "bad.json")
    (tmp_path / "other.json").write_text(json.dumps({"entries": []}))
    with pytest.raises(TilecError, match="not a tilec tuning file"):
        TuneStore(tmp_path / "other.json").entries()


def test_cli(tmp_path, store):
    env = {**os.environ, "TILEC_TUNE_FILE": str(store.path)}
    store.put(
        "k",
        {
            "op": "mm",
            "target": "cpu",
            "bucket": "((4, 4),)",
            "options": {"kc": 128},
            "time_s": 1.0,
            "default_time_s": 2.0,
        },
    )
    run = lambda *a: subprocess.run(
        [sys.executable, "-m", "tilec.command", *a], capture_output=True, text=True, env=env
    )  # noqa: E731
    r = run("tune", "list")
    assert r.returncode == 0 and "mm cpu ((4, 4),): kc=128, 2.00x the default" in r.stdout
    r = run("tune", "export", str(tmp_path / "out.json"))
    assert r.returncode == 0 and "exported 1 entry" in r.stdout
    (tmp_path / "bad.json").write_text("[")
    r = run("tune", "import", str(tmp_path / "bad.json"))
    assert r.returncode == 1 and r.stderr.startswith("tilec: error: tuning store") and "Traceback" not in r.stderr
    r = run("tune", "run", str(tmp_path / "missing.py"))
    assert r.returncode == 1 and "no such script" in r.stderr


def test_cli_tune_run_tunes_a_script(tmp_path, store):
    """`tilec tune run script.py args`: the script runs with TILEC_AUTOTUNE=1 (its ops' first calls
    tune), gets its arguments, and the command lists the new entries; a second run adds none."""
    script = tmp_path / "train.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys
            import numpy as np
            from tilec import float32, tile_contract, tile_op

            @tile_op(dtype=float32)
            def mm(a, b):
                return tile_contract(a, b, axes=[(-1, 0)])

            n = int(sys.argv[1])
            a, b = np.ones((n, 40), np.float32), np.ones((40, 9), np.float32)
            assert np.allclose(mm(a, b), 40.0)
            """
        )
    )
    env = {**os.environ, "TILEC_TUNE_FILE": str(store.path)}
    run = lambda: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "tilec.command", "tune", "run", "--budget", "2", str(script), "33"],
        capture_output=True,
        text=True,
        env=env,
    )
    r = run()
    assert r.returncode == 0, r.stderr
    assert "tuned 1 new entry" in r.stdout and "mm cpu ((64, 64), (64, 16))" in r.stdout
    r = run()
    assert r.returncode == 0 and "tuned 0 new entries" in r.stdout


# --- tuning and dispatch ---------------------------------------------------------------------


def test_agreement_check():
    w = np.linspace(-3, 3, 50, dtype=np.float32)
    assert _agrees([w + 1e-6], [w])
    assert not _agrees([w + 1e-2], [w])
    assert not _agrees([w.astype(np.int32) + 1], [w.astype(np.int32)])
    n = w.copy()
    n[3] = np.nan
    assert not _agrees([w], [n]) and _agrees([n], [n])


def test_tune_on_the_cpu_stores_a_checked_winner(store):
    mm = _mm()
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((97, 131)).astype(np.float32), rng.standard_normal((131, 61)).astype(np.float32)
    r = mm.tune(a, b, knobs=["kc", "mr"], budget_s=30, repeats=3, progress=False)
    assert r.tried >= 1 and r.failed == 0 and r.rejected == 0
    assert set(r.options) <= {"kc", "mr"}
    assert r.time_s <= r.default_time_s  # the winner was confirmed against the default (or is the default)
    record = store.get(r.key)
    assert record["options"] == r.options and record["op"] == "mm"
    assert mm.tuned(a, b) == r.options
    np.testing.assert_allclose(mm(a, b), a @ b, rtol=1e-4, atol=1e-4)


def test_a_stored_choice_is_used_by_another_process(store, tmp_path):
    """Write a choice for an op's key, then a fresh process calling the op compiles with it (and
    times nothing); TILEC_TUNED=0 ignores it."""
    script = tmp_path / "use.py"
    script.write_text(
        textwrap.dedent(
            """
            import json, sys
            import numpy as np
            from tilec import float32, tile_contract, tile_op

            @tile_op(dtype=float32)
            def mm(a, b):
                return tile_contract(a, b, axes=[(-1, 0)])

            a, b = np.ones((33, 40), np.float32), np.ones((40, 17), np.float32)
            if sys.argv[1] == "write":
                from tilec.tuning import TuneStore
                from tilec.tuning.tuner import spec_key

                key = spec_key(mm._specialize_static((a, b), None), "cpu")
                TuneStore().put(key, {"op": "mm", "options": {"kc": 128, "mr": 4}, "time_s": 1.0, "default_time_s": 1.0})
            else:
                out = mm(a, b)
                assert np.allclose(out, a @ b)
                (spec,) = mm._cache.values()
                print(json.dumps({"tuned": mm.tuned(a, b), "kernels": [repr(k[1]) for k in spec.kernels]}))
            """
        )
    )
    env = {**os.environ, "TILEC_TUNE_FILE": str(store.path)}
    assert subprocess.run([sys.executable, str(script), "write"], env=env).returncode == 0
    r = subprocess.run([sys.executable, str(script), "use"], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["tuned"] == {"kc": 128, "mr": 4}
    assert got["kernels"] == ["(('kc', 128), ('mr', 4))"], got["kernels"]  # compiled with the stored options only
    r = subprocess.run(
        [sys.executable, str(script), "use"], env={**env, "TILEC_TUNED": "0"}, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr


def test_tuning_errors(store):
    """hip cannot be timed (no AMD GPU); cuda without a GPU says so; no examples says so."""
    mm = _mm()
    a = np.zeros((4, 4), np.float32)
    with pytest.raises(TileError, match="not supported yet: tuning on target hip"):
        mm.tune(a, a, target="hip", progress=False)
    if not HAVE_GPU:
        with pytest.raises(TileError, match="CuPy|no NVIDIA GPU"):
            mm.tune(a, a, target="cuda", progress=False)
    with pytest.raises(TileError, match="pass example arrays"):
        mm.tune(progress=False)


def test_bfloat16_results_compare_with_a_tolerance():
    """Candidates of a bf16 op differ from the default by summation order only: not rejected."""
    import ml_dtypes

    w = np.linspace(-3, 3, 64).astype(ml_dtypes.bfloat16).reshape(8, 8)
    g = (w.astype(np.float32) * (1 + 2**-8)).astype(ml_dtypes.bfloat16)
    assert _agrees([g], [w])
    assert not _agrees([(w.astype(np.float32) + 0.5).astype(ml_dtypes.bfloat16)], [w])


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
def test_tuning_a_gemm_on_cuda(store):
    """On the GPU: CUDA-event timing with the L2 flushed, over the wgmma tile and split-K knobs of
    an f16 GEMM with few tiles; the winner's result matches numpy, is stored, and a later call uses
    it."""
    from tilec import float16

    @tile_op(dtype=float16)
    def gemm(a, b):
        return tile_contract(a, b, axes=[(-1, 0)])

    rng = np.random.default_rng(3)
    a = rng.standard_normal((64, 2048)).astype(np.float16)
    b = rng.standard_normal((2048, 1000)).astype(np.float16)
    result = gemm.tune(a, b, target="cuda", knobs=["wgmma-m", "wgmma-n", "split-k"], budget_s=120, progress=False)
    assert result.tried > 0 and result.time_s > 0 and result.default_time_s > 0
    assert result.time_s <= result.default_time_s
    assert gemm.tuned(a, b, target="cuda", store=store) == result.options
    got = cp.asnumpy(gemm(cp.asarray(a), cp.asarray(b))).astype(np.float64)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(got - ref).max() <= 1e-2 * np.abs(ref).max()


def test_dynamic_dims_choose_per_bucket(store):
    """An op with dynamic dims compiles one kernel per distinct tuned choice, not per shape: a call
    picks the choice stored for its shapes' bucket (300 rows -> 512), other buckets the defaults;
    tuning stores under the examples' bucket."""
    from tilec.tuning.tuner import call_shapes

    @tile_op(dtype=float32, dims=["M", "N", "K"])
    def dmm(a, b):
        return tile_contract(a, b, axes=[(-1, 0)])

    rng = np.random.default_rng(5)
    b = rng.standard_normal((64, 20)).astype(np.float32)
    a300 = rng.standard_normal((300, 64)).astype(np.float32)
    spec = dmm._specialize_static((a300, b), None)
    store.put(spec_key(spec, "cpu", call_shapes((a300, b))), {"op": "dmm", "options": {"kc": 256}})
    for m, want in ((400, {"kc": 256}), (300, {"kc": 256}), (600, {}), (20, {})):
        a = rng.standard_normal((m, 64)).astype(np.float32)
        assert dmm.tuned(a, b) == want, m
        np.testing.assert_allclose(dmm(a, b), a @ b, rtol=1e-4, atol=1e-4)
    spec = next(iter(s for s in dmm._cache.values()))
    assert sorted(k[1] for k in spec.kernels) == [(), (("kc", 256),)]  # two kernels for four shapes
    result = dmm.tune(rng.standard_normal((40, 64)).astype(np.float32), b, knobs=["kc"], budget_s=20, progress=False)
    assert store.get(result.key) is not None
    assert result.key == spec_key(spec, "cpu", [(40, 64), (64, 20)]) != spec_key(spec, "cpu", [(300, 64), (64, 20)])


def test_a_new_shape_in_a_tuned_bucket(store):
    """A choice tuned at 300 rows serves a call with 400 rows (same bucket), not one with 600."""
    mm = _mm()
    a, b = np.ones((300, 64), np.float32), np.ones((64, 20), np.float32)
    store.put(_key(mm, a, b), {"op": "mm", "options": {"kc": 256}, "time_s": 1.0, "default_time_s": 1.0})
    assert mm.tuned(np.ones((400, 64), np.float32), b) == {"kc": 256}
    assert mm.tuned(np.ones((600, 64), np.float32), b) == {}
    out = mm(np.ones((400, 64), np.float32), b)
    np.testing.assert_allclose(out, np.full((400, 20), 64.0))
    spec = mm._cache[("shapes", ((400, 64), (64, 20)))]
    assert [k[1] for k in spec.kernels] == [(("kc", 256),)]


def test_precompile_builds_the_candidates_into_the_cache(monkeypatch, tmp_path):
    """Candidates built by worker processes are cache hits for the sweep (same key: the module
    text with its locations round-trips)."""
    from tilec import cache
    from tilec.runtime import kernel_key
    from tilec.tuning.precompile import precompile

    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TILEC_CACHE", raising=False)
    mm = _mm()
    a, b = np.ones((21, 13), np.float32), np.ones((13, 5), np.float32)
    spec = mm._specialize_static((a, b), None)
    points = [{"kc": 128}, {"kc": 256, "mr": 4}]
    backend = get_backend("cpu")
    keys = [kernel_key(spec.module, "cpu", backend.options(p), {}) for p in points]
    assert all(cache.lookup(k) is None for k in keys)
    precompile(spec, "cpu", points, workers=2)
    assert all(cache.lookup(k) is not None for k in keys)


def test_autotune_on_the_first_call(store, monkeypatch):
    """TILEC_AUTOTUNE=1: the first call of a signature with nothing stored tunes (within
    TILEC_AUTOTUNE_BUDGET) and stores the result; the result is right either way."""
    monkeypatch.setenv("TILEC_AUTOTUNE", "1")
    monkeypatch.setenv("TILEC_AUTOTUNE_BUDGET", "3")
    mm = _mm()
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((37, 50)).astype(np.float32), rng.standard_normal((50, 11)).astype(np.float32)
    np.testing.assert_allclose(mm(a, b), a @ b, rtol=1e-4, atol=1e-4)
    record = store.get(_key(mm, a, b))
    assert record is not None and record["op"] == "mm"
    assert mm.tuned(a, b) == record["options"]


# --- the analytic model and its early stop ------------------------------------------------------


def _spec(op, *arrays):
    return op._specialize_static(arrays, None)


def test_cpu_model_sees_spills_narrow_vectors_and_padding():
    """The CPU GEMM model: a micro-tile whose accumulators overflow the register file, a narrower
    vector than the host's and rows padded to a tall micro-tile predict slower; a knob it does
    not model (parallel-work on a big problem) predicts no difference; dynamic sizes: no model."""
    from tilec.tuning.model import predicted_seconds

    cpu = get_backend("cpu")
    base = cpu.options({})
    mm = _mm()
    big = _spec(mm, np.zeros((512, 512), np.float32), np.zeros((512, 512), np.float32))
    t = lambda spec, **o: predicted_seconds(spec.module, "cpu", cpu.options(o))  # noqa: E731
    t0 = t(big)
    assert t0 > 0
    assert t(big, nr=48) > 1.3 * t0  # 48 columns: 3-12 vectors x mr rows > the registers on every width
    if base.vector >= 8:
        assert t(big, vector=4, nr=8) > 1.3 * t0  # half the lanes per cycle
    assert t(big, parallel_work=262144) == pytest.approx(t0)
    skinny = _spec(mm, np.zeros((8, 2048), np.float32), np.zeros((2048, 2048), np.float32))
    assert t(skinny, mr=8) < t(skinny, mr=14)  # 8 rows in a 14-row tile: 43% padding

    @tile_op(dtype=float32, dims=["M", "N", "K"])
    def dmm(a, b):
        return tile_contract(a, b, axes=[(-1, 0)])

    dyn = dmm._specialize_static((np.zeros((8, 16), np.float32), np.zeros((16, 4), np.float32)), None)
    assert predicted_seconds(dyn.module, "cpu", base) is None


def test_cuda_model_prefers_what_the_tile_choice_prefers():
    """CUDA: the wgmma kernels' tile score as a time (sm_90a, 16-bit inputs); a decode GEMM with
    few tiles is predicted faster split than not; float32 (SIMT) and sm_80 (mma.sync): no model."""
    from tilec import float16
    from tilec.tuning.model import predicted_seconds

    @tile_op(dtype=float16)
    def gemm(a, b):
        return tile_contract(a, b, axes=[(-1, 0)])

    cuda = get_backend("cuda")
    spec = _spec(gemm, np.zeros((16, 4096), np.float16), np.zeros((4096, 4096), np.float16))
    t = lambda **o: predicted_seconds(spec.module, "cuda", cuda.options({"sm": "sm_90a", **o}))  # noqa: E731
    assert t() is not None and t(split_k=0) < t(split_k=1)
    assert predicted_seconds(spec.module, "cuda", cuda.options(sm="sm_80")) is None
    f32 = _spec(_mm(), np.zeros((64, 64), np.float32), np.zeros((64, 64), np.float32))
    assert predicted_seconds(f32.module, "cuda", cuda.options(sm="sm_90a")) is None


def test_model_orders_and_skips_points():
    """`_by_model`: points predicted slower than margin x the best's prediction are skipped and
    logged; the rest come in predicted order; a knob the model does not see is kept; no margin
    (or no model) keeps every point in its order."""
    from tilec.tuning.tuner import TuneResult, _by_model

    cpu = get_backend("cpu")
    base = cpu.options({})
    spec = _spec(_mm(), np.zeros((512, 512), np.float32), np.zeros((512, 512), np.float32))
    values = cpu.tunable_values(base, ["nr", "parallel_work"])
    best = {n: getattr(base, n) for n in values}
    points = list(search_points(type(base), base, values, best))
    result = TuneResult({}, 1.0, 1.0, "k")
    kept = _by_model(spec, "cpu", cpu, base, best, points, 1.5, result)
    assert {"nr": 48, "parallel_work": base.parallel_work} not in kept  # a spilling micro-tile
    assert result.skipped == len(points) - len(kept) >= 1
    assert all(entry[1] == "skipped" for entry in result.log)
    assert [p for p in kept if p["nr"] == base.nr] == [p for p in points if p["nr"] == base.nr]  # parallel-work: kept
    assert _by_model(spec, "cpu", cpu, base, best, points, None, TuneResult({}, 1.0, 1.0, "k")) == points

    @tile_op(dtype=float32)
    def scale(x):
        return x * 2.0

    ew = _spec(scale, np.zeros((64,), np.float32))
    assert _by_model(ew, "cpu", cpu, base, best, points, 1.5, TuneResult({}, 1.0, 1.0, "k"))[0] is not None


def test_tune_skips_what_the_model_rules_out(store):
    """A tuning run over `nr` never compiles 48 columns (a spill on every vector width: 1.3x
    predicted with 16 lanes, 4x with 8): skipped, logged, and the result is still checked and
    stored."""
    mm = _mm()
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((128, 384)).astype(np.float32), rng.standard_normal((384, 96)).astype(np.float32)
    r = mm.tune(a, b, knobs=["nr"], budget_s=30, repeats=3, progress=False, workers=1, model_margin=1.2)
    skipped = [e for e in r.log if e[1] == "skipped"]
    assert r.skipped == len(skipped) >= 1 and any(e[0].get("nr") == 48 for e in skipped)
    assert all(e[0].get("nr") != 48 for e in r.log if e[1] in ("timed", "failed", "rejected"))
    assert store.get(r.key) is not None
    np.testing.assert_allclose(mm(a, b), a @ b, rtol=1e-4, atol=1e-4)


def test_overlapped_builds_are_cache_hits_as_they_finish(monkeypatch, tmp_path):
    """`Precompiler.wait(i)` returns once candidate i is in the cache (its worker reported it);
    stop() ends the workers; a tuning run with `overlap=True` (the GPU mode) on the CPU tunes
    as the default mode does."""
    from tilec import cache
    from tilec.runtime import kernel_key
    from tilec.tuning.precompile import Precompiler

    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TILEC_CACHE", raising=False)
    monkeypatch.setenv("TILEC_TUNE_FILE", str(tmp_path / "tuning.json"))
    mm = _mm()
    a, b = np.ones((19, 23), np.float32), np.ones((23, 7), np.float32)
    spec = _spec(mm, a, b)
    points = [{"kc": 128}, {"kc": 256}, {"mr": 4}, {}]
    backend = get_backend("cpu")
    builds = Precompiler(spec, "cpu", points, workers=2)
    for i in (0, 1, 2):
        builds.wait(i)
        assert cache.lookup(kernel_key(spec.module, "cpu", backend.options(points[i]), {})) is not None
    builds.wait(3)  # {} (the default) is never sent to a worker: no wait
    builds.stop()
    r = mm.tune(a, b, knobs=["kc"], budget_s=30, repeats=3, progress=False, workers=2, overlap=True)
    assert r.tried >= 1 and r.failed == 0 and r.rejected == 0
