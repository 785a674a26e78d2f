"""The `mapped` dialect: the tile computation placed on a machine, still target-family generic.

Memory appears (buffers in `global`, `shared` or `reg` space), the thread hierarchy appears (grid,
block, warpgroup, warp, lane), loops, copies and barriers are explicit, and contractions run on
per-warp register fragments (`!mapped.frag`) in the layout of an abstract MMA instruction shape
such as m16n8k16. It says "a 128x128 block tile, 4 warps, 3 stages, m16n8k16 fragments"; it does not
say `mma.sync` or `ldmatrix` (the `hw` dialect does). Scalar and vector arithmetic uses the upstream
`arith`, `math` and `vector` dialects; sequential loops and conditionals use `scf.for` / `scf.if`.

Execution model. A `mapped.kernel` with `target gpu` is run by every thread of every block of its
grid. Ops at the top level of the body (or inside `mapped.parallel ... on blocks`) run with the whole
block converged: block-wide collectives (`mapped.barrier`, `mapped.copy`, `mapped.reduce ... across
block`) are legal there. Inside `on warps` a warp runs the body: warp collectives (fragment ops,
`mapped.barrier warp`, `across warp` reductions) stay legal, block collectives do not. Inside
`on threads` / `on lanes` a single thread runs the body: no collective is legal. A `target cpu`
kernel is run by one host thread, which may fork with `mapped.parallel ... on cores`.

Example (a 128x128-per-block GEMM with a 3-stage cp.async pipeline, 4 warps each owning 64x64)::

    mapped.kernel @gemm(%A: !mapped.buf<?x?xf16, global>, %B: !mapped.buf<?x?xf16, global>,
                        %C: !mapped.buf<?x?xf32, global>)
        target gpu grid [cdiv(%C:1, 128), cdiv(%C:0, 128), 1] block [128, 1, 1] smem 49152 {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %K = mapped.dim %A 1 : !mapped.buf<?x?xf16, global>
      %sA = mapped.alloc : !mapped.buf<3x128x32xf16, shared>
      %sB = mapped.alloc : !mapped.buf<3x32x128xf16, shared>
      %bx = mapped.block_id x
      %by = mapped.block_id y
      ...
      %z = mapped.frag_fill 0.0 : !mapped.frag<64x64xf32, acc, m16n8k16>
      %acc = mapped.pipeline %c0 to %K step %c32 stages 3 iter_args(%z)
          -> (!mapped.frag<64x64xf32, acc, m16n8k16>) produce {
      ^bb0(%k: index, %slot: index):
        mapped.async_copy %A[%m0, %k] -> %sA[%slot, %c0, %c0] shape [128, 32]
            : !mapped.buf<?x?xf16, global>, !mapped.buf<3x128x32xf16, shared>
        ...
        mapped.yield
      } consume {
      ^bb0(%k: index, %slot: index, %c: !mapped.frag<64x64xf32, acc, m16n8k16>):
        %a = mapped.frag_load %sA[%slot, %wm, %c0] : ... -> !mapped.frag<64x32xf16, a, m16n8k16>
        %b = mapped.frag_load %sB[%slot, %c0, %wn] : ... -> !mapped.frag<32x64xf16, b, m16n8k16>
        %d = mapped.mma %a, %b, %c : ...
        mapped.yield %d : !mapped.frag<64x64xf32, acc, m16n8k16>
      }
      mapped.frag_store %acc, %C[%i, %j] : !mapped.frag<64x64xf32, acc, m16n8k16>, !mapped.buf<?x?xf32, global>
      mapped.return
    }
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    FunctionType,
    IndexType,
    IntAttr,
    IntegerType,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    VectorType,
    i1,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    opt_region_def,
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
from xdsl.utils.exceptions import VerifyException

from tilec.dialects.common import (
    DYNAMIC,
    ShapedTypeBase,
    bitwidth,
    int_array,
    int_list,
    is_float,
    is_int,
    op_error,
    parse_extra_attrs,
    parse_int_list,
    parse_keyword_choice,
    print_extra_attrs,
    print_int_list,
    shape_attr,
    shape_str,
)

SPACES = ("global", "shared", "reg")
TARGETS = ("gpu", "cpu")
LEVELS = ("cores", "blocks", "warps", "threads", "lanes")
DIMS = ("x", "y", "z")
ROLES = ("a", "b", "acc", "row")
REDUCE_KINDS = ("sum", "max", "min", "prod")
REDUCE_SCOPES = ("warp", "block")
WAVE_SIZES = (32, 64)
MAX_BLOCK_THREADS = 1024
MAX_ACCESS_BYTES = 16
"""The widest single memory access a GPU thread makes (128 bits)."""
ASYNC_COPY_BYTES = (4, 8, 16)
"""The sizes one cp.async-style copy can move per thread."""
WARPGROUP_WARPS = 4


def element_bytes(t: Attribute) -> int:
    """Storage bytes of one element (i1 takes a byte)."""
    return max(1, bitwidth(t) // 8)


def _is_scalar(t: Attribute) -> bool:
    return isinstance(t, IndexType) or is_float(t) or isinstance(t, IntegerType)


def _word(parser: AttrParser, choices: Sequence[str], what: str) -> str:
    """A bare word from `choices` (usable from attribute and op parsers alike)."""
    start = parser.pos
    word = parser.parse_optional_identifier()
    if word is None or word not in choices:
        parser.raise_error(f"expected {what} ({', '.join(choices)})", start, max(parser.pos, start + 1))
    return word


# --- swizzle ------------------------------------------------------------------------------------


def swizzle_problem(bits: int, base: int, shift: int) -> str | None:
    if bits < 1 or base < 0:
        return f"swizzle<{bits}, {base}, {shift}> needs bits >= 1 and base >= 0"
    if shift < bits:
        return (
            f"swizzle<{bits}, {base}, {shift}> is not a bijection: shift must be >= bits so the "
            f"XORed bit ranges do not overlap"
        )
    return None


@irdl_attr_definition
class SwizzleAttr(ParametrizedAttribute):
    """XOR swizzle of the byte offsets of a shared buffer: `#mapped.swizzle<bits, base, shift>`.

    The CuTe `Swizzle<B, M, S>` convention on BYTE offsets: the physical offset of logical byte
    offset `off` is `off ^ (((off >> (base + shift)) & ((1 << bits) - 1)) << base)`. It permutes
    `2^base`-byte chunks within spans of `2^(base+bits)` bytes, keyed by the span's position in a
    period of `2^(base+shift+bits)` bytes. `<3, 4, 3>` moves 16-byte chunks within 128 bytes over a
    1024-byte period: the classic layout that makes ldmatrix and 16-byte cp.async conflict-free. Inside
    a buffer type it is written without the `#mapped.` prefix:

        !mapped.buf<3x128x32xf16, shared, swizzle<3, 4, 3>>
    """

    name = "mapped.swizzle"

    bits: IntAttr
    base: IntAttr
    shift: IntAttr

    def __init__(self, bits: int, base: int, shift: int):
        super().__init__(IntAttr(bits), IntAttr(base), IntAttr(shift))

    @property
    def chunk_bytes(self) -> int:
        """The unit that moves as a whole (16 bytes for <3, 4, 3>)."""
        return 1 << self.base.data

    @property
    def span_bytes(self) -> int:
        """The bytes within which chunks are permuted (128 for <3, 4, 3>)."""
        return 1 << (self.base.data + self.bits.data)

    @property
    def period_bytes(self) -> int:
        """After this many bytes the pattern repeats (1024 for <3, 4, 3>)."""
        return 1 << (self.base.data + self.shift.data + self.bits.data)

    def apply(self, byte_offset: int) -> int:
        """The physical byte offset of a logical byte offset."""
        b, m, s = self.bits.data, self.base.data, self.shift.data
        return byte_offset ^ (((byte_offset >> (m + s)) & ((1 << b) - 1)) << m)

    def verify(self) -> None:
        msg = swizzle_problem(self.bits.data, self.base.data, self.shift.data)
        if msg:
            raise VerifyException(f"mapped.swizzle: {msg}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        with parser.in_angle_brackets():
            bits = parser.parse_integer(allow_boolean=False)
            parser.parse_punctuation(",")
            base = parser.parse_integer(allow_boolean=False)
            parser.parse_punctuation(",")
            shift = parser.parse_integer(allow_boolean=False)
        msg = swizzle_problem(bits, base, shift)
        if msg:
            parser.raise_error(msg, start, parser.pos)
        return (IntAttr(bits), IntAttr(base), IntAttr(shift))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.bits.data}, {self.base.data}, {self.shift.data}>")


# --- buffers ------------------------------------------------------------------------------------


def buf_problem(shape: Sequence[int], elt: Attribute, space: str, layout: SwizzleAttr | None) -> str | None:
    """Why a `!mapped.buf` with these parameters is invalid, or None."""
    text = f"{shape_str(shape)}x{elt}" if shape else str(elt)
    if space not in SPACES:
        return f"unknown memory space '{space}' (expected global, shared or reg)"
    if not shape:
        return "a buffer needs at least one dimension"
    if space != "global":
        if DYNAMIC in shape:
            return f"a ? dimension is only allowed in global memory; {space} buffers are static (got {text})"
        if 0 in shape:
            return f"a {space} buffer cannot have a zero dimension (got {text})"
    if layout is None:
        return None
    sw = f"swizzle<{layout.bits.data}, {layout.base.data}, {layout.shift.data}>"
    if space != "shared":
        return f"a swizzle layout applies to shared memory only (this buffer is {space})"
    eb = element_bytes(elt)
    if layout.chunk_bytes < eb:
        return f"{sw} moves {layout.chunk_bytes}-byte chunks, smaller than one {elt} element ({eb} bytes)"
    if DYNAMIC in shape:
        return None
    row = shape[-1] * eb
    if row % layout.chunk_bytes:
        return (
            f"{sw} moves {layout.chunk_bytes}-byte chunks but the innermost row is {row} bytes "
            f"({shape[-1]}x{elt}): a row must hold whole chunks"
        )
    inner = shape[-2:] if len(shape) >= 2 else shape
    slice_bytes = eb
    for d in inner:
        slice_bytes *= d
    if slice_bytes % layout.period_bytes:
        return (
            f"{sw} repeats every {layout.period_bytes} bytes but one {shape_str(inner)}x{elt} slice is "
            f"{slice_bytes} bytes: each slice of the last two axes must hold whole periods"
        )
    return None


@irdl_attr_definition
class BufType(ShapedTypeBase, TypeAttribute):
    """A row-major memory buffer in one memory space: `!mapped.buf<128x64xf16, shared>`.

    Spaces: `global` (device/host memory; `?` dimensions allowed, sizes from `mapped.dim`), `shared`
    (per block, GPU only, static) and `reg` (private to one thread, static). A shared buffer may carry
    a `swizzle<bits, base, shift>` layout (see `#mapped.swizzle`): its chunks must not straddle rows
    (the innermost row holds whole `2^base`-byte chunks) and each slice of the last two axes holds
    whole swizzle periods, so every leading-axis slot (e.g. a pipeline stage) is swizzled alike.

        !mapped.buf<?x?xf32, global>
        !mapped.buf<4x8xf32, reg>
        !mapped.buf<3x128x32xf16, shared, swizzle<3, 4, 3>>
    """

    name = "mapped.buf"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute
    space: StringAttr
    layout: SwizzleAttr | NoneAttr

    def __init__(
        self, shape: Sequence[int], element_type: Attribute, space: str = "global", layout: SwizzleAttr | None = None
    ):
        super().__init__(shape_attr(shape), element_type, StringAttr(space), layout or NoneAttr())

    @property
    def space_name(self) -> str:
        return self.space.data

    @property
    def swizzle(self) -> SwizzleAttr | None:
        return self.layout if isinstance(self.layout, SwizzleAttr) else None

    @property
    def element_bytes(self) -> int:
        return element_bytes(self.element_type)

    def size_bytes(self) -> int | None:
        n = self.num_elements()
        return None if n is None else n * self.element_bytes

    def strides(self) -> tuple[int, ...]:
        """Row-major strides in elements (static shapes only)."""
        if not self.is_static():
            raise ValueError(f"{self} has dynamic dimensions: strides are only known at run time")
        out, s = [], 1
        for d in reversed(self.get_shape()):
            out.append(s)
            s *= d
        return tuple(reversed(out))

    def swizzled_offset(self, byte_offset: int) -> int:
        """The physical byte offset of a logical (row-major) byte offset under this buffer's layout."""
        sw = self.swizzle
        return byte_offset if sw is None else sw.apply(byte_offset)

    def byte_offset(self, indices: Sequence[int]) -> int:
        """The physical byte offset of an element (row-major, then swizzled)."""
        logical = sum(i * s for i, s in zip(indices, self.strides(), strict=True)) * self.element_bytes
        return self.swizzled_offset(logical)

    def verify(self) -> None:
        super().verify()
        msg = buf_problem(self.get_shape(), self.element_type, self.space.data, self.swizzle)
        if msg:
            raise VerifyException(f"mapped.buf: {msg}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        with parser.in_angle_brackets():
            dims, elt = cls._parse_shape_and_element(parser)
            parser.parse_punctuation(",")
            space = _word(parser, SPACES, "a memory space")
            layout = None
            if parser.parse_optional_punctuation(",") is not None:
                kw_start = parser.pos
                if parser.parse_optional_keyword("swizzle") is None:
                    parser.raise_error(
                        "expected a layout swizzle<bits, base, shift> (the only buffer layout)", kw_start, kw_start + 1
                    )
                layout = SwizzleAttr(*[p.data for p in SwizzleAttr.parse_parameters(parser)])
        msg = buf_problem(dims, elt, space, layout)
        if msg:
            parser.raise_error(f"mapped.buf: {msg}", start, parser.pos)
        return (shape_attr(dims), elt, StringAttr(space), layout or NoneAttr())

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            self._print_shape_and_element(printer, self.get_shape(), self.element_type)
            printer.print_string(f", {self.space.data}")
            if self.swizzle is not None:
                printer.print_string(", swizzle")
                self.swizzle.print_parameters(printer)


# --- fragments ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MmaShape:
    """An abstract MMA instruction shape and what it accepts."""

    name: str
    m: int
    n: int
    k: int
    lanes: int
    ab_types: tuple[str, ...]
    acc_types: tuple[str, ...]

    def tile(self, role: str) -> tuple[int, int]:
        """The (rows, cols) one instruction covers for a fragment role."""
        return {"a": (self.m, self.k), "b": (self.k, self.n), "acc": (self.m, self.n)}[role]


MMA_SHAPES: dict[str, MmaShape] = {
    s.name: s
    for s in (
        # NVIDIA warp-level mma (32 lanes).
        MmaShape("m16n8k16", 16, 8, 16, 32, ("f16", "bf16"), ("f32", "f16")),
        MmaShape("m16n8k8", 16, 8, 8, 32, ("f16", "bf16", "f32"), ("f32", "f16")),
        # AMD MFMA shapes (wave64).
        MmaShape("m32n32k8", 32, 32, 8, 64, ("f16", "bf16"), ("f32",)),
        MmaShape("m16n16k16", 16, 16, 16, 64, ("f16", "bf16"), ("f32",)),
        # NVIDIA warpgroup mma (wgmma, sm_90a): 128 lanes (4 warps); a and b stay in shared memory.
        MmaShape("wgmma", 64, 8, 16, 128, ("f16", "bf16"), ("f32",)),
    )
}

LEGAL_MMA_TYPES: dict[tuple[str, str], tuple[str, ...]] = {
    ("f16", "f16"): ("f32", "f16"),
    ("bf16", "bf16"): ("f32",),
    ("f32", "f32"): ("f32",),  # tf32 on m16n8k8
}


def frag_problem(shape: Sequence[int], elt: Attribute, role: str, instr: str) -> str | None:
    """Why a `!mapped.frag` with these parameters is invalid, or None."""
    if role not in ROLES:
        return f"unknown fragment role '{role}' (expected a, b, acc or row)"
    if instr not in MMA_SHAPES:
        return f"unknown instruction shape '{instr}' (expected {', '.join(MMA_SHAPES)})"
    if len(shape) != 2 or DYNAMIC in shape or 0 in shape:
        return f"a fragment is a static, non-empty 2-D tile, got {shape_str(shape)}x{elt}"
    s = MMA_SHAPES[instr]
    if role == "row":
        if s.lanes == 64:
            return f"row fragments have NVIDIA accumulator layouts only, not {instr}'s (not supported yet)"
        if shape[1] != 1 or shape[0] % s.m:
            return f"a row fragment is M x 1 with M a multiple of {instr}'s m = {s.m}, got {shape_str(shape)}"
        if str(elt) != "f32":
            return f"row fragments hold f32, got {elt}"
        return None
    if instr == "wgmma" and role != "acc":
        return "wgmma reads a and b from shared memory (mapped.wgmma): only acc fragments have the wgmma layout"
    rows, cols = s.tile(role)
    axes = {"a": ("M", "K"), "b": ("K", "N"), "acc": ("M", "N")}[role]
    for d, unit, axis in zip(shape, (rows, cols), axes):
        if d % unit:
            return f"{role} fragment {shape_str(shape)}: {axis} = {d} is not a multiple of {instr}'s {axis.lower()} = {unit}"
    allowed = s.acc_types if role == "acc" else s.ab_types
    if str(elt) not in allowed:
        return f"{instr} {role} fragments hold {' or '.join(allowed)}, got {elt}"
    return None


@irdl_attr_definition
class FragType(ShapedTypeBase, TypeAttribute):
    """A warp's matrix fragment in registers: `!mapped.frag<64x32xf32, acc, m16n8k16>`.

    Distributed over the lanes of ONE warp (32 lanes; 64 for the AMD shapes) in the register layout
    of the MMA instruction shape. The shape is the warp's tile: WM x WK for role `a`, WK x WN for
    `b`, WM x WN for `acc`; each is a multiple of the instruction's extents. Instruction shapes:
    m16n8k16 (f16/bf16 a/b; f32 or f16 acc), m16n8k8 (f16/bf16, or f32 as tf32), the wave64
    MFMA shapes m32n32k8 and m16n16k16 (f16/bf16 a/b, f32 acc), and `wgmma`: the f32 accumulator
    of a WARPGROUP (4 warps, 128 lanes; sm_90a), M a multiple of 64 and N of 8, written by
    `mapped.wgmma` (its a and b operands stay in shared memory).

    Role `row` (M x 1, f32; NVIDIA layouts only) holds one value per row of an accumulator of the
    same instruction shape, where that accumulator's lanes hold the row: in m16n8k16 lane l holds
    rows l/4 and l/4 + 8 of each 16-row tile, the same values in the 4 lanes of a quad. Row
    fragments are what `mapped.frag_reduce` gives and `mapped.frag_map` broadcasts along rows
    (an online softmax's running maximum and sum).

        !mapped.frag<64x16xf16, a, m16n8k16>
        !mapped.frag<16x1xf32, row, m16n8k16>
    """

    name = "mapped.frag"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute
    role: StringAttr
    instr: StringAttr

    def __init__(self, shape: Sequence[int], element_type: Attribute, role: str, instr: str = "m16n8k16"):
        super().__init__(shape_attr(shape), element_type, StringAttr(role), StringAttr(instr))

    @property
    def role_name(self) -> str:
        return self.role.data

    @property
    def mma_shape(self) -> MmaShape:
        return MMA_SHAPES[self.instr.data]

    @property
    def lanes(self) -> int:
        return self.mma_shape.lanes

    def instr_tile(self) -> tuple[int, int]:
        """(rows, cols) covered by one instruction for this role (a: m x k, b: k x n, acc: m x n,
        row: m x 1)."""
        if self.role.data == "row":
            return self.mma_shape.m, 1
        return self.mma_shape.tile(self.role.data)

    def tile_counts(self) -> tuple[int, int]:
        """How many instruction tiles along rows and along columns."""
        (r, c), (tr, tc) = self.get_shape(), self.instr_tile()
        return r // tr, c // tc

    def num_tiles(self) -> int:
        r, c = self.tile_counts()
        return r * c

    def regs_per_tile(self) -> int:
        """32-bit registers per lane for one instruction tile (m16n8k16: a 4, b 2, acc f32 4)."""
        tr, tc = self.instr_tile()
        if self.role.data == "row":  # each row is held by the 4 lanes of a quad
            return tr * 4 // self.lanes
        return tr * tc * bitwidth(self.element_type) // (32 * self.lanes)

    def regs_per_lane(self) -> int:
        return self.regs_per_tile() * self.num_tiles()

    def elements_per_lane(self) -> int:
        if self.role.data == "row":
            return self.regs_per_lane()
        r, c = self.get_shape()
        return r * c // self.lanes

    def verify(self) -> None:
        super().verify()
        msg = frag_problem(self.get_shape(), self.element_type, self.role.data, self.instr.data)
        if msg:
            raise VerifyException(f"mapped.frag: {msg}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        with parser.in_angle_brackets():
            dims, elt = cls._parse_shape_and_element(parser)
            parser.parse_punctuation(",")
            role = _word(parser, ROLES, "a fragment role")
            parser.parse_punctuation(",")
            instr = _word(parser, tuple(MMA_SHAPES), "an instruction shape")
        msg = frag_problem(dims, elt, role, instr)
        if msg:
            parser.raise_error(f"mapped.frag: {msg}", start, parser.pos)
        return (shape_attr(dims), elt, StringAttr(role), StringAttr(instr))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            self._print_shape_and_element(printer, self.get_shape(), self.element_type)
            printer.print_string(f", {self.role.data}, {self.instr.data}")


# --- grid and distribution attributes -----------------------------------------------------------


@dataclass(frozen=True)
class GridFactor:
    """One factor of a grid extent: a constant, or `cdiv(product of terms, tile)`.

    A term is `(arg, axis)`: dimension `axis` of global-buffer argument number `arg`, or
    `(arg, None)`: the value of integer/index argument number `arg`.
    """

    const: int | None = None
    terms: tuple[tuple[int, int | None], ...] = ()
    tile: int = 1

    @staticmethod
    def constant(value: int) -> GridFactor:
        return GridFactor(const=value)

    @staticmethod
    def cdiv(terms: Sequence[tuple[int, int | None]], tile: int) -> GridFactor:
        return GridFactor(terms=tuple((a, x) for a, x in terms), tile=tile)

    def evaluate(self, args: Sequence) -> int:
        """The factor's value given the kernel arguments (shapes for buffers, ints for scalars)."""
        if self.const is not None:
            return self.const
        p = 1
        for a, x in self.terms:
            p *= int(args[a]) if x is None else int(args[a][x])
        return -(-p // self.tile)

    def encode(self) -> ArrayAttr:
        if self.const is not None:
            return ArrayAttr([IntAttr(self.const)])
        flat = [self.tile]
        for a, x in self.terms:
            flat += [a, -1 if x is None else x]
        return ArrayAttr([IntAttr(v) for v in flat])

    @staticmethod
    def decode(attr: ArrayAttr) -> GridFactor:
        v = [i.data for i in attr.data]
        if len(v) == 1:
            return GridFactor(const=v[0])
        terms = tuple((v[i], None if v[i + 1] < 0 else v[i + 1]) for i in range(1, len(v), 2))
        return GridFactor(terms=terms, tile=v[0])


TermParser = Callable[[], tuple[int, int | None]]
TermPrinter = Callable[[int, int | None], None]


def _parse_grid_dims(parser: AttrParser, parse_term: TermParser) -> list[list[GridFactor]]:
    """`[expr, expr, expr]`, expr ::= factor (`*` factor)*, factor ::= int | `cdiv(` term (`*` term)* `,` int `)`."""

    def factor() -> GridFactor:
        start = parser.pos
        if parser.parse_optional_keyword("cdiv") is None:
            value = parser.parse_optional_integer(allow_boolean=False, allow_negative=False)
            if value is None:
                parser.raise_error("expected an integer or cdiv(...) in a grid extent", start, start + 1)
            return GridFactor.constant(value)
        parser.parse_punctuation("(")
        terms = [parse_term()]
        while parser.parse_optional_punctuation("*") is not None:
            terms.append(parse_term())
        parser.parse_punctuation(",")
        tile = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation(")")
        return GridFactor.cdiv(terms, tile)

    def expr() -> list[GridFactor]:
        out = [factor()]
        while parser.parse_optional_punctuation("*") is not None:
            out.append(factor())
        return out

    start = parser.pos
    dims = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, expr)
    if len(dims) != 3:
        parser.raise_error(f"a grid has 3 extents (x, y, z), got {len(dims)}", start, parser.pos)
    return dims


def _print_grid_dims(printer: Printer, dims: Sequence[Sequence[GridFactor]], print_term: TermPrinter) -> None:
    printer.print_string("[")
    for i, dim in enumerate(dims):
        if i:
            printer.print_string(", ")
        for j, f in enumerate(dim):
            if j:
                printer.print_string(" * ")
            if f.const is not None:
                printer.print_string(str(f.const))
                continue
            printer.print_string("cdiv(")
            for t, (a, x) in enumerate(f.terms):
                if t:
                    printer.print_string(" * ")
                print_term(a, x)
            printer.print_string(f", {f.tile})")
    printer.print_string("]")


@irdl_attr_definition
class GridAttr(ParametrizedAttribute):
    """The launch grid of a gpu kernel, as the host computes it from the kernel's arguments.

    Three extents (x, y, z), each a product of factors: an integer, or `cdiv(t1 * t2 ..., tile)`
    (ceiling division) where a term is `argN:axis` (dimension `axis` of global-buffer argument N)
    or `argN` (an integer/index argument). Inside `mapped.kernel` it is written with the argument
    names (`grid [cdiv(%A:0, 128), ...]`); on its own, with argument numbers:

        #mapped.grid<[cdiv(arg0:0, 128), cdiv(arg1:1 * arg3, 64), 1]>
    """

    name = "mapped.grid"

    dims: ArrayAttr[ArrayAttr[ArrayAttr[IntAttr]]]

    def __init__(self, dims: Sequence[Sequence[GridFactor | int]]):
        enc = [ArrayAttr([(GridFactor.constant(f) if isinstance(f, int) else f).encode() for f in dim]) for dim in dims]
        super().__init__(ArrayAttr(enc))

    def factors(self) -> list[list[GridFactor]]:
        return [[GridFactor.decode(f) for f in dim.data] for dim in self.dims.data]

    def evaluate(self, args: Sequence) -> tuple[int, int, int]:
        """Grid extents from argument values: a shape (tuple) per buffer argument, an int per scalar."""
        out = []
        for dim in self.factors():
            p = 1
            for f in dim:
                p *= f.evaluate(args)
            out.append(p)
        return tuple(out)  # type: ignore[return-value]

    def verify(self) -> None:
        if len(self.dims.data) != 3:
            raise VerifyException(f"mapped.grid: a grid has 3 extents (x, y, z), got {len(self.dims.data)}")
        for dim in self.dims.data:
            if not dim.data:
                raise VerifyException("mapped.grid: an extent needs at least one factor")
            for f in dim.data:
                v = [i.data for i in f.data]
                if len(v) == 1:
                    if v[0] < 1:
                        raise VerifyException(f"mapped.grid: a constant factor must be >= 1, got {v[0]}")
                elif len(v) < 3 or len(v) % 2 == 0:
                    raise VerifyException(f"mapped.grid: malformed factor encoding {v}")
                elif v[0] < 1:
                    raise VerifyException(f"mapped.grid: cdiv tile must be >= 1, got {v[0]}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        def term() -> tuple[int, int | None]:
            start = parser.pos
            word = parser.parse_optional_identifier()
            if word is None or not word.startswith("arg") or not word[3:].isdigit():
                parser.raise_error("expected a grid term argN or argN:axis", start, max(parser.pos, start + 1))
            axis = None
            if parser.parse_optional_punctuation(":") is not None:
                axis = parser.parse_integer(allow_boolean=False, allow_negative=False)
            return int(word[3:]), axis

        with parser.in_angle_brackets():
            dims = _parse_grid_dims(parser, term)
        return GridAttr(dims).parameters

    def print_parameters(self, printer: Printer) -> None:
        def term(a: int, x: int | None) -> None:
            printer.print_string(f"arg{a}" if x is None else f"arg{a}:{x}")

        printer.print_string("<")
        _print_grid_dims(printer, self.factors(), term)
        printer.print_string(">")


def dist_problem(threads: Sequence[int], vector: int) -> str | None:
    if not threads or any(t < 1 for t in threads):
        return f"threads must be a non-empty list of positive counts, got {list(threads)}"
    if vector < 1 or vector & (vector - 1):
        return f"vector must be a power of two, got {vector}"
    return None


@irdl_attr_definition
class DistAttr(ParametrizedAttribute):
    """How the threads of a block share a cooperative copy: `#mapped.dist<threads = [8, 16], vector = 8>`.

    The block's threads (linear id t) form a row-major grid of `threads` (one entry per window axis;
    their product is the block size). Each thread moves `vector` contiguous elements of the last axis
    per step: thread (r, c) of [8, 16] handles window row r + 8*i, columns (c + 16*j)*8 .. +7, for
    every step (i, j) that stays inside the window.

        #mapped.dist<threads = [32, 4], vector = 8>
    """

    name = "mapped.dist"

    threads: ArrayAttr[IntAttr]
    vector: IntAttr

    def __init__(self, threads: Sequence[int], vector: int):
        super().__init__(ArrayAttr([IntAttr(t) for t in threads]), IntAttr(vector))

    def thread_grid(self) -> tuple[int, ...]:
        return tuple(t.data for t in self.threads.data)

    def num_threads(self) -> int:
        n = 1
        for t in self.thread_grid():
            n *= t
        return n

    def verify(self) -> None:
        msg = dist_problem(self.thread_grid(), self.vector.data)
        if msg:
            raise VerifyException(f"mapped.dist: {msg}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        with parser.in_angle_brackets():
            parser.parse_keyword("threads")
            parser.parse_punctuation("=")
            threads = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
            )
            parser.parse_punctuation(",")
            parser.parse_keyword("vector")
            parser.parse_punctuation("=")
            vector = parser.parse_integer(allow_boolean=False)
        msg = dist_problem(threads, vector)
        if msg:
            parser.raise_error(f"mapped.dist: {msg}", start, parser.pos)
        return (ArrayAttr([IntAttr(t) for t in threads]), IntAttr(vector))

    def print_parameters(self, printer: Printer) -> None:
        threads = ", ".join(str(t) for t in self.thread_grid())
        printer.print_string(f"<threads = [{threads}], vector = {self.vector.data}>")


# --- helpers for ops ----------------------------------------------------------------------------


class MappedOp(IRDLOperation):
    """Base of mapped ops: the short-name error helper and where-am-I queries."""

    def error(self, message: str):
        return op_error(self, message)

    def kernel(self) -> KernelOp | None:
        p = self.parent_op()
        while p is not None and not isinstance(p, KernelOp):
            p = p.parent_op()
        return p

    def gpu_kernel(self) -> KernelOp:
        """The enclosing kernel, which must target gpu."""
        k = self.kernel()
        if k is None:
            raise self.error("must be inside a mapped.kernel with target gpu")
        if k.target.data != "gpu":
            raise self.error(f"only exists on gpu: the enclosing kernel @{k.sym_name.data} targets {k.target.data}")
        return k

    def enclosing_levels(self) -> list[str]:
        """The `on` levels of the enclosing mapped.parallel ops, innermost first."""
        out = []
        p = self.parent_op()
        while p is not None and not isinstance(p, KernelOp):
            if isinstance(p, ParallelOp):
                out.append(p.level.data)
            p = p.parent_op()
        return out

    def require_converged(self, group: str, what: str) -> None:
        """`group` = block | warp: the op is a collective of that group, so no enclosing
        mapped.parallel may split the group (warps/threads/lanes split a block; threads/lanes a warp)."""
        splitting = ("warps", "threads", "lanes") if group == "block" else ("threads", "lanes")
        for lvl in self.enclosing_levels():
            if lvl in splitting:
                raise self.error(
                    f"{what} needs every thread of the {group}, but it is inside `mapped.parallel ... on {lvl}` "
                    f"where only part of the {group} runs each iteration"
                )

    def check_frag_lanes(self, frag: FragType, kernel: KernelOp) -> None:
        if frag.lanes == WARPGROUP_WARPS * 32 and kernel.wave_size == 32:
            return  # a warpgroup's fragment (wgmma): 4 warps of 32 lanes
        if frag.lanes != kernel.wave_size:
            raise self.error(
                f"{frag.instr.data} fragments span {frag.lanes} lanes but kernel @{kernel.sym_name.data} "
                f"runs {kernel.wave_size}-lane {'waves' if kernel.wave_size == 64 else 'warps'} (set `wave {frag.lanes}`)"
            )


def _buf(value: SSAValue) -> BufType:
    """The buffer type of an operand/result whose definition already constrains it to BufType."""
    t = value.type
    assert isinstance(t, BufType)
    return t


def _check_indices(op: MappedOp, t: BufType, indices: Sequence[SSAValue], what: str) -> None:
    if len(indices) != t.rank:
        raise op.error(f"{what} {t} has rank {t.rank} but {len(indices)} index operand(s) were given")


def _parse_indexed(parser: Parser):
    """`%buf[%i, %j]` -> (unresolved buffer, unresolved indices)."""
    buf = parser.parse_unresolved_operand()
    idx = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
    return buf, idx


def _resolve_indices(parser: Parser, idx) -> list[SSAValue]:
    return [parser.resolve_operand(i, IndexType()) for i in idx]


def _print_indexed(printer: Printer, buf: SSAValue, indices: Sequence[SSAValue]) -> None:
    printer.print_operand(buf)
    printer.print_string("[")
    printer.print_list(indices, printer.print_operand)
    printer.print_string("]")


def _parse_typed(parser: Parser, cls: type, what: str):
    start = parser.pos
    t = parser.parse_type()
    if not isinstance(t, cls):
        parser.raise_error(f"expected {what}, got {t}", start, parser.pos)
    return t


def _print_attrs_kw(printer: Printer, op: Operation) -> None:
    if op.attributes:
        printer.print_string(" attributes ")
        printer.print_attr_dict(op.attributes)


def _parse_attrs_kw(parser: Parser) -> dict[str, Attribute]:
    d = parser.parse_optional_attr_dict_with_keyword()
    return dict(d.data) if d is not None else {}


def _check_yield(op: MappedOp, region: Region, types: Sequence[Attribute], what: str) -> None:
    last = region.block.last_op
    if not isinstance(last, YieldOp):
        raise op.error(f"{what} must end with mapped.yield")
    got = [v.type for v in last.values]
    if got != list(types):
        want = ", ".join(str(t) for t in types) or "nothing"
        have = ", ".join(str(t) for t in got) or "nothing"
        raise op.error(f"{what} must yield ({want}), but yields ({have})")


# --- structure ----------------------------------------------------------------------------------


@irdl_op_definition
class KernelOp(MappedOp):
    """One device function: a grid of blocks of threads (gpu) or one host thread (cpu).

    Arguments are global buffers or scalars (index, integers, floats); they are the entry block's
    arguments. For `target gpu`, `grid` gives the number of blocks per axis as the host launcher
    computes it (see `#mapped.grid`), `block` the threads per block (product 1..1024), `wave` the
    warp width (32, default; 64 for AMD wavefronts) used by lane_id/warp_id/reduce and the fragment
    layouts, and `smem` the bytes of dynamic shared memory to request at launch (default 0): every
    shared `mapped.alloc` lives in that segment, so it must cover their total. A cpu kernel has none
    of these.

        mapped.kernel @add(%x: !mapped.buf<?xf32, global>, %y: !mapped.buf<?xf32, global>, %n: index)
            target gpu grid [cdiv(%n, 256), 1, 1] block [256, 1, 1] {
          ...
          mapped.return
        }
    """

    name = "mapped.kernel"

    body = region_def("single_block")
    sym_name = prop_def(StringAttr, prop_name="sym_name")
    function_type = prop_def(FunctionType)
    target = prop_def(StringAttr)
    grid = opt_prop_def(GridAttr)
    block_size = opt_prop_def(DenseArrayBase, prop_name="block")
    wave = opt_prop_def(IntAttr)
    smem = opt_prop_def(IntAttr)

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(
        self,
        name: str,
        arg_types: Sequence[Attribute],
        target: str = "gpu",
        grid: GridAttr | Sequence[Sequence[GridFactor | int]] | None = None,
        block: Sequence[int] | None = None,
        smem: int | None = None,
        wave: int | None = None,
        body: Region | None = None,
    ):
        if body is None:
            body = Region(Block(arg_types=list(arg_types)))
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "function_type": FunctionType.from_lists(list(arg_types), []),
            "target": StringAttr(target),
        }
        if grid is not None:
            props["grid"] = grid if isinstance(grid, GridAttr) else GridAttr(grid)
        if block is not None:
            props["block"] = int_array(block)
        if smem is not None:
            props["smem"] = IntAttr(smem)
        if wave is not None:
            props["wave"] = IntAttr(wave)
        super().__init__(properties=props, regions=[body])

    @property
    def args(self):
        return self.body.block.args

    @property
    def wave_size(self) -> int:
        return self.wave.data if self.wave is not None else 32

    @property
    def block_threads(self) -> int:
        n = 1
        for b in int_list(self.block_size):
            n *= b
        return n

    @property
    def smem_bytes(self) -> int:
        return self.smem.data if self.smem is not None else 0

    def shared_bytes_used(self) -> int:
        """Total bytes of the shared buffers allocated in this kernel."""
        total = 0
        for op in self.body.walk():
            if isinstance(op, AllocOp):
                t = op.result.type
                if isinstance(t, BufType) and t.space_name == "shared":
                    total += t.size_bytes() or 0
        return total

    def _verify_grid(self) -> None:
        assert self.grid is not None
        types = self.function_type.inputs.data
        for i, dim in enumerate(self.grid.factors()):
            for f in dim:
                for a, x in f.terms:
                    if not 0 <= a < len(types):
                        raise self.error(
                            f"grid extent {DIMS[i]} refers to argument #{a}, but the kernel has {len(types)}"
                        )
                    t = types[a]
                    if x is None:
                        if not isinstance(t, IndexType | IntegerType):
                            raise self.error(
                                f"grid extent {DIMS[i]} uses argument #{a} as a count, but it is {t} "
                                f"(a buffer term needs an axis: `%arg:axis`)"
                            )
                    else:
                        if not isinstance(t, BufType):
                            raise self.error(
                                f"grid extent {DIMS[i]} takes axis {x} of argument #{a}, which is {t}, not a buffer"
                            )
                        if x >= t.rank:
                            raise self.error(
                                f"grid extent {DIMS[i]} takes axis {x} of argument #{a}, which has rank {t.rank}"
                            )

    def verify_(self) -> None:
        ins = self.function_type.inputs.data
        if self.function_type.outputs.data:
            raise self.error("a kernel returns nothing: results leave through global buffers")
        if tuple(self.body.block.arg_types) != tuple(ins):
            raise self.error("entry block arguments must match the kernel's argument types")
        for t in ins:
            if isinstance(t, BufType):
                if t.space_name != "global":
                    raise self.error(f"buffer arguments live in global memory, got {t}")
            elif not _is_scalar(t):
                raise self.error(
                    f"an argument must be a global !mapped.buf or a scalar (index, integer, float), got {t}"
                )
        target = self.target.data
        if target not in TARGETS:
            raise self.error(f"unknown target '{target}' (expected gpu or cpu)")
        if target == "cpu":
            for prop in ("grid", "block", "smem", "wave"):
                if prop in self.properties:
                    raise self.error(f"a cpu kernel takes no `{prop}` (it runs on host threads)")
        else:
            if self.grid is None or self.block_size is None:
                raise self.error("a gpu kernel needs `grid [...]` and `block [...]`")
            self._verify_grid()
            block = int_list(self.block_size)
            if len(block) != 3 or any(b < 1 for b in block):
                raise self.error(f"block must be three positive thread counts, got {list(block)}")
            if self.block_threads > MAX_BLOCK_THREADS:
                raise self.error(f"block {list(block)} has {self.block_threads} threads (at most {MAX_BLOCK_THREADS})")
            if self.wave_size not in WAVE_SIZES:
                raise self.error(f"wave must be 32 or 64, got {self.wave_size}")
            if self.smem_bytes < 0:
                raise self.error(f"smem must be >= 0 bytes, got {self.smem_bytes}")
            used = self.shared_bytes_used()
            if used > self.smem_bytes:
                raise self.error(
                    f"shared buffers need {used} bytes but the kernel requests smem {self.smem_bytes} (set `smem {used}` or more)"
                )
        if not isinstance(self.body.block.last_op, ReturnOp):
            raise self.error("body must end with mapped.return")

    @classmethod
    def parse(cls, parser: Parser) -> KernelOp:
        sym = parser.parse_symbol_name().data
        args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_argument)
        names = {a.name.text: i for i, a in enumerate(args)}
        parser.parse_keyword("target")
        target = parse_keyword_choice(parser, TARGETS, "a target")

        def term() -> tuple[int, int | None]:
            start = parser.pos
            operand = parser.parse_unresolved_operand()
            name = operand.span.text
            if name not in names:
                parser.raise_error(f"grid: {name} is not an argument of this kernel", start, parser.pos)
            axis = None
            if parser.parse_optional_punctuation(":") is not None:
                axis = parser.parse_integer(allow_boolean=False, allow_negative=False)
            return names[name], axis

        grid = GridAttr(_parse_grid_dims(parser, term)) if parser.parse_optional_keyword("grid") else None
        block = parse_int_list(parser) if parser.parse_optional_keyword("block") else None
        wave = parser.parse_integer(allow_boolean=False) if parser.parse_optional_keyword("wave") else None
        smem = parser.parse_integer(allow_boolean=False) if parser.parse_optional_keyword("smem") else None
        extra = _parse_attrs_kw(parser)
        region = parser.parse_region(args)
        op = cls(sym, [a.type for a in args], target, grid, block, smem, wave, region)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")
        printer.print_list(self.args, printer.print_block_argument)
        printer.print_string(f") target {self.target.data}")
        if self.grid is not None:
            args = self.args

            def term(a: int, x: int | None) -> None:
                if a < len(args):
                    printer.print_operand(args[a])
                else:
                    printer.print_string(f"%arg{a}")
                if x is not None:
                    printer.print_string(f":{x}")

            printer.print_string(" grid ")
            _print_grid_dims(printer, self.grid.factors(), term)
        if self.block_size is not None:
            printer.print_string(" block ")
            print_int_list(printer, int_list(self.block_size))
        if self.wave is not None:
            printer.print_string(f" wave {self.wave.data}")
        if self.smem is not None:
            printer.print_string(f" smem {self.smem.data}")
        _print_attrs_kw(printer, self)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)


@irdl_op_definition
class ReturnOp(MappedOp):
    """Ends a `mapped.kernel` or `mapped.host` body.

    mapped.return
    """

    name = "mapped.return"
    traits = lazy_traits_def(lambda: (HasParent(KernelOp, HostOp), IsTerminator()))

    def __init__(self):
        super().__init__()

    @classmethod
    def parse(cls, parser: Parser) -> ReturnOp:
        op = cls()
        op.attributes |= parse_extra_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        print_extra_attrs(printer, self)


@irdl_op_definition
class YieldOp(MappedOp):
    """Ends a region: mapped.parallel (no values), pipeline, ws_pipeline, frag_store, frag_map and the rest.

    The regions: parallel, pipeline, ws_pipeline, frag_store, frag_map, combine_scan, lookback.

    mapped.yield
    mapped.yield %acc2 : !mapped.frag<64x32xf32, acc, m16n8k16>
    """

    name = "mapped.yield"
    values = var_operand_def()
    traits = lazy_traits_def(
        lambda: (
            HasParent(ParallelOp, PipelineOp, WsPipelineOp, FragStoreOp, FragMapOp, CombineScanOp, LookbackOp),
            IsTerminator(),
        )
    )

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[list(values)])

    @classmethod
    def parse(cls, parser: Parser) -> YieldOp:
        start = parser.pos
        vals = []
        first = parser.parse_optional_unresolved_operand()
        if first is not None:
            vals.append(first)
            while parser.parse_optional_punctuation(",") is not None:
                vals.append(parser.parse_unresolved_operand())
        extra = parse_extra_attrs(parser)
        types = []
        if vals:
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            if len(types) != len(vals):
                parser.raise_error(f"yield: {len(vals)} value(s) but {len(types)} type(s)", start, parser.pos)
        op = cls(*[parser.resolve_operand(v, t) for v, t in zip(vals, types)])
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


# --- thread hierarchy ---------------------------------------------------------------------------


class _HierarchyOp(MappedOp):
    """Shared parts of the thread-hierarchy queries: an `index` result, gpu kernels only."""

    result = result_def(IndexType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        self.gpu_kernel()


class _AxisHierarchyOp(_HierarchyOp):
    """`%r = mapped.<op> x|y|z`."""

    dim = prop_def(StringAttr)

    def __init__(self, dim: str):
        super().__init__(result_types=[IndexType()], properties={"dim": StringAttr(dim)})

    def verify_(self) -> None:
        if self.dim.data not in DIMS:
            raise self.error(f"unknown dimension '{self.dim.data}' (expected x, y or z)")
        super().verify_()

    @classmethod
    def parse(cls, parser: Parser):
        op = cls(parse_keyword_choice(parser, DIMS, "a dimension"))
        op.attributes |= parse_extra_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.dim.data}")
        print_extra_attrs(printer, self)


class _FlatHierarchyOp(_HierarchyOp):
    """`%r = mapped.<op>`."""

    def __init__(self):
        super().__init__(result_types=[IndexType()])

    @classmethod
    def parse(cls, parser: Parser):
        op = cls()
        op.attributes |= parse_extra_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        print_extra_attrs(printer, self)


@irdl_op_definition
class BlockIdOp(_AxisHierarchyOp):
    """The index of this thread's block in the grid along one axis.

    %bx = mapped.block_id x
    """

    name = "mapped.block_id"


@irdl_op_definition
class ThreadIdOp(_AxisHierarchyOp):
    """The index of this thread within its block along one axis.

    %tx = mapped.thread_id x
    """

    name = "mapped.thread_id"


@irdl_op_definition
class BlockDimOp(_AxisHierarchyOp):
    """The number of threads of a block along one axis (the kernel's `block`).

    %nt = mapped.block_dim x
    """

    name = "mapped.block_dim"


@irdl_op_definition
class GridDimOp(_AxisHierarchyOp):
    """The number of blocks of the grid along one axis (the kernel's `grid`, evaluated).

    %nb = mapped.grid_dim y
    """

    name = "mapped.grid_dim"


@irdl_op_definition
class WarpIdOp(_FlatHierarchyOp):
    """The linear warp index in the block: linear thread id / wave size (32, or the kernel's `wave`).

    %w = mapped.warp_id
    """

    name = "mapped.warp_id"


@irdl_op_definition
class LaneIdOp(_FlatHierarchyOp):
    """This thread's lane in its warp: linear thread id mod wave size.

    %l = mapped.lane_id
    """

    name = "mapped.lane_id"


@irdl_op_definition
class WarpgroupIdOp(_FlatHierarchyOp):
    """The linear warpgroup index in the block (a warpgroup is 4 consecutive warps).

    %g = mapped.warpgroup_id
    """

    name = "mapped.warpgroup_id"


HIERARCHY_OPS = (BlockIdOp, ThreadIdOp, BlockDimOp, GridDimOp, WarpIdOp, LaneIdOp, WarpgroupIdOp)


# --- memory -------------------------------------------------------------------------------------


@irdl_op_definition
class DimOp(MappedOp):
    """The run-time size of one axis of a buffer, as an `index`.

    %n = mapped.dim %A 0 : !mapped.buf<?x?xf16, global>
    """

    name = "mapped.dim"
    source = operand_def(BufType)
    axis = prop_def(IntAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure())

    def __init__(self, source: SSAValue, axis: int):
        super().__init__(operands=[source], result_types=[IndexType()], properties={"axis": IntAttr(axis)})

    def verify_(self) -> None:
        t = _buf(self.source)
        if not 0 <= self.axis.data < t.rank:
            raise self.error(f"axis {self.axis.data} is out of range for {t} (rank {t.rank})")

    @classmethod
    def parse(cls, parser: Parser) -> DimOp:
        src = parser.parse_unresolved_operand()
        axis = parser.parse_integer(allow_boolean=False, allow_negative=False)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        t = _parse_typed(parser, BufType, "a !mapped.buf type")
        op = cls(parser.resolve_operand(src, t), axis)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(f" {self.axis.data}")
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.source.type}")


@irdl_op_definition
class AllocOp(MappedOp):
    """A static buffer in shared memory (per block, gpu only, at the kernel's top level) or registers.

    Shared buffers are carved out of the kernel's `smem` segment; reg buffers are private to the
    thread that runs the alloc. Global memory is allocated by the host, never here.

        %s = mapped.alloc : !mapped.buf<3x128x32xf16, shared, swizzle<3, 4, 3>>
        %r = mapped.alloc : !mapped.buf<4x8xf32, reg>
    """

    name = "mapped.alloc"
    result = result_def(BufType)

    def __init__(self, result_type: BufType):
        super().__init__(result_types=[result_type])

    def verify_(self) -> None:
        t = _buf(self.result)
        space = t.space_name
        if space == "global":
            raise self.error(
                "cannot allocate global memory in a kernel: allocate global memory on the host and pass it in"
            )
        if space == "shared":
            self.gpu_kernel()
            if not isinstance(self.parent_op(), KernelOp):
                raise self.error(
                    f"shared memory is allocated once per block: put this alloc at the top level of the kernel body, "
                    f"not inside {self.parent_op().name}"
                )

    @classmethod
    def parse(cls, parser: Parser) -> AllocOp:
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        op = cls(_parse_typed(parser, BufType, "a !mapped.buf type"))
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.result.type}")


def _check_access(op: MappedOp, t: BufType, value_type: Attribute, verb: str) -> None:
    """Element type and vector width of a value `verb` ("loaded"/"stored") from/to buffer type `t`."""
    if isinstance(value_type, VectorType):
        if value_type.get_num_dims() != 1:
            raise op.error(f"the {verb} value must be a scalar or a 1-D vector along the last axis, got {value_type}")
        elt, width = value_type.element_type, value_type.get_shape()[0]
    else:
        elt, width = value_type, 1
    if elt != t.element_type:
        raise op.error(f"buffer holds {t.element_type} but the {verb} value is {value_type}")
    last = t.get_shape()[-1]
    if t.space_name != "global" and last % width:
        raise op.error(f"vector width {width} does not divide the last dimension {last} of {t}")
    sw = t.swizzle
    if sw is not None and width * t.element_bytes > sw.chunk_bytes:
        raise op.error(
            f"a {width}x{elt} access is {width * t.element_bytes} bytes, wider than the {sw.chunk_bytes}-byte "
            f"swizzle chunk of {t}"
        )


@irdl_op_definition
class LoadOp(MappedOp):
    """Reads one element, or `vector<N>` contiguous elements along the last axis, at an index.

    One index per buffer axis; no bounds check (guard with scf.if). In shared/reg buffers the
    vector width must divide the last dimension, and must not cross a swizzle chunk.

        %v = mapped.load %sA[%s, %i, %j] : !mapped.buf<3x128x32xf16, shared> -> vector<8xf16>
        %x = mapped.load %X[%i] : !mapped.buf<?xf32, global> -> f32
    """

    name = "mapped.load"
    source = operand_def(BufType)
    indices = var_operand_def(IndexType)
    result = result_def()

    def __init__(self, source: SSAValue, indices: Sequence[SSAValue], result_type: Attribute | None = None):
        if result_type is None:
            st = source.type
            assert isinstance(st, BufType)
            result_type = st.element_type
        super().__init__(operands=[source, list(indices)], result_types=[result_type])

    def verify_(self) -> None:
        t = _buf(self.source)
        _check_indices(self, t, self.indices, "source")
        _check_access(self, t, self.result.type, "loaded")

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        buf, idx = _parse_indexed(parser)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        bt = _parse_typed(parser, BufType, "a !mapped.buf type")
        parser.parse_punctuation("->")
        rt = parser.parse_type()
        op = cls(parser.resolve_operand(buf, bt), _resolve_indices(parser, idx), rt)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_indexed(printer, self.source, self.indices)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.source.type} -> {self.result.type}")


def _parse_value_into(cls, parser: Parser):
    """`%v, %buf[%i, ...] {attrs} : vtype, buftype` (mapped.store, mapped.atomic_add)."""
    v = parser.parse_unresolved_operand()
    parser.parse_punctuation(",")
    buf, idx = _parse_indexed(parser)
    extra = parse_extra_attrs(parser)
    parser.parse_punctuation(":")
    vt = parser.parse_type()
    parser.parse_punctuation(",")
    bt = _parse_typed(parser, BufType, "a !mapped.buf type")
    op = cls(parser.resolve_operand(v, vt), parser.resolve_operand(buf, bt), _resolve_indices(parser, idx))
    op.attributes |= extra
    return op


def _print_value_into(op, printer: Printer) -> None:
    """`%v, %buf[%i, ...] {attrs} : vtype, buftype` (mapped.store, atomic_add, frag_store)."""
    printer.print_string(" ")
    printer.print_operand(op.value)
    printer.print_string(", ")
    _print_indexed(printer, op.dest, op.indices)
    print_extra_attrs(printer, op)
    printer.print_string(f" : {op.value.type}, {op.dest.type}")


@irdl_op_definition
class StoreOp(MappedOp):
    """Writes one element, or a `vector<N>` of contiguous elements along the last axis, at an index.

    mapped.store %v, %C[%i, %j] : vector<4xf32>, !mapped.buf<?x?xf32, global>
    """

    name = "mapped.store"
    value = operand_def()
    dest = operand_def(BufType)
    indices = var_operand_def(IndexType)

    def __init__(self, value: SSAValue, dest: SSAValue, indices: Sequence[SSAValue]):
        super().__init__(operands=[value, dest, list(indices)])

    def verify_(self) -> None:
        t = _buf(self.dest)
        _check_indices(self, t, self.indices, "destination")
        _check_access(self, t, self.value.type, "stored")

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        return _parse_value_into(cls, parser)

    def print(self, printer: Printer) -> None:
        _print_value_into(self, printer)


@irdl_op_definition
class AtomicAddOp(MappedOp):
    """Adds a scalar to one element of a global buffer atomically.

    No result (a reduction into memory): concurrent adds to one element all land, in an
    unspecified order. Element types: f16, bf16, f32, f64, 32/64-bit integers (each target
    lowers the ones it can; see docs/dsl.md on scatter determinism).

    mapped.atomic_add %v, %out[%i, %j] : f32, !mapped.buf<?x?xf32, global>
    """

    name = "mapped.atomic_add"
    value = operand_def()
    dest = operand_def(BufType)
    indices = var_operand_def(IndexType)

    ELEMENT_TYPES: ClassVar[tuple[str, ...]] = (
        "f16",
        "bf16",
        "f32",
        "f64",
        "i32",
        "si32",
        "ui32",
        "i64",
        "si64",
        "ui64",
    )

    def __init__(self, value: SSAValue, dest: SSAValue, indices: Sequence[SSAValue]):
        super().__init__(operands=[value, dest, list(indices)])

    def verify_(self) -> None:
        t = _buf(self.dest)
        _check_indices(self, t, self.indices, "destination")
        if t.space_name != "global":
            raise self.error(f"atomic adds go to global buffers, got {t}")
        if isinstance(self.value.type, VectorType):
            raise self.error(f"the added value must be a scalar, got {self.value.type}")
        if self.value.type != t.element_type:
            raise self.error(f"buffer holds {t.element_type} but the added value is {self.value.type}")
        if str(t.element_type) not in self.ELEMENT_TYPES:
            raise self.error(f"atomic adds of {t.element_type} are not supported (f16, bf16, f32, f64, 32/64-bit ints)")

    @classmethod
    def parse(cls, parser: Parser) -> AtomicAddOp:
        return _parse_value_into(cls, parser)

    def print(self, printer: Printer) -> None:
        _print_value_into(self, printer)


class _CopyBase(MappedOp):
    """Shared operands, syntax and checks of mapped.copy and mapped.async_copy."""

    source = operand_def(BufType)
    source_indices = var_operand_def(IndexType)
    dest = operand_def(BufType)
    dest_indices = var_operand_def(IndexType)
    shape = prop_def(DenseArrayBase)
    dist = opt_prop_def(DistAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    ASYNC: ClassVar[bool] = False

    def __init__(
        self,
        source: SSAValue,
        source_indices: Sequence[SSAValue],
        dest: SSAValue,
        dest_indices: Sequence[SSAValue],
        shape: Sequence[int],
        dist: DistAttr | None = None,
    ):
        props: dict[str, Attribute] = {"shape": int_array(shape)}
        if dist is not None:
            props["dist"] = dist
        super().__init__(operands=[source, list(source_indices), dest, list(dest_indices)], properties=props)

    @property
    def window(self) -> tuple[int, ...]:
        return int_list(self.shape)

    def _check_fits(self, t: BufType, window: Sequence[int], what: str) -> None:
        inner = t.get_shape()[t.rank - len(window) :]
        for w, d in zip(window, inner):
            if d != DYNAMIC and w > d:
                raise self.error(
                    f"window {shape_str(window)} does not fit the {what} {t} (its last {len(window)} axes are {shape_str(inner)})"
                )

    def verify_(self) -> None:
        st = _buf(self.source)
        dt = _buf(self.dest)
        _check_indices(self, st, self.source_indices, "source")
        _check_indices(self, dt, self.dest_indices, "destination")
        window = self.window
        if not window or any(w < 1 for w in window):
            raise self.error(f"window shape must be non-empty and positive, got {list(window)}")
        for t, what in ((st, "source"), (dt, "destination")):
            if len(window) > t.rank:
                raise self.error(f"window rank {len(window)} exceeds the {what}'s rank {t.rank}")
        if st.element_type != dt.element_type:
            raise self.error(f"source holds {st.element_type} but destination holds {dt.element_type}")
        for t, what in ((st, "source"), (dt, "destination")):
            if t.space_name != "global":
                self._check_fits(t, window, what)
        kernel = self.kernel()
        gpu = kernel is not None and kernel.target.data == "gpu"
        if self.ASYNC:
            if st.space_name != "global" or dt.space_name != "shared":
                raise self.error(f"copies global -> shared only, got {st.space_name} -> {dt.space_name}")
            self.gpu_kernel()
        if gpu:
            self.require_converged("block", "a cooperative copy")
            for t, what in ((st, "source"), (dt, "destination")):
                if t.space_name == "reg":
                    raise self.error(
                        f"the {what} is a reg buffer, private to one thread; a block-wide copy cannot use it "
                        f"(use mapped.load/mapped.store)"
                    )
        if self.dist is None:
            return
        if not gpu:
            raise self.error("`dist` spreads a copy over the threads of a gpu block; a cpu copy takes none")
        d = self.dist
        threads, vec = d.thread_grid(), d.vector.data
        if len(threads) != len(window):
            raise self.error(
                f"dist arranges threads in {len(threads)} axes but the window {shape_str(window)} has {len(window)}"
            )
        assert kernel is not None
        if d.num_threads() != kernel.block_threads:
            raise self.error(
                f"dist uses {d.num_threads()} threads ({'x'.join(map(str, threads))}) but the block has {kernel.block_threads}"
            )
        if window[-1] % vec:
            raise self.error(f"dist vector {vec} does not divide the window's last dimension {window[-1]}")
        vbytes = vec * st.element_bytes
        if vbytes > MAX_ACCESS_BYTES:
            raise self.error(
                f"dist vector {vec}x{st.element_type} is {vbytes} bytes; "
                f"one thread moves at most {MAX_ACCESS_BYTES} bytes per access"
            )
        if self.ASYNC and vbytes not in ASYNC_COPY_BYTES:
            raise self.error(
                f"an async copy moves 4, 8 or 16 bytes per thread, but dist vector {vec}x{st.element_type} is {vbytes}"
            )
        sw = dt.swizzle
        if sw is not None and vbytes > sw.chunk_bytes:
            raise self.error(f"dist vector of {vbytes} bytes crosses the {sw.chunk_bytes}-byte swizzle chunks of {dt}")

    @classmethod
    def parse(cls, parser: Parser):
        src, sidx = _parse_indexed(parser)
        parser.parse_punctuation("->")
        dst, didx = _parse_indexed(parser)
        parser.parse_keyword("shape")
        shape = parse_int_list(parser)
        extra = parse_extra_attrs(parser)
        dist = extra.pop("dist", None)
        if dist is not None and not isinstance(dist, DistAttr):
            parser.raise_error(f"dist must be a #mapped.dist attribute, got {dist}")
        parser.parse_punctuation(":")
        st = _parse_typed(parser, BufType, "a !mapped.buf type")
        parser.parse_punctuation(",")
        dt = _parse_typed(parser, BufType, "a !mapped.buf type")
        op = cls(
            parser.resolve_operand(src, st),
            _resolve_indices(parser, sidx),
            parser.resolve_operand(dst, dt),
            _resolve_indices(parser, didx),
            shape,
            dist,
        )
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_indexed(printer, self.source, self.source_indices)
        printer.print_string(" -> ")
        _print_indexed(printer, self.dest, self.dest_indices)
        printer.print_string(" shape ")
        print_int_list(printer, self.window)
        attrs = dict(self.attributes)
        if self.dist is not None:
            attrs = {"dist": self.dist, **attrs}
        if attrs:
            printer.print_string(" ")
            printer.print_attr_dict(attrs)
        printer.print_string(f" : {self.source.type}, {self.dest.type}")


@irdl_op_definition
class CopyOp(_CopyBase):
    """Cooperative copy of a `shape` window from one buffer to another.

    The window covers the LAST len(shape) axes of each buffer, starting at the given indices (one per
    axis; leading axes, e.g. a stage slot, are indexed by offsets only). Reads outside the source's
    bounds yield zero; writes outside the destination's bounds are dropped (bounds are the buffers'
    run-time dims). On gpu every thread of the block takes part, spread as `dist` says (or as the
    lowering picks); on cpu the running thread copies alone.

        mapped.copy %A[%i, %k] -> %sA[%c0, %c0] shape [128, 32] {dist = #mapped.dist<threads = [32, 4], vector = 8>}
            : !mapped.buf<?x?xf16, global>, !mapped.buf<128x32xf16, shared>
    """

    name = "mapped.copy"


@irdl_op_definition
class AsyncCopyOp(_CopyBase):
    """Asynchronous (cp.async-style) cooperative copy, global -> shared only; same form as mapped.copy.

    Its data is visible after `mapped.async_commit`, a `mapped.async_wait` that lets its group finish,
    and a `mapped.barrier`. Each thread moves 4, 8 or 16 bytes per access.

        mapped.async_copy %A[%i, %k] -> %sA[%slot, %c0, %c0] shape [128, 32]
            : !mapped.buf<?x?xf16, global>, !mapped.buf<3x128x32xf16, shared>
    """

    name = "mapped.async_copy"
    ASYNC: ClassVar[bool] = True


@irdl_op_definition
class AsyncCopyWindowOp(MappedOp):
    """Async copy (global -> shared) of a tile of a channels-last convolution input's im2col matrix.

    The tile is `shape` [rows, cols]; the im2col matrix exists only as this op's index math. The source is the input x (N, *S, C) of a convolution with d = len(kernel) spatial axes; the
    im2col matrix has a row m = (n, *p) per output position (row-major over (N, *out)) and a
    column k = (*kernel offset, c) per kernel tap and channel (c fastest: the layout of a
    channels-last weight (O, *kernel, C) read as [O, K*C]). Element (m, k) is
    xd[n, p*stride + off*dilation - pad_lo, c], xd being x dilated by lhs_dilation, and 0 where
    that position is outside xd or between its taps, or where m or k is past the matrix. The tile
    starting at (m0, k0) lands at the destination indices (the last two axes, as mapped.async_copy).
    C is a whole number of 16-byte chunks, so no chunk straddles two pixels; otherwise `channels Cp`
    (a multiple of 16 bytes) pads each tap's columns with zeros to Cp channels and the elements are
    copied one by one, synchronously (ResNet's stem: C = 3, a pixel is 6 bytes).

        mapped.async_copy_window %x[%m0, %k0] -> %sA[%slot, %c0, %c0] shape [128, 32]
            out [28, 28] kernel [3, 3] stride [2, 2] dilation [1, 1] lhs_dilation [1, 1] pad_lo [1, 1]
            : !mapped.buf<8x56x56x64xf16, global>, !mapped.buf<3x128x32xf16, shared>
    """

    name = "mapped.async_copy_window"
    source = operand_def(BufType)
    source_indices = var_operand_def(IndexType)
    dest = operand_def(BufType)
    dest_indices = var_operand_def(IndexType)
    shape = prop_def(DenseArrayBase)
    out = prop_def(DenseArrayBase)
    kernel_size = prop_def(DenseArrayBase, prop_name="kernel")
    stride = prop_def(DenseArrayBase)
    dilation = prop_def(DenseArrayBase)
    lhs_dilation = prop_def(DenseArrayBase)
    pad_lo = prop_def(DenseArrayBase)
    channels = opt_prop_def(IntAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    GEOMETRY: ClassVar[tuple[str, ...]] = ("out", "kernel", "stride", "dilation", "lhs_dilation", "pad_lo")

    def __init__(
        self,
        source: SSAValue,
        source_indices: Sequence[SSAValue],
        dest: SSAValue,
        dest_indices: Sequence[SSAValue],
        shape: Sequence[int],
        geometry: dict[str, Sequence[int]],
        channels: int | None = None,
    ):
        props: dict[str, Attribute] = {"shape": int_array(shape)}
        for key in self.GEOMETRY:
            props[key] = int_array(geometry[key])
        if channels is not None:
            props["channels"] = IntAttr(channels)
        super().__init__(operands=[source, list(source_indices), dest, list(dest_indices)], properties=props)

    @property
    def matrix_channels(self) -> int:
        """Channels per tap in the im2col columns: the source's C, or `channels` (zero-padded)."""
        return self.channels.data if self.channels is not None else _buf(self.source).get_shape()[-1]

    @property
    def elementwise(self) -> bool:
        """The channels are padded: pixels are not whole 16-byte chunks, so elements are copied one by one."""
        return self.matrix_channels != _buf(self.source).get_shape()[-1]

    @property
    def window(self) -> tuple[int, ...]:
        return int_list(self.shape)

    def geometry(self) -> dict[str, tuple[int, ...]]:
        return {
            "out": int_list(self.out),
            "kernel": int_list(self.kernel_size),
            "stride": int_list(self.stride),
            "dilation": int_list(self.dilation),
            "lhs_dilation": int_list(self.lhs_dilation),
            "pad_lo": int_list(self.pad_lo),
        }

    def matrix_shape(self) -> tuple[int, int]:
        """(M, K) of the im2col matrix."""
        shape = _buf(self.source).get_shape()
        geo = self.geometry()
        m = shape[0]
        for o in geo["out"]:
            m *= o
        k = self.matrix_channels
        for w in geo["kernel"]:
            k *= w
        return m, k

    def verify_(self) -> None:
        st, dt = _buf(self.source), _buf(self.dest)
        self.gpu_kernel()
        self.require_converged("block", "a cooperative copy")
        if st.space_name != "global" or dt.space_name != "shared":
            raise self.error(f"copies global -> shared only, got {st.space_name} -> {dt.space_name}")
        if st.element_type != dt.element_type:
            raise self.error(f"source holds {st.element_type} but destination holds {dt.element_type}")
        geo = self.geometry()
        d = len(geo["kernel"])
        if not 1 <= d <= 3:
            raise self.error(f"a convolution has 1 to 3 spatial axes, got kernel {list(geo['kernel'])}")
        for key, vals in geo.items():
            if len(vals) != d:
                raise self.error(f"{key} has {len(vals)} entries but the kernel has {d} spatial axes")
            if key != "pad_lo" and any(v < 1 for v in vals):
                raise self.error(f"{key} entries must be >= 1, got {list(vals)}")
        if st.rank != d + 2:
            raise self.error(f"the source {st} must be (N, *spatial, C): rank {d + 2} for {d} spatial axes")
        if DYNAMIC in st.get_shape():
            raise self.error(f"the source {st} must have static sizes")
        if len(self.source_indices) != 2:
            raise self.error(
                f"takes the tile's (row, column) in the im2col matrix: 2 indices, got {len(self.source_indices)}"
            )
        _check_indices(self, dt, self.dest_indices, "destination")
        window = self.window
        if len(window) != 2 or any(w < 1 for w in window):
            raise self.error(f"window shape must be 2 positive sizes [rows, cols], got {list(window)}")
        if dt.rank < 2:
            raise self.error(f"the destination {dt} needs at least 2 axes")
        inner = dt.get_shape()[-2:]
        if any(dd != DYNAMIC and w > dd for w, dd in zip(window, inner)):
            raise self.error(f"window {shape_str(window)} does not fit the destination {dt}")
        eb = st.element_bytes
        c, cp = st.get_shape()[-1], self.matrix_channels
        if cp < c:
            raise self.error(f"channels {cp} is fewer than the source's {c}")
        if (cp * eb) % 16 or (window[1] * eb) % 16:
            raise self.error(
                f"channels ({cp}) and window columns ({window[1]}) must be whole 16-byte chunks of {st.element_type}"
                + ("" if self.channels is not None else " (pad the channels with `channels N`)")
            )

    @classmethod
    def parse(cls, parser: Parser) -> AsyncCopyWindowOp:
        src, sidx = _parse_indexed(parser)
        parser.parse_punctuation("->")
        dst, didx = _parse_indexed(parser)
        parser.parse_keyword("shape")
        shape = parse_int_list(parser)
        geometry: dict[str, Sequence[int]] = {}
        for key in cls.GEOMETRY:
            parser.parse_keyword(key)
            geometry[key] = parse_int_list(parser)
        channels = parser.parse_integer(allow_boolean=False) if parser.parse_optional_keyword("channels") else None
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        st = _parse_typed(parser, BufType, "a !mapped.buf type")
        parser.parse_punctuation(",")
        dt = _parse_typed(parser, BufType, "a !mapped.buf type")
        op = cls(
            parser.resolve_operand(src, st),
            _resolve_indices(parser, sidx),
            parser.resolve_operand(dst, dt),
            _resolve_indices(parser, didx),
            shape,
            geometry,
            channels,
        )
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_indexed(printer, self.source, self.source_indices)
        printer.print_string(" -> ")
        _print_indexed(printer, self.dest, self.dest_indices)
        printer.print_string(" shape ")
        print_int_list(printer, self.window)
        for key, vals in self.geometry().items():
            printer.print_string(f" {key} ")
            print_int_list(printer, vals)
        if self.channels is not None:
            printer.print_string(f" channels {self.channels.data}")
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.source.type}, {self.dest.type}")


@irdl_op_definition
class AsyncCommitOp(MappedOp):
    """Closes the group of async copies this thread issued since the last commit.

    mapped.async_commit
    """

    name = "mapped.async_commit"

    def __init__(self):
        super().__init__()

    def verify_(self) -> None:
        self.gpu_kernel()

    @classmethod
    def parse(cls, parser: Parser) -> AsyncCommitOp:
        op = cls()
        op.attributes |= parse_extra_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        print_extra_attrs(printer, self)


@irdl_op_definition
class AsyncWaitOp(MappedOp):
    """Waits until at most `N` committed groups of async copies are still pending (0 = all done).

    mapped.async_wait 1
    """

    name = "mapped.async_wait"
    pending = prop_def(IntAttr)

    def __init__(self, pending: int):
        super().__init__(properties={"pending": IntAttr(pending)})

    def verify_(self) -> None:
        self.gpu_kernel()
        if self.pending.data < 0:
            raise self.error(f"pending group count must be >= 0, got {self.pending.data}")

    @classmethod
    def parse(cls, parser: Parser) -> AsyncWaitOp:
        op = cls(parser.parse_integer(allow_boolean=False))
        op.attributes |= parse_extra_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.pending.data}")
        print_extra_attrs(printer, self)


@irdl_op_definition
class BarrierOp(MappedOp):
    """Waits for all threads of the block (and makes their shared-memory writes visible), or of the warp.

    mapped.barrier
    mapped.barrier warp
    """

    name = "mapped.barrier"
    scope = prop_def(StringAttr)

    def __init__(self, scope: str = "block"):
        super().__init__(properties={"scope": StringAttr(scope)})

    def verify_(self) -> None:
        if self.scope.data not in REDUCE_SCOPES:
            raise self.error(f"unknown scope '{self.scope.data}' (expected block or warp)")
        self.gpu_kernel()
        self.require_converged(self.scope.data, f"a {self.scope.data} barrier")

    @classmethod
    def parse(cls, parser: Parser) -> BarrierOp:
        op = cls("warp" if parser.parse_optional_keyword("warp") else "block")
        op.attributes |= parse_extra_attrs(parser)
        return op

    def print(self, printer: Printer) -> None:
        if self.scope.data != "block":
            printer.print_string(f" {self.scope.data}")
        print_extra_attrs(printer, self)


# --- loops --------------------------------------------------------------------------------------

# For each level, the levels an enclosing mapped.parallel may have.
_ALLOWED_OUTER = {
    "cores": (),
    "blocks": (),
    "warps": ("blocks",),
    "threads": ("blocks",),
    "lanes": ("blocks", "warps"),
}


@irdl_op_definition
class ParallelOp(MappedOp):
    """A tiled loop nest whose iterations are independent, spread over a level of the machine.

    The induction variables run from the lower bounds to (excluding) the upper bounds by the steps.
    `on cores`: host threads (cpu kernels); `if %c` (an i1) runs the iterations on the calling
    thread alone when %c is false (small work: no thread team is started). gpu levels: `blocks` (iteration i runs on block
    i mod #blocks, all its threads together), `warps` (over the warps of the block; a whole warp
    runs each iteration), `threads` (over the threads of the block), `lanes` (over the lanes of
    each warp). A level nests only inside a coarser one (blocks > warps > lanes; blocks > threads).

        mapped.parallel (%i, %j) = (%c0, %c0) to (%M, %N) step (%c64, %c64) on cores if %big {
          ...
          mapped.yield
        }
    """

    name = "mapped.parallel"
    lower_bounds = var_operand_def(IndexType)
    upper_bounds = var_operand_def(IndexType)
    steps = var_operand_def(IndexType)
    condition = opt_operand_def(i1)
    level = prop_def(StringAttr, prop_name="on")
    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        lower_bounds: Sequence[SSAValue],
        upper_bounds: Sequence[SSAValue],
        steps: Sequence[SSAValue],
        on: str,
        body: Region | None = None,
        condition: SSAValue | None = None,
    ):
        if body is None:
            body = Region(Block([YieldOp()], arg_types=[IndexType()] * len(lower_bounds)))
        super().__init__(
            operands=[
                list(lower_bounds),
                list(upper_bounds),
                list(steps),
                [condition] if condition is not None else [],
            ],
            properties={"on": StringAttr(on)},
            regions=[body],
        )

    @property
    def induction_vars(self):
        return self.body.block.args

    def verify_(self) -> None:
        n = len(self.lower_bounds)
        if n == 0 or len(self.upper_bounds) != n or len(self.steps) != n:
            raise self.error(
                f"needs the same positive number of lower bounds, upper bounds and steps, got "
                f"{n}, {len(self.upper_bounds)} and {len(self.steps)}"
            )
        args = self.body.block.args
        if len(args) != n or any(not isinstance(a.type, IndexType) for a in args):
            raise self.error(f"the body takes {n} index induction variable(s)")
        _check_yield(self, self.body, [], "the body")
        level = self.level.data
        if level not in LEVELS:
            raise self.error(f"unknown level '{level}' (expected {', '.join(LEVELS)})")
        if self.condition is not None and level != "cores":
            raise self.error(f"`if` applies to `on cores` only (the thread team of a cpu kernel), not `on {level}`")
        kernel = self.kernel()
        if kernel is not None:
            want = "cpu" if level == "cores" else "gpu"
            if kernel.target.data != want:
                raise self.error(
                    f"`on {level}` needs a {want} kernel, but @{kernel.sym_name.data} targets {kernel.target.data}"
                )
        outer = self.enclosing_levels()
        for lvl in outer:
            if lvl not in _ALLOWED_OUTER[level]:
                raise self.error(f"`on {level}` cannot be nested inside `on {lvl}`")

    @classmethod
    def parse(cls, parser: Parser) -> ParallelOp:
        ivs = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False)
        )
        parser.parse_punctuation("=")

        def operands():
            vals = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
            return [parser.resolve_operand(v, IndexType()) for v in vals]

        lbs = operands()
        parser.parse_keyword("to")
        ubs = operands()
        parser.parse_keyword("step")
        steps = operands()
        parser.parse_keyword("on")
        on = parse_keyword_choice(parser, LEVELS, "a parallel level")
        cond = None
        if parser.parse_optional_keyword("if") is not None:
            cond = parser.resolve_operand(parser.parse_unresolved_operand(), i1)
        extra = _parse_attrs_kw(parser)
        region = parser.parse_region([iv.resolve(IndexType()) for iv in ivs])
        op = cls(lbs, ubs, steps, on, region, cond)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        def group(values) -> None:
            printer.print_string("(")
            printer.print_list(values, printer.print_operand)
            printer.print_string(")")

        printer.print_string(" ")
        group(self.body.block.args)
        printer.print_string(" = ")
        group(self.lower_bounds)
        printer.print_string(" to ")
        group(self.upper_bounds)
        printer.print_string(" step ")
        group(self.steps)
        printer.print_string(f" on {self.level.data}")
        if self.condition is not None:
            printer.print_string(" if ")
            printer.print_operand(self.condition)
        _print_attrs_kw(printer, self)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)


@irdl_op_definition
class PipelineOp(MappedOp):
    """A software-pipelined loop: `produce` fills buffer slots, `consume` computes on them.

    For k = lb, lb+step, ... < ub (iteration number i, slot = i mod stages) it means exactly:
    produce(k, slot); wait for produce's copies; consume(k, slot, iter_args...) -> new iter_args.
    A later pass expands it into prologue / steady state / epilogue with `stages - 1` produce
    steps in flight, so `produce` must only write slot `slot` of its ring buffers (leading axis of
    size >= stages) and `consume` must only read slot `slot`. `produce` takes (k, slot) and yields
    nothing; `consume` takes (k, slot, iter_args...) and yields the next iter_args; the results are
    the final iter_args.

        %r = mapped.pipeline %c0 to %K step %c32 stages 3 iter_args(%z)
            -> (!mapped.frag<64x32xf32, acc, m16n8k16>) produce {
        ^bb0(%k: index, %slot: index):
          mapped.async_copy %A[%m, %k] -> %sA[%slot, %c0, %c0] shape [128, 32] : ...
          mapped.yield
        } consume {
        ^bb0(%k: index, %slot: index, %acc: !mapped.frag<64x32xf32, acc, m16n8k16>):
          ...
          mapped.yield %acc2 : !mapped.frag<64x32xf32, acc, m16n8k16>
        }
    """

    name = "mapped.pipeline"
    lower_bound = operand_def(IndexType)
    upper_bound = operand_def(IndexType)
    step = operand_def(IndexType)
    inits = var_operand_def()
    stages = prop_def(IntAttr)
    res = var_result_def()
    produce = region_def("single_block")
    consume = region_def("single_block")

    def __init__(
        self,
        lower_bound: SSAValue,
        upper_bound: SSAValue,
        step: SSAValue,
        stages: int,
        inits: Sequence[SSAValue] = (),
        produce: Region | None = None,
        consume: Region | None = None,
    ):
        types = [v.type for v in inits]
        if produce is None:
            produce = Region(Block(arg_types=[IndexType(), IndexType()]))
        if consume is None:
            consume = Region(Block(arg_types=[IndexType(), IndexType(), *types]))
        super().__init__(
            operands=[lower_bound, upper_bound, step, list(inits)],
            result_types=[types],
            properties={"stages": IntAttr(stages)},
            regions=[produce, consume],
        )

    def verify_(self) -> None:
        stages = self.stages.data
        if stages < 1:
            raise self.error(f"stages must be >= 1, got {stages}")
        types = [v.type for v in self.inits]
        if [r.type for r in self.res] != types:
            raise self.error("result types must equal the iter_args types")
        idx = [IndexType(), IndexType()]
        if list(self.produce.block.arg_types) != idx:
            raise self.error("produce takes (%k: index, %slot: index)")
        if list(self.consume.block.arg_types) != [*idx, *types]:
            want = ", ".join(["%k: index", "%slot: index", *[str(t) for t in types]])
            raise self.error(f"consume takes ({want})")
        _check_yield(self, self.produce, [], "produce")
        _check_yield(self, self.consume, types, "consume")
        slot = self.produce.block.args[1]
        for op in self.produce.walk():
            if isinstance(op, _CopyBase) and op.dest_indices and op.dest_indices[0] == slot:
                t = op.dest.type
                if isinstance(t, BufType) and t.get_shape()[0] != DYNAMIC and t.get_shape()[0] < stages:
                    raise self.error(
                        f"produce writes slot %slot of {t}, whose leading axis has {t.get_shape()[0]} entries "
                        f"for {stages} stages"
                    )

    @classmethod
    def parse(cls, parser: Parser) -> PipelineOp:
        lb = parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
        parser.parse_keyword("to")
        ub = parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
        parser.parse_keyword("step")
        step = parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
        parser.parse_keyword("stages")
        stages = parser.parse_integer(allow_boolean=False)
        inits, types = [], []
        if parser.parse_optional_keyword("iter_args"):
            inits = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
            parser.parse_punctuation("->")
            start = parser.pos
            types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
            if len(types) != len(inits):
                parser.raise_error(f"{len(inits)} iter_args but {len(types)} result type(s)", start, parser.pos)
        extra = _parse_attrs_kw(parser)
        parser.parse_keyword("produce")
        produce = parser.parse_region()
        parser.parse_keyword("consume")
        consume = parser.parse_region()
        op = cls(lb, ub, step, stages, [parser.resolve_operand(v, t) for v, t in zip(inits, types)], produce, consume)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.lower_bound)
        printer.print_string(" to ")
        printer.print_operand(self.upper_bound)
        printer.print_string(" step ")
        printer.print_operand(self.step)
        printer.print_string(f" stages {self.stages.data}")
        if self.inits:
            printer.print_string(" iter_args(")
            printer.print_list(self.inits, printer.print_operand)
            printer.print_string(") -> (")
            printer.print_list([v.type for v in self.inits], printer.print_attribute)
            printer.print_string(")")
        _print_attrs_kw(printer, self)
        printer.print_string(" produce ")
        printer.print_region(self.produce)
        printer.print_string(" consume ")
        printer.print_region(self.consume)


# --- fragments and contraction ------------------------------------------------------------------


def _frag(value: SSAValue) -> FragType:
    """The fragment type of an operand/result whose definition already constrains it to FragType."""
    t = value.type
    assert isinstance(t, FragType)
    return t


def _frag_context(op: MappedOp, *frags: FragType) -> None:
    """Fragment ops are warp collectives in a gpu kernel whose wave matches the instruction."""
    kernel = op.gpu_kernel()
    op.require_converged("warp", "a fragment op")
    for f in frags:
        op.check_frag_lanes(f, kernel)


@irdl_op_definition
class FragFillOp(MappedOp):
    """A fragment with every element set to one constant.

    %z = mapped.frag_fill 0.0 : !mapped.frag<64x32xf32, acc, m16n8k16>
    """

    name = "mapped.frag_fill"
    value = prop_def(FloatAttr)
    result = result_def(FragType)
    traits = traits_def(Pure())

    def __init__(self, value: float | FloatAttr, result_type: FragType):
        if not isinstance(value, FloatAttr):
            value = FloatAttr(float(value), result_type.element_type)
        super().__init__(result_types=[result_type], properties={"value": value})

    def verify_(self) -> None:
        t = _frag(self.result)
        if self.value.type != t.element_type:
            raise self.error(f"value has type {self.value.type} but the fragment holds {t.element_type}")
        _frag_context(self, t)

    @classmethod
    def parse(cls, parser: Parser) -> FragFillOp:
        start = parser.pos
        number = parser.parse_optional_number()
        if number is None:
            parser.raise_error("frag_fill: expected a number", start, start + 1)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        t = _parse_typed(parser, FragType, "a !mapped.frag type")
        op = cls(float(number), t)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_float(self.value.value.data, self.value.type)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.result.type}")


@irdl_op_definition
class FragLoadOp(MappedOp):
    """Each warp loads its fragment from a 2-D window of a shared or reg buffer.

    The window is the buffer's last two axes, its top-left corner at the last two indices (leading
    indices pick e.g. the stage slot). Default source layout: the fragment's own shape row-major,
    i.e. a is M x K (K contiguous), b is K x N (N contiguous), acc is M x N. `transposed` (a and b
    only) means the window holds the transpose: a stored K x M (M contiguous), b stored N x K
    (K contiguous, the "B^T" / column-major B case).

        %a = mapped.frag_load %sA[%slot, %r, %c] : !mapped.buf<3x128x32xf16, shared, swizzle<3, 4, 3>>
               -> !mapped.frag<64x16xf16, a, m16n8k16>
        %b = mapped.frag_load %sB[%slot, %n, %k] transposed : !mapped.buf<3x128x32xf16, shared>
               -> !mapped.frag<16x32xf16, b, m16n8k16>
    """

    name = "mapped.frag_load"
    source = operand_def(BufType)
    indices = var_operand_def(IndexType)
    transposed = opt_prop_def(UnitAttr)
    result = result_def(FragType)

    def __init__(self, source: SSAValue, indices: Sequence[SSAValue], result_type: FragType, transposed: bool = False):
        props: dict[str, Attribute] = {"transposed": UnitAttr()} if transposed else {}
        super().__init__(operands=[source, list(indices)], result_types=[result_type], properties=props)

    @property
    def is_transposed(self) -> bool:
        return self.transposed is not None

    def stored_shape(self) -> tuple[int, int]:
        """(rows, cols) of the window in the buffer."""
        t = self.result.type
        assert isinstance(t, FragType)
        r, c = t.get_shape()
        return (c, r) if self.is_transposed else (r, c)

    def verify_(self) -> None:
        bt = _buf(self.source)
        ft = _frag(self.result)
        _check_indices(self, bt, self.indices, "source")
        if bt.rank < 2:
            raise self.error(f"the source needs at least 2 axes for a 2-D window, got {bt}")
        if bt.space_name not in ("shared", "reg"):
            raise self.error(
                f"loads fragments from shared or reg buffers only, got {bt.space_name} (copy to shared first)"
            )
        if bt.element_type != ft.element_type:
            raise self.error(f"buffer holds {bt.element_type} but the fragment holds {ft.element_type}")
        if self.is_transposed and ft.role_name == "acc":
            raise self.error("`transposed` applies to a and b fragments only")
        rows, cols = self.stored_shape()
        br, bc = bt.get_shape()[-2:]
        if rows > br or cols > bc:
            raise self.error(
                f"the {rows}x{cols} window{' (transposed)' if self.is_transposed else ''} of a "
                f"{shape_str(ft.get_shape())} {ft.role_name} fragment does not fit the source's {br}x{bc} tile"
            )
        _frag_context(self, ft)

    @classmethod
    def parse(cls, parser: Parser) -> FragLoadOp:
        buf, idx = _parse_indexed(parser)
        transposed = parser.parse_optional_keyword("transposed") is not None
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        bt = _parse_typed(parser, BufType, "a !mapped.buf type")
        parser.parse_punctuation("->")
        ft = _parse_typed(parser, FragType, "a !mapped.frag type")
        op = cls(parser.resolve_operand(buf, bt), _resolve_indices(parser, idx), ft, transposed)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_indexed(printer, self.source, self.indices)
        if self.is_transposed:
            printer.print_string(" transposed")
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.source.type} -> {self.result.type}")


@irdl_op_definition
class MmaOp(MappedOp):
    """The abstract warp-level matrix multiply-accumulate on fragments: d = a x b + c.

    a is WM x WK, b is WK x WN, c and d are WM x WN, all with the same instruction shape. Legal
    element types: f16 x f16 -> f32 or f16, bf16 x bf16 -> f32, f32 x f32 -> f32 (tf32, m16n8k8).

        %d = mapped.mma %a, %b, %c : !mapped.frag<64x16xf16, a, m16n8k16>, !mapped.frag<16x32xf16, b, m16n8k16>,
               !mapped.frag<64x32xf32, acc, m16n8k16> -> !mapped.frag<64x32xf32, acc, m16n8k16>
    """

    name = "mapped.mma"
    lhs = operand_def(FragType)
    rhs = operand_def(FragType)
    acc = operand_def(FragType)
    result = result_def(FragType)
    traits = traits_def(Pure())

    def __init__(self, lhs: SSAValue, rhs: SSAValue, acc: SSAValue, result_type: Attribute | None = None):
        super().__init__(operands=[lhs, rhs, acc], result_types=[result_type or acc.type])

    def verify_(self) -> None:
        a = _frag(self.lhs)
        b = _frag(self.rhs)
        c = _frag(self.acc)
        d = _frag(self.result)
        for t, role, what in ((a, "a", "first operand"), (b, "b", "second operand"), (c, "acc", "third operand")):
            if t.role_name != role:
                raise self.error(f"the {what} must be an {role} fragment, got role {t.role_name} ({t})")
        if not a.instr == b.instr == c.instr:
            raise self.error(f"instruction shapes differ: a {a.instr.data}, b {b.instr.data}, acc {c.instr.data}")
        (am, ak), (bk, bn), (cm, cn) = a.get_shape(), b.get_shape(), c.get_shape()
        if am != cm:
            raise self.error(f"a fragment is {am}x{ak} but acc fragment is {cm}x{cn} (M must agree)")
        if bn != cn:
            raise self.error(f"b fragment is {bk}x{bn} but acc fragment is {cm}x{cn} (N must agree)")
        if ak != bk:
            raise self.error(f"a fragment is {am}x{ak} but b fragment is {bk}x{bn} (K must agree)")
        pair = (str(a.element_type), str(b.element_type))
        legal = LEGAL_MMA_TYPES.get(pair, ())
        if str(c.element_type) not in legal:
            raise self.error(
                f"{pair[0]} x {pair[1]} -> {c.element_type} is not a legal MMA "
                f"(f16 x f16 -> f32|f16, bf16 x bf16 -> f32, f32 x f32 -> f32)"
            )
        if d != c:
            raise self.error(f"result type {d} must equal the acc type {c}")
        _frag_context(self, a, b, c)

    @classmethod
    def parse(cls, parser: Parser) -> MmaOp:
        ops = [parser.parse_unresolved_operand()]
        for _ in range(2):
            parser.parse_punctuation(",")
            ops.append(parser.parse_unresolved_operand())
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        types = []
        for i in range(3):
            if i:
                parser.parse_punctuation(",")
            types.append(_parse_typed(parser, FragType, "a !mapped.frag type"))
        parser.parse_punctuation("->")
        rt = _parse_typed(parser, FragType, "a !mapped.frag type")
        op = cls(*[parser.resolve_operand(o, t) for o, t in zip(ops, types)], rt)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.lhs.type}, {self.rhs.type}, {self.acc.type} -> {self.result.type}")


# --- fragment arithmetic: what an online softmax does between two MMAs --------------------------


def _same_instr(op: MappedOp, frags: Sequence[FragType]) -> None:
    names = {f.instr.data for f in frags}
    if len(names) > 1:
        raise op.error(f"fragments of different instruction shapes: {', '.join(sorted(names))}")


@irdl_op_definition
class FragMapOp(MappedOp):
    """An element-by-element function of fragments of one layout, each lane on its own elements.

    The result is an acc fragment (M x N) or a row fragment (M x 1). Operands of an acc result are
    acc fragments of its shape, or row fragments of its M, broadcast along the row; operands of a
    row result are row fragments. The body takes each operand's element, then the element's row
    and column in the fragment (the column is 0 for a row result), and yields the result's
    element. Values from the enclosing kernel may be used in the body (positions, bounds).

        %p = mapped.frag_map %s, %m : !mapped.frag<16x64xf32, acc, m16n8k16>,
            !mapped.frag<16x1xf32, row, m16n8k16> -> !mapped.frag<16x64xf32, acc, m16n8k16> {
        ^bb0(%x: f32, %mx: f32, %row: index, %col: index):
          %d = arith.subf %x, %mx : f32
          %e = math.exp %d : f32
          mapped.yield %e : f32
        }
    """

    name = "mapped.frag_map"
    args = var_operand_def(FragType)
    result = result_def(FragType)
    body = region_def("single_block")
    traits = traits_def(Pure())

    def __init__(self, args: Sequence[SSAValue], result_type: FragType, body: Region):
        super().__init__(operands=[list(args)], result_types=[result_type], regions=[body])

    def verify_(self) -> None:
        rt = _frag(self.result)
        ts = [_frag(a) for a in self.args]
        if not ts:
            raise self.error("maps at least one fragment")
        if rt.role_name not in ("acc", "row"):
            raise self.error(f"the result is an acc or a row fragment, got role {rt.role_name}")
        _same_instr(self, [rt, *ts])
        m, n = rt.get_shape()
        for i, t in enumerate(ts):
            ok = t.role_name == "row" and t.get_shape()[0] == m
            if rt.role_name == "acc":
                ok = ok or (t.role_name == "acc" and t.get_shape() == (m, n))
            if not ok:
                want = f"acc {m}x{n} or row {m}x1" if rt.role_name == "acc" else f"row {m}x1"
                raise self.error(f"operand {i} is {t}; a {rt.role_name} result takes {want} fragments")
        want = [*(t.element_type for t in ts), IndexType(), IndexType()]
        if list(self.body.block.arg_types) != want:
            raise self.error(f"the body takes ({', '.join(str(t) for t in want)}): the elements, their row and column")
        _check_yield(self, self.body, [rt.element_type], "the body")
        _frag_context(self, rt, *ts)

    @classmethod
    def parse(cls, parser: Parser) -> FragMapOp:
        args = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        types = [_parse_typed(parser, FragType, "a !mapped.frag type")]
        while parser.parse_optional_punctuation(","):
            types.append(_parse_typed(parser, FragType, "a !mapped.frag type"))
        parser.parse_punctuation("->")
        rt = _parse_typed(parser, FragType, "a !mapped.frag type")
        if len(types) != len(args):
            parser.raise_error(f"{len(args)} operand(s) but {len(types)} type(s)")
        body = parser.parse_region()
        op = cls([parser.resolve_operand(a, t) for a, t in zip(args, types)], rt, body)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.args, printer.print_operand)
        print_extra_attrs(printer, self)
        printer.print_string(" : ")
        printer.print_list([a.type for a in self.args], printer.print_attribute)
        printer.print_string(f" -> {self.result.type} ")
        printer.print_region(self.body)


FRAG_REDUCE_KINDS = ("max", "sum")


@irdl_op_definition
class FragReduceOp(MappedOp):
    """Each row of an accumulator fragment reduced (max or sum) to a row fragment.

    Every lane that holds the row gets the result (m16n8k16: a reduction within each quad of lanes).

        %m = mapped.frag_reduce max %s : !mapped.frag<16x64xf32, acc, m16n8k16> -> !mapped.frag<16x1xf32, row, m16n8k16>
    """

    name = "mapped.frag_reduce"
    kind = prop_def(StringAttr)
    source = operand_def(FragType)
    result = result_def(FragType)
    traits = traits_def(Pure())

    def __init__(self, kind: str, source: SSAValue):
        t = _frag(source)
        rt = FragType([t.get_shape()[0], 1], t.element_type, "row", t.instr.data)
        super().__init__(operands=[source], result_types=[rt], properties={"kind": StringAttr(kind)})

    def verify_(self) -> None:
        if self.kind.data not in FRAG_REDUCE_KINDS:
            raise self.error(f"kind must be one of {', '.join(FRAG_REDUCE_KINDS)}, got '{self.kind.data}'")
        st, rt = _frag(self.source), _frag(self.result)
        if st.role_name != "acc":
            raise self.error(f"reduces the rows of an acc fragment, got role {st.role_name}")
        want = FragType([st.get_shape()[0], 1], st.element_type, "row", st.instr.data)
        if rt != want:
            raise self.error(f"the result of reducing {st} is {want}, got {rt}")
        _frag_context(self, st, rt)

    @classmethod
    def parse(cls, parser: Parser) -> FragReduceOp:
        kind = _word(parser, FRAG_REDUCE_KINDS, "a reduction kind")
        src = parser.parse_unresolved_operand()
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        st = _parse_typed(parser, FragType, "a !mapped.frag type")
        parser.parse_punctuation("->")
        start = parser.pos
        rt = _parse_typed(parser, FragType, "a !mapped.frag type")
        op = cls(kind, parser.resolve_operand(src, st))
        if op.result.type != rt:
            parser.raise_error(f"the result of reducing {st} is {op.result.type}", start, parser.pos)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_operand(self.source)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.source.type} -> {self.result.type}")


@irdl_op_definition
class FragConvertOp(MappedOp):
    """An f32 accumulator fragment rounded to f16 or bf16 as an `a` fragment of the same shape.

    So a result feeds the next MMA from registers (attention's probabilities times V). m16n8k16 only, where the two layouts hold the same elements in the same lanes: N must be a
    multiple of 16.

        %pa = mapped.frag_convert %p : !mapped.frag<16x64xf32, acc, m16n8k16> -> !mapped.frag<16x64xf16, a, m16n8k16>
    """

    name = "mapped.frag_convert"
    source = operand_def(FragType)
    result = result_def(FragType)
    traits = traits_def(Pure())

    def __init__(self, source: SSAValue, result_type: FragType):
        super().__init__(operands=[source], result_types=[result_type])

    def verify_(self) -> None:
        st, rt = _frag(self.source), _frag(self.result)
        if st.role_name != "acc" or str(st.element_type) != "f32":
            raise self.error(f"converts an f32 acc fragment, got {st}")
        if rt.role_name != "a" or str(rt.element_type) not in ("f16", "bf16"):
            raise self.error(f"gives an f16 or bf16 `a` fragment, got {rt}")
        if st.instr.data != "m16n8k16" or rt.instr.data != "m16n8k16":
            raise self.error("converts m16n8k16 fragments only (not supported yet for other shapes)")
        if st.get_shape() != rt.get_shape():
            raise self.error(f"the shapes must agree: {shape_str(st.get_shape())} vs {shape_str(rt.get_shape())}")
        _frag_context(self, st, rt)

    @classmethod
    def parse(cls, parser: Parser) -> FragConvertOp:
        src = parser.parse_unresolved_operand()
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        st = _parse_typed(parser, FragType, "a !mapped.frag type")
        parser.parse_punctuation("->")
        rt = _parse_typed(parser, FragType, "a !mapped.frag type")
        op = cls(parser.resolve_operand(src, st), rt)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.source.type} -> {self.result.type}")


@irdl_op_definition
class FragExtractOp(MappedOp):
    """A window of a fragment: the registers of its instruction tiles from (row, col).

    No data movement. Offsets and the result's shape are multiples of the instruction tile.

        %a1 = mapped.frag_extract %pa[0, 16] : !mapped.frag<16x64xf16, a, m16n8k16> -> !mapped.frag<16x16xf16, a, m16n8k16>
    """

    name = "mapped.frag_extract"
    source = operand_def(FragType)
    offsets = prop_def(ArrayAttr[IntAttr])
    result = result_def(FragType)
    traits = traits_def(Pure())

    def __init__(self, source: SSAValue, offsets: Sequence[int], result_type: FragType):
        super().__init__(operands=[source], result_types=[result_type], properties={"offsets": shape_attr(offsets)})

    @property
    def offset_values(self) -> tuple[int, int]:
        r, c = (a.data for a in self.offsets.data)
        return r, c

    def verify_(self) -> None:
        st, rt = _frag(self.source), _frag(self.result)
        if len(self.offsets.data) != 2:
            raise self.error(f"takes 2 offsets (row, column), got {len(self.offsets.data)}")
        if (st.role_name, st.element_type, st.instr) != (rt.role_name, rt.element_type, rt.instr):
            raise self.error(f"the result {rt} must have the source's role, element type and instruction shape")
        tile_r, tile_c = st.instr_tile()
        for off, size, have, unit, what in zip(
            self.offset_values, rt.get_shape(), st.get_shape(), (tile_r, tile_c), ("row", "column")
        ):
            if off % unit:
                raise self.error(f"the {what} offset {off} is not a multiple of the instruction tile's {unit}")
            if off + size > have:
                raise self.error(
                    f"the window {shape_str(rt.get_shape())} at ({', '.join(map(str, self.offset_values))}) "
                    f"does not fit {st}"
                )
        _frag_context(self, st, rt)

    @classmethod
    def parse(cls, parser: Parser) -> FragExtractOp:
        src = parser.parse_unresolved_operand()
        offs = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False, allow_negative=False)
        )
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        st = _parse_typed(parser, FragType, "a !mapped.frag type")
        parser.parse_punctuation("->")
        rt = _parse_typed(parser, FragType, "a !mapped.frag type")
        op = cls(parser.resolve_operand(src, st), offs, rt)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(f"[{', '.join(map(str, self.offset_values))}]")
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.source.type} -> {self.result.type}")


@irdl_op_definition
class FragStoreOp(MappedOp):
    """Each warp stores its accumulator fragment to a 2-D window of a global or shared buffer.

    The window is the buffer's last two axes from the last two indices; writes outside the
    destination's bounds are dropped. The optional `epilogue` maps each element, with its row and
    column in the destination's last two axes, to the stored value (bias, activation and casts fuse
    here); without it the element types must match. A row fragment (M x 1) stores its M values
    into a window of M rows and one column (a global destination, e.g. a per-query statistic).

        mapped.frag_store %d, %C[%i, %j] : !mapped.frag<64x32xf32, acc, m16n8k16>, !mapped.buf<?x?xf16, global>
            epilogue {
        ^bb0(%v: f32, %row: index, %col: index):
          %h = arith.truncf %v : f32 to f16
          mapped.yield %h : f16
        }

    `via %S` (the `wgmma` accumulators of a `mapped.ws_pipeline`, a global destination of 16- or
    32-bit elements whose rows are whole 16-byte chunks): the consumer warpgroups pass their
    tiles through shared memory, so that the global stores are 16 contiguous bytes per thread
    and whole rows per warp, not the pairs of columns the accumulator layout holds. %S is one
    shared buffer holding every consumer's tile, or one buffer per consumer (`via %S0, %S1`),
    used as raw bytes whose contents are lost (typically the pipeline's idle rings). Every
    consumer warpgroup of the block runs the store (it synchronizes them before reusing the
    buffers and before reading them back). A tile takes rows x `staging_pitch` bytes: each row
    padded by 8 elements' worth (at least 16 bytes) so a warp's writes hit all 32 banks.

        mapped.frag_store %r, %C[%m0, %n0] via %sA, %sB : !mapped.frag<64x128xf32, acc, wgmma>,
            !mapped.buf<?x512xf32, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>,
            !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>> epilogue {...}
    """

    name = "mapped.frag_store"
    value = operand_def(FragType)
    dest = operand_def(BufType)
    indices = var_operand_def(IndexType)
    staging = var_operand_def(BufType)
    epilogue = opt_region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        value: SSAValue,
        dest: SSAValue,
        indices: Sequence[SSAValue],
        epilogue: Region | None = None,
        staging: Sequence[SSAValue] = (),
    ):
        super().__init__(operands=[value, dest, list(indices), list(staging)], regions=[epilogue])

    @staticmethod
    def staging_bytes(ft: FragType, dest: BufType) -> int:
        """Bytes of shared memory one warpgroup's staged `ft` tile for `dest` takes."""
        rows, cols = ft.get_shape()
        return rows * FragStoreOp.staging_pitch(cols, dest.element_bytes)

    @staticmethod
    def staging_pitch(cols: int, element_bytes: int) -> int:
        """Bytes between two staged rows: the row plus padding that spreads a warp's writes (8 rows
        of 4 column pairs) over all 32 banks."""
        return cols * element_bytes + 8 * max(2, element_bytes)

    def _verify_staging(self, ft: FragType, bt: BufType) -> None:
        if ft.instr.data != "wgmma":
            raise self.error(
                f"stages the wgmma accumulators of a mapped.ws_pipeline only, got a {ft.instr.data} fragment"
            )
        owner = self.value.owner
        if not isinstance(owner, WsPipelineOp):
            raise self.error("stages the result of a mapped.ws_pipeline only (its consumers run the store)")
        consumers = owner.consumers.data
        bufs = [_buf(v) for v in self.staging]
        for st in bufs:
            if st.space_name != "shared":
                raise self.error(f"stages through shared buffers, got {st}")
        if bt.space_name != "global":
            raise self.error(f"a staged store writes a global buffer, got {bt}")
        last = bt.get_shape()[-1]
        eb = bt.element_bytes
        if eb not in (2, 4):
            raise self.error(f"a staged store writes 16- or 32-bit elements, got {bt.element_type}")
        if last == DYNAMIC or (last * eb) % 16:
            raise self.error(
                f"a staged store writes rows of whole 16-byte chunks: the destination's rows are "
                f"{'dynamic' if last == DYNAMIC else f'{last} x {bt.element_type}'}"
            )
        if len(bufs) not in (1, consumers):
            raise self.error(f"stages through one buffer or one per consumer warpgroup ({consumers}), got {len(bufs)}")
        tile = self.staging_bytes(ft, bt)
        need = tile * consumers // len(bufs)
        for st in bufs:
            have = st.size_bytes() or 0
            if have < need:
                who = "each consumer warpgroup's" if len(bufs) > 1 else f"{consumers} warpgroups'"
                raise self.error(
                    f"the staging buffer {st} holds {have} bytes; {who} {ft.get_shape()[0]}x{ft.get_shape()[1]} "
                    f"tile of {bt.element_type} needs {need}"
                )

    def verify_(self) -> None:
        ft = _frag(self.value)
        bt = _buf(self.dest)
        _check_indices(self, bt, self.indices, "destination")
        if ft.role_name not in ("acc", "row"):
            raise self.error(f"stores accumulator or row fragments only, got a {ft.role_name} fragment")
        if ft.role_name == "row" and (bt.space_name != "global" or self.staging):
            raise self.error("stores row fragments to global buffers only, without staging")
        if bt.rank < 2:
            raise self.error(f"the destination needs at least 2 axes for a 2-D window, got {bt}")
        if bt.space_name not in ("global", "shared"):
            raise self.error(f"stores to global or shared buffers, got {bt.space_name}")
        if bt.space_name == "shared":
            (r, c), (br, bc) = ft.get_shape(), bt.get_shape()[-2:]
            if r > br or c > bc:
                raise self.error(f"the {r}x{c} fragment does not fit the destination's {br}x{bc} tile")
        if self.staging:
            self._verify_staging(ft, bt)
        if self.epilogue is None:
            if ft.element_type != bt.element_type:
                raise self.error(
                    f"fragment holds {ft.element_type} but the destination holds {bt.element_type} "
                    f"(convert in an `epilogue` region)"
                )
        else:
            block = self.epilogue.block
            want = [ft.element_type, IndexType(), IndexType()]
            if list(block.arg_types) != want:
                raise self.error(f"epilogue takes (%v: {ft.element_type}, %row: index, %col: index)")
            _check_yield(self, self.epilogue, [bt.element_type], "the epilogue")
        _frag_context(self, ft)

    @classmethod
    def parse(cls, parser: Parser) -> FragStoreOp:
        v = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        buf, idx = _parse_indexed(parser)
        via = []
        if parser.parse_optional_keyword("via"):
            via = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        ft = _parse_typed(parser, FragType, "a !mapped.frag type")
        parser.parse_punctuation(",")
        bt = _parse_typed(parser, BufType, "a !mapped.buf type")
        staging = []
        for u in via:
            parser.parse_punctuation(",")
            staging.append(parser.resolve_operand(u, _parse_typed(parser, BufType, "a !mapped.buf type")))
        epilogue = parser.parse_region() if parser.parse_optional_keyword("epilogue") else None
        op = cls(
            parser.resolve_operand(v, ft),
            parser.resolve_operand(buf, bt),
            _resolve_indices(parser, idx),
            epilogue,
            staging,
        )
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        _print_indexed(printer, self.dest, self.indices)
        if self.staging:
            printer.print_string(" via ")
            printer.print_list(self.staging, printer.print_operand)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.value.type}, {self.dest.type}")
        for v in self.staging:
            printer.print_string(f", {v.type}")
        if self.epilogue is not None:
            printer.print_string(" epilogue ")
            printer.print_region(self.epilogue)


# --- Hopper: TMA loads, warpgroup MMA, the warp-specialized pipeline ----------------------------

TMA_SWIZZLE = (3, 4, 3)
"""The shared layout TMA's 128-byte swizzle writes and wgmma's descriptors read: 16-byte chunks
permuted within 128-byte rows over 1024 bytes (`swizzle<3, 4, 3>`)."""
TMA_ROW_BYTES = 128
"""One row of a TMA box in the 128-byte swizzle: 64 elements of 16 bits."""
TMA_MAX_BOX = 256


def _is_tma_layout(t: BufType) -> bool:
    sw = t.swizzle
    return (
        sw is not None
        and (sw.bits.data, sw.base.data, sw.shift.data) == TMA_SWIZZLE
        and t.get_shape()[-1] * t.element_bytes == TMA_ROW_BYTES
    )


def _check_tma_layout(op: MappedOp, t: BufType, what: str) -> None:
    if t.space_name != "shared":
        raise op.error(f"the {what} lives in shared memory, got {t}")
    if not _is_tma_layout(t):
        raise op.error(f"the {what} must hold 128-byte rows (64 x 16-bit) in the swizzle<3, 4, 3> layout, got {t}")


@irdl_op_definition
class TmaLoadOp(_CopyBase):
    """A TMA (tensor memory accelerator) load of one 2-D box, global -> shared, by one thread.

    The box of `shape` [rows, cols] at the source indices (row, column) lands in the destination's
    last two axes, which it must fill exactly, in the 128-byte swizzle (cols x element = 128
    bytes, layout `swizzle<3, 4, 3>`); elements outside the source read as zero. It lives in the
    `produce` region of a `mapped.ws_pipeline`, whose stage barrier it signals: the consumers see
    the data once the stage is full. The runtime builds one tensor map per (source, box).

        mapped.tma_load %A[%m0, %k] -> %sA[%slot, %c0, %c0] shape [128, 64]
            : !mapped.buf<?x?xf16, global>, !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>
    """

    name = "mapped.tma_load"

    def verify_(self) -> None:
        st, dt = _buf(self.source), _buf(self.dest)
        _check_indices(self, st, self.source_indices, "source")
        _check_indices(self, dt, self.dest_indices, "destination")
        window = self.window
        if st.space_name != "global" or st.rank != 2:
            raise self.error(f"loads from a 2-D global buffer, got {st}")
        if st.element_type != dt.element_type:
            raise self.error(f"source holds {st.element_type} but destination holds {dt.element_type}")
        _check_tma_layout(self, dt, "destination")
        if len(window) != 2 or tuple(window) != tuple(dt.get_shape()[-2:]):
            raise self.error(
                f"the box {shape_str(window)} must be the destination's last two axes {shape_str(dt.get_shape()[-2:])}"
            )
        if window[0] > TMA_MAX_BOX:
            raise self.error(f"a TMA box has at most {TMA_MAX_BOX} rows, got {window[0]}")
        if self.dist is not None:
            raise self.error("one thread issues a TMA load: it takes no `dist`")
        if not isinstance(self.parent_op(), WsPipelineOp) or self.parent_block() is not self.parent_op().produce.block:
            raise self.error("belongs in the produce region of a mapped.ws_pipeline (its stage barrier)")


@irdl_op_definition
class WgmmaOp(MappedOp):
    """The warpgroup MMA of sm_90a: acc(M x N) += A(M x 64) x B(64 x N), A and B in shared memory.

    Every thread of a warpgroup takes part; `acc` is its `wgmma` fragment (M a multiple of 64,
    N of 8, at most 256). A is the [M, 64] window at `a`'s indices (rows M, 64 K-contiguous
    columns); B is either `transposed`: the [N, 64] window at `b`'s indices (B stored N x K), or
    the K x N matrix in 64-wide panels: the last three axes [N / 64, 64, 64] (panel, k, n). A is
    likewise `lhs_transposed`: stored K x M in panels [M / 64, 64, 64] (panel, k, m), from the
    panel at `a`'s indices (wgmma's transposed A). Both in the TMA layout (128-byte rows, `swizzle<3, 4, 3>`). The result is ready to read: the
    lowering waits for the asynchronous instructions.

        %d = mapped.wgmma %sA[%slot, %r, %c0], %sB[%slot, %c0, %c0, %c0], %acc
            : !mapped.buf<4x128x64xf16, shared, swizzle<3, 4, 3>>,
              !mapped.buf<4x2x64x64xf16, shared, swizzle<3, 4, 3>>, !mapped.frag<64x128xf32, acc, wgmma>
    """

    name = "mapped.wgmma"
    lhs = operand_def(BufType)
    lhs_indices = var_operand_def(IndexType)
    rhs = operand_def(BufType)
    rhs_indices = var_operand_def(IndexType)
    acc = operand_def(FragType)
    transposed = opt_prop_def(UnitAttr)
    lhs_transposed = opt_prop_def(UnitAttr)
    result = result_def(FragType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    K: ClassVar[int] = 64

    def __init__(
        self,
        lhs: SSAValue,
        lhs_indices: Sequence[SSAValue],
        rhs: SSAValue,
        rhs_indices: Sequence[SSAValue],
        acc: SSAValue,
        transposed: bool = False,
        lhs_transposed: bool = False,
    ):
        props: dict[str, Attribute] = {"transposed": UnitAttr()} if transposed else {}
        if lhs_transposed:
            props["lhs_transposed"] = UnitAttr()
        super().__init__(
            operands=[lhs, list(lhs_indices), rhs, list(rhs_indices), acc], result_types=[acc.type], properties=props
        )

    @property
    def is_transposed(self) -> bool:
        return self.transposed is not None

    @property
    def is_lhs_transposed(self) -> bool:
        return self.lhs_transposed is not None

    def verify_(self) -> None:
        at, bt, ct = _buf(self.lhs), _buf(self.rhs), _frag(self.acc)
        _check_indices(self, at, self.lhs_indices, "A")
        _check_indices(self, bt, self.rhs_indices, "B")
        if ct.instr.data != "wgmma" or ct.role_name != "acc":
            raise self.error(f"accumulates into a wgmma acc fragment, got {ct}")
        if self.result.type != ct:
            raise self.error(f"result type {self.result.type} must equal the acc type {ct}")
        if at.element_type != bt.element_type or str(at.element_type) not in ("f16", "bf16"):
            raise self.error(f"A and B hold the same f16 or bf16 type, got {at.element_type} and {bt.element_type}")
        _check_tma_layout(self, at, "A tile")
        _check_tma_layout(self, bt, "B tile")
        m, n = ct.get_shape()
        if n > 256:
            raise self.error(f"one wgmma computes at most 256 columns, got {n}")
        if self.is_lhs_transposed:
            shape = at.get_shape()
            if at.rank < 3 or m % 64 or shape[-3] * 64 < m or shape[-2] != self.K:
                raise self.error(f"A (K x M) is 64-wide panels [{max(1, m // 64)}, 64, 64] for M = {m}, got {at}")
        elif at.get_shape()[-2] < m:
            raise self.error(f"the A tile has {at.get_shape()[-2]} rows for a {m}-row accumulator")
        if self.is_transposed:
            if bt.get_shape()[-2] < n:
                raise self.error(f"the B tile (N x K) has {bt.get_shape()[-2]} rows for {n} columns")
        else:
            shape = bt.get_shape()
            if bt.rank < 3 or n % 64 or shape[-3] * 64 < n or shape[-2] != self.K:
                raise self.error(f"B (K x N) is 64-wide panels [{max(1, n // 64)}, 64, 64] for N = {n}, got {bt}")
        _frag_context(self, ct)

    @classmethod
    def parse(cls, parser: Parser) -> WgmmaOp:
        a, aidx = _parse_indexed(parser)
        parser.parse_punctuation(",")
        b, bidx = _parse_indexed(parser)
        parser.parse_punctuation(",")
        c = parser.parse_unresolved_operand()
        lhs_transposed = parser.parse_optional_keyword("lhs_transposed") is not None
        transposed = parser.parse_optional_keyword("transposed") is not None
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        at = _parse_typed(parser, BufType, "a !mapped.buf type")
        parser.parse_punctuation(",")
        bt = _parse_typed(parser, BufType, "a !mapped.buf type")
        parser.parse_punctuation(",")
        ct = _parse_typed(parser, FragType, "a !mapped.frag type")
        op = cls(
            parser.resolve_operand(a, at),
            _resolve_indices(parser, aidx),
            parser.resolve_operand(b, bt),
            _resolve_indices(parser, bidx),
            parser.resolve_operand(c, ct),
            transposed,
            lhs_transposed,
        )
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_indexed(printer, self.lhs, self.lhs_indices)
        printer.print_string(", ")
        _print_indexed(printer, self.rhs, self.rhs_indices)
        printer.print_string(", ")
        printer.print_operand(self.acc)
        if self.is_lhs_transposed:
            printer.print_string(" lhs_transposed")
        if self.is_transposed:
            printer.print_string(" transposed")
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.lhs.type}, {self.rhs.type}, {self.acc.type}")


def entry_registers(threads: int, ctas: int = 1) -> int:
    """Registers per thread at entry of a kernel with `.maxntid threads` and `.minnctapersm ctas`
    (65536 / (threads x ctas), a multiple of 8, at most 255): the pool `setmaxnreg` redistributes."""
    return min(255, 65536 // (threads * ctas) // 8 * 8)


@irdl_op_definition
class WsPipelineOp(MappedOp):
    """A warp-specialized pipeline (sm_90a): producer and consumer warpgroups around a ring of stages.

    A producer warpgroup fills the ring with TMA loads or async copies, `consumers` warpgroups
    compute on it, and full/empty mbarriers hand the stages over. The block is 1 + `consumers`
    warpgroups (128 threads each). Warpgroup 0 is the producer: it sets its registers to
    `regs[0]` and runs `produce(k, slot)` for k = lb, lb+step, ... < ub (slot = iteration mod
    stages) once slot `slot` is empty: either TMA loads, issued by one of its threads and
    completing the stage's `full` barrier by their bytes, or async copies (`mapped.async_copy`,
    `mapped.async_copy_window`) whose chunks the producer's 128 threads share, each thread's
    arrival on `full` happening when its copies have landed; then the producer exits, so what
    follows the op runs in the consumers only. Consumer warpgroups set `regs[1]` registers and
    run `consume(k, slot, iter_args...)` once the stage is full, then release it (every consumer
    thread arrives on its `empty` barrier); the results are the consumers' final iter_args.
    `mapped.warpgroup_id` tells the consumers apart (1 .. consumers). `barriers` holds the 2 x
    stages mbarriers (full[0..S), then empty[0..S)). `ctas` (1 or 2, default 1) blocks share an
    SM (the kernel's `.minnctapersm`): two give each SM two independent pipelines, so one
    block's prologue and epilogue overlap the other's main loop. The registers must fit the pool
    at entry (65536 / (threads x ctas) per thread): regs[0] + consumers x regs[1] <= (1 +
    consumers) x entry, with regs[0] <= entry <= regs[1] (the producer lowers its count, the
    consumers raise theirs).

        %r = mapped.ws_pipeline %c0 to %K step %c64 stages 4 consumers 2 regs [40, 232]
            barriers %bars : !mapped.buf<8xi64, shared> iter_args(%z) -> (!mapped.frag<64x128xf32, acc, wgmma>) produce {
        ^bb0(%k: index, %slot: index):
          mapped.tma_load %A[%m0, %k] -> %sA[%slot, %c0, %c0] shape [128, 64] : ...
          mapped.yield
        } consume {
        ^bb0(%k: index, %slot: index, %acc: !mapped.frag<64x128xf32, acc, wgmma>):
          %d = mapped.wgmma %sA[%slot, %row, %c0], %sB[%slot, %c0, %c0], %acc transposed : ...
          mapped.yield %d : !mapped.frag<64x128xf32, acc, wgmma>
        }
    """

    name = "mapped.ws_pipeline"
    lower_bound = operand_def(IndexType)
    upper_bound = operand_def(IndexType)
    step = operand_def(IndexType)
    barriers = operand_def(BufType)
    inits = var_operand_def()
    stages = prop_def(IntAttr)
    consumers = prop_def(IntAttr)
    ctas = opt_prop_def(IntAttr)
    regs = prop_def(DenseArrayBase)
    res = var_result_def()
    produce = region_def("single_block")
    consume = region_def("single_block")

    def __init__(
        self,
        lower_bound: SSAValue,
        upper_bound: SSAValue,
        step: SSAValue,
        barriers: SSAValue,
        stages: int,
        consumers: int,
        regs: Sequence[int],
        inits: Sequence[SSAValue] = (),
        produce: Region | None = None,
        consume: Region | None = None,
        ctas: int = 1,
    ):
        types = [v.type for v in inits]
        if produce is None:
            produce = Region(Block(arg_types=[IndexType(), IndexType()]))
        if consume is None:
            consume = Region(Block(arg_types=[IndexType(), IndexType(), *types]))
        super().__init__(
            operands=[lower_bound, upper_bound, step, barriers, list(inits)],
            result_types=[types],
            properties={
                "stages": IntAttr(stages),
                "consumers": IntAttr(consumers),
                "regs": int_array(regs),
                **({"ctas": IntAttr(ctas)} if ctas != 1 else {}),
            },
            regions=[produce, consume],
        )

    @property
    def threads(self) -> int:
        return 128 * (1 + self.consumers.data)

    @property
    def blocks_per_sm(self) -> int:
        """The blocks sharing an SM (`ctas`, default 1): the kernel's `.minnctapersm`."""
        return 1 if self.ctas is None else self.ctas.data

    def verify_(self) -> None:
        stages, consumers, regs = self.stages.data, self.consumers.data, int_list(self.regs)
        if stages < 1:
            raise self.error(f"stages must be >= 1, got {stages}")
        if consumers not in (1, 2):
            raise self.error(f"1 or 2 consumer warpgroups, got {consumers}")
        if len(regs) != 2 or any(not 24 <= r <= 256 or r % 8 for r in regs):
            raise self.error(f"regs are [producer, consumer], each a multiple of 8 from 24 to 256, got {list(regs)}")
        if self.blocks_per_sm not in (1, 2):
            raise self.error(f"ctas (blocks per SM) is 1 or 2, got {self.blocks_per_sm}")
        entry = entry_registers(self.threads, self.blocks_per_sm)
        if regs[0] + consumers * regs[1] > (1 + consumers) * entry:
            raise self.error(
                f"regs {list(regs)} do not fit: {regs[0]} + {consumers} x {regs[1]} exceeds the "
                f"{1 + consumers} x {entry} registers per thread at entry"
            )
        if not regs[0] <= entry <= regs[1]:
            raise self.error(
                f"regs {list(regs)}: the producer lowers its count and the consumers raise theirs, so "
                f"producer <= {entry} (the count at entry) <= consumer"
            )
        bt = _buf(self.barriers)
        if bt.space_name != "shared" or str(bt.element_type) != "i64" or bt.get_shape() != (2 * stages,):
            raise self.error(f"barriers is a shared {2 * stages}xi64 buffer (full and empty per stage), got {bt}")
        kernel = self.gpu_kernel()
        if kernel.block_size is not None and kernel.block_threads != self.threads:
            raise self.error(
                f"needs {self.threads} threads (1 + {consumers} warpgroups), but the block has {kernel.block_threads}"
            )
        types = [v.type for v in self.inits]
        if [r.type for r in self.res] != types:
            raise self.error("result types must equal the iter_args types")
        idx = [IndexType(), IndexType()]
        if list(self.produce.block.arg_types) != idx:
            raise self.error("produce takes (%k: index, %slot: index)")
        if list(self.consume.block.arg_types) != [*idx, *types]:
            want = ", ".join(["%k: index", "%slot: index", *[str(t) for t in types]])
            raise self.error(f"consume takes ({want})")
        _check_yield(self, self.produce, [], "produce")
        _check_yield(self, self.consume, types, "consume")
        loads = (TmaLoadOp, AsyncCopyOp, AsyncCopyWindowOp)
        kinds = set()
        for op in self.produce.block.ops:
            if not isinstance(op, loads + (YieldOp, DimOp)) and op.dialect_name() != "arith":
                raise self.error(f"produce issues TMA loads or async copies only (and index arithmetic), got {op.name}")
            if isinstance(op, loads):
                kinds.add(isinstance(op, TmaLoadOp))
                t = op.dest.type
                if not op.dest_indices or op.dest_indices[0] != self.produce.block.args[1]:
                    raise self.error(f"every load of produce writes slot %slot of its ring ({op.name})")
                if t.get_shape()[0] < stages:
                    raise self.error(f"the ring {t} has {t.get_shape()[0]} slots for {stages} stages")
                if not isinstance(op, TmaLoadOp):
                    _check_tma_layout(self, t, f"{op.name} destination (read by wgmma)")
        if len(kinds) > 1:
            raise self.error(
                "not supported yet: TMA loads and async copies in one produce region (a stage barrier "
                "counts either one transaction arrival or one arrival per producer thread)"
            )

    @classmethod
    def parse(cls, parser: Parser) -> WsPipelineOp:
        lb = parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
        parser.parse_keyword("to")
        ub = parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
        parser.parse_keyword("step")
        step = parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
        parser.parse_keyword("stages")
        stages = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("consumers")
        consumers = parser.parse_integer(allow_boolean=False)
        ctas = parser.parse_integer(allow_boolean=False) if parser.parse_optional_keyword("ctas") else 1
        parser.parse_keyword("regs")
        regs = parse_int_list(parser)
        parser.parse_keyword("barriers")
        bars = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        bars = parser.resolve_operand(bars, _parse_typed(parser, BufType, "a !mapped.buf type"))
        inits, types = [], []
        if parser.parse_optional_keyword("iter_args"):
            inits = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
            parser.parse_punctuation("->")
            start = parser.pos
            types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
            if len(types) != len(inits):
                parser.raise_error(f"{len(inits)} iter_args but {len(types)} result type(s)", start, parser.pos)
        extra = _parse_attrs_kw(parser)
        parser.parse_keyword("produce")
        produce = parser.parse_region()
        parser.parse_keyword("consume")
        consume = parser.parse_region()
        inits = [parser.resolve_operand(v, t) for v, t in zip(inits, types)]
        op = cls(lb, ub, step, bars, stages, consumers, regs, inits, produce, consume, ctas)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.lower_bound)
        printer.print_string(" to ")
        printer.print_operand(self.upper_bound)
        printer.print_string(" step ")
        printer.print_operand(self.step)
        printer.print_string(f" stages {self.stages.data} consumers {self.consumers.data}")
        if self.blocks_per_sm != 1:
            printer.print_string(f" ctas {self.blocks_per_sm}")
        printer.print_string(" regs ")
        print_int_list(printer, int_list(self.regs))
        printer.print_string(" barriers ")
        printer.print_operand(self.barriers)
        printer.print_string(f" : {self.barriers.type}")
        if self.inits:
            printer.print_string(" iter_args(")
            printer.print_list(self.inits, printer.print_operand)
            printer.print_string(") -> (")
            printer.print_list([v.type for v in self.inits], printer.print_attribute)
            printer.print_string(")")
        _print_attrs_kw(printer, self)
        printer.print_string(" produce ")
        printer.print_region(self.produce)
        printer.print_string(" consume ")
        printer.print_region(self.consume)


def tensor_maps(kernel: KernelOp) -> list[tuple[int, int, int]]:
    """The TMA tensor maps a kernel needs, in parameter order: (argument number, box rows, box
    columns) per distinct source and box of its `mapped.tma_load`s. The GPU lowering appends one
    tensor-map parameter per entry; the runtime builds them from the argument's array."""
    args = list(kernel.args)
    out: list[tuple[int, int, int]] = []
    for op in kernel.body.walk():
        if isinstance(op, TmaLoadOp) and op.source in args:
            key = (args.index(op.source), *op.window)
            if key not in out:
                out.append(key)  # type: ignore[arg-type]
    return out


# --- cross-thread reductions --------------------------------------------------------------------


@irdl_op_definition
class ReduceOp(MappedOp):
    """Combines one scalar from every thread of the warp or block; every thread gets the result.

    Kinds: sum, max, min, prod. A warp is `wave` lanes (32 or 64); a block reduction uses a little
    shared scratch memory that the lowering provides.

        %r = mapped.reduce sum %x across warp : f32
        %m = mapped.reduce max %y across block : f32
    """

    name = "mapped.reduce"
    kind = prop_def(StringAttr)
    scope = prop_def(StringAttr, prop_name="across")
    value = operand_def()
    result = result_def()

    def __init__(self, kind: str, value: SSAValue, across: str):
        super().__init__(
            operands=[value],
            result_types=[value.type],
            properties={"kind": StringAttr(kind), "across": StringAttr(across)},
        )

    def verify_(self) -> None:
        if self.kind.data not in REDUCE_KINDS:
            raise self.error(f"unknown reduction '{self.kind.data}' (expected {', '.join(REDUCE_KINDS)})")
        if self.scope.data not in REDUCE_SCOPES:
            raise self.error(f"unknown scope '{self.scope.data}' (expected warp or block)")
        t = self.value.type
        if not (is_float(t) or is_int(t)):
            raise self.error(f"reduces float or integer scalars, got {t}")
        if self.result.type != t:
            raise self.error(f"result type {self.result.type} must equal the operand type {t}")
        self.gpu_kernel()
        self.require_converged(self.scope.data, f"a reduction across the {self.scope.data}")

    @classmethod
    def parse(cls, parser: Parser) -> ReduceOp:
        kind = parse_keyword_choice(parser, REDUCE_KINDS, "a reduction kind")
        v = parser.parse_unresolved_operand()
        parser.parse_keyword("across")
        across = parse_keyword_choice(parser, REDUCE_SCOPES, "a reduction scope")
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        op = cls(kind, parser.resolve_operand(v, t), across)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_operand(self.value)
        printer.print_string(f" across {self.scope.data}")
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.value.type}")


SCAN_KINDS = ("sum", "prod")


@irdl_op_definition
class ScanOp(MappedOp):
    """Exclusive prefix and total of one scalar per thread across the warp or block.

    In thread order (thread 0 gets the identity); every thread gets both results.

    Kinds: sum, prod. Lowered with xor butterflies (no up-shuffle needed) and, across a block,
    one shared slot per warp (the scratch of `mapped.reduce`).

        %e, %t = mapped.scan sum %x across block : f32
    """

    name = "mapped.scan"
    kind = prop_def(StringAttr)
    scope = prop_def(StringAttr, prop_name="across")
    value = operand_def()
    prefix = result_def()
    total = result_def()

    def __init__(self, kind: str, value: SSAValue, across: str):
        super().__init__(
            operands=[value],
            result_types=[value.type, value.type],
            properties={"kind": StringAttr(kind), "across": StringAttr(across)},
        )

    def verify_(self) -> None:
        if self.kind.data not in SCAN_KINDS:
            raise self.error(f"unknown scan '{self.kind.data}' (expected {', '.join(SCAN_KINDS)})")
        if self.scope.data not in REDUCE_SCOPES:
            raise self.error(f"unknown scope '{self.scope.data}' (expected warp or block)")
        t = self.value.type
        if not (is_float(t) or is_int(t)):
            raise self.error(f"scans float or integer scalars, got {t}")
        if self.prefix.type != t or self.total.type != t:
            raise self.error(f"result types must equal the operand type {t}")
        self.gpu_kernel()
        self.require_converged(self.scope.data, f"a scan across the {self.scope.data}")

    @classmethod
    def parse(cls, parser: Parser) -> ScanOp:
        kind = parse_keyword_choice(parser, SCAN_KINDS, "a scan kind")
        v = parser.parse_unresolved_operand()
        parser.parse_keyword("across")
        across = parse_keyword_choice(parser, REDUCE_SCOPES, "a scan scope")
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        op = cls(kind, parser.resolve_operand(v, t), across)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_operand(self.value)
        printer.print_string(f" across {self.scope.data}")
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.value.type}")


def _check_combine(op: MappedOp, region: Region, types: Sequence[Attribute]) -> None:
    """A combine region: block arguments (a..., b...) of `types` twice, arith / math ops only,
    ending with `mapped.yield` of `types` (a combine b)."""
    block = region.block
    want = [*types, *types]
    if list(block.arg_types) != want:
        raise op.error(f"the combine region takes ({', '.join(str(t) for t in want)}): two tuples of the values")
    for o in block.ops:
        if o is not block.last_op and not (o.name.startswith("arith.") or o.name.startswith("math.")):
            raise op.error(f"the combine region computes with arith and math ops only, got {o.name}")
    _check_yield(op, region, list(types), "the combine region")


def _check_scan_value(op: MappedOp, t: Attribute) -> None:
    if isinstance(t, IndexType) or not (is_float(t) or is_int(t)) or bitwidth(t) not in (32, 64):
        raise op.error(f"combines 32- or 64-bit float or integer scalars, got {t}")


def _parse_values_paren(parser: Parser) -> list:
    return parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)


@irdl_op_definition
class CombineScanOp(MappedOp):
    """Exclusive prefix and total of a tuple of scalars per thread across the warp or block.

    The tuples combine under the associative and commutative `combine` region (its arguments:
    two tuples a, b; it yields a combine b); `identity` is its neutral tuple.

    In thread order (thread 0 gets the identity); every thread gets both results: the results
    are the prefix tuple, then the total tuple. Lowered as `mapped.scan` (xor butterflies, then
    one shared slot per warp and value), with the region inlined at each step. An example, the
    (max, scaled sum) pairs of a logcumsumexp (a log-sum-exp m + log s):

        %pm, %ps, %tm, %ts = mapped.combine_scan (%m, %s) identity (%ninf, %zero) across block : f32, f32 {
        ^bb0(%m1: f32, %s1: f32, %m2: f32, %s2: f32):
          ...
          mapped.yield %m3, %s3 : f32, f32
        }
    """

    name = "mapped.combine_scan"
    scope = prop_def(StringAttr, prop_name="across")
    values = var_operand_def()
    identity = var_operand_def()
    results_ = var_result_def()
    combine = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, values: Sequence[SSAValue], identity: Sequence[SSAValue], across: str, combine: Region):
        types = [v.type for v in values]
        super().__init__(
            operands=[list(values), list(identity)],
            result_types=[types + types],
            properties={"across": StringAttr(across)},
            regions=[combine],
        )

    @property
    def prefixes(self) -> list[SSAValue]:
        return list(self.results_)[: len(self.values)]

    @property
    def totals(self) -> list[SSAValue]:
        return list(self.results_)[len(self.values) :]

    def verify_(self) -> None:
        if self.scope.data not in REDUCE_SCOPES:
            raise self.error(f"unknown scope '{self.scope.data}' (expected warp or block)")
        types = [v.type for v in self.values]
        if not types:
            raise self.error("scans at least one value")
        for t in types:
            _check_scan_value(self, t)
        if [v.type for v in self.identity] != types:
            raise self.error(f"the identity must be one value of each type ({', '.join(str(t) for t in types)})")
        if [r.type for r in self.results_] != types + types:
            raise self.error("the results are the prefix and the total tuples, of the values' types")
        _check_combine(self, self.combine, types)
        self.gpu_kernel()
        self.require_converged(self.scope.data, f"a scan across the {self.scope.data}")

    @classmethod
    def parse(cls, parser: Parser) -> CombineScanOp:
        vals = _parse_values_paren(parser)
        parser.parse_keyword("identity")
        ident = _parse_values_paren(parser)
        parser.parse_keyword("across")
        across = parse_keyword_choice(parser, REDUCE_SCOPES, "a scan scope")
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        start = parser.pos
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if len(types) != len(vals) or len(ident) != len(vals):
            parser.raise_error(
                f"combine_scan: {len(vals)} value(s), {len(ident)} identity value(s), {len(types)} type(s)",
                start,
                parser.pos,
            )
        region = parser.parse_region()
        op = cls(
            [parser.resolve_operand(v, t) for v, t in zip(vals, types)],
            [parser.resolve_operand(v, t) for v, t in zip(ident, types)],
            across,
            region,
        )
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" (")
        printer.print_list(self.values, printer.print_operand)
        printer.print_string(") identity (")
        printer.print_list(self.identity, printer.print_operand)
        printer.print_string(f") across {self.scope.data}")
        print_extra_attrs(printer, self)
        printer.print_string(" : ")
        printer.print_list([v.type for v in self.values], printer.print_attribute)
        printer.print_string(" ")
        printer.print_region(self.combine)


# --- scans across blocks ------------------------------------------------------------------------


@irdl_op_definition
class IsAlignedOp(MappedOp):
    """Whether a global buffer's base address is a multiple of `bytes` (a power of two): i1.

    Guards a path of wide vector accesses to a buffer whose last axis has a dynamic size (the
    caller may pass a view that starts anywhere).

        %ok = mapped.is_aligned %X 16 : !mapped.buf<?xf32, global>
    """

    name = "mapped.is_aligned"
    source = operand_def(BufType)
    bytes = prop_def(IntAttr)
    result = result_def(i1)

    def __init__(self, source: SSAValue, nbytes: int):
        super().__init__(operands=[source], result_types=[i1], properties={"bytes": IntAttr(nbytes)})

    def verify_(self) -> None:
        t = _buf(self.source)
        if t.space_name != "global":
            raise self.error(f"asks about global buffers, got {t}")
        n = self.bytes.data
        if n < 1 or n & (n - 1):
            raise self.error(f"the alignment must be a power of two, got {n}")
        self.gpu_kernel()

    @classmethod
    def parse(cls, parser: Parser) -> IsAlignedOp:
        src = parser.parse_unresolved_operand()
        n = parser.parse_integer(allow_boolean=False, allow_negative=False)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        t = _parse_typed(parser, BufType, "a !mapped.buf type")
        op = cls(parser.resolve_operand(src, t), n)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(f" {self.bytes.data}")
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.source.type}")


def _check_status_word(op: MappedOp, t: BufType, what: str) -> None:
    if t.space_name != "global" or t.element_type != IntegerType(64):
        raise op.error(f"{what} is a global buffer of i64 words, got {t}")


@irdl_op_definition
class BlockTicketOp(MappedOp):
    """The block's ticket: the value of a global i64 counter, which one thread increments.

    One thread adds 1 to the counter at an index of a global buffer (an atomic add); every thread
    of the block gets the value before the add, as an index.

    Blocks take tickets in the order they start running, so a block that waits only for blocks
    with smaller tickets always makes progress (those are running or done), whatever order the
    hardware schedules block ids in. The counter must be zero before the launch (a `mapped.temp`
    with `zeroed`). A block collective.

        %t = mapped.block_ticket %ws[%c0, %c0, %c0] : !mapped.buf<?x?x1xi64, global>
    """

    name = "mapped.block_ticket"
    counter = operand_def(BufType)
    indices = var_operand_def(IndexType)
    result = result_def(IndexType)

    def __init__(self, counter: SSAValue, indices: Sequence[SSAValue]):
        super().__init__(operands=[counter, list(indices)], result_types=[IndexType()])

    def verify_(self) -> None:
        t = _buf(self.counter)
        _check_indices(self, t, self.indices, "counter")
        _check_status_word(self, t, "the counter")
        self.gpu_kernel()
        self.require_converged("block", "a block ticket")

    @classmethod
    def parse(cls, parser: Parser) -> BlockTicketOp:
        buf, idx = _parse_indexed(parser)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        t = _parse_typed(parser, BufType, "a !mapped.buf type")
        op = cls(parser.resolve_operand(buf, t), _resolve_indices(parser, idx))
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_indexed(printer, self.counter, self.indices)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.counter.type}")


LOOKBACK_FLAGS = {"aggregate": 1, "prefix": 2}
"""The status of a tile in a look-back status word: 0 nothing yet, 1 its aggregate, 2 its
inclusive prefix."""


def lookback_words(t: Attribute) -> int:
    """i64 words per tile in a look-back status buffer: the flag and a value <= 32 bits share one
    word (flag in the high half); a 64-bit value takes a flag word and two value words (the
    aggregate, the inclusive prefix)."""
    return 1 if bitwidth(t) <= 32 else 3


@irdl_op_definition
class LookbackOp(MappedOp):
    """Decoupled look-back: the exclusive prefix of this block's tile in a scan across blocks.

    The single-pass scan of Merrill & Garland (2016).

    `%status[%i..., %slot]` is the tile's entry in a status buffer (global i64 words, zeroed
    before the launch; the last axis holds `lookback_words` words per tile): its `%tile`
    predecessors are the entries at slots %slot - 1, ..., %slot - %tile. The block publishes its
    aggregate `%agg` (flag 1; with no predecessor, directly its inclusive prefix, flag 2), then
    its first warp reads the status of the nearest predecessors (several per lane, so one step
    covers a window of warp x 4 tiles), waits until each has published something, combines them
    up to and including the nearest inclusive prefix (moving the window back while there is
    none), publishes the inclusive prefix (flag 2) and gives every thread the exclusive prefix
    (`%identity` for the first tile). The combine region is
    associative and commutative (arguments: a, then b; it yields a combine b, a earlier in the
    scan).

    A block waits only for tiles with fewer predecessors, so tiles must be taken in order
    (`mapped.block_ticket`). A block collective. Memory order: a 32-bit value shares its 64-bit
    word with the flag (written and read whole); a 64-bit value is written before its flag
    with release semantics and read after it with acquire semantics.

        %p = mapped.lookback %agg, %status[%line, %slot] tile %t identity %zero : f32, !mapped.buf<?x?x1xi64, global> {
        ^bb0(%a: f32, %b: f32):
          %c = arith.addf %a, %b : f32
          mapped.yield %c : f32
        }
    """

    name = "mapped.lookback"
    aggregate = operand_def()
    status = operand_def(BufType)
    indices = var_operand_def(IndexType)
    tile = operand_def(IndexType)
    identity = operand_def()
    result = result_def()
    combine = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        aggregate: SSAValue,
        status: SSAValue,
        indices: Sequence[SSAValue],
        tile: SSAValue,
        identity: SSAValue,
        combine: Region,
    ):
        super().__init__(
            operands=[aggregate, status, list(indices), tile, identity],
            result_types=[aggregate.type],
            regions=[combine],
        )

    def verify_(self) -> None:
        t = self.aggregate.type
        _check_scan_value(self, t)
        if self.identity.type != t or self.result.type != t:
            raise self.error(f"the identity and the result have the aggregate's type {t}")
        st = _buf(self.status)
        _check_status_word(self, st, "the status")
        if len(self.indices) + 1 != st.rank:
            raise self.error(
                f"status {st} has rank {st.rank}: give an index for every axis but the last (the tile's words), "
                f"got {len(self.indices)}"
            )
        words = lookback_words(t)
        if st.get_shape()[-1] != words:
            raise self.error(f"a {t} status entry is {words} i64 word(s): the last axis must be {words}, got {st}")
        _check_combine(self, self.combine, [t])
        self.gpu_kernel()
        self.require_converged("block", "a look-back")

    @classmethod
    def parse(cls, parser: Parser) -> LookbackOp:
        agg = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        buf, idx = _parse_indexed(parser)
        parser.parse_keyword("tile")
        tile = parser.parse_unresolved_operand()
        parser.parse_keyword("identity")
        ident = parser.parse_unresolved_operand()
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        parser.parse_punctuation(",")
        bt = _parse_typed(parser, BufType, "a !mapped.buf type")
        region = parser.parse_region()
        op = cls(
            parser.resolve_operand(agg, t),
            parser.resolve_operand(buf, bt),
            _resolve_indices(parser, idx),
            parser.resolve_operand(tile, IndexType()),
            parser.resolve_operand(ident, t),
            region,
        )
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.aggregate)
        printer.print_string(", ")
        _print_indexed(printer, self.status, self.indices)
        printer.print_string(" tile ")
        printer.print_operand(self.tile)
        printer.print_string(" identity ")
        printer.print_operand(self.identity)
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.aggregate.type}, {self.status.type} ")
        printer.print_region(self.combine)


@irdl_op_definition
class ShuffleXorOp(MappedOp):
    """The value of lane (lane ^ mask) of the warp: an xor butterfly step, every lane at once.

    A 32- or 64-bit integer or float; `mask` is a constant from 1 to wave - 1 (a mask below 2^k
    keeps each aligned group of 2^k lanes among itself, so groups of lanes exchange without
    crossing). The whole warp must run it (no enclosing `mapped.parallel` on threads or lanes).
    NVIDIA shuffles 32-bit words (a 64-bit value is two `shfl.sync.bfly`), AMD `__shfl_xor`.

        %o = mapped.shuffle_xor %key, 16 : i64
    """

    name = "mapped.shuffle_xor"
    mask = prop_def(IntAttr)
    value = operand_def()
    result = result_def()

    def __init__(self, value: SSAValue, mask: int):
        super().__init__(operands=[value], result_types=[value.type], properties={"mask": IntAttr(mask)})

    def verify_(self) -> None:
        t = self.value.type
        if not ((is_float(t) or is_int(t)) and bitwidth(t) in (32, 64)):
            raise self.error(f"shuffles a 32- or 64-bit integer or float, got {t}")
        if self.result.type != t:
            raise self.error(f"result type {self.result.type} must equal the operand type {t}")
        k = self.gpu_kernel()
        if not 1 <= self.mask.data < k.wave_size:
            raise self.error(f"mask must be from 1 to {k.wave_size - 1} (the kernel's wave), got {self.mask.data}")
        self.require_converged("warp", "a shuffle")

    @classmethod
    def parse(cls, parser: Parser) -> ShuffleXorOp:
        v = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        mask = parser.parse_integer(allow_boolean=False)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        op = cls(parser.resolve_operand(v, t), mask)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(f", {self.mask.data}")
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.value.type}")


# --- host side ----------------------------------------------------------------------------------


@irdl_op_definition
class HostOp(MappedOp):
    """The host side of a lowered `tile.func`: allocates temporaries and launches kernels in order.

    Arguments mirror the tile.func: inputs (global buffers or scalars), then `outs(...)` buffers.
    The body may hold `mapped.temp`, `mapped.view`, `mapped.launch`, `mapped.dim` and `arith` ops
    (for sizes). Kernels launched one after another see each other's writes.

        mapped.host @softmax(%X: !mapped.buf<?x64xf32, global>) outs(%Y: !mapped.buf<?x64xf32, global>) {
          mapped.launch @softmax_g0(%X, %Y) : !mapped.buf<?x64xf32, global>, !mapped.buf<?x64xf32, global>
          mapped.return
        }
    """

    name = "mapped.host"
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
            properties={
                "sym_name": StringAttr(name),
                "function_type": FunctionType.from_lists(list(inputs), list(outputs)),
            },
            regions=[body],
        )

    @property
    def num_inputs(self) -> int:
        return len(self.function_type.inputs.data)

    @property
    def input_args(self):
        return self.body.block.args[: self.num_inputs]

    @property
    def output_args(self):
        return self.body.block.args[self.num_inputs :]

    def verify_(self) -> None:
        ins, outs = self.function_type.inputs.data, self.function_type.outputs.data
        if tuple(self.body.block.arg_types) != (*ins, *outs):
            raise self.error("entry block arguments must be the inputs followed by the outputs")
        for t in ins:
            if not (isinstance(t, BufType) and t.space_name == "global") and not _is_scalar(t):
                raise self.error(f"an input must be a global !mapped.buf or a scalar, got {t}")
        for t in outs:
            if not (isinstance(t, BufType) and t.space_name == "global"):
                raise self.error(f"an output must be a global !mapped.buf, got {t}")
        if not isinstance(self.body.block.last_op, ReturnOp):
            raise self.error("body must end with mapped.return")
        for op in self.body.block.ops:
            if not (isinstance(op, TempOp | ViewOp | LaunchOp | DimOp | ReturnOp) or op.name.startswith("arith.")):
                raise self.error(f"{op.name} cannot run on the host (only temp, view, launch, dim and arith ops)")

    @classmethod
    def parse(cls, parser: Parser) -> HostOp:
        sym = parser.parse_symbol_name().data
        ins = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_argument)
        outs = []
        if parser.parse_optional_keyword("outs") is not None:
            outs = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_argument)
        extra = _parse_attrs_kw(parser)
        region = parser.parse_region([*ins, *outs])
        op = cls(sym, [a.type for a in ins], [a.type for a in outs], region)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)

        def group(values) -> None:
            printer.print_string("(")
            printer.print_list(values, printer.print_block_argument)
            printer.print_string(")")

        group(self.input_args)
        if self.output_args:
            printer.print_string(" outs")
            group(self.output_args)
        _print_attrs_kw(printer, self)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)


def _host_only(op: MappedOp) -> None:
    if not isinstance(op.parent_op(), HostOp):
        raise op.error("only runs on the host: it must sit directly in a mapped.host body")


@irdl_op_definition
class TempOp(MappedOp):
    """A temporary global buffer, allocated by the host for the duration of one mapped.host call.

    One `index` size operand per `?` dimension. `zeroed`: every byte is 0 when the first kernel
    after it starts (the runtime clears it on the launches' stream, no host synchronization);
    otherwise its contents are undefined.

        %t = mapped.temp sizes(%n) : !mapped.buf<?x64xf32, global>
        %w = mapped.temp zeroed sizes(%tiles) : !mapped.buf<?x1xi64, global>
    """

    name = "mapped.temp"
    sizes = var_operand_def(IndexType)
    zeroed = opt_prop_def(UnitAttr)
    result = result_def(BufType)

    def __init__(self, result_type: BufType, sizes: Sequence[SSAValue] = (), zeroed: bool = False):
        super().__init__(
            operands=[list(sizes)],
            result_types=[result_type],
            properties={"zeroed": UnitAttr()} if zeroed else {},
        )

    def verify_(self) -> None:
        _host_only(self)
        t = _buf(self.result)
        if t.space_name != "global":
            raise self.error(f"temporaries live in global memory, got {t}")
        need = sum(1 for d in t.get_shape() if d == DYNAMIC)
        if need != len(self.sizes):
            raise self.error(f"{t} has {need} dynamic dimension(s) but {len(self.sizes)} size operand(s) were given")

    @classmethod
    def parse(cls, parser: Parser) -> TempOp:
        zeroed = parser.parse_optional_keyword("zeroed") is not None
        sizes = []
        if parser.parse_optional_keyword("sizes") is not None:
            sizes = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        t = _parse_typed(parser, BufType, "a !mapped.buf type")
        op = cls(t, _resolve_indices(parser, sizes), zeroed)
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        if self.zeroed is not None:
            printer.print_string(" zeroed")
        if self.sizes:
            printer.print_string(" sizes(")
            printer.print_list(self.sizes, printer.print_operand)
            printer.print_string(")")
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.result.type}")


@irdl_op_definition
class ViewOp(MappedOp):
    """The same global buffer seen with another shape (row-major order kept; no copy).

    %flat = mapped.view %X sizes(%n) : !mapped.buf<?x64xf32, global> to !mapped.buf<?xf32, global>
    """

    name = "mapped.view"
    source = operand_def(BufType)
    sizes = var_operand_def(IndexType)
    result = result_def(BufType)

    def __init__(self, source: SSAValue, result_type: BufType, sizes: Sequence[SSAValue] = ()):
        super().__init__(operands=[source, list(sizes)], result_types=[result_type])

    def verify_(self) -> None:
        _host_only(self)
        st, rt = _buf(self.source), _buf(self.result)
        if st.space_name != "global" or rt.space_name != "global":
            raise self.error("views are of global buffers")
        if st.element_type != rt.element_type:
            raise self.error(f"element type must not change: {st.element_type} vs {rt.element_type}")
        need = sum(1 for d in rt.get_shape() if d == DYNAMIC)
        if need != len(self.sizes):
            raise self.error(f"{rt} has {need} dynamic dimension(s) but {len(self.sizes)} size operand(s) were given")
        a, b = st.num_elements(), rt.num_elements()
        if a is not None and b is not None and a != b:
            raise self.error(f"{st} has {a} elements but {rt} has {b}")

    @classmethod
    def parse(cls, parser: Parser) -> ViewOp:
        src = parser.parse_unresolved_operand()
        sizes = []
        if parser.parse_optional_keyword("sizes") is not None:
            sizes = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        extra = parse_extra_attrs(parser)
        parser.parse_punctuation(":")
        st = _parse_typed(parser, BufType, "a !mapped.buf type")
        parser.parse_keyword("to")
        rt = _parse_typed(parser, BufType, "a !mapped.buf type")
        op = cls(parser.resolve_operand(src, st), rt, _resolve_indices(parser, sizes))
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        if self.sizes:
            printer.print_string(" sizes(")
            printer.print_list(self.sizes, printer.print_operand)
            printer.print_string(")")
        print_extra_attrs(printer, self)
        printer.print_string(f" : {self.source.type} to {self.result.type}")


@irdl_op_definition
class LaunchOp(MappedOp):
    """Runs a `mapped.kernel` of this module with the given arguments (from the host).

    mapped.launch @softmax_g0(%X, %Y) : !mapped.buf<?x64xf32, global>, !mapped.buf<?x64xf32, global>
    """

    name = "mapped.launch"
    kernel_name = prop_def(SymbolRefAttr, prop_name="kernel")
    args = var_operand_def()

    def __init__(self, kernel: str, args: Sequence[SSAValue]):
        super().__init__(operands=[list(args)], properties={"kernel": SymbolRefAttr(kernel)})

    def callee(self) -> Operation | None:
        """The launched kernel: a mapped.kernel, or the hw kernel it was lowered to."""
        module = self.parent_op()
        while module is not None and module.parent_op() is not None:
            module = module.parent_op()
        if module is None:
            return None
        name = self.kernel_name.root_reference.data
        for op in module.body.block.ops if hasattr(module, "body") else ():
            sym = op.properties.get("sym_name")
            if isinstance(sym, StringAttr) and sym.data == name and not isinstance(op, HostOp):
                return op
        return None

    def verify_(self) -> None:
        _host_only(self)

    def verify_symbol_uses(self, symbols: dict[str, Operation]) -> None:
        """The launched kernel exists and takes these arguments (run by tilec.ir.verify_module
        with one symbol table per module, so verifying n launches costs O(n))."""
        name = self.kernel_name.root_reference.data
        k = symbols.get(name)
        if isinstance(k, HostOp):
            k = None
        if k is None:
            raise self.error(f"no mapped.kernel named @{name} in this module")
        if not isinstance(k, KernelOp):
            return  # lowered to a target kernel: its parameters are the buffers' pointers and sizes
        want = list(k.function_type.inputs.data)
        got = [a.type for a in self.args]
        if want != got:
            raise self.error(f"@{name} takes ({', '.join(map(str, want))}) but is given ({', '.join(map(str, got))})")

    @classmethod
    def parse(cls, parser: Parser) -> LaunchOp:
        start = parser.pos
        sym = parser.parse_symbol_name().data
        args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        extra = parse_extra_attrs(parser)
        types = []
        if args:
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if len(types) != len(args):
            parser.raise_error(f"launch: {len(args)} argument(s) but {len(types)} type(s)", start, parser.pos)
        op = cls(sym, [parser.resolve_operand(a, t) for a, t in zip(args, types)])
        op.attributes |= extra
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.kernel_name.root_reference.data)
        printer.print_string("(")
        printer.print_list(self.args, printer.print_operand)
        printer.print_string(")")
        print_extra_attrs(printer, self)
        if self.args:
            printer.print_string(" : ")
            printer.print_list([a.type for a in self.args], printer.print_attribute)


Mapped = Dialect(
    "mapped",
    [
        KernelOp,
        ReturnOp,
        YieldOp,
        *HIERARCHY_OPS,
        DimOp,
        AllocOp,
        LoadOp,
        StoreOp,
        AtomicAddOp,
        CopyOp,
        AsyncCopyOp,
        AsyncCopyWindowOp,
        AsyncCommitOp,
        AsyncWaitOp,
        BarrierOp,
        ParallelOp,
        PipelineOp,
        WsPipelineOp,
        TmaLoadOp,
        WgmmaOp,
        FragFillOp,
        FragLoadOp,
        MmaOp,
        FragMapOp,
        FragReduceOp,
        FragConvertOp,
        FragExtractOp,
        FragStoreOp,
        ReduceOp,
        ScanOp,
        CombineScanOp,
        IsAlignedOp,
        BlockTicketOp,
        LookbackOp,
        ShuffleXorOp,
        HostOp,
        TempOp,
        ViewOp,
        LaunchOp,
    ],
    [BufType, FragType, SwizzleAttr, GridAttr, DistAttr],
)
