"""Concrete shapes of a tile.func for given input shapes, checked like the interpreter checks them.

Compiled kernels trust their sizes: a kernel called with inconsistent dynamic sizes would read
out of bounds. `check_shapes` walks the tile IR with the actual sizes, verifies every constraint
an op imposes (equal operand shapes, contracted sizes, broadcasts, stores filling their output),
and returns the output shapes so the runtime can allocate them. Errors are `TilecError`s naming
the argument or the op's location.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, SSAValue

from tilec.diagnostics import IndexOutOfRange, TilecError, op_location
from tilec.dialects import tile
from tilec.dialects.common import DYNAMIC, int_list


def _fail(op: Operation, msg: str):
    return TilecError(msg, op_location(op))


def check_shapes(func: tile.FuncOp, inputs: Sequence[tuple[int, ...] | int | float]) -> list[tuple[int, ...]]:
    """`inputs`: a shape per array argument, the value per scalar argument (in order)."""
    shapes: dict[SSAValue, tuple[int, ...]] = {}
    ints: dict[SSAValue, int] = {}
    args = func.input_args
    for i, (arg, given) in enumerate(zip(args, inputs)):
        t = arg.type
        name = f"%{arg.name_hint}" if arg.name_hint else f"#{i}"
        if isinstance(t, tile.ArrayType):
            shape = tuple(given)  # type: ignore[arg-type]
            want = t.get_shape()
            if len(shape) != len(want):
                raise TilecError(
                    f"input {name} (argument {i}) must have rank {len(want)}, got shape {shape}", op_location(func)
                )
            for a, (g, w) in enumerate(zip(shape, want)):
                if w != DYNAMIC and g != w:
                    raise TilecError(
                        f"input {name} (argument {i}) must have size {w} on axis {a}, got {g}", op_location(func)
                    )
            shapes[arg] = shape
        else:
            ints[arg] = given  # type: ignore[assignment]
    out_shapes: dict[SSAValue, tuple[int, ...]] = {}
    _walk(func.body.block.ops, shapes, ints, out_shapes)
    result = []
    for i, arg in enumerate(func.output_args):
        if arg not in out_shapes:
            raise _fail(func, f"output #{i} is never stored")
        result.append(out_shapes[arg])
    return result


def _index(v: SSAValue, ints: dict[SSAValue, int]) -> int:
    if v in ints:
        return ints[v]
    op = v.owner
    if op.name == "arith.constant" and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    raise TilecError(
        f"cannot evaluate the index value {v.name_hint or ''} on the host",
        op_location(op) if isinstance(op, Operation) else None,
    )


def _dyn_fill(op: Operation, t: tile.TileType, sizes, ints) -> tuple[int, ...]:
    it = iter(_index(s, ints) for s in sizes)
    out = tuple(next(it) if d == DYNAMIC else d for d in t.get_shape())
    if any(d < 0 for d in out):
        raise _fail(op, f"{op.name.split('.')[-1]}: negative size in {out}")
    return out


def _walk(ops, shapes, ints, out_shapes) -> None:
    for op in ops:
        _eval(op, shapes, ints, out_shapes)


def _eval(op: Operation, shapes, ints, out_shapes) -> None:
    short = op.name.split(".")[-1]
    S = lambda v: shapes[v]  # noqa: E731
    if isinstance(op, tile.LoadOp):
        shapes[op.result] = S(op.source)
    elif isinstance(op, tile.StoreOp) and op.dest in shapes:  # an input updated in place
        if S(op.value) != S(op.dest):
            raise _fail(op, f"store: the tile has shape {S(op.value)} but the updated input has {S(op.dest)}")
    elif isinstance(op, tile.StoreOp):
        dest_shape = out_shapes.get(op.dest)
        want = op.dest.type.get_shape()
        got = S(op.value)
        for a, (w, g) in enumerate(zip(want, got)):
            if w != DYNAMIC and w != g:
                raise _fail(op, f"store: tile size {g} on axis {a} does not fit the output's {w}")
        if dest_shape is not None and dest_shape != got:
            raise _fail(op, f"store: output already holds shape {dest_shape}, got {got}")
        out_shapes[op.dest] = got
    elif isinstance(op, tile.DimOp):
        ints[op.result] = S(op.source)[op.axis.data]
    elif op.name == "arith.constant":
        if isinstance(op.value, IntegerAttr):
            ints[op.result] = op.value.value.data
    elif op.name in ("arith.addi", "arith.subi", "arith.muli", "arith.divui", "arith.ceildivui", "arith.remui"):
        a, b = (_index(v, ints) for v in op.operands)
        ints[op.results[0]] = {
            "arith.addi": lambda: a + b,
            "arith.subi": lambda: a - b,
            "arith.muli": lambda: a * b,
            "arith.divui": lambda: a // b,
            "arith.ceildivui": lambda: -(-a // b),
            "arith.remui": lambda: a % b,
        }[op.name]()
    elif isinstance(op, tile.ConstantOp | tile.IotaOp | tile.SplatOp | tile.RandomBitsOp):
        shapes[op.result] = _dyn_fill(op, op.result.type, op.sizes, ints)
    elif isinstance(op, tile.UnaryOp):
        shapes[op.result] = S(op.operand)
    elif isinstance(op, tile.BinaryOp | tile.CmpOp):
        a, b = S(op.operands[0]), S(op.operands[1])
        if a != b:
            raise _fail(op, f"{short}: operand shapes differ at run time: {a} vs {b}")
        shapes[op.results[0]] = a
    elif isinstance(op, tile.SelectOp):
        c, a, b = S(op.cond), S(op.true_value), S(op.false_value)
        if not (c == a == b):
            raise _fail(op, f"select: operand shapes differ at run time: {c}, {a}, {b}")
        shapes[op.result] = a
    elif isinstance(op, tile.CastOp | tile.BitcastOp):
        shapes[op.result] = S(op.source)
    elif isinstance(op, tile.BroadcastOp):
        src = S(op.source)
        res = _dyn_fill(op, op.result.type, op.sizes, ints)
        off = len(res) - len(src)
        for j, d in enumerate(src):
            if d != 1 and d != res[off + j]:
                raise _fail(op, f"broadcast: source axis {j} has size {d}, which is neither 1 nor {res[off + j]}")
        shapes[op.result] = res
    elif isinstance(op, tile.TransposeOp):
        src = S(op.source)
        shapes[op.result] = tuple(src[p] for p in int_list(op.permutation))
    elif isinstance(op, tile.ReshapeOp):
        src = S(op.source)
        res = _dyn_fill(op, op.result.type, op.sizes, ints)
        a = b = 1
        for d in src:
            a *= d
        for d in res:
            b *= d
        if a != b:
            raise _fail(op, f"reshape: {src} has {a} elements but {res} has {b}")
        shapes[op.result] = res
    elif isinstance(op, tile.SliceOp):
        src = S(op.source)
        res = op.result.type.get_shape()
        for a, (o, st, n, m) in enumerate(zip(int_list(op.offsets), int_list(op.strides), src, res)):
            if op.source.type.get_shape()[a] == DYNAMIC and m != DYNAMIC and m:
                first = o + n if o < 0 else o
                last = first + st * (m - 1)
                if not (0 <= first < n and 0 <= last < n):
                    raise _fail(
                        op,
                        f"slice: axis {a} has size {n}, but the slice reads indices {first}..{last} "
                        f"(offset {o}, stride {st}, {m} elements)",
                    )
        shapes[op.result] = tuple(s if d == DYNAMIC else d for s, d in zip(src, res))
    elif isinstance(op, tile.DynamicSliceOp):
        src, a = S(op.source), op.axis.data
        m = op.result.type.get_shape()[a]
        if src[a] < m:
            raise _fail(op, f"dynamic_slice: axis {a} has size {src[a]}, shorter than the window of {m}")
        shapes[op.result] = tuple(m if i == a else d for i, d in enumerate(src))
    elif isinstance(op, tile.PadOp):
        src = S(op.source)  # `?` axes are kept whole; static ones were verified
        shapes[op.result] = tuple(s if d == DYNAMIC else d for s, d in zip(src, op.result.type.get_shape()))
    elif isinstance(op, tile.ConcatOp):
        parts = [S(v) for v in op.inputs]
        a = op.axis.data
        for k, p in enumerate(parts[1:], 1):
            for i, (x, y) in enumerate(zip(p, parts[0])):
                if i != a and x != y:
                    raise _fail(op, f"concat: input {k} axis {i} has size {x} but input 0 has {y}")
        shapes[op.result] = tuple(s if d == DYNAMIC else d for s, d in zip(parts[0], op.result.type.get_shape()))
    elif isinstance(op, tile.TakeOp | tile.TakeAlongAxisOp | tile.ScatterAddOp):
        src, idx, a = S(op.source), S(op.indices), op.axis.data
        if isinstance(op, tile.TakeOp):
            shapes[op.result] = (*src[:a], *idx, *src[a + 1 :])
        else:
            upd = S(op.updates) if isinstance(op, tile.ScatterAddOp) else idx
            for i, (n, m, u) in enumerate(zip(src, idx, upd)):
                if (i != a and n != m) or m != u:
                    raise _fail(op, f"{short}: indices {idx} do not fit the source {src} (updates {upd}) on axis {i}")
            shapes[op.result] = src if isinstance(op, tile.ScatterAddOp) else idx
        if src[a] == 0 and all(idx):
            # compiled code clamps a bad index into the axis: an empty axis has no element to read
            raise IndexOutOfRange(f"{short}: axis {a} is empty, so every index is out of range", op_location(op))
    elif isinstance(op, tile.PoolOp):  # leading axes kept, pooled ones static (verified)
        src, res = S(op.source), op.result.type.get_shape()
        shapes[op.result] = tuple(s if d == DYNAMIC else d for s, d in zip(src, res))
        if op.indices is not None:
            shapes[op.indices] = shapes[op.result]
    elif isinstance(op, tile.ORDER_OPS):
        src, a = S(op.source), op.axis.data
        if isinstance(op, tile.TopkOp):
            if op.k.data > src[a]:
                raise _fail(op, f"topk: k = {op.k.data} is larger than axis {a}'s size {src[a]}")
            shapes[op.values] = shapes[op.indices] = tuple(op.k.data if i == a else d for i, d in enumerate(src))
        else:
            shapes[op.values] = shapes[op.indices] = src
    elif isinstance(op, tile.ReduceOp):
        src = S(op.source)
        axes = set(int_list(op.axes))
        if op.kind.data in tile.ARG_REDUCE_KINDS and any(src[a] == 0 for a in axes):
            raise _fail(op, f"{op.kind.data}: axis {min(axes)} is empty (size 0), so it has no {op.kind.data[3:]}imum")
        shapes[op.result] = tuple(d for i, d in enumerate(src) if i not in axes)
    elif isinstance(op, tile.ScanOp):
        shapes[op.result] = S(op.source)
    elif isinstance(op, tile.ContractOp):
        ls, rs = S(op.lhs), S(op.rhs)
        for kind, pairs in (("axis", op.axes), ("batch axis", op.batch)):
            for a, b in pairs:
                if ls[a] != rs[b]:
                    raise _fail(op, f"contract: lhs {kind} {a} has size {ls[a]} but rhs {kind} {b} has size {rs[b]}")
        used_l = {a for a, _ in op.axes} | {a for a, _ in op.batch}
        used_r = {b for _, b in op.axes} | {b for _, b in op.batch}
        shapes[op.result] = (
            tuple(ls[a] for a, _ in op.batch)
            + tuple(d for i, d in enumerate(ls) if i not in used_l)
            + tuple(d for i, d in enumerate(rs) if i not in used_r)
        )
    elif isinstance(op, tile.ConvOp):
        shapes[op.result] = tuple(op.result.type.get_shape())  # static (verified)
    elif isinstance(op, tile.FusedOp):
        body = op.body.block
        for arg, v in zip(body.args, op.inputs):
            if v in shapes:
                shapes[arg] = shapes[v]
            elif v in ints:
                ints[arg] = ints[v]
        inner_out: dict = {}
        _walk([o for o in body.ops if not isinstance(o, tile.YieldOp)], shapes, ints, inner_out)
        y = body.last_op
        assert isinstance(y, tile.YieldOp)
        for r, v in zip(op.outputs, y.values):
            shapes[r] = shapes[v]
    elif isinstance(op, tile.ReturnOp | tile.YieldOp):
        pass
    else:
        raise _fail(op, f"cannot evaluate the shapes of {op.name} on the host")


__all__ = ["check_shapes"]
