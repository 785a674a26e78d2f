"""Convolutions (tilec.conv, conv_transpose, conv_backward_input / _weight): the interpreter and the
compiled targets against torch.nn.functional / torch.autograd on fresh random inputs with awkward
shapes (odd and prime sizes, stride 2, dilation 2, padding 'same', asymmetric and cropping padding,
groups, depthwise, channels_last); the epilogue (bias + residual + relu) fused into the
convolution's kernel; located errors for bad arguments.

torch (CPU) is the reference; it is in pyproject's `test` extra."""

from __future__ import annotations

import numpy as np
import pytest
from cpu_util import rand, rng  # noqa: F401
from test_frontend_util import expect_error

import tilec
from tilec import float16, float32, float64, tile_op

torch = pytest.importorskip("torch")
F = torch.nn.functional

CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def expect(marker: str, *phrases: str):
    return expect_error(__file__, marker, *phrases)


def to_torch(a: np.ndarray, last: bool):
    t = torch.from_numpy(np.ascontiguousarray(a.astype(np.float64)))
    return torch.movedim(t, -1, 1) if last else t


def from_torch(t, last: bool) -> np.ndarray:
    return (torch.movedim(t, 1, -1) if last else t).detach().numpy()


def torch_conv(x, w, last=False, **kw) -> np.ndarray:
    """torch's convolution in float64 (the inputs are exact there); (lo, hi) padding pairs, which
    torch's convolutions do not take, pad the input first."""
    d = x.ndim - 2
    tx = to_torch(x, last)
    pad = kw.get("padding")
    if isinstance(pad, tuple) and any(isinstance(p, tuple) for p in pad):
        tx = F.pad(tx, [v for p in reversed(pad) for v in p])
        kw = {**kw, "padding": 0}
    return from_torch(CONV[d](tx, to_torch(w, last), **kw), last)


def conv_op(dtype=float32, **kw):
    @tile_op(dtype=dtype)
    def f(x, w):
        return tilec.conv(x, w, **kw)

    return f


def tol(dtype, k: int):
    """Tolerance of a length-k dot product of values in [-2, 2) accumulated in f32 (or f64)."""
    if dtype is float64:
        return 1e-11 * k
    if dtype is float16:
        return 4e-3 * k**0.5 + 2e-2
    return 4e-6 * k


# (x shape, w shape, kwargs): channels-first shapes; channels_last cases move the channel axis last
CASES = [
    ((2, 3, 17), (5, 3, 4), dict(padding="same", dilation=2)),
    ((1, 4, 13), (6, 2, 3), dict(stride=2, padding=(2,), groups=2)),
    ((2, 6, 13, 11), (4, 3, 3, 3), dict(stride=2, padding=1, groups=2)),
    ((1, 5, 9, 7), (5, 1, 3, 3), dict(padding="same", groups=5)),  # depthwise
    ((3, 2, 7, 8), (3, 2, 2, 3), dict(stride=(2, 1), padding=((1, 0), (2, 1)), dilation=(1, 2))),
    ((1, 1, 1, 1), (1, 1, 1, 1), {}),
    ((2, 6, 7, 4, 5), (6, 2, 3, 2, 1), dict(stride=(1, 2, 1), padding=(1, 0, 2), dilation=(2, 1, 1), groups=3)),
]


def move_last(shape):
    return (shape[0], *shape[2:], shape[1])


@pytest.mark.parametrize("last", [False, True], ids=["nchw", "nhwc"])
@pytest.mark.parametrize("xs,ws,kw", CASES)
def test_interpreter_vs_torch(rng, xs, ws, kw, last):
    if last:
        xs, ws = move_last(xs), move_last(ws)
    x, w = rand(rng, xs), rand(rng, ws)
    layout = "channels_last" if last else "channels_first"
    got = tilec.interpret(conv_op(layout=layout, **kw), x, w)
    want = torch_conv(x, w, last, **kw)
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=tol(float32, int(np.prod(ws[1:]))))


def test_f16_accumulates_in_f32(rng):
    """f16 in, f32 accumulation; `.astype(float32)` reads the accumulator without an f16 rounding."""

    @tile_op(dtype=float16)
    def f(x, w):
        return tilec.conv(x, w, padding=1).astype(float32)

    x, w = rand(rng, (2, 8, 6, 5), float16), rand(rng, (3, 8, 3, 3), float16)
    got = tilec.interpret(f, x, w)
    want = torch_conv(x, w, padding=1)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=0, atol=tol(float32, 72))
    assert "acc f32" in f.ir("tile", x, w) and "-> !tile.tile<2x3x6x5xf32>" in f.ir("tile", x, w)
