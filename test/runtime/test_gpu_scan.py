"""Scans and arg-reductions on GPUs: the PTX of every program assembled by ptxas (sm_80, sm_90a),
the HIP C++ compiled by hipcc for gfx90a and RUN in the HIP emulator (test_hip_emulated.py: the
block reductions with 64-lane waves and the portable 32-lane form), and, marked `gpu`, run on an
NVIDIA GPU against numpy (skipping, saying so, without one). Each part skips without its tool
(ptxas, hipcc), saying which."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
import torch
from cpu_util import rand, rng  # noqa: F401
from test_hip_emulated import CLANGXX, emulate

import tilec
from tilec import float16, float32, int8, int32, tile_op
from tilec.emit.ptx import emit_ptx
from tilec.runtime import lower
from tilec.toolchain.hipcc import find_hipcc

try:
    import cupy as cp

    HAVE_GPU = cp.cuda.runtime.getDeviceCount() > 0
except Exception:  # noqa: BLE001 - any failure to reach a GPU means "no GPU here"
    cp = None
    HAVE_GPU = False

PTXAS = shutil.which("ptxas")


@tile_op(dtype=float32, dims=["A", "B", "C"])
def scans(x):
    return (
        tilec.cumsum(x * 2.0, 1) + 1.0,
        tilec.cumprod(x, 0, reverse=True),
        tilec.logcumsumexp(x, 2),
        tilec.cumsum(x, 2, exclusive=True),
    )


@tile_op(dtype=float32, dims=["M", "N"])
def argmax_with_max(x):
    return tilec.max(x, -1), tilec.argmax(x, -1), tilec.argmin(x, 0)


@tile_op(dtype=float32, dims=["A", "B"])
def argmax_all(x):
    """axis=None: one block reduces the whole tile (row-major index over both axes)."""
    return tilec.argmax(x), tilec.argmin(x, axis=None, keepdims=True)


@tile_op(dtype=float16, dims=["M", "N"])
def f16_scan_argmin(x):
    return tilec.cumsum(x, -1), tilec.argmin(x, -1)


@tile_op(dtype=int32, dims=["N"])
def int_scan(x):
    return tilec.cumsum(x, 0, reverse=True)


@tile_op(dtype=float32, dims=["A", "N"])
def row_scans(x):
    """Long rows: the block scan (a scan of a scan, exclusive, logaddexp, an epilogue)."""
    c = tilec.cumsum(x * 2.0, 1)
    return c + 1.0, tilec.cumsum(c, 1), tilec.cumprod(x, 1, exclusive=True), tilec.logcumsumexp(x, 1)


@tile_op(dtype=float32, dims=["A", "N"])
def reverse_rows(x):
    return tilec.cumsum(x, 1, reverse=True, exclusive=True), tilec.logcumsumexp(x, 1, reverse=True)


@tile_op(dtype=float32)
def few_columns(x, y):
    """Few long lines along a non-last axis (static sizes): one block per line, strided reads."""
    return tilec.cumsum(x, 0), tilec.logcumsumexp(y, 1, reverse=True) * 2.0


@tile_op(dtype=float32, dims=["N"])
def long_1d(x):
    """A 1-d scan of `?` length: split across blocks (reduce-then-scan, two kernels)."""
    return tilec.cumsum(x, 0) * 0.5, tilec.cumsum(x, 0, reverse=True, exclusive=True)


@tile_op(dtype=int8, dims=["A", "N"])
def i8_rows(x):
    return tilec.cumsum(x, 1), tilec.cumprod(x, 1, reverse=True)


def _awkward(rng, shape, dt=float32):
    x = np.round(rand(rng, shape, dt, -3, 3))
    flat = x.reshape(-1)
    flat[rng.integers(0, flat.size, max(1, flat.size // 19))] = np.nan
    return x


def _programs(rng):
    x3 = rand(rng, (3, 5, 7), float32, 0.6, 1.4)
    return [
        ("scans", scans, [x3]),
        ("argmax_with_max", argmax_with_max, [_awkward(rng, (6, 1001))]),
        ("argmax_short_rows", argmax_with_max, [_awkward(rng, (37, 5))]),
        ("argmax_all", argmax_all, [_awkward(rng, (37, 501))]),
        ("f16_scan_argmin", f16_scan_argmin, [rand(rng, (4, 300), float16)]),
        ("int_scan", int_scan, [rand(rng, (1000,), int32, -(2**30), 2**30)]),
        ("row_scans", row_scans, [rand(rng, (3, 1001), float32, 0.99, 1.01)]),
        ("reverse_rows", reverse_rows, [rand(rng, (2, 3001), float32)]),
        ("i8_rows", i8_rows, [rand(rng, (2, 77), int8, -100, 100)]),
        ("long_1d", long_1d, [rand(rng, (2 * 16384 + 5,), float32)]),
        ("few_columns", few_columns, [rand(rng, (1000, 3), float32), rand(rng, (2, 300, 5), float32)]),
    ]


NAMES = [
    "scans",
    "argmax_with_max",
    "argmax_short_rows",
    "argmax_all",
    "f16_scan_argmin",
    "int_scan",
    "row_scans",
    "reverse_rows",
    "i8_rows",
    "long_1d",
    "few_columns",
]


def _pick(rng, name):
    return next(p for p in _programs(rng) if p[0] == name)


def _check(got, want, name):
    got = got if isinstance(got, tuple | list) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, name
        if g.dtype.kind == "f":
            # the block scan adds in another order than the interpreter: errors scale with the
            # largest partial sum (relative to the largest reference magnitude, as test_gpu.py)
            w64 = w.astype(np.float64)
            scale = max(1.0, float(np.nanmax(np.abs(w64[np.isfinite(w64)]), initial=0)))
            np.testing.assert_allclose(g.astype(np.float64), w64, rtol=2e-5, atol=2e-5 * scale, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
@pytest.mark.parametrize("sm", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name", NAMES)
def test_ptxas_accepts(rng, name, sm, tmp_path):
    _, op, arrays = _pick(rng, name)
    path = tmp_path / f"{name}.ptx"
    path.write_text(emit_ptx(lower(op.module(*arrays), "hw", "cuda", sm=sm)))
    r = subprocess.run(
        [PTXAS, f"-arch={sm}", "-v", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    if sm == "sm_90a":
        assert " 0 bytes spill stores" in r.stderr, r.stderr


@pytest.mark.skipif(find_hipcc() is None or CLANGXX is None, reason="hipcc (and its clang++) is not installed")
@pytest.mark.parametrize("mode", [{}, {"portable": True}], ids=["wave64", "portable"])
@pytest.mark.parametrize("name", NAMES)
def test_hip_compiles_and_runs_emulated(rng, name, mode):
    _, op, arrays = _pick(rng, name)
    k = op.compile("hip", *arrays, **mode)
    for m in k.metadata().values():
        assert m["private_segment_fixed_size"] == 0 and m["vgpr_spill_count"] == 0, m
    _check(emulate(op, *arrays, **mode), tilec.interpret(op, *arrays), name)


def test_row_scan_is_a_block_scan(rng):
    """A scan along long rows: one block per row with barriers (the shared-memory scan), no
    thread walking a whole row."""
    _, op, arrays = _pick(rng, "row_scans")
    ptx = emit_ptx(lower(op.module(*arrays), "hw", "cuda", sm="sm_90a"))
    assert ptx.count(".entry") == 1 and "bar.sync" in ptx and ".shared" in ptx


def test_few_long_columns_take_blocks(rng):
    _, op, arrays = _pick(rng, "few_columns")
    ptx = emit_ptx(lower(op.module(*arrays), "hw", "cuda", sm="sm_90a"))
    assert ptx.count(".entry") == 2 and ptx.count("bar.sync") >= 2


def test_long_scan_is_split_across_blocks(rng):
    """A long 1-d scan: a partials kernel (one block reduction per part) and a scan kernel over
    as many blocks, the partials in a temporary (reduce-then-scan); a second scan in the same
    group (another direction) is its own group."""
    _, op, arrays = _pick(rng, "long_1d")
    ptx = emit_ptx(lower(op.module(*arrays), "hw", "cuda", sm="sm_90a"))
    assert ptx.count("_partials(") == 2 and ptx.count(".entry") == 4
    assert op.ir("mapped", *arrays, target="cuda").count("mapped.temp") == 2


def test_argmax_rows_use_block_reductions(rng):
    """A GPU argmax over rows: one block per row, the max and the index each one block reduction
    (shuffles), in the same kernel as the max."""
    _, op, arrays = _pick(rng, "argmax_with_max")
    ptx = emit_ptx(lower(op.module(*arrays), "hw", "cuda", sm="sm_90a"))
    assert ptx.count(".entry") == 2  # rows (max + argmax), and argmin over axis 0
    assert "shfl.sync.bfly" in ptx


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
@pytest.mark.parametrize("name", NAMES)
def test_cuda_runs(rng, name):
    _, op, arrays = _pick(rng, name)
    got = op(*[cp.asarray(a) for a in arrays])
    got = got if isinstance(got, tuple) else (got,)
    _check([cp.asnumpy(g) for g in got], tilec.interpret(op, *arrays), name)


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
def test_cuda_long_cumsum_and_torch_tensors(rng):
    """A 2**20 + 1 cumsum and a logcumsumexp of torch CUDA tensors, against torch on the device."""

    @tile_op(dtype=float32)
    def f(x):
        return tilec.cumsum(x, 0)

    x = rand(rng, (2**20 + 1,), float32, -1.0, 1.0)
    got = cp.asnumpy(f(cp.asarray(x))).astype(np.float64)
    # split across blocks: another order of additions than numpy's, within 1e-5 of the largest
    # partial sum of |x| (the sequential bound would be n * 2**-24 = 6e-2 of it)
    bound = 1e-5 * np.cumsum(np.abs(x.astype(np.float64))).max()
    assert np.abs(got - np.cumsum(x.astype(np.float64))).max() <= bound

    @tile_op(dtype=float32, dims=["M", "N"])
    def g(x):
        return tilec.logcumsumexp(x, 1)

    t = torch.from_numpy(rand(rng, (33, 513), float32, -50, 50)).cuda()
    torch.testing.assert_close(g(t), torch.logcumsumexp(t, 1), rtol=1e-5, atol=1e-5)
