"""Every kernel the GPU tests run is also emitted as PTX here and assembled by ptxas for sm_80
and sm_90a (no GPU needed), and the PTX has the instructions the mapping promises."""

from __future__ import annotations

import os
import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest

import tilec
from tilec import bfloat16, float16, float32, tile_contract, tile_op
from tilec.emit.ptx import emit_ptx
from tilec.runtime import lower

PTXAS = shutil.which("ptxas")
if PTXAS is None and os.environ.get("CI"):
    raise RuntimeError("CI must have ptxas (CUDA 13) on PATH: the PTX tests assemble every kernel")
pytestmark = pytest.mark.skipif(PTXAS is None, reason="ptxas is not on PATH (install the CUDA toolkit)")

NP = {float32: np.float32, float16: np.float16, bfloat16: ml_dtypes.bfloat16}
rng = np.random.default_rng()


def R(shape, dt):
    return rng.standard_normal(shape).astype(NP[dt])


def programs():
    out = []
    for dt in (float32, float16, bfloat16):

        @tile_op(dtype=dt)
        def chain(x, y):
            return tilec.exp(x * 0.5) + tilec.tanh(y) * x - tilec.maximum(x, y) / (tilec.abs(y) + 1.0)

        @tile_op(dtype=dt)
        def softmax(x):
            e = tilec.exp(x - tilec.max(x, axis=-1, keepdims=True))
            return e / tilec.sum(e, axis=-1, keepdims=True)

        @tile_op(dtype=dt)
        def layernorm(x, g, b):
            mu = tilec.mean(x, axis=-1, keepdims=True)
            d = x - mu
            return d * tilec.rsqrt(tilec.mean(d * d, axis=-1, keepdims=True) + 1e-5) * g + b

        @tile_op(dtype=dt)
        def mm(a, b):
            return tile_contract(a, b, axes=[(-1, 0)])

        @tile_op(dtype=dt)
        def mlp(x, w, bias):
            h = tile_contract(x, w.T, axes=[(-1, 0)]) + bias
            return 0.5 * h * (1.0 + tilec.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))

        out += [
            (f"chain_{dt.name}", chain, [R((127, 1000), dt), R((127, 1000), dt)]),
            (f"softmax_{dt.name}", softmax, [R((5, 8192), dt)]),
            (f"softmax_odd_{dt.name}", softmax, [R((3, 1001), dt)]),
            (f"layernorm_{dt.name}", layernorm, [R((33, 4096), dt), R((4096,), dt), R((4096,), dt)]),
            (f"mm_tc_{dt.name}", mm, [R((130, 256), dt), R((256, 72), dt)]),
            (f"mm_odd_{dt.name}", mm, [R((7, 13), dt), R((13, 5), dt)]),
            (f"mlp_{dt.name}", mlp, [R((37, 96), dt), R((50, 96), dt), R((50,), dt)]),
        ]

    @tile_op(dtype=float32)
    def reductions(a, b):
        c = tile_contract(a, b, axes=[(2, 1)], batch=[(0, 0)])
        return tilec.sum(c, axis=1), tilec.max(c, axis=(0, 2)), tilec.min(c, axis=0)

    @tile_op(dtype=float32, dims=["M", "N"])
    def dynamic(x):
        return (x * 2.0).astype(float16).astype(float32) + x.T.T

    @tile_op(dtype=float32)
    def where(x, y):
        return tilec.where(x < y, tilec.maximum(x, y), tilec.minimum(x, y))

    @tile_op(dtype=float32)
    def full(x):
        return tilec.min(x), tilec.sum(x * 2.0)

    out += [
        ("full_reductions", full, [R((300, 257), float32)]),
        ("reductions", reductions, [R((3, 17, 9), float32), R((3, 9, 11), float32)]),
        ("dynamic", dynamic, [R((5, 3), float32)]),
        ("where", where, [R((9, 31), float32), R((9, 31), float32)]),
    ]
    return out


PROGRAMS = programs()


def _ptx(op, arrays, sm: str) -> str:
    return emit_ptx(lower(op.module(*arrays), "hw", "cuda", sm=sm))


@pytest.mark.parametrize("sm", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name,op,arrays", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_ptxas_accepts(name, op, arrays, sm, tmp_path):
    ptx = _ptx(op, arrays, sm)
    path = tmp_path / f"{name}.ptx"
    path.write_text(ptx)
    r = subprocess.run(
        [PTXAS, f"-arch={sm}", "-v", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    if sm == "sm_90a":  # the tuned target (H200): no spills; sm_80's ptxas keeps fewer values in registers
        assert " 0 bytes spill stores" in r.stderr, r.stderr


def _by_name(name):
    return next(p for p in PROGRAMS if p[0] == name)


def test_tensor_core_gemm_uses_the_promised_instructions():
    _, op, arrays = _by_name("mm_tc_float16")
    ptx = _ptx(op, arrays, "sm_90")
    for needle in (
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
        "cp.async.cg.shared.global",
        "cp.async.commit_group",
        "cp.async.wait_group 2",
        "bar.sync 0",
    ):
        assert needle in ptx, needle


def test_bf16_gemm_and_transposed_b():
    _, op, arrays = _by_name("mlp_bfloat16")
    ptx = _ptx(op, arrays, "sm_90")
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in ptx
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx  # B stored N x K: no .trans


def test_f32_gemms_use_fma_and_unaligned_ones_padded_copies():
    _, op, arrays = _by_name("mm_tc_float32")
    ptx = _ptx(op, arrays, "sm_90")
    assert "mma.sync" not in ptx and ("fma" in ptx or "mul.f32" in ptx)
    _, op, arrays = _by_name("mm_odd_float16")  # rows not 16 bytes: padded copies, tensor cores
    ptx = _ptx(op, arrays, "sm_90")
    assert "mma.sync" in ptx and "_pad0(" in ptx


def test_memory_bound_kernels_use_16_byte_accesses():
    _, op, arrays = _by_name("softmax_float16")
    ptx = _ptx(op, arrays, "sm_90")
    assert "ld.global.nc.v4.b32" in ptx and "st.global.v4.b32" in ptx
    assert "shfl.sync.bfly.b32" in ptx
    _, op, arrays = _by_name("chain_float32")
    assert "ld.global.nc.v4.f32" in _ptx(op, arrays, "sm_90")


def test_odd_rows_fall_back_to_scalar_accesses():
    _, op, arrays = _by_name("softmax_odd_float16")
    ptx = _ptx(op, arrays, "sm_90")
    assert ".v4" not in ptx and "ld.global.nc.b16" in ptx


def test_module_without_kernels_is_a_ptx_module_without_entries(tmp_path):
    """A program with nothing to launch (its output is its input) still assembles: the header
    carries the target mapped-to-hw-nv recorded on the module."""

    @tile_op(dtype=float32)
    def same(p):
        p[...] = p

    x = np.zeros((4, 5), np.float32)
    for sm in ("sm_80", "sm_90a"):
        ptx = same.source("cuda", x, sm=sm)
        assert f".target {sm}" in ptx and ".entry" not in ptx
        (tmp_path / "e.ptx").write_text(ptx)
        r = subprocess.run([PTXAS, f"-arch={sm}", str(tmp_path / "e.ptx"), "-o", str(tmp_path / "e.cubin")])
        assert r.returncode == 0


def test_unlowered_module_is_refused():
    from tilec.diagnostics import NotSupportedYet

    @tile_op(dtype=float32)
    def add(x, y):
        return x + y

    with pytest.raises(NotSupportedYet, match="without hw.nv kernels"):  # a tile module, not lowered
        emit_ptx(add.module(R((4, 4), float32), R((4, 4), float32)))


def test_16_bit_float_immediates_are_their_bits():
    from xdsl.dialects.builtin import bf16, f16

    from tilec.emit.ptx import float_imm

    for v in (0.0, -0.0, 1.0, -2.5, 3.14159, 65504.0, 1e-8, float("inf")):
        assert int(float_imm(v, f16), 16) == int(np.array(v, np.float16).view(np.uint16))
        assert int(float_imm(v, bf16), 16) == int(np.array(v, ml_dtypes.bfloat16).view(np.uint16))
    assert float_imm(float("nan"), bf16) == "0x7FC0"
