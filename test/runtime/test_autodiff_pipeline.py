"""Derived backward programs through the normal pipeline (tile-fuse, tile-to-mapped): kernel
counts on the CPU and CUDA, the PTX assembled by ptxas, the CPU kernels against torch, and (marked
gpu) the CUDA kernels against torch's backward."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

import tilec
from tilec import float32, tile_op
from tilec.emit.ptx import emit_ptx
from tilec.runtime import lower

torch = pytest.importorskip("torch")
PTXAS = shutil.which("ptxas")
try:
    import cupy as cp

    HAVE_GPU = cp.cuda.runtime.getDeviceCount() > 0
except Exception:  # no CuPy, no driver or no device
    cp = None
    HAVE_GPU = False

RNG = np.random.default_rng(1213)


@tile_op(dtype=float32, dims=["M", "N"])
def softmax(x):
    e = tilec.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@tile_op(dtype=float32, dims=["M", "N"], dtypes={"g": float32})
def layernorm(x, g, b):
    mu = x.mean(-1, keepdims=True)
    xc = x - mu
    rstd = tilec.rsqrt((xc * xc).mean(-1, keepdims=True) + 1e-5)
    return xc * rstd * g + b


LN_SHAPES = [("M", "N"), ("N",), ("N",)]


def kernels(v, target, which, **kw):
    text = v.ir("mapped", target=target, which=which, **kw)
    return [line.split("@")[1].split("(")[0] for line in text.splitlines() if "mapped.kernel @" in line]


@pytest.mark.parametrize("target", ["cpu", "cuda"])
def test_softmax_backward_is_one_rowwise_kernel(target):
    v = tilec.vjp(softmax)
    for which in ("backward", "vjp"):
        ks = kernels(v, target, which)
        assert len(ks) == 1 and ks[0].endswith("rowwise"), ks


def test_layernorm_backward_kernels():
    """CPU: dx in one rowwise kernel, dgamma and dbeta in one reduction group re-computing dy * xhat
    from dy, x and the saved statistics (no temporary). CUDA (tile-fuse column-partials): one
    rowwise kernel for all three, accumulating dgamma / dbeta partials per block of rows, then
    the kernel adding the blocks' partials."""
    v = tilec.vjp(layernorm)
    ks = kernels(v, "cpu", "backward", shapes=LN_SHAPES)
    assert sorted(k.rsplit("_", 1)[1] for k in ks) == ["reduction", "rowwise"], ks
    text = v.ir("mapped", target="cuda", which="backward", shapes=LN_SHAPES)
    ks = kernels(v, "cuda", "backward", shapes=LN_SHAPES)
    assert sorted(k.split("_bwd_", 1)[1][2:] for k in ks) == ["rowwise", "rowwise_columns"], ks
    host = text[text.index("mapped.host") :]
    assert host.count("mapped.temp") == 2, host  # the blocks' partials of dgamma and of dbeta


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
@pytest.mark.parametrize("which", ["vjp", "forward", "backward"])
@pytest.mark.parametrize("name", ["softmax", "layernorm"])
def test_ptxas_accepts(name, which, tmp_path):
    v = tilec.vjp(softmax if name == "softmax" else layernorm)
    kw = {"shapes": LN_SHAPES} if name == "layernorm" else {}
    path = tmp_path / "k.ptx"
    path.write_text(emit_ptx(lower(v.module(which=which, **kw), "hw", "cuda", sm="sm_80")))
    r = subprocess.run(
        [PTXAS, "-arch=sm_80", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr


def _torch_grads(fn, primals, ct):
    ts = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in primals]
    return [g.numpy() for g in torch.autograd.grad(fn(*ts), ts, torch.tensor(ct, dtype=torch.float64))]


def _ln_torch(x, g, b):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), g, b, 1e-5)


@pytest.mark.parametrize("shape", [(1, 1), (7, 3), (33, 257)])
def test_compiled_cpu_split_backward_matches_torch(shape):
    m, n = shape
    x = RNG.standard_normal(shape).astype(np.float32)
    g, b = RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n).astype(np.float32)
    ct = RNG.standard_normal(shape).astype(np.float32)
    v = tilec.vjp(softmax)
    _, *res = v.forward_with_residuals(x)
    want = _torch_grads(lambda x: torch.softmax(x, -1), [x], ct)[0]
    np.testing.assert_allclose(v.backward(x, *res, ct), want, rtol=1e-4, atol=1e-5)
    v = tilec.vjp(layernorm)
    _, *res = v.forward_with_residuals(x, g, b)
    want = _torch_grads(_ln_torch, [x, g, b], ct)
    for got, w in zip(v.backward(x, g, b, *res, ct), want):
        np.testing.assert_allclose(got, w, rtol=2e-3, atol=2e-3 * max(1.0, np.abs(w).max()))


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
@pytest.mark.parametrize("shape", [(1, 1), (7, 3), (129, 1000)])
def test_cuda_backward_matches_torch(shape):
    m, n = shape
    x = RNG.standard_normal(shape).astype(np.float32)
    g, b = RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n).astype(np.float32)
    ct = RNG.standard_normal(shape).astype(np.float32)
    dev = [cp.asarray(a) for a in (x, g, b, ct)]
    want = _torch_grads(lambda x: torch.softmax(x, -1), [x], ct)[0]
    np.testing.assert_allclose(cp.asnumpy(tilec.vjp(softmax)(dev[0], dev[3])), want, rtol=1e-4, atol=1e-5)
    v = tilec.vjp(layernorm)
    _, *res = v.forward_with_residuals(*dev[:3])
    want = _torch_grads(_ln_torch, [x, g, b], ct)
    for got, w in zip(v.backward(*dev[:3], *res, dev[3]), want):
        np.testing.assert_allclose(cp.asnumpy(got), w, rtol=2e-3, atol=2e-3 * max(1.0, np.abs(w).max()))
