"""Elementwise groups that read an input across its contiguous axis (a transpose) -> a GPU
kernel that goes through shared memory (tile-to-mapped knob `transpose-tile`).

The plain elementwise kernel gives consecutive threads consecutive elements of the output's last
axis: its stores are coalesced, but an input whose contiguous (last non-unit) memory axis follows
another output axis `a` is then read with a stride, one 32-byte sector per element (a weight
gradient's (N, H, W, C) -> (C, H, W, N) transposes ran at about a sixteenth of the bandwidth).
Here a block owns a T x T tile of the output's (a, last) plane at one index of the other axes:

1. consecutive threads walk axis `a` (the input's contiguous axis): each computes the group's
   outputs at its elements (every load of the transposed input coalesced) into shared memory,
   a [T, T + pad] array per output in its storage type (the padding, 4 bytes, keeps the walk
   along `a` free of bank conflicts);
2. a barrier; consecutive threads walk the last axis and store the tile from shared memory
   (coalesced stores).

Which axis is `a` is a performance choice only: any axis gives the same values (every element is
computed by the same loop nest as in the plain kernel). It comes from following each input's
axes through the group's elementwise ops, broadcasts, transposes and unit-axis reshapes
(`leaf_axes`); a group where no input is read across its contiguous axis keeps the plain kernel.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import SSAValue

from tilec.conversion.builder import storage_type
from tilec.conversion.tile_to_mapped.gpu_kernelgen import GpuKernelGen
from tilec.conversion.tile_to_mapped.group_info import tile_shape, yielded
from tilec.conversion.tile_to_mapped.options import GpuMapping
from tilec.dialects import mapped, tile
from tilec.dialects.common import DYNAMIC, bitwidth, int_list

TRANSPOSE_ATTR = "tilec.transpose_axis"
"""On a kernel lowered here: the domain axis its threads walk while reading (step 1)."""
STAGED_BYTES = 48 * 1024
"""The most static shared memory the staged tiles of a group's outputs may take (the limit a
kernel has without opting in to more); a group needing more keeps the plain kernel."""
TRANSPOSE_MIN_ELEMENTS = 4096
"""Smaller groups keep the plain kernel (one block either way; the barrier would not pay)."""


def _aligned(src: tuple, res: tuple, m: list) -> list:
    """Axes of an operand of shape `src` broadcast (trailing-aligned) to a result of shape `res`
    whose axes follow domain axes `m`: a broadcast unit axis follows none."""
    off = len(res) - len(src)
    return [m[off + j] if d == res[off + j] else None for j, d in enumerate(src)]


def _operands(op) -> list[SSAValue]:
    if isinstance(op, (tile.UnaryOp, tile.BinaryOp, tile.CmpOp, tile.SelectOp, tile.CastOp, tile.BroadcastOp)):
        return list(op.operands)
    return []


def leaf_axes(fused: tile.FusedOp, shape: tuple) -> dict[int, list[int | None]]:
    """For each input (block argument index) of the group reached from its domain-shaped
    outputs through elementwise ops, broadcasts, transposes and reshapes that only add or drop
    unit axes: the domain axis each of its axes follows (None: broadcast, or not followed)."""
    maps: dict[SSAValue, list] = {v: list(range(len(shape))) for v in yielded(fused) if tile_shape(v) == shape}
    for op in reversed(list(fused.body.block.ops)):
        if len(op.results) != 1 or op.results[0] not in maps:
            continue
        m, res = maps[op.results[0]], tuple(tile_shape(op.results[0]))
        if isinstance(op, tile.TransposeOp):
            src = [None] * len(m)
            for i, p in enumerate(int_list(op.permutation)):
                src[p] = m[i]
            maps.setdefault(op.source, src)
        elif isinstance(op, tile.ReshapeOp):
            ss = tuple(tile_shape(op.source))
            kept_s = [j for j, d in enumerate(ss) if d != 1]
            kept_r = [j for j, d in enumerate(res) if d != 1]
            if [ss[j] for j in kept_s] == [res[j] for j in kept_r]:
                src = [None] * len(ss)
                for js, jr in zip(kept_s, kept_r):
                    src[js] = m[jr]
                maps.setdefault(op.source, src)
        else:
            for v in _operands(op):
                if isinstance(v.type, tile.TileType):
                    maps.setdefault(v, _aligned(tuple(tile_shape(v)), res, m))
    return {a.index: maps[a] for a in fused.body.block.args if a in maps}


def _pad(st) -> int:
    """Elements of padding per staged row: 4 bytes (a walk along `a` hits 32 distinct banks)."""
    return max(1, 4 // max(1, bitwidth(st) // 8))


def _staged_bytes(outs, t: int) -> int:
    total = 0
    for v in outs:
        st = storage_type(v.type.element_type)
        total += t * (t + _pad(st)) * max(1, bitwidth(st) // 8)
    return total


def transposed_axis(g: GpuKernelGen, fused: tile.FusedOp, options: GpuMapping) -> int | None:
    """The domain axis (not the last) that an input's contiguous memory axis follows while the
    input also varies along the domain's last axis, or None (the plain elementwise kernel)."""
    outs = yielded(fused)
    shape = tuple(tile_shape(outs[0])) if outs else ()
    n = len(shape)
    if options.transpose_tile == 0 or n < 2 or DYNAMIC in shape or any(tuple(tile_shape(v)) != shape for v in outs):
        return None
    total = 1
    for d in shape:
        total *= d
    if total < TRANSPOSE_MIN_ELEMENTS or shape[-1] == 1 or _staged_bytes(outs, options.transpose_tile) > STAGED_BYTES:
        return None
    for i, axes in leaf_axes(fused, shape).items():
        if n - 1 not in axes:  # broadcast along the last axis: every thread of a warp reads one address
            continue
        view = g.view(i)
        bshape = view.buf_type.get_shape()
        inner = [b for b, d in enumerate(bshape) if d != 1 and view.index_map[b] is not None]
        if not inner:
            continue
        a = axes[view.index_map[inner[-1]]]
        if a is not None and a != n - 1 and shape[a] > 1:
            return a
    return None


def lower_transposed(g: GpuKernelGen, fused: tile.FusedOp, outputs, a: int, options: GpuMapping) -> None:
    """The kernel of the module docstring: tiles of T x T elements of the (a, last) plane."""
    shape = tuple(tile_shape(outputs[0][0]))
    n = len(shape)
    t = options.transpose_tile
    threads = options.threads
    g.block_threads = threads
    rows_per_pass = max(1, threads // t)
    passes = -(-t // rows_per_pass)
    others = [ax for ax in range(n) if ax not in (a, n - 1)]
    tiles_a, tiles_l = -(-shape[a] // t), -(-shape[-1] // t)
    count = tiles_a * tiles_l
    for ax in others:
        count *= shape[ax]
    g.set_grid([count], [1], [1])
    staged = []
    for v, _ in outputs:
        st = storage_type(v.type.element_type)
        staged.append(g.emit(mapped.AllocOp(mapped.BufType([t, t + _pad(st)], st, "shared")), g.top).results[0])
    bid = g.ev(mapped.BlockIdOp("x"))
    tid = g.ev(mapped.ThreadIdOp("x"))
    # block -> (other axes..., tile along a, tile along the last axis), the last fastest
    parts = g.delinearize(bid, [g.index(shape[ax]) for ax in others] + [g.index(tiles_a), g.index(tiles_l)])
    fixed = dict(zip(others, parts[: len(others)]))
    a0 = g.ev(arith.MuliOp(parts[-2], g.index(t)))
    l0 = g.ev(arith.MuliOp(parts[-1], g.index(t)))
    fast = g.ev(arith.RemUIOp(tid, g.index(t)))
    slow = g.ev(arith.DivUIOp(tid, g.index(t)))

    def walk(along_a: bool, body) -> None:
        """Each thread's elements of the tile: `fast` along a (step 1) or along the last axis
        (step 2), `slow` plus multiples of threads / T along the other; each element guarded."""
        for p in range(passes):
            s = slow if p == 0 else g.ev(arith.AddiOp(slow, g.index(p * rows_per_pass)))
            ia, il = (fast, s) if along_a else (s, fast)
            ga = g.ev(arith.AddiOp(a0, ia))
            gl = g.ev(arith.AddiOp(l0, il))
            inside = g.ev(arith.CmpiOp(s, g.index(t), "ult"))
            inside = g.ev(arith.AndIOp(inside, g.ev(arith.CmpiOp(ga, g.index(shape[a]), "ult"))))
            inside = g.ev(arith.AndIOp(inside, g.ev(arith.CmpiOp(gl, g.index(shape[-1]), "ult"))))
            iff, scope = g.open_if(g.top, inside)
            idx = [fixed[ax] if ax in fixed else None for ax in range(n)]
            idx[a], idx[-1] = g.move_to(ga, scope), g.move_to(gl, scope)
            idx = [g.move_to(v, scope) for v in idx]
            body(scope, idx, g.move_to(ia, scope), g.move_to(il, scope))
            g.close_if(g.top, iff)

    def compute(scope, idx, ia, il) -> None:
        for (v, _), s in zip(outputs, staged):
            g.emit(mapped.StoreOp(g.to_storage(g.value_at(v, idx), v.type.element_type), s, [ia, il]), scope)

    def store(scope, idx, ia, il) -> None:
        for (_, buf), s in zip(outputs, staged):
            g.emit(mapped.StoreOp(g.emit(mapped.LoadOp(s, [ia, il]), scope).results[0], buf, idx), scope)

    walk(True, compute)
    g.emit(mapped.BarrierOp(), g.top)
    walk(False, store)
    g.attrs[TRANSPOSE_ATTR] = IntegerAttr(a, i64)


__all__ = [
    "STAGED_BYTES",
    "TRANSPOSE_ATTR",
    "TRANSPOSE_MIN_ELEMENTS",
    "leaf_axes",
    "lower_transposed",
    "transposed_axis",
]
