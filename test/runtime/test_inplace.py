"""In-place updates (`p[...] = new` on an argument): numpy's semantics in the tracer (a read after
the update sees the new value, an op may return nothing), the interpreter and the CPU target
against the same steps in numpy on fresh random inputs and awkward sizes, the hazards (the old
value read by another kernel, a store whose value reads the argument at another index) with
their kernel counts, and the errors: located ones while tracing, clear ones for arrays that cannot
be written in place. PTX assembled by ptxas and HIP compiled by hipcc (the HIP emulator runs them:
test_hip_emulated.py; the CUDA runs: test_gpu_inplace.py)."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from test_frontend_util import expect_error

import tilec
from tilec import float16, float32, int32, tile_op
from tilec.toolchain.hipcc import find_hipcc

SIZES = [(1,), (7,), (1000,), (3, 257)]


def expect(marker: str, *phrases: str):
    return expect_error(__file__, marker, *phrases)


def kernels(op, *args, target="cpu") -> int:
    return op.ir("mapped", *args, target=target).count("mapped.kernel @")


def temps(op, *args, target="cpu") -> int:
    return op.ir("mapped", *args, target=target).count("mapped.temp")


def both(op, *arrays):
    """Run `op` compiled (CPU) and interpreted on separate copies; returns (results, updated arrays) of each."""
    runs = []
    for run in (op, lambda *a: tilec.interpret(op, *a)):
        copies = [a.copy() if isinstance(a, np.ndarray) else a for a in arrays]
        runs.append((run(*copies), copies))
    return runs


@tile_op(dtype=float32)
def sgd(p, g, lr: float):
    p[...] = p - lr * g


@pytest.mark.parametrize("shape", SIZES)
def test_sgd_updates_in_place_and_returns_none(shape):
    rng = np.random.default_rng()
    p, g = rng.standard_normal(shape, dtype=np.float32), rng.standard_normal(shape, dtype=np.float32)
    lr = float(rng.uniform(0.01, 1.0))
    want = p - np.float32(lr) * g
    for out, (p2, g2, _) in both(sgd, p, g, lr):
        assert out is None
        np.testing.assert_allclose(p2, want, rtol=1e-6, atol=1e-6)  # (C may fuse p - lr * g into an fma)
        np.testing.assert_array_equal(g2, g)  # not updated
    q = p.copy()
    assert sgd(q, g, lr) is None
    np.testing.assert_allclose(
        q, want, rtol=1e-6, atol=1e-6
    )  # (C may fuse p - lr * g into an fma)  # the caller's own array
    assert kernels(sgd, p, g, lr) == 1 and temps(sgd, p, g, lr) == 0  # read and written by one loop


def test_torch_cpu_tensor_is_updated_in_place():
    torch = pytest.importorskip("torch")
    p, g = torch.randn(13, 5), torch.randn(13, 5)
    want = p - 0.25 * g
    sgd(p, g, 0.25)
    assert torch.allclose(p, want, rtol=1e-6, atol=1e-6)  # (C may fuse p - lr * g into an fma)


@tile_op(dtype=float32)
def adam_moments(p, m, v, g, b1: float, b2: float, lr: float):
    m[...] = b1 * m + (1.0 - b1) * g
    v[...] = b2 * v + (1.0 - b2) * g * g
    p[...] = p - lr * m / (tilec.sqrt(v) + 1e-8)  # reads m and v after their updates: the new values
    return tilec.sum(m)  # also the new m


@pytest.mark.parametrize("shape", [(1,), (129,), (5, 31)])
def test_several_arguments_read_after_update(shape):
    rng = np.random.default_rng()
    p, m, g = (rng.standard_normal(shape, dtype=np.float32) for _ in range(3))
    v = rng.random(shape, dtype=np.float32)
    b1, b2, lr = 0.9, 0.999, 0.01
    m2 = (np.float32(b1) * m + np.float32(1 - b1) * g).astype(np.float32)
    v2 = (np.float32(b2) * v + np.float32(1 - b2) * g * g).astype(np.float32)
    p2 = p - np.float32(lr) * m2 / (np.sqrt(v2) + np.float32(1e-8))
    for s, (pp, mm, vv, gg, *_) in both(adam_moments, p, m, v, g, b1, b2, lr):
        np.testing.assert_allclose(mm, m2, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(vv, v2, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(pp, p2, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(s, m2.sum(dtype=np.float64), rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(gg, g)


@tile_op(dtype=float32)
def old_and_new(p, x):
    a = tilec.exp(p)  # the old p
    s = tilec.sum(x)  # a reduction kernel between the two
    b = p * s  # the old p, in a kernel after the one that writes p
    p[...] = a * 2.0
    return b, p  # p: the new value


def test_old_value_read_by_a_later_kernel():
    rng = np.random.default_rng()
    p, x = rng.standard_normal(37, dtype=np.float32), rng.standard_normal(11, dtype=np.float32)
    s = x.sum(dtype=np.float64)
    for (b, pnew), (pp, _) in both(old_and_new, p, x):
        np.testing.assert_allclose(b, p * s, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(pnew, np.exp(p) * 2, rtol=1e-6)
        np.testing.assert_allclose(pp, np.exp(p) * 2, rtol=1e-6)
    # the kernel writing p runs before the one reading the old p: it writes a temporary, copied last
    assert temps(old_and_new, p, x) >= 1


@tile_op(dtype=float32)
def reverse(p):
    p[...] = p[::-1]


@tile_op(dtype=float32)
def center(p):
    p[...] = p - tilec.mean(p)


@tile_op(dtype=float32)
def softmax_rows(p):
    e = tilec.exp(p - tilec.max(p, axis=-1, keepdims=True))
    p[...] = e / tilec.sum(e, axis=-1, keepdims=True)


@pytest.mark.parametrize("shape", [(1,), (6,), (3, 257)])
def test_update_reading_other_indices_goes_through_a_temporary(shape):
    rng = np.random.default_rng()
    p = rng.standard_normal(shape, dtype=np.float32)
    for op, want in (
        (reverse, p[::-1]),
        (center, p - p.mean(dtype=np.float64)),
        (
            softmax_rows,
            np.exp(p - p.max(-1, keepdims=True)) / np.exp(p - p.max(-1, keepdims=True)).sum(-1, keepdims=True),
        ),
    ):
        for out, (pp,) in both(op, p):
            assert out is None
            np.testing.assert_allclose(pp, want, rtol=1e-5, atol=1e-6, err_msg=op.name)
        assert temps(op, p) >= 1, op.name  # the new value is written to a temporary first


def test_update_with_dynamic_sizes_and_a_number():
    @tile_op(dtype=int32, dims=["N", "C"])
    def clear_and_count(x, counts):
        counts[...] = counts + tilec.sum(tilec.where(x > 0, 1, 0), axis=0)
        x[...] = 0  # a number fills the argument

    rng = np.random.default_rng()
    for n, c in ((1, 1), (17, 5), (64, 33)):
        x = rng.integers(-3, 4, (n, c)).astype(np.int32)
        counts = rng.integers(0, 9, c).astype(np.int32)
        want = counts + (x > 0).sum(0).astype(np.int32)
        for out, (xx, cc) in both(clear_and_count, x, counts):
            assert out is None
            np.testing.assert_array_equal(cc, want)
            np.testing.assert_array_equal(xx, np.zeros_like(x))


def test_returned_argument_and_weak_scalar_value():
    @tile_op(dtype=float16)
    def reset(p, value: float):
        old = p + 0  # a copy of the old value
        p[...] = value  # a runtime scalar takes p's dtype
        return old, p

    p = np.random.default_rng().standard_normal(9).astype(np.float16)
    for (old, new), (pp, _) in both(reset, p, 1.5):
        np.testing.assert_array_equal(old, p)
        np.testing.assert_array_equal(new, np.full(9, 1.5, np.float16))
        np.testing.assert_array_equal(pp, np.full(9, 1.5, np.float16))


def test_eager_interpretation_updates(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    p, g = np.ones(5, np.float32), np.arange(5, dtype=np.float32)
    assert sgd(p, g, 0.5) is None
    np.testing.assert_array_equal(p, 1 - 0.5 * g)


def test_tile_ir_stores_into_the_input():
    text = sgd.ir("tile", np.ones(3, np.float32), np.ones(3, np.float32), 0.1)
    assert "outs(" not in text and "tile.store %6, %p" in text


# --- errors while tracing -----------------------------------------------------------------------------


def test_stale_view_after_update_is_a_located_error():
    @tile_op(dtype=float32)
    def stale(p):
        head = p[:2]
        p[...] = p * 2.0
        return head + 1.0  # E:stale

    with expect("stale", "view", "updated in place", "take the view after the update"):
        stale(np.ones(4, np.float32))


def test_a_view_that_became_the_new_value_is_stale_too():
    """`r = p[::-1]; p[...] = r`: in numpy r then shows the NEW p reversed (the old p); tilec's r
    would be the old reversal, so a later use of r is the stale-view error, while p itself reads
    the update."""

    @tile_op(dtype=float32)
    def swap_then_view(p):
        r = p[::-1]
        p[...] = r
        return r + 1.0  # E:reused

    @tile_op(dtype=float32)
    def swap_then_read(p):
        r = p[::-1]
        p[...] = r
        return p * 2.0

    with expect("reused", "view", "updated in place"):
        swap_then_view(np.ones(4, np.float32))
    for n in (1, 2, 7):
        x = np.random.default_rng().standard_normal(n).astype(np.float32)
        p = x.copy()
        np.testing.assert_array_equal(swap_then_read(p), x[::-1] * 2)
        np.testing.assert_array_equal(p, x[::-1])


@pytest.mark.parametrize("shape", [(1, 4), (5, 4), (13, 4)])
def test_partial_assignment_of_static_windows(shape):
    @tile_op(dtype=float32, dims=["N", 4, 2])  # v's axis is its own iteration axis
    def part(p, v, s: float):
        p[:, 1:3] = v  # a row broadcast into a window of the static axis
        p[..., -1] = s  # a runtime scalar into the last column
        p[:, :1] = p[:, 2:3] * 2.0  # reads another window of p: through a temporary

    @tile_op(dtype=float32)
    def rows(p, r):
        p[0] = r
        p[-2:] = 0.0
        p[1:1] = 5.0  # an empty window: nothing changes

    rng = np.random.default_rng()
    p, v = rng.standard_normal(shape, dtype=np.float32), rng.standard_normal(2, dtype=np.float32)
    w = p.copy()
    w[:, 1:3] = v
    w[..., -1] = 0.5
    w[:, :1] = w[:, 2:3] * 2
    for out, (pp, *_) in both(part, p, v, 0.5):
        assert out is None
        np.testing.assert_array_equal(pp, w)
    r = rng.standard_normal(shape[1], dtype=np.float32)
    w = p.copy()
    w[0] = r
    w[-2:] = 0
    for out, (pp, _) in both(rows, p, r):
        np.testing.assert_array_equal(pp, w)


def test_partial_assignment_that_is_not_supported_yet():
    @tile_op(dtype=float32)
    def strided(p):
        p[::2] = 0.0  # E:step

    @tile_op(dtype=float32, dims=["N"])
    def dynamic(p):
        p[1:3] = 0.0  # E:dynamic

    with expect("step", "not supported yet", "step 2", "tilec.where"):
        strided(np.ones(4, np.float32))
    with expect("dynamic", "not supported yet", "dynamic"):
        dynamic(np.ones(4, np.float32))


def test_dtype_and_shape_of_the_assigned_value():
    @tile_op(dtype=float32)
    def wrong_dtype(p):
        p[...] = p.astype(float16)  # E:dtype

    @tile_op(dtype=float32)
    def wrong_shape(p, q):
        p[...] = q  # E:shape

    @tile_op(dtype=float32)
    def not_an_argument(p):
        q = p + 1.0
        q[...] = 0.0  # E:notarg
        return q

    with expect("dtype", "keep the argument's dtype", ".astype"):
        wrong_dtype(np.ones(4, np.float32))
    with expect("shape", "assignment", "(3,)"):
        wrong_shape(np.ones((2, 4), np.float32), np.ones(3, np.float32))
    with expect("notarg", "only the op's array arguments can be assigned"):
        not_an_argument(np.ones(4, np.float32))


# --- errors at the call ------------------------------------------------------------------------------


def test_arrays_that_cannot_be_written_in_place():
    g = np.ones(8, np.float32)
    strided = np.ones(16, np.float32)[::2]
    with pytest.raises(tilec.TileError, match=r"sgd: argument 'p' is updated in place, so it must be a C-contiguous"):
        sgd(strided, g, 0.1)
    ro = np.ones(8, np.float32)
    ro.flags.writeable = False
    with pytest.raises(tilec.TileError, match=r"argument 'p' is updated in place but its array is read-only"):
        sgd(ro, g, 0.1)
    with pytest.raises(tilec.TileError, match=r"argument 'p' .*float32"):
        sgd(np.ones(8, np.float64), g, 0.1)
    a = np.ones(8, np.float32)
    with pytest.raises(tilec.TileError, match=r"argument 'p' is updated in place but shares memory with argument 'g'"):
        sgd(a, a, 0.1)
    b = np.ones(12, np.float32)
    with pytest.raises(tilec.TileError, match=r"shares memory"):
        sgd(b[:8], b[4:], 0.1)
    with pytest.raises(tilec.TileError, match=r"shares memory"):
        tilec.interpret(sgd, a, a, 0.1)
    c = np.ones(16, np.float32)
    sgd(c[:8], c[8:], 0.5)  # neighbours that do not overlap are fine
    np.testing.assert_array_equal(c[:8], np.full(8, 0.5, np.float32))
    with pytest.raises(tilec.TileError, match=r"'lr' is a runtime scalar"):
        sgd(np.ones(8, np.float32), g, np.float32([0.1]))
    with pytest.raises(tilec.TileError, match=r"'g' must be an array"):
        sgd(np.ones(8, np.float32), 0.1, 0.1)
    # nothing was written by the refused calls
    np.testing.assert_array_equal(a, np.ones(8, np.float32))
    np.testing.assert_array_equal(strided, np.ones(8, np.float32))


def test_the_cpu_kernel_checks_its_inputs_too():
    k = sgd.compile("cpu", np.ones(8, np.float32), np.ones(8, np.float32), 0.1)
    with pytest.raises(
        tilec.TilecError, match=r"input %p \(argument 0\) is updated in place, so it must be C-contiguous"
    ):
        k(np.ones(16, np.float32)[::2], np.ones(8, np.float32), 0.1)
    a = np.ones(8, np.float32)
    with pytest.raises(tilec.TilecError, match=r"@sgd: argument 'p' is updated in place but shares memory"):
        k(a, a, 0.1)


# --- GPU code: PTX assembled, HIP compiled ------------------------------------------------------------


def _programs():
    x = np.ones((3, 257), np.float32)
    return [
        ("sgd", sgd, [x, x, 0.1]),
        ("adam", adam_moments, [x, x, x, x, 0.9, 0.999, 0.01]),
        ("old_and_new", old_and_new, [x, x]),
        ("reverse", reverse, [x]),
        ("softmax_rows", softmax_rows, [x]),
    ]


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
@pytest.mark.parametrize("name,op,args", _programs(), ids=lambda p: p if isinstance(p, str) else "")
def test_ptx_assembles(name, op, args, tmp_path):
    path = tmp_path / f"{name}.ptx"
    path.write_text(op.source("cuda", *args))
    r = subprocess.run(
        ["ptxas", "-arch=sm_90a", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr


@pytest.mark.skipif(find_hipcc() is None, reason="hipcc is not installed (apt-get install hipcc)")
@pytest.mark.parametrize("name,op,args", _programs(), ids=lambda p: p if isinstance(p, str) else "")
def test_hip_compiles(name, op, args):
    op.compile("hip", *args)


def test_gpu_elementwise_update_has_no_read_only_loads_of_the_written_buffer():
    src = sgd.source("cuda", np.ones(1000, np.float32), np.ones(1000, np.float32), 0.1)
    # g is read only (ld.global.nc), p is read and written by the same kernel: plain ld.global
    assert "ld.global.nc" in src
    assert src.count("ld.global.f32") + src.count("ld.global.v4.f32") + src.count("ld.global.v2.f32") >= 1


def test_rank0_bool_and_no_op_updates():
    @tile_op(dtype=float32)
    def inc(p):
        p[...] = p + 1.0

    @tile_op(dtype=tilec.bool_)
    def negate(m):
        m[:] = ~m

    @tile_op(dtype=float32)
    def noop(p):
        p[...] = p

    for out, (a,) in both(inc, np.array(2.5, np.float32)):
        assert out is None and a.shape == () and a == np.float32(3.5)
    m = np.random.default_rng().random(11) < 0.5
    for _, (b,) in both(negate, m):
        np.testing.assert_array_equal(b, ~m)
    c = np.arange(4, dtype=np.float32)
    assert noop(c) is None and "tile.store" not in noop.ir("tile", c)
    np.testing.assert_array_equal(c, np.arange(4, dtype=np.float32))
    assert sgd_dims.ir("tile").count("tile.store") == 1  # dims without shapes: ranks inferred


@tile_op(dtype=float32, dims=["N"])
def sgd_dims(p, g, lr: float):
    p[...] = p - lr * g
