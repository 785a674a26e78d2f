"""`tilec.profile()` (tilec/frontend/profiler.py): calls, call sites, bytes and contraction FLOPs
recorded per tile op call; the table and the Chrome trace."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cpu_util import rand, rng  # noqa: F401

import tilec
from tilec import float32, tile_contract, tile_op


@tile_op(dtype=float32)
def linear_tanh(x, w):
    return tilec.tanh(tile_contract(x, w, axes=[(-1, 0)]))


@tile_op(dtype=float32)
def scale(x, s: float):
    return x * s


def test_calls_sites_bytes_and_flops(rng, tmp_path):
    m, k, n = 13, 7, 5
    x, w = rand(rng, (m, k)), rand(rng, (k, n))
    linear_tanh(x, w)  # compiled before the profile: the profile times kernels, not compiles
    with tilec.profile() as p:
        for _ in range(3):
            y = linear_tanh(x, w)  # line A
        scale(y, 0.5)
    np.testing.assert_allclose(y, np.tanh(x @ w), rtol=1e-5, atol=1e-5)
    assert [c.op for c in p.calls] == ["linear_tanh"] * 3 + ["scale"]
    first = p.calls[0]
    assert first.site.endswith(f"test_profiler.py:{test_calls_sites_bytes_and_flops.__code__.co_firstlineno + 6}")
    assert first.flops == 2 * m * n * k
    assert first.nbytes == 4 * (m * k + k * n + m * n)
    assert p.calls[3].flops == 0 and all(c.seconds is not None and c.seconds >= 0 for c in p.calls)
    rows = {r["op"]: r for r in p.rows()}
    assert rows["linear_tanh"]["calls"] == 3 and rows["scale"]["calls"] == 1
    assert rows["linear_tanh"]["tflop_s"] > 0 and rows["scale"]["tflop_s"] is None
    bw, peak = p.roofline("cpu")
    assert bw > 1e8 and peak > 1e8
    table = p.table()
    assert "linear_tanh" in table and "roofline" in table
    path = tmp_path / "trace.json"
    p.export_chrome_trace(path)
    events = json.loads(path.read_text())["traceEvents"]
    assert [e["name"] for e in events] == ["linear_tanh"] * 3 + ["scale"]
    assert all(e["ph"] == "X" and e["dur"] >= 0 for e in events)


def test_no_profile_no_records_and_fast_path_back(rng):
    x = rand(rng, (4, 3))
    scale(x, 2.0)
    with tilec.profile() as p:
        scale(x, 2.0)
    assert len(p.calls) == 1
    scale(x, 2.0)  # after the block: nothing recorded, the fast path serves the call again
    assert len(p.calls) == 1 and scale.fast_calls >= 1


@pytest.mark.gpu
def test_gpu_calls_are_timed_with_events(rng):
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    try:
        cp.cuda.runtime.getDeviceCount()
    except Exception:
        pytest.skip("no NVIDIA GPU with CuPy on this machine")
    x, w = cp.asarray(rand(rng, (64, 32))), cp.asarray(rand(rng, (32, 16)))
    linear_tanh(x, w)
    with tilec.profile() as p:
        linear_tanh(x, w)
    (c,) = p.calls
    assert c.target == "cuda" and c.seconds is not None and c.seconds > 0 and c.flops == 2 * 64 * 32 * 16
