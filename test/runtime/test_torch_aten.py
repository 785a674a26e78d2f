"""The ATen op table on tilec (tilec/torch/aten/, tilec/library/) through `tilec.torch.dispatch`:
each op forward and backward against eager torch on fresh random inputs of awkward shapes
(1, primes), strict mode (no fallback allowed), in-place semantics, and the fallback report."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
from cpu_util import rng  # noqa: F401

torch = pytest.importorskip("torch", reason="torch is not installed (CI installs it: .ci/run)")
tt = pytest.importorskip("tilec.torch")
F = torch.nn.functional

import tilec  # noqa: E402
from tilec.torch.aten import Library, default_table  # noqa: E402


@pytest.fixture(scope="module")
def library():
    return Library(default_table())  # compiled tile ops shared by the tests of this file


CUDA = torch.cuda.is_available()


@dataclass
class On:
    """Where a test runs its ops: the shared library and a device ("cpu", or "cuda" on a GPU)."""

    library: Library
    device: str

    def __call__(self, t):
        """A tensor the test's function closes over (targets, masks, indices), on the device."""
        return t.to(self.device)


@pytest.fixture(
    params=[
        "cpu",
        pytest.param("cuda", marks=[pytest.mark.gpu, pytest.mark.skipif(not CUDA, reason="no CUDA GPU for torch")]),
    ]
)
def on(request, library):
    return On(library, request.param)


@pytest.fixture
def gen(rng):
    return torch.Generator().manual_seed(int(rng.integers(1 << 30)))


def _run(on, fn, *args, grads=(), dtype_tol=None, compiled=True):
    """fn(*args) and the gradients of sum(out * cotangent) for the args at `grads`, in eager
    torch, under strict dispatch, and (`compiled`) through torch.compile(backend=Backend(strict))
    with its fused regions, on `on.device` (the tensors move there; factory calls in `fn` create
    there); returns the dispatch report."""

    cts = []  # the cotangents, drawn in the eager run (outside the mode), reused under it
    args = tuple(on(a) if isinstance(a, torch.Tensor) else a for a in args)

    def go(f):
        ins = [
            a.detach().clone().requires_grad_(i in grads) if isinstance(a, torch.Tensor) else a
            for i, a in enumerate(args)
        ]
        with torch.device(on.device):
            out = f(*ins)
        outs = out if isinstance(out, tuple) else (out,)
        if grads:
            diff = [o for o in outs if o.requires_grad]
            if not cts:
                g = torch.Generator().manual_seed(7)
                cts.extend(on(torch.randn(o.shape, generator=g, dtype=o.dtype)) for o in diff)
            torch.autograd.backward(diff, cts)
        return [o.detach() for o in outs], [ins[i].grad for i in grads]

    want, want_g = go(fn)
    with tt.dispatch(strict=True, library=on.library) as d:
        got, got_g = go(fn)
    runs = [(got, got_g)]
    if compiled:
        torch._dynamo.reset()
        backend = tt.Backend(strict=True)
        runs.append(go(torch.compile(fn, backend=backend, dynamic=False)))
        torch._dynamo.reset()
        assert backend.graphs and not backend.report.fallbacks
    tol = dtype_tol or {}
    for got, got_g in runs:
        for a, b in zip(got + got_g, want + want_g):
            assert a.device == b.device
            rtol, atol = tol.get(b.dtype, (1e-5, 1e-5))
            torch.testing.assert_close(a, b, rtol=rtol, atol=atol, equal_nan=True)
    assert not d.report.fallbacks
    return d.report


SHAPES = [(1,), (7,), (3, 5), (2, 1, 13)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_arithmetic_and_math_forward_backward(on, gen, shape):
    a = torch.randn(shape, generator=gen)
    b = torch.rand(shape[-1:], generator=gen) + 0.5  # broadcasts, positive

    def f(x, y):
        h = (x + 2.5 * y - y / 3) * x
        h = h - torch.exp(-x * x) + torch.log(y) * torch.sqrt(y) - torch.rsqrt(y)
        h = torch.tanh(h) + torch.sigmoid(x) + x.pow(2) + torch.clamp(x, -0.5, 0.7) + torch.abs(x) * torch.sin(y)
        h = h * torch.tensor(0.75, device="cpu")  # a 0-dim CPU tensor goes with CUDA ones, as in torch
        return torch.where(x > 0.1, h, -h) + torch.maximum(x, y) - torch.minimum(x, 2 * y)

    rep = _run(on, f, a, b, grads=(0, 1))
    assert {"aten::add.Tensor", "aten::mul.Tensor", "aten::where.self", "aten::exp.default"} <= set(rep.kernels)


@pytest.mark.parametrize("name", ["relu", "gelu", "gelu_tanh", "silu", "tanh", "sigmoid", "relu6"])
def test_activations_and_their_backward(on, gen, name):
    x = torch.randn(3, 11, generator=gen) * 3
    x[0, 0] = 0.0  # relu's backward at the kink: 0, as torch
    f = {
        "relu": F.relu,
        "gelu": F.gelu,
        "gelu_tanh": lambda v: F.gelu(v, approximate="tanh"),
        "silu": F.silu,
        "tanh": torch.tanh,
        "sigmoid": torch.sigmoid,
        "relu6": F.relu6,  # hardtanh(0, 6) and its backward
    }[name]
    x[0, 1], x[0, 2] = 6.0, 0.0  # at the bounds: no gradient, as torch
    _run(on, f, x, grads=(0,))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64])
def test_other_float_dtypes(on, gen, dtype):
    x = torch.randn(5, 7, generator=gen).to(dtype)
    w = torch.randn(7, 3, generator=gen).to(dtype)
    tol = {torch.float16: (2e-3, 2e-3), torch.bfloat16: (1.6e-2, 1e-2), torch.float64: (1e-12, 1e-12)}
    # the products accumulate in float32 (tilec) or in float32 / blocks (torch): one 16-bit rounding apart
    _run(on, lambda a, b: F.gelu(a @ b + 1) * 2, x, w, dtype_tol=tol)


def test_comparisons_and_integer_sums(on, gen):
    x = torch.randint(-4, 5, (6, 5), generator=gen)
    y = torch.randint(-4, 5, (5,), generator=gen)

    def f(a, b):
        m = (a < b) | (a == 2) & ~(b >= 3)
        return m, a.sum(), (a * b).sum(dim=1, keepdim=True), a.amax(dim=0), torch.logical_not(m)

    rep = _run(on, f, x, y)
    assert "aten::sum.dim_IntList" in rep.kernels


@pytest.mark.parametrize("dims,keep", [((0,), False), ((1, 2), True), ((-1,), False), (None, False)], ids=str)
def test_reductions(on, gen, dims, keep):
    x = torch.randn(3, 7, 5, generator=gen)
    if dims is None:
        _run(on, lambda v: (v.sum(), v.mean(), v.amax()), x, grads=(0,))
    else:
        _run(on, lambda v: (v.sum(dims, keep), v.mean(dims, keep), v.amax(dims, keep)), x, grads=(0,))


@pytest.mark.parametrize("mnk", [(1, 1, 1), (5, 7, 3), (13, 2, 17)], ids=str)
def test_matrix_products(on, gen, mnk):
    m, n, k = mnk
    a, b = torch.randn(m, k, generator=gen), torch.randn(k, n, generator=gen)
    c = torch.randn(n, generator=gen)
    ba, bb = torch.randn(3, m, k, generator=gen), torch.randn(3, k, n, generator=gen)
    tol = {torch.float32: (1e-4, 1e-4)}
    rep = _run(
        on,
        lambda x, y, z, p, q: (x @ y, torch.addmm(z, x, y, beta=0.5, alpha=2.0), F.linear(x, y.T, z), p @ q),
        a,
        b,
        c,
        ba,
        bb,
        grads=(0, 1, 2, 3, 4),
        dtype_tol=tol,
    )
    assert {"aten::mm.default", "aten::addmm.default", "aten::bmm.default"} <= set(rep.kernels)


@pytest.mark.parametrize("shape,dim", [((4, 7), -1), ((2, 3, 5), 1), ((1, 13), 1)], ids=str)
def test_softmax_and_log_softmax(on, gen, shape, dim):
    x = torch.randn(shape, generator=gen) * 4
    _run(on, lambda v: (v.softmax(dim), v.log_softmax(dim)), x, grads=(0,))


@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm(on, gen, affine):
    x = torch.randn(3, 5, 7, generator=gen) * 2 + 1
    w, b = torch.randn(5, 7, generator=gen), torch.randn(5, 7, generator=gen)
    if affine:
        _run(on, lambda v, ww, bb: F.layer_norm(v, (5, 7), ww, bb, eps=1e-4), x, w, b, grads=(0, 1, 2))
    else:
        _run(on, lambda v: F.layer_norm(v, (7,)), x, grads=(0,))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_and_nll(on, gen, reduction):
    x = torch.randn(7, 5, generator=gen)
    t = torch.randint(0, 5, (7,), generator=gen)
    t[2] = -100  # ignored
    t = on(t)
    w = torch.rand(5, generator=gen) + 0.1
    _run(on, lambda v: F.cross_entropy(v, t, reduction=reduction), x, grads=(0,))
    _run(on, lambda v, ww: F.nll_loss(v.log_softmax(1), t, ww, reduction=reduction), x, w, grads=(0,))


def test_embedding(on, gen):
    w = torch.randn(11, 6, generator=gen)
    idx = torch.randint(0, 11, (3, 5), generator=gen)
    idx[0, 0] = idx[1, 1] = 3  # repeated rows accumulate
    idx = on(idx)
    _run(on, lambda ww: F.embedding(idx, ww), w, grads=(0,))
    _run(on, lambda ww: F.embedding(idx, ww, padding_idx=3), w, grads=(0,))


@pytest.mark.parametrize(
    "case",
    [
        dict(n=2, c=3, o=4, s=(9, 7), k=3, stride=1, padding=1, dilation=1, groups=1),
        dict(n=1, c=4, o=6, s=(11, 8), k=3, stride=2, padding=0, dilation=2, groups=2),
        dict(n=3, c=5, o=5, s=(6, 5), k=2, stride=1, padding=1, dilation=1, groups=5),
    ],
    ids=["same", "strided-dilated-grouped", "depthwise"],
)
def test_convolution_forward_backward(on, gen, case):
    x = torch.randn(case["n"], case["c"], *case["s"], generator=gen)
    w = torch.randn(case["o"], case["c"] // case["groups"], case["k"], case["k"], generator=gen)
    b = torch.randn(case["o"], generator=gen)
    kw = {k: case[k] for k in ("stride", "padding", "dilation", "groups")}
    tol = {torch.float32: (1e-4, 1e-4)}
    rep = _run(on, lambda v, ww, bb: F.conv2d(v, ww, bb, **kw), x, w, b, grads=(0, 1, 2), dtype_tol=tol)
    assert {"aten::convolution.default", "aten::convolution_backward.default"} <= set(rep.kernels)


def test_convolution_1d_3d_and_transposed(on, gen):
    tol = {torch.float32: (1e-4, 1e-4)}
    x1, w1 = torch.randn(2, 3, 17, generator=gen), torch.randn(4, 3, 5, generator=gen)
    _run(on, lambda v, w: F.conv1d(v, w, stride=3, padding=2), x1, w1, grads=(0, 1), dtype_tol=tol)
    x3, w3 = torch.randn(1, 2, 5, 4, 3, generator=gen), torch.randn(3, 2, 2, 3, 1, generator=gen)
    # (the reference in f32: cuDNN may pick a TF32 algorithm for conv3d, 1e-2 off, on the H100)
    with torch.backends.cudnn.flags(enabled=True, allow_tf32=False):
        _run(on, lambda v, w: F.conv3d(v, w, padding=(1, 0, 0)), x3, w3, grads=(0, 1), dtype_tol=tol)
    xt, wt = torch.randn(2, 4, 5, 3, generator=gen), torch.randn(4, 3, 3, 3, generator=gen)
    rep = _run(on, lambda v, w: F.conv_transpose2d(v, w, stride=2, output_padding=1), xt, wt, dtype_tol=tol)
    assert rep.kernels["aten::convolution.default"] == 1
    # one entry standing for every spatial axis (as some modules pass stride / padding to ATen)
    x2, w2 = torch.randn(2, 3, 7, 6, generator=gen), torch.randn(4, 3, 3, 3, generator=gen)
    _run(
        on,
        lambda v, w: torch.ops.aten.convolution(v, w, None, [2], [1], [1], False, [0], 1),
        x2,
        w2,
        grads=(0, 1),
        dtype_tol=tol,
    )


def test_pooling_forward_backward(on, gen):
    x = torch.randn(2, 3, 9, 7, generator=gen)
    _run(on, lambda v: F.max_pool2d(v, 3, 2, padding=1, ceil_mode=True), x, grads=(0,))
    _run(on, lambda v: F.avg_pool2d(v, 2, count_include_pad=False, padding=1), x, grads=(0,))
    _run(on, lambda v: F.adaptive_avg_pool2d(v, 1), x, grads=(0,))


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_updates_running_statistics(on, gen, training):
    x = torch.randn(4, 3, 5, 2, generator=gen) * 2 + 0.5
    w, b = torch.randn(3, generator=gen), torch.randn(3, generator=gen)
    rm0, rv0 = on(torch.randn(3, generator=gen)), on(torch.rand(3, generator=gen) + 0.5)
    stats = {}

    def f(v, ww, bb):
        rm, rv = rm0.clone(), rv0.clone()
        out = F.batch_norm(v, rm, rv, ww, bb, training=training, momentum=0.3, eps=1e-4)
        stats.setdefault("runs", []).append((rm, rv))
        return out

    _run(on, f, x, w, b, grads=(0, 1, 2), dtype_tol={torch.float32: (1e-4, 1e-5)})
    (erm, erv), *runs = stats["runs"]  # eager, then dispatch and torch.compile
    for grm, grv in runs:
        torch.testing.assert_close(grm, erm, rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(grv, erv, rtol=1e-5, atol=1e-6)
        assert training or torch.equal(grm, rm0)


def test_cudnn_batch_norm_is_native_batch_norm(gen):
    """aten::cudnn_batch_norm (and its backward), what F.batch_norm dispatches to for CUDA
    tensors, runs on tilec with native_batch_norm's results (cuDNN's saved variance is the
    inverse standard deviation) and an empty reserve buffer; called directly on the CPU here,
    under strict dispatch (the CUDA parametrizations above go through it on a GPU)."""
    import tilec.torch as tt

    x = torch.randn(4, 3, 5, 7, generator=gen) * 2 + 0.5
    w, b, g = torch.randn(3, generator=gen), torch.randn(3, generator=gen), torch.randn(4, 3, 5, 7, generator=gen)
    rm, rv = torch.randn(3, generator=gen), torch.rand(3, generator=gen) + 0.5
    erm, erv = rm.clone(), rv.clone()
    want = torch.ops.aten.native_batch_norm.default(x, w, b, erm, erv, True, 0.2, 1e-4)
    want_b = torch.ops.aten.native_batch_norm_backward.default(
        g, x, w, erm, erv, want[1], want[2], True, 1e-4, [True] * 3
    )
    with tt.dispatch(strict=True):
        got = torch.ops.aten.cudnn_batch_norm.default(x, w, b, rm, rv, True, 0.2, 1e-4)
        got_b = torch.ops.aten.cudnn_batch_norm_backward.default(x, g, w, rm, rv, got[1], got[2], 1e-4, got[3])
    assert got[3].numel() == 0 and got[3].dtype == torch.uint8
    for a, e in [*zip(got[:3], want), (rm, erm), (rv, erv), *zip(got_b, want_b)]:
        torch.testing.assert_close(a, e, rtol=1e-4, atol=1e-5)


def test_batch_norm_in_bfloat16(on, gen):
    """16-bit batch norm, forward and backward, both ways in: the saved statistics have torch's
    dtype for the device (the input's on the CPU, float32 on CUDA), so a graph's backward region
    gets what its fake tensors promised."""
    x = (torch.randn(4, 3, 5, 2, generator=gen) * 2 + 0.5).to(torch.bfloat16)
    w, b = torch.randn(3, generator=gen).to(torch.bfloat16), torch.randn(3, generator=gen).to(torch.bfloat16)
    rm, rv = on(torch.zeros(3, dtype=torch.bfloat16)), on(torch.ones(3, dtype=torch.bfloat16))

    def f(v, ww, bb):
        return F.batch_norm(v, rm.clone(), rv.clone(), ww, bb, training=True, momentum=0.1, eps=1e-3)

    _run(on, f, x, w, b, grads=(0, 1, 2), dtype_tol={torch.bfloat16: (3e-2, 3e-2)})


def test_layer_norm_16_bit_input_float32_weight(on, gen):
    """Autocast's layer norm on the CPU: a bf16 input with float32 weight and bias (a graph's
    backward region reads statistics of the dtype its fake tensors promised)."""
    if on.device == "cuda":
        pytest.skip("torch's CUDA layer_norm (the reference) refuses a bf16 input with float32 weights")
    x = torch.randn(3, 4, 9, generator=gen).to(torch.bfloat16)
    w, b = torch.randn(9, generator=gen), torch.randn(9, generator=gen)
    # the float32 dgamma / dbeta sum 12 products of bf16 values of magnitude ~1-3, rounded where
    # torch and tilec round differently: a few bf16 steps of absolute error (0.044 seen), not 3e-2
    tol = {torch.bfloat16: (3e-2, 3e-2), torch.float32: (3e-2, 8e-2)}
    _run(on, lambda v, ww, bb: F.layer_norm(v, (9,), ww, bb), x, w, b, grads=(0, 1, 2), dtype_tol=tol)


@pytest.mark.parametrize(
    "causal,mask,ev", [(True, False, 5), (False, True, 5), (True, False, 6)], ids=["causal", "mask", "math-path"]
)
def test_scaled_dot_product_attention(on, gen, causal, mask, ev):
    """torch's CPU flash entry points (value width = key width), and its math path (the widths
    differ: matmuls, _safe_softmax and their backward)."""
    q, k = torch.randn(2, 3, 7, 5, generator=gen), torch.randn(2, 3, 7, 5, generator=gen)
    v = torch.randn(2, 3, 7, ev, generator=gen)
    m = torch.rand(7, 7, generator=gen) > 0.3 if mask else None
    if m is not None:
        m[:, 0] = True  # every query keeps a key
        m = on(m)
    tol = {torch.float32: (2e-5, 2e-5)}
    rep = _run(
        on,
        lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=m, is_causal=causal),
        q,
        k,
        v,
        grads=(0, 1, 2),
        dtype_tol=tol,
    )
    if on.device == "cpu":
        flash = "aten::_scaled_dot_product_flash_attention_for_cpu.default"
        assert (flash in rep.kernels) == (ev == 5)
        assert ev == 5 or "aten::_safe_softmax.default" in rep.kernels
    else:  # f32 on CUDA: the memory-efficient kernel's entry points, or (torch 2.11) the math path
        assert any(
            "_scaled_dot_product_efficient_attention_backward" in k or "_safe_softmax" in k for k in rep.kernels
        ), sorted(rep.kernels)


@pytest.mark.parametrize("causal", [False, True])
def test_cuda_attention_entry_points(library, gen, causal):
    """The entry points F.scaled_dot_product_attention takes on CUDA (efficient, flash, cuDNN),
    forward and backward, under dispatch on CPU tensors (the mode sees them before a device
    kernel would): the values against torch's math, torch's result shapes (the efficient
    kernel's padded log-sum-exp, cuDNN's trailing axis), grouped-query heads, a bias."""
    A = torch.ops.aten
    b, h, hk, n_l, n_s, e = 2, 4, 2, 7, 9, 5
    q, go = torch.randn(b, h, n_l, e, generator=gen), torch.randn(b, h, n_l, e, generator=gen)
    k, v = torch.randn(b, hk, n_s, e, generator=gen), torch.randn(b, hk, n_s, e, generator=gen)
    bias = None if causal else torch.randn(b, h, n_l, n_s, generator=gen)
    qr, kr, vr = (t.clone().requires_grad_() for t in (q, k, v))
    s = qr @ kr.repeat_interleave(h // hk, 1).transpose(-1, -2) / math.sqrt(e)
    s = s + bias if bias is not None else s.masked_fill(~torch.ones(n_l, n_s, dtype=torch.bool).tril(), -math.inf)
    want, want_lse = torch.softmax(s, -1) @ vr.repeat_interleave(h // hk, 1), torch.logsumexp(s, -1)
    want.backward(go)
    want_g = (qr.grad, kr.grad, vr.grad)
    with tt.dispatch(strict=True, library=library) as d:
        o, lse, seed, off = A._scaled_dot_product_efficient_attention(q, k, v, bias, True, 0.0, causal)
        eff = A._scaled_dot_product_efficient_attention_backward(
            go, q, k, v, bias, o, lse, seed, off, 0.0, [True, True, True, False], causal
        )
        f = A._scaled_dot_product_flash_attention(q, k, v, 0.0, True)
        fl = A._scaled_dot_product_flash_attention_backward(go, q, k, v, *f[:6], 0.0, True, *f[6:8])
        c = A._scaled_dot_product_cudnn_attention(q, k, v, bias, True, 0.0, causal)
        cu = A._scaled_dot_product_cudnn_attention_backward(go, q, k, v, *c[:2], *c[6:8], bias, *c[2:6], 0.0, causal)
    assert lse.shape == (b, h, 32) and f[1].shape == (b, h, n_l) and c[1].shape == (b, h, n_l, 1)
    assert eff[3] is None and f[4:6] == (n_l, n_s) and seed.dtype == torch.int64 and f[6].dtype == torch.uint64
    assert len(d.report.kernels) == 6 and not d.report.fallbacks
    close = dict(rtol=2e-5, atol=2e-5)
    torch.testing.assert_close(lse[..., :n_l], want_lse.detach(), **close)
    for got in (o, c[0]):
        torch.testing.assert_close(got, want.detach(), **close)
    for grads in (eff[:3], cu):
        for a, w in zip(grads, want_g):
            torch.testing.assert_close(a, w, **close)
    if causal:  # flash has no bias
        torch.testing.assert_close(f[0], want.detach(), **close)
        for a, w in zip(fl, want_g):
            torch.testing.assert_close(a, w, **close)


def test_grouped_query_attention(on, gen):
    """4 query heads share 2 key / value heads (enable_gqa: Llama, Mistral)."""
    q = torch.randn(2, 4, 6, 8, generator=gen)
    k, v = torch.randn(2, 2, 6, 8, generator=gen), torch.randn(2, 2, 6, 8, generator=gen)
    _run(
        on,
        lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True, enable_gqa=True),
        q,
        k,
        v,
        grads=(0, 1, 2),
        dtype_tol={torch.float32: (2e-5, 2e-5)},
    )


def test_empty_tensors_need_no_kernel(library, gen):
    """cat skips empty inputs (a KV cache's first step); an empty result is an allocation."""
    x = torch.randn(2, 3, 4, generator=gen)
    with tt.dispatch(strict=True, library=library) as d:
        a = torch.cat([torch.empty(2, 3, 0), x, torch.tensor([]).reshape(2, 3, 0)], dim=-1)
        b = torch.cat([torch.tensor([]), x.reshape(-1)])
        z = torch.zeros(0, 5)
    torch.testing.assert_close(a, x)
    torch.testing.assert_close(b, x.reshape(-1))
    assert z.shape == (0, 5) and d.report.no_kernel["aten::zeros.default"] == 1
    assert d.report.kernels["aten::cat.default"] == 2


def test_joining_creation_and_masks(on, gen):
    x = torch.randn(3, 5, generator=gen)
    y = torch.randn(2, 5, generator=gen)

    def f(a, b):
        c = torch.cat([a, b, a], 0)
        s = torch.stack([a, a * 2], dim=1)
        dev = a.device  # (created on the inputs' device: a region mixing host and device arrays is refused)
        r = torch.arange(5, device=dev) * 1.5 + torch.arange(2, 17, 3, device=dev)
        z = torch.full((2, 5), 0.25, device=dev) + torch.zeros(5, device=dev) + torch.ones(2, 1, device=dev)
        tri = torch.tril(c, diagonal=-1) - torch.triu(c, 1)
        filled = c.masked_fill(c > 0.5, float("-inf")).softmax(-1)
        return c, s, r, z, tri, filled, torch.zeros_like(a) + torch.ones_like(b).sum()

    _run(on, f, x, y, grads=(0, 1))


def test_in_place_updates_and_optimizers(library, gen):
    """SGD with momentum and AdamW steps (their single-tensor forms: add_, mul_, lerp_, addcmul_,
    addcdiv_, sqrt, div) write the same parameters and states as eager."""
    p0 = torch.randn(6, 5, generator=gen)
    grads = [torch.randn(6, 5, generator=gen) for _ in range(3)]

    def steps(opt_cls, **kw):
        p = torch.nn.Parameter(p0.clone())
        opt = opt_cls([p], **kw)
        for g in grads:
            p.grad = g.clone()
            opt.step()
        return p.detach()

    for cls, kw in (
        (torch.optim.SGD, dict(lr=0.1, momentum=0.9, foreach=False)),
        (torch.optim.AdamW, dict(lr=0.01, foreach=False)),
    ):
        want = steps(cls, **kw)
        with tt.dispatch(strict=True, library=library) as d:
            got = steps(cls, **kw)
        torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-6)
        assert "aten::add_.Tensor" in d.report.kernels


@pytest.mark.parametrize("cls", ["SGD", "AdamW", "Adam"])
def test_foreach_optimizers_and_gradient_clipping(library, gen, cls):
    """The multi-tensor (`_foreach_`) forms torch uses for CUDA parameters (foreach=True), and
    clip_grad_norm_ (_foreach_norm, linalg_vector_norm, _foreach_mul_)."""
    p0 = [torch.randn(6, 5, generator=gen), torch.randn(7, generator=gen), torch.randn(1, generator=gen)]
    grads = [[torch.randn(p.shape, generator=gen) * 3 for p in p0] for _ in range(3)]
    kw = {"SGD": dict(lr=0.1, momentum=0.9), "AdamW": dict(lr=0.01), "Adam": dict(lr=0.01, weight_decay=0.1)}[cls]

    def steps():
        ps = [torch.nn.Parameter(p.clone()) for p in p0]
        opt = getattr(torch.optim, cls)(ps, foreach=True, **kw)
        for g in grads:
            for p, gg in zip(ps, g):
                p.grad = gg.clone()
            torch.nn.utils.clip_grad_norm_(ps, 1.0)
            opt.step()
        return ps

    want = steps()
    with tt.dispatch(strict=True, library=library) as d:
        got = steps()
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, rtol=1e-6, atol=1e-6)
    assert any(n.startswith("aten::_foreach_") for n in d.report.kernels)


def test_indexing_padding_and_scans(on, gen):
    x = torch.randn(4, 5, 6, generator=gen)
    rows, cols = on(torch.tensor([3, -1, 0, 0])), on(torch.tensor([5, 1, 1]))

    def f(v):
        return (
            F.pad(v, (1, 2, -1, 0), value=0.5),
            v[:, 1:4],
            v[:, 2],
            v[rows],
            v[:, :, cols],
            torch.linalg.vector_norm(v, dim=-1),
            torch.linalg.vector_norm(v, ord=float("inf")),
            torch.linalg.vector_norm(v, ord=3, dim=(0, 2), keepdim=True),
            v.cumsum(1),
            v.flip(0, 2),
            v.new_zeros(3) + v.new_full((3,), 2.5),
        )

    rep = _run(on, f, x, grads=(0,), dtype_tol={torch.float32: (2e-5, 2e-5)})
    for name in ("constant_pad_nd", "slice_backward", "select_backward", "index.Tensor", "index_put", "cumsum"):
        assert any(name in k for k in rep.kernels), name


def test_strided_slices_and_as_strided(on, gen):
    """Strided slices and their backward (strided slice_backward), slice_scatter with a step;
    and in graphs as_strided / as_strided_scatter of contiguous values (Swin's window shifts;
    eager autograd's as_strided backward copies into a strided view: a reported fallback)."""
    x = torch.randn(4, 11, 3, generator=gen)
    w = torch.randn(4, 4, 3, generator=gen)
    s = torch.randn(2, 3, 2, generator=gen)

    def slices(v, a):
        return v[:, 1::3] * a, torch.slice_scatter(v * 1, a, 1, 1, 11, 3)

    rep = _run(on, slices, x, w, grads=(0, 1))
    assert {"aten::slice_backward.default", "aten::slice_scatter.default"} <= set(rep.kernels)

    def strided(v, b):
        return (v * 2).as_strided((3, 2, 5), (10, 1, 2), 3), torch.as_strided_scatter(
            v * 1, b, (2, 3, 2), (33, 4, 1), 2
        )

    x, s = on(x), on(s)
    want = strided(x.clone().requires_grad_(), s)
    torch._dynamo.reset()
    backend = tt.Backend(strict=True)
    v = x.clone().requires_grad_()
    got = torch.compile(strided, backend=backend, dynamic=False)(v, s)
    cts = [torch.randn_like(o) for o in got]
    torch.autograd.backward(got, cts)
    torch._dynamo.reset()
    ref = x.clone().requires_grad_()
    torch.autograd.backward(strided(ref, s), cts)
    for a, b in zip((*got, v.grad), (*want, ref.grad)):
        torch.testing.assert_close(a, b)
    assert {"aten::as_strided_scatter.default"} <= set(backend.report.kernels) and not backend.report.fallbacks


def test_one_kernel_key_per_shape(library, gen):
    """Two calls with the same static arguments but other shapes (a crop of 2x2 and of 3x3) get
    their own tile ops: a plan's body may close over sizes it read (MobileNetV2's padding)."""
    for n in (2, 3):
        g = torch.randn(1, 2, n, n, generator=gen)
        with tt.dispatch(strict=True, library=library):
            got = torch.ops.aten.constant_pad_nd(g, [0, -1, 0, -1])
        torch.testing.assert_close(got, g[..., :-1, :-1])


def test_in_place_aliasing_and_non_contiguous_fall_back(library, gen):
    x = torch.randn(4, 6, generator=gen)
    want = x.clone().t().contiguous().t()
    with tt.dispatch(library=library) as d:
        a = x.clone()
        a.mul_(a)  # the same tensor twice: one argument, written in place
        t = x.clone().t()  # a non-contiguous self: torch runs it, reported
        t.add_(1.0)
    torch.testing.assert_close(a, x * x)
    torch.testing.assert_close(t, want.t() + 1.0)
    assert d.report.kernels["aten::mul_.Tensor"] == 1
    assert d.report.fallbacks["aten::add_.Tensor"] == 1  # a Python number arrives as a wrapped tensor
    assert "non-contiguous" in d.report.reasons["aten::add_.Tensor"][0]


def test_fallback_report_and_strict_mode(library, gen, monkeypatch):
    x = torch.randn(5, 4, generator=gen)
    with tt.dispatch(library=library) as d:
        y = torch.cumprod(x, 0) + 1  # cumprod: no entry in the ATen table yet
    torch.testing.assert_close(y, torch.cumprod(x, 0) + 1)
    assert d.report.fallbacks == {"aten::cumprod.default": 1}
    assert d.report.kernels["aten::add.Tensor"] == 1
    assert math.isclose(d.report.coverage, 0.5)
    table = d.report.table()
    assert "aten::cumprod.default" in table and "coverage 50.0%" in table
    with pytest.raises(tilec.NotSupportedYet, match=r"aten::cumprod.default on tilec \(no tilec kernel for this op\)"):
        with tt.dispatch(strict=True, library=library):
            torch.cumprod(x, 0)
    monkeypatch.setenv("TILEC_STRICT", "1")
    with pytest.raises(tilec.NotSupportedYet, match="aten::cumprod.default"):
        with tt.dispatch(library=library):
            torch.cumprod(x, 0)


def test_random_ops_are_reported_not_imitated(library):
    with tt.dispatch(library=library) as d:
        torch.nn.Linear(3, 4)  # kaiming_uniform_ -> uniform_
    assert "torch's random stream" in d.report.reasons["aten::uniform_.default"][0]


def test_every_table_entry_is_an_aten_overload():
    for name in default_table():
        op, overload = name.split(".")
        assert hasattr(getattr(torch.ops.aten, op), overload), name


def test_numpy_stays_untouched():
    """The library's tile-level functions work in any tile program (no torch involved)."""
    from tilec import float32, tile_op
    from tilec.library import nn

    @tile_op(dtype=float32)
    def ln(x, w, b):
        return nn.layer_norm(x, (1,), w, b, 1e-5)[0]

    x = np.random.default_rng(0).standard_normal((4, 9)).astype(np.float32)
    w, b = np.ones(9, np.float32), np.zeros(9, np.float32)
    ref = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(ln(x, w, b), ref, rtol=1e-5, atol=1e-5)
