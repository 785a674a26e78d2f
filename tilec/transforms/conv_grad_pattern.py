"""A convolution's weight gradient written as a convolution of transposed operands, found by
use-def walks (issue 11).

`tilec.conv_backward_weight` (channels-last, one group) writes dw[o, k, c] = sum over (n, p) of
dy[n, p, o] x[n, p*stride + k*dilation - lo, c] as the convolution of x^T (C, *S, N) by
dy^T (O, *OS, N), the batch axis contracted as its channels, stride and dilation swapped,
followed by a transpose of its (C, *K, O) result to the weight's (O, *K, C):

    xt  = transpose(x, (d+1, 1..d, 0))        as reshapes / transposes (unit axes aside)
    dyt = transpose(dy, (d+1, 1..d, 0))
    r   = conv(xt, dyt, stride=dilation, dilation=stride, padding (lo, hi), channels_last)
    dw  = transpose(r, (d+1, 1..d, 0))

The same numbers are the GEMM dy^T [O, N x OS] x im2col(x) [N x OS, K x C]: dy read as it is
(a matrix stored K x M) and x through the forward convolution's window, which is how the
Hopper kernel computes it (`conv_nv_wgmma.lower_conv_weight_grad`): no transposed copies of x,
dy or dw. `tile-fuse` with `conv-weight-grad=true` makes each match one `conv_weight_grad`
group; anything that does not match (or whose intermediate values have other readers) keeps the
ordinary groups.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue

from tilec.dialects import tile
from tilec.dialects.common import DYNAMIC, int_list


@dataclass(frozen=True)
class WeightGradMatch:
    """One match: x (N, *S, C), dy (N, *OS, O) and the forward convolution's geometry (the
    window properties of mapped.async_copy_window), the ops from the transposes to `output`
    (the (O, *K, C) weight gradient)."""

    x: SSAValue
    dy: SSAValue
    conv: tile.ConvOp
    output: SSAValue
    ops: tuple[Operation, ...]
    kernel: tuple[int, ...]
    out: tuple[int, ...]
    stride: tuple[int, ...]
    dilation: tuple[int, ...]
    pad_lo: tuple[int, ...]

    def window(self) -> dict[str, tuple[int, ...]]:
        """The geometry properties of mapped.async_copy_window over x."""
        d = len(self.kernel)
        return {
            "out": self.out,
            "kernel": self.kernel,
            "stride": self.stride,
            "dilation": self.dilation,
            "lhs_dilation": (1,) * d,
            "pad_lo": self.pad_lo,
        }


def _shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    return tuple(t.get_shape()) if isinstance(t, tile.TileType) else ()


def _permuted_source(
    value: SSAValue, ops: list[Operation], single_use: bool = True
) -> tuple[SSAValue, list[int]] | None:
    """Walk up reshapes and transposes that only move axes or add / drop unit axes: (the source,
    for each non-unit axis of `value` in order, the source axis it is), with the ops walked
    appended to `ops`. `value` and every value between it and the source have one reader (the
    next op of the chain), so the chain can move into a group whole."""
    chain: list[Operation] = []
    cur = value
    while isinstance(cur.owner, tile.ReshapeOp | tile.TransposeOp) and (cur.uses.get_length() == 1 or not single_use):
        chain.append(cur.owner)
        cur = cur.owner.operands[0]
    if not chain:
        return None
    axes = [a for a, s in enumerate(_shape(cur)) if s != 1]  # the source axis of each non-unit axis
    for op in reversed(chain):
        in_shape = _shape(op.operands[0])
        if isinstance(op, tile.TransposeOp):
            at = dict(zip([a for a, s in enumerate(in_shape) if s != 1], axes))
            axes = [at[p] for p in int_list(op.permutation) if in_shape[p] != 1]
        elif [s for s in in_shape if s != 1] != [s for s in _shape(op.results[0]) if s != 1]:
            return None  # a reshape that merges or splits axes
    ops.extend(chain)
    return cur, axes


def _is_swap(value: SSAValue, want: tuple[int, ...], ops: list[Operation], single_use: bool = True) -> SSAValue | None:
    """The source x when `value` is transpose(x, want) up to unit axes, else None (`single_use`:
    through values of one reader only)."""
    found = _permuted_source(value, ops, single_use)
    if found is None:
        return None
    src, axes = found
    shape = _shape(src)
    if len(shape) != len(want) or DYNAMIC in shape or _shape(value) != tuple(shape[a] for a in want):
        return None
    return src if axes == [a for a in want if shape[a] != 1] else None


def match_weight_grad(conv: tile.ConvOp) -> WeightGradMatch | None:
    """The weight-gradient pattern around `conv`, or None. Applies to channels-last convolutions
    of one group, f16 / bf16 operands and result, f32 accumulation, static shapes, O a multiple
    of 8 (dy's rows are whole 16-byte chunks; x's C may be anything: the kernel pads it)."""
    if conv.layout.data != "channels_last" or conv.groups.data != 1:
        return None
    lt, rt, yt = conv.lhs.type, conv.rhs.type, conv.result.type
    elts = {str(t.element_type) for t in (lt, rt, yt)}
    if len(elts) != 1 or elts.pop() not in ("f16", "bf16") or str(conv.acc) != "f32":
        return None
    if any(v != 1 for v in int_list(conv.lhs_dilation)):
        return None
    d = len(lt.get_shape()) - 2
    swap = (d + 1, *range(1, d + 1), 0)
    ops: list[Operation] = []
    x = _is_swap(conv.lhs, swap, ops)
    dy = _is_swap(conv.rhs, swap, ops) if x is not None else None
    if x is None or dy is None or x is dy:
        return None
    if conv.result.uses.get_length() != 1:
        return None
    out = next(iter(conv.result.uses)).operation
    if not isinstance(out, tile.TransposeOp) or tuple(int_list(out.permutation)) != swap:
        return None
    xs, dys = _shape(x), _shape(dy)
    if DYNAMIC in (*xs, *dys) or xs[0] != dys[0] or dys[-1] % 8:
        return None
    pad = int_list(conv.padding)
    return WeightGradMatch(
        x=x,
        dy=dy,
        conv=conv,
        output=out.result,
        ops=(*ops, conv, out),
        kernel=tuple(_shape(conv.result)[1 : d + 1]),
        out=tuple(dys[1 : d + 1]),
        stride=tuple(int_list(conv.dilation)),
        dilation=tuple(int_list(conv.stride)),
        pad_lo=tuple(pad[2 * i] for i in range(d)),
    )


def is_weight_grad_form(conv: tile.ConvOp) -> bool:
    """True when both operands of `conv` are the channels-last weight gradient's transposes of x
    and dy (the form of `tilec.conv_backward_weight`, whatever its types, sizes and other readers of
    the transposes): its channels are the batch and its kernel dy's positions, so it is no forward
    convolution to rewrite."""
    if conv.layout.data != "channels_last":
        return False
    d = len(_shape(conv.lhs)) - 2
    swap = (d + 1, *range(1, d + 1), 0)
    return _is_swap(conv.lhs, swap, [], False) is not None and _is_swap(conv.rhs, swap, [], False) is not None


def weight_grad_matches(ops) -> list[WeightGradMatch]:
    """Every match in a tile.func body, in program order."""
    return [m for op in ops if isinstance(op, tile.ConvOp) and (m := match_weight_grad(op)) is not None]


__all__ = ["WeightGradMatch", "is_weight_grad_form", "match_weight_grad", "weight_grad_matches"]
