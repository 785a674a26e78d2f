"""Creation ops (zeros/ones/full/arange/iota and the *_like forms) and slicing/joining (basic
indexing, flip, dynamic_slice, concatenate, stack, pad): the interpreter and the CPU target against
numpy on fresh random inputs and awkward shapes (1, primes, negative steps, dynamic sizes); fused
chains (causal mask -> softmax, slice -> row sum, pad -> elementwise, slice -> contraction) with
their kernel counts; located errors; PTX assembled by ptxas and HIP compiled by hipcc.
Tolerances: cpu_util.TOL; moving data (slices, pads, concatenations) must be exact."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from cpu_util import check, rand, rng  # noqa: F401
from test_frontend_util import expect_error, line_of

import tilec
from tilec import bool_, float16, float32, int32, int64, tile_contract, tile_op
from tilec.toolchain.hipcc import find_hipcc


def expect(marker: str, *phrases: str):
    return expect_error(__file__, marker, *phrases)


def exact(op, *arrays, want):
    """Compiled (CPU) and interpreted results both equal to numpy's `want` (a tuple for several)."""
    wants = want if isinstance(want, tuple) else (want,)
    for got in (op(*arrays), tilec.interpret(op, *arrays)):
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(wants)
        for g, w in zip(got, wants):
            w = np.asarray(w)
            assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
            np.testing.assert_array_equal(g, w)


def kernels(op, *arrays, target="cpu") -> int:
    return op.ir("mapped", *arrays, target=target).count("mapped.kernel @")


# --- creation -----------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 7, 13])
def test_creation_with_static_sizes(n, rng):
    @tile_op(dtype=float32)
    def make(x):
        m = x.shape[0]
        return (
            tilec.zeros((m, 3)),
            tilec.ones((2, m), int32),
            tilec.full((m,), 7.5),
            tilec.full((2, 2), True, bool_),
            tilec.zeros_like(x),
            tilec.ones_like(x, float16),
            tilec.full_like(x, -3),
            tilec.iota((m, 4), 1),
            tilec.iota((m, 4), -2, float32) + x[:, :1],
        )

    x = rand(rng, (n, 5))
    want = (
        np.zeros((n, 3), np.float32),
        np.ones((2, n), np.int32),
        np.full((n,), 7.5, np.float32),
        np.full((2, 2), True),
        np.zeros_like(x),
        np.ones_like(x, np.float16),
        np.full_like(x, -3),
        np.broadcast_to(np.arange(4, dtype=np.int64), (n, 4)),
        np.broadcast_to(np.arange(n, dtype=np.float32)[:, None], (n, 4)) + x[:, :1],
    )
    exact(make, x, want=want)


@pytest.mark.parametrize(
    "args,kw",
    [((5,), {}), ((2, 11, 3), {}), ((10, 0, -3), {}), ((3, 3), {}), ((0.5, 3.0, 0.25), {}), ((7,), {"dtype": int32})]
    + [((-2.5, 4.0, 0.7), {}), ((1, 8, 2), {"dtype": float32})],
)
def test_arange_follows_numpy(args, kw):
    @tile_op(dtype=float32)
    def f(x):
        return tilec.arange(*args, **kw), x

    want = np.arange(*args, **{k: tilec.as_dtype(v).np for k, v in kw.items()})
    if want.dtype == np.float64:  # float arguments: the op's float dtype (docs/dsl.md)
        want = want.astype(np.float32)
    x = np.zeros(1, np.float32)
    for got in (f(x)[0], tilec.interpret(f, x)[0]):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_creation_with_dynamic_sizes(rng):
    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x):
        m, n = x.shape
        pos = tilec.arange(n).astype(float32)  # the positions 0..n-1 of a `?` axis
        return x * pos + tilec.full((m, n), 0.5) + tilec.iota((m, n), 0, float32), tilec.zeros_like(x)

    for shape in [(1, 1), (3, 17), (8, 5)]:
        x = rand(rng, shape)
        m, n = shape
        pos = np.arange(n, dtype=np.float32)
        rows = np.arange(m, dtype=np.float32)[:, None]
        check(f, [x], ((x * pos + 0.5) + rows, np.zeros_like(x)))


# --- indexing -----------------------------------------------------------------------------------

INDEXES = {
    "cols": (slice(None), slice(1, 5)),
    "neg-step": (slice(None, None, -1),),
    "row": (0,),
    "last-row-new-axis": (-1, None),
    "ellipsis-newaxis": (Ellipsis, None),
    "steps": (slice(-2, None, -3), slice(None, None, 2)),
    "scalar": (2, -1),
    "empty": (slice(3, 1),),
    "mid-newaxis": (slice(None), None, slice(4, None, -2)),
}


@pytest.mark.parametrize("name", list(INDEXES))
def test_basic_indexing_matches_numpy(name, rng):
    idx = INDEXES[name]

    @tile_op(dtype=float32)
    def f(x):
        return x[idx] * 2.0

    for shape in [(3, 7), (13, 5), (5, 257)]:
        x = rand(rng, shape)
        exact(f, x, want=x[idx] * np.float32(2))


def test_flip_and_reversal_on_dynamic_axes(rng):
    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x):
        return x[::-1] + 1.0, tilec.flip(x), tilec.flip(x, axis=-1)[:, :]

    for shape in [(1, 1), (7, 3), (2, 129)]:
        x = rand(rng, shape)
        exact(f, x, want=(x[::-1] + np.float32(1), np.flip(x), np.flip(x, -1)))


def test_slices_of_static_axes_with_dynamic_rows(rng):
    @tile_op(dtype=float32, dims=["M", 11])
    def f(x):
        return x[:, 2:-1], x[::-1, ::-5], x[..., 3]

    for m in (1, 6, 31):
        x = rand(rng, (m, 11))
        exact(f, x, want=(x[:, 2:-1], x[::-1, ::-5], x[..., 3]))


def test_static_windows_of_dynamic_axes_are_checked_at_the_call(rng):
    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x):
        return x[1:3, -3:] * 2.0, x[0], x[-1, ::-1], x[5::-2, :2]  # E:window

    for shape in [(6, 3), (7, 9), (40, 5)]:
        x = rand(rng, shape)
        exact(f, x, want=(x[1:3, -3:] * np.float32(2), x[0], x[-1, ::-1], x[5::-2, :2]))
    short = rand(rng, (4, 9))  # x[5::-2] reads row 5
    for run in (f, lambda a: tilec.interpret(f, a)):
        with pytest.raises(
            tilec.TilecError, match=r"slice: axis 0 has size 4, but the slice reads indices 5\.\.1"
        ) as e:
            run(short)
        assert e.value.location.line == line_of(__file__, "E:window")  # the slice's line


@pytest.mark.parametrize("start", [-5, 0, 3, 9, 10, 1000])
def test_dynamic_slice_clamps_like_jax(start, rng):
    @tile_op(dtype=float32)
    def f(x, i):
        return tilec.dynamic_slice(x, i.astype(int64)[0], 4, axis=1) * 3.0, tilec.dynamic_slice(x, 2, 1, axis=0)

    x = rand(rng, (5, 13))
    s = min(max(start, 0), 13 - 4)
    exact(f, x, np.array([start], np.float32), want=(x[:, s : s + 4] * np.float32(3), x[2:3]))


def test_dynamic_slice_of_a_dynamic_axis(rng):
    @tile_op(dtype=float32, dims=["M", "N", 1])  # (the third iteration axis: i's one element)
    def f(x, i):
        return tilec.dynamic_slice(x, i.astype(int64)[0], 3, axis=1)  # E:dslice

    for n, start in [(3, 0), (8, 6), (40, -1), (5, 1000)]:
        x = rand(rng, (4, n))
        s = min(max(start, 0), n - 3)
        exact(f, x, np.array([start], np.float32), want=x[:, s : s + 3])
    for run in (f, lambda *a: tilec.interpret(f, *a)):
        with pytest.raises(tilec.TilecError, match="axis 1 has size 2, shorter than the window of 3") as e:
            run(rand(rng, (4, 2)), np.zeros(1, np.float32))
        assert e.value.location.line == line_of(__file__, "E:dslice")


# --- joining ------------------------------------------------------------------------------------


def test_concatenate_and_stack(rng):
    @tile_op(dtype=float32)
    def f(x, y):
        a = tilec.concatenate([x, y, x[:, :1]], axis=1) * 2.0
        b = tilec.stack([x, x * 3.0], axis=1)
        c = tilec.concatenate((x, x[::-1]), axis=0)
        d = tilec.stack([x[0], y[-1, :5]], axis=-1)
        return a, b, c, d

    for m in (1, 3, 17):
        x, y = rand(rng, (m, 5)), rand(rng, (m, 7))
        want = (
            np.concatenate([x, y, x[:, :1]], 1) * np.float32(2),
            np.stack([x, x * np.float32(3)], 1),
            np.concatenate([x, x[::-1]], 0),
            np.stack([x[0], y[-1, :5]], -1),
        )
        exact(f, x, y, want=want)


@pytest.mark.parametrize("widths", [1, (2, 0), ((0, 3),), ((1, 2), (0, 3)), ((0, 0), (5, 1))])
def test_pad_constant_mode(widths, rng):
    @tile_op(dtype=float32)
    def f(x, k):
        return tilec.pad(x, widths, value=-1.5) * 2.0, tilec.pad(k, widths, constant_values=9)

    x = rand(rng, (4, 7))
    k = rand(rng, (4, 7), int32, -100, 100)

    @tile_op(dtype=int32)
    def g(k):
        return tilec.pad(k, widths, constant_values=9)

    exact(f, x, x, want=(np.pad(x, widths, constant_values=-1.5) * np.float32(2), np.pad(x, widths, constant_values=9)))
    exact(g, k, want=np.pad(k, widths, constant_values=9))


def test_views_of_computed_values_and_masks(rng):
    @tile_op(dtype=float32)
    def f(x, w):
        e = tilec.exp(x)
        return (
            e[1:, ::2] + 1.0,
            tilec.sum(x, axis=-1)[::-1],
            tile_contract(x, w, axes=[(1, 0)])[:, -2:],
            tilec.pad(x > 0.0, 1, value=True),
            tilec.concatenate([x[:0], x[:, :]], axis=0),
        )

    for m in (2, 5, 11):
        x, w = rand(rng, (m, 7)), rand(rng, (7, 3))
        got = check(
            f,
            [x, w],
            (
                np.exp(x.astype(np.float64))[1:, ::2] + 1,
                x.astype(np.float64).sum(-1)[::-1],
                (x.astype(np.float64) @ w)[:, -2:],
                None,
                x,
            ),
        )
        np.testing.assert_array_equal(got[3], np.pad(x > 0, 1, constant_values=True))


def test_eager_mode_sees_slice_values(monkeypatch, rng):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    seen = []

    @tile_op(dtype=float32)
    def f(x):
        y = tilec.pad(x[::-1, 1:], 1, value=2.0)
        seen.append(y.numpy())
        return tilec.concatenate([y, tilec.zeros_like(y)], axis=0)

    x = rand(rng, (4, 5))
    want = np.pad(x[::-1, 1:], 1, constant_values=2.0)
    np.testing.assert_array_equal(f(x), np.concatenate([want, np.zeros_like(want)]))
    np.testing.assert_array_equal(seen[-1], want)


# --- fused chains -------------------------------------------------------------------------------


def _softmax(x):
    e = tilec.exp(x - tilec.max(x, axis=-1, keepdims=True))
    return e / tilec.sum(e, axis=-1, keepdims=True)


@tile_op(dtype=float32, dims=["S", "T"])
def causal_softmax(s):
    S, T = s.shape
    return _softmax(tilec.where(tilec.iota((S, T), 1) <= tilec.iota((S, T), 0), s, -np.inf))


def test_causal_mask_fuses_into_softmax(rng):
    for shape in [(1, 1), (13, 13), (5, 130)]:
        s = rand(rng, shape, lo=-4, hi=4).astype(np.float32)
        z = np.where(np.tril(np.ones(shape, bool)), s.astype(np.float64), -np.inf)
        e = np.exp(z - z.max(-1, keepdims=True))
        check(causal_softmax, [s], e / e.sum(-1, keepdims=True))
    assert kernels(causal_softmax, s) == 1
    assert kernels(causal_softmax, s, target="cuda") == 1


def test_slice_and_pad_chains_are_one_kernel(rng):
    @tile_op(dtype=float32)
    def rowsum(x):
        return tilec.sum(x[:, 2:-1] * 2.0, axis=-1), tilec.exp(tilec.pad(x[::-1], ((1, 2), (0, 3)), value=-1.0))

    x = rand(rng, (7, 11))
    check(
        rowsum,
        [x],
        (
            (x[:, 2:-1].astype(np.float64) * 2).sum(-1),
            np.exp(np.pad(x[::-1].astype(np.float64), ((1, 2), (0, 3)), constant_values=-1)),
        ),
    )
    assert kernels(rowsum, x) == 2  # one per result shape: the row sum, the padded exp


def test_inner_loops_split_at_pad_and_concat_boundaries(rng):
    """On the CPU the innermost loop is cut where a pad or a concatenation changes source: each
    piece reads one input with a plain (vectorizable) index, no clamp, no select."""

    @tile_op(dtype=float32)
    def f(x, y):
        return tilec.pad(x, ((0, 0), (2, 3)), value=4.0) * 2.0, tilec.concatenate([x, y, x], axis=1)

    x, y = rand(rng, (5, 7)), rand(rng, (5, 2))
    exact(f, x, y, want=(np.pad(x, ((0, 0), (2, 3)), constant_values=4) * np.float32(2), np.concatenate([x, y, x], 1)))
    src = f.source("cpu", x, y)
    assert src.count("#pragma omp simd") == 6  # 3 pieces each
    assert "?" not in src[src.index("/* @f_0") : src.index("/* @f */")]  # no select in either kernel


def test_slice_feeding_a_contraction(rng):
    @tile_op(dtype=float32, dims=["M", "N", 9, 4])
    def mm(a, w):
        return tile_contract(a[:, :4], w, axes=[(1, 0)]) + 1.0

    for m, n in [(1, 1), (6, 5), (33, 17)]:
        a, w = rand(rng, (m, 9)), rand(rng, (4, n))
        check(mm, [a, w], a[:, :4].astype(np.float64) @ w + 1, rtol=1e-5, atol=1e-5)
    assert kernels(mm, a, w) == 2  # the slice is materialized before the GEMM (docs/dsl.md)


# --- errors -------------------------------------------------------------------------------------


def test_static_index_out_of_range_is_located():
    @tile_op(dtype=float32)
    def f(x):
        return x[:, 4]  # E:range

    with expect("range", "index 4 is out of range for axis 1 of size 4"):
        tilec.interpret(f, np.zeros((2, 4), np.float32))


def test_partial_slice_of_a_dynamic_axis_is_not_supported_yet():
    @tile_op(dtype=float32, dims=["M"])
    def f(x):
        return x[1:]  # E:dyn

    with expect("dyn", "not supported yet: slicing with 1: on axis 0", "dynamic"):
        f(np.zeros(5, np.float32))


def test_float_start_and_bad_arguments():
    @tile_op(dtype=float32)
    def f(x):
        return tilec.dynamic_slice(x, x[0], 2)  # E:float

    @tile_op(dtype=float32)
    def g(x, y):
        return tilec.concatenate([x, y.astype(float16)])  # E:dtype

    @tile_op(dtype=float32)
    def h(x):
        return tilec.pad(x, ((1, 2, 3),))  # E:pad

    @tile_op(dtype=float32)
    def k(x):
        return x[::0]  # E:step

    x = np.zeros(4, np.float32)
    with expect("float", "start must be an integer tile, got a float32 tile"):
        tilec.interpret(f, x)
    with expect("dtype", "tile 1 is float16 but tile 0 is float32"):
        tilec.interpret(g, x, x)
    with expect("pad", "pad_width must be an int, a (before, after) pair, or one pair per axis"):
        tilec.interpret(h, x)
    with expect("step", "slice step cannot be zero"):
        tilec.interpret(k, x)


def test_creation_outside_a_tile_op():
    with expect("outside", "tilec.zeros makes a tile"):
        tilec.zeros((2, 3))  # E:outside


# --- GPU code: PTX assembles, HIP compiles ------------------------------------------------------


def _programs():
    x = np.zeros((7, 13), np.float32)
    i = np.zeros(1, np.float32)

    @tile_op(dtype=float32)
    def views(x, i):
        return (
            tilec.concatenate([x[:, 1:5], tilec.flip(x[:, -4:], 1)], axis=1) * 2.0,
            tilec.pad(x[::-2], ((1, 0), (2, 3)), value=-np.inf),
            tilec.dynamic_slice(x, i.astype(int64)[0], 3, axis=1),
            tilec.sum(x[:, ::3], axis=-1) + tilec.arange(7).astype(float32),
        )

    @tile_op(dtype=float32, dims=["M", 13])
    def computed(x):
        e = tilec.exp(x)
        masks = tilec.pad(x > 0.0, ((0, 0), (1, 1)), value=True)
        return e[:, 1::2] + 1.0, tilec.sum(x, axis=-1)[::-1], masks, tilec.dynamic_slice(x[-3:], 1, 2, axis=0)

    return [("causal", causal_softmax, [x]), ("views", views, [x, i]), ("computed", computed, [x])]


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
@pytest.mark.parametrize("name,op,arrays", _programs(), ids=lambda p: p if isinstance(p, str) else "")
def test_ptx_assembles(name, op, arrays, tmp_path):
    path = tmp_path / f"{name}.ptx"
    path.write_text(op.source("cuda", *arrays))
    r = subprocess.run(
        ["ptxas", "-arch=sm_90a", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr


@pytest.mark.skipif(find_hipcc() is None, reason="hipcc is not installed (apt-get install hipcc)")
@pytest.mark.parametrize("name,op,arrays", _programs(), ids=lambda p: p if isinstance(p, str) else "")
def test_hip_compiles(name, op, arrays):
    op.compile("hip", *arrays)


def test_dynamic_slice_start_from_a_runtime_int_argument():
    @tile_op(dtype=float32)
    def window(x, i: int):
        return tilec.dynamic_slice(x, i, 3, axis=1)

    x = np.random.default_rng().standard_normal((4, 11)).astype(np.float32)
    for i in (0, 5, 8, 9, -3, 100):
        s = min(max(i, 0), 8)
        assert np.array_equal(window(x, i), x[:, s : s + 3]), i
        assert np.array_equal(tilec.interpret(window, x, i), x[:, s : s + 3]), i
    assert window.compile("cpu", x, 0) is window.compile("cpu", x, 7)  # the start is not in the key
