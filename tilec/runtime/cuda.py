"""The CUDA runtime: PTX -> (ptxas) cubin -> CuPy module; the host program runs in Python.

`compile_cuda(module, **options)` lowers a tile module to mapped IR (kernels + `mapped.host`),
lowers the kernels to hw.nv and emits one PTX module. The PTX is assembled with `ptxas` when it
is on PATH (cubin, cached on disk like the C libraries) and otherwise handed to the driver to
JIT. Calling the kernel object with CuPy arrays (or anything with `__cuda_array_interface__` /
DLPack, e.g. torch tensors) executes the host program: it allocates temporaries with CuPy,
evaluates launch grids from the actual sizes and launches each kernel on the current stream.
"""

from __future__ import annotations

import functools
import os
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


def cupy():
    try:
        import cupy as cp
    except ImportError:
        raise TilecError("the cuda target needs CuPy (pip install 'tilec[cuda]')") from None
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            raise TilecError("no NVIDIA GPU found")
    except cp.cuda.runtime.CUDARuntimeError:
        raise TilecError("no NVIDIA GPU found (the CUDA driver reports none)") from None
    return cp


def device_sm() -> str:
    cp = cupy()
    return f"sm_{cp.cuda.Device().compute_capability}"


@functools.cache
def _ptxas() -> tuple[str, str] | None:
    path = shutil.which("ptxas")
    if not path:
        return None
    version = subprocess.run([path, "--version"], capture_output=True, text=True).stdout.strip().split("\n")[-1]
    return path, version


def assemble(ptx: str, sm: str) -> tuple[Path, bool]:
    """A cubin (ptxas) or the PTX itself (driver JIT) in the cache; returns (path, cache hit)."""
    tool = _ptxas()
    if tool is None:
        return get_or_build(cache_key("ptx", ptx), ".ptx", lambda out: out.write_text(ptx))
    path, version = tool
    extra = os.environ.get("TILEC_PTXAS_FLAGS", "").split()  # tuning experiments (-maxrregcount is ignored: kernels declare .maxntid)

    def build(out: Path) -> None:
        with tempfile.TemporaryDirectory() as d:
            src = Path(d) / "kernel.ptx"
            src.write_text(ptx)
            r = subprocess.run([path, f"-arch={sm}", "-O3", *extra, str(src), "-o", str(out)], capture_output=True, text=True)
            if r.returncode != 0:
                raise TilecError("ptxas rejected tilec's generated PTX (a tilec bug):\n" + r.stderr[-4000:])

    return get_or_build(cache_key("cubin", ptx, sm, version, " ".join(extra)), ".cubin", build)


@dataclass
class _LaunchInfo:
    grid: mapped.GridAttr
    block: tuple[int, int, int]
    smem: int
    arg_types: list


class CudaKernel:
    """A compiled tile.func for NVIDIA GPUs. Call it with device arrays; returns CuPy arrays."""

    def __init__(self, func: tile.FuncOp, mapped_module: ModuleOp, ptx: str, binary: Path, cache_hit: bool, sm: str):
        cp = cupy()
        self.func = func
        self.name = func.sym_name.data
        self.source = ptx
        self.binary = binary
        self.cache_hit = cache_hit
        self.sm = sm
        self.host = next(op for op in mapped_module.body.block.ops if isinstance(op, mapped.HostOp))
        self.launch_info: dict[str, _LaunchInfo] = {}
        for op in mapped_module.body.block.ops:
            if isinstance(op, mapped.KernelOp):
                self.launch_info[op.sym_name.data] = _LaunchInfo(
                    op.grid, tuple(op.block_size.iter_values()), op.smem_bytes, list(op.function_type.inputs.data)
                )
        self._module = cp.RawModule(path=str(binary))
        self._functions = {}
        for name, info in self.launch_info.items():
            fn = self._module.get_function(name)
            if info.smem > 48 * 1024:
                fn.max_dynamic_shared_size_bytes = info.smem
            self._functions[name] = fn
        self._in_types = list(func.function_type.inputs.data)
        self._out_types = list(func.function_type.outputs.data)
        self._plans: dict = {}
        self._in_dtypes = [numpy_dtype(t.element_type) if isinstance(t, tile.ArrayType) else None for t in self._in_types]

    def __repr__(self) -> str:
        return f"<CudaKernel @{self.name} {self.sm} from {self.binary.name}>"

    def _prepare(self, i: int, t, value):
        cp = cupy()
        arg = self.func.input_args[i]
        name = f"%{arg.name_hint}" if arg.name_hint else f"#{i}"
        if isinstance(t, tile.ArrayType):
            if not isinstance(value, cp.ndarray):
                if hasattr(value, "__cuda_array_interface__") or hasattr(value, "__dlpack__"):
                    value = cp.asarray(value) if hasattr(value, "__cuda_array_interface__") else cp.from_dlpack(value)
                else:
                    raise TilecError(f"input {name} (argument {i}) must be a device array (CuPy, torch, ...), got {type(value).__name__}")
            want = self._in_dtypes[i]
            if value.dtype != want:
                raise TilecError(f"input {name} (argument {i}) must have dtype {want}, got {value.dtype}")
            return cp.ascontiguousarray(value)
        return value

    def __call__(self, *args):
        cp = cupy()
        if len(args) != len(self._in_types):
            raise TilecError(f"@{self.name} takes {len(self._in_types)} input(s), got {len(args)}")
        prepared = [self._prepare(i, t, a) for i, (t, a) in enumerate(zip(self._in_types, args))]
        key = tuple(tuple(p.shape) if isinstance(t, tile.ArrayType) else p for p, t in zip(prepared, self._in_types))
        plan = self._plans.get(key)
        if plan is None:
            shapes = check_shapes(self.func, list(key))
            plan = self._plan(prepared, shapes)
            self._plans[key] = plan
        out_specs, steps = plan
        outs = [cp.empty(s, dtype=d) for s, d in out_specs]
        slots = [*prepared, *outs]
        for step in steps:
            step(slots)
        return tuple(outs)

    def _plan(self, prepared: list, shapes: list) -> tuple[list, list]:
        """Run the host program once on these sizes and record it as a list of fast steps.

        Every size, temporary shape, grid and scalar parameter depends only on the input shapes,
        so later calls with the same shapes replay the steps (allocate, reshape, launch)."""
        cp = cupy()
        out_specs = [(s, numpy_dtype(t.element_type)) for s, t in zip(shapes, self._out_types)]
        block_args = list(self.host.body.block.args)
        slot_of: dict = {a: i for i, a in enumerate(block_args)}
        env: dict = {}
        for a, v in zip(block_args, [*prepared, *[cp.empty(s, dtype=d) for s, d in out_specs]]):
            env[a] = v
        steps: list = []
        nslots = len(block_args)
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
                slot = nslots
                nslots += 1
                slot_of[op.result] = slot
                if isinstance(op, mapped.TempOp):
                    dtype = numpy_dtype(t.element_type)
                    env[op.result] = cp.empty(shape, dtype=dtype)
                    steps.append(_alloc_step(slot, shape, dtype))
                else:
                    src = slot_of[op.source]
                    env[op.result] = env[op.source].reshape(shape)
                    steps.append(_view_step(slot, src, shape))
            elif isinstance(op, mapped.LaunchOp):
                step = self._launch_step(op.kernel_name.root_reference.data, op.args, env, slot_of)
                if step is not None:
                    steps.append(step)
            elif isinstance(op, mapped.ReturnOp):
                break
            else:
                raise TilecError(f"the CUDA runtime cannot execute {op.name} on the host")
        return out_specs, steps

    def _launch_step(self, name: str, args, env: dict, slot_of: dict):
        info = self.launch_info[name]
        values = [env[a] for a in args]
        grid_args = [tuple(v.shape) if isinstance(t, mapped.BufType) else v for v, t in zip(values, info.arg_types)]
        grid = info.grid.evaluate(grid_args)
        if any(g == 0 for g in grid):
            return None  # an empty dimension: nothing to launch
        template: list = []  # a slot index (buffer) or a ready numpy scalar
        for a, v, t in zip(args, values, info.arg_types):
            if isinstance(t, mapped.BufType):
                _check_32bit(name, v.shape)
                template.append(slot_of[a])
                template += [np.int64(v.shape[ax]) for ax, d in enumerate(t.get_shape()) if d == DYNAMIC]
            elif isinstance(t, IndexType):
                template.append(np.int64(v))
            elif isinstance(t, IntegerType):
                template.append(np.dtype(f"int{max(8, t.width.data)}").type(v))
            else:
                template.append(numpy_dtype(t).type(v))
        fn = self._functions[name]
        block, smem = info.block, info.smem
        buffer_positions = [i for i, x in enumerate(template) if isinstance(x, int)]

        def launch(slots: list) -> None:
            params = list(template)
            for i in buffer_positions:
                params[i] = slots[params[i]]
            fn(grid, block, tuple(params), shared_mem=smem)

        return launch


def _alloc_step(slot: int, shape: tuple, dtype):
    def step(slots: list) -> None:
        import cupy as cp

        while len(slots) <= slot:
            slots.append(None)
        slots[slot] = cp.empty(shape, dtype=dtype)

    return step


def _view_step(slot: int, src: int, shape: tuple):
    def step(slots: list) -> None:
        while len(slots) <= slot:
            slots.append(None)
        slots[slot] = slots[src].reshape(shape)

    return step


def _check_32bit(kernel: str, shape: tuple) -> None:
    n = 1
    for d in shape:
        n *= d
    if n >= 2**31:
        raise TilecError(
            f"@{kernel}: a buffer of shape {shape} has {n} elements; GPU kernels index with 32 bits "
            f"(at most 2**31 - 1 elements per buffer) — split the problem"
        )


def compile_cuda(module: ModuleOp, **options):
    """Lower, emit, assemble and load a tile module for the current NVIDIA GPU."""
    from tilec.dialects import tile as tile_d
    from tilec.passes import run_pipeline
    from tilec.passes.pipelines import GPU_OPTIONS, gpu_mapping_options
    from tilec.emit.ptx import emit_ptx

    cupy()
    known = {k.replace("-", "_") for k in GPU_OPTIONS}
    unknown = set(options) - known
    if unknown:
        raise TilecError(f"unknown option(s) for target cuda: {', '.join(sorted(unknown))} (options: {', '.join(sorted(known))})")
    sm = options.get("sm") or os.environ.get("TILEC_SM") or device_sm()
    sm = sm if str(sm).startswith("sm_") else f"sm_{sm}"
    mapped_module = module.clone()
    run_pipeline(mapped_module, f"tile-canonicalize,tile-fuse,tile-to-mapped{{target=gpu {gpu_mapping_options(**options)}}}")
    hw_module = mapped_module.clone()
    run_pipeline(hw_module, f"mapped-expand-pipeline,mapped-to-hw-nv{{sm={sm}}}")
    ptx = emit_ptx(hw_module)
    binary, hit = assemble(ptx, sm)
    func = next(op for op in module.body.block.ops if isinstance(op, tile_d.FuncOp))
    return CudaKernel(func.clone(), mapped_module, ptx, binary, hit, sm)
