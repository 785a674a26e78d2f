"""Pooling (tilec.max_pool, avg_pool, adaptive_*_pool and the two backward helpers) against torch's
CPU functions: the interpreter and the C target on fresh random inputs with awkward shapes (odd
and prime sizes, ceil_mode with padding, dilation 2, 1-d and 3-d, kernel == input, unbatched
(C, *S), windows large enough for the tap loop), indices exactly (ties and NaNs included: torch
takes the first maximum, or the last NaN), the backward helpers against torch.autograd.grad, the
fusion of relu -> max_pool -> epilogue into one kernel, located errors, and the GPU lowering:
run on the CPU through the HIP emulator (test_hip_emulated.py), PTX assembled by ptxas (sm_80,
sm_90a) and HIP compiled by hipcc. The GPU itself runs test_gpu_pool.py.

Max pooling and its indices are exact on every target (a max rounds nothing); averages are
compared at cpu_util.TOL (f32: 1e-5), sums of a few taps in one order.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest
import torch
from cpu_util import assert_close, rng  # noqa: F401  (rng: a fixture)

import tilec
from tilec import float16, float32, int64, tile_op
from tilec.toolchain.hipcc import find_hipcc

F = torch.nn.functional
TORCH_MAX = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}
TORCH_AVG = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}
TORCH_ADAPTIVE_AVG = {1: F.adaptive_avg_pool1d, 2: F.adaptive_avg_pool2d, 3: F.adaptive_avg_pool3d}
TORCH_ADAPTIVE_MAX = {1: F.adaptive_max_pool1d, 2: F.adaptive_max_pool2d, 3: F.adaptive_max_pool3d}


def spatial(shape, kernel) -> int:
    return len(kernel) if isinstance(kernel, tuple) else len(shape) - 2


# (shape, kernel, stride, padding, dilation, ceil_mode)
MAX_CASES = {
    "2d-3x3s2p1": ((2, 3, 9, 11), 3, 2, 1, 1, False),
    "2d-ceil-pad": ((1, 2, 10, 7), 3, 2, 1, 1, True),
    "2d-dilation2": ((2, 2, 11, 13), 3, 1, 1, 2, False),
    "2d-dil2-ceil-s3": ((1, 3, 13, 8), (3, 2), (3, 2), (1, 1), 2, True),
    "1d-ceil": ((3, 4, 17), 4, 3, 2, 1, True),
    "3d": ((1, 2, 5, 6, 7), (2, 3, 2), (1, 2, 2), (1, 1, 0), 1, False),
    "kernel-is-input": ((2, 3, 7, 5), (7, 5), None, 0, 1, False),
    "unbatched": ((3, 9, 10), (3, 3), 2, 1, 1, True),
    "size-1": ((1, 1, 1, 1), 1, 1, 0, 1, False),
    "tap-loop-81": ((1, 2, 20, 19), 9, 1, 4, 1, False),
}


def torch_max(x, d, k, s, p, dl, c, return_indices=True):
    t = torch.from_numpy(np.asarray(x, np.float32))
    unbatched = t.ndim == d + 1
    if unbatched:
        t = t[None]
    y, i = TORCH_MAX[d](t, k, s, p, dl, ceil_mode=c, return_indices=True)
    if unbatched:
        y, i = y[0], i[0]
    return (y.numpy(), i.numpy()) if return_indices else y.numpy()


@pytest.mark.parametrize(
    "case,dt", [(c, float32) for c in MAX_CASES] + [("2d-3x3s2p1", float16), ("3d", float16)], ids=str
)
def test_max_pool_values_and_indices(case, dt, rng):
    shape, k, s, p, dl, c = MAX_CASES[case]

    @tile_op(dtype=dt)
    def mp(x):
        return tilec.max_pool(x, k, s, p, dl, ceil_mode=c, return_indices=True)

    x = rng.standard_normal(shape).astype(dt.np)
    want_y, want_i = torch_max(x, spatial(shape, k), k, s, p, dl, c)
    for y, i in (mp(x), tilec.interpret(mp, x)):
        np.testing.assert_array_equal(y.astype(np.float32), want_y)
        assert i.dtype == np.int64
        np.testing.assert_array_equal(i, want_i)


def test_max_pool_ties_nans_and_infinities(rng):
    """Rounded values tie often (torch: the first maximum), a NaN wins and the last NaN of a
    window is its index, a window of -inf reports its first tap inside the input."""
    x = np.round(rng.standard_normal((2, 3, 12, 9))).astype(np.float32)
    x[rng.random(x.shape) < 0.05] = np.nan
    x[0, 0, :4, :4] = -np.inf
    x[1, 2, 5:7, :] = np.nan

    @tile_op(dtype=float32)
    def mp(x):
        y, i = tilec.max_pool(x, 3, 2, 1, 2, ceil_mode=True, return_indices=True)
        return y, i, tilec.max_pool(x, (2, 3))

    want_y, want_i = torch_max(x, 2, 3, 2, 1, 2, True)
    want_plain = torch_max(x, 2, (2, 3), None, 0, 1, False, return_indices=False)
    for y, i, plain in (mp(x), tilec.interpret(mp, x)):
        np.testing.assert_array_equal(y, want_y)  # NaNs equal NaNs here
        np.testing.assert_array_equal(i, want_i)
        np.testing.assert_array_equal(plain, want_plain)


# (shape, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
AVG_CASES = {
    "2d-3x3s2p1": ((2, 3, 9, 11), 3, 2, 1, False, True, None),
    "2d-ceil-exclude": ((1, 2, 10, 7), 3, 2, 1, True, False, None),
    "2d-ceil-include": ((1, 2, 10, 7), (3, 2), (2, 3), (1, 1), True, True, None),
    "2d-divisor": ((2, 1, 8, 9), 2, 1, 1, False, True, 3),
    "1d-ceil": ((3, 4, 17), 4, 3, 2, True, False, None),
    "3d": ((1, 2, 5, 6, 7), (2, 3, 2), (1, 2, 2), (1, 1, 0), True, False, None),
    "unbatched": ((3, 9, 10), (3, 3), 2, 1, False, False, None),
    "tap-loop-81": ((1, 2, 20, 19), 9, 1, 4, False, False, None),
}


def torch_avg(x, d, k, s, p, c, cip, div, grad_of=None):
    t = torch.from_numpy(np.asarray(x, np.float64)).requires_grad_(grad_of is not None)
    src = t if t.ndim == d + 2 else t[None]
    kw = {"ceil_mode": c, "count_include_pad": cip}
    if d > 1:
        kw["divisor_override"] = div
    y = TORCH_AVG[d](src, k, s, p, **kw)
    y = y if t.ndim == d + 2 else y[0]
    if grad_of is None:
        return y.detach().numpy()
    (g,) = torch.autograd.grad(y, t, torch.from_numpy(np.asarray(grad_of, np.float64)))
    return y.detach().numpy(), g.numpy()


@pytest.mark.parametrize("case", list(AVG_CASES))
def test_avg_pool_and_its_backward(case, rng):
    shape, k, s, p, c, cip, div = AVG_CASES[case]
    d = spatial(shape, k)

    @tile_op(dtype=float32)
    def ap(x):
        return tilec.avg_pool(x, k, s, p, ceil_mode=c, count_include_pad=cip, divisor_override=div)

    @tile_op(dtype=float32)
    def ap_grad(dy):
        return tilec.avg_pool_backward(dy, shape, k, s, p, c, cip, div)

    x = rng.standard_normal(shape).astype(np.float32)
    dy = rng.standard_normal(ap(x).shape).astype(np.float32)
    want_y, want_g = torch_avg(x, d, k, s, p, c, cip, div, grad_of=dy)
    for y in (ap(x), tilec.interpret(ap, x)):
        assert_close(y, want_y, float32)
    for g in (ap_grad(dy), tilec.interpret(ap_grad, dy)):
        assert_close(g, want_g, float32)


@pytest.mark.parametrize(
    "shape,out",
    [
        ((2, 3, 7, 7), 1),
        ((1, 2, 9, 10), 1),  # 90 taps: the tap loop
        ((2, 3, 9, 11), (4, 3)),
        ((1, 2, 5, 3), (7, None)),
        ((3, 13), 5),
        ((1, 2, 4, 6, 5), (2, 3, 4)),
    ],
)
def test_adaptive_pools(shape, out, rng):
    d = len(out) if isinstance(out, tuple) else len(shape) - 2
    if len(shape) == 2:
        d = 1  # (C, L) unbatched: the int output size pools x.ndim - 2 = 0 axes; use a tuple
        out = (out,)

    @tile_op(dtype=float32)
    def ad(x):
        m, i = tilec.adaptive_max_pool(x, out, return_indices=True)
        return tilec.adaptive_avg_pool(x, out), m, i

    x = rng.standard_normal(shape).astype(np.float32)
    t = torch.from_numpy(x)
    size = out if isinstance(out, tuple) else (out,) * d
    want_avg = TORCH_ADAPTIVE_AVG[d](t, size).numpy()
    want_max, want_i = TORCH_ADAPTIVE_MAX[d](t if t.ndim == d + 2 else t[None], size, return_indices=True)
    if t.ndim == d + 1:
        want_max, want_i = want_max[0], want_i[0]
    for a, m, i in (ad(x), tilec.interpret(ad, x)):
        assert_close(a, want_avg, float32)
        np.testing.assert_array_equal(m, want_max.numpy())
        np.testing.assert_array_equal(i, want_i.numpy())


@pytest.mark.parametrize("case", ["2d-3x3s2p1", "2d-dil2-ceil-s3", "2d-dilation2", "1d-ceil", "3d", "unbatched"])
def test_max_pool_backward_matches_autograd(case, rng):
    shape, k, s, p, dl, c = MAX_CASES[case]
    d = spatial(shape, k)

    @tile_op(dtype=float32)
    def fwd(x):
        return tilec.max_pool(x, k, s, p, dl, ceil_mode=c, return_indices=True)

    @tile_op(dtype=float32, dtypes={"idx": int64})
    def bwd(dy, idx):  # the scatter, and the window walk (given the window)
        return tilec.max_pool_backward(dy, idx, shape, ndim=d), tilec.max_pool_backward(dy, idx, shape, k, s, p, dl, c)

    x = rng.standard_normal(shape).astype(np.float32)
    y, idx = fwd(x)
    dy = rng.standard_normal(y.shape).astype(np.float32)
    t = torch.from_numpy(x.astype(np.float64)).requires_grad_(True)
    src = t if t.ndim == d + 2 else t[None]
    ty = TORCH_MAX[d](src, k, s, p, dl, ceil_mode=c)
    ty = ty if t.ndim == d + 2 else ty[0]
    (want,) = torch.autograd.grad(ty, t, torch.from_numpy(dy.astype(np.float64)))
    for scattered, walked in (bwd(dy, idx), tilec.interpret(bwd, dy, idx)):
        assert_close(scattered, want.numpy(), float32)
        assert_close(walked, want.numpy(), float32)


def test_interpret_mode_gives_values_and_indices(monkeypatch, rng):
    """Under TILEC_INTERPRET=1 each op runs as it is traced: both results of a max pool have values."""
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    seen = {}

    @tile_op(dtype=float32)
    def mp(x):
        y, i = tilec.max_pool(x, 3, 2, 1, return_indices=True)
        seen["i"] = i.numpy()
        return y, i

    x = rng.standard_normal((1, 2, 7, 8)).astype(np.float32)
    y, i = mp(x)
    want_y, want_i = torch_max(x, 2, 3, 2, 1, 1, False)
    np.testing.assert_array_equal(y, want_y)
    np.testing.assert_array_equal(seen["i"], want_i)


def kernels(op, *arrays, target="cpu") -> list[str]:
    return re.findall(r"mapped\.kernel @(\w+)", op.ir("mapped", *arrays, target=target))


def test_relu_max_pool_epilogue_is_one_kernel(rng):
    """relu before the pool is evaluated at each tap, the scale after it on the pooled value: one
    kernel reading x once, writing the values and the indices."""

    @tile_op(dtype=float32)
    def block(x):
        y, i = tilec.max_pool(tilec.maximum(x, 0.0), 3, 2, 1, return_indices=True)
        return y * 2.0 + 1.0, i

    x = rng.standard_normal((2, 4, 13, 12)).astype(np.float32)
    assert len(kernels(block, x)) == 1
    assert len(kernels(block, x, target="cuda")) == 1
    want_y, want_i = torch_max(np.maximum(x, 0), 2, 3, 2, 1, 1, False)
    y, i = block(x)
    assert_close(y, want_y * 2 + 1, float32)
    np.testing.assert_array_equal(i, want_i)


@pytest.mark.parametrize(
    "shape, kernel, stride, padding, ceil_mode",
    [
        ((2, 7, 1, 1), 320, None, 0, True),  # HF EfficientNet's AvgPool2d(hidden_dim, ceil_mode=True)
        ((2, 5, 7, 9), (11, 13), 3, 2, True),
        ((3, 4, 5, 2), 7, 1, 3, False),
    ],
)
def test_windows_larger_than_the_input_walk_only_their_taps_inside(shape, kernel, stride, padding, ceil_mode, rng):
    """A window that cannot fit the padded input (a global pool written as a huge window) loops
    only over its taps inside the input, per output, on the CPU and in the GPU lowering: the same
    values and indices as torch, and the 320 x 320 window's loops do not run to 320."""
    x = rng.standard_normal(shape).astype(np.float32)
    for inc in (True, False):

        @tile_op(dtype=float32)
        def avg(x):
            return tilec.avg_pool(x, kernel, stride, padding, ceil_mode=ceil_mode, count_include_pad=inc)

        want = F.avg_pool2d(torch.from_numpy(x), kernel, stride, padding, ceil_mode, count_include_pad=inc)
        assert_close(avg(x), want.numpy(), float32)

    @tile_op(dtype=float32)
    def mx(x):
        return tilec.max_pool(x, kernel, stride, padding, ceil_mode=ceil_mode, return_indices=True)

    wv, wi = F.max_pool2d(torch.from_numpy(x), kernel, stride, padding, ceil_mode=ceil_mode, return_indices=True)
    v, i = mx(x)
    np.testing.assert_array_equal(v, wv.numpy())
    np.testing.assert_array_equal(i, wi.numpy())
    if kernel == 320:
        for target in ("cpu", "cuda"):
            ir = avg.ir("mapped", x, target=target)
            k320 = set(re.findall(r"(%\w+) = arith\.constant 320 : index", ir))
            bounds = set(re.findall(r"scf\.for %\w+ = %\w+ to (%\w+)", ir))
            assert bounds and not (k320 & bounds), (target, k320 & bounds)


def test_pool_of_a_pool_is_one_kernel(rng):
    """exp -> max_pool -> avg_pool -> scale: the inner pool is evaluated at each tap of the outer."""

    @tile_op(dtype=float32)
    def pp(x):
        return tilec.avg_pool(tilec.max_pool(tilec.exp(x), 3, 2, 1), 2, ceil_mode=True) * 3.0

    x = rng.standard_normal((2, 3, 13, 11)).astype(np.float32)
    assert len(kernels(pp, x)) == 1
    t = torch.from_numpy(x.astype(np.float64))
    want = F.avg_pool2d(F.max_pool2d(t.exp(), 3, 2, 1), 2, ceil_mode=True) * 3
    assert_close(pp(x), want.numpy(), float32)


def test_a_relu_also_kept_stays_its_own_kernel(rng):
    """When the relu's value is an output too, the pool reads it materialized (two kernels)."""

    @tile_op(dtype=float32)
    def both(x):
        r = tilec.maximum(x, 0.0)
        return r, tilec.avg_pool(r, 2)

    x = rng.standard_normal((1, 2, 6, 8)).astype(np.float32)
    assert len(kernels(both, x)) == 2
    r, a = both(x)
    assert_close(a, torch_avg(np.maximum(x, 0), 2, 2, 2, 0, False, True, None), float32)


def test_dynamic_batch_and_channels(rng):
    @tile_op(dtype=float32, dims=["N", "C", 9, 8])  # the pooled axes are static
    def mp(x):
        return tilec.max_pool(x, 3, 2, 1, return_indices=True)

    for n, c in ((1, 3), (3, 5)):
        x = rng.standard_normal((n, c, 9, 8)).astype(np.float32)
        y, i = mp(x)
        want_y, want_i = torch_max(x, 2, 3, 2, 1, 1, False)
        np.testing.assert_array_equal(y, want_y)
        np.testing.assert_array_equal(i, want_i)


def expect(line_of: str, *parts: str):
    pattern = r"test_pool\.py:\d+:\d+: error: .*" + ".*".join(re.escape(p) for p in parts)
    return pytest.raises(tilec.TileError, match=pattern)


def test_errors_are_located():
    x = np.zeros((1, 2, 5, 5), np.float32)

    @tile_op(dtype=float32)
    def too_much_padding(x):
        return tilec.max_pool(x, 3, padding=2)

    with expect("padding", "padding should be at most half of the kernel, got padding 2 for kernel 3"):
        too_much_padding(x)

    @tile_op(dtype=float32)
    def too_small(x):
        return tilec.max_pool(x, 3, dilation=3)

    with expect("small", "too small", "output size would be (0, 0)"):
        too_small(x)

    @tile_op(dtype=tilec.int32)
    def ints(x):
        return tilec.avg_pool(x, 2)

    with expect("ints", "pools float16, bfloat16, float32 or float64 tiles, got int32"):
        ints(np.zeros((1, 1, 4, 4), np.int32))

    @tile_op(dtype=float32, dims=["C", "L"])
    def dynamic(x):
        return tilec.max_pool(x, (2,))

    with expect("dynamic", "not supported yet", "dynamic spatial axis"):
        dynamic(np.zeros((3, 8), np.float32))

    @tile_op(dtype=float32)
    def bad_grad(dy):
        return tilec.avg_pool_backward(dy, (1, 2, 5, 5), 2)

    with expect("grad", "dy's spatial sizes (3, 3) are not avg_pool's output (2, 2)"):
        bad_grad(np.zeros((1, 2, 3, 3), np.float32))

    @tile_op(dtype=float32)
    def rank(x):
        return tilec.max_pool(x, 2)

    with expect("rank", "pools 1 to 3 spatial axes"):
        rank(np.zeros((4, 4), np.float32))


def test_out_of_range_indices_in_the_backward_raise():
    @tile_op(dtype=float32, dtypes={"idx": int64})
    def bwd(dy, idx):
        return tilec.max_pool_backward(dy, idx, (1, 1, 4, 4))

    idx = np.array([[[[0, 16]]]], np.int64)  # 16 is outside the 4 x 4 plane
    with pytest.raises(tilec.IndexOutOfRange):
        bwd(np.ones((1, 1, 1, 2), np.float32), idx)


# --- the GPU lowering without a GPU ---------------------------------------------------------------


def _gpu_programs():
    @tile_op(dtype=float16)
    def relu_max_pool(x):
        return tilec.max_pool(tilec.maximum(x, 0.0), 3, 2, 1, return_indices=True)

    @tile_op(dtype=float32)
    def avg_and_grad(x, dy):
        a = tilec.avg_pool(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)
        return a, tilec.avg_pool_backward(dy, x.shape, 3, 2, 1, ceil_mode=True, count_include_pad=False)

    @tile_op(dtype=float16, dtypes={"idx": int64})
    def max_grad(dy, idx):
        return tilec.max_pool_backward(dy, idx, (2, 3, 9, 13), 3, 2, 1, 2, ceil_mode=True)

    @tile_op(dtype=float32)
    def adaptive3d(x):
        return tilec.adaptive_max_pool(x, (2, 3, 1), return_indices=True)

    @tile_op(dtype=float32)
    def global_avg(x):
        return tilec.adaptive_avg_pool(x, 1)

    x16 = np.zeros((2, 3, 9, 13), np.float16)  # odd output rows: one lane per thread (the emulator runs 8)
    x = np.zeros((2, 3, 9, 11), np.float32)
    return [
        ("relu_max_pool", relu_max_pool, [x16]),
        ("avg_and_grad", avg_and_grad, [x, np.zeros((2, 3, 5, 6), np.float32)]),
        ("max_grad", max_grad, [np.zeros((2, 3, 4, 6), np.float16), np.zeros((2, 3, 4, 6), np.int64)]),
        ("adaptive3d", adaptive3d, [np.zeros((1, 2, 5, 7, 3), np.float32)]),
        ("global_avg", global_avg, [np.zeros((2, 5, 9, 9), np.float32)]),
    ]


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
@pytest.mark.parametrize("name,op,arrays", _gpu_programs(), ids=lambda p: p if isinstance(p, str) else "")
@pytest.mark.parametrize("sm", ["sm_90a", "sm_80"])
def test_ptx_assembles(name, op, arrays, sm, tmp_path):
    path = tmp_path / f"{name}.ptx"
    path.write_text(op.source("cuda", *arrays, sm=sm))
    r = subprocess.run(
        ["ptxas", f"-arch={sm}", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr


@pytest.mark.skipif(find_hipcc() is None, reason="hipcc is not installed (apt-get install hipcc)")
@pytest.mark.parametrize("name,op,arrays", _gpu_programs(), ids=lambda p: p if isinstance(p, str) else "")
def test_hip_compiles(name, op, arrays):
    op.compile("hip", *arrays)


@pytest.mark.skipif(find_hipcc() is None, reason="hipcc is not installed: the HIP emulator cannot compile kernels")
def test_gpu_lowering_runs_in_the_hip_emulator(rng):
    """The GPU kernels (the same algorithm for CUDA and HIP) executed by test_hip_emulated's
    emulator: values and indices equal torch's."""
    from test_hip_emulated import emulate

    (_, mp, _), (_, avg, _), (_, mgrad, _), (_, ad3, _), (_, gavg, _) = _gpu_programs()
    x16 = rng.standard_normal((2, 3, 9, 16)).astype(np.float16)
    y, i = emulate(mp, x16)
    want_y, want_i = torch_max(np.maximum(x16.astype(np.float32), 0), 2, 3, 2, 1, 1, False)
    np.testing.assert_array_equal(y.astype(np.float32), want_y)
    np.testing.assert_array_equal(i, want_i)
    x = rng.standard_normal((2, 3, 9, 11)).astype(np.float32)
    dy = rng.standard_normal((2, 3, 5, 6)).astype(np.float32)
    a, g = emulate(avg, x, dy)
    want_a, want_g = torch_avg(x, 2, 3, 2, 1, True, False, None, grad_of=dy)
    assert_close(a, want_a, float32)
    assert_close(g, want_g, float32)
    xg16 = torch.from_numpy(rng.standard_normal((2, 3, 9, 13))).requires_grad_(True)
    ym, im = F.max_pool2d(xg16, 3, 2, 1, 2, ceil_mode=True, return_indices=True)
    dym = rng.standard_normal(ym.shape).astype(np.float16)
    (want_gm,) = torch.autograd.grad(ym, xg16, torch.from_numpy(dym.astype(np.float64)))
    assert_close(emulate(mgrad, dym, im.numpy()), want_gm.numpy(), float16)
    x3 = rng.standard_normal((1, 2, 5, 7, 3)).astype(np.float32)
    m, i3 = emulate(ad3, x3)
    tm, ti = F.adaptive_max_pool3d(torch.from_numpy(x3), (2, 3, 1), return_indices=True)
    np.testing.assert_array_equal(m, tm.numpy())
    np.testing.assert_array_equal(i3, ti.numpy())
    xg = rng.standard_normal((2, 5, 9, 9)).astype(np.float32)
    assert_close(emulate(gavg, xg), xg.astype(np.float64).mean(axis=(2, 3), keepdims=True), float32)
