"""`hw.nv.*`: per-thread PTX instructions for NVIDIA GPUs (Ampere sm_80 to Hopper sm_90a).

One op is one PTX instruction (or a fixed, documented sequence); one SSA value is one register.
Scalar arithmetic, comparisons and conversions use upstream `arith` (`add.f32`, `mul.lo.s32`,
`setp`, `selp`, `cvt`), control flow uses `scf.for` / `scf.if`. Addresses: i64 for global and
generic memory, i32 for a shared-memory window address (`hw.nv.shared_addr`).

Example (a warp-shuffle row sum)::

    hw.nv.kernel @rowsum(%X: !hw.ptr<global>, %Y: !hw.ptr<global>) sm 90 maxntid [32, 1, 1] {
      %x = hw.ptr_to_int %X : !hw.ptr<global> -> i64
      %lane = hw.nv.sreg laneid : i32
      ...
      %v = hw.nv.ld global %a : i64 -> f32
      %s1 = hw.nv.shfl bfly %v, 16 : f32
      %t1 = arith.addf %v, %s1 : f32
      ...
      hw.nv.return
    }
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntAttr,
    IntegerType,
    StringAttr,
    UnitAttr,
    bf16,
    f16,
    f32,
    f64,
    i1,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    ParametrizedAttribute,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator, Pure

from tilec.archs import HOPPER, SM_ARCHS, SMEM_LIMIT, STATIC_SMEM_LIMIT
from tilec.dialects.common import (
    int_list,
    parse_extra_attrs,
    parse_int_list,
    print_extra_attrs,
    print_int_list,
)
from tilec.dialects.hw.common import (
    REGISTER_TYPES,
    ArrayAddrBase,
    DynamicAddrBase,
    GpuKernelBase,
    HwOp,
    NoOperandOp,
    SharedMemoryWords,
    ShuffleBase,
    StaticArrayBase,
    byte_size,
    check_address,
    check_offset32,
    check_one_of,
    check_result_type,
    check_type_count,
    clause_props,
    enclosing,
    is_32bit,
    is_power_of_two,
    is_register_type,
    parse_address,
    parse_choice,
    parse_immediates,
    parse_int_keyword,
    parse_operand_and_int,
    parse_operand_list,
    parse_operands,
    parse_paren_operands,
    parse_signature,
    parse_type_list,
    parse_typed_tail,
    parse_vector_width,
    print_address,
    print_operands,
    print_paren_operands,
    print_signature,
    resolve_all,
    static_array_traits,
    with_attributes,
)

# --- types --------------------------------------------------------------------------------------


@irdl_attr_definition
class TensorMapType(ParametrizedAttribute, TypeAttribute):
    """A TMA tensor map (CUtensorMap, 128 bytes) passed by value as a kernel parameter.

    Emitted as `.param .align 64 .b8 name[128]`; only `hw.nv.tma_load_2d` uses it.

        hw.nv.kernel @k(%tmA: !hw.nv.tensor_map) sm "90a" { ... }
    """

    name = "hw.nv.tensor_map"


# --- targets ------------------------------------------------------------------------------------

# SM_ARCHS, SMEM_LIMIT (most shared memory one block may use, static + dynamic, after the opt-in),
# STATIC_SMEM_LIMIT (ptxas rejects more static `.shared` except for sm_90a; notes/ptx-tensor-cores.md)
# and HOPPER are facts of tilec/archs.py, which the backends read too.

MODULE_SM_ATTR = "hw.nv.sm"
"""The module attribute mapped-to-hw-nv sets to its target: the PTX `.target` of a module that
needs no kernel (a program whose outputs are its inputs, say) has no hw.nv.kernel to read it from."""


def _sm_text(sm: str) -> str:
    return sm.removeprefix("sm_")


def _require_sm(op: HwOp, allowed: Sequence[str], what: str) -> None:
    """If `op` is inside a kernel, that kernel's target must be one of `allowed`."""
    k = enclosing(op, KernelOp)
    if isinstance(k, KernelOp) and k.sm.data not in allowed:
        need = " or ".join(_sm_text(s) for s in allowed)
        raise op.error(f"{what} needs sm {need}, but the kernel targets {_sm_text(k.sm.data)}")


# --- kernel structure ---------------------------------------------------------------------------
# hw.amd declares the same ops for HIP; what differs per target is only the names, clauses, words
# and docs below: the logic is in hw.common (GpuKernelBase, StaticArrayBase, ArrayAddrBase, ...).


@irdl_op_definition
class SharedOp(StaticArrayBase):
    """A static shared-memory array of the enclosing kernel (`.shared .align A .b8 name[N]`).

    hw.nv.shared @sA 16384 align 128
    """

    name = "hw.nv.shared"
    traits = static_array_traits(lambda: KernelOp)


@irdl_op_definition
class KernelOp(GpuKernelBase):
    """A PTX `.entry`: parameters are global/generic pointers, tensor maps or scalars.

    `sm` is the target (80, 86, 89, 90 or "90a"); `maxntid` bounds the block size;
    `smem N align A` is the dynamic shared memory (bytes) the launch must provide, read through
    `hw.nv.dynamic_shared_addr`; `minnctapersm N` (`.minnctapersm`) lets ptxas fix the register
    count at entry, which `hw.nv.setmaxnreg` needs. Static arrays are `hw.nv.shared` ops at the top of the body.

        hw.nv.kernel @gemm(%A: !hw.ptr<global>, %n: i32, %eps: f32) sm 90 maxntid [128, 1, 1] smem 49152 {
          ...
          hw.nv.return
        }
    """

    name = "hw.nv.kernel"

    # the clauses of a PTX entry (a HIP kernel has others: arch, wave, launch_bounds, lds)
    sm = prop_def(StringAttr)
    maxntid = opt_prop_def(DenseArrayBase)
    smem = opt_prop_def(IntAttr)
    smem_align = opt_prop_def(IntAttr)
    minnctapersm = opt_prop_def(IntAttr)

    RETURN_NAME: ClassVar[str] = "hw.nv.return"
    PARAM_KINDS: ClassVar[str] = "!hw.ptr<global>, !hw.ptr<generic>, !hw.nv.tensor_map or scalars"
    ARRAY_OP: ClassVar[type[StaticArrayBase]] = SharedOp
    SHARED: ClassVar[SharedMemoryWords] = SharedMemoryWords(
        "smem", "shared array", "shared memory", "a shared address", "block"
    )
    POINTER_SPACES: ClassVar[tuple[str, ...]] = ("global", "generic")
    OPAQUE_PARAMS: ClassVar[tuple[type[Attribute], ...]] = (TensorMapType,)

    def __init__(
        self,
        name: str,
        param_types: Sequence[Attribute],
        sm: str | int = "sm_90",
        maxntid: Sequence[int] | None = None,
        smem: int | None = None,
        smem_align: int | None = None,
        body: Region | None = None,
        minnctapersm: int | None = None,
    ):
        self._init(name, param_types, self._props(sm, maxntid, smem, smem_align, minnctapersm), body)

    @staticmethod
    def _props(sm, maxntid, smem, smem_align, minnctapersm=None) -> dict[str, Attribute]:
        sm = str(sm)
        sm = sm if sm.startswith("sm_") else f"sm_{sm}"
        return clause_props(sm=sm, maxntid=maxntid, smem=smem, smem_align=smem_align, minnctapersm=minnctapersm)

    # the names the PTX emitter and the lowering use
    dynamic_smem = GpuKernelBase.dynamic_bytes
    shared_arrays = GpuKernelBase.static_arrays
    lookup_shared = GpuKernelBase.lookup_array
    static_smem = GpuKernelBase.static_bytes

    def _verify_clauses(self) -> None:
        sm = self.sm.data
        if sm not in SM_ARCHS:
            raise self.error(f'unknown target {sm} (expected sm 80, 86, 89, 90 or "90a")')
        if self.maxntid is not None:
            dims = int_list(self.maxntid)
            if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
                raise self.error(f"maxntid needs 1 to 3 positive sizes, got {list(dims)}")
            total = 1
            for d in dims:
                total *= d
            if total > 1024:
                raise self.error(f"maxntid {list(dims)} is {total} threads; a block has at most 1024")
        self.verify_dynamic_size()
        if self.smem_align is not None and not is_power_of_two(self.smem_align.data):
            raise self.error(f"smem alignment must be a power of two, got {self.smem_align.data}")
        if self.minnctapersm is not None and self.minnctapersm.data < 1:
            raise self.error(f"minnctapersm must be >= 1, got {self.minnctapersm.data}")
        self.verify_arrays(SMEM_LIMIT[sm], _sm_text(sm))

    def _verify_static_bytes(self, static: int) -> None:
        sm = self.sm.data
        if static > STATIC_SMEM_LIMIT and sm != "sm_90a":
            raise self.error(
                f"{static} bytes of static shared memory; ptxas allows at most {STATIC_SMEM_LIMIT} for "
                f"{_sm_text(sm)} (use dynamic shared memory: smem N)"
            )

    @classmethod
    def _parse_clauses(cls, parser: Parser) -> dict[str, Attribute]:
        parser.parse_keyword("sm")
        sm = parser.parse_optional_str_literal()
        if sm is None:
            sm = str(parser.parse_integer(allow_negative=False, allow_boolean=False))
        maxntid = parse_int_list(parser) if parser.parse_optional_keyword("maxntid") else None
        smem = parse_int_keyword(parser, "smem")
        smem_align = parse_int_keyword(parser, "align") if smem is not None else None
        minnctapersm = parse_int_keyword(parser, "minnctapersm")
        return cls._props(sm, maxntid, smem, smem_align, minnctapersm)

    def _print_clauses(self, printer: Printer) -> None:
        sm = _sm_text(self.sm.data)
        printer.print_string(f' sm "{sm}"' if not sm.isdigit() else f" sm {sm}")
        if self.maxntid is not None:
            printer.print_string(" maxntid ")
            print_int_list(printer, int_list(self.maxntid))
        if self.smem is not None:
            printer.print_string(f" smem {self.smem.data}")
            if self.smem_align is not None:
                printer.print_string(f" align {self.smem_align.data}")
        if self.minnctapersm is not None:
            printer.print_string(f" minnctapersm {self.minnctapersm.data}")


@irdl_op_definition
class ReturnOp(NoOperandOp):
    """Ends a `hw.nv.kernel` body (PTX `ret`).

    hw.nv.return
    """

    name = "hw.nv.return"
    traits = traits_def(IsTerminator(), HasParent(KernelOp))


@irdl_op_definition
class SharedAddrOp(ArrayAddrBase):
    """The 32-bit shared-window address of a `hw.nv.shared` array (`mov.u32 %r, sA;`).

    %a = hw.nv.shared_addr @sA : i32
    """

    name = "hw.nv.shared_addr"
    KERNEL: ClassVar[type[GpuKernelBase]] = KernelOp


@irdl_op_definition
class DynamicSharedAddrOp(DynamicAddrBase):
    """The 32-bit shared-window address of the kernel's dynamic shared memory.

    The emitter declares one module-level `.extern .shared .align A .b8 name[];` (A = the
    largest `smem ... align A` of the module's kernels, 16 by default) and prints `mov.u32`.

        %a = hw.nv.dynamic_shared_addr : i32
    """

    name = "hw.nv.dynamic_shared_addr"
    KERNEL: ClassVar[type[GpuKernelBase]] = KernelOp


# --- special registers --------------------------------------------------------------------------

SREGS: dict[str, Attribute] = {
    **{f"{r}.{d}": i32 for r in ("tid", "ntid", "ctaid", "nctaid") for d in "xyz"},
    "laneid": i32,
    "warpid": i32,
    "nwarpid": i32,
    "smid": i32,
    "nsmid": i32,
    "dynamic_smem_size": i32,
    "total_smem_size": i32,
}


@irdl_op_definition
class SregOp(HwOp):
    """Reads a special register (`mov.u32 %r, %tid.x;`): tid.*, ntid.*, ctaid.*, nctaid.*, laneid, warpid, ...

    %t = hw.nv.sreg tid.x : i32
    """

    name = "hw.nv.sreg"
    reg = prop_def(StringAttr)
    result = result_def()
    traits = traits_def(Pure())

    def __init__(self, reg: str, result_type: Attribute | None = None):
        super().__init__(properties={"reg": StringAttr(reg)}, result_types=[result_type or SREGS.get(reg, i32)])

    def verify_(self) -> None:
        r = self.reg.data
        if r not in SREGS:
            raise self.error(f"unknown special register '{r}' (expected one of {', '.join(SREGS)})")
        if self.result.type != SREGS[r]:
            raise self.error(f"%{r} is {SREGS[r]}, got {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> SregOp:
        start = parser.pos
        reg = parser.parse_optional_identifier()
        if reg is None:
            parser.raise_error("expected a special register name (tid.x, ctaid.y, laneid, ...)", start, start + 1)
        extra, t = parse_typed_tail(parser)
        return with_attributes(cls(reg, t), extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.reg.data}")
        print_signature(printer, self, [self.result.type])


# --- loads and stores ---------------------------------------------------------------------------

LDST_SPACES = ("global", "shared", "local", "generic")
LD_CACHE = ("ca", "cg", "cs", "lu", "cv")
ST_CACHE = ("wb", "cg", "cs", "wt")
NC_CACHE = ("ca", "cg", "cs")
LD_SEM = ("relaxed", "acquire")
ST_SEM = ("relaxed", "release")
"""Memory-model qualifiers of ld / st (PTX ISA 6.0, sm_70): always with scope `.gpu`."""


def _address_types(space: str) -> tuple[Attribute, ...]:
    if space == "shared":
        return (i32,)
    if space == "local":
        return (i32, i64)
    return (i64,)


def _verify_access(op: HwOp, space: str, width: int, addr: Attribute, values: Sequence[Attribute], offset: int) -> None:
    check_one_of(op, space, LDST_SPACES, "state space")
    if width not in (1, 2, 4):
        raise op.error(f"vector width must be 1, 2 or 4, got {width}")
    if len(values) != width:
        raise op.error(f"a v{width} access moves {width} register(s), got {len(values)}")
    t = values[0]
    if any(v != t for v in values):
        raise op.error(f"all elements must have one type, got {', '.join(str(v) for v in values)}")
    if not is_register_type(t) and t != IntegerType(8):
        raise op.error(f"element type must be i8 (a byte, held in a 16-bit register), {REGISTER_TYPES}, got {t}")
    if width * byte_size(t) > 16:
        raise op.error(f"v{width} x {t} is {width * byte_size(t)} bytes; one access moves at most 16")
    check_address(op, f"a {space}", addr, _address_types(space))
    check_offset32(op, offset)


def _check_sem(
    op: HwOp, space: str, sem: StringAttr | None, choices: Sequence[str], values: Sequence[Attribute]
) -> None:
    """A memory-model qualifier (`relaxed`, `acquire`, `release`, scope .gpu): one scalar
    32- or 64-bit register of global or generic memory, no cache qualifier."""
    if sem is None:
        return
    check_one_of(op, sem.data, choices, "memory-order qualifier")
    if space not in ("global", "generic"):
        raise op.error(f"{sem.data} accesses are of global or generic memory, not {space}")
    if len(values) != 1 or byte_size(values[0]) not in (4, 8):
        raise op.error(f"{sem.data} accesses move one 32- or 64-bit register, got {', '.join(map(str, values))}")
    if op.cache is not None:
        raise op.error(f"{sem.data} accesses take no cache qualifier (got {op.cache.data})")


def _check_cache(op: HwOp, space: str, cache: StringAttr | None, choices: Sequence[str], kind: str) -> None:
    """A `kind` ("load", "store") cache qualifier: one of `choices`, and not on shared memory."""
    if cache is not None:
        check_one_of(op, cache.data, choices, f"{kind} cache qualifier")
        if space == "shared":
            raise op.error(f"cache qualifiers apply to global, local and generic {kind}s, not shared")


@irdl_op_definition
class LdOp(HwOp):
    """`ld{.sem.gpu}.{space}{.cop}{.nc}{.vN}.type`: 1, 2 or 4 registers from `addr + offset` (bytes).

    The address is i64 for global/generic, i32 for shared, i32 or i64 for local. `nc` reads
    through the non-coherent path (global data no thread writes during the kernel). `relaxed` /
    `acquire` (scope .gpu, one 32/64-bit register): a strong load of the memory model, for flags
    other blocks publish during the kernel (an acquire load sees every write made before the
    release store it reads from).

        %v0, %v1, %v2, %v3 = hw.nv.ld global v4 %addr : i64 -> f32, f32, f32, f32
        %h = hw.nv.ld shared %s + 64 : i32 -> i32
        %x = hw.nv.ld global nc cg %p : i64 -> f32
        %w = hw.nv.ld global acquire %flag : i64 -> i64
    """

    name = "hw.nv.ld"
    space = prop_def(StringAttr)
    width = prop_def(IntAttr)
    offset = prop_def(IntAttr)
    cache = opt_prop_def(StringAttr)
    nc = opt_prop_def(UnitAttr)
    sem = opt_prop_def(StringAttr)
    addr = operand_def()
    values = var_result_def()

    def __init__(
        self,
        space: str,
        addr: SSAValue,
        element_type: Attribute,
        width: int = 1,
        offset: int = 0,
        cache: str | None = None,
        nc: bool = False,
        result_types: Sequence[Attribute] | None = None,
        sem: str | None = None,
    ):
        props: dict[str, Attribute] = {"space": StringAttr(space), "width": IntAttr(width), "offset": IntAttr(offset)}
        if cache is not None:
            props["cache"] = StringAttr(cache)
        if nc:
            props["nc"] = UnitAttr()
        if sem is not None:
            props["sem"] = StringAttr(sem)
        if result_types is None:
            result_types = [element_type] * width
        super().__init__(operands=[addr], result_types=[list(result_types)], properties=props)

    def verify_(self) -> None:
        space = self.space.data
        _verify_access(self, space, self.width.data, self.addr.type, [r.type for r in self.values], self.offset.data)
        _check_cache(self, space, self.cache, LD_CACHE, "load")
        _check_sem(self, space, self.sem, LD_SEM, [r.type for r in self.values])
        if self.nc is not None and self.sem is not None:
            raise self.error(f"an nc load cannot be {self.sem.data}: the non-coherent path is not ordered")
        if self.nc is not None:
            if space != "global":
                raise self.error("nc (non-coherent) loads read global memory only")
            if self.cache is not None and self.cache.data not in NC_CACHE:
                raise self.error(f"nc loads take cache qualifier {', '.join(NC_CACHE)}, got {self.cache.data}")

    @classmethod
    def parse(cls, parser: Parser) -> LdOp:
        space = parse_choice(parser, LDST_SPACES, "a state space")
        sem = parser.parse_optional_keyword_in(LD_SEM)
        nc = parser.parse_optional_keyword("nc") is not None
        cache = parser.parse_optional_keyword_in(LD_CACHE)
        width = parse_vector_width(parser)
        addr, offset = parse_address(parser)
        extra, at = parse_typed_tail(parser)
        parser.parse_punctuation("->")
        types = parse_type_list(parser)
        op = cls(space, parser.resolve_operand(addr, at), types[0], width, offset, cache, nc, types, sem)
        return with_attributes(op, extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.space.data}")
        if self.sem is not None:
            printer.print_string(f" {self.sem.data}")
        if self.nc is not None:
            printer.print_string(" nc")
        if self.cache is not None:
            printer.print_string(f" {self.cache.data}")
        if self.width.data != 1:
            printer.print_string(f" v{self.width.data}")
        print_address(printer, self.addr, self.offset.data)
        print_signature(printer, self, [self.addr.type], [r.type for r in self.values])


@irdl_op_definition
class StOp(HwOp):
    """`st{.sem.gpu}.{space}{.cop}{.vN}.type`: 1, 2 or 4 registers to `addr + offset` (bytes).

    `relaxed` / `release` (scope .gpu, one 32/64-bit register): a strong store of the memory
    model; a release store makes this thread's earlier writes visible to an acquire load that
    reads it.

    hw.nv.st global v4 %addr, %v0, %v1, %v2, %v3 : i64, f32, f32, f32, f32
    hw.nv.st shared %s + 128, %h : i32, i32
    hw.nv.st global release %flag, %w : i64, i64
    """

    name = "hw.nv.st"
    space = prop_def(StringAttr)
    width = prop_def(IntAttr)
    offset = prop_def(IntAttr)
    cache = opt_prop_def(StringAttr)
    sem = opt_prop_def(StringAttr)
    addr = operand_def()
    values = var_operand_def()

    def __init__(
        self,
        space: str,
        addr: SSAValue,
        values: Sequence[SSAValue],
        offset: int = 0,
        cache: str | None = None,
        sem: str | None = None,
    ):
        props: dict[str, Attribute] = {
            "space": StringAttr(space),
            "width": IntAttr(len(values)),
            "offset": IntAttr(offset),
        }
        if cache is not None:
            props["cache"] = StringAttr(cache)
        if sem is not None:
            props["sem"] = StringAttr(sem)
        super().__init__(operands=[addr, list(values)], properties=props)

    def verify_(self) -> None:
        space = self.space.data
        _verify_access(self, space, self.width.data, self.addr.type, [v.type for v in self.values], self.offset.data)
        _check_cache(self, space, self.cache, ST_CACHE, "store")
        _check_sem(self, space, self.sem, ST_SEM, [v.type for v in self.values])

    @classmethod
    def parse(cls, parser: Parser) -> StOp:
        space = parse_choice(parser, LDST_SPACES, "a state space")
        sem = parser.parse_optional_keyword_in(ST_SEM)
        cache = parser.parse_optional_keyword_in(ST_CACHE)
        width_start = parser.pos
        width = parse_vector_width(parser)
        addr, offset = parse_address(parser)
        parser.parse_punctuation(",")
        start = parser.pos
        vals = parse_operand_list(parser)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        types = parse_type_list(parser)
        check_type_count(parser, start, "operands", 1 + len(vals), types)
        op = cls(
            space, parser.resolve_operand(addr, types[0]), resolve_all(parser, vals, types[1:]), offset, cache, sem
        )
        if width != len(vals):
            parser.raise_error(f"v{width} store needs {width} value(s), got {len(vals)}", width_start, parser.pos)
        return with_attributes(op, extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.space.data}")
        if self.sem is not None:
            printer.print_string(f" {self.sem.data}")
        if self.cache is not None:
            printer.print_string(f" {self.cache.data}")
        if self.width.data != 1:
            printer.print_string(f" v{self.width.data}")
        print_address(printer, self.addr, self.offset.data)
        printer.print_string(", ")
        printer.print_list(self.values, printer.print_operand)
        print_signature(printer, self, [self.addr.type, *[v.type for v in self.values]])


# PTX `red.global.add` type suffix -> the register type it adds (a signed int adds as .u32/.u64:
# two's complement addition is the same bits; f16 needs sm_70, bf16 sm_90)
RED_ADD_TYPES = {"f32": f32, "f64": f64, "u32": i32, "u64": i64, "noftz.f16": f16, "noftz.bf16": bf16}


@irdl_op_definition
class RedAddOp(HwOp):
    """`red.global.add.{type} [addr + offset], %v`: an atomic add to global memory, no result.

    hw.nv.red_add f32 %addr + 4, %v : i64, f32
    hw.nv.red_add noftz.f16 %addr, %h : i64, f16
    """

    name = "hw.nv.red_add"
    type = prop_def(StringAttr)
    offset = prop_def(IntAttr)
    addr = operand_def()
    value = operand_def()

    def __init__(self, type: str, addr: SSAValue, value: SSAValue, offset: int = 0):
        super().__init__(operands=[addr, value], properties={"type": StringAttr(type), "offset": IntAttr(offset)})

    def verify_(self) -> None:
        check_one_of(self, self.type.data, tuple(RED_ADD_TYPES), "red.add type")
        check_address(self, "a global", self.addr.type, [i64])
        check_offset32(self, self.offset.data)
        want = RED_ADD_TYPES[self.type.data]
        got = self.value.type
        if not (
            got == want or (isinstance(got, IntegerType) and isinstance(want, IntegerType) and got.width == want.width)
        ):
            raise self.error(f"red.add.{self.type.data} adds a {want}, got {got}")

    @classmethod
    def parse(cls, parser: Parser) -> RedAddOp:
        t = parse_choice(parser, tuple(RED_ADD_TYPES), "a red.add type")
        addr, offset = parse_address(parser)
        parser.parse_punctuation(",")
        v = parser.parse_unresolved_operand()
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        types = parse_type_list(parser)
        check_type_count(parser, parser.pos, "operands", 2, types)
        op = cls(t, parser.resolve_operand(addr, types[0]), parser.resolve_operand(v, types[1]), offset)
        return with_attributes(op, extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.type.data}")
        print_address(printer, self.addr, self.offset.data)
        printer.print_string(", ")
        printer.print_operand(self.value)
        print_signature(printer, self, [self.addr.type, self.value.type])


ATOM_ADD_TYPES = {"u32": i32, "u64": i64}


@irdl_op_definition
class AtomAddOp(HwOp):
    """`atom.global.add.{u32|u64} d, [addr + offset], v`: an atomic add to global memory that
    returns the value before the add (relaxed, scope .gpu).

        %old = hw.nv.atom_add u64 %addr, %one : i64, i64 -> i64
    """

    name = "hw.nv.atom_add"
    type = prop_def(StringAttr)
    offset = prop_def(IntAttr)
    addr = operand_def()
    value = operand_def()
    result = result_def()

    def __init__(
        self, type: str, addr: SSAValue, value: SSAValue, offset: int = 0, result_type: Attribute | None = None
    ):
        super().__init__(
            operands=[addr, value],
            result_types=[value.type if result_type is None else result_type],
            properties={"type": StringAttr(type), "offset": IntAttr(offset)},
        )

    def verify_(self) -> None:
        check_one_of(self, self.type.data, tuple(ATOM_ADD_TYPES), "atom.add type")
        check_address(self, "a global", self.addr.type, [i64])
        check_offset32(self, self.offset.data)
        want = ATOM_ADD_TYPES[self.type.data]
        if self.value.type != want:
            raise self.error(f"atom.add.{self.type.data} adds and returns a {want}, got {self.value.type}")
        if self.result.type != self.value.type:
            raise self.error(f"atom.add returns the added type {self.value.type}, got {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> AtomAddOp:
        t = parse_choice(parser, tuple(ATOM_ADD_TYPES), "an atom.add type")
        addr, offset = parse_address(parser)
        parser.parse_punctuation(",")
        v = parser.parse_unresolved_operand()
        extra, (at, vt), (rt,) = parse_signature(parser, 2, 1)
        op = cls(t, parser.resolve_operand(addr, at), parser.resolve_operand(v, vt), offset, rt)
        return with_attributes(op, extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.type.data}")
        print_address(printer, self.addr, self.offset.data)
        printer.print_string(", ")
        printer.print_operand(self.value)
        print_signature(printer, self, [self.addr.type, self.value.type], [self.result.type])


# --- cp.async -----------------------------------------------------------------------------------


@irdl_op_definition
class CpAsyncOp(HwOp):
    """`cp.async.{ca|cg}.shared.global [dst], [src], size{, src_bytes}`: global -> shared, async.

    `cg` (L2 only, the default for 16 bytes) takes size 16; `ca` takes 4, 8 or 16. With
    `src_bytes %n` only the first n bytes are read and the rest of the `size` bytes are zero.
    Both addresses must be aligned to `size`.

        hw.nv.cp_async %dst, %src, 16 src_bytes %n : i32, i64, i32
        hw.nv.cp_async ca %dst, %src, 8 : i32, i64
    """

    name = "hw.nv.cp_async"
    cache = prop_def(StringAttr)
    size = prop_def(IntAttr)
    dst = operand_def()
    src = operand_def()
    src_bytes = opt_operand_def()

    def __init__(
        self, dst: SSAValue, src: SSAValue, size: int = 16, src_bytes: SSAValue | None = None, cache: str | None = None
    ):
        if cache is None:
            cache = "cg" if size == 16 else "ca"
        super().__init__(
            operands=[dst, src, [src_bytes] if src_bytes is not None else []],
            properties={"cache": StringAttr(cache), "size": IntAttr(size)},
        )

    def verify_(self) -> None:
        cache, size = self.cache.data, self.size.data
        check_one_of(self, cache, ("ca", "cg"), "cp.async cache qualifier")
        if cache == "cg" and size != 16:
            raise self.error(f"cg copies 16 bytes only, got {size} (use ca for 4 or 8)")
        if size not in (4, 8, 16):
            raise self.error(f"size must be 4, 8 or 16 bytes, got {size}")
        if self.dst.type != i32:
            raise self.error(f"destination is a shared address (i32), got {self.dst.type}")
        if self.src.type != i64:
            raise self.error(f"source is a global address (i64), got {self.src.type}")
        if self.src_bytes is not None and self.src_bytes.type != i32:
            raise self.error(f"src_bytes is i32, got {self.src_bytes.type}")

    @classmethod
    def parse(cls, parser: Parser) -> CpAsyncOp:
        cache = parser.parse_optional_keyword_in(("ca", "cg"))
        start = parser.pos
        dst = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        src, size = parse_operand_and_int(parser)
        n = parser.parse_unresolved_operand() if parser.parse_optional_keyword("src_bytes") else None
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        types = parse_type_list(parser)
        check_type_count(parser, start, "operands", 3 if n else 2, types)
        op = cls(
            parser.resolve_operand(dst, types[0]),
            parser.resolve_operand(src, types[1]),
            size,
            parser.resolve_operand(n, types[2]) if n else None,
            cache,
        )
        return with_attributes(op, extra)

    def print(self, printer: Printer) -> None:
        default = "cg" if self.size.data == 16 else "ca"
        if self.cache.data != default:
            printer.print_string(f" {self.cache.data}")
        print_operands(printer, [self.dst, self.src])
        printer.print_string(f", {self.size.data}")
        if self.src_bytes is not None:
            printer.print_string(" src_bytes ")
            printer.print_operand(self.src_bytes)
        print_signature(printer, self, [o.type for o in self.operands])


@irdl_op_definition
class CpAsyncCommitOp(NoOperandOp):
    """`cp.async.commit_group`: closes this thread's pending copies into one group.

    hw.nv.cp_async_commit
    """

    name = "hw.nv.cp_async_commit"


class _CountOp(HwOp):
    """Shared syntax `hw.nv.op N` for ops with one non-negative immediate."""

    n = prop_def(IntAttr)
    WHAT: ClassVar[str] = "count"

    def __init__(self, n: int):
        super().__init__(properties={"n": IntAttr(n)})

    def verify_(self) -> None:
        if self.n.data < 0:
            raise self.error(f"{self.WHAT} must be >= 0, got {self.n.data}")

    @classmethod
    def parse(cls, parser: Parser):
        return with_attributes(cls(parser.parse_integer(allow_boolean=False)), parse_extra_attrs(parser))

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.n.data}")
        print_extra_attrs(printer, self)


@irdl_op_definition
class CpAsyncWaitOp(_CountOp):
    """`cp.async.wait_group N`: waits until at most N of this thread's newest groups are pending.

    hw.nv.cp_async_wait 1
    """

    name = "hw.nv.cp_async_wait"
    WHAT: ClassVar[str] = "the number of pending groups"


# --- ldmatrix / mma.sync ------------------------------------------------------------------------


@irdl_op_definition
class LdmatrixOp(HwOp):
    """`ldmatrix.sync.aligned.m8n8.{x1|x2|x4}{.trans}.shared.b16`: 1, 2 or 4 8x8 b16 matrices.

    Lane 8*i + r gives the 16-byte-aligned shared address of row r of matrix i; result i holds
    two 16-bit elements of matrix i (see notes/ptx-tensor-cores.md section 2).

        %r0, %r1, %r2, %r3 = hw.nv.ldmatrix x4 trans %addr : i32 -> i32, i32, i32, i32
    """

    name = "hw.nv.ldmatrix"
    num = prop_def(IntAttr)
    trans = opt_prop_def(UnitAttr)
    addr = operand_def()
    regs = var_result_def()

    def __init__(self, num: int, addr: SSAValue, trans: bool = False, result_types: Sequence[Attribute] | None = None):
        props: dict[str, Attribute] = {"num": IntAttr(num)}
        if trans:
            props["trans"] = UnitAttr()
        if result_types is None:
            result_types = [i32] * num
        super().__init__(operands=[addr], result_types=[list(result_types)], properties=props)

    def verify_(self) -> None:
        n = self.num.data
        if n not in (1, 2, 4):
            raise self.error(f"loads x1, x2 or x4 matrices, got x{n}")
        if len(self.regs) != n:
            raise self.error(f"x{n} gives {n} registers, got {len(self.regs)} results")
        for r in self.regs:
            if r.type != i32:
                raise self.error(f"results are i32 registers (two 16-bit elements each), got {r.type}")
        if self.addr.type != i32:
            raise self.error(f"address is a shared address (i32), got {self.addr.type}")

    @classmethod
    def parse(cls, parser: Parser) -> LdmatrixOp:
        start = parser.pos
        word = parser.parse_optional_identifier()
        if word not in ("x1", "x2", "x4"):
            parser.raise_error("expected x1, x2 or x4", start, max(parser.pos, start + 1))
        trans = parser.parse_optional_keyword("trans") is not None
        addr = parser.parse_unresolved_operand()
        extra, at = parse_typed_tail(parser)
        parser.parse_punctuation("->")
        types = parse_type_list(parser)
        return with_attributes(cls(int(word[1:]), parser.resolve_operand(addr, at), trans, types), extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" x{self.num.data}")
        if self.trans is not None:
            printer.print_string(" trans")
        print_operands(printer, [self.addr])
        print_signature(printer, self, [self.addr.type], [r.type for r in self.regs])


MMA_VARIANTS: dict[tuple[str, str, str, str, str], tuple[int, int, int, Attribute]] = {
    # (shape, D, A, B, C): (A regs, B regs, C/D regs, C/D register type); A and B regs are i32 (.b32)
    ("m16n8k16", "f32", "f16", "f16", "f32"): (4, 2, 4, f32),
    ("m16n8k16", "f32", "bf16", "bf16", "f32"): (4, 2, 4, f32),
    ("m16n8k16", "f16", "f16", "f16", "f16"): (4, 2, 2, i32),
    ("m16n8k8", "f32", "tf32", "tf32", "f32"): (4, 2, 4, f32),
    ("m16n8k8", "f32", "f16", "f16", "f32"): (2, 1, 4, f32),
    ("m16n8k8", "f32", "bf16", "bf16", "f32"): (2, 1, 4, f32),
    ("m16n8k32", "s32", "s8", "s8", "s32"): (4, 2, 4, i32),
    ("m16n8k32", "s32", "u8", "u8", "s32"): (4, 2, 4, i32),
}


def _mma_name(shape: str, types: Sequence[str]) -> str:
    return f"{shape} {'.'.join(types)}"


def _mma_supported() -> str:
    return "; ".join(_mma_name(k[0], k[1:]) for k in MMA_VARIANTS)


@irdl_op_definition
class MmaSyncOp(HwOp):
    """`mma.sync.aligned.{shape}.row.col.{D}.{A}.{B}.{C}`: one warp's D = A*B + C on fragments.

    Operand types follow from the variant, so they are not written: A and B registers are i32
    (two f16/bf16, one tf32 or four 8-bit elements each); f32 accumulators are f32 registers,
    f16 accumulators i32 registers (two halves), s32 accumulators i32. Variants: m16n8k16
    f32.f16.f16.f32 / f32.bf16.bf16.f32 (A 4, B 2, C 4) and f16.f16.f16.f16 (A 4, B 2, C 2 x i32);
    m16n8k8 f32.tf32.tf32.f32 (A 4, B 2, C 4), f32.f16.f16.f32 / f32.bf16.bf16.f32 (A 2, B 1, C 4);
    m16n8k32 s32.s8.s8.s32 / s32.u8.u8.s32 (A 4, B 2, C 4 x i32).

        %d0, %d1, %d2, %d3 = hw.nv.mma_sync m16n8k16 row col f32 bf16 bf16 f32
            (%a0, %a1, %a2, %a3), (%b0, %b1), (%c0, %c1, %c2, %c3)
    """

    name = "hw.nv.mma_sync"
    shape = prop_def(StringAttr)
    layout_a = prop_def(StringAttr)
    layout_b = prop_def(StringAttr)
    dtype = prop_def(StringAttr)
    atype = prop_def(StringAttr)
    btype = prop_def(StringAttr)
    ctype = prop_def(StringAttr)
    a = var_operand_def()
    b = var_operand_def()
    c = var_operand_def()
    d = var_result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    def __init__(
        self,
        shape: str,
        types: Sequence[str],
        a: Sequence[SSAValue],
        b: Sequence[SSAValue],
        c: Sequence[SSAValue],
        layouts: tuple[str, str] = ("row", "col"),
        result_types: Sequence[Attribute] | None = None,
    ):
        dt, at, bt, ct = types
        if result_types is None:
            result_types = [v.type for v in c]
        super().__init__(
            operands=[list(a), list(b), list(c)],
            result_types=[list(result_types)],
            properties={
                "shape": StringAttr(shape),
                "layout_a": StringAttr(layouts[0]),
                "layout_b": StringAttr(layouts[1]),
                "dtype": StringAttr(dt),
                "atype": StringAttr(at),
                "btype": StringAttr(bt),
                "ctype": StringAttr(ct),
            },
        )

    @property
    def variant(self) -> tuple[str, str, str, str, str]:
        return (self.shape.data, self.dtype.data, self.atype.data, self.btype.data, self.ctype.data)

    def verify_(self) -> None:
        key = self.variant
        name = _mma_name(key[0], key[1:])
        if key not in MMA_VARIANTS:
            raise self.error(f"unsupported variant {name} (supported: {_mma_supported()})")
        if (self.layout_a.data, self.layout_b.data) != ("row", "col"):
            raise self.error(f"{key[0]} takes layouts row col only, got {self.layout_a.data} {self.layout_b.data}")
        na, nb, nc, ct = MMA_VARIANTS[key]
        for what, vals, n, t in (("A", self.a, na, i32), ("B", self.b, nb, i32), ("C", self.c, nc, ct)):
            if len(vals) != n:
                raise self.error(f"{name} takes {n} {what} register(s) ({t}), got {len(vals)}")
            for v in vals:
                if v.type != t:
                    raise self.error(f"{name}: {what} registers are {t}, got {v.type}")
        if len(self.d) != nc or any(r.type != ct for r in self.d):
            raise self.error(f"{name} gives {nc} D register(s) of type {ct}")

    @classmethod
    def parse(cls, parser: Parser) -> MmaSyncOp:
        start = parser.pos
        shape = parser.parse_identifier()
        la = parser.parse_identifier()
        lb = parser.parse_identifier()
        types = [parser.parse_identifier() for _ in range(4)]
        key = (shape, *types)
        if key not in MMA_VARIANTS:
            parser.raise_error(
                f"mma_sync: unsupported variant {_mma_name(shape, types)} (supported: {_mma_supported()})",
                start,
                parser.pos,
            )
        _, _, _, ct = MMA_VARIANTS[key]  # type: ignore[index]
        a = parse_paren_operands(parser)
        parser.parse_punctuation(",")
        b = parse_paren_operands(parser)
        parser.parse_punctuation(",")
        c = parse_paren_operands(parser)
        extra = parse_extra_attrs(parser)
        nc = MMA_VARIANTS[key][2]  # type: ignore[index]
        op = cls(
            shape,
            types,
            [parser.resolve_operand(x, i32) for x in a],
            [parser.resolve_operand(x, i32) for x in b],
            [parser.resolve_operand(x, ct) for x in c],
            (la, lb),
            [ct] * nc,
        )
        return with_attributes(op, extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(
            f" {self.shape.data} {self.layout_a.data} {self.layout_b.data} "
            f"{self.dtype.data} {self.atype.data} {self.btype.data} {self.ctype.data} "
        )
        print_paren_operands(printer, self.a)
        printer.print_string(", ")
        print_paren_operands(printer, self.b)
        printer.print_string(", ")
        print_paren_operands(printer, self.c)
        print_extra_attrs(printer, self)


# --- Hopper: wgmma, TMA, mbarrier ---------------------------------------------------------------


@irdl_op_definition
class WgmmaFenceOp(NoOperandOp):
    """`wgmma.fence.sync.aligned`: orders register/shared accesses before the next wgmma (sm_90a).

    hw.nv.wgmma_fence
    """

    name = "hw.nv.wgmma_fence"

    def verify_(self) -> None:
        _require_sm(self, ("sm_90a",), "wgmma")


@irdl_op_definition
class WgmmaCommitGroupOp(NoOperandOp):
    """`wgmma.commit_group.sync.aligned`: closes the pending wgmma ops into one group (sm_90a).

    hw.nv.wgmma_commit_group
    """

    name = "hw.nv.wgmma_commit_group"

    def verify_(self) -> None:
        _require_sm(self, ("sm_90a",), "wgmma")


@irdl_op_definition
class WgmmaWaitGroupOp(_CountOp):
    """`wgmma.wait_group.sync.aligned N`: waits until at most N wgmma groups are pending (sm_90a).

    hw.nv.wgmma_wait_group 0
    """

    name = "hw.nv.wgmma_wait_group"
    WHAT: ClassVar[str] = "the number of pending groups"

    def verify_(self) -> None:
        super().verify_()
        _require_sm(self, ("sm_90a",), "wgmma")


WGMMA_TYPES: dict[tuple[int, str, str, str], Attribute] = {
    # (K, D, A, B): accumulator register type
    (16, "f32", "f16", "f16"): f32,
    (16, "f32", "bf16", "bf16"): f32,
    (16, "f16", "f16", "f16"): i32,
    (8, "f32", "tf32", "tf32"): f32,
}

_WGMMA_SHAPE = re.compile(r"m64n(\d+)k(\d+)$")


def _wgmma_regs(shape: str, dtype: str) -> int | None:
    """Accumulator registers per thread: N/2 f32 or N/4 i32 (two f16 each)."""
    m = _WGMMA_SHAPE.match(shape)
    if m is None:
        return None
    n = int(m.group(1))
    return n // 2 if dtype == "f32" else n // 4


@irdl_op_definition
class WgmmaMmaAsyncOp(HwOp):
    """`wgmma.mma_async.sync.aligned.m64nNk16.D.A.B d, a-desc, b-desc, scale-d, sa, sb, ta, tb` (sm_90a).

    A warpgroup (4 warps) computes D(64xN) = A*B + scale_d*C with A and B in shared memory
    (64-bit matrix descriptors). Accumulators: N/2 f32 registers (f32) or N/4 i32 (f16) per
    thread. In PTX, D and C are the same registers: the emitter gives result i the register of
    accumulator operand i, so the accumulators must be distinct values. Results may be read only
    after a `hw.nv.wgmma_wait_group` that covers this op's group. scale_d is 0 or 1, scale_a/b
    are 1 or -1, trans_a/b are 0 or 1 (f16/bf16 only).

        %d0, %d1, %d2, %d3 = hw.nv.wgmma_mma_async m64n8k16 f32 bf16 bf16 %adesc, %bdesc, (%c0, %c1, %c2, %c3)
            scale_d 1 scale_a 1 scale_b 1 trans_a 0 trans_b 1
    """

    name = "hw.nv.wgmma_mma_async"
    shape = prop_def(StringAttr)
    dtype = prop_def(StringAttr)
    atype = prop_def(StringAttr)
    btype = prop_def(StringAttr)
    scale_d = prop_def(IntAttr)
    scale_a = prop_def(IntAttr)
    scale_b = prop_def(IntAttr)
    trans_a = prop_def(IntAttr)
    trans_b = prop_def(IntAttr)
    a_desc = operand_def()
    b_desc = operand_def()
    acc = var_operand_def()
    d = var_result_def()

    IMMEDIATES: ClassVar[tuple[tuple[str, int], ...]] = (
        ("scale_d", 1),
        ("scale_a", 1),
        ("scale_b", 1),
        ("trans_a", 0),
        ("trans_b", 0),
    )

    def __init__(
        self,
        shape: str,
        types: Sequence[str],
        a_desc: SSAValue,
        b_desc: SSAValue,
        acc: Sequence[SSAValue],
        scale_d: int = 1,
        scale_a: int = 1,
        scale_b: int = 1,
        trans_a: int = 0,
        trans_b: int = 0,
        result_types: Sequence[Attribute] | None = None,
    ):
        dt, at, bt = types
        if result_types is None:
            result_types = [v.type for v in acc]
        super().__init__(
            operands=[a_desc, b_desc, list(acc)],
            result_types=[list(result_types)],
            properties={
                "shape": StringAttr(shape),
                "dtype": StringAttr(dt),
                "atype": StringAttr(at),
                "btype": StringAttr(bt),
                "scale_d": IntAttr(scale_d),
                "scale_a": IntAttr(scale_a),
                "scale_b": IntAttr(scale_b),
                "trans_a": IntAttr(trans_a),
                "trans_b": IntAttr(trans_b),
            },
        )

    def verify_(self) -> None:
        shape, dt, at, bt = self.shape.data, self.dtype.data, self.atype.data, self.btype.data
        m = _WGMMA_SHAPE.match(shape)
        if m is None:
            raise self.error(f"shape must be m64nNk16 or m64nNk8 (tf32), got {shape}")
        n, k = int(m.group(1)), int(m.group(2))
        if n % 8 or not 8 <= n <= 256:
            raise self.error(f"N must be a multiple of 8 from 8 to 256, got {n}")
        key = (k, dt, at, bt)
        if key not in WGMMA_TYPES:
            supported = ", ".join(f"k{kk} {d}.{a}.{b}" for kk, d, a, b in WGMMA_TYPES)
            raise self.error(f"unsupported types k{k} {dt}.{at}.{bt} (supported: {supported})")
        t = WGMMA_TYPES[key]
        count = _wgmma_regs(shape, dt)
        if len(self.acc) != count:
            raise self.error(f"m64n{n} {dt} takes {count} accumulator registers ({t}), got {len(self.acc)}")
        for v in self.acc:
            if v.type != t:
                raise self.error(f"accumulators are {t}, got {v.type}")
        if len(set(self.acc)) != len(self.acc):
            raise self.error("accumulators must be distinct values (each shares its register with a result)")
        if len(self.d) != count or any(r.type != t for r in self.d):
            raise self.error(f"gives {count} result registers of type {t}")
        for what, v in (("A", self.a_desc), ("B", self.b_desc)):
            if v.type != i64:
                raise self.error(f"the {what} descriptor is i64, got {v.type}")
        if self.scale_d.data not in (0, 1):
            raise self.error(f"scale_d must be 0 or 1, got {self.scale_d.data}")
        for name in ("scale_a", "scale_b"):
            if getattr(self, name).data not in (1, -1):
                raise self.error(f"{name} must be 1 or -1, got {getattr(self, name).data}")
        for name in ("trans_a", "trans_b"):
            v = getattr(self, name).data
            if v not in (0, 1):
                raise self.error(f"{name} must be 0 or 1, got {v}")
            if v and at == "tf32":
                raise self.error(f"{name} must be 0 for tf32 inputs")
        _require_sm(self, ("sm_90a",), "wgmma")

    @classmethod
    def parse(cls, parser: Parser) -> WgmmaMmaAsyncOp:
        start = parser.pos
        shape = parser.parse_identifier()
        types = [parser.parse_identifier() for _ in range(3)]
        count = _wgmma_regs(shape, types[0])
        if count is None or types[0] not in ("f32", "f16"):
            parser.raise_error(
                f"wgmma_mma_async: expected m64nNkK and an f32 or f16 accumulator, got {shape} {types[0]}",
                start,
                parser.pos,
            )
        t = f32 if types[0] == "f32" else i32
        a = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        b = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        acc = parse_paren_operands(parser)
        imms = parse_immediates(parser, dict(cls.IMMEDIATES))
        extra = parse_extra_attrs(parser)
        op = cls(
            shape,
            types,
            parser.resolve_operand(a, i64),
            parser.resolve_operand(b, i64),
            [parser.resolve_operand(x, t) for x in acc],
            result_types=[t] * len(acc),
            **imms,
        )
        return with_attributes(op, extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.shape.data} {self.dtype.data} {self.atype.data} {self.btype.data} ")
        printer.print_list([self.a_desc, self.b_desc], printer.print_operand)
        printer.print_string(", ")
        print_paren_operands(printer, self.acc)
        for name, _ in self.IMMEDIATES:
            printer.print_string(f" {name} {getattr(self, name).data}")
        print_extra_attrs(printer, self)


@irdl_op_definition
class TmaLoad2dOp(HwOp):
    """`cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes` (sm_90):
    the box at coordinates (x, y) of a tensor map to shared memory, signalling an mbarrier.

    Operands: shared destination (i32), tensor map parameter, coordinates (i32, innermost
    first), mbarrier shared address (i32); the types are fixed and not written.

        hw.nv.tma_load_2d %dst, %tmap[%x, %y], %mbar
    """

    name = "hw.nv.tma_load_2d"
    dst = operand_def()
    tensor_map = operand_def()
    coords = var_operand_def()
    mbar = operand_def()

    def __init__(self, dst: SSAValue, tensor_map: SSAValue, coords: Sequence[SSAValue], mbar: SSAValue):
        super().__init__(operands=[dst, tensor_map, list(coords), mbar])

    def verify_(self) -> None:
        if not isinstance(self.tensor_map.type, TensorMapType):
            raise self.error(f"the tensor map is a !hw.nv.tensor_map parameter, got {self.tensor_map.type}")
        if len(self.coords) != 2:
            raise self.error(f"a 2-d load takes 2 coordinates, got {len(self.coords)}")
        for what, v in (("destination", self.dst), ("mbarrier", self.mbar), *(("coordinate", c) for c in self.coords)):
            if v.type != i32:
                raise self.error(f"{what} is i32, got {v.type}")
        _require_sm(self, HOPPER, "TMA")

    @classmethod
    def parse(cls, parser: Parser) -> TmaLoad2dOp:
        dst = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        tm = parser.parse_unresolved_operand()
        coords = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        parser.parse_punctuation(",")
        mbar = parser.parse_unresolved_operand()
        extra = parse_extra_attrs(parser)
        op = cls(
            parser.resolve_operand(dst, i32),
            parser.resolve_operand(tm, TensorMapType()),
            [parser.resolve_operand(c, i32) for c in coords],
            parser.resolve_operand(mbar, i32),
        )
        return with_attributes(op, extra)

    def print(self, printer: Printer) -> None:
        print_operands(printer, [self.dst, self.tensor_map])
        printer.print_string("[")
        printer.print_list(self.coords, printer.print_operand)
        printer.print_string("], ")
        printer.print_operand(self.mbar)
        print_extra_attrs(printer, self)


def _check_i32(op: HwOp, what: str, v: SSAValue) -> None:
    if v.type != i32:
        raise op.error(f"{what} is i32, got {v.type}")


@irdl_op_definition
class MbarrierInitOp(HwOp):
    """`mbarrier.init.shared::cta.b64 [bar], count`: an 8-byte shared mbarrier expecting `count` arrivals.

    hw.nv.mbarrier_init %bar, 1
    """

    name = "hw.nv.mbarrier_init"
    count = prop_def(IntAttr)
    bar = operand_def()

    def __init__(self, bar: SSAValue, count: int):
        super().__init__(operands=[bar], properties={"count": IntAttr(count)})

    def verify_(self) -> None:
        _check_i32(self, "the mbarrier address", self.bar)
        if not 1 <= self.count.data < 2**20:
            raise self.error(f"arrival count must be from 1 to 2^20 - 1, got {self.count.data}")

    @classmethod
    def parse(cls, parser: Parser) -> MbarrierInitOp:
        bar, count = parse_operand_and_int(parser)
        return with_attributes(cls(parser.resolve_operand(bar, i32), count), parse_extra_attrs(parser))

    def print(self, printer: Printer) -> None:
        print_operands(printer, [self.bar])
        printer.print_string(f", {self.count.data}")
        print_extra_attrs(printer, self)


@irdl_op_definition
class MbarrierArriveExpectTxOp(HwOp):
    """`mbarrier.arrive.expect_tx.shared::cta.b64 state, [bar], bytes` (sm_90): arrive and expect
    `bytes` of transactions (TMA loads); the result is the i64 barrier state.

        %state = hw.nv.mbarrier_arrive_expect_tx %bar, 16384
    """

    name = "hw.nv.mbarrier_arrive_expect_tx"
    tx_bytes = prop_def(IntAttr)
    bar = operand_def()
    state = result_def()

    def __init__(self, bar: SSAValue, tx_bytes: int):
        super().__init__(operands=[bar], result_types=[i64], properties={"tx_bytes": IntAttr(tx_bytes)})

    def verify_(self) -> None:
        _check_i32(self, "the mbarrier address", self.bar)
        if not 0 <= self.tx_bytes.data < 2**20:
            raise self.error(f"transaction bytes must be from 0 to 2^20 - 1, got {self.tx_bytes.data}")
        if self.state.type != i64:
            raise self.error(f"the state is i64, got {self.state.type}")
        _require_sm(self, HOPPER, "mbarrier expect_tx")

    @classmethod
    def parse(cls, parser: Parser) -> MbarrierArriveExpectTxOp:
        bar, n = parse_operand_and_int(parser)
        return with_attributes(cls(parser.resolve_operand(bar, i32), n), parse_extra_attrs(parser))

    def print(self, printer: Printer) -> None:
        print_operands(printer, [self.bar])
        printer.print_string(f", {self.tx_bytes.data}")
        print_extra_attrs(printer, self)


@irdl_op_definition
class MbarrierTryWaitOp(HwOp):
    """`mbarrier.try_wait.parity.shared::cta.b64 p, [bar], phase` (sm_90): i1 true once the phase
    with parity `phase` (i32, 0 or 1) has completed. Loop on it with scf.while.

        %done = hw.nv.mbarrier_try_wait %bar, %phase
    """

    name = "hw.nv.mbarrier_try_wait"
    bar = operand_def()
    phase = operand_def()
    done = result_def()

    def __init__(self, bar: SSAValue, phase: SSAValue):
        super().__init__(operands=[bar, phase], result_types=[i1])

    def verify_(self) -> None:
        _check_i32(self, "the mbarrier address", self.bar)
        _check_i32(self, "the phase parity", self.phase)
        if self.done.type != i1:
            raise self.error(f"the result is i1, got {self.done.type}")
        _require_sm(self, HOPPER, "mbarrier try_wait")

    @classmethod
    def parse(cls, parser: Parser) -> MbarrierTryWaitOp:
        bar, ph = parse_operands(parser, 2)
        return with_attributes(cls(*resolve_all(parser, (bar, ph), (i32, i32))), parse_extra_attrs(parser))

    def print(self, printer: Printer) -> None:
        print_operands(printer, [self.bar, self.phase])
        print_extra_attrs(printer, self)


@irdl_op_definition
class FenceProxyAsyncOp(NoOperandOp):
    """`fence.proxy.async.shared::cta`: makes generic-proxy shared writes (st.shared) visible to
    the async proxy (wgmma, TMA) (sm_90).

        hw.nv.fence_proxy_async
    """

    name = "hw.nv.fence_proxy_async"

    def verify_(self) -> None:
        _require_sm(self, HOPPER, "fence.proxy.async")


@irdl_op_definition
class MbarrierArriveOp(HwOp):
    """`mbarrier.arrive.shared::cta.b64 _, [bar]`: this thread arrives on an mbarrier (sm_90).

    hw.nv.mbarrier_arrive %bar
    """

    name = "hw.nv.mbarrier_arrive"
    bar = operand_def()

    def __init__(self, bar: SSAValue):
        super().__init__(operands=[bar])

    def verify_(self) -> None:
        _check_i32(self, "the mbarrier address", self.bar)
        _require_sm(self, HOPPER, "mbarrier arrive")

    @classmethod
    def parse(cls, parser: Parser) -> MbarrierArriveOp:
        (bar,) = parse_operands(parser, 1)
        return with_attributes(cls(parser.resolve_operand(bar, i32)), parse_extra_attrs(parser))

    def print(self, printer: Printer) -> None:
        print_operands(printer, [self.bar])
        print_extra_attrs(printer, self)


@irdl_op_definition
class CpAsyncMbarrierArriveOp(HwOp):
    """`cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar]`: an arrival on an mbarrier that
    happens once every cp.async this thread issued before it has landed (sm_80+). `noinc`: the
    barrier's expected count is not raised, so its init count must include this arrival.

    hw.nv.cp_async_mbarrier_arrive %bar
    """

    name = "hw.nv.cp_async_mbarrier_arrive"
    bar = operand_def()

    def __init__(self, bar: SSAValue):
        super().__init__(operands=[bar])

    def verify_(self) -> None:
        _check_i32(self, "the mbarrier address", self.bar)

    @classmethod
    def parse(cls, parser: Parser) -> CpAsyncMbarrierArriveOp:
        (bar,) = parse_operands(parser, 1)
        return with_attributes(cls(parser.resolve_operand(bar, i32)), parse_extra_attrs(parser))

    def print(self, printer: Printer) -> None:
        print_operands(printer, [self.bar])
        print_extra_attrs(printer, self)


@irdl_op_definition
class MbarrierWaitOp(HwOp):
    """Waits until the phase with parity `phase` (i32, 0 or 1) of an mbarrier has completed (sm_90).

    A fixed sequence: a loop on `mbarrier.try_wait.parity.shared::cta.b64` (label, try_wait,
    branch back while not done). Waiting for parity 1 on a fresh barrier returns at once (the
    phase before the first counts as complete), which is how a producer's first pass through a
    ring of `empty` barriers goes through.

        hw.nv.mbarrier_wait %bar, %phase
    """

    name = "hw.nv.mbarrier_wait"
    bar = operand_def()
    phase = operand_def()

    def __init__(self, bar: SSAValue, phase: SSAValue):
        super().__init__(operands=[bar, phase])

    def verify_(self) -> None:
        _check_i32(self, "the mbarrier address", self.bar)
        _check_i32(self, "the phase parity", self.phase)
        _require_sm(self, HOPPER, "mbarrier wait")

    @classmethod
    def parse(cls, parser: Parser) -> MbarrierWaitOp:
        bar, ph = parse_operands(parser, 2)
        return with_attributes(cls(*resolve_all(parser, (bar, ph), (i32, i32))), parse_extra_attrs(parser))

    def print(self, printer: Printer) -> None:
        print_operands(printer, [self.bar, self.phase])
        print_extra_attrs(printer, self)


@irdl_op_definition
class FenceMbarrierInitOp(NoOperandOp):
    """`fence.mbarrier_init.release.cluster`: makes mbarrier inits visible before their first use (sm_90).

    hw.nv.fence_mbarrier_init
    """

    name = "hw.nv.fence_mbarrier_init"

    def verify_(self) -> None:
        _require_sm(self, HOPPER, "fence.mbarrier_init")


SETMAXNREG_KINDS = ("inc", "dec")


@irdl_op_definition
class SetmaxnregOp(HwOp):
    """`setmaxnreg.{inc|dec}.sync.aligned.u32 N`: the warpgroup raises or lowers its per-thread register count (sm_90a).

    N is 24 to 256, a multiple of 8. All four warps of a warpgroup execute it; it applies only
    when ptxas knows the count at entry (a kernel with `maxntid` and `minnctapersm`).

        hw.nv.setmaxnreg dec 40
    """

    name = "hw.nv.setmaxnreg"
    kind = prop_def(StringAttr)
    regs = prop_def(IntAttr)

    def __init__(self, kind: str, regs: int):
        super().__init__(properties={"kind": StringAttr(kind), "regs": IntAttr(regs)})

    def verify_(self) -> None:
        check_one_of(self, self.kind.data, SETMAXNREG_KINDS, "setmaxnreg kind")
        n = self.regs.data
        if not 24 <= n <= 256 or n % 8:
            raise self.error(f"the register count must be a multiple of 8 from 24 to 256, got {n}")
        _require_sm(self, ("sm_90a",), "setmaxnreg")

    @classmethod
    def parse(cls, parser: Parser) -> SetmaxnregOp:
        kind = parse_choice(parser, SETMAXNREG_KINDS, "inc or dec")
        n = parser.parse_integer(allow_boolean=False)
        return with_attributes(cls(kind, n), parse_extra_attrs(parser))

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} {self.regs.data}")
        print_extra_attrs(printer, self)


@irdl_op_definition
class ExitOp(NoOperandOp):
    """`exit;`: this thread stops here (a producer warpgroup that is done; not a terminator).

    hw.nv.exit
    """

    name = "hw.nv.exit"


# --- warp shuffle and barriers ------------------------------------------------------------------

SHFL_MODES = ("bfly", "down", "up", "idx")
FULL_MASK = 0xFFFFFFFF


def _check_member_mask(op: HwOp, mask: int) -> None:
    if not 0 < mask <= FULL_MASK:
        raise op.error(f"member mask must be a nonzero 32-bit value, got {mask:#x}")


@irdl_op_definition
class ShflOp(ShuffleBase):
    """`shfl.sync.{mode}.b32 d, a, b, c, membermask` on one 32-bit register (i32 or f32).

    `b` (lane mask for bfly, delta for up/down, source lane for idx) is an immediate 0..31 or an
    i32 register. c is fixed by the mode: 0 for up, 0x1f otherwise (whole warp, no segments).
    The member mask defaults to all 32 lanes (0xffffffff).

        %r = hw.nv.shfl bfly %v, 16 : f32
        %s = hw.nv.shfl idx %v, %src mask 0x0000ffff : i32
    """

    name = "hw.nv.shfl"
    mode = prop_def(StringAttr)
    lane = opt_prop_def(IntAttr)
    member_mask = prop_def(IntAttr)
    value = operand_def()
    lane_reg = opt_operand_def()
    result = result_def()

    def __init__(self, mode: str, value: SSAValue, lane: int | SSAValue, member_mask: int = FULL_MASK):
        props: dict[str, Attribute] = {"mode": StringAttr(mode), "member_mask": IntAttr(member_mask)}
        operands = self.shuffle_operands(value, lane, props)
        super().__init__(operands=operands, result_types=[value.type], properties=props)

    @property
    def clamp(self) -> int:
        """The `c` operand the emitter prints."""
        return 0 if self.mode.data == "up" else 0x1F

    def verify_(self) -> None:
        check_one_of(self, self.mode.data, SHFL_MODES, "shuffle mode")
        self.verify_shuffle(is_32bit(self.value.type), "one 32-bit register (i32 or f32)", 31)
        _check_member_mask(self, self.member_mask.data)

    @classmethod
    def parse(cls, parser: Parser) -> ShflOp:
        mode = parse_choice(parser, SHFL_MODES, "a shuffle mode")
        v, lane = cls.parse_value_and_lane(parser)
        mask = parse_int_keyword(parser, "mask", FULL_MASK)
        extra, t = parse_typed_tail(parser)
        lane = cls.resolve_lane(parser, lane)
        return with_attributes(cls(mode, parser.resolve_operand(v, t), lane, mask), extra)  # type: ignore[arg-type]

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.mode.data}")
        self.print_value_and_lane(printer)
        if self.member_mask.data != FULL_MASK:
            printer.print_string(f" mask {self.member_mask.data:#010x}")
        print_signature(printer, self, [self.value.type])


@irdl_op_definition
class BarSyncOp(HwOp):
    """`bar.sync id{, threads}`: block barrier `id` (0..15); all threads, or `threads` (a multiple of 32).

    hw.nv.bar_sync 0
    hw.nv.bar_sync 1, 128
    """

    name = "hw.nv.bar_sync"
    barrier = prop_def(IntAttr)
    threads = opt_prop_def(IntAttr)

    def __init__(self, barrier: int = 0, threads: int | None = None):
        props: dict[str, Attribute] = {"barrier": IntAttr(barrier)}
        if threads is not None:
            props["threads"] = IntAttr(threads)
        super().__init__(properties=props)

    def verify_(self) -> None:
        if not 0 <= self.barrier.data <= 15:
            raise self.error(f"barrier id must be from 0 to 15, got {self.barrier.data}")
        if self.threads is not None:
            n = self.threads.data
            if n <= 0 or n % 32 or n > 1024:
                raise self.error(f"thread count must be a positive multiple of 32 up to 1024, got {n}")

    @classmethod
    def parse(cls, parser: Parser) -> BarSyncOp:
        bid = parser.parse_integer(allow_boolean=False)
        threads = None
        if parser.parse_optional_punctuation(",") is not None:
            threads = parser.parse_integer(allow_boolean=False)
        return with_attributes(cls(bid, threads), parse_extra_attrs(parser))

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.barrier.data}")
        if self.threads is not None:
            printer.print_string(f", {self.threads.data}")
        print_extra_attrs(printer, self)


@irdl_op_definition
class BarWarpSyncOp(HwOp):
    """`bar.warp.sync membermask`: synchronizes the lanes of a warp (all 32 by default).

    hw.nv.bar_warp_sync
    hw.nv.bar_warp_sync 0x0000ffff
    """

    name = "hw.nv.bar_warp_sync"
    member_mask = prop_def(IntAttr)

    def __init__(self, member_mask: int = FULL_MASK):
        super().__init__(properties={"member_mask": IntAttr(member_mask)})

    def verify_(self) -> None:
        _check_member_mask(self, self.member_mask.data)

    @classmethod
    def parse(cls, parser: Parser) -> BarWarpSyncOp:
        mask = parser.parse_optional_integer(allow_boolean=False, allow_negative=False)
        return with_attributes(cls(FULL_MASK if mask is None else mask), parse_extra_attrs(parser))

    def print(self, printer: Printer) -> None:
        if self.member_mask.data != FULL_MASK:
            printer.print_string(f" {self.member_mask.data:#010x}")
        print_extra_attrs(printer, self)


# --- approximate math ---------------------------------------------------------------------------

MATH_RULES: dict[str, dict[str, tuple[Attribute, ...]]] = {
    "ex2": {"approx": (f32, f16)},
    "lg2": {"approx": (f32,)},
    "rsqrt": {"approx": (f32, f64)},
    "rcp": {"approx": (f32,), "rn": (f32, f64)},
    "sqrt": {"approx": (f32,), "rn": (f32, f64)},
    "tanh": {"approx": (f32, f16)},
    "sin": {"approx": (f32,)},
    "cos": {"approx": (f32,)},
}
"""The legal (function, rounding, type) triples: `ex2.approx.f32`, `rcp.rn.f64`, `tanh.approx.f16`..."""


def _math_legal() -> str:
    return ", ".join(f"{fn}.{r}.{t}" for fn, rs in MATH_RULES.items() for r, ts in rs.items() for t in ts)


@irdl_op_definition
class MathOp(HwOp):
    """`{fn}.{approx|rn}{.ftz}.{type}`: ex2, lg2, rsqrt, rcp, sqrt, tanh, sin, cos.

    Legal: ex2.approx (f32, f16), lg2.approx.f32, rsqrt.approx (f32, f64), rcp and sqrt
    (approx.f32, rn.f32, rn.f64), tanh.approx (f32, f16), sin/cos.approx.f32. `ftz` (flush
    subnormals to zero) is for f32 only.

        %y = hw.nv.math ex2 approx %x : f32
        %r = hw.nv.math rcp rn %x : f64
        %z = hw.nv.math rsqrt approx ftz %x : f32
    """

    name = "hw.nv.math"
    fn = prop_def(StringAttr)
    rounding = prop_def(StringAttr)
    ftz = opt_prop_def(UnitAttr)
    operand = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def __init__(self, fn: str, rounding: str, operand: SSAValue, ftz: bool = False):
        props: dict[str, Attribute] = {"fn": StringAttr(fn), "rounding": StringAttr(rounding)}
        if ftz:
            props["ftz"] = UnitAttr()
        super().__init__(operands=[operand], result_types=[operand.type], properties=props)

    def verify_(self) -> None:
        fn, r, t = self.fn.data, self.rounding.data, self.operand.type
        check_one_of(self, fn, tuple(MATH_RULES), "function")
        check_result_type(self, self.result.type, t, "operand")
        if t not in MATH_RULES[fn].get(r, ()):
            raise self.error(f"{fn}.{r}.{t} is not a PTX instruction (legal: {_math_legal()})")
        if self.ftz is not None and t != f32:
            raise self.error(f"ftz applies to f32 only, got {t}")

    @classmethod
    def parse(cls, parser: Parser) -> MathOp:
        fn = parse_choice(parser, tuple(MATH_RULES), "a math function")
        r = parse_choice(parser, ("approx", "rn"), "a rounding mode")
        ftz = parser.parse_optional_keyword("ftz") is not None
        x = parser.parse_unresolved_operand()
        extra, t = parse_typed_tail(parser)
        return with_attributes(cls(fn, r, parser.resolve_operand(x, t), ftz), extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.fn.data} {self.rounding.data}")
        if self.ftz is not None:
            printer.print_string(" ftz")
        print_operands(printer, [self.operand])
        print_signature(printer, self, [self.operand.type])


# --- packing 16-bit pairs -----------------------------------------------------------------------

HALF_TYPES = (f16, bf16, i16)


def _check_halves(op: HwOp, lt: Attribute, ht: Attribute, packed: Attribute) -> None:
    """Two 16-bit halves of one type in one i32 register."""
    if lt != ht:
        raise op.error(f"both halves must have one type, got {lt} and {ht}")
    if lt not in HALF_TYPES:
        raise op.error(f"halves are f16, bf16 or i16, got {lt}")
    if packed != i32:
        raise op.error(f"the packed register is i32, got {packed}")


@irdl_op_definition
class PackOp(HwOp):
    """`mov.b32 %r, {lo, hi};`: two 16-bit values (f16, bf16 or i16) into one i32; `lo` in bits 0..15.

    %p = hw.nv.pack %lo, %hi : f16, f16 -> i32
    """

    name = "hw.nv.pack"
    lo = operand_def()
    hi = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def __init__(self, lo: SSAValue, hi: SSAValue, result_type: Attribute = i32):
        super().__init__(operands=[lo, hi], result_types=[result_type])

    def verify_(self) -> None:
        _check_halves(self, self.lo.type, self.hi.type, self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> PackOp:
        halves = parse_operands(parser, 2)
        extra, types, (rt,) = parse_signature(parser, 2, 1)
        return with_attributes(cls(*resolve_all(parser, halves, types), rt), extra)

    def print(self, printer: Printer) -> None:
        print_operands(printer, [self.lo, self.hi])
        print_signature(printer, self, [self.lo.type, self.hi.type], [self.result.type])


@irdl_op_definition
class UnpackOp(HwOp):
    """`mov.b32 {lo, hi}, %r;`: one i32 into two 16-bit values (bits 0..15 are `lo`).

    %lo, %hi = hw.nv.unpack %r : i32 -> f16, f16
    """

    name = "hw.nv.unpack"
    packed = operand_def()
    lo = result_def()
    hi = result_def()
    traits = traits_def(Pure())

    def __init__(self, packed: SSAValue, half_type: Attribute, hi_type: Attribute | None = None):
        super().__init__(operands=[packed], result_types=[half_type, hi_type or half_type])

    def verify_(self) -> None:
        _check_halves(self, self.lo.type, self.hi.type, self.packed.type)

    @classmethod
    def parse(cls, parser: Parser) -> UnpackOp:
        p = parser.parse_unresolved_operand()
        extra, (pt,), (lt, ht) = parse_signature(parser, 1, 2)
        return with_attributes(cls(parser.resolve_operand(p, pt), lt, ht), extra)

    def print(self, printer: Printer) -> None:
        print_operands(printer, [self.packed])
        print_signature(printer, self, [self.packed.type], [self.lo.type, self.hi.type])


@irdl_op_definition
class MulWideOp(HwOp):
    """`mul.wide.u32 %d, %a, %b;`: the full 64-bit product of two unsigned 32-bit values (one
    IMAD.WIDE.U32; a zero-extending `arith.muli` on i64 costs ptxas more). Philox's 32x32 -> 64
    products use it (the loop nest marks them `tilec.mul_wide`).

    %p = hw.nv.mul_wide %a, %b : i32, i32 -> i64
    """

    name = "hw.nv.mul_wide"
    lhs = operand_def()
    rhs = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: Attribute = i64):
        super().__init__(operands=[lhs, rhs], result_types=[result_type])

    def verify_(self) -> None:
        if self.lhs.type != i32 or self.rhs.type != i32 or self.result.type != i64:
            raise self.error(
                f"multiplies two i32 into an i64, got {self.lhs.type}, {self.rhs.type} -> {self.result.type}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> MulWideOp:
        a = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        b = parser.parse_unresolved_operand()
        extra, (at, bt), (rt,) = parse_signature(parser, 2, 1)
        return with_attributes(cls(parser.resolve_operand(a, at), parser.resolve_operand(b, bt), rt), extra)

    def print(self, printer: Printer) -> None:
        print_operands(printer, [self.lhs, self.rhs])
        print_signature(printer, self, [self.lhs.type, self.rhs.type], [self.result.type])


NV_OPS = (
    KernelOp,
    ReturnOp,
    SharedOp,
    SharedAddrOp,
    DynamicSharedAddrOp,
    SregOp,
    LdOp,
    StOp,
    RedAddOp,
    AtomAddOp,
    CpAsyncOp,
    CpAsyncCommitOp,
    CpAsyncWaitOp,
    LdmatrixOp,
    MmaSyncOp,
    WgmmaFenceOp,
    WgmmaCommitGroupOp,
    WgmmaWaitGroupOp,
    WgmmaMmaAsyncOp,
    TmaLoad2dOp,
    MbarrierInitOp,
    MbarrierArriveExpectTxOp,
    MbarrierTryWaitOp,
    FenceProxyAsyncOp,
    MbarrierArriveOp,
    CpAsyncMbarrierArriveOp,
    MbarrierWaitOp,
    FenceMbarrierInitOp,
    SetmaxnregOp,
    ExitOp,
    ShflOp,
    BarSyncOp,
    BarWarpSyncOp,
    MathOp,
    PackOp,
    UnpackOp,
    MulWideOp,
)
NV_TYPES = (TensorMapType,)
