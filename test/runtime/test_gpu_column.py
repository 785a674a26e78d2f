"""GPU column reductions (reductions that keep the last axis: bias gradients, dgamma/dbeta) split
across blocks (tilec/conversion/tile_to_mapped/column_gpu.py): the PTX assembled by ptxas (sm_80,
sm_90a), the HIP C++ run in the HIP emulator (test_hip_emulated.py; 64-lane waves and the
portable 32-lane form) against numpy, and, marked `gpu`, the CUDA target on an NVIDIA GPU (skipping,
saying so, without one). Each part skips without its tool, saying which."""

from __future__ import annotations

import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest
from cpu_util import rng  # noqa: F401
from gpu_util import HAVE_GPU, cp
from test_hip_emulated import CLANGXX, emulate

import tilec
from tilec import bfloat16, float16, float32, int32, tile_op, uint8
from tilec.emit.ptx import emit_ptx
from tilec.runtime import lower

PTXAS = shutil.which("ptxas")
needs_emulator = pytest.mark.skipif(CLANGXX is None, reason="hipcc's clang++ is not installed (HIP emulator)")
needs_gpu = pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")


@tile_op(dtype=float32, dims=["M", "N"])
def col_stats(x):
    """`?` sizes: one lane per output, two kernels (parts, then their sum)."""
    return tilec.sum(x, axis=0), tilec.max(x, axis=0), tilec.min(x, axis=0)


@tile_op(dtype=float32)
def col_sum_static(x):
    return tilec.sum(x, axis=0)


@tile_op(dtype=float16)
def col_f16(x):
    """16-bit inputs: 8-lane vectors when the row allows, f32 partial sums."""
    return tilec.sum(x, axis=0), tilec.max(x, axis=0)


@tile_op(dtype=bfloat16)
def col_bf16(x):
    return tilec.sum(x, axis=0)


@tile_op(dtype=int32)
def col_int(x):
    return tilec.sum(x, axis=0), tilec.max(x, axis=0)


@tile_op(dtype=uint8)
def col_u8(x):
    """Unsigned max / min: compared with the sign bit flipped (in the parts too)."""
    return tilec.max(x, axis=0), tilec.min(x, axis=0)


@tile_op(dtype=float32, dims=["A", "B", "C"])
def lead_two(x):
    """Two leading axes reduced (a (batch, seq, hidden) bias gradient), and a middle one."""
    return tilec.sum(x, axis=(0, 1)), tilec.sum(x, axis=1)


@tile_op(dtype=float32)
def ln_param_grads(x, mu, rstd, dy):
    """layernorm's dgamma and dbeta from the saved statistics: one reduction group walking dy and x
    (dy * xhat re-computed in it), next to a rowwise dx-like output."""
    xhat = (x - mu) * rstd
    dxhat = dy - (dy * xhat).mean(-1, keepdims=True)
    return (dy * xhat).sum(0), dy.sum(0), dxhat


def _rows_and_columns(x, w):
    e = tilec.exp(x - x.max(-1, keepdims=True))
    sm = e / e.sum(-1, keepdims=True)
    return sm * w, (x * w).sum(0), x.max(0), sm.sum(0)


@tile_op(dtype=float32, dims=["M", "N"])
def rows_and_columns(x, w):
    """A softmax (rowwise) with column sums of views (x * w, re-computed), of a value of the
    rowwise group (the softmax itself) and a column max: on CUDA one rowwise kernel accumulating
    the three column results per block of rows, then the kernel adding the blocks' partials."""
    return _rows_and_columns(x, w)


@tile_op(dtype=float32)
def rows_and_columns_static(x, w):
    return _rows_and_columns(x, w)


def _rows_and_columns_ref(x, w):
    e = np.exp(x - x.max(-1, keepdims=True))
    sm = e / e.sum(-1, keepdims=True)
    return [sm * w, (x * w).sum(0), x.max(0), sm.sum(0)]


@tile_op(dtype=uint8)
def u8_rows_and_columns(x):
    """Unsigned rows (x - row min) with unsigned column max / min accumulated in the rowwise kernel."""
    return x - x.min(-1, keepdims=True), x.max(0), x.min(0)


@tile_op(dtype=float32, dims=["B", "S", "H"])
def centered_with_bias_grad(x):
    """(batch, seq, hidden): rows over hidden, columns over (batch, seq)."""
    return x - x.mean(-1, keepdims=True), x.sum((0, 1))


def _ln_param_grads_ref(x, mu, rstd, dy):
    xhat = (x - mu) * rstd
    return (dy * xhat).sum(0), dy.sum(0), dy - (dy * xhat).mean(-1, keepdims=True)


def _rand(rng, shape, dt):
    if dt in (int32,):
        return rng.integers(-1000, 1000, shape).astype(np.int32)
    if dt in (uint8,):
        return rng.integers(0, 256, shape).astype(np.uint8)
    npdt = {float32: np.float32, float16: np.float16, bfloat16: ml_dtypes.bfloat16}[dt]
    return rng.standard_normal(shape).astype(npdt)


def _cases(rng):
    """(name, op, arrays, numpy reference of each result)."""
    out = []
    for shape in [(1, 1), (7, 13), (1000, 3), (3, 1000), (300, 67)]:
        x = _rand(rng, shape, float32)
        if x.size > 2:
            x.reshape(-1)[rng.integers(0, x.size)] = np.nan  # max / min / sum propagate NaN
        out.append((f"col_stats{shape}", col_stats, [x], [x.sum(0), x.max(0), x.min(0)]))
    x = _rand(rng, (1000, 129), float32)
    out.append(("col_sum_static", col_sum_static, [x], [x.sum(0)]))
    x = _rand(rng, (777, 64), float16)
    xf = x.astype(np.float32)
    out.append(("col_f16", col_f16, [x], [xf.sum(0).astype(np.float16), x.max(0)]))
    x = _rand(rng, (257, 40), bfloat16)
    out.append(("col_bf16", col_bf16, [x], [x.astype(np.float32).sum(0).astype(ml_dtypes.bfloat16)]))
    x = _rand(rng, (900, 7), int32)
    out.append(("col_int", col_int, [x], [x.sum(0, dtype=np.int32), x.max(0)]))
    x = _rand(rng, (513, 9), uint8)
    out.append(("col_u8", col_u8, [x], [x.max(0), x.min(0)]))
    x = _rand(rng, (3, 50, 12), float32)
    out.append(("lead_two", lead_two, [x], [x.sum((0, 1)), x.sum(1)]))
    for m, n in [(1, 1), (3, 7), (37, 129), (2, 4100), (1100, 3), (5, 1000)]:
        x, w = _rand(rng, (m, n), float32), _rand(rng, (n,), float32)
        out.append((f"rows_and_columns{(m, n)}", rows_and_columns, [x, w], _rows_and_columns_ref(x, w)))
    for m, n in [(64, 1024), (37, 1000), (3, 17000)]:  # rows held exactly / masked / the loop (V-wide)
        x, w = _rand(rng, (m, n), float32), _rand(rng, (n,), float32)
        args = [x, w]
        out.append((f"rows_and_columns_static{(m, n)}", rows_and_columns_static, args, _rows_and_columns_ref(x, w)))
    x = _rand(rng, (77, 33), uint8)
    out.append(("u8_rows_and_columns", u8_rows_and_columns, [x], [x - x.min(-1, keepdims=True), x.max(0), x.min(0)]))
    x = _rand(rng, (3, 41, 24), float32)
    ref = [x - x.mean(-1, keepdims=True), x.sum((0, 1))]
    out.append(("centered_with_bias_grad", centered_with_bias_grad, [x], ref))
    for m, n in [(1, 1), (67, 129), (300, 64)]:
        x, dy = _rand(rng, (m, n), float32), _rand(rng, (m, n), float32)
        mu, rstd = _rand(rng, (m, 1), float32), np.abs(_rand(rng, (m, 1), float32)) + 0.5
        args = [x, mu, rstd, dy]
        out.append((f"ln_param_grads{(m, n)}", ln_param_grads, args, list(_ln_param_grads_ref(*args))))
    return out


NAMES = [c[0] for c in _cases(np.random.default_rng(0))]


def _pick(rng, name):
    return next(c for c in _cases(rng) if c[0] == name)


def _check(got, want, name):
    got = got if isinstance(got, tuple | list) else (got,)
    assert len(got) == len(want), name
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, (name, g.shape, w.shape)
        if w.dtype.kind in "iu":
            np.testing.assert_array_equal(g, w, err_msg=name)
            continue
        tol = {np.dtype(np.float16): 1e-2, np.dtype(ml_dtypes.bfloat16): 3e-2}.get(w.dtype, 2e-5)
        w64, g64 = w.astype(np.float64), g.astype(np.float64)
        scale = max(1.0, float(np.nanmax(np.abs(w64), initial=0)))
        np.testing.assert_allclose(g64, w64, rtol=tol, atol=tol * scale, equal_nan=True, err_msg=name)


def _ptx(op, arrays, sm="sm_90a"):
    return emit_ptx(lower(op.module(*arrays), "hw", "cuda", sm=sm))


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
@pytest.mark.parametrize("sm", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name", NAMES)
def test_ptxas_accepts(rng, name, sm, tmp_path):
    _, op, arrays, _ = _pick(rng, name)
    path = tmp_path / "k.ptx"
    path.write_text(_ptx(op, arrays, sm))
    r = subprocess.run(
        [PTXAS, f"-arch={sm}", "-v", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    if sm == "sm_90a":
        assert " 0 bytes spill stores" in r.stderr, r.stderr


@needs_emulator
@pytest.mark.parametrize("mode", [{}, {"portable": True}], ids=["wave64", "portable"])
@pytest.mark.parametrize("name", NAMES)
def test_emulated_against_numpy(rng, name, mode):
    _, op, arrays, want = _pick(rng, name)
    _check(emulate(op, *arrays, **mode), want, name)


@needs_emulator
@pytest.mark.parametrize("blocks", [1, 3, 100000])
def test_emulated_column_blocks_option(rng, blocks):
    """Any `column-blocks` (one part, a few, one part per 8 rows per thread) gives the sums."""
    x = _rand(rng, (517, 33), float32)
    _check(emulate(col_sum_static, x, column_blocks=blocks), [x.sum(0)], "column_blocks")


@pytest.mark.parametrize(
    "name", [n for n in NAMES if n.startswith(("ln_param_grads", "rows_and", "u8_rows", "centered"))]
)
def test_cpu_against_numpy(rng, name):
    """The re-computing reduction group on the CPU (a parallel loop over the outputs; no column
    partials in rowwise groups there)."""
    _, op, arrays, want = _pick(rng, name)
    _check(op(*arrays), want, name)


def test_param_grads_share_one_walk(rng):
    """dgamma and dbeta: on the CPU one reduction group over dy and x next to the rowwise one; on
    CUDA (tile-fuse column-partials) both accumulate in the rowwise kernel, per block of rows,
    and a second kernel adds the blocks' partials: no temporary of the rows' size."""
    _, op, arrays, _ = _pick(rng, "ln_param_grads(67, 129)")
    for target, want in (("cpu", ["reduction", "rowwise"]), ("cuda", ["rowwise", "rowwise_columns"])):
        mapped_ir = op.ir("mapped", *arrays, target=target)
        kernels = [line.split("@")[1].split("(")[0] for line in mapped_ir.splitlines() if "mapped.kernel @" in line]
        assert sorted(k.split("grads_", 1)[1][2:] for k in kernels) == want, kernels
    host = mapped_ir[mapped_ir.index("mapped.host") :]
    assert host.count("mapped.temp") == 2, host  # the blocks' partials of each column sum


def test_rows_and_columns_take_one_rowwise_kernel(rng):
    """CUDA: the three column results join the softmax's rowwise kernel (column-partials), which
    walks chunks of rows (about column-blocks blocks) keeping the partials in registers, then
    `_columns` adds the blocks' partials; column-partials=false: the softmax's kernel, then the
    split column kernels (the softmax read back from a temporary)."""
    _, op, arrays, _ = _pick(rng, "rows_and_columns(37, 129)")

    def kernels(**options):
        text = op.ir("mapped", *arrays, target="cuda", **options)
        return [line.split("@")[1].split("(")[0] for line in text.splitlines() if "mapped.kernel @" in line], text

    names, text = kernels()
    assert names == ["rows_and_columns_0_rowwise", "rows_and_columns_0_rowwise_columns"], names
    host = text[text.index("mapped.host") :]
    assert host.count("mapped.temp") == 3, host  # one partial row per block, per column result
    names, text = kernels(column_partials=False)
    assert len(names) > 2 and any("reduction" in k for k in names), names


@needs_emulator
@pytest.mark.parametrize("column_partials", [True, False])
def test_emulated_column_partials_option(rng, column_partials):
    _, op, arrays, want = _pick(rng, "rows_and_columns(37, 129)")
    _check(emulate(op, *arrays, column_partials=column_partials), want, "rows_and_columns")


def test_mapping_is_split_across_blocks(rng):
    """A long column sum: a partials kernel over column blocks x parts (shared memory, a barrier)
    and the kernel combining the parts; four rows loaded per step of each thread's walk."""
    x = _rand(rng, (4096, 256), float32)
    mapped_ir = col_sum_static.ir("mapped", x, target="cuda")
    assert "@col_sum_static_0_reduction_partials" in mapped_ir and "@col_sum_static_0_reduction(" in mapped_ir
    assert "mapped.barrier" in mapped_ir and "shared>" in mapped_ir
    ptx = _ptx(col_sum_static, [x])
    assert ptx.count(".entry") == 2 and "bar.sync" in ptx
    assert ptx.count("ld.global.nc.v4.f32") >= 4  # 4 rows per step, 16-byte vectors


def test_short_static_columns_take_one_kernel(rng):
    x = _rand(rng, (20, 256), float32)
    ptx = _ptx(col_sum_static, [x])
    assert ptx.count(".entry") == 1 and "bar.sync" in ptx


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("name", NAMES)
def test_cuda_against_numpy(rng, name):
    _, op, arrays, want = _pick(rng, name)
    got = op(*[cp.asarray(a) for a in arrays])
    got = got if isinstance(got, tuple) else (got,)
    _check([cp.asnumpy(g) for g in got], want, name)


@pytest.mark.gpu
@needs_gpu
def test_cuda_large_column_sum_is_deterministic(rng):
    """The parts are combined in a fixed order: two runs give the same bits (no atomics)."""
    x = cp.asarray(_rand(rng, (16385, 4099), float32))
    a = col_stats(x)[0]
    b = col_stats(x)[0]
    assert cp.array_equal(a, b)
    ref = cp.asnumpy(x).astype(np.float64).sum(0)
    np.testing.assert_allclose(cp.asnumpy(a), ref, rtol=1e-4, atol=1e-3)
