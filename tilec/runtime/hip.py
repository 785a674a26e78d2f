"""The HIP runtime: HIP C++ -> (hipcc) code object; the host program runs in Python.

`compile_hip(module, **options)` lowers a tile module to mapped IR (kernels + `mapped.host`),
lowers the kernels to hw.amd (pipeline `lower-to-hip`), emits HIP C++ and compiles it with
`hipcc --genco --offload-arch=<arch>` (HIP_PLATFORM=amd; Debian's `hipcc` package works) into a
code object, cached on disk like the other targets' binaries. No GPU is needed for any of this:
`HipKernel.source` is the HIP C++, `.code_object` the compiled bundle, `.disassemble()` and
`.metadata()` read it back with the LLVM tools next to hipcc's clang.

Calling the kernel (`kernel(*numpy_arrays)`) needs an AMD GPU and the HIP runtime
(libamdhip64, loaded with ctypes): it copies the inputs to the device, executes the host program
(temporaries, reshaped views, launches with grids from the actual sizes), copies the outputs
back and returns numpy arrays. Without a GPU it stops with "no AMD GPU found" — after compiling.

`kernel.run_cuda_compat(*arrays)` runs the same host program on an NVIDIA GPU (CuPy): the HIP
source, with tilec/emit/hip_compat_cuda.h prepended, is compiled by NVRTC. This checks the
semantics of the PORTABLE emission (`portable=True`: wave 32, no matrix cores).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp

from tilec.diagnostics import TilecError
from tilec.dialects import mapped, tile
from tilec.dialects.common import DYNAMIC
from tilec.runtime.cache import cache_key, get_or_build
from tilec.runtime.dtypes import numpy_dtype
from tilec.runtime.shapes import check_shapes

INSTALL_HINT = "install it with `apt-get install hipcc` (Debian/Ubuntu) or ROCm, or put it on PATH"


# --- the compiler -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class HipCompiler:
    hipcc: str
    clang: str  # the clang hipcc drives (its folder has llvm-objdump, llvm-readelf, clang-offload-bundler)
    version: str

    def tool(self, name: str) -> str:
        """An LLVM tool of hipcc's LLVM (llvm-objdump, llvm-readelf, clang-offload-bundler)."""
        folder = Path(self.clang).parent
        for cand in (folder / name, *sorted(folder.glob(f"{name}-*"))):
            if cand.exists():
                return str(cand)
        found = shutil.which(name)
        if found:
            return found
        raise TilecError(f"{name} not found next to hipcc's clang ({folder})")


def hip_env() -> dict[str, str]:
    env = dict(os.environ)
    env["HIP_PLATFORM"] = "amd"  # hipcc would pick nvcc where CUDA is installed
    return env


def find_hipcc() -> str | None:
    for cand in (os.environ.get("HIPCC"), shutil.which("hipcc")):
        if cand and os.path.exists(cand):
            return cand
    for root in (os.environ.get("ROCM_PATH"), os.environ.get("HIP_PATH"), "/opt/rocm"):
        if root and os.path.exists(os.path.join(root, "bin", "hipcc")):
            return os.path.join(root, "bin", "hipcc")
    return None


@functools.cache
def compiler() -> HipCompiler:
    hipcc = find_hipcc()
    if hipcc is None:
        raise TilecError(f"hipcc not found: the hip target compiles with hipcc; {INSTALL_HINT}")
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "probe.hip"
        src.write_text("__global__ void k() {}\n")
        r = subprocess.run(
            [hipcc, "-###", "--offload-arch=gfx90a", "--genco", str(src), "-o", str(Path(d) / "probe.co")],
            capture_output=True, text=True, env=hip_env(),
        )
    text = r.stdout + r.stderr
    m = re.search(r'"([^"\s]*/clang(?:-\d+)?(?:\+\+)?)"', text)
    if r.returncode != 0 or m is None:
        raise TilecError(f"hipcc ({hipcc}) does not run for AMD GPUs (HIP_PLATFORM=amd):\n{text[-2000:]}")
    version = next((ln.strip() for ln in text.splitlines() if "clang version" in ln), "unknown clang")
    return HipCompiler(hipcc, m.group(1), version)


def compile_source(source: str, arch: str) -> tuple[Path, bool]:
    """A code object (clang offload bundle) for `arch` built from HIP C++ (cached); (path, hit)."""
    cc = compiler()
    flags = ["--genco", f"--offload-arch={arch}", "-O3"]
    key = cache_key("hip", source, cc.hipcc, cc.version, " ".join(flags))

    def build(out: Path) -> None:
        with tempfile.TemporaryDirectory() as d:
            src = Path(d) / "kernel.hip"
            src.write_text(source)
            r = subprocess.run([cc.hipcc, *flags, str(src), "-o", str(out)], capture_output=True, text=True, env=hip_env())
            if r.returncode != 0:
                raise TilecError(
                    f"hipcc rejected tilec's generated HIP C++ for {arch} (a tilec bug):\n" + (r.stderr or r.stdout)[-4000:],
                    notes=("rerun with TILEC_KEEP_HIP=1 to keep the source next to the cache entry",),
                )
            if os.environ.get("TILEC_KEEP_HIP"):
                out.with_suffix(".hip").write_text(source)

    return get_or_build(key, ".hsaco", build)


def device_elf(code_object: Path, arch: str) -> bytes:
    """The AMDGPU ELF of `arch` inside a code object (bundles are unbundled)."""
    data = code_object.read_bytes()
    if not data.startswith(b"__CLANG_OFFLOAD_BUNDLE__"):
        return data
    bundler = compiler().tool("clang-offload-bundler")
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "device.co"
        targets = [f"hipv4-amdgcn-amd-amdhsa--{arch}", f"hip-amdgcn-amd-amdhsa--{arch}"]
        errors = []
        for t in targets:
            r = subprocess.run(
                [bundler, "--unbundle", "--type=o", f"--input={code_object}", f"--targets={t}", f"--output={out}"],
                capture_output=True, text=True,
            )
            if r.returncode == 0 and out.exists() and out.stat().st_size:
                return out.read_bytes()
            errors.append(r.stderr.strip())
    raise TilecError(f"no {arch} code object in {code_object.name}: {'; '.join(errors)}")


def _with_elf(code_object: Path, arch: str, args: list[str]) -> str:
    with tempfile.TemporaryDirectory() as d:
        elf = Path(d) / "device.co"
        elf.write_bytes(device_elf(code_object, arch))
        r = subprocess.run([*args, str(elf)], capture_output=True, text=True)
        if r.returncode != 0:
            raise TilecError(f"{Path(args[0]).name} failed: {r.stderr[-2000:]}")
        return r.stdout


def disassemble(code_object: Path, arch: str) -> str:
    return _with_elf(code_object, arch, [compiler().tool("llvm-objdump"), "-d", f"--mcpu={arch}"])


def kernel_metadata(code_object: Path, arch: str) -> dict[str, dict[str, object]]:
    """Per kernel name: the scalar entries of its code-object metadata (`vgpr_count`,
    `agpr_count`, `sgpr_count`, `private_segment_fixed_size` (scratch bytes per work-item),
    `vgpr_spill_count`, `group_segment_fixed_size` (LDS bytes), `wavefront_size`, ...)."""
    notes = _with_elf(code_object, arch, [compiler().tool("llvm-readelf"), "--notes"])
    kernels: list[dict[str, object]] = []
    cur: dict[str, object] | None = None
    for line in notes.splitlines():
        m = re.match(r"^( *)(- )?\.(\w+):\s*(.*)$", line)
        if not m:
            if line[:1].strip():
                cur = None  # a top-level key ends the kernel list
            continue
        lead, dash, key, value = len(m.group(1)), m.group(2), m.group(3), m.group(4).strip()
        if dash and lead == 2:
            cur = {}
            kernels.append(cur)
        if cur is None or lead + (2 if dash else 0) != 4:
            continue  # nested entries (arguments)
        cur[key] = int(value) if re.fullmatch(r"-?\d+", value) else value
    return {str(k.get("name")): k for k in kernels}


# --- launch information -------------------------------------------------------------------------------


@dataclass
class _LaunchInfo:
    grid: mapped.GridAttr
    block: tuple[int, int, int]
    smem: int
    arg_types: list


class HipKernel:
    """A tile.func compiled for AMD GPUs: `.source` (HIP C++), `.code_object` (hipcc's bundle),
    `.arch`, `.wave`; call it with numpy arrays on a machine with an AMD GPU."""

    def __init__(self, func: tile.FuncOp, mapped_module: ModuleOp, source: str, arch: str, wave: int, portable: bool):
        self.func = func
        self.name = func.sym_name.data
        self.source = source
        self.arch = arch
        self.wave = wave
        self.portable = portable
        self._code_object: Path | None = None
        self._compile_error: TilecError | None = None
        self.cache_hit = False
        self.host = next(op for op in mapped_module.body.block.ops if isinstance(op, mapped.HostOp))
        self.launch_info: dict[str, _LaunchInfo] = {}
        for op in mapped_module.body.block.ops:
            if isinstance(op, mapped.KernelOp):
                self.launch_info[op.sym_name.data] = _LaunchInfo(
                    op.grid, tuple(op.block_size.iter_values()), op.smem_bytes, list(op.function_type.inputs.data)
                )
        self._in_types = list(func.function_type.inputs.data)
        self._out_types = list(func.function_type.outputs.data)
        self._plans: dict = {}
        self._devices: dict[str, object] = {}

    def __repr__(self) -> str:
        where = self._code_object.name if self._code_object else "not compiled"
        return f"<HipKernel @{self.name} {self.arch} wave {self.wave} from {where}>"

    # --- the compiled code object ---------------------------------------------------------------

    def build(self) -> None:
        """Compile the source with hipcc (done by compile_hip when hipcc is installed)."""
        try:
            self._code_object, self.cache_hit = compile_source(self.source, self.arch)
            self._compile_error = None
        except TilecError as e:
            self._compile_error = e
            raise

    @property
    def code_object(self) -> Path:
        if self._code_object is None:
            if self._compile_error is not None:
                raise self._compile_error
            self.build()
        assert self._code_object is not None
        return self._code_object

    def disassemble(self) -> str:
        return disassemble(self.code_object, self.arch)

    def metadata(self) -> dict[str, dict[str, object]]:
        return kernel_metadata(self.code_object, self.arch)

    # --- running ----------------------------------------------------------------------------------

    def __call__(self, *args):
        """Run on the AMD GPU: numpy arrays in, numpy arrays out (a tuple)."""
        code = self.code_object  # compile first: its errors come before "no AMD GPU found"
        dev = self._devices.get("hip")
        if dev is None:
            dev = _HipDevice(code, list(self.launch_info))
            self._devices["hip"] = dev
        return self._run(dev, args)

    def run_cuda_compat(self, *args):
        """Run the HIP C++ on an NVIDIA GPU through hip_compat_cuda.h and NVRTC (CuPy)."""
        if not self.portable:
            raise TilecError(
                "run_cuda_compat runs the portable emission only (compile with portable=True: wave 32, no matrix cores)"
            )
        dev = self._devices.get("cuda")
        if dev is None:
            dev = _CudaCompatDevice(self.source, list(self.launch_info))
            self._devices["cuda"] = dev
        return self._run(dev, args)

    def _run(self, dev, args):
        if len(args) != len(self._in_types):
            raise TilecError(f"@{self.name} takes {len(self._in_types)} input(s), got {len(args)}")
        host_inputs = []
        for i, (t, a) in enumerate(zip(self._in_types, args)):
            arg = self.func.input_args[i]
            name = f"%{arg.name_hint}" if arg.name_hint else f"#{i}"
            if isinstance(t, tile.ArrayType):
                if hasattr(a, "__cuda_array_interface__") and hasattr(a, "get"):
                    a = a.get()
                a = np.asarray(a)
                want = numpy_dtype(t.element_type)
                if a.dtype != want:
                    raise TilecError(f"input {name} (argument {i}) must have dtype {want}, got {a.dtype}")
                host_inputs.append(np.ascontiguousarray(a))
            else:
                host_inputs.append(a)
        key = tuple(tuple(p.shape) if isinstance(t, tile.ArrayType) else p for p, t in zip(host_inputs, self._in_types))
        shapes = check_shapes(self.func, list(key))
        out_specs = [(s, numpy_dtype(t.element_type)) for s, t in zip(shapes, self._out_types)]
        env: dict = {}
        owned = []
        block_args = list(self.host.body.block.args)
        outs = []
        try:
            for a, v, t in zip(block_args, host_inputs, self._in_types):
                if isinstance(t, tile.ArrayType):
                    env[a] = dev.to_device(v)
                    owned.append(env[a])
                else:
                    env[a] = v
            for a, (s, d) in zip(block_args[len(host_inputs):], out_specs):
                env[a] = dev.empty(s, d)
                owned.append(env[a])
                outs.append(env[a])
            for op in self.host.body.block.ops:
                if isinstance(op, mapped.DimOp):
                    env[op.result] = int(env[op.source].shape[op.axis.data])
                elif isinstance(op, arith.ConstantOp):
                    v = op.value
                    env[op.result] = v.value.data if isinstance(v, IntegerAttr) else float(v.value.data)
                elif isinstance(op, arith.AddiOp | arith.SubiOp | arith.MuliOp | arith.DivUIOp | arith.RemUIOp | arith.CeilDivUIOp):
                    a, b = env[op.operands[0]], env[op.operands[1]]
                    env[op.results[0]] = {
                        arith.AddiOp: lambda: a + b, arith.SubiOp: lambda: a - b, arith.MuliOp: lambda: a * b,
                        arith.DivUIOp: lambda: a // b, arith.RemUIOp: lambda: a % b, arith.CeilDivUIOp: lambda: -(-a // b),
                    }[type(op)]()
                elif isinstance(op, mapped.TempOp | mapped.ViewOp):
                    t = op.result.type
                    it = iter(env[s] for s in op.sizes)
                    shape = tuple(next(it) if d == DYNAMIC else d for d in t.get_shape())
                    if isinstance(op, mapped.TempOp):
                        env[op.result] = dev.empty(shape, numpy_dtype(t.element_type))
                        owned.append(env[op.result])
                    else:
                        env[op.result] = dev.view(env[op.source], shape)
                elif isinstance(op, mapped.LaunchOp):
                    self._launch(dev, op.kernel_name.root_reference.data, [env[a] for a in op.args])
                elif isinstance(op, mapped.ReturnOp):
                    break
                else:
                    raise TilecError(f"the HIP runtime cannot execute {op.name} on the host")
            dev.synchronize()
            return tuple(dev.to_host(o) for o in outs)
        finally:
            for b in owned:
                dev.free(b)

    def _launch(self, dev, name: str, values: list) -> None:
        info = self.launch_info[name]
        grid_args = [tuple(v.shape) if isinstance(t, mapped.BufType) else v for v, t in zip(values, info.arg_types)]
        grid = info.grid.evaluate(grid_args)
        if any(g == 0 for g in grid):
            return  # an empty dimension: nothing to launch
        params: list = []
        for v, t in zip(values, info.arg_types):
            if isinstance(t, mapped.BufType):
                _check_32bit(name, v.shape)
                params.append(v)
                params += [np.int64(v.shape[ax]) for ax, d in enumerate(t.get_shape()) if d == DYNAMIC]
            elif isinstance(t, IndexType):
                params.append(np.int64(v))
            elif isinstance(t, IntegerType):
                params.append(np.dtype(f"int{max(8, t.width.data)}").type(v))
            else:
                params.append(numpy_dtype(t).type(v))
        dev.launch(name, tuple(grid), info.block, 0, params)  # LDS is static in the HIP kernels


def _check_32bit(kernel: str, shape: tuple) -> None:
    n = 1
    for d in shape:
        n *= d
    if n >= 2**31:
        raise TilecError(
            f"@{kernel}: a buffer of shape {shape} has {n} elements; GPU kernels index with 32 bits "
            f"(at most 2**31 - 1 elements per buffer) — split the problem"
        )


# --- devices ------------------------------------------------------------------------------------------


@dataclass
class _DevBuf:
    ptr: int
    shape: tuple
    dtype: np.dtype
    owner: bool = True

    @property
    def nbytes(self) -> int:
        n = self.dtype.itemsize
        for d in self.shape:
            n *= d
        return n


def _hip_library():
    names = []
    for root in (os.environ.get("ROCM_PATH"), os.environ.get("HIP_PATH"), "/opt/rocm"):
        if root:
            names += [os.path.join(root, "lib", "libamdhip64.so")]
    found = ctypes.util.find_library("amdhip64")
    names += [found] if found else []
    names += ["libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"]
    for n in names:
        try:
            return ctypes.CDLL(n)
        except OSError:
            continue
    raise TilecError("no AMD GPU found: the HIP runtime (libamdhip64) is not installed")


class _HipDevice:
    """Device memory and launches through the HIP runtime (ctypes, libamdhip64)."""

    H2D, D2H = 1, 2

    def __init__(self, code_object: Path, kernels: list[str]):
        lib = _hip_library()
        self.lib = lib
        lib.hipGetErrorString.restype = ctypes.c_char_p
        count = ctypes.c_int(0)
        err = lib.hipGetDeviceCount(ctypes.byref(count))
        if err != 0 or count.value < 1:
            why = lib.hipGetErrorString(err).decode() if err != 0 else "0 devices"
            raise TilecError(f"no AMD GPU found (hipGetDeviceCount: {why}); the code object is compiled: {code_object}")
        self.module = ctypes.c_void_p()
        image = code_object.read_bytes()
        self._image = ctypes.create_string_buffer(image, len(image))
        self._check(lib.hipModuleLoadData(ctypes.byref(self.module), self._image), "hipModuleLoadData (is the GPU the code object's arch?)")
        self.functions = {}
        for name in kernels:
            f = ctypes.c_void_p()
            self._check(lib.hipModuleGetFunction(ctypes.byref(f), self.module, name.encode()), f"hipModuleGetFunction({name})")
            self.functions[name] = f

    def _check(self, err: int, what: str) -> None:
        if err != 0:
            raise TilecError(f"HIP error in {what}: {self.lib.hipGetErrorString(err).decode()}")

    def to_device(self, a: np.ndarray) -> _DevBuf:
        b = self.empty(a.shape, a.dtype)
        if b.nbytes:
            self._check(self.lib.hipMemcpy(ctypes.c_void_p(b.ptr), a.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(b.nbytes), self.H2D), "hipMemcpy")
        return b

    def empty(self, shape, dtype) -> _DevBuf:
        b = _DevBuf(0, tuple(shape), np.dtype(dtype))
        p = ctypes.c_void_p()
        self._check(self.lib.hipMalloc(ctypes.byref(p), ctypes.c_size_t(max(b.nbytes, 1))), "hipMalloc")
        b.ptr = p.value or 0
        return b

    def view(self, b: _DevBuf, shape) -> _DevBuf:
        return _DevBuf(b.ptr, tuple(shape), b.dtype, owner=False)

    def to_host(self, b: _DevBuf) -> np.ndarray:
        out = np.empty(b.shape, b.dtype)
        if b.nbytes:
            self._check(self.lib.hipMemcpy(out.ctypes.data_as(ctypes.c_void_p), ctypes.c_void_p(b.ptr), ctypes.c_size_t(b.nbytes), self.D2H), "hipMemcpy")
        return out

    def free(self, b: _DevBuf) -> None:
        if b.owner and b.ptr:
            self.lib.hipFree(ctypes.c_void_p(b.ptr))
            b.ptr = 0

    def synchronize(self) -> None:
        self._check(self.lib.hipDeviceSynchronize(), "hipDeviceSynchronize")

    def launch(self, name: str, grid, block, smem: int, params: list) -> None:
        holders = []
        for p in params:
            if isinstance(p, _DevBuf):
                holders.append(ctypes.c_void_p(p.ptr))
            else:
                arr = np.array(p)
                holders.append((ctypes.c_char * arr.nbytes).from_buffer_copy(arr.tobytes()))
        ptrs = (ctypes.c_void_p * len(holders))(*[ctypes.cast(ctypes.pointer(h), ctypes.c_void_p) for h in holders])
        u = ctypes.c_uint
        self._check(
            self.lib.hipModuleLaunchKernel(
                self.functions[name], u(grid[0]), u(grid[1]), u(grid[2]), u(block[0]), u(block[1]), u(block[2]),
                u(smem), ctypes.c_void_p(0), ptrs, ctypes.c_void_p(0),
            ),
            f"hipModuleLaunchKernel({name})",
        )


class _CudaCompatDevice:
    """The same host program on an NVIDIA GPU: CuPy memory, the HIP source compiled by NVRTC."""

    def __init__(self, source: str, kernels: list[str]):
        from tilec.runtime.cuda import cupy
        from tilec.emit.hip import cuda_compat_source

        cp = cupy()
        self.cp = cp
        self.module = cp.RawModule(code=cuda_compat_source(source), backend="nvrtc", options=("-std=c++14",))
        self.functions = {name: self.module.get_function(name) for name in kernels}

    def to_device(self, a: np.ndarray):
        return self.cp.asarray(a)

    def empty(self, shape, dtype):
        return self.cp.empty(tuple(shape), dtype=dtype)

    def view(self, b, shape):
        return b.reshape(tuple(shape))

    def to_host(self, b) -> np.ndarray:
        return self.cp.asnumpy(b)

    def free(self, b) -> None:
        pass

    def synchronize(self) -> None:
        self.cp.cuda.Device().synchronize()

    def launch(self, name: str, grid, block, smem: int, params: list) -> None:
        self.functions[name](tuple(grid), tuple(block), tuple(params), shared_mem=smem)


# --- compiling ------------------------------------------------------------------------------------------


def compile_hip(module: ModuleOp, **options) -> HipKernel:
    """Lower, emit and (when hipcc is installed) compile a tile module for an AMD GPU."""
    from tilec.dialects import tile as tile_d
    from tilec.passes import run_pipeline
    from tilec.passes.pipelines import HIP_OPTIONS, hip_settings
    from tilec.emit.hip import emit_hip

    known = {k.replace("-", "_") for k in HIP_OPTIONS}
    unknown = set(options) - known
    if unknown:
        raise TilecError(f"unknown option(s) for target hip: {', '.join(sorted(unknown))} (options: {', '.join(sorted(known))})")
    arch, wave, portable, mapping = hip_settings(**options)
    mapped_module = module.clone()
    run_pipeline(mapped_module, f"tile-canonicalize,tile-fuse,tile-to-mapped{{target=gpu {mapping}}}")
    hw_module = mapped_module.clone()
    run_pipeline(hw_module, f"mapped-expand-pipeline,mapped-to-hw-amd{{arch={arch} portable={str(portable).lower()}}}")
    source = emit_hip(hw_module)
    func = next(op for op in module.body.block.ops if isinstance(op, tile_d.FuncOp))
    kernel = HipKernel(func.clone(), mapped_module, source, arch, wave, portable)
    if find_hipcc() is not None:
        kernel.build()
    return kernel


__all__ = ["compile_hip", "HipKernel", "compiler", "find_hipcc", "compile_source", "disassemble", "kernel_metadata"]
