"""The Hopper GEMM's options without a GPU: the auto block width (wave quantization over the SMs,
shared-memory fit), the option checks, and that sm_90a's default kernel is the wgmma one."""

from __future__ import annotations

import numpy as np
import pytest

from tilec import float16, tile_contract, tile_op
from tilec.archs import SMEM_LIMIT
from tilec.backends.cuda import CudaBackend
from tilec.conversion.tile_to_mapped.gemm_nv_wgmma import HOPPER_SMS, wgmma_width
from tilec.conversion.tile_to_mapped.options import NvMapping
from tilec.diagnostics import TilecError

LIMIT = SMEM_LIMIT["sm_90a"]


def opts(**kw) -> NvMapping:
    return NvMapping.create({"gemm": "wgmma", **kw})


@pytest.mark.parametrize(
    "m, n, want",
    [
        (4096, 4096, 256),  # 512 wide tiles: 3.9 waves either way, the wide tile wins
        (8192, 8192, 256),
        (1024, 1024, 128),  # 32 wide tiles leave 100 of 132 SMs idle; 64 narrow ones use more
        (128, 4096, 128),
        (-1, 4096, 256),  # a dynamic size: the widest
        (4096, -1, 256),
    ],
)
def test_auto_width_follows_the_waves(m, n, want):
    assert wgmma_width(opts(), m, n, LIMIT) == want


def test_auto_width_scores_waves():
    """The choice maximizes the fraction of busy SMs, crediting the wide tile's throughput."""
    for m, n in [(1000, 3000), (2176, 4352), (4224, 8448), (640, 640), (7, 7)]:
        got = wgmma_width(opts(), m, n, LIMIT)

        def busy(w):
            tiles = -(-m // 128) * -(-n // w)
            return tiles / (-(-tiles // HOPPER_SMS) * HOPPER_SMS)

        other = 128 if got == 256 else 256
        factor = 1.25 if got == 256 else 1 / 1.25
        assert busy(got) * factor >= busy(other)


def test_explicit_width_and_limits():
    assert wgmma_width(opts(wgmma_n=192), 4096, 4096, LIMIT) == 192
    assert wgmma_width(opts(block_m=256), 8192, 8192, LIMIT) == 128  # 128 x 256 accumulators per consumer
    # 8 stages of 128 x 256 tiles (384 KB) do not fit; 8 of 128 x 128 (256 KB) neither: the narrowest
    assert wgmma_width(opts(stages=6), 8192, 8192, LIMIT) == 128  # 6 x 48 KB > 227 KB, 6 x 32 KB fits


def test_option_errors():
    with pytest.raises(TilecError, match="gemm=wgmma needs sm=sm_90a"):
        CudaBackend().options(sm="sm_80", gemm="wgmma")
    with pytest.raises(TilecError, match="block-m 256 gives each consumer warpgroup 128 x 256"):
        CudaBackend().options(sm="sm_90a", gemm="wgmma", block_m=256, wgmma_n=256)
    with pytest.raises(TilecError, match="gemm=wgmma needs block-m 64, 128 or 256"):
        CudaBackend().options(sm="sm_90a", gemm="wgmma", block_m=32)
    with pytest.raises(TilecError, match="wgmma-n"):
        CudaBackend().options(sm="sm_90a", wgmma_n=96)


def test_sm90a_default_is_wgmma_and_sm80_keeps_mma():
    @tile_op(dtype=float16)
    def mm(a, b):
        return tile_contract(a, b, axes=[(-1, 0)])

    a, b = np.zeros((300, 136), np.float16), np.zeros((136, 200), np.float16)
    hopper = mm.source("cuda", a, b, sm="sm_90a")
    assert "wgmma.mma_async.sync.aligned.m64n128k16" in hopper and "mma.sync" not in hopper
    assert "cp.async.bulk.tensor.2d" in hopper and "setmaxnreg.inc.sync.aligned.u32 232" in hopper
    ampere = mm.source("cuda", a, b, sm="sm_80")
    assert "mma.sync.aligned.m16n8k16" in ampere and "wgmma.mma_async" not in ampere
