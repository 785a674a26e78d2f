"""What the C and HIP C++ printers share: variable names, lines, moves, `scf.for` / `scf.if`, and
ONE table of how `arith` / `math` ops print (`ARITH_TO_C`).

A subclass provides `ctype(t)` (the C type of an IR type), `literal(constant op)`, `op(op)` (one
statement), `RESERVED` (identifiers a variable must not take), and the few language facts the table
asks for (`LANGUAGE`, `INDEX_BITS`, `WRAP_INDEX`, `FLOAT_FN_SPELLING`, `operand`, `loop_pragmas`,
`loop_var_type`).

The table follows the semantics of MLIR's `arith` dialect, on every C-family target alike:
- integers are two's complement; `addi` / `subi` / `muli` / `absi` wrap (computed in an unsigned
  type: signed overflow is undefined in C; `index` only where the language says so, WRAP_INDEX);
- i1 is a 0/1 `bool` whose arithmetic wraps modulo 2 (true + true = false) and whose SIGNED value
  of true is -1: `maxsi` is `and`, `minsi` `or`, the signed `cmpi` predicates reverse the order
  of 0/1, `extsi` / `sitofp` / `index_cast` of true give -1; `trunci` to i1 keeps the low bit;
- the unsigned ops (`divui`, `remui`, `minui`, `maxui`, `cmpi ult/ule/ugt/uge`, `shrui`, `extui`)
  read their operands as the unsigned type of the same width;
- shifts by an amount (read as unsigned) >= the bit width are poison in arith and undefined
  behaviour in C. The C printed here gives them a DEFINED result, the one PTX's `shl` / `shr`
  give (amounts clamped to the width): `shli` and `shrui` give 0, `shrsi` gives the sign fill
  (0 or -1). A literal amount within the width is printed without that guard. `shrsi` relies on
  `>>` of a negative signed value being an arithmetic shift (implementation-defined in C before
  C23 and C++ before C++20; GCC and Clang, the only compilers tilec drives, define it so).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import ClassVar

from xdsl.dialects import arith, math, scf
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from tilec.diagnostics import NotSupportedYet, op_location
from tilec.mathfns import MATH_FUNCTIONS

Rule = Callable[["CFamilyPrinter", Operation, tuple[str, ...]], "str | None"]
"""How one op prints: (printer, op, its operands as C expressions) -> the C expression of its
result, or None where the printer cannot print it (the caller says 'not supported')."""


class CFamilyPrinter:
    RESERVED: ClassVar[frozenset[str]] = frozenset()
    LANGUAGE: ClassVar[str] = "C"
    """The language's name in error messages."""
    INDEX_BITS: ClassVar[int] = 64
    """The width of `index` in the language (the width of `ctype(index)`)."""
    WRAP_INDEX: ClassVar[bool] = True
    """Whether `index` add / sub / mul / absi wrap (computed unsigned) like the integer types."""
    FLOAT_FN_SPELLING: ClassVar[Mapping[str, tuple[str, str]]] = MappingProxyType({})
    """The f32 and f64 names of a float function where they are not C's (`expf` / `exp`)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[SSAValue, str] = {}
        self.used: set[str] = set()
        self.next_suffix: dict[str, int] = {}  # per name base: where the next search starts (`name`)
        self.indent = 0

    # --- to override -------------------------------------------------------------------------------

    def ctype(self, t) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def literal(self, op: arith.ConstantOp) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def op(self, op: Operation) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def operand(self, v: SSAValue) -> str:
        """An operand of an arith / math op, as a C expression."""
        return self.name(v)

    def loop_pragmas(self, op: scf.ForOp) -> list[str]:
        """The lines printed just before an `scf.for` loop."""
        return []

    def loop_var_type(self, iv: SSAValue) -> str:
        return self.ctype(iv.type)

    def bit_cast(self, dst: str, src: str, x: str) -> str:
        """`x` (of C type `src`) with its bits read as `dst` (same size): a C99 union literal."""
        return f"((union {{ {src} s; {dst} d; }}){{.s = {x}}}).d"

    # --- names and lines ------------------------------------------------------------------------------

    def name(self, v: SSAValue) -> str:
        """The variable holding `v` (named after its name hint), or the literal of a constant."""
        if v in self.names:
            return self.names[v]
        owner = v.owner
        if isinstance(owner, arith.ConstantOp):
            return self.literal(owner)
        base = re.sub(r"[^A-Za-z0-9_]", "_", v.name_hint or "v")
        if base[0].isdigit():
            base = "v" + base
        if base.startswith("tilec_") or base.startswith("__") or re.match(r"_[A-Z]", base):
            base = "v_" + base.lstrip("_")  # the prelude's and the compiler's own names
        base = re.sub(r"__+", "_", base)  # C++ reserves every name with `__` in it
        # the search starts after the last suffix taken for `base` (names are never freed, so every
        # smaller one is taken): linear, not quadratic, in a kernel's values (thousands in philox code)
        n = self.next_suffix.get(base, 0)
        cand = base if n == 0 else f"{base}{'' if base.endswith('_') else '_'}{n}"
        while cand in self.used or cand in self.RESERVED:
            n += 1
            cand = f"{base}{'' if base.endswith('_') else '_'}{n}"
        self.next_suffix[base] = n + 1
        self.used.add(cand)
        self.names[v] = cand
        return cand

    def reset_names(self) -> None:
        self.names = {}
        self.used = set()
        self.next_suffix = {}

    def line(self, text: str) -> None:
        self.lines.append("  " * self.indent + text)

    def decl(self, v: SSAValue, expr: str) -> None:
        self.line(f"{self.ctype(v.type)} {self.name(v)} = {expr};")

    def block(self, block: Block) -> None:
        for op in block.ops:
            self.op(op)

    # --- integer types ----------------------------------------------------------------------------------

    def int_bits(self, t: Attribute) -> int:
        if isinstance(t, IndexType):
            return self.INDEX_BITS
        if isinstance(t, IntegerType):
            return t.width.data
        raise NotSupportedYet(f"{self.LANGUAGE} integer ops on {t}")

    def unsigned(self, t: Attribute) -> str:
        """An unsigned C type at least as wide as `t` and as int, so that no operand is promoted to
        (signed) int: wrapping arithmetic is computed in it."""
        return "uint64_t" if self.int_bits(t) > 32 else "uint32_t"

    def same_unsigned(self, t: Attribute) -> str:
        """The unsigned C type of the same width as `t` (i1: uint8_t)."""
        return f"uint{max(8, self.int_bits(t))}_t"

    def wraps(self, t: Attribute) -> bool:
        """Whether add / sub / mul / absi on `t` are computed unsigned (wrapping around)."""
        if isinstance(t, IndexType):
            return self.WRAP_INDEX
        return isinstance(t, IntegerType) and t.width.data > 1

    def float_fn(self, name: str, t: Attribute) -> str | None:
        """The C function `name` (C's spelling: expf / exp) for a scalar f32 or f64; None otherwise."""
        if not isinstance(t, Float32Type | Float64Type):
            return None
        f64 = isinstance(t, Float64Type)
        spelled = self.FLOAT_FN_SPELLING.get(name)
        if spelled is not None:
            return spelled[f64]
        return name if f64 else name + "f"

    # --- arith / math ops -------------------------------------------------------------------------------

    def expr(self, op: Operation) -> str | None:
        """The C expression of an arith / math op's result (ARITH_TO_C), or None."""
        if not op.results:
            return None
        if not isinstance(op, arith.ExtFOp | arith.TruncFOp | arith.SelectOp | arith.BitcastOp) and any(
            isinstance(v.type, Float16Type | BFloat16Type) for v in [*op.operands, *op.results]
        ):
            # 16-bit floats are stored types only: the lowerings compute in f32
            raise NotSupportedYet(
                f"{self.LANGUAGE} emission of {op.name} on a 16-bit float (extend it to f32 first)", op_location(op)
            )
        rule = op_entry(ARITH_TO_C, op)
        if rule is None:
            return None
        return rule(self, op, tuple(self.operand(v) for v in op.operands))

    def shared_op(self, op: Operation) -> None:
        """Print an op that C and HIP C++ print alike (scf.for, scf.if, arith, math), or say that it
        is not supported."""
        control = {scf.ForOp: self.for_loop, scf.IfOp: self.if_op, scf.WhileOp: self.while_loop}.get(type(op))
        if control is not None:
            control(op)
            return
        expr = self.expr(op)
        if expr is None:
            raise NotSupportedYet(f"{self.LANGUAGE} emission of {op.name}", op_location(op))
        self.decl(op.results[0], expr)

    # --- structured control flow ------------------------------------------------------------------------

    def assign(self, targets: list[SSAValue], values: list[SSAValue]) -> None:
        """targets := values, as a parallel move (through temporaries when several change)."""
        n = self.name
        pending = [(t, v) for t, v in zip(targets, values) if n(t) != n(v)]
        if len(pending) > 1:
            temps = []
            for t, v in pending:
                tmp = f"{n(t)}_next"
                self.line(f"{self.ctype(t.type)} {tmp} = {n(v)};")
                temps.append((t, tmp))
            for t, tmp in temps:
                self.line(f"{n(t)} = {tmp};")
        else:
            for t, v in pending:
                self.line(f"{n(t)} = {n(v)};")

    def for_loop(self, op: scf.ForOp) -> None:
        n = self.name
        body = op.body.block
        iv, carried = body.args[0], body.args[1:]
        results = list(op.results)
        for r, init, c in zip(results, op.iter_args, carried):
            self.decl(r, n(init))
            self.names[c] = n(r)  # the loop-carried variable is the result variable
        for pragma in self.loop_pragmas(op):
            self.line(pragma)
        self.line(
            f"for ({self.loop_var_type(iv)} {n(iv)} = {n(op.lb)}; {n(iv)} < {n(op.ub)}; {n(iv)} += {n(op.step)}) {{"
        )
        self.indent += 1
        y = body.last_op
        for o in body.ops:
            if o is not y:
                self.op(o)
        assert isinstance(y, scf.YieldOp)
        self.assign(results, list(y.operands))
        self.indent -= 1
        self.line("}")

    def while_loop(self, op: scf.WhileOp) -> None:
        """`scf.while` as `for (;;)`: the `before` block's arguments and the results are variables
        (the `after` block's arguments are the results); `scf.condition` assigns the results and
        breaks when false, `scf.yield` assigns the `before` arguments."""
        n = self.name
        before, after = op.before_region.block, op.after_region.block
        for a, init in zip(before.args, op.arguments):
            self.decl(a, n(init))
        for r, a in zip(op.res, after.args):
            self.line(f"{self.ctype(r.type)} {n(r)};")
            self.names[a] = n(r)
        self.line("for (;;) {")
        self.indent += 1
        cond = before.last_op
        assert isinstance(cond, scf.ConditionOp)
        for o in before.ops:
            if o is not cond:
                self.op(o)
        self.assign(list(op.res), list(cond.args))
        self.line(f"if (!{n(cond.condition)}) break;")
        y = after.last_op
        assert isinstance(y, scf.YieldOp)
        for o in after.ops:
            if o is not y:
                self.op(o)
        self.assign(list(before.args), list(y.operands))
        self.indent -= 1
        self.line("}")

    def if_op(self, op: scf.IfOp) -> None:
        for r in op.results:
            self.line(f"{self.ctype(r.type)} {self.name(r)};")
        self.line(f"if ({self.name(op.cond)}) {{")
        self.indent += 1
        self.branch(op.true_region.block, list(op.results))
        self.indent -= 1
        if op.false_region.blocks:
            self.line("} else {")
            self.indent += 1
            self.branch(op.false_region.block, list(op.results))
            self.indent -= 1
        self.line("}")

    def branch(self, block: Block, results: list[SSAValue]) -> None:
        y = block.last_op
        for o in block.ops:
            if o is not y:
                self.op(o)
        if isinstance(y, scf.YieldOp) and results:
            self.assign(results, list(y.operands))


# --- helpers of the C-family printers ------------------------------------------------------------------


def op_entry(table: Mapping[type[Operation], object], op: Operation):
    """The entry of `table` for `op`'s class (or the nearest base class listed), or None."""
    return next((table[c] for c in type(op).__mro__ if c in table), None)


def is_i1(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


FLOAT_CTYPES = MappingProxyType(
    {Float32Type: "float", Float64Type: "double", Float16Type: "tilec_f16", BFloat16Type: "tilec_bf16"}
)
"""The C types of the float types (16-bit floats are the preludes' `tilec_f16` / `tilec_bf16`)."""


def scalar_ctype(t: Attribute, index: str) -> str | None:
    """The C type of a scalar IR type (`index` for index: each language's own), or None."""
    if isinstance(t, IndexType):
        return index
    if isinstance(t, IntegerType) and t.width.data in (1, 8, 16, 32, 64):
        return "bool" if t.width.data == 1 else f"int{t.width.data}_t"
    return FLOAT_CTYPES.get(type(t))


def float_short_name(t: Attribute) -> str:
    """f16 / bf16 / f32 / f64, as in the preludes' conversion functions (tilec_f16_to_f32)."""
    return {Float16Type: "f16", BFloat16Type: "bf16", Float32Type: "f32", Float64Type: "f64"}[type(t)]


def half_bits(x: float, t: Attribute) -> int:
    """The bits of `x` rounded to the 16-bit float type `t` (f16 or bf16)."""
    import ml_dtypes
    import numpy as np

    np_t = np.float16 if isinstance(t, Float16Type) else ml_dtypes.bfloat16
    return int(np.array(x, np.float64).astype(np_t).view(np.uint16))


# --- the rules of ARITH_TO_C ---------------------------------------------------------------------------


def _result_type(op: Operation) -> Attribute:
    return op.results[0].type


def infix(sym: str) -> Rule:
    return lambda p, op, a: f"{a[0]} {sym} {a[1]}"


def wrapping(sym: str, on_i1: str) -> Rule:
    """addi / subi / muli: computed unsigned so that they wrap; on i1 (mod 2) the `on_i1` form."""

    def rule(p: CFamilyPrinter, op: Operation, a: tuple[str, ...]) -> str:
        t = _result_type(op)
        if is_i1(t):
            return on_i1.format(*a)
        if not p.wraps(t):
            return f"{a[0]} {sym} {a[1]}"
        u = p.unsigned(t)
        return f"({p.ctype(t)})(({u}){a[0]} {sym} ({u}){a[1]})"

    return rule


def unsigned_binop(sym: str) -> Rule:
    """divui / remui: on the operands read as unsigned (C's integers here are signed)."""

    def rule(p: CFamilyPrinter, op: Operation, a: tuple[str, ...]) -> str:
        t = _result_type(op)
        u = p.same_unsigned(t)
        return f"({p.ctype(t)})(({u}){a[0]} {sym} ({u}){a[1]})"

    return rule


def xori(p: CFamilyPrinter, op: Operation, a: tuple[str, ...]) -> str:
    # on i1 the same form as addi (xor is addition mod 2)
    return f"{a[0]} != {a[1]}" if is_i1(_result_type(op)) else f"{a[0]} ^ {a[1]}"


def _literal_amount(v: SSAValue, bits: int) -> bool:
    """Whether the shift amount `v` is a constant within [0, bits): a shift that needs no guard."""
    owner = v.owner
    return (
        isinstance(owner, arith.ConstantOp)
        and isinstance(owner.value, IntegerAttr)
        and 0 <= owner.value.value.data < bits
    )


def shift(kind: str) -> Rule:
    """shli / shrui / shrsi, defined for every amount (module docstring): an amount >= the width
    (read as unsigned) gives 0 (shli, shrui) or the sign fill (shrsi), as PTX's clamped shifts do."""

    def rule(p: CFamilyPrinter, op: Operation, a: tuple[str, ...]) -> str | None:
        t = _result_type(op)
        if not isinstance(t, IntegerType | IndexType):
            return None
        x, s, ct, w = a[0], a[1], p.ctype(t), p.int_bits(t)
        guard = None if _literal_amount(op.operands[1], w) else f"({p.same_unsigned(t)}){s} < {w}"
        if kind == "shrsi":  # an arithmetic shift by w - 1 is the sign fill
            return f"{x} >> {s}" if guard is None else f"{x} >> ({guard} ? {s} : {w - 1})"
        # shli: in a type at least as wide as int (no signed overflow); shrui: zero-extended
        shifted = f"({p.unsigned(t)}){x} << {s}" if kind == "shli" else f"({p.same_unsigned(t)}){x} >> {s}"
        return f"({ct})({shifted})" if guard is None else f"({ct})({guard} ? {shifted} : 0)"

    return rule


def signed_minmax(sym: str, on_i1: str) -> Rule:
    """maxsi / minsi; on i1 true (-1) is the smaller: maxsi is `and`, minsi is `or`."""

    def rule(p: CFamilyPrinter, op: Operation, a: tuple[str, ...]) -> str:
        if is_i1(_result_type(op)):
            return f"({a[0]} {on_i1} {a[1]})"
        return f"({a[0]} {sym} {a[1]} ? {a[0]} : {a[1]})"

    return rule


def unsigned_minmax(sym: str) -> Rule:
    def rule(p: CFamilyPrinter, op: Operation, a: tuple[str, ...]) -> str:
        u = p.same_unsigned(_result_type(op))
        return f"(({u}){a[0]} {sym} ({u}){a[1]} ? {a[0]} : {a[1]})"

    return rule


def float_call(name: str) -> Rule:
    """A float function (math.exp, arith.maximumf, ...): its name in the language, by `float_fn`."""

    def rule(p: CFamilyPrinter, op: Operation, a: tuple[str, ...]) -> str | None:
        fn = p.float_fn(name, _result_type(op))
        return None if fn is None else f"{fn}({', '.join(a)})"

    return rule


CMPF_NAMES = (
    "false",
    "oeq",
    "ogt",
    "oge",
    "olt",
    "ole",
    "one",
    "ord",
    "ueq",
    "ugt",
    "uge",
    "ult",
    "ule",
    "une",
    "uno",
    "true",
)
CMPI_NAMES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
CMPI_SYMBOLS = MappingProxyType(
    {
        "eq": "==",
        "ne": "!=",
        "slt": "<",
        "sle": "<=",
        "sgt": ">",
        "sge": ">=",
        "ult": "<",
        "ule": "<=",
        "ugt": ">",
        "uge": ">=",
    }
)


def cmpf_name(op: arith.CmpfOp) -> str:
    return CMPF_NAMES[op.predicate.value.data]


def cmpf_expr(op: arith.CmpfOp, a: str, b: str) -> str:
    """The C expression of `a <pred> b` on floats: ordered predicates are false on NaN, unordered
    ones (the negations) true."""
    return {
        "oeq": f"{a} == {b}",
        "ogt": f"{a} > {b}",
        "oge": f"{a} >= {b}",
        "olt": f"{a} < {b}",
        "ole": f"{a} <= {b}",
        "one": f"({a} < {b} || {a} > {b})",
        "ord": f"({a} == {a} && {b} == {b})",
        "ueq": f"!({a} < {b} || {a} > {b})",
        "ugt": f"!({a} <= {b})",
        "uge": f"!({a} < {b})",
        "ult": f"!({a} >= {b})",
        "ule": f"!({a} > {b})",
        "une": f"{a} != {b}",
        "uno": f"({a} != {a} || {b} != {b})",
        "false": "false",
        "true": "true",
    }[cmpf_name(op)]


def cmpi_name(op: arith.CmpiOp) -> str:
    return CMPI_NAMES[op.predicate.value.data]


def cmpi(p: CFamilyPrinter, op: Operation, a: tuple[str, ...]) -> str:
    assert isinstance(op, arith.CmpiOp)
    pred, (x, y) = cmpi_name(op), a
    sym = CMPI_SYMBOLS[pred]
    if is_i1(op.lhs.type):
        # bools compare as 0/1, the unsigned order; signed, true is -1: the order is reversed
        return f"{y} {sym} {x}" if pred[0] == "s" else f"{x} {sym} {y}"
    if pred[0] == "u":
        u = p.same_unsigned(op.lhs.type)
        return f"({u}){x} {sym} ({u}){y}"
    return f"{x} {sym} {y}"


def int_resize(p: CFamilyPrinter, op: Operation, a: tuple[str, ...]) -> str:
    """extsi / trunci / index_cast: sign-extend or keep the low bits. To i1 that is the low bit (not
    `!= 0`); from i1 the sign extension of true is -1."""
    src, t = op.operands[0].type, _result_type(op)
    if is_i1(t) and not is_i1(src):
        return f"({a[0]} & 1) != 0"
    if is_i1(src) and not is_i1(t):
        return f"({p.ctype(t)})({a[0]} ? -1 : 0)"
    return f"({p.ctype(t)}){a[0]}"


def extui(p: CFamilyPrinter, op: Operation, a: tuple[str, ...]) -> str:
    src, ct = op.operands[0].type, p.ctype(_result_type(op))
    if is_i1(src):
        return f"({ct})({a[0]} ? 1 : 0)"
    return f"({ct})({p.same_unsigned(src)}){a[0]}"


def sitofp(p: CFamilyPrinter, op: Operation, a: tuple[str, ...]) -> str:
    ct = p.ctype(_result_type(op))
    if is_i1(op.operands[0].type):  # signed, true is -1
        return f"({ct})({a[0]} ? -1 : 0)"
    return f"({ct}){a[0]}"


def fptosi(p: CFamilyPrinter, op: Operation, a: tuple[str, ...]) -> str | None:
    # the preludes' saturating conversions (NaN -> 0), as PTX's cvt.rzi.sat
    t = _result_type(op)
    if not isinstance(t, IntegerType) or is_i1(t):
        return None
    src = "f32" if isinstance(op.operands[0].type, Float32Type) else "f64"
    return f"tilec_{src}_to_i{t.width.data}({a[0]})"


def bitcast(p: CFamilyPrinter, op: Operation, a: tuple[str, ...]) -> str:
    src, t = op.operands[0].type, _result_type(op)
    return p.bit_cast(p.ctype(t), p.ctype(src), a[0])


def extf(p: CFamilyPrinter, op: Operation, a: tuple[str, ...]) -> str:
    src, t = op.operands[0].type, _result_type(op)
    if isinstance(src, BFloat16Type | Float16Type):
        v = f"tilec_{float_short_name(src)}_to_f32({a[0]})"
        return v if isinstance(t, Float32Type) else f"(double){v}"
    return f"({p.ctype(t)}){a[0]}"


def truncf(p: CFamilyPrinter, op: Operation, a: tuple[str, ...]) -> str:
    t = _result_type(op)
    if isinstance(t, BFloat16Type | Float16Type):
        # from f64 by rounding to odd first (in the preludes): one rounding, not two
        return f"tilec_{float_short_name(op.operands[0].type)}_to_{float_short_name(t)}({a[0]})"
    return f"({p.ctype(t)}){a[0]}"


def absi(p: CFamilyPrinter, op: Operation, a: tuple[str, ...]) -> str:
    t, x = _result_type(op), a[0]
    if is_i1(t):  # abs(true = -1) = 1, which is -1 (true) again in one bit
        return x
    if p.wraps(t):  # abs(INT_MIN) = INT_MIN, without signed overflow
        u = p.unsigned(t)
        return f"({x} < 0 ? ({p.ctype(t)})(({u})0 - ({u}){x}) : {x})"
    return f"({x} < 0 ? -{x} : {x})"


ARITH_TO_C: Mapping[type[Operation], Rule] = MappingProxyType(
    {
        # floats
        arith.AddfOp: infix("+"),
        arith.SubfOp: infix("-"),
        arith.MulfOp: infix("*"),
        arith.DivfOp: infix("/"),
        arith.NegfOp: lambda p, op, a: f"-{a[0]}",
        arith.MaximumfOp: float_call("tilec_maximum"),
        arith.MinimumfOp: float_call("tilec_minimum"),  # propagate NaN
        arith.MaxnumfOp: float_call("tilec_maxnum"),
        arith.MinnumfOp: float_call("tilec_minnum"),  # ignore NaN
        arith.CmpfOp: lambda p, op, a: cmpf_expr(op, *a),
        # integers
        arith.AddiOp: wrapping("+", "{0} != {1}"),
        arith.SubiOp: wrapping("-", "{0} != {1}"),
        arith.MuliOp: wrapping("*", "{0} && {1}"),
        arith.DivSIOp: infix("/"),
        arith.RemSIOp: infix("%"),
        arith.DivUIOp: unsigned_binop("/"),
        arith.RemUIOp: unsigned_binop("%"),
        arith.AndIOp: infix("&"),
        arith.OrIOp: infix("|"),
        arith.XOrIOp: xori,
        arith.ShLIOp: shift("shli"),
        arith.ShRUIOp: shift("shrui"),
        arith.ShRSIOp: shift("shrsi"),
        arith.MaxSIOp: signed_minmax(">", "&&"),
        arith.MinSIOp: signed_minmax("<", "||"),
        arith.MaxUIOp: unsigned_minmax(">"),
        arith.MinUIOp: unsigned_minmax("<"),
        arith.CmpiOp: cmpi,
        arith.SelectOp: lambda p, op, a: f"{a[0]} ? {a[1]} : {a[2]}",
        # conversions
        arith.ExtFOp: extf,
        arith.TruncFOp: truncf,
        arith.FPToSIOp: fptosi,
        arith.SIToFPOp: sitofp,
        arith.ExtSIOp: int_resize,
        arith.TruncIOp: int_resize,
        arith.IndexCastOp: int_resize,
        arith.ExtUIOp: extui,
        arith.BitcastOp: bitcast,
        # math
        math.ExpOp: float_call("exp"),
        math.LogOp: float_call("log"),
        math.TanhOp: float_call("tanh"),
        math.ErfOp: float_call("erf"),
        math.RsqrtOp: float_call("rsqrt"),
        math.SqrtOp: float_call("sqrt"),
        math.AbsFOp: float_call("fabs"),
        math.PowFOp: float_call("pow"),
        math.AbsIOp: absi,
        # the math library (tilec/mathfns.py): libm's functions (HIP's device library has them too)
        **{f.math: float_call(f.c) for f in MATH_FUNCTIONS if f.math is not None and f.c is not None},
    }
)
"""arith / math op class -> how it prints in C and HIP C++ (the printers differ only through their
hooks: `ctype`, `operand`, `INDEX_BITS`, `WRAP_INDEX`, `FLOAT_FN_SPELLING`)."""


C_KEYWORDS = frozenset(
    {
        "auto",
        "break",
        "case",
        "char",
        "const",
        "continue",
        "default",
        "do",
        "double",
        "else",
        "enum",
        "extern",
        "float",
        "for",
        "goto",
        "if",
        "inline",
        "int",
        "long",
        "register",
        "restrict",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "typedef",
        "union",
        "unsigned",
        "void",
        "volatile",
        "while",
        "bool",
        "true",
        "false",
        "main",
    }
)
"""C's keywords and `main`: names a variable must not take."""

_INT_NAMES = tuple(f"{u}int{k}{n}_t" for u in ("", "u") for k in ("", "_least", "_fast") for n in (8, 16, 32, 64))
_INT_LIMITS = tuple(
    f"{u}INT{k}{n}_{m}"
    for u in ("", "U")
    for k in ("", "_LEAST", "_FAST")
    for n in (8, 16, 32, 64)
    for m in ("MIN", "MAX")
)
C_LIBRARY_NAMES = frozenset(
    {
        # the types and object-like macros of the preludes' headers (stdint, stdbool, stdlib, string,
        # math): a variable of that name would not compile, or would change what the code means
        *_INT_NAMES,
        *_INT_LIMITS,
        "intptr_t",
        "uintptr_t",
        "intmax_t",
        "uintmax_t",
        "size_t",
        "ptrdiff_t",
        "wchar_t",
        "INTPTR_MIN",
        "INTPTR_MAX",
        "UINTPTR_MAX",
        "INTMAX_MIN",
        "INTMAX_MAX",
        "UINTMAX_MAX",
        "PTRDIFF_MIN",
        "PTRDIFF_MAX",
        "SIZE_MAX",
        "WCHAR_MIN",
        "WCHAR_MAX",
        "WINT_MIN",
        "WINT_MAX",
        "SIG_ATOMIC_MIN",
        "SIG_ATOMIC_MAX",
        "NULL",
        "EXIT_SUCCESS",
        "EXIT_FAILURE",
        "RAND_MAX",
        "MB_CUR_MAX",
        "errno",
        "NAN",
        "INFINITY",
        "HUGE_VAL",
        "HUGE_VALF",
        "HUGE_VALL",
        "FP_NAN",
        "FP_INFINITE",
        "FP_ZERO",
        "FP_SUBNORMAL",
        "FP_NORMAL",
        "FP_ILOGB0",
        "FP_ILOGBNAN",
        "FP_FAST_FMA",
        "FP_FAST_FMAF",
        "MATH_ERRNO",
        "MATH_ERREXCEPT",
        "math_errhandling",
        "M_E",
        "M_LOG2E",
        "M_LOG10E",
        "M_LN2",
        "M_LN10",
        "M_PI",
        "M_PI_2",
        "M_PI_4",
        "M_1_PI",
        "M_2_PI",
        "M_2_SQRTPI",
        "M_SQRT2",
        "M_SQRT1_2",
        # the functions the printed code calls (the table's libm names in both spellings, memory)
        *(f + s for f in ("exp", "log", "tanh", "erf", "rsqrt", "sqrt", "fabs", "pow") for s in ("", "f")),
        "memcpy",
        "free",
        "abort",
        "malloc",
        # C23 keywords
        "alignas",
        "alignof",
        "constexpr",
        "nullptr",
        "static_assert",
        "thread_local",
        "typeof",
        "typeof_unqual",
    }
)
"""Names of the C library the emitted C and HIP C++ see: a variable must not take them either."""
