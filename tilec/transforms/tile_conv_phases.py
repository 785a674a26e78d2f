"""tile-conv-phases: a convolution of a stride-dilated input, by phases of the stride.

`tilec.conv_transpose` and `tilec.conv_backward_input` of a strided convolution are one `tile.conv`
whose input is dilated by the stride (`lhs_dilation` s: s - 1 zeros between its elements), so
(s-1)/s of its products per axis are with zeros (3/4 for a 3x3 stride-2 input gradient). Output
position i = s*q + r (per spatial axis) only meets the taps k = k0 + j*s with k0 = (lo - r) mod s,
over input elements q + t0 + j, t0 = (r + k0 - lo) / s. So each phase r of the stride is a
stride-1 convolution of the input (not dilated) by the taps `w[k0::s]` (a `tile.slice`), padded by
-t0 below, of ceil(out / s) positions; a phase no tap reaches is zeros. The phases are
interleaved (each stacked after its axis with a unit reshape and a `tile.concat`, then merged
with it by a reshape) and cut to the output's size: tile-fuse makes that chain one copy kernel
(`stored_move` where it is only stored). For a 3x3 stride-2 input gradient: 1x1, 1x2, 2x1 and 2x2
convolutions, 9 taps where the dilated form multiplies 36.

Applies to convolutions with lhs_dilation > 1 on some axis, stride and dilation 1 (the
transposed forms), static shapes, and, with `max-channels` n > 0, at most n output channels
per group. Which convolutions gain is the target's call: on the CPU all of them (one thread, a
3x3/2 ResNet input gradient 1.6-3.1x faster); on the H200 the 3-channel stem's input gradient
3.4x, but 128-512-channel 3x3/2 ones lost (more kernels, short-K GEMMs), so the GPU backends
pass `max-channels` (BENCHMARKS.md, eleventh session).
"""

from __future__ import annotations

import itertools

from xdsl.ir import SSAValue

from tilec.dialects import tile
from tilec.dialects.common import DYNAMIC, int_list
from tilec.passes.api import PatternPass, PatternRewriter, RewritePattern, op_type_rewrite_pattern, register_pass


class _ByPhases(RewritePattern):
    def __init__(self, max_channels: int):
        self.max_channels = max_channels

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tile.ConvOp, rewriter: PatternRewriter) -> None:
        ld = int_list(op.lhs_dilation)
        if max(ld) == 1 or any(v != 1 for v in (*int_list(op.stride), *int_list(op.dilation))):
            return
        xt, wt, yt = op.lhs.type, op.rhs.type, op.result.type
        if DYNAMIC in (*xt.get_shape(), *wt.get_shape(), *yt.get_shape()):
            return
        last = op.layout.data == "channels_last"
        groups = op.groups.data
        ys = list(yt.get_shape())
        d = len(ys) - 2
        sp0 = 1 if last else 2  # the first spatial axis
        channels = ys[-1] if last else ys[1]
        if self.max_channels and channels // groups > self.max_channels:
            return
        xs = xt.get_shape()[sp0 : sp0 + d]
        ks = wt.get_shape()[sp0 : sp0 + d]
        out = ys[sp0 : sp0 + d]
        pad = int_list(op.padding)
        los = [pad[2 * i] for i in range(d)]
        qs = [-(-out[i] // ld[i]) for i in range(d)]
        elt = yt.element_type
        new: list = []

        def emit(o):
            o.location = op.location
            new.append(o)
            return o.results[0]

        def with_spatial(shape, sizes):
            shape = list(shape)
            shape[sp0 : sp0 + d] = sizes
            return shape

        phases: dict[tuple[int, ...], SSAValue] = {}
        for r in itertools.product(*(range(s) for s in ld)):
            taps, pads = [], []
            for i in range(d):
                k0 = (los[i] - r[i]) % ld[i]
                j = len(range(k0, ks[i], ld[i]))
                t0 = (r[i] + k0 - los[i]) // ld[i]
                taps.append((k0, j))
                pads.append((-t0, qs[i] - xs[i] + t0 + j - 1))
            shape = with_spatial(ys, qs)
            if any(j == 0 for _, j in taps):  # no tap lands on this phase: its positions are zeros
                phases[r] = emit(tile.ConstantOp(0, tile.TileType(shape, elt)))
                continue
            sub = op.rhs
            if any(j != k for (_, j), k in zip(taps, ks)):  # (every tap: a 1-tap axis)
                offsets = with_spatial([0] * (d + 2), [k0 for k0, _ in taps])
                strides = with_spatial([1] * (d + 2), ld)
                sub_t = tile.TileType(with_spatial(wt.get_shape(), [j for _, j in taps]), wt.element_type)
                sub = emit(tile.SliceOp(op.rhs, offsets, strides, sub_t))
            conv = tile.ConvOp(
                op.lhs, sub, [1] * d, pads, [1] * d, [1] * d, groups, op.layout.data, op.acc, tile.TileType(shape, elt)
            )
            phases[r] = emit(conv)
        for i in reversed(range(d)):  # interleave along axis i: stack the phases r_i after it, merge
            s = ld[i]
            if s == 1:
                continue
            ax = sp0 + i
            merged: dict[tuple[int, ...], SSAValue] = {}
            for r in phases:
                if r[i]:
                    continue
                parts = [phases[(*r[:i], ri, *r[i + 1 :])] for ri in range(s)]
                shape = list(parts[0].type.get_shape())
                unit = tile.TileType([*shape[: ax + 1], 1, *shape[ax + 1 :]], elt)
                grown = [emit(tile.ReshapeOp(p, unit)) for p in parts]
                stacked = emit(
                    tile.ConcatOp(grown, ax + 1, tile.TileType([*shape[: ax + 1], s, *shape[ax + 1 :]], elt))
                )
                shape[ax] *= s
                merged[r] = emit(tile.ReshapeOp(stacked, tile.TileType(shape, elt)))
            phases = merged
        (result,) = phases.values()
        if list(result.type.get_shape()) != ys:
            result = emit(tile.SliceOp(result, [0] * (d + 2), [1] * (d + 2), yt))
        rewriter.replace(op, new, [result])


@register_pass
class TileConvPhases(PatternPass):
    """A convolution of a stride-dilated input (conv_transpose, a strided input gradient) as one
    stride-1 convolution per phase of the stride, interleaved (see the module docstring)."""

    name = "tile-conv-phases"

    max_channels: int = 0
    """Rewrite only convolutions with at most this many output channels per group (0: all)."""

    def patterns(self):
        return [_ByPhases(self.max_channels)]


__all__ = ["TileConvPhases"]
