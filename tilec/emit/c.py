"""The C emitter: `hw.cpu` functions (with arith / math / scf / vector ops) -> C source.

A printer only: every decision was made by the passes before. One SSA value is one C variable
(named after its name hint when it has one). Loops marked `tilec.simd` get
`#pragma omp simd` with a `reduction` clause per loop-carried value (`tilec.reduce`), so GCC and
Clang vectorize them; `hw.cpu.parallel_for` is `#pragma omp parallel for`. The entry function
(`tilec.entry`) returns 0, or 1 when a temporary could not be allocated. A function's C name is
`tilec.symbols.symbol(name)` (`@softmax` is `tilec_u_softmax`, never a libc / libm / libgomp
name or a keyword), with the IR name in a comment above its definition.

arith / math ops print through the table shared with the HIP printer (`cfamily.ARITH_TO_C`); what
is C's own is below (`CEmitter`'s class attributes): 64-bit `index` arithmetic left signed, and the
prelude's vectorizable float functions.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

from xdsl.dialects import arith, scf, vector
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from tilec.diagnostics import NotSupportedYet, op_location
from tilec.dialects.hw import PtrType
from tilec.dialects.hw import cpu as hwcpu
from tilec.emit.cfamily import C_KEYWORDS, C_LIBRARY_NAMES, CFamilyPrinter, half_bits, is_i1, scalar_ctype
from tilec.symbols import display, foreach_symbol, symbol

PRELUDE = (Path(__file__).parent / "c_prelude.h").read_text()

ENTRY_ATTR = "tilec.entry"
FOREACH_ATTR = "tilec.foreach"
FOREACH_CHUNK = 1 << 15  # elements of one list position per task of the CPU foreach wrapper


def c_type(t: Attribute) -> str:
    scalar = scalar_ctype(t, "int64_t")
    if scalar is not None:
        return scalar
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


class CEmitter(CFamilyPrinter):
    RESERVED = C_KEYWORDS | C_LIBRARY_NAMES
    LANGUAGE = "C"
    INDEX_BITS = 64
    # index arithmetic stays signed int64_t (no unsigned casts): the CPU lowering's indices and
    # offsets address arrays in memory, far from 2**63, and signed (non-wrapping) induction
    # variables and offsets are what lets GCC vectorize and strength-reduce the loops.
    WRAP_INDEX = False
    # f32 exp / log / tanh / erf are the prelude's branch-free versions, which GCC vectorizes in
    # `omp simd` loops (libm's are scalar calls, with errno); C has no rsqrt.
    FLOAT_FN_SPELLING = MappingProxyType(
        {
            "exp": ("tilec_expf", "exp"),
            "log": ("tilec_logf", "log"),
            "tanh": ("tilec_tanhf", "tanh"),
            "erf": ("tilec_erff", "erf"),
            "rsqrt": ("tilec_rsqrtf", "tilec_rsqrt"),
        }
    )

    def __init__(self, module: ModuleOp):
        super().__init__()
        self.module = module
        self.vector_types: dict[str, VectorType] = {}
        self.owned: dict[SSAValue, int] = {}  # an entry function's allocations -> their tilec_owned slot

    # --- names ----------------------------------------------------------------------------------

    def literal(self, op: arith.ConstantOp) -> str:
        val, t = op.value, op.result.type
        if isinstance(val, FloatAttr):
            x = val.value.data
            ft = c_type(t)
            if isinstance(t, Float16Type | BFloat16Type):  # stored as bits (uint16_t)
                return f"(({ft})0x{half_bits(x, t):04X})"
            if x != x:
                return f"(({ft})NAN)"
            if x in (float("inf"), float("-inf")):
                return f"(({ft}){'-' if x < 0 else ''}INFINITY)"
            lit = float(x).hex()
            return f"(({ft}){lit}{'f' if ft == 'float' else ''})"
        if isinstance(val, IntegerAttr):
            x = val.value.data
            if is_i1(t):
                return "true" if x else "false"
            ct = c_type(t)
            if x == -(2**63):
                return f"(({ct})INT64_MIN)"
            return f"(({ct}){x}LL)"
        raise NotSupportedYet(f"a constant of type {t} in C", op_location(op))

    # --- output ---------------------------------------------------------------------------------

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
            if ENTRY_ATTR in f.attributes and FOREACH_ATTR in f.attributes:
                body_lines += self.foreach(f) + [""]
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

    def foreach(self, f: hwcpu.FuncOp) -> list[str]:
        """The one-call form of an entry function over lists (`tilec.foreach`): every buffer
        parameter is a list element of run-time length (a pointer and its size); `ptrs[k * n + j]`
        is buffer k at position j, `sizes[j]` the length at position j (the same in every list);
        the scalars are passed through. The body is elementwise over the flattened element, so the
        entry function may run on any window of a position: the wrapper cuts every position into
        chunks of FOREACH_CHUNK elements and runs the (position, chunk) pairs on all cores
        (`omp parallel for`, dynamic schedule; serial below 2 chunks' worth of elements). A chunk
        finds its position by binary search over `first`, the cumulative chunk counts."""
        params, call, k = ["int64_t n", "void* const* restrict ptrs", "const int64_t* restrict sizes"], [], 0
        args = list(f.body.block.args)
        for i, a in enumerate(args):
            if isinstance(a.type, PtrType):
                call.append(f"({c_type(a.type.pointee)}*)ptrs[{k} * n + j] + start")
                k += 1
            elif i > 0 and isinstance(args[i - 1].type, PtrType) and isinstance(a.type, IndexType):
                call.append("len")  # the buffer's one dynamic size: the chunk's
            else:
                params.append(f"{self.ctype(a.type)} s{i}")
                call.append(f"s{i}")
        ch = FOREACH_CHUNK
        return [
            f"/* {display(f.sym_name.data)} over lists: one call for every position, (position, chunk) pairs on all cores */",
            f"int {foreach_symbol(f.sym_name.data)}({', '.join(params)}) {{",
            "  int64_t* first = (int64_t*)malloc((size_t)(n + 1) * sizeof(int64_t));",
            "  if (!first) return 1;",
            "  int64_t elems = 0;",
            "  first[0] = 0;",
            "  for (int64_t j = 0; j < n; j++) {",
            f"    first[j + 1] = first[j] + (sizes[j] + {ch - 1}) / {ch};",
            "    elems += sizes[j];",
            "  }",
            "  int status = 0;",
            f"#pragma omp parallel for schedule(dynamic, 1) reduction(|:status) if(elems >= {2 * ch})",
            "  for (int64_t c = 0; c < first[n]; c++) {",
            "    int64_t j = 0, hi = n - 1; /* the last position with first[j] <= c: c's (it is not empty) */",
            "    while (j < hi) {",
            "      int64_t mid = (j + hi + 1) / 2;",
            "      if (first[mid] <= c) j = mid; else hi = mid - 1;",
            "    }",
            f"    int64_t start = (c - first[j]) * {ch}, len = sizes[j] - start < {ch} ? sizes[j] - start : {ch};",
            f"    status |= {symbol(f.sym_name.data)}({', '.join(call)});",
            "  }",
            "  free(first);",
            "  return status;",
            "}",
        ]

    def signature(self, f: hwcpu.FuncOp) -> str:
        entry = ENTRY_ATTR in f.attributes
        params = ", ".join(f"{self.ctype(a.type)} {self.name(a)}" for a in f.body.block.args) or "void"
        head = "int" if entry else "static void"
        return f"{head} {symbol(f.sym_name.data)}({params})"

    def prototype(self, f: hwcpu.FuncOp) -> str:
        head = "int" if ENTRY_ATTR in f.attributes else "static void"
        params = ", ".join(self.ctype(a.type) for a in f.body.block.args) or "void"
        return f"{head} {symbol(f.sym_name.data)}({params});"

    def function(self, f: hwcpu.FuncOp) -> None:
        self.reset_names()
        self.entry = ENTRY_ATTR in f.attributes
        mallocs = [op.result for op in f.walk() if isinstance(op, hwcpu.MallocOp)] if self.entry else []
        self.owned = {v: i for i, v in enumerate(mallocs)}
        self.line(f"/* {display(f.sym_name.data)} */")
        self.line(self.signature(f) + " {")
        self.indent += 1
        if mallocs:  # one slot per allocation: a failed one frees what is alive (one line per site)
            self.line(f"void* tilec_owned[{len(mallocs)}] = {{0}};")
        self.block(f.body.block)
        self.indent -= 1
        self.line("}")

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
            cond = f" if({n(op.condition)})" if op.condition is not None else ""
            self.line(f"#pragma omp parallel for{collapse}{sched}{cond}")
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
            self.decl(
                op.result, f"({c_type(t.pointee)}*)tilec_alloc({n(op.count)} * (int64_t)sizeof({c_type(t.pointee)}))"
            )
            if self.entry:
                self.line(f"if (!{n(op.result)}) return tilec_fail(tilec_owned, {len(self.owned)});")
                self.line(f"tilec_owned[{self.owned[op.result]}] = {n(op.result)};")
            else:
                self.line(f"if (!{n(op.result)}) abort();")
            return
        if isinstance(op, hwcpu.AllocaOp):
            elt = c_type(op.result.type.pointee)
            self.line(f"{elt} {self.name(op.result)}[{op.count.data}] __attribute__((aligned({op.alignment.data})));")
            return
        if isinstance(op, hwcpu.FreeOp):
            self.line(f"free({n(op.ptr)});")
            if op.ptr in self.owned:
                self.line(f"tilec_owned[{self.owned[op.ptr]}] = NULL;")
            return
        if isinstance(op, hwcpu.CallOp):
            self.line(f"{symbol(op.callee.data)}({', '.join(n(a) for a in op.args)});")
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
        self.shared_op(op)

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

    def loop_pragmas(self, op: scf.ForOp) -> list[str]:
        if "tilec.simd" not in op.attributes:
            return []
        clauses = ""
        kinds = op.attributes.get("tilec.reduce")
        if kinds is not None:
            sym = {"add": "+", "mul": "*", "max": "max", "min": "min", "or": "|", "and": "&"}
            for r, kind in zip(op.results, kinds.data):
                clauses += f" reduction({sym[kind.data]}:{self.name(r)})"
        return [f"#pragma omp simd{clauses}"]

    def loop_var_type(self, iv: SSAValue) -> str:
        # always int64_t (HIP: the IV's own type): the CPU lowering's IVs are index, int64_t
        # anyway, and an int64_t counter holds every bound of a narrower IV
        return "int64_t"


def _elt_bytes(t: Attribute) -> int:
    from tilec.dialects.common import bitwidth

    return max(1, bitwidth(t) // 8)


def emit_c(module: ModuleOp, **options) -> str:
    if options:
        raise NotSupportedYet(f"C emitter options {sorted(options)}")
    return CEmitter(module).emit()
