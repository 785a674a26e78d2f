"""The fast path of op calls on the CUDA target (tilec/frontend/dispatch.py, runtime CudaLaunch), with
CuPy arrays and torch CUDA tensors: taken on repeat calls (results checked against numpy / torch
on fresh random inputs at every call), not taken on dtype / contiguity changes (the full path's
copy or error), in-place aliasing and the index status word checked at every call, temporaries
and launches on torch's current stream (a side stream with queued work before the call).

Marked `gpu`: every test here skips, saying so, when CuPy or an NVIDIA GPU is missing (the same
logic runs on the CPU target and, for CudaLaunch, on a fake device in test_fast_call.py)."""

from __future__ import annotations

import numpy as np
import pytest
from gpu_util import HAVE_GPU, cp

import tilec
from tilec import float32, int64, tile_op

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine"),
]

rng = np.random.default_rng()


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def _ops():
    @tile_op(dtype=float32, dims=["N"])
    def axpy(x, y, a: float):
        return a * x + y, tilec.sum(x)

    @tile_op(dtype=float32, dims=["M", "N"])
    def softmax_cols(x):  # several kernels and temporaries
        e = tilec.exp(x - tilec.max(x, axis=0, keepdims=True))
        return e / tilec.sum(e, axis=0, keepdims=True)

    @tile_op(dtype=float32, dims=["V", "D", "N"])
    def embed(w, ids: int64):
        return tilec.take(w, ids, axis=0)

    @tile_op(dtype=float32)
    def sgd(p, g, lr: float):
        p[...] = p - lr * g

    return axpy, softmax_cols, embed, sgd


def _softmax_cols(x):
    e = np.exp(x - x.max(0, keepdims=True))
    return e / e.sum(0, keepdims=True)


def test_cupy_repeat_calls(full_calls):
    axpy, softmax_cols, embed, sgd = _ops()
    for n in (1, 1000, 1000, 1000, 1):
        x, y, a = rand(n), rand(n), float(rng.uniform(-2, 2))
        out, s = axpy(cp.asarray(x), cp.asarray(y), a)
        assert isinstance(out, cp.ndarray)
        np.testing.assert_allclose(cp.asnumpy(out), np.float32(a) * x + y, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(float(s), x.astype(np.float64).sum(), rtol=1e-4, atol=1e-4)
    for _ in range(3):
        x = rand(37, 301)
        np.testing.assert_allclose(cp.asnumpy(softmax_cols(cp.asarray(x))), _softmax_cols(x), rtol=2e-5, atol=1e-6)
    assert full_calls[0] == 3 and axpy.fast_calls == 2 and softmax_cols.fast_calls == 1
    base = cp.asarray(rand(40))
    out, _ = axpy(base[::2], base[1::2], 1.0)  # non-contiguous: the full path copies
    np.testing.assert_allclose(cp.asnumpy(out), cp.asnumpy(base[::2] + base[1::2]), rtol=1e-6)
    with pytest.raises(tilec.TileError, match="has dtype float64 but the op's dtype is float32"):
        axpy(cp.asarray(x[0].astype(np.float64)), cp.asarray(x[0]), 1.0)


def test_cupy_status_word_and_in_place(full_calls):
    _, _, embed, sgd = _ops()
    w = cp.asarray(rand(13, 4))
    ids = rng.integers(-13, 13, size=15)
    for _ in range(2):
        np.testing.assert_array_equal(cp.asnumpy(embed(w, cp.asarray(ids))), cp.asnumpy(w)[ids])
    bad = ids.copy()
    bad[7] = 13
    with pytest.raises(tilec.IndexOutOfRange, match="take: index .*out of range.* argument 'ids'"):
        embed(w, cp.asarray(bad))
    np.testing.assert_array_equal(cp.asnumpy(embed(w, cp.asarray(ids))), cp.asnumpy(w)[ids])
    p, g = rand(33), rand(33)
    pd, gd = cp.asarray(p), cp.asarray(g)
    for _ in range(3):
        assert sgd(pd, gd, 0.5) is None
        p = p - np.float32(0.5) * g
    np.testing.assert_allclose(cp.asnumpy(pd), p, rtol=1e-6, atol=1e-6)
    with pytest.raises(tilec.TileError, match="shares memory"):
        sgd(pd, pd, 0.5)
    assert embed.fast_calls == 1 and sgd.fast_calls == 1


def test_torch_cuda_repeat_calls_dtypes_and_streams(full_calls):
    torch = pytest.importorskip("torch")
    axpy, softmax_cols, embed, sgd = _ops()

    @tile_op(dtype=tilec.bfloat16, dims=["N"])
    def narrow(x):
        return x.astype(float32) * 2.0, (x * 0.5).astype(tilec.float8_e4m3fn)

    for _ in range(3):
        x = torch.randn(37, 301, device="cuda")
        torch.testing.assert_close(softmax_cols(x), torch.softmax(x, 0), rtol=2e-5, atol=1e-6)
        xb = torch.randn(1000, device="cuda").to(torch.bfloat16)
        wide, small = narrow(xb)
        assert wide.dtype == torch.float32 and small.dtype == torch.float8_e4m3fn and small.is_cuda
        torch.testing.assert_close(wide, xb.float() * 2, rtol=0, atol=0)
        torch.testing.assert_close(small.float(), (xb * 0.5).to(torch.float8_e4m3fn).float(), rtol=0, atol=0)
    assert softmax_cols.fast_calls == 1 and narrow.fast_calls == 1 and full_calls[0] == 2
    # ordered on torch's current stream: work queued there before the call is seen by it
    side = torch.cuda.Stream()
    x = torch.zeros(4096, 301, device="cuda")
    softmax_cols(x)  # (the same signature: the fast path)
    with torch.cuda.stream(side):
        torch.cuda._sleep(50_000_000)  # keep the side stream busy, then write x there
        x.copy_(torch.arange(301, device="cuda", dtype=torch.float32).expand(4096, 301) / 1000)
        out = softmax_cols(x)
    side.synchronize()
    torch.testing.assert_close(out, torch.softmax(x, 0), rtol=2e-5, atol=1e-6)
    # the status word and in-place rules
    w = torch.randn(13, 4, device="cuda")
    ids = torch.randint(-13, 13, (15,), device="cuda")
    for _ in range(2):
        torch.testing.assert_close(embed(w, ids), w[ids % 13], rtol=0, atol=0)
    bad = ids.clone()
    bad[7] = 13
    with pytest.raises(tilec.IndexOutOfRange, match="take: index .*out of range.* argument 'ids'"):
        embed(w, bad)
    p, g = torch.randn(33, device="cuda"), torch.randn(33, device="cuda")
    want = p.clone()
    for _ in range(2):
        sgd(p, g, 0.25)
        want -= 0.25 * g
    torch.testing.assert_close(p, want)
    with pytest.raises(tilec.TileError, match="shares memory"):
        sgd(p, p, 0.5)


def test_the_compiled_kernel_reuses_its_prepared_call():
    axpy = _ops()[0]
    x, y = rand(1000), rand(1000)
    k = axpy.compile("cuda", x, y, 1.0)
    xd, yd = cp.asarray(x), cp.asarray(y)
    before = k.launches
    for a in (1.0, -3.0):
        out, _ = k(xd, yd, a)
        np.testing.assert_allclose(cp.asnumpy(out), np.float32(a) * x + y, rtol=1e-5, atol=1e-5)
    assert len(k._launches) == 1 and k.launches - before >= 2
