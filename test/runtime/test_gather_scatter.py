"""Gathers and scatters (tilec.take, take_along_axis, scatter_add, index_add, one_hot): the
interpreter and the CPU target against numpy / np.add.at on fresh random inputs and awkward
shapes (1, primes, repeated and negative indices, every index dtype); fused chains (a gather
feeding a row reduction is one kernel); out-of-range indices raising IndexOutOfRange at the op
(compiled code never reads or writes out of bounds: indices around 2**50 would crash it);
located errors; PTX assembled by ptxas (sm_90a, sm_80) and HIP compiled by hipcc.
Moving data must be exact; scatter sums are in index order on every target, so they are exact
against the interpreter and within f32 rounding of np.add.at."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from cpu_util import rand, rng  # noqa: F401
from test_frontend_util import expect_error

import tilec
from tilec import float16, float32, int32, int64, tile_op, uint8, uint32
from tilec.toolchain.hipcc import find_hipcc


def expect(marker: str, *phrases: str):
    return expect_error(__file__, marker, *phrases)


def both(op, *arrays):
    got, ref = op(*arrays), tilec.interpret(op, *arrays)
    got = got if isinstance(got, tuple) else (got,)
    ref = ref if isinstance(ref, tuple) else (ref,)
    return got, ref


def exact(op, *arrays, want):
    wants = want if isinstance(want, tuple) else (want,)
    for res in both(op, *arrays):
        assert len(res) == len(wants)
        for g, w in zip(res, wants):
            w = np.asarray(w)
            assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
            np.testing.assert_array_equal(g, w)


def kernels(op, *arrays) -> int:
    return op.ir("mapped", *arrays).count("mapped.kernel @")


def indices(rng, n, shape, dtype=np.int64, negative=True):
    lo = -n if negative and np.dtype(dtype).kind == "i" else 0
    return rng.integers(lo, n, size=shape).astype(dtype)


# --- take --------------------------------------------------------------------------------------


@pytest.mark.parametrize("xshape,axis,ishape", [((1, 1), 0, (1,)), ((13, 7), 0, (3, 5)), ((5, 11, 3), 1, (17,))])
@pytest.mark.parametrize("idt", [np.int64, np.int32, np.uint8, np.uint32])
def test_take(rng, xshape, axis, ishape, idt):
    @tile_op(dtype=float32, dtypes={"i": tilec.as_dtype(idt)})
    def f(x, i):
        return tilec.take(x, i, axis=axis), tilec.take(x, i)  # axis None: the flattened x

    x = rand(rng, xshape)
    i = indices(rng, xshape[axis], ishape, idt)
    j = np.where(i >= 0, i, i + xshape[axis])  # numpy wraps negative indices too
    exact(f, x, i, want=(np.take(x, j, axis=axis), np.take(x.reshape(-1), i % x.size if i.min() < 0 else i)))


@pytest.mark.parametrize("dt", [float16, int32, uint8])
def test_take_dtypes_and_scalar_index(rng, dt):
    @tile_op(dtype=dt)
    def f(x, i: int64):
        return tilec.take(x, i, axis=1), tilec.take(x, 2, axis=0)

    x = rand(rng, (3, 10), dt, 0, 100)
    i = indices(rng, 10, (2, 2))
    exact(f, x, i, want=(np.take(x, i, axis=1), x[2]))


def test_take_with_dynamic_sizes(rng):
    @tile_op(dtype=float32, dims=["B", "T", "D", "V"])
    def emb(w, ids: int64):
        return tilec.take(w, ids, axis=0) * 2.0

    for b, t, d, v in [(1, 1, 1, 1), (2, 7, 5, 13), (3, 1, 33, 2)]:
        w, ids = rand(rng, (v, d)), indices(rng, v, (b, t))
        exact(emb, w, ids, want=w[ids] * np.float32(2))
    assert emb.trace_count == 2  # one symbolic trace serves every size


# --- take_along_axis ---------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(1, 1), (7, 10), (13, 257)])
def test_take_along_axis_broadcasts_like_numpy(rng, shape):
    n, c = shape

    @tile_op(dtype=float32)
    def f(x, lab: int64, cols: int32, flat: uint32):
        return (
            tilec.take_along_axis(x, lab[:, None], 1),
            tilec.take_along_axis(x, cols, 1),  # (1, 4) indices broadcast over the rows
            tilec.take_along_axis(x, flat, None),  # the flattened x
        )

    x = rand(rng, shape)
    lab, cols = indices(rng, c, (n,)), indices(rng, c, (1, 4), np.int32)
    flat = indices(rng, n * c, (6,), np.uint32)
    want = (
        np.take_along_axis(x, lab[:, None], 1),
        np.take_along_axis(x, np.broadcast_to(cols, (n, 4)), 1),
        np.take_along_axis(x.reshape(-1), flat.astype(np.intp), None),
    )
    exact(f, x, lab, cols, flat, want=want)


def test_cross_entropy_chain_is_one_kernel(rng):
    """A gather feeding a row reduction: the picked logit is read in place, next to logsumexp."""

    @tile_op(dtype=float32, dims=["N", "C"])
    def ce(x, lab: int64):
        m = tilec.max(x, axis=1, keepdims=True)
        lse = tilec.log(tilec.sum(tilec.exp(x - m), axis=1, keepdims=True)) + m
        return tilec.mean(lse - tilec.take_along_axis(x, lab[:, None], 1))

    for n, c in [(1, 1), (7, 10), (33, 1001)]:
        x, lab = rand(rng, (n, c), lo=-5, hi=5), indices(rng, c, (n,), negative=False)
        lse = np.log(np.exp(x.astype(np.float64)).sum(1))
        want = np.mean(lse - x[np.arange(n), lab])
        for got in both(ce, x, lab):
            np.testing.assert_allclose(got[0], want, rtol=1e-5, atol=1e-5)
    x, lab = rand(rng, (7, 10)), indices(rng, 10, (7,))
    assert kernels(ce, x, lab) == 2  # the rowwise CE, and the mean over the rows


# --- scatter_add / index_add -------------------------------------------------------------------


@pytest.mark.parametrize("shape,axis,k", [((1, 1), 0, 1), ((13, 7), 0, 29), ((5, 11), 1, 3), ((3, 4, 6), 1, 9)])
@pytest.mark.parametrize("dt", [float32, int32, float16])
def test_scatter_add_repeated_indices(rng, shape, axis, k, dt):
    @tile_op(dtype=dt)
    def f(x, i: int64, src):
        return tilec.scatter_add(x, axis, i, src)

    ishape = tuple(k if d == axis else n for d, n in enumerate(shape))
    x = rand(rng, shape, dt, -5, 5)
    i = indices(rng, min(shape[axis], 3), ishape, negative=False)  # few distinct targets: many repeats
    src = rand(rng, tuple(s + 1 for s in ishape), dt, -5, 5)  # larger than the index, as torch allows
    used = src[tuple(slice(0, s) for s in ishape)]
    got, ref = both(f, x, i, src)
    np.testing.assert_array_equal(got[0], ref[0])  # the same additions in the same order
    want = x.astype(np.float64) if dt != int32 else x.copy()
    where = list(np.indices(ishape, sparse=True))
    where[axis] = i
    np.add.at(want, tuple(where), used.astype(want.dtype))
    if dt == int32:
        np.testing.assert_array_equal(got[0], want)
    else:
        tol = 1e-5 if dt == float32 else 2e-2
        np.testing.assert_allclose(got[0].astype(np.float64), want, rtol=tol, atol=tol * 10)


@pytest.mark.parametrize("shape,axis,k", [((5, 200), 0, 57), ((3, 4, 131), 1, 23), ((2, 64), 0, 9), ((7, 1), 0, 5)])
def test_cpu_scatter_splits_columns_across_threads(rng, shape, axis, k):
    """An embedding-backward-like scatter (few rows before the axis) runs its last axis in chunks
    of 64 columns as parallel tasks (the thread team forced with parallel_work=0): each column
    still adds its updates in index order, bit-identical to the interpreter, also at the ragged
    last chunk (200 = 3 x 64 + 8, 131, a single chunk of 64, a 1-column axis)."""

    @tile_op(dtype=float32)
    def f(x, i: int64, src):
        return tilec.scatter_add(x, axis, i, src)

    ishape = tuple(k if d == axis else n for d, n in enumerate(shape))
    x, src = rand(rng, shape), rand(rng, ishape)
    i = indices(rng, min(shape[axis], 4), ishape, negative=False)
    kern = f.compile("cpu", x, i, src, parallel_work=0)
    assert "#pragma omp parallel for schedule(static)\n" in kern.source  # axis 0 used to run on one thread
    (got,) = kern(x, i, src)
    np.testing.assert_array_equal(got, tilec.interpret(f, x, i, src))


def test_index_add_alpha_and_dynamic_sizes(rng):
    @tile_op(dtype=float32, dims=["V", "D", "L"])
    def f(x, i: int64, src):
        return tilec.index_add(x, 0, i, src, alpha=-0.5)

    for v, d, n in [(1, 1, 1), (13, 7, 40), (2, 33, 5)]:
        x, i, src = rand(rng, (v, d)), indices(rng, v, (n,), negative=False), rand(rng, (n, d))
        want = x.copy()
        np.add.at(want, i, np.float32(-0.5) * src)
        for got in both(f, x, i, src):
            np.testing.assert_allclose(got[0], want, rtol=1e-5, atol=1e-5)


def test_one_hot(rng):
    @tile_op(dtype=float32)
    def f(lab: int64, x):
        return tilec.one_hot(lab, x.shape[1], float32) * x, tilec.one_hot(lab, 5)

    lab, x = indices(rng, 5, (3,), negative=False), rand(rng, (3, 5))
    exact(f, lab, x, want=(np.eye(5, dtype=np.float32)[lab] * x, np.eye(5, dtype=np.int64)[lab]))
    assert kernels(f, lab, x) == 1  # iota == lab[:, None]: fused, no one-hot tile in memory

    @tile_op(dtype=uint8)
    def g(lab):
        return tilec.one_hot(lab, 300, uint8)  # more classes than uint8 can count

    lab = np.array([0, 255, 7], np.uint8)
    exact(g, lab, want=np.eye(300, dtype=np.uint8)[lab])


# --- out-of-range indices and bad arguments ----------------------------------------------------


@tile_op(dtype=float32)
def _gather(x, i: int64):
    return tilec.take(x, i, axis=0)  # E:take


@tile_op(dtype=float32)
def _scatter(x, i: int64, src):
    return tilec.index_add(x, 0, i, src)  # E:index_add


def _located(e, marker):
    from test_frontend_util import line_of, same_file

    assert isinstance(e, tilec.TilecError) and isinstance(e, IndexError)
    assert e.location is not None and same_file(e.location.file, __file__), e
    assert e.location.line == line_of(__file__, f"E:{marker}"), e


@pytest.mark.parametrize("bad", [13, -14, 2**50, -(2**50)])
def test_take_out_of_range_raises_after_the_call(rng, bad):
    x, i = rand(rng, (13, 5)), indices(rng, 13, (4, 3))
    i[2, 1] = bad
    for run in (_gather, lambda *a: tilec.interpret(_gather, *a)):
        with pytest.raises(tilec.IndexOutOfRange, match="take: index .*out of range.* argument 'i'") as info:
            run(x, i)  # 2**50 would read far outside x: the kernel reads element 0 instead
        _located(info.value, "take")
    i[2, 1] = -13  # the status word is per call: a good call after a bad one works
    np.testing.assert_array_equal(_gather(x, i), x[i])


@pytest.mark.parametrize("bad", [7, -1, 2**50])
def test_scatter_out_of_range_writes_nothing_out_of_bounds(rng, bad):
    x, i, src = rand(rng, (7, 3)), indices(rng, 7, (9,), negative=False), rand(rng, (9, 3))
    i[4] = bad  # torch's rule: negative indices are out of range for scatters
    for run in (_scatter, lambda *a: tilec.interpret(_scatter, *a)):
        with pytest.raises(tilec.IndexOutOfRange, match="index_add|scatter_add") as info:
            run(x, i, src)
        _located(info.value, "index_add")
        assert "argument 'i'" in str(info.value)


def test_gather_of_an_empty_dynamic_axis_is_out_of_range():
    @tile_op(dtype=float32, dims=["V", "D", "N"])
    def f(w, i: int64):
        return tilec.take(w, i, axis=0)

    with pytest.raises(tilec.IndexOutOfRange, match="axis 0 is empty"):
        f(np.zeros((0, 3), np.float32), np.zeros(2, np.int64))
    assert f(np.zeros((0, 3), np.float32), np.zeros(0, np.int64)).shape == (0, 3)


def test_index_errors_are_located():
    @tile_op(dtype=float32)
    def float_index(x, i):
        return tilec.take(x, i, axis=0)  # E:float-index

    @tile_op(dtype=float32)
    def bool_index(x, i):
        return tilec.take_along_axis(x, i > 0.0, 0)  # E:bool-index

    @tile_op(dtype=float32)
    def rank(x, i: int64):
        return tilec.take_along_axis(x, i, 1)  # E:rank

    @tile_op(dtype=float32)
    def src_dtype(x, i: int64, s: float16):
        return tilec.scatter_add(x, 0, i, s)  # E:src-dtype

    @tile_op(dtype=float32)
    def small_index(x, i: int64, s):
        return tilec.scatter_add(x, 0, i, s)  # E:small-index

    x = np.zeros((4, 5), np.float32)
    with expect("float-index", "tilec.take: indices must be an integer tile", "float32"):
        float_index(x, np.zeros(2, np.float32))
    with expect("bool-index", "indices must be an integer tile", "bool"):
        bool_index(x, x)
    with expect("rank", "tilec.take_along_axis: indices must have the rank of x (2)"):
        rank(x, np.zeros(3, np.int64))
    with expect("src-dtype", "src has dtype float16 but x has float32"):
        src_dtype(x, np.zeros((2, 5), np.int64), np.zeros((2, 5), np.float16))
    with expect("small-index", "not supported yet", "index smaller than x on axis 1"):
        small_index(x, np.zeros((2, 3), np.int64), np.zeros((2, 3), np.float32))


def test_programs_without_gathers_have_no_status_word():
    @tile_op(dtype=float32)
    def plain(x):
        return x * 2.0

    x = np.zeros((3, 4), np.float32)
    assert "status" not in plain.source("cpu", x) and "status" not in plain.ir("mapped", x)
    assert "%status" in _gather.ir("mapped", x, np.zeros(2, np.int64))


# --- GPU code: PTX assembles, HIP compiles ------------------------------------------------------


def _programs():
    x, w = np.zeros((7, 13), np.float32), np.zeros((11, 5), np.float32)

    @tile_op(dtype=float32, dims=["N", "C"])
    def ce(x, lab: int64):
        m = tilec.max(x, axis=1, keepdims=True)
        lse = tilec.log(tilec.sum(tilec.exp(x - m), axis=1, keepdims=True)) + m
        return tilec.mean(lse - tilec.take_along_axis(x, lab[:, None], 1))

    @tile_op(dtype=float32)
    def gathers(w, i: int32, j: uint8):
        return tilec.take(w, i, axis=0), tilec.take(w, j, axis=1) * 2.0, tilec.take(w, j)

    @tile_op(dtype=float32)
    def scatters(w, i: int64, s):
        return tilec.index_add(w, 0, i, s), tilec.scatter_add(w, 1, i[:, None] % 5, s[:, :1])

    i = np.zeros((2, 3), np.int32)
    return [
        ("ce", ce, [x, np.zeros(7, np.int64)]),
        ("gathers", gathers, [w, i, np.zeros(4, np.uint8)]),
        ("scatters", scatters, [w, np.zeros(11, np.int64), np.zeros((11, 5), np.float32)]),
    ]


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
@pytest.mark.parametrize("name,op,arrays", _programs(), ids=lambda p: p if isinstance(p, str) else "")
@pytest.mark.parametrize("sm", ["sm_90a", "sm_80"])
def test_ptx_assembles(name, op, arrays, sm, tmp_path):
    path = tmp_path / f"{name}.ptx"
    path.write_text(op.source("cuda", *arrays, sm=sm))
    r = subprocess.run(
        ["ptxas", f"-arch={sm}", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr


@pytest.mark.skipif(find_hipcc() is None, reason="hipcc is not installed (apt-get install hipcc)")
@pytest.mark.parametrize("name,op,arrays", _programs(), ids=lambda p: p if isinstance(p, str) else "")
def test_hip_compiles(name, op, arrays):
    op.compile("hip", *arrays)


def _index_add(dt):
    @tile_op(dtype=dt)
    def index_add(dy, ids: int64, w):
        return tilec.index_add(w, 0, ids, dy)

    return index_add, [np.zeros((9, 5), dt.np), np.zeros(9, np.int64), np.zeros((4, 5), dt.np)]


ATOMIC_TYPES = {"f32": float32, "f64": tilec.float64, "i32": int32, "i64": int64, "f16": tilec.float16}
RED_TYPE = {"f32": "f32", "f64": "f64", "i32": "u32", "i64": "u64", "f16": "noftz.f16"}


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
@pytest.mark.parametrize("t", list(ATOMIC_TYPES))
@pytest.mark.parametrize("sm", ["sm_90a", "sm_80"])
def test_atomic_scatter_ptx_assembles(t, sm, tmp_path):
    """The atomic scatter (the default): one red.global.add of the element type per update
    element, assembled by ptxas; deterministic=true has none."""
    op, arrays = _index_add(ATOMIC_TYPES[t])
    src = op.source("cuda", *arrays, sm=sm)
    assert src.count(f"red.global.add.{RED_TYPE[t]} ") == 1
    assert "red.global" not in op.source("cuda", *arrays, sm=sm, deterministic=True)
    path = tmp_path / "k.ptx"
    path.write_text(src)
    r = subprocess.run(
        ["ptxas", f"-arch={sm}", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr


def test_atomic_scatter_unsupported_types_are_located_errors():
    """bf16 atomics need sm_90; 8/16-bit int atomics are not built: located errors naming the
    deterministic scheme, which compiles them."""
    op, arrays = _index_add(tilec.bfloat16)
    assert "red.global.add.noftz.bf16" in op.source("cuda", *arrays, sm="sm_90a")
    with pytest.raises(
        tilec.TilecError, match=r"test_gather_scatter.py:\d+.*bf16 are not supported yet on sm_80.*deterministic=true"
    ):
        op.source("cuda", *arrays, sm="sm_80")
    op.source("cuda", *arrays, sm="sm_80", deterministic=True)
    op, arrays = _index_add(tilec.int16)
    with pytest.raises(
        tilec.TilecError, match=r"test_gather_scatter.py:\d+.*not supported yet: atomic scatter_add of i16"
    ):
        op.source("cuda", *arrays)
    op.source("cuda", *arrays, deterministic=True)


@pytest.mark.skipif(find_hipcc() is None, reason="hipcc is not installed (apt-get install hipcc)")
@pytest.mark.parametrize("t", ["f32", "f64", "i32", "i64"])
def test_atomic_scatter_hip_compiles(t):
    op, arrays = _index_add(ATOMIC_TYPES[t])
    assert "atomicAdd(" in op.compile("hip", *arrays).source


def test_interpret_mode_raises_index_out_of_range(monkeypatch):
    """Under TILEC_INTERPRET=1 each op runs as it is traced: a bad index is IndexOutOfRange at
    the gather's line (not a generic TileError), naming the argument."""
    monkeypatch.setenv("TILEC_INTERPRET", "1")

    @tile_op(dtype=float32)
    def f(w, ids: int64):
        return tilec.take(w, ids, axis=0)  # E:eager-take

    w = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.testing.assert_array_equal(f(w, np.array([2, -1])), w[[2, -1]])
    with pytest.raises(tilec.IndexOutOfRange, match="index 3 is out of range .* argument 'ids'") as info:
        f(w, np.array([3, 0]))
    _located(info.value, "eager-take")
