"""The tracer: runs a tile program on proxy values (`Tile`) and records `tile` dialect ops.

A program is traced in one of two modes:

- build mode (`Tracer(build=True)`): every axis has a size, an `int` (static) or a `str` (a
  dynamic size named in `dims`, `?` in the IR); each DSL operation appends verified ops, located
  at the user's line, to one block. Dynamic sizes that an op needs as `sizes(...)` operands come
  from `tile.dim` of the first argument axis that carries that name.
- symbolic mode (`build=False`): every argument axis is a fresh symbol and operations only unify
  symbols (a union-find: contraction pairs, broadcasting, elementwise operands). This finds which
  argument axes are the same iteration axis, so that `dims` can be matched to them. Axes made by
  the program itself (keepdims' 1s, integer sizes given to reshape/broadcast_to) carry a constant.

Broadcasting follows numpy: trailing axes align and an axis broadcasts when its size is the
static 1. In symbolic mode only program constants are 1; argument axes never broadcast implicitly.
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable, Sequence
from contextlib import contextmanager

import numpy as np
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from tilec.diagnostics import IndexOutOfRange, SourceLocation, TilecError
from tilec.dialects.common import DYNAMIC, OpVerifyError
from tilec.dialects.tile import (
    ArrayType,
    BinaryOp,
    BitcastOp,
    BroadcastOp,
    CastOp,
    CmpOp,
    ConstantOp,
    DimOp,
    LoadOp,
    ReturnOp,
    SelectOp,
    SplatOp,
    StoreOp,
    TileType,
    UnaryOp,
)
from tilec.frontend.dtypes import DType, ScalarType, float32, float64, from_ir, int64
from tilec.frontend.errors import TileError, location_attr, user_error, user_location

Axis = object  # build mode: int | str; symbolic mode: Sym

_local = threading.local()


def _stack() -> list[Tracer]:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def current_tracer() -> Tracer | None:
    """The tracer running in this thread, if any."""
    stack = _stack()
    return stack[-1] if stack else None


class SizeUnknown(TileError):
    """A program asked for a Python int of a size that is not known yet (no shapes were given)."""


# --- symbolic axes ------------------------------------------------------------------------------


class Sym:
    """A union-find node: one axis identity. The root holds what is known about the class."""

    __slots__ = ("parent", "const", "provisional", "arg_axes", "order")

    def __init__(self, order: int, const: int | None = None, provisional: int | None = None, arg_axes=()):
        self.parent: Sym | None = None
        self.const = const
        self.provisional = provisional
        self.arg_axes: list[tuple[int, int]] = list(arg_axes)
        self.order = order

    def root(self) -> Sym:
        r = self
        while r.parent is not None:
            r = r.parent
        s = self
        while s.parent is not None and s.parent is not r:
            s.parent, s = r, s.parent
        return r


# --- sizes as seen by user code -----------------------------------------------------------------


class Dim:
    """The size of one axis (an entry of `x.shape`), usable where a size is expected
    (`tilec.reshape`, `tilec.broadcast_to`). It behaves as a Python int when the size is static.
    A dynamic size (named in `dims`) has no Python value while tracing, but it is a run-time
    value in tile arithmetic: `x / x.shape[-1]` and `1.0 / x.shape[-1]` give tiles (a rank-0 tile
    that takes the other operand's dtype, as a number does)."""

    __slots__ = ("_tracer", "_axis")

    def __init__(self, tracer: Tracer, axis: Axis):
        self._tracer = tracer
        self._axis = axis

    def __int__(self) -> int:
        return self._tracer.axis_int(self._axis)

    __index__ = __int__

    @property
    def name(self) -> str | None:
        """The dims name of a dynamic size, else None."""
        return self._axis if isinstance(self._axis, str) else None

    def __eq__(self, other):
        if isinstance(other, Dim):
            if other._tracer is self._tracer and self._tracer.axes_equal(self._axis, other._axis):
                return True
            return int(self) == int(other)
        if isinstance(other, int | np.integer):
            return int(self) == int(other)
        return NotImplemented

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self) -> int:
        return hash(int(self))

    def __repr__(self) -> str:
        return self._tracer.describe(self._axis)

    def __bool__(self) -> bool:
        return int(self) != 0

    def __float__(self) -> float:
        return float(int(self))

    def __neg__(self):
        return 0 - self

    def __pos__(self):
        return self

    def __abs__(self):
        return self  # a size is never negative

    def __round__(self, ndigits=None):
        return int(self)

    __trunc__ = __floor__ = __ceil__ = __round__

    def static(self) -> int | None:
        """The size as an int when this trace knows it (static, or a provisional size while
        matching dims), else None (a dynamic size: a run-time value)."""
        tr, ax = self._tracer, self._axis
        if tr.build:
            return ax if isinstance(ax, int) else None
        r = ax.root()
        return r.const if r.const is not None else r.provisional

    def as_tile(self, dtype: DType) -> Tile:
        """A dynamic size as a rank-0 tile of `dtype` holding its run-time value (a `tile.splat`
        of its `tile.dim`); it takes the dtype of what it is combined with, as a number does."""
        tr = self._tracer
        if not tr.active:
            raise user_error(
                "this size comes from a trace that has finished; sizes exist only while their op is traced"
            )
        if dtype.is_bool:
            raise user_error("a size cannot be combined with a bool (mask) tile")
        if not tr.build:
            return Tile(tr, (), dtype, None, weak=True)
        v = tr.size_value(self._axis)
        t = tr.emit(lambda: SplatOp(v, TileType([], dtype.ir))).results[0]
        return Tile(tr, (), dtype, t, weak=True)


_TILE_KINDS = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "div"}


def _int_op(name: str, reflected: bool = False):
    """Size arithmetic. Static sizes are Python ints: with ints the result is an int, with floats
    a float (`1.0 / x.shape[-1]`). A dynamic size in `+ - * /` (with a number or a tile) is its
    run-time value: the result is a tile. Other uses of a dynamic size (comparisons, `//`, `%`,
    `**`), and operands that are not numbers, sizes or tiles, raise a TileError at the user's line."""
    op = getattr(operator, name)

    def method(self, other):
        if isinstance(other, Tile):
            if name not in _TILE_KINDS:
                sym = {"floordiv": "//", "mod": "%", "pow": "**", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
                raise user_error(
                    f"a size (x.shape[i]) {sym.get(name, name)} a tile is not supported; "
                    f"use + - * / (the size becomes a run-time value of the tile's dtype)"
                )
            a, b = (other, self) if reflected else (self, other)
            return _ops.binary(_TILE_KINDS[name], a, b)
        if isinstance(other, bool) or not isinstance(other, int | float | np.integer | np.floating | Dim):
            raise user_error(
                f"a size (x.shape[i]) can be combined with ints, floats, other sizes and tiles, got {type(other).__name__}"
            )
        mine = self.static()
        theirs = other.static() if isinstance(other, Dim) else other
        if mine is not None and theirs is not None:
            return op(theirs, mine) if reflected else op(mine, theirs)
        if name not in _TILE_KINDS:
            int(self) if mine is None else int(other)  # raises: the size is dynamic (located, with a hint)
        # a run-time value: float for `/` and with floats (as Python's int / int), else int64
        dt = float64 if name == "truediv" or isinstance(theirs, float | np.floating) else int64
        a = self.as_tile(dt) if mine is None else mine
        b = other.as_tile(dt) if theirs is None else theirs
        if reflected:
            a, b = b, a
        return _ops.binary(_TILE_KINDS[name], a, b)

    return method


for _n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lt", "le", "gt", "ge"):
    setattr(Dim, f"__{_n}__", _int_op(_n))
for _n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow"):
    setattr(Dim, f"__r{_n}__", _int_op(_n, reflected=True))


# --- the tracer ---------------------------------------------------------------------------------


def _clean_verify_message(op: Operation, e: Exception) -> str:
    message = str(e.args[0]) if e.args else str(e)
    message = message.removeprefix("Operation does not verify: ").split("\n\n")[0].strip()
    if not isinstance(e, OpVerifyError):
        message = f"{op.name}: {message}" if op is not None else message
    return message


class Tracer:
    """One trace of one tile program (see the module docstring for the two modes)."""

    def __init__(self, op_name: str, dtype: DType, acc: DType, build: bool):
        self.op_name = op_name
        self.dtype = dtype
        self.acc = acc
        self.build = build
        self.eager = None  # a StepInterpreter when tracing runs the program too (TILEC_INTERPRET=1)
        self.active = False
        self._order = 0
        self.updates: dict[int, tuple[Tile, SourceLocation | None]] = {}  # argument -> its tile, where updated
        self.list_body = False  # tracing one element of an op over lists: elementwise ops only
        self._stale: dict[SSAValue, tuple[str, SourceLocation | None]] = {}  # views of values updated since
        if build:
            self.block = Block()
            self._dim_values: dict[str, SSAValue] = {}
            self.accumulators: dict[SSAValue, SSAValue] = {}  # contraction cast to its type -> its acc value
            self._providers: dict[str, tuple[SSAValue, int]] = {}

    @contextmanager
    def activate(self):
        stack = _stack()
        stack.append(self)
        self.active = True
        try:
            yield self
        finally:
            self.active = False
            stack.pop()

    # -- arguments -------------------------------------------------------------------------------

    def make_args(
        self,
        names: Sequence[str],
        types: Sequence[DType | ScalarType],
        shapes: Sequence[Sequence],
        loc: SourceLocation | None,
        values=None,
    ):
        """Tiles for the arguments. Build mode: `shapes` holds ints and dims names, and each
        array argument is a `!tile.array` block argument read by `tile.load`; a runtime scalar
        (a ScalarType, shape ()) is a scalar block argument made a rank-0 tile by `tile.splat`.
        Symbolic mode: `shapes` holds provisional sizes (ints or None), and each axis becomes a
        fresh symbol."""
        tiles = []
        if not self.build:
            self.arg_syms: list[list[Sym]] = []
            for i, shape in enumerate(shapes):
                syms = [self._new_sym(provisional=p, arg_axes=[(i, k)]) for k, p in enumerate(shape)]
                self.arg_syms.append(syms)
                t = types[i]
                dt = t.dtype if isinstance(t, ScalarType) else t
                tiles.append(Tile(self, tuple(syms), dt, None, weak=isinstance(t, ScalarType) and t.weak))
                if not isinstance(t, ScalarType):
                    tiles[-1].arg = i
            return tiles
        for i, shape in enumerate(shapes):
            t = types[i]
            if isinstance(t, ScalarType):
                arg = self.block.insert_arg(scalar_ir_type(t), i)
                if names[i].isidentifier():
                    arg.name_hint = names[i]
                continue
            try:
                array_type = ArrayType(self.ir_shape(shape), t.ir)
            except VerifyException as e:  # e.g. sizes too large to address
                raise TileError(f"argument '{names[i]}': {e}", loc) from None
            arg = self.block.insert_arg(array_type, i)
            if names[i].isidentifier():
                arg.name_hint = names[i]
            for k, d in enumerate(shape):
                if isinstance(d, str):
                    self._providers.setdefault(d, (arg, k))
        if self.eager is not None:  # running eagerly: the arguments' values, before their loads run
            for arg, v in zip(self.block.args, values):
                self.eager.bind(arg, v if isinstance(arg.type, ArrayType) else np.asarray(v, _np_of(arg.type)))
        for i, shape in enumerate(shapes):
            arg = self.block.args[i]
            t = types[i]
            if isinstance(t, ScalarType):
                ir = scalar_ir_type(t)
                s = self.emit(lambda arg=arg, ir=ir: SplatOp(arg, TileType([], ir)), loc).results[0]
                if ir != t.dtype.ir:  # 16-bit floats cross as f32
                    s = self.emit(lambda s=s: CastOp(s, TileType([], t.dtype.ir)), loc).results[0]
                tiles.append(Tile(self, (), t.dtype, s, weak=t.weak))
                continue
            load = self.emit(lambda: LoadOp(arg), loc)
            tiles.append(Tile(self, tuple(shape), t, load.results[0]))
            tiles[-1].arg = i
        return tiles

    # -- emitting --------------------------------------------------------------------------------

    def emit(self, make: Callable[[], Operation], loc: SourceLocation | None = None) -> Operation:
        """Create an op, locate it at the user's line, verify it, append it. Any failure is a
        TileError at that line."""
        if loc is None:
            loc = user_location()
        op = None
        try:
            op = make()
            if self._stale:
                self._check_stale(op, loc)
            if self.list_body:
                _check_list_body(op, loc)
            op.verify(verify_nested_ops=False)
        except (VerifyException, DiagnosticException) as e:
            raise TileError(_clean_verify_message(op, e), loc) from None
        except (ValueError, OverflowError) as e:  # an attribute xDSL could not build
            raise TileError(f"{op.name + ': ' if op is not None else ''}{e}", loc) from None
        attr = location_attr(loc)
        if attr is not None:
            op.location = attr
        self.block.add_op(op)
        if self.eager is not None:
            try:
                self.eager.step(op)
            except IndexOutOfRange:
                raise  # already at the op, i.e. the user's line, and of its own type
            except TilecError as e:
                raise TileError(e.message, loc, e.notes) from None
        return op

    # -- in-place updates ------------------------------------------------------------------------

    def update(self, target: Tile, index, value) -> None:
        """`target[...] = value` in the program: `target` (an array argument) takes the new value
        (every later read sees it, as in numpy) and the argument's array is written with its final
        value when the op runs. Views of the old value (slices, reshapes, transposes) taken before
        the update would see the new values in numpy: using one afterwards is an error."""
        if target.arg is None:
            raise user_error(
                "only the op's array arguments can be assigned into (an in-place update: p[...] = new); "
                "other tiles are values: build a new tile (e.g. with tilec.where)"
            )
        items = list(index) if isinstance(index, tuple) else [index]
        whole = all(it is Ellipsis or (isinstance(it, slice) and it == slice(None)) for it in items) and (
            Ellipsis in items or len(items) == target.ndim
        )
        from tilec.frontend.ops import full_like

        loc = user_location()
        if not whole:
            value = self._assign_part(target, items, value)
        if not isinstance(value, Tile):
            value = full_like(target, value)
        elif value.tracer is not self:
            raise user_error("the assigned tile belongs to another op or trace")
        elif value.weak:
            value = value.astype(target.dtype)
        elif value.dtype != target.dtype:
            raise user_error(
                f"assigning a {value.dtype.name} tile to argument of dtype {target.dtype.name}: "
                f"in-place updates keep the argument's dtype; convert with .astype({target.dtype.name})"
            )

        def msg(x, y):
            return (
                f"assignment: a tile of shape {self.describe_shape(value.axes)} cannot be assigned to an argument "
                f"of shape {self.describe_shape(target.axes)}: axis sizes {x} and {y} differ"
            )

        shape = self.broadcast_shapes([target.axes, value.axes], "assignment")
        if len(shape) != target.ndim or not all(self.axes_equal(a, b) for a, b in zip(shape, target.axes)):
            raise user_error(
                f"assignment: a tile of shape {self.describe_shape(value.axes)} does not broadcast to the argument's "
                f"shape {self.describe_shape(target.axes)}"
            )
        for a, b in zip(shape, target.axes):
            self.same(a, b, msg)
        value = self.broadcast_tile(value, target.axes)
        if self.build and value.value is not target.value:
            self._mark_stale(target.value, loc)
        target.value = value.value
        self.updates[target.arg] = (target, loc)
        if self.build and value.value in self._stale:
            # the new value is itself a view of the old one (p[...] = p[::-1] through r = p[::-1]):
            # the argument gets a value of its own, so that a later use of the view `r` is the
            # stale-view error (numpy's r shows the new values) while reads of p see the update
            from tilec.frontend import ops

            sizes = tuple(Dim(self, a) if self.static_size(a) is None else self.static_size(a) for a in value.axes)
            target.value = ops.where(ops.full(sizes, True, "bool"), value, value).value

    def _assign_part(self, target: Tile, items: list, value) -> Tile:
        """`target[items] = value` for static windows (ints, slices of step 1, `...`): the whole new
        value `where(window, pad(value), target)`, so it fuses like any elementwise update."""
        from tilec.frontend import ops

        def unsupported(why: str):
            return user_error(
                f"not supported yet: assigning to part of an argument {why}; assign the whole argument "
                f"(p[...] = new), selecting the part with tilec.where, tilec.concatenate or tilec.pad"
            )

        if sum(1 for it in items if it is Ellipsis) > 1:
            raise user_error("assignment: an index can only have a single ellipsis ('...')")
        for it in items:
            if it is None or isinstance(it, Tile) or not (it is Ellipsis or isinstance(it, slice | int | np.integer)):
                raise unsupported(f"with the index entry {it!r} (only ints, slices and ... are)")
        used = sum(1 for it in items if it is not Ellipsis)
        if used > target.ndim:
            raise user_error(f"assignment: too many indices for an argument of rank {target.ndim}: {used} were given")
        if Ellipsis in items:
            e = items.index(Ellipsis)
            items = items[:e] + [slice(None)] * (target.ndim - used) + items[e + 1 :]
        else:
            items = items + [slice(None)] * (target.ndim - used)
        widths, window, kept = [], [], []
        for k, (it, ax) in enumerate(zip(items, target.axes)):
            n = Dim(self, ax).static()  # (a provisional size while matching dims)
            if isinstance(it, slice) and it == slice(None):
                widths.append((0, 0))
                window.append(ax)
                kept.append(ax)
                continue
            if n is None:
                raise unsupported(f"along axis {k}, whose size is dynamic (only ':' is)")
            if isinstance(it, slice):
                start, stop, step = it.indices(n)
                if step != 1:
                    raise unsupported(f"with the step {step} (only step 1 is)")
                stop = max(stop, start)
                kept.append(self.const_axis(stop - start))
            else:
                i = int(it)
                if not -n <= i < n:
                    raise user_error(f"assignment: index {i} is out of range for axis {k} of size {n}")
                start = i + n if i < 0 else i
                stop = start + 1
            widths.append((start, n - stop))
            window.append(self.const_axis(stop - start))
        if any(self.static_size(a) == 0 for a in window):
            return target  # an empty window: nothing changes
        if not isinstance(value, Tile):
            value = ops.full(
                tuple(Dim(self, a) if self.static_size(a) is None else self.static_size(a) for a in kept),
                value,
                target.dtype,
            )
        elif value.weak:
            value = value.astype(target.dtype)
        elif value.dtype != target.dtype:
            raise user_error(
                f"assigning a {value.dtype.name} tile to argument of dtype {target.dtype.name}: "
                f"in-place updates keep the argument's dtype; convert with .astype({target.dtype.name})"
            )
        shape = self.broadcast_shapes([tuple(kept), value.axes], "assignment")

        def same(a, b) -> bool:
            return self.axes_equal(a, b) or (
                self.static_size(a) is not None and self.static_size(a) == self.static_size(b)
            )

        if len(shape) != len(kept) or not all(same(a, b) for a, b in zip(shape, kept)):
            raise user_error(
                f"assignment: a tile of shape {self.describe_shape(value.axes)} does not broadcast to the window's "
                f"shape {self.describe_shape(tuple(kept))}"
            )
        if not self.build:
            return target  # matching dims: the window's sizes are the program's, not the argument's
        value = self.broadcast_tile(value, tuple(kept))
        sizes = tuple(Dim(self, a) if self.static_size(a) is None else self.static_size(a) for a in window)
        value = ops.reshape(value, sizes)
        mask = ops.pad(ops.full(sizes, True, "bool"), tuple(widths), value=False)
        return ops.where(mask, ops.pad(value, tuple(widths), value=0), target)

    def _mark_stale(self, old: SSAValue, loc: SourceLocation | None) -> None:
        """Views of `old` (the value an argument had before an update) may not be used any more."""
        from tilec.dialects.tile import DynamicSliceOp, ReshapeOp, SliceOp, TransposeOp

        todo = [old]
        while todo:
            v = todo.pop()
            for use in v.uses:
                o = use.operation
                if isinstance(o, SliceOp | DynamicSliceOp | ReshapeOp | TransposeOp | BroadcastOp) and use.index == 0:
                    for r in o.results:
                        if r not in self._stale:
                            self._stale[r] = (f"line {loc.line}" if loc is not None else "an update", loc)
                            todo.append(r)

    def _check_stale(self, op: Operation, loc) -> None:
        current = {t.value for t, _ in self.updates.values()}  # an argument's value now (maybe a view of old)
        for v in op.operands:
            hit = self._stale.get(v)
            if hit is not None and v not in current:
                raise TileError(
                    "this uses a view (a slice, reshape or transpose) of an argument taken before the argument was "
                    f"updated in place ({hit[0]}); in numpy the view would show the new values: take the view "
                    "after the update, or copy the old value first (old = p + 0)",
                    loc,
                )

    def op(self, axes: Sequence, dtype: DType, make: Callable[[], Operation]) -> Tile:
        """A new tile: in build mode made by the op from `make()` (which gets the result type)."""
        axes = tuple(axes)
        if not self.build:
            return Tile(self, axes, dtype, None)
        op = self.emit(make)
        value = op.results[0]
        expected = TileType(self.ir_shape(axes), dtype.ir)
        assert value.type == expected, f"internal: {op.name} made {value.type}, expected {expected}"
        return Tile(self, axes, dtype, value)

    def tile_type(self, axes: Sequence, dtype: DType) -> TileType:
        return TileType(self.ir_shape(axes), dtype.ir)

    # -- axis algebra ----------------------------------------------------------------------------

    def _new_sym(self, const=None, provisional=None, arg_axes=()) -> Sym:
        self._order += 1
        return Sym(self._order, const, provisional, arg_axes)

    def const_axis(self, n: int) -> Axis:
        return n if self.build else self._new_sym(const=n)

    def is_one(self, ax: Axis) -> bool:
        if self.build:
            return ax == 1
        return ax.root().const == 1

    def axes_equal(self, a: Axis, b: Axis) -> bool:
        if self.build:
            return a == b
        return a.root() is b.root()

    def static_size(self, ax: Axis) -> int | None:
        """The size when it is a compile-time constant of this trace."""
        if self.build:
            return ax if isinstance(ax, int) else None
        return ax.root().const

    def describe(self, ax: Axis) -> str:
        if self.build:
            return str(ax)
        r = ax.root()
        if r.const is not None:
            return str(r.const)
        if r.provisional is not None:
            return str(r.provisional)
        return "?"

    def describe_shape(self, axes: Sequence[Axis]) -> str:
        inner = ", ".join(self.describe(a) for a in axes)
        return f"({inner},)" if len(axes) == 1 else f"({inner})"

    def axis_int(self, ax: Axis) -> int:
        """A Python int for a size, if the trace knows one."""
        if self.build:
            if isinstance(ax, int):
                return ax
            raise user_error(
                f"the size '{ax}' is dynamic (named in dims): it has no Python value while tracing; "
                f"pass the size itself (an entry of x.shape) to tilec.reshape / tilec.broadcast_to, "
                f"use it in tile arithmetic (x / x.shape[i], 1.0 / x.shape[i]) for its run-time value, "
                f"or give it an int in dims"
            )
        r = ax.root()
        if r.const is not None:
            return r.const
        if r.provisional is not None:
            return r.provisional
        raise SizeUnknown(
            "the program uses the size of an axis as a Python int, which needs concrete shapes: "
            "call the op with arrays, or pass example arrays or shapes= to ir/compile/source",
            user_location(),
        )

    def same(self, a: Axis, b: Axis, message: Callable[[str, str], str]) -> Axis:
        """Two axes that must be the same axis (same size)."""
        if self.build:
            if a == b:
                return a
            raise user_error(message(str(a), str(b)))
        ra, rb = a.root(), b.root()
        if ra is rb:
            return a
        if ra.const is not None and rb.const is not None and ra.const != rb.const:
            raise user_error(message(str(ra.const), str(rb.const)))
        if rb.order < ra.order:
            ra, rb = rb, ra
        rb.parent = ra
        if ra.const is None:
            ra.const = rb.const
        if ra.provisional is None:
            ra.provisional = rb.provisional
        ra.arg_axes.extend(rb.arg_axes)
        return a

    def broadcast_axis(self, a: Axis, b: Axis, message: Callable[[str, str], str]) -> Axis:
        if self.is_one(a):
            return b
        if self.is_one(b):
            return a
        return self.same(a, b, message)

    def broadcast_shapes(self, shapes: Sequence[Sequence[Axis]], what: str) -> tuple:
        """numpy broadcasting of several shapes (trailing axes align)."""
        n = max((len(s) for s in shapes), default=0)
        out: list = [None] * n
        for s in shapes:
            off = n - len(s)
            for i, ax in enumerate(s):
                cur = out[off + i]
                if cur is None:
                    out[off + i] = ax
                else:

                    def msg(x, y, s=s):
                        descs = " and ".join(self.describe_shape(t) for t in shapes)
                        return f"{what}: cannot broadcast shapes {descs}: axis sizes {x} and {y} differ"

                    out[off + i] = self.broadcast_axis(cur, ax, msg)
        return tuple(out)

    def broadcast_tile(self, t: Tile, axes: Sequence[Axis]) -> Tile:
        """`t` broadcast to `axes` (a `tile.broadcast`, unless it already has that shape)."""
        axes = tuple(axes)
        if len(t.axes) == len(axes) and all(self.axes_equal(a, b) for a, b in zip(t.axes, axes)):
            return t
        return self.op(
            axes,
            t.dtype,
            lambda: BroadcastOp(t.value, self.tile_type(axes, t.dtype), self.sizes_for(axes)),
        )

    # -- IR shapes and run-time sizes ------------------------------------------------------------

    @staticmethod
    def ir_shape(axes: Sequence) -> list[int]:
        return [DYNAMIC if isinstance(a, str) else int(a) for a in axes]

    def size_value(self, name: str) -> SSAValue:
        """The run-time size named `name` (a `tile.dim` of the first argument axis that has it)."""
        v = self._dim_values.get(name)
        if v is None:
            arg, axis = self._providers[name]
            v = self.emit(lambda: DimOp(arg, axis)).results[0]
            self._dim_values[name] = v
        return v

    def sizes_for(self, axes: Sequence) -> list[SSAValue]:
        """`sizes(...)` operands for a result with these axes: one per dynamic axis, in order."""
        return [self.size_value(a) for a in axes if isinstance(a, str)]


_LIST_BODY_OPS = (
    LoadOp,
    StoreOp,
    ReturnOp,
    DimOp,
    SplatOp,
    BroadcastOp,
    CastOp,
    BitcastOp,
    ConstantOp,
    UnaryOp,
    BinaryOp,
    CmpOp,
    SelectOp,
)


def _check_list_body(op: Operation, loc) -> None:
    """The body of an op over lists runs on each element as a flat 1-D array: elementwise ops,
    runtime scalars and constants only (no reductions, no shape-dependent ops, no sizes)."""
    what = None
    if not isinstance(op, _LIST_BODY_OPS):
        what = op.name
    elif isinstance(op, SplatOp) and isinstance(op.operands[0].type, IndexType):
        what = "the size of a list element (x.shape[i])"
    elif isinstance(op, BroadcastOp) and op.operands[0].type.get_shape():
        what = "broadcasting a non-scalar tile"
    if what is not None:
        raise TileError(
            f"not supported yet: {what} in an op over lists (tilec.List arguments): the body is applied to each "
            f"array flattened, so it must be elementwise (runtime scalars and numbers broadcast)",
            loc,
        )


def scalar_ir_type(t: ScalarType):
    """The IR type of a runtime scalar argument: its dtype's, f32 for 16-bit floats (which the
    runtimes pass as float)."""
    if t.dtype.is_float and t.dtype.bits < 32:
        return float32.ir
    return t.dtype.ir


def _np_of(ir_type) -> np.dtype:
    return from_ir(ir_type).np


# --- the proxy value ----------------------------------------------------------------------------


class Tile:
    """A tile value inside a traced program. Use Python operators and the `tilec` functions on it;
    it has no numpy value and no truth value while tracing."""

    __slots__ = ("tracer", "axes", "dtype", "value", "weak", "arg")
    __array_priority__ = 1000

    def __init__(self, tracer: Tracer, axes: tuple, dtype: DType, value: SSAValue | None, weak: bool = False):
        self.tracer = tracer
        self.axes = axes
        self.dtype = dtype
        self.value = value
        self.weak = weak  # a runtime Python number (`x: float`): takes the other operand's dtype
        self.arg: int | None = None  # the argument index of an array argument's tile (assignable)

    # -- values (only while a program runs eagerly: TILEC_INTERPRET=1) ------------------------------

    def numpy(self) -> np.ndarray:
        """This tile's value, a numpy array: only while the program runs eagerly under
        TILEC_INTERPRET=1 (compiled programs have no values while they are traced)."""
        tr = self.tracer
        if tr.eager is None or self.value is None:
            raise user_error(
                "a tile has a value only while its op runs under TILEC_INTERPRET=1 (it is being traced for compilation)"
            )
        return np.array(tr.eager.value(self.value), copy=True)

    # -- shape and type --------------------------------------------------------------------------

    @property
    def shape(self) -> tuple:
        """Sizes per axis: ints where static, `tilec.Dim` objects where dynamic."""
        tr = self.tracer
        return tuple(a if tr.build and isinstance(a, int) else Dim(tr, a) for a in self.axes)

    @property
    def ndim(self) -> int:
        return len(self.axes)

    @property
    def T(self) -> Tile:
        return _ops.transpose(self)

    def astype(self, dtype) -> Tile:
        return _ops.astype(self, dtype)

    def transpose(self, *perm) -> Tile:
        if len(perm) == 1 and isinstance(perm[0], tuple | list):
            perm = tuple(perm[0])
        return _ops.transpose(self, perm or None)

    def reshape(self, *shape) -> Tile:
        if len(shape) == 1 and isinstance(shape[0], tuple | list):
            shape = tuple(shape[0])
        return _ops.reshape(self, shape)

    def sum(self, axis=None, keepdims=False) -> Tile:
        return _ops.reduce_sum(self, axis, keepdims)

    def max(self, axis=None, keepdims=False) -> Tile:
        return _ops.reduce_max(self, axis, keepdims)

    def min(self, axis=None, keepdims=False) -> Tile:
        return _ops.reduce_min(self, axis, keepdims)

    def mean(self, axis=None, keepdims=False) -> Tile:
        return _ops.mean(self, axis, keepdims)

    def __repr__(self) -> str:
        shape = ", ".join(self.tracer.describe(a) for a in self.axes)
        head = f"Tile(shape=({shape}), dtype={self.dtype.name})"
        if self.tracer.eager is not None and self.value is not None:  # running eagerly: show the value
            return f"{head}\n{self.tracer.eager.value(self.value)!r}"
        return head

    # -- arithmetic ------------------------------------------------------------------------------

    def __add__(self, o):
        return _ops.binary("add", self, o)

    def __radd__(self, o):
        return _ops.binary("add", o, self)

    def __sub__(self, o):
        return _ops.binary("sub", self, o)

    def __rsub__(self, o):
        return _ops.binary("sub", o, self)

    def __mul__(self, o):
        return _ops.binary("mul", self, o)

    def __rmul__(self, o):
        return _ops.binary("mul", o, self)

    def __truediv__(self, o):
        return _ops.binary("div", self, o)

    def __rtruediv__(self, o):
        return _ops.binary("div", o, self)

    def __pow__(self, o):
        return _ops.binary("pow", self, o)

    def __rpow__(self, o):
        return _ops.binary("pow", o, self)

    def __neg__(self):
        return _ops.unary("neg", self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _ops.unary("abs", self)

    def __matmul__(self, o):
        return _ops.matmul(self, o)

    def __rmatmul__(self, o):
        return _ops.matmul(o, self)

    def __lt__(self, o):
        return _ops.compare("lt", self, o)

    def __le__(self, o):
        return _ops.compare("le", self, o)

    def __gt__(self, o):
        return _ops.compare("gt", self, o)

    def __ge__(self, o):
        return _ops.compare("ge", self, o)

    def __eq__(self, o):  # type: ignore[override]
        return _ops.compare("eq", self, o)

    def __ne__(self, o):  # type: ignore[override]
        return _ops.compare("ne", self, o)

    __hash__ = object.__hash__

    def __and__(self, o):
        return _ops.logical("and", self, o)

    def __rand__(self, o):
        return _ops.logical("and", o, self)

    def __or__(self, o):
        return _ops.logical("or", self, o)

    def __ror__(self, o):
        return _ops.logical("or", o, self)

    def __xor__(self, o):
        return _ops.logical("xor", self, o)

    def __rxor__(self, o):
        return _ops.logical("xor", o, self)

    def __invert__(self):
        return _ops.logical_not(self)

    # -- what cannot be traced -------------------------------------------------------------------

    def __bool__(self):
        raise user_error(
            "a tile has no truth value while tracing: Python `if`, `while`, `and`, `or` and `not` "
            "cannot depend on tile values; compute both sides and choose with tilec.where(mask, a, b)"
        )

    def __iter__(self):
        raise user_error(
            "a tile cannot be iterated while tracing (loops over elements are not traced); use whole-tile operations"
        )

    def __len__(self):
        raise user_error("len() of a tile is not supported; use x.shape[0]")

    def __contains__(self, item):
        raise user_error("`in` on a tile is not supported while tracing")

    def __getitem__(self, index):
        return _ops.getitem(self, index)

    def __setitem__(self, index, value):
        self.tracer.update(self, index, value)

    def _runtime_value_error(self, what: str) -> TileError:
        """For a runtime number (a runtime scalar argument, or arithmetic on a dynamic size) used
        where Python needs its value; while matching dims without shapes, that asks for shapes."""
        msg = (
            f"this value is known only at run time (a runtime scalar argument, or arithmetic on a dynamic size): "
            f"{what}; sizes given to reshape / broadcast_to must be ints or entries of x.shape"
        )
        if not self.tracer.build:
            return SizeUnknown(
                msg + "; if it comes from static sizes, call the op with arrays or pass shapes= so they are known",
                user_location(),
            )
        return user_error(msg)

    def __float__(self):
        if self.weak and not self.axes:
            raise self._runtime_value_error("float() cannot be applied to it")
        raise user_error("a tile has no Python value while tracing; float() cannot be applied to it")

    def __int__(self):
        if self.weak and not self.axes:
            raise self._runtime_value_error("int() cannot be applied to it")
        raise user_error("a tile has no Python value while tracing; int() cannot be applied to it")

    def __index__(self):
        if self.weak and not self.axes:
            raise self._runtime_value_error("it cannot be used as a Python int, an index or a size")
        raise user_error("a tile cannot be used as an index or a size")

    def __complex__(self):
        raise user_error("a tile has no Python value while tracing")

    def __floordiv__(self, o):
        return _ops.binary("floordiv", self, o)

    def __rfloordiv__(self, o):
        return _ops.binary("floordiv", o, self)

    def __mod__(self, o):
        return _ops.binary("mod", self, o)

    def __rmod__(self, o):
        return _ops.binary("mod", o, self)

    def __lshift__(self, o):
        return _ops.binary("shl", self, o)

    def __rlshift__(self, o):
        return _ops.binary("shl", o, self)

    def __rshift__(self, o):
        return _ops.binary("shr", self, o)

    def __rrshift__(self, o):
        return _ops.binary("shr", o, self)

    def __array__(self, *args, **kwargs):
        raise user_error(
            "a tile has no numpy value while tracing: it stands for data that exists only when "
            "the kernel runs; use tilec functions (tilec.exp, tilec.sum, ...) instead of numpy"
        )

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _ops.numpy_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _ops.numpy_function(func)

    def __reduce__(self):
        raise user_error("tiles cannot be pickled or copied out of a trace")

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


from tilec.frontend import ops as _ops  # noqa: E402  (ops needs Tile; Tile's methods need ops)
