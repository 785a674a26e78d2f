"""Order ops (tilec.sort, argsort, topk): the interpreter and the CPU target against torch
(CPU) and numpy on fresh random inputs: lengths 1, primes and 1000+, every axis of a 3-d tile,
ties (stable: equal values keep their input order, descending too), NaN / inf / -0.0 (NaN is
the largest value, -0.0 equals 0.0), float / integer / unsigned types, k = 1, k = n, k > n
(located errors, at trace time and at run time), and top-k after a softmax in ONE kernel.
Values and indices must be exact (they are copies and positions)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from cpu_util import rand, rng  # noqa: F401
from test_frontend_util import expect_error, line_of

import tilec
from tilec import bfloat16, float16, float32, float64, int32, int64, tile_op, uint32


def kernels(op, *arrays) -> int:
    return op.ir("mapped", *arrays).count("mapped.kernel @")


def exact(got, want, what=""):
    """Same dtype, shape and elements; floats bit for bit up to NaN payloads (so -0.0 and 0.0
    must sit where the reference puts them)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, want.dtype, got.shape, want.shape)
    if got.dtype.name == "bfloat16":  # numpy's NaN == NaN rule knows only its own float types
        got, want = got.astype(np.float32), want.astype(np.float32)
    np.testing.assert_array_equal(got, want, err_msg=what)
    if got.dtype.kind == "f" or got.dtype.name == "bfloat16":
        g, w = got.astype(np.float64), want.astype(np.float64)
        np.testing.assert_array_equal(np.signbit(g) & ~np.isnan(g), np.signbit(w) & ~np.isnan(w), err_msg=what)


def awkward(rng, shape, dt):
    """Few distinct values (many ties); floats also get NaN, +-inf, -0.0 and 0.0."""
    d = tilec.as_dtype(dt)
    if not d.is_float:
        return rand(rng, shape, dt, -4, 4) if d.name != "uint32" else rand(rng, shape, dt, 0, 2**32 - 1) // 2**29
    x = np.round(rand(rng, shape, float32, -3, 3))
    flat = x.reshape(-1)
    k = max(1, flat.size // 13)
    for v in (np.nan, np.inf, -np.inf, -0.0, 0.0):
        flat[rng.integers(0, flat.size, k)] = v
    return x.astype(d.np)


def torch_sort(x, axis, descending):
    """torch.sort (stable) on the CPU; 16-bit floats and unsigned ints through exact wider types."""
    t = torch.from_numpy(
        x.astype(np.float32) if x.dtype.itemsize == 2 else x.astype(np.int64) if x.dtype == np.uint32 else x
    )
    v, i = torch.sort(t, dim=axis, descending=descending, stable=True)
    return v.numpy().astype(x.dtype), i.numpy()


def both(op, *arrays):
    """(compiled on the CPU, interpreter), each a tuple."""
    got, ref = op(*arrays), tilec.interpret(op, *arrays)
    return (got if isinstance(got, tuple) else (got,)), (ref if isinstance(ref, tuple) else (ref,))


@pytest.mark.parametrize("shape", [(1,), (13,), (3, 1031), (1, 2), (4, 1)])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_lengths_ties_nans(rng, shape, descending):
    @tile_op(dtype=float32)
    def f(x):
        return tilec.sort(x, descending=descending), tilec.argsort(x, -1, descending=descending)

    x = awkward(rng, shape, float32)
    assert kernels(f, x) == 1  # sort and argsort of the same x: one sort (tile-canonicalize)
    want_v, want_i = torch_sort(x, -1, descending)
    got, ref = both(f, x)
    for res, what in ((got, "C"), (ref, "interpreter")):
        exact(res[0], want_v, f"{what} values")
        exact(res[1], want_i, f"{what} indices")


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_every_axis_of_3d(rng, axis):
    @tile_op(dtype=float64, dims=["A", "B", "C"])
    def f(x):
        v, i = tilec.topk(x, 2, axis=axis, largest=False)
        return tilec.sort(x, axis, descending=True), tilec.argsort(x, axis), v, i

    x = awkward(rng, (3, 5, 7), float64)
    dv, di = torch_sort(x, axis, True)
    av, ai = torch_sort(x, axis, False)
    got, ref = both(f, x)
    for res, what in ((got, "C"), (ref, "interpreter")):
        exact(res[0], dv, what)
        exact(res[1], ai, what)
        exact(res[2], np.take(av, [0, 1], axis=axis), what)
        exact(res[3], np.take(ai, [0, 1], axis=axis), what)


@pytest.mark.parametrize("dt", [float16, bfloat16, int32, int64, uint32])
def test_types(rng, dt):
    @tile_op(dtype=dt, dims=["M", "N"])
    def f(x):
        v, i = tilec.topk(x, 3)
        return tilec.sort(x, descending=True), tilec.argsort(x), v, i

    x = awkward(rng, (5, 37), dt)
    if dt in (int64, uint32):  # the extremes of the type (signed / unsigned comparison)
        info = np.iinfo(x.dtype)
        x[0, :4] = [info.min, info.max, info.min, info.max]
    dv, di = torch_sort(x, 1, True)
    av, ai = torch_sort(x, 1, False)
    got, ref = both(f, x)
    for res, what in ((got, "C"), (ref, "interpreter")):
        exact(res[0], dv, what)
        exact(res[1], ai, what)
        exact(res[2], dv[:, :3], what)
        exact(res[3], di[:, :3], what)


def test_signed_zeros_and_nans_keep_input_order():
    @tile_op(dtype=float32, dims=["N"])
    def f(x):
        return tilec.argsort(x), tilec.argsort(x, descending=True)

    x = np.array([0.0, -0.0, np.nan, 1.0, -0.0, np.nan, 0.0, -np.inf], np.float32)
    for res in both(f, x):
        exact(res[0], np.array([7, 0, 1, 4, 6, 3, 2, 5]))
        exact(res[1], np.array([2, 5, 3, 0, 1, 4, 6, 7]))


@pytest.mark.parametrize("n", [1, 2, 11, 1009])
def test_topk_k_1_and_n_against_torch(rng, n):
    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x):
        top1, i1 = tilec.topk(x, 1)
        alln, i_n = tilec.topk(x, n, sorted=False)
        low, il = tilec.topk(x, 1, largest=False)
        return top1, i1, alln, i_n, low, il

    # distinct values in each row (random floats can repeat, and torch orders ties as it likes)
    x = ((np.argsort(rng.random((3, n)), axis=1) - n / 2) * 0.37).astype(np.float32)
    t = torch.from_numpy(x)
    got, ref = both(f, x)
    for res, what in ((got, "C"), (ref, "interpreter")):
        for (v, i), (k, largest) in zip(zip(res[::2], res[1::2]), [(1, True), (n, True), (1, False)]):
            tv, ti = torch.topk(t, k, dim=-1, largest=largest, sorted=True)
            exact(v, tv.numpy(), what)
            exact(i, ti.numpy(), what)


def test_topk_ties_lower_index_first(rng):
    """torch leaves the order of equal values open; tilec puts the lower index first: the
    indices of a stable descending sort."""

    @tile_op(dtype=int32, dims=["M", "N"])
    def f(x):
        return tilec.topk(x, 5)

    x = rand(rng, (7, 29), int32, 0, 3)  # many ties
    dv, di = torch_sort(x, 1, True)
    tv, _ = torch.topk(torch.from_numpy(x), 5)
    for v, i in both(f, x):
        exact(v, tv.numpy())
        exact(i, di[:, :5])


@pytest.mark.parametrize("experts", [256, "E"])
def test_order_of_computed_16bit_values_is_that_of_the_rounded_tile(rng, experts):
    """A bf16 sigmoid computed in f32 inside the fused kernel: the top-k and the sort rank the
    bf16 values the tile holds (many become equal when rounded), so ties keep the lower index
    first, exactly as the interpreter (which rounds after every op)."""

    @tile_op(dtype=bfloat16, dims=["T", experts])
    def gate(logits):
        s = tilec.sigmoid(logits)
        return (*tilec.topk(s, 8), tilec.sort(s, descending=True), tilec.argsort(s, descending=True))

    x = (rng.standard_normal((9, 256)) * 2).astype(bfloat16.np)
    want = tilec.interpret(gate, x)
    for w, g in zip(want, gate(x)):
        exact(g, w)


@pytest.mark.parametrize("experts", [64, "E"])
def test_topk_after_softmax_is_one_kernel(rng, experts):
    """The MoE gating case: softmax over the experts, then top-k, one fused kernel (a static
    row is staged before the selection; a `?` one is evaluated in it)."""

    @tile_op(dtype=float32, dims=["T", experts])
    def gate(logits):
        e = tilec.exp(logits - tilec.max(logits, axis=-1, keepdims=True))
        return tilec.topk(e / tilec.sum(e, axis=-1, keepdims=True), 8)

    x = rand(rng, (37, 64), float32, -4, 4)
    assert kernels(gate, x) == 1
    s = torch.softmax(torch.from_numpy(x).double(), -1)
    tv, _ = torch.topk(s, 8)
    for v, i in both(gate, x):
        assert v.dtype == np.float32 and i.dtype == np.int64
        np.testing.assert_allclose(v, tv.numpy(), rtol=1e-5)
        # scores equal to within f32 rounding may come in either order: check what was picked
        np.testing.assert_allclose(np.take_along_axis(s.numpy(), i, 1), tv.numpy(), rtol=1e-5)


def test_sort_of_computed_values_and_other_outputs(rng):
    """A sort group also stores its source's other full-size and per-row values."""

    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x):
        y = x * 2.0 - 1.0
        m = tilec.sum(y, axis=-1)
        return tilec.sort(y), y, m

    x = rand(rng, (6, 17), float32)
    assert kernels(f, x) == 1
    y = x * np.float32(2.0) - np.float32(1.0)
    got = f(x)
    exact(got[0], np.sort(y, -1))
    exact(got[1], y)
    np.testing.assert_allclose(got[2], y.sum(-1), rtol=1e-5, atol=1e-5)


def expect(marker: str, *phrases: str):
    return expect_error(__file__, marker, *phrases)


def test_errors():
    @tile_op(dtype=float32)
    def too_many(x):
        return tilec.topk(x, 6)  # E:k

    @tile_op(dtype=float32)
    def zero_k(x):
        return tilec.topk(x, 0)  # E:k0

    @tile_op(dtype=float32)
    def float_k(x):
        return tilec.topk(x, 2.0)  # E:kf

    @tile_op(dtype=float32)
    def mask(x):
        return tilec.sort(x > 0)  # E:mask

    @tile_op(dtype=float32)
    def bad_axis(x):
        return tilec.argsort(x, 2)  # E:axis

    @tile_op(dtype=float32, dims=["M", "N"])
    def dynamic(x):
        return tilec.topk(x, 6)  # E:dyn

    x = np.zeros((2, 5), np.float32)
    with expect("k", "tilec.topk: k = 6 is larger than the size 5 of axis 1"):
        too_many(x)
    with expect("k0", "tilec.topk: k must be at least 1, got 0"):
        zero_k(x)
    with expect("kf", "tilec.topk: k must be an int, got 2.0"):
        float_k(x)
    with expect("mask", "tilec.sort: cannot order a bool tile"):
        mask(x)
    with expect("axis", "tilec.argsort: axis 2 is out of range"):
        bad_axis(x)
    for run in (dynamic, lambda a: tilec.interpret(dynamic, a)):  # checked at run time, before any kernel runs
        with pytest.raises(tilec.TilecError, match=r"topk: k = 6 is larger than axis 1's size 5") as e:
            run(x)
        assert e.value.location.line == line_of(__file__, "E:dyn")
    dynamic(np.zeros((2, 6), np.float32))  # k = n is fine
