"""The PTX emitter: `hw.nv.kernel`s (with arith / math / scf ops) -> PTX text.

A printer: one virtual register per SSA value (PTX has unlimited virtual registers; ptxas
allocates), structured control flow as labels and branches, constants materialized once at the
top of the kernel. Comments name the op each block came from. Register classes: %p (pred),
%rs (i8, i16), %h (f16, bf16), %r (32-bit int), %f (f32), %rd (64-bit int / index), %fd (f64).

Symbols (kernels, shared arrays) are printed as `tilec.symbols.symbol(name)`, with the IR name in a
comment next to the definition; the runtime looks the kernels up by the same function.

Integers follow MLIR's `arith` semantics, as the C and HIP printers (tilec/emit/cfamily.py):
- two's complement; add / sub / mul / absi wrap;
- i1 is a predicate: add / sub are `xor`, mul is `and`; its SIGNED value of true is -1, so
  maxsi is `and`, minsi `or`, the signed `cmpi` predicates reverse the 0 / 1 order, extsi /
  sitofp / index_cast of true give -1; trunci to i1 keeps the low bit;
- i8 lives in a 16-bit register, ALWAYS sign-extended (bits 8..15 copy bit 7): `ld.s8` and
  `ld.param.s8` load it so, and every op whose 16-bit result may leave the i8 range (add, sub,
  mul, shl, abs, the unsigned ops, truncation) is followed by `cvt.s16.s8`. The unsigned ops
  (divui, remui, minui, maxui, shrui, cmpi ult/ule/ugt/uge, extui) read the byte zero-extended;
- shift amounts are PTX's u32, read as the unsigned amount of the shift's width (an i64 amount is
  clamped to 64 before it is narrowed); PTX clamps an amount >= the register width, so an amount
  >= the width gives 0 (shli, shrui) or the sign fill (shrsi): the defined result the C and HIP
  printers chose (arith: poison);
- fptosi truncates and saturates to the destination range (PTX's float -> int `cvt`), NaN -> 0
  (`cvt` gives that from f32 to at most 32 bits; from f64 and to i64 a NaN is selected to 0).
Integer ops on other types (i4, i128, ...), uitofp / fptoui / ceildivsi and the other arith ops
raise NotSupportedYet, as do float forms PTX has not (max.NaN.f64, div / sqrt on f16 and bf16).
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from types import MappingProxyType

from xdsl.dialects import arith, math, scf
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
    NameLoc,
    StringAttr,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from tilec.diagnostics import NotSupportedYet, SourceLocation, op_location
from tilec.dialects.hw import PtrToIntOp, PtrType, nv
from tilec.symbols import comment_text, display, symbol

PTX_VERSION = "8.0"
DSMEM = "tilec_dsmem"
PARAM = "tilec_param_"
"""The parameters of every entry are tilec_param_0, 1, ...: names of tilec's own, which no symbol
(tilec_u_...) nor shared array can take."""


def reg_class(t: Attribute) -> tuple[str, str]:
    """(register prefix, PTX register type) for an IR type."""
    if isinstance(t, IntegerType):
        w = t.width.data
        if w == 1:
            return "p", "pred"
        if w in (8, 16):
            return "rs", "b16"
        if w == 32:
            return "r", "b32"
        if w == 64:
            return "rd", "b64"
        raise NotSupportedYet(f"PTX registers of type {t}")
    if isinstance(t, IndexType | PtrType | nv.TensorMapType):
        return "rd", "b64"
    if isinstance(t, Float16Type | BFloat16Type):
        return "h", "b16"
    if isinstance(t, Float32Type):
        return "f", "f32"
    if isinstance(t, Float64Type):
        return "fd", "f64"
    raise NotSupportedYet(f"PTX registers of type {t}")


def ityp(t: Attribute, signed: bool = True) -> str:
    """Instruction type suffix for integer/float ops."""
    if isinstance(t, IndexType):
        return "s64" if signed else "u64"
    if isinstance(t, IntegerType):
        w = t.width.data
        if w == 1:
            return "pred"
        w = max(w, 16)
        return f"{'s' if signed else 'u'}{w}"
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, Float64Type):
        return "f64"
    if isinstance(t, Float16Type):
        return "f16"
    if isinstance(t, BFloat16Type):
        return "bf16"
    raise NotSupportedYet(f"PTX instructions on {t}")


def btyp(t: Attribute) -> str:
    """Untyped bit-size suffix (b16/b32/b64) or f32/f64 for moves, loads and stores."""
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, Float64Type):
        return "f64"
    if isinstance(t, Float16Type | BFloat16Type):
        return "b16"
    if isinstance(t, IntegerType):
        w = t.width.data
        return "b16" if w in (8, 16) else f"b{w}"
    return "b64"


def _mem_type(t: Attribute) -> str:
    if isinstance(t, IntegerType) and t.width.data == 8:
        return "s8"
    return btyp(t)


def float_imm(value: float, t: Attribute) -> str:
    """A float immediate: 0d / 0f hex for f64 / f32; 16-bit floats as their bits (0x...: PTX has
    no f16 literal, and a b16 move takes an integer)."""
    if isinstance(t, Float64Type):
        return "0d" + struct.pack(">d", value).hex().upper()
    if isinstance(t, Float16Type):
        return "0x" + struct.pack(">e", value).hex().upper()
    if isinstance(t, BFloat16Type):
        bits = struct.unpack(">I", struct.pack(">f", value))[0]
        if value != value:  # NaN: a quiet NaN
            return "0x7FC0"
        return f"0x{(bits + 0x7FFF + ((bits >> 16) & 1)) >> 16:04X}"  # round to nearest even
    return "0f" + struct.pack(">f", value).hex().upper()


class PtxEmitter:
    def __init__(self, module: ModuleOp):
        self.module = module
        self.labels = 0

    def emit(self) -> str:
        kernels = [op for op in self.module.body.block.ops if isinstance(op, nv.KernelOp)]
        sms = {k.sm.data for k in kernels}
        if not kernels:  # lowered, with nothing to launch: a module of no entries for its target
            target = self.module.attributes.get(nv.MODULE_SM_ATTR)
            if not isinstance(target, StringAttr):
                raise NotSupportedYet("PTX emission of a module without hw.nv kernels (run -p lower-to-ptx first)")
            sms = {target.data}
        if len(sms) != 1:
            raise NotSupportedYet(f"one PTX module for several targets ({', '.join(sorted(sms))})")
        out = [
            "// generated by tilec: PTX for NVIDIA GPUs (hw.nv level)",
            f".version {PTX_VERSION}",
            f".target {sms.pop()}",
            ".address_size 64",
            "",
        ]
        if any(k.smem is not None for k in kernels):
            align = max([k.smem_align.data if k.smem_align is not None else 16 for k in kernels] + [128])
            out.append(f".extern .shared .align {align} .b8 {DSMEM}[];")
            out.append("")
        for k in kernels:
            out += self.kernel(k)
            out.append("")
        return "\n".join(out)

    # --- registers ------------------------------------------------------------------------------

    def reg(self, v: SSAValue) -> str:
        if v in self.regs:
            return self.regs[v]
        prefix, rtype = reg_class(v.type)
        n = self.counts.get(prefix, 0) + 1
        self.counts[prefix] = n
        self.rtypes[prefix] = rtype
        name = f"%{prefix}{n}"
        self.regs[v] = name
        return name

    def alias(self, v: SSAValue, same_as: SSAValue) -> None:
        self.regs[v] = self.reg(same_as)

    def kernel(self, k: nv.KernelOp) -> list[str]:
        self.regs: dict[SSAValue, str] = {}
        self.counts: dict[str, int] = {}
        self.rtypes: dict[str, str] = {}
        self.body: list[str] = []
        self.last_origin = ""
        name = symbol(k.sym_name.data)
        params = []
        for i, a in enumerate(k.body.block.args):
            t = a.type
            if isinstance(t, nv.TensorMapType):  # by value; its generic address is the TMA operand
                params.append(f"  .param .align 64 .b8 {PARAM}{i}[128]")
                self.line(f"mov.u64 {self.reg(a)}, {PARAM}{i};")
                self.line(f"cvta.param.u64 {self.reg(a)}, {self.reg(a)};")
                continue
            ptype = "u64" if isinstance(t, PtrType) or isinstance(t, IndexType) else _param_type(t)
            params.append(f"  .param .{ptype} {PARAM}{i}")
            r = self.reg(a)
            ld_t = "u64" if isinstance(t, PtrType) else ptype
            self.line(f"ld.param.{ld_t} {r}, [{PARAM}{i}];")
        self.block(k.body.block)
        head = [f"// {display(k.sym_name.data)}", f".visible .entry {name}(", ",\n".join(params), ")"]
        if k.maxntid is not None:
            dims = list(k.maxntid.iter_values())
            head.append(f".maxntid {', '.join(str(d) for d in dims)}")
        if k.minnctapersm is not None:
            head.append(f".minnctapersm {k.minnctapersm.data}")
        head.append("{")
        decls = [f"  .reg .{self.rtypes[p]} %{p}<{n + 1}>;" for p, n in sorted(self.counts.items())]
        for s in k.shared_arrays():
            decls.append(
                f"  .shared .align {s.alignment.data} .b8 {symbol(s.sym_name.data)}[{s.size.data}];  // {display(s.sym_name.data)}"
            )
        return head + decls + [""] + self.body + ["}"]

    def line(self, text: str) -> None:
        self.body.append("  " + text)

    def label(self, stem: str) -> str:
        self.labels += 1
        return f"$L_{stem}_{self.labels}"

    def block(self, block: Block) -> None:
        for op in block.ops:
            self.op(op)

    # --- ops --------------------------------------------------------------------------------------

    def op(self, op: Operation) -> None:
        loc = op.location
        if isinstance(loc, NameLoc) and loc.desc.data != self.last_origin:
            self.last_origin = loc.desc.data
            where = SourceLocation.from_attr(loc)
            self.line("// " + comment_text(loc.desc.data + (f" ({where})" if where else "")))
        r = self.reg
        if isinstance(op, arith.ConstantOp):
            self.constant(op)
            return
        if isinstance(op, nv.ReturnOp):
            self.line("ret;")
            return
        if isinstance(op, nv.SharedOp):
            return  # declared in the kernel header
        if isinstance(op, PtrToIntOp):
            self.line(f"cvta.to.global.u64 {r(op.results[0])}, {r(op.operands[0])};")
            return
        if isinstance(op, nv.SregOp):
            self.line(f"mov.u32 {r(op.results[0])}, %{op.reg.data};")
            return
        if isinstance(op, nv.DynamicSharedAddrOp):
            self.line(f"mov.u32 {r(op.results[0])}, {DSMEM};")
            return
        if isinstance(op, nv.SharedAddrOp):
            self.line(f"mov.u32 {r(op.results[0])}, {symbol(op.symbol.root_reference.data)};")
            return
        if isinstance(op, nv.LdOp):
            vals = list(op.values)
            t = _mem_type(vals[0].type)
            vec = f".v{len(vals)}" if len(vals) > 1 else ""
            regs = "{" + ", ".join(r(v) for v in vals) + "}" if len(vals) > 1 else r(vals[0])
            nc = ".nc" if op.nc is not None else ""
            cache = f".{op.cache.data}" if op.cache is not None else ""
            sem = f".{op.sem.data}.gpu" if op.sem is not None else ""
            off = f"+{op.offset.data}" if op.offset.data else ""
            self.line(f"ld{sem}.{op.space.data}{nc}{cache}{vec}.{t} {regs}, [{r(op.addr)}{off}];")
            return
        if isinstance(op, nv.StOp):
            vals = list(op.values)
            t = _mem_type(vals[0].type)
            vec = f".v{len(vals)}" if len(vals) > 1 else ""
            regs = "{" + ", ".join(r(v) for v in vals) + "}" if len(vals) > 1 else r(vals[0])
            cache = f".{op.cache.data}" if op.cache is not None else ""
            sem = f".{op.sem.data}.gpu" if op.sem is not None else ""
            off = f"+{op.offset.data}" if op.offset.data else ""
            self.line(f"st{sem}.{op.space.data}{cache}{vec}.{t} [{r(op.addr)}{off}], {regs};")
            return
        if isinstance(op, nv.AtomAddOp):
            off = f"+{op.offset.data}" if op.offset.data else ""
            self.line(f"atom.global.add.{op.type.data} {r(op.result)}, [{r(op.addr)}{off}], {r(op.value)};")
            return
        if isinstance(op, nv.RedAddOp):
            off = f"+{op.offset.data}" if op.offset.data else ""
            self.line(f"red.global.add.{op.type.data} [{r(op.addr)}{off}], {r(op.value)};")
            return
        if isinstance(op, nv.ShflOp):
            lane_s = r(op.lane_reg) if op.lane_reg is not None else str(op.lane.data)
            clamp = 0 if op.mode.data == "up" else 31
            self.line(
                f"shfl.sync.{op.mode.data}.b32 {r(op.result)}, {r(op.value)}, {lane_s}, {clamp}, {op.member_mask.data:#x};"
            )
            return
        if isinstance(op, nv.BarSyncOp):
            extra = f", {op.threads.data}" if op.threads is not None else ""
            self.line(f"bar.sync {op.barrier.data}{extra};")
            return
        if isinstance(op, nv.BarWarpSyncOp):
            self.line("bar.warp.sync 0xffffffff;")
            return
        if isinstance(op, nv.MathOp):
            t = ityp(op.result.type)
            ftz = ".ftz" if op.ftz is not None else ""
            self.line(f"{op.fn.data}.{op.rounding.data}{ftz}.{t} {r(op.result)}, {r(op.operand)};")
            return
        if isinstance(op, nv.MulWideOp):
            self.line(f"mul.wide.u32 {r(op.result)}, {r(op.lhs)}, {r(op.rhs)};")
            return
        if isinstance(op, nv.PackOp):
            self.line(f"mov.b32 {r(op.results[0])}, {{{r(op.operands[0])}, {r(op.operands[1])}}};")
            return
        if isinstance(op, nv.UnpackOp):
            lo, hi = op.results
            self.line(f"mov.b32 {{{r(lo)}, {r(hi)}}}, {r(op.operands[0])};")
            return
        if isinstance(op, scf.ForOp):
            self.for_loop(op)
            return
        if isinstance(op, scf.IfOp):
            self.if_op(op)
            return
        if isinstance(op, scf.WhileOp):
            self.while_loop(op)
            return
        from tilec.emit.ptx_mma import emit_mma_op

        if emit_mma_op(self, op):
            return
        if isinstance(op, arith.BitcastOp):
            self.bitcast(op)
            return
        if not self.arith(op):
            raise NotSupportedYet(f"PTX emission of {op.name}", op_location(op))

    def bitcast(self, op: arith.BitcastOp) -> None:
        """The same bits in another register class: one `mov` (16, 32 or 64 bits)."""
        src, dst = op.operands[0].type, op.results[0].type
        w = _bits(src)
        if w not in (16, 32, 64) or _bits(dst) != w:
            raise NotSupportedYet(f"PTX emission of {op.name} from {src} to {dst}", op_location(op))
        self.line(f"mov.b{w} {self.reg(op.results[0])}, {self.reg(op.operands[0])};")

    def constant(self, op: arith.ConstantOp) -> None:
        v, t = op.value, op.result.type
        d = self.reg(op.result)
        if isinstance(v, FloatAttr):
            self.line(f"mov.{btyp(t)} {d}, {float_imm(v.value.data, t)};")
        elif isinstance(v, IntegerAttr):
            w = _int_width(t)
            if w is None:
                raise NotSupportedYet(f"PTX constants of type {t}", op_location(op))
            x = v.value.data % (1 << w)  # the bits; as a signed value (i8: sign-extended, the invariant)
            x = x - (1 << w) if x >> (w - 1) else x
            if w == 1:
                self.line(f"setp.ne.u32 {d}, {1 if x else 0}, 0;")
            elif x == -(1 << 63):
                self.line(f"mov.b64 {d}, 0x8000000000000000;")
            else:
                self.line(f"mov.b{_reg_bits(w)} {d}, {x};")
        else:
            raise NotSupportedYet(f"PTX constants like {v}", op_location(op))

    def moves(self, targets: list[SSAValue], values: list[SSAValue]) -> None:
        pairs = [(t, v) for t, v in zip(targets, values) if self.reg(t) != self.reg(v)]
        if len(pairs) > 1:
            temps = []
            for t, v in pairs:
                tmp = self.fresh(t.type)
                self.mov(tmp, self.reg(v), t.type)
                temps.append((t, tmp))
            for t, tmp in temps:
                self.mov(self.reg(t), tmp, t.type)
        else:
            for t, v in pairs:
                self.mov(self.reg(t), self.reg(v), t.type)

    def fresh(self, t: Attribute) -> str:
        prefix, rtype = reg_class(t)
        n = self.counts.get(prefix, 0) + 1
        self.counts[prefix] = n
        self.rtypes[prefix] = rtype
        return f"%{prefix}{n}"

    def mov(self, dst: str, src: str, t: Attribute) -> None:
        if isinstance(t, IntegerType) and t.width.data == 1:
            self.line(f"mov.pred {dst}, {src};")
        else:
            self.line(f"mov.{btyp(t) if not isinstance(t, IndexType) else 'b64'} {dst}, {src};")

    def for_loop(self, op: scf.ForOp) -> None:
        body = op.body.block
        iv, carried = body.args[0], list(body.args[1:])
        if _int_width(iv.type) in (None, 1):
            raise NotSupportedYet(f"PTX emission of an scf.for over {iv.type}", op_location(op))
        results = list(op.results)
        for res, c in zip(results, carried):
            self.alias(c, res)
        self.line("// scf.for")
        self.mov(self.reg(iv), self.reg(op.lb), iv.type)
        for res, init in zip(results, op.iter_args):
            self.mov(self.reg(res), self.reg(init), res.type)
        head, end = self.label("for"), self.label("endfor")
        p = self.fresh(IntegerType(1))
        self.body.append(f"{head}:")
        self.line(f"setp.ge.{ityp(iv.type)} {p}, {self.reg(iv)}, {self.reg(op.ub)};")
        self.line(f"@{p} bra {end};")
        y = body.last_op
        for o in body.ops:
            if o is not y:
                self.op(o)
        assert isinstance(y, scf.YieldOp)
        self.moves(results, list(y.operands))
        self.line(f"add.{ityp(iv.type)} {self.reg(iv)}, {self.reg(iv)}, {self.reg(op.step)};")
        if _int_width(iv.type) == 8:
            self.sext8(self.reg(iv))
        self.line(f"bra {head};")
        self.body.append(f"{end}:")

    def while_loop(self, op: scf.WhileOp) -> None:
        """`scf.while`: the `before` block's arguments and the results (which the `after` block's
        arguments alias) are registers; `scf.condition` moves its values into the results and
        leaves when false, `scf.yield` moves its values into the `before` arguments."""
        before, after = op.before_region.block, op.after_region.block
        results = list(op.res)
        for res, a in zip(results, after.args):
            self.alias(a, res)
        self.line("// scf.while")
        self.moves(list(before.args), list(op.arguments))
        head, end = self.label("while"), self.label("endwhile")
        self.body.append(f"{head}:")
        cond = before.last_op
        assert isinstance(cond, scf.ConditionOp)
        for o in before.ops:
            if o is not cond:
                self.op(o)
        self.moves(results, list(cond.args))
        self.line(f"@!{self.reg(cond.condition)} bra {end};")
        y = after.last_op
        assert isinstance(y, scf.YieldOp)
        for o in after.ops:
            if o is not y:
                self.op(o)
        self.moves(list(before.args), list(y.operands))
        self.line(f"bra {head};")
        self.body.append(f"{end}:")

    def if_op(self, op: scf.IfOp) -> None:
        results = list(op.results)
        els, end = self.label("else"), self.label("endif")
        self.line("// scf.if")
        self.line(f"@!{self.reg(op.cond)} bra {els};")
        self._branch(op.true_region.block, results)
        self.line(f"bra {end};")
        self.body.append(f"{els}:")
        if op.false_region.blocks:
            self._branch(op.false_region.block, results)
        self.body.append(f"{end}:")

    def _branch(self, block: Block, results) -> None:
        y = block.last_op
        for o in block.ops:
            if o is not y:
                self.op(o)
        if isinstance(y, scf.YieldOp) and results:
            self.moves(results, list(y.operands))

    # --- arith ------------------------------------------------------------------------------------

    def arith(self, op: Operation) -> bool:
        if not op.results:
            return False
        if self.int_op(op):
            return True
        r = self.reg
        ops = op.operands
        d = r(op.results[0])
        t = op.results[0].type
        fl = {
            arith.AddfOp: "add",
            arith.SubfOp: "sub",
            arith.MulfOp: "mul",
            arith.DivfOp: "div.rn",
            arith.MaximumfOp: "max.NaN",
            arith.MinimumfOp: "min.NaN",
            arith.MaxnumfOp: "max",
            arith.MinnumfOp: "min",
        }
        for cls, name in fl.items():
            if isinstance(op, cls):
                if isinstance(op, arith.MaximumfOp | arith.MinimumfOp) and isinstance(t, Float64Type):
                    # PTX has no max.NaN.f64: max.f64 ignores a NaN, so NaN is put back (a + b)
                    nan, s = self.fresh(i1), self.fresh(t)
                    self.line(f"{name.split('.')[0]}.f64 {d}, {r(ops[0])}, {r(ops[1])};")
                    self.line(f"setp.nan.f64 {nan}, {r(ops[0])}, {r(ops[1])};")
                    self.line(f"add.f64 {s}, {r(ops[0])}, {r(ops[1])};")
                    self.line(f"selp.f64 {d}, {s}, {d}, {nan};")
                    return True
                if isinstance(op, arith.DivfOp) and isinstance(t, Float16Type | BFloat16Type):
                    raise NotSupportedYet(f"PTX emission of {op.name} on {t} (extend it to f32 first)", op_location(op))
                self.line(f"{name}.{ityp(t)} {d}, {r(ops[0])}, {r(ops[1])};")
                return True
        if isinstance(op, arith.NegfOp):
            self.line(f"neg.{ityp(t)} {d}, {r(ops[0])};")
            return True
        if isinstance(op, math.AbsFOp):
            self.line(f"abs.{ityp(t)} {d}, {r(ops[0])};")
            return True
        rounding = ROUNDING_CVT.get(type(op))
        if rounding is not None:
            if not isinstance(t, Float32Type | Float64Type):
                raise NotSupportedYet(f"PTX emission of {op.name} on {t} (extend it to f32 first)", op_location(op))
            self.line(f"cvt.{rounding}.{ityp(t)}.{ityp(t)} {d}, {r(ops[0])};")
            return True
        if isinstance(op, math.SqrtOp):
            if isinstance(t, Float16Type | BFloat16Type):
                raise NotSupportedYet(f"PTX emission of {op.name} on {t} (extend it to f32 first)", op_location(op))
            self.line(f"sqrt.rn.{ityp(t)} {d}, {r(ops[0])};")
            return True
        if isinstance(op, arith.CmpfOp):
            pred = [
                "false",
                "eq",
                "gt",
                "ge",
                "lt",
                "le",
                "ne",
                "num",
                "equ",
                "gtu",
                "geu",
                "ltu",
                "leu",
                "neu",
                "nan",
                "true",
            ][op.predicate.value.data]
            if pred in ("false", "true"):
                self.line(f"setp.{'ne' if pred == 'true' else 'eq'}.u32 {d}, 1, 0;")
            else:
                self.line(f"setp.{pred}.{ityp(ops[0].type)} {d}, {r(ops[0])}, {r(ops[1])};")
            return True
        if isinstance(op, arith.SelectOp):
            if is_i1(t):
                a, b = self.fresh(t), self.fresh(t)
                self.line(f"and.pred {a}, {r(ops[0])}, {r(ops[1])};")
                self.line(f"not.pred {b}, {r(ops[0])};")
                self.line(f"and.pred {b}, {b}, {r(ops[2])};")
                self.line(f"or.pred {d}, {a}, {b};")
            else:
                st = (
                    ityp(t)
                    if isinstance(t, Float32Type | Float64Type)
                    else (btyp(t) if not isinstance(t, IndexType) else "b64")
                )
                if isinstance(t, Float16Type | BFloat16Type):
                    st = "b16"
                self.line(f"selp.{st} {d}, {r(ops[1])}, {r(ops[2])}, {r(ops[0])};")
            return True
        if isinstance(op, arith.ExtFOp):
            src = ops[0].type
            if isinstance(src, BFloat16Type):
                u = self.fresh(IntegerType(32))
                self.line(f"cvt.u32.u16 {u}, {r(ops[0])};")
                self.line(f"shl.b32 {u}, {u}, 16;")
                if isinstance(t, Float32Type):
                    self.line(f"mov.b32 {d}, {u};")
                else:
                    f = self.fresh(Float32Type())
                    self.line(f"mov.b32 {f}, {u};")
                    self.line(f"cvt.f64.f32 {d}, {f};")
            else:
                self.line(f"cvt.{ityp(t)}.{ityp(src)} {d}, {r(ops[0])};")
            return True
        if isinstance(op, arith.TruncFOp):
            self.line(f"cvt.rn.{ityp(t)}.{ityp(ops[0].type)} {d}, {r(ops[0])};")
            return True
        return False

    # --- integer arith (module docstring: i1 in predicates, i8 sign-extended in 16 bits) -------------

    def int_op(self, op: Operation) -> bool:
        """Print an integer arith / math op (INT_OPS); False if `op` is not one."""
        rule = next((INT_OPS[c] for c in type(op).__mro__ if c in INT_OPS), None)
        if rule is None:
            return False
        for v in [*op.operands, *op.results]:
            if _int_width(v.type) is None and not isinstance(op, arith.SIToFPOp | arith.FPToSIOp):
                raise NotSupportedYet(f"PTX emission of {op.name} on {v.type}", op_location(op))
        method, *args = rule
        method(self, op, *args)
        return True

    def zext8(self, v: SSAValue) -> str:
        """An i8 value zero-extended into a fresh 16-bit register (the unsigned reading)."""
        z = self.fresh(v.type)
        self.line(f"cvt.u16.u8 {z}, {self.reg(v)};")
        return z

    def sext8(self, d: str) -> None:
        """Restore the i8 invariant of register `d`: bits 8..15 copy bit 7."""
        self.line(f"cvt.s16.s8 {d}, {d};")

    def i1_false(self, d: str) -> None:
        self.line(f"setp.ne.u32 {d}, 0, 0;")

    def signed_binary(self, op: Operation, name: str, on_i1: str) -> None:
        """add / sub / mul.lo / div / rem / max / min on the signed values; i8 wraps in 8 bits."""
        a, b = (self.reg(v) for v in op.operands)
        d, t = self.reg(op.results[0]), op.results[0].type
        w = _int_width(t)
        if w == 1:
            self.i1_binary(d, a, b, on_i1)
            return
        self.line(f"{name}.s{_reg_bits(w)} {d}, {a}, {b};")
        if w == 8 and name in ("add", "sub", "mul.lo"):
            self.sext8(d)

    def unsigned_binary(self, op: Operation, name: str, on_i1: str) -> None:
        """div / rem / max / min on the unsigned values (i8: on the zero-extended byte)."""
        x, y = op.operands
        d, t = self.reg(op.results[0]), op.results[0].type
        w = _int_width(t)
        if w == 1:
            self.i1_binary(d, self.reg(x), self.reg(y), on_i1)
            return
        if w == 8:
            self.line(f"{name}.u16 {d}, {self.zext8(x)}, {self.zext8(y)};")
            self.sext8(d)
            return
        self.line(f"{name}.u{w} {d}, {self.reg(x)}, {self.reg(y)};")

    def i1_binary(self, d: str, a: str, b: str, how: str) -> None:
        """An i1 op as predicate logic: `how` is and / or / xor, `lhs` (the value of a), `false`,
        or `andn` (a and not b)."""
        if how == "lhs":
            self.line(f"mov.pred {d}, {a};")
        elif how == "false":
            self.i1_false(d)
        elif how == "andn":
            nb = self.fresh(IntegerType(1))
            self.line(f"not.pred {nb}, {b};")
            self.line(f"and.pred {d}, {a}, {nb};")
        else:
            self.line(f"{how}.pred {d}, {a}, {b};")

    def bitwise(self, op: Operation, name: str) -> None:
        a, b = (self.reg(v) for v in op.operands)
        d, w = self.reg(op.results[0]), _int_width(op.results[0].type)
        self.line(f"{name}.{'pred' if w == 1 else f'b{_reg_bits(w)}'} {d}, {a}, {b};")

    def shift_amount(self, v: SSAValue, w: int) -> str:
        """The amount of a w-bit shift as PTX's u32 operand: the amount read unsigned, clamped to w
        (PTX clamps a u32 amount to the register width; a 64-bit amount must not be truncated)."""
        owner = v.owner
        if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
            return str(min(owner.value.value.data % (1 << w), w))
        if w == 32:
            return self.reg(v)
        amt = self.fresh(IntegerType(32))
        if w == 64:
            c = self.fresh(IndexType())
            self.line(f"min.u64 {c}, {self.reg(v)}, 64;")
            self.line(f"cvt.u32.u64 {amt}, {c};")
        else:
            self.line(f"cvt.u32.u{w} {amt}, {self.reg(v)};")
        return amt

    def shift(self, op: Operation, kind: str) -> None:
        """shli / shrui / shrsi, defined for every amount as in the C and HIP printers (cfamily):
        an amount >= the width (read unsigned) gives 0 (shli, shrui) or the sign fill (shrsi)."""
        x, s = op.operands
        d, w = self.reg(op.results[0]), _int_width(op.results[0].type)
        if w == 1:  # a shift by 1 (true) is >= the width
            self.i1_binary(d, self.reg(x), self.reg(s), "lhs" if kind == "shrsi" else "andn")
            return
        amt = self.shift_amount(s, w)
        bits = _reg_bits(w)
        if kind == "shli":
            self.line(f"shl.b{bits} {d}, {self.reg(x)}, {amt};")
        elif kind == "shrsi":  # i8: the sign-extended byte shifts its sign in
            self.line(f"shr.s{bits} {d}, {self.reg(x)}, {amt};")
        else:  # i8: the zero-extended byte; >= 8 gives 0
            self.line(f"shr.u{bits} {d}, {self.zext8(x) if w == 8 else self.reg(x)}, {amt};")
        if w == 8 and kind != "shrsi":
            self.sext8(d)

    def cmpi(self, op: arith.CmpiOp) -> None:
        pred = CMPI_NAMES[op.predicate.value.data]
        x, y = op.lhs, op.rhs
        d, w = self.reg(op.result), _int_width(x.type)
        if w == 1:
            # i1 compares as 0 / 1 unsigned; signed, true is -1 (the order reverses)
            a, b = self.reg(x), self.reg(y)
            if pred in ("eq", "ne"):
                self.line(f"xor.pred {d}, {a}, {b};")
                if pred == "eq":
                    self.line(f"not.pred {d}, {d};")
                return
            less = pred in ("ult", "ule", "sgt", "sge")  # a < b as 0 / 1
            lo, hi = (a, b) if less else (b, a)  # lo < hi: not lo and hi; lo <= hi: not lo or hi
            n = self.fresh(IntegerType(1))
            self.line(f"not.pred {n}, {lo};")
            self.line(f"{'and' if pred[1:] in ('lt', 'gt') else 'or'}.pred {d}, {n}, {hi};")
            return
        name = {
            "eq": "eq",
            "ne": "ne",
            "slt": "lt",
            "sle": "le",
            "sgt": "gt",
            "sge": "ge",
            "ult": "lo",
            "ule": "ls",
            "ugt": "hi",
            "uge": "hs",
        }[pred]
        bits = _reg_bits(w)
        if pred in ("eq", "ne"):
            self.line(f"setp.{name}.b{bits} {d}, {self.reg(x)}, {self.reg(y)};")
        elif pred[0] == "s":
            self.line(f"setp.{name}.s{bits} {d}, {self.reg(x)}, {self.reg(y)};")
        elif w == 8:
            self.line(f"setp.{name}.u16 {d}, {self.zext8(x)}, {self.zext8(y)};")
        else:
            self.line(f"setp.{name}.u{bits} {d}, {self.reg(x)}, {self.reg(y)};")

    def absi(self, op: Operation) -> None:
        a, d, w = self.reg(op.operands[0]), self.reg(op.results[0]), _int_width(op.results[0].type)
        if w == 1:  # |true| = |-1| = 1, which is true again in one bit
            self.line(f"mov.pred {d}, {a};")
            return
        self.line(f"abs.s{_reg_bits(w)} {d}, {a};")  # abs(INT_MIN) = INT_MIN
        if w == 8:
            self.sext8(d)

    def resize(self, op: Operation) -> None:
        """extsi / trunci / index_cast: sign-extend or keep the low bits (to i1: the low bit; from
        i1: true is -1)."""
        src, dst = _int_width(op.operands[0].type), _int_width(op.results[0].type)
        a, d = self.reg(op.operands[0]), self.reg(op.results[0])
        if src == dst:
            self.line(f"mov.{'pred' if src == 1 else f'b{_reg_bits(src)}'} {d}, {a};")
        elif src == 1:
            self.line(f"selp.b{_reg_bits(dst)} {d}, -1, 0, {a};")
        elif dst == 1:
            low = self.fresh(op.operands[0].type)
            self.line(f"and.b{_reg_bits(src)} {low}, {a}, 1;")
            self.line(f"setp.ne.b{_reg_bits(src)} {d}, {low}, 0;")
        elif dst == 8:  # the low byte, sign-extended (the i8 invariant)
            self.line(f"cvt.s16.s8 {d}, {a};")
        elif src < dst:  # an i8 source is sign-extended in 16 bits already
            self.line(f"cvt.s{dst}.s{_reg_bits(src)} {d}, {a};")
        else:
            self.line(f"cvt.u{dst}.u{src} {d}, {a};")

    def extui(self, op: Operation) -> None:
        src, dst = _int_width(op.operands[0].type), _int_width(op.results[0].type)
        a, d = self.reg(op.operands[0]), self.reg(op.results[0])
        if src == 1:
            self.line(f"selp.u{_reg_bits(dst)} {d}, 1, 0, {a};")
        elif dst == 16 and src == 8:
            self.line(f"cvt.u16.u8 {d}, {a};")
        else:  # an i8 source: its byte, not the sign-extended register
            self.line(f"cvt.u{dst}.u{src} {d}, {a};")

    def sitofp(self, op: Operation) -> None:
        t, src = op.results[0].type, _int_width(op.operands[0].type)
        a, d = self.reg(op.operands[0]), self.reg(op.results[0])
        if not isinstance(t, Float32Type | Float64Type) or src is None:
            raise NotSupportedYet(f"PTX emission of {op.name} to {t} (convert to f32 or f64 first)", op_location(op))
        if src == 1:  # signed, true is -1
            self.line(f"selp.{ityp(t)} {d}, {float_imm(-1.0, t)}, {float_imm(0.0, t)}, {a};")
        else:
            self.line(f"cvt.rn.{ityp(t)}.s{_reg_bits(src)} {d}, {a};")

    def fptosi(self, op: Operation) -> None:
        """Truncating, saturating (PTX's float -> int cvt clamps to the destination's range), NaN -> 0:
        as the C and HIP preludes' tilec_f32_to_i32."""
        src, w = op.operands[0].type, _int_width(op.results[0].type)
        if not isinstance(src, Float32Type | Float64Type) or w is None or w == 1:
            raise NotSupportedYet(f"PTX emission of {op.name} from {src} to {op.results[0].type}", op_location(op))
        a, d = self.reg(op.operands[0]), self.reg(op.results[0])
        # to i8: .s8 saturates to [-128, 127] and sign-extends into the 16-bit register
        self.line(f"cvt.rzi.s{w}.{ityp(src)} {d}, {a};")
        if isinstance(src, Float64Type) or w == 64:
            # from f64, and to i64, cvt gives INT_MIN for NaN (f32 -> i8 .. i32 gives 0; seen on an H200)
            nan = self.fresh(IntegerType(1))
            self.line(f"setp.nan.{ityp(src)} {nan}, {a}, {a};")
            self.line(f"selp.b{_reg_bits(w)} {d}, 0, {d}, {nan};")


def is_i1(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


def _int_width(t: Attribute) -> int | None:
    """The width of an integer type the printer handles (i1, i8, i16, i32, i64; index is 64), or None."""
    if isinstance(t, IndexType):
        return 64
    if isinstance(t, IntegerType) and t.width.data in (1, 8, 16, 32, 64):
        return t.width.data
    return None


def _bits(t: Attribute) -> int | None:
    """The width of a scalar integer or float type, or None."""
    if isinstance(t, Float16Type | BFloat16Type):
        return 16
    if isinstance(t, Float32Type):
        return 32
    if isinstance(t, Float64Type):
        return 64
    return t.width.data if isinstance(t, IntegerType) else None


def _reg_bits(w: int) -> int:
    """The register width of a w-bit integer (i8 lives in a 16-bit register)."""
    return max(16, w)


ROUNDING_CVT: Mapping[type[Operation], str] = MappingProxyType(
    {math.FloorOp: "rmi", math.CeilOp: "rpi", math.RoundEvenOp: "rni", math.TruncOp: "rzi"}
)
"""Float rounding to an integral value: the `cvt` rounding modifier (f32 and f64)."""


CMPI_NAMES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")

INT_OPS: Mapping[type[Operation], tuple] = MappingProxyType(
    {
        # (printer method, its arguments): the name of the PTX instruction and the i1 form
        arith.AddiOp: (PtxEmitter.signed_binary, "add", "xor"),  # i1: addition mod 2
        arith.SubiOp: (PtxEmitter.signed_binary, "sub", "xor"),
        arith.MuliOp: (PtxEmitter.signed_binary, "mul.lo", "and"),
        arith.DivSIOp: (PtxEmitter.signed_binary, "div", "lhs"),  # i1: defined only for a / -1, a = 0
        arith.RemSIOp: (PtxEmitter.signed_binary, "rem", "false"),
        arith.MaxSIOp: (PtxEmitter.signed_binary, "max", "and"),  # i1: true (-1) is the smaller
        arith.MinSIOp: (PtxEmitter.signed_binary, "min", "or"),
        arith.DivUIOp: (PtxEmitter.unsigned_binary, "div", "lhs"),  # i1: defined only for a / 1
        arith.RemUIOp: (PtxEmitter.unsigned_binary, "rem", "false"),
        arith.MaxUIOp: (PtxEmitter.unsigned_binary, "max", "or"),
        arith.MinUIOp: (PtxEmitter.unsigned_binary, "min", "and"),
        arith.AndIOp: (PtxEmitter.bitwise, "and"),
        arith.OrIOp: (PtxEmitter.bitwise, "or"),
        arith.XOrIOp: (PtxEmitter.bitwise, "xor"),
        arith.ShLIOp: (PtxEmitter.shift, "shli"),
        arith.ShRUIOp: (PtxEmitter.shift, "shrui"),
        arith.ShRSIOp: (PtxEmitter.shift, "shrsi"),
        arith.CmpiOp: (PtxEmitter.cmpi,),
        math.AbsIOp: (PtxEmitter.absi,),
        arith.ExtSIOp: (PtxEmitter.resize,),
        arith.TruncIOp: (PtxEmitter.resize,),
        arith.IndexCastOp: (PtxEmitter.resize,),
        arith.ExtUIOp: (PtxEmitter.extui,),
        arith.SIToFPOp: (PtxEmitter.sitofp,),
        arith.FPToSIOp: (PtxEmitter.fptosi,),
    }
)
"""The integer arith / math ops the printer handles: op class -> (method, arguments). Any other
integer op (and these on other types: i4, i128, vectors) is NotSupportedYet."""


def _param_type(t: Attribute) -> str:
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, Float64Type):
        return "f64"
    if isinstance(t, Float16Type | BFloat16Type):
        return "b16"
    if isinstance(t, IntegerType) and t.width.data in (8, 16, 32, 64):
        return f"s{t.width.data}"  # i8: one byte (what the runtime passes), loaded sign-extended
    raise NotSupportedYet(f"kernel parameters of type {t}")


def emit_ptx(module: ModuleOp, **options) -> str:
    if options:
        raise NotSupportedYet(f"PTX emitter options {sorted(options)}")
    return PtxEmitter(module).emit()
