"""Sort / argsort / top-k of short static rows in registers (GPU `sort` groups, cuda and hip).

A row of n elements (static), padded to a power of two P <= `sort-registers`, is held by a group
of L lanes (`sort-lanes`; default P / 8, 1 to 32): lane l holds the keys of positions
l*E .. l*E + E - 1 (E = P / L, at most 32), loaded with the group's 16-byte vectors where the row
allows. `rows per block = threads / L`; the grid covers the rows (the last block's spare lanes
compute a clamped row and store nothing). No shared memory, no barrier.

Keys: one unsigned integer per element, smaller = first in the op's order: the high half is the
value's order word (floats: NaN made the canonical NaN, -0.0 made +0.0, then the sign-magnitude
to unsigned map; signed ints: the sign bit flipped; descending / largest: complemented), the low
half `position << 1 | was -0.0`. 32-bit values (f32, i32, u32) make i64 keys; 16-bit floats
and ints up to 16 bits make i32 keys (a 16-bit order word: half the registers, one shuffle and
one compare per step). Equal values compare by position, so every network is stable and ties
keep the lower index first (the documented order); keys are distinct, so the value and the
index come back from the key alone (a NaN as the canonical NaN: payloads are not kept).
Padding keys are all ones, after every element.

Two algorithms, both unrolled at compile time (E and P static):
- `bitonic`: the network over P keys; a stage with distance j < E compare-exchanges two
  registers of a lane, j >= E exchanges with lane ^ (j / E) by `mapped.shuffle_xor` and each
  lane keeps the min or the max. log2(P)(log2(P)+1)/2 stages, no barrier.
- `rounds` (top-k): each lane first orders its best min(k, E) keys (sorted runs in registers,
  merged pairwise keeping the smaller half), then k rounds; each takes the group's minimum of
  the lanes' first keys by an xor butterfly of shuffles, and the lane that held it shifts its
  list by one. Lane r % L keeps round r's key, so the results leave in k / L coalesced stores.
The group's row reductions (softmax's max and sum) combine the lane's keys' values and reduce
with the same butterflies (`GpuKernelGen.row_group`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, StringAttr, i32, i64
from xdsl.ir import SSAValue

from tilec.conversion.builder import compute_type
from tilec.conversion.tile_to_mapped.gpu_kernelgen import GpuKernelGen, RowGroup, row_index
from tilec.conversion.tile_to_mapped.group_info import tile_shape
from tilec.conversion.tile_to_mapped.options import GpuMapping
from tilec.diagnostics import NotSupportedYet, op_location
from tilec.dialects import mapped, tile
from tilec.dialects.common import bitwidth, is_float, is_unsigned

MAX_PER_LANE = 32
"""Keys one lane holds at most (64 registers of i64 keys)."""
PER_LANE = 8
"""Keys per lane the default lane count aims at (ILP of the in-register stages; more lanes per
row only add shuffles)."""
ORDER_ATTR = "tilec.order"
"""The kernel attribute naming the order algorithm and its mapping (read by tests and people)."""

_ALL_ONES = -1


@dataclass(frozen=True)
class RegisterOrder:
    """The register mapping of one order op's rows."""

    n: int  # the static row length
    padded: int  # P: n rounded up to a power of two
    lanes: int  # L: lanes per row
    threads: int  # per block
    method: str  # "bitonic" | "rounds"

    @property
    def per_lane(self) -> int:
        return self.padded // self.lanes

    @property
    def rows_per_block(self) -> int:
        return self.threads // self.lanes

    def describe(self) -> str:
        return (
            f"registers {self.method}: row {self.n} padded to {self.padded}, {self.lanes} lanes x "
            f"{self.per_lane} keys, {self.rows_per_block} rows per block"
        )


def _key_type_ok(elt) -> bool:
    """Element types with order bits of at most 32 (floats computed in f32, ints up to 32 bits)."""
    ct = compute_type(elt)
    if is_float(elt):
        return str(ct) == "f32"
    return bitwidth(ct) in (8, 16, 32)


def _stages(p: int) -> int:
    lg = p.bit_length() - 1
    return lg * (lg + 1) // 2


def plan_register_order(op: tile.SortOp | tile.TopkOp, options: GpuMapping) -> RegisterOrder | None:
    """The register mapping of `op`'s rows, or None (a dynamic or long row, a 64-bit type)."""
    n = tile_shape(op.source)[op.axis.data]
    if n <= 0 or not _key_type_ok(op.source.type.element_type):
        return None
    p = 1 << (n - 1).bit_length()
    if p > options.sort_registers:
        return None
    lanes = options.sort_lanes or max(1, min(32, p // PER_LANE))
    lanes = min(p, max(lanes, -(-p // MAX_PER_LANE)))  # (at most 32: a group stays in one warp / wave)
    threads = options.row_threads or 4 * options.wave
    method = "bitonic"
    if isinstance(op, tile.TopkOp):
        want = options.topk_method
        if want == "rounds" or (want == "auto" and _rounds_cost(op.k.data, p, lanes) <= _bitonic_cost(p, lanes)):
            method = "rounds"
    return RegisterOrder(n, p, lanes, threads, method)


# Operation counts of the two top-k algorithms per lane, in units of one compare-exchange or one
# shuffle step (a shuffle, a compare, a select): the analytic default of `topk-method`.


def _bitonic_cost(p: int, lanes: int) -> int:
    """Every stage touches each of the lane's E keys once (half a compare-exchange per key in
    the lane, a shuffle step per key across lanes)."""
    return _stages(p) * (p // lanes)


def _rounds_cost(k: int, p: int, lanes: int) -> int:
    """The lane's best min(k, E) ordered (sorted runs merged pairwise), then k rounds of a
    log2(L)-step butterfly and a shift of the winner's list."""
    e = p // lanes
    m = min(k, e)
    c = 1 << (m - 1).bit_length()
    runs = e // c
    select = runs * _stages(c) * c // 2 + (runs - 1) * (c + (c.bit_length() - 1) * c // 2)
    shifts = sum(min(m, k - r - 1) for r in range(k)) // 2
    return select + k * (lanes.bit_length() - 1) + shifts


_NAN_BITS = {"f32": 0x7FC00000, "f16": 0x7E00, "bf16": 0x7FC0}
"""The canonical (quiet, positive) NaN of each float type whose bits a key holds."""


def order_bits(elt) -> int:
    """Bits of a value's order word: 16 for 16-bit floats and ints up to 16 bits (their keys
    are i32), else 32 (i64 keys)."""
    if is_float(elt):
        return 16 if str(elt) in ("f16", "bf16") else 32
    return 16 if bitwidth(compute_type(elt)) <= 16 else 32


class _Keys:
    """Packing and unpacking of one order op's keys (see the module docstring): an i64 of the
    32-bit order word and `position << 1 | was -0.0`, or, for 16-bit values, an i32 of the
    16-bit order word and the same low half (rows up to 2^15)."""

    def __init__(self, g: GpuKernelGen, op: tile.SortOp | tile.TopkOp):
        self.g = g
        self.op = op
        self.elt = op.source.type.element_type
        self.ct = compute_type(self.elt)
        self.descending = op.is_descending if isinstance(op, tile.SortOp) else op.is_largest
        self.bits = order_bits(self.elt)
        self.type = i32 if self.bits == 16 else i64
        self.pad = g.const(_ALL_ONES, self.type)
        self.sign = 1 << (self.bits - 1)
        self.ones = (1 << self.bits) - 1

    def c32(self, v: int) -> SSAValue:
        return self.g.const(v - (1 << 32) if v >= 1 << 31 else v, i32)

    def _word(self, x: SSAValue) -> SSAValue:
        """The value's bits (floats: NaN canonical, -0.0 as +0.0) as an unsigned `bits`-bit
        number in an i32, and the i1 "was -0.0" (None for ints)."""
        g = self.g
        if not is_float(self.ct):
            w = bitwidth(self.ct)
            unsigned = is_unsigned(self.elt)
            u = x if w == 32 else g.ev((arith.ExtUIOp if unsigned else arith.ExtSIOp)(x, i32))
            if self.bits == 16 and not unsigned:
                u = g.ev(arith.AndIOp(u, self.c32(self.ones)))
            return u, None
        if self.bits == 16:
            narrow = g.ev(arith.TruncFOp(x, self.elt))  # exact: the value is one of elt's
            u = g.ev(arith.ExtUIOp(g.ev(arith.BitcastOp(narrow, IntegerType(16))), i32))
        else:
            u = g.ev(arith.BitcastOp(x, i32))
        nan = g.ev(arith.CmpfOp(x, x, "uno"))
        u = g.ev(arith.SelectOp(nan, self.c32(_NAN_BITS[str(self.elt) if self.bits == 16 else "f32"]), u))
        negzero = g.ev(arith.CmpiOp(u, self.c32(self.sign), "eq"))
        return g.ev(arith.SelectOp(negzero, self.c32(0), u)), negzero

    def pack(self, x: SSAValue, pos: SSAValue) -> SSAValue:
        """The key of value `x` (compute type) at row position `pos` (index)."""
        g = self.g
        low = g.ev(arith.ShLIOp(g.ev(arith.IndexCastOp(pos, i32)), self.c32(1)))
        u, negzero = self._word(x)
        if negzero is not None:
            low = g.ev(arith.OrIOp(low, g.ev(arith.ExtUIOp(negzero, i32))))
        if is_float(self.ct):  # sign-magnitude to unsigned: negative flips every bit, else sets the sign
            neg = g.ev(arith.CmpiOp(g.ev(arith.AndIOp(u, self.c32(self.sign))), self.c32(0), "ne"))
            order = g.ev(arith.XOrIOp(u, g.ev(arith.SelectOp(neg, self.c32(self.ones), self.c32(self.sign)))))
        elif is_unsigned(self.elt):
            order = u
        else:
            order = g.ev(arith.XOrIOp(u, self.c32(self.sign)))
        if self.descending:
            order = g.ev(arith.XOrIOp(order, self.c32(self.ones)))
        if self.type == i32:
            return g.ev(arith.OrIOp(g.ev(arith.ShLIOp(order, self.c32(16))), low))
        high = g.ev(arith.ShLIOp(g.ev(arith.ExtUIOp(order, i64)), g.const(32, i64)))
        return g.ev(arith.OrIOp(high, g.ev(arith.ExtUIOp(low, i64))))

    def _low(self, key: SSAValue) -> SSAValue:
        g = self.g
        if self.type == i32:
            return g.ev(arith.AndIOp(key, self.c32(0xFFFF)))
        return g.ev(arith.TruncIOp(key, i32))

    def index(self, key: SSAValue) -> SSAValue:
        """The row position (i64) of a key."""
        g = self.g
        return g.ev(arith.ExtUIOp(g.ev(arith.ShRUIOp(self._low(key), self.c32(1))), i64))

    def value(self, key: SSAValue) -> SSAValue:
        """The value (compute type) of a key."""
        g = self.g
        if self.type == i32:
            order = g.ev(arith.ShRUIOp(key, self.c32(16)))
        else:
            order = g.ev(arith.TruncIOp(g.ev(arith.ShRUIOp(key, g.const(32, i64))), i32))
        if self.descending:
            order = g.ev(arith.XOrIOp(order, self.c32(self.ones)))
        if is_float(self.ct):
            # sign bit set: a positive value (clear it); else a negative one (flip every bit)
            pos = g.ev(arith.CmpiOp(g.ev(arith.AndIOp(order, self.c32(self.sign))), self.c32(0), "ne"))
            u = g.ev(arith.XOrIOp(order, g.ev(arith.SelectOp(pos, self.c32(self.sign), self.c32(self.ones)))))
            negzero = g.ev(arith.ShLIOp(g.ev(arith.AndIOp(self._low(key), self.c32(1))), self.c32(self.bits - 1)))
            u = g.ev(arith.OrIOp(u, negzero))
            if self.bits == 32:
                return g.ev(arith.BitcastOp(u, self.ct))
            narrow = g.ev(arith.BitcastOp(g.ev(arith.TruncIOp(u, IntegerType(16))), self.elt))
            return g.ev(arith.ExtFOp(narrow, self.ct))
        if not is_unsigned(self.elt):
            order = g.ev(arith.XOrIOp(order, self.c32(self.sign)))
        return order if bitwidth(self.ct) == 32 else g.ev(arith.TruncIOp(order, self.ct))


def _tree(g: GpuKernelGen, cls, values: list[SSAValue]) -> SSAValue:
    """values[0] cls values[1] cls ... as a balanced tree (short dependency chains)."""
    while len(values) > 1:
        nxt = [g.ev(cls(values[i], values[i + 1])) for i in range(0, len(values) - 1, 2)]
        if len(values) % 2:
            nxt.append(values[-1])
        values = nxt
    return values[0]


def _out_width(g: GpuKernelGen, buf: SSAValue, count: int, per_lane: int, last_axis: bool) -> int:
    """Consecutive outputs one store writes: 16 bytes where the output row and the lane's keys allow."""
    if not last_axis:
        return 1
    bt = buf.type
    assert isinstance(bt, mapped.BufType)
    w = max(1, 16 // max(1, bitwidth(bt.element_type) // 8))
    while w > 1 and (count % w or per_lane % w or bt.get_shape()[-1] % w):
        w //= 2
    return w


def lower_register_order(g: GpuKernelGen, fused: tile.FusedOp, outputs, plan: RegisterOrder, vector: int) -> None:
    """The kernel of a `sort` group whose order op takes the register mapping `plan`; `vector`:
    the group's load width along the row (1 unless the order axis is the last)."""
    op = next(o for o in fused.body.block.ops if isinstance(o, tile.ORDER_OPS))
    src, a = op.source, op.axis.data
    rank = len(tile_shape(src))
    last_axis = a == rank - 1
    n, p, lanes, e_count = plan.n, plan.padded, plan.lanes, plan.per_lane
    g.block_threads = plan.threads
    g.attrs[ORDER_ATTR] = StringAttr(plan.describe())
    sizes = [g.size(src, d) for d in range(rank)]
    row_axes = [d for d in range(rank) if d != a]
    rows = g.host_value(g.host.e.product([g.host.size(src, d) for d in row_axes]))
    g.set_grid([g.grid_factor(rows, plan.rows_per_block)], [1], [1])
    tid = g.ev(mapped.ThreadIdOp("x"))
    lane = g.remui(tid, g.index(lanes))
    row = g.addi(g.muli(g.ev(mapped.BlockIdOp("x")), g.index(plan.rows_per_block)), g.divui(tid, g.index(lanes)))
    live = g.ev(arith.CmpiOp(row, rows, "ult"))
    row_c = g.minui(row, g.subi(rows, g.index(1)))  # spare lanes compute the last row, store nothing
    outer = g.delinearize(row_c, [sizes[d] for d in row_axes])

    def at(j: SSAValue) -> list[SSAValue]:
        return [*outer[:a], j, *outer[a:]]

    # this lane's positions, the (clamped, vector-aligned) index each reads, and whether it is real
    w = vector if last_axis else 1
    while w > 1 and (e_count % w or n % w):
        w //= 2
    first = g.muli(lane, g.index(e_count))
    positions, reads, real, vector_starts = [], [], [], []
    for v0 in range(0, e_count, w):
        start = g.addi(first, g.index(v0))
        vector_starts.append(start)
        read = start if n == p else g.minui(start, g.index(n - w))
        for i in range(w):
            pos = g.addi(start, g.index(i))
            positions.append(pos)
            reads.append(g.lane_index(read, i, w) if w > 1 else read)
            real.append(None if n == p else g.ev(arith.CmpiOp(pos, g.index(n), "ult")))
    g.row_reduce = (tid, [sizes[a]], 1, sizes[a])
    g.row_group = RowGroup(lanes, list(zip(reads, real)))
    for red in fused.body.block.ops:
        if isinstance(red, tile.ReduceOp) and last_axis:
            g.value_at(red.result, row_index(red.result, outer, g, rank))

    ordered = {v: b for v, b in outputs if v in (op.values, op.indices)}
    full = [(v, b) for v, b in outputs if v not in ordered and tile_shape(v) == tile_shape(src) and last_axis]
    rowlevel = [(v, b) for v, b in outputs if v not in ordered and (v, b) not in full]
    if rowlevel and not last_axis:
        raise NotSupportedYet("row-level outputs of a sort group along a leading axis", op_location(fused))
    keys = _Keys(g, op)
    key = []
    for pos, read, ok in zip(positions, reads, real):
        k = keys.pack(g.order_key_at(src, at(read)), pos)
        key.append(k if ok is None else g.ev(arith.SelectOp(ok, k, keys.pad)))
    # the group's other outputs: full-size ones where the row is real, row-level ones by lane 0
    for s, start in enumerate(vector_starts):
        if not full:
            break
        ok = live if n == p else g.ev(arith.AndIOp(live, g.ev(arith.CmpiOp(start, g.index(n), "ult"))))
        vals = [[g.value_at(v, at(reads[s * w + i])) for i in range(w)] for v, _ in full]
        iff, body = g.open_if(g.top, ok)
        base = g.move_to(start, body)
        for (v, b), lane_vals in zip(full, vals):
            _store_run(g, lane_vals, b, at, base, v.type.element_type, last_axis)
        g.close_if(g.top, iff)
    if rowlevel:
        vals = [(g.value_at(v, row_index(v, outer, g, rank)), v, b) for v, b in rowlevel]
        lead = g.ev(arith.AndIOp(live, g.ev(arith.CmpiOp(lane, g.index(0), "eq"))))
        iff, body = g.open_if(g.top, lead)
        for val, v, b in vals:
            idx = [g.move_to(i, body) for i in row_index(v, outer, g, rank)] or [g.index(0)] * b.type.rank
            g.emit(mapped.StoreOp(g.to_storage(val, v.type.element_type), b, idx), body)
        g.close_if(g.top, iff)

    if plan.method == "rounds":
        _rounds(g, op, keys, key, lane, lanes, live, at, ordered, last_axis)
        return
    key = _bitonic(g, key, lane, lanes, p)
    count = op.k.data if isinstance(op, tile.TopkOp) else n
    _store_sorted(g, op, keys, key, first, e_count, count, live, at, ordered, last_axis)


def _store_run(g: GpuKernelGen, values, buf, at, base: SSAValue, elt, last_axis: bool) -> None:
    """Store len(values) outputs at positions base, base + 1, ... of the row (one vector store
    along the last axis); `base` lives in the guarding scope."""
    if last_axis:
        g.store_lanes(values, buf, at(base), elt)
        return
    for i, x in enumerate(values):
        g.store(x, buf, at(g.addi(base, g.index(i)) if i else base), elt)


def _rounds(g: GpuKernelGen, op: tile.TopkOp, keys: _Keys, key, lane, lanes: int, live, at, ordered, last_axis):
    """Each lane first orders its best m = min(k, E) keys (runs of c = pow2 >= m sorted in
    registers, then merged pairwise keeping the smaller half); then k rounds of: the group's
    minimum of the lanes' first keys (a butterfly), the winning lane shifting its list by one.
    Lane r % L keeps round r's key. A lane's list only needs k - r - 1 entries after round r."""
    k = op.k.data
    m = min(k, len(key))
    c = 1 << (m - 1).bit_length()
    runs = [_bitonic(g, key[i : i + c], lane, 1, c) for i in range(0, len(key), c)]
    while len(runs) > 1:
        runs = [_merge_low(g, runs[i], runs[i + 1]) for i in range(0, len(runs), 2)]
    best_keys = runs[0][:m]
    slots = -(-k // lanes)
    kept = [keys.pad] * slots
    mine = [g.ev(arith.CmpiOp(lane, g.index(q), "eq")) for q in range(min(lanes, k))] if lanes > 1 else []
    for r in range(k):
        best = best_keys[0]
        mask = lanes // 2
        while mask >= 1:
            best = g.ev(arith.MinUIOp(best, g.ev(mapped.ShuffleXorOp(best, mask))))
            mask //= 2
        s = r // lanes
        kept[s] = best if lanes == 1 else g.ev(arith.SelectOp(mine[r % lanes], best, kept[s]))
        depth = min(len(best_keys), k - r - 1)
        if lanes == 1:
            best_keys = best_keys[1 : depth + 1]
        elif depth > 0:
            won = g.ev(arith.CmpiOp(best_keys[0], best, "eq"))
            nxt = [*best_keys[1:], keys.pad]
            best_keys = [g.ev(arith.SelectOp(won, nxt[i], best_keys[i])) for i in range(depth)]
    for s in range(slots):
        pos = g.addi(g.index(s * lanes), lane)
        ok = live
        if (s + 1) * lanes > k:
            ok = g.ev(arith.AndIOp(live, g.ev(arith.CmpiOp(pos, g.index(k), "ult"))))
        _store_keys(g, op, keys, [kept[s]], pos, ok, at, ordered, last_axis)


def _merge_low(g: GpuKernelGen, a: list[SSAValue], b: list[SSAValue]) -> list[SSAValue]:
    """The len(a) smallest keys of two ascending runs of that length, ascending: the elementwise
    minimum of a and reversed b is bitonic, then the half-cleaners of a bitonic merge."""
    n = len(a)
    x = [g.ev(arith.MinUIOp(a[i], b[n - 1 - i])) for i in range(n)]
    j = n // 2
    while j >= 1:
        for e in range(n):
            if not e & j:
                x[e], x[e + j] = _compare_exchange(g, x[e], x[e + j], None)
        j //= 2
    return x


def _compare_exchange(g: GpuKernelGen, lo: SSAValue, hi: SSAValue, desc) -> tuple[SSAValue, SSAValue]:
    """(min, max) of two keys, or (max, min) where `desc` (True, or an i1 known at run time)."""
    if desc is True:
        swap = g.ev(arith.CmpiOp(lo, hi, "ult"))
    else:
        swap = g.ev(arith.CmpiOp(hi, lo, "ult"))
        if desc is not None:
            swap = g.ev(arith.XOrIOp(swap, desc))
    return g.ev(arith.SelectOp(swap, hi, lo)), g.ev(arith.SelectOp(swap, lo, hi))


def _store_keys(g: GpuKernelGen, op, keys: _Keys, run: list[SSAValue], base: SSAValue, ok, at, ordered, last_axis):
    """The values / indices of consecutive keys `run` at row positions base, base + 1, ... when `ok`."""
    vals = {}
    if op.values in ordered:
        vals[op.values] = [keys.value(x) for x in run]
    if op.indices in ordered:
        vals[op.indices] = [keys.index(x) for x in run]
    iff, body = g.open_if(g.top, ok)
    b0 = g.move_to(base, body)
    for v, xs in vals.items():
        _store_run(g, xs, ordered[v], at, b0, v.type.element_type, last_axis)
    g.close_if(g.top, iff)


def _bitonic(g: GpuKernelGen, key: list[SSAValue], lane: SSAValue, lanes: int, p: int) -> list[SSAValue]:
    """The bitonic network over the group's P keys (position lane * E + e), ascending."""
    e_count = p // lanes
    key = list(key)

    def lane_bit(bit: int) -> SSAValue:
        """i1: lane & bit != 0."""
        return g.ev(arith.CmpiOp(g.ev(arith.AndIOp(lane, g.index(bit))), g.index(0), "ne"))

    size = 2
    while size <= p:
        # the direction of a run of `size`: descending where position & size != 0
        desc = None if size == p or size < e_count else lane_bit(size // e_count)
        j = size // 2
        while j >= 1:
            if j >= e_count:  # across lanes: keep the min where (lower lane) == (ascending run)
                upper = lane_bit(j // e_count)
                take_max = upper if desc is None else g.ev(arith.XOrIOp(upper, desc))
                for e in range(e_count):
                    other = g.ev(mapped.ShuffleXorOp(key[e], j // e_count))
                    before = g.ev(arith.CmpiOp(other, key[e], "ult"))
                    take = g.ev(arith.XOrIOp(before, take_max))
                    key[e] = g.ev(arith.SelectOp(take, other, key[e]))
            else:  # within the lane
                for e in range(e_count):
                    if not e & j:
                        d = (True if e & size else None) if size < e_count else desc
                        key[e], key[e + j] = _compare_exchange(g, key[e], key[e + j], d)
            j //= 2
        size *= 2
    return key


def _store_sorted(g: GpuKernelGen, op, keys: _Keys, key, first, e_count: int, count: int, live, at, ordered, last_axis):
    """The first `count` sorted keys (lane l holds positions l*E ..): values and indices stored."""
    w = min(_out_width(g, ordered[v], count, e_count, last_axis) for v in ordered)
    for e0 in range(0, e_count, w):
        base = g.addi(first, g.index(e0))
        ok = g.ev(arith.AndIOp(live, g.ev(arith.CmpiOp(base, g.index(count), "ult"))))
        _store_keys(g, op, keys, key[e0 : e0 + w], base, ok, at, ordered, last_axis)


__all__ = ["ORDER_ATTR", "RegisterOrder", "lower_register_order", "plan_register_order"]
