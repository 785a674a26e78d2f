"""The math library on the CUDA target against numpy (tilec's own f64 algorithms, mathlib.py).

Marked `gpu`: every test here skips, saying so, when CuPy or an NVIDIA GPU is missing. Tolerances:
f32 <= 1 ulp (evaluated in f64, rounded once; ptxas may fuse a multiply-add), f64 <= 4 ulp of numpy; the
special values (NaN, +-inf, signed zeros) exactly numpy's. sin/cos/tan are NaN beyond
|x| = 8.05e8 (documented; checked). The accuracy table of docs/dsl.md comes from
`python benchmarks/math_accuracy.py --target cuda`.
"""

from __future__ import annotations

import numpy as np
import pytest
from gpu_util import HAVE_GPU, cp
from test_math import UNARY, assert_close, reference, values

import tilec
from tilec import float32, float64, tile_op
from tilec.conversion.mapped_to_hw.mathlib import TRIG_LIMIT

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine"),
]

MAX_ULP = {np.float32: 1.0, np.float64: 4.0}  # f64: ours < 2.5 ulp (mpmath), numpy's own <= 1


@pytest.mark.parametrize("dt,npdt", [(float32, np.float32), (float64, np.float64)])
@pytest.mark.parametrize("shape", [(1, 1), (7, 13), (3, 257), (127, 1000)])
def test_every_function_matches_numpy(dt, npdt, shape):
    @tile_op(dtype=dt, dims=["M", "N"])
    def all_math(x, y):
        return (*[getattr(tilec, name)(x) for name in UNARY], tilec.atan2(x, y), tilec.maximum(x, y))

    x = values(int(np.prod(shape)), npdt).reshape(shape)
    y = np.random.default_rng(1).permutation(x.ravel()).reshape(shape)
    outs = all_math(cp.asarray(x), cp.asarray(y))
    for name, got in zip([*UNARY, "atan2"], outs):
        got = cp.asnumpy(got)
        args = (x, y) if name == "atan2" else (x,)
        ref = reference(name, *args)
        if name in ("sin", "cos", "tan"):
            far = np.abs(x) > TRIG_LIMIT
            assert np.isnan(got[far]).all(), f"{name} beyond the reduction limit"
            got, ref = got[~far], ref[~far]
        assert_close(got, ref, MAX_ULP[npdt], f"cuda {name} {dt.name} {shape}")
    np.testing.assert_array_equal(cp.asnumpy(outs[-1]), np.maximum(x, y))  # the sign of max(-0, +0): unspecified


def test_fused_chain_feeding_a_row_sum():
    @tile_op(dtype=float32)
    def chain(x, y):
        return tilec.sum(tilec.sin(x) * tilec.sigmoid(y) + tilec.log1p(tilec.abs(x)), axis=-1)

    rng = np.random.default_rng(2)
    x = rng.standard_normal((13, 1001)).astype(np.float32) * 4
    y = rng.standard_normal((13, 1001)).astype(np.float32) * 30
    ref = (np.sin(x.astype(np.float64)) / (1 + np.exp(-y.astype(np.float64))) + np.log1p(np.abs(x))).sum(-1)
    got = cp.asnumpy(chain(cp.asarray(x), cp.asarray(y)))
    np.testing.assert_allclose(got, ref, rtol=2e-5, atol=1e-3)


def test_half_precision_matches_the_interpreter():
    @tile_op(dtype=tilec.float16)
    def f(x):
        return tilec.tan(x), tilec.expm1(x), tilec.round(x), tilec.softplus(x), tilec.clip(x, -1.0, 1.0)

    x = values(3 * 257, np.float16).reshape(3, 257)
    for g, i in zip(f(cp.asarray(x)), tilec.interpret(f, x)):
        assert_close(cp.asnumpy(g), i, 1.0, "f16 vs interpreter", x)


@pytest.mark.parametrize("shape", [(1, 1), (7, 13), (127, 1000)])
def test_core_functions_in_float64(shape):
    """tanh, erf (our f64 algorithms: mathlib.py), exp, log and rsqrt (sqrt.rn, div.rn) in f64 on
    NVIDIA, against numpy / Python's erf; GELU's erf form as torch computes it in f64."""
    import math

    @tile_op(dtype=float64, dims=["M", "N"])
    def core(x):
        return (
            tilec.tanh(x),
            tilec.erf(x),
            tilec.exp(x),
            tilec.log(tilec.abs(x)),
            tilec.rsqrt(tilec.abs(x)),
            0.5 * x * (1.0 + tilec.erf(x * 0.7071067811865476)),
        )

    x = values(int(np.prod(shape)), np.float64).reshape(shape)
    got = [cp.asnumpy(g) for g in core(cp.asarray(x))]
    with np.errstate(all="ignore"):
        erf = np.vectorize(math.erf, otypes=[np.float64])
        refs = [np.tanh(x), erf(x), np.exp(x), np.log(np.abs(x)), 1.0 / np.sqrt(np.abs(x))]
        gelu = 0.5 * x * (1.0 + erf(x * 0.7071067811865476))
    for name, g, r in zip(("tanh", "erf", "exp", "log", "rsqrt"), got, refs):
        assert_close(g, r, MAX_ULP[np.float64], f"cuda {name} f64 {shape}", x)
    fin = np.isfinite(gelu)
    # 1 + erf(y) cancels for y << 0: erf's few ulp (of 1) become 0.5 |x| 4 eps absolute there
    bound = 1e-14 * np.abs(gelu[fin]) + 2 * np.abs(x[fin]) * np.finfo(np.float64).eps
    assert (np.abs(got[5][fin] - gelu[fin]) <= bound).all(), np.abs(got[5][fin] - gelu[fin]).max()
