"""The arith semantics of the C and HIP C++ printers, which print arith / math through ONE table
(tilec/emit/cfamily.py ARITH_TO_C), checked op by op against MLIR's `arith` dialect.

C: every case is a small hw.cpu function (one op in a loop over arrays, once as a `tilec.simd`
loop, vectorized, and once as a plain loop), all compiled into one shared library by the system C
compiler (-O3 -march=native, as the runtime compiles kernels) and run on edge operands: 0, +-1,
INT_MIN, INT_MAX, values with the top bit set, i1 true + true, shift amounts 0, 1, width - 1,
width, width + 1 and negative (huge as unsigned), then random pairs. The reference is computed in
Python on the operands' bit patterns: add/sub/mul wrap, the *ui ops read unsigned, i1's signed
true is -1. Shifts by >= the width are poison in arith; the printers define them (cfamily's
docstring): 0 for shli / shrui, the sign fill for shrsi, which is what is checked.

HIP: the same ops as hw.amd kernels; hipcc must accept the HIP C++ (gfx90a), each op's line must
print exactly as in C (the same table) but where `index` differs (int32_t in kernels), and the
HIP C++ is RUN on the CPU (compiled by the host clang++ with a few definitions standing in for
HIP's, one thread after another) against the same references: there is no AMD GPU to run it.
hipcc is required in CI (as in test_hip.py); without it locally the hipcc test skips.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from tilec.emit import emit
from tilec.ir import make_context, parse_module
from tilec.symbols import symbol

WIDTHS = (1, 8, 16, 32, 64)
NP_INT = {1: np.int8, 8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}  # i1 is stored as an i8 0 / 1
SEED = 20261201  # the random operands (fixed)


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
        {sv(v, w) for v in (0, 1, -1, 2, -2, 3, -7, 100, lo, lo + 1, hi, hi - 1, 0x5555555555555555, 1 << (w - 2))}
    )


def amounts(w: int) -> list[int]:
    if w == 1:
        return [0, -1]  # -1 is 1 unsigned: >= the width
    return sorted(
        {sv(v, w) for v in (0, 1, 2, w - 2, w - 1, w, w + 1, 2 * w, -1, -w, 1 << (w - 1), (1 << (w - 1)) - 1)}
    )


def randoms(w: int, n: int, rng: np.random.Generator) -> list[int]:
    return [sv(int(v), w) for v in rng.integers(0, 2**64, n, dtype=np.uint64)]


def pairs(op: str, w: int, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    ys = amounts(w) if op.startswith("sh") else edges(w)
    ps = [(a, b) for a in edges(w) for b in ys]
    rb = [uv(v, 7) if op.startswith("sh") else v for v in randoms(w, 64, rng)]  # small random amounts too
    ps += list(zip(randoms(w, 64, rng), rb))
    ps = [(a, b) for a, b in ps if valid(op, a, b, w)]
    return [a for a, _ in ps], [b for _, b in ps]


# --- the cases: one op each --------------------------------------------------------------------------


def ity(w: int) -> str:
    return f"i{w}"


@dataclass(frozen=True)
class Case:
    name: str
    body: str  # defines %r from %x (and %y): lines of MLIR
    x: int  # operand widths (bits); y 0 for unary ops
    y: int
    out: str  # "i<w>", "f32", "f64"
    ref: Callable[..., object]
    xs: tuple[int, ...]
    ys: tuple[int, ...]
    index: bool = False  # goes through `index`, which is 32 bits in HIP kernels

    @property
    def expected(self) -> list:
        if not self.y:
            return [self.ref(a) for a in self.xs]
        return [self.ref(a, b) for a, b in zip(self.xs, self.ys)]


def cases() -> list[Case]:
    rng = np.random.default_rng(SEED)
    out = []
    for w in WIDTHS:
        t = ity(w)
        for op, fn in BINARY.items():
            xs, ys = pairs(op, w, rng)
            out.append(
                Case(
                    f"{op}_{t}",
                    f"%r = arith.{op} %x, %y : {t}",
                    w,
                    w,
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
                    w,
                    w,
                    "i1",
                    lambda a, b, w=w, fn=fn: fn(a, b, w),
                    tuple(xs),
                    tuple(ys),
                )
            )
        if w > 1:
            xs = tuple(edges(w) + randoms(w, 32, rng))
            out.append(Case(f"absi_{t}", f"%r = math.absi %x : {t}", w, 0, t, lambda a, w=w: sv(abs(a), w), xs, ()))
    out.append(Case("absi_i1", "%r = math.absi %x : i1", 1, 0, "i1", lambda a: sv(abs(a), 1), (0, -1), ()))
    for s, d in ((1, 8), (1, 32), (8, 32), (16, 64), (32, 64)):
        xs = tuple(edges(s) + (randoms(s, 16, rng) if s > 1 else []))
        out.append(Case(f"extsi_i{s}_i{d}", f"%r = arith.extsi %x : i{s} to i{d}", s, 0, f"i{d}", lambda a: a, xs, ()))
        out.append(
            Case(
                f"extui_i{s}_i{d}",
                f"%r = arith.extui %x : i{s} to i{d}",
                s,
                0,
                f"i{d}",
                lambda a, s=s: uv(a, s),
                xs,
                (),
            )
        )
    for s, d in ((8, 1), (32, 1), (64, 1), (32, 8), (16, 8), (64, 32)):
        xs = tuple(edges(s) + randoms(s, 16, rng))
        out.append(
            Case(
                f"trunci_i{s}_i{d}",
                f"%r = arith.trunci %x : i{s} to i{d}",
                s,
                0,
                f"i{d}",
                lambda a, d=d: sv(a, d),
                xs,
                (),
            )
        )
    for s, d in ((1, "f32"), (8, "f32"), (32, "f32"), (32, "f64"), (64, "f64")):
        xs = tuple(edges(s) + (randoms(s, 16, rng) if s > 1 else []))
        # rounded once: float(a) is exact for the f32 cases' sources (at most 32 bits)
        ref = (lambda a: float(np.float32(float(a)))) if d == "f32" else float
        out.append(Case(f"sitofp_i{s}_{d}", f"%r = arith.sitofp %x : i{s} to {d}", s, 0, d, ref, xs, ()))
    # index_cast sign-extends (i1 true -> -1) and truncates (to i1: the low bit)
    for s in (1, 8, 32):
        xs = tuple(edges(s) + (randoms(s, 16, rng) if s > 1 else []))
        body = f"%ix = arith.index_cast %x : i{s} to index\n%r = arith.index_cast %ix : index to i64"
        out.append(Case(f"index_cast_i{s}", body, s, 0, "i64", lambda a: a, xs, (), index=True))
    xs = tuple(edges(32) + randoms(32, 16, rng))
    body = "%ix = arith.index_cast %x : i32 to index\n%r = arith.index_cast %ix : index to i1"
    out.append(Case("index_cast_to_i1", body, 32, 0, "i1", lambda a: sv(a, 1), xs, (), index=True))
    return out


CASES = cases()
IDS = [c.name for c in CASES]


def _mem(t: str) -> str:
    """The stored type of a value type (i1 is stored as an i8 0 / 1)."""
    return "i8" if t == "i1" else t


def _width_of(t: str) -> int:
    return int(t[1:])


def loads_and_stores(c: Case, load: Callable[[str, str], str], store: Callable[[str, str], str]) -> str:
    """The body of one case: load %x (and %y), compute %r, store it; i1 through i8."""
    lines = []
    for v, w in (("x", c.x), ("y", c.y)):
        if not w:
            continue
        if w == 1:
            lines += [f"%{v}m = {load(v, 'i8')}", f"%{v} = arith.cmpi ne, %{v}m, %z8 : i8"]
        else:
            lines.append(f"%{v} = {load(v, ity(w))}")
    lines += c.body.split("\n")
    if c.out == "i1":
        lines += ["%rm = arith.extui %r : i1 to i8", store("%rm", "i8")]
    else:
        lines.append(store("%r", c.out))
    return "\n".join(lines)


def cpu_function(c: Case, simd: bool) -> str:
    xm, ym, rm = _mem(ity(c.x)), _mem(ity(c.y)) if c.y else "i8", _mem(c.out)
    body = loads_and_stores(
        c,
        lambda v, t: f"hw.cpu.load %{v.upper()}[%k] : !hw.ptr<generic, {t}> -> {t}",
        lambda r, t: f"hw.cpu.store {r}, %O[%k] : {t}, !hw.ptr<generic, {t}>",
    ).replace("\n", "\n    ")
    return f"""
hw.cpu.func @{c.name}_{"simd" if simd else "loop"}(%O: !hw.ptr<generic, {rm}>, %X: !hw.ptr<generic, {xm}>, %Y: !hw.ptr<generic, {ym}>, %n: i64) attributes {{tilec.entry}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z8 = arith.constant 0 : i8
  %N = arith.index_cast %n : i64 to index
  scf.for %i = %c0 to %N step %c1 {{
    %k = arith.index_cast %i : index to i64
    {body}
  }}{" {tilec.simd}" if simd else ""}
  hw.cpu.return
}}"""


def amd_kernel(c: Case) -> str:
    xm, ym, rm = _mem(ity(c.x)), _mem(ity(c.y)) if c.y else "i8", _mem(c.out)
    body = loads_and_stores(
        c,
        lambda v, t: f"hw.amd.global_load %{v.lower()}a : i64 -> {t}",
        lambda r, t: f"hw.amd.global_store %oa, {r} : i64, {t}",
    ).replace("\n", "\n  ")
    setup = []
    for v, t in (("x", xm), ("y", ym), ("o", rm)):
        bytes_ = max(1, _width_of(t) // 8)
        setup += [
            f"%{v}p = hw.ptr_to_int %{v.upper()} : !hw.ptr<global, {t}> -> i64",
            f"%{v}s = arith.constant {bytes_} : i64",
            f"%{v}off = arith.muli %t64, %{v}s : i64",
            f"%{v}a = arith.addi %{v}p, %{v}off : i64",
        ]
    setup_text = "\n  ".join(setup)
    return f"""
hw.amd.kernel @{c.name}(%O: !hw.ptr<global, {rm}>, %X: !hw.ptr<global, {xm}>, %Y: !hw.ptr<global, {ym}>) arch "gfx90a" wave 64 launch_bounds 64 {{
  %z8 = arith.constant 0 : i8
  %t = hw.amd.workitem_id x : i32
  %t64 = arith.extsi %t : i32 to i64
  {setup_text}
  {body}
  hw.amd.return
}}"""


def emitted(text: str, target: str) -> str:
    ctx = make_context()
    return emit(parse_module(ctx, text, f"test_emit_c_hip_semantics.{target}"), target)


def result_line(source: str, fn: str) -> str:
    """The line declaring `r` in function `fn` of emitted C / HIP (its definition, not a prototype)."""
    head = re.search(rf"^.* {symbol(fn)}\(.*\) {{$", source, re.MULTILINE)
    assert head, f"no function {fn}"
    m = re.search(r"^\s*(\S+ r = .*;)$", source[head.end() :], re.MULTILINE)
    assert m, f"no `r = ...` line in {fn}"
    return m.group(1)


# --- C ----------------------------------------------------------------------------------------------------


def c_compiler() -> tuple[str, list[str]]:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        pytest.fail("no C compiler (cc, gcc or clang) for the C emitter's semantics")
    return cc, ["-O3", "-std=gnu11", "-fno-math-errno", "-fPIC", "-march=native", "-fopenmp-simd"]


@pytest.fixture(scope="module")
def c_source() -> str:
    return emitted("\n".join(cpu_function(c, simd) for c in CASES for simd in (True, False)), "c")


@pytest.fixture(scope="module")
def c_lib(c_source, tmp_path_factory) -> ctypes.CDLL:
    d = tmp_path_factory.mktemp("emit_c_semantics")
    (d / "ops.c").write_text(c_source)
    cc, flags = c_compiler()
    r = subprocess.run(
        [cc, *flags, "-shared", "-o", str(d / "ops.so"), str(d / "ops.c"), "-lm"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr[-4000:]
    return ctypes.CDLL(str(d / "ops.so"))


def _array(values, w: int) -> np.ndarray:
    if w == 1:
        return np.array([uv(v, 1) for v in values], np.int8)
    return np.array(values, dtype=object).astype(NP_INT[w])


def _got(raw: np.ndarray, out: str) -> list:
    if out == "i1":
        return [-int(v) for v in raw]  # 0 / 1 -> the signed value 0 / -1
    return raw.tolist()


def _want(c: Case) -> list:
    want = c.expected
    if c.out == "i1":  # cmpi gives bools, i1 arithmetic 0 / -1
        return [-1 if v else 0 for v in want]
    return want


def check_case(f, case: Case, int_n: bool = False) -> None:
    """Run compiled case `f(O, X, Y, n)` on the case's operands; compare with the reference."""
    x = _array(case.xs, case.x)
    y = _array(case.ys, case.y) if case.y else np.zeros(len(x), np.int8)
    out_dt = np.float32 if case.out == "f32" else np.float64 if case.out == "f64" else NP_INT[_width_of(case.out)]
    o = np.zeros(len(x), out_dt)
    p = ctypes.c_void_p
    f(p(o.ctypes.data), p(x.ctypes.data), p(y.ctypes.data), ctypes.c_int(len(x)) if int_n else ctypes.c_int64(len(x)))
    got, want = _got(o, case.out), _want(case)
    bad = [(a, b, g, w) for a, b, g, w in zip(case.xs, case.ys or case.xs, got, want) if g != w]
    assert not bad, f"{case.name}: {len(bad)} of {len(got)} wrong, e.g. (x, y, got, want) = {bad[:6]}"


@pytest.mark.parametrize("simd", [True, False], ids=["simd", "loop"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_c_semantics(c_lib, case: Case, simd: bool):
    check_case(getattr(c_lib, symbol(f"{case.name}_{'simd' if simd else 'loop'}")), case)


def test_cases_cover_the_edges():
    """The operands this file promises: top bit set, i1 true + true, amounts 0 / width-1 / width."""
    add = next(c for c in CASES if c.name == "addi_i1")
    assert (-1, -1) in zip(add.xs, add.ys) and add.ref(-1, -1) == 0
    for w in (8, 16, 32, 64):
        sh = next(c for c in CASES if c.name == f"shrui_i{w}")
        assert {0, w - 1, w, -1} <= set(sh.ys)
        assert -(1 << (w - 1)) in sh.xs and -1 in sh.xs


# --- HIP --------------------------------------------------------------------------------------------------


def find_hipcc() -> str | None:
    for cand in (os.environ.get("HIPCC"), shutil.which("hipcc"), "/opt/rocm/bin/hipcc"):
        if cand and os.path.exists(cand):
            return cand
    return None


@pytest.fixture(scope="module")
def hip_source() -> str:
    return emitted("\n".join(amd_kernel(c) for c in CASES), "hip")


def test_hip_compiles(hip_source, tmp_path):
    """hipcc accepts the HIP C++ of every case (gfx90a code object)."""
    hipcc = find_hipcc()
    if hipcc is None:
        if os.environ.get("CI"):
            pytest.fail("hipcc is not installed, but CI must compile the HIP C++ (.ci/run installs Debian's hipcc)")
        pytest.skip("hipcc is not installed (apt-get install hipcc); CI is unset, so the HIP compile test skips")
    src = tmp_path / "ops.hip"
    src.write_text(hip_source)
    env = {**os.environ, "HIP_PLATFORM": "amd"}  # hipcc would pick nvcc where CUDA is installed
    r = subprocess.run(
        [hipcc, "--genco", "--offload-arch=gfx90a", "-O3", str(src), "-o", str(tmp_path / "ops.co")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert r.returncode == 0, (r.stderr or r.stdout)[-4000:]
    assert Path(tmp_path / "ops.co").stat().st_size > 0


@pytest.mark.parametrize("case", [c for c in CASES if not c.index], ids=[c.name for c in CASES if not c.index])
def test_hip_prints_as_c(c_source, hip_source, case: Case):
    """The same table: each op's line is the C one (index aside: 32 bits in kernels)."""
    assert result_line(hip_source, case.name) == result_line(c_source, f"{case.name}_simd")


# The HIP C++ RUN on the CPU: the kernels use nothing but threadIdx.x and global memory, so with a few
# definitions (as test_hip_emulated.py's emulator, much reduced) the host C++ compiler runs them, one
# "thread" after another. This executes the printed expressions' semantics (not the AMD code
# generation: test_hip_compiles covers hipcc's acceptance).
HIP_ON_CPU = r"""
#define TILEC_HIP_COMPAT_CUDA 1
#include <cmath>
#include <cstdint>
#include <cstring>
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __restrict__
typedef _Float16 tilec_f16;
static inline tilec_f16 tilec_f32_to_f16(float x) { return (tilec_f16)x; }
static inline float __uint_as_float(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t __float_as_uint(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float __int_as_float(int32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline double __longlong_as_double(long long u) { double f; memcpy(&f, &u, 8); return f; }
static inline long long __double_as_longlong(double f) { long long u; memcpy(&u, &f, 8); return u; }
struct tilec_dim3 { unsigned x, y, z; };
static tilec_dim3 threadIdx;
"""
CTYPES = {"i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t", "f32": "float", "f64": "double"}


def find_cxx() -> str | None:
    """A host C++ compiler: hipcc's clang++ (what CI installs with hipcc), else one on PATH."""
    llvm = sorted(Path("/usr/lib").glob("llvm-*/bin/clang++"))
    for cand in (
        os.environ.get("CXX"),
        *(str(p) for p in reversed(llvm)),
        shutil.which("clang++"),
        shutil.which("g++"),
    ):
        if cand and os.path.exists(cand):
            return cand
    return None


@pytest.fixture(scope="module")
def hip_on_cpu(hip_source, tmp_path_factory) -> ctypes.CDLL:
    cxx = find_cxx()
    if cxx is None:
        if os.environ.get("CI"):
            pytest.fail("no C++ compiler (hipcc's clang++ or g++) to run the HIP C++ on the CPU")
        pytest.skip("no C++ compiler (clang++ or g++): the HIP C++ is not run on the CPU")
    runners = []
    for c in CASES:
        o, x, y = (CTYPES[_mem(t)] for t in (c.out, ity(c.x), ity(c.y) if c.y else "i8"))
        runners.append(
            f'extern "C" void run_{c.name}(void* o, void* x, void* y, int n) {{\n'
            f"  for (int t = 0; t < n; t++) {{ threadIdx.x = t; {symbol(c.name)}(({o}*)o, ({x}*)x, ({y}*)y); }}\n}}"
        )
    d = tmp_path_factory.mktemp("emit_hip_semantics")
    (d / "ops.cpp").write_text(HIP_ON_CPU + hip_source + "\n" + "\n".join(runners) + "\n")
    r = subprocess.run(
        [cxx, "-O2", "-std=c++17", "-fPIC", "-shared", "-o", str(d / "ops.so"), str(d / "ops.cpp")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr[-4000:]
    return ctypes.CDLL(str(d / "ops.so"))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_hip_semantics_on_cpu(hip_on_cpu, case: Case):
    check_case(getattr(hip_on_cpu, f"run_{case.name}"), case, int_n=True)


def test_hip_index_is_32_bits(hip_source):
    assert result_line(hip_source, "index_cast_to_i1") == "bool r = (ix & 1) != 0;"
    head = re.search(rf"^.* {symbol('index_cast_i1')}\(.*\) {{$", hip_source, re.MULTILINE)
    assert "int32_t ix = (int32_t)(x ? -1 : 0);" in hip_source[head.end() :]
