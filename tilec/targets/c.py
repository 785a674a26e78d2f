"""The C emitter: `hw.cpu` functions (with arith / math / scf / vector ops) -> C source.

A printer only: every decision was made by the passes before. One SSA value is one C variable
(named after its name hint when it has one). Loops marked `tilec.simd` get
`#pragma omp simd` with a `reduction` clause per loop-carried value (`tilec.reduce`), so GCC and
Clang vectorize them; `hw.cpu.parallel_for` is `#pragma omp parallel for`. The entry function
(`tilec.entry`) returns 0, or 1 when a temporary could not be allocated.
"""

from __future__ import annotations

import re
from pathlib import Path

from xdsl.dialects import arith, math, scf, vector
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from tilec.diagnostics import NotSupportedYet, op_location
from tilec.dialects.hw import PtrType
from tilec.dialects.hw import cpu as hwcpu

PRELUDE = (Path(__file__).parent / "c_prelude.h").read_text()

ENTRY_ATTR = "tilec.entry"


def c_type(t: Attribute) -> str:
    if isinstance(t, Float32Type):
        return "float"
    if isinstance(t, Float64Type):
        return "double"
    if isinstance(t, Float16Type):
        return "tilec_f16"
    if isinstance(t, BFloat16Type):
        return "tilec_bf16"
    if isinstance(t, IndexType):
        return "int64_t"
    if isinstance(t, IntegerType):
        w = t.width.data
        return "bool" if w == 1 else f"int{w}_t"
    if isinstance(t, PtrType):
        return f"{c_type(t.pointee)}* restrict"
    if isinstance(t, VectorType):
        return _vector_typedef(t)
    raise NotSupportedYet(f"the C type of {t}")


def _vector_typedef(t: VectorType) -> str:
    elt = c_type(t.get_element_type())
    n = t.get_shape()[0]
    return f"tilec_v{n}_{elt.replace('_t', '')}"


def _suffix(t: Attribute) -> str:
    """'f' for float functions (expf), '' for double (exp)."""
    return "f" if isinstance(t, Float32Type) else ""


class CEmitter:
    def __init__(self, module: ModuleOp):
        self.module = module
        self.lines: list[str] = []
        self.names: dict[SSAValue, str] = {}
        self.used: set[str] = set()
        self.indent = 0
        self.vector_types: dict[str, VectorType] = {}
        self.mallocs: list[SSAValue] = []

    # --- names ----------------------------------------------------------------------------------

    def name(self, v: SSAValue) -> str:
        if v in self.names:
            return self.names[v]
        owner = v.owner
        if isinstance(owner, arith.ConstantOp):
            return self.literal(owner)
        hint = v.name_hint or "v"
        base = re.sub(r"[^A-Za-z0-9_]", "_", hint)
        if base[0].isdigit():
            base = "v" + base
        cand = base
        n = 0
        while cand in self.used or cand in _C_KEYWORDS:
            n += 1
            cand = f"{base}_{n}"
        self.used.add(cand)
        self.names[v] = cand
        return cand

    def literal(self, op: arith.ConstantOp) -> str:
        val, t = op.value, op.result.type
        if isinstance(val, FloatAttr):
            x = val.value.data
            ft = c_type(t)
            if isinstance(t, Float16Type | BFloat16Type):  # stored as bits (uint16_t)
                import ml_dtypes
                import numpy as np

                np_t = np.float16 if isinstance(t, Float16Type) else ml_dtypes.bfloat16
                bits = int(np.array(x, np.float64).astype(np_t).view(np.uint16))
                return f"(({ft})0x{bits:04X})"
            if x != x:
                return f"(({ft})NAN)"
            if x in (float("inf"), float("-inf")):
                return f"(({ft}){'-' if x < 0 else ''}INFINITY)"
            lit = float(x).hex()
            return f"(({ft}){lit}{'f' if ft == 'float' else ''})"
        if isinstance(val, IntegerAttr):
            x = val.value.data
            if isinstance(t, IntegerType) and t.width.data == 1:
                return "true" if x else "false"
            ct = c_type(t)
            if x == -(2**63):
                return f"(({ct})INT64_MIN)"
            return f"(({ct}){x}LL)"
        raise NotSupportedYet(f"a constant of type {t} in C", op_location(op))

    # --- output ---------------------------------------------------------------------------------

    def line(self, text: str) -> None:
        self.lines.append("  " * self.indent + text)

    def decl(self, v: SSAValue, expr: str) -> None:
        self.line(f"{self.ctype(v.type)} {self.name(v)} = {expr};")

    def ctype(self, t: Attribute) -> str:
        if isinstance(t, VectorType):
            name = _vector_typedef(t)
            self.vector_types[name] = t
            return name
        return c_type(t)

    def emit(self) -> str:
        funcs = [op for op in self.module.body.block.ops if isinstance(op, hwcpu.FuncOp)]
        if not funcs:
            raise NotSupportedYet("C emission of a module without hw.cpu functions (run -p lower-to-c first)")
        for op in self.module.body.block.ops:
            if not isinstance(op, hwcpu.FuncOp):
                raise NotSupportedYet(f"C emission of {op.name} (only hw.cpu functions are emitted)", op_location(op))
        body_lines: list[str] = []
        for f in funcs:
            self.lines = []
            self.function(f)
            body_lines += self.lines + [""]
        out = ["/* generated by tilec: C for the CPU (hw.cpu level) */", PRELUDE]
        for name, t in sorted(self.vector_types.items()):
            elt = c_type(t.get_element_type())
            n = t.get_shape()[0]
            out.append(f"typedef {elt} {name} __attribute__((vector_size({n * _elt_bytes(t.get_element_type())})));")
        # prototypes, so kernels may be defined in any order
        for f in funcs:
            out.append(self.prototype(f))
        out.append("")
        return "\n".join(out + body_lines)

    def signature(self, f: hwcpu.FuncOp) -> str:
        entry = ENTRY_ATTR in f.attributes
        params = ", ".join(f"{self.ctype(a.type)} {self.name(a)}" for a in f.body.block.args) or "void"
        head = "int" if entry else "static void"
        return f"{head} {f.sym_name.data}({params})"

    def prototype(self, f: hwcpu.FuncOp) -> str:
        head = "int" if ENTRY_ATTR in f.attributes else "static void"
        params = ", ".join(self.ctype(a.type) for a in f.body.block.args) or "void"
        return f"{head} {f.sym_name.data}({params});"

    def function(self, f: hwcpu.FuncOp) -> None:
        self.names = {}
        self.used = set()
        self.mallocs = []
        self.entry = ENTRY_ATTR in f.attributes
        self.line(self.signature(f) + " {")
        self.indent += 1
        self.block(f.body.block)
        self.indent -= 1
        self.line("}")

    def block(self, block: Block) -> None:
        for op in block.ops:
            self.op(op)

    # --- ops --------------------------------------------------------------------------------------

    def op(self, op: Operation) -> None:
        n = self.name
        if isinstance(op, arith.ConstantOp):
            return  # printed inline as a literal
        if isinstance(op, hwcpu.ReturnOp):
            self.line("return 0;" if self.entry else "return;")
            return
        if isinstance(op, hwcpu.LoadOp):
            t = op.result.type
            if isinstance(t, VectorType):
                self.line(f"{self.ctype(t)} {n(op.result)};")
                self.line(f"memcpy(&{n(op.result)}, {n(op.ptr)} + {n(op.offset)}, sizeof({n(op.result)}));")
            else:
                self.decl(op.result, f"{n(op.ptr)}[{n(op.offset)}]")
            return
        if isinstance(op, hwcpu.StoreOp):
            if isinstance(op.value.type, VectorType):
                self.line(f"memcpy({n(op.ptr)} + {n(op.offset)}, &{n(op.value)}, sizeof({n(op.value)}));")
            else:
                self.line(f"{n(op.ptr)}[{n(op.offset)}] = {n(op.value)};")
            return
        if isinstance(op, hwcpu.ParallelForOp):
            ivs = op.body.block.args
            collapse = f" collapse({len(ivs)})" if len(ivs) > 1 else ""
            sched = ""
            if op.schedule is not None:
                chunk = f", {op.chunk.data}" if op.chunk is not None else ""
                sched = f" schedule({op.schedule.data}{chunk})"
            self.line(f"#pragma omp parallel for{collapse}{sched}")
            for iv, lb, ub, st in zip(ivs, op.lbs, op.ubs, op.steps):
                self.line(f"for (int64_t {n(iv)} = {n(lb)}; {n(iv)} < {n(ub)}; {n(iv)} += {n(st)}) {{")
                self.indent += 1
            for o in op.body.block.ops:
                if not isinstance(o, hwcpu.YieldOp):
                    self.op(o)
            for _ in ivs:
                self.indent -= 1
                self.line("}")
            return
        if isinstance(op, hwcpu.MallocOp):
            t = op.result.type
            self.decl(op.result, f"({c_type(t.pointee)}*)tilec_alloc({n(op.count)} * (int64_t)sizeof({c_type(t.pointee)}))")
            self.line(f"if (!{n(op.result)}) {{")
            for p in reversed(self.mallocs):
                self.line(f"  free({n(p)});")
            self.line("  return 1;" if self.entry else "  abort();")
            self.line("}")
            self.mallocs.append(op.result)
            return
        if isinstance(op, hwcpu.AllocaOp):
            elt = c_type(op.result.type.pointee)
            self.line(f"{elt} {self.name(op.result)}[{op.count.data}] __attribute__((aligned({op.alignment.data})));")
            return
        if isinstance(op, hwcpu.FreeOp):
            self.line(f"free({n(op.ptr)});")
            return
        if isinstance(op, hwcpu.CallOp):
            self.line(f"{op.callee.data}({', '.join(n(a) for a in op.args)});")
            return
        if isinstance(op, hwcpu.SplatOp):
            t = op.result.type
            # scalar - zero vector: broadcasts, keeps -0.0, and GCC folds it into an FMA operand
            self.decl(op.result, f"{n(op.scalar)} - ({self.ctype(t)}){{}}")
            return
        if isinstance(op, hwcpu.VReduceOp):
            self.vreduce(op)
            return
        if isinstance(op, hwcpu.ExtractOp):
            self.decl(op.result, f"{n(op.vector)}[{op.lane.data}]")
            return
        if isinstance(op, vector.FMAOp):
            self.decl(op.res, f"{n(op.lhs)} * {n(op.rhs)} + {n(op.acc)}")
            return
        if isinstance(op, scf.ForOp):
            self.for_loop(op)
            return
        if isinstance(op, scf.IfOp):
            self.if_op(op)
            return
        expr = self.expr(op)
        if expr is None:
            raise NotSupportedYet(f"C emission of {op.name}", op_location(op))
        self.decl(op.results[0], expr)

    def vreduce(self, op: hwcpu.VReduceOp) -> None:
        n = self.name
        vt = op.vector.type
        lanes = vt.get_shape()[0]
        k = op.kind.data
        comb = {"add": "{a} + {b}", "mul": "{a} * {b}"}.get(k)
        if comb is None:
            fn = {"max": "tilec_maximum", "min": "tilec_minimum"}[k] + _suffix(vt.get_element_type())
            comb = fn + "({a}, {b})"
        acc = f"{n(op.vector)}[0]"
        for i in range(1, lanes):
            acc = comb.format(a=acc, b=f"{n(op.vector)}[{i}]")
        self.decl(op.result, acc)

    def for_loop(self, op: scf.ForOp) -> None:
        n = self.name
        body = op.body.block
        iv, carried = body.args[0], body.args[1:]
        results = list(op.results)
        for r, init, c in zip(results, op.iter_args, carried):
            self.decl(r, n(init))
            self.names[c] = n(r)  # the loop-carried variable is the result variable
        if "tilec.simd" in op.attributes:
            clauses = ""
            kinds = op.attributes.get("tilec.reduce")
            if kinds is not None:
                sym = {"add": "+", "mul": "*", "max": "max", "min": "min", "or": "|", "and": "&"}
                for r, kind in zip(results, kinds.data):
                    clauses += f" reduction({sym[kind.data]}:{n(r)})"
            self.line(f"#pragma omp simd{clauses}")
        self.line(f"for (int64_t {n(iv)} = {n(op.lb)}; {n(iv)} < {n(op.ub)}; {n(iv)} += {n(op.step)}) {{")
        self.indent += 1
        y = body.last_op
        for o in body.ops:
            if o is not y:
                self.op(o)
        assert isinstance(y, scf.YieldOp)
        self._assign_yields(results, list(y.operands))
        self.indent -= 1
        self.line("}")

    def _assign_yields(self, targets: list[SSAValue], values: list[SSAValue]) -> None:
        n = self.name
        pending = [(t, v) for t, v in zip(targets, values) if n(t) != n(v)]
        if len(pending) > 1:
            temps = []
            for i, (t, v) in enumerate(pending):
                tmp = f"{n(t)}_next"
                self.line(f"{self.ctype(t.type)} {tmp} = {n(v)};")
                temps.append((t, tmp))
            for t, tmp in temps:
                self.line(f"{n(t)} = {tmp};")
        else:
            for t, v in pending:
                self.line(f"{n(t)} = {n(v)};")

    def if_op(self, op: scf.IfOp) -> None:
        n = self.name
        for r in op.results:
            self.line(f"{self.ctype(r.type)} {n(r)};")
        self.line(f"if ({n(op.cond)}) {{")
        self.indent += 1
        self._branch(op.true_region.block, list(op.results))
        self.indent -= 1
        if op.false_region.blocks:
            self.line("} else {")
            self.indent += 1
            self._branch(op.false_region.block, list(op.results))
            self.indent -= 1
        self.line("}")

    def _branch(self, block: Block, results: list[SSAValue]) -> None:
        y = block.last_op
        for o in block.ops:
            if o is not y:
                self.op(o)
        if isinstance(y, scf.YieldOp):
            self._assign_yields(results, list(y.operands))

    # --- expressions --------------------------------------------------------------------------------

    def expr(self, op: Operation) -> str | None:
        n = self.name
        ops = op.operands
        t = op.results[0].type if op.results else None
        if not isinstance(op, arith.ExtFOp | arith.TruncFOp | arith.SelectOp) and any(
            isinstance(v.type, Float16Type | BFloat16Type) for v in [*ops, *op.results]
        ):
            # 16-bit floats are bits in C (tilec_f16 / tilec_bf16): lowerings compute in f32
            raise NotSupportedYet(f"C emission of {op.name} on a 16-bit float (extend it to f32 first)", op_location(op))
        if isinstance(op, arith.AddiOp | arith.SubiOp | arith.MuliOp) and _wraps(t):
            # tile integers wrap around; signed overflow is undefined in C, so compute unsigned
            sym = {arith.AddiOp: "+", arith.SubiOp: "-", arith.MuliOp: "*"}[type(op)]
            u = _unsigned(t)
            return f"({c_type(t)})(({u}){n(ops[0])} {sym} ({u}){n(ops[1])})"
        binops = {
            arith.AddfOp: "+", arith.SubfOp: "-", arith.MulfOp: "*", arith.DivfOp: "/",
            arith.AddiOp: "+", arith.SubiOp: "-", arith.MuliOp: "*", arith.DivSIOp: "/",
            arith.DivUIOp: "/", arith.RemUIOp: "%", arith.RemSIOp: "%",
            arith.AndIOp: "&", arith.OrIOp: "|", arith.XOrIOp: "^",
        }
        for cls, sym in binops.items():
            if isinstance(op, cls):
                return f"{n(ops[0])} {sym} {n(ops[1])}"
        if isinstance(op, arith.NegfOp):
            return f"-{n(ops[0])}"
        minmax = {
            arith.MaximumfOp: "tilec_maximum", arith.MinimumfOp: "tilec_minimum",
            arith.MaxnumfOp: "tilec_maxnum", arith.MinnumfOp: "tilec_minnum",
        }
        for cls, fn in minmax.items():
            if isinstance(op, cls):
                return f"{fn}{_suffix(t)}({n(ops[0])}, {n(ops[1])})"
        if isinstance(op, arith.MaxSIOp):
            return f"({n(ops[0])} > {n(ops[1])} ? {n(ops[0])} : {n(ops[1])})"
        if isinstance(op, arith.MinSIOp | arith.MinUIOp):
            return f"({n(ops[0])} < {n(ops[1])} ? {n(ops[0])} : {n(ops[1])})"
        if isinstance(op, arith.SelectOp):
            return f"{n(ops[0])} ? {n(ops[1])} : {n(ops[2])}"
        if isinstance(op, arith.CmpfOp):
            a, b = n(ops[0]), n(ops[1])
            pred = _cmpf_name(op)
            table = {
                "oeq": f"{a} == {b}", "ogt": f"{a} > {b}", "oge": f"{a} >= {b}", "olt": f"{a} < {b}",
                "ole": f"{a} <= {b}", "one": f"({a} < {b} || {a} > {b})", "ord": f"({a} == {a} && {b} == {b})",
                "ueq": f"!({a} < {b} || {a} > {b})", "ugt": f"!({a} <= {b})", "uge": f"!({a} < {b})",
                "ult": f"!({a} >= {b})", "ule": f"!({a} > {b})", "une": f"{a} != {b}",
                "uno": f"({a} != {a} || {b} != {b})", "false": "false", "true": "true",
            }
            return table[pred]
        if isinstance(op, arith.CmpiOp):
            a, b = n(ops[0]), n(ops[1])
            pred = _cmpi_name(op)
            sym = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=",
                   "ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}[pred]
            if pred.startswith("u"):
                return f"(uint64_t){a} {sym} (uint64_t){b}"
            return f"{a} {sym} {b}"
        if isinstance(op, arith.ExtFOp):
            src = ops[0].type
            if isinstance(src, BFloat16Type | Float16Type):
                v = f"tilec_{_short(src)}_to_f32({n(ops[0])})"
                return v if isinstance(t, Float32Type) else f"(double){v}"
            return f"({c_type(t)}){n(ops[0])}"
        if isinstance(op, arith.TruncFOp):
            if isinstance(t, BFloat16Type | Float16Type):
                # from f64 by rounding to odd first: one rounding, not two
                return f"tilec_{_short(ops[0].type)}_to_{_short(t)}({n(ops[0])})"
            return f"({c_type(t)}){n(ops[0])}"
        if isinstance(op, arith.FPToSIOp):
            src = "f32" if isinstance(ops[0].type, Float32Type) else "f64"
            return f"tilec_{src}_to_i{t.width.data}({n(ops[0])})"
        if isinstance(op, arith.SIToFPOp | arith.ExtSIOp | arith.TruncIOp | arith.IndexCastOp):
            return f"({c_type(t)}){n(ops[0])}"
        if isinstance(op, arith.ExtUIOp):
            src = ops[0].type
            if isinstance(src, IntegerType) and src.width.data == 1:
                return f"({c_type(t)})({n(ops[0])} ? 1 : 0)"
            return f"({c_type(t)})(uint{src.width.data}_t){n(ops[0])}"
        unary_math = {
            math.ExpOp: "tilec_expf", math.LogOp: "tilec_logf", math.TanhOp: "tilec_tanhf",
            math.ErfOp: "tilec_erff", math.RsqrtOp: "tilec_rsqrtf",
        }
        for cls, fn in unary_math.items():
            if isinstance(op, cls):
                if isinstance(t, Float64Type):
                    fn = {"tilec_expf": "exp", "tilec_logf": "log", "tilec_tanhf": "tanh", "tilec_erff": "erf", "tilec_rsqrtf": "tilec_rsqrt"}[fn]
                return f"{fn}({n(ops[0])})"
        if isinstance(op, math.SqrtOp):
            return f"sqrt{_suffix(t)}({n(ops[0])})"
        if isinstance(op, math.AbsFOp):
            return f"fabs{_suffix(t)}({n(ops[0])})"
        if isinstance(op, math.AbsIOp):
            x = n(ops[0])
            if _wraps(t):  # abs(INT_MIN) = INT_MIN, without signed overflow
                return f"({x} < 0 ? ({c_type(t)})(({_unsigned(t)})0 - ({_unsigned(t)}){x}) : {x})"
            return f"({x} < 0 ? -{x} : {x})"
        if isinstance(op, math.PowFOp):
            return f"pow{_suffix(t)}({n(ops[0])}, {n(ops[1])})"
        return None


def _short(t: Attribute) -> str:
    return {Float16Type: "f16", BFloat16Type: "bf16", Float32Type: "f32", Float64Type: "f64"}[type(t)]


def _wraps(t: Attribute) -> bool:
    """Integer types of tile values (not `index`, not i1): arithmetic on them wraps around."""
    return isinstance(t, IntegerType) and t.width.data > 1


def _unsigned(t: IntegerType) -> str:
    """An unsigned C type at least as wide as int, so that no operand is promoted to int."""
    return "uint64_t" if t.width.data > 32 else "uint32_t"


def _cmpf_name(op: arith.CmpfOp) -> str:
    names = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"]
    return names[op.predicate.value.data]


def _cmpi_name(op: arith.CmpiOp) -> str:
    names = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
    return names[op.predicate.value.data]


def _elt_bytes(t: Attribute) -> int:
    from tilec.dialects.common import bitwidth

    return max(1, bitwidth(t) // 8)


_C_KEYWORDS = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
    "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
    "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
    "volatile", "while", "bool", "true", "false", "main", "free", "abort", "exp", "log", "erf", "tanh",
    "sqrt", "pow", "NAN", "INFINITY",
}


def emit_c(module: ModuleOp, **options) -> str:
    if options:
        raise NotSupportedYet(f"C emitter options {sorted(options)}")
    return CEmitter(module).emit()
