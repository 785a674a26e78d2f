"""The `tile` dialect: what the user means, with nothing about hardware.

Values are whole tiles (`!tile.tile<64x?xf32>`) with value semantics; function arguments are global
arrays (`!tile.array<...>`) that are read with `tile.load` and written with `tile.store`. A `?`
dimension is dynamic: its size is known at run time (`tile.dim`), and ops that create a tile with
dynamic dimensions take those sizes as `sizes(%n, ...)` operands.

Example::

    tile.func @matmul(%A: !tile.array<256x128xf32>, %B: !tile.array<128x192xf32>)
        outs(%C: !tile.array<256x192xf32>) {
      %a = tile.load %A : !tile.array<256x128xf32> -> !tile.tile<256x128xf32>
      %b = tile.load %B : !tile.array<128x192xf32> -> !tile.tile<128x192xf32>
      %c = tile.contract %a, %b axes [[1, 0]] acc f32
             : !tile.tile<256x128xf32>, !tile.tile<128x192xf32> -> !tile.tile<256x192xf32>
      tile.store %c, %C : !tile.tile<256x192xf32>, !tile.array<256x192xf32>
      tile.return
    }
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    FunctionType,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    TensorType,
    UnitAttr,
    f32,
    f64,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Dialect, Operation, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    opt_result_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsolatedFromAbove, IsTerminator, Pure, SymbolOpInterface

from tilec.dialects.common import (
    DYNAMIC,
    ShapedTypeBase,
    bitwidth,
    consumed_end,
    dim_str,
    dims_compatible,
    int_array,
    int_list,
    is_float,
    is_fp8,
    is_int,
    op_error,
    parse_extra_attrs,
    parse_int_list,
    parse_keyword_choice,
    parse_pair_list,
    print_extra_attrs,
    print_int_list,
    print_pair_list,
    shape_attr,
    shape_str,
    shapes_compatible,
)
from tilec.fp8 import fp8_format, from_fp8_bits, to_fp8_bits

# --- types --------------------------------------------------------------------------------------


@irdl_attr_definition
class TileType(ShapedTypeBase, TypeAttribute):
    """A whole tile value: `!tile.tile<64x?xf32>`; `!tile.tile<f32>` is a rank-0 (scalar) tile."""

    name = "tile.tile"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute

    def __init__(self, shape: Sequence[int], element_type: Attribute):
        super().__init__(shape_attr(shape), element_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            dims, elt = cls._parse_shape_and_element(parser)
        return (shape_attr(dims), elt)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            self._print_shape_and_element(printer, self.get_shape(), self.element_type)

    def with_shape(self, shape: Sequence[int]) -> TileType:
        return TileType(shape, self.element_type)

    def with_element(self, element_type: Attribute) -> TileType:
        return TileType(self.get_shape(), element_type)


@irdl_attr_definition
class ArrayType(ShapedTypeBase, TypeAttribute):
    """A global array passed to or from a `tile.func`: `!tile.array<?x128xf16>` (row-major)."""

    name = "tile.array"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute

    def __init__(self, shape: Sequence[int], element_type: Attribute):
        super().__init__(shape_attr(shape), element_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            dims, elt = cls._parse_shape_and_element(parser)
        return (shape_attr(dims), elt)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            self._print_shape_and_element(printer, self.get_shape(), self.element_type)


SCALAR_ARG_TYPES = "index, f16, bf16, f32, f64 or an integer"


def _is_scalar_arg(t: Attribute) -> bool:
    return isinstance(t, IndexType) or (is_float(t) and not is_fp8(t)) or isinstance(t, IntegerType)


def float_attr(value: float | int, elt: Attribute) -> FloatAttr:
    """`FloatAttr(value, elt)`; for fp8, `value` rounded first as tile.cast rounds it (via f32,
    e4m3fn saturating: tilec/fp8.py), not as xDSL would (ml_dtypes: NaN beyond 448)."""
    fmt = fp8_format(elt)
    if fmt is not None:
        value = float(from_fp8_bits(to_fp8_bits(np.float32(value), fmt), fmt))
    return FloatAttr(float(value), elt)


# --- helpers for ops ----------------------------------------------------------------------------


def _tile(op: Operation, value: SSAValue, what: str) -> TileType:
    if not isinstance(value.type, TileType):
        raise op_error(op, f"{what} must be a !tile.tile, got {value.type}")
    return value.type


def _count_dynamic(t: ShapedTypeBase) -> int:
    return sum(1 for d in t.get_shape() if d == DYNAMIC)


def _check_dynamic_sizes(op: Operation, result_type: TileType, sizes: Sequence[SSAValue]) -> None:
    need = _count_dynamic(result_type)
    if len(sizes) != need:
        raise op_error(
            op,
            f"result type {result_type} has {need} dynamic dimension(s) but {len(sizes)} size operand(s) were given",
        )
    for s in sizes:
        if not isinstance(s.type, IndexType):
            raise op_error(op, f"size operands must be index, got {s.type}")


def _parse_sizes(parser: Parser) -> list:
    """Optional `sizes(%a, %b)`: the run-time sizes of a result's `?` dimensions."""
    if parser.parse_optional_keyword("sizes") is None:
        return []
    return parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)


def _print_sizes(printer: Printer, sizes: Sequence[SSAValue]) -> None:
    if sizes:
        printer.print_string(" sizes(")
        printer.print_list(sizes, printer.print_operand)
        printer.print_string(")")


def _parse_tile_type(parser: Parser) -> TileType:
    start = parser.pos
    t = parser.parse_type()
    if not isinstance(t, TileType):
        parser.raise_error(f"expected a !tile.tile type, got {t}", start, consumed_end(parser, start))
    return t


class TileOp(IRDLOperation):
    """Base of tile ops: custom syntax helpers and the short-name error helper."""

    def error(self, message: str):
        return op_error(self, message)


# --- function structure -------------------------------------------------------------------------


@irdl_op_definition
class FuncOp(TileOp):
    """A tile program: inputs (global arrays or scalars) and outputs (global arrays it stores).

    Block arguments are the inputs followed by the outputs. Every output is stored exactly once.
    An input array may be stored at most once: an *in-place update*. Every `tile.load` reads the
    value an array has when the function starts, and the stores take effect after every read
    (the compiler orders kernels, or goes through a temporary, to keep that true).

        tile.func @scale(%x: !tile.array<?xf32>, %s: f32) outs(%y: !tile.array<?xf32>) { ... }
        tile.func @sgd(%p: !tile.array<?xf32>, %g: !tile.array<?xf32>, %lr: f32) { ... tile.store %q, %p ... }

    The attribute `tilec.foreach` marks a program over lists of arrays (the DSL's `tilec.List`):
    it is run once per position of the lists, its array arguments being the lists' arrays at that
    position, and a target may run all positions in one call (the CPU does).
    """

    name = "tile.func"

    body = region_def("single_block")
    sym_name = prop_def(StringAttr, prop_name="sym_name")
    function_type = prop_def(FunctionType)

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(
        self, name: str, inputs: Sequence[Attribute], outputs: Sequence[Attribute], body: Region | None = None
    ):
        if body is None:
            body = Region(Block(arg_types=[*inputs, *outputs]))
        super().__init__(
            properties={"sym_name": StringAttr(name), "function_type": FunctionType.from_lists(inputs, outputs)},
            regions=[body],
        )

    @property
    def num_inputs(self) -> int:
        return len(self.function_type.inputs.data)

    @property
    def num_outputs(self) -> int:
        return len(self.function_type.outputs.data)

    @property
    def input_args(self):
        return self.body.block.args[: self.num_inputs]

    @property
    def output_args(self):
        return self.body.block.args[self.num_inputs :]

    def updated_inputs(self) -> list[int]:
        """The indices of the input arrays this function stores into (updates in place)."""
        return [
            i
            for i, arg in enumerate(self.input_args)
            if any(isinstance(u.operation, StoreOp) and u.index == 1 for u in arg.uses)
        ]

    def verify_(self) -> None:
        ins, outs = self.function_type.inputs.data, self.function_type.outputs.data
        block = self.body.block
        if tuple(block.arg_types) != (*ins, *outs):
            raise self.error("entry block arguments must be the inputs followed by the outputs")
        for t in ins:
            if not isinstance(t, ArrayType) and not _is_scalar_arg(t):
                raise self.error(f"an input must be a !tile.array or a scalar ({SCALAR_ARG_TYPES}), got {t}")
        for t in outs:
            if not isinstance(t, ArrayType):
                raise self.error(f"an output must be a !tile.array, got {t}")
        if not isinstance(block.last_op, ReturnOp):
            raise self.error("body must end with tile.return")
        stores: dict[SSAValue, int] = {}
        for op in block.ops:
            if isinstance(op, StoreOp):
                stores[op.dest] = stores.get(op.dest, 0) + 1
        for i, arg in enumerate(self.output_args):
            n = stores.get(arg, 0)
            name = f"%{arg.name_hint}" if arg.name_hint else f"#{i}"
            if n == 0:
                raise self.error(f"output {name} is never stored")
            if n > 1:
                raise self.error(f"output {name} is stored {n} times (exactly once is allowed)")
        for i, arg in enumerate(self.input_args):
            n = stores.get(arg, 0)
            if n > 1:
                name = f"%{arg.name_hint}" if arg.name_hint else f"#{i}"
                raise self.error(f"input {name} is stored {n} times (an input is updated in place at most once)")

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        sym = parser.parse_symbol_name().data

        def argument() -> Parser.Argument:
            arg = parser.parse_argument()
            parser.parse_optional_location()  # `--print-debuginfo` output gives one; block args keep none
            return arg

        def arg_list() -> list[Parser.Argument]:
            return parser.parse_comma_separated_list(parser.Delimiter.PAREN, argument)

        ins = arg_list()
        outs = arg_list() if parser.parse_optional_keyword("outs") is not None else []
        extra = parser.parse_optional_attr_dict_with_keyword(("sym_name", "function_type"))
        region = parser.parse_region([*ins, *outs])
        op = cls(sym, [a.type for a in ins], [a.type for a in outs], region)
        if extra is not None:
            op.attributes |= extra.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        args = self.body.block.args

        def arg_list(values) -> None:
            printer.print_string("(")
            printer.print_list(values, printer.print_block_argument)
            printer.print_string(")")

        arg_list(args[: self.num_inputs])
        if self.num_outputs:
            printer.print_string(" outs")
            arg_list(args[self.num_inputs :])
        if self.attributes:
            printer.print_string(" attributes ")
            printer.print_attr_dict(self.attributes)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)


FOREACH_ATTR = "tilec.foreach"
"""The attribute of a `tile.func` (and of the `mapped.host` and entry function made from it) that
runs once per position of lists of arrays (see `tile.func`)."""


@irdl_op_definition
class ReturnOp(TileOp):
    """Ends a `tile.func` body. Results leave through `tile.store` into the outputs.

    tile.return
    """

    name = "tile.return"
    traits = traits_def(IsTerminator(), HasParent(FuncOp))

    def __init__(self):
        super().__init__()

    @classmethod
    def parse(cls, parser: Parser) -> ReturnOp:
        op = cls()
        op.attributes |= parse_extra_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        print_extra_attrs(printer, self)


# --- memory boundary ----------------------------------------------------------------------------


@irdl_op_definition
class LoadOp(TileOp):
    """Reads a whole global array as a tile. The tile's shape must agree with the array's.

    %a = tile.load %A : !tile.array<?x64xf16> -> !tile.tile<?x64xf16>
    """

    name = "tile.load"
    source = operand_def(ArrayType)
    result = result_def(TileType)

    def __init__(self, source: SSAValue, result_type: TileType | None = None):
        if result_type is None:
            st = source.type
            assert isinstance(st, ArrayType)
            result_type = TileType(st.get_shape(), st.element_type)
        super().__init__(operands=[source], result_types=[result_type])

    def verify_(self) -> None:
        src, res = self.source.type, self.result.type
        assert isinstance(src, ArrayType) and isinstance(res, TileType)
        if src.element_type != res.element_type:
            raise self.error(f"array holds {src.element_type} but the tile holds {res.element_type}")
        if not shapes_compatible(src.get_shape(), res.get_shape()):
            raise self.error(
                f"array shape {shape_str(src.get_shape())} does not match tile shape {shape_str(res.get_shape())}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        src = parser.parse_unresolved_operand()
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        st = parser.parse_type()
        parser.parse_punctuation("->")
        rt = parser.parse_type()
        op = cls(parser.resolve_operand(src, st), rt)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.source.type} -> {self.result.type}")


@irdl_op_definition
class StoreOp(TileOp):
    """Writes a tile into an array argument of the enclosing function (the whole array): an
    output, or an input (an in-place update, seen by no `tile.load` of the function: see
    `tile.func`).

    tile.store %c, %C : !tile.tile<64x64xf32>, !tile.array<64x64xf32>
    """

    name = "tile.store"
    value = operand_def(TileType)
    dest = operand_def(ArrayType)

    def __init__(self, value: SSAValue, dest: SSAValue):
        super().__init__(operands=[value, dest])

    def verify_(self) -> None:
        vt, dt = self.value.type, self.dest.type
        assert isinstance(vt, TileType) and isinstance(dt, ArrayType)
        if vt.element_type != dt.element_type:
            raise self.error(f"tile holds {vt.element_type} but the array holds {dt.element_type}")
        if not shapes_compatible(vt.get_shape(), dt.get_shape()):
            raise self.error(
                f"tile shape {shape_str(vt.get_shape())} does not match array shape {shape_str(dt.get_shape())}"
            )
        func = self.parent_op()
        if isinstance(func, FuncOp):
            if not (isinstance(self.dest, BlockArgument) and self.dest.owner is func.body.block):
                raise self.error("destination must be an array argument of the enclosing tile.func")

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        v = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        d = parser.parse_unresolved_operand()
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        vt = parser.parse_type()
        parser.parse_punctuation(",")
        dt = parser.parse_type()
        op = cls(parser.resolve_operand(v, vt), parser.resolve_operand(d, dt))
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        printer.print_operand(self.dest)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.value.type}, {self.dest.type}")


@irdl_op_definition
class DimOp(TileOp):
    """The run-time size of one axis of an array or tile, as an `index`.

    %n = tile.dim %A 0 : !tile.array<?x64xf32>
    """

    name = "tile.dim"
    source = operand_def(ArrayType | TileType)
    axis = prop_def(IntAttr)
    result = result_def(IndexType)

    traits = traits_def(Pure())

    def __init__(self, source: SSAValue, axis: int):
        super().__init__(operands=[source], result_types=[IndexType()], properties={"axis": IntAttr(axis)})

    def verify_(self) -> None:
        t = self.source.type
        assert isinstance(t, ShapedTypeBase)
        if not 0 <= self.axis.data < t.rank:
            raise self.error(f"axis {self.axis.data} is out of range for rank {t.rank}")

    @classmethod
    def parse(cls, parser: Parser) -> DimOp:
        src = parser.parse_unresolved_operand()
        axis = parser.parse_integer(allow_negative=False)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        op = cls(parser.resolve_operand(src, t), axis)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(f" {self.axis.data}")
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.source.type}")


# --- creation -----------------------------------------------------------------------------------


MAX_DENSE_ELEMENTS = 2**20
"""The most elements a dense literal may list (larger data belongs in an input array)."""


def _dense_for_tile(parser: Parser, literal, rt: TileType, start: int, end: int) -> Attribute:
    """The value of a `dense<...>` literal filling a tile of type `rt`: the dense attribute, or for
    a splat (`dense<1.0>`) over more than MAX_DENSE_ELEMENTS elements the scalar itself (never
    materialized: 4e8 elements took 24 GB)."""
    elements, shape = literal
    if not shape and len(elements) == 1 and (not rt.is_static() or (rt.num_elements() or 0) > MAX_DENSE_ELEMENTS):
        v = elements[0].to_type(parser, rt.element_type)
        if isinstance(rt.element_type, IntegerType):
            return IntegerAttr(int(v), rt.element_type)
        return FloatAttr(float(v), rt.element_type)
    if not rt.is_static():
        parser.raise_error(f"a dense literal needs a static tile shape, got {shape_str(rt.get_shape())}", start, end)
    if shape and tuple(shape) != rt.get_shape():
        parser.raise_error(
            f"dense literal has shape {shape_str(shape)} but the tile is {shape_str(rt.get_shape())}", start, end
        )
    if (rt.num_elements() or 0) > MAX_DENSE_ELEMENTS:
        parser.raise_error(
            f"a dense literal of {rt.num_elements()} elements is larger than tilec takes ({MAX_DENSE_ELEMENTS}): "
            f"pass the data as an input array",
            start,
            end,
        )
    data = [e.to_type(parser, rt.element_type) for e in elements]
    return DenseIntOrFPElementsAttr.from_list(TensorType(rt.element_type, rt.get_shape()), data)


@irdl_op_definition
class ConstantOp(TileOp):
    """A tile filled with one scalar (`splat`), or a small dense literal.

    %z = tile.constant 0.0 : !tile.tile<64x64xf32>
    %h = tile.constant 1.5 sizes(%n) : !tile.tile<?x64xf16>
    %d = tile.constant dense<[1, 2, 3]> : !tile.tile<3xi32>
    """

    name = "tile.constant"
    value = prop_def(FloatAttr | IntegerAttr | DenseIntOrFPElementsAttr)
    sizes = var_operand_def(IndexType)
    result = result_def(TileType)

    traits = traits_def(Pure())

    def __init__(self, value: Attribute | float | int, result_type: TileType, sizes: Sequence[SSAValue] = ()):
        elt = result_type.element_type
        if isinstance(value, bool | int | float):
            value = float_attr(value, elt) if is_float(elt) else IntegerAttr(int(value), elt)
        super().__init__(operands=[list(sizes)], result_types=[result_type], properties={"value": value})

    def splat_value(self) -> float | int | None:
        v = self.value
        if isinstance(v, FloatAttr | IntegerAttr):
            return v.value.data
        return None

    def verify_(self) -> None:
        rt = self.result.type
        assert isinstance(rt, TileType)
        _check_dynamic_sizes(self, rt, self.sizes)
        v = self.value
        if isinstance(v, FloatAttr | IntegerAttr):
            if v.type != rt.element_type:
                raise self.error(f"value has type {v.type} but the tile holds {rt.element_type}")
        else:
            assert isinstance(v, DenseIntOrFPElementsAttr)
            if v.get_element_type() != rt.element_type:
                raise self.error(f"dense value holds {v.get_element_type()} but the tile holds {rt.element_type}")
            if tuple(v.get_shape()) != rt.get_shape() and len(v) != 1:
                raise self.error(
                    f"dense value has shape {shape_str(v.get_shape())} but the tile is {shape_str(rt.get_shape())}"
                )

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        start = parser.pos
        dense = None
        literal = None
        number = None
        hex_bits = False
        first_token = parser._current_token.text
        if parser.parse_optional_keyword("true") is not None:
            number = 1
        elif parser.parse_optional_keyword("false") is not None:
            number = 0
        elif (n := parser.parse_optional_number()) is not None:
            number = n
            hex_bits = first_token[:2] in ("0x", "0X")
        elif parser.parse_optional_keyword("dense") is not None:
            # `dense<[1, 2, 3]>` without a type of its own: the tile type after `:` gives it.
            parser.parse_punctuation("<", " in dense literal")
            literal = parser._parse_tensor_literal()
            parser.parse_punctuation(">", " in dense literal")
        else:
            dense = parser.parse_attribute()
        literal_end = consumed_end(parser, start)
        sizes = _parse_sizes(parser)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        rt = _parse_tile_type(parser)
        elt = rt.element_type
        if literal is not None:
            value: Attribute = _dense_for_tile(parser, literal, rt, start, literal_end)
        elif dense is not None:
            if not isinstance(dense, DenseIntOrFPElementsAttr):
                parser.raise_error("expected a number or a dense<...> literal", start, literal_end)
            value = dense
        elif is_float(elt) and hex_bits:
            # `0x7c00` fills a float tile with that bit pattern (how inf and nan are printed)
            if number >= 1 << bitwidth(elt):
                parser.raise_error(f"hexadecimal literal does not fit in {elt}", start, literal_end)
            value = FloatAttr(next(elt.iter_unpack(number.to_bytes(bitwidth(elt) // 8, "little"))), elt)
        elif is_float(elt):
            try:
                value = float_attr(number, elt)
            except OverflowError:
                parser.raise_error(f"{number} is out of range for {elt}", start, literal_end)
        else:
            if isinstance(number, float):
                parser.raise_error(f"a float literal cannot fill an {elt} tile", start, literal_end)
            value = IntegerAttr(int(number), elt)
        op = cls(value, rt, [parser.resolve_operand(s, IndexType()) for s in sizes])
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        v = self.value
        if isinstance(v, FloatAttr):
            printer.print_float(v.value.data, v.type)
        elif isinstance(v, IntegerAttr):
            if v.type == i1:
                printer.print_string("true" if v.value.data else "false")
            else:
                printer.print_string(str(v.value.data))
        else:
            v.print_without_type(printer)
        _print_sizes(printer, self.sizes)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.result.type}")


@irdl_op_definition
class IotaOp(TileOp):
    """A tile whose value at each index is that index along `axis` (0, 1, 2, ...).

    %i = tile.iota 1 : !tile.tile<4x8xi32>
    """

    name = "tile.iota"
    axis = prop_def(IntAttr)
    sizes = var_operand_def(IndexType)
    result = result_def(TileType)

    traits = traits_def(Pure())

    def __init__(self, axis: int, result_type: TileType, sizes: Sequence[SSAValue] = ()):
        super().__init__(operands=[list(sizes)], result_types=[result_type], properties={"axis": IntAttr(axis)})

    def verify_(self) -> None:
        rt = self.result.type
        assert isinstance(rt, TileType)
        _check_dynamic_sizes(self, rt, self.sizes)
        if not 0 <= self.axis.data < rt.rank:
            raise self.error(f"axis {self.axis.data} is out of range for rank {rt.rank}")
        if not (is_int(rt.element_type) or is_float(rt.element_type)) or rt.element_type == i1:
            raise self.error(f"element type must be an integer wider than i1 or a float, got {rt.element_type}")

    @classmethod
    def parse(cls, parser: Parser) -> IotaOp:
        axis = parser.parse_integer(allow_negative=False)
        sizes = _parse_sizes(parser)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        rt = _parse_tile_type(parser)
        op = cls(axis, rt, [parser.resolve_operand(s, IndexType()) for s in sizes])
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.axis.data}")
        _print_sizes(printer, self.sizes)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.result.type}")


@irdl_op_definition
class SplatOp(TileOp):
    """A tile filled with a run-time scalar: a scalar input of the `tile.func` or an `index`
    (e.g. a `tile.dim`). The scalar has the tile's element type, or is an `index`, converted as
    a signed integer to an integer element type (truncated or sign-extended) or rounded to
    nearest to a float one.

    %s = tile.splat %lr : f32 to !tile.tile<f32>
    %n = tile.splat %d sizes(%d) : index to !tile.tile<?xf32>
    """

    name = "tile.splat"
    scalar = operand_def()
    sizes = var_operand_def(IndexType)
    result = result_def(TileType)

    traits = traits_def(Pure())

    def __init__(self, scalar: SSAValue, result_type: TileType, sizes: Sequence[SSAValue] = ()):
        super().__init__(operands=[scalar, list(sizes)], result_types=[result_type])

    def verify_(self) -> None:
        rt = self.result.type
        assert isinstance(rt, TileType)
        _check_dynamic_sizes(self, rt, self.sizes)
        st, elt = self.scalar.type, rt.element_type
        if not _is_scalar_arg(st):
            raise self.error(f"the scalar must be {SCALAR_ARG_TYPES}, got {st}")
        if isinstance(st, IndexType):
            if elt == i1 or not (is_int(elt) or is_float(elt)):
                raise self.error(f"an index scalar fills integer (wider than i1) or float tiles, not {elt}")
        elif st != elt:
            raise self.error(f"the scalar has type {st} but the tile holds {elt}")

    @classmethod
    def parse(cls, parser: Parser) -> SplatOp:
        scalar = parser.parse_unresolved_operand()
        sizes = _parse_sizes(parser)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        st = parser.parse_type()
        parser.parse_keyword("to")
        rt = _parse_tile_type(parser)
        op = cls(parser.resolve_operand(scalar, st), rt, [parser.resolve_operand(s, IndexType()) for s in sizes])
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.scalar)
        _print_sizes(printer, self.sizes)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.scalar.type} to {self.result.type}")


@irdl_op_definition
class RandomBitsOp(TileOp):
    """Counter-based random bits (Philox-4x32-10, tilec/philox.py): the element at row-major
    linear index i is word i % 4 of Philox(counter = (lo32(c), hi32(c), 0, 0), key = (lo32(seed),
    hi32(seed))) with c = offset + i // 4 (mod 2^64). `seed` and `offset` are rank-0 i64 tiles
    (their 64 bits, read as unsigned); the result holds ui32. A pure function of (seed, offset,
    index): every target computes the same bits.

    %r = tile.random_bits %seed, %offset : !tile.tile<4x8xui32>
    %s = tile.random_bits %seed, %offset sizes(%n) : !tile.tile<?x3xui32>
    """

    name = "tile.random_bits"
    seed = operand_def(TileType)
    offset = operand_def(TileType)
    sizes = var_operand_def(IndexType)
    result = result_def(TileType)

    traits = traits_def(Pure())

    SCALAR: ClassVar = TileType([], IntegerType(64))

    def __init__(self, seed: SSAValue, offset: SSAValue, result_type: TileType, sizes: Sequence[SSAValue] = ()):
        super().__init__(operands=[seed, offset, list(sizes)], result_types=[result_type])

    def verify_(self) -> None:
        rt = self.result.type
        assert isinstance(rt, TileType)
        _check_dynamic_sizes(self, rt, self.sizes)
        for what, v in (("seed", self.seed), ("offset", self.offset)):
            if v.type != self.SCALAR:
                raise self.error(f"{what} must be {self.SCALAR}, got {v.type}")
        if rt.element_type != IntegerType(32, Signedness.UNSIGNED):
            raise self.error(f"the result holds ui32, got {rt.element_type}")

    @classmethod
    def parse(cls, parser: Parser) -> RandomBitsOp:
        seed = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        offset = parser.parse_unresolved_operand()
        sizes = _parse_sizes(parser)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        rt = _parse_tile_type(parser)
        op = cls(
            parser.resolve_operand(seed, cls.SCALAR),
            parser.resolve_operand(offset, cls.SCALAR),
            rt,
            [parser.resolve_operand(s, IndexType()) for s in sizes],
        )
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.seed)
        printer.print_string(", ")
        printer.print_operand(self.offset)
        _print_sizes(printer, self.sizes)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.result.type}")


# --- contraction --------------------------------------------------------------------------------


def default_acc_type(element_type: Attribute) -> Attribute:
    """f32 accumulation for 16-bit floats, i32 for small integers, else the element type itself."""
    if is_float(element_type) and bitwidth(element_type) < 32:
        return f32
    if is_int(element_type) and bitwidth(element_type) < 32:
        return IntegerType(32)
    return element_type


def contract_result_shape(
    lhs: Sequence[int], rhs: Sequence[int], axes: Sequence[tuple[int, int]], batch: Sequence[tuple[int, int]]
) -> list[int]:
    """Batch axes first (sizes from lhs), then lhs free axes, then rhs free axes."""
    used_l = {a for a, _ in axes} | {a for a, _ in batch}
    used_r = {b for _, b in axes} | {b for _, b in batch}
    out = [lhs[a] if lhs[a] != DYNAMIC else rhs[b] for a, b in batch]
    out += [d for i, d in enumerate(lhs) if i not in used_l]
    out += [d for i, d in enumerate(rhs) if i not in used_r]
    return out


@irdl_op_definition
class ContractOp(TileOp):
    """General tensor contraction (like `numpy.tensordot`, with optional batch axes).

    `axes` pairs an lhs axis with the rhs axis it is summed against; `batch` pairs axes that run
    in lock step and lead the result. The result's axes are: batch axes, then lhs free axes, then
    rhs free axes. Products are accumulated in `acc` (f32 for f16/bf16 inputs by default) and
    rounded to the result's element type at the end.

        %c = tile.contract %a, %b axes [[1, 0]] acc f32
               : !tile.tile<64x32xf16>, !tile.tile<32x16xf16> -> !tile.tile<64x16xf16>
        %d = tile.contract %x, %y axes [[2, 1]] batch [[0, 0]] acc f32
               : !tile.tile<8x64x32xf32>, !tile.tile<8x32x16xf32> -> !tile.tile<8x64x16xf32>
    """

    name = "tile.contract"
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    lhs_contract = prop_def(DenseArrayBase)
    rhs_contract = prop_def(DenseArrayBase)
    lhs_batch = prop_def(DenseArrayBase)
    rhs_batch = prop_def(DenseArrayBase)
    acc = prop_def(Attribute)
    result = result_def(TileType)

    traits = traits_def(Pure())

    def __init__(
        self,
        lhs: SSAValue,
        rhs: SSAValue,
        axes: Sequence[tuple[int, int]],
        batch: Sequence[tuple[int, int]] = (),
        acc: Attribute | None = None,
        result_type: TileType | None = None,
    ):
        lt, rt = lhs.type, rhs.type
        assert isinstance(lt, TileType) and isinstance(rt, TileType)
        if acc is None:
            acc = default_acc_type(lt.element_type)
        if result_type is None:
            shape = contract_result_shape(lt.get_shape(), rt.get_shape(), axes, batch)
            result_type = TileType(shape, lt.element_type)
        super().__init__(
            operands=[lhs, rhs],
            result_types=[result_type],
            properties={
                "lhs_contract": int_array(a for a, _ in axes),
                "rhs_contract": int_array(b for _, b in axes),
                "lhs_batch": int_array(a for a, _ in batch),
                "rhs_batch": int_array(b for _, b in batch),
                "acc": acc,
            },
        )

    @property
    def axes(self) -> list[tuple[int, int]]:
        return list(zip(int_list(self.lhs_contract), int_list(self.rhs_contract)))

    @property
    def batch(self) -> list[tuple[int, int]]:
        return list(zip(int_list(self.lhs_batch), int_list(self.rhs_batch)))

    def verify_(self) -> None:
        lt, rt, res = self.lhs.type, self.rhs.type, self.result.type
        assert isinstance(lt, TileType) and isinstance(rt, TileType) and isinstance(res, TileType)
        if len(self.lhs_contract) != len(self.rhs_contract):
            raise self.error("lhs and rhs contracted axis lists differ in length")
        if len(self.lhs_batch) != len(self.rhs_batch):
            raise self.error("lhs and rhs batch axis lists differ in length")
        ls, rs = lt.get_shape(), rt.get_shape()
        for side, shape, axes in (
            ("lhs", ls, [*int_list(self.lhs_contract), *int_list(self.lhs_batch)]),
            ("rhs", rs, [*int_list(self.rhs_contract), *int_list(self.rhs_batch)]),
        ):
            for a in axes:
                if not 0 <= a < len(shape):
                    raise self.error(f"{side} axis {a} is out of range for a rank-{len(shape)} tile")
            if len(set(axes)) != len(axes):
                raise self.error(f"{side} axis used twice in axes/batch: {axes}")
        for kind, pairs in (("axis", self.axes), ("batch axis", self.batch)):
            for a, b in pairs:
                if not dims_compatible(ls[a], rs[b]):
                    raise self.error(f"lhs {kind} {a} has size {ls[a]} but rhs {kind} {b} has size {rs[b]}")
        if lt.element_type != rt.element_type:
            raise self.error(f"lhs holds {lt.element_type} but rhs holds {rt.element_type} (cast one first)")
        acc = self.acc
        in_elt = lt.element_type
        if is_fp8(acc):
            raise self.error(f"accumulator {acc}: fp8 accumulators are not supported (fp8 inputs accumulate in f32)")
        if is_float(in_elt):
            if not is_float(acc) or bitwidth(acc) < bitwidth(in_elt):
                raise self.error(f"accumulator {acc} must be a float at least as wide as the inputs ({in_elt})")
        elif is_int(in_elt):
            if not is_int(acc) or bitwidth(acc) < 32:
                raise self.error(f"integer contractions accumulate in i32 or i64, got {acc}")
        expected = contract_result_shape(ls, rs, self.axes, self.batch)
        if not shapes_compatible(expected, res.get_shape()):
            raise self.error(
                f"result shape should be {shape_str(expected)} (batch, lhs free, rhs free axes), got {shape_str(res.get_shape())}"
            )
        if is_float(in_elt) != is_float(res.element_type):
            raise self.error(f"result element type {res.element_type} does not match the kind of the inputs ({in_elt})")

    @classmethod
    def parse(cls, parser: Parser) -> ContractOp:
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        parser.parse_keyword("axes")
        axes = parse_pair_list(parser)
        batch = parse_pair_list(parser) if parser.parse_optional_keyword("batch") else []
        acc = None
        if parser.parse_optional_keyword("acc"):
            acc = parser.parse_type()
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        lt = _parse_tile_type(parser)
        parser.parse_punctuation(",")
        rt = _parse_tile_type(parser)
        parser.parse_punctuation("->")
        res = _parse_tile_type(parser)
        op = cls(parser.resolve_operand(lhs, lt), parser.resolve_operand(rhs, rt), axes, batch, acc, res)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.lhs)
        printer.print_string(", ")
        printer.print_operand(self.rhs)
        printer.print_string(" axes ")
        print_pair_list(printer, self.axes)
        if self.batch:
            printer.print_string(" batch ")
            print_pair_list(printer, self.batch)
        printer.print_string(" acc ")
        printer.print_attribute(self.acc)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.lhs.type}, {self.rhs.type} -> {self.result.type}")


# --- convolution (issue 11: tile.conv) ----------------------------------------------------------

CONV_LAYOUTS = ("channels_first", "channels_last")


def conv_output_size(size: int, lo: int, hi: int, kernel: int, stride: int, dilation: int, lhs_dilation: int) -> int:
    """Output length of one spatial axis of `tile.conv` (may be < 1: the caller reports it)."""
    dilated = (size - 1) * lhs_dilation + 1
    return (dilated + lo + hi - dilation * (kernel - 1) - 1) // stride + 1


@irdl_op_definition
class ConvOp(TileOp):
    """N-d convolution (d = 1..3 spatial axes), torch's cross-correlation with groups.

    channels_first: x (N, C, *S), w (O, C/G, *K), y (N, O, *OS); channels_last: x (N, *S, C),
    w (O, *K, C/G), y (N, *OS, O). With xd = x dilated by `lhs_dilation` (zeros between elements)
    and reads outside xd giving 0:
    y[n, o, p] = sum_{c < C/G, k} xd[n, (o // (O/G)) * (C/G) + c, p*stride + k*dilation - lo] * w[o, c, k].
    `padding` holds (lo, hi) per spatial axis (negative crops). Products accumulate in `acc` (as
    tile.contract) and are rounded to y's element type at the end.

        %y = tile.conv %x, %w stride [2, 2] padding [[1, 1], [1, 1]] dilation [1, 1] lhs_dilation [1, 1]
               groups 1 layout channels_first acc f32
               : !tile.tile<8x64x56x56xf16>, !tile.tile<64x64x3x3xf16> -> !tile.tile<8x64x28x28xf16>
    """

    name = "tile.conv"
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    stride = prop_def(DenseArrayBase)
    padding = prop_def(DenseArrayBase)
    dilation = prop_def(DenseArrayBase)
    lhs_dilation = prop_def(DenseArrayBase)
    groups = prop_def(IntAttr)
    layout = prop_def(StringAttr)
    acc = prop_def(Attribute)
    result = result_def(TileType)

    traits = traits_def(Pure())

    def __init__(
        self,
        lhs: SSAValue,
        rhs: SSAValue,
        stride: Sequence[int],
        padding: Sequence[tuple[int, int]],
        dilation: Sequence[int],
        lhs_dilation: Sequence[int],
        groups: int = 1,
        layout: str = "channels_first",
        acc: Attribute | None = None,
        result_type: TileType | None = None,
    ):
        lt, rt = lhs.type, rhs.type
        assert isinstance(lt, TileType) and isinstance(rt, TileType)
        if acc is None:
            acc = default_acc_type(lt.element_type)
        if result_type is None:
            result_type = TileType(
                conv_result_shape(
                    lt.get_shape(), rt.get_shape(), stride, padding, dilation, lhs_dilation, groups, layout
                ),
                lt.element_type,
            )
        super().__init__(
            operands=[lhs, rhs],
            result_types=[result_type],
            properties={
                "stride": int_array(stride),
                "padding": int_array(v for pair in padding for v in pair),
                "dilation": int_array(dilation),
                "lhs_dilation": int_array(lhs_dilation),
                "groups": IntAttr(groups),
                "layout": StringAttr(layout),
                "acc": acc,
            },
        )

    # geometry, shared by the interpreter and the lowerings

    @property
    def spatial_rank(self) -> int:
        return len(self.stride)

    @property
    def channels_last(self) -> bool:
        return self.layout.data == "channels_last"

    @property
    def padding_pairs(self) -> list[tuple[int, int]]:
        p = int_list(self.padding)
        return [(p[2 * i], p[2 * i + 1]) for i in range(len(p) // 2)]

    @property
    def channel_axis(self) -> int:
        """The channel axis of x, w and y (1, or the last one for channels_last)."""
        return self.spatial_rank + 1 if self.channels_last else 1

    @property
    def spatial_axes(self) -> list[int]:
        """The spatial axes of x, w and y."""
        d = self.spatial_rank
        return list(range(1, d + 1)) if self.channels_last else list(range(2, d + 2))

    def verify_(self) -> None:
        lt, rt, res = self.lhs.type, self.rhs.type, self.result.type
        assert isinstance(lt, TileType) and isinstance(rt, TileType) and isinstance(res, TileType)
        d = len(self.stride)
        if not 1 <= d <= 3:
            raise self.error(f"1 to 3 spatial axes are supported, stride has {d}")
        for name, arr, n in (
            ("dilation", self.dilation, d),
            ("lhs_dilation", self.lhs_dilation, d),
            ("padding", self.padding, 2 * d),
        ):
            if len(arr) != n:
                raise self.error(f"{name} has {len(arr)} entries, expected {n} for {d} spatial axes")
        for name, arr in (("stride", self.stride), ("dilation", self.dilation), ("lhs_dilation", self.lhs_dilation)):
            if any(v < 1 for v in int_list(arr)):
                raise self.error(f"{name} entries must be >= 1, got {list(int_list(arr))}")
        if self.layout.data not in CONV_LAYOUTS:
            raise self.error(f"unknown layout '{self.layout.data}' (expected one of {', '.join(CONV_LAYOUTS)})")
        for side, t in (("input", lt), ("weight", rt), ("result", res)):
            if t.rank != d + 2:
                raise self.error(f"{side} must have rank {d + 2} for {d} spatial axes, got {shape_str(t.get_shape())}")
            if DYNAMIC in t.get_shape():
                raise self.error(
                    f"not supported yet: convolutions over tiles with dynamic sizes ({side} {shape_str(t.get_shape())})"
                )
        if lt.element_type != rt.element_type:
            raise self.error(f"input holds {lt.element_type} but weight holds {rt.element_type} (cast one first)")
        in_elt, acc = lt.element_type, self.acc
        if is_fp8(acc):
            raise self.error(f"accumulator {acc}: fp8 accumulators are not supported (fp8 inputs accumulate in f32)")
        if is_float(in_elt):
            if not is_float(acc) or bitwidth(acc) < bitwidth(in_elt):
                raise self.error(f"accumulator {acc} must be a float at least as wide as the inputs ({in_elt})")
        elif is_int(in_elt):
            if not is_int(acc) or bitwidth(acc) < 32:
                raise self.error(f"integer convolutions accumulate in i32 or i64, got {acc}")
        if in_elt == i1:
            raise self.error("cannot convolve i1 (mask) tiles")
        if is_float(in_elt) != is_float(res.element_type):
            raise self.error(f"result element type {res.element_type} does not match the kind of the inputs ({in_elt})")
        try:
            expected = conv_result_shape(
                lt.get_shape(),
                rt.get_shape(),
                int_list(self.stride),
                self.padding_pairs,
                int_list(self.dilation),
                int_list(self.lhs_dilation),
                self.groups.data,
                self.layout.data,
            )
        except ValueError as e:
            raise self.error(str(e)) from None
        if list(expected) != list(res.get_shape()):
            raise self.error(f"result shape should be {shape_str(expected)}, got {shape_str(res.get_shape())}")

    @classmethod
    def parse(cls, parser: Parser) -> ConvOp:
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        parser.parse_keyword("stride")
        stride = parse_int_list(parser)
        parser.parse_keyword("padding")
        padding = parse_pair_list(parser)
        parser.parse_keyword("dilation")
        dilation = parse_int_list(parser)
        parser.parse_keyword("lhs_dilation")
        lhs_dilation = parse_int_list(parser)
        parser.parse_keyword("groups")
        groups = parser.parse_integer(allow_negative=False)
        parser.parse_keyword("layout")
        layout = parse_keyword_choice(parser, CONV_LAYOUTS, "a convolution layout")
        acc = None
        if parser.parse_optional_keyword("acc"):
            acc = parser.parse_type()
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        lt = _parse_tile_type(parser)
        parser.parse_punctuation(",")
        rt = _parse_tile_type(parser)
        parser.parse_punctuation("->")
        res = _parse_tile_type(parser)
        op = cls(
            parser.resolve_operand(lhs, lt),
            parser.resolve_operand(rhs, rt),
            stride,
            padding,
            dilation,
            lhs_dilation,
            groups,
            layout,
            acc,
            res,
        )
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.lhs)
        printer.print_string(", ")
        printer.print_operand(self.rhs)
        printer.print_string(" stride ")
        print_int_list(printer, int_list(self.stride))
        printer.print_string(" padding ")
        print_pair_list(printer, self.padding_pairs)
        printer.print_string(" dilation ")
        print_int_list(printer, int_list(self.dilation))
        printer.print_string(" lhs_dilation ")
        print_int_list(printer, int_list(self.lhs_dilation))
        printer.print_string(f" groups {self.groups.data} layout {self.layout.data} acc ")
        printer.print_attribute(self.acc)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.lhs.type}, {self.rhs.type} -> {self.result.type}")


def conv_result_shape(
    x: Sequence[int],
    w: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[tuple[int, int]],
    dilation: Sequence[int],
    lhs_dilation: Sequence[int],
    groups: int,
    layout: str,
) -> list[int]:
    """y's shape for `tile.conv`; raises ValueError (a message for the user) when the operands do not fit."""
    d = len(stride)
    if len(x) != d + 2 or len(w) != d + 2:
        raise ValueError(f"input and weight must have rank {d + 2} for {d} spatial axes")
    last = layout == "channels_last"
    n, c = x[0], (x[-1] if last else x[1])
    o, cg = w[0], (w[-1] if last else w[1])
    xs, ks = (x[1:-1], w[1:-1]) if last else (x[2:], w[2:])
    if groups < 1:
        raise ValueError(f"groups must be >= 1, got {groups}")
    if c % groups:
        raise ValueError(f"input channels ({c}) are not divisible by groups ({groups})")
    if o % groups:
        raise ValueError(f"output channels ({o}) are not divisible by groups ({groups})")
    if cg != c // groups:
        raise ValueError(f"weight has {cg} input channels per group, expected {c // groups} (= {c} / groups {groups})")
    out = []
    for i in range(d):
        size = conv_output_size(xs[i], *padding[i], ks[i], stride[i], dilation[i], lhs_dilation[i])
        if size < 1:
            raise ValueError(
                f"spatial axis {i}: output size {size} < 1 (input {xs[i]}, kernel {ks[i]}, padding {list(padding[i])},"
                f" stride {stride[i]}, dilation {dilation[i]})"
            )
        out.append(size)
    return [n, *out, o] if last else [n, o, *out]


# --- elementwise --------------------------------------------------------------------------------


class ElementwiseOp(TileOp):
    """Shared syntax for same-type elementwise ops: `%r = tile.op %a[, %b] : !tile.tile<...>`."""

    FLOAT_ONLY: ClassVar[bool] = False
    INT_ONLY: ClassVar[bool] = False

    def _check_element(self, t: TileType) -> None:
        if self.FLOAT_ONLY and not is_float(t.element_type):
            raise self.error(f"needs a float tile, got {t.element_type}")
        if self.INT_ONLY and not is_int(t.element_type):
            raise self.error(f"needs an integer tile, got {t.element_type}")
        if t.element_type == i1:
            raise self.error("does not apply to i1 (mask) tiles")

    @classmethod
    def _parse_elementwise(cls, parser: Parser, arity: int):
        operands = [parser.parse_unresolved_operand()]
        for _ in range(arity - 1):
            parser.parse_punctuation(",")
            operands.append(parser.parse_unresolved_operand())
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        t = _parse_tile_type(parser)
        op = cls(*[parser.resolve_operand(o, t) for o in operands])
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.results[0].type}")


class UnaryOp(ElementwiseOp):
    operand = operand_def(TileType)
    result = result_def(TileType)
    traits = traits_def(Pure())

    def __init__(self, operand: SSAValue):
        super().__init__(operands=[operand], result_types=[operand.type])

    def verify_(self) -> None:
        t = _tile(self, self.operand, "operand")
        if self.result.type != t:
            raise self.error(f"result type {self.result.type} must equal operand type {t}")
        self._check_element(t)

    @classmethod
    def parse(cls, parser: Parser):
        return cls._parse_elementwise(parser, 1)


class BinaryOp(ElementwiseOp):
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    result = result_def(TileType)
    traits = traits_def(Pure())

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[lhs, rhs], result_types=[lhs.type])

    def verify_(self) -> None:
        lt = _tile(self, self.lhs, "lhs")
        rt = _tile(self, self.rhs, "rhs")
        if lt != rt:
            raise self.error(f"operand types differ: {lt} vs {rt} (broadcast or cast first)")
        if self.result.type != lt:
            raise self.error(f"result type {self.result.type} must equal operand type {lt}")
        self._check_element(lt)

    @classmethod
    def parse(cls, parser: Parser):
        return cls._parse_elementwise(parser, 2)


@irdl_op_definition
class NegOp(UnaryOp):
    """Negation, elementwise: `%y = tile.neg %x : !tile.tile<64xf32>`"""

    name = "tile.neg"


@irdl_op_definition
class AbsOp(UnaryOp):
    """Absolute value, elementwise: `%y = tile.abs %x : !tile.tile<64xf32>`"""

    name = "tile.abs"


@irdl_op_definition
class ExpOp(UnaryOp):
    """e**x, elementwise: `%y = tile.exp %x : !tile.tile<64xf32>`"""

    name = "tile.exp"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class LogOp(UnaryOp):
    """Natural logarithm, elementwise: `%y = tile.log %x : !tile.tile<64xf32>`"""

    name = "tile.log"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class SqrtOp(UnaryOp):
    """Square root, elementwise: `%y = tile.sqrt %x : !tile.tile<64xf32>`"""

    name = "tile.sqrt"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class RsqrtOp(UnaryOp):
    """1/sqrt(x), elementwise: `%y = tile.rsqrt %x : !tile.tile<64xf32>`"""

    name = "tile.rsqrt"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class TanhOp(UnaryOp):
    """Hyperbolic tangent, elementwise: `%y = tile.tanh %x : !tile.tile<64xf32>`"""

    name = "tile.tanh"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class ErfOp(UnaryOp):
    """The error function, elementwise: `%y = tile.erf %x : !tile.tile<64xf32>`"""

    name = "tile.erf"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class SinOp(UnaryOp):
    """Sine (radians), elementwise: `%y = tile.sin %x : !tile.tile<64xf32>`"""

    name = "tile.sin"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class CosOp(UnaryOp):
    """Cosine (radians), elementwise: `%y = tile.cos %x : !tile.tile<64xf32>`"""

    name = "tile.cos"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class TanOp(UnaryOp):
    """Tangent (radians), elementwise: `%y = tile.tan %x : !tile.tile<64xf32>`"""

    name = "tile.tan"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class AsinOp(UnaryOp):
    """Inverse sine, in [-pi/2, pi/2], elementwise: `%y = tile.asin %x : !tile.tile<64xf32>`"""

    name = "tile.asin"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class AcosOp(UnaryOp):
    """Inverse cosine, in [0, pi], elementwise: `%y = tile.acos %x : !tile.tile<64xf32>`"""

    name = "tile.acos"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class AtanOp(UnaryOp):
    """Inverse tangent, in [-pi/2, pi/2], elementwise: `%y = tile.atan %x : !tile.tile<64xf32>`"""

    name = "tile.atan"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class SinhOp(UnaryOp):
    """Hyperbolic sine, elementwise: `%y = tile.sinh %x : !tile.tile<64xf32>`"""

    name = "tile.sinh"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class CoshOp(UnaryOp):
    """Hyperbolic cosine, elementwise: `%y = tile.cosh %x : !tile.tile<64xf32>`"""

    name = "tile.cosh"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class AsinhOp(UnaryOp):
    """Inverse hyperbolic sine, elementwise: `%y = tile.asinh %x : !tile.tile<64xf32>`"""

    name = "tile.asinh"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class AcoshOp(UnaryOp):
    """Inverse hyperbolic cosine, elementwise: `%y = tile.acosh %x : !tile.tile<64xf32>`"""

    name = "tile.acosh"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class AtanhOp(UnaryOp):
    """Inverse hyperbolic tangent, elementwise: `%y = tile.atanh %x : !tile.tile<64xf32>`"""

    name = "tile.atanh"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class Expm1Op(UnaryOp):
    """e**x - 1, exact near 0, elementwise: `%y = tile.expm1 %x : !tile.tile<64xf32>`"""

    name = "tile.expm1"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class Log1pOp(UnaryOp):
    """log(1 + x), exact near 0, elementwise: `%y = tile.log1p %x : !tile.tile<64xf32>`"""

    name = "tile.log1p"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class Log2Op(UnaryOp):
    """Base-2 logarithm, elementwise: `%y = tile.log2 %x : !tile.tile<64xf32>`"""

    name = "tile.log2"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class Log10Op(UnaryOp):
    """Base-10 logarithm, elementwise: `%y = tile.log10 %x : !tile.tile<64xf32>`"""

    name = "tile.log10"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class Exp2Op(UnaryOp):
    """2**x, elementwise: `%y = tile.exp2 %x : !tile.tile<64xf32>`"""

    name = "tile.exp2"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class SigmoidOp(UnaryOp):
    """The logistic function 1 / (1 + e**-x), without overflow for large |x|, elementwise: `%y = tile.sigmoid %x : !tile.tile<64xf32>`"""

    name = "tile.sigmoid"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class SoftplusOp(UnaryOp):
    """log(1 + e**x) as torch's softplus (x itself above 20), elementwise: `%y = tile.softplus %x : !tile.tile<64xf32>`"""

    name = "tile.softplus"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class FloorOp(UnaryOp):
    """Round toward -inf, elementwise: `%y = tile.floor %x : !tile.tile<64xf32>`"""

    name = "tile.floor"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class CeilOp(UnaryOp):
    """Round toward +inf, elementwise: `%y = tile.ceil %x : !tile.tile<64xf32>`"""

    name = "tile.ceil"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class RoundOp(UnaryOp):
    """Round to nearest, ties to even (numpy's round), elementwise: `%y = tile.round %x : !tile.tile<64xf32>`"""

    name = "tile.round"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class TruncOp(UnaryOp):
    """Round toward zero, elementwise: `%y = tile.trunc %x : !tile.tile<64xf32>`"""

    name = "tile.trunc"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class SignOp(UnaryOp):
    """-1, 0 or 1 by the sign of x (NaN stays NaN), elementwise: `%y = tile.sign %x : !tile.tile<64xf32>`"""

    name = "tile.sign"


@irdl_op_definition
class AddOp(BinaryOp):
    """Sum, elementwise: `%z = tile.add %x, %y : !tile.tile<64xf32>`"""

    name = "tile.add"


@irdl_op_definition
class SubOp(BinaryOp):
    """Difference, elementwise: `%z = tile.sub %x, %y : !tile.tile<64xf32>`"""

    name = "tile.sub"


@irdl_op_definition
class MulOp(BinaryOp):
    """Product, elementwise: `%z = tile.mul %x, %y : !tile.tile<64xf32>`"""

    name = "tile.mul"


@irdl_op_definition
class DivOp(BinaryOp):
    """Quotient, elementwise (integers truncate toward zero): `%z = tile.div %x, %y : !tile.tile<64xf32>`"""

    name = "tile.div"


@irdl_op_definition
class MaxOp(BinaryOp):
    """Larger of two, elementwise (NaN propagates): `%z = tile.max %x, %y : !tile.tile<64xf32>`"""

    name = "tile.max"


@irdl_op_definition
class MinOp(BinaryOp):
    """Smaller of two, elementwise (NaN propagates): `%z = tile.min %x, %y : !tile.tile<64xf32>`"""

    name = "tile.min"


@irdl_op_definition
class PowOp(BinaryOp):
    """x**y, elementwise, for floats: `%z = tile.pow %x, %y : !tile.tile<64xf32>`"""

    name = "tile.pow"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class FloorDivOp(BinaryOp):
    """Floor division, elementwise, as Python's `//`: integers round toward -inf, `x // 0` is 0 and
    `INT_MIN // -1` wraps to INT_MIN (numpy's results); floats are `numpy.floor_divide`.
    `%z = tile.floordiv %x, %y : !tile.tile<64xi32>`"""

    name = "tile.floordiv"


@irdl_op_definition
class ModOp(BinaryOp):
    """Remainder of floor division, elementwise, as Python's `%`: the sign of the divisor; `x % 0` is
    0 for integers; floats are `numpy.remainder`. `%z = tile.mod %x, %y : !tile.tile<64xi32>`"""

    name = "tile.mod"


@irdl_op_definition
class AndOp(BinaryOp):
    """Bitwise and, elementwise, for integers: `%z = tile.and %x, %y : !tile.tile<64xui8>`"""

    name = "tile.and"
    INT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class OrOp(BinaryOp):
    """Bitwise or, elementwise, for integers: `%z = tile.or %x, %y : !tile.tile<64xui8>`"""

    name = "tile.or"
    INT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class XorOp(BinaryOp):
    """Bitwise exclusive or, elementwise, for integers: `%z = tile.xor %x, %y : !tile.tile<64xui8>`"""

    name = "tile.xor"
    INT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class ShlOp(BinaryOp):
    """Shift left, elementwise, for integers; an amount >= the width, or negative, gives 0:
    `%z = tile.shl %x, %n : !tile.tile<64xi32>`"""

    name = "tile.shl"
    INT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class ShrOp(BinaryOp):
    """Shift right, elementwise, for integers: arithmetic (sign-filling) for signed types, logical for
    unsigned ones; an amount >= the width, or negative, gives the sign fill (-1 or 0) or 0:
    `%z = tile.shr %x, %n : !tile.tile<64xui32>`"""

    name = "tile.shr"
    INT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class NotOp(UnaryOp):
    """Bitwise complement, elementwise, for integers: `%y = tile.not %x : !tile.tile<64xi32>`"""

    name = "tile.not"
    INT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class Atan2Op(BinaryOp):
    """atan(y / x) in the quadrant of (x, y), elementwise: `%a = tile.atan2 %y, %x : !tile.tile<64xf32>`"""

    name = "tile.atan2"
    FLOAT_ONLY: ClassVar[bool] = True


UNARY_OPS: tuple[type[UnaryOp], ...] = (NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp, TanhOp, ErfOp)
MATH_UNARY_OPS: tuple[type[UnaryOp], ...] = (
    SinOp,
    CosOp,
    TanOp,
    AsinOp,
    AcosOp,
    AtanOp,
    SinhOp,
    CoshOp,
    AsinhOp,
    AcoshOp,
    AtanhOp,
    Expm1Op,
    Log1pOp,
    Log2Op,
    Log10Op,
    Exp2Op,
    SigmoidOp,
    SoftplusOp,
    FloorOp,
    CeilOp,
    RoundOp,
    TruncOp,
    SignOp,
)
BINARY_OPS: tuple[type[BinaryOp], ...] = (AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, FloorDivOp, ModOp)
MATH_BINARY_OPS: tuple[type[BinaryOp], ...] = (Atan2Op,)
INT_UNARY_OPS: tuple[type[UnaryOp], ...] = (NotOp,)
INT_BINARY_OPS: tuple[type[BinaryOp], ...] = (AndOp, OrOp, XorOp, ShlOp, ShrOp)
"""The integer-only elementwise ops (i8 .. i64, ui8 .. ui64; masks use select and cmp)."""

CMP_PREDICATES = ("eq", "ne", "lt", "le", "gt", "ge")


@irdl_op_definition
class CmpOp(TileOp):
    """Elementwise comparison giving an i1 mask (ordered: false where either side is NaN, except `ne`).

    %m = tile.cmp lt %x, %y : !tile.tile<64xf32>
    """

    name = "tile.cmp"
    predicate = prop_def(StringAttr)
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    result = result_def(TileType)

    traits = traits_def(Pure())

    def __init__(self, predicate: str, lhs: SSAValue, rhs: SSAValue):
        lt = lhs.type
        assert isinstance(lt, TileType)
        super().__init__(
            operands=[lhs, rhs], result_types=[lt.with_element(i1)], properties={"predicate": StringAttr(predicate)}
        )

    def verify_(self) -> None:
        if self.predicate.data not in CMP_PREDICATES:
            raise self.error(f"unknown predicate '{self.predicate.data}' (expected one of {', '.join(CMP_PREDICATES)})")
        lt, rt = _tile(self, self.lhs, "lhs"), _tile(self, self.rhs, "rhs")
        if lt != rt:
            raise self.error(f"operand types differ: {lt} vs {rt}")
        if self.result.type != lt.with_element(i1):
            raise self.error(f"result must be {lt.with_element(i1)}, got {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> CmpOp:
        pred = parse_keyword_choice(parser, CMP_PREDICATES, "a comparison predicate")
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        t = _parse_tile_type(parser)
        op = cls(pred, parser.resolve_operand(lhs, t), parser.resolve_operand(rhs, t))
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.predicate.data} ")
        printer.print_operand(self.lhs)
        printer.print_string(", ")
        printer.print_operand(self.rhs)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.lhs.type}")


@irdl_op_definition
class SelectOp(TileOp):
    """Elementwise choice: `cond ? a : b`, with an i1 mask of the same shape.

    %r = tile.select %m, %x, %y : !tile.tile<64xf32>
    """

    name = "tile.select"
    cond = operand_def(TileType)
    true_value = operand_def(TileType)
    false_value = operand_def(TileType)
    result = result_def(TileType)

    traits = traits_def(Pure())

    def __init__(self, cond: SSAValue, a: SSAValue, b: SSAValue):
        super().__init__(operands=[cond, a, b], result_types=[a.type])

    def verify_(self) -> None:
        ct = _tile(self, self.cond, "condition")
        at = _tile(self, self.true_value, "true value")
        bt = _tile(self, self.false_value, "false value")
        if at != bt:
            raise self.error(f"value types differ: {at} vs {bt}")
        if ct != at.with_element(i1):
            raise self.error(f"condition must be {at.with_element(i1)}, got {ct}")
        if self.result.type != at:
            raise self.error(f"result type {self.result.type} must equal value type {at}")

    @classmethod
    def parse(cls, parser: Parser) -> SelectOp:
        c = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        a = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        b = parser.parse_unresolved_operand()
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        t = _parse_tile_type(parser)
        op = cls(
            parser.resolve_operand(c, t.with_element(i1)), parser.resolve_operand(a, t), parser.resolve_operand(b, t)
        )
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.result.type}")


# --- type and shape changes ---------------------------------------------------------------------


class ConvertOp(TileOp):
    """Shared `%r = tile.op %x [extras] : T1 to T2` syntax for one-input shape/type changes."""

    source = operand_def(TileType)
    sizes = var_operand_def(IndexType)
    result = result_def(TileType)
    traits = traits_def(Pure())

    @classmethod
    def _parse_middle(cls, parser: Parser) -> dict:
        return {}

    def _print_middle(self, printer: Printer) -> None:
        pass

    @classmethod
    def _make(cls, source: SSAValue, result_type: TileType, sizes: Sequence[SSAValue], middle: dict):
        raise NotImplementedError

    @classmethod
    def parse(cls, parser: Parser):
        src = parser.parse_unresolved_operand()
        middle = cls._parse_middle(parser)
        sizes = _parse_sizes(parser)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        st = _parse_tile_type(parser)
        parser.parse_keyword("to")
        rt = _parse_tile_type(parser)
        op = cls._make(
            parser.resolve_operand(src, st), rt, [parser.resolve_operand(s, IndexType()) for s in sizes], middle
        )
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        self._print_middle(printer)
        _print_sizes(printer, self.sizes)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.source.type} to {self.result.type}")


@irdl_op_definition
class CastOp(ConvertOp):
    """Element type conversion, same shape (floats round to nearest even; float->int truncates).

    %h = tile.cast %x : !tile.tile<64xf32> to !tile.tile<64xf16>
    """

    name = "tile.cast"

    def __init__(self, source: SSAValue, result_type: TileType, sizes: Sequence[SSAValue] = ()):
        super().__init__(operands=[source, list(sizes)], result_types=[result_type])

    @classmethod
    def _make(cls, source, result_type, sizes, middle):
        return cls(source, result_type, sizes)  # sizes are rejected by the verifier, not dropped

    def verify_(self) -> None:
        st, rt = self.source.type, self.result.type
        assert isinstance(st, TileType) and isinstance(rt, TileType)
        if len(self.sizes):
            raise self.error("takes no size operands")
        if st.get_shape() != rt.get_shape():
            raise self.error(f"shape must not change: {shape_str(st.get_shape())} vs {shape_str(rt.get_shape())}")


@irdl_op_definition
class BitcastOp(ConvertOp):
    """The same bits read as another element type of the same width, same shape (not i1):
    `%u = tile.bitcast %x : !tile.tile<64xf32> to !tile.tile<64xui32>`"""

    name = "tile.bitcast"

    def __init__(self, source: SSAValue, result_type: TileType, sizes: Sequence[SSAValue] = ()):
        super().__init__(operands=[source, list(sizes)], result_types=[result_type])

    @classmethod
    def _make(cls, source, result_type, sizes, middle):
        return cls(source, result_type, sizes)

    def verify_(self) -> None:
        st, rt = self.source.type, self.result.type
        assert isinstance(st, TileType) and isinstance(rt, TileType)
        if len(self.sizes):
            raise self.error("takes no size operands")
        if st.get_shape() != rt.get_shape():
            raise self.error(f"shape must not change: {shape_str(st.get_shape())} vs {shape_str(rt.get_shape())}")
        se, re = st.element_type, rt.element_type
        if se == i1 or re == i1:
            raise self.error(f"does not apply to i1 (mask) tiles: {se} to {re}")
        if bitwidth(se) != bitwidth(re):
            raise self.error(f"element widths differ: {se} has {bitwidth(se)} bits, {re} has {bitwidth(re)}")


@irdl_op_definition
class BroadcastOp(ConvertOp):
    """numpy-style broadcast: trailing axes align; each source axis is 1 or equals the result's.

    %b = tile.broadcast %x : !tile.tile<64xf32> to !tile.tile<32x64xf32>
    %c = tile.broadcast %y sizes(%n) : !tile.tile<1x64xf32> to !tile.tile<?x64xf32>
    """

    name = "tile.broadcast"

    def __init__(self, source: SSAValue, result_type: TileType, sizes: Sequence[SSAValue] = ()):
        super().__init__(operands=[source, list(sizes)], result_types=[result_type])

    @classmethod
    def _make(cls, source, result_type, sizes, middle):
        return cls(source, result_type, sizes)

    def verify_(self) -> None:
        st, rt = self.source.type, self.result.type
        assert isinstance(st, TileType) and isinstance(rt, TileType)
        if st.element_type != rt.element_type:
            raise self.error(f"element type must not change: {st.element_type} vs {rt.element_type}")
        _check_dynamic_sizes(self, rt, self.sizes)
        ss, rs = st.get_shape(), rt.get_shape()
        if len(ss) > len(rs):
            raise self.error(f"cannot broadcast rank {len(ss)} to lower rank {len(rs)}")
        off = len(rs) - len(ss)
        for i, d in enumerate(ss):
            if d != 1 and not dims_compatible(d, rs[off + i]):
                raise self.error(f"source axis {i} has size {d}, which is neither 1 nor the result's {rs[off + i]}")


@irdl_op_definition
class TransposeOp(ConvertOp):
    """Axis permutation: result axis i is source axis perm[i].

    %t = tile.transpose %x [1, 0] : !tile.tile<64x32xf32> to !tile.tile<32x64xf32>
    """

    name = "tile.transpose"
    permutation = prop_def(DenseArrayBase)

    def __init__(
        self,
        source: SSAValue,
        permutation: Sequence[int],
        result_type: TileType | None = None,
        sizes: Sequence[SSAValue] = (),
    ):
        if result_type is None:
            st = source.type
            assert isinstance(st, TileType)
            result_type = st.with_shape([st.get_shape()[p] for p in permutation])
        super().__init__(
            operands=[source, list(sizes)],
            result_types=[result_type],
            properties={"permutation": int_array(permutation)},
        )

    @classmethod
    def _parse_middle(cls, parser: Parser) -> dict:
        return {"perm": parse_int_list(parser)}

    def _print_middle(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_int_list(printer, int_list(self.permutation))

    @classmethod
    def _make(cls, source, result_type, sizes, middle):
        return cls(source, middle["perm"], result_type, sizes)  # sizes are rejected by the verifier

    def verify_(self) -> None:
        st, rt = self.source.type, self.result.type
        assert isinstance(st, TileType) and isinstance(rt, TileType)
        if len(self.sizes):
            raise self.error("takes no size operands (the result's sizes are the source's)")
        perm = int_list(self.permutation)
        if sorted(perm) != list(range(st.rank)):
            raise self.error(f"{list(perm)} is not a permutation of the {st.rank} axes")
        if st.element_type != rt.element_type:
            raise self.error("element type must not change")
        expected = [st.get_shape()[p] for p in perm]
        if not shapes_compatible(expected, rt.get_shape()):
            raise self.error(f"result shape should be {shape_str(expected)}, got {shape_str(rt.get_shape())}")


@irdl_op_definition
class ReshapeOp(ConvertOp):
    """Same elements in row-major order, new shape (element counts must agree).

    %r = tile.reshape %x : !tile.tile<4x16xf32> to !tile.tile<64xf32>
    """

    name = "tile.reshape"

    def __init__(self, source: SSAValue, result_type: TileType, sizes: Sequence[SSAValue] = ()):
        super().__init__(operands=[source, list(sizes)], result_types=[result_type])

    @classmethod
    def _make(cls, source, result_type, sizes, middle):
        return cls(source, result_type, sizes)

    def verify_(self) -> None:
        st, rt = self.source.type, self.result.type
        assert isinstance(st, TileType) and isinstance(rt, TileType)
        if st.element_type != rt.element_type:
            raise self.error("element type must not change")
        _check_dynamic_sizes(self, rt, self.sizes)
        a, b = st.num_elements(), rt.num_elements()
        if a is not None and b is not None and a != b:
            raise self.error(f"{shape_str(st.get_shape())} has {a} elements but {shape_str(rt.get_shape())} has {b}")


# --- slicing and joining (views: read per index, no copy unless needed) -------------------------


def _norm_offset(offset: int, n: int) -> int:
    """A slice offset counted from the end when negative (Python's rule), for a static size n."""
    return offset + n if offset < 0 else offset


@irdl_op_definition
class SliceOp(ConvertOp):
    """A strided window: result[..., i, ...] = source[..., offset + stride * i, ...] on each axis.

    A negative offset counts from the end of the axis (`-1` is the last element); strides are
    non-zero and may be negative (`[-1]` with stride `-1` reverses an axis). The result's sizes
    are its type's. A `?` result axis keeps a `?` source axis whole: offset 0 stride 1, or
    reversed (offset -1, stride -1). A static window of a `?` axis is checked when the program is
    called (every index it reads must lie in the axis).

    %s = tile.slice %x offsets [0, 1] strides [1, 1] : !tile.tile<8x16xf32> to !tile.tile<8x4xf32>
    %r = tile.slice %x offsets [-1, 0] strides [-1, 2] : !tile.tile<8x16xf32> to !tile.tile<8x8xf32>
    """

    name = "tile.slice"
    offsets = prop_def(DenseArrayBase)
    strides = prop_def(DenseArrayBase)

    def __init__(
        self,
        source: SSAValue,
        offsets: Sequence[int],
        strides: Sequence[int],
        result_type: TileType,
        sizes: Sequence[SSAValue] = (),
    ):
        super().__init__(
            operands=[source, list(sizes)],
            result_types=[result_type],
            properties={"offsets": int_array(offsets), "strides": int_array(strides)},
        )

    @classmethod
    def _parse_middle(cls, parser: Parser) -> dict:
        parser.parse_keyword("offsets")
        offsets = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        parser.parse_keyword("strides")
        strides = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        return {"offsets": offsets, "strides": strides}

    def _print_middle(self, printer: Printer) -> None:
        printer.print_string(" offsets ")
        print_int_list(printer, int_list(self.offsets))
        printer.print_string(" strides ")
        print_int_list(printer, int_list(self.strides))

    @classmethod
    def _make(cls, source, result_type, sizes, middle):
        return cls(source, middle["offsets"], middle["strides"], result_type, sizes)  # sizes: rejected

    def verify_(self) -> None:
        st, rt = self.source.type, self.result.type
        assert isinstance(st, TileType) and isinstance(rt, TileType)
        if len(self.sizes):
            raise self.error("takes no size operands (a `?` size is the source's)")
        if st.element_type != rt.element_type:
            raise self.error(f"element type must not change: {st.element_type} vs {rt.element_type}")
        offsets, strides = int_list(self.offsets), int_list(self.strides)
        if not (len(offsets) == len(strides) == st.rank == rt.rank):
            raise self.error(
                f"needs one offset and one stride per axis and the same rank: source rank {st.rank}, "
                f"result rank {rt.rank}, {len(offsets)} offsets, {len(strides)} strides"
            )
        for a, (o, s, n, m) in enumerate(zip(offsets, strides, st.get_shape(), rt.get_shape())):
            if s == 0:
                raise self.error(f"axis {a}: stride must not be 0")
            if m == DYNAMIC:
                if not (n == DYNAMIC and (o, s) in ((0, 1), (-1, -1))):
                    raise self.error(
                        f"axis {a}: a dynamic result size needs a dynamic source axis kept whole (offsets 0 / "
                        f"strides 1, or offsets -1 / strides -1 to reverse it), got size {dim_str(n)} -> "
                        f"{dim_str(m)}, offset {o}, stride {s}"
                    )
                continue
            if n == DYNAMIC:
                if m and o >= 0 and o + s * (m - 1) < 0:
                    raise self.error(f"axis {a}: offset {o} stride {s} size {m} reads index {o + s * (m - 1)} < 0")
                continue  # a static window of a dynamic axis: its bounds are checked at the call
            if m == 0:
                continue
            first = _norm_offset(o, n)
            last = first + s * (m - 1)
            if not (0 <= first < n and 0 <= last < n):
                raise self.error(
                    f"axis {a}: offset {o} stride {s} size {m} reads indices {first}..{last}, outside [0, {n})"
                )


@irdl_op_definition
class DynamicSliceOp(TileOp):
    """A window of static `size` along `axis` starting at a run-time index, like
    `jax.lax.dynamic_slice`: `start` is a rank-0 integer tile, clamped to [0, n - size], so the
    window always lies inside the source (a `?` source axis must be at least `size` long: checked
    when the program is called).

    %w = tile.dynamic_slice %x[%i] axis 1 : !tile.tile<8x16xf32>, !tile.tile<i64> to !tile.tile<8x4xf32>
    """

    name = "tile.dynamic_slice"
    source = operand_def(TileType)
    start = operand_def(TileType)
    axis = prop_def(IntAttr)
    result = result_def(TileType)

    traits = traits_def(Pure())

    def __init__(self, source: SSAValue, start: SSAValue, axis: int, result_type: TileType):
        super().__init__(operands=[source, start], result_types=[result_type], properties={"axis": IntAttr(axis)})

    def verify_(self) -> None:
        st, rt = _tile(self, self.source, "source"), self.result.type
        it = _tile(self, self.start, "start")
        assert isinstance(rt, TileType)
        if it.rank != 0 or not is_int(it.element_type) or it.element_type == i1:
            raise self.error(f"start must be a rank-0 integer tile, got {it}")
        if st.element_type != rt.element_type:
            raise self.error(f"element type must not change: {st.element_type} vs {rt.element_type}")
        a = self.axis.data
        if not 0 <= a < st.rank or rt.rank != st.rank:
            raise self.error(f"axis {a} is out of range, or the rank changes ({st.rank} -> {rt.rank})")
        n, m = st.get_shape()[a], rt.get_shape()[a]
        if m == DYNAMIC:
            raise self.error(f"the window size on axis {a} must be static, got {dim_str(n)} -> {dim_str(m)}")
        if n != DYNAMIC and m > n:
            raise self.error(f"window size {m} is larger than the source's axis {a} ({n})")
        others = [d for i, d in enumerate(st.get_shape()) if i != a]
        rothers = [d for i, d in enumerate(rt.get_shape()) if i != a]
        if not shapes_compatible(others, rothers):
            raise self.error(f"only axis {a} may change: {shape_str(st.get_shape())} vs {shape_str(rt.get_shape())}")

    @classmethod
    def parse(cls, parser: Parser) -> DynamicSliceOp:
        src = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        start = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
        parser.parse_keyword("axis")
        axis = parser.parse_integer(allow_negative=False)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        st = _parse_tile_type(parser)
        parser.parse_punctuation(",")
        it = _parse_tile_type(parser)
        parser.parse_keyword("to")
        rt = _parse_tile_type(parser)
        op = cls(parser.resolve_operand(src, st), parser.resolve_operand(start, it), axis, rt)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string("[")
        printer.print_operand(self.start)
        printer.print_string(f"] axis {self.axis.data}")
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.source.type}, {self.start.type} to {self.result.type}")


@irdl_op_definition
class ConcatOp(TileOp):
    """Tiles joined along `axis` (static sizes on that axis; the other axes agree).

    %c = tile.concat %a, %b axis 1 : !tile.tile<4x3xf32>, !tile.tile<4x5xf32> to !tile.tile<4x8xf32>
    """

    name = "tile.concat"
    inputs = var_operand_def(TileType)
    axis = prop_def(IntAttr)
    result = result_def(TileType)

    traits = traits_def(Pure())

    def __init__(self, inputs: Sequence[SSAValue], axis: int, result_type: TileType):
        super().__init__(operands=[list(inputs)], result_types=[result_type], properties={"axis": IntAttr(axis)})

    def verify_(self) -> None:
        rt = self.result.type
        assert isinstance(rt, TileType)
        if not self.inputs:
            raise self.error("needs at least one input")
        a = self.axis.data
        if not 0 <= a < rt.rank:
            raise self.error(f"axis {a} is out of range for rank {rt.rank}")
        total = 0
        for k, v in enumerate(self.inputs):
            t = _tile(self, v, f"input {k}")
            if t.element_type != rt.element_type or t.rank != rt.rank:
                raise self.error(f"input {k} is {t}, but the result is {rt}: element type and rank must agree")
            d = t.get_shape()[a]
            if d == DYNAMIC:
                raise self.error(f"input {k} has a dynamic size on the concatenated axis {a}")
            total += d
            for i, (x, y) in enumerate(zip(t.get_shape(), rt.get_shape())):
                if i != a and not dims_compatible(x, y):
                    raise self.error(f"input {k} axis {i} has size {dim_str(x)} but the result's is {dim_str(y)}")
        if rt.get_shape()[a] != total:
            raise self.error(f"result axis {a} has size {dim_str(rt.get_shape()[a])}, the inputs sum to {total}")

    @classmethod
    def parse(cls, parser: Parser) -> ConcatOp:
        names = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        parser.parse_keyword("axis")
        axis = parser.parse_integer(allow_negative=False)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        start = parser.pos
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, lambda: _parse_tile_type(parser))
        if len(types) != len(names):
            parser.raise_error(f"{len(names)} inputs but {len(types)} types", start, consumed_end(parser, start))
        parser.parse_keyword("to")
        rt = _parse_tile_type(parser)
        op = cls([parser.resolve_operand(n, t) for n, t in zip(names, types)], axis, rt)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_string(f" axis {self.axis.data}")
        print_extra_attrs(printer, self)
        printer.print_string(" : ")
        printer.print_list([v.type for v in self.inputs], printer.print_attribute)
        printer.print_string(f" to {self.result.type}")


@irdl_op_definition
class PadOp(ConvertOp):
    """Constant padding: `low[a]` elements of `value` before and `high[a]` after each axis
    (`numpy.pad(mode="constant")`; widths >= 0; a `?` axis takes no padding).

    %p = tile.pad %x low [1, 0] high [2, 3] value 0.0 : !tile.tile<4x5xf32> to !tile.tile<7x8xf32>
    """

    name = "tile.pad"
    low = prop_def(DenseArrayBase)
    high = prop_def(DenseArrayBase)
    value = prop_def(FloatAttr | IntegerAttr)

    def __init__(
        self,
        source: SSAValue,
        low: Sequence[int],
        high: Sequence[int],
        value: Attribute | float | int,
        result_type: TileType,
        sizes: Sequence[SSAValue] = (),
    ):
        elt = result_type.element_type
        if isinstance(value, bool | int | float):
            value = float_attr(value, elt) if is_float(elt) else IntegerAttr(int(value), elt)
        super().__init__(
            operands=[source, list(sizes)],
            result_types=[result_type],
            properties={"low": int_array(low), "high": int_array(high), "value": value},
        )

    def pad_value(self) -> float | int:
        return self.value.value.data

    @classmethod
    def _parse_middle(cls, parser: Parser) -> dict:
        parser.parse_keyword("low")
        low = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        parser.parse_keyword("high")
        high = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        parser.parse_keyword("value")
        hex_bits = parser._current_token.text[:2] in ("0x", "0X")
        if parser.parse_optional_keyword("true") is not None:
            number = 1
        elif parser.parse_optional_keyword("false") is not None:
            number = 0
        else:
            number = parser.parse_number()
        return {"low": low, "high": high, "value": number, "hex": hex_bits}

    def _print_middle(self, printer: Printer) -> None:
        printer.print_string(" low ")
        print_int_list(printer, int_list(self.low))
        printer.print_string(" high ")
        print_int_list(printer, int_list(self.high))
        printer.print_string(" value ")
        v = self.value
        if isinstance(v, FloatAttr):
            printer.print_float(v.value.data, v.type)
        elif v.type == i1:
            printer.print_string("true" if v.value.data else "false")
        else:
            printer.print_string(str(v.value.data))

    @classmethod
    def _make(cls, source, result_type, sizes, middle):
        number, elt = middle["value"], result_type.element_type
        if isinstance(number, float) and not is_float(elt):
            number = FloatAttr(number, f64)  # the verifier reports the type mismatch
        elif middle["hex"] and is_float(elt) and 0 <= number < 1 << bitwidth(elt):
            # `0x7F800000` is that bit pattern (how inf and nan print), as in tile.constant
            number = FloatAttr(next(elt.iter_unpack(number.to_bytes(bitwidth(elt) // 8, "little"))), elt)
        return cls(source, middle["low"], middle["high"], number, result_type, sizes)

    def verify_(self) -> None:
        st, rt = self.source.type, self.result.type
        assert isinstance(st, TileType) and isinstance(rt, TileType)
        if len(self.sizes):
            raise self.error("takes no size operands (a `?` axis is not padded)")
        if st.element_type != rt.element_type:
            raise self.error(f"element type must not change: {st.element_type} vs {rt.element_type}")
        if self.value.type != rt.element_type:
            raise self.error(f"value has type {self.value.type} but the tile holds {rt.element_type}")
        low, high = int_list(self.low), int_list(self.high)
        if not (len(low) == len(high) == st.rank == rt.rank):
            raise self.error(f"needs one low and one high width per axis (rank {st.rank})")
        for a, (lo, hi, n, m) in enumerate(zip(low, high, st.get_shape(), rt.get_shape())):
            if lo < 0 or hi < 0:
                raise self.error(f"axis {a}: widths must be >= 0, got low {lo} high {hi}")
            if n == DYNAMIC or m == DYNAMIC:
                if not (n == m == DYNAMIC and lo == hi == 0):
                    raise self.error(f"axis {a}: a dynamic axis cannot be padded ({dim_str(n)} -> {dim_str(m)})")
                continue
            if m != n + lo + hi:
                raise self.error(f"axis {a}: {n} + {lo} + {hi} is {n + lo + hi}, but the result has {m}")


# --- gathers and scatters (indices from a tile; out-of-range: an error, never an access) --------


def _index_tile(op: Operation, value: SSAValue) -> TileType:
    t = _tile(op, value, "indices")
    if not is_int(t.element_type) or t.element_type == i1:
        raise op_error(op, f"indices must be an integer tile (signed or unsigned), got {t}")
    return t


class _IndexedOp(TileOp):
    """Shared syntax of the gather/scatter ops: `%x[%idx](, %src)? axis A : types to result`."""

    axis = prop_def(IntAttr)
    result = result_def(TileType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        src = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        idx = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
        extra_operand = None
        if cls.HAS_UPDATES:
            parser.parse_punctuation(",")
            extra_operand = parser.parse_unresolved_operand()
        parser.parse_keyword("axis")
        axis = parser.parse_integer(allow_negative=False)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        types = [_parse_tile_type(parser)]
        parser.parse_punctuation(",")
        types.append(_parse_tile_type(parser))
        if cls.HAS_UPDATES:
            parser.parse_punctuation(",")
            types.append(_parse_tile_type(parser))
        parser.parse_keyword("to")
        rt = _parse_tile_type(parser)
        names = [src, idx] + ([extra_operand] if cls.HAS_UPDATES else [])
        operands = [parser.resolve_operand(n, t) for n, t in zip(names, types)]
        op = cls(*operands, axis, rt)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        ops = list(self.operands)
        printer.print_string(" ")
        printer.print_operand(ops[0])
        printer.print_string("[")
        printer.print_operand(ops[1])
        printer.print_string("]")
        if self.HAS_UPDATES:
            printer.print_string(", ")
            printer.print_operand(ops[2])
        printer.print_string(f" axis {self.axis.data}")
        print_extra_attrs(printer, self)
        printer.print_string(" : ")
        printer.print_list([v.type for v in ops], printer.print_attribute)
        printer.print_string(f" to {self.result.type}")


def index_origin(value: SSAValue) -> str:
    """Where a gather/scatter's indices come from, for error messages: "argument 'labels'" when
    they are an argument read through views (loads, casts, broadcasts, reshapes, transposes,
    slices, also across `tile.fused` inputs), else "a computed index tile"."""
    seen = 0
    while seen < 64:
        seen += 1
        if isinstance(value, BlockArgument):
            owner = value.owner.parent_op() if isinstance(value.owner, Block) else None
            if isinstance(owner, FuncOp):
                return f"argument '{value.name_hint}'" if value.name_hint else f"argument #{value.index}"
            if isinstance(owner, FusedOp):
                value = owner.inputs[value.index]
                continue
            if owner is None and value.name_hint:  # a function body being traced (TILEC_INTERPRET)
                return f"argument '{value.name_hint}'"
            break
        op = value.owner
        if isinstance(op, LoadOp | CastOp | BroadcastOp | ReshapeOp | TransposeOp | SliceOp | DynamicSliceOp):
            value = op.operands[0]
            continue
        break
    return "a computed index tile"


@irdl_op_definition
class TakeOp(_IndexedOp):
    """`numpy.take(source, indices, axis)`: the result's shape is source.shape[:axis] +
    indices.shape + source.shape[axis+1:], and result[p, j, q] = source[p, indices[j], q].
    A negative index counts from the end (in [-n, n), numpy's mode="raise"); any other index is
    out of range: the interpreter raises, compiled code reads element 0 instead and the call
    raises `IndexOutOfRange` (the kernel sets the call's status word).

    %e = tile.take %w[%ids] axis 0 : !tile.tile<100x16xf32>, !tile.tile<4x7xi64> to !tile.tile<4x7x16xf32>
    """

    name = "tile.take"
    source = operand_def(TileType)
    indices = operand_def(TileType)
    HAS_UPDATES: ClassVar[bool] = False

    def __init__(self, source: SSAValue, indices: SSAValue, axis: int, result_type: TileType):
        super().__init__(operands=[source, indices], result_types=[result_type], properties={"axis": IntAttr(axis)})

    def verify_(self) -> None:
        st, it, rt = _tile(self, self.source, "source"), _index_tile(self, self.indices), self.result.type
        assert isinstance(rt, TileType)
        a = self.axis.data
        if not 0 <= a < st.rank:
            raise self.error(f"axis {a} is out of range for a source of rank {st.rank}")
        if st.element_type != rt.element_type:
            raise self.error(f"element type must not change: {st.element_type} vs {rt.element_type}")
        ss = st.get_shape()
        expected = [*ss[:a], *it.get_shape(), *ss[a + 1 :]]
        if not shapes_compatible(expected, rt.get_shape()):
            raise self.error(
                f"result shape should be {shape_str(expected)} (source.shape[:{a}] + indices.shape + "
                f"source.shape[{a + 1}:]), got {shape_str(rt.get_shape())}"
            )
        if ss[a] == 0 and it.num_elements() != 0:
            raise self.error(f"cannot take from the empty axis {a}")


@irdl_op_definition
class TakeAlongAxisOp(_IndexedOp):
    """`numpy.take_along_axis(source, indices, axis)` with indices already broadcast: indices has
    the source's rank and sizes except along `axis`; result[i] = source[i with i[axis] replaced
    by indices[i]] (the result has the indices' shape). Negative indices and out-of-range
    indices behave as for `tile.take`.

    %p = tile.take_along_axis %logits[%lab] axis 1 : !tile.tile<8x10xf32>, !tile.tile<8x1xi64> to !tile.tile<8x1xf32>
    """

    name = "tile.take_along_axis"
    source = operand_def(TileType)
    indices = operand_def(TileType)
    HAS_UPDATES: ClassVar[bool] = False

    def __init__(self, source: SSAValue, indices: SSAValue, axis: int, result_type: TileType):
        super().__init__(operands=[source, indices], result_types=[result_type], properties={"axis": IntAttr(axis)})

    def verify_(self) -> None:
        st, it, rt = _tile(self, self.source, "source"), _index_tile(self, self.indices), self.result.type
        assert isinstance(rt, TileType)
        a = self.axis.data
        if it.rank != st.rank or not 0 <= a < st.rank:
            raise self.error(f"indices must have the source's rank ({st.rank}, got {it.rank}) and axis {a} lie in it")
        if st.element_type != rt.element_type:
            raise self.error(f"element type must not change: {st.element_type} vs {rt.element_type}")
        for i, (n, m) in enumerate(zip(st.get_shape(), it.get_shape())):
            if i != a and not dims_compatible(n, m):
                raise self.error(
                    f"indices axis {i} has size {dim_str(m)} but the source's is {dim_str(n)} (broadcast them first)"
                )
        if not shapes_compatible(it.get_shape(), rt.get_shape()):
            raise self.error(f"result shape should be the indices' {shape_str(it.get_shape())}")
        if st.get_shape()[a] == 0 and it.num_elements() != 0:
            raise self.error(f"cannot take from the empty axis {a}")


@irdl_op_definition
class ScatterAddOp(_IndexedOp):
    """`torch.scatter_add(source, axis, indices, updates)` as a value: a copy of `source`, then for
    every element i of `indices`: result[i with i[axis] replaced by indices[i]] += updates[i],
    in the order of i (duplicate indices accumulate). `indices` and `updates` have one shape,
    equal to the source's except along `axis`. An index outside [0, n) (negative ones too, as in
    torch) is out of range: the interpreter raises, compiled code skips that update and the call
    raises `IndexOutOfRange`.

    %g = tile.scatter_add %z[%ids], %dy axis 0 : !tile.tile<100x16xf32>, !tile.tile<28x16xi64>, !tile.tile<28x16xf32> to !tile.tile<100x16xf32>
    """

    name = "tile.scatter_add"
    source = operand_def(TileType)
    indices = operand_def(TileType)
    updates = operand_def(TileType)
    HAS_UPDATES: ClassVar[bool] = True

    def __init__(self, source: SSAValue, indices: SSAValue, updates: SSAValue, axis: int, result_type: TileType):
        super().__init__(
            operands=[source, indices, updates], result_types=[result_type], properties={"axis": IntAttr(axis)}
        )

    def verify_(self) -> None:
        st, it = _tile(self, self.source, "source"), _index_tile(self, self.indices)
        ut, rt = _tile(self, self.updates, "updates"), self.result.type
        assert isinstance(rt, TileType)
        a = self.axis.data
        if not 0 <= a < st.rank or it.rank != st.rank:
            raise self.error(f"indices must have the source's rank ({st.rank}, got {it.rank}) and axis {a} lie in it")
        if ut.element_type != st.element_type or rt != st:
            raise self.error(f"updates and result must have the source's element type and the result its type {st}")
        if st.element_type == i1:
            raise self.error("cannot accumulate into a mask (i1) tile")
        if not shapes_compatible(it.get_shape(), ut.get_shape()):
            raise self.error(
                f"indices {shape_str(it.get_shape())} and updates {shape_str(ut.get_shape())} must have one shape"
            )
        for i, (n, m) in enumerate(zip(st.get_shape(), it.get_shape())):
            if i != a and not dims_compatible(n, m):
                raise self.error(f"indices axis {i} has size {dim_str(m)} but the source's is {dim_str(n)}")


REDUCE_KINDS = ("sum", "max", "min", "prod")
ARG_REDUCE_KINDS = ("argmax", "argmin")
"""Reductions to the i64 index of the first max / min over the reduced axes (row-major over them:
numpy's index into the flattened axes; a NaN counts as the largest and the smallest value: the
first NaN wins, as numpy's argmax/argmin)."""


@irdl_op_definition
class ReduceOp(ConvertOp):
    """Reduction over the listed axes, which are removed from the result.

    %s = tile.reduce sum %x [1] : !tile.tile<64x32xf32> to !tile.tile<64xf32>
    %m = tile.reduce max %x [0, 1] : !tile.tile<64x32xf32> to !tile.tile<f32>
    %i = tile.reduce argmax %x [1] : !tile.tile<64x32xf32> to !tile.tile<64xi64>

    `argmax` / `argmin` give the i64 index of the first max / min (the first NaN, if any: numpy's
    rule); over several (increasing) axes the index is row-major over them, as numpy's argmax of
    the flattened axes.
    """

    name = "tile.reduce"
    kind = prop_def(StringAttr)
    axes = prop_def(DenseArrayBase)

    def __init__(self, kind: str, source: SSAValue, axes: Sequence[int], result_type: TileType | None = None):
        if result_type is None:
            st = source.type
            assert isinstance(st, TileType)
            result_type = st.with_shape([d for i, d in enumerate(st.get_shape()) if i not in axes])
        super().__init__(
            operands=[source, []],
            result_types=[result_type],
            properties={"kind": StringAttr(kind), "axes": int_array(axes)},
        )

    @classmethod
    def parse(cls, parser: Parser):
        kind = parse_keyword_choice(parser, REDUCE_KINDS + ARG_REDUCE_KINDS, "a reduction kind")
        src = parser.parse_unresolved_operand()
        axes = parse_int_list(parser)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        st = _parse_tile_type(parser)
        parser.parse_keyword("to")
        rt = _parse_tile_type(parser)
        op = cls(kind, parser.resolve_operand(src, st), axes, rt)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_operand(self.source)
        printer.print_string(" ")
        print_int_list(printer, int_list(self.axes))
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.source.type} to {self.result.type}")

    def verify_(self) -> None:
        st, rt = self.source.type, self.result.type
        assert isinstance(st, TileType) and isinstance(rt, TileType)
        kinds = REDUCE_KINDS + ARG_REDUCE_KINDS
        if self.kind.data not in kinds:
            raise self.error(f"unknown reduction '{self.kind.data}' (expected one of {', '.join(kinds)})")
        axes = int_list(self.axes)
        for a in axes:
            if not 0 <= a < st.rank:
                raise self.error(f"axis {a} is out of range for rank {st.rank}")
        if len(set(axes)) != len(axes):
            raise self.error(f"axis listed twice: {list(axes)}")
        if st.element_type == i1:
            raise self.error("cannot reduce an i1 (mask) tile")
        expected = [d for i, d in enumerate(st.get_shape()) if i not in axes]
        if self.kind.data in ARG_REDUCE_KINDS:
            if not axes or list(axes) != sorted(axes):
                raise self.error(
                    f"{self.kind.data} needs increasing axes (its index is row-major over them), got {list(axes)}"
                )
            if rt.element_type != i64:
                raise self.error(f"{self.kind.data} gives i64 indices, not {rt.element_type}")
        elif st.element_type != rt.element_type:
            raise self.error("element type must not change")
        if not shapes_compatible(expected, rt.get_shape()):
            raise self.error(f"result shape should be {shape_str(expected)}, got {shape_str(rt.get_shape())}")


# --- pooling (issue 11: max/avg/adaptive pools and the average pool's backward) -----------------

POOL_KINDS = ("max", "avg", "adaptive_max", "adaptive_avg", "avg_grad", "max_grad")
"""`max`/`avg`: windows of `kernel` taps every `stride` (with `padding` before each axis and
`dilation` between taps); `adaptive_*`: torch's adaptive bins; `avg_grad`, `max_grad`: the
gradients of `avg` and `max` with respect to their input (the source is the output gradient,
the result has the input's shape; `max_grad` also takes `max`'s indices)."""


def pool_output_size(n: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """torch's pooled size of an axis of n: floor or ceil of (n + 2p - d(k-1) - 1) / s, plus 1;
    in ceil mode, a last window that would start in the right padding is dropped."""
    span = n + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def adaptive_bins(n: int, m: int) -> list[tuple[int, int]]:
    """torch's adaptive bins of an axis of n into m: [floor(i n / m), ceil((i + 1) n / m))."""
    return [((i * n) // m, -(-((i + 1) * n) // m)) for i in range(m)]


@irdl_op_definition
class PoolOp(TileOp):
    """A window reduction over the last `rank` axes of a tile (torch's pooling, layout (..., *S)).

    %y, %i = tile.pool max %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] : !tile.tile<2x3x9x9xf32> to !tile.tile<2x3x5x5xf32>, !tile.tile<2x3x5x5xi64>
    %a = tile.pool avg %x kernel [2] stride [2] padding [1] dilation [1] exclude_pad : !tile.tile<4x7xf32> to !tile.tile<4x4xf32>
    %g = tile.pool adaptive_avg %x rank 2 : !tile.tile<2x3x7x7xf32> to !tile.tile<2x3x1x1xf32>
    %d = tile.pool max_grad %dy[%i] kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] : !tile.tile<2x3x5x5xf32>, !tile.tile<2x3x5x5xi64> to !tile.tile<2x3x9x9xf32>

    `max` and `adaptive_max` take the first maximum of each window, or its last NaN (torch's rule:
    replace when `x > acc or isnan(x)`); their optional second result is its index, flat within
    each plane of the pooled axes, int64 (torch's `return_indices`). Padding never wins a max.
    `avg` divides a window's sum by `divisor` if given, else by its taps inside the input and the
    padding (cut at the padding's end; `exclude_pad`: inside the input only). `avg_grad` maps an
    `avg` output gradient to the input gradient: each input element sums dy / divisor over the
    windows holding it; `max_grad` (operands dy and `max`'s indices) sums, for each input
    element, the dy of the windows holding it whose index names it (a gather: no scatter). The
    result sizes are the op's (floor or ceil mode: the verifier accepts both); the pooled axes
    have static sizes.
    """

    name = "tile.pool"
    kind = prop_def(StringAttr)
    rank = prop_def(IntAttr)
    kernel = opt_prop_def(DenseArrayBase)
    stride = opt_prop_def(DenseArrayBase)
    padding = opt_prop_def(DenseArrayBase)
    dilation = opt_prop_def(DenseArrayBase)
    divisor = opt_prop_def(IntAttr)
    exclude_pad = opt_prop_def(UnitAttr)
    source = operand_def(TileType)
    argmax = opt_operand_def(TileType)  # max_grad: max's indices
    result = result_def(TileType)
    indices = opt_result_def(TileType)
    traits = traits_def(Pure())

    WINDOWED: ClassVar[tuple[str, ...]] = ("max", "avg", "avg_grad", "max_grad")
    GRADS: ClassVar[tuple[str, ...]] = ("avg_grad", "max_grad")

    def __init__(
        self,
        kind: str,
        source: SSAValue,
        result_type: TileType,
        *,
        rank: int | None = None,
        kernel: Sequence[int] = (),
        stride: Sequence[int] = (),
        padding: Sequence[int] = (),
        dilation: Sequence[int] = (),
        divisor: int | None = None,
        exclude_pad: bool = False,
        with_indices: bool = False,
        indices_type: TileType | None = None,
        argmax: SSAValue | None = None,
    ):
        props: dict[str, Attribute] = {"kind": StringAttr(kind), "rank": IntAttr(len(kernel) if rank is None else rank)}
        if kind in self.WINDOWED:
            for name, values in (("kernel", kernel), ("stride", stride), ("padding", padding), ("dilation", dilation)):
                props[name] = int_array(values)
        if divisor is not None:
            props["divisor"] = IntAttr(divisor)
        if exclude_pad:
            props["exclude_pad"] = UnitAttr()
        if with_indices and indices_type is None:
            indices_type = result_type.with_element(i64)
        super().__init__(
            operands=[source, [] if argmax is None else [argmax]],
            result_types=[result_type, [] if indices_type is None else [indices_type]],
            properties=props,
        )

    def window(self) -> list[tuple[int, int, int, int]]:
        """(kernel, stride, padding, dilation) per pooled axis (windowed kinds)."""
        return list(zip(*(int_list(getattr(self, n)) for n in ("kernel", "stride", "padding", "dilation"))))

    @classmethod
    def parse(cls, parser: Parser):
        kind = parse_keyword_choice(parser, POOL_KINDS, "a pooling kind")
        src = parser.parse_unresolved_operand()
        arg = None
        if parser.parse_optional_punctuation("[") is not None:
            arg = parser.parse_unresolved_operand()
            parser.parse_punctuation("]")
        kw: dict = {}
        if kind in cls.WINDOWED:
            for name in ("kernel", "stride", "padding", "dilation"):
                parser.parse_keyword(name)
                kw[name] = parse_int_list(parser)
            if parser.parse_optional_keyword("exclude_pad") is not None:
                kw["exclude_pad"] = True
            if parser.parse_optional_keyword("divisor") is not None:
                kw["divisor"] = parser.parse_integer()
        else:
            parser.parse_keyword("rank")
            kw["rank"] = parser.parse_integer(allow_negative=False)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        st = _parse_tile_type(parser)
        if arg is not None:
            parser.parse_punctuation(",")
            arg = parser.resolve_operand(arg, _parse_tile_type(parser))
        parser.parse_keyword("to")
        rt = _parse_tile_type(parser)
        it = None
        if parser.parse_optional_punctuation(",") is not None:
            it = _parse_tile_type(parser)
        op = cls(kind, parser.resolve_operand(src, st), rt, indices_type=it, argmax=arg, **kw)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_operand(self.source)
        if self.argmax is not None:
            printer.print_string("[")
            printer.print_operand(self.argmax)
            printer.print_string("]")
        if self.kind.data in self.WINDOWED:
            for name in ("kernel", "stride", "padding", "dilation"):
                printer.print_string(f" {name} ")
                print_int_list(printer, int_list(getattr(self, name)))
            if self.exclude_pad is not None:
                printer.print_string(" exclude_pad")
            if self.divisor is not None:
                printer.print_string(f" divisor {self.divisor.data}")
        else:
            printer.print_string(f" rank {self.rank.data}")
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.source.type}")
        if self.argmax is not None:
            printer.print_string(f", {self.argmax.type}")
        printer.print_string(f" to {self.result.type}")
        if self.indices is not None:
            printer.print_string(f", {self.indices.type}")

    def verify_(self) -> None:
        st, rt = self.source.type, self.result.type
        assert isinstance(st, TileType) and isinstance(rt, TileType)
        kind = self.kind.data
        if kind not in POOL_KINDS:
            raise self.error(f"unknown pooling kind '{kind}' (expected one of {', '.join(POOL_KINDS)})")
        r = self.rank.data
        if not 1 <= r <= st.rank:
            raise self.error(f"pools 1 to {st.rank} trailing axes, got rank {r}")
        if st.rank != rt.rank:
            raise self.error(f"result rank {rt.rank} differs from the source's {st.rank}")
        if st.element_type != rt.element_type:
            raise self.error(f"element type must not change: {st.element_type} vs {rt.element_type}")
        if not is_float(st.element_type) or is_fp8(st.element_type):
            raise self.error(f"pools f16, bf16, f32 or f64 tiles, got {st.element_type}")
        lead = st.rank - r
        if not shapes_compatible(st.get_shape()[:lead], rt.get_shape()[:lead]):
            raise self.error(
                f"the leading axes must not change: {shape_str(st.get_shape())} vs {shape_str(rt.get_shape())}"
            )
        ins, outs = st.get_shape()[lead:], rt.get_shape()[lead:]
        if DYNAMIC in ins or DYNAMIC in outs:
            raise self.error("the pooled axes must have static sizes")
        if self.indices is not None:
            if kind not in ("max", "adaptive_max"):
                raise self.error(f"only max pools have an indices result, not {kind}")
            if self.indices.type != rt.with_element(i64):
                raise self.error(f"the indices must be {rt.with_element(i64)}, got {self.indices.type}")
        if (self.argmax is not None) != (kind == "max_grad"):
            raise self.error("max_grad takes the forward's indices (`%dy[%indices]`), and only it does")
        if self.argmax is not None and self.argmax.type != st.with_element(i64):
            raise self.error(f"the indices must be {st.with_element(i64)}, got {self.argmax.type}")
        if (self.divisor is not None or self.exclude_pad is not None) and kind not in ("avg", "avg_grad"):
            raise self.error(f"divisor and exclude_pad belong to average pools, not {kind}")
        if self.divisor is not None and self.divisor.data == 0:
            raise self.error("divisor must not be 0")
        for a, (n, m) in enumerate(zip(ins, outs)):
            if n < 1 or m < 1:
                raise self.error(f"pooled axis {lead + a}: sizes must be >= 1, got {n} -> {m}")
        if kind not in self.WINDOWED:
            return
        win = [int_list(getattr(self, n)) for n in ("kernel", "stride", "padding", "dilation")]
        if any(len(w) != r for w in win):
            raise self.error(f"needs one kernel, stride, padding and dilation per pooled axis ({r})")
        if kind in self.GRADS:
            ins, outs = outs, ins  # the windows run over the result (the forward input)
        for a, ((k, s, p, d), n, m) in enumerate(zip(zip(*win), ins, outs)):
            if k < 1 or s < 1 or d < 1 or p < 0:
                raise self.error(f"axis {lead + a}: needs kernel, stride, dilation >= 1 and padding >= 0")
            if 2 * p > k:
                raise self.error(f"axis {lead + a}: padding {p} is more than half the kernel {k}")
            if kind not in ("max", "max_grad") and d != 1:
                raise self.error(f"axis {lead + a}: average pools have no dilation (got {d})")
            sizes = {pool_output_size(n, k, s, p, d, c) for c in (False, True)}
            if m not in sizes:
                want = " or ".join(str(x) for x in sorted(sizes))
                raise self.error(
                    f"axis {lead + a}: {n} pooled by kernel {k}, stride {s}, padding {p}, "
                    f"dilation {d} gives {want}, not {m}"
                )


# --- scans (issue 11: cumsum, cumprod, logcumsumexp) -----------------------------------------------

SCAN_KINDS = ("add", "mul", "logaddexp")


@irdl_op_definition
class ScanOp(TileOp):
    """Inclusive prefix combination along one axis (16-bit floats accumulate in f32):

        %c = tile.scan add %x axis 1 : !tile.tile<8x16xf32>
        %r = tile.scan mul %x axis 0 reverse exclusive : !tile.tile<8x16xi32>
        %l = tile.scan logaddexp %x axis 1 : !tile.tile<8x16xf32>

    `add` is numpy's cumsum, `mul` cumprod (integers wrap in their type), `logaddexp`
    torch.logcumsumexp (floats only). `reverse` runs from the end of the axis; `exclusive`
    leaves each element out of its own prefix (the first one is 0 for add, 1 for mul).
    """

    name = "tile.scan"
    kind = prop_def(StringAttr)
    axis = prop_def(IntAttr)
    reverse = opt_prop_def(UnitAttr)
    exclusive = opt_prop_def(UnitAttr)
    source = operand_def(TileType)
    result = result_def(TileType)
    traits = traits_def(Pure())

    def __init__(self, kind: str, source: SSAValue, axis: int, reverse: bool = False, exclusive: bool = False):
        props: dict[str, Attribute] = {"kind": StringAttr(kind), "axis": IntAttr(axis)}
        if reverse:
            props["reverse"] = UnitAttr()
        if exclusive:
            props["exclusive"] = UnitAttr()
        super().__init__(operands=[source], result_types=[source.type], properties=props)

    @property
    def is_reverse(self) -> bool:
        return self.reverse is not None

    @property
    def is_exclusive(self) -> bool:
        return self.exclusive is not None

    @classmethod
    def parse(cls, parser: Parser) -> ScanOp:
        kind = parse_keyword_choice(parser, SCAN_KINDS, "a scan kind")
        src = parser.parse_unresolved_operand()
        parser.parse_keyword("axis")
        axis = parser.parse_integer(allow_negative=False)
        reverse = parser.parse_optional_keyword("reverse") is not None
        exclusive = parser.parse_optional_keyword("exclusive") is not None
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        t = _parse_tile_type(parser)
        op = cls(kind, parser.resolve_operand(src, t), axis, reverse, exclusive)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_operand(self.source)
        printer.print_string(f" axis {self.axis.data}")
        if self.is_reverse:
            printer.print_string(" reverse")
        if self.is_exclusive:
            printer.print_string(" exclusive")
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.source.type}")

    def verify_(self) -> None:
        st, rt = self.source.type, self.result.type
        assert isinstance(st, TileType) and isinstance(rt, TileType)
        kind = self.kind.data
        if kind not in SCAN_KINDS:
            raise self.error(f"unknown scan '{kind}' (expected one of {', '.join(SCAN_KINDS)})")
        if not 0 <= self.axis.data < st.rank:
            raise self.error(f"axis {self.axis.data} is out of range for rank {st.rank}")
        if st != rt:
            raise self.error(f"result type {rt} must equal the source type {st}")
        elt = st.element_type
        if elt == i1:
            raise self.error("cannot scan an i1 (mask) tile")
        if is_fp8(elt):
            raise self.error(f"cannot scan {elt} tiles (cast them to f16 or f32 first)")
        if kind == "logaddexp":
            if not is_float(elt):
                raise self.error(f"logaddexp scans floats, not {elt}")
            if self.is_exclusive:
                raise self.error("exclusive applies to add and mul scans")


# --- order: sort, argsort, top-k (issue 11, item 5) -----------------------------------------------


class _OrderOp(TileOp):
    """Shared parts of `tile.sort` and `tile.topk`: one source tile, an axis, two results (the
    ordered values and their i64 indices along the axis, as torch.sort / torch.topk return)."""

    axis = prop_def(IntAttr)
    source = operand_def(TileType)
    values = result_def(TileType)
    indices = result_def(TileType)
    traits = traits_def(Pure())

    def _result_shape(self) -> list[int]:
        st = self.source.type
        assert isinstance(st, TileType)
        return list(st.get_shape())

    def _verify_order(self) -> None:
        st, vt, it = self.source.type, self.values.type, self.indices.type
        assert isinstance(st, TileType) and isinstance(vt, TileType) and isinstance(it, TileType)
        a = self.axis.data
        if not 0 <= a < st.rank:
            raise self.error(f"axis {a} is out of range for rank {st.rank}")
        elt = st.element_type
        if elt == i1 or is_fp8(elt) or not (is_float(elt) or is_int(elt)):
            raise self.error(f"orders float and integer tiles (not i1 or fp8), got {elt}")
        shape = self._result_shape()
        if vt.element_type != elt or not shapes_compatible(shape, vt.get_shape()):
            raise self.error(f"values must be a {shape_str(shape)} tile of {elt}, got {vt}")
        if it.element_type != i64 or not shapes_compatible(shape, it.get_shape()):
            raise self.error(f"indices must be a {shape_str(shape)} tile of i64, got {it}")

    def _print_head(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)

    def _print_tail(self, printer: Printer) -> None:
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.source.type} -> {self.values.type}, {self.indices.type}")

    @classmethod
    def _build_parsed(cls, parser: Parser, src, props: dict[str, Attribute], extra: dict[str, Attribute]):
        """The op from its parsed operand and properties and the `: T -> V, I` types that follow
        (the result types as written: the verifier checks them)."""
        parser.parse_punctuation(":")
        st = _parse_tile_type(parser)
        parser.parse_punctuation("->")
        vt = _parse_tile_type(parser)
        parser.parse_punctuation(",")
        it = _parse_tile_type(parser)
        op = cls.build(operands=[parser.resolve_operand(src, st)], result_types=[vt, it], properties=props)
        op.attributes |= extra
        return op


@irdl_op_definition
class SortOp(_OrderOp):
    """Sorts along `axis`: `values` is the source in order, `indices` (i64) where each value came
    from along the axis (torch.sort's pair; numpy's sort and argsort are its two halves).

        %v, %i = tile.sort %x axis 1 : !tile.tile<8x16xf32> -> !tile.tile<8x16xf32>, !tile.tile<8x16xi64>
        %w, %j = tile.sort %x axis 0 descending : !tile.tile<8x16xf32> -> !tile.tile<8x16xf32>, !tile.tile<8x16xi64>

    The order is torch's total order: NaN is the largest value (last ascending, first
    descending), -0.0 equals 0.0, unsigned integers order as unsigned. Equal values keep their
    input order (stable) in both directions; `unstable` only allows another order of equal
    values (the targets keep it stable anyway).
    """

    name = "tile.sort"
    descending = opt_prop_def(UnitAttr)
    unstable = opt_prop_def(UnitAttr)

    def __init__(self, source: SSAValue, axis: int, descending: bool = False, stable: bool = True):
        st = source.type
        assert isinstance(st, TileType)
        props: dict[str, Attribute] = {"axis": IntAttr(axis)}
        if descending:
            props["descending"] = UnitAttr()
        if not stable:
            props["unstable"] = UnitAttr()
        super().__init__(operands=[source], result_types=[st, st.with_element(i64)], properties=props)

    @property
    def is_descending(self) -> bool:
        return self.descending is not None

    @classmethod
    def parse(cls, parser: Parser) -> SortOp:
        src = parser.parse_unresolved_operand()
        parser.parse_keyword("axis")
        axis = parser.parse_integer(allow_negative=False)
        descending = parser.parse_optional_keyword("descending") is not None
        unstable = parser.parse_optional_keyword("unstable") is not None
        extra = parse_extra_attrs(parser)
        props: dict[str, Attribute] = {"axis": IntAttr(axis)}
        if descending:
            props["descending"] = UnitAttr()
        if unstable:
            props["unstable"] = UnitAttr()
        return cls._build_parsed(parser, src, props, extra)

    def print(self, printer: Printer) -> None:
        self._print_head(printer)
        printer.print_string(f" axis {self.axis.data}")
        if self.is_descending:
            printer.print_string(" descending")
        if self.unstable is not None:
            printer.print_string(" unstable")
        self._print_tail(printer)

    def verify_(self) -> None:
        self._verify_order()


@irdl_op_definition
class TopkOp(_OrderOp):
    """The `k` largest (or with `smallest`, smallest) values along `axis` and their i64 indices,
    as torch.topk: the result has size k along the axis, in order (largest first; smallest:
    smallest first). Same total order as `tile.sort` (NaN is the largest); among equal values
    the lower index comes first. `unsorted` allows any order of the k (the targets keep them
    sorted). `k` must not exceed the axis' size.

        %v, %i = tile.topk %s k 8 axis 1 : !tile.tile<4096x256xf32> -> !tile.tile<4096x8xf32>, !tile.tile<4096x8xi64>
    """

    name = "tile.topk"
    k = prop_def(IntAttr)
    smallest = opt_prop_def(UnitAttr)
    unsorted = opt_prop_def(UnitAttr)

    def __init__(self, source: SSAValue, k: int, axis: int, largest: bool = True, sorted: bool = True):
        st = source.type
        assert isinstance(st, TileType)
        shape = [k if i == axis else d for i, d in enumerate(st.get_shape())]
        vt = st.with_shape(shape)
        props: dict[str, Attribute] = {"axis": IntAttr(axis), "k": IntAttr(k)}
        if not largest:
            props["smallest"] = UnitAttr()
        if not sorted:
            props["unsorted"] = UnitAttr()
        super().__init__(operands=[source], result_types=[vt, vt.with_element(i64)], properties=props)

    @property
    def is_largest(self) -> bool:
        return self.smallest is None

    def _result_shape(self) -> list[int]:
        shape = super()._result_shape()
        if 0 <= self.axis.data < len(shape):
            shape[self.axis.data] = self.k.data
        return shape

    @classmethod
    def parse(cls, parser: Parser) -> TopkOp:
        src = parser.parse_unresolved_operand()
        parser.parse_keyword("k")
        k = parser.parse_integer(allow_negative=False)
        parser.parse_keyword("axis")
        axis = parser.parse_integer(allow_negative=False)
        smallest = parser.parse_optional_keyword("smallest") is not None
        unsorted = parser.parse_optional_keyword("unsorted") is not None
        extra = parse_extra_attrs(parser)
        props: dict[str, Attribute] = {"axis": IntAttr(axis), "k": IntAttr(k)}
        if smallest:
            props["smallest"] = UnitAttr()
        if unsorted:
            props["unsorted"] = UnitAttr()
        return cls._build_parsed(parser, src, props, extra)

    def print(self, printer: Printer) -> None:
        self._print_head(printer)
        printer.print_string(f" k {self.k.data} axis {self.axis.data}")
        if not self.is_largest:
            printer.print_string(" smallest")
        if self.unsorted is not None:
            printer.print_string(" unsorted")
        self._print_tail(printer)

    def verify_(self) -> None:
        self._verify_order()
        st = self.source.type
        assert isinstance(st, TileType)
        n, k = st.get_shape()[self.axis.data], self.k.data
        if k < 1:
            raise self.error(f"k must be at least 1, got {k}")
        if n != DYNAMIC and k > n:
            raise self.error(f"k = {k} is larger than axis {self.axis.data}'s size {n}")


ORDER_OPS = (SortOp, TopkOp)
"""The ordering ops: each makes a `sort` fusion group (see tile-fuse)."""


# --- fusion groups ------------------------------------------------------------------------------

FUSION_KINDS = (
    "contraction",
    "rowwise",
    "elementwise",
    "reduction",
    "scatter",
    "scan",
    "sort",
    "attention",
    "stream",
    "conv_weight_grad",
)


@irdl_op_definition
class FusedOp(TileOp):
    """A group of tile ops that a target computes as ONE kernel (one loop nest per output tile).

    Made by the `tile-fuse` pass. The body sees only its block arguments (the group's inputs:
    tiles that are views of arrays, index sizes and scalar inputs) and constants; `tile.yield` gives the
    group's results. `kind` says what the kernel is built around: `contraction` (a contraction
    with an elementwise epilogue), `rowwise` (reductions over trailing axes with their
    elementwise neighbours, e.g. softmax; with tile-fuse `column-partials`, also reductions of
    the rows' values over the leading axes, accumulated across rows by GPU kernels), `reduction`
    (other reductions), `elementwise`,
    `scatter` (one `tile.scatter_add`: a copy of its source, then the accumulation), `scan`
    (`tile.scan`s along one axis with their elementwise producers and consumers), `sort`
    (one `tile.sort` / `tile.topk` along an axis, with the elementwise/rowwise producers of
    its source when the axis is the last one, e.g. softmax then top-k), `attention`
    (`softmax(f(q k^T)) v` with its epilogue, computed with an online softmax over the keys:
    tilec/transforms/attention_pattern.py says which programs match), `stream` (contractions over
    one axis of (B..., L, S) values computed element by element from other contractions, e.g.
    attention's dq, or dk and dv: one walk along that axis per kept index), `conv_weight_grad`
    (a convolution's weight gradient written as a convolution of transposed x and dy, with those
    transposes and the one of its result: tilec/transforms/conv_grad_pattern.py).

        %y = tile.fused rowwise (%x) : (!tile.tile<8x16xf32>) -> (!tile.tile<8x16xf32>) {
        ^bb0(%a: !tile.tile<8x16xf32>):
          %e = tile.exp %a : !tile.tile<8x16xf32>
          tile.yield %e : !tile.tile<8x16xf32>
        }
    """

    name = "tile.fused"
    kind = prop_def(StringAttr)
    inputs = var_operand_def()
    outputs = var_result_def(TileType)
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove())

    def __init__(self, kind: str, inputs: Sequence[SSAValue], result_types: Sequence[Attribute], body: Region):
        super().__init__(
            operands=[list(inputs)],
            result_types=[list(result_types)],
            properties={"kind": StringAttr(kind)},
            regions=[body],
        )

    def verify_(self) -> None:
        if self.kind.data not in FUSION_KINDS:
            raise self.error(f"unknown kind '{self.kind.data}' (expected one of {', '.join(FUSION_KINDS)})")
        block = self.body.block
        for v in self.inputs:
            if not isinstance(v.type, TileType) and not _is_scalar_arg(v.type):
                raise self.error(f"an input must be a !tile.tile or a scalar ({SCALAR_ARG_TYPES}), got {v.type}")
        if tuple(block.arg_types) != tuple(v.type for v in self.inputs):
            raise self.error("block arguments must have the types of the inputs")
        term = block.last_op
        if not isinstance(term, YieldOp):
            raise self.error("body must end with tile.yield")
        if tuple(v.type for v in term.values) != tuple(r.type for r in self.outputs):
            raise self.error("tile.yield types must match the results")
        for op in block.ops:
            if isinstance(op, LoadOp | StoreOp | FuncOp | FusedOp):
                raise self.error(f"{op.name} is not allowed inside a fusion group")

    @classmethod
    def parse(cls, parser: Parser) -> FusedOp:
        kind = parse_keyword_choice(parser, FUSION_KINDS, "a fusion kind")
        operands = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        in_types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        parser.parse_punctuation("->")
        out_types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        if len(in_types) != len(operands):
            parser.raise_error(f"{len(operands)} inputs but {len(in_types)} input types")
        region = parser.parse_region()
        op = cls(kind, [parser.resolve_operand(o, t) for o, t in zip(operands, in_types)], out_types, region)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} (")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_string(")")
        print_extra_attrs(printer, self)
        printer.print_string(" : (")
        printer.print_list([v.type for v in self.inputs], printer.print_attribute)
        printer.print_string(") -> (")
        printer.print_list([r.type for r in self.outputs], printer.print_attribute)
        printer.print_string(") ")
        printer.print_region(self.body, print_entry_block_args=True)


@irdl_op_definition
class YieldOp(TileOp):
    """Ends a `tile.fused` body, giving the group's results.

    tile.yield %a, %b : !tile.tile<8xf32>, !tile.tile<8x16xf32>
    """

    name = "tile.yield"
    values = var_operand_def(TileType)
    traits = traits_def(IsTerminator(), HasParent(FusedOp))

    def __init__(self, values: Sequence[SSAValue]):
        super().__init__(operands=[list(values)])

    @classmethod
    def parse(cls, parser: Parser) -> YieldOp:
        operands = (
            parser.parse_optional_undelimited_comma_separated_list(
                parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
            )
            or []
        )
        extra = parse_extra_attrs(parser)
        types = []
        if operands:
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if len(types) != len(operands):
            parser.raise_error(f"{len(operands)} values but {len(types)} types")
        op = cls([parser.resolve_operand(o, t) for o, t in zip(operands, types)])
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        if self.values:
            printer.print_string(" ")
            printer.print_list(self.values, printer.print_operand)
        print_extra_attrs(printer, self)
        if self.values:
            printer.print_string(" : ")
            printer.print_list([v.type for v in self.values], printer.print_attribute)


Tile = Dialect(
    "tile",
    [
        FuncOp,
        ReturnOp,
        LoadOp,
        StoreOp,
        DimOp,
        ConstantOp,
        IotaOp,
        SplatOp,
        RandomBitsOp,
        ContractOp,
        ConvOp,
        *UNARY_OPS,
        *MATH_UNARY_OPS,
        *BINARY_OPS,
        *INT_UNARY_OPS,
        *INT_BINARY_OPS,
        *MATH_BINARY_OPS,
        CmpOp,
        SelectOp,
        CastOp,
        BitcastOp,
        BroadcastOp,
        TransposeOp,
        ReshapeOp,
        SliceOp,
        DynamicSliceOp,
        ConcatOp,
        PadOp,
        TakeOp,
        TakeAlongAxisOp,
        ScatterAddOp,
        ReduceOp,
        PoolOp,
        ScanOp,
        SortOp,
        TopkOp,
        FusedOp,
        YieldOp,
    ],
    [TileType, ArrayType],
)
