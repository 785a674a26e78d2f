"""The mapped -> hw lowering of GPU kernels: one algorithm for NVIDIA (mapped-to-hw-nv, PTX) and
AMD (mapped-to-hw-amd, HIP), asking a per-target `GpuTarget` (like Triton's `TargetInfoBase`) for
what differs: special registers, shuffles, barriers, shared/LDS memory, loads and stores, the
matrix instructions (fragments_nv.py, fragments_amd.py) and math.

A mapped.kernel is rewritten in place inside a new hw kernel (`KernelBuilder`: values every thread
computes once go to the kernel's top, pure ops are hoisted when they are created, replaced ops are
erased at the end):
- Parameters: a global buffer becomes a pointer (the target's type) plus one i64 per dynamic
  dimension; index scalars become i64. `index` stays 64-bit inside the body until `narrow_index`.
- Thread hierarchy ops read the target's registers.
- Addresses: global ones are i64 byte addresses from the pointer; shared ones i32, from the last
  two axes (with the buffer's XOR swizzle) plus the leading slot axes.
- Loads/stores: bools are bytes in memory; vectors the target keeps per lane (`per_lane`) live in
  `lanes` as lists of scalars, the others stay vectors.
- `mapped.reduce`: an xor butterfly over the warp, then, across a block, one scratch slot per warp
  and a second butterfly that every warp runs (no second barrier round).
- Copies: the chunks of a 2-D window are dealt round-robin to the block's threads (`copy_chunks`);
  what a chunk does is the target's.
- Fragments: scf.for / scf.yield carrying fragments carry their registers instead; a frag_store
  epilogue is inlined per element (`epilogue_value`); layouts and instructions are the target's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects import arith, scf, vector
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    UnrealizedConversionCastOp,
    VectorType,
    i1,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from tilec.conversion.builder import KernelBuilder, neutral
from tilec.conversion.mapped_to_hw.params import bind_args, buffer_params
from tilec.dialects import mapped
from tilec.dialects.common import DYNAMIC, bitwidth
from tilec.dialects.hw import PtrToIntOp
from tilec.passes.api import PassFailure

SCRATCH = "tilec_reduce_scratch"
FOREACH_ATTR = "tilec.foreach"  # a program over lists (tile.FOREACH_ATTR, kept on the mapped.host)
SCRATCH_BYTES = 256  # the block-reduction scratch: one slot per warp
TUPLE_SCRATCH = "tilec_scan_scratch"  # combine_scan: one slot per warp and value
SLOTS = "tilec_block_slots"  # 8-byte slots broadcasting a ticket or a look-back prefix to the block
LOOKBACK_PER_LANE = 4  # predecessors each lane of the look-back warp reads per step (loads in flight)

HIERARCHY_OPS = (mapped.ThreadIdOp, mapped.BlockIdOp, mapped.BlockDimOp, mapped.GridDimOp)

_COMBINE = {
    ("sum", True): arith.AddfOp,
    ("prod", True): arith.MulfOp,
    ("max", True): arith.MaximumfOp,
    ("min", True): arith.MinimumfOp,
    ("sum", False): arith.AddiOp,
    ("prod", False): arith.MuliOp,
    ("max", False): arith.MaxSIOp,
    ("min", False): arith.MinSIOp,
}


class GpuTarget:
    """The questions the GPU lowering asks a target; one instance per pass run (its options).

    `k` below is the `GpuKernelLowering` of the kernel being lowered, `before` the op new ops go
    before. Hooks that return an op build it only; the lowering places it.
    """

    pass_name: ClassVar[str] = "mapped-to-hw-gpu"
    gpus: ClassVar[str] = "GPUs"  # in "... is not supported yet on {gpus}"
    lanes_message: ClassVar[str] = "vector values must come from loads, broadcasts, inserts or selects"
    origin_locations: ClassVar[bool] = False  # locate new ops at a NameLoc naming the mapped op
    addr_suffix: ClassVar[str | None] = None  # name of a buffer's base address: the buffer's + this
    keep_load_names: ClassVar[bool] = False  # a scalar load's result takes the mapped load's name
    scale_unit_stride: ClassVar[bool] = False  # multiply element offsets by the element size also when it is 1
    scratch_slot: ClassVar[int] = 4  # bytes per warp in the block-reduction scratch
    scratch_base_at_top: ClassVar[bool] = False  # the scratch address once per kernel (else per reduction)
    guard_before_slot: ClassVar[bool] = False  # block reduce: the partials' guard before their slot address
    shuffle_word_bits: ClassVar[int] = 64  # the widest value one shuffle moves (wider: several words)
    math_ops: ClassVar[tuple[type[Operation], ...]] = ()  # math ops handed to `lower_math`
    lowerings: ClassVar[dict[type[Operation], Callable[[GpuKernelLowering, Operation], None]]] = {}  # see `lower_op`

    # --- the kernel ------------------------------------------------------------------------------

    def kernel_problem(self, kernel: mapped.KernelOp) -> str | None:
        """Why this target cannot run `kernel`, or None."""
        return None

    def buffer_param(self, t: mapped.BufType) -> Attribute:
        raise NotImplementedError

    def scalar_param(self, kernel: mapped.KernelOp, t: Attribute) -> Attribute:
        return t

    def warp_size(self, kernel: mapped.KernelOp) -> int:
        return 32

    def kernel_op(
        self, kernel: mapped.KernelOp, params: list[Attribute], block_dims: list[int], threads: int
    ) -> Operation:
        raise NotImplementedError

    def return_op(self) -> Operation:
        raise NotImplementedError

    # --- registers and synchronization -----------------------------------------------------------

    def hierarchy_register(self, op: Operation) -> Operation:
        """The i32 register of a thread/block id or size op (`op.dim` is x, y or z)."""
        raise NotImplementedError

    def tid_register(self) -> Operation:
        """The i32 thread id along x."""
        raise NotImplementedError

    def lane_register(self) -> Operation:
        """The i32 lane of the thread in its warp."""
        raise NotImplementedError

    def lower_lane_id(self, k: GpuKernelLowering, op: mapped.LaneIdOp) -> None:
        raise NotImplementedError

    def lower_warp_id(self, k: GpuKernelLowering, op: mapped.WarpIdOp) -> None:
        raise NotImplementedError

    def barrier(self, scope: str, op: Operation) -> Operation:
        raise NotImplementedError

    def shuffle_xor(self, x: SSAValue, offset: int) -> Operation:
        raise NotImplementedError

    def reduce_problem(self, t: Attribute) -> str | None:
        """Why cross-thread reductions of `t` are not supported (the types one can shuffle), or None."""
        return None

    # --- memory ----------------------------------------------------------------------------------

    def shared_decl(self, name: str, size: int, align: int) -> Operation:
        """A named static shared/LDS array (the kernel's first ops)."""
        raise NotImplementedError

    def shared_addr(self, name: str) -> Operation:
        """The i32 address of a named shared/LDS array."""
        raise NotImplementedError

    def shared_alloc(self, k: GpuKernelLowering, t: mapped.BufType) -> SSAValue:
        """The i32 base address of a new shared buffer of type `t`."""
        raise NotImplementedError

    def global_offset(self, k: GpuKernelLowering, off: SSAValue, before: Operation) -> SSAValue:
        """An element offset (index) as i64, to scale into a global byte offset."""
        return k.b.ins(arith.IndexCastOp(off, i64), before)

    def load_op(self, space: str, addr: SSAValue, t: Attribute, read_only: bool) -> Operation:
        """A load of one `t` (scalar or vector) in `space` ("global" or "shared") at `addr`;
        `read_only`: a global buffer the kernel never writes."""
        raise NotImplementedError

    def store_op(self, space: str, addr: SSAValue, v: SSAValue) -> Operation:
        raise NotImplementedError

    def atomic_add_op(self, addr: SSAValue, v: SSAValue, op: Operation) -> Operation:
        """An atomic `*addr += v` to global memory (no result); a PassFailure at `op` for an
        element type this target cannot add atomically."""
        raise PassFailure(op, f"{self.pass_name}: atomic adds are not supported yet on {self.gpus}")

    def atomic_load_op(self, addr: SSAValue, t: Attribute, order: str) -> Operation:
        """An atomic load of a 32/64-bit integer word of global memory (`order`: relaxed or
        acquire, device scope)."""
        raise NotImplementedError

    def atomic_store_op(self, addr: SSAValue, v: SSAValue, order: str) -> Operation:
        """An atomic store of a 32/64-bit integer word to global memory (`order`: relaxed or
        release, device scope)."""
        raise NotImplementedError

    def fetch_add_op(self, addr: SSAValue, v: SSAValue) -> Operation:
        """An atomic add of a 32/64-bit integer to global memory returning the old value."""
        raise NotImplementedError

    def per_lane(self, t: Attribute) -> bool:
        """Vectors of type `t` live as per-lane scalars (in `k.lanes`)."""
        return False

    def load_lanes(
        self, k: GpuKernelLowering, space: str, addr: SSAValue, t: VectorType, before: Operation, read_only: bool
    ) -> list[SSAValue]:
        raise NotImplementedError

    def store_lanes(
        self, k: GpuKernelLowering, space: str, addr: SSAValue, lanes: list[SSAValue], t: VectorType, before: Operation
    ) -> None:
        raise NotImplementedError

    def check_vector(self, op: Operation, t: VectorType) -> None:
        """Raise if a load/store of vector `t` (kept as a vector) is not one access."""

    # --- the rest --------------------------------------------------------------------------------

    def lower_math(self, k: GpuKernelLowering, op: Operation) -> None:
        """Lower (or check) a math op of `math_ops`."""

    def lower_op(self, k: GpuKernelLowering, op: Operation) -> bool:
        """Lower a mapped op the shared algorithm does not (fragments, mma, copies) with its
        function in `lowerings`; False if this target does not support it."""
        lower = self.lowerings.get(type(op))
        if lower is None:
            return False
        lower(k, op)
        return True


@dataclass
class Chunk:
    """One chunk of a cooperative 2-D window copy, as seen by this thread (index values)."""

    linear: SSAValue  # the chunk's number
    row: SSAValue  # its row in the window
    col: SSAValue  # its first column in the window
    src_row: SSAValue  # the same in the source buffer
    src_col: SSAValue
    inside: SSAValue  # i1: the chunk starts inside the source
    count: int  # the window's chunks
    partial: bool  # in the last round, which some threads sit out


TEMPLATE_OPS = (mapped.FragStoreOp, mapped.FragMapOp, mapped.CombineScanOp, mapped.LookbackOp)
"""Ops whose region is a template the lowering clones where it is needed (a frag_store epilogue
or a frag_map body per element, a combine region per combine step)."""


def in_template(op: Operation) -> bool:
    """Ops of a frag_store epilogue or a combine region are a template (see TEMPLATE_OPS)."""
    p = op.parent_op()
    while p is not None:
        if isinstance(p, TEMPLATE_OPS):
            return True
        p = p.parent_op()
    return False


class GpuKernelLowering:
    """The lowering of one mapped.kernel; the context every hook gets (as `k`).

    `b` builds the IR; `bufs` maps a buffer value to (base address, dims, space, swizzle);
    `lanes` maps a value that lives as per-lane scalars (per-lane vectors, fragments) to them.
    """

    def __init__(self, kernel: mapped.KernelOp, target: GpuTarget, narrow: bool, foreach: bool = False) -> None:
        self.old = kernel
        self.target = target
        self.narrow = narrow  # index will be 32 bits wide (narrow_index runs after)
        self.warp = target.warp_size(kernel)
        self.foreach = foreach  # one launch over every list position (see foreach_kernel)
        self.local_block: SSAValue | None = None  # foreach: the block's index within its position
        params: list[Attribute] = []
        if foreach:  # the table and the number of positions replace the buffers and their sizes
            params += [target.buffer_param(mapped.BufType([DYNAMIC], i64)), i64]
        for a in kernel.args:
            t = a.type
            if foreach and isinstance(t, mapped.BufType | IndexType):
                continue
            if isinstance(t, mapped.BufType):
                params += buffer_params(t, target.buffer_param(t), i64)
            elif isinstance(t, IndexType):
                params.append(i64)
            else:
                params.append(target.scalar_param(kernel, t))
        block_dims = list(kernel.block_size.iter_values()) if kernel.block_size is not None else [1, 1, 1]
        self.block_threads = 1
        for d in block_dims:
            self.block_threads *= d
        self.func = target.kernel_op(kernel, params, block_dims, self.block_threads)
        self.func.location = kernel.location
        self.block = self.func.body.block
        self.b = KernelBuilder(self.block, kernel.location, target.origin_locations)
        self.bufs: dict[SSAValue, tuple[SSAValue, list[SSAValue], str, mapped.SwizzleAttr | None]] = {}
        self.lanes: dict[SSAValue, list[SSAValue]] = {}
        self.dead: list[Operation] = []  # replaced ops, erased last (their results may still be looked up)
        self.decls: list[Operation] = []  # static shared/LDS arrays, the kernel's first ops
        self.scratch = False  # the cross-warp reduction scratch is needed
        self.tuple_scratch = 0  # bytes of the combine_scan scratch (one slot per warp and value)
        self.collective_slots = 0  # 8-byte shared slots of tickets and look-backs (one each)
        self.shared_offset = 0  # bytes of the dynamic shared segment handed out (targets that use one)
        # cooperative copies run by part of the block (a warp-specialized producer warpgroup):
        # op -> the number of threads (the first ones of the block) that deal its chunks
        self.copy_threads: dict[Operation, int] = {}
        self.bind_params()
        # buffers the kernel never writes (a target may read them through a read-only path)
        written = {
            op.dest
            for op in kernel.body.walk()
            if isinstance(
                op,
                mapped.StoreOp
                | mapped.AtomicAddOp
                | mapped.FragStoreOp
                | mapped.CopyOp
                | mapped.AsyncCopyOp
                | mapped.AsyncCopyWindowOp,
            )
        }
        written |= {op.status for op in kernel.body.walk() if isinstance(op, mapped.LookbackOp)}
        written |= {op.counter for op in kernel.body.walk() if isinstance(op, mapped.BlockTicketOp)}
        self.read_only = {a for a in kernel.args if isinstance(a.type, mapped.BufType) and a not in written}
        for o in list(kernel.body.block.ops):
            o.detach()
            self.block.add_op(o)

    def bind_params(self) -> None:
        """Map the mapped kernel's arguments to the new kernel's parameters."""
        if self.foreach:
            self.bind_foreach_params()
            return
        for a, p, dims in bind_args(self.old.args, self.block.args):
            if isinstance(a.type, mapped.BufType):
                base = self.b.top(PtrToIntOp(p))
                if a.name_hint and self.target.addr_suffix:
                    base.name_hint = a.name_hint + self.target.addr_suffix
                sizes = [
                    self.b.top(arith.IndexCastOp(d, IndexType())) if isinstance(d, SSAValue) else self.index(d)
                    for d in dims
                ]
                self.bufs[a] = (base, sizes, "global", None)
            elif isinstance(a.type, IndexType):
                a.replace_all_uses_with(self.b.top(arith.IndexCastOp(p, IndexType())))
            else:
                a.replace_all_uses_with(p)

    def bind_foreach_params(self) -> None:
        """The parameters of a kernel over lists (`foreach_kernel`): `table` (i64 words) and `n`,
        the number of positions, then the scalars. The table holds, for K buffer arguments,
        `ptrs[k * n + j]` (K * n device addresses), `sizes[j]` (n), `first[j]` (n: the position's
        first block) and `pos[b]` (one per block of the grid: its position). A block reads its
        position j, its buffers' addresses and their one size, and runs the elementwise body as
        block `b - first[j]` of a launch over position j alone."""
        b = self.b
        table_p, n_p = self.block.args[0], self.block.args[1]
        table_p.name_hint, n_p.name_hint = "table", "npos"
        table = b.top(PtrToIntOp(table_p))
        n = b.top(arith.IndexCastOp(n_p, IndexType()))
        eight = self.const(8, i64)

        def word(off: SSAValue, address: bool = False) -> SSAValue:  # table[off]: an i64 address, or an index
            byte = b.top(arith.MuliOp(b.top(arith.IndexCastOp(off, i64)), eight))
            v = b.top(self.target.load_op("global", b.top(arith.AddiOp(table, byte)), i64, True))
            return v if address else b.top(arith.IndexCastOp(v, IndexType()))

        bufs = [a for a in self.old.args if isinstance(a.type, mapped.BufType)]
        nk = self.index(len(bufs))
        bid = b.top_value("foreach_bid", lambda: self.as_index(self.target.hierarchy_register(mapped.BlockIdOp("x"))))
        kn = b.top(arith.MuliOp(nk, n))
        j = word(b.top(arith.AddiOp(b.top(arith.AddiOp(kn, b.top(arith.AddiOp(n, n)))), bid)))
        size = word(b.top(arith.AddiOp(kn, j)))
        first = word(b.top(arith.AddiOp(b.top(arith.AddiOp(kn, n)), j)))
        self.local_block = b.top(arith.SubiOp(bid, first))
        params = iter(self.block.args[2:])
        for a in self.old.args:
            if isinstance(a.type, mapped.BufType):
                k = bufs.index(a)
                base = word(b.top(arith.AddiOp(b.top(arith.MuliOp(self.index(k), n)), j)), address=True)
                dims = [size if d == DYNAMIC else self.index(d) for d in a.type.get_shape()]
                self.bufs[a] = (base, dims, "global", None)
            elif isinstance(a.type, IndexType):  # the position's size (foreach_kernel checked)
                a.replace_all_uses_with(size)
            else:
                p = next(params)
                if a.name_hint:
                    p.name_hint = a.name_hint
                a.replace_all_uses_with(p)

    # --- shorthands ------------------------------------------------------------------------------

    def const(self, value, t: Attribute) -> SSAValue:
        return self.b.const(value, t)

    def index(self, value: int) -> SSAValue:
        return self.b.index(value)

    def fail(self, op: Operation, message: str) -> PassFailure:
        return PassFailure(op, f"{self.target.pass_name}: {message}")

    def tid_index(self) -> SSAValue:
        """The thread id along x, as an index computed once per kernel."""
        return self.b.top_value("tid", lambda: self.as_index(self.target.tid_register()))

    def lane_index(self) -> SSAValue:
        """This thread's lane in its warp, as an index computed once per kernel."""
        return self.b.top_value("lane", lambda: self.as_index(self.target.lane_register()))

    @staticmethod
    def as_index(reg: Operation) -> list[Operation]:
        return [reg, arith.IndexCastOp(reg.results[0], IndexType())]

    def lanes_of(self, v: SSAValue, at: Operation) -> list[SSAValue]:
        if v not in self.lanes:
            raise self.fail(at, self.target.lanes_message)
        return self.lanes[v]

    # --- running ---------------------------------------------------------------------------------

    def run(self) -> Operation:
        for op in list(self.func.body.walk()):
            if op.parent_block() is not None and not in_template(op):
                self.convert(op)
        if self.scratch:
            self.decls.append(self.target.shared_decl(SCRATCH, SCRATCH_BYTES, 16))
        if self.tuple_scratch:
            self.decls.append(self.target.shared_decl(TUPLE_SCRATCH, self.tuple_scratch, 16))
        if self.collective_slots:
            self.decls.append(self.target.shared_decl(SLOTS, 8 * self.collective_slots, 16))
        self.b.place_at_top([*self.decls, *self.b.top_ops])
        for op in reversed(self.dead):
            self.b.erase(op)
        if self.narrow:
            self.narrow_index()
        return self.func

    def convert(self, op: Operation) -> None:
        with self.b.lowering(op):
            self._convert(op)

    def _convert(self, op: Operation) -> None:
        t = self.target
        if isinstance(op, scf.ForOp) and self.expand_for(op):
            return
        if isinstance(op, scf.YieldOp) and self.expand_yield(op):
            return
        if isinstance(op, mapped.ReturnOp):
            self.b.replace(op, [t.return_op()])
        elif self.foreach and isinstance(op, mapped.BlockIdOp) and op.dim.data == "x":
            op.result.replace_all_uses_with(self.local_block)
            self.b.erase(op)
        elif self.foreach and isinstance(op, mapped.GridDimOp):
            raise self.fail(op, "a kernel over lists that reads the grid size is not supported yet")
        elif isinstance(op, HIERARCHY_OPS):
            self.b.replace(op, self.as_index(t.hierarchy_register(op)))
        elif isinstance(op, mapped.LaneIdOp):
            t.lower_lane_id(self, op)
        elif isinstance(op, mapped.WarpIdOp):
            t.lower_warp_id(self, op)
        elif isinstance(op, mapped.DimOp):
            op.result.replace_all_uses_with(self.bufs[op.source][1][op.axis.data])
            self.b.erase(op)
        elif isinstance(op, mapped.AllocOp):
            self.alloc(op)
        elif isinstance(op, mapped.LoadOp):
            self.load(op)
        elif isinstance(op, mapped.StoreOp):
            self.store(op)
        elif isinstance(op, mapped.AtomicAddOp):
            self.atomic_add(op)
        elif isinstance(op, vector.ExtractOp) and (op.vector in self.lanes or t.per_lane(op.vector.type)):
            lanes = self.lanes_of(op.vector, op)
            op.result.replace_all_uses_with(lanes[list(op.static_position.iter_values())[0]])
            self.dead.append(op)
        elif isinstance(op, vector.BroadcastOp) and t.per_lane(op.vector.type):
            self.lanes[op.vector] = [op.source] * op.vector.type.get_shape()[0]
            self.dead.append(op)
        elif isinstance(op, vector.InsertOp) and t.per_lane(op.result.type):
            lanes = list(self.lanes_of(op.dest, op))
            lanes[list(op.static_position.iter_values())[0]] = op.source
            self.lanes[op.result] = lanes
            self.dead.append(op)
        elif isinstance(op, arith.SelectOp) and t.per_lane(op.result.type):
            a, b = self.lanes_of(op.operands[1], op), self.lanes_of(op.operands[2], op)
            self.lanes[op.result] = [self.b.value(arith.SelectOp(op.operands[0], x, y), op) for x, y in zip(a, b)]
            self.dead.append(op)
        elif isinstance(op, mapped.BarrierOp):
            self.b.replace(op, [t.barrier(op.scope.data, op)])
        elif isinstance(op, mapped.ReduceOp):
            self.reduce(op)
        elif isinstance(op, mapped.ScanOp):
            self.scan(op)
        elif isinstance(op, mapped.CombineScanOp):
            self.combine_scan(op)
        elif isinstance(op, mapped.IsAlignedOp):
            self.is_aligned(op)
        elif isinstance(op, mapped.BlockTicketOp):
            self.block_ticket(op)
        elif isinstance(op, mapped.LookbackOp):
            self.lookback(op)
        elif isinstance(op, mapped.ShuffleXorOp):
            op.result.replace_all_uses_with(self.shuffle_xor(op.value, op.mask.data, op))
            self.b.erase(op)
        elif isinstance(op, t.math_ops):
            t.lower_math(self, op)
        elif op.name.startswith("mapped.") and not t.lower_op(self, op):
            raise self.fail(op, f"{op.name} is not supported yet on {t.gpus}")

    # --- memory ----------------------------------------------------------------------------------

    def alloc(self, op: mapped.AllocOp) -> None:
        t = op.result.type
        if t.space_name != "shared":
            raise self.fail(op, "register buffers are not supported yet on GPUs")
        addr = self.target.shared_alloc(self, t)
        self.bufs[op.result] = (addr, [self.const(d, IndexType()) for d in t.get_shape()], "shared", t.swizzle)
        self.dead.append(op)

    def address(self, buf: SSAValue, indices: Sequence[SSAValue], before: Operation) -> tuple[SSAValue, str]:
        """(byte address, space) of element `indices` of `buf`: i64 global, i32 shared (swizzled)."""
        base, dims, space, sw = self.bufs[buf]
        bt = buf.type
        ebytes = max(1, bitwidth(bt.element_type) // 8)
        indices = list(indices)
        if space == "global":
            off = self.linear(indices, dims, before)
            if off is None:
                off = self.const(0, IndexType())
            byte = self.scale(self.target.global_offset(self, off, before), ebytes, i64, before)
            return self.b.ins(arith.AddiOp(base, byte), before), space
        # shared: the last two axes (swizzled, usually loop-invariant) + the leading slot axes; a
        # slot offset is a multiple of the swizzle period (mapped.buf checks it), so it commutes
        off32 = self.b.ins(arith.IndexCastOp(self.linear(indices[-2:], dims[-2:], before), i32), before)
        byte = self.scale(off32, ebytes, i32, before)
        if sw is not None:
            byte = self.swizzle(sw, byte, before)
        addr = self.b.ins(arith.AddiOp(base, byte), before)
        if indices[:-2]:
            slice_bytes = ebytes
            for d in bt.get_shape()[-2:]:
                slice_bytes *= d
            lead32 = self.b.ins(arith.IndexCastOp(self.linear(indices[:-2], dims[:-2], before), i32), before)
            addr = self.b.ins(
                arith.AddiOp(addr, self.b.ins(arith.MuliOp(lead32, self.const(slice_bytes, i32)), before)), before
            )
        return addr, space

    def shifted_address(
        self, buf: SSAValue, addr: SSAValue, rows: int, cols: int, before: Operation
    ) -> SSAValue | None:
        """The address `rows` rows and `cols` columns past `addr` in a shared buffer, as `addr` plus
        a constant when the buffer's swizzle maps that distance to itself (a multiple of its period:
        the bits it reads and moves stay the same), else None. Fragment loads take their tiles'
        addresses this way: one register per column of tiles, not one per tile."""
        _, _, space, sw = self.bufs[buf]
        shape = buf.type.get_shape()
        if space != "shared" or shape[-1] < 0:
            return None
        delta = (rows * shape[-1] + cols) * max(1, bitwidth(buf.type.element_type) // 8)
        if sw is not None and delta % (1 << (sw.base.data + sw.shift.data + sw.bits.data)):
            return None
        return self.b.ins(arith.AddiOp(addr, self.const(delta, i32)), before) if delta else addr

    def global_rows_later(self, buf: SSAValue, addr: SSAValue, rows: int, before: Operation) -> SSAValue:
        """The address `rows` rows (of the last axis) past `addr` in a global buffer."""
        dims = self.bufs[buf][1]
        ebytes = max(1, bitwidth(buf.type.element_type) // 8)
        off = self.b.ins(arith.MuliOp(dims[-1], self.const(rows, IndexType())), before)
        byte = self.scale(self.target.global_offset(self, off, before), ebytes, i64, before)
        return self.b.ins(arith.AddiOp(addr, byte), before)

    def linear(self, indices: Sequence[SSAValue], dims: Sequence[SSAValue], before: Operation) -> SSAValue | None:
        """The row-major element offset of `indices` in `dims` (None for no indices)."""
        off = None
        for i, d in zip(indices, dims):
            off = i if off is None else self.b.ins(arith.AddiOp(self.b.ins(arith.MuliOp(off, d), before), i), before)
        return off

    def scale(self, off: SSAValue, ebytes: int, t: Attribute, before: Operation) -> SSAValue:
        if ebytes == 1 and not self.target.scale_unit_stride:
            return off
        return self.b.ins(arith.MuliOp(off, self.const(ebytes, t)), before)

    def swizzle(self, sw: mapped.SwizzleAttr, byte: SSAValue, before: Operation) -> SSAValue:
        bits, base, shift = sw.bits.data, sw.base.data, sw.shift.data
        mask = ((1 << bits) - 1) << base
        hi = self.b.ins(arith.ShRUIOp(byte, self.const(shift, i32)), before)
        hi = self.b.ins(arith.AndIOp(hi, self.const(mask, i32)), before)
        return self.b.ins(arith.XOrIOp(byte, hi), before)

    def load_value(
        self, space: str, addr: SSAValue, t: Attribute, before: Operation, read_only: bool = False
    ) -> SSAValue:
        return self.b.value(self.target.load_op(space, addr, t, read_only), before)

    def store_value(self, space: str, addr: SSAValue, v: SSAValue, before: Operation) -> None:
        self.b.insert(self.target.store_op(space, addr, v), before)

    def load(self, op: mapped.LoadOp) -> None:
        addr, space = self.address(op.source, op.indices, op)
        t = op.result.type
        read_only = space == "global" and op.source in self.read_only
        if self.target.per_lane(t):
            self.lanes[op.result] = self.target.load_lanes(self, space, addr, t, op, read_only)
            self.dead.append(op)
        elif t == i1:  # bools are bytes in memory
            b = self.load_value(space, addr, i8, op)
            self.b.replace(op, [arith.CmpiOp(b, self.const(0, i8), "ne")])
        else:
            if isinstance(t, VectorType):
                self.target.check_vector(op, t)
            v = self.load_value(space, addr, t, op, read_only)
            if self.target.keep_load_names and op.result.name_hint:
                v.name_hint = op.result.name_hint
            op.result.replace_all_uses_with(v)
            self.b.erase(op)

    def store(self, op: mapped.StoreOp) -> None:
        addr, space = self.address(op.dest, op.indices, op)
        t = op.value.type
        if self.target.per_lane(t):
            self.target.store_lanes(self, space, addr, self.lanes_of(op.value, op), t, op)
        elif t == i1:
            self.store_value(space, addr, self.b.value(arith.ExtUIOp(op.value, i8), op), op)
        else:
            if isinstance(t, VectorType):
                self.target.check_vector(op, t)
            self.store_value(space, addr, op.value, op)
        self.b.erase(op)

    def atomic_add(self, op: mapped.AtomicAddOp) -> None:
        addr, _ = self.address(op.dest, op.indices, op)
        self.b.insert(self.target.atomic_add_op(addr, op.value, op), op)
        self.b.erase(op)

    # --- reductions ------------------------------------------------------------------------------

    def combine(self, kind: str, a: SSAValue, b: SSAValue, before: Operation) -> SSAValue:
        """a (kind) b for a reduction step: sum, prod, max or min, on floats or signed integers."""
        is_float = not isinstance(a.type, IntegerType | IndexType)
        return self.b.value(_COMBINE[(kind, is_float)](a, b), before)

    def shuffle_problem(self, t: Attribute) -> str | None:
        """Why values of type `t` cannot be exchanged between lanes, or None: what the target
        shuffles, and 64-bit values as two 32-bit halves where it shuffles i32."""
        why = self.target.reduce_problem(t)
        if why is not None and bitwidth(t) == 64 and self.target.reduce_problem(i32) is None:
            return None
        return why

    def shuffle(self, x: SSAValue, off: int, before: Operation) -> SSAValue:
        """`x` of the lane `lane ^ off` (`shuffle_xor`)."""
        return self.shuffle_xor(x, off, before)

    def shuffle_xor(self, x: SSAValue, mask: int, before: Operation) -> SSAValue:
        """Lane (lane ^ mask)'s `x`; on a target that shuffles 32-bit words (`shuffle_word_bits`),
        a 64-bit value travels as its two words."""
        if bitwidth(x.type) <= self.target.shuffle_word_bits:
            return self.b.value(self.target.shuffle_xor(x, mask), before)
        b = self.b
        bits = x.type if isinstance(x.type, IntegerType) else i64
        u = x if bits == x.type else b.value(arith.BitcastOp(x, bits), before)
        lo = b.value(arith.TruncIOp(u, i32), before)
        hi = b.value(arith.TruncIOp(b.value(arith.ShRUIOp(u, self.const(32, i64)), before), i32), before)
        lo = b.value(self.target.shuffle_xor(lo, mask), before)
        hi = b.value(self.target.shuffle_xor(hi, mask), before)
        hi64 = b.value(arith.ShLIOp(b.value(arith.ExtUIOp(hi, i64), before), self.const(32, i64)), before)
        r = b.value(arith.OrIOp(hi64, b.value(arith.ExtUIOp(lo, i64), before)), before)
        return r if bits == x.type else b.value(arith.BitcastOp(r, x.type), before)

    def warp_reduce(self, kind: str, x: SSAValue, before: Operation) -> SSAValue:
        """Xor butterfly over all lanes of the warp: log2(warp) shuffles, every lane gets the result."""
        off = self.warp // 2
        while off >= 1:
            y = self.shuffle(x, off, before)
            x = self.combine(kind, x, y, before)
            off //= 2
        return x

    def reduce(self, op: mapped.ReduceOp) -> None:
        t, b = self.target, self.b
        kind = op.kind.data
        x = op.value
        why = self.shuffle_problem(x.type)
        if why:
            raise self.fail(op, f"cross-thread reductions of {x.type} are not supported yet ({why})")
        r = self.warp_reduce(kind, x, op)
        warps = -(-self.block_threads // self.warp)
        if op.scope.data == "block" and warps > 1:
            slot_bytes = max(t.scratch_slot, bitwidth(x.type) // 8)
            if warps * slot_bytes > SCRATCH_BYTES:
                raise self.fail(op, f"a block reduction over {warps} waves (at most {SCRATCH_BYTES // slot_bytes})")
            self.scratch = True
            if t.scratch_base_at_top:
                base = b.top_value("scratch", lambda: [t.shared_addr(SCRATCH)])
            else:
                base = b.value(t.shared_addr(SCRATCH), op)
            tid = b.value(t.tid_register(), op)
            w = self.const(self.warp, i32)
            wid = b.value(arith.DivUIOp(tid, w), op)
            lane = b.value(arith.RemUIOp(tid, w), op)
            is_lane0 = b.value(arith.CmpiOp(lane, self.const(0, i32), "eq"), op)

            def slot(i: SSAValue) -> SSAValue:
                return b.value(arith.AddiOp(base, b.value(arith.MuliOp(i, self.const(slot_bytes, i32)), op)), op)

            b.guarded(op, is_lane0, [t.store_op("shared", slot(wid), r)])
            b.insert(t.barrier("block", op), op)
            if t.guard_before_slot:
                live = b.value(arith.CmpiOp(lane, self.const(warps, i32), "ult"), op)
                lane_slot = slot(lane)
            else:
                lane_slot = slot(lane)
                live = b.value(arith.CmpiOp(lane, self.const(warps, i32), "ult"), op)
            safe = b.value(arith.SelectOp(live, lane_slot, base), op)
            v = self.load_value("shared", safe, x.type, op)
            v = b.value(arith.SelectOp(live, v, self.const(neutral(kind, x.type), x.type)), op)
            r = self.warp_reduce(kind, v, op)  # every warp reduces the partials: no second barrier round
            b.insert(t.barrier("block", op), op)  # the scratch may be reused by the next reduction
        op.result.replace_all_uses_with(r)
        b.erase(op)

    def scan(self, op: mapped.ScanOp) -> None:
        """Exclusive prefix and total: a xor butterfly in the warp (at distance `off`, a lane in the
        upper half of its 2*off group adds the lower half's total to its prefix), then, across a
        block, one scratch slot per warp: each thread adds the totals of the warps before its own."""
        t, b = self.target, self.b
        kind = op.kind.data
        x = op.value
        why = self.shuffle_problem(x.type)
        if why:
            raise self.fail(op, f"cross-thread scans of {x.type} are not supported yet ({why})")
        ident = self.const(neutral(kind, x.type), x.type)
        tid = b.value(t.tid_register(), op)
        w = self.const(self.warp, i32)
        lane = b.value(arith.RemUIOp(tid, w), op)
        prefix, total = ident, x
        off = 1
        while off < self.warp:
            y = self.shuffle(total, off, op)
            bit = b.value(arith.AndIOp(lane, self.const(off, i32)), op)
            upper = b.value(arith.CmpiOp(bit, self.const(0, i32), "ne"), op)
            prefix = b.value(arith.SelectOp(upper, self.combine(kind, y, prefix, op), prefix), op)
            total = self.combine(kind, total, y, op)
            off *= 2
        warps = -(-self.block_threads // self.warp)
        if op.scope.data == "block" and warps > 1:
            slot_bytes = max(t.scratch_slot, bitwidth(x.type) // 8)
            if warps * slot_bytes > SCRATCH_BYTES:
                raise self.fail(op, f"a block scan over {warps} waves (at most {SCRATCH_BYTES // slot_bytes})")
            self.scratch = True
            if t.scratch_base_at_top:
                base = b.top_value("scratch", lambda: [t.shared_addr(SCRATCH)])
            else:
                base = b.value(t.shared_addr(SCRATCH), op)
            wid = b.value(arith.DivUIOp(tid, w), op)
            is_lane0 = b.value(arith.CmpiOp(lane, self.const(0, i32), "eq"), op)
            slot = b.value(arith.AddiOp(base, b.value(arith.MuliOp(wid, self.const(slot_bytes, i32)), op)), op)
            b.guarded(op, is_lane0, [t.store_op("shared", slot, total)])
            b.insert(t.barrier("block", op), op)
            before, total = ident, ident
            for k in range(warps):
                addr = b.value(arith.AddiOp(base, self.const(k * slot_bytes, i32)), op)
                v = self.load_value("shared", addr, x.type, op)
                earlier = b.value(arith.CmpiOp(wid, self.const(k, i32), "ugt"), op)
                before = b.value(arith.SelectOp(earlier, self.combine(kind, before, v, op), before), op)
                total = self.combine(kind, total, v, op)
            b.insert(t.barrier("block", op), op)  # the scratch may be reused
            prefix = self.combine(kind, before, prefix, op)
        op.prefix.replace_all_uses_with(prefix)
        op.total.replace_all_uses_with(total)
        b.erase(op)

    # --- scans of tuples and scans across blocks --------------------------------------------------

    def inline_combine(self, region: Region, a: Sequence[SSAValue], b: Sequence[SSAValue], before: Operation):
        """The values of a combine region (`mapped.combine_scan`, `mapped.lookback`) for the tuples
        a and b, its ops cloned before `before` and lowered."""
        return self.inline_block(region.block, [*a, *b], before)

    def inline_block(self, block: Block, args: Sequence[SSAValue], before: Operation) -> list[SSAValue]:
        """The values a template block (ending in mapped.yield) yields for `args`, its ops cloned
        before `before` and lowered."""
        mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, args))
        clones = []
        out: list[SSAValue] = []
        for o in block.ops:
            if isinstance(o, mapped.YieldOp):
                out = [mapping.get(v, v) for v in o.values]
                continue
            cl = o.clone(value_mapper=mapping)
            self.b.insert(cl, before, location=before.location)
            clones.append(cl)
            for old_r, new_r in zip(o.results, cl.results):
                mapping[old_r] = new_r
        # a clone lowered into other ops hands its uses over: a placeholder use keeps `out` current
        holder = UnrealizedConversionCastOp.get(out, [v.type for v in out])
        self.b.insert(holder, before)
        for cl in clones:
            if cl.parent_block() is not None:
                self.convert(cl)
        out = list(holder.operands)
        self.b.erase(holder)
        return out

    def while_loop(
        self,
        inits: Sequence[SSAValue],
        body: Callable[[list[SSAValue], Operation], tuple[SSAValue, list[SSAValue]]],
        before: Operation,
    ) -> list[SSAValue]:
        """`scf.while` before `before`: `body(values, anchor)` puts the loop's ops before `anchor`
        and returns (i1: go on, the next values); the loop's results are the values it left with."""
        types = [v.type for v in inits]
        first, second = Block(arg_types=types), Block(arg_types=types)
        placeholder = scf.YieldOp()
        first.add_op(placeholder)
        second.add_op(scf.YieldOp(*second.args))
        loop = scf.WhileOp(list(inits), types, Region(first), Region(second))
        self.b.insert(loop, before)
        go, nxt = body(list(first.args), placeholder)
        self.b.insert(scf.ConditionOp(go, *nxt), placeholder)
        self.b.erase(placeholder)
        return list(loop.res)

    def combine_scan(self, op: mapped.CombineScanOp) -> None:
        """`mapped.scan`'s algorithm on tuples, the combine region inlined at each step: a xor
        butterfly in the warp, then across a block one scratch slot per warp and value."""
        t, b = self.target, self.b
        xs = list(op.values)
        for x in xs:
            why = self.shuffle_problem(x.type)
            if why:
                raise self.fail(op, f"cross-thread scans of {x.type} are not supported yet ({why})")

        def comb(p: Sequence[SSAValue], q: Sequence[SSAValue]) -> list[SSAValue]:
            return self.inline_combine(op.combine, p, q, op)

        def select(c: SSAValue, p: Sequence[SSAValue], q: Sequence[SSAValue]) -> list[SSAValue]:
            return [b.value(arith.SelectOp(c, u, v), op) for u, v in zip(p, q)]

        ident = list(op.identity)
        tid = b.value(t.tid_register(), op)
        w = self.const(self.warp, i32)
        lane = b.value(arith.RemUIOp(tid, w), op)
        prefix, total = ident, xs
        off = 1
        while off < self.warp:
            y = [self.shuffle(v, off, op) for v in total]
            upper = b.value(
                arith.CmpiOp(b.value(arith.AndIOp(lane, self.const(off, i32)), op), self.const(0, i32), "ne"), op
            )
            prefix = select(upper, comb(y, prefix), prefix)
            total = comb(total, y)
            off *= 2
        warps = -(-self.block_threads // self.warp)
        if op.scope.data == "block" and warps > 1:
            sizes = [max(4, bitwidth(x.type) // 8) for x in xs]
            self.tuple_scratch = max(self.tuple_scratch, warps * sum(sizes))
            base = b.value(t.shared_addr(TUPLE_SCRATCH), op)
            wid = b.value(arith.DivUIOp(tid, w), op)
            is_lane0 = b.value(arith.CmpiOp(lane, self.const(0, i32), "eq"), op)

            def slot(k: int | SSAValue, j: int) -> SSAValue:
                start = self.const(warps * sum(sizes[:j]), i32)
                kk = self.const(k, i32) if isinstance(k, int) else k
                off_ = b.value(arith.AddiOp(start, b.value(arith.MuliOp(kk, self.const(sizes[j], i32)), op)), op)
                return b.value(arith.AddiOp(base, off_), op)

            b.guarded(op, is_lane0, [t.store_op("shared", slot(wid, j), v) for j, v in enumerate(total)])
            b.insert(t.barrier("block", op), op)
            earlier_total, total = ident, ident
            for k in range(warps):
                v = [self.load_value("shared", slot(k, j), x.type, op) for j, x in enumerate(xs)]
                earlier = b.value(arith.CmpiOp(wid, self.const(k, i32), "ugt"), op)
                earlier_total = select(earlier, comb(earlier_total, v), earlier_total)
                total = comb(total, v)
            b.insert(t.barrier("block", op), op)  # the scratch may be reused
            prefix = comb(earlier_total, prefix)
        for r, v in zip(op.results, [*prefix, *total]):
            r.replace_all_uses_with(v)
        b.erase(op)

    def is_aligned(self, op: mapped.IsAlignedOp) -> None:
        base = self.bufs[op.source][0]
        mask = self.const(op.bytes.data - 1, i64)
        low = self.b.value(arith.AndIOp(base, mask), op)
        self.b.replace(op, [arith.CmpiOp(low, self.const(0, i64), "eq")])

    def block_slot(self, before: Operation) -> SSAValue:
        """A new 8-byte shared slot (its i32 address) for broadcasting one value to the block."""
        self.collective_slots += 1
        base = self.b.value(self.target.shared_addr(SLOTS), before)
        return self.b.value(arith.AddiOp(base, self.const(8 * (self.collective_slots - 1), i32)), before)

    def broadcast(self, v: SSAValue, writer: SSAValue, before: Operation) -> SSAValue:
        """`v` of the thread where `writer` holds, for every thread of the block, through a shared
        slot (a barrier before the read and after it: the slot may be written again)."""
        t, b = self.target, self.b
        slot = self.block_slot(before)
        b.guarded(before, writer, [t.store_op("shared", slot, v)])
        b.insert(t.barrier("block", before), before)
        r = self.load_value("shared", slot, v.type, before)
        b.insert(t.barrier("block", before), before)
        return r

    def block_ticket(self, op: mapped.BlockTicketOp) -> None:
        """Thread 0 takes the ticket (an atomic add returning the old count) and broadcasts it."""
        t, b = self.target, self.b
        addr, _ = self.address(op.counter, op.indices, op)
        first = b.value(arith.CmpiOp(b.value(t.tid_register(), op), self.const(0, i32), "eq"), op)
        iff = scf.IfOp(first, [i64], Region(Block([scf.YieldOp(self.const(0, i64))])), Region(Block()))
        then = iff.true_region.block
        placeholder = then.last_op
        old = b.value(t.fetch_add_op(addr, self.const(1, i64)), placeholder)
        then.add_op(scf.YieldOp(old))
        b.erase(placeholder)
        iff.false_region.block.add_op(scf.YieldOp(self.const(0, i64)))
        b.insert(iff, op)
        ticket = self.broadcast(iff.results[0], first, op)
        b.replace(op, [arith.IndexCastOp(ticket, IndexType())])

    def lookback(self, op: mapped.LookbackOp) -> None:
        """Decoupled look-back (see mapped.LookbackOp): lane 0 publishes the aggregate, warp 0
        walks back over windows of `warp` predecessors (each lane waits for its predecessor's
        status word to be non-zero), combines the values up to the nearest inclusive prefix (a
        min-reduction finds it, a warp reduction under the combine region sums the window),
        publishes the inclusive prefix; the exclusive prefix goes to every thread through a
        shared slot. A value of at most 32 bits shares its word with the flag (high half)."""
        t, b = self.target, self.b
        vt = op.aggregate.type
        packed = mapped.lookback_words(vt) == 1
        vbits = bitwidth(vt)
        ibits = IntegerType(vbits)
        warp = self.warp
        c0 = self.index(0)
        idx = list(op.indices)
        tile, slot = op.tile, idx[-1]

        def word_addr(s: SSAValue, word: int, before: Operation) -> SSAValue:
            return self.address(op.status, [*idx[:-1], s, self.index(word)], before)[0]

        def as_bits(v: SSAValue, before: Operation) -> SSAValue:
            return v if isinstance(v.type, IntegerType) else b.value(arith.BitcastOp(v, ibits), before)

        def from_bits(w: SSAValue, before: Operation) -> SSAValue:
            return w if w.type == vt else b.value(arith.BitcastOp(w, vt), before)

        def publish(s: SSAValue, v: SSAValue, flag: int, before: Operation) -> None:
            bits = as_bits(v, before)
            if packed:
                word = b.value(arith.ExtUIOp(bits, i64), before) if vbits < 64 else bits
                word = b.value(arith.OrIOp(word, self.const(flag << 32, i64)), before)
                b.insert(t.atomic_store_op(word_addr(s, 0, before), word, "relaxed"), before)
                return
            b.insert(t.atomic_store_op(word_addr(s, flag, before), bits, "relaxed"), before)
            b.insert(t.atomic_store_op(word_addr(s, 0, before), self.const(flag, i64), "release"), before)

        tid = b.value(t.tid_register(), op)
        lane = b.value(arith.RemUIOp(tid, self.const(warp, i32)), op)
        is_lane0 = b.value(arith.CmpiOp(tid, self.const(0, i32), "eq"), op)
        in_warp0 = b.value(arith.CmpiOp(tid, self.const(warp, i32), "ult"), op)
        first_tile = b.value(arith.CmpiOp(tile, c0, "eq"), op)
        agg, ident = op.aggregate, op.identity
        # lane 0: publish the aggregate (the first tile: its inclusive prefix at once)
        at = b.guarded(op, is_lane0)
        pub = scf.IfOp(first_tile, [], Region(Block([scf.YieldOp()])), Region(Block([scf.YieldOp()])))
        b.insert(pub, at)
        publish(slot, agg, mapped.LOOKBACK_FLAGS["prefix"], pub.true_region.block.last_op)
        publish(slot, agg, mapped.LOOKBACK_FLAGS["aggregate"], pub.false_region.block.last_op)
        # warp 0 of a later tile: look back
        later = b.value(arith.XOrIOp(first_tile, self.const(1, i1)), op)
        walk = b.value(arith.AndIOp(in_warp0, later), op)
        iff = scf.IfOp(walk, [vt], Region(Block()), Region(Block([scf.YieldOp(ident)])))
        then = iff.true_region.block
        anchor = scf.YieldOp(ident)
        then.add_op(anchor)
        b.insert(iff, op)
        lane_idx = b.value(arith.IndexCastOp(lane, IndexType()), anchor)
        lane_i32 = lane
        lane_rank = b.value(arith.MuliOp(lane, self.const(LOOKBACK_PER_LANE, i32)), anchor)

        per = LOOKBACK_PER_LANE
        span = warp * per  # predecessors one step reads
        first_r = b.value(arith.MuliOp(lane_idx, self.index(per)), anchor)  # this lane's nearest, from dist

        def window(vals: list[SSAValue], at: Operation) -> tuple[SSAValue, list[SSAValue]]:
            dist, running = vals
            base = b.value(arith.AddiOp(dist, first_r), at)
            slots = []
            for j in range(per):
                r = b.value(arith.AddiOp(base, self.index(j)), at) if j else base
                slots.append(b.value(arith.SubiOp(slot, b.value(arith.MinUIOp(r, tile), at)), at))
            flag_addrs = [word_addr(sj, 0, at) for sj in slots]

            def spin(_: list[SSAValue], at2: Operation) -> tuple[SSAValue, list[SSAValue]]:
                order = "relaxed" if packed else "acquire"
                ws = [b.value(t.atomic_load_op(a, i64, order), at2) for a in flag_addrs]
                waiting = None
                for w in ws:
                    f = b.value(arith.ShRUIOp(w, self.const(32, i64)), at2) if packed else w
                    z = b.value(arith.CmpiOp(f, self.const(0, i64), "eq"), at2)
                    waiting = z if waiting is None else b.value(arith.OrIOp(waiting, z), at2)
                return waiting, ws

            words = self.while_loop([self.const(0, i64)] * per, spin, at)
            values, cands = [], []
            for j, (w, sj) in enumerate(zip(words, slots)):
                if packed:
                    flag = b.value(arith.ShRUIOp(w, self.const(32, i64)), at)
                    bits = b.value(arith.TruncIOp(w, ibits), at) if vbits < 64 else w
                    values.append(from_bits(bits, at))
                else:
                    flag = w
                    p2 = b.value(arith.CmpiOp(flag, self.const(2, i64), "eq"), at)
                    va = b.value(arith.SelectOp(p2, word_addr(sj, 2, at), word_addr(sj, 1, at)), at)
                    values.append(from_bits(b.value(t.atomic_load_op(va, i64, "relaxed"), at), at))
                is_p = b.value(arith.CmpiOp(flag, self.const(2, i64), "eq"), at)
                rank = b.value(arith.AddiOp(lane_rank, self.const(j, i32)), at) if j else lane_rank
                cands.append(b.value(arith.SelectOp(is_p, rank, self.const(span, i32)), at))
            cand = cands[0]
            for c in cands[1:]:
                cand = b.value(arith.MinSIOp(cand, c), at)
            nearest = self.warp_reduce("min", cand, at)  # the nearest inclusive prefix, or span
            x = None
            for j in reversed(range(per)):  # this lane's predecessors, the farthest first
                rank = b.value(arith.AddiOp(lane_rank, self.const(j, i32)), at) if j else lane_rank
                take = b.value(arith.CmpiOp(rank, nearest, "ule"), at)
                v = b.value(arith.SelectOp(take, values[j], ident), at)
                x = v if x is None else self.inline_combine(op.combine, [x], [v], at)[0]
            off = warp // 2
            while off >= 1:
                y = self.shuffle(x, off, at)
                (x,) = self.inline_combine(op.combine, [y], [x], at)
                off //= 2
            new = self.inline_combine(op.combine, [x], [running], at)[0]
            go = b.value(arith.CmpiOp(nearest, self.const(span, i32), "eq"), at)
            return go, [b.value(arith.AddiOp(dist, self.index(span)), at), new]

        _, prefix = self.while_loop([self.index(1), ident], window, anchor)
        incl = self.inline_combine(op.combine, [prefix], [agg], anchor)[0]
        lane0 = b.value(arith.CmpiOp(lane_i32, self.const(0, i32), "eq"), anchor)
        publish(slot, incl, mapped.LOOKBACK_FLAGS["prefix"], b.guarded(anchor, lane0))
        then.add_op(scf.YieldOp(prefix))
        b.erase(anchor)
        excl = self.broadcast(iff.results[0], is_lane0, op)
        op.result.replace_all_uses_with(excl)
        b.erase(op)

    # --- cooperative copies ----------------------------------------------------------------------

    def copy_chunks(
        self, op: mapped.CopyOp | mapped.AsyncCopyOp, per_row: int, width: int, tid: SSAValue
    ) -> Iterator[Chunk]:
        """This thread's chunks of `op`'s 2-D window (`per_row` chunks of `width` elements a row),
        dealt round-robin to the block's threads; `tid` is the thread's id along x."""
        rows = list(op.shape.iter_values())[0]
        count = rows * per_row
        threads = self.copy_threads.get(op, self.block_threads)
        src_idx = list(op.source_indices)
        ins = lambda o: self.b.ins(o, op)  # noqa: E731
        for it in range(-(-count // threads)):
            ch = ins(arith.AddiOp(tid, self.index(it * threads)))
            r = ins(arith.DivUIOp(ch, self.index(per_row)))
            cc = ins(arith.MuliOp(ins(arith.RemUIOp(ch, self.index(per_row))), self.index(width)))
            gr = ins(arith.AddiOp(src_idx[-2], r))
            gc = ins(arith.AddiOp(src_idx[-1], cc))
            inside = self.in_bounds(op.source, gr, gc, op)
            yield Chunk(ch, r, cc, gr, gc, inside, count, bool(count % threads) and it == count // threads)

    def window_chunks(self, op: mapped.AsyncCopyWindowOp, width: int) -> Iterator[tuple[Chunk, list[SSAValue]]]:
        """This thread's chunks of `width` elements (channels of one pixel) of an im2col tile, each
        with its source indices [n, *input position, c]; `inside` says whether it reads anything
        (rows and columns inside the matrix, the position inside the lhs-dilated input, on a tap).
        The row's (n, *output position) depends only on the thread and the tile row (hoisted out
        of the k loop at creation); the column's (*tap, c) is decomposed per k step."""
        rows, cols = op.window
        per_row = cols // width
        count = rows * per_row
        threads = self.copy_threads.get(op, self.block_threads)
        shape = op.source.type.get_shape()
        geo = op.geometry()
        m_total, k_total = op.matrix_shape()
        m0, k0 = op.source_indices
        cp = op.matrix_channels
        tid = self.tid_index()
        ins = lambda o: self.b.ins(o, op)  # noqa: E731
        c = self.index

        def delinearize(linear: SSAValue, sizes: list[int]) -> list[SSAValue]:
            out = []
            for s in reversed(sizes[1:]):
                out.append(ins(arith.RemUIOp(linear, c(s))))
                linear = ins(arith.DivUIOp(linear, c(s)))
            return [linear, *reversed(out)]

        # with whole rows per round (the usual case), a thread's column is the same in every
        # round: its (*tap, c) is decomposed once per k step, not once per chunk
        same_col = threads % per_row == 0
        if same_col:
            r0 = ins(arith.DivUIOp(tid, c(per_row)))
            cc0 = ins(arith.MuliOp(ins(arith.RemUIOp(tid, c(per_row))), c(width)))
            kk0 = ins(arith.AddiOp(k0, cc0))
            k_ok0 = ins(arith.CmpiOp(kk0, c(k_total), "ult"))
            tap_c0 = delinearize(kk0, [*geo["kernel"], cp])
        for it in range(-(-count // threads)):
            ch = ins(arith.AddiOp(tid, c(it * threads)))
            if same_col:
                r = ins(arith.AddiOp(r0, c(it * threads // per_row)))
                cc, kk, k_ok, (*taps, channel) = cc0, kk0, k_ok0, tap_c0
            else:
                r = ins(arith.DivUIOp(ch, c(per_row)))
                cc = ins(arith.MuliOp(ins(arith.RemUIOp(ch, c(per_row))), c(width)))
                kk = ins(arith.AddiOp(k0, cc))
                k_ok = ins(arith.CmpiOp(kk, c(k_total), "ult"))
                *taps, channel = delinearize(kk, [*geo["kernel"], cp])
            m = ins(arith.AddiOp(m0, r))
            ok = ins(arith.AndIOp(ins(arith.CmpiOp(m, c(m_total), "ult")), k_ok))
            n, *pos = delinearize(m, [shape[0], *geo["out"]])
            idx = [n]
            for i, (p, t) in enumerate(zip(pos, taps)):
                q = ins(
                    arith.AddiOp(ins(arith.MuliOp(p, c(geo["stride"][i]))), ins(arith.MuliOp(t, c(geo["dilation"][i]))))
                )
                lo = geo["pad_lo"][i]
                if lo > 0:  # a position in the low padding wraps around to a huge unsigned value
                    q = ins(arith.SubiOp(q, c(lo)))
                elif lo < 0:  # cropping
                    q = ins(arith.AddiOp(q, c(-lo)))
                ld = geo["lhs_dilation"][i]
                ok = ins(arith.AndIOp(ok, ins(arith.CmpiOp(q, c((shape[1 + i] - 1) * ld + 1), "ult"))))
                if ld > 1:
                    ok = ins(arith.AndIOp(ok, ins(arith.CmpiOp(ins(arith.RemUIOp(q, c(ld))), c(0), "eq"))))
                    q = ins(arith.DivUIOp(q, c(ld)))
                idx.append(q)
            idx.append(channel)
            partial = bool(count % threads) and it == count // threads
            yield Chunk(ch, r, cc, m, kk, ok, count, partial), idx

    def copy_window_elementwise(self, op: mapped.AsyncCopyWindowOp) -> None:
        """A window whose channels are zero-padded (`channels`): every element of this thread's
        chunks is loaded on its own (channels past the source's read nothing) and stored to
        shared memory; synchronous on every target."""
        src, dst = op.source, op.dest
        et = src.type.element_type
        c_real = src.type.get_shape()[-1]
        bits = IntegerType(bitwidth(et))  # the elements are moved as their bits
        zero = self.const(0, bits)
        width = 16 // max(1, bitwidth(et) // 8)
        ins = lambda o: self.b.ins(o, op)  # noqa: E731
        for c, idx in self.window_chunks(op, width):
            anchor = self.chunk_anchor(c, op)
            didx = self.chunk_dest(op, c)
            for j in range(width):
                ch = ins(arith.AddiOp(idx[-1], self.index(j))) if j else idx[-1]
                ok = ins(arith.AndIOp(c.inside, ins(arith.CmpiOp(ch, self.index(c_real), "ult"))))
                sidx = [ins(arith.SelectOp(ok, i, self.index(0))) for i in [*idx[:-1], ch]]
                saddr, _ = self.address(src, sidx, op)
                v = self.load_value("global", saddr, bits, anchor)
                v = self.b.value(arith.SelectOp(ok, v, zero), anchor)
                col = ins(arith.AddiOp(didx[-1], self.index(j))) if j else didx[-1]
                daddr, _ = self.address(dst, [*didx[:-1], col], anchor)
                self.store_value("shared", daddr, v, anchor)
        self.dead.append(op)

    def chunk_exists(self, c: Chunk, before: Operation) -> SSAValue:
        """i1: this thread has chunk `c` (threads past the last chunk have none)."""
        return self.b.ins(arith.CmpiOp(c.linear, self.index(c.count), "ult"), before)

    def chunk_anchor(self, c: Chunk, before: Operation) -> Operation:
        """Where the ops of chunk `c` go: before `before`, in the last round under a guard."""
        return self.b.guarded(before, self.chunk_exists(c, before)) if c.partial else before

    def chunk_dest(self, op: mapped.CopyOp | mapped.AsyncCopyOp | mapped.AsyncCopyWindowOp, c: Chunk) -> list[SSAValue]:
        """The indices of chunk `c` in the destination window."""
        dst_idx = list(op.dest_indices)
        return [
            *dst_idx[:-2],
            self.b.ins(arith.AddiOp(dst_idx[-2], c.row), op),
            self.b.ins(arith.AddiOp(dst_idx[-1], c.col), op),
        ]

    # --- fragments -------------------------------------------------------------------------------

    def expand_for(self, op: scf.ForOp) -> bool:
        """Rewrite an scf.for whose iter_args include fragments to carry their registers instead."""
        if not any(isinstance(v.type, mapped.FragType) for v in op.iter_args):
            return False
        inits: list[SSAValue] = []
        spans = []
        for v in op.iter_args:
            regs = self.lanes_of(v, op) if isinstance(v.type, mapped.FragType) else [v]
            spans.append((len(inits), len(regs)))
            inits += regs
        old_body = op.body.block
        body = Block(arg_types=[IndexType(), *[v.type for v in inits]])
        new = scf.ForOp(op.lb, op.ub, op.step, inits, Region(body))
        self.b.insert(new, op)
        old_body.args[0].replace_all_uses_with(body.args[0])
        for (start, n), old_arg, old_res in zip(spans, old_body.args[1:], op.results):
            if isinstance(old_arg.type, mapped.FragType):
                self.lanes[old_arg] = list(body.args[1 + start : 1 + start + n])
                self.lanes[old_res] = list(new.results[start : start + n])
            else:
                old_arg.replace_all_uses_with(body.args[1 + start])
                old_res.replace_all_uses_with(new.results[start])
        for o in list(old_body.ops):
            o.detach()
            body.add_op(o)
        self.dead.append(op)
        return True

    def expand_yield(self, op: scf.YieldOp) -> bool:
        if not any(isinstance(v.type, mapped.FragType) for v in op.operands):
            return False
        vals: list[SSAValue] = []
        for v in op.operands:
            vals += self.lanes_of(v, op) if isinstance(v.type, mapped.FragType) else [v]
        self.b.insert(scf.YieldOp(*vals), op)
        self.b.erase(op)
        return True

    def epilogue_value(
        self, epi: Block | None, val: SSAValue, row: SSAValue, col: SSAValue, anchor: Operation
    ) -> SSAValue:
        """The frag_store epilogue region inlined for one accumulator element, before `anchor`."""
        if epi is None:
            return val
        # the epilogue's own mapped ops (loads, math) lower like any other
        return self.inline_block(epi, [val, row, col], anchor)[0]

    def store_element(
        self,
        op: mapped.FragStoreOp,
        epi: Block | None,
        val: SSAValue,
        row: SSAValue,
        col: SSAValue,
        anchor: Operation,
        location=None,
    ) -> None:
        """Element (row, col) of a frag_store, through its epilogue, as a mapped.store lowered at once."""
        out = self.epilogue_value(epi, val, row, col, anchor)
        store = mapped.StoreOp(out, op.dest, [*list(op.indices)[:-2], row, col])
        self.b.insert(store, anchor, location)
        self.convert(store)

    def accumulate_tiles(self, op: mapped.MmaOp, tiles: tuple[int, int, int], acc_regs: int, step) -> None:
        """`op`'s accumulator tiles (mt x nt, `acc_regs` lanes each) through kt steps each:
        `step(acc, a_tile, b_tile)` returns the new accumulator lanes (tiles are row-major)."""
        mt, nt, kt = tiles
        out = list(self.lanes_of(op.acc, op))
        for mi in range(mt):
            for ni in range(nt):
                at = (mi * nt + ni) * acc_regs
                acc = out[at : at + acc_regs]
                for ki in range(kt):
                    acc = step(acc, mi * kt + ki, ki * nt + ni)
                out[at : at + acc_regs] = acc
        self.lanes[op.result] = out
        self.dead.append(op)

    def in_bounds(self, buf: SSAValue, row: SSAValue, col: SSAValue, before: Operation) -> SSAValue:
        """i1: (row, col) is inside the last two dimensions of `buf`."""
        dims = self.bufs[buf][1]
        ins = lambda o: self.b.ins(o, before)  # noqa: E731
        return ins(arith.AndIOp(ins(arith.CmpiOp(row, dims[-2], "ult")), ins(arith.CmpiOp(col, dims[-1], "ult"))))

    # --- index width -----------------------------------------------------------------------------

    def narrow_index(self) -> None:
        """Make `index` 32 bits wide inside the kernel (64-bit integer math costs GPUs 2-4x).

        Buffer sizes and element offsets then fit in 31 bits, which the runtimes check before
        every launch; byte addresses stay 64-bit (the index_cast to i64 before scaling)."""
        for op in list(self.func.body.walk()):
            for region in op.regions:
                for block in region.blocks:
                    for arg in block.args:
                        if isinstance(arg.type, IndexType):
                            arg._type = i32
            if isinstance(op, arith.ConstantOp) and isinstance(op.result.type, IndexType):
                self.b.replace(op, [arith.ConstantOp(IntegerAttr(op.value.value.data, i32), i32)])
                continue
            if isinstance(op, arith.IndexCastOp):
                src, dst = op.input.type, op.result.type
                src_w = 32 if isinstance(src, IndexType) else src.width.data
                dst_w = 32 if isinstance(dst, IndexType) else dst.width.data
                if isinstance(dst, IndexType):
                    dst = i32
                if src_w == dst_w:
                    op.result.replace_all_uses_with(op.input)
                    self.b.erase(op)
                elif src_w < dst_w:
                    self.b.replace(op, [arith.ExtSIOp(op.input, dst)])
                else:
                    self.b.replace(op, [arith.TruncIOp(op.input, dst)])
                continue
            for r in op.results:
                if isinstance(r.type, IndexType):
                    r._type = i32


def lower_gpu_kernels(module: ModuleOp, target: GpuTarget, index_bits: int) -> None:
    """Replace every mapped.kernel of `module` with its hw kernel for `target` (the body of the
    mapped-to-hw-nv / -amd passes; the mapped.host stays for the runtime)."""
    if index_bits not in (32, 64):
        raise PassFailure(module, f"{target.pass_name}: index-bits must be 32 or 64, got {index_bits}")
    block = module.body.block
    foreach = foreach_kernel(module)
    for k in list(block.ops):
        if isinstance(k, mapped.KernelOp):
            if k.target.data != "gpu":
                raise PassFailure(k, f"{target.pass_name}: kernel @{k.sym_name.data} targets {k.target.data}")
            problem = target.kernel_problem(k)
            if problem:
                raise PassFailure(k, f"{target.pass_name}: kernel @{k.sym_name.data}: {problem}")
            new = GpuKernelLowering(k, target, narrow=index_bits == 32, foreach=k.sym_name.data == foreach).run()
            block.insert_op_before(new, k)
            k.detach()
            k.erase(safe_erase=False)


def foreach_kernel(module: ModuleOp) -> str | None:
    """The kernel that runs a program over lists (`tilec.foreach` on the mapped.host) in ONE
    launch over every position, or None. That is the case when the host program is that one
    launch, with no temporaries, whose buffer arguments are the host's inputs (the lists) and
    whose index arguments are their sizes and other scalars the call's, on a 1-D grid: then the kernel takes a table of the
    positions' addresses, sizes and blocks instead (`GpuKernelLowering.bind_foreach_params`) and
    the runtime launches the sum of the positions' grids. Other programs over lists (several
    kernels or temporaries) launch their kernels once per position."""
    hosts = [op for op in module.body.block.ops if isinstance(op, mapped.HostOp)]
    if len(hosts) != 1 or FOREACH_ATTR not in hosts[0].attributes:
        return None
    host = hosts[0]
    inputs = list(host.body.block.args)[: host.num_inputs]
    dims = set()
    launches = []
    for op in host.body.block.ops:
        if isinstance(op, mapped.DimOp) and op.source in inputs:
            dims.add(op.result)
        elif isinstance(op, mapped.LaunchOp):
            launches.append(op)
        elif isinstance(op, mapped.TempOp | mapped.ViewOp):
            return None
    if len(launches) != 1:
        return None
    launch = launches[0]
    for a in launch.args:
        if isinstance(a.type, mapped.BufType) and a not in inputs:
            return None
        if isinstance(a.type, IndexType):
            if a not in dims:
                return None
        elif not isinstance(a.type, mapped.BufType) and a not in inputs:
            return None  # a scalar the host computes (the table path passes the call's scalars only)
    name = launch.kernel_name.root_reference.data
    for k in module.body.block.ops:
        if isinstance(k, mapped.KernelOp) and k.sym_name.data == name:
            if any(len(f.data) != 1 or len(f.data[0].data) != 1 for f in list(k.grid.dims.data)[1:]):
                return None  # grid y or z not a constant
            return name
    return None


__all__ = [
    "HIERARCHY_OPS",
    "SCRATCH",
    "SCRATCH_BYTES",
    "Chunk",
    "foreach_kernel",
    "GpuKernelLowering",
    "GpuTarget",
    "lower_gpu_kernels",
]
