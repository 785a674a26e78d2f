"""Integer ops and types (issue 10, item 8): `& | ^ ~ << >> // %` on integer tiles, the types
int16 and uint8 .. uint64, bool arrays, `tilec.bitcast` and `astype` between every pair of types.

Each op runs in the interpreter against numpy, compiled for the CPU (C) against numpy and the
interpreter, on fresh random full-range values with the edge values injected (INT_MIN, INT_MAX,
0, +-1, zero divisors, INT_MIN // -1, shift amounts 0 .. width + 3, negative and huge), in
awkward shapes. The same programs are emitted as PTX and assembled by ptxas (sm_80, sm_90a),
compiled by hipcc for gfx90a, and run on an NVIDIA GPU against numpy (those skip, saying why,
without ptxas / hipcc / a GPU). The defined results where numpy's or C's are not
(docs/dsl.md, "Integer operations"): x // 0 = x % 0 = 0, INT_MIN // -1 = INT_MIN, shifts by an
amount outside [0, width) give 0 or the sign fill; numpy on x86 gives the same.
Seed: printed; replay with TILEC_TEST_SEED.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import warnings

import ml_dtypes
import numpy as np
import pytest
from gpu_util import HAVE_GPU, cp
from test_frontend_util import expect_error
from test_hip_emulated import CLANGXX, emulate

import tilec
from tilec import tile_contract, tile_op
from tilec.toolchain.hipcc import find_hipcc

SEED = int(os.environ.get("TILEC_TEST_SEED", np.random.SeedSequence().entropy % 2**32))
print(f"test_int_ops seed: {SEED} (replay with TILEC_TEST_SEED={SEED})")
rng = np.random.default_rng(SEED)

SIGNED = [tilec.int8, tilec.int16, tilec.int32, tilec.int64]
UNSIGNED = [tilec.uint8, tilec.uint16, tilec.uint32, tilec.uint64]
INTS = SIGNED + UNSIGNED
FLOATS = [tilec.float16, tilec.bfloat16, tilec.float32, tilec.float64]
ALL = [*INTS, tilec.bool_, *FLOATS]
SHAPES = {  # an awkward shape per dtype: primes, 1s, not multiples of any vector width
    tilec.int8: (3, 37),
    tilec.int16: (2, 1, 41),
    tilec.int32: (5, 29),
    tilec.int64: (47,),
    tilec.uint8: (2, 53),
    tilec.uint16: (3, 19),
    tilec.uint32: (7, 11),
    tilec.uint64: (1, 43),
}

PTXAS = shutil.which("ptxas")

needs_gpu = (pytest.mark.gpu, pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine"))
needs_ptxas = pytest.mark.skipif(PTXAS is None, reason="ptxas is not on PATH (install the CUDA toolkit)")


def needs_hipcc():
    if find_hipcc() is None:
        if os.environ.get("CI"):
            pytest.fail(
                "hipcc is not installed, but CI must compile every HIP kernel (.ci/run installs Debian's hipcc)"
            )
        pytest.skip("hipcc is not installed (apt-get install hipcc); CI is unset, so the HIP compile tests skip")


# --- inputs ---------------------------------------------------------------------------------------


def operands(dt, shape):
    """(a, b): random full-range values with the edge cases at the front of the flattened arrays:
    INT_MIN // 0, INT_MIN // -1, INT_MAX // 0, 0 // 0, -7 // 2, 7 // -2, ..., and a run of shift
    amounts -3 .. width + 3 (plus 2**w - 1) in b."""
    info = np.iinfo(dt.np)
    n = int(np.prod(shape))
    a = rng.integers(info.min, info.max, n, dtype=dt.np, endpoint=True)
    b = rng.integers(info.min, info.max, n, dtype=dt.np, endpoint=True)
    signed = info.min < 0
    pairs = [(info.min, 0), (info.max, 0), (0, 0), (1, 1), (info.max, info.max), (info.min, 1), (info.min, info.max)]
    if signed:
        pairs += [(info.min, -1), (-7, 2), (7, -2), (-7, -2), (-1, info.min), (info.max, -1), (-8, info.min)]
    amounts = list(range(-3 if signed else 0, dt.bits + 4)) + [info.max, info.min]
    k = 0
    for x, y in pairs:
        if k < n:
            a[k], b[k] = x, y
            k += 1
    for s in amounts:
        if k < n:
            b[k] = s
            k += 1
    return a.reshape(shape), b.reshape(shape)


def np_floordiv(a, b):
    with np.errstate(all="ignore"):
        return np.where(b == 0, a.dtype.type(0), np.floor_divide(a, np.where(b == 0, b.dtype.type(1), b)))


def np_mod(a, b):
    with np.errstate(all="ignore"):
        return np.where(b == 0, a.dtype.type(0), np.remainder(a, np.where(b == 0, b.dtype.type(1), b)))


# --- programs ---------------------------------------------------------------------------------------


def elementwise_program(dt):
    @tile_op(dtype=dt)
    def ints(a, b):
        return (a // b, a % b, a & b, a | b, a ^ b, ~a, a << b, a >> b,
                tilec.maximum(a, b), tilec.minimum(a, b), a < b, a >= b, abs(a), -a, (a >> 3) & 0x15 | 1)  # fmt: skip

    return ints


def reference(a, b):
    with np.errstate(all="ignore"):
        return [np_floordiv(a, b), np_mod(a, b), a & b, a | b, a ^ b, ~a, np.left_shift(a, b), np.right_shift(a, b),
                np.maximum(a, b), np.minimum(a, b), a < b, a >= b, np.abs(a), -a, (a >> 3) & 0x15 | 1]  # fmt: skip


def reduction_program(dt):
    @tile_op(dtype=dt)
    def reduce(a):
        return tilec.max(a, axis=-1), tilec.min(a, axis=0), tilec.sum(a, axis=-1), tilec.max(a), tilec.min(a)

    return reduce


def reduction_reference(a):
    return [a.max(-1), a.min(0), a.sum(-1, dtype=a.dtype), a.max(), a.min()]


def bool_program():
    @tile_op(dtype=tilec.bool_)
    def logic(m, n):
        return (m & ~n) | (m ^ n), m.astype(tilec.uint8) << 3, tilec.where(n, m, True)

    return logic


def cast_program(src):
    def casts(a):
        return tuple(a.astype(d) for d in ALL if d is not src)

    return tile_op(dtype=src)(casts)


def cast_input(src, n=61):
    if src.is_bool:
        return rng.random(n) < 0.5
    if src.is_float:
        x = rng.standard_normal(n) * 10.0 ** rng.integers(0, 20, n)
        x[:12] = [0.5, -0.5, 255.75, -128.9, 2.0**31, -(2.0**31), 2.0**64, 2.0**63, np.inf, -np.inf, np.nan, -0.0]
        with np.errstate(all="ignore"):
            return x.astype(src.np)
    info = np.iinfo(src.np)
    x = rng.integers(info.min, info.max, n, dtype=src.np, endpoint=True)
    x[:4] = [info.min, info.max, 0, 1]
    return x


def in_range(x, dst):
    """Where numpy's astype of float `x` to the integer type `dst` is defined: |trunc(x)| fits."""
    t = np.trunc(x.astype(np.float64))
    info = np.iinfo(dst.np)
    with np.errstate(invalid="ignore"):
        return (t >= float(info.min)) & (t < upper(dst)) & np.isfinite(t)


def upper(dst) -> float:
    """INT_MAX + 1 of an integer dtype, exactly (float(INT64_MAX) rounds up to it)."""
    return 2.0 ** (dst.bits - (0 if dst.is_unsigned else 1))


BITCAST_PAIRS = [
    (tilec.float32, [tilec.int32, tilec.uint32]),
    (tilec.uint32, [tilec.float32, tilec.int32]),
    (tilec.float64, [tilec.int64, tilec.uint64]),
    (tilec.int64, [tilec.float64]),
    (tilec.float16, [tilec.uint16, tilec.int16, tilec.bfloat16]),
    (tilec.uint16, [tilec.float16, tilec.bfloat16]),
    (tilec.int8, [tilec.uint8]),
]


def bitcast_program(src, dsts):
    def views(a):
        return tuple(tilec.bitcast(a, d) for d in dsts) + tuple(tilec.bitcast(a + a, d) for d in dsts)

    return tile_op(dtype=src)(views)


def bitcast_input(src, n=45):
    if src.is_float:
        x = (rng.standard_normal(n) * 100).astype(src.np)
        x[:3] = [np.inf, -0.0, 1.0]
        return x
    info = np.iinfo(src.np)
    return rng.integers(info.min, info.max, n, dtype=src.np, endpoint=True)


def same_bits(got, want, ignore_nan_16=False):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    if ignore_nan_16 and (want.dtype.kind == "f" or want.dtype == ml_dtypes.bfloat16):
        # a NaN stays a NaN, but its payload and sign are not promised across float conversions,
        # nor through 16-bit floats, which compute in f32 (docs/dsl.md; NVIDIA's cvt gives 0x7fffffff)
        with np.errstate(invalid="ignore"):
            nan = np.isnan(want.astype(np.float64))
            assert np.isnan(got.astype(np.float64))[nan].all(), "a NaN was lost"
        got, want = got[~nan], want[~nan]
    np.testing.assert_array_equal(got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8))


def nan16(*dts) -> bool:
    return any(d.is_float and d.bits == 16 for d in dts)


# --- interpreter and C ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dt", INTS, ids=str)
def test_interpreter_matches_numpy(dt):
    a, b = operands(dt, SHAPES[dt])
    got = tilec.interpret(elementwise_program(dt), a, b)
    for i, (g, w) in enumerate(zip(got, reference(a, b))):
        assert g.dtype == w.dtype, i
        np.testing.assert_array_equal(g, w, err_msg=f"result {i}")


@pytest.mark.parametrize("dt", INTS, ids=str)
def test_c_matches_numpy(dt):
    a, b = operands(dt, SHAPES[dt])
    op = elementwise_program(dt)
    got = op(a, b)
    for i, (g, w) in enumerate(zip(got, reference(a, b))):
        np.testing.assert_array_equal(g, w, err_msg=f"result {i}")
    red = reduction_program(dt)
    want = reduction_reference(a)
    for i, (g, r, w) in enumerate(zip(red(a), tilec.interpret(red, a), want)):
        np.testing.assert_array_equal(g, w, err_msg=f"reduction {i}")
        np.testing.assert_array_equal(r, w, err_msg=f"interpreted reduction {i}")


def test_c_single_element_and_dynamic_sizes():
    """A 1x1 call and dims with dynamic sizes (one kernel for both shapes)."""

    @tile_op(dtype=tilec.uint32, dims=["M", "N"])
    def mix(a, b):
        return (a >> 28) ^ (b << 3) | (a // (b & 7)) + a % 10

    for shape in [(1, 1), (13, 9)]:
        a, b = operands(tilec.uint32, shape)
        with np.errstate(all="ignore"):
            want = ((a >> 28) ^ (b << 3)) | (np_floordiv(a, b & 7) + a % 10)
        np.testing.assert_array_equal(mix(a, b), want)
    assert mix.trace_count == 2  # one symbolic trace and one build, for both shapes


@pytest.mark.parametrize("src", ALL, ids=str)
def test_casts_match_numpy(src):
    """astype between every pair: numpy's astype where it is defined (float -> int in range), the
    interpreter (which saturates out-of-range floats, NaN -> 0) everywhere, bit for bit."""
    a = cast_input(src)
    op = cast_program(src)
    got, ref = op(a), tilec.interpret(op, a)
    dsts = [d for d in ALL if d is not src]
    for d, g, r in zip(dsts, got, ref):
        same_bits(g, r, ignore_nan_16=nan16(d))
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            want = a.astype(d.np)
        ok = in_range(a, d) if src.is_float and not d.is_float and not d.is_bool else np.ones(a.shape, bool)
        if d.is_float:
            np.testing.assert_array_equal(r[ok].astype(np.float64), want[ok].astype(np.float64), err_msg=str(d))
        else:
            np.testing.assert_array_equal(r[ok], want[ok], err_msg=str(d))
        if src.is_float and not d.is_float and not d.is_bool:  # saturation, NaN -> 0
            info = np.iinfo(d.np)
            x = a.astype(np.float64)
            assert (r[x >= upper(d)] == info.max).all() and (r[x <= float(info.min) - 1] == info.min).all()
            assert (r[np.isnan(x)] == 0).all()


@pytest.mark.parametrize("src,dsts", BITCAST_PAIRS, ids=[str(p[0]) for p in BITCAST_PAIRS])
def test_bitcast_matches_numpy_view(src, dsts):
    a = bitcast_input(src)
    op = bitcast_program(src, dsts)
    ref, got = tilec.interpret(op, a), op(a)
    with np.errstate(all="ignore"):
        doubled = tilec.interpret(tile_op(dtype=src)(lambda a: a + a), a)
    for i, d in enumerate(dsts):
        same_bits(ref[i], a.view(d.np))
        same_bits(ref[len(dsts) + i], doubled.view(d.np))
    for g, r, d in zip(got, ref, dsts + dsts):  # (float sources hold no NaN: bitcast_input)
        same_bits(g, r, ignore_nan_16=nan16(d))


def test_bool_arrays_in_and_out():
    logic = bool_program()
    m, n = rng.random((3, 31)) < 0.5, rng.random((3, 31)) < 0.5
    want = [(m & ~n) | (m ^ n), m.astype(np.uint8) << 3, np.where(n, m, True)]
    for g, w in zip(logic(m, n), want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("tdt", ["uint8", "int16", "uint16", "uint32", "uint64", "bool"])
def test_torch_tensors_of_the_new_dtypes(tdt):
    torch = pytest.importorskip("torch")
    t = getattr(torch, tdt)
    d = tilec.as_dtype(tdt)

    @tile_op(dtype=d)
    def f(x):
        return x ^ (x >> 1) if not d.is_bool else ~x

    src = torch.from_numpy(cast_input(d, 23))
    assert src.dtype == t
    out = f(src)
    assert isinstance(out, torch.Tensor) and out.dtype == t
    x = src.numpy()
    np.testing.assert_array_equal(out.numpy(), x ^ (x >> 1) if not d.is_bool else ~x)


def test_signed_int4_dequantization_with_arithmetic_shifts():
    """Signed nibbles: (b << 4) >> 4 sign-extends the low one, b >> 4 the high one (int8 shifts are
    arithmetic), uint8 >> 4 is logical."""

    @tile_op(dtype=tilec.uint8)
    def unpack(p):
        s = tilec.bitcast(p, tilec.int8)
        return ((s << 4) >> 4).astype(tilec.float32), (s >> 4).astype(tilec.float32), (p >> 4).astype(tilec.float32)

    p = rng.integers(0, 256, (5, 17), dtype=np.uint8)
    lo = (p & 15).astype(np.int16)
    hi = (p >> 4).astype(np.int16)
    want = [np.where(lo > 7, lo - 16, lo), np.where(hi > 7, hi - 16, hi), hi]
    for g, r, w in zip(unpack(p), tilec.interpret(unpack, p), want):
        np.testing.assert_array_equal(g, w.astype(np.float32))
        np.testing.assert_array_equal(r, w.astype(np.float32))


# --- errors -----------------------------------------------------------------------------------------


def expect(marker: str, *phrases: str):
    return expect_error(__file__, marker, *phrases)


def test_bitwise_on_floats_is_a_located_error():
    @tile_op(dtype=tilec.float32)
    def f(x):
        return x & x  # E:and-float

    with expect("and-float", "'&' applies to integer and bool (mask) tiles only, got float32"):
        tilec.interpret(f, np.ones(3, np.float32))

    @tile_op(dtype=tilec.float32)
    def g(x):
        return x << 2  # E:shl-float

    with expect("shl-float", "'<<' needs integer tiles, got float32"):
        tilec.interpret(g, np.ones(3, np.float32))

    @tile_op(dtype=tilec.float16)
    def h(x):
        return ~x  # E:not-float

    with expect("not-float", "'~' applies to integer and bool (mask) tiles only, got float16"):
        tilec.interpret(h, np.ones(3, np.float16))


def test_floor_division_of_masks_is_a_located_error():
    @tile_op(dtype=tilec.bool_)
    def f(m):
        return m // m  # E:floordiv-mask

    with expect("floordiv-mask", "'//' cannot be applied to bool (mask) tiles"):
        tilec.interpret(f, np.ones(3, bool))


def test_constant_out_of_the_unsigned_range():
    @tile_op(dtype=tilec.uint8)
    def f(x):
        return x & 256  # E:uint-range

    with expect("uint-range", "'&': the constant 256 does not fit in uint8"):
        tilec.interpret(f, np.ones(3, np.uint8))

    @tile_op(dtype=tilec.uint16)
    def g(x):
        return x - -1  # E:uint-negative

    with expect("uint-negative", "the constant -1 does not fit in uint16"):
        tilec.interpret(g, np.ones(3, np.uint16))


def test_bitcast_errors():
    @tile_op(dtype=tilec.float32)
    def f(x):
        return tilec.bitcast(x, tilec.int64)  # E:bitcast-width

    with expect("bitcast-width", "tilec.bitcast: float32 has 32 bits but int64 has 64; the widths must be equal"):
        tilec.interpret(f, np.ones(3, np.float32))

    @tile_op(dtype=tilec.int8)
    def g(x):
        return tilec.bitcast(x < 0, tilec.int8)  # E:bitcast-bool

    with expect("bitcast-bool", "tilec.bitcast does not apply to bool (mask) tiles (bool_ to int8)"):
        tilec.interpret(g, np.ones(3, np.int8))

    @tile_op(dtype=tilec.int32)
    def h(x):
        return tilec.bitcast(x, "complex64")  # E:bitcast-dtype

    with expect("bitcast-dtype", "unsupported dtype 'complex64'"):
        tilec.interpret(h, np.ones(3, np.int32))


def test_unsigned_contraction_is_not_supported_yet():
    @tile_op(dtype=tilec.uint8)
    def mm(a, b):
        return tile_contract(a, b, axes=[(1, 0)])  # E:contract-unsigned

    with expect("contract-unsigned", "not supported yet: contractions of unsigned integer tiles (uint8)"):
        tilec.interpret(mm, np.ones((2, 3), np.uint8), np.ones((3, 2), np.uint8))


def test_float_floor_division_runs_in_the_interpreter_and_is_not_supported_compiled():
    @tile_op(dtype=tilec.float32)
    def f(a, b):
        return a // b, a % b

    a = (rng.standard_normal(29) * 10).astype(np.float32)
    b = (rng.standard_normal(29) * 3).astype(np.float32)
    a[:4], b[:4] = [1.0, -1.0, 0.0, 5.5], [0.0, 0.0, 0.0, -2.0]
    q, r = tilec.interpret(f, a, b)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(q, np.floor_divide(a, b))
        np.testing.assert_array_equal(r, np.remainder(a, b))
    with pytest.raises(tilec.TilecError, match="not supported yet: tile.floordiv of float tiles in compiled kernels"):
        f(a, b)


def test_wrong_array_dtype_names_the_argument():
    op = elementwise_program(tilec.uint16)
    a = np.ones(4, np.int16)
    with pytest.raises(tilec.TileError, match="uint16"):
        op(a, a)


# --- GPU targets --------------------------------------------------------------------------------------


def gpu_programs():
    out = []
    for dt in INTS:
        a, b = operands(dt, SHAPES[dt])
        out.append((f"ints_{dt}", elementwise_program(dt), [a, b]))
        out.append((f"reduce_{dt}", reduction_program(dt), [a]))  # 64-bit: two 32-bit shuffles on NVIDIA
    # long rows: block reductions, 8/16-bit values exchanged as i32, 64-bit ones as two halves (NVIDIA)
    for dt in (tilec.int8, tilec.uint16, tilec.int64, tilec.uint64):
        out.append((f"reduce_rows_{dt}", reduction_program(dt), [operands(dt, (3, 1000))[0]]))
    # rows of 32 / 64 bytes: 8-bit and bool lanes travel four per 32-bit register on NVIDIA
    for dt, shape in ((tilec.uint8, (5, 64)), (tilec.int8, (3, 32))):
        a, b = operands(dt, shape)
        out.append((f"bytes_{dt}", elementwise_program(dt), [a, b]))
    out.append(("bool_lanes", bool_program(), [rng.random((4, 64)) < 0.5, rng.random((4, 64)) < 0.5]))
    for src in ALL:
        out.append((f"casts_{src}", cast_program(src), [cast_input(src)]))
    for src, dsts in BITCAST_PAIRS:
        out.append((f"bitcast_{src}", bitcast_program(src, dsts), [bitcast_input(src)]))
    return out


GPU_PROGRAMS = gpu_programs()
GPU_IDS = [p[0] for p in GPU_PROGRAMS]


def _program(name):
    return next(p for p in GPU_PROGRAMS if p[0] == name)


@needs_ptxas
@pytest.mark.parametrize("name", GPU_IDS)
def test_ptx_assembles(name, tmp_path):
    _, op, arrays = _program(name)
    # sm_80 has no cvt.bf16.f64, which f64 -> bf16 and int -> bf16 conversions use (a limitation of the
    # PTX printer older than these ops): the casts to every type assemble for sm_90a only
    archs = ["sm_90a"] if name.startswith("casts_") else ["sm_80", "sm_90a"]
    for sm in archs:
        path = tmp_path / f"{name}_{sm}.ptx"
        path.write_text(op.source("cuda", *arrays, sm=sm))
        r = subprocess.run([PTXAS, f"-arch={sm}", str(path), "-o", os.devnull], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


def test_ptx_bitcast_is_one_move():
    _, op, arrays = _program("bitcast_float32")
    ptx = op.source("cuda", *arrays)
    assert "mov.b32 %r" in ptx and "cvt.rzi" not in ptx


HIP_SUBSET = ["ints_int8", "ints_int64", "ints_uint16", "ints_uint32", "reduce_uint32", "casts_uint64",
              "casts_float32", "casts_bfloat16", "bitcast_float16", "bitcast_float64"]  # fmt: skip


@pytest.mark.parametrize("name", HIP_SUBSET)
def test_hip_compiles(name):
    needs_hipcc()
    _, op, arrays = _program(name)
    k = op.compile("hip", *arrays)
    assert k.metadata(), "no kernels in the code object"


EMULATED = ["ints_int8", "ints_uint64", "reduce_uint32", "reduce_rows_int8", "reduce_rows_uint16", "bytes_uint8", "bool_lanes", "casts_uint64", "casts_float32",
            "bitcast_float16"]  # fmt: skip


@pytest.mark.parametrize("name", EMULATED)
def test_hip_runs_in_the_emulator(name):
    """The HIP C++ run on the CPU by test_hip_emulated's emulator of the HIP execution model."""
    if CLANGXX is None:
        if os.environ.get("CI"):
            pytest.fail("hipcc's clang++ is missing, but CI installs hipcc (.ci/run)")
        pytest.skip("hipcc (and its clang++) is not installed: the HIP emulator cannot compile kernels")
    _, op, arrays = _program(name)
    got, ref = emulate(op, *arrays), tilec.interpret(op, *arrays)
    if not isinstance(ref, tuple):
        ref, got = (ref,), (got,)
    for g, r in zip(got, ref):
        same_bits(g, r, ignore_nan_16=True)


@needs_gpu[0]
@needs_gpu[1]
@pytest.mark.parametrize("name", GPU_IDS)
def test_cuda_matches_the_interpreter(name):
    _, op, arrays = _program(name)
    got = op(*[cp.asarray(a) for a in arrays])
    ref = tilec.interpret(op, *arrays)
    if not isinstance(ref, tuple):
        ref, got = (ref,), (got,)
    for g, r in zip(got, ref):
        same_bits(cp.asnumpy(g), r, ignore_nan_16=name.startswith(("casts_", "bitcast_")))
    if name.startswith(("ints_", "bytes_")):
        for g, w in zip(got, reference(*arrays)):
            np.testing.assert_array_equal(cp.asnumpy(g), w)


def _int4_example():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / "int4_dequant.py"
    spec = importlib.util.spec_from_file_location("int4_dequant", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@needs_ptxas
def test_int4_dequant_example_assembles(tmp_path):
    ex = _int4_example()
    packed, shifts = np.zeros((33, 32), np.uint8), np.array([0, 4], np.uint8)
    for name, op, args in [("dequant", ex.dequant, (packed, shifts)), ("signed", ex.dequant_signed, (packed,))]:
        path = tmp_path / f"{name}.ptx"
        path.write_text(op.source("cuda", *args))
        r = subprocess.run([PTXAS, "-arch=sm_90a", str(path), "-o", os.devnull], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


@needs_gpu[0]
@needs_gpu[1]
def test_int4_dequant_example_on_cuda():
    ex = _int4_example()
    w = rng.integers(-8, 8, (65, 250))
    packed, shifts = ex.pack(w), np.array([0, 4], np.uint8)
    got = cp.asnumpy(ex.dequant(cp.asarray(packed), cp.asarray(shifts)))
    np.testing.assert_array_equal(got, w.astype(np.float32))
    lo, hi = ex.dequant_signed(cp.asarray(packed))
    np.testing.assert_array_equal(cp.asnumpy(lo), w[:, 0::2].astype(np.float32))
    np.testing.assert_array_equal(cp.asnumpy(hi), w[:, 1::2].astype(np.float32))


@needs_gpu[0]
@needs_gpu[1]
@pytest.mark.parametrize("dt", [tilec.uint8, tilec.uint32, tilec.uint64])
def test_unsigned_runtime_scalars_on_cuda(dt):
    """Unsigned runtime scalars over their whole range on CUDA (a uint64 above int64's range keeps
    its bits as the kernel parameter)."""

    @tile_op(dtype=dt, dtypes={"s": tilec.scalar(dt)})  # (an annotation could not name the local dt)
    def f(x, s):
        return (x ^ s) + s

    info = np.iinfo(dt.np)
    x = np.random.default_rng().integers(0, int(info.max), 1000, dtype=dt.np, endpoint=True)
    for s in (0, 1, int(info.max) - 4, int(info.max)):
        got = cp.asnumpy(f(cp.asarray(x), s))
        np.testing.assert_array_equal(got, (x ^ dt.np.type(s)) + dt.np.type(s))
