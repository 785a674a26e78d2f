"""The array boundary (tilec/frontend/arrays.py): torch tensors on the CPU (and on CUDA where a GPU
is present) are accepted without copies, bf16 included, and results come back as the caller's
kind; numpy and CuPy keep working; non-native byte order is a clear error."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilec
from tilec import bfloat16, float16, float32, tile_contract, tile_op

torch = pytest.importorskip("torch", reason="torch is not installed (CI installs it: .ci/run)")

TORCH = {float32: torch.float32, float16: torch.float16, bfloat16: torch.bfloat16}
NP = {float32: np.float32, float16: np.float16, bfloat16: ml_dtypes.bfloat16}
TOL = {float32: 1e-5, float16: 2e-3, bfloat16: 2e-2}


def _ops(dt):
    @tile_op(dtype=dt)
    def scale_add(x, y):
        return x * 2.0 + y, tilec.sum(x, axis=-1)

    @tile_op(dtype=dt)
    def mm(a, b):
        return tile_contract(a, b, axes=[(-1, 0)])

    return scale_add, mm


@pytest.mark.parametrize("dt", [float32, float16, bfloat16])
def test_torch_cpu_tensors_in_and_out(dt):
    scale_add, mm = _ops(dt)
    g = torch.Generator().manual_seed(int(np.random.default_rng().integers(1 << 30)))
    x = torch.randn(7, 13, generator=g).to(TORCH[dt])
    y = torch.randn(7, 13, generator=g).to(TORCH[dt])
    out, s = scale_add(x, y)
    assert isinstance(out, torch.Tensor) and out.dtype == TORCH[dt] and out.device.type == "cpu"
    xf, yf = x.double(), y.double()
    torch.testing.assert_close(out.double(), xf * 2 + yf, rtol=TOL[dt], atol=TOL[dt] * 4)
    torch.testing.assert_close(s.double(), xf.sum(-1), rtol=TOL[dt] * 4, atol=TOL[dt] * 13)
    # the interpreter agrees and returns tensors too
    ref_out, _ = tilec.interpret(scale_add, x, y)
    assert isinstance(ref_out, torch.Tensor)
    a, b = torch.randn(5, 9, generator=g).to(TORCH[dt]), torch.randn(9, 3, generator=g).to(TORCH[dt])
    torch.testing.assert_close(mm(a, b).double(), a.double() @ b.double(), rtol=TOL[dt] * 4, atol=TOL[dt] * 9)


def test_inputs_are_not_copied_and_views_work():
    from tilec.frontend.arrays import TORCH_CPU, to_native

    t = torch.randn(4, 6)
    v = to_native(t, TORCH_CPU)
    assert v.ctypes.data == t.data_ptr()  # the same memory
    b = torch.randn(3, 5).to(torch.bfloat16)
    vb = to_native(b, TORCH_CPU)
    assert vb.dtype == np.dtype(ml_dtypes.bfloat16) and vb.ctypes.data == b.data_ptr()

    @tile_op(dtype=float32)
    def f(x):
        return x + 1.0

    base = torch.randn(6, 8)
    strided = base[:, ::2]  # non-contiguous: one documented copy inside the runtime
    torch.testing.assert_close(f(strided), strided + 1.0)
    torch.testing.assert_close(f(base.t()), base.t() + 1.0)


def test_torch_and_numpy_mix_on_the_host_and_gradients_are_not_traced():
    @tile_op(dtype=float32)
    def f(x, y):
        return x * y

    x = torch.randn(3, 4, requires_grad=True)
    y = np.random.default_rng().standard_normal((3, 4)).astype(np.float32)
    out = f(x, torch.from_numpy(y))
    torch.testing.assert_close(out, x.detach() * torch.from_numpy(y))
    np.testing.assert_allclose(f(x.detach().numpy(), y), x.detach().numpy() * y, rtol=1e-6)


def test_non_native_byte_order_is_a_clear_error():
    @tile_op(dtype=float32)
    def f(x):
        return x + 1.0

    big = np.arange(4, dtype=">f4")
    with pytest.raises(
        tilec.TileError, match=r"float32 in non-native byte order \(>f4\); convert it with .astype\('<f4'\)"
    ):
        f(big)


@pytest.mark.gpu
def test_torch_cuda_tensors_in_and_out():
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device for torch")
    for dt in (float32, float16, bfloat16):
        scale_add, mm = _ops(dt)
        x = torch.randn(33, 130, device="cuda").to(TORCH[dt])
        y = torch.randn(33, 130, device="cuda").to(TORCH[dt])
        out, s = scale_add(x, y)
        assert isinstance(out, torch.Tensor) and out.device.type == "cuda" and out.dtype == TORCH[dt]
        torch.testing.assert_close(out.double(), x.double() * 2 + y.double(), rtol=TOL[dt], atol=TOL[dt] * 4)
        a = torch.randn(130, 256, device="cuda").to(TORCH[dt])
        b = torch.randn(256, 72, device="cuda").to(TORCH[dt])
        torch.testing.assert_close(mm(a, b).double(), a.double() @ b.double(), rtol=TOL[dt] * 4, atol=TOL[dt] * 16)
