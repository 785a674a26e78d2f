"""torch tensors at the tile op boundary (tilec/frontend/arrays.py, docs/torch.md): every dtype in and
out without copies, the one documented copy of a non-contiguous input, in-place updates of the
caller's tensor, the mixing rules, and (marked gpu) CUDA tensors on torch's current stream."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import tilec
from tilec import tile_op
from tilec.runtime.cpu import CpuKernel

torch = pytest.importorskip("torch", reason="torch is not installed (CI installs it: .ci/run)")

FLOATS = {
    tilec.float16: torch.float16,
    tilec.bfloat16: torch.bfloat16,
    tilec.float32: torch.float32,
    tilec.float64: torch.float64,
}
INTS = {
    tilec.int8: torch.int8,
    tilec.int16: torch.int16,
    tilec.int32: torch.int32,
    tilec.int64: torch.int64,
    tilec.uint8: torch.uint8,
    tilec.uint16: torch.uint16,
    tilec.uint32: torch.uint32,
    tilec.uint64: torch.uint64,
}
FP8 = {tilec.float8_e4m3fn: torch.float8_e4m3fn, tilec.float8_e5m2: torch.float8_e5m2}
SHAPES = [(1,), (7,), (3, 13), (2, 5, 17)]


def _gen():
    return torch.Generator().manual_seed(int(np.random.default_rng().integers(1 << 30)))


def _rand_ints(shape, tdt, g):
    hi = 100 if tdt in (torch.int8, torch.uint8) else 1000
    return torch.randint(0, hi, shape, generator=g, dtype=torch.int64).to(tdt)


@pytest.mark.parametrize("dt", list(FLOATS))
@pytest.mark.parametrize("shape", SHAPES)
def test_float_tensors_in_and_out(dt, shape):
    @tile_op(dtype=dt)
    def fma(x, y):
        return x * y + x

    g = _gen()
    x, y = (torch.randn(shape, generator=g, dtype=torch.float64).to(FLOATS[dt]) for _ in range(2))
    out = fma(x, y)
    assert isinstance(out, torch.Tensor) and out.dtype == FLOATS[dt] and out.shape == x.shape
    xd, yd = x.double(), y.double()
    eps = torch.finfo(FLOATS[dt]).eps  # tilec may round once where torch rounds twice
    torch.testing.assert_close(out.double(), xd * yd + xd, rtol=4 * eps, atol=4 * eps)


@pytest.mark.parametrize("dt", list(INTS))
def test_integer_tensors_in_and_out(dt):
    @tile_op(dtype=dt)
    def add_and(x, y):
        return x + y, x & y

    g = _gen()
    shape = (3, 11)
    x, y = _rand_ints(shape, INTS[dt], g), _rand_ints(shape, INTS[dt], g)
    s, a = add_and(x, y)
    assert s.dtype == INTS[dt] and a.dtype == INTS[dt]
    want_s = (x.to(torch.int64) + y.to(torch.int64)).numpy().astype(dt.np)  # uint16+ lack torch add on CPU
    np.testing.assert_array_equal(s.numpy(), want_s)
    np.testing.assert_array_equal(a.numpy(), x.numpy() & y.numpy())


def test_bool_tensors_in_and_out():
    @tile_op(dtype=tilec.bool_)
    def logic(x, y):
        return x & ~y

    g = _gen()
    x, y = (torch.randint(0, 2, (4, 9), generator=g).bool() for _ in range(2))
    out = logic(x, y)
    assert out.dtype == torch.bool
    torch.testing.assert_close(out, x & ~y)


@pytest.mark.parametrize("dt", list(FP8))
def test_fp8_tensors_in_and_out(dt):
    @tile_op(dtype=dt)
    def widen_and_round(x):
        return x.astype(tilec.float32) * 2.0, (x.astype(tilec.float32) * 0.5).astype(dt)

    g = _gen()
    x = (torch.randn(5, 13, generator=g) * 4).to(FP8[dt])
    wide, narrow = widen_and_round(x)
    assert wide.dtype == torch.float32 and narrow.dtype == FP8[dt]
    torch.testing.assert_close(wide, x.float() * 2.0, rtol=0, atol=0)
    assert torch.equal(narrow.view(torch.uint8), (x.float() * 0.5).to(FP8[dt]).view(torch.uint8))


def _spy_inputs(monkeypatch):
    """Record, per array input the CPU kernel receives, (the address it got, the address it used)."""
    seen = []
    real = CpuKernel._prepare_input

    def spy(self, i, t, value):
        used = real(self, i, t, value)
        if isinstance(value, np.ndarray):
            seen.append((value.ctypes.data, used.ctypes.data, used is value))
        return used

    monkeypatch.setattr(CpuKernel, "_prepare_input", spy)
    return seen


@pytest.mark.parametrize("tdt", [torch.float32, torch.bfloat16, torch.float8_e4m3fn])
def test_contiguous_inputs_are_not_copied(monkeypatch, tdt):
    dt = {torch.float32: tilec.float32, torch.bfloat16: tilec.bfloat16, torch.float8_e4m3fn: tilec.float8_e4m3fn}[tdt]

    @tile_op(dtype=dt)
    def widen(x):
        return x.astype(tilec.float32) + 1.0

    x = torch.randn(6, 10).to(tdt)
    seen = _spy_inputs(monkeypatch)
    torch.testing.assert_close(widen(x), x.float() + 1.0)
    assert seen == [(x.data_ptr(), x.data_ptr(), True)]  # the tensor's own memory, no copy


def test_a_non_contiguous_input_is_copied_once(monkeypatch):
    @tile_op(dtype=tilec.float32)
    def plus1(x):
        return x + 1.0

    base = torch.randn(9, 14)
    for view in (base[:, 1::3], base.t(), base[2:7]):
        seen = _spy_inputs(monkeypatch)
        torch.testing.assert_close(plus1(view), view + 1.0)
        (got, used, same) = seen[0]
        assert got == view.data_ptr()  # the strided view reached the runtime uncopied...
        if view.is_contiguous():
            assert same and used == got
        else:  # ... which made the one documented contiguous copy
            assert not same and used != got


def test_in_place_update_writes_the_callers_tensor():
    @tile_op(dtype=tilec.float32)
    def sgd(p, grad, lr: float):
        p[...] = p - lr * grad

    g = _gen()
    p, grad = torch.randn(37, generator=g), torch.randn(37, generator=g)
    want = p - 0.1 * grad
    ptr = p.data_ptr()
    assert sgd(p, grad, 0.1) is None
    assert p.data_ptr() == ptr
    torch.testing.assert_close(p, want)
    with pytest.raises(tilec.TileError, match="C-contiguous"):
        sgd(torch.randn(37, 2)[:, 0], grad, 0.1)


def test_lazily_negated_views_and_requires_grad():
    @tile_op(dtype=tilec.float32)
    def twice(x):
        return x * 2.0

    x = torch.randn(4, 5, requires_grad=True)
    torch.testing.assert_close(twice(x), x.detach() * 2)
    neg = torch._neg_view(x.detach())
    torch.testing.assert_close(twice(neg), -x.detach() * 2)


def test_mixing_torch_with_numpy_is_an_error():
    @tile_op(dtype=tilec.float32)
    def mul(x, y):
        return x * y

    x = torch.randn(3, 4)
    with pytest.raises(
        tilec.TileError, match=r"test_torch_tensors\.py:\d+.*mix torch tensors and other arrays \(numpy\)"
    ):
        mul(x, np.ones((3, 4), np.float32))
    with pytest.raises(tilec.TileError, match=r"on device 'meta': tilec takes CPU and CUDA tensors"):
        mul(x, torch.empty(3, 4, device="meta"))


def test_import_tilec_does_not_import_torch():
    code = "import sys, tilec; assert 'torch' not in sys.modules, 'torch imported'; import tilec.torch; assert 'torch' in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# -- CUDA (the lead runs these on the H200) ------------------------------------------------------


def _cuda():
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device for torch")
    pytest.importorskip("cupy", reason="the cuda target needs CuPy")


@pytest.mark.gpu
@pytest.mark.parametrize("dt", [tilec.float16, tilec.bfloat16, tilec.float32, tilec.int32, tilec.float8_e4m3fn])
def test_cuda_tensors_in_and_out(dt):
    _cuda()
    tdt = {**FLOATS, **INTS, **FP8}[dt]

    @tile_op(dtype=dt)
    def widen_add(x, y):
        return x.astype(tilec.float32) + y.astype(tilec.float32), x

    x = (torch.randn(33, 129, device="cuda") * 8).to(tdt)
    y = (torch.randn(33, 129, device="cuda") * 8).to(tdt)
    s, same = widen_add(x, y)
    assert s.device == x.device and same.device == x.device and same.dtype == tdt
    torch.testing.assert_close(s, x.float() + y.float())
    assert torch.equal(same.view(torch.uint8) if dt.bits == 8 else same, x.view(torch.uint8) if dt.bits == 8 else x)
    strided = x[:, ::2]  # the documented copy, on the device
    torch.testing.assert_close(widen_add(strided, strided)[0], 2 * strided.float())


@pytest.mark.gpu
def test_cuda_kernel_runs_on_torchs_current_stream():
    """On a side stream: a long sleep, then a copy into y, then the tile op reading y. Only a kernel
    on that stream sees the copied values (the default stream would read y first)."""
    _cuda()

    @tile_op(dtype=tilec.float32)
    def plus1(x):
        return x + 1.0

    src = torch.randn(1 << 20, device="cuda")
    y = torch.zeros_like(src)
    side = torch.cuda.Stream()
    start, done = torch.cuda.Event(), torch.cuda.Event()
    plus1(y)  # compiled and loaded first: the timed call below only launches
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        start.record()
        torch.cuda._sleep(1_000_000_000)  # ~0.5 s
        y.copy_(src)
        out = plus1(y)
        done.record()
    assert not done.query()  # still sleeping: the call did not wait for the stream
    done.synchronize()
    torch.testing.assert_close(out, src + 1.0)


@pytest.mark.gpu
def test_mixing_cuda_devices_or_torch_with_cupy_is_an_error():
    _cuda()
    import cupy

    @tile_op(dtype=tilec.float32)
    def mul(x, y):
        return x * y

    x = torch.randn(3, 4, device="cuda")
    with pytest.raises(tilec.TileError, match=r"mix torch tensors and other arrays \(cupy\)"):
        mul(x, cupy.ones((3, 4), cupy.float32))
    if torch.cuda.device_count() > 1:
        with pytest.raises(tilec.TileError, match="on several devices"):
            mul(x, torch.randn(3, 4, device="cuda:1"))
