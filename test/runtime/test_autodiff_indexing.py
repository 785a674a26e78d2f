"""The VJP rules of the indexing ops (tilec/autodiff/rules/indexing.py): slice, dynamic_slice,
concat, pad, take, take_along_axis, scatter_add. Each derived backward (tilec.vjp) against
torch.autograd (CPU, float64) and central finite differences, on fresh random inputs of awkward
shapes (odd and prime sizes, strides 2 and 3, reversed axes, repeated and negative indices),
interpreted and compiled for the CPU; CUDA variants marked gpu."""

from __future__ import annotations

import numpy as np
import pytest
from autodiff_rules_util import check_rule
from cpu_util import rng  # noqa: F401
from test_hip_emulated import CLANGXX, MODES, run_emulated

import tilec
from tilec import float64, int64, tile_op

torch = pytest.importorskip("torch")

try:
    import cupy as cp

    HAVE_GPU = cp.cuda.runtime.getDeviceCount() > 0
except Exception:  # noqa: BLE001 - any failure to reach a GPU means "no GPU here"
    HAVE_GPU = False
needs_gpu = pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")


def randn(rng, *shape):
    return rng.standard_normal(shape)


# --- slice ---------------------------------------------------------------------------------------


def torch_getitem(x, index: tuple):
    """x[index] in torch for ints and slices of any step (torch's own slices need step > 0)."""
    axis = 0
    for it in index:
        n = x.shape[axis]
        if isinstance(it, int):
            x = x.select(axis, it % n)
            continue
        x = x.index_select(axis, torch.from_numpy(np.arange(n)[it].copy()))
        axis += 1
    return x


SLICES = {
    "steps": ((slice(1, 8, 2), slice(None, None, -1)), (9, 13)),
    "from_end": ((slice(-3, None), slice(2, 11, 3)), (7, 13)),
    "reversed_step": ((slice(7, 0, -3), slice(-2, None, -2)), (11, 6)),
    "index": ((2, slice(1, -1)), (5, 7)),
    "one": ((slice(0, 1), slice(4, 5)), (1, 5)),
    "rank3": ((slice(None), slice(None, None, 2), slice(1, None, 3)), (3, 5, 8)),
}


@pytest.mark.parametrize("case", sorted(SLICES))
def test_slice(rng, case):
    index, shape = SLICES[case]

    @tile_op(dtype=float64)
    def f(x):
        return x[index] * 1.0

    check_rule(rng, f, [randn(rng, *shape)], ["x"], lambda x: torch_getitem(x, index))


def test_slice_used_twice_accumulates(rng):
    """Two overlapping windows of one argument: their cotangents add up."""

    @tile_op(dtype=float64)
    def f(x):
        return x[1:6] * x[0:5] + x[::-1][2:7]

    check_rule(rng, f, [randn(rng, 9, 3)], ["x"], lambda x: x[1:6] * x[0:5] + x.flip(0)[2:7])


def test_slice_of_dynamic_axis(rng):
    """A `?` axis kept whole (x[::-1]) and a static window of a `?` axis (x[1:4])."""

    @tile_op(dtype=float64, dims=["N", 5])
    def f(x):
        return x[::-1, 1:] * 2.0, x[1:4, ::2]

    for n in (4, 11):
        check_rule(rng, f, [randn(rng, n, 5)], ["x"], lambda x: (x.flip(0)[:, 1:] * 2.0, x[1:4, ::2]))


# --- dynamic_slice -------------------------------------------------------------------------------


@pytest.mark.parametrize("start", [0, 3, 9, -4])  # 9 and -4 are clamped
def test_dynamic_slice(rng, start):
    @tile_op(dtype=float64, dtypes={"i": int64})
    def f(x, i):
        return tilec.dynamic_slice(x, i, 4, axis=1) ** 2

    def ref(x, i):
        s = min(max(int(i[0]), 0), x.shape[1] - 4)
        return x[:, s : s + 4] ** 2

    check_rule(rng, f, [randn(rng, 3, 11), np.array([start], np.int64)], ["x"], ref)


# --- concat and pad ------------------------------------------------------------------------------


def test_concat(rng):
    @tile_op(dtype=float64)
    def f(a, b):
        return tilec.concatenate([a, b * 2.0, a], axis=1)

    check_rule(rng, f, [randn(rng, 5, 3), randn(rng, 5, 7)], ["a", "b"], lambda a, b: torch.cat([a, b * 2.0, a], dim=1))


def test_stack(rng):
    @tile_op(dtype=float64)
    def f(a, b):
        return tilec.stack([a, b, a * b], axis=0)

    check_rule(rng, f, [randn(rng, 3, 4), randn(rng, 3, 4)], ["a", "b"], lambda a, b: torch.stack([a, b, a * b]))


def test_pad(rng):
    """A constant pad: the padding (1.5, a constant) has no cotangent, x's is ct's interior."""

    @tile_op(dtype=float64)
    def f(x):
        p = tilec.pad(x, ((1, 2), (0, 3)), value=1.5)
        return p * p

    def ref(x):
        p = torch.nn.functional.pad(x, (0, 3, 1, 2), value=1.5)
        return p * p

    check_rule(rng, f, [randn(rng, 4, 5)], ["x"], ref)


# --- gathers and scatters ------------------------------------------------------------------------


def test_take_repeated_and_negative_indices(rng):
    """An embedding lookup with repeated and negative ids: repeated rows accumulate."""

    @tile_op(dtype=float64, dtypes={"ids": int64})
    def f(w, ids):
        return tilec.take(w, ids, axis=0)

    ids = np.array([[0, 3, 3, -1], [6, 0, -7, 3], [2, 2, 2, 2]], np.int64)  # -1 is 6, -7 is 0

    check_rule(rng, f, [randn(rng, 7, 5), ids], ["w"], lambda w, i: w[i % 7])


@pytest.mark.parametrize("axis", [1, None])
def test_take_other_axes(rng, axis):
    @tile_op(dtype=float64, dtypes={"ids": int64})
    def f(w, ids):
        return tilec.take(w, ids, axis=axis)

    w = randn(rng, 3, 5, 2)
    n = 5 if axis == 1 else w.size
    ids = rng.integers(-n, n, size=(4,)).astype(np.int64)

    def ref(w, i):
        i = torch.from_numpy(i.numpy() % n)
        return w[:, i] if axis == 1 else w.reshape(-1)[i]

    check_rule(rng, f, [w, ids], ["w"], ref)


def test_take_scalar_index(rng):
    @tile_op(dtype=float64)
    def f(w):
        return tilec.take(w, 2, axis=1)

    check_rule(rng, f, [randn(rng, 4, 5)], ["w"], lambda w: w[:, 2])


def test_take_along_axis(rng):
    """Cross-entropy's pick (logits[i, labels[i, j]]) with repeated labels in a row."""

    @tile_op(dtype=float64, dtypes={"labels": int64})
    def f(logits, labels):
        return tilec.take_along_axis(logits, labels, axis=1)

    labels = np.array([[1, 1, 10], [0, -1, 0], [5, 5, 5], [9, 2, -11], [3, 4, 3], [0, 0, 1], [7, 8, 9]], np.int64)
    check_rule(rng, f, [randn(rng, 7, 11), labels], ["logits"], lambda x, i: torch.gather(x, 1, i % 11))


def test_scatter_add(rng):
    """Both differentiable operands: the base's cotangent is ct, the updates' a gather of ct."""

    @tile_op(dtype=float64, dtypes={"idx": int64})
    def f(x, idx, u):
        return tilec.scatter_add(x, 0, idx, u) ** 2

    idx = rng.integers(0, 6, size=(13, 5)).astype(np.int64)
    idx[:3] = 2  # repeated
    check_rule(
        rng,
        f,
        [randn(rng, 6, 5), idx, randn(rng, 13, 5)],
        ["x", "u"],
        lambda x, i, u: torch.scatter_add(x, 0, i, u) ** 2,
    )


def test_index_add(rng):
    @tile_op(dtype=float64, dtypes={"idx": int64})
    def f(x, idx, u):
        return tilec.index_add(x, 1, idx, u, alpha=0.5)

    idx = np.array([4, 0, 4, 2, 4], np.int64)
    check_rule(
        rng,
        f,
        [randn(rng, 3, 5), idx, randn(rng, 3, 5)],
        ["x", "u"],
        lambda x, i, u: torch.index_add(x, 1, i, u, alpha=0.5),
    )


# --- on a GPU (float32, as the other GPU tests) -----------------------------------------------------


@tile_op(dtype=tilec.float32, dtypes={"ids": int64})
def gather_pad32(w, ids, x):
    return tilec.take(w, ids, axis=0) * tilec.pad(x, ((0, 0), (1, 0)))[:, ::2]


@pytest.mark.skipif(CLANGXX is None, reason="hipcc's clang++ is not installed (HIP emulator)")
@pytest.mark.parametrize("mode", list(MODES))
def test_gather_scatter_gpu_lowering_emulated(rng, mode):
    """The derived backward through the GPU lowering (HIP, run in the emulator) equals the CPU's: its
    fused group yields a 9x5 tile beside a 9x5x1 reshape of another (once stored with 3 indices)."""
    ids = rng.integers(-7, 7, size=(9,)).astype(np.int64)
    args = [randn(rng, 7, 5), ids, randn(rng, 9, 9), randn(rng, 9, 5)]
    args = [a if a.dtype == np.int64 else a.astype(np.float32) for a in args]
    derived = tilec.vjp(gather_pad32, wrt=("w", "x"))
    want = derived.compile("cpu", *args)(*args)
    got = run_emulated(derived.compile("hip", *args, **MODES[mode]), args)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-6)


@pytest.mark.gpu
@needs_gpu
def test_gather_scatter_cuda(rng):
    ids = rng.integers(-7, 7, size=(9,)).astype(np.int64)
    check_rule(
        rng,
        gather_pad32,
        [randn(rng, 7, 5).astype(np.float32), ids, randn(rng, 9, 9).astype(np.float32)],
        ["w", "x"],
        lambda w, i, x: w[i % 7] * torch.nn.functional.pad(x, (1, 0))[:, ::2],
        targets=("cuda",),
        fd=False,
        rtol=1e-5,
        atol=1e-5,
    )
