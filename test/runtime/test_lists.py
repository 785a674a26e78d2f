"""Lists of arrays (`tilec.List[dtype]` arguments, multi-tensor apply): one trace and one compiled
program for any lists, the CPU's one call over every array, the interpreter, results against numpy
on awkward shapes (1, primes, 3-D, 100+ arrays), and the errors: lists that do not match (lengths,
shapes, dtypes, layouts, overlapping memory), bodies that are not elementwise, scalars given lists.
PTX assembled and HIP compiled; the CUDA runs are in test_gpu_inplace.py."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from test_frontend_util import expect_error

import tilec
from tilec import float16, float32, int32, tile_op
from tilec.toolchain.hipcc import find_hipcc


def expect(marker: str, *phrases: str):
    return expect_error(__file__, marker, *phrases)


@tile_op(dtype=float32)
def sgd(params: tilec.List[float32], grads: tilec.List[float32], lr: float):
    params[...] = params - lr * grads


def random_shapes(rng, n: int) -> list[tuple]:
    out = [(1,), (7,), (13, 17), (3, 5, 7), (1000,), (1, 1)]
    while len(out) < n:
        out.append(tuple(int(d) for d in rng.integers(1, 30, size=rng.integers(1, 4))))
    return out[:n]


@pytest.mark.parametrize("n", [1, 3, 130])
def test_sgd_over_lists_one_trace_one_call(n):
    rng = np.random.default_rng()
    shapes = random_shapes(rng, n)
    ps = [rng.standard_normal(s, dtype=np.float32) for s in shapes]
    gs = [rng.standard_normal(s, dtype=np.float32) for s in shapes]
    lr = float(rng.uniform(0.01, 1))
    want = [p - np.float32(lr) * g for p, g in zip(ps, gs)]
    interp = [p.copy() for p in ps]
    assert sgd(ps, tuple(gs), lr) is None  # lists or tuples
    assert tilec.interpret(sgd, interp, gs, lr) is None
    for got, i, w in zip(ps, interp, want):
        np.testing.assert_allclose(got, w, rtol=1e-6, atol=1e-6)  # (C may fuse p - lr * g into an fma)
        np.testing.assert_allclose(i, w, rtol=1e-6, atol=1e-6)  # (C may fuse p - lr * g into an fma)
    # one program for any lists: no new trace, the same compiled kernel, one C call
    assert sgd.trace_count == 1
    assert sgd.ir("mapped").count("mapped.kernel @") == 1
    assert "tilec_foreach_sgd(" in sgd.source("cpu")


def test_the_same_lists_again_skip_the_checks_but_not_a_change():
    """A call with the very same arrays as the last one reuses its checks and address table; a
    changed array (made read-only, reshaped, swapped, appended) is checked again."""

    @tile_op(dtype=float32)
    def axpy(ys: tilec.List[float32], xs: tilec.List[float32], a: float):
        ys[...] = ys + a * xs

    rng = np.random.default_rng()
    shapes = random_shapes(rng, 40)
    ys = [rng.standard_normal(s, dtype=np.float32) for s in shapes]
    xs = [rng.standard_normal(s, dtype=np.float32) for s in shapes]
    want = [y.astype(np.float64) for y in ys]
    for a in (0.5, -1.25, 3.0):  # the second and third calls take the remembered lists
        axpy(ys, xs, a)
        want = [w + a * x for w, x in zip(want, xs)]
        for y, w in zip(ys, want):
            np.testing.assert_allclose(y, w, rtol=1e-5, atol=1e-5)
    ys[3].flags.writeable = False
    with pytest.raises(tilec.TilecError, match=r"'ys\[3\]' is updated in place but its array is read-only"):
        axpy(ys, xs, 1.0)
    ys[3].flags.writeable = True
    xs[5] = xs[5].reshape(-1)[::-1].reshape(xs[5].shape)  # a new object: not C-contiguous
    if not xs[5].flags.c_contiguous:
        with pytest.raises(tilec.TilecError, match="not C-contiguous"):
            axpy(ys, xs, 1.0)
    xs[5] = np.ascontiguousarray(xs[5])
    with pytest.raises(tilec.TilecError, match="same length"):
        axpy(ys + [np.zeros(3, np.float32)], xs, 1.0)
    ys[0].shape = (-1,) if ys[0].ndim > 1 else ys[0].shape  # same memory, another shape: still fine
    before = [y.copy() for y in ys]
    axpy(ys, xs, 2.0)
    for y, b, x in zip(ys, before, xs):
        np.testing.assert_allclose(y, b.reshape(y.shape) + 2.0 * x.reshape(y.shape), rtol=1e-5, atol=1e-5)


def test_large_positions_are_cut_into_chunks_run_on_all_cores():
    # positions of several chunks (FOREACH_CHUNK = 32768 elements) and of one, in one call: the
    # (position, chunk) pairs run in parallel, each chunk a window of its position
    rng = np.random.default_rng()
    shapes = [(1,), (2 * 32768 + 7,), (0,), (32768,), (3, 32771), (13,)]
    ps = [rng.standard_normal(s, dtype=np.float32) for s in shapes]
    gs = [rng.standard_normal(s, dtype=np.float32) for s in shapes]
    lr = float(rng.uniform(0.01, 1))
    want = [p - np.float32(lr) * g for p, g in zip(ps, gs)]
    sgd(ps, gs, lr)
    for got, w in zip(ps, want):
        np.testing.assert_allclose(got, w, rtol=1e-6, atol=1e-6)
    assert "#pragma omp parallel for schedule(dynamic, 1)" in sgd.source("cpu")


def test_one_kernel_serves_any_lists_and_the_cache_key_has_no_shapes():
    k1 = sgd.compile("cpu")
    ps = [np.ones(5, np.float32), np.ones((2, 3), np.float32)]
    sgd(ps, [np.ones(5, np.float32), np.ones((2, 3), np.float32)], 0.5)
    assert sgd.compile("cpu") is k1
    assert "?" in sgd.ir("tile") and "5" not in sgd.ir("tile").split("tile.func")[1].split(")")[0]


def test_lists_of_different_dtypes_and_a_read_after_update():
    @tile_op
    def count_and_scale(xs: tilec.List[float16], ns: tilec.List[int32], s: float):
        ns[...] = ns + (xs > 0.0).astype(int32)
        xs[...] = xs * s + ns.astype(float16)  # the new counts

    rng = np.random.default_rng()
    shapes = [(1,), (31,), (4, 9)]
    xs = [rng.standard_normal(sh).astype(np.float16) for sh in shapes]
    ns = [rng.integers(0, 5, sh).astype(np.int32) for sh in shapes]
    new_ns = [n + (x > 0) for x, n in zip(xs, ns)]
    new_xs = [(x.astype(np.float32) * 2.0).astype(np.float16) + n.astype(np.float16) for x, n in zip(xs, new_ns)]
    xs_i, ns_i = [x.copy() for x in xs], [n.copy() for n in ns]
    count_and_scale(xs, ns, 2.0)
    tilec.interpret(count_and_scale, xs_i, ns_i, 2.0)
    for x, n, xi, ni, wx, wn in zip(xs, ns, xs_i, ns_i, new_xs, new_ns):
        np.testing.assert_array_equal(n, wn)
        np.testing.assert_array_equal(ni, wn)
        np.testing.assert_allclose(x.astype(np.float32), wx.astype(np.float32), rtol=2e-3, atol=2e-3)
        np.testing.assert_allclose(xi.astype(np.float32), wx.astype(np.float32), rtol=2e-3, atol=2e-3)


def test_empty_lists_and_eager_mode(monkeypatch):
    assert sgd([], [], 0.1) is None
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    ps = [np.ones(3, np.float32)]
    sgd(ps, [np.full(3, 2.0, np.float32)], 0.25)
    np.testing.assert_array_equal(ps[0], np.full(3, 0.5, np.float32))


# --- errors at the call ------------------------------------------------------------------------------


def test_lists_that_do_not_match():
    a, b = np.ones(4, np.float32), np.ones(4, np.float32)
    with pytest.raises(tilec.TileError, match=r"'params' has 2 arrays but 'grads' has 1"):
        sgd([a, b], [a.copy()], 0.1)
    with pytest.raises(tilec.TileError, match=r"'grads\[1\]' has shape \(5,\) but 'params\[1\]' has \(4,\)"):
        sgd([a, b], [a.copy(), np.ones(5, np.float32)], 0.1)
    with pytest.raises(tilec.TileError, match=r"'grads\[0\]' has dtype float64 but 'grads' is tilec.List\[float32\]"):
        sgd([a], [np.ones(4)], 0.1)
    with pytest.raises(tilec.TileError, match=r"argument 'params' is a list of arrays .*got ndarray"):
        sgd(a, [b], 0.1)
    with pytest.raises(tilec.TileError, match=r"'lr' is a runtime scalar .*got list"):
        sgd([a], [b], [0.1])
    with pytest.raises(tilec.TileError, match=r"'params\[0\]' is not C-contiguous"):
        sgd([np.ones(8, np.float32)[::2]], [b], 0.1)
    with pytest.raises(
        tilec.TileError, match=r"'params\[0\]' is updated in place but shares memory with argument 'params\[1\]'"
    ):
        sgd([a, a], [b, b.copy()], 0.1)
    with pytest.raises(tilec.TileError, match=r"shares memory"):
        sgd([a], [a], 0.1)
    ro = np.ones(4, np.float32)
    ro.flags.writeable = False
    with pytest.raises(tilec.TileError, match=r"'params\[0\]' is updated in place but its array is read-only"):
        sgd([ro], [b], 0.1)
    np.testing.assert_array_equal(a, np.ones(4, np.float32))  # nothing was written by the refused calls
    sgd([a], [ro], 0.5)  # a read-only list that is not updated is fine
    np.testing.assert_array_equal(a, np.full(4, 0.5, np.float32))


# --- errors while tracing / at the decorator -----------------------------------------------------------


def test_bodies_that_are_not_elementwise():
    @tile_op(dtype=float32)
    def center(xs: tilec.List[float32]):
        xs[...] = xs - tilec.sum(xs)  # E:reduce

    @tile_op(dtype=float32)
    def by_size(xs: tilec.List[float32]):
        xs[...] = xs / xs.shape[0]  # E:size

    @tile_op(dtype=float32)
    def returns(xs: tilec.List[float32]):
        return xs * 2.0  # E:returns

    with expect("reduce", "not supported yet: tile.reduce in an op over lists", "elementwise"):
        center([np.ones(3, np.float32)])
    with expect("size", "not supported yet: the size of a list element"):
        by_size([np.ones(3, np.float32)])
    with expect("returns", "not supported yet", "returns nothing"):
        returns([np.ones(3, np.float32)])


def test_decorator_errors():
    with pytest.raises(tilec.TileError, match=r"not supported yet: array arguments \(w\) beside tilec.List"):

        @tile_op(dtype=float32)
        def mixed(xs: tilec.List[float32], w):
            xs[...] = xs

    with pytest.raises(tilec.TileError, match=r"takes no dims"):

        @tile_op(dtype=float32, dims=["N"])
        def with_dims(xs: tilec.List[float32]):
            xs[...] = xs

    @tile_op(dtype=float32, dtypes={"xs": tilec.List[float32]})
    def by_dtypes(xs):
        xs[...] = xs + 1.0

    x = [np.zeros(3, np.float32)]
    by_dtypes(x)
    np.testing.assert_array_equal(x[0], np.ones(3, np.float32))


# --- GPU code ---------------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
@pytest.mark.parametrize("sm", ["sm_80", "sm_90"])
def test_ptx_of_the_one_launch_assembles(tmp_path, sm):
    # one kernel over every position: it takes the table and the number of positions (not the
    # buffers), and the host program says it is launched once (HostProgram.foreach)
    ptx = sgd.source("cuda", sm=sm)
    assert ptx.count(".entry") == 1 and ".param .u64 tilec_param_0,\n  .param .s64 tilec_param_1," in ptx
    path = tmp_path / "sgd.ptx"
    path.write_text(ptx)
    arch = "sm_90a" if sm == "sm_90" else sm
    r = subprocess.run(
        ["ptxas", f"-arch={arch}", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr


@pytest.mark.skipif(find_hipcc() is None, reason="hipcc is not installed (apt-get install hipcc)")
def test_hip_compiles():
    sgd.compile("hip")
