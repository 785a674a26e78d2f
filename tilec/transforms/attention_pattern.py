"""The attention pattern of a tile program: `softmax(f(q k^T)) v`, found by use-def walks (issue 15).

Recognised, over batch/head axes B... (any number, also none):

    s0  = contract(q, k)                 (B..., L, S): batch axes first, one free axis each side
    s   = f(s0)                          elementwise: scale, additive bias, masks built from
                                         `iota` / `where` (causal, sliding window), casts
    m   = max(s, last axis)              broadcast back over the last axis (keepdims + broadcast)
    e   = exp(s - m)
    l   = sum(e, last axis)
    out = contract(e / l, v)             v (B..., S, Ev): contracted over S, batch axes B...
       or contract(e, v) / l             (the normalisation after the second contraction)

Values computed from the row maximum m and sum l only (such as the log-sum-exp `m + log(l)` a
backward needs) may leave the pattern: they are computed in it, per query. Every other value
from s0 to `out` must be used only inside the pattern (nothing S-sized escapes), the
value axis Ev must be static (the online softmax keeps one accumulator row per query) and `f`
must be built from ops a loop nest evaluates at one element (no reductions or contractions). A
program that does not match keeps the ordinary groups (contraction, rowwise, contraction).

`tile-fuse` (with `attention=true`) puts the ops of a match in one `attention` group; the CPU
lowering finds the same match again inside the group's body (`match_attention` of its last
contraction) and computes `out` with an online softmax over the keys: no L x S buffer.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import BlockArgument, Operation, SSAValue

from tilec.dialects import tile
from tilec.dialects.common import DYNAMIC, int_list

MAX_VALUE_AXIS = 1024
"""The largest value axis (Ev) an attention group takes: its accumulator row lives in registers
or on the stack of each query's loop."""

# ops `f` (the scores' elementwise chain) may hold besides the scores contraction itself
_SCORE_OPS = (
    tile.UnaryOp,
    tile.BinaryOp,
    tile.CmpOp,
    tile.SelectOp,
    tile.CastOp,
    tile.ConstantOp,
    tile.IotaOp,
    tile.SplatOp,
    tile.BroadcastOp,
    tile.ReshapeOp,
    tile.TransposeOp,
    tile.LoadOp,
)


@dataclass
class AttentionMatch:
    scores: tile.ContractOp  # s0 = contract(q, k)
    logits: SSAValue  # s = f(s0): the values the softmax normalises
    row_max: tile.ReduceOp  # m
    row_sum: tile.ReduceOp  # l
    values: tile.ContractOp  # contract(p, v) (p = e / l, or e)
    output: SSAValue  # the attention result: `values`' result, or its division by l
    ops: list[Operation]  # every op the group computes, in program order (the ones that use s0),
    # row values included: ops on the row maximum and sum only, such as a log-sum-exp

    @property
    def query(self) -> SSAValue:
        return self.scores.lhs

    @property
    def key(self) -> SSAValue:
        return self.scores.rhs

    @property
    def value(self) -> SSAValue:
        return self.values.rhs


def _shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    return t.get_shape() if isinstance(t, tile.TileType) else ()


def _row_statistic(v: SSAValue, kind: str, chain: list[Operation]) -> tile.ReduceOp | None:
    """The `kind` reduction over the last axis that `v` broadcasts back over that axis (through
    reshapes and broadcasts, which go into `chain`), else None."""
    op = v.owner
    while isinstance(op, tile.BroadcastOp | tile.ReshapeOp):
        chain.append(op)
        op = op.source.owner
    if not isinstance(op, tile.ReduceOp) or op.kind.data != kind:
        return None
    n = len(_shape(op.source))
    if list(int_list(op.axes)) != [n - 1] or _shape(op.result) != _shape(v)[:-1]:
        return None  # (v: over the scores, or over the output when l divides it)
    # the broadcast must put each kept axis back on its own axis: a keepdims shape on the way
    kept = _shape(op.result)
    for c in chain:
        if isinstance(c, tile.ReshapeOp) and _shape(c.result) not in (kept, (*kept, 1)):
            return None
    return op


def _scores_contraction(s: SSAValue, rank: int) -> tuple[tile.ContractOp, list[Operation]] | None:
    """The one contraction in `s`'s elementwise expression (see the module doc) and the ops of
    that expression that depend on it, or None."""
    found: list[tile.ContractOp] = []
    depends: dict[SSAValue, bool] = {}
    chain: list[Operation] = []

    def walk(v: SSAValue) -> bool:  # True when v depends on the scores contraction
        if v in depends:
            return depends[v]
        if isinstance(v, BlockArgument) or not isinstance(v.type, tile.TileType):
            depends[v] = False
            return False
        op = v.owner
        if isinstance(op, tile.ContractOp):
            if found and found[0] is not op:
                raise _NoMatch
            found.append(op)
            depends[v] = True
            chain.append(op)
            return True
        if not isinstance(op, _SCORE_OPS):
            # a value the group reads (materialized by another group) may be anything without
            # the contraction in it: an attention bias, a mask
            depends[v] = False
            return False
        hit = False
        for o in op.operands:
            hit = walk(o) or hit
        if hit:
            if isinstance(op, tile.TransposeOp | tile.ReshapeOp) or _shape(v) != _shape(s):
                raise _NoMatch  # the scores are only combined element by element
            chain.append(op)
        depends[v] = hit
        return hit

    try:
        if not walk(s):
            return None
    except _NoMatch:
        return None
    c1 = found[0]
    if len(c1.batch) != rank - 2 or len(_shape(c1.result)) != rank or _shape(c1.result) != _shape(s):
        return None
    if len(_shape(c1.lhs)) != rank - 1 + len(c1.axes) or len(_shape(c1.rhs)) != rank - 1 + len(c1.axes):
        return None  # one free axis on each side: L on q, S on k
    return c1, chain


class _NoMatch(Exception):
    pass


def match_attention(c2: tile.ContractOp) -> AttentionMatch | None:
    """The attention pattern that ends at contraction `c2` (the probabilities times v), or None."""
    p, v = c2.lhs, c2.rhs
    rank = len(_shape(p))
    if rank < 2 or len(_shape(v)) != rank or len(_shape(c2.result)) != rank:
        return None
    if c2.batch != [(a, a) for a in range(rank - 2)] or c2.axes != [(rank - 1, rank - 2)]:
        return None
    ev = _shape(c2.result)[-1]
    if ev == DYNAMIC or ev > MAX_VALUE_AXIS:
        return None
    ops: list[Operation] = []
    output = c2.result
    if isinstance(p.owner, tile.DivOp):  # contract(e / l, v)
        div = p.owner
        e = div.lhs
        row_sum = _row_statistic(div.rhs, "sum", ops)
        ops.append(div)
    else:  # contract(e, v) / l
        e = p
        uses = list(c2.result.uses)
        div = uses[0].operation if len(uses) == 1 else None
        if not isinstance(div, tile.DivOp) or div.lhs is not c2.result:
            return None
        row_sum = _row_statistic(div.rhs, "sum", ops)
        output = div.result
    if row_sum is None or row_sum.source is not e:
        return None
    exp = e.owner
    if not isinstance(exp, tile.ExpOp) or not isinstance(exp.operand.owner, tile.SubOp):
        return None
    sub = exp.operand.owner
    s = sub.lhs
    row_max = _row_statistic(sub.rhs, "max", ops)
    if row_max is None or row_max.source is not s:
        return None
    found = _scores_contraction(s, rank)
    if found is None:
        return None
    c1, chain = found
    ops += [*chain, row_max, sub, exp, row_sum, c2]
    if output is not c2.result:
        ops.append(output.owner)
    members = set(ops)
    if len(members) != len(ops):
        return None  # (an op in two roles)
    rows = _shape(output)[:-1]
    row_values = _row_values(ops, row_max, row_sum, rows)
    for op in members:
        for r in op.results:
            if r is output or r in row_values:
                continue
            if any(u.operation not in members for u in r.uses):
                return None  # an S-sized value is used outside the pattern
    block = c2.parent_block()
    order = {op: i for i, op in enumerate(block.ops)} if block is not None else {}
    ops.sort(key=lambda o: order.get(o, 0))
    return AttentionMatch(c1, s, row_max, row_sum, c2, output, ops)


_ROW_OPS = (tile.UnaryOp, tile.BinaryOp, tile.CastOp, tile.SelectOp, tile.CmpOp, tile.ReshapeOp)


def _row_values(ops: list[Operation], row_max: tile.ReduceOp, row_sum: tile.ReduceOp, rows) -> set[SSAValue]:
    """The per-query values of the pattern that may leave it (the row maximum and sum, unit
    reshapes of them, and the ops computed from them, e.g. the log-sum-exp `m + log(l)` a
    backward needs); those ops are added to `ops`."""
    members = set(ops)
    values: set[SSAValue] = {row_max.result, row_sum.result}
    for op in ops:
        if isinstance(op, tile.ReshapeOp) and op.source in values and _shape(op.result) == (*rows, 1):
            values.add(op.result)
    todo = list(values)
    while todo:
        v = todo.pop()
        for use in list(v.uses):
            op = use.operation
            if op in members:
                continue
            if not isinstance(op, _ROW_OPS) or _shape(op.results[0]) not in (tuple(rows), (*rows, 1)):
                continue  # a reader outside the group: the value is one of its outputs
            members.add(op)
            ops.append(op)
            values.add(op.results[0])
            todo.append(op.results[0])
    return values


def attention_matches(block_ops) -> list[AttentionMatch]:
    """The attention patterns among `block_ops` (each contraction tried as the last one), with no
    op in two of them."""
    out: list[AttentionMatch] = []
    taken: set[Operation] = set()
    for op in block_ops:
        if isinstance(op, tile.ContractOp):
            m = match_attention(op)
            if m is not None and not taken.intersection(m.ops):
                out.append(m)
                taken.update(m.ops)
    return out


__all__ = ["AttentionMatch", "MAX_VALUE_AXIS", "attention_matches", "match_attention"]
