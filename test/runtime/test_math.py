"""The math library (tilec.sin, ..., tilec.clip; tilec/mathfns.py) against numpy: the interpreter,
the C target on awkward shapes with edge values, a fused chain, the PTX algorithms (mathlib.py,
run by its numpy backend: what the GPU computes), PTX assembled by ptxas, HIP compiled by hipcc,
and located errors. The GPU runs are in test_gpu_math.py.

Tolerances, in ulps of numpy's result rounded to the dtype (so 0.5 more than the error against
the exact value): the C target calls libm (glibc: < 2 ulp for every function here, measured by
benchmarks/math_accuracy.py): 2.5; the PTX algorithms: f32 1 (f64 evaluation, one rounding), f64 3.
Special values (NaN, +-inf, signed zeros) must be exactly numpy's.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest
from test_frontend_util import expect_error

import tilec
from tilec import float16, float32, float64, int32, tile_op
from tilec.conversion.mapped_to_hw.mathlib import FUNCTIONS, TRIG_LIMIT
from tilec.conversion.mapped_to_hw.mathlib_numpy import evaluate_numpy
from tilec.mathfns import BY_NAME, MATH_FUNCTIONS

SEED = int(os.environ.get("TILEC_TEST_SEED", np.random.SeedSequence().entropy % 2**32))
print(f"test_math seed: {SEED} (replay with TILEC_TEST_SEED={SEED})")
rng = np.random.default_rng(SEED)

UNARY = [f.name for f in MATH_FUNCTIONS if f.name != "atan2"]
EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 20.0, 1e-30, -1e-30, 1e-40, -1e-40]
EDGES += [3e38, -3e38, 88.0, -88.0, 100.0, -104.0, 1.5707964, 1e6, 1e-310, -1e-310]  # f64 subnormals


def values(n: int, dt) -> np.ndarray:
    """Random values over many magnitudes (both signs) with the edge values mixed in."""
    mags = np.exp(rng.uniform(np.log(1e-6), np.log(1e3), n))
    x = mags * rng.choice([-1.0, 1.0], n)
    x[rng.random(n) < 0.3] = rng.uniform(-1.2, 1.2)  # where asin/acos/atanh are defined
    k = min(n, len(EDGES))
    x[rng.choice(n, k, replace=False)] = EDGES[:k]
    with np.errstate(over="ignore"):
        return x.astype(dt)


def reference(name: str, *args: np.ndarray) -> np.ndarray:
    """numpy in float64, rounded once to the inputs' dtype (the interpreter's definition)."""
    dt = args[0].dtype
    with np.errstate(all="ignore"):
        return np.asarray(BY_NAME[name].numpy(*[a.astype(np.float64) for a in args])).astype(dt)


def ulps(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|got - ref| in ulps of ref's dtype; special values: 0 where identical (NaN, inf, signed
    zero), inf where not."""
    dt = ref.dtype
    g, r = got.astype(np.float64), ref.astype(np.float64)
    same = (np.isnan(g) & np.isnan(r)) | ((g == r) & (np.signbit(g) == np.signbit(r)))
    finite = np.isfinite(g) & np.isfinite(r) & ~((g == 0) & (r == 0))
    with np.errstate(all="ignore"):
        u = np.maximum(np.spacing(np.abs(ref)).astype(np.float64), float(np.finfo(dt).smallest_subnormal))
        e = np.where(finite, np.abs(g - r) / u, np.inf)
    return np.where(same, 0.0, e)


def assert_close(got, ref, max_ulp: float, what: str, x=None):
    e = ulps(np.asarray(got), ref)
    bad = np.argmax(e)
    at = f" at x={x.ravel()[bad]!r}" if x is not None else ""
    assert e.max() <= max_ulp, (
        f"{what}: {e.max()} ulp{at}: got {np.asarray(got).ravel()[bad]!r}, numpy {ref.ravel()[bad]!r}"
    )


def _all_unary(dt):
    @tile_op(dtype=dt, dims=["M", "N"])
    def all_math(x):
        return tuple(getattr(tilec, name)(x) for name in UNARY)

    return all_math


# --- the interpreter --------------------------------------------------------------------------------


@pytest.mark.parametrize("dt,npdt", [(float32, np.float32), (float64, np.float64), (float16, np.float16)])
def test_interpreter_is_numpy_rounded_once(dt, npdt):
    x = values(300, npdt).reshape(20, 15)
    outs = tilec.interpret(_all_unary(dt), x)
    for name, got in zip(UNARY, outs):
        assert got.dtype == npdt, name
        assert_close(got, reference(name, x), 0, f"interpreter {name}", x)


def test_interpreter_bfloat16_and_atan2():
    @tile_op(dtype=tilec.bfloat16)
    def f(y, x):
        return tilec.atan2(y, x), tilec.sigmoid(x)

    y, x = values(64, np.float32).astype(ml_dtypes.bfloat16), values(64, np.float32).astype(ml_dtypes.bfloat16)
    a, s = tilec.interpret(f, y, x)
    with np.errstate(all="ignore"):
        ref_a = np.arctan2(y.astype(np.float64), x.astype(np.float64))
    # bf16 results: one rounding from float64 (numpy's ml_dtypes conversion rounds twice; allow 1 ulp)
    assert_close(a.astype(np.float32), ref_a.astype(ml_dtypes.bfloat16).astype(np.float32), 0, "bf16 atan2")
    assert s.dtype == ml_dtypes.bfloat16


# --- the C target -----------------------------------------------------------------------------------


@pytest.mark.parametrize("dt,npdt", [(float32, np.float32), (float64, np.float64)])
def test_c_matches_numpy_on_awkward_shapes(dt, npdt):
    op = _all_unary(dt)
    for shape in [(1, 1), (7, 13), (3, 257)]:
        x = values(int(np.prod(shape)), npdt).reshape(shape)
        outs = op(x)
        for name, got in zip(UNARY, outs):
            assert got.shape == shape and got.dtype == npdt, name
            assert_close(got, reference(name, x), 2.5, f"C {name} {dt.name} {shape}", x)


def test_c_atan2_signed_zeros_infinities_and_broadcast():
    @tile_op(dtype=float64)
    def f(y, x):
        return tilec.atan2(y, x), tilec.atan2(y, 1.0)

    v = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-300, 3.0])
    y, x = np.meshgrid(v, v)
    a, b = f(y.copy(), x.copy())
    with np.errstate(all="ignore"):
        assert_close(a, np.arctan2(y, x), 1.0, "atan2")
        assert_close(b, np.arctan2(y, 1.0), 1.0, "atan2(y, 1)")


def test_c_half_precision_inputs_compute_in_f32():
    @tile_op(dtype=float16)
    def f(x):
        return tilec.sin(x), tilec.log1p(x), tilec.round(x), tilec.sign(x), tilec.softplus(x)

    x = values(5 * 31, np.float16).reshape(5, 31)
    got = f(x)
    for g, i in zip(got, tilec.interpret(f, x)):
        assert g.dtype == np.float16
        assert_close(g, i, 1.0, "f16 vs interpreter", x)


def test_fused_chain_feeding_a_row_sum():
    @tile_op(dtype=float32)
    def chain(x, y):
        return tilec.sum(tilec.sin(x) * tilec.sigmoid(y) + tilec.log1p(tilec.abs(x)), axis=-1)

    x = rng.standard_normal((13, 1001)).astype(np.float32) * 4
    y = rng.standard_normal((13, 1001)).astype(np.float32) * 30
    ref = (np.sin(x.astype(np.float64)) / (1 + np.exp(-y.astype(np.float64))) + np.log1p(np.abs(x))).sum(-1)
    got = chain(x, y)
    np.testing.assert_allclose(got, ref, rtol=2e-5, atol=1e-3)
    src = chain.source("cpu", x, y)
    kernels = set(re.findall(r"static void (tilec_u_chain_\w+)\(", src))
    assert len(kernels) == 1, kernels  # sin, sigmoid, log1p and the sum fused into one row kernel
    assert "sinf(" in src and "log1pf(" in src


def test_rounding_functions_are_numpys():
    @tile_op(dtype=float32)
    def f(x):
        return tilec.floor(x), tilec.ceil(x), tilec.round(x), tilec.trunc(x)

    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.0, 1e30, -1e-30, np.inf, np.nan, 8388609.0])
    x = x.astype(np.float32)
    for got, ref in zip(f(x), (np.floor(x), np.ceil(x), np.rint(x), np.trunc(x))):
        assert_close(got, ref, 0, "rounding", x)


def test_sign_of_ints_and_floats():
    @tile_op(dtype=int32)
    def si(x):
        return tilec.sign(x)

    @tile_op(dtype=float32)
    def sf(x):
        return tilec.sign(x)

    i = np.array([-(2**31), -5, -1, 0, 1, 7, 2**31 - 1], np.int32)
    assert np.array_equal(si(i), np.sign(i)) and si(i).dtype == np.int32
    f = np.array([-3.0, -0.0, 0.0, 2.0, np.nan, -np.inf, 1e-45], np.float32)
    assert_close(sf(f), np.sign(f), 0, "sign", f)


def test_predicates_return_bool_tiles():
    @tile_op(dtype=float32)
    def p(x):
        return tilec.isnan(x), tilec.isinf(x), tilec.isfinite(x), tilec.where(tilec.isfinite(x), x, 0.0)

    @tile_op(dtype=int32)
    def q(x):
        return tilec.isnan(x), tilec.isinf(x), tilec.isfinite(x)

    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 3e38, -2.0], np.float32)
    for got in (p(x), tilec.interpret(p, x)):
        assert got[0].dtype == np.bool_
        assert np.array_equal(got[0], np.isnan(x)) and np.array_equal(got[1], np.isinf(x))
        assert np.array_equal(got[2], np.isfinite(x)) and np.array_equal(got[3], np.where(np.isfinite(x), x, 0))
    i = np.array([1, -2, 3], np.int32)
    a, b, c = q(i)
    assert not a.any() and not b.any() and c.all()


def test_clip_is_numpys_with_nan_propagation():
    @tile_op(dtype=float32)
    def c(x, lo, hi):
        return tilec.clip(x, lo, hi), tilec.clip(x, -0.5, 0.5), tilec.clip(x, None, 0.25), tilec.clip(x, 0.1, lo)

    x = values(3 * 17, np.float32).reshape(3, 17)
    lo = rng.standard_normal(17).astype(np.float32)
    hi = rng.standard_normal((3, 1)).astype(np.float32)  # sometimes below lo: numpy's clip gives hi
    lo[0], hi[1, 0] = np.nan, np.nan
    refs = (np.clip(x, lo, hi), np.clip(x, -0.5, 0.5), np.clip(x, None, 0.25), np.clip(x, 0.1, lo))
    for got in (c(x, lo, hi), tilec.interpret(c, x, lo, hi)):
        for g, r in zip(got, refs):
            assert_close(g, r, 0, "clip")


@pytest.mark.parametrize("npdt,dt", [(np.float32, float32), (np.float64, float64)])
def test_minimum_maximum_propagate_nan(npdt, dt):
    @tile_op(dtype=dt)
    def mm(a, b):
        return tilec.minimum(a, b), tilec.maximum(a, b)

    v = np.array([np.nan, 1.0, -1.0, np.inf, -np.inf, 0.0], npdt)
    a, b = (m.ravel().copy() for m in np.meshgrid(v, v))
    for got in (mm(a, b), tilec.interpret(mm, a, b)):
        assert_close(got[0], np.minimum(a, b), 0, "minimum")
        assert_close(got[1], np.maximum(a, b), 0, "maximum")


# --- the PTX algorithms (mathlib.py) on the CPU -------------------------------------------------------------


def _wide(name: str, n: int) -> np.ndarray:
    lo, hi = {"asin": (1e-30, 1.0), "acos": (1e-30, 1.0), "atanh": (1e-30, 1.0), "acosh": (1.0, 1e300)}.get(
        name, (1e-300, 1e300)
    )
    if name in ("sin", "cos", "tan"):
        hi = TRIG_LIMIT
    if name in ("exp", "exp2", "expm1", "sinh", "cosh"):
        hi = 1100.0
    x = np.exp(rng.uniform(np.log(lo), np.log(hi), n))
    if name not in ("acosh", "log", "log2", "log10"):
        x = x * rng.choice([-1.0, 1.0], n)
    return np.concatenate([x, rng.uniform(-3, 3, n // 4), EDGES, [5e-324, -5e-324, 1.7976931348623157e308]])


def _reference(name: str):
    if name in BY_NAME:
        return BY_NAME[name].numpy
    if name == "erf":  # numpy has none: Python's, element by element
        return np.vectorize(math.erf, otypes=[np.float64])
    return getattr(np, name)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_ptx_algorithms_match_numpy(name):
    x = _wide(name, 1500)
    args = [x, rng.permutation(x)] if name == "atan2" else [x]
    got = evaluate_numpy(name, *args)
    with np.errstate(all="ignore"):
        ref = np.asarray(_reference(name)(*args))
    if name in ("sin", "cos", "tan"):  # NaN beyond the reduction's limit (documented)
        keep = np.abs(x) <= TRIG_LIMIT
        got, ref, x = got[keep], ref[keep], x[keep]
    assert_close(got, ref, 3.0, f"mathlib {name} f64", x)  # ours <= 2.5 ulp, numpy's <= 0.5-1
    # f32 inputs: evaluated in f64, rounded once
    with np.errstate(all="ignore"):
        x32 = [a.astype(np.float32) for a in args]
        got32 = evaluate_numpy(name, *[a.astype(np.float64) for a in x32]).astype(np.float32)
        ref32 = np.asarray(_reference(name)(*[a.astype(np.float64) for a in x32])).astype(np.float32)
    if name in ("sin", "cos", "tan"):
        keep = np.abs(x32[0]) <= TRIG_LIMIT
        got32, ref32 = got32[keep], ref32[keep]
    assert_close(got32, ref32, 1.0, f"mathlib {name} f32")


def _run_ir(name: str, args: list[np.ndarray]) -> np.ndarray:
    """Build the IR the PTX lowering emits for `name` (mathlib.emit) and evaluate it op by op with
    numpy, each op as PTX computes it: checks the IR builder against the numpy backend."""
    from xdsl.dialects import arith, math
    from xdsl.dialects.builtin import FloatAttr, IntegerAttr, f64
    from xdsl.ir import Block

    from tilec.conversion.mapped_to_hw import mathlib

    block = Block(arg_types=[f64] * len(args))

    def insert(op):
        block.add_op(op)
        return op.results[0]

    def const(v, t):
        return insert(arith.ConstantOp(FloatAttr(v, t) if t == f64 else IntegerAttr(v, t)))

    out = mathlib.emit(name, list(block.args), insert, const)
    env = dict(zip(block.args, args))
    cmpf = {"olt": np.less, "ole": np.less_equal, "ogt": np.greater, "oge": np.greater_equal, "oeq": np.equal}
    binary = {
        arith.AddfOp: np.add, arith.SubfOp: np.subtract, arith.MulfOp: np.multiply, arith.DivfOp: np.divide,
        arith.AddiOp: np.add, arith.SubiOp: np.subtract, arith.AndIOp: np.bitwise_and, arith.OrIOp: np.bitwise_or,
        arith.ShLIOp: np.left_shift, arith.ShRSIOp: np.right_shift,
    }  # fmt: skip
    unary = {
        arith.NegfOp: np.negative, math.AbsFOp: np.abs, math.SqrtOp: np.sqrt, math.RoundEvenOp: np.rint,
        arith.SIToFPOp: lambda a: a.astype(np.float64),
        arith.FPToSIOp: lambda a: np.where(np.isfinite(a), a, 0).astype(np.int64),
    }  # fmt: skip
    with np.errstate(all="ignore"):
        for op in block.ops:
            v = [env[o] for o in op.operands]
            if isinstance(op, arith.ConstantOp):
                r = np.float64(op.value.value.data) if op.result.type == f64 else np.int64(op.value.value.data)
            elif type(op) in binary:
                r = binary[type(op)](*v)
            elif type(op) in unary:
                r = unary[type(op)](v[0])
            elif isinstance(op, arith.CmpfOp):
                p = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule",
                     "une", "uno", "true"][op.predicate.value.data]  # fmt: skip
                r = (np.isnan(v[0]) | np.isnan(v[1])) if p == "uno" else cmpf[p](v[0], v[1])
            elif isinstance(op, arith.CmpiOp):
                p = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"][op.predicate.value.data]
                r = {"eq": np.equal, "slt": np.less}[p](v[0], v[1])
            elif isinstance(op, arith.SelectOp):
                r = np.where(*v)
            elif isinstance(op, arith.BitcastOp):
                r = np.asarray(v[0]).view(np.int64 if op.result.type != f64 else np.float64)
            else:
                raise AssertionError(f"the PTX math lowering emits {op.name}, which this check does not know")
            env[op.results[0]] = r
    return np.asarray(env[out], np.float64)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_ptx_ir_computes_what_the_numpy_backend_does(name):
    x = _wide(name, 200)
    args = [x, rng.permutation(x)] if name == "atan2" else [x]
    got, want = _run_ir(name, args), evaluate_numpy(name, *args)
    assert_close(got, want, 0, f"IR of {name}", x)


def test_ptx_trig_beyond_the_reduction_limit_is_nan():
    x = np.array([TRIG_LIMIT * 1.01, -1e20, 1e300])
    for name in ("sin", "cos", "tan"):
        assert np.isnan(evaluate_numpy(name, x)).all(), name


# --- PTX and HIP compile ------------------------------------------------------------------------------

PTXAS = shutil.which("ptxas")


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
@pytest.mark.parametrize("dt,npdt,sm", [(float32, np.float32, "sm_90a"), (float64, np.float64, "sm_80")])
def test_ptx_assembles_and_uses_no_library(dt, npdt, sm, tmp_path):
    """Every function in one kernel (ptxas takes seconds for it: one architecture per dtype)."""

    @tile_op(dtype=dt)
    def all_ptx(x, y):
        outs = [getattr(tilec, name)(x) for name in UNARY]
        return (*outs, tilec.atan2(x, y), tilec.maximum(x, y), tilec.clip(x, y, 1.0))

    x = np.zeros((3,), npdt)
    ptx = all_ptx.source("cuda", x, x, sm=sm)
    assert "call" not in ptx  # our own algorithms, no libdevice
    for needle in ("cvt.rni.", "cvt.rmi.", "cvt.rpi.", "cvt.rzi.", "mov.b64"):
        assert needle in ptx, needle
    if dt == float64:
        assert "setp.nan.f64" in ptx  # maximum on f64: max.f64 with NaN put back
    path = tmp_path / "m.ptx"
    path.write_text(ptx)
    r = subprocess.run(
        [PTXAS, f"-arch={sm}", str(path), "-o", str(tmp_path / "m.cubin")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr


def test_ptx_bitcast_rounding_and_f64_maximum_print_and_assemble(tmp_path):
    from test_ptx_int_semantics import ptx_of

    body = """
  %x = arith.constant 2.5 : f64
  %i = arith.bitcast %x : f64 to i64
  %y = arith.bitcast %i : i64 to f64
  %m = arith.maximumf %x, %y : f64
  %n = arith.minimumf %x, %m : f64
  %r = math.roundeven %n : f64
  %f = arith.constant 1.5 : f32
  %b = arith.bitcast %f : f32 to i32
  %c = math.floor %f : f32
  %d = math.ceil %c : f32
  %e = math.trunc %d : f32"""
    ptx = ptx_of(f"hw.nv.kernel @k() sm 80 {{{body}\n  hw.nv.return\n}}")
    for needle in ("mov.b64", "mov.b32", "max.f64", "min.f64", "setp.nan.f64", "selp.f64", "cvt.rni.f64.f64"):
        assert needle in ptx, needle
    for needle in ("cvt.rmi.f32.f32", "cvt.rpi.f32.f32", "cvt.rzi.f32.f32"):
        assert needle in ptx, needle
    if PTXAS is not None:
        (tmp_path / "k.ptx").write_text(ptx)
        r = subprocess.run([PTXAS, "-arch=sm_80", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")])
        assert r.returncode == 0


def test_hip_compiles():
    from tilec.toolchain.hipcc import find_hipcc

    if find_hipcc() is None:
        if os.environ.get("CI"):
            pytest.fail(
                "hipcc is not installed, but CI must compile every HIP kernel (.ci/run installs Debian's hipcc)"
            )
        pytest.skip("hipcc is not installed (apt-get install hipcc); CI is unset, so the HIP compile tests skip")

    @tile_op(dtype=float32)
    def all_hip(x, y):
        return (*[getattr(tilec, name)(x) for name in UNARY], tilec.atan2(x, y))

    x = np.zeros((5, 3), np.float32)
    k = all_hip.compile("hip", x, x)
    for m in k.metadata().values():
        assert m["private_segment_fixed_size"] == 0 and m["vgpr_spill_count"] == 0, m
    assert "sinf(" in k.source and "atan2f(" in k.source and "rintf(" in k.source


# --- errors -------------------------------------------------------------------------------------------


def test_float_only_functions_reject_int_tiles():
    @tile_op(dtype=int32)
    def f(x):
        return tilec.sin(x)  # E:sin-int

    with expect_error(__file__, "sin-int", "tilec.sin needs a float tile, got int32"):
        tilec.interpret(f, np.arange(4, dtype=np.int32))


def test_atan2_rejects_int_tiles():
    @tile_op(dtype=int32)
    def f(x, y):
        return tilec.atan2(x, y)  # E:atan2-int

    with expect_error(__file__, "atan2-int", "tilec.atan2 needs float tiles, got int32"):
        tilec.interpret(f, np.arange(4, dtype=np.int32), np.arange(4, dtype=np.int32))


def test_predicates_and_clip_need_a_tile():
    @tile_op(dtype=float32)
    def f(x):
        return x + tilec.isnan(2.0)  # E:isnan-number

    with expect_error(__file__, "isnan-number", "tilec.isnan expects a tile, got float"):
        tilec.interpret(f, np.ones(3, np.float32))

    @tile_op(dtype=float32)
    def g(x):
        return tilec.clip(x, None, None)  # E:clip-none

    with expect_error(__file__, "clip-none", "tilec.clip needs at least one of lo and hi"):
        tilec.interpret(g, np.ones(3, np.float32))


def test_every_row_has_its_dsl_function_and_docs():
    doc = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "dsl.md")).read()
    for f in MATH_FUNCTIONS:
        assert callable(getattr(tilec, f.name)), f.name
        assert f"tilec.{f.name}(" in doc, f"docs/dsl.md has no example of tilec.{f.name}"
    for name in ("isnan", "isinf", "isfinite", "clip"):
        assert f"tilec.{name}(" in doc, name
