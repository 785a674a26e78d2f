"""Gathers and scatters on the CUDA target against numpy (random inputs, awkward shapes, repeated
indices, dynamic sizes), the cross-entropy chain as one rowwise kernel, and out-of-range indices
raising IndexOutOfRange after the launch (the status word).

Marked `gpu`: every test here skips, saying so, when CuPy or an NVIDIA GPU is missing (the PTX of
these programs is assembled by ptxas in test_gather_scatter.py on every machine, and the same GPU
lowering runs in the HIP emulator, test_hip_emulated.py). Moving data must be exact; scatters run
both schemes: deterministic=True (in index order, one thread per column) equals the interpreter
bit for bit, the default (atomics) within float rounding and exactly for integers."""

from __future__ import annotations

import numpy as np
import pytest
from gpu_util import HAVE_GPU, cp

import tilec
from tilec import float32, int32, int64, tile_op

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine"),
]

rng = np.random.default_rng()


def rand(shape):
    return rng.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("deterministic", [False, True])
@pytest.mark.parametrize("v,d,bt", [(1, 1, (1, 1)), (13, 7, (3, 5)), (1009, 768, (4, 129))])
def test_embedding_forward_and_backward(v, d, bt, deterministic):
    @tile_op(dtype=float32, dims=["B", "T", "D", "V"])
    def fwd(w, ids: int64):
        return tilec.take(w, ids, axis=0)

    @tile_op(dtype=float32)
    def bwd(dy, ids: int64, w):
        return tilec.index_add(tilec.zeros_like(w), 0, ids.reshape(-1), dy.reshape(-1, w.shape[1]))

    w = rand((v, d))
    ids = rng.integers(-v, v, bt)
    np.testing.assert_array_equal(cp.asnumpy(fwd(cp.asarray(w), cp.asarray(ids))), w[ids])
    ids = rng.integers(0, min(v, 5), bt)  # many repeats
    dy = rand((*bt, d))
    k = bwd.compile("cuda", dy, ids, w, deterministic=deterministic)
    (got,) = k(cp.asarray(dy), cp.asarray(ids), cp.asarray(w))
    got = cp.asnumpy(got)
    if deterministic:
        np.testing.assert_array_equal(got, tilec.interpret(bwd, dy, ids, w))
    ref = np.zeros_like(w)
    np.add.at(ref, ids.reshape(-1), dy.reshape(-1, d))
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n,c", [(1, 1), (7, 10), (257, 1001)])
def test_cross_entropy_forward_backward(n, c):
    @tile_op(dtype=float32, dims=["N", "C"])
    def ce(x, lab: int64):
        m = tilec.max(x, axis=1, keepdims=True)
        lse = tilec.log(tilec.sum(tilec.exp(x - m), axis=1, keepdims=True)) + m
        e = tilec.exp(x - lse)
        grad = (e - tilec.one_hot(lab, x.shape[1], float32)) / x.shape[0]
        return (lse - tilec.take_along_axis(x, lab[:, None], 1))[:, 0], grad

    x, lab = rand((n, c)), rng.integers(0, c, n)
    loss, grad = (cp.asnumpy(t) for t in ce(cp.asarray(x), cp.asarray(lab)))
    x64 = x.astype(np.float64)
    lse = np.log(np.exp(x64).sum(1))
    np.testing.assert_allclose(loss, lse - x64[np.arange(n), lab], rtol=2e-5, atol=2e-5)
    p = np.exp(x64 - lse[:, None])
    p[np.arange(n), lab] -= 1
    np.testing.assert_allclose(grad, p / n, rtol=2e-5, atol=2e-6)
    assert ce.ir("mapped", x, lab, target="cuda").count("mapped.kernel @") == 1


@pytest.mark.parametrize("deterministic", [False, True])
@pytest.mark.parametrize("shape,axis", [((1, 1), 0), ((5, 11), 1), ((3, 4, 6), 1), ((129, 33), 0)])
def test_scatter_add_matches_the_interpreter(shape, axis, deterministic):
    @tile_op(dtype=float32)
    def f(x, i: int32, src):
        return tilec.scatter_add(x, axis, i, src)

    ishape = tuple(7 if d == axis else s for d, s in enumerate(shape))
    x, src = rand(shape), rand(ishape)
    i = rng.integers(0, min(shape[axis], 3), ishape).astype(np.int32)
    k = f.compile("cuda", x, i, src, deterministic=deterministic)
    (got,) = k(cp.asarray(x), cp.asarray(i), cp.asarray(src))
    got = cp.asnumpy(got)
    ref = tilec.interpret(f, x, i, src)
    if deterministic:
        np.testing.assert_array_equal(got, ref)
    else:
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("deterministic", [False, True])
@pytest.mark.parametrize("dt", [int32, int64, tilec.float64, tilec.float16, tilec.bfloat16])
def test_scatter_add_types(dt, deterministic):
    """Both schemes in every atomic type (red.global.add .u32/.u64/.f64/.noftz.f16/.noftz.bf16):
    integers exact (wrapping), f64 to rounding, 16-bit floats to a few of their ulps (each
    addition rounds to the 16-bit type, in whatever order)."""

    @tile_op(dtype=dt)
    def f(x, i: int64, src):
        return tilec.scatter_add(x, 0, i, src)

    npdt = np.dtype(dt.np)
    if npdt.kind == "i":
        info = np.iinfo(npdt)
        x, src = (rng.integers(info.min, info.max, s, dtype=npdt, endpoint=True) for s in ((37, 65), (301, 65)))
    else:
        x, src = rand((37, 65)).astype(npdt), rand((301, 65)).astype(npdt)
    i = rng.integers(0, 37, (301, 65))
    k = f.compile("cuda", x, i, src, deterministic=deterministic)
    (got,) = k(cp.asarray(x), cp.asarray(i), cp.asarray(src))
    got = cp.asnumpy(got)
    ref = tilec.interpret(f, x, i, src)
    if deterministic or npdt.kind == "i":
        np.testing.assert_array_equal(got, ref)
    else:
        tol = {np.dtype(np.float64): 1e-12, np.dtype(np.float16): 0.05}.get(npdt, 0.4)  # bf16: 8 bits
        np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64), rtol=tol, atol=tol)


def test_embedding_backward_atomics_are_faster():
    """Embedding backward at GPT-2's size (50257 x 768 table, 8 x 1024 ids, repeats): the
    atomic scheme beats one thread per column (the reason it is the default); both agree."""
    v, d, n = 50257, 768, 8192

    @tile_op(dtype=float32)
    def bwd(dy, ids: int64, w):
        return tilec.index_add(tilec.zeros_like(w), 0, ids, dy)

    host = rand((n, d)), rng.integers(0, 1000, n), np.zeros((v, d), np.float32)
    dy, ids, w = (cp.asarray(a) for a in host)
    times, outs = {}, {}
    for det in (False, True):
        k = bwd.compile("cuda", *host, deterministic=det)
        outs[det] = cp.asnumpy(k(dy, ids, w)[0])
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        for _ in range(5):
            k(dy, ids, w)
        end.record()
        end.synchronize()
        times[det] = cp.cuda.get_elapsed_time(start, end) / 5
    print(f"embedding backward {n}x{d} into {v}: atomics {times[False]:.3f} ms, deterministic {times[True]:.3f} ms")
    np.testing.assert_allclose(outs[False], outs[True], rtol=1e-4, atol=1e-4)
    assert times[False] < times[True]


def test_out_of_range_raises_after_the_launch():
    @tile_op(dtype=float32)
    def f(w, ids: int64, dy):
        return tilec.take(w, ids, axis=0), tilec.index_add(w, 0, ids, dy)

    w, dy = rand((13, 5)), rand((4, 5))
    ids = np.array([0, 12, -13, 2**50])
    with pytest.raises(tilec.IndexOutOfRange, match="out of range in argument 'ids'"):
        f(cp.asarray(w), cp.asarray(ids), cp.asarray(dy))
    ids[3] = 3
    with pytest.raises(tilec.IndexOutOfRange, match="index_add"):  # -13: only take wraps
        f(cp.asarray(w), cp.asarray(ids), cp.asarray(dy))
    ids[2] = 1
    e, g = (cp.asnumpy(t) for t in f(cp.asarray(w), cp.asarray(ids), cp.asarray(dy)))
    np.testing.assert_array_equal(e, w[ids])
