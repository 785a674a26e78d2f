"""Attention found by the compiler (issue 15, item 1, and the CPU version of item 2): tile-fuse puts
`softmax(f(q k^T)) v` written the ordinary way into one `attention` group, and the C target
computes it in one kernel with an online softmax over blocks of keys (no L x S scores in memory).

Checked against torch (scaled_dot_product_attention, or softmax and matmuls in float64) on fresh
random inputs with awkward shapes (L = S = 1, primes, S not a multiple of the 64-key block, Ev = 1),
both ways of normalizing (before and after the second contraction), causal masks from iota/where,
additive and boolean masks given as arrays, grouped-query attention through a broadcast, f16 and
bf16 inputs, the log-sum-exp the backward needs, rows whose every key is masked (NaN, as softmax
gives), and programs that must NOT become one group (the probabilities also returned).
"""

from __future__ import annotations

import os

import ml_dtypes
import numpy as np
import pytest
import torch
from attention_util import reference
from cpu_util import rng, run_benchmark  # noqa: F401  (rng: a fixture)

import tilec
from tilec import bfloat16, float16, float32, tile_op
from tilec.library.attention import attention, attention_backward, repeat_heads
from tilec.library.nn import softmax

FUSE = "tile-canonicalize,tile-fuse{attention=true}"


def groups(op, *args) -> list[str]:
    """The kinds of the fusion groups the CPU pipeline makes of `op`."""
    text = op.ir("tile", *args, pipeline=FUSE)
    return [line.split("tile.fused ")[1].split()[0] for line in text.splitlines() if "tile.fused " in line]


def kernels(op, *args) -> int:
    return op.ir("mapped", *args).count("mapped.kernel @")


def randn(rng, shape, dt=np.float32):
    return rng.standard_normal(shape).astype(dt)


# (batch axes, L, S, E, Ev)
SHAPES = [((2,), 5, 7, 8, 3), ((1, 2), 1, 1, 1, 1), ((3,), 13, 131, 17, 1), ((2, 1), 67, 64, 32, 24)]


@pytest.mark.parametrize("after", [False, True], ids=["normalize-probs", "normalize-output"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, [*s[0], *s[1:]])))
def test_user_written_attention_is_one_kernel(rng, shape, after):
    lead, n_l, n_s, e, ev = shape
    nb = len(lead)
    batch = [(a, a) for a in range(nb)]

    @tile_op(dtype=float32)
    def attn(q, k, v):
        s = tilec.tile_contract(q, k, axes=[(nb + 1, nb + 1)], batch=batch) * 0.3
        x = tilec.exp(s - tilec.max(s, axis=-1, keepdims=True))
        total = tilec.sum(x, axis=-1, keepdims=True)
        if after:
            return tilec.tile_contract(x, v, axes=[(nb + 1, nb)], batch=batch) / total
        return tilec.tile_contract(x / total, v, axes=[(nb + 1, nb)], batch=batch)

    q, k, v = randn(rng, (*lead, n_l, e)), randn(rng, (*lead, n_s, e)), randn(rng, (*lead, n_s, ev))
    assert groups(attn, q, k, v) == ["attention"]
    assert kernels(attn, q, k, v) == 1
    want, _ = reference(q, k, v, 0.3)
    np.testing.assert_allclose(attn(q, k, v), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(tilec.interpret(attn, q, k, v), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dt", [float32, float16, bfloat16], ids=str)
def test_library_attention_causal_gqa_with_lse(rng, dt):
    """tilec.library's attention (what the PyTorch bridge's SDPA runs): causal, two query heads
    per K/V head, 16-bit inputs computing in f32; the output and its log-sum-exp from one kernel."""
    npdt = {float32: np.float32, float16: np.float16, bfloat16: ml_dtypes.bfloat16}[dt]

    @tile_op(dtype=dt)
    def attn(q, k, v):
        return attention(q, repeat_heads(k, 2), repeat_heads(v, 2), 0.25, causal=True)

    q, k, v = randn(rng, (2, 4, 29, 16), npdt), randn(rng, (2, 2, 71, 16), npdt), randn(rng, (2, 2, 71, 8), npdt)
    assert groups(attn, q, k, v) == ["attention"]
    assert kernels(attn, q, k, v) == 1
    out, lse = attn(q, k, v)
    kk, vv = np.repeat(k, 2, axis=1), np.repeat(v, 2, axis=1)
    # (causal with L < S: query i sees keys 0..i, torch's top-left alignment)
    want, want_lse = reference(q, kk, vv, 0.25, causal=True)
    tol = {float32: 1e-5, float16: 2e-3, bfloat16: 1.6e-2}[dt]
    assert out.dtype == npdt
    np.testing.assert_allclose(out.astype(np.float32), want, rtol=tol, atol=tol)
    np.testing.assert_allclose(lse, want_lse, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("boolean", [False, True], ids=["additive", "boolean"])
def test_masks_given_as_arrays(rng, boolean):
    """A mask argument (bool: True keeps; float: added to the scores) is read in the group; a row
    whose keys are all masked gives NaN, as softmax does, in the output and the log-sum-exp."""

    @tile_op(dtype=float32, dtypes={"mask": tilec.bool_ if boolean else float32})
    def attn(q, k, v, mask):
        return attention(q, k, v, 0.5, mask=mask)

    q, k, v = randn(rng, (3, 11, 8)), randn(rng, (3, 97, 8)), randn(rng, (3, 97, 5))
    if boolean:
        mask = rng.random((3, 11, 97)) < 0.7
        mask[1, 4] = False  # every key of one query masked
    else:
        mask = randn(rng, (3, 11, 97))
        mask[1, 4] = -np.inf
    assert groups(attn, q, k, v, mask) == ["attention"]
    out, lse = attn(q, k, v, mask)
    want, want_lse = reference(q, k, v, 0.5, mask=mask)
    want_lse[1, 4] = np.nan  # the program's m + log(l) is -inf + log(NaN) there (torch.logsumexp: -inf)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(lse, want_lse, rtol=1e-5, atol=1e-5)
    assert np.isnan(out[1, 4]).all() and np.isnan(lse[1, 4])
    interp_out, interp_lse = tilec.interpret(attn, q, k, v, mask)
    assert np.array_equal(np.isnan(out), np.isnan(interp_out)) and np.array_equal(np.isnan(lse), np.isnan(interp_lse))


@pytest.mark.parametrize("strict", [False, True], ids=["j<=i", "j<i"])
def test_causal_keys_are_skipped(rng, strict):
    """A causal mask as the scores' last step is read off the IR (`causal_shift`): query i walks
    keys j < i + 1 (or j < i) only. With j < i the first query sees no key: NaN, as the
    interpreter gives."""
    from tilec.ir import make_context, parse_module
    from tilec.transforms.attention_pattern import causal_shift, match_attention

    @tile_op(dtype=float32)
    def attn(q, k, v):
        s = tilec.tile_contract(q, k, axes=[(2, 2)], batch=[(0, 0)]) * 0.4
        i, j = tilec.iota(s.shape[1:], axis=0), tilec.iota(s.shape[1:], axis=1)
        s = tilec.where((i > j) if strict else (j <= i), s, float("-inf"))
        x = tilec.exp(s - tilec.max(s, axis=-1, keepdims=True))
        return tilec.tile_contract(x / tilec.sum(x, axis=-1, keepdims=True), v, axes=[(2, 1)], batch=[(0, 0)])

    q, k, v = randn(rng, (2, 70, 8)), randn(rng, (2, 131, 8)), randn(rng, (2, 131, 5))
    module = parse_module(make_context(), attn.ir("tile", q, k, v, pipeline=FUSE))
    body = next(op for op in module.walk() if op.name == "tile.fused").body.block.ops
    m = match_attention([op for op in body if op.name == "tile.contract"][-1])
    assert causal_shift(m) == (0 if strict else 1)
    got, want = attn(q, k, v), tilec.interpret(attn, q, k, v)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert np.isnan(got[:, 0]).all() == strict


def test_epilogue_joins_the_group(rng):
    """Elementwise ops on the attention output (a residual add, an activation, a cast) are its
    epilogue, in the same kernel."""

    @tile_op(dtype=float32)
    def block(q, k, v, r):
        o, _ = attention(q, k, v, 0.2)
        return (tilec.tanh(o) + r).astype(float16)

    q, k, v, r = randn(rng, (2, 9, 8)), randn(rng, (2, 23, 8)), randn(rng, (2, 23, 4)), randn(rng, (2, 9, 4))
    assert groups(block, q, k, v, r) == ["attention"]
    want, _ = reference(q, k, v, 0.2)
    got = block(q, k, v, r)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float32), np.tanh(want) + r, rtol=2e-3, atol=2e-3)


def test_escaping_probabilities_keep_the_plain_groups(rng):
    """Returning the probabilities too needs them in memory: no attention group, same results."""

    @tile_op(dtype=float32)
    def attn(q, k, v):
        p = softmax(tilec.tile_contract(q, k, axes=[(1, 1)]), axis=-1)
        return tilec.tile_contract(p, v, axes=[(1, 0)]), p

    q, k, v = randn(rng, (6, 8)), randn(rng, (10, 8)), randn(rng, (10, 3))
    assert "attention" not in groups(attn, q, k, v)
    out, p = attn(q, k, v)
    want, _ = reference(q, k, v, 1.0)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(p.sum(-1), 1.0, rtol=1e-5)


def test_mlp_is_not_a_stream(rng):
    """`relu(x @ w1) @ w2` has a contraction of a contraction's function too, but no softmax
    probabilities: its hidden layer is materialized for the packed GEMM (two contraction groups)."""

    @tile_op(dtype=float32)
    def mlp(x, w1, w2):
        h = tilec.maximum(tilec.tile_contract(x, w1, axes=[(1, 0)]), 0.0)
        return tilec.tile_contract(h, w2, axes=[(1, 0)])

    x, w1, w2 = randn(rng, (9, 16)), randn(rng, (16, 32)), randn(rng, (32, 5))
    assert groups(mlp, x, w1, w2) == ["contraction", "contraction"]
    np.testing.assert_allclose(mlp(x, w1, w2), np.maximum(x @ w1, 0) @ w2, rtol=1e-4, atol=1e-4)


def test_gpu_targets_keep_three_groups(rng):
    """f32 attention is not what the CUDA flash kernel takes (16-bit q, k, v on tensor cores) and
    HIP has no attention kernel yet: their pipelines keep the contraction, rowwise and contraction
    groups of the same program (test_gpu_attention.py: the 16-bit CUDA kernel)."""

    @tile_op(dtype=float32)
    def attn(q, k, v):
        return attention(q, k, v, 0.2)[0]

    q, k, v = randn(rng, (2, 9, 8)), randn(rng, (2, 23, 8)), randn(rng, (2, 23, 4))
    for target in ("cuda", "hip"):
        text = attn.ir("mapped", q, k, v, target=target)
        assert "attention" not in text and text.count("mapped.kernel @") >= 3


def torch_grads(q, k, v, g, scale, causal):
    """(out, lse, dq, dk, dv) of attention by torch.autograd in float64."""
    tq, tk, tv = (torch.tensor(np.asarray(a, np.float64), requires_grad=True) for a in (q, k, v))
    s = tq @ tk.transpose(-1, -2) * scale
    if causal:
        s = s.masked_fill(torch.ones(*s.shape[-2:], dtype=torch.bool).triu(1), float("-inf"))
    out = torch.softmax(s, -1) @ tv
    grads = torch.autograd.grad(out, (tq, tk, tv), torch.from_numpy(np.asarray(g, np.float64)))
    return out.detach().numpy(), torch.logsumexp(s, -1).detach().numpy(), *(x.numpy() for x in grads)


# (batch axes, L, S, E, Ev, causal)
BACKWARD = [
    ((2,), 5, 7, 8, 3, False),
    ((1,), 1, 1, 1, 1, False),
    ((3,), 33, 70, 16, 24, True),
    ((2, 2), 41, 41, 8, 5, True),
]


@pytest.mark.parametrize(
    "case", BACKWARD, ids=lambda c: "x".join(map(str, [*c[0], *c[1:5]])) + ("-causal" if c[5] else "")
)
def test_backward_streams_without_scores_in_memory(rng, case):
    """tilec.library's attention backward (dq, dk, dv from the saved log-sum-exp) is three
    kernels: delta = rowsum(g * out), then dq streaming over the keys and dk, dv over the queries,
    each re-computing q k^T, p and ds for its (i, j): no L x S value in memory."""
    lead, n_l, n_s, e, ev, causal = case

    @tile_op(dtype=float32)
    def backward(g, q, k, v, out, lse):
        return attention_backward(g, q, k, v, out, lse, 0.3, causal=causal)

    q, k, v = randn(rng, (*lead, n_l, e)), randn(rng, (*lead, n_s, e)), randn(rng, (*lead, n_s, ev))
    g = randn(rng, (*lead, n_l, ev))
    out, lse, *want = torch_grads(q, k, v, g, 0.3, causal)
    args = (g, q, k, v, out.astype(np.float32), lse.astype(np.float32))
    assert sorted(groups(backward, *args)) == ["rowwise", "stream", "stream"]
    assert kernels(backward, *args) == 3
    for got, w in zip(backward(*args), want):
        np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-5)


def test_backward_in_bfloat16(rng):
    """16-bit inputs compute in f32 (q, k, v, g cast inside the kernels, not copied)."""

    @tile_op(dtype=bfloat16, dtypes={"lse": float32})
    def backward(g, q, k, v, out, lse):
        return attention_backward(g, q, k, v, out, lse, 0.25)

    bf = ml_dtypes.bfloat16
    q, k, v, g = (
        randn(rng, (2, 19, 16), bf),
        randn(rng, (2, 37, 16), bf),
        randn(rng, (2, 37, 8), bf),
        randn(rng, (2, 19, 8), bf),
    )
    out, lse, *want = torch_grads(q, k, v, g, 0.25, False)
    args = (g, q, k, v, out.astype(bf), lse.astype(np.float32))
    assert kernels(backward, *args) == 3
    for got, w in zip(backward(*args), want):
        assert got.dtype == bf
        np.testing.assert_allclose(got.astype(np.float32), w, rtol=3e-2, atol=3e-2)


def test_cpu_benchmark_quick():
    """benchmarks/attention_cpu.py runs (small shapes; each result is checked against torch inside)."""
    out = run_benchmark("attention_cpu.py", "--quick", env={"OMP_NUM_THREADS": "1"})
    assert out.count("| SDPA ") == 1 and out.count("| MLA decode ") == 1, out


def test_dynamic_sizes_with_log_sum_exp(rng):
    """Batch, heads, queries and keys as `?` sizes: the row values (the log-sum-exp) read the row
    statistics through unit-axis reshapes whose sizes are the same host values (not a linearized
    index): still one kernel, on fresh shapes each call."""

    @tile_op(dtype=float32, dims=["B", "H", "L", 16, 16, "S"])
    def attn(q, k, v):
        return attention(q, k, v, 0.25, causal=True)

    for b, h, n_l, n_s in ((2, 3, 19, 41), (1, 1, 1, 70)):
        q, k, v = randn(rng, (b, h, n_l, 16)), randn(rng, (b, h, n_s, 16)), randn(rng, (b, h, n_s, 16))
        assert kernels(attn, q, k, v) == 1
        out, lse = attn(q, k, v)
        want, want_lse = reference(q, k, v, 0.25, causal=True)
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(lse, want_lse, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", ["plain", "causal-gqa", "mask", "dynamic", "head-256"], ids=lambda c: c)
def test_cuda_flash_kernel_lowers_to_ptx(case):
    """The CUDA flash kernel through mapped-to-hw-nv and the PTX printer, no GPU needed (what
    test_gpu_attention.py runs): one entry, mma.sync for both products, ex2 for the softmax, xor
    shuffles for the row statistics; ptxas assembles it where one is installed."""
    import shutil
    import subprocess

    from tilec import bfloat16

    e = 256 if case == "head-256" else 32
    dims = {"dims": ["B", "H", "L", e, e, "S"]} if case == "dynamic" else {}

    if case == "mask":

        @tile_op(dtype=bfloat16, dtypes={"mask": tilec.bool_})
        def attn(q, k, v, mask):
            return attention(q, k, v, 0.2, mask=mask)

    else:

        @tile_op(dtype=bfloat16, **dims)
        def attn(q, k, v):
            if case == "causal-gqa":
                return attention(q, repeat_heads(k, 2), repeat_heads(v, 2), 0.2, causal=True)
            return attention(q, k, v, 0.2)

    bf = ml_dtypes.bfloat16
    hk = 1 if case == "causal-gqa" else 2
    args = [np.zeros((2, 2, 37, e), bf), np.zeros((2, hk, 70, e), bf), np.zeros((2, hk, 70, e), bf)]
    if case == "mask":
        args.append(np.ones((2, 2, 37, 70), bool))
    assert attn.ir("mapped", *args, target="cuda").count("mapped.kernel @") == 1
    ptx = attn.source("cuda", *args, sm="sm_80")
    assert ptx.count(".entry") == 1
    assert "mma.sync.aligned.m16n8k16" in ptx and "ex2.approx.f32" in ptx and "shfl.sync.bfly" in ptx
    if shutil.which("ptxas"):
        import tempfile

        with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
            f.write(ptx)
        r = subprocess.run(["ptxas", "-arch=sm_80", f.name, "-o", os.devnull], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
