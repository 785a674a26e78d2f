"""GPU elementwise groups that read an input across its contiguous axis (transposes that move the
last axis) go through shared memory in tiles (tilec/conversion/tile_to_mapped/transpose_gpu.py,
knob `transpose-tile`): which groups take that kernel, the PTX assembled by ptxas, the HIP C++
run in the HIP emulator (test_hip_emulated.py) against numpy on awkward shapes, and, marked
`gpu`, the CUDA target on an NVIDIA GPU against torch (skipping, saying so, without one)."""

from __future__ import annotations

import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest
from cpu_util import rng  # noqa: F401
from gpu_util import HAVE_GPU, cp
from test_hip_emulated import CLANGXX, emulate

import tilec
from tilec import bfloat16, float16, float32, int32, tile_op
from tilec.emit.ptx import emit_ptx
from tilec.runtime import lower

PTXAS = shutil.which("ptxas")
needs_emulator = pytest.mark.skipif(CLANGXX is None, reason="hipcc's clang++ is not installed (HIP emulator)")
needs_gpu = pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
NP = {float32: np.float32, float16: np.float16, bfloat16: ml_dtypes.bfloat16, int32: np.int32}


def _rand(rng, shape, dt):
    if dt is int32:
        return rng.integers(-1000, 1000, size=shape).astype(np.int32)
    return rng.standard_normal(shape).astype(NP[dt])


def _cases(rng):
    """(name, op, arrays, numpy results, transposed?) of the checked programs."""

    @tile_op(dtype=float16)
    def swap_outer_inner(x):  # (N, H, W, C) -> (C, H, W, N): a weight gradient's operand
        return tilec.transpose(x, (3, 1, 2, 0))

    @tile_op(dtype=float32)
    def t2d_math(x, y):  # a transposed read and a plain one, two outputs
        e = tilec.exp(x.T * 0.5)
        return e + y, e * y

    @tile_op(dtype=bfloat16)
    def bf16_cast_t(x):  # a cast of a transpose (bf16 in, f32 out)
        return x.T.astype(float32) * 2.0

    @tile_op(dtype=int32)
    def int_3d(x):  # the contiguous axis moves to the middle
        return tilec.transpose(x, (0, 2, 1)) + 3

    @tile_op(dtype=float32)
    def bias_and_t(x, b):  # a broadcast bias (read along the last axis) beside a transposed read
        return x.T + b

    out = []
    x = _rand(rng, (3, 5, 9, 37), float16)
    out.append(("swap_outer_inner(3,5,9,37)", swap_outer_inner, [x], [np.transpose(x, (3, 1, 2, 0))], True))
    x = _rand(rng, (64, 5, 3, 64), float16)
    out.append(("swap_outer_inner(64,5,3,64)", swap_outer_inner, [x], [np.transpose(x, (3, 1, 2, 0))], True))
    for m, n in ((67, 131), (1, 4099), (97, 97)):
        x, y = _rand(rng, (m, n), float32), _rand(rng, (n, m), float32)
        e = np.exp(x.T.astype(np.float64) * 0.5)
        out.append((f"t2d_math({m},{n})", t2d_math, [x, y], [e + y, e * y], m > 1))
    x = _rand(rng, (129, 65), bfloat16)
    out.append(("bf16_cast_t(129,65)", bf16_cast_t, [x], [x.astype(np.float32).T * 2.0], True))
    x = _rand(rng, (2, 61, 71), int32)
    out.append(("int_3d(2,61,71)", int_3d, [x], [np.transpose(x, (0, 2, 1)) + 3], True))
    x, b = _rand(rng, (90, 70), float32), _rand(rng, (90,), float32)
    out.append(("bias_and_t(90,70)", bias_and_t, [x, b], [x.T + b], True))
    return out


NAMES = [c[0] for c in _cases(np.random.default_rng(0))]


def _pick(rng, name):
    return next(c for c in _cases(rng) if c[0] == name)


def _check(got, want, name):
    got = got if isinstance(got, tuple | list) else (got,)
    assert len(got) == len(want), name
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, (name, g.shape, w.shape)
        if w.dtype.kind in "iu":
            np.testing.assert_array_equal(g, w, err_msg=name)
            continue
        w64 = w.astype(np.float64)
        tol = 1e-5 if g.dtype == np.float32 else 1e-2
        np.testing.assert_allclose(g.astype(np.float64), w64, rtol=tol, atol=tol, err_msg=name)


def _kernels(op, arrays, **options):
    text = op.ir("mapped", *arrays, target="cuda", **options)
    return [line for line in text.splitlines() if "mapped.kernel @" in line]


@pytest.mark.parametrize("name", NAMES)
def test_which_groups_are_staged(rng, name):
    """A read across the input's contiguous axis takes the shared-memory kernel (its attribute
    names the walked axis); `transpose-tile=0` or a transpose that keeps the last axis does not."""
    _, op, arrays, _, transposed = _pick(rng, name)
    kernels = _kernels(op, arrays)
    assert len(kernels) == 1, kernels
    assert ("tilec.transpose_axis" in kernels[0]) == transposed, kernels[0]
    assert all("tilec.transpose_axis" not in k for k in _kernels(op, arrays, transpose_tile=0))


def test_a_transpose_keeping_the_last_axis_is_plain(rng):
    @tile_op(dtype=float32)
    def keep_last(x):
        return tilec.transpose(x, (1, 0, 2)) * 2.0

    (k,) = _kernels(keep_last, [_rand(rng, (40, 50, 64), float32)])
    assert "tilec.transpose_axis" not in k and "smem 0" in k, k


def test_too_many_staged_outputs_keep_the_plain_kernel(rng):
    """Tiles of every output must fit 48 KiB of static shared memory: the group of five f64
    outputs in 64 x 65 tiles (166 KiB) keeps the plain kernel (the copy of `t`, one tile of 33
    KiB, is staged); at T = 16 both fit and are staged."""

    @tile_op(dtype=tilec.float64)
    def six(x):
        t = x.T
        return t, t + 1.0, t * 2.0, t - 3.0, tilec.exp(t), -t

    x = rng.standard_normal((70, 90))
    staged = lambda tile: sum("tilec.transpose_axis" in k for k in _kernels(six, [x], transpose_tile=tile))  # noqa: E731
    assert len(_kernels(six, [x])) == 2 and staged(64) == 1 and staged(16) == 2


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
@pytest.mark.parametrize("sm", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("tile", [16, 32, 64])
def test_ptxas_accepts(rng, sm, tile, tmp_path):
    _, op, arrays, _, _ = _pick(rng, "swap_outer_inner(64,5,3,64)")
    ptx = emit_ptx(lower(op.module(*arrays), "hw", "cuda", sm=sm, transpose_tile=tile))
    assert "bar.sync" in ptx and ".shared" in ptx
    path = tmp_path / "k.ptx"
    path.write_text(ptx)
    r = subprocess.run(
        [PTXAS, f"-arch={sm}", "-v", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    assert " 0 bytes spill stores" in r.stderr, r.stderr


@needs_emulator
@pytest.mark.parametrize("mode", [{}, {"portable": True}], ids=["wave64", "portable"])
@pytest.mark.parametrize("name", NAMES)
def test_emulated_against_numpy(rng, name, mode):
    _, op, arrays, want, _ = _pick(rng, name)
    _check(emulate(op, *arrays, **mode), want, name)


@needs_emulator
@pytest.mark.parametrize("tile", [16, 64])
def test_emulated_tile_sizes(rng, tile):
    _, op, arrays, want, _ = _pick(rng, "t2d_math(67,131)")
    _check(emulate(op, *arrays, transpose_tile=tile), want, "t2d_math")


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("name", NAMES)
def test_cuda_against_numpy(rng, name):
    _, op, arrays, want, _ = _pick(rng, name)
    got = op.compile("cuda", *arrays)(*[cp.asarray(a) for a in arrays])
    got = got if isinstance(got, tuple | list) else (got,)
    _check([cp.asnumpy(g) for g in got], want, name)
