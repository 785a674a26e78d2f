"""From a fused tile.func to the host side of its mapped form: buffers, sizes, views, launches.

`HostBuilder` turns each `tile.func` (after `tile-fuse`) into a `mapped.host` that:
- maps array arguments to global buffers;
- gives every fused-group result a buffer: the output array it is stored into, else a temporary;
- resolves any tile dimension to a host `index` value (`size`), following the IR back to an
  array's `mapped.dim` or a `sizes(...)` operand;
- describes each group input as a *view*: a host buffer (possibly reshaped with `mapped.view`)
  plus an index map (for each buffer axis, the logical axis that indexes it, or None = index 0)
  built from the transposes and broadcasts on top.
Kernels are built by the target's group lowering and launched in program order.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import ArrayAttr, FunctionType, IntegerAttr, StringAttr, i32
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from tilec.conversion.builder import Emitter, storage_type
from tilec.diagnostics import NotSupportedYet, op_location
from tilec.dialects import mapped, tile
from tilec.dialects.common import DYNAMIC, int_list

STATUS_ATTR = "tilec.status"
"""On a mapped.host with a status word (its last output): per code (1, 2, ...), in order, the
pair [message, "file:line:col" of the op] (see `status_checks`)."""
STATUS_TYPE = mapped.BufType((1,), i32, "global")


@dataclass
class View:
    """How a group input is read: `buffer[i_0, ..., i_r]` with i_b = logical[index_map[b]] (or 0)."""

    buffer: SSAValue  # host-level global buffer
    index_map: list[int | None]

    @property
    def buf_type(self) -> mapped.BufType:
        t = self.buffer.type
        assert isinstance(t, mapped.BufType)
        return t


def buf_type_for(t: tile.TileType | tile.ArrayType) -> mapped.BufType:
    """The global buffer holding a value of type `t`; a rank-0 value is a buffer of one element
    (buffers have at least one dimension), read and written at index 0."""
    return mapped.BufType(t.get_shape() or (1,), storage_type(t.element_type), "global")


class HostBuilder:
    def __init__(self, func: tile.FuncOp):
        self.func = func
        in_types = [
            buf_type_for(t) if isinstance(t, tile.ArrayType) else storage_type(t)
            for t in func.function_type.inputs.data
        ]
        out_types = [buf_type_for(t) for t in func.function_type.outputs.data]
        self.host = mapped.HostOp(func.sym_name.data, in_types, out_types)
        self.host.location = func.location
        self.block: Block = self.host.body.block
        self.e = Emitter(self.block, location=func.location)
        self.arg_map: dict[SSAValue, SSAValue] = {}
        for targ, harg in zip(func.body.block.args, self.block.args):
            self.arg_map[targ] = harg
            if targ.name_hint:
                harg.name_hint = targ.name_hint
        self._dims: dict[tuple[SSAValue, int], SSAValue] = {}
        self._index: dict[SSAValue, SSAValue] = {}
        self.buffers: dict[SSAValue, SSAValue] = {}  # fused result -> host buffer
        self._views: dict[tuple[SSAValue, tuple[int, ...]], SSAValue] = {}
        self._status: SSAValue | None = None
        self.status_messages: list[tuple[str, str]] = []  # (message, "file:line:col" or "")
        self._status_codes: dict[tuple, int] = {}

    # --- sizes ----------------------------------------------------------------------------------

    def size(self, value: SSAValue, axis: int) -> SSAValue:
        """A host index value equal to `value`'s size along `axis` (any tile or array value)."""
        t = value.type
        assert isinstance(t, tile.TileType | tile.ArrayType), t
        d = t.get_shape()[axis]
        if d != DYNAMIC:
            return self.e.index(d)
        key = (value, axis)
        if key not in self._dims:
            self._dims[key] = self._size(value, axis)
        return self._dims[key]

    def _dyn_position(self, t: tile.TileType, axis: int) -> int:
        return sum(1 for d in t.get_shape()[:axis] if d == DYNAMIC)

    def _size(self, value: SSAValue, axis: int) -> SSAValue:
        if isinstance(value, BlockArgument):
            owner = value.owner.parent_op() if isinstance(value.owner, Block) else None
            if isinstance(owner, tile.FuncOp):
                d = self.e.v(mapped.DimOp(self.arg_map[value], axis))
                if value.name_hint:
                    d.name_hint = f"{value.name_hint}_d{axis}"
                return d
            if isinstance(owner, tile.FusedOp):
                return self.size(owner.inputs[value.index], axis)
            raise NotSupportedYet(f"sizes of block arguments of {owner.name if owner else '?'}")
        op = value.owner
        if isinstance(op, tile.LoadOp):
            return self.size(op.source, axis)
        if isinstance(op, tile.FusedOp):
            y = op.body.block.last_op
            assert isinstance(y, tile.YieldOp)
            return self.size(y.values[list(op.outputs).index(value)], axis)
        if isinstance(op, tile.UnaryOp | tile.BinaryOp | tile.CmpOp | tile.CastOp | tile.BitcastOp):
            return self.size(op.operands[0], axis)
        if isinstance(op, tile.SelectOp):
            return self.size(op.true_value, axis)
        if isinstance(
            op, tile.BroadcastOp | tile.ReshapeOp | tile.ConstantOp | tile.IotaOp | tile.SplatOp | tile.RandomBitsOp
        ):
            t = value.type
            assert isinstance(t, tile.TileType)
            return self.index_value(op.sizes[self._dyn_position(t, axis)])
        if isinstance(op, tile.TransposeOp):
            return self.size(op.source, int_list(op.permutation)[axis])
        if isinstance(op, tile.SliceOp | tile.DynamicSliceOp | tile.PadOp):
            return self.size(op.source, axis)  # a `?` axis is kept whole
        if isinstance(op, tile.ConcatOp):
            return self.size(op.inputs[0], axis)
        if isinstance(op, tile.TakeOp):
            a, k = op.axis.data, op.indices.type.rank
            if axis < a:
                return self.size(op.source, axis)
            if axis < a + k:
                return self.size(op.indices, axis - a)
            return self.size(op.source, axis - k + 1)
        if isinstance(op, tile.TakeAlongAxisOp):
            return self.size(op.indices, axis)
        if isinstance(op, tile.ScatterAddOp | tile.PoolOp | tile.ScanOp):  # a pool's `?` axes are leading ones, kept
            return self.size(op.source, axis)
        if isinstance(op, tile.ORDER_OPS):
            return self.size(op.source, axis)  # (a top-k's k axis is static)
        if isinstance(op, tile.ReduceOp):
            axes = set(int_list(op.axes))
            kept = [a for a in range(len(op.source.type.get_shape())) if a not in axes]
            return self.size(op.source, kept[axis])
        if isinstance(op, tile.ContractOp):
            batch, axes = op.batch, op.axes
            if axis < len(batch):
                return self.size(op.lhs, batch[axis][0])
            axis -= len(batch)
            used_l = {a for a, _ in axes} | {a for a, _ in batch}
            lfree = [a for a in range(op.lhs.type.rank) if a not in used_l]
            if axis < len(lfree):
                return self.size(op.lhs, lfree[axis])
            used_r = {b for _, b in axes} | {b for _, b in batch}
            rfree = [b for b in range(op.rhs.type.rank) if b not in used_r]
            return self.size(op.rhs, rfree[axis - len(lfree)])
        raise NotSupportedYet(f"run-time sizes of the result of {op.name}", op_location(op))

    def index_value(self, v: SSAValue) -> SSAValue:
        """The host value of an `index` SSA value of the tile IR (tile.dim, arith, arguments)."""
        if v in self._index:
            return self._index[v]
        if isinstance(v, BlockArgument):
            owner = v.owner.parent_op() if isinstance(v.owner, Block) else None
            if isinstance(owner, tile.FuncOp):
                out = self.arg_map[v]
            elif isinstance(owner, tile.FusedOp):
                out = self.index_value(owner.inputs[v.index])
            else:
                raise NotSupportedYet("index values defined inside this op")
        else:
            op = v.owner
            if isinstance(op, tile.DimOp):
                out = self.size(op.source, op.axis.data)
            elif isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
                out = self.e.index(op.value.value.data)
            elif op.name.startswith("arith."):
                new = op.clone(value_mapper={o: self.index_value(o) for o in op.operands})
                out = self.e.v(new)
            else:
                raise NotSupportedYet(f"index values computed by {op.name}", op_location(op))
        self._index[v] = out
        return out

    # --- buffers and views ----------------------------------------------------------------------

    def buffer_for_result(self, result: SSAValue) -> SSAValue:
        """The output array a fused result is stored into, or a new temporary."""
        if result in self.buffers:
            return self.buffers[result]
        for use in result.uses:
            if isinstance(use.operation, tile.StoreOp) and use.index == 0:
                buf = self.arg_map[use.operation.dest]
                self.buffers[result] = buf
                return buf
            stored = self._stored_reshape(use.operation)
            if stored is not None:  # (tile-fuse's stored_view) the output array seen in this shape
                view = mapped.ViewOp(self.arg_map[stored.dest], buf_type_for(result.type))
                self.buffers[result] = self.e.v(view)
                return self.buffers[result]
        t = result.type
        assert isinstance(t, tile.TileType)
        sizes = [self.size(result, a) for a, d in enumerate(t.get_shape()) if d == DYNAMIC]
        buf = self.e.v(mapped.TempOp(buf_type_for(t), sizes))
        if result.name_hint:
            buf.name_hint = f"{result.name_hint}_tmp"
        self.buffers[result] = buf
        return buf

    @staticmethod
    def _stored_reshape(op: Operation) -> tile.StoreOp | None:
        """The store of a static reshape `op` (of a group result) into an output array, if that is
        all that reads it."""
        if not isinstance(op, tile.ReshapeOp) or op.result.uses.get_length() != 1:
            return None
        store = next(iter(op.result.uses)).operation
        static = all(d >= 0 for d in op.result.type.get_shape() + op.source.type.get_shape())
        if not (static and isinstance(store, tile.StoreOp) and store.value is op.result):
            return None
        func = store.parent_op()
        return None if isinstance(func, tile.FuncOp) and store.dest in func.input_args else store

    def view_of(self, value: SSAValue) -> View:
        """A group input as a view of a host buffer (see the module docstring)."""
        op = value.owner
        if isinstance(op, tile.TransposeOp):
            inner = self.view_of(op.source)
            perm = int_list(op.permutation)
            inv = {p: i for i, p in enumerate(perm)}
            return View(inner.buffer, [None if m is None else inv[m] for m in inner.index_map])
        if isinstance(op, tile.BroadcastOp):
            inner = self.view_of(op.source)
            ss, rs = op.source.type.get_shape(), op.result.type.get_shape()
            off = len(rs) - len(ss)
            out = []
            for m in inner.index_map:
                if m is None or (ss[m] == 1 and rs[off + m] != 1):
                    out.append(None)
                else:
                    out.append(off + m)
            return View(inner.buffer, out)
        base = self.plain_buffer(value)
        rank = len(value.type.get_shape())
        return View(base, list(range(rank)) if rank else [None])

    def plain_buffer(self, value: SSAValue) -> SSAValue:
        """A host buffer holding `value` in row-major order (arrays, group results, reshapes of them)."""
        op = value.owner
        if isinstance(op, tile.LoadOp):
            return self.arg_map[op.source]
        if isinstance(op, tile.FusedOp):
            return self.buffer_for_result(value)
        if isinstance(op, tile.ReshapeOp):
            src = self.plain_buffer(op.source)
            t = value.type
            assert isinstance(t, tile.TileType)
            key = (src, t.get_shape())
            if key not in self._views:
                sizes = [self.size(value, a) for a, d in enumerate(t.get_shape()) if d == DYNAMIC]
                self._views[key] = self.e.v(mapped.ViewOp(src, buf_type_for(t), sizes))
            return self._views[key]
        raise NotSupportedYet(f"reading a {op.name} result directly from memory", op_location(op))

    # --- the status word of index checks ------------------------------------------------------

    def status_check(self, op: Operation) -> tuple[SSAValue, int]:
        """The call's status word (created on first use) and the code a kernel stores there when
        `op` (a gather or scatter) meets an out-of-range index. One code per source op: a gather
        inlined into several groups keeps its code."""
        loc = op_location(op)
        what = op.name.split(".", 1)[-1]
        message = f"{what}: index out of range in {tile.index_origin(op.indices)}"
        key = (message, str(loc))
        if key not in self._status_codes:
            self.status_messages.append((message, str(loc) if loc else ""))
            self._status_codes[key] = len(self.status_messages)
        if self._status is None:
            t = STATUS_TYPE
            self._status = self.block.insert_arg(t, len(self.block.args))
            self._status.name_hint = "status"
            ft = self.host.function_type
            self.host.function_type = FunctionType.from_lists(list(ft.inputs.data), [*ft.outputs.data, t])
        return self._status, self._status_codes[key]

    def launch(self, kernel: mapped.KernelOp, args: list[SSAValue]) -> None:
        self.e.add(mapped.LaunchOp(kernel.sym_name.data, args))

    def finish(self) -> mapped.HostOp:
        if self.status_messages:
            self.host.attributes[STATUS_ATTR] = ArrayAttr(
                [ArrayAttr([StringAttr(m), StringAttr(loc)]) for m, loc in self.status_messages]
            )
        self.e.add(mapped.ReturnOp())
        return self.host


def status_checks(host: mapped.HostOp) -> list[list[str]]:
    """The [message, location] of each status code of a mapped.host ([] without a status word)."""
    attr = host.attributes.get(STATUS_ATTR)
    if not isinstance(attr, ArrayAttr):
        return []
    return [[e.data for e in pair.data] for pair in attr.data]


def plain_input(fused: tile.FusedOp, host: HostBuilder, v: SSAValue) -> SSAValue | None:
    """The host buffer holding group input `v` row-major as its tile type says, else None."""
    args = list(fused.body.block.args)
    if v not in args:
        return None
    try:
        view = host.view_of(fused.inputs[args.index(v)])
    except Exception:  # noqa: BLE001 - a view tilec cannot express: the caller's general path handles it
        return None
    if view.index_map != list(range(v.type.rank)) or view.buf_type.get_shape() != v.type.get_shape():
        return None
    return view.buffer


__all__ = ["STATUS_ATTR", "STATUS_TYPE", "HostBuilder", "View", "buf_type_for", "plain_input", "status_checks"]
