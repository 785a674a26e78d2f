"""In-place updates on the CUDA target: CuPy arrays (and torch CUDA tensors) are written where
they are, the checks refuse arrays that cannot be, and results equal the CPU's.

Marked `gpu`: every test here skips, saying so, when CuPy or an NVIDIA GPU is missing."""

from __future__ import annotations

import numpy as np
import pytest
from gpu_util import HAVE_GPU, cp

import tilec
from tilec import float32, tile_op

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine"),
]


@tile_op(dtype=float32)
def step(p, m, g, lr: float):
    m[...] = 0.9 * m + g
    p[...] = p - lr * m


@tile_op(dtype=float32)
def rev_and_old(p, x):
    b = p * tilec.sum(x)
    p[...] = p[::-1]
    return b


@pytest.mark.parametrize("shape", [(1,), (7,), (1000,), (3, 257), (1 << 20,)])
def test_step_updates_device_arrays(shape):
    rng = np.random.default_rng()
    p, m, g = (rng.standard_normal(shape, dtype=np.float32) for _ in range(3))
    m2 = np.float32(0.9) * m + g
    p2 = p - np.float32(0.125) * m2
    dp, dm, dg = cp.asarray(p), cp.asarray(m), cp.asarray(g)
    assert step(dp, dm, dg, 0.125) is None
    np.testing.assert_allclose(cp.asnumpy(dm), m2, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(cp.asnumpy(dp), p2, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(cp.asnumpy(dg), g)


@pytest.mark.parametrize("n", [1, 13, 4097])
def test_update_through_a_temporary_and_the_old_value(n):
    rng = np.random.default_rng()
    p, x = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(5, dtype=np.float32)
    dp = cp.asarray(p)
    b = rev_and_old(dp, cp.asarray(x))
    np.testing.assert_allclose(cp.asnumpy(b), p * x.sum(dtype=np.float64), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(cp.asnumpy(dp), p[::-1])


def test_torch_cuda_tensor_is_updated_in_place():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    p, m, g = (torch.randn(33, 5, device="cuda") for _ in range(3))
    m2 = 0.9 * m + g
    p2 = p - 0.5 * m2
    step(p, m, g, 0.5)
    assert torch.allclose(m, m2, rtol=1e-6, atol=1e-6) and torch.allclose(p, p2, rtol=1e-6, atol=1e-6)


def test_program_with_nothing_to_launch():
    """`p[...] = p` needs no kernel: the module is PTX without entries (what torch's pow_(x, 1)
    becomes); the call leaves the array as it was."""

    @tile_op(dtype=float32)
    def same(p):
        p[...] = p

    x = np.random.default_rng().standard_normal((5, 3), dtype=np.float32)
    d = cp.asarray(x)
    kernel = same.compile("cuda", x)
    assert ".entry" not in kernel.source
    assert kernel(d) == ()
    assert np.array_equal(cp.asnumpy(d), x)


def test_device_arrays_that_cannot_be_written_in_place():
    g = cp.ones(8, cp.float32)
    with pytest.raises(tilec.TileError, match=r"argument 'p' is updated in place, so it must be a C-contiguous"):
        step(cp.ones(16, cp.float32)[::2], cp.ones(8, cp.float32), g, 0.1)
    a = cp.ones(8, cp.float32)
    with pytest.raises(tilec.TileError, match=r"shares memory"):
        step(a, a, g, 0.1)
    np.testing.assert_array_equal(cp.asnumpy(a), np.ones(8, np.float32))


@tile_op(dtype=float32)
def sgd_lists(params: tilec.List[float32], grads: tilec.List[float32], lr: float):
    params[...] = params - lr * grads


def test_lists_of_device_arrays():
    rng = np.random.default_rng()
    shapes = [(1,), (7,), (13, 17), (3, 5, 7), (1 << 16,)] + [(int(n),) for n in rng.integers(1, 5000, 100)]
    ps = [rng.standard_normal(s, dtype=np.float32) for s in shapes]
    gs = [rng.standard_normal(s, dtype=np.float32) for s in shapes]
    dps, dgs = [cp.asarray(p) for p in ps], [cp.asarray(g) for g in gs]
    k = sgd_lists.compile("cuda")
    before = k.launches
    assert sgd_lists(dps, dgs, 0.5) is None
    assert k.launches == before + 1  # ONE launch over every array (multi-tensor apply)
    for dp, p, g in zip(dps, ps, gs):
        np.testing.assert_allclose(cp.asnumpy(dp), p - np.float32(0.5) * g, rtol=1e-6, atol=1e-6)
    # the same arrays again: the table is reused, a new lr is a runtime scalar
    sgd_lists(dps, dgs, 0.25)
    assert k.launches == before + 2
    for dp, p, g in zip(dps, ps, gs):
        want = (p - np.float32(0.5) * g) - np.float32(0.25) * g
        np.testing.assert_allclose(cp.asnumpy(dp), want, rtol=1e-6, atol=1e-6)
    with pytest.raises(tilec.TileError, match=r"mix host \(numpy\) and device"):
        sgd_lists([dps[0]], [gs[0]], 0.5)


def test_adamw_over_120_device_arrays_in_one_launch():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
    from adamw import adamw_step, hyper, reference_step

    rng = np.random.default_rng()
    sizes = [1, 2, 3, 13, 1023, 1024, 1025, 65537] + [int(n) for n in rng.integers(1, 20000, 112)]
    ps, gs, ms, vs = ([rng.standard_normal(n, dtype=np.float32) for n in sizes] for _ in range(4))
    vs = [np.abs(v) for v in vs]
    dev = [[cp.asarray(a) for a in x] for x in (ps, gs, ms, vs)]
    k = adamw_step.compile("cuda")
    assert k.host.foreach is not None
    for step_ in (1, 2):
        h = hyper(step_)
        before = k.launches
        adamw_step(*dev, *h)
        assert k.launches == before + 1
        for args in zip(ps, gs, ms, vs):
            reference_step(*args, *h)
    for d, want in zip(dev, (ps, gs, ms, vs)):
        for a, w in zip(d, want):
            np.testing.assert_allclose(cp.asnumpy(a), w, rtol=1e-5, atol=1e-6)


def test_hip_portable_updates_numpy_arrays_in_place():
    """The HIP C++ (portable: wave 32, through hip_compat_cuda.h and NVRTC) run by the HIP host
    program: numpy arrays go to the GPU and the updated ones come back into the caller's arrays."""
    rng = np.random.default_rng()
    p, m, g = (rng.standard_normal(1001, dtype=np.float32) for _ in range(3))
    k = step.compile("hip", p, m, g, 0.25, portable=True)
    m2 = np.float32(0.9) * m + g
    p2 = p - np.float32(0.25) * m2
    pp, mm = p.copy(), m.copy()
    assert k.run_cuda_compat(pp, mm, g, 0.25) == ()
    np.testing.assert_allclose(mm, m2, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(pp, p2, rtol=1e-6, atol=1e-6)


def test_hip_portable_lists_in_one_launch():
    """The HIP C++ of a program over lists (portable, through NVRTC): one launch over 100+ numpy
    arrays of mixed sizes, written back into the caller's arrays."""
    rng = np.random.default_rng()
    sizes = [1, 7, 1024, 1025, 65537] + [int(n) for n in rng.integers(1, 5000, 100)]
    ps = [rng.standard_normal(n, dtype=np.float32) for n in sizes]
    gs = [rng.standard_normal(n, dtype=np.float32) for n in sizes]
    want = [p - np.float32(0.5) * g for p, g in zip(ps, gs)]
    k = sgd_lists.compile("hip", portable=True)
    assert k.host.foreach is not None
    k.foreach_cuda_compat([ps, gs, 0.5])
    for p, w in zip(ps, want):
        np.testing.assert_allclose(p, w, rtol=1e-6, atol=1e-6)
