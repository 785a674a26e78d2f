"""Accuracy of the C prelude's math (tilec/emit/c_prelude.h), compiled exactly as kernels are
(`tilec.toolchain.cc.compiler()` flags: -O3 -march=native, so with FMA contraction, in an
`omp simd` loop) and compared with float64 references (numpy; erf: the interpreter's fdlibm port).

The error of y against the float64 reference r is counted in ulps of r's float32 binade
(2^(e-24) for r in [2^(e-1), 2^e), at least 2^-149). Measured on this machine (GCC 12, AVX-512)
over the points below (random floats in the useful ranges, 1M random bit patterns of each sign,
every float32 near exp's overflow and underflow thresholds, subnormals, ±0, ±inf, NaN):

    tilec_expf   max 1.02 ulp        (claim: <= 2 ulp)
    tilec_logf   max 0.77 ulp        (claim: <= 2 ulp)
    tilec_tanhf  max 1.32 ulp, 7.8e-8 absolute   (claim: <= 4 ulp or 1e-7 absolute)
    tilec_erff   max 2.74 ulp, 1.6e-7 absolute   (claim: <= 4 ulp or 1e-7 absolute)

The asserts use the prelude's claims. Special values must be exactly IEEE's (exp(-inf) = 0,
log(0) = -inf, log(x < 0) = NaN, tanh/erf(±inf) = ±1, NaN in -> NaN out, overflow -> inf,
underflow -> 0 exactly where the correctly rounded result is 0 or inf). The 16-bit conversions of
the prelude (f16 stored as bits, f64 -> f16/bf16 rounding once) are checked bit for bit.
"""

from __future__ import annotations

import ctypes
import subprocess

import ml_dtypes
import numpy as np
import pytest

from tilec.emit.c import PRELUDE
from tilec.interpreter import erf as erf64
from tilec.toolchain.cc import compiler

HARNESS = (
    PRELUDE
    + r"""
#define EVAL(NAME, T_IN, T_OUT, F) \
  void NAME(const T_IN* restrict x, T_OUT* restrict y, long n) { \
    _Pragma("omp simd") for (long i = 0; i < n; i++) y[i] = F(x[i]); }
EVAL(ev_exp, float, float, tilec_expf)
EVAL(ev_log, float, float, tilec_logf)
EVAL(ev_tanh, float, float, tilec_tanhf)
EVAL(ev_erf, float, float, tilec_erff)
EVAL(ev_f16_to_f32, uint16_t, float, tilec_f16_to_f32)
EVAL(ev_f32_to_f16, float, uint16_t, tilec_f32_to_f16)
EVAL(ev_f64_to_f16, double, uint16_t, tilec_f64_to_f16)
EVAL(ev_f64_to_bf16, double, uint16_t, tilec_f64_to_bf16)
EVAL(ev_f32_to_bf16, float, uint16_t, tilec_f32_to_bf16)
"""
)


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    d = tmp_path_factory.mktemp("cmath")
    (d / "h.c").write_text(HARNESS)
    cc = compiler()
    r = subprocess.run(
        [cc.path, *cc.flags, "-shared", "-o", str(d / "h.so"), str(d / "h.c"), "-lm"], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return ctypes.CDLL(str(d / "h.so"))


def _ev(lib, name, x, out_dtype=np.float32):
    x = np.ascontiguousarray(x)
    y = np.empty(x.shape, out_dtype)
    getattr(lib, name)(x.ctypes.data_as(ctypes.c_void_p), y.ctypes.data_as(ctypes.c_void_p), ctypes.c_long(x.size))
    return y


def _ulp(r):
    _, e = np.frexp(np.abs(r))
    return np.maximum(np.ldexp(1.0, e - 24), 2.0**-149)


def _frange(a: float, b: float) -> np.ndarray:
    """Every float32 between a and b (same sign)."""
    lo, hi = sorted(int(np.array(v, np.float32).view(np.int32)) for v in (abs(a), abs(b)))
    x = np.arange(lo, hi + 1, dtype=np.int32).view(np.float32)
    return -x if a < 0 else x


RNG = np.random.default_rng(20261130)  # fixed points: the measured numbers above refer to them
BITS = RNG.integers(0, 2**32, 2_000_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
BITS = BITS[np.isfinite(BITS)]
SPECIAL = np.array(
    [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40, 1.17549435e-38, 3.4028235e38, -3.4028235e38, 1.0, -1.0],
    np.float32,
)

POINTS = {
    "exp": np.concatenate(
        [
            RNG.uniform(-104, 89, 400_000).astype(np.float32),
            _frange(88.70, 88.75),
            _frange(-87.3, -104.5),
            BITS,
            SPECIAL,
        ]
    ),
    "log": np.concatenate([RNG.uniform(0.5, 2, 200_000).astype(np.float32), np.abs(BITS), BITS, SPECIAL]),
    "tanh": np.concatenate(
        [
            RNG.uniform(-10, 10, 400_000).astype(np.float32),
            RNG.uniform(-0.7, 0.7, 200_000).astype(np.float32),
            BITS,
            SPECIAL,
        ]
    ),
    "erf": np.concatenate(
        [
            RNG.uniform(-6, 6, 400_000).astype(np.float32),
            RNG.uniform(-0.6, 0.6, 200_000).astype(np.float32),
            BITS,
            SPECIAL,
        ]
    ),
}
REF = {"exp": np.exp, "log": np.log, "tanh": np.tanh, "erf": erf64}
BOUND = {"exp": (2.0, 0.0), "log": (2.0, 0.0), "tanh": (4.0, 1e-7), "erf": (4.0, 1e-7)}  # (ulps, or absolute)


@pytest.mark.parametrize("fn", ["exp", "log", "tanh", "erf"])
def test_math_accuracy(lib, fn):
    x = POINTS[fn]
    y = _ev(lib, f"ev_{fn}", x).astype(np.float64)
    with np.errstate(all="ignore"):
        r = REF[fn](x.astype(np.float64))
    r32 = (
        r.astype(np.float32).astype(np.float64)
        if fn != "exp"
        else np.where(np.abs(r) > 3.4028235677973366e38, np.inf, r).astype(np.float32).astype(np.float64)
    )
    # special results: NaN where the reference is NaN, the same infinities and exact zeros
    np.testing.assert_array_equal(np.isnan(y), np.isnan(r32), err_msg=f"{fn}: NaN positions")
    inf = np.isinf(r32)
    np.testing.assert_array_equal(y[inf], r32[inf], err_msg=f"{fn}: infinities")
    assert not np.isinf(y[~inf & ~np.isnan(r32)]).any(), f"{fn}: spurious infinity"
    zero = r32 == 0
    np.testing.assert_array_equal(y[zero], 0.0, err_msg=f"{fn}: underflow to zero")
    fin = np.isfinite(r32)
    with np.errstate(invalid="ignore"):
        err = np.abs(y - r)[fin]
    ulps = err / _ulp(r[fin])
    max_ulp, abs_ok = BOUND[fn]
    bad = (ulps > max_ulp) & (err > abs_ok)
    i = np.argmax(ulps)
    assert not bad.any(), (
        f"{fn}: {bad.sum()} points over {max_ulp} ulp (and over {abs_ok} absolute); worst "
        f"{ulps[i]:.3f} ulp at x={x[fin][i]!r}: got {y[fin][i]!r}, want {r[fin][i]!r}"
    )
    print(f"{fn}: max {ulps.max():.3f} ulp, max abs {err.max():.3g} over {x.size} points")


def test_math_special_values(lib):
    inf, nan = np.inf, np.nan
    x = np.array([-inf, inf, nan, 0.0, -0.0, -1.0, 1e-45], np.float32)
    e, lg, th, ef = (_ev(lib, f"ev_{f}", x) for f in ("exp", "log", "tanh", "erf"))
    np.testing.assert_array_equal(e[:2], [0.0, inf])
    assert np.isnan(e[2]) and e[3] == 1.0 and e[6] == 1.0
    assert np.isnan(lg[0]) and lg[1] == inf and np.isnan(lg[2]) and lg[3] == -inf and lg[4] == -inf and np.isnan(lg[5])
    np.testing.assert_allclose(lg[6], np.log(np.float64(np.float32(1e-45))), rtol=1e-7)  # the smallest subnormal
    np.testing.assert_array_equal(th[[0, 1, 3, 4]], [-1.0, 1.0, 0.0, -0.0])
    assert np.signbit(th[4]) and np.isnan(th[2]) and th[6] == np.float32(1e-45)
    np.testing.assert_array_equal(ef[[0, 1, 3]], [-1.0, 1.0, 0.0])
    assert np.isnan(ef[2])


def test_f16_conversions_bit_exact(lib):
    """f16 -> f32 for all 65536 halves; f32 -> f16 (round to nearest even) against numpy."""
    h = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    f = _ev(lib, "ev_f16_to_f32", h)
    want = h.view(np.float16).astype(np.float32)
    np.testing.assert_array_equal(f.view(np.uint32)[~np.isnan(want)], want.view(np.uint32)[~np.isnan(want)])
    assert np.isnan(f[np.isnan(want)]).all()
    with np.errstate(invalid="ignore", over="ignore"):
        xs = np.concatenate([BITS, want, (want.astype(np.float64) * (1 + 2.0**-11)).astype(np.float32), SPECIAL])
        want16 = xs.astype(np.float16)
    got16 = _ev(lib, "ev_f32_to_f16", xs, np.uint16).view(np.float16)
    ok = ~np.isnan(want16)
    np.testing.assert_array_equal(got16.view(np.uint16)[ok], want16.view(np.uint16)[ok])
    assert np.isnan(got16[~ok]).all()


def test_f64_to_16bit_round_once(lib):
    """double -> f16 / bf16 round once (to nearest even), also where double -> float -> narrow
    would round twice; f32 -> bf16 too."""
    rng = np.random.default_rng(7)
    mant = rng.integers(0, 2**52, 400_000, dtype=np.uint64)
    ex = rng.integers(1023 - 30, 1023 + 20, 400_000, dtype=np.uint64)
    d = ((ex << np.uint64(52)) | mant).view(np.float64)
    d = np.concatenate([d, -d, [1 + 2.0**-8 + 2.0**-30, 1 + 2.0**-11 + 2.0**-40, 65519.99, 3.3961e38, 1e300, 1e-300]])
    with np.errstate(over="ignore"):
        want16 = d.astype(np.float16)  # numpy converts double -> half directly (one rounding)
    np.testing.assert_array_equal(_ev(lib, "ev_f64_to_f16", d, np.uint16), want16.view(np.uint16))
    # bf16: ml_dtypes rounds double -> float -> bf16 (twice); the exact reference rounds once
    want_bf = _bf16_round_once(d)
    np.testing.assert_array_equal(_ev(lib, "ev_f64_to_bf16", d, np.uint16), want_bf)
    with np.errstate(over="ignore"):
        f = d.astype(np.float32)
    np.testing.assert_array_equal(
        _ev(lib, "ev_f32_to_bf16", f, np.uint16), f.astype(ml_dtypes.bfloat16).view(np.uint16)
    )


def _bf16_round_once(d: np.ndarray) -> np.ndarray:
    """Bits of round-to-nearest-even(d) in bf16, exactly: scale to an 8-bit significand (exact in
    double), np.rint (ties to even), scale back; the result is a bf16 value (or >= 2^128: inf),
    so ml_dtypes' conversion of it is exact."""
    _, e = np.frexp(d)
    e = np.maximum(e, -125)  # below 2^-126 bf16 is subnormal: a fixed step of 2^-133
    r = np.ldexp(np.rint(np.ldexp(d, 8 - e)), e - 8)
    with np.errstate(over="ignore"):
        return r.astype(ml_dtypes.bfloat16).view(np.uint16)
