"""`hw.amd.*`: per-thread operations of an AMD GPU kernel, emitted as HIP C++.

Each op is one HIP expression or builtin (`threadIdx.x`, `__builtin_amdgcn_mfma_*`, `__shfl_xor`,
`__syncthreads()`); one SSA value is one C++ variable (a scalar or an `ext_vector_type` vector).
Scalar arithmetic uses upstream `arith`, element access of vectors upstream `vector.extract` /
`vector.insert`, control flow upstream `scf`. Addresses: i64 for global memory, i32 for an LDS
byte address (`hw.amd.lds_addr`).

Example::

    hw.amd.kernel @scale(%X: !hw.ptr<global, f32>, %n: i32) arch "gfx90a" wave 64 launch_bounds 256 {
      %x = hw.ptr_to_int %X : !hw.ptr<global, f32> -> i64
      %t = hw.amd.workitem_id x : i32
      ...
      %v = hw.amd.global_load %a : i64 -> vector<4xf32>
      hw.amd.global_store %a, %v : i64, vector<4xf32>
      hw.amd.return
    }
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    IntAttr,
    IntegerType,
    StringAttr,
    UnitAttr,
    VectorType,
    f16,
    f32,
    f64,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, Region, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator, Pure

from tilec.archs import DEFAULT_LDS_LIMIT, GFX_ARCH, LDS_LIMIT, MFMA_ARCHS
from tilec.dialects.common import parse_extra_attrs
from tilec.dialects.hw.common import (
    ArrayAddrBase,
    DynamicAddrBase,
    GpuKernelBase,
    HwOp,
    NoOperandOp,
    SharedMemoryWords,
    ShuffleBase,
    StaticArrayBase,
    TypedResultOp,
    byte_size,
    check_address,
    check_offset32,
    check_one_of,
    clause_props,
    enclosing,
    is_pointee_type,
    parse_address,
    parse_choice,
    parse_immediates,
    parse_int_keyword,
    parse_operand_and_int,
    parse_operands,
    parse_signature,
    parse_typed_tail,
    parse_types,
    print_address,
    print_operands,
    print_signature,
    resolve_all,
    static_array_traits,
    with_attributes,
)

# --- targets ------------------------------------------------------------------------------------

# GFX_ARCH (the form of a gfx target name), MFMA_ARCHS (CDNA targets with matrix cores) and
# LDS_LIMIT / DEFAULT_LDS_LIMIT (LDS bytes per workgroup) are facts of tilec/archs.py.


def _is_gfx9(arch: str) -> bool:
    return arch.startswith("gfx9")


# --- kernel structure ---------------------------------------------------------------------------
# hw.nv declares the same ops for PTX; what differs per target is only the names, clauses, words
# and docs below: the logic is in hw.common (GpuKernelBase, StaticArrayBase, ArrayAddrBase, ...).


@irdl_op_definition
class LdsOp(StaticArrayBase):
    """A static LDS array of the enclosing kernel (`__shared__ __attribute__((aligned(A))) char name[N]`).

    hw.amd.lds @sA 16384 align 16
    """

    name = "hw.amd.lds"
    traits = static_array_traits(lambda: KernelOp)


@irdl_op_definition
class KernelOp(GpuKernelBase):
    """A HIP `__global__` kernel for one AMD target.

    `arch` is the gfx target, `wave` the wavefront size (64 on gfx9 / CDNA; 32 or 64 on gfx10+),
    `launch_bounds` the largest workgroup size (`__launch_bounds__`), `lds N` the bytes of dynamic
    LDS the launch must provide (`extern __shared__`, read with `hw.amd.dynamic_lds_addr`).
    Parameters are global pointers (optionally typed, emitted `T* __restrict__`) or scalars.

        hw.amd.kernel @gemm(%A: !hw.ptr<global, f16>, %n: i32) arch "gfx90a" wave 64 launch_bounds 256 lds 32768 {
          ...
          hw.amd.return
        }
    """

    name = "hw.amd.kernel"

    # the clauses of a HIP kernel (a PTX entry has others: sm, maxntid, smem, smem_align)
    arch = prop_def(StringAttr)
    wave = prop_def(IntAttr)
    launch_bounds = opt_prop_def(IntAttr)
    lds = opt_prop_def(IntAttr)

    RETURN_NAME: ClassVar[str] = "hw.amd.return"
    PARAM_KINDS: ClassVar[str] = "!hw.ptr<global> (optionally typed) or scalars"
    ARRAY_OP: ClassVar[type[StaticArrayBase]] = LdsOp
    SHARED: ClassVar[SharedMemoryWords] = SharedMemoryWords("lds", "LDS array", "LDS", "an LDS address", "workgroup")

    def __init__(
        self,
        name: str,
        param_types: Sequence[Attribute],
        arch: str = "gfx90a",
        wave: int = 64,
        launch_bounds: int | None = None,
        lds: int | None = None,
        body: Region | None = None,
    ):
        self._init(name, param_types, clause_props(arch=arch, wave=wave, launch_bounds=launch_bounds, lds=lds), body)

    # the names the HIP emitter and the lowering use
    dynamic_lds = GpuKernelBase.dynamic_bytes
    lds_arrays = GpuKernelBase.static_arrays
    lookup_lds = GpuKernelBase.lookup_array
    static_lds = GpuKernelBase.static_bytes

    def _verify_clauses(self) -> None:
        arch, wave = self.arch.data, self.wave.data
        if not GFX_ARCH.match(arch):
            raise self.error(f'arch must be a gfx target such as "gfx90a" or "gfx1100", got "{arch}"')
        if wave not in (32, 64):
            raise self.error(f"wave must be 32 or 64, got {wave}")
        if wave == 32 and _is_gfx9(arch):
            raise self.error(f"{arch} runs wave 64 only (wave 32 needs gfx10 or later)")
        if self.launch_bounds is not None and not 1 <= self.launch_bounds.data <= 1024:
            raise self.error(f"launch_bounds must be from 1 to 1024 threads, got {self.launch_bounds.data}")
        self.verify_dynamic_size()
        self.verify_arrays(LDS_LIMIT.get(arch, DEFAULT_LDS_LIMIT), arch)

    @classmethod
    def _parse_clauses(cls, parser: Parser) -> dict[str, Attribute]:
        parser.parse_keyword("arch")
        arch = parser.parse_str_literal()
        wave = parse_int_keyword(parser, "wave", 64)
        bounds = parse_int_keyword(parser, "launch_bounds")
        lds = parse_int_keyword(parser, "lds")
        return clause_props(arch=arch, wave=wave, launch_bounds=bounds, lds=lds)

    def _print_clauses(self, printer: Printer) -> None:
        printer.print_string(f' arch "{self.arch.data}" wave {self.wave.data}')
        if self.launch_bounds is not None:
            printer.print_string(f" launch_bounds {self.launch_bounds.data}")
        if self.lds is not None:
            printer.print_string(f" lds {self.lds.data}")


@irdl_op_definition
class ReturnOp(NoOperandOp):
    """Ends a `hw.amd.kernel` body.

    hw.amd.return
    """

    name = "hw.amd.return"
    traits = traits_def(IsTerminator(), HasParent(KernelOp))


@irdl_op_definition
class LdsAddrOp(ArrayAddrBase):
    """The 32-bit LDS byte address of a `hw.amd.lds` array.

    %p = hw.amd.lds_addr @sA : i32
    """

    name = "hw.amd.lds_addr"
    KERNEL: ClassVar[type[GpuKernelBase]] = KernelOp


@irdl_op_definition
class DynamicLdsAddrOp(DynamicAddrBase):
    """The 32-bit LDS address of the kernel's dynamic LDS (`extern __shared__ char name[]`).

    %p = hw.amd.dynamic_lds_addr : i32
    """

    name = "hw.amd.dynamic_lds_addr"
    KERNEL: ClassVar[type[GpuKernelBase]] = KernelOp


# --- work-item ids ------------------------------------------------------------------------------

DIMS = ("x", "y", "z")


class _DimOp(HwOp):
    """Shared syntax `%r = hw.amd.op x : i32`."""

    dim = prop_def(StringAttr)
    result = result_def()
    traits = traits_def(Pure())

    def __init__(self, dim: str, result_type: Attribute = i32):
        super().__init__(properties={"dim": StringAttr(dim)}, result_types=[result_type])

    def verify_(self) -> None:
        check_one_of(self, self.dim.data, DIMS, "dimension")
        if self.result.type != i32:
            raise self.error(f"the result is i32, got {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser):
        d = parse_choice(parser, DIMS, "a dimension")
        extra, t = parse_typed_tail(parser)
        return with_attributes(cls(d, t), extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.dim.data}")
        print_signature(printer, self, [self.result.type])


@irdl_op_definition
class WorkitemIdOp(_DimOp):
    """The work-item (thread) index in the workgroup along x, y or z (`threadIdx.x`).

    %t = hw.amd.workitem_id x : i32
    """

    name = "hw.amd.workitem_id"


@irdl_op_definition
class WorkgroupIdOp(_DimOp):
    """The workgroup (block) index in the grid along x, y or z (`blockIdx.x`).

    %b = hw.amd.workgroup_id y : i32
    """

    name = "hw.amd.workgroup_id"


@irdl_op_definition
class WorkgroupSizeOp(_DimOp):
    """The workgroup size along x, y or z (`blockDim.x`).

    %n = hw.amd.workgroup_size x : i32
    """

    name = "hw.amd.workgroup_size"


@irdl_op_definition
class NumWorkgroupsOp(_DimOp):
    """The number of workgroups in the grid along x, y or z (`gridDim.x`).

    %g = hw.amd.num_workgroups x : i32
    """

    name = "hw.amd.num_workgroups"


@irdl_op_definition
class LaneIdOp(TypedResultOp):
    """The lane index in the wavefront, 0 to wave-1 (`__lane_id()`).

    %l = hw.amd.lane_id : i32
    """

    name = "hw.amd.lane_id"

    def verify_(self) -> None:
        self.check_i32("the result")


# --- loads and stores ---------------------------------------------------------------------------

ACCESS_TYPES = "i8, i16, i32, i64, f16, bf16, f32, f64 or a vector<N x one of them> (N = 2, 4, 8, 16)"


def _check_access_type(op: HwOp, t: Attribute) -> None:
    if isinstance(t, VectorType):
        shape = t.get_shape()
        if len(shape) != 1 or shape[0] not in (2, 4, 8, 16) or not is_pointee_type(t.get_element_type()):
            raise op.error(f"value must be {ACCESS_TYPES}, got {t}")
    elif not is_pointee_type(t):
        raise op.error(f"value must be {ACCESS_TYPES}, got {t}")
    n = byte_size(t)
    if n not in (1, 2, 4, 8, 16):
        raise op.error(f"one access moves 1, 2, 4, 8 or 16 bytes; {t} is {n}")


def _verify_access(op: _LoadBase | _StoreBase, t: Attribute) -> None:
    """The address type of the op's memory, the value type `t`, a 32-bit offset."""
    check_address(op, op.SPACE, op.addr.type, (op.ADDR,))
    _check_access_type(op, t)
    check_offset32(op, op.offset.data)


class _LoadBase(HwOp):
    """`%v = hw.amd.X %addr [+ off] : A -> T`: one scalar or vector from `addr + off` (bytes)."""

    offset = prop_def(IntAttr)
    addr = operand_def()
    result = result_def()
    SPACE: ClassVar[str] = ""
    ADDR: ClassVar[Attribute] = i64

    def __init__(self, addr: SSAValue, result_type: Attribute, offset: int = 0):
        super().__init__(operands=[addr], result_types=[result_type], properties={"offset": IntAttr(offset)})

    def verify_(self) -> None:
        _verify_access(self, self.result.type)

    @classmethod
    def parse(cls, parser: Parser):
        a, off = parse_address(parser)
        extra, (at,), (t,) = parse_signature(parser, 1, 1)
        return with_attributes(cls(parser.resolve_operand(a, at), t, off), extra)

    def print(self, printer: Printer) -> None:
        print_address(printer, self.addr, self.offset.data)
        print_signature(printer, self, [self.addr.type], [self.result.type])


class _StoreBase(HwOp):
    """`hw.amd.X %addr [+ off], %v : A, T`: one scalar or vector to `addr + off` (bytes)."""

    offset = prop_def(IntAttr)
    addr = operand_def()
    value = operand_def()
    SPACE: ClassVar[str] = ""
    ADDR: ClassVar[Attribute] = i64

    def __init__(self, addr: SSAValue, value: SSAValue, offset: int = 0):
        super().__init__(operands=[addr, value], properties={"offset": IntAttr(offset)})

    def verify_(self) -> None:
        _verify_access(self, self.value.type)

    @classmethod
    def parse(cls, parser: Parser):
        a, off = parse_address(parser)
        parser.parse_punctuation(",")
        v = parser.parse_unresolved_operand()
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        at, vt = parse_types(parser, 2)
        return with_attributes(cls(parser.resolve_operand(a, at), parser.resolve_operand(v, vt), off), extra)

    def print(self, printer: Printer) -> None:
        print_address(printer, self.addr, self.offset.data)
        printer.print_string(", ")
        printer.print_operand(self.value)
        print_signature(printer, self, [self.addr.type, self.value.type])


@irdl_op_definition
class LdsLoadOp(_LoadBase):
    """Reads 1 to 16 bytes of LDS (`ds_read_b32` / `_b64` / `_b128`): a scalar or a vector.

    %v = hw.amd.lds_load %p + 16 : i32 -> vector<4xf16>
    """

    name = "hw.amd.lds_load"
    SPACE: ClassVar[str] = "an LDS"
    ADDR: ClassVar[Attribute] = i32


@irdl_op_definition
class LdsStoreOp(_StoreBase):
    """Writes 1 to 16 bytes of LDS (`ds_write_b32` / `_b64` / `_b128`): a scalar or a vector.

    hw.amd.lds_store %p + 16, %v : i32, vector<4xf32>
    """

    name = "hw.amd.lds_store"
    SPACE: ClassVar[str] = "an LDS"
    ADDR: ClassVar[Attribute] = i32


@irdl_op_definition
class GlobalLoadOp(_LoadBase):
    """Reads 1 to 16 bytes of global memory at a 64-bit address (`global_load_dwordx4` for 16).

    %v = hw.amd.global_load %a + 64 : i64 -> vector<4xf32>
    """

    name = "hw.amd.global_load"
    SPACE: ClassVar[str] = "a global"
    ADDR: ClassVar[Attribute] = i64


@irdl_op_definition
class GlobalStoreOp(_StoreBase):
    """Writes 1 to 16 bytes of global memory at a 64-bit address.

    hw.amd.global_store %a, %v : i64, vector<4xf32>
    """

    name = "hw.amd.global_store"
    SPACE: ClassVar[str] = "a global"
    ADDR: ClassVar[Attribute] = i64


@irdl_op_definition
class GlobalAtomicAddOp(_StoreBase):
    """`atomicAdd((T*)(addr + off), v)`: an atomic add to global memory, the old value unused
    (f32, f64, and 32/64-bit integers, added as unsigned: the same two's complement bits).

    hw.amd.global_atomic_add %a + 8, %v : i64, f32
    """

    name = "hw.amd.global_atomic_add"
    SPACE: ClassVar[str] = "a global"
    ADDR: ClassVar[Attribute] = i64

    def verify_(self) -> None:
        super().verify_()
        t = self.value.type
        if t not in (f32, f64) and not (isinstance(t, IntegerType) and t.width.data in (32, 64)):
            raise self.error(f"atomicAdd adds f32, f64, or 32/64-bit integers, got {t}")


ATOMIC_LOAD_ORDERS = ("relaxed", "acquire")
ATOMIC_STORE_ORDERS = ("relaxed", "release")


def _check_atomic_word(op: HwOp, t: Attribute) -> None:
    if not (isinstance(t, IntegerType) and t.width.data in (32, 64)):
        raise op.error(f"atomic loads, stores and adds move a 32- or 64-bit integer, got {t}")


@irdl_op_definition
class GlobalAtomicLoadOp(HwOp):
    """`__hip_atomic_load((T*)addr, order, agent scope)`: a 32/64-bit integer of global memory
    read atomically; `acquire` also sees every write made before the release store it reads.

    %w = hw.amd.global_atomic_load acquire %a : i64 -> i64
    """

    name = "hw.amd.global_atomic_load"
    order = prop_def(StringAttr)
    addr = operand_def()
    result = result_def()

    def __init__(self, order: str, addr: SSAValue, result_type: Attribute):
        super().__init__(operands=[addr], result_types=[result_type], properties={"order": StringAttr(order)})

    def verify_(self) -> None:
        check_one_of(self, self.order.data, ATOMIC_LOAD_ORDERS, "load order")
        check_address(self, "a global", self.addr.type, (i64,))
        _check_atomic_word(self, self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> GlobalAtomicLoadOp:
        order = parse_choice(parser, ATOMIC_LOAD_ORDERS, "a load order")
        (a,) = parse_operands(parser, 1)
        extra, (at,), (t,) = parse_signature(parser, 1, 1)
        return with_attributes(cls(order, parser.resolve_operand(a, at), t), extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.order.data}")
        print_operands(printer, [self.addr])
        print_signature(printer, self, [self.addr.type], [self.result.type])


@irdl_op_definition
class GlobalAtomicStoreOp(HwOp):
    """`__hip_atomic_store((T*)addr, v, order, agent scope)`: a 32/64-bit integer written to
    global memory atomically; `release` first makes this thread's earlier writes visible to an
    acquire load that reads it.

    hw.amd.global_atomic_store release %a, %w : i64, i64
    """

    name = "hw.amd.global_atomic_store"
    order = prop_def(StringAttr)
    addr = operand_def()
    value = operand_def()

    def __init__(self, order: str, addr: SSAValue, value: SSAValue):
        super().__init__(operands=[addr, value], properties={"order": StringAttr(order)})

    def verify_(self) -> None:
        check_one_of(self, self.order.data, ATOMIC_STORE_ORDERS, "store order")
        check_address(self, "a global", self.addr.type, (i64,))
        _check_atomic_word(self, self.value.type)

    @classmethod
    def parse(cls, parser: Parser) -> GlobalAtomicStoreOp:
        order = parse_choice(parser, ATOMIC_STORE_ORDERS, "a store order")
        a, v = parse_operands(parser, 2)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        at, vt = parse_types(parser, 2)
        return with_attributes(cls(order, parser.resolve_operand(a, at), parser.resolve_operand(v, vt)), extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.order.data}")
        print_operands(printer, [self.addr, self.value])
        print_signature(printer, self, [self.addr.type, self.value.type])


@irdl_op_definition
class GlobalAtomicFetchAddOp(HwOp):
    """`atomicAdd((unsigned T*)addr, v)`: an atomic add of a 32/64-bit integer to global memory
    that returns the value before the add (relaxed, agent scope).

    %old = hw.amd.global_atomic_fetch_add %a, %one : i64, i64 -> i64
    """

    name = "hw.amd.global_atomic_fetch_add"
    addr = operand_def()
    value = operand_def()
    result = result_def()

    def __init__(self, addr: SSAValue, value: SSAValue, result_type: Attribute | None = None):
        super().__init__(operands=[addr, value], result_types=[value.type if result_type is None else result_type])

    def verify_(self) -> None:
        check_address(self, "a global", self.addr.type, (i64,))
        _check_atomic_word(self, self.value.type)
        if self.result.type != self.value.type:
            raise self.error(f"returns the added type {self.value.type}, got {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> GlobalAtomicFetchAddOp:
        a, v = parse_operands(parser, 2)
        extra, (at, vt), (rt,) = parse_signature(parser, 2, 1)
        return with_attributes(cls(parser.resolve_operand(a, at), parser.resolve_operand(v, vt), rt), extra)

    def print(self, printer: Printer) -> None:
        print_operands(printer, [self.addr, self.value])
        print_signature(printer, self, [self.addr.type, self.value.type], [self.result.type])


# --- MFMA ---------------------------------------------------------------------------------------

MFMA_VARIANTS: dict[str, tuple[Attribute, Attribute, tuple[str, ...]]] = {
    # builtin suffix: (A/B type, C/D type, targets)
    "f32_32x32x8f16": (VectorType(f16, [4]), VectorType(f32, [16]), MFMA_ARCHS),
    "f32_16x16x16f16": (VectorType(f16, [4]), VectorType(f32, [4]), MFMA_ARCHS),
    "f32_32x32x8bf16_1k": (VectorType(i16, [4]), VectorType(f32, [16]), MFMA_ARCHS[1:]),
    "f32_16x16x16bf16_1k": (VectorType(i16, [4]), VectorType(f32, [4]), MFMA_ARCHS[1:]),
    "f32_32x32x2f32": (f32, VectorType(f32, [16]), MFMA_ARCHS),
    "f32_16x16x4f32": (f32, VectorType(f32, [4]), MFMA_ARCHS),
}


@irdl_op_definition
class MfmaOp(HwOp):
    """`__builtin_amdgcn_mfma_{variant}(a, b, c, cbsz, abid, blgp)`: one wavefront's D = A*B + C.

    Variants (A and B per lane, C and D per lane): f32_32x32x8f16 (vector<4xf16>,
    vector<16xf32>), f32_16x16x16f16 (vector<4xf16>, vector<4xf32>), f32_32x32x8bf16_1k and
    f32_16x16x16bf16_1k (bf16 bits in vector<4xi16>; gfx90a and later), f32_32x32x2f32 (f32,
    vector<16xf32>), f32_16x16x4f32 (f32, vector<4xf32>). cbsz (0..4), abid (< 2^cbsz) and
    blgp (0..7) are the broadcast controls, 0 for a plain product.

        %d = hw.amd.mfma f32_32x32x8f16 %a, %b, %c cbsz 0 abid 0 blgp 0
            : vector<4xf16>, vector<4xf16>, vector<16xf32> -> vector<16xf32>
    """

    name = "hw.amd.mfma"
    # the builtin's arguments (hw.nv.mma_sync takes register lists and layouts instead)
    variant = prop_def(StringAttr)
    cbsz = prop_def(IntAttr)
    abid = prop_def(IntAttr)
    blgp = prop_def(IntAttr)
    a = operand_def()
    b = operand_def()
    c = operand_def()
    d = result_def()
    traits = traits_def(Pure())

    def __init__(
        self,
        variant: str,
        a: SSAValue,
        b: SSAValue,
        c: SSAValue,
        cbsz: int = 0,
        abid: int = 0,
        blgp: int = 0,
        result_type: Attribute | None = None,
    ):
        super().__init__(
            operands=[a, b, c],
            result_types=[result_type or c.type],
            properties={
                "variant": StringAttr(variant),
                "cbsz": IntAttr(cbsz),
                "abid": IntAttr(abid),
                "blgp": IntAttr(blgp),
            },
        )

    def verify_(self) -> None:
        v = self.variant.data
        check_one_of(self, v, tuple(MFMA_VARIANTS), "MFMA variant")
        ab, cd, archs = MFMA_VARIANTS[v]
        for what, x in (("A", self.a), ("B", self.b)):
            if x.type != ab:
                raise self.error(f"{v}: {what} is {ab}, got {x.type}")
        if self.c.type != cd:
            raise self.error(f"{v}: C is {cd}, got {self.c.type}")
        if self.d.type != cd:
            raise self.error(f"{v}: D is {cd}, got {self.d.type}")
        cbsz, abid, blgp = self.cbsz.data, self.abid.data, self.blgp.data
        if not 0 <= cbsz <= 4:
            raise self.error(f"cbsz must be from 0 to 4, got {cbsz}")
        if not 0 <= abid < 2**cbsz:
            raise self.error(f"abid must be below 2^cbsz = {2**cbsz}, got {abid}")
        if not 0 <= blgp <= 7:
            raise self.error(f"blgp must be from 0 to 7, got {blgp}")
        k = enclosing(self, KernelOp)
        if isinstance(k, KernelOp) and k.arch.data not in archs:
            raise self.error(f"{v} needs one of {', '.join(archs)}, but the kernel targets {k.arch.data}")

    @classmethod
    def parse(cls, parser: Parser) -> MfmaOp:
        v = parser.parse_identifier()
        abc = parse_operands(parser, 3)
        imms = parse_immediates(parser, {"cbsz": 0, "abid": 0, "blgp": 0})
        extra, types, (dt,) = parse_signature(parser, 3, 1)
        return with_attributes(cls(v, *resolve_all(parser, abc, types), result_type=dt, **imms), extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.variant.data}")
        print_operands(printer, [self.a, self.b, self.c])
        printer.print_string(f" cbsz {self.cbsz.data} abid {self.abid.data} blgp {self.blgp.data}")
        print_signature(printer, self, [self.a.type, self.b.type, self.c.type], [self.d.type])


# --- wave operations ----------------------------------------------------------------------------

SHFL_TYPES = (i32, f32, i64, f64)


@irdl_op_definition
class ShflXorOp(ShuffleBase):
    """`__shfl_xor(v, mask, wave)`: the value of lane (lane ^ mask) across the whole wavefront.

    `mask` is an immediate below 64 or an i32 register; the value is i32, f32, i64 or f64.

        %r = hw.amd.shfl_xor %v, 16 : f32
        %s = hw.amd.shfl_xor %v, %m : i32
    """

    name = "hw.amd.shfl_xor"
    mask = opt_prop_def(IntAttr)
    value = operand_def()
    mask_reg = opt_operand_def()
    result = result_def()
    LANE: ClassVar[str] = "mask"
    LANE_REG: ClassVar[str] = "mask_reg"
    LANE_WORD: ClassVar[str] = "lane mask"

    def __init__(self, value: SSAValue, mask: int | SSAValue):
        props: dict[str, Attribute] = {}
        operands = self.shuffle_operands(value, mask, props)
        super().__init__(operands=operands, result_types=[value.type], properties=props)

    def verify_(self) -> None:
        k = enclosing(self, KernelOp)
        wave = k.wave.data if isinstance(k, KernelOp) else 64
        self.verify_shuffle(self.value.type in SHFL_TYPES, "i32, f32, i64 or f64", wave - 1)

    @classmethod
    def parse(cls, parser: Parser) -> ShflXorOp:
        v, m = cls.parse_value_and_lane(parser)
        extra, t = parse_typed_tail(parser)
        m = cls.resolve_lane(parser, m)
        return with_attributes(cls(parser.resolve_operand(v, t), m), extra)

    def print(self, printer: Printer) -> None:
        self.print_value_and_lane(printer)
        print_signature(printer, self, [self.value.type])


@irdl_op_definition
class DsSwizzleOp(HwOp):
    """`__builtin_amdgcn_ds_swizzle(v, pattern)`: a lane permutation within groups of 32 lanes.

    %r = hw.amd.ds_swizzle %v, 0x041f : i32
    """

    name = "hw.amd.ds_swizzle"
    pattern = prop_def(IntAttr)
    value = operand_def()
    result = result_def()

    def __init__(self, value: SSAValue, pattern: int):
        super().__init__(operands=[value], result_types=[value.type], properties={"pattern": IntAttr(pattern)})

    def verify_(self) -> None:
        if self.value.type != i32 or self.result.type != i32:
            raise self.error(f"swizzles an i32 (bitcast other types), got {self.value.type}")
        if not 0 <= self.pattern.data <= 0xFFFF:
            raise self.error(f"pattern must be a 16-bit value, got {self.pattern.data:#x}")

    @classmethod
    def parse(cls, parser: Parser) -> DsSwizzleOp:
        v, pattern = parse_operand_and_int(parser)
        extra, t = parse_typed_tail(parser)
        return with_attributes(cls(parser.resolve_operand(v, t), pattern), extra)

    def print(self, printer: Printer) -> None:
        print_operands(printer, [self.value])
        printer.print_string(f", {self.pattern.data:#06x}")
        print_signature(printer, self, [self.value.type])


def _dpp_ctrl_ok(c: int) -> bool:
    """quad_perm 0x000-0x0ff, row_shl/shr/ror 0x101-0x12f (not 0x110, 0x120), wave shifts/rotates
    0x130, 0x134, 0x138, 0x13c, row_mirror 0x140, row_half_mirror 0x141, row_bcast 0x142, 0x143."""
    return (
        0 <= c <= 0xFF
        or 0x101 <= c <= 0x12F
        and c not in (0x110, 0x120)
        or c in (0x130, 0x134, 0x138, 0x13C, 0x140, 0x141, 0x142, 0x143)
    )


@irdl_op_definition
class DppOp(HwOp):
    """`__builtin_amdgcn_mov_dpp(v, ctrl, row_mask, bank_mask, bound_ctrl)`: a DPP lane move.

    %r = hw.amd.dpp %v ctrl 0x111 row_mask 0xf bank_mask 0xf bound_ctrl : i32
    """

    name = "hw.amd.dpp"
    # the DPP controls, which no hw.nv op has
    ctrl = prop_def(IntAttr)
    row_mask = prop_def(IntAttr)
    bank_mask = prop_def(IntAttr)
    bound_ctrl = opt_prop_def(UnitAttr)
    value = operand_def()
    result = result_def()

    def __init__(self, value: SSAValue, ctrl: int, row_mask: int = 0xF, bank_mask: int = 0xF, bound_ctrl: bool = False):
        props: dict[str, Attribute] = {
            "ctrl": IntAttr(ctrl),
            "row_mask": IntAttr(row_mask),
            "bank_mask": IntAttr(bank_mask),
        }
        if bound_ctrl:
            props["bound_ctrl"] = UnitAttr()
        super().__init__(operands=[value], result_types=[value.type], properties=props)

    def verify_(self) -> None:
        if self.value.type != i32 or self.result.type != i32:
            raise self.error(f"moves an i32 (bitcast other types), got {self.value.type}")
        if not _dpp_ctrl_ok(self.ctrl.data):
            raise self.error(f"{self.ctrl.data:#x} is not a DPP control value")
        for name in ("row_mask", "bank_mask"):
            if not 0 <= getattr(self, name).data <= 0xF:
                raise self.error(f"{name} must be from 0 to 0xf, got {getattr(self, name).data:#x}")

    @classmethod
    def parse(cls, parser: Parser) -> DppOp:
        v = parser.parse_unresolved_operand()
        parser.parse_keyword("ctrl")
        ctrl = parser.parse_integer(allow_boolean=False)
        row = parse_int_keyword(parser, "row_mask", 0xF)
        bank = parse_int_keyword(parser, "bank_mask", 0xF)
        bound = parser.parse_optional_keyword("bound_ctrl") is not None
        extra, t = parse_typed_tail(parser)
        op = cls(parser.resolve_operand(v, t), ctrl, row, bank, bound)  # type: ignore[arg-type]
        return with_attributes(op, extra)

    def print(self, printer: Printer) -> None:
        print_operands(printer, [self.value])
        printer.print_string(
            f" ctrl {self.ctrl.data:#05x} row_mask {self.row_mask.data:#x} bank_mask {self.bank_mask.data:#x}"
        )
        if self.bound_ctrl is not None:
            printer.print_string(" bound_ctrl")
        print_signature(printer, self, [self.value.type])


@irdl_op_definition
class BarrierOp(NoOperandOp):
    """Workgroup barrier with LDS ordering (`__syncthreads()`).

    hw.amd.barrier
    """

    name = "hw.amd.barrier"


AMD_OPS = (
    KernelOp,
    ReturnOp,
    WorkitemIdOp,
    WorkgroupIdOp,
    WorkgroupSizeOp,
    NumWorkgroupsOp,
    LaneIdOp,
    LdsOp,
    LdsAddrOp,
    DynamicLdsAddrOp,
    LdsLoadOp,
    LdsStoreOp,
    GlobalLoadOp,
    GlobalStoreOp,
    GlobalAtomicAddOp,
    GlobalAtomicLoadOp,
    GlobalAtomicStoreOp,
    GlobalAtomicFetchAddOp,
    MfmaOp,
    ShflXorOp,
    DsSwizzleOp,
    DppOp,
    BarrierOp,
)
AMD_TYPES = ()
