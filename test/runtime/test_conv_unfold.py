"""tile-conv-unfold (tilec/transforms/tile_conv_unfold.py): a 16-bit channels-last convolution
with few input channels rewritten as one over its input unfolded along the last spatial axis,
and its weight gradient the same way. The rewritten programs run on the CPU (the pass given as
the tile-level pipeline) against torch in float64 on fresh random inputs: the 7x7/2 stem, a 1-d
dilated C = 1, a 3-d C = 2 with a stride on the unfolded axis, asymmetric padding; convolutions
the pass must leave alone keep their IR. The CUDA and HIP pipelines run the pass by default
(test_gpu_conv.py: PTX, the HIP emulator, the GPU)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from cpu_util import rand, rng  # noqa: F401

import tilec
from tilec import bfloat16, float16, float32, tile_op
from tilec.transforms.tile_conv_unfold import unfolded_channels

torch = pytest.importorskip("torch")
F = torch.nn.functional
CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}

# (x shape (N, *S, C), w shape (O, *K, C), conv keywords): each one the pass rewrites
CASES = [
    ((2, 19, 21, 3), (16, 7, 7, 3), dict(stride=2, padding=3)),  # the stem: 7 x 3 -> 24 channels
    ((3, 17, 1), (8, 5, 1), dict(padding=((5, 2),), dilation=2)),  # 1-d, C = 1, asymmetric padding
    ((1, 4, 5, 7, 2), (8, 2, 3, 3, 2), dict(stride=(1, 1, 2), padding=1)),  # 3-d, stride 2 on the last axis
    ((2, 6, 9, 1), (8, 2, 3, 1), dict(stride=(2, 3), dilation=(1, 2))),  # unpadded, a stride 3 that skips pixels
]
IDS = ["stem", "1d-c1-dilated", "3d-c2", "2d-c1-stride3"]


def _torch_pad(x, padding):
    """x (N, C, *S) padded as tilec's (lo, hi) pairs; torch's convolutions take only symmetric ints."""
    return F.pad(x, [v for p in reversed(padding) for v in p]) if isinstance(padding, tuple) else x


def _reference(x, w, kw):
    """(y, and the function of (x, w) torch differentiates) in float64, channels-last arrays."""
    d = x.ndim - 2
    kw = dict(kw)
    padding = kw.pop("padding", 0)
    pairs = isinstance(padding, tuple) and isinstance(padding[0], tuple)

    def f(tx, tw):
        tx = _torch_pad(tx, padding) if pairs else tx
        return CONV[d](tx, tw, padding=0 if pairs else padding, **kw)

    tx = torch.from_numpy(np.moveaxis(x.astype(np.float64), -1, 1)).requires_grad_()
    tw = torch.from_numpy(np.moveaxis(w.astype(np.float64), -1, 1)).requires_grad_()
    return f, tx, tw


def _close(got, want, tol):
    got = np.asarray(got).astype(np.float64)
    assert got.shape == want.shape, (got.shape, want.shape)
    err = float(np.abs(got - want).max()) / max(1.0, float(np.abs(want).max()))
    assert err <= tol, f"relative error {err} > {tol}"


@pytest.mark.parametrize("dt", [float16, bfloat16], ids=["f16", "bf16"])
@pytest.mark.parametrize("xs,ws,kw", CASES, ids=IDS)
def test_unfolded_forward_and_weight_gradient_vs_torch(rng, dt, xs, ws, kw):
    np_t = np.float16 if dt is float16 else tilec.bfloat16.np
    x, w = rand(rng, xs, dt), (rand(rng, ws, float32) / np.sqrt(np.prod(ws[1:]))).astype(np_t)
    f, tx, tw = _reference(x, w, kw)
    y = f(tx, tw)
    dy = rng.standard_normal(tuple(y.shape))
    (gw,) = torch.autograd.grad(y, (tw,), torch.from_numpy(dy))
    dy = np.ascontiguousarray(np.moveaxis(dy, 1, -1)).astype(np_t)
    want_y, want_gw = np.moveaxis(y.detach().numpy(), 1, -1), np.moveaxis(gw.numpy(), 1, -1)
    tol = 1e-2 if dt is float16 else 4e-2

    @tile_op(dtype=dt)
    def fwd(xv, wv):
        return tilec.conv(xv, wv, layout="channels_last", **kw)

    @tile_op(dtype=dt)
    def wgrad(xv, dyv):
        return tilec.conv_backward_weight(xv, dyv, w.shape, layout="channels_last", **kw)

    k, c = ws[-2], xs[-1]
    cp = unfolded_channels(c, k)
    assert cp is not None
    for op, args, want, pipeline in (
        (fwd, (x, w), want_y, "tile-conv-unfold"),
        (wgrad, (x, dy), want_gw, "tile-conv-unfold{weight-grad=true}"),
    ):
        ir = op.ir("tile", *args, pipeline=pipeline)
        assert "tile.take" in ir and re.search(rf"x{cp}xb?f16>", ir), ir
        conv = next(line for line in ir.splitlines() if "tile.conv " in line)
        _, w_shape, r_shape = re.findall(r"!tile\.tile<([0-9x]+)x\w+>", conv)
        taps = w_shape if op is fwd else r_shape  # (a weight gradient's taps are its result's axes)
        assert taps.split("x")[-2] == "1", conv  # the unfolded axis: one tap
        assert "status" not in op.ir("mapped", *args, pipeline=pipeline)  # the gather is proven in range
        (got,) = op.compile("cpu", *args, pipeline=pipeline)(*args)
        _close(got, want, tol)
        (plain,) = op.compile("cpu", *args)(*args)  # the program as traced, same target
        _close(got, np.asarray(plain).astype(np.float64), tol)


def test_weight_gradient_left_alone_without_the_option(rng):
    """Without weight-grad the pass leaves a weight gradient as traced (its convolution's channels
    are the batch: never read as a forward convolution), and rewrites only forward ones."""
    x, dy = rand(rng, (2, 11, 11, 3), float16), rand(rng, (2, 6, 6, 8), float16)

    @tile_op(dtype=float16)
    def wgrad(xv, dyv):
        return tilec.conv_backward_weight(xv, dyv, (8, 5, 5, 3), stride=2, padding=2, layout="channels_last")

    assert wgrad.ir("tile", x, dy, pipeline="tile-conv-unfold") == wgrad.ir("tile", x, dy)
    # nor with it where the wgmma kernel's pattern does not apply (dy's 6 channels: not whole chunks)
    dy6 = rand(rng, (2, 6, 6, 6), float16)

    @tile_op(dtype=float16)
    def odd(xv, dyv):
        return tilec.conv_backward_weight(xv, dyv, (6, 5, 5, 3), stride=2, padding=2, layout="channels_last")

    assert odd.ir("tile", x, dy6, pipeline="tile-conv-unfold{weight-grad=true}") == odd.ir("tile", x, dy6)


@pytest.mark.parametrize(
    "xs,ws,kw,dt",
    [
        ((2, 9, 9, 8), (8, 7, 7, 8), dict(padding=3), float16),  # whole 16-byte chunks already
        ((2, 9, 9, 3), (8, 3, 3, 3), dict(padding=1), float16),  # 3 x 3 -> 16 of 24 columns: not worth it
        ((2, 9, 9, 3), (8, 7, 7, 3), dict(padding=3), float32),  # f32: the SIMT kernel, no chunks
        ((2, 9, 9, 3), (8, 7, 1, 3), dict(padding=(3, 0)), float16),  # one tap on the last axis
        ((2, 9, 9, 4), (8, 3, 3, 2), dict(padding=1, groups=2), float16),  # grouped
    ],
    ids=["c8", "3x3-c3", "f32", "1-tap", "grouped"],
)
def test_left_alone(rng, xs, ws, kw, dt):
    x, w = rand(rng, xs, dt), rand(rng, ws, dt)

    @tile_op(dtype=dt)
    def f(xv, wv):
        return tilec.conv(xv, wv, layout="channels_last", **kw)

    assert f.ir("tile", x, w, pipeline="tile-conv-unfold") == f.ir("tile", x, w)


def test_unfolded_channels_rule():
    """The columns rule: unfold where k x C rounded up to 8 is at most half of k x (C rounded up)."""
    assert unfolded_channels(3, 7) == 24  # 24 <= 28
    assert unfolded_channels(1, 5) == 8 and unfolded_channels(2, 3) == 8
    assert unfolded_channels(3, 3) is None  # 16 > 12
    assert unfolded_channels(8, 7) is None and unfolded_channels(16, 3) is None  # whole chunks
    assert unfolded_channels(3, 1) is None  # nothing to unfold
    assert unfolded_channels(1, 12) is None  # wider than MAX_TAPS


def test_unfold_gather_needs_no_index_check(rng):
    """x' is gathered with an index clamped into x's rows (min / max), which value_range proves in
    range: the kernels have no status word (nothing read back after a call), on CUDA and the CPU."""
    x, w = rand(rng, (2, 19, 21, 3), float16), rand(rng, (16, 7, 7, 3), float16)

    @tile_op(dtype=float16)
    def stem(xv, wv):
        return tilec.conv(xv, wv, stride=2, padding=3, layout="channels_last")

    cuda = stem.ir("mapped", x, w, target="cuda", sm="sm_90a")
    assert "mapped.kernel @stem_0_elementwise" in cuda and "status" not in cuda
    assert "status" not in stem.ir("mapped", x, w, pipeline="tile-conv-unfold")


def test_int_range():
    """value_range.int_range: iota arithmetic, min / max clamps, select, moves; None where unknown
    or where i32 arithmetic would wrap. A take by a provably in-range index has no check; one by
    an index that may leave the axis keeps it (and raises IndexOutOfRange)."""
    from tilec.conversion.tile_to_mapped.value_range import int_range
    from tilec.ir import make_context, parse_module

    text = """
    tile.func @f(%a: !tile.array<8xi32>) outs(%out: !tile.array<4x8xi32>) {
      %0 = tile.iota 0 : !tile.tile<4x8xi32>
      %1 = tile.iota 1 : !tile.tile<4x8xi32>
      %2 = tile.constant 6 : !tile.tile<4x8xi32>
      %3 = tile.mul %0, %2 : !tile.tile<4x8xi32>
      %4 = tile.add %3, %1 : !tile.tile<4x8xi32>
      %5 = tile.constant 9 : !tile.tile<4x8xi32>
      %6 = tile.sub %4, %5 : !tile.tile<4x8xi32>
      %7 = tile.constant 20 : !tile.tile<4x8xi32>
      %8 = tile.min %6, %7 : !tile.tile<4x8xi32>
      %9 = tile.constant 0 : !tile.tile<4x8xi32>
      %10 = tile.max %8, %9 : !tile.tile<4x8xi32>
      %11 = tile.load %a : !tile.array<8xi32> -> !tile.tile<8xi32>
      %12 = tile.broadcast %11 : !tile.tile<8xi32> to !tile.tile<4x8xi32>
      %13 = tile.add %12, %9 : !tile.tile<4x8xi32>
      %14 = tile.cmp lt %1, %2 : !tile.tile<4x8xi32>
      %15 = tile.select %14, %10, %2 : !tile.tile<4x8xi32>
      %16 = tile.constant 2000000000 : !tile.tile<4x8xi32>
      %17 = tile.add %16, %16 : !tile.tile<4x8xi32>
      tile.store %15, %out : !tile.tile<4x8xi32>, !tile.array<4x8xi32>
      tile.return
    }
    """
    ops = [op for op in parse_module(make_context(), text).walk() if op.results]
    ranges = [int_range(op.results[0]) for op in ops]
    # iota 0..3, iota 0..7, 6, 0..18, 0..25, 9, -9..16, 20, -9..16, 0, 0..16, load: None, None, ...
    assert ranges[:11] == [
        (0, 3),
        (0, 7),
        (6, 6),
        (0, 18),
        (0, 25),
        (9, 9),
        (-9, 16),
        (20, 20),
        (-9, 16),
        (0, 0),
        (0, 16),
    ]
    assert ranges[11] is None and ranges[12] is None and ranges[13] is None  # an array's values
    assert ranges[15] == (0, 16)  # select: both sides
    assert ranges[17] is None  # 4e9 wraps an i32


def test_take_keeps_its_check_unless_proven(rng):
    """A gather by clamped iota arithmetic runs unchecked and right; one by an array's indices
    keeps the check: an out-of-range index raises, compiled, as before."""
    src = rand(rng, (2, 30), float32)

    @tile_op(dtype=float32)
    def clamped(s):
        i = tilec.iota((5, 4), 0, dtype=tilec.int32) * 7 + tilec.iota((5, 4), 1, dtype=tilec.int32) - 3
        return tilec.take(s, tilec.maximum(tilec.minimum(i, 29), 0), axis=1)

    idx = np.clip(np.arange(5)[:, None] * 7 + np.arange(4)[None, :] - 3, 0, 29)
    assert "status" not in clamped.ir("mapped", src)
    np.testing.assert_array_equal(clamped(src), src[:, idx])

    @tile_op(dtype=float32)
    def by_array(s, i: tilec.int32):
        return tilec.take(s, i, axis=1)

    bad = np.array([1, 30], np.int32)
    assert "status" in by_array.ir("mapped", src, bad)
    with pytest.raises(tilec.IndexOutOfRange):
        by_array(src, bad)
