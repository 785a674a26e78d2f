"""The VJP rules of the network ops (tilec/autodiff/rules/nn.py): conv (strides, padding, dilation,
groups, both layouts, transposed convolutions through lhs_dilation and cropping padding), pools
(max with and without its indices, avg with its options, adaptive avg and max, the backward
pools themselves), scans (cumsum, cumprod with zeros, logcumsumexp, reverse and exclusive),
sort / top-k, dropout (the mask regenerated from the RNG state) and argmax on a differentiated
path (a zero cotangent). Each derived backward (tilec.vjp) against torch.autograd (CPU, float64) and
central finite differences, interpreted and compiled for the CPU; CUDA variants marked gpu."""

from __future__ import annotations

import numpy as np
import pytest
from autodiff_rules_util import check_rule, derived_vjp, random_cts, run
from cpu_util import rng  # noqa: F401

import tilec
from tilec import float64, tile_op
from tilec.philox import random_bits

torch = pytest.importorskip("torch")
F = torch.nn.functional

try:
    import cupy as cp

    HAVE_GPU = cp.cuda.runtime.getDeviceCount() > 0
except Exception:  # noqa: BLE001 - any failure to reach a GPU means "no GPU here"
    HAVE_GPU = False
needs_gpu = pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")


def randn(rng, *shape):
    return rng.standard_normal(shape)


# --- convolution ---------------------------------------------------------------------------------

CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
CONV_T = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}

# (x shape, w shape, kwargs), channels first; the channels_last cases move the channel axis last
CONV_CASES = [
    ((2, 3, 17), (5, 3, 4), dict(padding="same", dilation=2)),
    ((1, 4, 13), (6, 2, 3), dict(stride=2, padding=(2,), groups=2)),
    ((2, 6, 11, 9), (4, 3, 3, 3), dict(stride=2, padding=1, groups=2)),
    ((1, 5, 9, 7), (5, 1, 3, 3), dict(padding="same", groups=5)),  # depthwise
    ((3, 2, 7, 8), (3, 2, 2, 3), dict(stride=(2, 1), padding=((1, 0), (2, 1)), dilation=(1, 2))),
    ((1, 1, 1, 1), (1, 1, 1, 1), {}),
    ((2, 6, 5, 4, 5), (6, 2, 3, 2, 1), dict(stride=(1, 2, 1), padding=(1, 0, 2), dilation=(2, 1, 1), groups=3)),
]


def to_cf(t, last):
    return torch.movedim(t, -1, 1) if last else t


def from_cf(t, last):
    return torch.movedim(t, 1, -1) if last else t


def torch_conv(x, w, last=False, **kw):
    d = x.ndim - 2
    x, w = to_cf(x, last), to_cf(w, last)
    pad = kw.get("padding")
    if isinstance(pad, tuple) and any(isinstance(p, tuple) for p in pad):
        x = F.pad(x, [v for p in reversed(pad) for v in p])
        kw = {**kw, "padding": 0}
    return from_cf(CONV[d](x, w, **kw), last)


def move_last(shape):
    return (shape[0], *shape[2:], shape[1])


@pytest.mark.parametrize("last", [False, True], ids=["nchw", "nhwc"])
@pytest.mark.parametrize("xs,ws,kw", CONV_CASES)
def test_conv(rng, xs, ws, kw, last):
    if last:
        xs, ws = move_last(xs), move_last(ws)
    layout = "channels_last" if last else "channels_first"

    @tile_op(dtype=float64)
    def f(x, w):
        return tilec.conv(x, w, layout=layout, **kw)

    targets = ("interp", "cpu") if len(xs) < 5 or not last else ("interp",)
    check_rule(
        rng, f, [randn(rng, *xs), randn(rng, *ws)], ["x", "w"], lambda x, w: torch_conv(x, w, last, **kw), targets
    )


# (x shape, w shape (C_in, C_out / groups, *K), kwargs): transposed convolutions are tile.conv
# with lhs_dilation = stride and padding dilation (K - 1) - padding, negative when padding is large
CONV_T_CASES = [
    ((2, 4, 5, 6), (4, 3, 3, 3), dict(stride=2, padding=1, output_padding=1, groups=2)),
    ((1, 3, 7), (3, 2, 3), dict(stride=3, padding=3)),  # padding 3 > K - 1: a cropping tile.conv
    ((2, 2, 4, 3), (2, 1, 2, 3), dict(stride=(2, 1), dilation=(1, 2), padding=(0, 1))),
]


@pytest.mark.parametrize("last", [False, True], ids=["nchw", "nhwc"])
@pytest.mark.parametrize("xs,ws,kw", CONV_T_CASES)
def test_conv_transpose(rng, xs, ws, kw, last):
    if last:
        xs, ws = move_last(xs), move_last(ws)
    layout = "channels_last" if last else "channels_first"
    d = len(xs) - 2

    @tile_op(dtype=float64)
    def f(x, w):
        return tilec.conv_transpose(x, w, layout=layout, **kw)

    def ref(x, w):
        return from_cf(CONV_T[d](to_cf(x, last), to_cf(w, last), **kw), last)

    check_rule(rng, f, [randn(rng, *xs), randn(rng, *ws)], ["x", "w"], ref)


def test_conv_backward_ops_differentiate(rng):
    """Double backward: conv_backward_input / _weight are convolutions themselves (the first with
    lhs_dilation), so their own VJPs are derived (checked by finite differences)."""

    @tile_op(dtype=float64)
    def f(dy, w, x):
        dx = tilec.conv_backward_input(dy, w, (2, 4, 9, 8), stride=2, padding=1, groups=2)
        dw = tilec.conv_backward_weight(x, dy, (6, 2, 3, 3), stride=2, padding=1, groups=2)
        return dx * x, dw

    check_rule(rng, f, [randn(rng, 2, 6, 5, 4), randn(rng, 6, 2, 3, 3), randn(rng, 2, 4, 9, 8)], ["dy", "w", "x"])


# --- pooling -------------------------------------------------------------------------------------

MAX_POOLS = [
    ((2, 3, 9, 9), dict(kernel=3, stride=2, padding=1)),
    ((1, 2, 10, 7), dict(kernel=(3, 2), stride=(2, 3), padding=(1, 1), dilation=(2, 1), ceil_mode=True)),
    ((3, 11), dict(kernel=(4,), stride=(3,), ceil_mode=True)),  # unbatched (C, L)
    ((1, 2, 5, 6, 4), dict(kernel=2, stride=1)),
]


def torch_pool(fn, x, kw, d):
    kw = {("kernel_size" if k == "kernel" else k): v for k, v in kw.items()}
    return fn[d](x, **kw)


MAXP = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}
AVGP = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}


@pytest.mark.parametrize("with_indices", [False, True], ids=["recomputed", "own_indices"])
@pytest.mark.parametrize("xs,kw", MAX_POOLS)
def test_max_pool(rng, xs, kw, with_indices):
    d = len(kw["kernel"]) if isinstance(kw["kernel"], tuple) else len(xs) - 2

    @tile_op(dtype=float64)
    def f(x):
        if with_indices:  # the pool's own indices result exists: the rule reads it
            y, _ = tilec.max_pool(x, return_indices=True, **kw)
            return y * 2.0
        return tilec.max_pool(x, **kw) * 2.0

    check_rule(rng, f, [randn(rng, *xs)], ["x"], lambda x: torch_pool(MAXP, x, kw, d) * 2.0)


AVG_POOLS = [
    ((2, 3, 9, 8), dict(kernel=3, stride=2, padding=1)),
    ((2, 3, 9, 8), dict(kernel=3, stride=2, padding=1, count_include_pad=False, ceil_mode=True)),
    ((1, 2, 7, 5), dict(kernel=2, stride=3, divisor_override=3)),
    ((1, 1, 5, 4, 6), dict(kernel=(2, 3, 2), stride=(1, 2, 2), padding=(1, 1, 0))),
]


@pytest.mark.parametrize("xs,kw", AVG_POOLS)
def test_avg_pool(rng, xs, kw):
    d = len(xs) - 2

    @tile_op(dtype=float64)
    def f(x):
        return tilec.avg_pool(x, **kw)

    check_rule(rng, f, [randn(rng, *xs)], ["x"], lambda x: torch_pool(AVGP, x, kw, d))


@pytest.mark.parametrize(
    "xs,out", [((2, 3, 7, 9), (3, 4)), ((2, 3, 8, 6), (4, 1)), ((1, 4, 5), (5,)), ((2, 2, 7, 7), (1, 1))]
)
def test_adaptive_pools(rng, xs, out):
    d = len(out)
    amax = {1: F.adaptive_max_pool1d, 2: F.adaptive_max_pool2d}[d]
    aavg = {1: F.adaptive_avg_pool1d, 2: F.adaptive_avg_pool2d}[d]

    @tile_op(dtype=float64)
    def f(x):
        return tilec.adaptive_avg_pool(x, out), tilec.adaptive_max_pool(x, out) * 3.0

    check_rule(rng, f, [randn(rng, *xs)], ["x"], lambda x: (aavg(x, out), amax(x, out) * 3.0))


def test_backward_pools_differentiate(rng):
    """avg_pool_backward and max_pool_backward are linear in dy: their VJPs are the average pool and a
    gather at the indices (checked by finite differences)."""

    @tile_op(dtype=float64)
    def f(dy, x):
        _, i = tilec.max_pool(x, 3, 2, 1, return_indices=True)
        a = tilec.avg_pool_backward(dy, x.shape, 3, 2, 1, count_include_pad=False)
        m = tilec.max_pool_backward(dy, i, x.shape, 3, 2, 1)
        return a * x + m

    check_rule(rng, f, [randn(rng, 2, 3, 5, 4), randn(rng, 2, 3, 9, 8)], ["dy", "x"])


# --- scans ---------------------------------------------------------------------------------------


def t_flip(fn, x, axis, reverse):
    return fn(x.flip(axis)).flip(axis) if reverse else fn(x)


def t_exclusive(y, x, axis, one):
    """The exclusive scan from the inclusive one: shifted by one along `axis`, `one` first."""
    first = torch.full_like(x.narrow(axis, 0, 1), one)
    return torch.cat([first, y.narrow(axis, 0, x.shape[axis] - 1)], dim=axis)


@pytest.mark.parametrize("reverse", [False, True], ids=["fwd", "rev"])
@pytest.mark.parametrize("exclusive", [False, True], ids=["incl", "excl"])
def test_cumsum(rng, reverse, exclusive):
    @tile_op(dtype=float64)
    def f(x):
        return tilec.cumsum(x, 1, reverse=reverse, exclusive=exclusive)

    def ref(x):
        if exclusive:
            return t_flip(lambda v: t_exclusive(torch.cumsum(v, 1), v, 1, 0.0), x, 1, reverse)
        return t_flip(lambda v: torch.cumsum(v, 1), x, 1, reverse)

    check_rule(rng, f, [randn(rng, 3, 13)], ["x"], ref)


@pytest.mark.parametrize("reverse", [False, True], ids=["fwd", "rev"])
@pytest.mark.parametrize("exclusive", [False, True], ids=["incl", "excl"])
def test_cumprod_with_zeros(rng, reverse, exclusive):
    """Rows without zeros, with one zero and with two: the derivative at the first zero is the
    product of the others, after it zero (exactly, no division by zero)."""

    @tile_op(dtype=float64)
    def f(x):
        return tilec.cumprod(x, 0, reverse=reverse, exclusive=exclusive)

    x = rng.uniform(0.5, 1.5, size=(7, 4)) * rng.choice([-1.0, 1.0], size=(7, 4))
    x[3, 1] = 0.0
    x[2, 2] = x[5, 2] = 0.0
    x[0, 3] = x[6, 3] = 0.0  # the ends: first and last in either direction

    def ref(x):
        if exclusive:
            return t_flip(lambda v: t_exclusive(torch.cumprod(v, 0), v, 0, 1.0), x, 0, reverse)
        return t_flip(lambda v: torch.cumprod(v, 0), x, 0, reverse)

    (grads,) = check_rule(rng, f, [x], ["x"], ref, targets=("interp",))
    assert np.isfinite(grads[0]).all()
    check_rule(rng, f, [x], ["x"], ref, targets=("cpu",), fd=False)


@pytest.mark.parametrize("reverse", [False, True], ids=["fwd", "rev"])
def test_logcumsumexp(rng, reverse):
    """Large values (up to 600: exp overflows float64 beyond 709) stay finite."""

    @tile_op(dtype=float64)
    def f(x):
        return tilec.logcumsumexp(x, 1, reverse=reverse)

    x = randn(rng, 4, 9) * 3.0
    x[1] += 600.0
    check_rule(rng, f, [x], ["x"], lambda v: t_flip(lambda u: torch.logcumsumexp(u, 1), v, 1, reverse))


# --- order ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("descending", [False, True])
def test_sort(rng, descending):
    @tile_op(dtype=float64)
    def f(x):
        return tilec.sort(x, axis=0, descending=descending) * 1.0

    check_rule(rng, f, [randn(rng, 11, 3)], ["x"], lambda x: torch.sort(x, 0, descending=descending).values)


@pytest.mark.parametrize("largest", [True, False])
def test_topk(rng, largest):
    """The values' cotangent goes back through the indices; the integer indices take none."""

    @tile_op(dtype=float64)
    def f(x):
        v, i = tilec.topk(x, 3, axis=-1, largest=largest)
        return v * v

    check_rule(rng, f, [randn(rng, 5, 13)], ["x"], lambda x: torch.topk(x, 3, -1, largest=largest).values ** 2)


# --- random numbers: dropout ---------------------------------------------------------------------


@tile_op(dtype=float64)
def dropout(x, seed: int, offset: int):
    keep = tilec.random.bernoulli(0.7, seed, offset, x.shape)
    return tilec.where(keep, x / 0.7, 0.0)


@pytest.mark.parametrize("target", ["interp", "cpu"])
def test_dropout_mask_regenerated(rng, target):
    """dropout = random bits + compare + select: the cotangent is ct / (1 - p) where the mask keeps,
    with the mask of the same (seed, offset) (the documented Philox formula, recomputed here)."""
    x = randn(rng, 37, 29)
    seed, offset = int(rng.integers(0, 2**62)), int(rng.integers(0, 2**40))
    (ct,) = random_cts(rng, [x])
    (dx,) = derived_vjp(dropout, ["x"], [x, seed, offset], [ct], target)
    keep = (random_bits(seed, offset, x.shape) >> 8).astype(np.float32) * np.float32(2**-24) < np.float32(0.7)
    assert 0.6 < keep.mean() < 0.8
    np.testing.assert_allclose(dx, np.where(keep, ct / 0.7, 0.0), rtol=1e-15, atol=0)
    # and the forward with the same arguments drops exactly those elements
    (y,) = run(dropout, [x, seed, offset], target)
    assert np.array_equal(y != 0, keep)


def test_dropout_backward_recomputes_the_bits(rng):
    """The backward program draws the bits again (tile.random_bits from the seed and offset
    arguments) instead of reading a saved mask."""
    x = randn(rng, 8, 5)
    ir = tilec.vjp(dropout, wrt=("x",)).ir("tile", x, 3, 0, x)
    assert "tile.random_bits" in ir


# --- non-differentiable paths --------------------------------------------------------------------


def test_argmax_on_a_differentiated_path_has_a_zero_cotangent(rng):
    """argmax is piecewise constant: through its cast to float it contributes nothing (the
    framework's rule for integer values), so d(x * argmax(x)) = ct * argmax(x)."""

    @tile_op(dtype=float64)
    def f(x):
        return x * tilec.argmax(x, axis=1, keepdims=True).astype(float64)

    x = randn(rng, 3, 4)
    ct = randn(rng, 3, 4)
    for target in ("interp", "cpu"):
        (dx,) = derived_vjp(f, ["x"], [x], [ct], target)
        np.testing.assert_array_equal(dx, ct * np.argmax(x, axis=1)[:, None])


def test_argmax_as_an_index_is_fine(rng):
    """argmax feeding an index (no cotangent flows into it): the values' VJP is a scatter."""

    @tile_op(dtype=float64)
    def f(x):
        i = tilec.argmax(x, axis=1, keepdims=True)
        return tilec.take_along_axis(x, i, axis=1)

    check_rule(rng, f, [randn(rng, 6, 7)], ["x"], lambda x: x.max(dim=1, keepdim=True).values)


# --- on a GPU (float32: cross-thread reductions of float64 are not supported on GPUs yet) ------------


def f32(*arrays):
    return [a.astype(np.float32) for a in arrays]


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("xs,ws,kw", [CONV_CASES[2], CONV_CASES[4]])
def test_conv_cuda(rng, xs, ws, kw):
    @tile_op(dtype=tilec.float32)
    def f(x, w):
        return tilec.conv(x, w, **kw)

    args = f32(randn(rng, *xs), randn(rng, *ws))
    check_rule(rng, f, args, ["x", "w"], lambda x, w: torch_conv(x, w, **kw), ("cuda",), False, 1e-4, 1e-4)


@tile_op(dtype=tilec.float32)
def pool_scan_sort32(x):
    p = tilec.max_pool(x, 3, 2, 1) + tilec.avg_pool(x, 3, 2, 1)
    return tilec.cumsum(p, 3), tilec.sort(x, axis=-1)


@pytest.mark.gpu
@needs_gpu
def test_pool_scan_sort_cuda(rng):
    def ref(x):
        p = F.max_pool2d(x, 3, 2, 1) + F.avg_pool2d(x, 3, 2, 1)
        return torch.cumsum(p, 3), torch.sort(x, -1).values

    check_rule(rng, pool_scan_sort32, f32(randn(rng, 2, 3, 9, 8)), ["x"], ref, ("cuda",), False, 1e-4, 1e-4)
