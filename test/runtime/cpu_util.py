"""Helpers shared by the CPU numerics tests (test_cpu_*.py).

Random inputs are fresh on every run. The base seed is printed with every failing test
(`TILEC_TEST_SEED=...`); set that environment variable to replay a run exactly. Each test draws
from its own generator, seeded from the base seed and the test's id, so replaying one test does
not depend on which other tests ran.

Tolerances (`TOL`, relative and absolute, used for elementwise and rowwise results; contractions
use the error bound in `check_contract` instead):
- f32: 1e-5 relative. Compiled code computes in f32 with FMA contraction and its own exp/log/
  tanh/erf (<= 4 ulp, test_c_math.py), while the references round differently: a few ulp of
  f32 (6e-8 each) per op in a short chain stay well under 1e-5.
- f64: 1e-12 (libm math, no f32 anywhere).
- f16: 1e-2 relative, 1e-3 absolute. The kernels keep 16-bit values in f32 between ops and round
  once when storing, the interpreter rounds after every op: results may differ by a few f16 ulp
  (2^-11 = 4.9e-4 relative each).
- bf16: 2e-2 relative and absolute: the same with bf16's 2^-8 = 3.9e-3 ulp.
Integer and boolean results must be exact.
"""

from __future__ import annotations

import math
import os
import secrets
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

import tilec

TOL = {
    "float32": (1e-5, 1e-5),
    "float64": (1e-12, 1e-12),
    "float16": (1e-2, 1e-3),
    "bfloat16": (2e-2, 2e-2),
}

# unit roundoff of each float type (half an ulp of 1.0)
UNIT = {"float32": 2.0**-24, "float64": 2.0**-53, "float16": 2.0**-11, "bfloat16": 2.0**-8}

SEED = int(os.environ.get("TILEC_TEST_SEED") or secrets.randbits(32))


def rng_for(nodeid: str) -> np.random.Generator:
    print(f"TILEC_TEST_SEED={SEED} (test {nodeid})")
    return np.random.default_rng([SEED, zlib.crc32(nodeid.encode())])


@pytest.fixture
def rng(request) -> np.random.Generator:
    return rng_for(request.node.nodeid)


def dname(dtype) -> str:
    return tilec.as_dtype(dtype).name


def rand(rng, shape, dtype=tilec.float32, lo=-2.0, hi=2.0) -> np.ndarray:
    """Uniform values in [lo, hi) of `dtype` (ints: integers in [lo, hi]; bool: fair coins)."""
    dtype = tilec.as_dtype(dtype)
    if dtype.is_bool:
        return rng.random(shape) < 0.5
    if dtype.is_int:
        return rng.integers(int(lo), int(hi) + 1, size=shape).astype(dtype.np)
    return rng.uniform(lo, hi, size=shape).astype(dtype.np)


def f64(a) -> np.ndarray:
    return np.asarray(a).astype(np.float64)


def assert_close(got, want, dtype, rtol=None, atol=None, what="") -> None:
    """`got` (an array of `dtype`) against `want` (any float array): same shape, same NaN
    positions, equal infinities, finite values within rtol/atol (defaults: TOL[dtype])."""
    dtype = tilec.as_dtype(dtype)
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == dtype.np, f"{what}result dtype {got.dtype}, expected {dtype.np}"
    assert got.shape == want.shape, f"{what}result shape {got.shape}, expected {want.shape}"
    if not dtype.is_float:
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    r, a = TOL[dtype.name]
    rtol = r if rtol is None else rtol
    atol = a if atol is None else atol
    np.testing.assert_allclose(f64(got), f64(want), rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def run_both(op, *arrays):
    """(compiled result, interpreter result) of `op` on `arrays`, always as tuples."""
    got = op(*arrays)
    ref = tilec.interpret(op, *arrays)
    if not isinstance(got, tuple):
        got, ref = (got,), (ref,)
    return got, ref


def check(op, arrays, wants, dtype=None, rtol=None, atol=None, interp_rtol=None, interp_atol=None):
    """Run `op` compiled and interpreted; compare both against the float64 references `wants`
    (one per result; None skips) and the compiled result against the interpreter's."""
    got, ref = run_both(op, *arrays)
    if not isinstance(wants, tuple | list):
        wants = (wants,)
    assert len(got) == len(wants) == len(ref)
    for i, (g, r, w) in enumerate(zip(got, ref, wants)):
        dt = dtype if dtype is not None else tilec.as_dtype(g.dtype)
        if w is not None:
            assert_close(g, w, dt, rtol, atol, what=f"result {i} vs numpy: ")
        assert_close(
            g,
            r,
            dt,
            interp_rtol if interp_rtol is not None else rtol,
            interp_atol if interp_atol is not None else atol,
            what=f"result {i} vs interpreter: ",
        )
    return got


def check_contract(got, want64, mag64, k: int, dtype="float32", acc="float32", factor: float = 2.0) -> None:
    """A contraction result against its float64 value `want64`: elementwise
    |got - want| <= factor * (k*u_acc + u_out) * mag64, where mag64 is the float64 value of the
    same contraction of |lhs| and |rhs| (the standard error bound of a length-k dot product,
    plus the final rounding to the result type)."""
    dtype = tilec.as_dtype(dtype)
    got = np.asarray(got)
    assert got.dtype == dtype.np, f"result dtype {got.dtype}, expected {dtype.np}"
    want64 = np.asarray(want64)
    assert got.shape == want64.shape, f"result shape {got.shape}, expected {want64.shape}"
    mag = np.asarray(mag64)
    bound = factor * (max(k, 1) * UNIT[tilec.as_dtype(acc).name] + UNIT[dtype.name]) * mag + 1e-30
    err = np.abs(f64(got) - want64)
    bad = ~(err <= bound)
    if bad.any():
        i = tuple(np.argwhere(bad)[0])
        raise AssertionError(
            f"{bad.sum()} of {bad.size} elements out of bound; first at {i}: got {f64(got)[i]!r}, "
            f"want {want64[i]!r}, err {err[i]:.3g} > bound {bound[i]:.3g} (k={k})"
        )


erf64 = np.vectorize(math.erf, otypes=[np.float64])


def gelu64(x):
    return 0.5 * x * (1.0 + erf64(x / math.sqrt(2.0)))


def run_benchmark(script: str, *args: str, env: dict | None = None) -> str:
    """Run benchmarks/<script> from the repository root (results are checked inside each script);
    its stdout, after asserting it exited 0."""
    root = Path(__file__).resolve().parents[2]
    full = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""), **(env or {})}
    r = subprocess.run(
        [sys.executable, f"benchmarks/{script}", *args], cwd=root, capture_output=True, text=True, timeout=600, env=full
    )
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout
