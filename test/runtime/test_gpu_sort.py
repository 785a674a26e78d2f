"""Order ops on GPUs: the PTX of every program assembled by ptxas (sm_80, sm_90a), the HIP C++
compiled by hipcc for gfx90a and RUN in the HIP emulator (test_hip_emulated.py; 64-lane waves and
the portable form), the lowering's structure (static short rows in registers: softmax + top-k in
one kernel; long static rows bitonic in shared memory), and, marked `gpu`, run on an NVIDIA GPU against the
interpreter and torch (skipping, saying so, without one). Each part skips without its tool."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from cpu_util import rand, rng  # noqa: F401
from gpu_util import HAVE_GPU, cp
from test_frontend_util import line_of
from test_hip_emulated import CLANGXX, emulate
from test_sort import awkward, exact

import tilec
from tilec import bfloat16, float16, float32, int32, tile_op, uint32
from tilec.emit.ptx import emit_ptx
from tilec.runtime import lower
from tilec.toolchain.hipcc import find_hipcc

PTXAS = shutil.which("ptxas")


@tile_op(dtype=float32, dims=["A", "B", "C"])
def every_axis(x):
    v, i = tilec.topk(x, 2, axis=0, largest=False)
    return tilec.sort(x, 1, descending=True), tilec.argsort(x, 2), v, i


@tile_op(dtype=float32, dims=["T", 256])
def moe_softmax_topk(logits):
    e = tilec.exp(logits - tilec.max(logits, axis=-1, keepdims=True))
    return tilec.topk(e / tilec.sum(e, axis=-1, keepdims=True), 8)


@tile_op(dtype=float32, dims=["T", "E"])
def moe_dynamic(logits):
    """Rows of run-time length: ranked without staging, the softmax evaluated in the loops."""
    e = tilec.exp(logits - tilec.max(logits, axis=-1, keepdims=True))
    return tilec.topk(e / tilec.sum(e, axis=-1, keepdims=True), 4)


@tile_op(dtype=bfloat16, dims=["T", 256])
def moe_sigmoid_topk(logits):
    return tilec.topk(tilec.sigmoid(logits), 8)


@tile_op(dtype=float16, dims=["M", "N"])
def f16_rows(x):
    return tilec.sort(x), tilec.argsort(x, descending=True)


@tile_op(dtype=int32, dims=["M", "N"])
def int_rows(x):
    return tilec.topk(x, 5)


@tile_op(dtype=uint32, dims=["N"])
def uint_row(x):
    return tilec.sort(x, descending=True)


@tile_op(dtype=float32, dims=["M", "N"])
def sort_with_outputs(x):
    """The sort group also stores its source (full size) and a per-row sum."""
    y = x * 2.0 - 1.0
    return tilec.sort(y, descending=True), y, tilec.sum(y, axis=-1)


@tile_op(dtype=float32, dims=["M", 1031])
def static_rows(x):
    """Static rows: the bitonic sort in shared memory (1031 padded to 2048), a top-k with k > 32."""
    v, i = tilec.topk(x, 40, largest=False)
    return tilec.sort(x, descending=True), tilec.argsort(x, descending=True), v, i


@tile_op(dtype=float16, dims=[3, "M"])
def static_columns(x):
    """A static leading axis of 3 (padded to 4) sorted for every column."""
    return tilec.sort(x, 0), tilec.argsort(x, 0)


def _programs(rng):
    return [
        ("every_axis", every_axis, [awkward(rng, (3, 5, 7), float32)]),
        ("moe_softmax_topk", moe_softmax_topk, [rand(rng, (37, 256), float32, -4, 4)]),
        ("moe_dynamic", moe_dynamic, [rand(rng, (5, 77), float32, -4, 4)]),
        ("moe_sigmoid_topk", moe_sigmoid_topk, [awkward(rng, (9, 256), bfloat16)]),
        ("f16_rows", f16_rows, [awkward(rng, (4, 1031), float16)]),
        ("int_rows", int_rows, [rand(rng, (6, 29), int32, 0, 3)]),
        ("uint_row", uint_row, [rand(rng, (1, 301), uint32, 0, 2**32 - 1)[0]]),
        ("sort_with_outputs", sort_with_outputs, [awkward(rng, (3, 70), float32)]),
        ("static_rows", static_rows, [awkward(rng, (3, 1031), float32)]),
        ("static_columns", static_columns, [awkward(rng, (3, 50), float16)]),
    ]


NAMES = [
    "every_axis",
    "moe_softmax_topk",
    "moe_dynamic",
    "moe_sigmoid_topk",
    "f16_rows",
    "int_rows",
    "uint_row",
    "sort_with_outputs",
    "static_rows",
    "static_columns",
]


def _pick(rng, name):
    return next(p for p in _programs(rng) if p[0] == name)


def _check(got, want, name, op, arrays):
    got = got if isinstance(got, tuple | list) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    if name in ("moe_softmax_topk", "moe_dynamic"):  # computed scores: values close, the picked scores right
        (gv, gi), (wv, _) = got, want
        np.testing.assert_allclose(np.asarray(gv), wv, rtol=1e-5)
        x = arrays[0].astype(np.float64)
        s = np.exp(x - x.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        np.testing.assert_allclose(np.take_along_axis(s, np.asarray(gi), 1), wv, rtol=1e-5)
        return
    for g, w in zip(got, want):
        if name == "sort_with_outputs" and g is got[-1]:  # the sum: to rounding (block reduction order)
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-4, equal_nan=True)
            continue
        exact(np.asarray(g), w, name)


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
@pytest.mark.parametrize("sm", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name", NAMES)
def test_ptxas_accepts(rng, name, sm, tmp_path):
    _, op, arrays = _pick(rng, name)
    path = tmp_path / f"{name}.ptx"
    path.write_text(emit_ptx(lower(op.module(*arrays), "hw", "cuda", sm=sm)))
    r = subprocess.run(
        [PTXAS, f"-arch={sm}", "-v", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    assert " 0 bytes spill stores" in r.stderr, r.stderr


@pytest.mark.skipif(find_hipcc() is None or CLANGXX is None, reason="hipcc (and its clang++) is not installed")
@pytest.mark.parametrize("mode", [{}, {"portable": True}], ids=["wave64", "portable"])
@pytest.mark.parametrize("name", NAMES)
def test_hip_compiles_and_runs_emulated(rng, name, mode):
    _, op, arrays = _pick(rng, name)
    k = op.compile("hip", *arrays, **mode)
    for m in k.metadata().values():
        assert m["private_segment_fixed_size"] == 0 and m["vgpr_spill_count"] == 0, m
    _check(emulate(op, *arrays, **mode), tilec.interpret(op, *arrays), name, op, arrays)


def test_moe_gating_is_one_kernel_in_registers(rng):
    """softmax + top-k: ONE kernel, a warp per token holding its 256 scores in registers (no
    shared memory, no barrier), each exp computed once per element, no second global pass over
    the logits (test_gpu_sort_registers.py checks the mapping in detail)."""
    _, op, arrays = _pick(rng, "moe_softmax_topk")
    ptx = emit_ptx(lower(op.module(*arrays), "hw", "cuda", sm="sm_90a"))
    assert ptx.count(".entry") == 1
    assert "bar.sync" not in ptx and ".shared" not in ptx
    assert ptx.count("ex2.approx") == 8  # 8 experts per lane
    assert ptx.count("ld.global") == 2  # two 16-byte loads per lane


def test_dynamic_rows_stage_in_shared_memory_when_ranked(rng):
    """A row of run-time length is ranked (the softmax evaluated in the counting loops)."""
    _, op, arrays = _pick(rng, "moe_dynamic")
    ptx = emit_ptx(lower(op.module(*arrays), "hw", "cuda", sm="sm_90a"))
    assert ptx.count(".entry") == 1 and "tilec.order" not in op.ir("mapped", *arrays, target="cuda")


def test_static_rows_sort_bitonically(rng):
    """A static row whose padded length fits shared memory is a bitonic network (barriers
    between stages), not a rank sort."""
    _, op, arrays = _pick(rng, "static_rows")
    ptx = emit_ptx(lower(op.module(*arrays), "hw", "cuda", sm="sm_90a"))
    assert ptx.count("bar.sync") >= 11 * 12 // 2  # log2(2048) (log2(2048) + 1) / 2 stages


def test_long_rows_are_refused():
    @tile_op(dtype=float32)
    def f(x):
        return tilec.sort(x)  # E:long

    with pytest.raises(tilec.TilecError, match="not supported yet: sort on GPUs of rows longer than 16384") as e:
        lower(f.module(np.zeros(16385, np.float32)), "mapped", "cuda")
    assert e.value.location.line == line_of(__file__, "E:long")
    lower(f.module(np.zeros(16384, np.float32)), "mapped", "cuda")  # the longest row taken


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
@pytest.mark.parametrize("name", NAMES)
def test_cuda_runs(rng, name):
    _, op, arrays = _pick(rng, name)
    got = op(*[cp.asarray(a) for a in arrays])
    got = got if isinstance(got, tuple) else (got,)
    _check([cp.asnumpy(g) for g in got], tilec.interpret(op, *arrays), name, op, arrays)


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
def test_cuda_moe_gating_against_torch(rng):
    """The MoE gating shape (4096 tokens x 256 experts, k = 8) on torch CUDA tensors, against
    torch.softmax + torch.topk on the device."""
    import torch

    x = torch.randn(4096, 256, device="cuda")
    v, i = (torch.as_tensor(r, device="cuda") for r in moe_softmax_topk(x))
    assert v.dtype == torch.float32 and i.dtype == torch.int64
    tv, _ = torch.topk(torch.softmax(x.double(), -1), 8)
    torch.testing.assert_close(v.double(), tv, rtol=1e-5, atol=0)
    s = torch.softmax(x.double(), -1)
    torch.testing.assert_close(torch.gather(s, 1, i), tv, rtol=1e-5, atol=0)
