"""tile-conv-unfold: a convolution with few input channels, its last kernel axis unfolded into
the channels.

The tensor-core convolutions stage their input in 16-byte chunks, 8 channels of one pixel (16-bit
elements), so an input with C channels, C not a multiple of 8, is padded to the next multiple: the
3-channel 7x7 stem of a ResNet multiplies 49 x 8 = 392 columns per output pixel for 147 real ones,
and its producer issues one 16-byte copy per tap. Along the last spatial axis, the k taps of one
output position read k pixels of C channels each; gathered side by side they are k x C channels
of one "pixel" of an unfolded input

    x'[n, ..., q, (j, c)] = x_padded[n, ..., q * stride + j * dilation, c]    (q < the output width)

whose channels are padded once, to the multiple of 8 of k x C (7 x 3 = 21 -> 24 for the stem);
x' is one gather from x's rows flattened with their channels (`tile.take` by an iota index,
zeros where it falls in the padding: one load per element).
The convolution becomes one over x' with a kernel of width 1 along that axis (stride 1, no
padding) by the weight reshaped (O, ..., k, C) -> (O, ..., 1, k x C) (a view: channels-last keeps
(k, C) contiguous) and padded the same way: 7 x 24 = 168 columns instead of 392, whole 16-byte
chunks of real data. x' is the input unfolded along one axis only (for the stem 4x x's size,
written once by one copy kernel); convolutions with 8 channels or more are never unfolded.

A weight gradient of such a convolution (the `conv_nv_wgmma` pattern of conv_grad_pattern.py,
only with `weight-grad`) is rewritten the same way: the gradient of the unfolded convolution,
(O, ..., 1, k x C'), cut to k x C channels and reshaped to (O, ..., k, C).

Applies to channels-last convolutions of one group with 16-bit float operands, static shapes,
no lhs_dilation, non-negative padding on the last spatial axis, C % 8 != 0, a last kernel axis
of 2..MAX_TAPS taps, where the unfolded columns are at most GAIN of the padded ones.
"""

from __future__ import annotations

from xdsl.dialects.builtin import i1, i32
from xdsl.ir import Operation, SSAValue

from tilec.dialects import tile
from tilec.dialects.common import DYNAMIC, bitwidth, int_list, is_float
from tilec.passes.api import PatternPass, PatternRewriter, RewritePattern, op_type_rewrite_pattern, register_pass
from tilec.transforms.conv_grad_pattern import is_weight_grad_form, match_weight_grad

CHUNK_CHANNELS = 8
"""Channels per 16-byte chunk of a 16-bit input: the multiple the kernels pad channels to."""
GAIN = 0.5
"""Unfold only where the unfolded columns (k x C rounded up) are at most this share of the padded
ones (k x C rounded up per tap): the stem's 24 / 56 = 0.43 is; a 3x3 over 3 channels (16 / 24)
is not worth an input 5x larger."""
MAX_TAPS = 11
"""The widest last kernel axis unfolded (x' is k / stride times x's size in pixels)."""


def _round_up(v: int, m: int) -> int:
    return -(-v // m) * m


def unfolded_channels(c: int, k: int) -> int | None:
    """The channels of x' for `c` input channels and a last kernel axis of `k` taps, or None
    where unfolding does not pay (see GAIN)."""
    if c % CHUNK_CHANNELS == 0 or not 2 <= k <= MAX_TAPS:
        return None
    cp = _round_up(k * c, CHUNK_CHANNELS)
    return cp if cp <= GAIN * k * _round_up(c, CHUNK_CHANNELS) else None


def _sixteen_bit(*values: SSAValue) -> bool:
    return all(is_float(v.type.element_type) and bitwidth(v.type.element_type) == 16 for v in values)


class _Emitter:
    """Collects new ops (at `at`'s location) for one rewrite."""

    def __init__(self, at: Operation):
        self.at = at
        self.ops: list[Operation] = []

    def __call__(self, op: Operation) -> SSAValue:
        op.location = self.at.location
        self.ops.append(op)
        return op.results[0]


def _unfold(e: _Emitter, x: SSAValue, k: int, stride: int, dilation: int, lo: int, width: int, cp: int) -> SSAValue:
    """x' (N, ..., width, cp) of x (N, ..., W, C) (see the module docstring), as ONE gather from x
    flattened with its channels (a view: rows of W x C elements):

        x'[..., q, m] = row[i] with i = (q * stride + (m // C) * dilation - lo) * C + m % C

    (q * stride * C + m - lo * C with dilation 1: no division in the kernel), and 0 where i falls
    in the padding (outside the row) or m >= k x C (the channels padded to cp). The index is
    clamped into the row by min / max, which value_range proves in range: the gather has no index
    check and the call no status word to read back. One load per element and no padded copy of
    x: a concatenation of k strided slices of a padded x evaluates all k slices and un-flattens
    the padding at every element."""
    shape = list(x.type.get_shape())
    rank = len(shape)
    ax = rank - 2  # the last spatial axis
    elt = x.type.element_type
    w, c = shape[ax], shape[-1]
    flat = e(tile.ReshapeOp(x, tile.TileType([*shape[:ax], w * c], elt)))
    it = tile.TileType([width, cp], i32)

    def const(v: int) -> SSAValue:
        return e(tile.ConstantOp(v, it))

    q, m = e(tile.IotaOp(0, it)), e(tile.IotaOp(1, it))
    if dilation == 1:  # taps side by side: (q * stride + j - lo) * C + c = q * stride * C + m - lo * C
        index = e(tile.AddOp(e(tile.MulOp(q, const(stride * c))), m))
    else:
        tap = e(tile.FloorDivOp(m, const(c)))
        pos = e(tile.AddOp(e(tile.MulOp(q, const(stride))), e(tile.MulOp(tap, const(dilation)))))
        index = e(tile.AddOp(e(tile.MulOp(pos, const(c))), e(tile.ModOp(m, const(c)))))
    if lo:
        index = e(tile.SubOp(index, const(lo * c)))
    out_t = tile.TileType([*shape[:ax], width, cp], elt)
    real = []
    if cp != k * c:
        real.append(e(tile.CmpOp("lt", m, const(k * c))))
    if lo:
        real.append(e(tile.CmpOp("ge", index, const(0))))
    if (width - 1) * stride + (k - 1) * dilation + 1 > lo + w:  # taps past the row's end
        real.append(e(tile.CmpOp("lt", index, const(w * c))))
    # the index clamped into the row (min / max: provably in range, so the gather needs no index
    # check and the call no status word, value_range.py); values read there are masked to 0 below
    clamped = e(tile.MaxOp(e(tile.MinOp(index, const(w * c - 1))), const(0)))
    taken = e(tile.TakeOp(flat, clamped, ax, out_t))
    if not real:
        return taken
    inside = real[0]
    for r in real[1:]:  # (tile.and takes no i1 tiles: a and b = a ? b : false)
        inside = e(tile.SelectOp(inside, r, e(tile.ConstantOp(0, it.with_element(i1)))))
    mask = e(tile.BroadcastOp(inside, out_t.with_element(i1)))
    return e(tile.SelectOp(mask, taken, e(tile.ConstantOp(0.0, out_t))))


def _pad_channels(e: _Emitter, v: SSAValue, cp: int) -> SSAValue:
    shape = list(v.type.get_shape())
    if shape[-1] == cp:
        return v
    high = [0] * len(shape)
    high[-1] = cp - shape[-1]
    return e(tile.PadOp(v, [0] * len(shape), high, 0.0, tile.TileType([*shape[:-1], cp], v.type.element_type)))


def _with_last(values, last):
    return [*values[:-1], last]


class _Unfold(RewritePattern):
    def __init__(self, weight_grad: bool):
        self.weight_grad = weight_grad

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tile.ConvOp, rewriter: PatternRewriter) -> None:
        if op.layout.data != "channels_last" or op.groups.data != 1 or max(int_list(op.lhs_dilation)) != 1:
            return
        if DYNAMIC in (*op.lhs.type.get_shape(), *op.rhs.type.get_shape(), *op.result.type.get_shape()):
            return
        if not _sixteen_bit(op.lhs, op.rhs, op.result):
            return
        grad = match_weight_grad(op)
        if grad is not None and self.weight_grad:
            self._weight_grad(op, grad, rewriter)
        elif not is_weight_grad_form(op):  # (a weight gradient's channels are the batch)
            self._forward(op, rewriter)

    def _forward(self, op: tile.ConvOp, rewriter: PatternRewriter) -> None:
        xs, ws, ys = (list(v.type.get_shape()) for v in (op.lhs, op.rhs, op.result))
        k, c = ws[-2], xs[-1]
        pad = int_list(op.padding)
        lo, hi = pad[-2], pad[-1]
        cp = unfolded_channels(c, k)
        if cp is None or lo < 0 or hi < 0:
            return
        stride, dilation = int_list(op.stride), int_list(op.dilation)
        e = _Emitter(op)
        xu = _unfold(e, op.lhs, k, stride[-1], dilation[-1], lo, ys[-2], cp)
        wr = e(tile.ReshapeOp(op.rhs, tile.TileType([*ws[:-2], 1, k * c], op.rhs.type.element_type)))
        wu = _pad_channels(e, wr, cp)
        d = len(xs) - 2
        pads = [(pad[2 * i], pad[2 * i + 1]) for i in range(d)]
        conv = tile.ConvOp(
            xu,
            wu,
            _with_last(stride, 1),
            _with_last(pads, (0, 0)),
            _with_last(dilation, 1),
            [1] * d,
            1,
            "channels_last",
            op.acc,
            op.result.type,
        )
        y = e(conv)
        rewriter.replace(op, e.ops, [y])

    def _weight_grad(self, op: tile.ConvOp, m, rewriter: PatternRewriter) -> None:
        xs = list(m.x.type.get_shape())
        k, c = m.kernel[-1], xs[-1]
        cp = unfolded_channels(c, k)
        if cp is None or m.pad_lo[-1] < 0:
            return
        d = len(m.kernel)
        swap = (d + 1, *range(1, d + 1), 0)
        elt = m.x.type.element_type
        e = _Emitter(op)
        xu = _unfold(e, m.x, k, m.stride[-1], m.dilation[-1], m.pad_lo[-1], m.out[-1], cp)
        us = list(xu.type.get_shape())
        xt = e(tile.TransposeOp(xu, swap, tile.TileType([us[p] for p in swap], elt)))
        o = m.dy.type.get_shape()[-1]
        rt = tile.TileType([cp, *m.kernel[:-1], 1, o], op.result.type.element_type)
        pad = int_list(op.padding)
        pads = [(pad[2 * i], pad[2 * i + 1]) for i in range(d)]
        r = e(
            tile.ConvOp(
                xt,
                op.rhs,
                _with_last(int_list(op.stride), 1),
                _with_last(pads, (0, 0)),
                _with_last(int_list(op.dilation), 1),
                [1] * d,
                1,
                "channels_last",
                op.acc,
                rt,
            )
        )
        rs = r.type.get_shape()
        dw = e(tile.TransposeOp(r, swap, tile.TileType([rs[p] for p in swap], rt.element_type)))
        if cp != k * c:
            cut = [o, *m.kernel[:-1], 1, k * c]
            dw = e(tile.SliceOp(dw, [0] * (d + 2), [1] * (d + 2), tile.TileType(cut, rt.element_type)))
        out_t = m.output.type
        dw = e(tile.ReshapeOp(dw, tile.TileType(list(out_t.get_shape()), out_t.element_type)))
        transpose = m.output.owner
        rewriter.replace(transpose, e.ops, [dw])
        # the old convolution and x's transposes are dead (dy's chain is the new convolution's)
        dead = [op]
        cur = op.lhs
        while cur.owner in m.ops and cur.owner is not op:
            dead.append(cur.owner)
            cur = cur.owner.operands[0]
        for o_ in dead:
            if all(r_.uses.get_length() == 0 for r_ in o_.results):
                rewriter.erase(o_)


@register_pass
class TileConvUnfold(PatternPass):
    """A convolution with few input channels (not a multiple of 8, e.g. a 3-channel stem) as one
    over its input unfolded along the last spatial axis (see the module docstring)."""

    name = "tile-conv-unfold"

    weight_grad: bool = False
    """Also rewrite weight gradients (the pattern of conv_grad_pattern.py, which the wgmma kernel
    computes as one; other kernels read its transposes, whose channels are the batch)."""

    def patterns(self):
        return [_Unfold(self.weight_grad)]


__all__ = ["GAIN", "MAX_TAPS", "TileConvUnfold", "unfolded_channels"]
