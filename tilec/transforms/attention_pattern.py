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

The same module finds *streams* (`stream_matches`): contractions over ONE axis (L or S) of
(B..., L, S) values computed element by element from other such contractions, which is what
attention's backward is (dq = ds k over S; dk = ds^T q and dv = p^T g over L, with p and ds
re-computed from q k^T, g v^T and the saved log-sum-exp); each stream is a `stream` group.

`tile-fuse` (with `attention=true`) puts the ops of a match in one `attention` group; the CPU
lowering finds the same match again inside the group's body (`match_attention` of its last
contraction) and computes `out` with an online softmax over the keys: no L x S buffer.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import BlockArgument, Operation, SSAValue

from tilec.dialects import tile
from tilec.dialects.common import DYNAMIC, int_list, is_float

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


def _pair_expression(s: SSAValue, rank: int) -> tuple[list[tile.ContractOp], list[Operation]] | None:
    """The contractions in `s`'s elementwise expression (see the module doc), each a (B..., L, S)
    product of a per-query and a per-key tile over their last axes (q k^T, or g v^T in the
    backward), and the ops of that expression that depend on them (in post-order), or None."""
    found: list[tile.ContractOp] = []
    depends: dict[SSAValue, bool] = {}
    chain: list[Operation] = []

    def walk(v: SSAValue) -> bool:  # True when v depends on a contraction
        if v in depends:
            return depends[v]
        if isinstance(v, BlockArgument) or not isinstance(v.type, tile.TileType):
            depends[v] = False
            return False
        op = v.owner
        if isinstance(op, tile.ContractOp):
            found.append(op)
            depends[v] = True
            chain.append(op)
            return True
        if not isinstance(op, _SCORE_OPS):
            # a value the group reads (materialized by another group) may be anything without
            # a contraction in it: an attention bias, a mask, a row statistic
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
    for c in found:
        if len(c.batch) != rank - 2 or len(_shape(c.result)) != rank or _shape(c.result) != _shape(s):
            return None
        if len(_shape(c.lhs)) != rank - 1 + len(c.axes) or len(_shape(c.rhs)) != rank - 1 + len(c.axes):
            return None  # one free axis on each side: L on the left, S on the right
    return found, chain


def _scores_contraction(s: SSAValue, rank: int) -> tuple[tile.ContractOp, list[Operation]] | None:
    """The one contraction in `s`'s elementwise expression and the ops that depend on it."""
    found = _pair_expression(s, rank)
    if found is None or len(found[0]) != 1:
        return None
    return found[0][0], found[1]


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


# --- streams: attention's backward ------------------------------------------------------------


@dataclass
class StreamMatch:
    """Contractions over ONE axis (L or S) of (B..., L, S) values computed element by element from
    other contractions: attention's backward (dq = ds k over S; dk = ds^T q and dv = p^T g over L,
    with p = exp(s - lse) and ds = p (g v^T - delta) recomputed from q k^T and g v^T). Per kept
    index (a query for dq, a key for dk and dv), a loop over the streamed axis evaluates the
    values and accumulates each contraction's row: nothing L x S is stored."""

    outer: list[tile.ContractOp]  # contract(F, W) over the streamed axis, F the lhs
    axis: int  # the streamed axis of the (B..., L, S) domain: rank - 2 (L) or rank - 1 (S)
    inner: list[tile.ContractOp]  # the (B..., L, S) contractions the F values are computed from
    ops: list[Operation]  # inner contractions, the ops depending on them, the outer ones (program order)


def _outer_form(op: tile.ContractOp) -> tuple[int, int] | None:
    """(rank, streamed axis) when `op` contracts its lhs F (B..., L, S) over L or S with a W
    (B..., L or S, Ew) over W's axis rank - 2 (its value axis Ew static, at most MAX_VALUE_AXIS)."""
    f, w = op.lhs, op.rhs
    rank = len(_shape(f))
    if not is_float(op.acc):
        return None
    if rank < 2 or len(_shape(w)) != rank or len(_shape(op.result)) != rank:
        return None
    if op.batch != [(a, a) for a in range(rank - 2)] or len(op.axes) != 1:
        return None
    (fa, wa), ew = op.axes[0], _shape(w)[-1]
    if fa not in (rank - 2, rank - 1) or wa != rank - 2 or ew == DYNAMIC or ew > MAX_VALUE_AXIS:
        return None
    return rank, fa


def stream_matches(block_ops, taken: set[Operation] = frozenset()) -> list[StreamMatch]:
    """The streams among `block_ops` (ops in `taken`, e.g. forward attention groups, left out).
    Contractions over the same axis whose values share ops form one stream; values that streams
    over DIFFERENT axes share (ds: read by dq over S and by dk over L) are cloned for the later
    stream, so each stream re-computes its own (the IR is changed: call it from a pass)."""
    ops = list(block_ops)
    candidates: list[tuple[tile.ContractOp, int, list[tile.ContractOp], list[Operation]]] = []
    for op in ops:
        if not isinstance(op, tile.ContractOp) or op in taken:
            continue
        form = _outer_form(op)
        found = _pair_expression(op.lhs, form[0]) if form is not None else None
        if found is None or not found[0] or taken.intersection(found[1]) or not _has_probabilities(found[1]):
            continue
        candidates.append((op, form[1], *found))
    # streams: contractions over one axis whose expressions share an op
    streams: list[tuple[int, list]] = []
    for cand in candidates:
        merged = [st for st in streams if st[0] == cand[1] and any(set(c[3]) & set(cand[3]) for c in st[1])]
        for st in merged:
            streams.remove(st)
        streams.append((cand[1], [c for st in merged for c in st[1]] + [cand]))
    # every value of an expression must be read only by expressions of streams and their contractions
    while True:
        members = {o for _, cs in streams for c in cs for o in (c[0], *c[3])}
        kept = [
            st
            for st in streams
            if all(u.operation in members for c in st[1] for o in c[3] for r in o.results for u in r.uses)
        ]
        if len(kept) == len(streams):
            break
        streams = kept
    order = {op: i for i, op in enumerate(ops)}
    owner: dict[Operation, int] = {}
    out: list[StreamMatch] = []
    for n, (axis, cands) in enumerate(sorted(streams, key=lambda st: min(order[c[0]] for c in st[1]))):
        expr = sorted({o for c in cands for o in c[3]}, key=lambda o: order[o])
        shared = [o for o in expr if o in owner and owner[o] != n]
        if shared:
            clones = _clone_before(shared, min((c[0] for c in cands), key=lambda o: order[o]))
            cands = [_rewire(c, clones) for c in cands]
            expr = [clones.get(o, o) for o in expr]
        for o in expr:
            owner.setdefault(o, n)
        inner = [o for o in expr if isinstance(o, tile.ContractOp)]
        outer = [c[0] for c in cands]
        out.append(StreamMatch(outer, axis, inner, [*expr, *outer]))
    return out


def _has_probabilities(chain: list[Operation]) -> bool:
    """Whether the expression holds softmax probabilities re-computed from a saved statistic,
    `exp(s - lse)` (lse not computed from the scores): what makes streaming pay (attention's
    backward). Without it (an MLP's
    `relu(x @ w1) @ w2`) the value is an ordinary GEMM operand, best materialized and packed."""
    for op in chain:
        if isinstance(op, tile.ExpOp) and isinstance(op.operand.owner, tile.SubOp):
            sub = op.operand.owner
            if sub.lhs.owner in chain and sub.rhs.owner not in chain:
                return True
    return False


def _clone_before(shared: list[Operation], anchor: Operation) -> dict[Operation, Operation]:
    """Copies of `shared` (in program order) inserted before `anchor`, reading each other."""
    clones: dict[Operation, Operation] = {}
    values: dict[SSAValue, SSAValue] = {}
    block = anchor.parent_block()
    assert block is not None
    for op in shared:
        new = op.clone(value_mapper=values)
        block.insert_op_before(new, anchor)
        for a, b in zip(op.results, new.results):
            values[a] = b
        clones[op] = new
    return clones


def _rewire(cand, clones: dict[Operation, Operation]):
    """A stream candidate reading the clones instead of the originals."""
    op, axis, inner, chain = cand
    op.operands = [
        clones[v.owner].results[v.index] if isinstance(v.owner, Operation) and v.owner in clones else v
        for v in op.operands
    ]
    return op, axis, [clones.get(c, c) for c in inner], [clones.get(o, o) for o in chain]


def match_stream(block_ops) -> StreamMatch | None:
    """The one stream of a `stream` group's body (no cloning: a body holds one), or None."""
    found = stream_matches(block_ops)
    return found[0] if len(found) == 1 else None


def causal_shift(m: AttentionMatch) -> int | None:
    """For scores masked causally as their last step, `where(j <= i, s, -inf)` (or `j < i`, and
    the same comparisons written `i >= j`, `i > j`) with i and j iotas along the query and key
    axes: query i sees keys j < i + shift (shift 1, or 0), and the rest can be skipped. Else None."""
    sel = m.logits.owner
    if not isinstance(sel, tile.SelectOp) or sel.true_value.owner not in m.ops:
        return None
    const = sel.false_value.owner
    if not isinstance(const, tile.ConstantOp) or const.splat_value() != float("-inf"):
        return None
    cond = sel.cond.owner
    while isinstance(cond, tile.BroadcastOp):
        cond = cond.source.owner
    if not isinstance(cond, tile.CmpOp):
        return None
    axes = []
    for v in (cond.lhs, cond.rhs):
        op = v.owner
        if not isinstance(op, tile.IotaOp):
            return None
        rank = len(_shape(op.result))
        axes.append({rank - 1: "j", rank - 2: "i"}.get(op.axis.data))
    form = (cond.predicate.data, *axes)
    return {("le", "j", "i"): 1, ("ge", "i", "j"): 1, ("lt", "j", "i"): 0, ("gt", "i", "j"): 0}.get(form)


FLASH_HEAD_DIMS = range(16, 257, 16)
"""Head sizes (E of q and k, Ev of v) the tensor-core flash kernels take: whole 16-wide MMA steps."""


def _widened_source(v: SSAValue) -> SSAValue:
    """`v` without a widening float cast (the library's f16 -> f32 `opmath`)."""
    op = v.owner
    if isinstance(op, tile.CastOp) and is_float(op.source.type.element_type):
        src, dst = op.source.type.element_type, v.type.element_type
        if is_float(dst) and src.bitwidth <= dst.bitwidth:  # type: ignore[attr-defined]
            return op.source
    return v


@dataclass
class FlashOperands:
    """What a tensor-core flash kernel reads: q, k, v as arrays (B..., H, L, E), (B..., Hkv, S, E),
    (B..., Hkv, S, Ev) (with grouped-query attention k and v may also be the (B..., Hkv, 1, S, E)
    or (B..., Hkv, G, S, E) values of `repeated_heads`); query head h reads K/V head h // kv_groups."""

    q: SSAValue
    k: SSAValue
    v: SSAValue
    kv_groups: int = 1

    @property
    def arrays(self) -> tuple[SSAValue, SSAValue, SSAValue]:
        return self.q, self.k, self.v


def repeated_heads(x: SSAValue) -> tuple[SSAValue, int] | None:
    """(source, groups) when x is `tilec.library.attention.repeat_heads(source, groups)`: each head
    of source (..., Hkv, S, E) repeated `groups` times along the head axis, written
    reshape(broadcast(reshape(source, (..., Hkv, 1, S, E)), (..., Hkv, G, S, E)), (..., Hkv G, S, E)).
    Inside a group whose input is a view of the inner values, the source is that value instead:
    the (..., Hkv, 1, S, E) reshape, or the (..., Hkv, G, S, E) broadcast itself (any (..., Hkv,
    G, S, E) value merged into Hkv G heads: head h is its [h // G, h % G], repeated or not)."""
    r2 = x.owner
    if not isinstance(r2, tile.ReshapeOp):
        return None
    wide, out = _shape(r2.source), _shape(x)
    n = len(out)
    if n < 3 or DYNAMIC in wide or len(wide) != n + 1:
        return None
    lead, h, groups = wide[: n - 3], wide[n - 3], wide[n - 2]
    if out != (*lead, h * groups, *wide[n - 1 :]):
        return None
    src = r2.source
    bc = src.owner
    if isinstance(bc, tile.BroadcastOp) and _shape(bc.source) == (*lead, h, 1, *wide[n - 1 :]):
        src = bc.source
        inner = src.owner
        if isinstance(inner, tile.ReshapeOp) and _shape(inner.source) == (*lead, h, *wide[n - 1 :]):
            src = inner.source
    return src, groups


def flash_operands(m: AttentionMatch) -> FlashOperands | None:
    """What a tensor-core flash kernel reads, or None where it does not apply: q, k, v of the same
    16-bit float type (f16 or bf16; a widening cast to f32 before the contraction is looked
    through: the MMA multiplies exactly and accumulates in f32), q (B..., L, E), k (B..., S, E)
    and v (B..., S, Ev) in that axis order (no transpose inside the group: a transposed k is
    read in place by the plain kernels), E and Ev static in FLASH_HEAD_DIMS, f32 accumulation,
    no operand a view other than a plain argument (a transpose or a broadcast of one), except K
    and V heads repeated for grouped-query attention (`repeated_heads`, the same groups for both)."""
    c1, c2 = m.scores, m.values
    q, k, v = (_widened_source(x) for x in (c1.lhs, c1.rhs, c2.rhs))
    groups = 1
    reps = [repeated_heads(x) for x in (k, v)]
    if any(reps):
        if not all(reps) or reps[0][1] != reps[1][1]:
            return None
        (k, groups), (v, _) = reps
    types = {str(x.type.element_type) for x in (q, k, v)}
    if len(types) != 1 or types.pop() not in ("f16", "bf16") or str(c1.acc) != "f32" or str(c2.acc) != "f32":
        return None
    rank = len(_shape(q))
    nb = rank - 2
    kv_ranks = {len(_shape(k)), len(_shape(v))}
    if not kv_ranks <= ({rank, rank + 1} if groups > 1 else {rank}):
        return None
    if len(_shape(c2.lhs)) != rank:
        return None
    lead = [(a, a) for a in range(nb)]
    if [tuple(b) for b in c1.batch] != lead or [tuple(a) for a in c1.axes] != [(nb + 1, nb + 1)]:
        return None
    if [tuple(b) for b in c2.batch] != lead or [tuple(a) for a in c2.axes] != [(nb + 1, nb)]:
        return None
    if _shape(q)[-1] not in FLASH_HEAD_DIMS or _shape(v)[-1] not in FLASH_HEAD_DIMS:
        return None
    for x in (q, k, v):
        if isinstance(x.owner, tile.TransposeOp) or (
            isinstance(x.owner, tile.BroadcastOp | tile.ReshapeOp) and len(_shape(x)) == rank
        ):
            return None
    return FlashOperands(q, k, v, groups)


__all__ = [
    "AttentionMatch",
    "MAX_VALUE_AXIS",
    "StreamMatch",
    "attention_matches",
    "FLASH_HEAD_DIMS",
    "FlashOperands",
    "causal_shift",
    "flash_operands",
    "match_attention",
    "match_stream",
    "repeated_heads",
    "stream_matches",
]
