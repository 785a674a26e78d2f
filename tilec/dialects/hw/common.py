"""Pieces shared by the three `hw` families: the pointer type, `hw.ptr_to_int`, the kernel/function
base class and small parse/print helpers.

Conventions of the hw level (on top of those of `tilec.dialects.common`):
- one SSA value is one machine register; ops carry every qualifier their instruction needs, so the
  emitters print without deciding anything;
- scalar arithmetic and conversions use upstream `arith`, CPU math uses `math`, structured control
  flow uses `scf.for` / `scf.if` / `scf.yield`;
- addresses are integers: `i64` for global / generic memory, `i32` for a GPU shared-memory (LDS)
  window address. A `!hw.ptr<...>` kernel parameter becomes an integer address with
  `hw.ptr_to_int`; CPU code indexes typed pointers directly (`hw.cpu.load %p[%i]`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from xdsl.dialects.builtin import (
    BFloat16Type,
    FlatSymbolRefAttrConstr,
    Float16Type,
    Float32Type,
    Float64Type,
    FunctionType,
    IndexType,
    IntAttr,
    IntegerType,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
    VectorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    OpTraits,
    ParametrizedAttribute,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsolatedFromAbove, Pure, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from tilec.dialects.common import (
    bitwidth,
    int_array,
    op_error,
    parse_extra_attrs,
    parse_keyword_choice,
    print_extra_attrs,
)

OpT = TypeVar("OpT", bound=Operation)

# --- the pointer type ---------------------------------------------------------------------------

PTR_SPACES = ("global", "shared", "generic", "local")
"""Address spaces of `!hw.ptr`: GPU global memory, GPU shared memory / LDS, a generic (flat or
host) address, and thread-private memory (GPU local memory, CPU stack)."""


def is_pointee_type(t: Attribute) -> bool:
    """Element types a typed pointer may point to: f16, bf16, f32, f64, i8, i16, i32, i64."""
    if isinstance(t, Float16Type | BFloat16Type | Float32Type | Float64Type):
        return True
    return isinstance(t, IntegerType) and t.width.data in (8, 16, 32, 64)


POINTEE_TYPES = "f16, bf16, f32, f64, i8, i16, i32 or i64"


@irdl_attr_definition
class PtrType(ParametrizedAttribute, TypeAttribute):
    """A pointer in one address space, optionally typed: `!hw.ptr<global>`, `!hw.ptr<generic, f32>`.

    Global and generic pointers are 64 bits wide. A GPU shared-memory (LDS) address is not a
    pointer but an `i32` window address (`hw.nv.shared_addr`, `hw.amd.lds_addr`). The element
    type is what a C or HIP emitter declares (`float* restrict`); `hw.cpu` ops require it.
    """

    name = "hw.ptr"

    space: StringAttr
    element_type: Attribute

    def __init__(self, space: str, element_type: Attribute | None = None):
        super().__init__(StringAttr(space), NoneAttr() if element_type is None else element_type)

    @property
    def space_name(self) -> str:
        return self.space.data

    @property
    def pointee(self) -> Attribute | None:
        """The element type, or None for an untyped pointer."""
        return None if isinstance(self.element_type, NoneAttr) else self.element_type

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            start = parser.pos
            space = parser.parse_optional_identifier()
            if space not in PTR_SPACES:
                parser.raise_error(
                    f"hw.ptr: expected an address space ({', '.join(PTR_SPACES)})", start, max(parser.pos, start + 1)
                )
            elt: Attribute = NoneAttr()
            if parser.parse_optional_punctuation(",") is not None:
                tstart = parser.pos
                elt = parser.parse_type()
                if not is_pointee_type(elt):
                    parser.raise_error(f"hw.ptr: element type must be {POINTEE_TYPES}, got {elt}", tstart, parser.pos)
        return (StringAttr(space), elt)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.space.data)
            if self.pointee is not None:
                printer.print_string(", ")
                printer.print_attribute(self.pointee)

    def verify(self) -> None:
        if self.space.data not in PTR_SPACES:
            raise VerifyException(
                f"hw.ptr: unknown address space '{self.space.data}' (expected {', '.join(PTR_SPACES)})"
            )
        if self.pointee is not None and not is_pointee_type(self.pointee):
            raise VerifyException(f"hw.ptr: element type must be {POINTEE_TYPES}, got {self.pointee}")


def address_type_for(space: str) -> IntegerType:
    """The integer type of an address in `space`: i32 for shared (a window offset), else i64."""
    return i32 if space == "shared" else i64


@irdl_op_definition
class PtrToIntOp(IRDLOperation):
    """The integer address held by a pointer (PTX `cvta.to.global.u64` for global, `mov` otherwise).

    A kernel's pointer parameters enter the body as `!hw.ptr` values; address arithmetic (`arith`)
    and the load/store ops use integers: i64, or i32 for a shared pointer.

        %a = hw.ptr_to_int %A : !hw.ptr<global> -> i64
    """

    name = "hw.ptr_to_int"
    ptr = operand_def(PtrType)
    result = result_def(IntegerType)
    traits = traits_def(Pure())

    def __init__(self, ptr: SSAValue, result_type: Attribute | None = None):
        if result_type is None:
            assert isinstance(ptr.type, PtrType)
            result_type = address_type_for(ptr.type.space_name)
        super().__init__(operands=[ptr], result_types=[result_type])

    def verify_(self) -> None:
        pt = self.ptr.type
        assert isinstance(pt, PtrType)
        want = address_type_for(pt.space_name)
        if self.result.type != want:
            raise op_error(self, f"a {pt.space_name} address is {want}, got {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> PtrToIntOp:
        p = parser.parse_unresolved_operand()
        extra, pt = parse_typed_tail(parser, PtrType, "a !hw.ptr type")
        parser.parse_punctuation("->")
        rt = parser.parse_type()
        return with_attributes(cls(parser.resolve_operand(p, pt), rt), extra)

    def print(self, printer: Printer) -> None:
        print_operands(printer, [self.ptr])
        print_signature(printer, self, [self.ptr.type], [self.result.type])


# --- type predicates ----------------------------------------------------------------------------

REGISTER_TYPES = "i16, i32, i64, f16, bf16, f32 or f64"


def is_register_type(t: Attribute) -> bool:
    """A scalar that fits one GPU register: i16, i32, i64, f16, bf16, f32, f64."""
    if isinstance(t, Float16Type | BFloat16Type | Float32Type | Float64Type):
        return True
    return isinstance(t, IntegerType) and t.width.data in (16, 32, 64)


def is_scalar_param(t: Attribute) -> bool:
    """A scalar kernel/function parameter: an integer of width 8..64, f16, bf16, f32 or f64."""
    if isinstance(t, Float16Type | BFloat16Type | Float32Type | Float64Type):
        return True
    return isinstance(t, IntegerType) and t.width.data in (8, 16, 32, 64)


def is_32bit(t: Attribute) -> bool:
    return t == i32 or isinstance(t, Float32Type)


def byte_size(t: Attribute) -> int:
    """Bytes of a scalar or of a 1-D vector of scalars."""
    if isinstance(t, VectorType):
        n = 1
        for d in t.get_shape():
            n *= d
        return n * byte_size(t.get_element_type())
    return max(bitwidth(t) // 8, 1)


def is_int_or_index(t: Attribute) -> bool:
    return isinstance(t, IntegerType | IndexType)


def is_power_of_two(n: int) -> bool:
    return n > 0 and (n & (n - 1)) == 0


# --- parse/print helpers ------------------------------------------------------------------------


def parse_type_of(parser: Parser, kind: type | tuple[type, ...], what: str) -> Attribute:
    """A type that must be an instance of `kind`; otherwise an error at the type."""
    start = parser.pos
    t = parser.parse_type()
    if not isinstance(t, kind):
        parser.raise_error(f"expected {what}, got {t}", start, parser.pos)
    return t


def parse_type_list(parser: Parser) -> list[Attribute]:
    """`T1, T2, ...` (at least one)."""
    types = [parser.parse_type()]
    while parser.parse_optional_punctuation(",") is not None:
        types.append(parser.parse_type())
    return types


def parse_operands(parser: Parser, n: int) -> list[UnresolvedOperand]:
    """`%a, ..., %n`: exactly `n` operands."""
    ops = [parser.parse_unresolved_operand()]
    for _ in range(n - 1):
        parser.parse_punctuation(",")
        ops.append(parser.parse_unresolved_operand())
    return ops


def parse_operand_list(parser: Parser) -> list[UnresolvedOperand]:
    """`%a, %b, ...` (at least one)."""
    ops = [parser.parse_unresolved_operand()]
    while parser.parse_optional_punctuation(",") is not None:
        ops.append(parser.parse_unresolved_operand())
    return ops


def parse_paren_operands(parser: Parser) -> list[UnresolvedOperand]:
    """`(%a, %b, ...)` (possibly empty)."""
    return parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)


def print_paren_operands(printer: Printer, values: Sequence[SSAValue]) -> None:
    printer.print_string("(")
    printer.print_list(values, printer.print_operand)
    printer.print_string(")")


def resolve_all(parser: Parser, operands: Sequence[UnresolvedOperand], types: Sequence[Attribute]) -> list[SSAValue]:
    return [parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)]


def check_type_count(parser: Parser, start: int, what: str, n_values: int, types: Sequence[Attribute]) -> None:
    if n_values != len(types):
        parser.raise_error(f"{n_values} {what} but {len(types)} type(s) after ':'", start, parser.pos)


def parse_int_keyword(
    parser: Parser, keyword: str, default: int | None = None, allow_negative: bool = False
) -> int | None:
    """Optional `keyword N`; `default` when the keyword is absent."""
    if parser.parse_optional_keyword(keyword) is None:
        return default
    return parser.parse_integer(allow_negative=allow_negative, allow_boolean=False)


def parse_immediates(parser: Parser, defaults: dict[str, int]) -> dict[str, int]:
    """`name N` clauses in any order, each at most once; absent ones take their default."""
    values = dict(defaults)
    seen: set[str] = set()
    while True:
        start = parser.pos
        name = parser.parse_optional_keyword_in(tuple(defaults))
        if name is None:
            return values
        if name in seen:
            parser.raise_error(f"{name} is given twice", start, parser.pos)
        seen.add(name)
        values[name] = parser.parse_integer(allow_negative=True, allow_boolean=False)


def parse_imm_or_operand(parser: Parser) -> int | UnresolvedOperand:
    """An immediate integer or an SSA operand."""
    o = parser.parse_optional_unresolved_operand()
    if o is not None:
        return o
    return parser.parse_integer(allow_boolean=False)


def parse_vector_width(parser: Parser, default: int = 1) -> int:
    """Optional `v2` / `v4` (any `vN` is accepted here; verifiers check N)."""
    start = parser.pos
    word = parser.parse_optional_identifier()
    if word is None:
        return default
    if len(word) < 2 or word[0] != "v" or not word[1:].isdigit():
        parser.raise_error(f"expected a vector width (v1, v2, v4) or an operand, got '{word}'", start, parser.pos)
    return int(word[1:])


def parse_optional_offset(parser: Parser) -> int:
    """Optional `+ N` or `- N`: a constant byte offset added to an address."""
    if parser.parse_optional_punctuation("+") is not None:
        return parser.parse_integer(allow_negative=False, allow_boolean=False)
    if parser.parse_optional_punctuation("-") is not None:
        return -parser.parse_integer(allow_negative=False, allow_boolean=False)
    return 0


def print_offset(printer: Printer, offset: int) -> None:
    if offset > 0:
        printer.print_string(f" + {offset}")
    elif offset < 0:
        printer.print_string(f" - {-offset}")


def parse_address(parser: Parser) -> tuple[UnresolvedOperand, int]:
    """`%addr [+ N | - N]`: an address operand and a constant byte offset."""
    return parser.parse_unresolved_operand(), parse_optional_offset(parser)


def print_address(printer: Printer, addr: SSAValue, offset: int) -> None:
    """` %addr [+ N | - N]`."""
    printer.print_string(" ")
    printer.print_operand(addr)
    print_offset(printer, offset)


def parse_typed_tail(
    parser: Parser, kind: type | tuple[type, ...] | None = None, what: str = ""
) -> tuple[dict[str, Attribute], Attribute]:
    """`[{attrs}] : T`, the end of most ops' syntax: the extra attributes and the type (which must
    be a `kind`, described as `what`, when `kind` is given)."""
    extra = parse_extra_attrs(parser)
    parser.parse_punctuation(":")
    return extra, parser.parse_type() if kind is None else parse_type_of(parser, kind, what)


def parse_types(parser: Parser, n: int) -> list[Attribute]:
    """`T1, ..., Tn`: exactly `n` types."""
    types = [parser.parse_type()]
    for _ in range(n - 1):
        parser.parse_punctuation(",")
        types.append(parser.parse_type())
    return types


def parse_signature(
    parser: Parser, n_in: int, n_out: int
) -> tuple[dict[str, Attribute], list[Attribute], list[Attribute]]:
    """`[{attrs}] : A1, ..., An -> R1, ..., Rm` with exactly `n_in` and `n_out` types."""
    extra = parse_extra_attrs(parser)
    parser.parse_punctuation(":")
    ins = parse_types(parser, n_in)
    parser.parse_punctuation("->")
    return extra, ins, parse_types(parser, n_out)


def print_signature(printer: Printer, op: Operation, ins: Sequence[Attribute], outs: Sequence[Attribute] = ()) -> None:
    """`[{attrs}] : A1, ..., An [-> R1, ..., Rm]`, the end of most ops' syntax."""
    print_extra_attrs(printer, op)
    text = ", ".join(str(t) for t in ins)
    if outs:
        text += " -> " + ", ".join(str(t) for t in outs)
    printer.print_string(f" : {text}")


def print_operands(printer: Printer, values: Sequence[SSAValue]) -> None:
    """` %a, %b, ...`."""
    printer.print_string(" ")
    printer.print_list(values, printer.print_operand)


def parse_operand_and_int(parser: Parser) -> tuple[UnresolvedOperand, int]:
    """`%v, N`: an operand and an immediate."""
    v = parser.parse_unresolved_operand()
    parser.parse_punctuation(",")
    return v, parser.parse_integer(allow_boolean=False)


def with_attributes(op: OpT, extra: dict[str, Attribute]) -> OpT:
    """`op` with the parsed extra attributes added (the last step of a custom parser)."""
    op.attributes |= extra
    return op


def enclosing(op: Operation, kind: type[Operation]) -> Operation | None:
    """The nearest ancestor of `op` that is a `kind`."""
    p = op.parent_op()
    while p is not None and not isinstance(p, kind):
        p = p.parent_op()
    return p


def check_one_of(op: Operation, value: str, choices: Sequence[str], what: str) -> None:
    if value not in choices:
        raise op_error(op, f"unknown {what} '{value}' (expected one of {', '.join(choices)})")


def check_result_type(op: Operation, result_type: Attribute, t: Attribute, what: str = "value") -> None:
    """The result has the type of the `what` operand."""
    if result_type != t:
        raise op_error(op, f"result type {result_type} must equal the {what} type {t}")


def check_address(op: Operation, what: str, got: Attribute, allowed: Sequence[Attribute]) -> None:
    """`what` ("a global", "an LDS") address has one of the `allowed` integer types."""
    if got not in allowed:
        raise op_error(op, f"{what} address is {' or '.join(str(w) for w in allowed)}, got {got}")


def check_offset32(op: Operation, offset: int) -> None:
    """A constant byte offset fits the signed 32-bit immediate of a GPU load or store."""
    if not -(2**31) <= offset < 2**31:
        raise op_error(op, f"offset {offset} does not fit in 32 bits")


# --- kernels and functions ----------------------------------------------------------------------


class HwFuncBase(IRDLOperation):
    """Base of `hw.nv.kernel`, `hw.amd.kernel` and `hw.cpu.func`:

        <name> @sym(%a: T, ...) <clauses> [attributes {...}] { ... <return> }

    Subclasses set `RETURN_NAME`, implement `_parse_clauses` / `_print_clauses`, `_check_param`
    and `_verify_clauses`. Properties named in `CLAUSE_PROPS` are written by the clauses.
    """

    sym_name = prop_def(StringAttr)
    function_type = prop_def(FunctionType)
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    RETURN_NAME: ClassVar[str] = ""
    PARAM_KINDS: ClassVar[str] = ""

    def _init(self, name: str, param_types: Sequence[Attribute], properties: dict[str, Attribute], body: Region | None):
        if body is None:
            body = Region(Block(arg_types=list(param_types)))
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "function_type": FunctionType.from_lists(list(param_types), []),
        }
        props.update(properties)
        IRDLOperation.__init__(self, properties=props, regions=[body])

    @property
    def params(self):
        return self.body.block.args

    @property
    def param_types(self) -> tuple[Attribute, ...]:
        return tuple(self.function_type.inputs.data)

    def error(self, message: str):
        return op_error(self, message)

    def _check_param(self, t: Attribute) -> bool:
        raise NotImplementedError

    def _verify_clauses(self) -> None:
        pass

    def verify_(self) -> None:
        block = self.body.block
        if tuple(block.arg_types) != self.param_types:
            raise op_error(self, "entry block arguments must match the parameter types")
        if self.function_type.outputs.data:
            raise op_error(self, "returns nothing: results leave through pointers")
        for i, t in enumerate(self.param_types):
            if not self._check_param(t):
                arg = block.args[i]
                name = f"%{arg.name_hint}" if arg.name_hint else f"#{i}"
                raise op_error(self, f"parameter {name} has type {t}; parameters must be {self.PARAM_KINDS}")
        last = block.last_op
        if last is None or last.name != self.RETURN_NAME:
            raise op_error(self, f"body must end with {self.RETURN_NAME}")
        self._verify_clauses()

    @classmethod
    def _parse_clauses(cls, parser: Parser) -> dict[str, Attribute]:
        return {}

    def _print_clauses(self, printer: Printer) -> None:
        pass

    @classmethod
    def _make(cls, name: str, params: Sequence[Attribute], props: dict[str, Attribute], region: Region):
        op = cls.__new__(cls)
        HwFuncBase._init(op, name, params, props, region)
        return op

    @classmethod
    def parse(cls, parser: Parser):
        sym = parser.parse_symbol_name().data
        args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_argument)
        props = cls._parse_clauses(parser)
        extra = parser.parse_optional_attr_dict_with_keyword(("sym_name", "function_type", *props))
        region = parser.parse_region(args)
        op = cls._make(sym, [a.type for a in args], props, region)
        if extra is not None:
            op.attributes |= extra.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")
        printer.print_list(self.body.block.args, printer.print_block_argument)
        printer.print_string(")")
        self._print_clauses(printer)
        if self.attributes:
            printer.print_string(" attributes ")
            printer.print_attr_dict(self.attributes)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)


class HwOp(IRDLOperation):
    """Base of hw ops: the short-name error helper."""

    def error(self, message: str):
        return op_error(self, message)


class NoOperandOp(HwOp):
    """Shared syntax for ops with no operands, no results and no clauses: `hw.nv.cp_async_commit`."""

    def __init__(self):
        super().__init__()

    @classmethod
    def parse(cls, parser: Parser):
        return with_attributes(cls(), parse_extra_attrs(parser))

    def print(self, printer: Printer) -> None:
        print_extra_attrs(printer, self)


def parse_choice(parser: Parser, choices: Sequence[str], what: str) -> str:
    return parse_keyword_choice(parser, choices, what)


# --- GPU kernels and their shared memory (hw.nv and hw.amd) --------------------------------------


@dataclass(frozen=True)
class SharedMemoryWords:
    """How a GPU family names its shared memory, in a kernel clause and in verifier messages."""

    clause: str
    """The kernel clause (and property) giving the dynamic bytes: `smem`, `lds`."""
    array: str
    """A static array: "shared array", "LDS array"."""
    memory: str
    """The memory: "shared memory", "LDS"."""
    address: str
    """An address into it: "a shared address", "an LDS address"."""
    group: str
    """The threads that share it: "block", "workgroup"."""


def clause_props(**values: str | int | Sequence[int] | None) -> dict[str, Attribute]:
    """The properties written by a kernel's clauses, in order, leaving out absent (None) values:
    a str becomes a StringAttr, an int an IntAttr, a sequence of ints a dense i64 array."""
    props: dict[str, Attribute] = {}
    for name, v in values.items():
        if isinstance(v, str):
            props[name] = StringAttr(v)
        elif isinstance(v, int):
            props[name] = IntAttr(v)
        elif v is not None:
            props[name] = int_array(v)
    return props


class GpuKernelBase(HwFuncBase):
    """Base of `hw.nv.kernel` and `hw.amd.kernel`: global pointer and scalar parameters, static
    shared-memory (LDS) arrays declared at the top of the body (`ARRAY_OP`), and a dynamic
    amount given by a clause (`SHARED.clause`: `smem N`, `lds N`).
    """

    POINTER_SPACES: ClassVar[tuple[str, ...]] = ("global",)
    OPAQUE_PARAMS: ClassVar[tuple[type[Attribute], ...]] = ()
    ARRAY_OP: ClassVar[type[StaticArrayBase]]
    SHARED: ClassVar[SharedMemoryWords]

    def _check_param(self, t: Attribute) -> bool:
        if isinstance(t, PtrType):
            return t.space_name in self.POINTER_SPACES
        return isinstance(t, self.OPAQUE_PARAMS) or is_scalar_param(t)

    @property
    def dynamic_bytes(self) -> int:
        """Bytes of dynamic shared memory the launch provides (0 without the clause)."""
        size = getattr(self, self.SHARED.clause)
        return size.data if size is not None else 0

    def static_arrays(self) -> list[StaticArrayBase]:
        return [op for op in self.body.block.ops if isinstance(op, self.ARRAY_OP)]

    def lookup_array(self, name: str) -> StaticArrayBase | None:
        for op in self.static_arrays():
            if op.sym_name.data == name:
                return op
        return None

    def static_bytes(self) -> int:
        """Bytes of static shared memory, laid out in order with each array's alignment."""
        off = 0
        for s in self.static_arrays():
            a = s.alignment.data
            off = (off + a - 1) // a * a + s.size.data
        return off

    def verify_dynamic_size(self) -> None:
        size = getattr(self, self.SHARED.clause)
        if size is not None and size.data < 0:
            raise self.error(f"{self.SHARED.clause} must be >= 0 bytes, got {size.data}")

    def _verify_static_bytes(self, static: int) -> None:
        """A target's own bound on the static part (none by default)."""

    def verify_arrays(self, limit: int, target: str) -> None:
        """Array names are unique, and static + dynamic bytes are at most `limit` on `target`."""
        seen: set[str] = set()
        for s in self.static_arrays():
            if s.sym_name.data in seen:
                raise self.error(f"{self.SHARED.array} @{s.sym_name.data} is declared twice")
            seen.add(s.sym_name.data)
        static = self.static_bytes()
        self._verify_static_bytes(static)
        total = static + self.dynamic_bytes
        if total > limit:
            raise self.error(
                f"{total} bytes of {self.SHARED.memory} ({static} static + {self.dynamic_bytes} dynamic) exceed "
                f"the {limit} bytes a {self.SHARED.group} may use on {target}"
            )


class StaticArrayBase(HwOp):
    """Base of `hw.nv.shared` and `hw.amd.lds`: `<name> @sym SIZE align A`, a static array of the
    enclosing kernel (the subclass's traits name the kernel)."""

    sym_name = prop_def(StringAttr)
    size = prop_def(IntAttr)
    alignment = prop_def(IntAttr)

    def __init__(self, name: str, size: int, alignment: int = 16):
        super().__init__(
            properties={"sym_name": StringAttr(name), "size": IntAttr(size), "alignment": IntAttr(alignment)}
        )

    def verify_(self) -> None:
        if self.size.data <= 0:
            raise self.error(f"size must be a positive number of bytes, got {self.size.data}")
        if not is_power_of_two(self.alignment.data):
            raise self.error(f"alignment must be a power of two, got {self.alignment.data}")

    @classmethod
    def parse(cls, parser: Parser):
        sym = parser.parse_symbol_name().data
        size = parser.parse_integer(allow_boolean=False)
        align = parse_int_keyword(parser, "align", 16)
        return with_attributes(cls(sym, size, align), parse_extra_attrs(parser))

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(f" {self.size.data} align {self.alignment.data}")
        print_extra_attrs(printer, self)


def static_array_traits(kernel: Callable[[], type[Operation]]) -> OpTraits:
    """The traits of a static array op: a symbol in the body of `kernel()` (looked up late, since
    the kernel class, which names its array op, is defined after it)."""
    return lazy_traits_def(lambda: (HasParent(kernel()), SymbolOpInterface()))


class TypedResultOp(HwOp):
    """Shared syntax `%r = <name> : T` for ops with no operands and one result (i32 by default)."""

    result = result_def()
    traits = traits_def(Pure())

    def __init__(self, result_type: Attribute = i32):
        super().__init__(result_types=[result_type])

    def check_i32(self, what: str) -> None:
        if self.result.type != i32:
            raise self.error(f"{what} is i32, got {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser):
        extra, t = parse_typed_tail(parser)
        return with_attributes(cls(t), extra)

    def print(self, printer: Printer) -> None:
        print_signature(printer, self, [self.result.type])


class KernelAddrBase(HwOp):
    """Base of the ops that give a shared-memory (LDS) address of the enclosing `KERNEL`."""

    KERNEL: ClassVar[type[GpuKernelBase]] = GpuKernelBase

    def enclosing_kernel(self) -> GpuKernelBase:
        """The enclosing kernel, after checking that the address is i32."""
        kind = self.KERNEL
        if self.results[0].type != i32:
            raise self.error(f"{kind.SHARED.address} is i32, got {self.results[0].type}")
        k = enclosing(self, kind)
        if not isinstance(k, kind):
            raise self.error(f"must be inside a {kind.name}")
        return k


class ArrayAddrBase(KernelAddrBase):
    """Base of `hw.nv.shared_addr` and `hw.amd.lds_addr`: `%a = <name> @array : i32`."""

    symbol = prop_def(FlatSymbolRefAttrConstr)
    result = result_def()
    traits = traits_def(Pure())

    def __init__(self, symbol: str, result_type: Attribute = i32):
        super().__init__(properties={"symbol": SymbolRefAttr(symbol)}, result_types=[result_type])

    def verify_(self) -> None:
        k = self.enclosing_kernel()
        name = self.symbol.root_reference.data
        if k.lookup_array(name) is None:
            raise self.error(f"no {self.KERNEL.ARRAY_OP.name} @{name} in the enclosing kernel")

    @classmethod
    def parse(cls, parser: Parser):
        sym = parser.parse_symbol_name().data
        extra, t = parse_typed_tail(parser)
        return with_attributes(cls(sym, t), extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.symbol.root_reference.data)
        print_signature(printer, self, [self.result.type])


class DynamicAddrBase(KernelAddrBase, TypedResultOp):
    """Base of `hw.nv.dynamic_shared_addr` and `hw.amd.dynamic_lds_addr`: `%a = <name> : i32`."""

    def verify_(self) -> None:
        words = self.KERNEL.SHARED
        if self.enclosing_kernel().dynamic_bytes <= 0:
            raise self.error(
                f"the kernel declares no dynamic {words.memory} (add `{words.clause} N` to {self.KERNEL.name})"
            )


# --- shuffles (hw.nv and hw.amd) -----------------------------------------------------------------


class ShuffleBase(HwOp):
    """Base of `hw.nv.shfl` and `hw.amd.shfl_xor`: `%r = <name> ... %value, <lane> ...`, the value
    of another lane, chosen by an operand that is an immediate (the property named `LANE`) or an
    i32 register (the optional operand named `LANE_REG`). Subclasses declare the fields."""

    LANE: ClassVar[str] = "lane"
    LANE_REG: ClassVar[str] = "lane_reg"
    LANE_WORD: ClassVar[str] = "lane operand"

    @classmethod
    def shuffle_operands(
        cls, value: SSAValue, lane: int | SSAValue, props: dict[str, Attribute]
    ) -> list[SSAValue | list[SSAValue]]:
        """The operand groups `[value, [register]]`; an immediate lane goes into `props`."""
        if isinstance(lane, int):
            props[cls.LANE] = IntAttr(lane)
            return [value, []]
        return [value, [lane]]

    def verify_shuffle(self, value_ok: bool, values: str, top: int) -> None:
        """The value (first operand) is one of `values` (`value_ok`), the result has its type, and
        the lane operand is exactly one of an immediate from 0 to `top` and an i32 register."""
        t = self.operands[0].type
        if not value_ok:
            raise self.error(f"shuffles {values}, got {t}")
        check_result_type(self, self.results[0].type, t)
        imm: IntAttr | None = getattr(self, self.LANE)
        reg: SSAValue | None = getattr(self, self.LANE_REG)
        what = self.LANE_WORD
        if (imm is None) == (reg is None):
            raise self.error(f"needs exactly one {what}: an immediate or an i32 register")
        if imm is not None and not 0 <= imm.data <= top:
            raise self.error(f"{what} must be from 0 to {top}, got {imm.data}")
        if reg is not None and reg.type != i32:
            raise self.error(f"{what} is i32, got {reg.type}")

    @staticmethod
    def parse_value_and_lane(parser: Parser) -> tuple[UnresolvedOperand, int | UnresolvedOperand]:
        """`%value, <lane>`; resolve the lane with `resolve_lane` once the types are parsed."""
        v = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        return v, parse_imm_or_operand(parser)

    @staticmethod
    def resolve_lane(parser: Parser, lane: int | UnresolvedOperand) -> int | SSAValue:
        return lane if isinstance(lane, int) else parser.resolve_operand(lane, i32)

    def print_value_and_lane(self, printer: Printer) -> None:
        """` %value, <lane>`."""
        print_operands(printer, [self.operands[0]])
        printer.print_string(", ")
        reg: SSAValue | None = getattr(self, self.LANE_REG)
        imm: IntAttr | None = getattr(self, self.LANE)
        if reg is not None:
            printer.print_operand(reg)
        elif imm is not None:
            printer.print_string(str(imm.data))
