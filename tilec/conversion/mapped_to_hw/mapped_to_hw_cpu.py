"""mapped-to-hw-cpu: cpu kernels and host programs -> `hw.cpu` functions (C-level IR).

- A global buffer becomes a typed pointer plus one `index` parameter per dynamic dimension;
  `mapped.dim` reads those, `mapped.load`/`store` become `hw.cpu.load`/`store` at the row-major
  element offset. Masks (`i1`) are stored as bytes (`i8`, 0 or 1, like numpy's bool).
- `mapped.parallel ... on cores` becomes `hw.cpu.parallel_for` (OpenMP).
- The host program becomes the entry function (attribute `tilec.entry`): temporaries are
  `hw.cpu.malloc`ed (and freed before returning), views reuse the pointer with new sizes, and
  launches are `hw.cpu.call`s.
- `vector.broadcast` / `vector.reduction` become `hw.cpu.splat` / `hw.cpu.vreduce`.
Scalar `arith`/`math` and `scf` ops are kept: the C emitter prints them directly.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    ModuleOp,
    UnitAttr,
    i1,
    i8,
    i64,
)
from xdsl.ir import Operation, SSAValue

from tilec.conversion.builder import Emitter
from tilec.conversion.mapped_to_hw.params import bind_args, buffer_params
from tilec.dialects import mapped
from tilec.dialects.common import DYNAMIC
from tilec.dialects.hw import PtrType
from tilec.dialects.hw import cpu as hwcpu
from tilec.passes.api import PassFailure, TilecPass, register_pass

ENTRY_ATTR = "tilec.entry"
FOREACH_ATTR = "tilec.foreach"  # the entry function of a program over lists (tile.FOREACH_ATTR)


@dataclass
class BufInfo:
    ptr: SSAValue
    dims: list[SSAValue]  # index values (constants for static dims)


def mem_type(elt):
    """The element type a buffer of `elt` has in memory: i1 is one byte."""
    return i8 if elt == i1 else elt


def param_types(t) -> list:
    """The C parameters one mapped argument becomes."""
    if isinstance(t, mapped.BufType):
        return buffer_params(t, PtrType("generic", mem_type(t.element_type)), IndexType())
    return [t]


class _FuncConverter:
    def __init__(self, op: mapped.KernelOp | mapped.HostOp):
        self.old = op
        old_block = op.body.block
        types = [pt for a in old_block.args for pt in param_types(a.type)]
        self.func = hwcpu.FuncOp(op.sym_name.data, types)
        self.func.location = op.location
        if isinstance(op, mapped.HostOp):
            self.func.attributes[ENTRY_ATTR] = UnitAttr()
            if FOREACH_ATTR in op.attributes:
                self.func.attributes[FOREACH_ATTR] = UnitAttr()
        self.block = self.func.body.block
        self.e = Emitter(self.block, location=op.location)
        self.bufs: dict[SSAValue, BufInfo] = {}
        self.mallocs: list[SSAValue] = []
        self.dead: list[Operation] = []  # buffer-defining ops, erased once their users are converted
        for a, p, dims in bind_args(old_block.args, self.block.args):
            if isinstance(a.type, mapped.BufType):
                self.bufs[a] = BufInfo(p, [d if isinstance(d, SSAValue) else self.e.index(d) for d in dims])
            else:
                a.replace_all_uses_with(p)
        for o in list(old_block.ops):
            o.detach()
            self.block.add_op(o)

    def offset(self, info: BufInfo, indices, before: Operation) -> SSAValue:
        out = None
        for i, d in zip(indices, info.dims):
            out = (
                i if out is None else self.e.value(arith.AddiOp(self.e.value(arith.MuliOp(out, d), before), i), before)
            )
        if out is None:
            out = self.e.index(0)
        return self.e.value(arith.IndexCastOp(out, i64), before)

    def run(self) -> hwcpu.FuncOp:
        for op in list(self.func.body.walk()):
            if op.parent_block() is not None:  # skip ops already replaced with their parent
                self.convert(op)
        for op in reversed(self.dead):
            self.e.erase(op)
        return self.func

    def convert(self, op: Operation) -> None:
        if isinstance(op, mapped.DimOp):
            op.result.replace_all_uses_with(self.bufs[op.source].dims[op.axis.data])
            self.e.erase(op)
        elif isinstance(op, mapped.LoadOp):
            info = self.bufs[op.source]
            t = op.result.type
            new = self.e.insert(hwcpu.LoadOp(info.ptr, self.offset(info, op.indices, op), mem_type(t)), op)
            if t == i1:
                zero = self.e.value(arith.ConstantOp(IntegerAttr(0, i8), i8), op)
                new = self.e.insert(arith.CmpiOp(new.results[0], zero, "ne"), op)
            self.e.rewire(op, new)
        elif isinstance(op, mapped.StoreOp):
            info = self.bufs[op.dest]
            value = op.value
            if value.type == i1:
                value = self.e.value(arith.ExtUIOp(value, i8), op)
            self.e.insert(hwcpu.StoreOp(value, info.ptr, self.offset(info, op.indices, op)), op)
            self.e.erase(op)
        elif isinstance(op, mapped.ParallelOp):
            if op.level.data != "cores":
                raise PassFailure(op, f"mapped-to-hw-cpu: `on {op.level.data}` is a GPU level")
            body = op.body.block
            term = body.last_op
            assert isinstance(term, mapped.YieldOp)
            term.detach()
            term.erase()
            body.add_op(hwcpu.YieldOp())
            region = op.detach_region(op.body)
            new = hwcpu.ParallelForOp(
                list(op.lower_bounds),
                list(op.upper_bounds),
                list(op.steps),
                region,
                schedule="static",
                condition=op.condition,
            )
            self.e.insert(new, op)
            self.e.erase(op)
        elif isinstance(op, mapped.ReturnOp):
            for p in reversed(self.mallocs):
                self.e.insert(hwcpu.FreeOp(p), op)
            self.e.insert(hwcpu.ReturnOp(), op)
            self.e.erase(op)
        elif isinstance(op, mapped.TempOp):
            t = op.result.type
            sizes = iter(op.sizes)
            dims = [next(sizes) if d == DYNAMIC else self.e.index(d) for d in t.get_shape()]
            count = self.e.index(1)
            for d in dims:
                count = self.e.value(arith.MuliOp(count, d), op) if Emitter.const_value(count) != 1 else d
            m = self.e.insert(hwcpu.MallocOp(count, PtrType("generic", mem_type(t.element_type))), op)
            if op.result.name_hint:
                m.result.name_hint = op.result.name_hint
            self.mallocs.append(m.result)
            self.bufs[op.result] = BufInfo(m.result, dims)
            self.dead.append(op)
        elif isinstance(op, mapped.AllocOp):
            t = op.result.type
            if t.space_name != "reg":
                raise PassFailure(op, f"mapped-to-hw-cpu: {t.space_name} memory does not exist on a CPU")
            a = self.e.insert(hwcpu.AllocaOp(mem_type(t.element_type), t.num_elements() or 1, 64), op)
            self.bufs[op.result] = BufInfo(a.results[0], [self.e.index(d) for d in t.get_shape()])
            self.dead.append(op)
        elif isinstance(op, mapped.ViewOp):
            t = op.result.type
            sizes = iter(op.sizes)
            dims = [next(sizes) if d == DYNAMIC else self.e.index(d) for d in t.get_shape()]
            self.bufs[op.result] = BufInfo(self.bufs[op.source].ptr, dims)
            self.dead.append(op)
        elif isinstance(op, mapped.LaunchOp):
            args: list[SSAValue] = []
            for a in op.args:
                if isinstance(a.type, mapped.BufType):
                    info = self.bufs[a]
                    args.append(info.ptr)
                    args += [d for d, s in zip(info.dims, a.type.get_shape()) if s == DYNAMIC]
                else:
                    args.append(a)
            self.e.insert(hwcpu.CallOp(op.kernel_name.root_reference.data, args), op)
            self.e.erase(op)
        elif isinstance(op, vector.BroadcastOp):
            self.e.rewire(op, self.e.insert(hwcpu.SplatOp(op.source, op.vector.type), op))
        elif isinstance(op, vector.ReductionOp):
            kind = {"add": "add", "mul": "mul", "maxnumf": "max", "minnumf": "min", "maxsi": "max", "minsi": "min"}.get(
                op.kind.data
            )
            if kind is None or op.acc is not None:
                raise PassFailure(op, f"mapped-to-hw-cpu: vector.reduction <{op.kind.data}> is not supported yet")
            self.e.rewire(op, self.e.insert(hwcpu.VReduceOp(kind, op.vector), op))
        elif op.name.startswith("mapped."):
            raise PassFailure(op, f"mapped-to-hw-cpu: {op.name} has no CPU lowering")


@register_pass
class MappedToHwCpu(TilecPass):
    """Lower cpu mapped kernels and host programs to hw.cpu functions."""

    name = "mapped-to-hw-cpu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        block = op.body.block
        for fn in list(block.ops):
            if isinstance(fn, mapped.KernelOp | mapped.HostOp):
                if isinstance(fn, mapped.KernelOp) and fn.target.data != "cpu":
                    raise PassFailure(fn, f"mapped-to-hw-cpu: kernel @{fn.sym_name.data} targets {fn.target.data}")
                new = _FuncConverter(fn).run()
                block.insert_op_before(new, fn)
                fn.detach()
                fn.erase(safe_erase=False)


__all__ = ["ENTRY_ATTR", "MappedToHwCpu", "param_types"]
