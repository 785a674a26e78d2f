"""fp8 (float8_e4m3fn, float8_e5m2): conversions bit-exact against torch, in tilec/fp8.py's
reference (the interpreter's), in compiled C, in the HIP C++ run by the emulator; elementwise
chains and contractions with f32 accumulation on awkward shapes; the PTX of the same programs
assembled by ptxas (sm_80, sm_90a), HIP compiled by hipcc, and the CUDA runs (skipped without a
GPU); the errors. torch's rules (torch >= 2.6; ml_dtypes differs): round to nearest even,
e4m3fn saturates at +-448 (inf too), e5m2 overflows to inf, f64 and ints round through f32."""

from __future__ import annotations

import os
import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest
import torch
from gpu_util import HAVE_GPU, cp
from test_hip_emulated import CLANGXX, emulate

import tilec
from tilec import bfloat16, float16, float32, float64, tile_contract, tile_op
from tilec.fp8 import E4M3FN, E5M2, from_fp8_bits, to_fp8_bits
from tilec.runtime.dtypes import FP8  # (ml_dtypes gives e4m3fn kind "V" but e5m2 kind "f")
from tilec.toolchain.hipcc import find_hipcc

F8 = [(tilec.float8_e4m3fn, E4M3FN, torch.float8_e4m3fn), (tilec.float8_e5m2, E5M2, torch.float8_e5m2)]
F8_IDS = ["e4m3fn", "e5m2"]
PTXAS = shutil.which("ptxas")

needs_gpu = (pytest.mark.gpu, pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine"))
needs_ptxas = pytest.mark.skipif(PTXAS is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
rng = np.random.default_rng()

CODES = np.arange(256, dtype=np.uint8)
F16_ALL = np.arange(65536, dtype=np.uint16).view(np.float16)


def special_f32() -> np.ndarray:
    """Edges: zeros, inf, nan, the largest values and their rounding boundaries, subnormals of
    both formats and their halfway points, f32 subnormals, and random bit patterns."""
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 448, 449, 463.99, 464, 464.01, 479.99, 480, 1e30]
    edges += [57344, 57345, 61439.99, 61440, 61440.01, 65536, 3.4e38, 1e-45, 2**-126, 2**-149]
    for fmt_min_sub in (2.0**-9, 2.0**-16):
        for k in range(0, 9):
            edges += [fmt_min_sub * (k + 0.5), fmt_min_sub * k, np.nextafter(np.float32(fmt_min_sub * (k + 0.5)), 0)]
    codes_f32 = np.concatenate([from_fp8_bits(CODES, E4M3FN), from_fp8_bits(CODES, E5M2)])
    mids = (codes_f32[:-1].astype(np.float64) + codes_f32[1:]) / 2  # halfway points (ties)
    x = np.array(edges, np.float32)
    x = np.concatenate([x, -x, codes_f32, mids.astype(np.float32)])
    return np.concatenate([x, rng.integers(0, 2**32, 4096, dtype=np.uint64).astype(np.uint32).view(np.float32)])


def torch_to_fp8(x: np.ndarray, tdt) -> np.ndarray:
    return torch.from_numpy(np.ascontiguousarray(x)).to(tdt).view(torch.uint8).numpy()


def torch_from_fp8(codes: np.ndarray, tdt, to) -> np.ndarray:
    return torch.from_numpy(np.ascontiguousarray(codes)).view(tdt).to(to)


def bits(a) -> np.ndarray:
    a = np.ascontiguousarray(np.asarray(a))
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


# --- the reference (tilec/fp8.py) and the interpreter against torch ------------------------------


@pytest.mark.parametrize("dt, fmt, tdt", F8, ids=F8_IDS)
def test_reference_matches_torch(dt, fmt, tdt):
    np.testing.assert_array_equal(bits(from_fp8_bits(CODES, fmt)), bits(torch_from_fp8(CODES, tdt, torch.float32)))
    for x in (F16_ALL.astype(np.float32), special_f32()):
        np.testing.assert_array_equal(to_fp8_bits(x, fmt), torch_to_fp8(x, tdt))


@pytest.mark.parametrize("dt, fmt, tdt", F8, ids=F8_IDS)
def test_interpreter_casts_match_torch(dt, fmt, tdt):
    f8 = CODES.view(dt.np)
    for to, tto in ((float32, torch.float32), (float16, torch.float16), (bfloat16, torch.bfloat16)):
        got = tilec.interpret(_cast(dt, to), f8)
        want = torch_from_fp8(CODES, tdt, tto)
        want = bits(want.view(torch.int16).numpy() if tto == torch.bfloat16 else want.numpy())
        same_but_nan_signs(bits(got), want, to)
    for src, x in ((float16, F16_ALL), (float32, special_f32()), (float64, _f64_cases())):
        got = tilec.interpret(_cast(src, dt), x)
        np.testing.assert_array_equal(bits(got), torch_to_fp8(x, tdt))
    ints = np.array([0, 1, -1, 17, 19, 300, 465, 60000, 10**6, -(10**9), 2**62], np.int64)
    np.testing.assert_array_equal(bits(tilec.interpret(_cast(tilec.int64, dt), ints)), torch_to_fp8(ints, tdt))


def same_but_nan_signs(got_bits, want_bits, to):
    """Bit-exact, except that a NaN below f32 (f16, bf16) or in f64 need only be a NaN: torch's
    f32 -> f16 drops the sign, numpy's keeps the payload, C's prelude gives the canonical NaN
    (that is the f32 -> f16 conversion, not fp8's)."""
    if to in (float16, bfloat16, float64):
        np_t = {float16: np.float16, bfloat16: ml_dtypes.bfloat16, float64: np.float64}[to]
        nan_w, nan_g = np.isnan(want_bits.view(np_t)), np.isnan(got_bits.view(np_t))
        np.testing.assert_array_equal(nan_g, nan_w, err_msg=str(to))
        got_bits, want_bits = got_bits[~nan_w], want_bits[~nan_w]
    np.testing.assert_array_equal(got_bits, want_bits, err_msg=str(to))


def _f64_cases() -> np.ndarray:
    """f64 values whose direct rounding to fp8 differs from rounding through f32 (torch rounds twice)."""
    x = np.array([1.0625 + 2**-40, 1.0625 - 2**-40, 2**-10 + 2**-60, 464 + 2**-30, 61440 - 2**-30, 1e300, -1e-300])
    with np.errstate(invalid="ignore"):
        return np.concatenate([x, special_f32().astype(np.float64)])


def _cast(src, dst):
    @tile_op(dtype=src, dims=["N"])
    def cast(x):
        return x.astype(dst)

    return cast


# --- compiled C, bit-exact -----------------------------------------------------------------------


@pytest.mark.parametrize("dt, fmt, tdt", F8, ids=F8_IDS)
def test_c_casts_bit_exact(dt, fmt, tdt):
    f8 = CODES.view(dt.np)
    for to in (float32, float16, bfloat16, float64, tilec.int32, tilec.uint8, tilec.bool_):
        op = _cast(dt, to)
        same_but_nan_signs(bits(op(f8)), bits(tilec.interpret(op, f8)), to)
    for src, x in ((float16, F16_ALL), (float32, special_f32()), (float64, _f64_cases())):
        np.testing.assert_array_equal(bits(_cast(src, dt)(x)), torch_to_fp8(x, tdt), err_msg=str(src))
    ints = rng.integers(-1000, 1000, 997).astype(np.int32)
    np.testing.assert_array_equal(bits(_cast(tilec.int32, dt)(ints)), torch_to_fp8(ints, tdt))
    other = E5M2 if fmt is E4M3FN else E4M3FN
    odt = tilec.float8_e5m2 if fmt is E4M3FN else tilec.float8_e4m3fn
    np.testing.assert_array_equal(bits(_cast(dt, odt)(f8)), to_fp8_bits(from_fp8_bits(CODES, fmt), other))
    u8 = tilec.bitcast  # fp8 <-> its code: the same byte (except NaN payloads, canonicalized)

    @tile_op(dtype=dt, dims=["N"])
    def as_bytes(x):
        return u8(x, tilec.uint8)

    finite = CODES[~np.isnan(from_fp8_bits(CODES, fmt))]
    np.testing.assert_array_equal(as_bytes(finite.view(dt.np)), finite)


def _chain(dt, dims=("M", "N")):
    @tile_op(dtype=dt, dims=list(dims))
    def chain(x, y):
        return (x * y + x) * 0.5 - tilec.maximum(x, y)

    return chain


def _chain_f32(x, y):
    x, y = x.astype(np.float32), y.astype(np.float32)
    return (x * y + x) * np.float32(0.5) - np.maximum(x, y)


def rand8(shape, dt, scale=4.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32).astype(dt.np)


@pytest.mark.parametrize("dt, fmt, tdt", F8, ids=F8_IDS)
@pytest.mark.parametrize("shape", [(1, 1), (7, 13), (3, 67)])
def test_c_elementwise_chain(dt, fmt, tdt, shape):
    """Compiled code computes the chain in f32 and rounds once, at the store (as for 16-bit
    floats): exactly numpy's f32 chain rounded to fp8. The interpreter rounds after every op:
    exactly that, emulated with f32 ops and torch's rounding."""
    x, y = rand8(shape, dt), rand8(shape, dt)
    got = _chain(dt)(x, y)
    assert got.dtype == dt.np
    np.testing.assert_array_equal(bits(got), to_fp8_bits(_chain_f32(x, y), fmt))

    def r(v):
        return from_fp8_bits(to_fp8_bits(v, fmt), fmt)

    xf, yf = x.astype(np.float32), y.astype(np.float32)
    per_op = r(r(r(r(xf * yf) + xf) * np.float32(0.5)) - np.maximum(xf, yf))
    np.testing.assert_array_equal(bits(tilec.interpret(_chain(dt), x, y)), to_fp8_bits(per_op, fmt))


def _reduce(dt):
    @tile_op(dtype=dt, dims=["M", "N"])
    def reduce(x):
        return tilec.sum(x, axis=1), tilec.max(x, axis=0)

    return reduce


def quarters(shape, dt):
    """Multiples of 1/4 in [-2, 2]: exact in both formats, and their f32 sums are exact."""
    return (rng.integers(-8, 9, shape) / 4).astype(np.float32).astype(dt.np)


@pytest.mark.parametrize("dt, fmt, tdt", F8, ids=F8_IDS)
def test_dynamic_size_as_a_value(dt, fmt, tdt):
    """`x / x.shape[-1]` on a `?` axis: the runtime size rounded to fp8 first (37 -> 36 or 40)."""

    @tile_op(dtype=dt, dims=["M", "N"])
    def f(x):
        return x / x.shape[-1]

    x = rand8((3, 37), dt)
    n8 = from_fp8_bits(torch_to_fp8(np.float32(37), tdt), fmt)
    want = to_fp8_bits(x.astype(np.float32) / n8, fmt)
    for got in (f(x), tilec.interpret(f, x)):
        np.testing.assert_array_equal(bits(got), want)


@pytest.mark.parametrize("dt, fmt, tdt", F8, ids=F8_IDS)
@pytest.mark.parametrize("shape", [(1, 1), (5, 300), (3, 1031)])
def test_c_reductions(dt, fmt, tdt, shape):
    """Sums accumulate in f32 and round once to fp8; max is exact."""
    x = quarters(shape, dt)
    s, m = _reduce(dt)(x)
    np.testing.assert_array_equal(bits(s), to_fp8_bits(x.astype(np.float64).sum(1).astype(np.float32), fmt))
    np.testing.assert_array_equal(bits(m), bits(x.max(0)))
    for got, want in zip((s, m), tilec.interpret(_reduce(dt), x)):
        np.testing.assert_array_equal(bits(got), bits(want))


@pytest.mark.parametrize("dt, fmt, tdt", F8, ids=F8_IDS)
def test_literals_round_as_casts(dt, fmt, tdt):
    """Python numbers in an fp8 op become constants rounded as torch casts them (not ml_dtypes:
    e4m3fn 1000 is 448, not NaN), in the interpreter and in compiled code."""

    @tile_op(dtype=dt, dims=["N"])
    def f(x):
        return tilec.full((3,), 1000.0, dt), x * 0.3 + 1e6, tilec.full_like(x, -70000), tilec.iota((37,), 0, dt)

    x = rand8((37,), dt)
    want = [torch_to_fp8(np.full(3, 1000.0, np.float32), tdt)]
    want.append(to_fp8_bits(x.astype(np.float32) * from_fp8_bits(to_fp8_bits(0.3, fmt), fmt) + 1e6, fmt))
    want.append(torch_to_fp8(np.full(37, -70000.0, np.float32), tdt))
    want.append(torch_to_fp8(np.arange(37, dtype=np.float32), tdt))  # 17 is 16 in e4m3fn
    for got in (f(x), tilec.interpret(f, x)):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(bits(g), w)


def _mm(dt, out):
    @tile_op(dtype=dt, dims=["M", "N", "K"])
    def mm(a, b):
        c = tile_contract(a, b, axes=[(-1, 0)])
        return c.astype(float32) if out == "f32" else c

    return mm


@pytest.mark.parametrize("dt, fmt, tdt", F8, ids=F8_IDS)
@pytest.mark.parametrize("mnk", [(1, 1, 1), (7, 13, 31), (67, 37, 129)])
def test_c_contraction_accumulates_in_f32(dt, fmt, tdt, mnk):
    m, n, k = mnk
    a, b = rand8((m, k), dt, 1.0), rand8((k, n), dt, 1.0)
    exact = a.astype(np.float64) @ b.astype(np.float64)  # products of fp8 values: exact in f32 sums here
    got = _mm(dt, "f32")(a, b)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, exact, rtol=1e-6, atol=1e-6)
    got8 = _mm(dt, "fp8")(a, b)  # rounded once to fp8
    assert got8.dtype == dt.np
    np.testing.assert_array_equal(bits(got8), to_fp8_bits(got, fmt))
    np.testing.assert_array_equal(bits(got8), bits(tilec.interpret(_mm(dt, "fp8"), a, b)))


def test_torch_fp8_tensors_in_and_out():
    a, b = rand8((5, 9), tilec.float8_e4m3fn), rand8((9, 3), tilec.float8_e4m3fn)
    ta, tb = (torch.from_numpy(v.view(np.uint8)).view(torch.float8_e4m3fn) for v in (a, b))
    got = _mm(tilec.float8_e4m3fn, "fp8")(ta, tb)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.float8_e4m3fn
    np.testing.assert_array_equal(got.view(torch.uint8).numpy(), bits(_mm(tilec.float8_e4m3fn, "fp8")(a, b)))


def test_wrong_fp8_kind_is_a_located_error():
    a = torch.from_numpy(rand8((5, 9), tilec.float8_e5m2).view(np.uint8)).view(torch.float8_e5m2)
    b = torch.from_numpy(rand8((9, 3), tilec.float8_e4m3fn).view(np.uint8)).view(torch.float8_e4m3fn)
    with pytest.raises(tilec.TilecError, match=r"test_fp8\.py:\d+.*'a' has dtype float8_e5m2 but the op's dtype is"):
        _mm(tilec.float8_e4m3fn, "f32")(a, b)


def test_fp8_scalar_is_not_supported_yet():
    with pytest.raises(tilec.TilecError, match="not supported yet: float8_e4m3fn scalars"):
        tilec.scalar(tilec.float8_e4m3fn)


def test_fp8_contraction_avoids_the_tensor_cores():
    """The fp8 tensor-core paths come with the Hopper GEMM work: fp8 takes the SIMT kernel."""
    a, b = rand8((64, 64), tilec.float8_e4m3fn), rand8((64, 64), tilec.float8_e4m3fn)
    ptx = _mm(tilec.float8_e4m3fn, "f32").source("cuda", a, b)
    assert "mma.sync" not in ptx and "wgmma" not in ptx


# --- GPU: PTX assembled here, run on a GPU -------------------------------------------------------


def gpu_programs():
    out = []
    for dt, name in zip((tilec.float8_e4m3fn, tilec.float8_e5m2), F8_IDS):
        out += [
            (f"to_f32_{name}", _cast(dt, float32), [CODES.view(dt.np)]),
            (f"to_f16_{name}", _cast(dt, float16), [CODES.view(dt.np)]),
            (f"from_f32_{name}", _cast(float32, dt), [special_f32()]),
            (f"from_f64_{name}", _cast(float64, dt), [_f64_cases()]),
            (f"chain_{name}", _chain(dt), [rand8((7, 67), dt), rand8((7, 67), dt)]),
            (f"chain_vec_{name}", _chain(dt, ("M", 256)), [rand8((5, 256), dt), rand8((5, 256), dt)]),  # vectors
            (f"reduce_{name}", _reduce(dt), [quarters((5, 1031), dt)]),
            (f"mm_{name}", _mm(dt, "f32"), [rand8((67, 31), dt, 1.0), rand8((31, 13), dt, 1.0)]),
            (f"mm8_{name}", _mm(dt, "fp8"), [rand8((5, 129), dt, 1.0), rand8((129, 7), dt, 1.0)]),
        ]
    return out


GPU_PROGRAMS = gpu_programs()
GPU_IDS = [p[0] for p in GPU_PROGRAMS]


def _program(name):
    return next(p for p in GPU_PROGRAMS if p[0] == name)


def _expected(op, arrays):
    """Casts are exact, so any target equals the interpreter; chains round once (the C result)."""
    return op(*arrays)  # the CPU's compiled result, itself checked above


@needs_ptxas
@pytest.mark.parametrize("name", GPU_IDS)
def test_ptx_assembles(name, tmp_path):
    _, op, arrays = _program(name)
    if name.startswith("chain_vec"):  # a static row of bytes: 4 fp8 codes per 32-bit register
        assert "ld.global.nc.v2.b32" in op.source("cuda", *arrays)
    # sm_80 has no cvt.bf16.f64 etc.; fp8 uses none of them (integer ops), so both must assemble
    for sm in ("sm_80", "sm_90a"):
        path = tmp_path / f"{name}_{sm}.ptx"
        path.write_text(op.source("cuda", *arrays, sm=sm))
        r = subprocess.run([PTXAS, f"-arch={sm}", str(path), "-o", os.devnull], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("name", GPU_IDS)
@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
def test_cuda_matches_the_cpu(name):
    _, op, arrays = _program(name)
    # fp8 arrays go to the device as CuPy uint8 arrays of their codes (CuPy has no fp8 dtype)
    got = op(*[cp.asarray(a.view(np.uint8) if a.dtype in FP8 else a) for a in arrays])
    want = _expected(op, arrays)
    if not isinstance(want, tuple):
        got, want = (got,), (want,)
    for g, w in zip(got, want):
        g = cp.asnumpy(g)
        if g.dtype == np.uint8 and w.dtype != np.uint8:
            g = g.view(w.dtype)
        if name.startswith("mm_"):  # f32 sums in another order
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
        else:
            if g.dtype.kind == "f":  # NaN payloads of f16/f32 results are not promised (NVIDIA's are canonical)
                nan = np.isnan(w)
                assert (np.isnan(g) == nan).all()
                g, w = g[~nan], w[~nan]
            np.testing.assert_array_equal(bits(g), bits(w))


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU or not torch.cuda.is_available(), reason="no NVIDIA GPU with CuPy and CUDA torch here")
def test_cuda_torch_fp8_tensors_and_cupy_bytes():
    """torch CUDA fp8 tensors in and out (CuPy has no fp8 dtype: they cross as uint8 codes); a
    CuPy caller passes and gets uint8 arrays of the codes; the wrong fp8 kind is still an error."""
    a, b = rand8((67, 31), tilec.float8_e4m3fn, 1.0), rand8((31, 13), tilec.float8_e4m3fn, 1.0)
    mm8 = _mm(tilec.float8_e4m3fn, "fp8")
    want = bits(mm8(a, b))
    ta, tb = (torch.from_numpy(v.view(np.uint8)).view(torch.float8_e4m3fn).cuda() for v in (a, b))
    got = mm8(ta, tb)
    assert got.dtype == torch.float8_e4m3fn and got.is_cuda
    np.testing.assert_array_equal(got.view(torch.uint8).cpu().numpy(), want)
    got = mm8(cp.asarray(a.view(np.uint8)), cp.asarray(b.view(np.uint8)))
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(cp.asnumpy(got), want)
    np.testing.assert_array_equal(bits(tilec.interpret(mm8, ta, tb).view(torch.uint8).numpy()), want)
    with pytest.raises(tilec.TilecError, match="has dtype float8_e5m2"):
        mm8(ta.view(torch.uint8).view(torch.float8_e5m2), tb)


def needs_hipcc():
    if find_hipcc() is None:
        if os.environ.get("CI"):
            pytest.fail(
                "hipcc is not installed, but CI must compile every HIP kernel (.ci/run installs Debian's hipcc)"
            )
        pytest.skip("hipcc is not installed (apt-get install hipcc); CI is unset, so the HIP compile tests skip")


@pytest.mark.parametrize("name", ["to_f32_e4m3fn", "from_f32_e5m2", "chain_e4m3fn", "reduce_e5m2", "mm8_e5m2"])
def test_hip_compiles(name):
    needs_hipcc()
    _, op, arrays = _program(name)
    assert op.compile("hip", *arrays).metadata(), "no kernels in the code object"


@pytest.mark.parametrize(
    "name", ["to_f32_e4m3fn", "from_f32_e4m3fn", "from_f32_e5m2", "chain_e5m2", "chain_vec_e4m3fn", "reduce_e4m3fn"]
)
def test_hip_runs_in_the_emulator(name):
    if CLANGXX is None:
        if os.environ.get("CI"):
            pytest.fail("hipcc's clang++ is missing, but CI installs hipcc (.ci/run)")
        pytest.skip("hipcc (and its clang++) is not installed: the HIP emulator cannot compile kernels")
    _, op, arrays = _program(name)
    got, want = emulate(op, *arrays), _expected(op, arrays)
    if not isinstance(want, tuple):
        got, want = (got,), (want,)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(bits(g), bits(w))


def test_ml_dtypes_arrays_are_the_numpy_side():
    assert tilec.float8_e4m3fn == np.dtype(ml_dtypes.float8_e4m3fn)
    assert tilec.as_dtype("f8E5M2") is tilec.float8_e5m2
