"""`hw.cpu.*`: a CPU function emitted as C with GCC vector extensions and OpenMP.

One SSA value is one C variable: a scalar or a vector (`typedef float v8f
__attribute__((vector_size(32)))`). Pointers are typed (`!hw.ptr<generic, f32>` is
`float* restrict`) and indexed in elements with i64 offsets. Scalar and elementwise vector
arithmetic use upstream `arith` (C operators work on GCC vectors), math functions upstream `math`,
sequential loops and conditionals upstream `scf`.

Example::

    hw.cpu.func @scale(%X: !hw.ptr<generic, f32>, %n: i64, %s: f32) {
      %sv = hw.cpu.splat %s : f32 -> vector<8xf32>
      hw.cpu.parallel_for %i = %c0 to %n step %c8 : i64 {
        %x = hw.cpu.load %X[%i] : !hw.ptr<generic, f32> -> vector<8xf32>
        %y = arith.mulf %x, %sv : vector<8xf32>
        hw.cpu.store %y, %X[%i] : vector<8xf32>, !hw.ptr<generic, f32>
        hw.cpu.yield
      }
      hw.cpu.return
    }
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    IndexType,
    IntAttr,
    StringAttr,
    VectorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator, Pure

from tilec.dialects.common import parse_extra_attrs, print_extra_attrs
from tilec.dialects.hw.common import (
    HwFuncBase,
    HwOp,
    NoOperandOp,
    PtrType,
    byte_size,
    check_one_of,
    enclosing,
    is_int_or_index,
    is_pointee_type,
    is_power_of_two,
    parse_choice,
    parse_int_keyword,
    parse_signature,
    parse_typed_tail,
    parse_types,
    print_operands,
    print_paren_operands,
    print_signature,
    with_attributes,
)

MAX_VECTOR_BYTES = 64
"""The widest vector a hw.cpu value may be (one AVX-512 register)."""


def _is_c_scalar(t: Attribute) -> bool:
    """Scalars the C emitter can declare: integers of width 8..64, index, f16/bf16 (memory values,
    widened with arith.extf before arithmetic), f32, f64."""
    return is_pointee_type(t) or isinstance(t, IndexType)


def _check_vector(op: HwOp, t: Attribute) -> None:
    """A value type: a C scalar or a 1-D static GCC vector of power-of-two length, <= 64 bytes."""
    if isinstance(t, VectorType):
        shape = t.get_shape()
        if len(shape) != 1 or t.get_num_scalable_dims():
            raise op.error(f"vectors are 1-D with a fixed length, got {t}")
        if not is_power_of_two(shape[0]):
            raise op.error(f"vector length must be a power of two, got {shape[0]}")
        if not is_pointee_type(t.get_element_type()) or isinstance(t.get_element_type(), Float16Type | BFloat16Type):
            raise op.error(f"vector elements must be f32, f64, i8, i16, i32 or i64, got {t.get_element_type()}")
        if byte_size(t) > MAX_VECTOR_BYTES:
            raise op.error(f"{t} is {byte_size(t)} bytes; vectors are at most {MAX_VECTOR_BYTES}")


def _element(t: Attribute) -> Attribute:
    return t.get_element_type() if isinstance(t, VectorType) else t


# --- function structure -------------------------------------------------------------------------


@irdl_op_definition
class FuncOp(HwFuncBase):
    """A C function `void name(T* restrict p, ...)`: typed generic pointers and scalars.

    hw.cpu.func @axpy(%X: !hw.ptr<generic, f32>, %Y: !hw.ptr<generic, f32>, %n: i64, %a: f32) {
      ...
      hw.cpu.return
    }
    """

    name = "hw.cpu.func"

    RETURN_NAME: ClassVar[str] = "hw.cpu.return"
    PARAM_KINDS: ClassVar[str] = "typed generic pointers (!hw.ptr<generic, f32>) or scalars (integers, index, f32, f64)"

    def __init__(self, name: str, param_types: Sequence[Attribute], body: Region | None = None):
        self._init(name, param_types, {}, body)

    def _check_param(self, t: Attribute) -> bool:
        if isinstance(t, PtrType):
            return t.space_name == "generic" and t.pointee is not None
        return _is_c_scalar(t) and not isinstance(t, Float16Type | BFloat16Type)


@irdl_op_definition
class ReturnOp(NoOperandOp):
    """Ends a `hw.cpu.func` body.

    hw.cpu.return
    """

    name = "hw.cpu.return"
    traits = traits_def(IsTerminator(), HasParent(FuncOp))


SCHEDULES = ("static", "dynamic", "guided")


@irdl_op_definition
class ParallelForOp(HwOp):
    """`#pragma omp parallel for [collapse(n)] [schedule(kind[, chunk])] [if(c)]` over 1 or more nested loops.

    Each dimension runs `for (iv = lb; iv < ub; iv += step)`; with several dimensions the loops
    nest (first outermost) and are collapsed. Bounds are one integer or index type. The body
    ends with `hw.cpu.yield`; iterations must be independent.

        hw.cpu.parallel_for %i = %lb to %ub step %s : i64 {
          hw.cpu.yield
        }
        hw.cpu.parallel_for (%i, %j) = (%a, %b) to (%m, %n) step (%c1, %c1) schedule static 4 : i64 {
          hw.cpu.yield
        }
        hw.cpu.parallel_for %i = %lb to %ub step %s if %big : i64 {
          hw.cpu.yield
        }

    With `if %c` (an i1) the loop runs on the calling thread alone when %c is false.
    """

    name = "hw.cpu.parallel_for"
    lbs = var_operand_def()
    ubs = var_operand_def()
    steps = var_operand_def()
    condition = opt_operand_def(i1)
    schedule = opt_prop_def(StringAttr)
    chunk = opt_prop_def(IntAttr)
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        lbs: Sequence[SSAValue],
        ubs: Sequence[SSAValue],
        steps: Sequence[SSAValue],
        body: Region | None = None,
        schedule: str | None = None,
        chunk: int | None = None,
        condition: SSAValue | None = None,
    ):
        if body is None:
            body = Region(Block(arg_types=[v.type for v in lbs]))
        props: dict[str, Attribute] = {}
        if schedule is not None:
            props["schedule"] = StringAttr(schedule)
        if chunk is not None:
            props["chunk"] = IntAttr(chunk)
        super().__init__(
            operands=[list(lbs), list(ubs), list(steps), [condition] if condition is not None else []],
            regions=[body],
            properties=props,
        )

    @property
    def ivs(self):
        return self.body.block.args

    def verify_(self) -> None:
        n = len(self.lbs)
        if n == 0:
            raise self.error("needs at least one loop dimension")
        if len(self.ubs) != n or len(self.steps) != n:
            raise self.error(f"needs as many upper bounds and steps as lower bounds ({n})")
        t = self.lbs[0].type
        if not is_int_or_index(t):
            raise self.error(f"bounds must be an integer or index, got {t}")
        for v in (*self.lbs, *self.ubs, *self.steps):
            if v.type != t:
                raise self.error(f"all bounds and steps must have one type, got {t} and {v.type}")
        if tuple(self.body.block.arg_types) != (t,) * n:
            raise self.error(f"the body takes {n} induction variable(s) of type {t}")
        if self.schedule is not None:
            check_one_of(self, self.schedule.data, SCHEDULES, "schedule")
        if self.chunk is not None:
            if self.schedule is None:
                raise self.error("a chunk size needs a schedule kind")
            if self.chunk.data <= 0:
                raise self.error(f"chunk size must be positive, got {self.chunk.data}")
        last = self.body.block.last_op
        if last is None or not isinstance(last, YieldOp):
            raise self.error("body must end with hw.cpu.yield")

    @classmethod
    def parse(cls, parser: Parser) -> ParallelForOp:
        multi = parser.parse_optional_punctuation("(") is not None
        if multi:
            ivs = [parser.parse_argument(expect_type=False)]
            while parser.parse_optional_punctuation(",") is not None:
                ivs.append(parser.parse_argument(expect_type=False))
            parser.parse_punctuation(")")
        else:
            ivs = [parser.parse_argument(expect_type=False)]
        parser.parse_punctuation("=")

        def group():
            if multi:
                return parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
            return [parser.parse_unresolved_operand()]

        start = parser.pos
        lbs = group()
        parser.parse_keyword("to")
        ubs = group()
        parser.parse_keyword("step")
        steps = group()
        if not len(ivs) == len(lbs) == len(ubs) == len(steps):
            parser.raise_error(
                f"{len(ivs)} induction variable(s) but {len(lbs)} lower bound(s), {len(ubs)} upper bound(s) "
                f"and {len(steps)} step(s)",
                start,
                parser.pos,
            )
        schedule = None
        chunk = None
        if parser.parse_optional_keyword("schedule") is not None:
            schedule = parse_choice(parser, SCHEDULES, "a schedule kind")
            chunk = parser.parse_optional_integer(allow_boolean=False, allow_negative=False)
        cond = parser.parse_unresolved_operand() if parser.parse_optional_keyword("if") is not None else None
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        region = parser.parse_region([iv.resolve(t) for iv in ivs])
        op = cls(
            [parser.resolve_operand(v, t) for v in lbs],
            [parser.resolve_operand(v, t) for v in ubs],
            [parser.resolve_operand(v, t) for v in steps],
            region,
            schedule,
            chunk,
            parser.resolve_operand(cond, i1) if cond is not None else None,
        )
        return with_attributes(op, extra)

    def print(self, printer: Printer) -> None:
        multi = len(self.lbs) != 1

        def group(values) -> None:
            if multi:
                printer.print_string("(")
            printer.print_list(values, printer.print_operand)
            if multi:
                printer.print_string(")")

        printer.print_string(" ")
        if multi:
            printer.print_string("(")
        printer.print_list(self.ivs, lambda a: printer.print_block_argument(a, print_type=False))
        if multi:
            printer.print_string(")")
        printer.print_string(" = ")
        group(self.lbs)
        printer.print_string(" to ")
        group(self.ubs)
        printer.print_string(" step ")
        group(self.steps)
        if self.schedule is not None:
            printer.print_string(f" schedule {self.schedule.data}")
            if self.chunk is not None:
                printer.print_string(f" {self.chunk.data}")
        if self.condition is not None:
            printer.print_string(" if ")
            printer.print_operand(self.condition)
        print_extra_attrs(printer, self)
        t = self.lbs[0].type if len(self.lbs) else (self.ivs[0].type if self.ivs else i64)
        printer.print_string(f" : {t} ")
        printer.print_region(self.body, print_entry_block_args=False)


@irdl_op_definition
class YieldOp(NoOperandOp):
    """Ends the body of a `hw.cpu.parallel_for`.

    hw.cpu.yield
    """

    name = "hw.cpu.yield"
    traits = traits_def(IsTerminator(), HasParent(ParallelForOp))


# --- memory -------------------------------------------------------------------------------------


def _check_ptr(op: HwOp, pt: Attribute, value_type: Attribute) -> None:
    if not isinstance(pt, PtrType) or pt.space_name not in ("generic", "local"):
        raise op.error(f"the pointer must be a !hw.ptr<generic, T> or !hw.ptr<local, T>, got {pt}")
    if pt.pointee is None:
        raise op.error(f"the pointer needs an element type (!hw.ptr<{pt.space_name}, f32>), got {pt}")
    _check_vector(op, value_type)
    if _element(value_type) != pt.pointee:
        raise op.error(f"the pointer holds {pt.pointee} but the value is {value_type}")


def _check_access(op: LoadOp | StoreOp, value_type: Attribute) -> None:
    """A load or store of `value_type` at `ptr[offset]`."""
    _check_ptr(op, op.ptr.type, value_type)
    if op.offset.type != i64:
        raise op.error(f"the offset is an i64 element count, got {op.offset.type}")


def _parse_indexed(parser: Parser) -> tuple[UnresolvedOperand, UnresolvedOperand]:
    """`%ptr[%off]`."""
    p = parser.parse_unresolved_operand()
    parser.parse_punctuation("[")
    off = parser.parse_unresolved_operand()
    parser.parse_punctuation("]")
    return p, off


def _print_indexed(printer: Printer, ptr: SSAValue, offset: SSAValue) -> None:
    printer.print_operand(ptr)
    printer.print_string("[")
    printer.print_operand(offset)
    printer.print_string("]")


@irdl_op_definition
class LoadOp(HwOp):
    """Reads a scalar or a vector at `ptr + off` elements (unaligned: `memcpy` into a GCC vector).

    The offset is an i64 element count; the vector length comes from the result type.

        %v = hw.cpu.load %ptr[%off] : !hw.ptr<generic, f32> -> vector<8xf32>
        %x = hw.cpu.load %ptr[%off] : !hw.ptr<generic, f32> -> f32
    """

    name = "hw.cpu.load"
    ptr = operand_def()
    offset = operand_def()
    result = result_def()

    def __init__(self, ptr: SSAValue, offset: SSAValue, result_type: Attribute):
        super().__init__(operands=[ptr, offset], result_types=[result_type])

    def verify_(self) -> None:
        _check_access(self, self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        p, off = _parse_indexed(parser)
        extra, (pt,), (rt,) = parse_signature(parser, 1, 1)
        return with_attributes(cls(parser.resolve_operand(p, pt), parser.resolve_operand(off, i64), rt), extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_indexed(printer, self.ptr, self.offset)
        print_signature(printer, self, [self.ptr.type], [self.result.type])


@irdl_op_definition
class StoreOp(HwOp):
    """Writes a scalar or a vector at `ptr + off` elements (unaligned); the offset is an i64.

    hw.cpu.store %v, %ptr[%off] : vector<8xf32>, !hw.ptr<generic, f32>
    """

    name = "hw.cpu.store"
    value = operand_def()
    ptr = operand_def()
    offset = operand_def()

    def __init__(self, value: SSAValue, ptr: SSAValue, offset: SSAValue):
        super().__init__(operands=[value, ptr, offset])

    def verify_(self) -> None:
        _check_access(self, self.value.type)

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        v = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        p, off = _parse_indexed(parser)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        vt, pt = parse_types(parser, 2)
        op = cls(parser.resolve_operand(v, vt), parser.resolve_operand(p, pt), parser.resolve_operand(off, i64))
        return with_attributes(op, extra)

    def print(self, printer: Printer) -> None:
        print_operands(printer, [self.value])
        printer.print_string(", ")
        _print_indexed(printer, self.ptr, self.offset)
        print_signature(printer, self, [self.value.type, self.ptr.type])


@irdl_op_definition
class AllocaOp(HwOp):
    """A stack array of `count` elements with the given byte alignment (`T name[count] __attribute__((aligned(A)))`).

    %p = hw.cpu.alloca 4096 align 64 : !hw.ptr<local, f32>
    """

    name = "hw.cpu.alloca"
    count = prop_def(IntAttr)
    alignment = prop_def(IntAttr)
    result = result_def()

    def __init__(self, element_type: Attribute, count: int, alignment: int = 64, result_type: Attribute | None = None):
        super().__init__(
            result_types=[result_type or PtrType("local", element_type)],
            properties={"count": IntAttr(count), "alignment": IntAttr(alignment)},
        )

    def verify_(self) -> None:
        t = self.result.type
        if not isinstance(t, PtrType) or t.space_name != "local" or t.pointee is None:
            raise self.error(f"the result is a typed local pointer (!hw.ptr<local, f32>), got {t}")
        if self.count.data <= 0:
            raise self.error(f"count must be a positive number of elements, got {self.count.data}")
        a = self.alignment.data
        if not is_power_of_two(a) or a < byte_size(t.pointee):
            raise self.error(f"alignment must be a power of two of at least the element size, got {a}")
        if not isinstance(enclosing(self, FuncOp), FuncOp):
            raise self.error("must be inside a hw.cpu.func")

    @classmethod
    def parse(cls, parser: Parser) -> AllocaOp:
        count = parser.parse_integer(allow_boolean=False)
        align = parse_int_keyword(parser, "align", 64)
        extra, t = parse_typed_tail(parser, PtrType, "a !hw.ptr<local, T> type")
        return with_attributes(cls(t.pointee, count, align, t), extra)  # type: ignore[attr-defined]

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.count.data} align {self.alignment.data}")
        print_signature(printer, self, [self.result.type])


# --- vectors ------------------------------------------------------------------------------------


def _vector_type(op: HwOp, t: Attribute) -> VectorType:
    if not isinstance(t, VectorType):
        raise op.error(f"expected a vector type, got {t}")
    _check_vector(op, t)
    return t


def _check_element_result(op: HwOp, vt: VectorType, result_type: Attribute) -> None:
    if result_type != vt.get_element_type():
        raise op.error(f"the result is the element type {vt.get_element_type()}, got {result_type}")


@irdl_op_definition
class SplatOp(HwOp):
    """A vector with every lane equal to a scalar (`(v8f){x, x, ...}` / `x - (v8f){}`).

    %b = hw.cpu.splat %x : f32 -> vector<8xf32>
    """

    name = "hw.cpu.splat"
    scalar = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def __init__(self, scalar: SSAValue, result_type: Attribute):
        super().__init__(operands=[scalar], result_types=[result_type])

    def verify_(self) -> None:
        vt = _vector_type(self, self.result.type)
        if self.scalar.type != vt.get_element_type():
            raise self.error(f"{vt} needs a {vt.get_element_type()} scalar, got {self.scalar.type}")

    @classmethod
    def parse(cls, parser: Parser) -> SplatOp:
        x = parser.parse_unresolved_operand()
        extra, (st,), (rt,) = parse_signature(parser, 1, 1)
        return with_attributes(cls(parser.resolve_operand(x, st), rt), extra)

    def print(self, printer: Printer) -> None:
        print_operands(printer, [self.scalar])
        print_signature(printer, self, [self.scalar.type], [self.result.type])


REDUCE_KINDS = ("add", "mul", "max", "min")


@irdl_op_definition
class VReduceOp(HwOp):
    """Reduces the lanes of a vector to a scalar: add, mul, max or min.

    Order (fixed, so results are reproducible): pairwise halving, lane i combined with lane
    i + n/2 until one lane is left. Float max/min propagate NaN (like `tile.max`).

        %s = hw.cpu.vreduce add %v : vector<8xf32> -> f32
    """

    name = "hw.cpu.vreduce"
    kind = prop_def(StringAttr)
    vector = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def __init__(self, kind: str, vector: SSAValue, result_type: Attribute | None = None):
        if result_type is None:
            result_type = _element(vector.type)
        super().__init__(operands=[vector], result_types=[result_type], properties={"kind": StringAttr(kind)})

    def verify_(self) -> None:
        check_one_of(self, self.kind.data, REDUCE_KINDS, "reduction")
        vt = _vector_type(self, self.vector.type)
        _check_element_result(self, vt, self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> VReduceOp:
        kind = parse_choice(parser, REDUCE_KINDS, "a reduction kind")
        v = parser.parse_unresolved_operand()
        extra, (vt,), (rt,) = parse_signature(parser, 1, 1)
        return with_attributes(cls(kind, parser.resolve_operand(v, vt), rt), extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data}")
        print_operands(printer, [self.vector])
        print_signature(printer, self, [self.vector.type], [self.result.type])


@irdl_op_definition
class ExtractOp(HwOp):
    """One lane of a vector (`v[3]`); the result has the element type.

    %e = hw.cpu.extract %v[3] : vector<8xf32>
    """

    name = "hw.cpu.extract"
    lane = prop_def(IntAttr)
    vector = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def __init__(self, vector: SSAValue, lane: int, result_type: Attribute | None = None):
        super().__init__(
            operands=[vector], result_types=[result_type or _element(vector.type)], properties={"lane": IntAttr(lane)}
        )

    def verify_(self) -> None:
        vt = _vector_type(self, self.vector.type)
        n = vt.get_shape()[0]
        if not 0 <= self.lane.data < n:
            raise self.error(f"lane {self.lane.data} is out of range for {vt}")
        _check_element_result(self, vt, self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> ExtractOp:
        v = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        lane = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation("]")
        extra, vt = parse_typed_tail(parser)
        return with_attributes(cls(parser.resolve_operand(v, vt), lane, _element(vt)), extra)

    def print(self, printer: Printer) -> None:
        print_operands(printer, [self.vector])
        printer.print_string(f"[{self.lane.data}]")
        print_signature(printer, self, [self.vector.type])


# --- heap and calls (the host side of a lowered program) ---------------------------------------


@irdl_op_definition
class MallocOp(HwOp):
    """A heap array of `count` elements (64-byte aligned); freed with `hw.cpu.free`.

    Allocation failure aborts the call with an error code (the runtime reports it).

        %p = hw.cpu.malloc %n : !hw.ptr<generic, f32>
    """

    name = "hw.cpu.malloc"
    count = operand_def(IndexType)
    result = result_def(PtrType)

    def __init__(self, count: SSAValue, result_type: PtrType):
        super().__init__(operands=[count], result_types=[result_type])

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, PtrType)
        if t.space_name != "generic" or t.pointee is None:
            raise self.error(f"the result is a typed generic pointer (!hw.ptr<generic, f32>), got {t}")

    @classmethod
    def parse(cls, parser: Parser) -> MallocOp:
        n = parser.parse_unresolved_operand()
        extra, t = parse_typed_tail(parser, PtrType, "a !hw.ptr<generic, T> type")
        return with_attributes(cls(parser.resolve_operand(n, IndexType()), t), extra)  # type: ignore[arg-type]

    def print(self, printer: Printer) -> None:
        print_operands(printer, [self.count])
        print_signature(printer, self, [self.result.type])


@irdl_op_definition
class FreeOp(HwOp):
    """Releases a `hw.cpu.malloc` array.

    hw.cpu.free %p : !hw.ptr<generic, f32>
    """

    name = "hw.cpu.free"
    ptr = operand_def(PtrType)

    def __init__(self, ptr: SSAValue):
        super().__init__(operands=[ptr])

    def verify_(self) -> None:
        if not isinstance(self.ptr.owner, MallocOp):
            raise self.error("frees only what hw.cpu.malloc returned")

    @classmethod
    def parse(cls, parser: Parser) -> FreeOp:
        p = parser.parse_unresolved_operand()
        extra, t = parse_typed_tail(parser, PtrType, "a !hw.ptr type")
        return with_attributes(cls(parser.resolve_operand(p, t)), extra)

    def print(self, printer: Printer) -> None:
        print_operands(printer, [self.ptr])
        print_signature(printer, self, [self.ptr.type])


@irdl_op_definition
class CallOp(HwOp):
    """Calls another `hw.cpu.func` of the module.

    hw.cpu.call @softmax_0_rowwise(%Y, %n, %X) : !hw.ptr<generic, f32>, i64, !hw.ptr<generic, f32>
    """

    name = "hw.cpu.call"
    callee = prop_def(StringAttr)
    args = var_operand_def()

    def __init__(self, callee: str, args: Sequence[SSAValue]):
        super().__init__(operands=[list(args)], properties={"callee": StringAttr(callee)})

    def verify_symbol_uses(self, symbols: dict[str, Operation]) -> None:
        """The callee exists and takes these arguments (run by tilec.ir.verify_module with one
        symbol table per module, so verifying n calls costs O(n))."""
        target = symbols.get(self.callee.data)
        if not isinstance(target, FuncOp):
            raise self.error(f"no hw.cpu.func named @{self.callee.data} in this module")
        want = list(target.function_type.inputs.data)
        got = [a.type for a in self.args]
        if want != got:
            raise self.error(
                f"@{self.callee.data} takes ({', '.join(map(str, want))}) but is given ({', '.join(map(str, got))})"
            )

    @classmethod
    def parse(cls, parser: Parser) -> CallOp:
        start = parser.pos
        sym = parser.parse_symbol_name().data
        args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        extra = parse_extra_attrs(parser)
        types = []
        if args:
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if len(types) != len(args):
            parser.raise_error(f"call: {len(args)} argument(s) but {len(types)} type(s)", start, parser.pos)
        return with_attributes(cls(sym, [parser.resolve_operand(a, t) for a, t in zip(args, types)]), extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.callee.data)
        print_paren_operands(printer, self.args)
        if self.args:
            print_signature(printer, self, [a.type for a in self.args])
        else:
            print_extra_attrs(printer, self)


CPU_OPS = (
    FuncOp,
    ReturnOp,
    ParallelForOp,
    YieldOp,
    LoadOp,
    StoreOp,
    AllocaOp,
    SplatOp,
    VReduceOp,
    ExtractOp,
    MallocOp,
    FreeOp,
    CallOp,
)
CPU_TYPES = ()
