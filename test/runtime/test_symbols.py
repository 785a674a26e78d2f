"""Emitted symbols live in tilec's reserved namespace on every target (tilec/symbols.py).

An IR name never becomes a C / PTX / HIP symbol as it is: `symbol(name)` (`tilec_u_...`) is what
the emitters print and what the runtimes look up. Checked here on names that would break the code
or the process as they are: the C and C++ keywords, PTX's directives, instructions and reserved
words, the libc / libm / libgomp / CUDA / HIP symbols (a `def omp_get_num_threads` replaced
libgomp's and crashed), and hostile names (`x;y` injected text into the C, ptxas rejected
`my func`, `a-b`, `f.g`, `0abc`, `é`). Through `tilec-opt -t c|ptx|hip`, with the output built by
the system C compiler, ptxas (sm_80, sm_90a) and hipcc (gfx90a), the C loaded and run; through the
DSL on the CPU target (against the interpreter); and, marked `gpu`, the PTX kernels and a few DSL
ops run on an NVIDIA GPU (CUDA target, and the portable HIP C++ through NVRTC).
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from gpu_util import HAVE_GPU, cp
from hypothesis import given, settings
from hypothesis import strategies as st

import tilec
from tilec import float32, tile_op
from tilec.symbols import PREFIX, comment_text, demangle, display, symbol

C_KEYWORDS = """auto break case char const continue default do double else enum extern float for goto
if inline int long register restrict return short signed sizeof static struct switch typedef union
unsigned void volatile while _Alignas _Alignof _Atomic _BitInt _Bool _Complex _Decimal32 _Decimal64
_Decimal128 _Generic _Imaginary _Noreturn _Static_assert _Thread_local alignas alignof bool constexpr
false nullptr static_assert thread_local true typeof typeof_unqual main""".split()
CXX_KEYWORDS = """and and_eq asm bitand bitor catch char8_t char16_t char32_t class compl concept
consteval constinit const_cast co_await co_return co_yield decltype delete dynamic_cast explicit
export final friend import module mutable namespace new noexcept not not_eq operator or or_eq
override private protected public reinterpret_cast requires static_cast template this throw try
typeid typename using virtual wchar_t xor xor_eq""".split()
PTX_WORDS = """address_size align branchtargets callprototype calltargets common const entry explicitcluster
extern file func global loc local maxclusterrank maxnctapersm maxnreg maxntid minnctapersm noreturn
param pragma reg reqnctapercluster reqntid section shared sreg target tex version visible weak
abs activemask add addc alloca and atom bar barrier bfe bfi bfind bmsk bra brev brkpt brx call clz
cnot copysign cos cp cvt cvta discard div elect ex2 exit fence fma fns getctarank griddepcontrol
isspacep istypep ld ldmatrix ldu lg2 lop3 mad mad24 madc mapa match max mbarrier membar min mma
mov movmatrix mul mul24 multimem nanosleep neg not or pmevent popc prefetch prefetchu prmt rcp red
redux rem ret rsqrt sad selp set setmaxnreg setp shf shfl shl shr sin slct sqrt st stackrestore
stacksave stmatrix sub suld suq sured sust szext tanh testp tex tld4 trap txq vabsdiff vadd vmad
vmax vmin vote vset vshl vshr vsub wgmma wmma xor tid ntid laneid warpid nwarpid ctaid nctaid smid
nsmid gridid clock clock64 lanemask_eq pm0 envreg0 globaltimer WARP_SZ pred b8 b16 b32 b64 s8 s16
s32 s64 u8 u16 u32 u64 f16 f16x2 f32 f64 bf16 tf32 r1 rd1 rs1 p1 f1 fd1 h1""".split()
PTX_HOSTILE = [".entry", ".visible", "%tid", "%r1", "$L_for_1", "tilec_param_0", "tilec_dsmem", "_param_0"]
LIBC = """malloc calloc realloc free aligned_alloc abort exit _exit atexit quick_exit printf fprintf
sprintf snprintf puts putchar getchar fopen fclose fflush fwrite fread memcpy memset memmove memcmp
strlen strcpy strncpy strcmp strncmp strcat strdup strchr strstr qsort bsearch rand srand time
clock errno stdin stdout stderr environ signal raise setjmp longjmp getenv setenv system open close
read write mmap munmap abs labs llabs div atoi atol atof strtol strtoul strtod assert NULL EOF FILE
size_t int8_t int16_t int32_t int64_t uint8_t uint32_t uint64_t intptr_t uintptr_t INT32_MAX
INT64_MIN SIZE_MAX RAND_MAX EXIT_SUCCESS pthread_create pthread_join dlopen dlsym _start _init
_fini __libc_start_main""".split()
LIBM = """exp expf exp2 expm1 log logf log2 log10 log1p sqrt sqrtf cbrt pow powf fabs fabsf tanh tanhf
erf erff erfc sin sinf cos cosf tan atan atan2 sinh cosh floor ceil round rint trunc fmod remainder
fma fmaf fmin fmax frexp ldexp modf hypot isnan isinf isfinite signbit nan nanf NAN INFINITY
HUGE_VAL M_PI M_E math_errhandling rsqrt rsqrtf""".split()
LIBGOMP = """omp_get_num_threads omp_get_thread_num omp_get_max_threads omp_set_num_threads
omp_in_parallel omp_get_wtime omp_get_num_procs omp_get_level omp_get_dynamic omp_set_dynamic
omp_init_lock omp_set_lock GOMP_parallel GOMP_parallel_start GOMP_parallel_end GOMP_barrier
GOMP_critical_start GOMP_critical_end GOMP_loop_static_start GOMP_loop_end GOMP_single_start
GOMP_atomic_start GOMP_atomic_end GOMP_task GOMP_taskwait GOMP_simd_lane""".split()
GPU_RUNTIME = """cudaMalloc cudaFree cudaMemcpy cudaLaunchKernel cudaDeviceSynchronize cuLaunchKernel
cuModuleLoadData cuModuleGetFunction hipMalloc hipFree hipMemcpy hipLaunchKernel
hipModuleLaunchKernel hipModuleGetFunction hipDeviceSynchronize __cudaRegisterFunction
__hipRegisterFunction threadIdx blockIdx blockDim gridDim warpSize __syncthreads __shfl_xor
__global__ __device__ __shared__ __launch_bounds__ dim3 half __half atomicAdd min max
hipThreadIdx_x __lane_id""".split()
HOSTILE = [
    "x;y",
    "my func",
    "a-b",
    "f.g",
    "0abc",
    "é",
    "日本語",
    "\N{GRINNING FACE}",
    "",
    " ",
    "x\ny",
    "a*/b",
    "/*",
    "//",
    "\\",
    "x\\",
    '"',
    'x"; int y = 0; "',
    "}",
    "{",
    "$",
    "@",
    "#define",
    "a b c",
    "Z",
    "ZZ",
    "Z20Z",
    "aZ2DZb",
    "a_2D_b",
    "_",
    "__",
    "___",
    "__init__",
    "_x",
    "x_",
    "a__b",
    "_Z3foov",
    "tilec_u_x",
    "tilec_x",
    "tilec_alloc",
    "tilec_expf",
    "tilec_lds",
    "tilec_f16",
    "x" * 300,
    "\t",
    "\x00",
    "\x7f",
    "\udcff",
]
GROUPS = {
    "C keywords": C_KEYWORDS,
    "C++ keywords": CXX_KEYWORDS,
    "PTX words": PTX_WORDS + PTX_HOSTILE,
    "libc": LIBC,
    "libm": LIBM,
    "libgomp": LIBGOMP,
    "CUDA / HIP": GPU_RUNTIME,
    "hostile": HOSTILE,
}
NAMES = list(dict.fromkeys(n for g in GROUPS.values() for n in g))
# the names an MLIR file can spell (the parser takes no NUL and no lone surrogate in a symbol)
FILE_NAMES = [n for n in NAMES if "\x00" not in n and not any(0xD800 <= ord(c) <= 0xDFFF for c in n)]

IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


# --- the mangling ---------------------------------------------------------------------------------


def check_symbol(name: str) -> str:
    s = symbol(name)
    assert IDENTIFIER.fullmatch(s), (name, s)  # a C, C++ and PTX identifier
    assert s.startswith(PREFIX) and "__" not in s, (name, s)  # reserved namespace; C++ reserves `__`
    assert demangle(s) == name, (name, s)  # reversible: distinct names stay distinct
    return s


def test_every_listed_name_is_mangled_apart():
    syms = [check_symbol(n) for n in NAMES]
    assert len(set(syms)) == len(NAMES)  # distinct
    listed = set(NAMES)
    assert not [s for s in syms if s in listed]  # never a keyword, libc / libm / libgomp / GPU name


def test_examples():
    assert symbol("softmax") == "tilec_u_softmax"
    assert symbol("omp_get_num_threads") == "tilec_u_omp_get_num_threads"
    assert symbol("my func") == "tilec_u_myZ20Zfunc"
    assert symbol("a-b") == "tilec_u_aZ2DZb" != symbol("a_2D_b") == "tilec_u_a_2D_b"
    assert symbol("é") == "tilec_u_ZE9Z" and symbol("Z") == "tilec_u_ZZ"
    assert symbol("_x") == "tilec_u_Z5FZx" and symbol("a__b") == "tilec_u_a_Z5FZb"


@settings(max_examples=300, deadline=None)
@given(st.text(), st.text())
def test_any_text_round_trips_and_stays_distinct(a, b):
    sa, sb = check_symbol(a), check_symbol(b)
    assert (sa == sb) == (a == b)
    shown = display(a)
    assert re.fullmatch(r"[ -~]*", shown) and "*/" not in shown and "\n" not in shown and not shown.endswith("\\")


def test_demangle_rejects_what_symbol_never_writes():
    for bad in ("softmax", "tilec_u_aZ41Zb", "tilec_u_aZ2D", "tilec_u_a__b", "tilec_u_ZGZ", "tilec_u_Z110000Z"):
        with pytest.raises(ValueError):
            demangle(bad)


@pytest.mark.parametrize("name", HOSTILE, ids=[ascii(n)[:40] for n in HOSTILE])
def test_names_shown_in_comments_cannot_end_them(name):
    for text in (display(name), comment_text(name), comment_text(f"{name} at {name}")):
        assert re.fullmatch(r"[ -~]*", text), text  # one line of printable ASCII
        assert "*/" not in text and not text.endswith("\\"), text


def test_display():
    assert display("softmax") == "@softmax" and display("f.g") == "@f.g"
    assert display("x;y") == '@"x;y"' and display("é") == '@"\\C3\\A9"' and display("a*/b") == '@"a\\2A\\2Fb"'


# --- through tilec-opt -t c | ptx | hip -------------------------------------------------------------


def mlir_symbol(name: str) -> str:
    """`@"..."` spelling `name` in an MLIR file (\\HH escapes for what is not printable ASCII)."""
    out = "".join(c if " " <= c <= "~" and c not in '"\\' else "".join(f"\\{b:02X}" for b in c.encode()) for c in name)
    return f'@"{out}"'


def tilec_opt(tmp_path, text: str, target: str) -> str:
    src, out = tmp_path / f"in_{target}.mlir", tmp_path / f"out.{target}"
    src.write_text(text, encoding="utf-8")
    tool = shutil.which("tilec-opt")
    cmd = [tool] if tool else [sys.executable, "-m", "tilec.cli"]
    r = subprocess.run([*cmd, str(src), "-t", target, "-o", str(out)], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr[-4000:]
    return out.read_text(encoding="utf-8")


def cpu_module() -> str:
    """Per name: an entry @name storing its number through a static function @"name/impl"."""
    funcs = []
    for i, n in enumerate(FILE_NAMES):
        funcs.append(f"""
hw.cpu.func {mlir_symbol(n + "/impl")}(%O: !hw.ptr<generic, i32>) {{
  %c = arith.constant {i} : i32
  %z = arith.constant 0 : i64
  hw.cpu.store %c, %O[%z] : i32, !hw.ptr<generic, i32>
  hw.cpu.return
}}
hw.cpu.func {mlir_symbol(n)}(%O: !hw.ptr<generic, i32>) attributes {{tilec.entry}} {{
  hw.cpu.call {mlir_symbol(n + "/impl")}(%O) : !hw.ptr<generic, i32>
  hw.cpu.return
}}""")
    return "\n".join(funcs)


def test_c_compiles_links_and_runs(tmp_path):
    source = tilec_opt(tmp_path, cpu_module(), "c")
    for n in FILE_NAMES:
        assert f"/* {display(n)} */\nint {symbol(n)}(" in source
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.fail("no C compiler")
    (tmp_path / "k.c").write_text(source)
    lib_path = tmp_path / "k.so"
    r = subprocess.run(
        [
            cc,
            "-O1",
            "-std=gnu11",
            "-fopenmp",
            "-fPIC",
            "-shared",
            "-Wall",
            "-Werror=implicit-function-declaration",
            str(tmp_path / "k.c"),
            "-o",
            str(lib_path),
            "-lm",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr[-4000:]
    nm = shutil.which("nm")
    if nm:  # the library defines no symbol outside tilec's namespace
        out = subprocess.run(
            [nm, "-D", "--defined-only", str(lib_path)], capture_output=True, text=True, check=True
        ).stdout
        exported = [line.split()[-1] for line in out.splitlines() if line.split()[1:2] in (["T"], ["t"], ["D"], ["B"])]
        assert exported and all(s.startswith(PREFIX) for s in exported), [
            s for s in exported if not s.startswith(PREFIX)
        ][:10]
    lib = ctypes.CDLL(str(lib_path))
    o = np.full(1, -1, np.int32)
    for i, n in enumerate(FILE_NAMES):
        f = getattr(lib, symbol(n))
        f.restype = ctypes.c_int
        assert f(ctypes.c_void_p(o.ctypes.data)) == 0 and o[0] == i, n


def nv_module(sm: str) -> str:
    """Per name: a kernel @name with a shared array of the same name, storing its number."""
    kernels = []
    for i, n in enumerate(FILE_NAMES):
        s = mlir_symbol(n)
        kernels.append(f"""
hw.nv.kernel {s}(%O: !hw.ptr<global>) sm "{sm[3:]}" maxntid [32, 1, 1] {{
  hw.nv.shared {s} 16 align 16
  %a = hw.nv.shared_addr {s} : i32
  %c = arith.constant {i} : i32
  %t = hw.nv.sreg tid.x : i32
  %z = arith.constant 0 : i32
  %first = arith.cmpi eq, %t, %z : i32
  hw.nv.st shared %a, %c : i32, i32
  hw.nv.bar_sync 0
  %v = hw.nv.ld shared %a : i32 -> i32
  scf.if %first {{
    %p = hw.ptr_to_int %O : !hw.ptr<global> -> i64
    hw.nv.st global %p, %v : i64, i32
  }}
  hw.nv.return
}}""")
    return "\n".join(kernels)


def ptxas_or_skip() -> str:
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have ptxas on PATH")
        pytest.skip("ptxas is not on PATH (install the CUDA toolkit)")
    return ptxas


@pytest.mark.parametrize("sm", ["sm_80", "sm_90a"])
def test_ptx_assembles(tmp_path, sm):
    ptxas = ptxas_or_skip()
    ptx = tilec_opt(tmp_path, nv_module(sm), "ptx")
    for n in FILE_NAMES:
        assert f"// {display(n)}\n.visible .entry {symbol(n)}(" in ptx
        assert f".b8 {symbol(n)}[16];  // {display(n)}" in ptx
    (tmp_path / "k.ptx").write_text(ptx)
    r = subprocess.run(
        [ptxas, f"-arch={sm}", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr[-4000:]


def amd_module() -> str:
    kernels = []
    for i, n in enumerate(FILE_NAMES):
        s = mlir_symbol(n)
        kernels.append(f"""
hw.amd.kernel {s}(%O: !hw.ptr<global, i32>) arch "gfx90a" wave 64 launch_bounds 64 {{
  hw.amd.lds {s} 16 align 16
  %a = hw.amd.lds_addr {s} : i32
  %c = arith.constant {i} : i32
  hw.amd.lds_store %a, %c : i32, i32
  %v = hw.amd.lds_load %a : i32 -> i32
  %p = hw.ptr_to_int %O : !hw.ptr<global, i32> -> i64
  hw.amd.global_store %p, %v : i64, i32
  hw.amd.return
}}""")
    return "\n".join(kernels)


def test_hip_compiles(tmp_path):
    src = tilec_opt(tmp_path, amd_module(), "hip")
    # the kernel names as test_hip_emulated.py reads them
    found = re.findall(r'extern "C" __global__ void (?:__launch_bounds__\(\d+\) )?(\w+)\(', src)
    assert found == [symbol(n) for n in FILE_NAMES]
    for n in FILE_NAMES:
        assert f'// {display(n)}\nextern "C" __global__ void __launch_bounds__(64) {symbol(n)}(' in src
    hipcc = shutil.which("hipcc") or ("/opt/rocm/bin/hipcc" if os.path.exists("/opt/rocm/bin/hipcc") else None)
    if hipcc is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have hipcc")
        pytest.skip("hipcc is not installed")
    (tmp_path / "k.hip").write_text(src)
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    r = subprocess.run(
        [hipcc, "--genco", "--offload-arch=gfx90a", "-O1", str(tmp_path / "k.hip"), "-o", str(tmp_path / "k.co")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert r.returncode == 0, (r.stderr or r.stdout)[-4000:]


def test_unprintable_names_are_still_mangled(tmp_path):
    """Names no MLIR file spells (NUL, lone surrogates) still get a valid, distinct symbol."""
    rest = [n for n in NAMES if n not in FILE_NAMES]
    assert rest and len({check_symbol(n) for n in rest}) == len(rest)


# --- through the DSL on the CPU target ----------------------------------------------------------------

DSL_NAMES = [
    "omp_get_num_threads",
    "omp_get_thread_num",
    "GOMP_parallel",
    "exp",
    "expf",
    "sqrtf",
    "free",
    "malloc",
    "memcpy",
    "abort",
    "main",
    "int",
    "static",
    "printf",
    "errno",
    "tilec_alloc",
    "é",
    "_start",
]


def dsl_op(name: str, params: tuple[str, ...] = ("x",)):
    """A @tile_op function called `name` (a parallel loop over rows with math calls)."""
    a = params[0]
    rest = "".join(f" + {p}" for p in params[1:])
    src = f"def {name}({', '.join(params)}):\n    return tilec.exp({a}) * 2.0 + tilec.sqrt(tilec.abs({a})){rest} - tilec.tanh({a})\n"
    ns: dict = {"tilec": tilec}
    exec(compile(src, f"<{name}>", "exec"), ns)  # noqa: S102 - a function of that name
    return tile_op(dtype=float32)(ns[name])


def _inputs(n: int):
    rng = np.random.default_rng(5)
    return [rng.standard_normal((64, 300)).astype(np.float32) for _ in range(n)]


@pytest.mark.parametrize("name", DSL_NAMES)
def test_dsl_function_names_on_cpu(name):
    op = dsl_op(name)
    (x,) = _inputs(1)
    got = op(x)
    np.testing.assert_allclose(got, tilec.interpret(op, x), rtol=2e-5, atol=1e-5)
    src = op.source("cpu", x)
    assert f"int {symbol(name)}(" in src and f"/* {display(name)} */" in src


def test_dsl_parameter_names_on_cpu():
    """Parameters become C variables: names of the C library or keywords of C++ do not break it."""
    params = ("sqrtf", "errno", "INT32_MAX", "int8_t", "memcpy", "NAN", "_Bool", "a__b", "fabsf", "powf")
    op = dsl_op("params", params)
    xs = _inputs(len(params))
    np.testing.assert_allclose(op(*xs), tilec.interpret(op, *xs), rtol=2e-5, atol=1e-5)


def test_omp_runtime_still_works_beside_a_function_named_after_it():
    """`def omp_get_num_threads` no longer replaces libgomp's: the parallel loop of another op runs."""
    shadow, other = dsl_op("omp_get_num_threads"), dsl_op("after_shadow")
    (x,) = _inputs(1)
    shadow(x)
    np.testing.assert_allclose(other(x), tilec.interpret(other, x), rtol=2e-5, atol=1e-5)


# --- on an NVIDIA GPU ----------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
def test_ptx_kernels_run_by_their_symbol(tmp_path):
    ptx = tilec_opt(tmp_path, nv_module("sm_80"), "ptx")
    (tmp_path / "k.ptx").write_text(ptx)
    module = cp.RawModule(path=str(tmp_path / "k.ptx"))
    o = cp.full(1, -1, cp.int32)
    for i, n in enumerate(FILE_NAMES):
        module.get_function(symbol(n))((1,), (32,), (o,))
        assert int(o[0]) == i, n


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
@pytest.mark.parametrize("name", ["omp_get_num_threads", "exp", "free", "main", "cudaMalloc", "threadIdx", "é"])
def test_dsl_function_names_on_gpu(name):
    op = dsl_op(name)
    (x,) = _inputs(1)
    ref = tilec.interpret(op, x)
    np.testing.assert_allclose(cp.asnumpy(op(cp.asarray(x))), ref, rtol=2e-5, atol=1e-5)  # CUDA target
    k = op.compile("hip", x, portable=True)  # the HIP C++, through NVRTC
    np.testing.assert_allclose(np.asarray(k.run_cuda_compat(x)[0]), ref, rtol=2e-5, atol=1e-5)
