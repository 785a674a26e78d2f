"""Axis names of a primal `tile.func`: which `?` sizes are the same run-time size.

The backward is built with the DSL tracer, whose tiles name every dynamic axis. In the IR a `?`
says nothing about which other `?` it equals, so this analysis unifies them (a union-find over
axis keys): a load has its array's axes, elementwise operands share axes, a `sizes(...)` operand
names the axis it sizes (a `tile.dim` of an axis, or a scalar `index` argument), transposes
permute, reductions drop, contractions pair. Each class of dynamic axes gets one name and a
*provider*: a primal array argument and axis (the backward reads its `tile.dim`), else a primal
`index` value (recomputed in the backward).

Ops the analysis does not know (and that take no `sizes(...)`) have each dynamic result axis
unified with the same position of their first tile operand of the same rank when that is `?`
too (true of scans, sorts, pools and gathers over other axes); else the axis gets a name of its
own, provided by a `tile.dim` of the primal result.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects.builtin import IndexType
from xdsl.ir import BlockArgument, SSAValue

from tilec.dialects import tile
from tilec.dialects.common import DYNAMIC, int_list

Axis = int | str  # a static size, or the name of a class of dynamic sizes

ELEMENTWISE = (tile.UnaryOp, tile.BinaryOp, tile.CmpOp, tile.SelectOp, tile.CastOp, tile.BitcastOp)


@dataclass
class Provider:
    """Where the backward gets a dynamic size: `tile.dim` of (`value`, `axis`), or `value` itself
    when it is an `index`."""

    value: SSAValue
    axis: int | None = None


@dataclass
class AxisInfo:
    """The result of the analysis: axes per tile value and array argument, a provider per name."""

    axes: dict[SSAValue, tuple[Axis, ...]] = field(default_factory=dict)
    providers: dict[str, Provider] = field(default_factory=dict)


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}
        self.providers: dict[str, list[Provider]] = {}

    def add(self, key: str, provider: Provider) -> str:
        if key not in self.parent:
            self.parent[key] = key
            self.providers[key] = []
        self.providers[key].append(provider)
        return key

    def find(self, key: str) -> str:
        while self.parent[key] != key:
            self.parent[key] = self.parent[self.parent[key]]
            key = self.parent[key]
        return key

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra
            self.providers[ra] += self.providers.pop(rb)


def _arg_name(func: tile.FuncOp, i: int) -> str:
    arg = func.body.block.args[i]
    return arg.name_hint or f"arg{i}"


class _Analysis:
    def __init__(self, func: tile.FuncOp):
        self.func = func
        self.uf = _UnionFind()
        self.raw: dict[SSAValue, list[Axis]] = {}
        self.index_keys: dict[SSAValue, Axis] = {}
        self.fresh = 0

    def run(self) -> AxisInfo:
        block = self.func.body.block
        for i, arg in enumerate(block.args):
            if isinstance(arg.type, tile.ArrayType):
                name = _arg_name(self.func, i)
                self.raw[arg] = [
                    self.uf.add(f"{name}.shape[{k}]", Provider(arg, k)) if d == DYNAMIC else d
                    for k, d in enumerate(arg.type.get_shape())
                ]
            elif isinstance(arg.type, IndexType):
                self.index_keys[arg] = self.uf.add(_arg_name(self.func, i), Provider(arg))
        for op in block.ops:
            self.visit(op)
        info = AxisInfo()
        for v, axes in self.raw.items():
            info.axes[v] = tuple(a if isinstance(a, int) else self.uf.find(a) for a in axes)
        for key in {self.uf.find(k) for k in self.uf.parent}:
            provs = self.uf.providers[key]
            arrays = [p for p in provs if isinstance(p.value, BlockArgument) and p.axis is not None]
            info.providers[key] = (arrays or provs)[0]
        return info

    def new_key(self, provider: Provider) -> str:
        self.fresh += 1
        return self.uf.add(f"size{self.fresh}", provider)

    def unify(self, a: list[Axis], b: list[Axis]) -> None:
        for x, y in zip(a, b):
            if isinstance(x, str) and isinstance(y, str):
                self.uf.union(x, y)

    def size_key(self, v: SSAValue) -> Axis:
        key = self.index_keys.get(v)
        if key is None:
            key = self.index_keys[v] = self.new_key(Provider(v))
        return key

    def from_sizes(self, result: SSAValue, sizes) -> list[Axis]:
        it = iter(sizes)
        return [self.size_key(next(it)) if d == DYNAMIC else d for d in result.type.get_shape()]

    def visit(self, op) -> None:  # noqa: C901  (one case per op family)
        if isinstance(op, tile.DimOp):
            axis = self.raw[op.source][op.axis.data]
            if isinstance(axis, str):
                self.index_keys[op.result] = axis
            return
        if isinstance(op, tile.StoreOp):
            self.unify(self.raw[op.value], self.raw[op.dest])
            return
        tiles = [v for v in op.operands if isinstance(v.type, tile.TileType)]
        results = [r for r in op.results if isinstance(r.type, tile.TileType)]
        if not results:
            return
        if isinstance(op, tile.LoadOp):
            self.raw[op.result] = list(self.raw[op.source])
        elif isinstance(op, ELEMENTWISE):
            ops_axes = [self.raw[v] for v in tiles]
            for other in ops_axes[1:]:
                if len(other) == len(ops_axes[0]):
                    self.unify(ops_axes[0], other)
            shape = op.results[0].type.get_shape()
            base = next((a for a in ops_axes if len(a) == len(shape)), [])
            self.raw[op.results[0]] = list(base) if base else self.own_axes(op.results[0])
        elif isinstance(op, tile.TransposeOp):
            src = self.raw[op.source]
            self.raw[op.result] = [src[p] for p in int_list(op.permutation)]
        elif isinstance(op, tile.ReduceOp):
            axes = set(int_list(op.axes))
            self.raw[op.result] = [a for i, a in enumerate(self.raw[op.source]) if i not in axes]
        elif isinstance(op, tile.ContractOp):
            lhs, rhs = self.raw[op.lhs], self.raw[op.rhs]
            for a, b in [*op.axes, *op.batch]:
                self.unify([lhs[a]], [rhs[b]])
            used_l = {a for a, _ in op.axes} | {a for a, _ in op.batch}
            used_r = {b for _, b in op.axes} | {b for _, b in op.batch}
            out = [lhs[a] for a, _ in op.batch]
            out += [d for i, d in enumerate(lhs) if i not in used_l]
            out += [d for i, d in enumerate(rhs) if i not in used_r]
            self.raw[op.result] = out
        elif len(getattr(op, "sizes", ())) and len(results) == 1:
            out = self.from_sizes(results[0], op.sizes)
            if isinstance(op, tile.BroadcastOp):
                src = self.raw[op.source]
                off = len(out) - len(src)
                for i, a in enumerate(src):
                    if isinstance(a, str):
                        self.unify([a], [out[off + i]])
            self.raw[results[0]] = out
        else:
            for r in results:
                self.raw[r] = self.guess(r, tiles)

    def own_axes(self, r: SSAValue) -> list[Axis]:
        return [self.new_key(Provider(r, k)) if d == DYNAMIC else d for k, d in enumerate(r.type.get_shape())]

    def guess(self, r: SSAValue, tiles: list[SSAValue]) -> list[Axis]:
        shape = r.type.get_shape()
        same_rank = next((v for v in tiles if len(v.type.get_shape()) == len(shape)), None)
        out: list[Axis] = []
        for k, d in enumerate(shape):
            if d != DYNAMIC:
                out.append(d)
            elif same_rank is not None and isinstance(self.raw[same_rank][k], str):
                out.append(self.raw[same_rank][k])
            else:
                out.append(self.new_key(Provider(r, k)))
        return out


def analyze(func: tile.FuncOp) -> AxisInfo:
    """Axis names for every tile value and array argument of `func` (see the module docstring)."""
    return _Analysis(func).run()
