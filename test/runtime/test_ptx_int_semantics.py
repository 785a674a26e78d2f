"""The integer semantics of the PTX printer (tilec/emit/ptx.py), checked op by op against MLIR's
`arith` dialect, as test_emit_c_hip_semantics.py checks the C and HIP printers.

Every case is one small hw.nv kernel (one thread per operand pair: load x (and y), one op, store
the result); all of them are ONE PTX module. Without a GPU: the module is assembled by ptxas for
sm_80 and sm_90a, and ops / types the printer does not handle raise NotSupportedYet instead of
printing. With an NVIDIA GPU and CuPy (`@pytest.mark.gpu`, skipped otherwise): the module is loaded
once (the PTX, JIT-compiled by the driver; and on an sm_90 device the sm_90a cubin ptxas built)
and every case runs on its operands: 0, +-1, INT_MIN, INT_MAX, values with the top bit set, i1
true + true, shift amounts 0, 1, width - 1, width, width + 1, 2**32 + 1 and negative (huge as
unsigned), then random pairs. The references are computed here in Python on the operands' bit
patterns: add/sub/mul wrap, the *ui ops read unsigned, i1's signed true is -1, shifts by >= the
width give 0 (shli, shrui) or the sign fill (shrsi), float -> int truncates and saturates (NaN 0).
Widths: i1, i8, i16, i32, i64 and index (64 bits on NVIDIA). i1 is stored as an i8 0 / 1.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from gpu_util import HAVE_GPU, cp

from tilec.diagnostics import NotSupportedYet
from tilec.emit import emit
from tilec.ir import make_context, parse_module
from tilec.symbols import symbol

PTXAS = shutil.which("ptxas")
ARCHS = ("sm_80", "sm_90a")
SEED = 20261202
WIDTHS = (1, 8, 16, 32, 64)
NP_INT = {1: np.int8, 8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
BLOCK = 128

# --- arith semantics on Python ints (a value of width w is its signed value; i1 true is -1) ---------


def sv(v: int, w: int) -> int:
    """The signed value of the low w bits of v."""
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def uv(v: int, w: int) -> int:
    """The unsigned value of the low w bits of v."""
    return v & ((1 << w) - 1)


def tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


BINARY: dict[str, Callable[[int, int, int], int]] = {
    "addi": lambda a, b, w: sv(a + b, w),
    "subi": lambda a, b, w: sv(a - b, w),
    "muli": lambda a, b, w: sv(a * b, w),
    "divsi": lambda a, b, w: sv(tdiv(a, b), w),
    "remsi": lambda a, b, w: sv(a - b * tdiv(a, b), w),
    "divui": lambda a, b, w: sv(uv(a, w) // uv(b, w), w),
    "remui": lambda a, b, w: sv(uv(a, w) % uv(b, w), w),
    "andi": lambda a, b, w: sv(a & b, w),
    "ori": lambda a, b, w: sv(a | b, w),
    "xori": lambda a, b, w: sv(a ^ b, w),
    "maxsi": lambda a, b, w: max(a, b),
    "minsi": lambda a, b, w: min(a, b),
    "maxui": lambda a, b, w: a if uv(a, w) >= uv(b, w) else b,
    "minui": lambda a, b, w: a if uv(a, w) <= uv(b, w) else b,
    # amounts >= w: the printers' defined result (arith: poison)
    "shli": lambda a, b, w: 0 if uv(b, w) >= w else sv(a << uv(b, w), w),
    "shrui": lambda a, b, w: 0 if uv(b, w) >= w else sv(uv(a, w) >> uv(b, w), w),
    "shrsi": lambda a, b, w: (-1 if a < 0 else 0) if uv(b, w) >= w else a >> uv(b, w),
}
CMPI: dict[str, Callable[[int, int, int], bool]] = {
    "eq": lambda a, b, w: a == b,
    "ne": lambda a, b, w: a != b,
    "slt": lambda a, b, w: a < b,
    "sle": lambda a, b, w: a <= b,
    "sgt": lambda a, b, w: a > b,
    "sge": lambda a, b, w: a >= b,
    "ult": lambda a, b, w: uv(a, w) < uv(b, w),
    "ule": lambda a, b, w: uv(a, w) <= uv(b, w),
    "ugt": lambda a, b, w: uv(a, w) > uv(b, w),
    "uge": lambda a, b, w: uv(a, w) >= uv(b, w),
}


def valid(op: str, a: int, b: int, w: int) -> bool:
    """Operands on which arith defines the op (division by zero and INT_MIN / -1 are UB)."""
    if op in ("divsi", "remsi"):
        return b != 0 and not (a == -(1 << (w - 1)) and b == -1)
    if op in ("divui", "remui"):
        return uv(b, w) != 0
    return True


def edges(w: int) -> list[int]:
    if w == 1:
        return [0, -1]
    lo, hi = -(1 << (w - 1)), (1 << (w - 1)) - 1
    return sorted(
        {
            sv(v, w)
            for v in (
                0,
                1,
                -1,
                2,
                -2,
                3,
                -7,
                100,
                127,
                128,
                255,
                lo,
                lo + 1,
                hi,
                hi - 1,
                0x5555555555555555,
                1 << (w - 2),
            )
        }
    )


def amounts(w: int) -> list[int]:
    if w == 1:
        return [0, -1]  # -1 is 1 unsigned: >= the width
    vs = (
        0,
        1,
        2,
        w - 2,
        w - 1,
        w,
        w + 1,
        2 * w,
        255,
        256 + 1,
        -1,
        -w,
        1 << (w - 1),
        (1 << (w - 1)) - 1,
        (1 << 32) + 1,
        (1 << 32) + w,
    )
    return sorted({sv(v, w) for v in vs})


def randoms(w: int, n: int, rng: np.random.Generator) -> list[int]:
    return [sv(int(v), w) for v in rng.integers(0, 2**64, n, dtype=np.uint64)]


def pairs(op: str, w: int, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    ys = amounts(w) if op.startswith("sh") else edges(w)
    ps = [(a, b) for a in edges(w) for b in ys]
    rb = [uv(v, 7) if op.startswith("sh") else v for v in randoms(w, 64, rng)]  # small random amounts too
    ps += list(zip(randoms(w, 64, rng), rb))
    ps = [(a, b) for a, b in ps if valid(op, a, b, w)]
    return [a for a, _ in ps], [b for _, b in ps]


def trunc_sat(f: float, w: int) -> int:
    """fptosi as the printers define it: toward zero, saturated to the range, NaN -> 0."""
    if math.isnan(f):
        return 0
    lo, hi = -(1 << (w - 1)), (1 << (w - 1)) - 1
    if math.isinf(f):
        return lo if f < 0 else hi
    return max(lo, min(hi, math.trunc(f)))


def float_edges(t: str) -> list[float]:
    big = [2.0**7, 2.0**15, 2.0**31, 2.0**63, 2.0**64, 1e30]
    vs = [
        0.0,
        -0.0,
        0.5,
        -0.5,
        0.99,
        -0.99,
        1.0,
        -1.0,
        1.5,
        -1.5,
        127.5,
        -128.5,
        200.0,
        -200.0,
        32767.9,
        -32768.9,
        3e9,
        -3e9,
    ]
    vs += [s * b for b in big for s in (1, -1)] + [float("nan"), float("inf"), float("-inf")]
    if t == "f64":
        vs += [2.0**62 + 2.0**40, -(2.0**63) - 2048.0, 2147483647.5, -2147483648.5]
    np_t = np.float32 if t == "f32" else np.float64
    return [float(np_t(v)) for v in vs]


# --- the cases: one op each --------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    name: str
    body: str  # defines %r from %x (and %y): lines of MLIR
    x: str  # operand types: "i<w>", "f32", "f64"; y "" for unary ops
    y: str
    out: str
    ref: Callable[..., object]
    xs: tuple
    ys: tuple

    @property
    def expected(self) -> list:
        if not self.y:
            return [self.ref(a) for a in self.xs]
        return [self.ref(a, b) for a, b in zip(self.xs, self.ys)]


def cases() -> list[Case]:
    rng = np.random.default_rng(SEED)
    out = []
    for w in WIDTHS:
        t = f"i{w}"
        for op, fn in BINARY.items():
            xs, ys = pairs(op, w, rng)
            out.append(
                Case(
                    f"{op}_{t}",
                    f"%r = arith.{op} %x, %y : {t}",
                    t,
                    t,
                    t,
                    lambda a, b, w=w, fn=fn: fn(a, b, w),
                    tuple(xs),
                    tuple(ys),
                )
            )
        for pred, fn in CMPI.items():
            xs, ys = pairs("cmpi", w, rng)
            out.append(
                Case(
                    f"cmpi_{pred}_{t}",
                    f"%r = arith.cmpi {pred}, %x, %y : {t}",
                    t,
                    t,
                    "i1",
                    lambda a, b, w=w, fn=fn: fn(a, b, w),
                    tuple(xs),
                    tuple(ys),
                )
            )
        xs = tuple(edges(w) + (randoms(w, 32, rng) if w > 1 else []))
        out.append(Case(f"absi_{t}", f"%r = math.absi %x : {t}", t, "", t, lambda a, w=w: sv(abs(a), w), xs, ()))
        xs, ys = pairs("select", w, rng)  # on the low bit of y
        body = (
            f"%c = arith.trunci %y : {t} to i1\n%r = arith.select %c, %x, %y : {t}"
            if w > 1
            else "%r = arith.select %y, %x, %y : i1"
        )
        out.append(Case(f"select_{t}", body, t, t, t, lambda a, b: a if b & 1 else b, tuple(xs), tuple(ys)))
    # index: 64 bits on NVIDIA; the op on index values cast from (and back to) i64
    for op, fn in BINARY.items():
        xs, ys = pairs(op, 64, rng)
        body = f"%xi = arith.index_cast %x : i64 to index\n%yi = arith.index_cast %y : i64 to index\n%ri = arith.{op} %xi, %yi : index\n%r = arith.index_cast %ri : index to i64"
        out.append(
            Case(f"{op}_index", body, "i64", "i64", "i64", lambda a, b, fn=fn: fn(a, b, 64), tuple(xs), tuple(ys))
        )
    for pred, fn in CMPI.items():
        xs, ys = pairs("cmpi", 64, rng)
        body = f"%xi = arith.index_cast %x : i64 to index\n%yi = arith.index_cast %y : i64 to index\n%r = arith.cmpi {pred}, %xi, %yi : index"
        out.append(
            Case(f"cmpi_{pred}_index", body, "i64", "i64", "i1", lambda a, b, fn=fn: fn(a, b, 64), tuple(xs), tuple(ys))
        )
    ints = [(s, d) for s in WIDTHS for d in WIDTHS if s < d]
    for s, d in ints:
        xs = tuple(edges(s) + (randoms(s, 16, rng) if s > 1 else []))
        out.append(
            Case(f"extsi_i{s}_i{d}", f"%r = arith.extsi %x : i{s} to i{d}", f"i{s}", "", f"i{d}", lambda a: a, xs, ())
        )
        out.append(
            Case(
                f"extui_i{s}_i{d}",
                f"%r = arith.extui %x : i{s} to i{d}",
                f"i{s}",
                "",
                f"i{d}",
                lambda a, s=s: uv(a, s),
                xs,
                (),
            )
        )
    for d, s in ints:
        xs = tuple(edges(s) + randoms(s, 16, rng))
        out.append(
            Case(
                f"trunci_i{s}_i{d}",
                f"%r = arith.trunci %x : i{s} to i{d}",
                f"i{s}",
                "",
                f"i{d}",
                lambda a, d=d: sv(a, d),
                xs,
                (),
            )
        )
    for w in WIDTHS:  # index_cast: sign-extends (i1 true -> -1) and truncates (to i1: the low bit)
        xs = tuple(edges(w) + (randoms(w, 16, rng) if w > 1 else []))
        out.append(
            Case(
                f"index_cast_i{w}_index",
                f"%xi = arith.index_cast %x : i{w} to index\n%r = arith.index_cast %xi : index to i64",
                f"i{w}",
                "",
                "i64",
                lambda a: a,
                xs,
                (),
            )
        )
        xs = tuple(edges(64) + randoms(64, 16, rng))
        out.append(
            Case(
                f"index_cast_index_i{w}",
                f"%xi = arith.index_cast %x : i64 to index\n%r = arith.index_cast %xi : index to i{w}",
                "i64",
                "",
                f"i{w}",
                lambda a, w=w: sv(a, w),
                xs,
                (),
            )
        )
    for w in WIDTHS:
        xs = tuple(
            edges(w)
            + (randoms(w, 16, rng) if w > 1 else [])
            + ([(1 << 53) + 1, (1 << 24) + 1, -(1 << 62) - 3] if w == 64 else [])
        )
        for f in ("f32", "f64"):
            np_f = np.float32 if f == "f32" else np.float64  # one correctly rounded conversion
            out.append(
                Case(
                    f"sitofp_i{w}_{f}",
                    f"%r = arith.sitofp %x : i{w} to {f}",
                    f"i{w}",
                    "",
                    f,
                    lambda a, np_f=np_f: float(np.array([a], np.int64).astype(np_f)[0]),
                    xs,
                    (),
                )
            )
    for f in ("f32", "f64"):
        for w in (8, 16, 32, 64):
            out.append(
                Case(
                    f"fptosi_{f}_i{w}",
                    f"%r = arith.fptosi %x : {f} to i{w}",
                    f,
                    "",
                    f"i{w}",
                    lambda a, w=w: trunc_sat(a, w),
                    tuple(float_edges(f)),
                    (),
                )
            )
    return out


CASES = cases()
IDS = [c.name for c in CASES]


def _mem(t: str) -> str:
    """The stored type of a value type (i1 is stored as an i8 0 / 1)."""
    return "i8" if t == "i1" else t


def _bytes(t: str) -> int:
    return max(1, int(t[1:]) // 8)


def kernel(c: Case, sm: str) -> str:
    """The hw.nv kernel of a case: thread i computes O[i] = op(X[i], Y[i]) for i < n."""
    lines = []
    for v, t in (("x", c.x), ("y", c.y), ("o", c.out)):
        if not t:
            continue
        m = _mem(t)
        lines += [
            f"%{v}p = hw.ptr_to_int %{v.upper()} : !hw.ptr<global> -> i64",
            f"%{v}s = arith.constant {_bytes(m)} : i64",
            f"%{v}off = arith.muli %i64, %{v}s : i64",
            f"%{v}a = arith.addi %{v}p, %{v}off : i64",
        ]
        if v == "o":
            continue
        if t == "i1":
            lines += [
                f"%{v}m = hw.nv.ld global %{v}a : i64 -> i8",
                f"%{v}z = arith.constant 0 : i8",
                f"%{v} = arith.cmpi ne, %{v}m, %{v}z : i8",
            ]
        else:
            lines.append(f"%{v} = hw.nv.ld global %{v}a : i64 -> {t}")
    lines += c.body.split("\n")
    if c.out == "i1":
        lines += ["%rm = arith.extui %r : i1 to i8", "hw.nv.st global %oa, %rm : i64, i8"]
    else:
        lines.append(f"hw.nv.st global %oa, %r : i64, {c.out}")
    body = "\n    ".join(lines)
    return f"""
hw.nv.kernel @{c.name}(%O: !hw.ptr<global>, %X: !hw.ptr<global>, %Y: !hw.ptr<global>, %n: i32) sm "{sm[3:]}" maxntid [{BLOCK}, 1, 1] {{
  %tid = hw.nv.sreg tid.x : i32
  %cta = hw.nv.sreg ctaid.x : i32
  %bs = arith.constant {BLOCK} : i32
  %base = arith.muli %cta, %bs : i32
  %i = arith.addi %base, %tid : i32
  %in = arith.cmpi slt, %i, %n : i32
  scf.if %in {{
    %i64 = arith.extsi %i : i32 to i64
    {body}
  }}
  hw.nv.return
}}"""


def ptx_of(text: str, name: str = "test_ptx_int_semantics") -> str:
    return emit(parse_module(make_context(), text, name), "ptx")


@pytest.fixture(scope="module")
def ptx() -> dict[str, str]:
    """The PTX module of every case, per target."""
    return {sm: ptx_of("\n".join(kernel(c, sm) for c in CASES)) for sm in ARCHS}


def assemble(text: str, sm: str, folder) -> bytes:
    if PTXAS is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have ptxas on PATH")
        pytest.skip("ptxas is not on PATH (install the CUDA toolkit)")
    src, out = folder / f"ops_{sm}.ptx", folder / f"ops_{sm}.cubin"
    src.write_text(text)
    r = subprocess.run([PTXAS, f"-arch={sm}", str(src), "-o", str(out)], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr[-4000:]
    return out.read_bytes()


@pytest.mark.parametrize("sm", ARCHS)
def test_ptxas_accepts_every_case(ptx, sm, tmp_path):
    assert assemble(ptx[sm], sm, tmp_path)
    for c in CASES:
        assert f".visible .entry {symbol(c.name)}(" in ptx[sm]


def test_cases_cover_the_edges():
    """The operands this file promises: top bit set, i1 true + true, amounts 0 / width-1 / width."""
    names = {c.name for c in CASES}
    for w in WIDTHS:
        for op in [*BINARY, *(f"cmpi_{p}" for p in CMPI), "absi", "select"]:
            assert f"{op}_i{w}" in names
    add = next(c for c in CASES if c.name == "addi_i1")
    assert (-1, -1) in zip(add.xs, add.ys) and add.ref(-1, -1) == 0
    for w in (8, 16, 32, 64):
        sh = next(c for c in CASES if c.name == f"shrui_i{w}")
        assert {0, w - 1, w, -1} <= set(sh.ys)
        assert -(1 << (w - 1)) in sh.xs and -1 in sh.xs
    assert (1 << 32) + 1 in next(c for c in CASES if c.name == "shli_i64").ys  # not 1 once narrowed to u32


# --- what the printer does not print -----------------------------------------------------------------

UNSUPPORTED = {
    "i4 addi": ("%a = arith.addi %c, %c : i4", "%c = arith.constant 1 : i4"),
    "i128 muli": ("%a = arith.muli %c, %c : i128", "%c = arith.constant 1 : i128"),
    "uitofp": ("%a = arith.uitofp %c : i32 to f32", "%c = arith.constant 1 : i32"),
    "fptoui": ("%a = arith.fptoui %c : f32 to i32", "%c = arith.constant 1.0 : f32"),
    "ceildivui": ("%a = arith.ceildivui %c, %c : i32", "%c = arith.constant 1 : i32"),
    "bitcast i1": ("%a = arith.bitcast %c : i1 to i1", "%c = arith.constant true"),
    "ceildivsi": ("%a = arith.ceildivsi %c, %c : i32", "%c = arith.constant 1 : i32"),
    "fptosi to i1": ("%a = arith.fptosi %c : f32 to i1", "%c = arith.constant 1.0 : f32"),
    "sitofp to f16": ("%a = arith.sitofp %c : i32 to f16", "%c = arith.constant 1 : i32"),
    "fptosi from bf16": ("%a = arith.fptosi %c : bf16 to i32", "%c = arith.constant 1.0 : bf16"),
    "divf f16": ("%a = arith.divf %c, %c : f16", "%c = arith.constant 1.0 : f16"),
    "sqrt bf16": ("%a = math.sqrt %c : bf16", "%c = arith.constant 1.0 : bf16"),
    "scf.for over i1": ("scf.for %i = %c to %c step %c : i1 {\n}", "%c = arith.constant 0 : i1"),
}


@pytest.mark.parametrize("what", list(UNSUPPORTED))
def test_unsupported_ops_raise(what):
    op, setup = UNSUPPORTED[what]
    text = f"hw.nv.kernel @k() sm 80 {{\n  {setup}\n  {op}\n  hw.nv.return\n}}"
    with pytest.raises(NotSupportedYet):
        ptx_of(text)


# --- on the GPU ---------------------------------------------------------------------------------------


def _array(values, t: str) -> np.ndarray:
    if t == "i1":
        return np.array([uv(v, 1) for v in values], np.int8)
    if t in ("f32", "f64"):
        return np.array(values, np.float32 if t == "f32" else np.float64)
    return np.array(values, dtype=object).astype(NP_INT[int(t[1:])])


def _out_dtype(t: str):
    return {"f32": np.float32, "f64": np.float64}.get(t) or NP_INT[int(t[1:])]


def _same(got, want, t: str) -> bool:
    if t in ("f32", "f64"):
        return (math.isnan(got) and math.isnan(want)) or (
            got == want and math.copysign(1, got) == math.copysign(1, want)
        )
    return got == want


def _got(raw: np.ndarray, t: str) -> list:
    if t == "i1":
        return [-int(v) if v in (0, 1) else f"not a bool: {int(v)}" for v in raw]  # 0 / 1 -> 0 / -1
    return raw.tolist()


def _want(c: Case) -> list:
    want = c.expected
    if c.out == "i1":  # cmpi gives bools, i1 arithmetic 0 / -1
        return [-1 if v is True else 0 if v is False else v for v in want]
    return want


@pytest.fixture(scope="module")
def gpu_functions(ptx, tmp_path_factory) -> list[dict[str, object]]:
    """Every case's kernel, from the sm_80 PTX (JIT-compiled by the driver for this GPU) and, on an
    sm_90 GPU, from the sm_90a cubin that ptxas assembled."""
    if not HAVE_GPU:
        pytest.skip("no NVIDIA GPU with CuPy on this machine")
    d = tmp_path_factory.mktemp("ptx_int_semantics")
    (d / "ops_sm_80.ptx").write_text(ptx["sm_80"])
    modules = [cp.RawModule(path=str(d / "ops_sm_80.ptx"))]
    if cp.cuda.Device().compute_capability == "90" and PTXAS is not None:
        assemble(ptx["sm_90a"], "sm_90a", d)
        modules.append(cp.RawModule(path=str(d / "ops_sm_90a.cubin")))
    return [{c.name: m.get_function(symbol(c.name)) for c in CASES} for m in modules]


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gpu_semantics(gpu_functions, case: Case):
    x = cp.asarray(_array(case.xs, case.x))
    y = cp.asarray(_array(case.ys, case.y) if case.y else np.zeros(len(case.xs), np.int8))
    n = len(case.xs)
    want = _want(case)
    for functions in gpu_functions:
        o = cp.zeros(n, _out_dtype(_mem(case.out)))
        functions[case.name](((n + BLOCK - 1) // BLOCK,), (BLOCK,), (o, x, y, np.int32(n)))
        got = _got(cp.asnumpy(o), case.out)
        bad = [(a, b, g, w) for a, b, g, w in zip(case.xs, case.ys or case.xs, got, want) if not _same(g, w, case.out)]
        assert not bad, f"{case.name}: {len(bad)} of {n} wrong, e.g. (x, y, got, want) = {bad[:6]}"


SCALARS = """
hw.nv.kernel @scalars(%O: !hw.ptr<global>, %b: i8, %h: i16, %x: i32, %y: i64) sm 80 {
  %p = hw.ptr_to_int %O : !hw.ptr<global> -> i64
  %b64 = arith.extsi %b : i8 to i64
  %h64 = arith.extsi %h : i16 to i64
  %x64 = arith.extsi %x : i32 to i64
  hw.nv.st global %p, %b64 : i64, i64
  hw.nv.st global %p + 8, %h64 : i64, i64
  hw.nv.st global %p + 16, %x64 : i64, i64
  hw.nv.st global %p + 24, %y : i64, i64
  hw.nv.return
}"""


def test_scalar_parameters_have_their_own_size():
    """An i8 parameter is one byte (`.param .s8`, what the runtime passes: np.int8), loaded
    sign-extended; i16 is two."""
    text = ptx_of(SCALARS)
    assert ".param .s8 tilec_param_1," in text and "ld.param.s8 %rs" in text
    assert ".param .s16 tilec_param_2," in text


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
def test_gpu_scalar_parameters(tmp_path):
    (tmp_path / "s.ptx").write_text(ptx_of(SCALARS))
    f = cp.RawModule(path=str(tmp_path / "s.ptx")).get_function(symbol("scalars"))
    for vals in ((-128, -32768, -(2**31), -(2**63)), (127, 32767, 2**31 - 1, 2**63 - 1), (-1, -2, -3, -4)):
        o = cp.zeros(4, cp.int64)
        f((1,), (1,), (o, np.int8(vals[0]), np.int16(vals[1]), np.int32(vals[2]), np.int64(vals[3])))
        assert cp.asnumpy(o).tolist() == list(vals)
