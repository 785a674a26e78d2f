"""`VjpContext`: what a VJP rule gets while the backward `tile.func` is built.

The backward is built by a build-mode DSL tracer, so rules are written with the DSL on `Tile`
proxies (like JAX rules): `return (tilec.where(x > 0, ct, 0.0),)`. Every op a rule emits is
located at the primal op's location (the user's source line), so the backward IR and its errors
point back at the forward program.

Methods a rule uses:

- `ctx.primal(v)` / `ctx.tile(v)`: the primal value `v` (an `SSAValue` of the primal func) as a
  `Tile` of the backward: read from a saved residual or recomputed, as the policy decides
  (tilec/autodiff/policy.py). Recomputation clones the primal ops (and, recursively, whatever
  they need) into the backward.
- `ctx.result(op, i=0)`: `ctx.primal(op.results[i])`.
- `ctx.value(v)`: the backward `SSAValue` for any primal value (tiles, `index` sizes, scalars):
  for operands a rule passes on to ops it builds by hand (e.g. a `sizes(...)` list).
- `ctx.zeros(like, dtype=None)`: zeros with the shape of `like` (a Tile or a primal SSAValue).
- `ctx.axes(v)`: the axis names of a primal value (ints, or names of dynamic sizes).
- `ctx.shape(v)`: the sizes of a primal value as DSL sizes (ints and `Dim`s), for
  `tilec.reshape`, `tilec.broadcast_to`, `tilec.full`.
- `ctx.wrap(value, like)`: a backward SSAValue as a Tile with the axes of the primal `like`.
- `ctx.needs(v)`: whether operand `v` takes a cotangent (a rule may skip the others' work).
- `ctx.tracer`: the tracer (for `tracer.emit(lambda: SomeOp(...))` when no DSL function fits).
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from xdsl.ir import BlockArgument, Operation, SSAValue

from tilec.autodiff.shapes import AxisInfo
from tilec.diagnostics import SourceLocation, TilecError, op_location
from tilec.dialects import tile
from tilec.dialects.common import is_float
from tilec.frontend import ops
from tilec.frontend.dtypes import DType, float32, from_ir
from tilec.frontend.tracer import Dim, Tile, Tracer


class AutodiffError(TilecError):
    """A program that cannot be differentiated as asked, located at the primal op (the user's line)."""


class BackwardTracer(Tracer):
    """A build-mode tracer whose ops are located at the primal op being differentiated, and whose
    dynamic sizes come from the primal program (through the context)."""

    def __init__(self, sizes: Callable[[str], SSAValue]):
        super().__init__("vjp", float32, float32, build=True)
        self.loc: SourceLocation | None = None
        self._sizes = sizes

    def emit(self, make, loc=None):
        return super().emit(make, loc if loc is not None else self.loc)

    def size_value(self, name: str) -> SSAValue:
        return self._sizes(name)


class VjpContext:
    """The primal program as seen from the backward being built (see the module docstring).

    `source(v)` (from the transformation) says where a primal value comes from in the backward:
    a backward SSAValue (an argument, a loaded residual) or None (recompute it)."""

    def __init__(
        self,
        func: tile.FuncOp,
        info: AxisInfo,
        source: Callable[[SSAValue], SSAValue | None],
        varied: Collection[SSAValue] = (),
    ):
        self.func = func
        self.varied = varied
        self.info = info
        self.tracer = BackwardTracer(self._size)
        self._source = source
        self._values: dict[SSAValue, SSAValue] = {}
        self._tiles: dict[SSAValue, Tile] = {}
        self._sizes: dict[str, SSAValue] = {}

    # -- values ----------------------------------------------------------------------------------

    def value(self, v: SSAValue) -> SSAValue:
        """The backward SSAValue of primal value `v` (read, loaded or recomputed)."""
        t = self._tiles.get(v)
        if t is not None:
            return t.value  # (a Tile's value may be rebuilt by the tracer: read it through the Tile)
        got = self._values.get(v)
        if got is not None:
            return got
        got = self._source(v)
        if got is None:
            if isinstance(v, BlockArgument):
                raise AssertionError(f"internal: primal argument {v} has no backward value")
            got = self._recompute(v)
        self._values[v] = got
        return got

    def _recompute(self, v: SSAValue) -> SSAValue:
        op = v.owner
        assert isinstance(op, Operation)
        mapping = {o: self.value(o) for o in op.operands}
        clone = op.clone(value_mapper=mapping)
        self.tracer.emit(lambda: clone, op_location(op))
        for old, new in zip(op.results, clone.results):
            self._values[old] = new
        return self._values[v]

    def needs(self, v: SSAValue) -> bool:
        """Whether operand `v` takes a cotangent (it depends on a wrt input and holds floats): a
        rule may skip the work for operands that do not."""
        t = v.type
        return v in self.varied and isinstance(t, tile.TileType) and is_float(t.element_type)

    def primal(self, v: SSAValue) -> Tile:
        """The primal tile value `v` as a Tile of the backward (saved or recomputed)."""
        t = self._tiles.get(v)
        if t is None:
            if not isinstance(v.type, tile.TileType):
                raise TypeError(f"ctx.primal takes a tile value, got one of type {v.type}")
            t = Tile(self.tracer, self.axes(v), from_ir(v.type.element_type), self.value(v))
            self._tiles[v] = t
        return t

    tile = primal

    def result(self, op: Operation, i: int = 0) -> Tile:
        """The primal result `i` of `op`."""
        return self.primal(op.results[i])

    # -- shapes ----------------------------------------------------------------------------------

    def axes(self, v: SSAValue) -> tuple:
        return self.info.axes[v]

    def shape(self, v: SSAValue) -> tuple:
        return tuple(a if isinstance(a, int) else Dim(self.tracer, a) for a in self.axes(v))

    def wrap(self, value: SSAValue, like: SSAValue) -> Tile:
        """`value` (a backward tile of `like`'s type) as a Tile with `like`'s axes."""
        return Tile(self.tracer, self.axes(like), from_ir(value.type.element_type), value)

    def zeros(self, like: Tile | SSAValue, dtype: DType | None = None) -> Tile:
        if isinstance(like, Tile):
            return ops.zeros(like.shape, dtype or like.dtype)
        return ops.zeros(self.shape(like), dtype or from_ir(like.type.element_type))

    def _size(self, name: str) -> SSAValue:
        got = self._sizes.get(name)
        if got is None:
            p = self.info.providers[name]
            src = self.value(p.value)
            got = src if p.axis is None else self.tracer.emit(lambda: tile.DimOp(src, p.axis)).results[0]
            self._sizes[name] = got
        return got
