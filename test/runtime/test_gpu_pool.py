"""Pooling on the CUDA target against torch on the same GPU: max pools (values and int64 indices
exactly, ties and NaNs included), average and adaptive pools, both backward helpers, f16 and f32,
awkward shapes, and relu -> max_pool -> scale as one kernel.

Marked `gpu`: every test here skips, saying so, when CuPy, torch's CUDA or an NVIDIA GPU is
missing (the PTX of these kernels is assembled by ptxas in test_pool.py on every machine, and
the same GPU lowering runs in the HIP emulator there)."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
from tilec import float16, float32, int64, tile_op

try:
    import cupy as cp
    import torch

    HAVE_GPU = cp.cuda.runtime.getDeviceCount() > 0 and torch.cuda.is_available()
except Exception:  # noqa: BLE001 - any failure to reach a GPU means "no GPU here"
    cp = torch = None
    HAVE_GPU = False

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy and torch CUDA on this machine"),
]

rng = np.random.default_rng()


def dev(a):
    return torch.as_tensor(a, device="cuda")


def host(a) -> np.ndarray:
    return torch.as_tensor(a, device="cuda").float().cpu().numpy() if not isinstance(a, np.ndarray) else a


@pytest.mark.parametrize("dt", [float16, float32])
@pytest.mark.parametrize(
    "shape,k,s,p,dl,ceil",
    [
        ((2, 3, 17, 23), 3, 2, 1, 1, False),  # the stem's pool on odd sizes
        ((1, 5, 10, 7), 3, 2, 1, 2, True),
        ((4, 2, 31), 5, 3, 2, 1, True),
        ((1, 2, 5, 6, 9), (2, 3, 3), (1, 2, 2), (1, 1, 1), 1, False),
    ],
)
def test_max_pool_matches_torch(shape, k, s, p, dl, ceil, dt):
    d = len(k) if isinstance(k, tuple) else len(shape) - 2
    fn = {1: torch.nn.functional.max_pool1d, 2: torch.nn.functional.max_pool2d, 3: torch.nn.functional.max_pool3d}[d]

    @tile_op(dtype=dt)
    def mp(x):
        return tilec.max_pool(x, k, s, p, dl, ceil_mode=ceil, return_indices=True)

    x = np.round(rng.standard_normal(shape) * 3).astype(dt.np)  # rounded: many ties
    x[rng.random(shape) < 0.02] = np.nan
    y, i = mp(dev(x))
    ty, ti = fn(dev(x), k, s, p, dl, ceil_mode=ceil, return_indices=True)
    np.testing.assert_array_equal(host(y), ty.float().cpu().numpy())
    np.testing.assert_array_equal(torch.as_tensor(i, device="cuda").cpu().numpy(), ti.cpu().numpy())


@pytest.mark.parametrize("dt,tol", [(float32, 1e-5), (float16, 1e-2)])
def test_avg_adaptive_and_backward_match_torch(dt, tol):
    F = torch.nn.functional
    shape = (2, 3, 19, 14)

    @tile_op(dtype=dt)
    def fwd(x):
        a = tilec.avg_pool(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)
        m, i = tilec.adaptive_max_pool(x, (5, 3), return_indices=True)
        return a, tilec.adaptive_avg_pool(x, (4, 6)), m, i

    @tile_op(dtype=dt)
    def avg_bwd(dy):
        return tilec.avg_pool_backward(dy, shape, 3, 2, 1, ceil_mode=True, count_include_pad=False)

    @tile_op(dtype=dt, dtypes={"idx": int64})
    def max_bwd(dy, idx):  # the scatter (atomics) and the window walk
        return tilec.max_pool_backward(dy, idx, shape), tilec.max_pool_backward(dy, idx, shape, 3, 2, 1)

    x = dev(rng.standard_normal(shape).astype(dt.np))
    a, aa, m, i = fwd(x)
    xt = x.double().requires_grad_(True)
    ta = F.avg_pool2d(xt, 3, 2, 1, ceil_mode=True, count_include_pad=False)
    tm, ti = F.adaptive_max_pool2d(x, (5, 3), return_indices=True)

    def close(got, want):
        got, want = host(got).astype(np.float64), want.detach().double().cpu().numpy()
        assert np.abs(got - want).max() <= tol * max(1.0, np.abs(want).max())

    close(a, ta)
    close(aa, F.adaptive_avg_pool2d(x.double(), (4, 6)))
    np.testing.assert_array_equal(host(m), tm.float().cpu().numpy())
    np.testing.assert_array_equal(torch.as_tensor(i, device="cuda").cpu().numpy(), ti.cpu().numpy())
    dy = torch.randn(ta.shape, device="cuda", dtype=torch.float64)
    (g,) = torch.autograd.grad(ta, xt, dy)
    close(avg_bwd(dy.to(x.dtype)), g)
    ym, im = F.max_pool2d(xt, 3, 2, 1, return_indices=True)
    dym = torch.randn(ym.shape, device="cuda", dtype=torch.float64)
    (gm,) = torch.autograd.grad(ym, xt, dym)
    scattered, walked = max_bwd(dym.to(x.dtype), im)
    close(scattered, gm)
    close(walked, gm)


def test_relu_max_pool_scale_is_one_kernel():
    @tile_op(dtype=float16)
    def block(x):
        y, i = tilec.max_pool(tilec.maximum(x, 0.0), 3, 2, 1, return_indices=True)
        return y * 2.0, i

    x = dev(rng.standard_normal((2, 4, 24, 20)).astype(np.float16))
    assert block.ir("mapped", np.zeros((2, 4, 24, 20), np.float16), target="cuda").count("mapped.kernel @") == 1
    y, i = block(x)
    ty, ti = torch.nn.functional.max_pool2d(torch.relu(x), 3, 2, 1, return_indices=True)
    np.testing.assert_array_equal(host(y), (ty * 2).float().cpu().numpy())
    np.testing.assert_array_equal(torch.as_tensor(i, device="cuda").cpu().numpy(), ti.cpu().numpy())
