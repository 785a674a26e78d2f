"""Property tests (hypothesis) over shapes: broadcasting, reductions and contractions agree with
numpy for random shapes, axes, layouts and dims (static, dynamic, none)."""

from __future__ import annotations

import string

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes
from test_frontend_util import FLOAT_DTYPES, check, f64, rand

import tilec
from tilec import float32, tile_contract, tile_op

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(
    shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, min_side=1, max_side=6),
    dtype=st.sampled_from(FLOAT_DTYPES),
)
def test_elementwise_broadcasting_matches_numpy(shapes, dtype):
    (sx, sy), result = shapes.input_shapes, shapes.result_shape

    @tile_op(dtype=dtype)
    def f(x, y):
        return x + y, x * y - y, tilec.maximum(x, y), tilec.where(x < y, x, y * 0.5), x > y

    x, y = rand(sx, dtype), rand(sy, dtype)
    X, Y = f64(x), f64(y)
    outs = tilec.interpret(f, x, y)
    wants = [X + Y, X * Y - Y, np.maximum(X, Y), np.where(X < Y, X, Y * 0.5)]
    for got, want in zip(outs, wants):
        assert got.shape == result
        check(got, want, dtype, scale=2)
    np.testing.assert_array_equal(outs[-1], x > y)


@SETTINGS
@given(
    base=st.lists(st.integers(1, 6), min_size=1, max_size=3),
    suffix=st.integers(0, 3),
    data=st.data(),
)
def test_dynamic_broadcasting_by_rank_extension(base, suffix, data):
    """With dims, an argument of lower rank broadcasts against the trailing axes (its axes are
    the same iteration axes); the op is traced once for all sizes."""
    k = min(suffix, len(base))
    names = [f"D{i}" for i in range(len(base))]

    @tile_op(dtype=float32, dims=names)
    def f(x, y):
        return x * 2.0 - y + tilec.sum(y, keepdims=True)

    for _ in range(2):
        shape = tuple(data.draw(st.integers(1, 5)) for _ in base)
        x, y = rand(shape), rand(shape[len(shape) - k :])
        X, Y = f64(x), f64(y)
        check(tilec.interpret(f, x, y), X * 2 - Y + Y.sum(keepdims=True), scale=3)
    assert f.trace_count == 2


@st.composite
def _reduction_case(draw):
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=1, max_size=4)))
    n = len(shape)
    form = draw(st.sampled_from(["none", "int", "tuple"]))
    if form == "none":
        axis, reduced = None, list(range(n))
    elif form == "int":
        a = draw(st.integers(-n, n - 1))
        axis, reduced = a, [a % n]
    else:
        picked = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
        axis = tuple(p - n if draw(st.booleans()) else p for p in picked)
        reduced = sorted(picked)
    keepdims = draw(st.booleans())
    kind = draw(st.sampled_from(["sum", "max", "min", "mean"]))
    mode = draw(st.sampled_from(["nodims", "static", "dynamic"]))
    return shape, axis, reduced, keepdims, kind, mode


@SETTINGS
@given(case=_reduction_case())
def test_reductions_match_numpy(case):
    shape, axis, reduced, keepdims, kind, mode = case
    # dims lists the result's axes first (the kept ones), then the reduced ones.
    order = [i for i in range(len(shape)) if i not in reduced] + reduced
    if mode == "nodims":
        dims = None
    elif mode == "static":
        dims = [shape[i] for i in order]
    else:
        dims = [f"D{i}" for i in order]
    fn = {"sum": tilec.sum, "max": tilec.max, "min": tilec.min, "mean": tilec.mean}[kind]

    @tile_op(dtype=float32, dims=dims)
    def f(x):
        return fn(x, axis=axis, keepdims=keepdims)

    x = rand(shape)
    want = getattr(np, kind)(f64(x), axis=axis, keepdims=keepdims)
    check(tilec.interpret(f, x), want, float32, scale=4)


@st.composite
def _contraction_case(draw):
    size = st.integers(1, 5)
    batch = draw(st.lists(size, max_size=1))
    contract = draw(st.lists(size, max_size=2))
    free_a = draw(st.lists(size, max_size=2))
    free_b = draw(st.lists(size, max_size=2))
    letters = iter(string.ascii_lowercase)
    b_l = [next(letters) for _ in batch]
    c_l = [next(letters) for _ in contract]
    fa_l = [next(letters) for _ in free_a]
    fb_l = [next(letters) for _ in free_b]
    sizes = dict(zip(b_l + c_l + fa_l + fb_l, batch + contract + free_a + free_b))
    lhs = draw(st.permutations(b_l + fa_l + c_l))
    rhs = draw(st.permutations(b_l + c_l + fb_l))
    mode = draw(st.sampled_from(["nodims", "dynamic"]))
    return sizes, list(lhs), list(rhs), b_l, c_l, mode


@SETTINGS
@given(case=_contraction_case())
def test_contractions_match_einsum(case):
    sizes, lhs, rhs, b_l, c_l, mode = case
    axes = [(lhs.index(c), rhs.index(c)) for c in c_l]
    batch = [(lhs.index(b), rhs.index(b)) for b in b_l]
    out = b_l + [c for c in lhs if c not in b_l + c_l] + [c for c in rhs if c not in b_l + c_l]
    # dims: the result's axes, then the contracted ones in the order they appear in the arguments.
    dims = None if mode == "nodims" else [c.upper() for c in out + [c for c in lhs if c in c_l]]

    @tile_op(dtype=float32, dims=dims)
    def f(a, b):
        return tile_contract(a, b, axes=axes, batch=batch)

    a = rand(tuple(sizes[c] for c in lhs))
    b = rand(tuple(sizes[c] for c in rhs))
    want = np.einsum(f"{''.join(lhs)},{''.join(rhs)}->{''.join(out)}", f64(a), f64(b))
    check(tilec.interpret(f, a, b), want, float32, scale=10)
