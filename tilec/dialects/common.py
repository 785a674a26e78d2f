"""Pieces shared by the tilec dialects: shaped types, element types, int-list properties, and the
small parse/print helpers that keep every op's custom syntax uniform.

Conventions every tilec op follows:
- custom syntax `%r = dialect.op operands [keywords/lists] attr-dict : types`;
- verifier messages start with the op's short name ("contract: lhs axis 1 has size 64 ...") and are
  raised with `op_error`, so the CLI can print them at the op's file:line:col.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    BFloat16Type,
    DenseArrayBase,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntAttr,
    IntegerType,
    Signedness,
    i64,
)
from xdsl.ir import Attribute, Operation
from xdsl.irdl import ParametrizedAttribute
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

DYNAMIC = -1
MAX_BYTES = 2**62
"""The largest tile or array tilec compiles (64-bit offsets with room for byte scaling)."""
"""A dimension whose size is only known at run time (printed `?`)."""

FLOAT_TYPES = (Float16Type, BFloat16Type, Float32Type, Float64Type, Float8E4M3FNType, Float8E5M2Type)
FP8_TYPES = (Float8E4M3FNType, Float8E5M2Type)


def is_float(t: Attribute) -> bool:
    return isinstance(t, FLOAT_TYPES)


def is_fp8(t: Attribute) -> bool:
    """An 8-bit float (f8E4M3FN, f8E5M2): computed in f32, stored as bytes below the tile level."""
    return isinstance(t, FP8_TYPES)


def is_int(t: Attribute) -> bool:
    return isinstance(t, IntegerType)


def is_unsigned(t: Attribute) -> bool:
    """An unsigned integer type (`ui8` .. `ui64`): the tile dialect's uint element types."""
    return isinstance(t, IntegerType) and t.signedness.data == Signedness.UNSIGNED


def signless(t: Attribute) -> Attribute:
    """`t` with its signedness dropped (`ui8` -> `i8`): what arith computes and buffers store."""
    return IntegerType(t.width.data) if is_unsigned(t) else t


def is_element_type(t: Attribute) -> bool:
    """The element types a tile or buffer may hold: f8E4M3FN, f8E5M2, f16, bf16, f32, f64, i1/i8/i16/i32/i64 and
    ui8/ui16/ui32/ui64 (signless integers are signed; `si8` and `ui1` are not element types)."""
    if is_float(t):
        return True
    if not isinstance(t, IntegerType) or t.width.data not in (1, 8, 16, 32, 64):
        return False
    if t.signedness.data == Signedness.SIGNLESS:
        return True
    return t.signedness.data == Signedness.UNSIGNED and t.width.data != 1


def element_type_name(t: Attribute) -> str:
    return str(t)


def bitwidth(t: Attribute) -> int:
    if isinstance(t, Float16Type | BFloat16Type):
        return 16
    if isinstance(t, FP8_TYPES):
        return 8
    if isinstance(t, Float32Type):
        return 32
    if isinstance(t, Float64Type):
        return 64
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, IndexType):
        return 64
    raise ValueError(f"no bit width for {t}")


class OpVerifyError(VerifyException):
    """A verifier failure written by a tilec op: its text already names the op."""


def op_error(op: Operation | str, message: str) -> OpVerifyError:
    """A verifier error whose text starts with the op's short name (`tile.contract` -> `contract`)."""
    name = op if isinstance(op, str) else op.name
    return OpVerifyError(f"{name.split('.', 1)[-1]}: {message}")


def dim_str(d: int) -> str:
    return "?" if d == DYNAMIC else str(d)


def shape_str(shape: Sequence[int]) -> str:
    return "x".join(dim_str(d) for d in shape)


def dims_compatible(a: int, b: int) -> bool:
    """Two sizes can describe the same axis: equal, or either is dynamic."""
    return a == b or a == DYNAMIC or b == DYNAMIC


def shapes_compatible(a: Sequence[int], b: Sequence[int]) -> bool:
    return len(a) == len(b) and all(dims_compatible(x, y) for x, y in zip(a, b))


# --- shaped types -------------------------------------------------------------------------------


class ShapedTypeBase(ParametrizedAttribute):
    """Base for `!dialect.name<64x?xf32>`-style types: a shape (DYNAMIC = `?`) and an element type.

    Subclasses declare `shape: ArrayAttr[IntAttr]` and `element_type: Attribute` and may add
    trailing parameters by overriding `_parse_extra` / `_print_extra`.
    """

    shape: ArrayAttr[IntAttr]
    element_type: Attribute

    def get_shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)

    @property
    def rank(self) -> int:
        return len(self.shape.data)

    def is_static(self) -> bool:
        return all(d.data != DYNAMIC for d in self.shape.data)

    def num_elements(self) -> int | None:
        n = 1
        for d in self.get_shape():
            if d == DYNAMIC:
                return None
            n *= d
        return n

    @classmethod
    def _parse_shape_and_element(cls, parser: AttrParser) -> tuple[list[int], Attribute]:

        def reject_negative() -> None:
            # `-4x...`: xDSL's dimension list would only say "type expected".
            minus = parser.pos
            if parser.parse_optional_punctuation("-") is not None:
                d = parser.parse_optional_integer(allow_boolean=False, allow_negative=False)
                if d is not None:
                    parser.raise_error(f"{cls.name}: negative dimension -{d}", minus, parser.pos)
                parser.raise_error(f"{cls.name}: expected a dimension or an element type", minus, parser.pos)

        reject_negative()
        # xDSL's parser reads `?` as its DYNAMIC_INDEX (-2**63); tilec's dynamic size is DYNAMIC.
        dims = [DYNAMIC if d == DYNAMIC_INDEX else d for d in parser.parse_dimension_list()]
        if dims:
            parser.parse_shape_delimiter()
            reject_negative()
        type_start = parser.pos
        found = parser._current_token.text
        elt = parser.parse_optional_type()
        if elt is None or not is_element_type(elt):
            got = elt if elt is not None else f"'{found}'"
            parser.raise_error(
                f"{cls.name}: element type must be f8E4M3FN, f8E5M2, f16, bf16, f32, f64, an integer of width "
                f"1, 8, 16, 32 or 64 or an unsigned integer ui8, ui16, ui32 or ui64, got {got}",
                type_start,
                consumed_end(parser, type_start) if elt is not None else type_start + max(len(found), 1),
            )
        return dims, elt

    @staticmethod
    def _print_shape_and_element(printer: Printer, shape: Sequence[int], elt: Attribute) -> None:
        for d in shape:
            printer.print_string(dim_str(d) + "x")
        printer.print_attribute(elt)

    def verify(self) -> None:
        if not is_element_type(self.element_type):
            raise VerifyException(f"{self.name}: unsupported element type {self.element_type}")
        for d in self.shape.data:
            if d.data < DYNAMIC:
                raise VerifyException(f"{self.name}: negative dimension {d.data}")
        n = self.num_elements()
        if n is not None and n * max(1, bitwidth(self.element_type) // 8) > MAX_BYTES:
            raise VerifyException(
                f"{self.name}: {'x'.join(map(str, self.get_shape()))} elements of {self.element_type} are more than "
                f"tilec addresses (2^62 bytes)"
            )


def shape_attr(shape: Iterable[int]) -> ArrayAttr[IntAttr]:
    return ArrayAttr([IntAttr(int(d)) for d in shape])


# --- int-list properties ------------------------------------------------------------------------


def int_array(values: Iterable[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


def int_list(attr: DenseArrayBase | None) -> tuple[int, ...]:
    if attr is None:
        return ()
    return tuple(int(v) for v in attr.iter_values())


def parse_int_list(parser: Parser) -> list[int]:
    """`[1, 2, 3]` or `[]`."""
    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)


def print_int_list(printer: Printer, values: Iterable[int]) -> None:
    printer.print_string("[" + ", ".join(str(v) for v in values) + "]")


def consumed_end(parser: AttrParser, start: int) -> int:
    """End offset of what was parsed since `start`, without the blanks and comments skipped after it
    (so an error's caret underlines the text, not the space that follows)."""
    text = parser._current_token.span.input.content[start : parser.pos]
    return start + max(len(text.split("//")[0].rstrip()), 1)


def parse_pair_list(parser: Parser) -> list[tuple[int, int]]:
    """`[[1, 0], [2, 1]]`: a list of axis pairs."""

    def pair() -> tuple[int, int]:
        start = parser.pos
        items = parse_int_list(parser)
        if len(items) != 2:
            parser.raise_error("expected an axis pair [lhs_axis, rhs_axis]", start, consumed_end(parser, start))
        return items[0], items[1]

    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, pair)


def print_pair_list(printer: Printer, pairs: Iterable[tuple[int, int]]) -> None:
    printer.print_string("[" + ", ".join(f"[{a}, {b}]" for a, b in pairs) + "]")


def parse_keyword_choice(parser: Parser, choices: Sequence[str], what: str) -> str:
    """One of `choices` as a bare word, with a message that lists them when it is something else."""
    start = parser.pos
    word = parser.parse_optional_identifier()
    if word is None or word not in choices:
        parser.raise_error(f"expected {what} ({', '.join(choices)})", start, consumed_end(parser, start))
    return word


def print_extra_attrs(printer: Printer, op: Operation) -> None:
    """Discardable attributes not covered by the custom syntax, as `{...}`."""
    if op.attributes:
        printer.print_string(" ")
        printer.print_attr_dict(op.attributes)


def parse_extra_attrs(parser: Parser) -> dict[str, Attribute]:
    return parser.parse_optional_attr_dict()
