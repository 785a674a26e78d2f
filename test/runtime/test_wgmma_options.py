"""The Hopper kernels' options without a GPU: the automatic tile (waves over the SMs, the share
of the tiles inside C, K steps lost to the ramp, shared-memory and register fit), the register
split, the option checks, and that sm_90a's default GEMM and convolution are the wgmma ones."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

import tilec
from tilec import float16, tile_contract, tile_op
from tilec.backends.cuda import CudaBackend
from tilec.conversion.tile_to_mapped.conv_nv_wgmma import conv_tile
from tilec.conversion.tile_to_mapped.gemm_nv_wgmma import HOPPER_SMS, WgmmaTile, wgmma_regs, wgmma_tile
from tilec.conversion.tile_to_mapped.options import NvMapping, wgmma_stage_bytes
from tilec.diagnostics import TilecError
from tilec.dialects.mapped import entry_registers


def opts(**kw) -> NvMapping:
    return NvMapping.create({"gemm": "wgmma", **kw})


@pytest.mark.parametrize(
    "mnk, want",
    [
        ((4096, 4096, 4096), (128, 256, 1)),  # big: the widest tile, one block per SM
        ((8192, 8192, 8192), (128, 256, 1)),
        ((1024, 1024, 1024), (128, 128, 1)),  # 32 wide tiles would leave 100 of 132 SMs idle
        ((-1, 4096, 4096), (128, 256, 1)),  # a dynamic size: the widest
    ],
)
def test_auto_tile(mnk, want):
    t = wgmma_tile(opts(), *mnk)
    assert (t.bm, t.bn, t.ctas) == want


def test_auto_tile_narrow_convolution_channels():
    """A 64-channel convolution takes 64-wide blocks: wider ones would be mostly empty."""
    t = conv_tile(opts(), 64 * 56 * 56, 64, 576)
    assert t.bn == 64 and t.ctas == 2


def test_every_auto_tile_fits():
    """Whatever the shape: stages fit shared memory (two rings per SM with two blocks), a
    two-block consumer keeps at most 64 x 128 accumulators, the registers fit the pool."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        m, n, k = (int(v) for v in rng.integers(1, 20000, 3))
        t = wgmma_tile(opts(), m, n, k, (256, 128, 64))
        assert t.stages >= 2 and t.ctas * t.stages * wgmma_stage_bytes(t.bm, t.bn) <= 232448 - 1024 * t.ctas
        assert t.ctas == 1 or t.bn <= 128
        for copies in (False, True):
            p, c = wgmma_regs(t, copies)
            consumers = 1 if t.bm == 64 else 2
            entry = entry_registers(128 * (1 + consumers), t.ctas)
            assert p <= entry <= c and p + consumers * c <= (1 + consumers) * entry and c >= t.bn // 2 + 24


def test_tile_scores_prefer_busy_sms():
    """Against every other candidate, the choice keeps at least as many SMs busy, once its
    throughput factor is counted (a brute-force restatement of the model for 1-wave shapes)."""
    t = wgmma_tile(opts(), 2048, 2048, 4096)
    tiles = -(-2048 // t.bm) * -(-2048 // t.bn)
    assert tiles <= HOPPER_SMS * t.ctas or tiles % (HOPPER_SMS * t.ctas) == 0 or t == WgmmaTile(128, 256, 4, 1)


def test_explicit_tile_and_limits():
    t = wgmma_tile(opts(wgmma_m=128, wgmma_n=192), 4096, 4096, 4096)
    assert (t.bm, t.bn) == (128, 192)
    assert wgmma_tile(opts(stages=8), 8192, 8192, 8192).stages < 8  # 8 rings of 48 KB do not fit
    with pytest.raises(TilecError, match="not supported yet: a wgmma tile"):
        wgmma_tile(opts(wgmma_m=64, wgmma_n=256), 4096, 4096, 4096)  # 64 x 256 at 128 registers


def test_option_errors():
    with pytest.raises(TilecError, match="gemm=wgmma needs sm=sm_90a"):
        CudaBackend().options(sm="sm_80", gemm="wgmma")
    with pytest.raises(TilecError, match="wgmma-m 256 gives each consumer warpgroup 128 x 256"):
        CudaBackend().options(sm="sm_90a", gemm="wgmma", wgmma_m=256, wgmma_n=256)
    with pytest.raises(TilecError, match="wgmma-n"):
        CudaBackend().options(sm="sm_90a", wgmma_n=96)
    with pytest.raises(TilecError, match="wgmma-m"):
        CudaBackend().options(sm="sm_90a", wgmma_m=32)


def test_sm90a_default_is_wgmma_and_sm80_keeps_mma():
    @tile_op(dtype=float16)
    def mm(a, b):
        return tile_contract(a, b, axes=[(-1, 0)])

    a, b = np.zeros((300, 136), np.float16), np.zeros((136, 200), np.float16)
    hopper = mm.source("cuda", a, b, sm="sm_90a")
    assert "wgmma.mma_async.sync.aligned.m64n" in hopper and "mma.sync" not in hopper
    assert "cp.async.bulk.tensor.2d" in hopper and "setmaxnreg.inc.sync.aligned.u32" in hopper
    ampere = mm.source("cuda", a, b, sm="sm_80")
    assert "mma.sync.aligned.m16n8k16" in ampere and "wgmma.mma_async" not in ampere


def test_sm90a_conv_is_wgmma_fed_by_cp_async():
    @tile_op(dtype=float16)
    def conv(x, w):
        return tilec.conv(x, w, padding=1, layout="channels_last")

    x, w = np.zeros((2, 9, 7, 64), np.float16), np.zeros((64, 3, 3, 64), np.float16)
    ptx = conv.source("cuda", x, w, sm="sm_90a")
    for needle in ("cp.async.cg.shared.global", "cp.async.mbarrier.arrive.noinc", "wgmma.mma_async"):
        assert needle in ptx
    assert "cp.async.bulk.tensor" not in ptx and "mma.sync" not in ptx


def _frag_stores(op, *arrays, **options) -> list[str]:
    from tilec.runtime import lower

    text = str(lower(op.module(*arrays), "mapped", "cuda", sm="sm_90a", **options))
    return [line.strip() for line in text.splitlines() if "mapped.frag_store" in line]


@tile_op(dtype=float16)
def _two_outputs(a, b):
    h = tile_contract(a, b, axes=[(-1, 0)])
    return h, tilec.maximum(h, 0.0).astype(tilec.float32)


@tile_op(dtype=float16)
def _linear(x, w):
    return tile_contract(x, w.T, axes=[(-1, 0)])


@pytest.mark.parametrize(
    "m, n, options, staged",
    [
        # 128 x 128 tiles, rings of 64 KiB: the f16 tiles (2 x 17 KiB) share one ring, the f32
        # ones (2 x 34 KiB) take one ring per consumer warpgroup
        (300, 200, {}, [1, 2]),
        (300, 200, {"wgmma_store": "direct"}, [0, 0]),
        # 128 x 256 tiles, rings of 64 and 128 KiB: the f16 tiles (2 x 33 KiB) share the B ring,
        # an f32 tile (66 KiB) fits only B's: direct
        (4096, 4096, {}, [1, 0]),
    ],
)
def test_staged_store_where_it_applies(m, n, options, staged):
    a, b = np.zeros((m, 4096), np.float16), np.zeros((4096, n), np.float16)
    stores = _frag_stores(_two_outputs, a, b, split_k=1, **options)  # (300 x 200: 6 tiles would split K)
    # the f16 product, then the f32 relu: how many buffers each passes through
    assert [s.split(" : ")[0].split(" via ")[1].count("%") if " via " in s else 0 for s in stores] == staged, stores


def test_staged_store_needs_whole_chunks():
    """Rows of 100 f16 (B given N x K) are not whole 16-byte chunks: the store goes direct."""
    x, w = np.zeros((300, 136), np.float16), np.zeros((100, 136), np.float16)
    (store,) = _frag_stores(_linear, x, w)
    assert "wgmma" in store and " via " not in store, store
    x, w = np.zeros((300, 136), np.float16), np.zeros((104, 136), np.float16)
    (store,) = _frag_stores(_linear, x, w)
    assert " via " in store, store


def test_staged_store_needs_room_in_the_ring():
    """64 x 64 tiles (one consumer) with two stages keep 16 KiB per ring: room for the f16 tile
    (64 x (128 + 16) bytes = 9 KiB) but not the f32 one (64 x (256 + 32) = 18 KiB), which goes
    direct; with four stages both fit."""
    a, b = np.zeros((300, 136), np.float16), np.zeros((136, 200), np.float16)
    small = _frag_stores(_two_outputs, a, b, gemm="wgmma", wgmma_m=64, wgmma_n=64, stages=2)
    assert [" via " in s for s in small] == [True, False], small  # (one consumer: one buffer at most)
    big = _frag_stores(_two_outputs, a, b, gemm="wgmma", wgmma_m=64, wgmma_n=64, stages=4)
    assert [" via " in s for s in big] == [True, True], big


def test_staged_store_ptx():
    """The staged epilogue in PTX: named barrier 1 of the consumers around st.shared, then
    16-byte chunks out (ld.shared.v4 / st.global.v4) with an element-wise path for a destination
    that is not 16-byte aligned; ptxas (where present) in the spill test of test_gpu_conv."""
    a, b = np.zeros((300, 136), np.float16), np.zeros((136, 200), np.float16)
    ptx = _two_outputs.source("cuda", a, b, sm="sm_90a")
    assert ptx.count("bar.sync 1, ") == 4  # two per store
    for needle in ("st.shared.b32", "st.shared.v2.f32", "ld.shared.v4.b32", "st.global.v4.b32", "st.global.b16"):
        assert needle in ptx, needle
    direct = _two_outputs.source("cuda", a, b, sm="sm_90a", wgmma_store="direct")
    assert "bar.sync 1, " not in direct and "st.global.v4.b32" not in direct


@pytest.mark.parametrize("sm, kernel", [("sm_90a", "wgmma.mma_async"), ("sm_80", "mma.sync.aligned")])
def test_rows_that_are_not_16_bytes_are_padded_for_the_tensor_cores(sm, kernel, tmp_path):
    """4095 x 4097 x 1000: B's rows of 4097 f16 are not whole 16-byte chunks; a padded copy
    (zeros to 4104) feeds the tensor-core kernel instead of the SIMT one."""

    @tile_op(dtype=float16)
    def mm(a, b):
        return tile_contract(a, b, axes=[(-1, 0)])

    a, b = np.zeros((4095, 1000), np.float16), np.zeros((1000, 4097), np.float16)
    ptx = mm.source("cuda", a, b, sm=sm)
    entries = [line.split()[-1] for line in ptx.splitlines() if ".entry" in line]
    assert entries == ["tilec_u_mm_0_contraction_pad0(", "tilec_u_mm_0_contraction("], entries
    assert kernel in ptx
    ptxas = shutil.which("ptxas")
    if ptxas is not None:  # the padding kernel's f16 zero is a b16 immediate (was a 0f literal)
        (tmp_path / "k.ptx").write_text(ptx)
        r = subprocess.run([ptxas, f"-arch={sm}", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")])
        assert r.returncode == 0
