"""End-to-end derived backward passes against torch.autograd (CPU, float64): a 2-layer MLP with
layernorm, GELU and a cross-entropy loss (tilec.grad of the scalar loss), a causal attention
block and a conv + batchnorm (training-mode statistics computed in the program) + relu +
maxpool block (tilec.vjp with random output cotangents). Each is one @tile_op, interpreted and
compiled for the CPU, and checked by finite differences too; CUDA variants are marked gpu."""

from __future__ import annotations

import math
import shutil
import subprocess

import numpy as np
import pytest
from autodiff_rules_util import as_tuple, check_rule, fd_check, run, torch_vjp
from cpu_util import rng  # noqa: F401
from test_autodiff_indexing import gather_pad32
from test_autodiff_nn import pool_scan_sort32

import tilec
from tilec import float32, float64, int64, tile_op

torch = pytest.importorskip("torch")
F = torch.nn.functional

try:
    import cupy as cp

    HAVE_GPU = cp.cuda.runtime.getDeviceCount() > 0
except Exception:  # noqa: BLE001 - any failure to reach a GPU means "no GPU here"
    HAVE_GPU = False
needs_gpu = pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")


def randn(rng, *shape, scale=1.0):
    return rng.standard_normal(shape) * scale


# --- a 2-layer MLP: layernorm, GELU, cross-entropy --------------------------------------------------


def mlp_loss_body(x, gamma, beta, w1, b1, w2, b2, labels):
    mu = tilec.mean(x, axis=1, keepdims=True)
    xc = x - mu
    var = tilec.mean(xc * xc, axis=1, keepdims=True)
    h = xc * tilec.rsqrt(var + 1e-5) * gamma + beta
    h = (h @ w1) + b1
    h = 0.5 * h * (1.0 + tilec.erf(h * (1.0 / math.sqrt(2.0))))
    logits = (h @ w2) + b2
    z = logits - tilec.max(logits, axis=1, keepdims=True)
    logp = z - tilec.log(tilec.sum(tilec.exp(z), axis=1, keepdims=True))
    return -tilec.mean(tilec.take_along_axis(logp, labels, axis=1))


mlp_loss = tile_op(dtype=float64, dtypes={"labels": int64})(mlp_loss_body)
mlp_loss32 = tile_op(dtype=float32, dtypes={"labels": int64})(
    mlp_loss_body
)  # GPUs: f64 reductions are not supported yet


def torch_mlp_loss(x, gamma, beta, w1, b1, w2, b2, labels):
    h = F.layer_norm(x, (x.shape[1],), gamma, beta, eps=1e-5)
    h = F.gelu(h @ w1 + b1)
    return F.cross_entropy(h @ w2 + b2, labels[:, 0])


MLP_WRT = ("x", "gamma", "beta", "w1", "b1", "w2", "b2")


def mlp_args(rng, b=7, d=13, hidden=17, classes=5):
    return [
        randn(rng, b, d),
        1.0 + randn(rng, d, scale=0.1),
        randn(rng, d, scale=0.1),
        randn(rng, d, hidden, scale=d**-0.5),
        randn(rng, hidden, scale=0.1),
        randn(rng, hidden, classes, scale=hidden**-0.5),
        randn(rng, classes, scale=0.1),
        rng.integers(0, classes, size=(b, 1)).astype(np.int64),
    ]


@pytest.mark.parametrize("target", ["interp", "cpu"])
def test_mlp_grad(rng, target):
    args = mlp_args(rng)
    grads = run(tilec.grad(mlp_loss, wrt=MLP_WRT), args, target)
    want = torch_vjp(torch_mlp_loss, args, list(range(len(MLP_WRT))), [np.array(1.0)])
    assert len(grads) == len(MLP_WRT)
    for name, g, w in zip(MLP_WRT, grads, want):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-11, err_msg=f"d{name}")
    if target == "interp":
        (loss,) = run(mlp_loss, args, "interp")
        assert np.shape(loss) in ((), (1,))
        fd_check(mlp_loss, list(range(len(MLP_WRT))), args, [np.ones_like(loss)], list(grads), rng)


# --- a causal attention block ------------------------------------------------------------------------


def causal_attention_body(q, k, v, wo):
    t, d = q.shape[1], q.shape[2]
    s = tilec.tile_contract(q, k, axes=[(2, 2)], batch=[(0, 0)]) * (1.0 / math.sqrt(d))
    causal = tilec.iota((t, t), 0) >= tilec.iota((t, t), 1)
    s = tilec.where(causal, s, float("-inf"))
    e = tilec.exp(s - tilec.max(s, axis=2, keepdims=True))
    p = e / tilec.sum(e, axis=2, keepdims=True)
    o = tilec.tile_contract(p, v, axes=[(2, 1)], batch=[(0, 0)])
    return tilec.tile_contract(o, wo, axes=[(2, 0)])


causal_attention = tile_op(dtype=float64)(causal_attention_body)
causal_attention32 = tile_op(dtype=float32)(causal_attention_body)


def torch_causal_attention(q, k, v, wo):
    t = q.shape[1]
    mask = torch.ones(t, t, dtype=torch.bool).tril()
    s = (q @ k.transpose(1, 2)) / math.sqrt(q.shape[2])
    p = torch.softmax(s.masked_fill(~mask, float("-inf")), dim=2)
    return (p @ v) @ wo


def test_causal_attention_vjp(rng):
    b, t, d = 3, 11, 6
    args = [randn(rng, b, t, d), randn(rng, b, t, d), randn(rng, b, t, d), randn(rng, d, d, scale=d**-0.5)]
    check_rule(rng, causal_attention, args, ["q", "k", "v", "wo"], torch_causal_attention, rtol=1e-9, atol=1e-11)


# --- conv + batchnorm (training statistics) + relu + maxpool ----------------------------------------


def conv_bn_relu_pool_body(x, w, gamma, beta):
    y = tilec.conv(x, w, stride=1, padding=1)
    c = y.shape[1]
    mu = tilec.mean(y, axis=(0, 2, 3), keepdims=True)
    yc = y - mu
    var = tilec.mean(yc * yc, axis=(0, 2, 3), keepdims=True)
    yn = yc * tilec.rsqrt(var + 1e-5) * tilec.reshape(gamma, (1, c, 1, 1)) + tilec.reshape(beta, (1, c, 1, 1))
    return tilec.max_pool(tilec.maximum(yn, 0.0), 3, 2, 1)


conv_bn_relu_pool = tile_op(dtype=float64)(conv_bn_relu_pool_body)
conv_bn_relu_pool32 = tile_op(dtype=float32)(conv_bn_relu_pool_body)


def torch_conv_bn_relu_pool(x, w, gamma, beta):
    y = F.conv2d(x, w, padding=1)
    y = F.batch_norm(y, None, None, gamma, beta, training=True, eps=1e-5)
    return F.max_pool2d(F.relu(y), 3, 2, 1)


def test_conv_bn_relu_pool_vjp(rng):
    args = [randn(rng, 2, 3, 9, 7), randn(rng, 5, 3, 3, 3, scale=0.3), 1.0 + randn(rng, 5, scale=0.1), randn(rng, 5)]
    check_rule(
        rng, conv_bn_relu_pool, args, ["x", "w", "gamma", "beta"], torch_conv_bn_relu_pool, rtol=1e-9, atol=1e-11
    )


def test_split_forward_and_backward_agree(rng):
    """forward_with_residuals then backward (the torch bridge's pair) give the combined VJP's
    cotangents and the forward's output."""
    args = [randn(rng, 2, 3, 9, 7), randn(rng, 5, 3, 3, 3, scale=0.3), 1.0 + randn(rng, 5, scale=0.1), randn(rng, 5)]
    (y,) = run(conv_bn_relu_pool, args, "interp")
    ct = randn(rng, *y.shape)
    vjp = tilec.vjp(conv_bn_relu_pool, wrt=("x", "w", "gamma", "beta"))
    whole = run(vjp, [*args, ct], "interp")
    outs = as_tuple(vjp.forward_with_residuals(*args))
    np.testing.assert_allclose(outs[0], y, rtol=1e-13, atol=1e-13)
    split = as_tuple(vjp.backward(*args, *outs[1:], ct))
    for a, b in zip(whole, split):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


# --- on a GPU (float32: cross-thread reductions of float64 are not supported on GPUs yet) ------------


def f32(args):
    return [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a for a in args]


@pytest.mark.gpu
@needs_gpu
def test_mlp_grad_cuda(rng):
    args = f32(mlp_args(rng, b=33, d=64, hidden=96, classes=10))
    grads = run(tilec.grad(mlp_loss32, wrt=MLP_WRT), args, "cuda")
    want = torch_vjp(torch_mlp_loss, args, list(range(len(MLP_WRT))), [np.array(1.0)])
    for name, g, w in zip(MLP_WRT, grads, want):
        np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-5, err_msg=f"d{name}")


@pytest.mark.gpu
@needs_gpu
def test_attention_and_conv_block_cuda(rng):
    b, t, d = 2, 37, 16
    args = f32([randn(rng, b, t, d), randn(rng, b, t, d), randn(rng, b, t, d), randn(rng, d, d, scale=d**-0.5)])
    check_rule(
        rng, causal_attention32, args, ["q", "k", "v", "wo"], torch_causal_attention, ("cuda",), False, 1e-3, 1e-4
    )
    args = f32(
        [randn(rng, 2, 3, 9, 7), randn(rng, 5, 3, 3, 3, scale=0.3), 1.0 + randn(rng, 5, scale=0.1), randn(rng, 5)]
    )
    check_rule(
        rng,
        conv_bn_relu_pool32,
        args,
        ["x", "w", "gamma", "beta"],
        torch_conv_bn_relu_pool,
        ("cuda",),
        False,
        1e-3,
        1e-4,
    )


# --- the derived backward programs assemble for NVIDIA GPUs (no GPU needed) --------------------------

PTXAS = shutil.which("ptxas")


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
@pytest.mark.parametrize("sm", ["sm_80", "sm_90a"])
@pytest.mark.parametrize(
    "case",
    [
        "mlp",
        "attention",
        "conv_block",
        "pool_scan_sort",
        "gather_pad",  # a fused group yielding a 9x5 tile and a 9x5x1 reshape of another
    ],
)
def test_backward_ptx_assembles(rng, case, sm, tmp_path):
    if case == "mlp":
        args, derived = f32(mlp_args(rng)), tilec.grad(mlp_loss32, wrt=MLP_WRT)
    elif case == "attention":
        args = [randn(rng, 2, 11, 6), randn(rng, 2, 11, 6), randn(rng, 2, 11, 6), randn(rng, 6, 6)]
        args, derived = f32([*args, randn(rng, 2, 11, 6)]), tilec.vjp(causal_attention32, wrt=("q", "k", "v", "wo"))
    elif case == "pool_scan_sort":  # the programs of the GPU tests of test_autodiff_nn / _indexing
        x = randn(rng, 2, 3, 9, 8)
        args, derived = f32([x, randn(rng, 2, 3, 5, 4), x]), tilec.vjp(pool_scan_sort32, wrt=("x",))
    elif case == "gather_pad":
        ids = rng.integers(-7, 7, size=(9,)).astype(np.int64)
        args, derived = (
            f32([randn(rng, 7, 5), ids, randn(rng, 9, 9), randn(rng, 9, 5)]),
            tilec.vjp(gather_pad32, wrt=("w", "x")),
        )
    else:
        args = [randn(rng, 2, 3, 9, 7), randn(rng, 5, 3, 3, 3), randn(rng, 5), randn(rng, 5)]
        args = f32([*args, randn(rng, 2, 5, 5, 4)])
        derived = tilec.vjp(conv_bn_relu_pool32, wrt=("x", "w", "gamma", "beta"))
    ptx = derived.source("cuda", *args, sm=sm)
    path = tmp_path / "backward.ptx"
    path.write_text(ptx)
    r = subprocess.run([PTXAS, f"-arch={sm}", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True)
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    assert ptx.count(".entry ") >= 1
