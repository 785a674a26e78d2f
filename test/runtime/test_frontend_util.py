"""Helpers shared by the frontend tests (test_frontend*.py)."""

from __future__ import annotations

import math
import os

import numpy as np

import tilec

# rtol/atol per dtype for results compared with a float64 numpy reference.
TOL = {
    tilec.float32: (2e-5, 2e-5),
    tilec.float64: (1e-12, 1e-12),
    tilec.float16: (6e-3, 6e-3),
    tilec.bfloat16: (4e-2, 4e-2),
}

FLOAT_DTYPES = [tilec.float32, tilec.float16, tilec.bfloat16]


def rand(shape, dtype=tilec.float32, lo=-2.0, hi=2.0, rng=None) -> np.ndarray:
    """Fresh random values of `dtype` (uniform in [lo, hi) for floats)."""
    rng = rng or np.random.default_rng()
    dtype = tilec.as_dtype(dtype)
    if dtype.is_bool:
        return rng.random(shape) < 0.5
    if dtype.is_int:
        return rng.integers(int(lo), int(hi) + 1, size=shape).astype(dtype.np)
    return rng.uniform(lo, hi, size=shape).astype(dtype.np)


def f64(a) -> np.ndarray:
    return np.asarray(a).astype(np.float64)


def check(got, want, dtype=tilec.float32, scale: float = 1.0) -> None:
    """`got` (an array of `dtype`) against a float64 reference; `scale` widens the tolerance."""
    dtype = tilec.as_dtype(dtype)
    got = np.asarray(got)
    assert got.dtype == dtype.np, f"result dtype {got.dtype}, expected {dtype.np}"
    want = np.asarray(want)
    assert got.shape == want.shape, f"result shape {got.shape}, expected {want.shape}"
    if dtype.is_float:
        rtol, atol = TOL[dtype]
        np.testing.assert_allclose(f64(got), f64(want), rtol=rtol * scale, atol=atol * scale)
    else:
        np.testing.assert_array_equal(got, want)


erf = np.vectorize(math.erf, otypes=[np.float64])


def line_of(path: str, marker: str) -> int:
    """The line of `path` that ends with the comment `# <marker>` (exactly one must)."""
    with open(path) as f:
        hits = [i for i, line in enumerate(f.read().splitlines(), 1) if line.rstrip().endswith(f"# {marker}")]
    assert len(hits) == 1, f"marker {marker!r} found {len(hits)} times"
    return hits[0]


def same_file(a: str, b: str) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


class expect_error:
    """`with expect_error(__file__, "name", *phrases):` the block raises a tilec.TileError located
    at the line of `path` that ends with `# E:name`, whose message contains every phrase, and
    whose rendered text quotes that line."""

    def __init__(self, path: str, marker: str, *phrases: str):
        self.path, self.marker, self.phrases = path, marker, phrases

    def __enter__(self):
        import pytest

        self._raises = pytest.raises(tilec.TileError)
        self.info = self._raises.__enter__()
        return self.info

    def __exit__(self, *exc):
        suppressed = self._raises.__exit__(*exc)
        e = self.info.value
        assert isinstance(e, tilec.TilecError)
        assert e.location is not None, f"no location: {e}"
        assert same_file(e.location.file, self.path), f"reported at {e.location}, not in {self.path}: {e}"
        line = line_of(self.path, f"E:{self.marker}")
        assert e.location.line == line, f"reported at line {e.location.line}, expected {line}: {e}"
        for p in self.phrases:
            assert p in e.message, f"{p!r} not in {e.message!r}"
        assert f"E:{self.marker}" in str(e)  # the rendered error quotes the user's line
        return suppressed
