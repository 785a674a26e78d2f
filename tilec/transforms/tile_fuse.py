"""tile-fuse: partition each tile.func into `tile.fused` groups, one kernel each.

Every computing op ends up in exactly one group; what is left outside are *views* of arrays
(`tile.load`, and transposes / broadcasts / unit-changing reshapes of views), `tile.dim`, the
stores and the return. A target lowers each group to one loop nest (CPU) or one kernel (GPU);
values crossing groups are materialized in temporary arrays, so fewer groups means less memory
traffic.

Grouping, in program order (an op joins a group only if ALL its computed operands are in it):
- a contraction (`tile.contract`, or `tile.conv`: an implicit GEMM) starts a `contraction` group;
  elementwise ops on its full-shape result join it (the epilogue: bias, activation, cast);
- elementwise ops start an `elementwise` group over their result shape (the *domain*); later
  elementwise ops, broadcasts and unit-dim reshapes over the same domain join it;
- a reduction over a trailing suffix of a group's domain joins it and makes it `rowwise`
  (all reductions in a group reduce the same suffix); values computed on the reduced shape,
  and their broadcasts back to the domain, join too — softmax and layernorm become one group;
- a reduction over other axes starts its own `reduction` group, or joins an earlier `reduction`
  group over the same domain and axes (dbeta = sum(dy, 0) and dgamma = sum(dy * xhat, 0): one
  walk over dy). Its operand, when another group computes it by elementwise ops, broadcasts and
  reshapes of views only (no reduction, no other computed value), is *recomputed* in the
  reduction group rather than materialized: the temporary's write and read (two passes) are
  traded for re-reading the full-size arrays it is made of, so this happens when at most two
  such arrays are read (one, if the value must be materialized anyway for another use)
  (`column_plan_of`, decided on a first partition); transposes of computed values start a new group (they read a
  materialized value through a view), except when only contractions read them (below); with `column-partials` (GPU backends), such a reduction
  group over the leading axes then joins the rowwise group over the same domain (its kernel
  accumulates column partial sums over the rows each block walks: `merge_column_partials`);
- a transpose or a reshape of a computed value (transposes over reshapes) that only contractions
  read, as an operand, joins no group (`gemm_view`): the contraction reads the group's result
  through the view, as it reads a transposed array (`x.reshape(-1, k) @ cast(w).T` is three
  kernels, not five with a reshaped and a transposed copy); the view op moves after that group;
  likewise a static reshape of a group result that is only stored into an output array
  (`stored_view`): the group writes the array through the reshape, no copy group;
- a broadcast of a computed value that cannot join the value's group (batch norm's (C, 1, 1)
  statistics broadcast over (N, C, H, W): a reduction group takes no broadcast) and that only
  elementwise ops read joins no group (`broadcast_view`): its readers read the group's result
  through it (no full-size copy); a reader joins only groups after that group (`_view_floor`);
- slices, dynamic slices, concatenations, pads and gathers (`take`, `take_along_axis`) of views
  (`_INDEXING`) join a group over their result shape like elementwise ops (they read the arrays
  in place); of a computed value (source or indices), they start a new group that reads it
  materialized;
- a `scatter_add` is a `scatter` group of its own (nothing joins it): its result is written in
  place by accumulation, so it is materialized;
- a `scan` joins the elementwise group of its operand (over the same shape) and makes it a
  `scan` group; later scans along the same axis and direction and elementwise ops join it too
  (cumsum(x * w) / n is one loop); reductions, broadcasts and reshapes of its values do not;
- a `sort` / `topk` (issue 11, item 5) along the last axis of an elementwise or rowwise
  group's full domain joins it and makes it a `sort` group (softmax then top-k: one kernel);
  otherwise it starts a `sort` group of its own. Nothing joins a sort group (its results are
  written at computed positions, so they are materialized);
- with `attention=true`, the ops of an attention pattern (`softmax(f(q k^T)) v`, see
  tilec/transforms/attention_pattern.py) form one `attention` group, placed where its last op
  is; elementwise ops on its result join it (the epilogue); so do the ops of a *stream*
  (`stream_matches`: contractions over one axis of values computed from (B..., L, S)
  contractions: attention's backward, dq over the keys, dk and dv over the queries), as a
  `stream` group, the values two streams share cloned for the second one first;
- with `conv-weight-grad=true`, the ops of a convolution's weight gradient written as a
  convolution of transposed operands (tilec/transforms/conv_grad_pattern.py: the transposes of x
  and dy, the convolution and the transpose of its result) form one `conv_weight_grad` group
  that nothing joins (a kernel reading x through the forward convolution's window and dy as it
  is: no transposed copies);
- values computed from constants, iotas and sizes only (no array) join no group: every group
  that uses them re-computes them, as it does constants (e.g. `mean`'s element count).

Each group value carries a *tag*: for each of its dimensions, the domain axis it runs along (or
None for a unit dimension). Full values have the identity tag; reduced values tag the first k
axes. The tags make the join rules exact: a broadcast may only put each dimension back on its
own axis.

A store into an input (an in-place update) is written by its group directly only when that
group is elementwise, reads the input only at the element it writes, and no later group reads the
input; otherwise through a temporary and a copy group after every other group (`protect_updates`).

A group's domain is compared by *size keys*, not by static shape: a `?` size is identified by
where it comes from (an array argument's axis, a `sizes(...)` operand), so two different `?`
sizes are never taken as equal; sizes the program requires to be equal (operands of an
elementwise op, contracted axes: checked at run time before any kernel runs) share a key. A
broadcast joins a group only when its result is provably the domain.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue

from tilec.dialects import tile
from tilec.dialects.common import DYNAMIC, int_list
from tilec.passes.api import PassFailure, TilecPass, register_pass
from tilec.transforms.attention_pattern import attention_matches, flash_operands, stream_matches
from tilec.transforms.conv_grad_pattern import weight_grad_matches

Tag = tuple[int | None, ...]

_ELEMENTWISE = (tile.UnaryOp, tile.BinaryOp, tile.CmpOp, tile.SelectOp, tile.CastOp, tile.BitcastOp)
_CLONED = (tile.ConstantOp, tile.IotaOp, tile.SplatOp)
# ops that anchor a `contraction` group (its GEMM-like kernel; the epilogue joins them)
_CONTRACTIONS = (tile.ContractOp, tile.ConvOp)
# index-map ops: each result element reads its source(s) at another index; they join a group
# when their tile operands are views (read in place, no copy), else start one
_INDEXING = (tile.SliceOp, tile.DynamicSliceOp, tile.ConcatOp, tile.PadOp, tile.TakeOp, tile.TakeAlongAxisOp)
# data movement with static index maps: a chain of them that is only stored is one copy (`stored_move`)
_MOVES = (tile.ReshapeOp, tile.TransposeOp, tile.BroadcastOp, tile.SliceOp, tile.ConcatOp, tile.PadOp)
# ops that are re-computed in each group when all their tile operands are (see `clonable`)
_CLONABLE = (*_ELEMENTWISE, tile.BroadcastOp, tile.ReshapeOp, tile.TransposeOp, tile.ReduceOp, *_INDEXING)
# one-operand elementwise ops of a view, re-computed in each group that reads them (`view_function`)
_VIEW_FUNCTION_OPS = (tile.UnaryOp, tile.CastOp)
# random bits are a pure function of (seed, offset, index): re-computed in each group that uses them
# (dropout's mask is computed inline, never stored)
_CLONABLE = (*_CLONABLE, tile.RandomBitsOp)


def is_view(value: SSAValue) -> bool:
    """True when `value` reads an array directly (possibly transposed, broadcast or reshaped)."""
    op = value.owner
    if isinstance(op, tile.LoadOp):
        return True
    if isinstance(op, tile.TransposeOp | tile.BroadcastOp):
        return is_view(op.source)
    if isinstance(op, tile.ReshapeOp):
        # a reshape is a view of a contiguous array only: a load, or reshapes of one
        src = op.source.owner
        while isinstance(src, tile.ReshapeOp):
            src = src.source.owner
        return isinstance(src, tile.LoadOp)
    return False


def _view_root(value: SSAValue) -> SSAValue | None:
    """The array a view reads (see `is_view`), else None."""
    op = value.owner
    while isinstance(op, tile.TransposeOp | tile.BroadcastOp | tile.ReshapeOp):
        op = op.source.owner
    return op.source if isinstance(op, tile.LoadOp) and is_view(value) else None


def _writes_in_place_safely(g: tile.FusedOp, array: SSAValue, later: list[tile.FusedOp]) -> bool:
    """Whether group `g` may store into `array` while reading it (see `protect_updates`)."""
    if g.kind.data != "elementwise":
        return False
    if any(_view_root(v) is array for h in later for v in h.inputs):
        return False
    for v, arg in zip(g.inputs, g.body.block.args):
        if _view_root(v) is not array:
            continue
        if not isinstance(v.owner, tile.LoadOp) or v.type.get_shape() != array.type.get_shape():
            return False
        if not all(isinstance(u.operation, _ELEMENTWISE + (tile.YieldOp,)) for u in arg.uses):
            return False
    return True


def _is_arg_reduce(op: Operation) -> bool:
    return isinstance(op, tile.ReduceOp) and op.kind.data in tile.ARG_REDUCE_KINDS


def _suffix_axes(op: tile.ReduceOp) -> bool:
    """Whether `op` reduces a trailing suffix of its operand's axes (a rowwise reduction)."""
    n = len(_shape(op.source))
    axes = sorted(int_list(op.axes))
    return bool(axes) and axes == list(range(n - len(axes), n))


def _broadcasts(value: SSAValue) -> bool:
    """Whether a view repeats elements of its array (a broadcast on the way)."""
    op = value.owner
    while isinstance(op, tile.TransposeOp | tile.BroadcastOp | tile.ReshapeOp):
        if isinstance(op, tile.BroadcastOp):
            return True
        op = op.source.owner
    return False


_COLUMN_KINDS = ("sum", "prod", "max", "min")
"""Reductions a rowwise kernel can accumulate as column partials (`merge_column_partials`)."""

RECOMPUTE_OPS = 64
"""The most computed values a reduction group re-computes for one operand (`column_plan_of`)."""


def _non_unit(shape) -> list[int]:
    return [d for d in shape if d != 1]


def _unit_reshape(op: Operation) -> bool:
    """A reshape that only adds or drops unit axes (at most one `?` size: else it cannot tell)."""
    if not isinstance(op, tile.ReshapeOp):
        return False
    ss, rs = _shape(op.source), _shape(op.result)
    return _non_unit(ss) == _non_unit(rs) and _non_unit(ss).count(DYNAMIC) <= 1


@dataclass(eq=False)
class _Group:
    kind: str
    domain: tuple[int, ...]
    ops: list[Operation] = field(default_factory=list)
    tags: dict[SSAValue, Tag] = field(default_factory=dict)
    reduced_k: int | None = None  # reductions keep axes [0, k)
    scan: tuple[int, bool] | None = None  # a scan group's (axis, reverse)

    def full_tag(self) -> Tag:
        return tuple(range(len(self.domain)))

    def add(self, op: Operation, tag: Tag | None) -> None:
        self.ops.append(op)
        if tag is not None:
            for r in op.results:
                self.tags[r] = tag


def _shape(value: SSAValue) -> tuple[int, ...]:
    t = value.type
    assert isinstance(t, tile.TileType)
    return t.get_shape()


def size_key(value: SSAValue, axis: int, memo: dict | None = None) -> object:
    """A key for `value`'s size along `axis`: the int for a static size; for a `?` size, a key
    for where the size comes from (equal keys = equal sizes at run time; different keys may
    still be equal sizes, which only costs a fusion)."""
    d = _shape(value)[axis]
    if d != DYNAMIC:
        return d
    memo = {} if memo is None else memo
    k = (value, axis)
    if k not in memo:
        memo[k] = _dyn_key(value, axis, memo)
    return memo[k]


def _index_key(v: SSAValue, memo: dict) -> object:
    op = v.owner
    if isinstance(op, tile.DimOp):
        src = op.source
        if isinstance(src.type, tile.ArrayType):
            return ("arg", src, op.axis.data)
        return size_key(src, op.axis.data, memo)
    return ("index", v)


def _dyn_key(value: SSAValue, axis: int, memo: dict) -> object:
    if isinstance(value, BlockArgument):
        return ("arg", value, axis)
    op = value.owner
    if isinstance(op, tile.LoadOp):
        return ("arg", op.source, axis)
    if isinstance(op, tile.UnaryOp | tile.BinaryOp | tile.CmpOp | tile.CastOp | tile.BitcastOp):
        return size_key(op.operands[0], axis, memo)  # operands agree (checked at run time)
    if isinstance(op, tile.SelectOp):
        return size_key(op.true_value, axis, memo)
    if isinstance(
        op, tile.BroadcastOp | tile.ReshapeOp | tile.ConstantOp | tile.IotaOp | tile.SplatOp | tile.RandomBitsOp
    ):
        pos = sum(1 for d in _shape(value)[:axis] if d == DYNAMIC)
        return _index_key(op.sizes[pos], memo)
    if isinstance(op, tile.TransposeOp):
        return size_key(op.source, int_list(op.permutation)[axis], memo)
    if isinstance(op, tile.SliceOp | tile.DynamicSliceOp | tile.PadOp):
        return size_key(op.source, axis, memo)  # a `?` axis is kept whole
    if isinstance(op, tile.ConcatOp):
        return size_key(op.inputs[0], axis, memo)  # not the joined axis (static)
    if isinstance(op, tile.TakeOp):
        a, k = op.axis.data, len(_shape(op.indices))
        if axis < a:
            return size_key(op.source, axis, memo)
        if axis < a + k:
            return size_key(op.indices, axis - a, memo)
        return size_key(op.source, axis - k + 1, memo)
    if isinstance(op, tile.TakeAlongAxisOp):
        return size_key(op.indices, axis, memo)
    if isinstance(op, tile.ScatterAddOp | tile.PoolOp | tile.ScanOp):  # a pool's `?` axes are leading ones, kept
        return size_key(op.source, axis, memo)
    if isinstance(op, tile.ORDER_OPS):
        return size_key(op.source, axis, memo)  # (a top-k's k axis is static)
    if isinstance(op, tile.ReduceOp):
        axes = set(int_list(op.axes))
        kept = [a for a in range(len(_shape(op.source))) if a not in axes]
        return size_key(op.source, kept[axis], memo)
    if isinstance(op, tile.ContractOp):
        batch, axes = op.batch, op.axes
        if axis < len(batch):
            return size_key(op.lhs, batch[axis][0], memo)
        axis -= len(batch)
        used_l = {a for a, _ in axes} | {a for a, _ in batch}
        lfree = [a for a in range(op.lhs.type.rank) if a not in used_l]
        if axis < len(lfree):
            return size_key(op.lhs, lfree[axis], memo)
        used_r = {b for _, b in axes} | {b for _, b in batch}
        rfree = [b for b in range(op.rhs.type.rank) if b not in used_r]
        return size_key(op.rhs, rfree[axis - len(lfree)], memo)
    return ("value", value, axis)


class _Partitioner:
    def __init__(
        self,
        func: tile.FuncOp,
        column_plan: dict | None = None,
        attention: bool = False,
        flash: bool = False,
        weight_grad: bool = False,
    ):
        self.func = func
        self.column_plan = column_plan  # see `column_plan_of`; None: no reduction re-computes
        self.groups: list[_Group] = []
        # the ops of each attention pattern -> its group; the group takes its place in the order
        # of groups at the pattern's last op (its inputs, e.g. a cast of v, may come after q k^T)
        self.attention_of: dict[Operation, _Group] = {}
        self.attention_last: dict[_Group, Operation] = {}
        # an attention or stream group's results so far: its epilogue joins on them (`_joins_attention`)
        self.attention_outputs: dict[_Group, set[SSAValue]] = {}
        # with `flash`: the operands a flash kernel reads from memory (never re-computed in the group)
        self.flash_operands: set[SSAValue] = set()
        if attention:
            position = {op: i for i, op in enumerate(func.body.block.ops)}
            matches = attention_matches(func.body.block.ops)
            if flash:
                kept = [(m, flash_operands(m)) for m in matches]
                matches = [m for m, operands in kept if operands is not None]
                self.flash_operands = {v for _, operands in kept if operands is not None for v in operands.arrays}
            found = [("attention", m.ops, [m.output]) for m in matches]
            taken = {op for _, ops, _ in found for op in ops}
            if not flash:
                found += [
                    ("stream", m.ops, [o.result for o in m.outer]) for m in stream_matches(func.body.block.ops, taken)
                ]
            for kind, ops, outputs in found:
                g = _Group(kind, _shape(outputs[0]))
                for op in ops:
                    self.attention_of[op] = g
                self.attention_last[g] = max(ops, key=lambda o: position[o])
                self.attention_outputs[g] = set(outputs)
        self.group_of: dict[SSAValue, _Group] = {}
        self._size_memo: dict = {}
        self._domain_keys: dict[_Group, tuple] = {}
        self._clonable: dict[SSAValue, bool] = {}
        self._inlinable: dict[SSAValue, bool] = {}
        self._stored_move: dict[SSAValue, bool] = {}
        self._view_function: dict[SSAValue, bool] = {}
        self._attention_input: dict[SSAValue, bool] = {}
        self.copy_of: dict[_Group, SSAValue] = {}
        # per reduction group, the values of other groups it re-computes (`column_plan_of`)
        self.recompute: dict[_Group, set[SSAValue]] = {}
        self._parent: dict = {}  # union-find over size keys
        # transposes / reshapes of group results a contraction reads in place (`gemm_view`), and
        # broadcasts of group results elementwise ops read in place (`broadcast_view`)
        self.result_views: list[Operation] = []
        # a broadcast view's result -> the group whose result it reads: its readers join only
        # groups after that one (their kernels run after its kernel wrote the result)
        self.view_source: dict[SSAValue, _Group] = {}
        # computed operands a weight-gradient kernel reads from memory (tile-conv-unfold's x'):
        # written by groups of their own, never inlined or re-computed in its group
        self.weight_grad_operands: set[SSAValue] = set()
        self._unify_sizes()
        if weight_grad:
            self._weight_grad_groups()

    def _weight_grad_groups(self) -> None:
        """One `conv_weight_grad` group per weight-gradient pattern whose x and dy are arrays as
        they are (a load) or results of other groups (placed like attention groups; nothing
        joins them)."""

        ops = self.func.body.block.ops
        position = {op: i for i, op in enumerate(ops)}

        def plain(v: SSAValue) -> bool:  # a row-major array: a load or its reshapes, or a group's result
            if is_view(v):
                return not isinstance(v.owner, tile.TransposeOp | tile.BroadcastOp)
            return not self.recomputed(v)

        for m in weight_grad_matches(ops):
            if any(op in self.attention_of for op in m.ops):
                continue
            # a computed x or dy (tile-conv-unfold's x') is written by a group of its own: marked
            # first, so that `recomputed` (inlinable, attention_input) does not claim it
            computed = {v for v in (m.x, m.dy) if not is_view(v) and not self.clonable(v)}
            self.weight_grad_operands |= computed
            if not (plain(m.x) and plain(m.dy)):
                self.weight_grad_operands -= computed
                continue
            g = _Group("conv_weight_grad", _shape(m.output))
            for op in m.ops:
                self.attention_of[op] = g
            self.attention_last[g] = max(m.ops, key=lambda o: position[o])

    def _find(self, k):
        while self._parent.get(k, k) != k:
            k = self._parent[k]
        return k

    def _unify_sizes(self) -> None:
        """Sizes that must agree at run time are the same size: the operands of elementwise ops
        and contracted / batch axis pairs (the runtime checks them before any kernel runs, see
        tilec/runtime/shapes.py). So `x + y` over two `?x?` arrays makes their sizes equal keys."""

        def union(a, b, axis_a, axis_b):
            ka, kb = self._find(size_key(a, axis_a, self._size_memo)), self._find(size_key(b, axis_b, self._size_memo))
            if ka != kb and not isinstance(ka, int) and not isinstance(kb, int):
                self._parent[kb] = ka

        for op in self.func.body.block.ops:
            if isinstance(op, tile.BinaryOp | tile.CmpOp | tile.SelectOp):
                first, *rest = [v for v in op.operands if isinstance(v.type, tile.TileType)]
                for other in rest:
                    for a in range(len(_shape(first))):
                        union(first, other, a, a)
            elif isinstance(op, tile.ContractOp):
                for la, rb in [*op.axes, *op.batch]:
                    union(op.lhs, op.rhs, la, rb)

    def keys(self, value: SSAValue) -> tuple:
        return tuple(self._find(size_key(value, a, self._size_memo)) for a in range(len(_shape(value))))

    def domain_keys(self, g: _Group) -> tuple:
        return self._domain_keys[g]

    def computed(self, value: SSAValue) -> bool:
        return value in self.group_of

    # --- join rules ---------------------------------------------------------------------------

    def tag_if_joined(self, g: _Group, op: Operation) -> Tag | None:
        """The tag `op`'s result would get in `g`, or None if it cannot join."""
        if isinstance(op, _CONTRACTIONS + (tile.ScatterAddOp,)) or g.kind in ("scatter", "sort", "conv_weight_grad"):
            return None  # (before the tags: a scatter group's value has none)
        ins = [v for v in op.operands if isinstance(v.type, tile.TileType) and self.computed(v)]
        tags = [g.tags[v] for v in ins]
        if isinstance(op, tile.PoolOp):
            return None if g.kind == "scan" else self._pool_tag(g, op, tags)
        if isinstance(op, tile.ScanOp):
            # a scan joins an elementwise group over its shape (its producers), or a scan group
            # along the same axis in the same direction (one sequential loop computes them all)
            t = tags[0] if tags else g.full_tag()
            if g.kind not in ("elementwise", "scan") or t != g.full_tag():
                return None
            if self.keys(op.result) != self.domain_keys(g):
                return None
            if g.kind == "scan" and g.scan != (op.axis.data, op.is_reverse):
                return None
            return t
        if g.kind == "scan" and not isinstance(op, _ELEMENTWISE + _INDEXING):
            return None
        if isinstance(op, tile.ORDER_OPS):
            n = len(g.domain)
            src = op.source
            if (
                g.kind not in ("elementwise", "rowwise")
                or tags != [g.full_tag()]
                or _shape(src) != g.domain
                or self.keys(src) != self.domain_keys(g)
                or op.axis.data != n - 1
                or (g.reduced_k is not None and g.reduced_k != n - 1)
            ):
                return None
            return g.full_tag()
        if isinstance(op, _INDEXING):
            # reading views at shifted indices: joins over the full domain; an index map of a
            # value computed in the group starts a new group (the value is materialized)
            if not tags and self.keys(op.results[0]) == self.domain_keys(g):
                return g.full_tag()
            return None
        if isinstance(op, _ELEMENTWISE):
            if not tags:  # only views as operands: joins over the full domain
                return g.full_tag() if self.keys(op.results[0]) == self.domain_keys(g) else None
            if any(t != tags[0] for t in tags):
                return None
            if g.kind == "contraction" and tags[0] != g.full_tag():
                return None
            return tags[0]
        if g.kind == "contraction":
            return None
        if isinstance(op, tile.BroadcastOp):
            rs, ss, t = _shape(op.result), _shape(op.source), tags[0]
            if rs != g.domain or self.keys(op.result) != self.domain_keys(g):
                return None
            off = len(rs) - len(ss)
            for j, d in enumerate(ss):
                i = off + j
                broadcast_dim = d == 1 and rs[i] != 1
                if not broadcast_dim and t[j] is not None and t[j] != i:
                    return None
            return g.full_tag()
        if isinstance(op, tile.ReshapeOp):
            ss, rs, t = _shape(op.source), _shape(op.result), tags[0]
            # only unit dimensions may come or go; with two or more `?` we could not tell a
            # unit-dim reshape from a real one, so that case starts a new group
            if _non_unit(ss) != _non_unit(rs) or _non_unit(ss).count(-1) > 1:
                return None
            axes = iter([t[j] for j, d in enumerate(ss) if d != 1])
            return tuple(next(axes) if d != 1 else None for d in rs)
        if isinstance(op, tile.ReduceOp):
            if not tags and self.keys(op.source) != self.domain_keys(g):
                return None
            t = tags[0] if tags else g.full_tag()  # (no tags: a reduction of views, see `run`)
            n = len(g.domain)
            axes = sorted(int_list(op.axes))
            if t != g.full_tag() or not axes or axes != list(range(n - len(axes), n)):
                return None
            k = n - len(axes)
            if g.reduced_k is not None and g.reduced_k != k:
                return None
            return tuple(range(k))
        return None

    def _pool_tag(self, g: _Group, op: tile.PoolOp, tags: list[Tag]) -> Tag | None:
        """A pool joins a group over its result shape (like an index map of views), or absorbs
        the elementwise group computing its source when nothing else uses that group's values:
        the group then runs over the pool's result and evaluates them at each window tap
        (`relu -> max_pool` is one kernel)."""
        if not tags:
            return g.full_tag() if self.keys(op.results[0]) == self.domain_keys(g) else None
        if op.argmax is not None or g.kind != "elementwise" or tags[0] != g.full_tag():
            return None
        members = set(g.ops) | {op}
        if any(use.operation not in members for member in g.ops for r in member.results for use in r.uses):
            return None
        g.domain = _shape(op.results[0])
        self._domain_keys[g] = self.keys(op.results[0])
        for v in list(g.tags):
            g.tags[v] = tuple(None for _ in g.tags[v])  # read at window taps, never at the domain index
        return g.full_tag()

    def start_group(self, op: Operation) -> _Group:
        if isinstance(op, _CONTRACTIONS):
            g = _Group("contraction", _shape(op.result))
            g.add(op, g.full_tag())
            self._domain_keys[g] = self.keys(op.result)
        elif isinstance(op, tile.ScatterAddOp):
            g = _Group("scatter", _shape(op.result))
            g.add(op, None)  # nothing joins a scatter group
            self._domain_keys[g] = self.keys(op.result)
        elif isinstance(op, tile.ScanOp):
            g = _Group("scan", _shape(op.result), scan=(op.axis.data, op.is_reverse))
            g.add(op, g.full_tag())
            self._domain_keys[g] = self.keys(op.result)
        elif isinstance(op, tile.ORDER_OPS):
            g = _Group("sort", _shape(op.source))
            g.add(op, None)  # nothing joins a sort group
            self._domain_keys[g] = self.keys(op.source)
        elif isinstance(op, tile.ReduceOp):
            keys = self.keys(op.source)
            src = _shape(op.source)
            n, axes = len(src), sorted(int_list(op.axes))
            if axes and axes == list(range(n - len(axes), n)):
                g = _Group("rowwise", src, reduced_k=n - len(axes))
                g.add(op, tuple(range(n - len(axes))))
            else:
                g = _Group("reduction", src)
                g.add(op, None)  # nothing joins a reduction group
            self._domain_keys[g] = keys
        else:
            g = _Group("elementwise", _shape(op.results[0]))
            g.add(op, g.full_tag())
            self._domain_keys[g] = self.keys(op.results[0])
        self.groups.append(g)
        return g

    def clonable(self, value: SSAValue) -> bool:
        """True for tile values computed from constants, iotas and sizes only (no array): they are
        not grouped but re-computed in every group that uses them, like constants. (This keeps
        e.g. `mean`'s element count over a `?` axis inside the group that divides by it.)"""
        if not isinstance(value.type, tile.TileType):
            return False
        if value not in self._clonable:
            op = value.owner
            ok = isinstance(op, _CLONED) or (
                isinstance(op, _CLONABLE)
                and all(self.clonable(v) for v in op.operands if isinstance(v.type, tile.TileType))
            )
            self._clonable[value] = ok
        return self._clonable[value]

    def inlinable(self, value: SSAValue) -> bool:
        """True for slices / concatenations / pads of views (and reshapes, broadcasts and
        transposes of those): no group computes them; every group that uses them reads the arrays
        in place at the shifted index (no copy). A contraction operand is not inlinable: the GEMM
        reads a buffer, so the slice is materialized by a group of its own first."""
        if not isinstance(value.type, tile.TileType) or value in self.weight_grad_operands:
            return False
        if value not in self._inlinable:
            op = value.owner
            ops = [v for v in op.operands if isinstance(v.type, tile.TileType)] if isinstance(op, Operation) else []
            if isinstance(op, _INDEXING):
                ok = all(is_view(v) or self.clonable(v) or self.inlinable(v) for v in ops)
            elif isinstance(op, tile.ReshapeOp | tile.BroadcastOp | tile.TransposeOp):
                ok = self.inlinable(op.source)
            else:
                ok = False
            ok = ok or self.stored_move(value)
            if ok and any(isinstance(u.operation, _CONTRACTIONS) for u in value.uses):
                ok = False
            self._inlinable[value] = ok
        return self._inlinable[value]

    def stored_move(self, value: SSAValue) -> bool:
        """True for a value of a data-movement chain over other values (group results included)
        that is only stored, through more such moves, into output arrays, where the chain holds a
        concatenation, slice or pad (an interleave: phases stacked, then reshaped): no group
        computes its values one op at a time; the stored value's copy group reads the chain's
        sources at the index each output element comes from (one kernel for the whole chain). A
        lone reshape or transpose of a group result keeps its rules (`stored_view`, joining
        its producer)."""
        if not isinstance(value.type, tile.TileType) or not isinstance(value.owner, _MOVES):
            return False
        if value not in self._stored_move:
            self._stored_move[value] = self._only_stored(value) and any(
                self._holds_indexing(root) for root in self._stored_roots(value)
            )
        return self._stored_move[value]

    def _only_stored(self, value: SSAValue) -> bool:
        """Every use stores `value` into an output (not an input: in-place updates keep
        protect_updates' rules) or moves it on to a value that is only stored."""
        for use in value.uses:
            user = use.operation
            if isinstance(user, tile.StoreOp):
                if use.index != 0 or user.dest in self.func.input_args:
                    return False
            elif not (isinstance(user, _MOVES) and self._only_stored(user.results[0])):
                return False
        return bool(value.uses)

    def _stored_roots(self, value: SSAValue) -> list[SSAValue]:
        """The stored values `value` moves into (itself, or the ends of its chains of moves)."""
        roots = []
        for use in value.uses:
            if isinstance(use.operation, tile.StoreOp):
                roots.append(value)
            else:
                roots += self._stored_roots(use.operation.results[0])
        return roots

    @staticmethod
    def _holds_indexing(value: SSAValue) -> bool:
        """A concatenation, slice or pad among the moves that make `value`."""
        op = value.owner
        if isinstance(op, tile.ConcatOp | tile.SliceOp | tile.PadOp):
            return True
        return isinstance(op, _MOVES) and any(
            isinstance(v.type, tile.TileType) and _Partitioner._holds_indexing(v) for v in op.operands
        )

    def gemm_view(self, op: Operation) -> bool:
        """True for a transpose or a reshape of a group result (transposes over reshapes over the
        result) that only contractions read, as an operand, possibly through more such views:
        the contraction reads the materialized result through the view (the GEMM takes a
        transposed B; a reshape of a row-major buffer is the same buffer), so no copy group
        makes a transposed or reshaped copy first (x.reshape(-1, k) @ cast(w).T: one kernel)."""
        if not isinstance(op, tile.TransposeOp | tile.ReshapeOp):
            return False
        src = op.source
        inner = src.owner if src.owner in self.result_views else None
        if inner is None and not self.computed(src):
            return False
        if isinstance(op, tile.ReshapeOp) and isinstance(inner, tile.TransposeOp):
            return False  # a reshape of a transposed buffer is no buffer (see HostBuilder.view_of)
        return self._only_gemm_reads(op.results[0])

    def stored_view(self, op: Operation) -> bool:
        """True for a static reshape of a group result that nothing else reads, itself only stored
        (once) into an output array, not an input (a 1x1 weight gradient's (O, C) GEMM result stored as
        (O, 1, 1, C)): the group writes its result straight into the array, seen through the
        reshape (HostBuilder.buffer_for_result), and no group copies it."""
        if not isinstance(op, tile.ReshapeOp) or not self.computed(op.source) or op.source.owner in self.result_views:
            return False
        if op.source.uses.get_length() != 1 or op.result.uses.get_length() != 1:
            return False
        use = next(iter(op.result.uses))
        static = all(d >= 0 for v in (op.source, op.result) for d in _shape(v))
        store = use.operation
        if not (static and isinstance(store, tile.StoreOp) and use.index == 0):
            return False
        return store.dest not in self.func.input_args  # (an in-place update keeps protect_updates' copy rules)

    def _only_gemm_reads(self, value: SSAValue) -> bool:
        for use in value.uses:
            user = use.operation
            if isinstance(user, tile.ContractOp) and use.index < 2:
                continue
            if isinstance(user, tile.TransposeOp | tile.ReshapeOp) and not (
                isinstance(user, tile.ReshapeOp) and isinstance(value.owner, tile.TransposeOp)
            ):
                if self._only_gemm_reads(user.results[0]):
                    continue
            return False
        return bool(value.uses)

    def broadcast_view(self, op: Operation) -> bool:
        """True for a broadcast of a group result that cannot join that group (a reduction
        group's statistics, a bias computed by a group of its own) and that only elementwise ops
        read: each reader reads the materialized result through the broadcast (index map with
        broadcast axes), instead of a group of its own writing the full-size broadcast first."""
        if not isinstance(op, tile.BroadcastOp) or not self.computed(op.source):
            return False
        if self.tag_if_joined(self.group_of[op.source], op) is not None:
            return False
        return bool(op.result.uses) and all(isinstance(u.operation, _ELEMENTWISE) for u in op.result.uses)

    def _view_floor(self, op: Operation) -> int:
        """The index of the latest group whose result `op` reads through a broadcast view (-1:
        none): `op` may join only groups after it."""
        return max((self.groups.index(self.view_source[v]) for v in op.operands if v in self.view_source), default=-1)

    def view_function(self, value: SSAValue) -> bool:
        """True for a unary elementwise op or a cast of ONE view (or of such a value), and its
        broadcasts and unit-axis reshapes (a conv bias's `cast(b).reshape(C, 1, 1)`), read only
        by elementwise ops and more such broadcasts and reshapes: each group that reads
        it re-computes it from the array (a bias's cast in a GEMM's epilogue) instead of
        reading a temporary that a group of its own wrote."""
        if not isinstance(value.type, tile.TileType):
            return False
        if value not in self._view_function:
            op = value.owner
            if isinstance(op, _VIEW_FUNCTION_OPS):
                src = op.operands[0]
                ok = is_view(src) or self.view_function(src)
            elif isinstance(op, tile.BroadcastOp) or _unit_reshape(op):
                ok = self.view_function(op.source)
            else:
                ok = False
            self._view_function[value] = ok and self._read_elementwise(value)
        return self._view_function[value]

    def _read_elementwise(self, value: SSAValue) -> bool:
        """Every use of `value` is an elementwise op, or a broadcast or a unit-axis reshape whose
        uses are (recursively)."""
        return all(
            isinstance(u.operation, _ELEMENTWISE)
            or (
                (isinstance(u.operation, tile.BroadcastOp) or _unit_reshape(u.operation))
                and self._read_elementwise(u.operation.results[0])
            )
            for u in value.uses
        )

    def recomputed(self, value: SSAValue) -> bool:
        """Clonable, inlinable, a view function or an attention input: re-computed in each group
        that uses it, never grouped itself."""
        return self.clonable(value) or self.inlinable(value) or self.view_function(value) or self.attention_input(value)

    _ATTENTION_INPUT_OPS = (*_ELEMENTWISE, *_INDEXING, tile.ReshapeOp, tile.BroadcastOp, tile.TransposeOp)

    def attention_input(self, value: SSAValue) -> bool:
        """True for values computed element by element from views (casts, masks such as
        `iota < lengths`, gathers such as a paged KV cache's `take` by a block table, reshapes,
        broadcasts: q and v cast to f32, grouped-query attention's repeated K/V heads) that only
        attention groups read: their loop nest evaluates them at each element it reads, so no group
        writes them out first."""
        if not self.attention_of or not isinstance(value.type, tile.TileType) or is_view(value):
            return False  # (a view is read in place anyway: a group input)
        if value in self.flash_operands or value in self.weight_grad_operands:
            return False  # a flash kernel reads q, k and v from memory: written by their own groups
        if value not in self._attention_input:  # (kept: the cleanup after `rewrite` asks again)
            self._attention_input[value] = self._from_views(value) and self._read_by_attention(value)
        return self._attention_input[value]

    def _from_views(self, value: SSAValue) -> bool:
        if is_view(value) or self.clonable(value):
            return True
        op = value.owner
        return isinstance(op, self._ATTENTION_INPUT_OPS) and all(
            self._from_views(v) for v in op.operands if isinstance(v.type, tile.TileType)
        )

    def _read_by_attention(self, value: SSAValue) -> bool:
        return bool(value.uses) and all(
            u.operation in self.attention_of
            or (isinstance(u.operation, self._ATTENTION_INPUT_OPS) and self._read_by_attention(u.operation.results[0]))
            for u in value.uses
        )

    def run(self) -> None:
        block = self.func.body.block
        for op in block.ops:
            if not op.name.startswith("tile."):
                real = op.op_name.data if hasattr(op, "op_name") else op.name  # an unregistered op's own name
                raise PassFailure(op, f"tile-fuse: '{real}' is not a tile op: a tile.func holds tile ops only")
        for op in list(block.ops):
            if isinstance(op, (tile.StoreOp, tile.ReturnOp, tile.LoadOp, tile.DimOp, tile.FusedOp)):
                continue
            att = self.attention_of.get(op)
            if att is not None:
                att.add(op, None)
                if op is self.attention_last[att]:
                    self.groups.append(att)
                for r in op.results:
                    self.group_of[r] = att
                continue
            if op.results and self.recomputed(op.results[0]):
                continue
            if all(isinstance(r.type, tile.TileType) for r in op.results) and op.results and is_view(op.results[0]):
                continue
            if self.gemm_view(op) or self.stored_view(op):
                self.result_views.append(op)
                continue
            if self.broadcast_view(op):
                self.result_views.append(op)
                self.view_source[op.result] = self.group_of[op.source]
                continue
            owners = {self.group_of[v] for v in op.operands if self.computed(v)}
            floor = self._view_floor(op)
            if any(self.groups.index(o) <= floor for o in owners):
                owners = set()
                floor = len(self.groups)  # it starts a group of its own (after the view's source)
            g = None
            if not owners and isinstance(op, (*_ELEMENTWISE, *_INDEXING, tile.PoolOp)):
                # an independent elementwise op over the same domain shares the latest such loop
                keys = self.keys(op.results[0])
                for i in range(len(self.groups) - 1, floor, -1):
                    cand = self.groups[i]
                    if cand.kind in ("elementwise", "rowwise") and self.domain_keys(cand) == keys:
                        owners = {cand}
                        break
            if not owners and isinstance(op, tile.ScanOp):
                # a scan of views shares the latest scan group along the same axis and direction
                keys = self.keys(op.result)
                for cand in reversed(self.groups):
                    if cand.kind == "scan" and self.domain_keys(cand) == keys:
                        if cand.scan == (op.axis.data, op.is_reverse):
                            owners = {cand}
                        break
            if not owners and isinstance(op, tile.ReduceOp):
                # an arg-reduction of views shares the latest rowwise group over the same rows that
                # holds one too or reduces the same values (m = max(x); i = argmax(x): one kernel)
                cand = next((c for c in reversed(self.groups) if c.kind == "rowwise"), None)
                if cand is not None and (_is_arg_reduce(op) or any(_is_arg_reduce(o) for o in cand.ops)):
                    owners = {cand}
            if len(owners) == 1 and next(iter(owners)) in self.attention_outputs:
                cand = next(iter(owners))
                if self._joins_attention(cand, op):
                    cand.add(op, None)
                    self.attention_outputs[cand].add(op.results[0])
                    g = cand
            elif len(owners) == 1:
                cand = next(iter(owners))
                if cand.kind != "reduction":
                    tag = self.tag_if_joined(cand, op)
                    if tag is not None:
                        if isinstance(op, tile.ReduceOp):
                            cand.kind = "rowwise"
                            cand.reduced_k = len(tag)
                        if isinstance(op, tile.ScanOp):
                            cand.kind = "scan"
                            cand.scan = (op.axis.data, op.is_reverse)
                        elif isinstance(op, tile.ORDER_OPS):
                            cand.kind = "sort"
                        cand.add(op, tag)
                        g = cand
            if g is None and isinstance(op, tile.ReduceOp) and not _is_arg_reduce(op) and not _suffix_axes(op):
                g = self._column_group(op)
            if g is None:
                g = self.start_group(op)
            for r in op.results:
                self.group_of[r] = g
        # a stored value that is not computed by a group (a view such as `return A.T`, or a
        # clonable value) gets a copy group
        for op in list(block.ops):
            if isinstance(op, tile.StoreOp) and not self.computed(op.value):
                if op.value.owner in self.result_views and self.stored_view(op.value.owner):
                    continue  # the group writes the array through the reshape
                g = _Group("elementwise", _shape(op.value))
                self.groups.append(g)
                g.ops.append(op)  # marker: a copy group yields its input unchanged
                self.copy_of[g] = op.value

    def _joins_attention(self, g: _Group, op: Operation) -> bool:
        """An elementwise op on an attention group's result joins it as its epilogue (a cast, a
        residual add): every computed operand is a result of the group (not a row statistic); so
        does a unit-axis reshape of one that is only stored."""
        outs = self.attention_outputs[g]
        if _unit_reshape(op):  # (B, H, D) -> (B, 1, H, D): the same elements, stored in place
            return op.source in outs and all(isinstance(u.operation, tile.StoreOp) for u in op.results[0].uses)
        if not isinstance(op, (tile.UnaryOp, tile.BinaryOp, tile.CastOp, tile.SelectOp, tile.CmpOp)):
            return False
        computed = [v for v in op.operands if self.computed(v)]
        return all(v in outs and _shape(v) == _shape(op.results[0]) for v in computed)

    def _column_group(self, op: tile.ReduceOp) -> _Group | None:
        """The `reduction` group a reduction over non-trailing axes goes into when the plan lets
        it read its operand as views (`column_plan`): an earlier reduction group over the same
        domain and axes, else a new one. None: it reads its operand materialized (a new group)."""
        if self.column_plan is None or op not in self.column_plan:
            return None
        rs = self.column_plan[op]
        if any(v in self.view_source for w in rs for v in w.owner.operands):
            return None  # it would read a broadcast view of a later group: the operand materialized
        keys = self.keys(op.source)
        axes = sorted(int_list(op.axes))
        g = next(
            (
                c
                for c in reversed(self.groups)
                if c.kind == "reduction"
                and c not in self.copy_of
                and self.domain_keys(c) == keys
                and all(
                    isinstance(o, tile.ReduceOp) and not _is_arg_reduce(o) and sorted(int_list(o.axes)) == axes
                    for o in c.ops
                )
            ),
            None,
        )
        if g is None:
            g = self.start_group(op)
        else:
            g.add(op, None)
        if rs:
            self.recompute.setdefault(g, set()).update(rs)
        return g

    def column_plan_of(self) -> dict[tile.ReduceOp, set[SSAValue]]:
        """After `run` without a plan: for each reduction over non-trailing axes whose operand a
        reduction group may re-compute from views, the computed values it re-computes (empty:
        the operand is a view). Re-computing trades the temporary's write and read (two full
        passes) for re-reading the full-size arrays the operand is made of: planned when they are
        at most two (at most one when a use outside its group, a store or another group, needs
        the value materialized anyway)."""
        plan: dict[tile.ReduceOp, set[SSAValue]] = {}
        for op in self.func.body.block.ops:
            if not isinstance(op, tile.ReduceOp) or _is_arg_reduce(op) or _suffix_axes(op):
                continue
            found = self._recompute_tree(op.source)
            if found is None:
                continue
            tree, arrays = found
            home = self.group_of.get(op.source)
            other_use = bool(tree) and any(
                u.operation is not op
                and (not u.operation.results or self.group_of.get(u.operation.results[0]) is not home)
                for u in op.source.uses
            )
            if len(arrays) <= (1 if other_use else 2):
                plan[op] = tree
        return plan

    def _recompute_tree(self, value: SSAValue) -> tuple[set[SSAValue], set[SSAValue]] | None:
        """(the computed values on the way from views to `value`, the arrays read at its full
        shape), when every computed value on the way is an elementwise op, a broadcast or a
        reshape (nothing behind a reduction, scan, contraction, ...), at most RECOMPUTE_OPS."""
        out: set[SSAValue] = set()
        arrays: set[SSAValue] = set()
        stack = [value]
        while stack:
            w = stack.pop()
            if not isinstance(w.type, tile.TileType) or w in out:
                continue
            if not self.computed(w):
                if is_view(w) and _shape(w) == _shape(value) and not _broadcasts(w):
                    root = _view_root(w)
                    if root is not None:
                        arrays.add(root)
                continue
            op = w.owner
            if not isinstance(op, _ELEMENTWISE + (tile.BroadcastOp, tile.ReshapeOp)) or len(out) >= RECOMPUTE_OPS:
                return None
            out.add(w)
            stack.extend(op.operands)
        return out, arrays

    def merge_column_partials(self) -> None:
        """With `column-partials`: a `reduction` group of column reductions (sum / prod / max /
        min over the leading axes [0, k)) joins the rowwise group over the same domain whose row
        reductions keep those k axes, when nothing but views, values it re-computes and values
        of that rowwise group feed it, and no group between the two uses its results. The
        rowwise kernel then reads the rows once for both (layernorm backward: dx, dgamma and
        dbeta in one pass over x and dy)."""
        for r in list(self.groups):
            if r.kind != "reduction" or r in self.copy_of or not r.ops:
                continue
            if not all(isinstance(o, tile.ReduceOp) and o.kind.data in _COLUMN_KINDS for o in r.ops):
                continue
            k = len(int_list(r.ops[0].axes))
            if any(sorted(int_list(o.axes)) != list(range(k)) for o in r.ops):
                continue
            again = self.recompute.get(r, set())
            homes = {
                self.group_of[v]
                for o in r.ops
                for v in o.operands
                if isinstance(v.type, tile.TileType) and self.computed(v) and v not in again
            }
            cands = [
                h
                for h in self.groups
                if h.kind == "rowwise"
                and h.reduced_k == k
                and len(h.domain) > k
                and self.domain_keys(h) == self.domain_keys(r)
                and (not homes or homes == {h})
            ]
            if not cands:
                continue
            i = self.groups.index(r)
            h = min(cands, key=lambda c: abs(self.groups.index(c) - i))
            j = self.groups.index(h)
            lo, hi = min(i, j), max(i, j)
            between = {id(g) for g in self.groups[lo : hi + 1] if g is not r}
            users = [
                self.group_of.get(u.operation.results[0]) if u.operation.results else None
                for o in r.ops
                for u in o.result.uses
            ]
            if any(u is not None and id(u) in between for u in users):
                continue
            h.ops.extend(r.ops)
            for o in r.ops:
                self.group_of[o.result] = h
            own = {res for o in h.ops for res in o.results}
            merged = (self.recompute.get(h, set()) | again) - own
            if merged:
                self.recompute[h] = merged
            self.recompute.pop(r, None)
            self.groups.remove(r)

    def _recomputes(self, op: Operation, value: SSAValue) -> bool:
        """Whether `op` is in a group that re-computes `value` (so it does not read it materialized)."""
        g = self.group_of.get(op.results[0]) if op.results else None
        return g is not None and value in self.recompute.get(g, ())

    # --- rebuilding ----------------------------------------------------------------------------

    def _collect_inputs(self, v: SSAValue, in_group: set, inputs: list[SSAValue], again=frozenset()) -> None:
        """Add the group inputs needed for operand `v` (for a clonable value, or one of `again`,
        the values of other groups this group re-computes: their operands)."""
        if self.recomputed(v) or v in again:
            for o in v.owner.operands:
                self._collect_inputs(o, in_group, inputs, again)
        elif v.owner not in in_group and v not in inputs:
            inputs.append(v)

    def _clone(self, v: SSAValue, body: Block, mapping: dict[SSAValue, SSAValue], again=frozenset()) -> SSAValue:
        """`v` inside `body`: mapped, or (for a clonable value, or one of `again`) re-computed there."""
        if v not in mapping:
            assert self.recomputed(v) or v in again, v
            op = v.owner
            for o in op.operands:
                self._clone(o, body, mapping, again)
            c = op.clone(value_mapper=mapping)
            body.add_op(c)
            for old_r, new_r in zip(op.results, c.results):
                mapping[old_r] = new_r
        return mapping[v]

    def rewrite(self) -> None:
        block = self.func.body.block
        first_store = next(op for op in block.ops if isinstance(op, tile.StoreOp | tile.ReturnOp))
        for g in self.groups:
            if g in self.copy_of:
                self._emit_copy(g, self.copy_of[g], first_store)
                continue
            in_group = set(g.ops)
            again = frozenset(self.recompute.get(g, ()))
            inputs: list[SSAValue] = []
            outputs: list[SSAValue] = []
            for op in g.ops:
                for v in op.operands:
                    self._collect_inputs(v, in_group, inputs, again)
                for r in op.results:
                    if any(use.operation not in in_group and not self._recomputes(use.operation, r) for use in r.uses):
                        outputs.append(r)
            if not outputs:
                continue  # every value it computes is re-computed where it is used
            body = Block(arg_types=[v.type for v in inputs])
            mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, body.args))
            for v, arg in mapping.items():
                if v.name_hint:
                    arg.name_hint = v.name_hint
            for op in g.ops:
                for v in op.operands:
                    self._clone(v, body, mapping, again)
                new = op.clone(value_mapper=mapping)
                body.add_op(new)
                for old_r, new_r in zip(op.results, new.results):
                    mapping[old_r] = new_r
            # a value stored into several outputs is yielded once per output, so the kernel
            # writes every one of them (stores after the first move to the extra results)
            extra_stores: list[tuple[SSAValue, Operation]] = []
            for r in outputs:
                stores = [u.operation for u in r.uses if isinstance(u.operation, tile.StoreOp) and u.index == 0]
                extra_stores += [(r, s) for s in stores[1:]]
            yielded = [*outputs, *(r for r, _ in extra_stores)]
            body.add_op(tile.YieldOp([mapping[v] for v in yielded]))
            fused = tile.FusedOp(g.kind, inputs, [v.type for v in yielded], Region(body))
            fused.location = g.ops[-1].location
            block.insert_op_before(fused, first_store)
            for (old, store), new in zip(extra_stores, fused.outputs[len(outputs) :]):
                store.operands = [new, store.dest]
            for old, new in zip(outputs, fused.outputs):
                if old.name_hint:
                    new.name_hint = old.name_hint
                old.replace_all_uses_with(new)
        for g in reversed(self.groups):
            if g in self.copy_of:
                continue
            for op in reversed(g.ops):
                op.detach()
                op.erase(safe_erase=False)
        # a view of a group result (gemm_view, broadcast_view) goes after that group: just before its first reader
        for op in reversed(self.result_views):
            first = min((u.operation for u in op.results[0].uses), key=lambda o: _position(block, o))
            op.detach()
            block.insert_op_before(op, first)
        # clonable values are now re-computed inside the groups: drop the originals
        for op in reversed(list(block.ops)):
            if op.results and all(not r.uses for r in op.results) and self.recomputed(op.results[0]):
                op.detach()
                op.erase()

    def _emit_copy(self, g: _Group, value: SSAValue, before: Operation) -> None:
        store = g.ops[0]
        assert isinstance(store, tile.StoreOp)
        if self.recomputed(value):
            inputs: list[SSAValue] = []
            self._collect_inputs(value, set(), inputs)
            body = Block(arg_types=[v.type for v in inputs])
            mapping = dict(zip(inputs, body.args))
            body.add_op(tile.YieldOp([self._clone(value, body, mapping)]))
        else:
            inputs = [value]
            body = Block(arg_types=[value.type])
            body.add_op(tile.YieldOp([body.args[0]]))
        fused = tile.FusedOp("elementwise", inputs, [value.type], Region(body))
        fused.location = store.location
        self.func.body.block.insert_op_before(fused, before)
        store.operands = [fused.outputs[0], store.dest]


def _position(block: Block, op: Operation) -> int:
    return next(i for i, o in enumerate(block.ops) if o is op)


def protect_updates(func: tile.FuncOp) -> None:
    """A store into an input (an in-place update) must not change values still to be read: the
    group writing input `p` writes it directly only when it is elementwise, reads `p` only at the
    element it writes (the plain load, used by elementwise ops), and no later group reads `p`.
    Otherwise it writes a temporary, and a copy group after every other group writes `p`. (Also
    run on functions that were fused already: a copy group is itself safe, so this is idempotent.)"""
    block = func.body.block
    inputs = set(func.input_args)
    fused = [o for o in block.ops if isinstance(o, tile.FusedOp)]
    for store in [o for o in block.ops if isinstance(o, tile.StoreOp) and o.dest in inputs]:
        g = store.value.owner
        if not isinstance(g, tile.FusedOp):
            continue  # not fused (tile-to-mapped refuses it)
        if _writes_in_place_safely(g, store.dest, fused[fused.index(g) + 1 :]):
            continue
        body = Block(arg_types=[store.value.type])
        body.add_op(tile.YieldOp([body.args[0]]))
        copy = tile.FusedOp("elementwise", [store.value], [store.value.type], Region(body))
        copy.location = store.location
        first = next(op for op in block.ops if isinstance(op, tile.StoreOp | tile.ReturnOp))
        block.insert_op_before(copy, first)
        store.operands = [copy.outputs[0], store.dest]
        fused.append(copy)


@register_pass
class TileFuse(TilecPass):
    """Group tile ops into tile.fused kernels (contraction epilogues, rowwise reductions, ...)."""

    name = "tile-fuse"

    column_partials: bool = False
    """Column reductions join the rowwise group over their domain (`merge_column_partials`): GPU
    backends set it (their rowwise kernels accumulate column partial sums across the rows a block
    walks); the CPU's rowwise loop nests do not take them."""

    attention: bool = False
    """`softmax(f(q k^T)) v` becomes one `attention` group and attention's backward `stream`
    groups (tilec/transforms/attention_pattern.py): an online softmax over the keys, no L x S value
    in memory. Backends whose lowering computes these groups set it (the CPU); elsewhere the same
    programs keep their contraction, rowwise and contraction groups."""

    attention_flash: bool = False
    """With `attention`: only the patterns a tensor-core flash kernel takes become groups (16-bit
    q, k, v in (B..., L, E) / (B..., S, E) / (B..., S, Ev) order, head sizes multiples of 16 up to
    256: `flash_operands`), and no `stream` groups; q, k and v are written to memory by their own
    groups when computed (the kernel stages them through shared memory). The CUDA backend sets it."""

    conv_weight_grad: bool = False
    """A convolution's weight gradient written as a convolution of transposed x and dy (what
    `tilec.conv_backward_weight` writes for channels-last, one group, f16/bf16) becomes one
    `conv_weight_grad` group (tilec/transforms/conv_grad_pattern.py) instead of transpose groups
    around a convolution group. The CUDA backend sets it with gemm=wgmma (its Hopper kernel reads
    x through the forward convolution's window and dy as it is)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.walk() if isinstance(f, tile.FuncOp)]:
            if not any(isinstance(o, tile.FusedOp) for o in func.body.block.ops):  # else: already fused
                # a first partition decides which column reductions re-compute their operand
                # (it needs the groups of every use); the second builds the groups with that plan
                if self.attention and not self.attention_flash:  # (streams sharing values get their own copies, once)
                    taken = {o for m in attention_matches(func.body.block.ops) for o in m.ops}
                    stream_matches(func.body.block.ops, taken)
                kw = {"attention": self.attention, "flash": self.attention_flash, "weight_grad": self.conv_weight_grad}
                first = _Partitioner(func, **kw)
                first.run()
                p = _Partitioner(func, first.column_plan_of(), **kw)
                p.run()
                if self.column_partials:
                    p.merge_column_partials()
                p.rewrite()
            protect_updates(func)
