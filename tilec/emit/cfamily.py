"""What the C and HIP C++ printers share: variable names, lines, moves, `scf.if`, predicate names.

A subclass provides `ctype(t)` (the C type of an IR type), `literal(constant op)`, `op(op)` (one
statement) and `RESERVED` (identifiers a variable must not take).
"""

from __future__ import annotations

import re
from typing import ClassVar

from xdsl.dialects import arith, scf
from xdsl.ir import Block, Operation, SSAValue


class CFamilyPrinter:
    RESERVED: ClassVar[frozenset[str]] = frozenset()

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[SSAValue, str] = {}
        self.used: set[str] = set()
        self.indent = 0

    # --- to override -------------------------------------------------------------------------------

    def ctype(self, t) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def literal(self, op: arith.ConstantOp) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def op(self, op: Operation) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

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
        if base.startswith("tilec_") or base.startswith("__"):
            base = "v_" + base.lstrip("_")  # the prelude's and the compiler's own names
        cand, n = base, 0
        while cand in self.used or cand in self.RESERVED:
            n += 1
            cand = f"{base}_{n}"
        self.used.add(cand)
        self.names[v] = cand
        return cand

    def reset_names(self) -> None:
        self.names = {}
        self.used = set()

    def line(self, text: str) -> None:
        self.lines.append("  " * self.indent + text)

    def decl(self, v: SSAValue, expr: str) -> None:
        self.line(f"{self.ctype(v.type)} {self.name(v)} = {expr};")

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


CMPF_NAMES = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true")
CMPI_NAMES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def cmpf_name(op: arith.CmpfOp) -> str:
    return CMPF_NAMES[op.predicate.value.data]


def cmpf_expr(op: arith.CmpfOp, a: str, b: str) -> str:
    """The C expression of `a <pred> b` on floats: ordered predicates are false on NaN, unordered
    ones (the negations) true."""
    return {
        "oeq": f"{a} == {b}", "ogt": f"{a} > {b}", "oge": f"{a} >= {b}", "olt": f"{a} < {b}",
        "ole": f"{a} <= {b}", "one": f"({a} < {b} || {a} > {b})", "ord": f"({a} == {a} && {b} == {b})",
        "ueq": f"!({a} < {b} || {a} > {b})", "ugt": f"!({a} <= {b})", "uge": f"!({a} < {b})",
        "ult": f"!({a} >= {b})", "ule": f"!({a} > {b})", "une": f"{a} != {b}",
        "uno": f"({a} != {a} || {b} != {b})", "false": "false", "true": "true",
    }[cmpf_name(op)]


def cmpi_name(op: arith.CmpiOp) -> str:
    return CMPI_NAMES[op.predicate.value.data]


C_KEYWORDS = frozenset({
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
    "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
    "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
    "volatile", "while", "bool", "true", "false", "main",
})
