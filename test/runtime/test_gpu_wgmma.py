"""The Hopper GEMM (gemm=wgmma, sm_90a: TMA ring, warp-specialized warpgroups, wgmma) against
numpy on random inputs of awkward shapes (M prime or 1, N and K not multiples of the tile), f16
and bf16, with fused epilogues; the tile variants; batch axes keeping the mma.sync kernel.

Marked `gpu`: every test skips, saying so, without CuPy and an sm_90 GPU.
Seed: printed; replay with TILEC_TEST_SEED.
"""

from __future__ import annotations

import os

import ml_dtypes
import numpy as np
import pytest

import tilec
from tilec import bfloat16, float16, float32, tile_contract, tile_op

try:
    import cupy as cp

    HAVE_HOPPER = cp.cuda.runtime.getDeviceCount() > 0 and cp.cuda.Device().compute_capability == "90"
except Exception:  # noqa: BLE001 - any failure to reach a GPU means "no GPU here"
    cp = None
    HAVE_HOPPER = False

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not HAVE_HOPPER, reason="no sm_90 NVIDIA GPU (H100/H200) with CuPy on this machine"),
]

SEED = int(os.environ.get("TILEC_TEST_SEED", np.random.SeedSequence().entropy % 2**32))
print(f"test_gpu_wgmma seed: {SEED} (replay with TILEC_TEST_SEED={SEED})")
rng = np.random.default_rng(SEED)

NP = {float16: np.float16, bfloat16: ml_dtypes.bfloat16}
TOL = {float16: 1e-2, bfloat16: 3e-2, float32: 1e-5}
HOPPER = {"sm": "sm_90a", "gemm": "wgmma"}


def rand(shape, dt):
    return rng.standard_normal(shape).astype(NP[dt])


def check(got, ref, dt):
    got = cp.asnumpy(got).astype(np.float64)
    assert got.shape == ref.shape
    denom = max(1.0, float(np.abs(ref).max(initial=0)))
    err = float(np.abs(got - ref).max(initial=0)) / denom
    assert err <= TOL[dt], f"error {err} > {TOL[dt]}"


def f64(*arrays):
    return [a.astype(np.float64) for a in arrays]


def mm_op(dt):
    @tile_op(dtype=dt)
    def mm(a, b):
        return tile_contract(a, b, axes=[(-1, 0)])

    return mm


SHAPES = [(1, 8, 8), (7, 72, 24), (64, 64, 64), (257, 136, 200), (1031, 264, 520), (129, 1000, 1032), (300, 8, 4096)]


@pytest.mark.parametrize("dt", [float16, bfloat16])
@pytest.mark.parametrize("mnk", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_wgmma_matmul(dt, mnk):
    m, n, k = mnk
    a, b = rand((m, k), dt), rand((k, n), dt)
    kernel = mm_op(dt).compile("cuda", a, b, **HOPPER)
    assert "wgmma.mma_async" in kernel.source and "mma.sync" not in kernel.source
    (c,) = kernel(cp.asarray(a), cp.asarray(b))
    A, B = f64(a, b)
    check(c, A @ B, dt)


@pytest.mark.parametrize(
    "tiles",
    [
        {"wgmma_m": 64, "wgmma_n": 128},
        {"wgmma_m": 64, "wgmma_n": 64},
        {"wgmma_m": 128, "wgmma_n": 256},
        {"wgmma_m": 128, "wgmma_n": 192},
        {"wgmma_m": 128, "wgmma_n": 64},
        {"wgmma_m": 256, "wgmma_n": 128},
        {"wgmma_m": 128, "wgmma_n": 128, "stages": 2},
    ],
    ids=str,
)
def test_wgmma_tile_variants(tiles):
    a, b = rand((333, 520), float16), rand((520, 328), float16)
    kernel = mm_op(float16).compile("cuda", a, b, **HOPPER, **tiles)
    (c,) = kernel(cp.asarray(a), cp.asarray(b))
    A, B = f64(a, b)
    check(c, A @ B, float16)


@pytest.mark.parametrize("dt", [float16, bfloat16])
@pytest.mark.parametrize("mnk", [(37, 56, 96), (263, 200, 136)], ids=lambda s: "x".join(map(str, s)))
def test_wgmma_transposed_b_with_epilogue(dt, mnk):
    """B given N x K (x @ w.T), + bias, relu, + residual, cast: all in the wgmma kernel's epilogue."""
    m, n, k = mnk

    @tile_op(dtype=dt)
    def layer(x, w, bias, res):
        h = tile_contract(x, w.T, axes=[(-1, 0)]) + bias
        return tilec.maximum(h, 0.0) + res

    x, w, bias, res = rand((m, k), dt), rand((n, k), dt), rand((n,), dt), rand((m, n), dt)
    kernel = layer.compile("cuda", x, w, bias, res, **HOPPER)
    assert "wgmma.mma_async" in kernel.source
    (out,) = kernel(*[cp.asarray(v) for v in (x, w, bias, res)])
    X, W, Bi, Re = f64(x, w, bias, res)
    check(out, np.maximum(X @ W.T + Bi, 0.0) + Re, dt)


def test_wgmma_f32_output_and_gelu():
    @tile_op(dtype=bfloat16)
    def f(a, b):
        h = tile_contract(a, b, axes=[(-1, 0)]).astype(float32)
        return 0.5 * h * (1.0 + tilec.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))

    a, b = rand((131, 72), bfloat16), rand((72, 200), bfloat16)
    kernel = f.compile("cuda", a, b, **HOPPER)
    (out,) = kernel(cp.asarray(a), cp.asarray(b))
    h = (
        (a.astype(np.float64) @ b.astype(np.float64)).astype(ml_dtypes.bfloat16).astype(np.float64)
    )  # the contraction's bf16 result, then f32 math
    ref = 0.5 * h * (1 + np.tanh(0.7978845608 * (h + 0.044715 * h**3)))
    check(out, ref, bfloat16)


def test_wgmma_against_torch_large():
    torch = pytest.importorskip("torch")
    a = torch.randn(1024, 2048, device="cuda", dtype=torch.float16)
    b = torch.randn(2048, 1536, device="cuda", dtype=torch.float16)
    kernel = mm_op(float16).compile("cuda", shapes=[(1024, 2048), (2048, 1536)], **HOPPER)
    (c,) = kernel(a, b)
    ref = torch.matmul(a, b).float()
    err = float((torch.as_tensor(c, device="cuda").float() - ref).norm() / ref.norm())
    assert err < 2e-3, err


def test_batched_contraction_keeps_mma_sync():
    @tile_op(dtype=float16)
    def bmm(a, b):
        return tile_contract(a, b, axes=[(2, 1)], batch=[(0, 0)])

    a, b = rand((3, 65, 72), float16), rand((3, 72, 40), float16)
    kernel = bmm.compile("cuda", a, b, **HOPPER)
    assert "mma.sync" in kernel.source and "wgmma.mma_async" not in kernel.source
    (c,) = kernel(cp.asarray(a), cp.asarray(b))
    check(c, np.einsum("bmk,bkn->bmn", *f64(a, b)), float16)


def test_default_on_hopper_is_wgmma():
    """On an H100/H200 the default target is sm_90a, where gemm=auto picks the wgmma kernel."""
    a, b = rand((100, 64), float16), rand((64, 80), float16)
    kernel = mm_op(float16).compile("cuda", a, b)
    assert kernel.sm == "sm_90a" and "wgmma.mma_async" in kernel.source
    (c,) = kernel(cp.asarray(a), cp.asarray(b))
    check(c, np.float64(a) @ np.float64(b), float16)


@tile_op(dtype=float16)
def _two_outputs(a, b):
    h = tile_contract(a, b, axes=[(-1, 0)])
    return h, tilec.maximum(h, 0.0).astype(float32)


@pytest.mark.parametrize(
    "mnk", [(257, 136, 200), (1031, 264, 520), (300, 200, 4096)], ids=lambda s: "x".join(map(str, s))
)
@pytest.mark.parametrize("tiles", [{}, {"wgmma_m": 64, "wgmma_n": 64, "stages": 2}], ids=["auto", "64x64x2"])
def test_staged_store_matches_direct(mnk, tiles):
    """wgmma-store=staged (the default: tiles through the idle ring, 16-byte stores; the f32
    output of 128 x 128 tiles one ring per consumer) gives the same bits as the direct stores,
    and both match numpy; partial tiles at the bottom and right edges."""
    m, n, k = mnk
    a, b = rand((m, k), float16), rand((k, n), float16)
    # split_k=1: a split kernel stores f32 partials directly (the staged store is of whole tiles)
    staged = _two_outputs.compile("cuda", a, b, **HOPPER, **tiles, split_k=1)
    direct = _two_outputs.compile("cuda", a, b, **HOPPER, **tiles, split_k=1, wgmma_store="direct")
    assert "bar.sync 1, " in staged.source and "st.global.v4.b32" in staged.source
    assert "bar.sync 1, " not in direct.source
    da, db = cp.asarray(a), cp.asarray(b)
    s16, s32 = staged(da, db)
    d16, d32 = direct(da, db)
    assert cp.array_equal(s16, d16) and cp.array_equal(s32, d32)
    A, B = f64(a, b)
    ref = A @ B
    check(s16, ref, float16)
    check(s32, np.maximum(ref.astype(np.float16).astype(np.float64), 0.0), float16)


def test_staged_store_unaligned_destination():
    """A destination whose base is not 16-byte aligned (2 bytes past it) takes the staged tile
    element by element; nothing outside it is written."""
    m, n, k = 200, 136, 72
    a, b = rand((m, k), float16), rand((k, n), float16)
    kernel = mm_op(float16).compile("cuda", a, b, **HOPPER)
    assert "bar.sync 1, " in kernel.source
    launch = kernel.prepare([a.shape, b.shape])
    buf = cp.zeros(m * n + 16, dtype=np.float16)
    out = buf[1 : 1 + m * n]
    da, db = cp.asarray(a), cp.asarray(b)

    def alloc(nbytes):
        mem = cp.cuda.alloc(nbytes)
        return mem, mem.ptr

    launch([da.data.ptr, db.data.ptr], [out.data.ptr], alloc)
    A, B = f64(a, b)
    check(out.reshape(m, n), A @ B, float16)
    rest = cp.asnumpy(buf)
    assert rest[0] == 0 and not rest[1 + m * n :].any()


@pytest.mark.parametrize("dt", [float16, bfloat16])
@pytest.mark.parametrize("mnk", [(1, 3, 5), (37, 41, 29), (4095, 4097, 1000), (300, 129, 4095)], ids=str)
def test_rows_that_are_not_16_bytes_run_on_tensor_cores(dt, mnk):
    """K or N not a multiple of 8: padded copies feed the wgmma kernel (was: the SIMT kernel)."""
    m, n, k = mnk
    a, b = rand((m, k), dt), rand((k, n), dt)
    kernel = mm_op(dt).compile("cuda", a, b, **HOPPER)
    assert "wgmma.mma_async" in kernel.source and "_pad0" in kernel.source
    (c,) = kernel(cp.asarray(a), cp.asarray(b))
    A, B = f64(a, b)
    check(c, A @ B, dt)
