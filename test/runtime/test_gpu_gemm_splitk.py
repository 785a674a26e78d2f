"""A stored K x M (a weight gradient's dy^T) and split-K in the tensor-core GEMMs, and the 1x1
channels-last weight gradient that uses both (one GEMM dy^T x, no transposes), on CUDA.

- On the GPU (marked `gpu`; skips, saying so, without CuPy and an NVIDIA GPU; the wgmma cases
  without an sm_90 one): results against numpy / torch on random inputs of awkward shapes (M, N,
  K prime or 1, M not a multiple of 8 or of the 64-wide panels), f16 and bf16, fused epilogues,
  split-K forced and automatic, gemm=wgmma (transposed A panels) and gemm=mma (a transposed copy).
- Without a GPU: the lowering's structure (which kernels, the transposed A on wgmma, the split
  grid) and ptxas on the PTX (skips without ptxas).
Seed: printed; replay with TILEC_TEST_SEED.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest

import tilec
from tilec import bfloat16, float16, float32, tile_contract, tile_op

try:
    import cupy as cp

    HAVE_GPU = cp.cuda.runtime.getDeviceCount() > 0
    HAVE_HOPPER = HAVE_GPU and cp.cuda.Device().compute_capability == "90"
except Exception:  # noqa: BLE001 - any failure to reach a GPU means "no GPU here"
    cp = None
    HAVE_GPU = HAVE_HOPPER = False

SEED = int(os.environ.get("TILEC_TEST_SEED", np.random.SeedSequence().entropy % 2**32))
print(f"test_gpu_gemm_splitk seed: {SEED} (replay with TILEC_TEST_SEED={SEED})")
rng = np.random.default_rng(SEED)

NP = {float16: np.float16, bfloat16: ml_dtypes.bfloat16}
TOL = {float16: 1e-2, bfloat16: 3e-2, float32: 1e-5}
HOPPER = {"sm": "sm_90a", "gemm": "wgmma"}
MMA = {"gemm": "mma"}

needs_gpu = pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
needs_hopper = pytest.mark.skipif(not HAVE_HOPPER, reason="no sm_90 NVIDIA GPU (H100/H200) with CuPy on this machine")


def rand(shape, dt):
    return rng.standard_normal(shape).astype(NP[dt])


def check(got, ref, dt):
    got = (cp.asnumpy(got) if cp is not None else np.asarray(got)).astype(np.float64)
    assert got.shape == ref.shape
    denom = max(1.0, float(np.abs(ref).max(initial=0)))
    err = float(np.abs(got - ref).max(initial=0)) / denom
    assert err <= TOL[dt], f"error {err} > {TOL[dt]}"


def at_b_op(dt, epilogue: bool):
    """C = A^T B with A stored K x M; with `epilogue`, relu(C + bias) in f32 as well."""
    if epilogue:

        @tile_op(dtype=dt)
        def at_b(a, b, bias):
            c = tile_contract(a, b, axes=[(0, 0)])
            return c, tilec.maximum(c.astype(float32) + bias.astype(float32), 0.0)

        return at_b

    @tile_op(dtype=dt)
    def at_b_plain(a, b):
        return tile_contract(a, b, axes=[(0, 0)])

    return at_b_plain


def ab_op(dt):
    @tile_op(dtype=dt)
    def ab(a, b):
        return tile_contract(a, b, axes=[(-1, 0)])

    return ab


def wgrad_op(dt, o, c, d=2):
    @tile_op(dtype=dt)
    def wgrad(x, dy):
        return tilec.conv_backward_weight(x, dy, (o, *([1] * d), c), layout="channels_last")

    return wgrad


def _on_gpu(*arrays):
    return [cp.asarray(a) for a in arrays]


# (K, M, N): K the contraction (a weight gradient's N x positions), A stored K x M
AT_SHAPES = [(1, 1, 8), (203, 37, 72), (4099, 64, 136), (2048, 129, 200), (6000, 72, 40)]
SPLITS = [{}, {"split_k": 3}, {"split_k": 1}]


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("kernel", ["wgmma", "mma"])
@pytest.mark.parametrize("dt", [float16, bfloat16])
@pytest.mark.parametrize("kmn", AT_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("split", SPLITS, ids=["auto", "split3", "nosplit"])
def test_lhs_stored_k_by_m(kernel, dt, kmn, split):
    if kernel == "wgmma" and not HAVE_HOPPER:
        pytest.skip("gemm=wgmma needs an sm_90 GPU")
    k, m, n = kmn
    a, b = rand((k, m), dt), rand((k, n), dt)
    ref = a.astype(np.float64).T @ b.astype(np.float64)
    (got,) = at_b_op(dt, False).compile("cuda", a, b, **(HOPPER if kernel == "wgmma" else MMA), **split)(*_on_gpu(a, b))
    check(got, ref, dt)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("kernel", ["wgmma", "mma"])
@pytest.mark.parametrize("dt", [float16, bfloat16])
@pytest.mark.parametrize("split", [{}, {"split_k": 5}], ids=["auto", "split5"])
def test_lhs_stored_k_by_m_with_epilogue(kernel, dt, split):
    if kernel == "wgmma" and not HAVE_HOPPER:
        pytest.skip("gemm=wgmma needs an sm_90 GPU")
    k, m, n = 3001, 67, 96
    a, b, bias = rand((k, m), dt), rand((k, n), dt), rand((n,), dt)
    c64 = a.astype(np.float64).T @ b.astype(np.float64)
    c = c64.astype(NP[dt])
    relu = np.maximum(c.astype(np.float32) + bias.astype(np.float32), 0.0)
    opts = {**(HOPPER if kernel == "wgmma" else MMA), **split}
    got_c, got_relu = at_b_op(dt, True).compile("cuda", a, b, bias, **opts)(*_on_gpu(a, b, bias))
    check(got_c, c64, dt)
    check(got_relu, relu.astype(np.float64), dt)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("kernel", ["wgmma", "mma"])
@pytest.mark.parametrize("mnk", [(16, 4096, 4096), (1, 1000, 3000), (37, 200, 4999), (300, 200, 4096)], ids=str)
def test_split_k_plain_gemm(kernel, mnk):
    """A x B with few output tiles and a long K: split automatically and forced."""
    if kernel == "wgmma" and not HAVE_HOPPER:
        pytest.skip("gemm=wgmma needs an sm_90 GPU")
    m, n, k = mnk
    a, b = rand((m, k), float16), rand((k, n), float16)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    for split in ({}, {"split_k": 7}):
        opts = {**(HOPPER if kernel == "wgmma" else MMA), **split}
        (got,) = ab_op(float16).compile("cuda", a, b, **opts)(*_on_gpu(a, b))  # a compiled kernel returns a tuple
        check(got, ref, float16)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("dt", [float16, bfloat16])
@pytest.mark.parametrize(
    "nhwco", [(2, 5, 7, 24, 40), (3, 3, 3, 13, 9), (1, 1, 1, 8, 8), (8, 14, 14, 256, 64), (4, 7, 7, 64, 200)], ids=str
)
def test_pointwise_weight_gradient_against_torch(dt, nhwco):
    torch = pytest.importorskip("torch")
    n, h, w, c, o = nhwco
    x, dy = rand((n, h, w, c), dt), rand((n, h, w, o), dt)
    tx = torch.tensor(x.astype(np.float32), dtype=torch.float64).permute(0, 3, 1, 2)
    tdy = torch.tensor(dy.astype(np.float32), dtype=torch.float64).permute(0, 3, 1, 2)
    ref = torch.nn.grad.conv2d_weight(tx, (o, c, 1, 1), tdy).permute(0, 2, 3, 1).numpy()
    got = wgrad_op(dt, o, c)(*_on_gpu(x, dy))
    check(got, ref, dt)


# --- without a GPU: the lowering's structure and ptxas ---------------------------------------


def _launches(op, *arrays, **options) -> list[str]:
    text = op.ir("mapped", *arrays, target="cuda", **options)
    return [line.split()[1].split("(")[0] for line in text.splitlines() if "mapped.launch" in line]


def test_pointwise_weight_gradient_is_one_gemm_without_copies():
    """dy^T x straight from the tensors: on sm_90a the wgmma kernel reads dy as transposed A
    panels (no transpose kernel, no reshape copy of the result), with split-K on a long K."""
    n, h, w, c, o = 64, 56, 56, 256, 64
    x, dy = np.zeros((n, h, w, c), np.float16), np.zeros((n, h, w, o), np.float16)
    op = wgrad_op(float16, o, c)
    assert _launches(op, x, dy, sm="sm_90a") == ["@wgrad_0_contraction_partial", "@wgrad_0_contraction"]
    text = op.ir("mapped", x, dy, target="cuda", sm="sm_90a")
    assert "lhs_transposed" in text and "mapped.wgmma" in text
    assert _launches(op, x, dy, sm="sm_90a", split_k=1) == ["@wgrad_0_contraction"]
    # mma.sync reads A as M x K only: one transposed copy of dy first
    assert _launches(op, x, dy, sm="sm_80") == [
        "@wgrad_0_contraction_transpose0",
        "@wgrad_0_contraction_partial",
        "@wgrad_0_contraction",
    ]


def test_split_k_grid_and_sum():
    a, b = np.zeros((37, 5000), np.float16), np.zeros((5000, 200), np.float16)
    text = ab_op(float16).ir("mapped", a, b, target="cuda", sm="sm_90a", split_k=3)
    assert "mapped.buf<3x37x200xf32, global>" in text  # the partial sums of 3 splits
    assert _launches(ab_op(float16), a, b, sm="sm_90a", split_k=3) == ["@ab_0_contraction_partial", "@ab_0_contraction"]


def test_wgmma_lhs_transposed_round_trips():
    """The lowering's `lhs_transposed` wgmma (A's ring in 64-wide panels) prints and parses back
    (the verifier's message for a ring that is not panels: hopper-errors.mlir)."""
    from tilec.ir import make_context, parse_module

    k, m, n = 4096, 64, 136
    a, b = np.zeros((k, m), np.float16), np.zeros((k, n), np.float16)
    text = at_b_op(float16, False).ir("mapped", a, b, target="cuda", sm="sm_90a", split_k=1)
    wgmma = [line for line in text.splitlines() if "mapped.wgmma" in line]
    assert len(wgmma) == 1 and " lhs_transposed " in wgmma[0], wgmma
    assert "x64x64xf16, shared, swizzle<3, 4, 3>>" in wgmma[0].split(" : ")[1].split(", !mapped.buf")[0]
    once = str(parse_module(make_context(), text))
    assert once == str(parse_module(make_context(), once))


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas (CUDA toolkit) not on PATH")
@pytest.mark.parametrize(
    "case",
    [("wgrad", "sm_90a"), ("wgrad", "sm_80"), ("at_b", "sm_90a"), ("at_b", "sm_80")],
    ids=lambda c: "-".join(c),
)
def test_ptx_assembles(tmp_path, case):
    what, sm = case
    if what == "wgrad":
        x, dy = np.zeros((8, 14, 14, 256), np.float16), np.zeros((8, 14, 14, 64), np.float16)
        ptx = wgrad_op(float16, 64, 256).source("cuda", x, dy, sm=sm)
    else:
        a, b, bias = np.zeros((3001, 67), np.float16), np.zeros((3001, 96), np.float16), np.zeros(96, np.float16)
        ptx = at_b_op(float16, True).source("cuda", a, b, bias, sm=sm, split_k=5)
    if sm == "sm_90a":
        assert "wgmma.mma_async" in ptx
    path = tmp_path / "k.ptx"
    path.write_text(ptx)
    r = subprocess.run(
        ["ptxas", f"-arch={sm}", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr[-2000:]
