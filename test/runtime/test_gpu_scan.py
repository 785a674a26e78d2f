"""Scans and arg-reductions on GPUs: the PTX of every program assembled by ptxas (sm_80, sm_90a),
the HIP C++ compiled by hipcc for gfx90a and RUN in the HIP emulator (test_hip_emulated.py: the
block reductions with 64-lane waves and the portable 32-lane form), and, marked `gpu`, run on an
NVIDIA GPU against numpy (skipping, saying so, without one). Each part skips without its tool
(ptxas, hipcc), saying which."""

from __future__ import annotations

import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest
import torch
from cpu_util import rand, rng  # noqa: F401
from gpu_util import HAVE_GPU, cp
from test_hip_emulated import CLANGXX, emulate

import tilec
from tilec import float16, float32, int8, int32, tile_op
from tilec.emit.ptx import emit_ptx
from tilec.runtime import lower
from tilec.toolchain.hipcc import find_hipcc

PTXAS = shutil.which("ptxas")


@tile_op(dtype=float32, dims=["A", "B", "C"])
def scans(x):
    return (
        tilec.cumsum(x * 2.0, 1) + 1.0,
        tilec.cumprod(x, 0, reverse=True),
        tilec.logcumsumexp(x, 2),
        tilec.cumsum(x, 2, exclusive=True),
    )


@tile_op(dtype=float32, dims=["M", "N"])
def argmax_with_max(x):
    return tilec.max(x, -1), tilec.argmax(x, -1), tilec.argmin(x, 0)


@tile_op(dtype=float32, dims=["A", "B"])
def argmax_all(x):
    """axis=None: one block reduces the whole tile (row-major index over both axes)."""
    return tilec.argmax(x), tilec.argmin(x, axis=None, keepdims=True)


@tile_op(dtype=float16, dims=["M", "N"])
def f16_scan_argmin(x):
    return tilec.cumsum(x, -1), tilec.argmin(x, -1)


@tile_op(dtype=int32, dims=["N"])
def int_scan(x):
    return tilec.cumsum(x, 0, reverse=True)


@tile_op(dtype=float32, dims=["A", "N"])
def row_scans(x):
    """Long rows: the block scan (a scan of a scan, exclusive, logaddexp, an epilogue)."""
    c = tilec.cumsum(x * 2.0, 1)
    return c + 1.0, tilec.cumsum(c, 1), tilec.cumprod(x, 1, exclusive=True), tilec.logcumsumexp(x, 1)


@tile_op(dtype=float32, dims=["A", "N"])
def reverse_rows(x):
    return tilec.cumsum(x, 1, reverse=True, exclusive=True), tilec.logcumsumexp(x, 1, reverse=True)


@tile_op(dtype=float32)
def few_columns(x, y):
    """Few long lines along a non-last axis (static sizes): one block per line, strided reads."""
    return tilec.cumsum(x, 0), tilec.logcumsumexp(y, 1, reverse=True) * 2.0


@tile_op(dtype=float32, dims=["N"])
def long_1d(x):
    """A 1-d scan of `?` length: split across blocks (reduce-then-scan, two kernels)."""
    return tilec.cumsum(x, 0) * 0.5, tilec.cumsum(x, 0, reverse=True, exclusive=True)


@tile_op(dtype=int8, dims=["A", "N"])
def i8_rows(x):
    return tilec.cumsum(x, 1), tilec.cumprod(x, 1, reverse=True)


def _awkward(rng, shape, dt=float32):
    x = np.round(rand(rng, shape, dt, -3, 3))
    flat = x.reshape(-1)
    flat[rng.integers(0, flat.size, max(1, flat.size // 19))] = np.nan
    return x


def _programs(rng):
    x3 = rand(rng, (3, 5, 7), float32, 0.6, 1.4)
    return [
        ("scans", scans, [x3]),
        ("argmax_with_max", argmax_with_max, [_awkward(rng, (6, 1001))]),
        ("argmax_short_rows", argmax_with_max, [_awkward(rng, (37, 5))]),
        ("argmax_all", argmax_all, [_awkward(rng, (37, 501))]),
        ("f16_scan_argmin", f16_scan_argmin, [rand(rng, (4, 300), float16)]),
        ("int_scan", int_scan, [rand(rng, (1000,), int32, -(2**30), 2**30)]),
        ("row_scans", row_scans, [rand(rng, (3, 1001), float32, 0.99, 1.01)]),
        ("reverse_rows", reverse_rows, [rand(rng, (2, 3001), float32)]),
        ("i8_rows", i8_rows, [rand(rng, (2, 77), int8, -100, 100)]),
        ("long_1d", long_1d, [rand(rng, (2 * 16384 + 5,), float32)]),
        ("few_columns", few_columns, [rand(rng, (1000, 3), float32), rand(rng, (2, 300, 5), float32)]),
    ]


NAMES = [
    "scans",
    "argmax_with_max",
    "argmax_short_rows",
    "argmax_all",
    "f16_scan_argmin",
    "int_scan",
    "row_scans",
    "reverse_rows",
    "i8_rows",
    "long_1d",
    "few_columns",
]


def _pick(rng, name):
    return next(p for p in _programs(rng) if p[0] == name)


def _check(got, want, name):
    got = got if isinstance(got, tuple | list) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, name
        if g.dtype.kind == "f":
            # the block scan adds in another order than the interpreter: errors scale with the
            # largest partial sum (relative to the largest reference magnitude, as test_gpu.py); a
            # 16-bit result may round the other way from a nearly equal f32 sum: one ulp of its type
            w64 = w.astype(np.float64)
            scale = max(1.0, float(np.nanmax(np.abs(w64[np.isfinite(w64)]), initial=0)))
            rtol = max(2e-5, float(ml_dtypes.finfo(g.dtype).eps)) if g.dtype.itemsize < 4 else 2e-5
            np.testing.assert_allclose(g.astype(np.float64), w64, rtol=rtol, atol=2e-5 * scale, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)


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
    if sm == "sm_90a":
        assert " 0 bytes spill stores" in r.stderr, r.stderr


@pytest.mark.skipif(find_hipcc() is None or CLANGXX is None, reason="hipcc (and its clang++) is not installed")
@pytest.mark.parametrize("mode", [{}, {"portable": True}], ids=["wave64", "portable"])
@pytest.mark.parametrize("name", NAMES)
def test_hip_compiles_and_runs_emulated(rng, name, mode):
    _, op, arrays = _pick(rng, name)
    k = op.compile("hip", *arrays, **mode)
    for m in k.metadata().values():
        assert m["private_segment_fixed_size"] == 0 and m["vgpr_spill_count"] == 0, m
    _check(emulate(op, *arrays, **mode), tilec.interpret(op, *arrays), name)


def test_row_scan_is_a_block_scan(rng):
    """A scan along long rows: one block per row with barriers (the shared-memory scan), no
    thread walking a whole row."""
    _, op, arrays = _pick(rng, "row_scans")
    ptx = emit_ptx(lower(op.module(*arrays), "hw", "cuda", sm="sm_90a"))
    assert ptx.count(".entry") == 1 and "bar.sync" in ptx and ".shared" in ptx


def test_few_long_columns_take_blocks(rng):
    _, op, arrays = _pick(rng, "few_columns")
    ptx = emit_ptx(lower(op.module(*arrays), "hw", "cuda", sm="sm_90a"))
    assert ptx.count(".entry") == 2 and ptx.count("bar.sync") >= 2


def test_long_scan_is_one_pass(rng):
    """A long 1-d scan is ONE kernel per group that reads its input once and writes once: a tile
    per block taken by ticket (one atomic), four 16-byte vector loads and stores per thread on
    the aligned whole-tile path, the prefix from a decoupled look-back (relaxed 64-bit flag
    words in a spin loop); the status words are a zeroed temporary, no other temporary."""
    _, op, arrays = _pick(rng, "long_1d")
    ptx = emit_ptx(lower(op.module(*arrays), "hw", "cuda", sm="sm_90a"))
    kernels = ptx.split(".visible .entry")[1:]
    assert len(kernels) == 2  # the two directions are two groups
    for k in kernels:
        assert k.count("atom.global.add.u64") == 1
        assert k.count("ld.global.nc.v4.f32") == 4 and k.count("st.global.v4.f32") == 4
        assert "ld.relaxed.gpu.global.b64" in k and "st.relaxed.gpu.global.b64" in k
        assert "_partials" not in k
    mir = op.ir("mapped", *arrays, target="cuda")
    assert mir.count("mapped.temp zeroed") == 2 and mir.count("mapped.temp") == 2
    assert mir.count("mapped.lookback") == 2 and mir.count("mapped.block_ticket") == 2
    assert mir.count("mapped.launch") == 2


def test_argmax_rows_use_block_reductions(rng):
    """A GPU argmax over rows: one block per row, the max and the index each one block reduction
    (shuffles), in the same kernel as the max."""
    _, op, arrays = _pick(rng, "argmax_with_max")
    ptx = emit_ptx(lower(op.module(*arrays), "hw", "cuda", sm="sm_90a"))
    assert ptx.count(".entry") == 2  # rows (max + argmax), and argmin over axis 0
    assert "shfl.sync.bfly" in ptx


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
@pytest.mark.parametrize("name", NAMES)
def test_cuda_runs(rng, name):
    _, op, arrays = _pick(rng, name)
    got = op(*[cp.asarray(a) for a in arrays])
    got = got if isinstance(got, tuple) else (got,)
    _check([cp.asnumpy(g) for g in got], tilec.interpret(op, *arrays), name)


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
def test_cuda_long_cumsum_and_torch_tensors(rng):
    """A 2**20 + 1 cumsum and a logcumsumexp of torch CUDA tensors, against torch on the device."""

    @tile_op(dtype=float32)
    def f(x):
        return tilec.cumsum(x, 0)

    x = rand(rng, (2**20 + 1,), float32, -1.0, 1.0)
    got = cp.asnumpy(f(cp.asarray(x))).astype(np.float64)
    # split across blocks: another order of additions than numpy's, within 1e-5 of the largest
    # partial sum of |x| (the sequential bound would be n * 2**-24 = 6e-2 of it)
    bound = 1e-5 * np.cumsum(np.abs(x.astype(np.float64))).max()
    assert np.abs(got - np.cumsum(x.astype(np.float64))).max() <= bound

    @tile_op(dtype=float32, dims=["M", "N"])
    def g(x):
        return tilec.logcumsumexp(x, 1)

    t = torch.from_numpy(rand(rng, (33, 513), float32, -50, 50)).cuda()
    torch.testing.assert_close(g(t), torch.logcumsumexp(t, 1), rtol=1e-5, atol=1e-5)


# --- the single-pass tiled scan (scan_gpu.py) ------------------------------------------------------

SMALL_TILES = {"threads": 64, "scan_items": 4}
"""256-element tiles: many tiles per line, so the look-back walks back over many blocks."""
SCAN_FNS = {"add": tilec.cumsum, "mul": tilec.cumprod, "logaddexp": tilec.logcumsumexp}
SCAN_CASES = [
    ("add", False, False),
    ("add", True, True),
    ("add", False, True),
    ("mul", True, False),
    ("logaddexp", False, False),
    ("logaddexp", True, False),
]


def _scan_op(kind, dt, reverse, exclusive, dims=("N",)):
    fn = SCAN_FNS[kind]
    kw = {"reverse": reverse} | ({"exclusive": exclusive} if kind != "logaddexp" else {})

    @tile_op(dtype=dt, dims=list(dims))
    def f(x):
        return fn(x, -1, **kw)

    return f


def _scan_input(rng, kind, shape, dt):
    if np.dtype(dt.np).kind in "iu":
        return rand(rng, shape, dt, -100, 100)
    if kind == "mul":  # products of many factors stay finite: factors near 1
        return rand(rng, shape, dt, 0.999, 1.001)
    return rand(rng, shape, dt, -5.0, 5.0)


def _scan_reference(kind, x, reverse, exclusive):
    """The scan along the last axis in float64 (numpy)."""
    y = x.astype(np.float64)
    if reverse:
        y = y[..., ::-1]
    acc = {"add": np.cumsum, "mul": np.cumprod, "logaddexp": np.logaddexp.accumulate}[kind](y, axis=-1)
    if exclusive:
        first = np.full(acc.shape[:-1] + (1,), 0.0 if kind == "add" else 1.0)
        acc = np.concatenate([first, acc[..., :-1]], axis=-1)
    return acc[..., ::-1] if reverse else acc


def _check_scan(got, x, kind, reverse, exclusive, op, what=""):
    """Integers exactly as the interpreter (they wrap); floats against float64 within what any
    order of the combinations allows: sums within 1e-5 (f32) of the largest partial sum of |x|,
    products within 2 n u relative (n factors), log-sum-exp within 1e-5 relative + absolute."""
    got = np.asarray(got)
    assert got.shape == x.shape and got.dtype == x.dtype, what
    if x.dtype.kind in "iu":
        np.testing.assert_array_equal(got, tilec.interpret(op, x), err_msg=what)
        return
    ref = _scan_reference(kind, x, reverse, exclusive)
    g = got.astype(np.float64)
    u = {np.float32: 2.0**-24, np.float64: 2.0**-53, np.float16: 2.0**-11}[x.dtype.type]
    n = x.shape[-1]
    if kind == "add":
        bound = 200 * u * float(np.cumsum(np.abs(x.astype(np.float64)), axis=-1).max(initial=0)) + 1e-30
        err = float(np.abs(g - ref).max(initial=0))
        assert err <= bound, f"{what}: error {err} > {bound}"
    elif kind == "mul":
        err = float(np.abs(g / ref - 1).max(initial=0))
        assert err <= 2 * n * u + 1e-6, f"{what}: relative error {err}"
    else:
        np.testing.assert_allclose(g, ref, rtol=max(1e-5, 64 * u), atol=max(1e-5, 64 * u), err_msg=what)


@pytest.mark.skipif(find_hipcc() is None or CLANGXX is None, reason="hipcc (and its clang++) is not installed")
@pytest.mark.parametrize("kind,reverse,exclusive", SCAN_CASES)
def test_tiled_scan_emulated(rng, kind, reverse, exclusive):
    """The tiled scan with a look-back in the HIP emulator (blocks run one after another, so each
    finds its predecessor's inclusive prefix): lengths 1, around one tile, primes, many tiles;
    64-lane waves and the portable 32-lane form."""
    op = _scan_op(kind, float32, reverse, exclusive)
    for n, mode in ((1, {}), (255, {"portable": True}), (257, {}), (4099, {"portable": True}), (2**14 + 3, {})):
        x = _scan_input(rng, kind, (n,), float32)
        _check_scan(emulate(op, x, **mode, **SMALL_TILES), x, kind, reverse, exclusive, op, f"n={n} {mode}")


@pytest.mark.skipif(find_hipcc() is None or CLANGXX is None, reason="hipcc (and its clang++) is not installed")
@pytest.mark.parametrize("dt,kind", [("float64", "add"), ("float64", "mul"), ("int32", "add"), ("int8", "mul")])
def test_tiled_scan_types_emulated(rng, dt, kind):
    """64-bit values (flag and values in separate words, release / acquire), 32-bit integers,
    8-bit integers (exchanged as i32, wrapping like the interpreter)."""
    dt = tilec.as_dtype(dt)
    op = _scan_op(kind, dt, True, False)
    for n in (3, 1031):
        x = _scan_input(rng, kind, (n,), dt)
        _check_scan(emulate(op, x, **SMALL_TILES), x, kind, True, False, op, f"{dt.name} n={n}")


@pytest.mark.skipif(find_hipcc() is None or CLANGXX is None, reason="hipcc (and its clang++) is not installed")
def test_tiled_scan_rows_emulated(rng):
    """Rows: a static count below the look-back limit (a tile per block across the lines) and a
    dynamic count (a block per line, its tiles in a loop carrying the prefix)."""

    @tile_op(dtype=float32)
    def static_rows(x):
        return tilec.cumsum(x, -1)

    dynamic_rows = _scan_op("add", float32, False, False, dims=("A", "N"))
    for op, shape in ((static_rows, (3, 1001)), (dynamic_rows, (5, 999))):
        x = _scan_input(rng, "add", shape, float32)
        _check_scan(emulate(op, x, **SMALL_TILES), x, "add", False, False, op, f"rows {shape}")


@pytest.mark.skipif(find_hipcc() is None or CLANGXX is None, reason="hipcc (and its clang++) is not installed")
def test_tiled_scan_2_20_plus_1_emulated(rng):
    x = _scan_input(rng, "add", (2**20 + 1,), float32)
    op = _scan_op("add", float32, False, False)
    _check_scan(emulate(op, x), x, "add", False, False, op, "2^20+1")


@pytest.mark.skipif(find_hipcc() is None or CLANGXX is None, reason="hipcc (and its clang++) is not installed")
@pytest.mark.parametrize("per_block", [2, 4])
def test_tiled_scan_tiles_per_block_emulated(rng, per_block):
    """Blocks that scan several tiles in a loop, taking the next ticket during the loads (the
    last round takes none: every ticket taken is scanned); more blocks than tiles need, fewer."""
    op = _scan_op("add", float32, True, False)
    for n in (1, 300, 2000, 5003):
        x = _scan_input(rng, "add", (n,), float32)
        got = emulate(op, x, portable=True, threads=32, scan_items=4, scan_tiles_per_block=per_block)
        _check_scan(got, x, "add", True, False, op, f"n={n}")


class _GarbageDevice:
    """The emulator's device, whose fresh buffers hold garbage (0xA5 bytes) rather than zeros:
    a kernel that read a temporary before writing it, or a look-back whose status words were
    not cleared (`mapped.temp zeroed`), would see it."""

    def __init__(self, kernel):
        from test_hip_emulated import _EmuDevice

        self.inner = _EmuDevice(kernel)

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def empty(self, shape, dtype):
        b = np.empty(tuple(shape), dtype)
        b.view(np.uint8)[...] = 0xA5
        return b


@pytest.mark.skipif(find_hipcc() is None or CLANGXX is None, reason="hipcc (and its clang++) is not installed")
def test_tiled_scan_status_words_are_zeroed(rng):
    op = _scan_op("add", float32, False, False)
    k = op.compile("hip", np.zeros(700, np.float32), **SMALL_TILES)
    for n in (700, 1500):  # the same kernel again: its temporaries are new every call
        x = _scan_input(rng, "add", (n,), float32)
        (got,) = k._run(_GarbageDevice(k), (x,))
        _check_scan(got, x, "add", False, False, op, f"n={n}")


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
@pytest.mark.parametrize("sm", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("dt", ["float32", "float64", "int8", "float16"])
def test_tiled_scan_ptxas(rng, dt, sm, tmp_path):
    dt = tilec.as_dtype(dt)
    for kind in ("add", "mul") if np.dtype(dt.np).kind in "iu" else ("add", "logaddexp"):
        op = _scan_op(kind, dt, True, False)
        path = tmp_path / f"{kind}.ptx"
        path.write_text(emit_ptx(lower(op.module(_scan_input(rng, kind, (5000,), dt)), "hw", "cuda", sm=sm)))
        r = subprocess.run(
            [PTXAS, f"-arch={sm}", "-v", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True
        )
        assert r.returncode == 0, r.stderr


HAVE_TORCH_CUDA = HAVE_GPU and torch.cuda.is_available()


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
@pytest.mark.parametrize("kind,reverse,exclusive", SCAN_CASES)
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_cuda_tiled_scan(rng, kind, reverse, exclusive, dt):
    """On the GPU, where blocks run concurrently: lengths 1, primes, 2^20 + 1 and 3 * 2^20 + 7,
    with the default tiles and with small ones (12,000+ tiles: look-backs over many windows of
    aggregates); each result against float64 numpy."""
    dt = tilec.as_dtype(dt)
    op = _scan_op(kind, dt, reverse, exclusive)
    for opts in ({}, SMALL_TILES):
        k = op.compile("cuda", np.zeros(5, dt.np), **opts)
        for n in (1, 2, 4099, 65537, 2**20 + 1, 3 * 2**20 + 7):
            x = _scan_input(rng, kind, (n,), dt)
            (got,) = k(cp.asarray(x))
            _check_scan(cp.asnumpy(got), x, kind, reverse, exclusive, op, f"n={n} {opts}")


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
@pytest.mark.parametrize("per_block", [2, 4, 8])
def test_cuda_tiled_scan_tiles_per_block(rng, per_block):
    for kind, reverse, exclusive in SCAN_CASES[:2] + SCAN_CASES[4:5]:
        op = _scan_op(kind, float32, reverse, exclusive)
        for opts in ({}, SMALL_TILES):
            k = op.compile("cuda", np.zeros(5, np.float32), scan_tiles_per_block=per_block, **opts)
            for n in (3, 4099, 2**20 + 1, 3 * 2**20 + 7):
                x = _scan_input(rng, kind, (n,), float32)
                (got,) = k(cp.asarray(x))
                _check_scan(cp.asnumpy(got), x, kind, reverse, exclusive, op, f"n={n} {opts} x{per_block}")


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
@pytest.mark.parametrize("dt,kind", [("int32", "add"), ("int8", "add"), ("int32", "mul"), ("float16", "add")])
def test_cuda_tiled_scan_types(rng, dt, kind):
    dt = tilec.as_dtype(dt)
    for reverse in (False, True):
        op = _scan_op(kind, dt, reverse, False)
        for n in (7, 4099, 2**20 + 1):
            x = _scan_input(rng, kind, (n,), dt)
            got = cp.asnumpy(op(cp.asarray(x)))
            if dt.name == "float16":
                ref = tilec.interpret(op, x).astype(np.float64)
                np.testing.assert_allclose(
                    got.astype(np.float64), ref, rtol=1e-2, atol=1e-2 * max(1, np.abs(ref).max())
                )
            else:
                _check_scan(got, x, kind, reverse, False, op, f"{dt.name} n={n}")


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
def test_cuda_tiled_scan_rows_misaligned_and_repeated(rng):
    """Rows (a static count: look-back across lines; a dynamic count: a block per line), an input
    that starts 4 bytes into its allocation (the vector path must not be taken) and the same
    kernel called again (fresh zeroed status words each call)."""
    op = _scan_op("add", float32, False, False)
    x = _scan_input(rng, "add", (2**20 + 2,), float32)
    xd = cp.asarray(x)
    for _ in range(3):
        _check_scan(cp.asnumpy(op(xd[1:])), x[1:], "add", False, False, op, "offset by one element")
        _check_scan(cp.asnumpy(op(xd)), x, "add", False, False, op, "again")

    @tile_op(dtype=float32)
    def static_rows(x):
        return tilec.cumsum(x, -1, reverse=True)

    rows_dyn = _scan_op("logaddexp", float32, False, False, dims=("M", "N"))
    for shape in ((3, 100003), (7, 4096)):
        x = _scan_input(rng, "add", shape, float32)
        _check_scan(cp.asnumpy(static_rows(cp.asarray(x))), x, "add", True, False, static_rows, f"static {shape}")
        x = _scan_input(rng, "logaddexp", shape, float32)
        _check_scan(cp.asnumpy(rows_dyn(cp.asarray(x))), x, "logaddexp", False, False, rows_dyn, f"dynamic {shape}")


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
def test_cuda_logcumsumexp_edges():
    """Infinities, NaN and large dynamic range through the pair formulation, against the
    interpreter (tile.scan's log-add-exp)."""
    op = _scan_op("logaddexp", float32, False, False)
    inf, nan = np.inf, np.nan
    cases = [
        [-inf, -inf, 3.0, -inf, 1.0],
        [inf, 1.0, inf, -inf],
        [-inf, inf, 2.0],
        [1.0, nan, 2.0],
        [-200.0, 0.0, -300.0, 50.0, -1e30],
        [-inf] * 5000 + [1.0] * 5000,
    ]
    for c in cases:
        x = np.asarray(c, np.float32)
        want = tilec.interpret(op, x)
        got = cp.asnumpy(op(cp.asarray(x)))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True)


# --- max and argmax of rows in one pass (GpuKernelGen.arg_pair) -------------------------------------


def _max_argmin_op(dt):
    @tile_op(dtype=dt, dims=["M", "N"])
    def f(x):
        return tilec.max(x, -1), tilec.argmax(x, -1), tilec.min(x, -1), tilec.argmin(x, -1)

    return f


def _arg_input(rng, dt, shape):
    if np.dtype(dt.np).kind == "f":
        x = np.round(rand(rng, shape, dt, -3, 3))  # ties
        x[0, 5] = np.nan  # NaN: the first one wins, the value is NaN
        x[0, shape[1] - 3] = np.nan
        x[1, :] = -0.0  # -0 and +0 are equal: the first index wins
        x[1, 7] = 0.0
        x[2, :] = -np.inf
        return x
    info = np.iinfo(dt.np)
    return rng.integers(info.min, info.max, shape, endpoint=True).astype(dt.np)


def _arg_check(got, want, what):
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype, what
        np.testing.assert_array_equal(g, w, err_msg=what)


def test_max_argmax_is_one_pass(rng):
    """max + argmax of rows of dynamic length read each row once: four vector loads per step on
    the checked vector path, four scalar loads on the other, nothing else from global memory."""

    @tile_op(dtype=float32, dims=["M", "N"])
    def max_argmax(x):
        return tilec.max(x, -1), tilec.argmax(x, -1)

    ptx = emit_ptx(lower(max_argmax.module(np.zeros((4, 64), np.float32)), "hw", "cuda", sm="sm_90a"))
    assert ptx.count(".entry") == 1
    assert ptx.count("ld.global.nc.v4.f32") == 4 and ptx.count("ld.global.nc.f32") == 4
    assert ptx.count("ld.global") == 8


@pytest.mark.skipif(find_hipcc() is None or CLANGXX is None, reason="hipcc (and its clang++) is not installed")
@pytest.mark.parametrize(
    "dt,shape",
    [("float32", (6, 1000)), ("float32", (5, 1003)), ("uint8", (4, 640)), ("int32", (3, 2048)), ("int8", (3, 99))],
)
def test_arg_pairs_emulated(rng, dt, shape):
    """max, argmax, min, argmin of rows in one pass each, bit for bit as the interpreter: ties
    (the first index), NaN (the first NaN; the value NaN), -0 against +0, all -inf, unsigned and
    narrow integers; rows a multiple of the vector (the vector path) and not."""
    dt = tilec.as_dtype(dt)
    op = _max_argmin_op(dt)
    x = _arg_input(rng, dt, shape)
    want = tilec.interpret(op, x)
    for mode in ({}, {"portable": True}):
        _arg_check(emulate(op, x, **mode), want, f"{dt.name} {shape} {mode}")


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
@pytest.mark.parametrize("dt", ["float32", "float16", "uint8", "int32"])
def test_cuda_arg_pairs(rng, dt):
    dt = tilec.as_dtype(dt)
    op = _max_argmin_op(dt)
    for shape in ((6, 1000), (5, 1003), (3, 32000), (40, 4096)):
        x = _arg_input(rng, dt, shape)
        got = [cp.asnumpy(g) for g in op(cp.asarray(x))]
        _arg_check(got, tilec.interpret(op, x), f"{dt.name} {shape}")
    x = cp.asarray(_arg_input(rng, dt, (3, 4097)))
    got = [cp.asnumpy(g) for g in op(x[:, 1:])]  # rows starting 1 element into the buffer: scalar path
    _arg_check(got, tilec.interpret(op, cp.asnumpy(x[:, 1:])), f"{dt.name} offset")
