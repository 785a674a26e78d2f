"""Dynamic dims on the CPU: one trace and one compiled kernel serve every size (including 0 and
1), several results, mixed static/dynamic dims. Tolerances: cpu_util.TOL / the contraction
bound of test_cpu_matmul.py."""

from __future__ import annotations

import numpy as np
import pytest
from cpu_util import check, f64, rand, rng  # noqa: F401

import tilec
from tilec import float32, int32, tile_contract, tile_op
from tilec.backends.cpu import CpuBackend


@tile_op(dtype=float32, dims=["M", "N", "K"])
def mlp_layer(x, w, b):
    h = tilec.maximum(tile_contract(x, w, axes=[(1, 0)]) + b, 0.0)
    return h, tilec.sum(h, axis=1), tilec.max(h, axis=0)


def _mlp64(x, w, b):
    h = np.maximum(f64(x) @ f64(w) + f64(b), 0)
    return h, h.sum(1), h.max(0)


def test_dynamic_sizes_one_trace_one_compile(rng, monkeypatch):
    """The first call traces and compiles; calls with other sizes do neither."""
    x, w, b = rand(rng, (5, 3)), rand(rng, (3, 4)), rand(rng, (4,))
    check(mlp_layer, [x, w, b], _mlp64(x, w, b), rtol=1e-5, atol=1e-5)
    traces = mlp_layer.trace_count
    compiles = []
    real = CpuBackend.lower
    monkeypatch.setattr(CpuBackend, "lower", lambda self, *a, **k: compiles.append(1) or real(self, *a, **k))
    for M, N, K in [(1, 1, 1), (13, 7, 251), (127, 33, 2), (6, 16, 8), (100, 1, 9)]:
        x, w, b = rand(rng, (M, K)), rand(rng, (K, N)), rand(rng, (N,))
        got = mlp_layer(x, w, b)
        want = _mlp64(x, w, b)
        for g, wv in zip(got, want):
            np.testing.assert_allclose(f64(g), wv, rtol=1e-5, atol=1e-5 * K)
    assert mlp_layer.trace_count == traces
    assert compiles == []


def test_zero_sizes(rng):
    """Empty inputs: empty outputs (and identities of reductions over empty axes)."""
    got = mlp_layer(np.zeros((0, 3), np.float32), rand(rng, (3, 4)), rand(rng, (4,)))
    assert [g.shape for g in got] == [(0, 4), (0,), (4,)]
    np.testing.assert_array_equal(got[2], np.full(4, -np.inf, np.float32))
    got = mlp_layer(np.zeros((2, 0), np.float32), np.zeros((0, 4), np.float32), rand(rng, (4,)))  # K = 0
    np.testing.assert_array_equal(got[0], np.maximum(np.broadcast_to(got[0][0], (2, 4)), 0))

    @tile_op(dtype=float32, dims=["M", "N"])
    def sm(x):
        e = tilec.exp(x - tilec.max(x, axis=1, keepdims=True))
        return e / tilec.sum(e, axis=1, keepdims=True)

    assert sm(np.zeros((0, 5), np.float32)).shape == (0, 5)
    assert sm(np.zeros((3, 0), np.float32)).shape == (3, 0)


def test_mixed_static_and_dynamic_dims(rng):
    @tile_op(dtype=float32, dims=["M", 16, "K"])
    def f(x, w):
        return tilec.tanh(x @ w)

    for M, K in [(1, 1), (7, 31), (50, 300)]:
        x, w = rand(rng, (M, K)), rand(rng, (K, 16))
        check(f, [x, w], np.tanh(f64(x) @ f64(w)), rtol=1e-5, atol=1e-5 * K)
    assert "16" in f.ir("tile") and "?x16" in f.ir("tile")


def test_same_name_twice_means_same_size(rng):
    """dims=["N", "N", "N"]: a matmul of square matrices; different sizes per call."""

    @tile_op(dtype=int32, dims=["N", "N", "N"])
    def f(a, b):
        return a @ b

    for n in [1, 7, 64]:
        a, b = rand(rng, (n, n), int32, -100, 100), rand(rng, (n, n), int32, -100, 100)
        np.testing.assert_array_equal(f(a, b), a @ b)
    with pytest.raises(tilec.TileError, match="expected 3"):
        f(rand(rng, (3, 3), int32), rand(rng, (3, 4), int32))


def test_several_results_dynamic_shapes(rng):
    @tile_op(dtype=float32, dims=["A", "B", "C"])
    def f(x):
        return x.sum(axis=(0, 2)), x.transpose(2, 0, 1) * 2.0, tilec.mean(x, axis=1, keepdims=True), tilec.exp(x).max()

    for shape in [(1, 1, 1), (3, 5, 7), (2, 129, 3)]:
        x = rand(rng, shape)
        X = f64(x)
        got = check(
            f,
            [x],
            (X.sum((0, 2)), X.transpose(2, 0, 1) * 2, X.mean(1, keepdims=True), np.exp(X).max()),
            rtol=2e-5,
            atol=2e-5,
        )
        assert [g.shape for g in got] == [(shape[1],), (shape[2], shape[0], shape[1]), (shape[0], 1, shape[2]), ()]


_N0 = """
import numpy as np, tilec
from tilec import float32, tile_contract, tile_op

@tile_op(dtype=float32, dims=["M", "N", "K"])
def mm(A, B):
    return tile_contract(A, B, axes=[(1, 0)])

C = mm(np.ones((2, 3), np.float32), np.ones((3, 0), np.float32))
assert C.shape == (2, 0), C.shape
"""


def test_matmul_empty_n_does_not_crash(tmp_path):
    """N = 0 once divided by zero in the GEMM's task split (SIGFPE, fixed in cpu_gemm.py); run in
    a subprocess so that a crash fails this test instead of killing the test run."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "TILEC_CACHE_DIR": str(tmp_path)}
    r = subprocess.run([sys.executable, "-c", _N0], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, f"exit status {r.returncode}: {r.stderr[-2000:]}"
