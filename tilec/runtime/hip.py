"""The HIP runtime: the code object hipcc built (tilec/toolchain/hipcc.py); the host program
(tilec/runtime/host.py) runs in Python.

No GPU is needed to compile: `HipKernel.source` is the HIP C++, `.code_object` the compiled bundle,
`.disassemble()` and `.metadata()` read it back with the LLVM tools next to hipcc's clang.

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
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tilec.cache import Entry
from tilec.diagnostics import TilecError
from tilec.dialects import tile
from tilec.runtime.dtypes import numpy_dtype, on_device
from tilec.runtime.host import HostProgram, Plans, check_status, run, scalar_param
from tilec.runtime.inplace import check_updated
from tilec.symbols import symbol
from tilec.toolchain import hipcc


class HipKernel:
    """A tile.func compiled for AMD GPUs: `.source` (HIP C++), `.code_object` (hipcc's bundle),
    `.arch`, `.wave`; call it with numpy arrays on a machine with an AMD GPU."""

    def __init__(self, func: tile.FuncOp, entry: Entry, meta: dict, arch: str, wave: int, portable: bool):
        self.func = func
        self.name = func.sym_name.data
        self.entry = entry
        self.arch = arch
        self.wave = wave
        self.portable = portable
        self.cache_hit = entry.hit
        self._source_path = entry.file(meta["source"])
        self._code_object = entry.file(meta["binary"]) if meta.get("binary") else None
        self.host = HostProgram.from_json(json.loads(entry.file("host.json").read_text(encoding="utf-8")))
        self._in_types = list(func.function_type.inputs.data)
        self._plans = Plans(self.host, func)
        self._devices: dict[str, object] = {}

    @property
    def source(self) -> str:
        """The HIP C++ tilec wrote."""
        return self._source_path.read_text()

    def __repr__(self) -> str:
        where = self._code_object.name if self._code_object else "not compiled: hipcc is not installed"
        return f"<HipKernel @{self.name} {self.arch} wave {self.wave} from {where}>"

    # --- the compiled code object ---------------------------------------------------------------

    @property
    def code_object(self) -> Path:
        if self._code_object is None:
            hipcc.compiler()  # raises "hipcc not found ..."
            raise TilecError("this kernel was compiled without hipcc; compile it again")
        return self._code_object

    def disassemble(self) -> str:
        return hipcc.disassemble(self.code_object, self.arch)

    def metadata(self) -> dict[str, dict[str, object]]:
        return hipcc.kernel_metadata(self.code_object, self.arch)

    # --- running ----------------------------------------------------------------------------------

    def __call__(self, *args):
        """Run on the AMD GPU: numpy arrays in, numpy arrays out (a tuple)."""
        code = self.code_object  # compile errors come before "no AMD GPU found"
        dev = self._devices.get("hip")
        if dev is None:
            dev = _HipDevice(code, list(self.host.kernels))
            self._devices["hip"] = dev
        return self._run(dev, args)

    def run_cuda_compat(self, *args):
        """Run the HIP C++ on an NVIDIA GPU through hip_compat_cuda.h and NVRTC (CuPy)."""
        return self._run(self._cuda_compat_device(), args)

    def foreach_cuda_compat(self, args) -> None:
        """`foreach` (a program over lists, one launch) on an NVIDIA GPU, as run_cuda_compat."""
        self.foreach(args, self._cuda_compat_device())

    def _cuda_compat_device(self):
        if not self.portable:
            raise TilecError(
                "run_cuda_compat runs the portable emission only (compile with portable=True: wave 32, no matrix cores)"
            )
        dev = self._devices.get("cuda")
        if dev is None:
            dev = _CudaCompatDevice(self.source, list(self.host.kernels))
            self._devices["cuda"] = dev
        return dev

    def foreach(self, args, dev=None) -> None:
        """Run a program over lists (`tilec.foreach`) on the AMD GPU (or `dev`): `args` holds, per
        input, a list of 1-D C-contiguous numpy arrays (updated ones written back) or a scalar. ONE
        launch over every position when the host program allows it (`HostProgram.foreach`), as on
        CUDA (tilec/runtime/cuda.py); else one run per position."""
        if tile.FOREACH_ATTR not in self.func.attributes:
            raise TilecError(f"@{self.name} is not a program over lists (it has no tilec.foreach attribute)")
        if dev is None:
            code = self.code_object
            dev = self._devices.get("hip")
            if dev is None:
                dev = self._devices["hip"] = _HipDevice(code, list(self.host.kernels))
        is_list = [isinstance(t, tile.ArrayType) for t in self._in_types]
        n = next((len(a) for a, isl in zip(args, is_list) if isl), 0)
        if n == 0:
            return
        if self.host.foreach is None:
            for j in range(n):
                self._run(dev, [a[j] if isl else a for a, isl in zip(args, is_list)])
            return
        updated = set(self.func.updated_inputs())
        bufs = [[dev.to_device(np.ascontiguousarray(e)) for e in a] if isl else None for a, isl in zip(args, is_list)]
        table = None
        try:
            ptrs = [None if b is None else [dev.address(e) for e in b] for b in bufs]
            sizes = np.array([e.size for e in next(a for a, isl in zip(args, is_list) if isl)], dtype=np.int64)
            words, blocks, scalars = self.host.foreach_table(ptrs, sizes)
            if blocks:
                table = dev.to_device(words)
                info = self.host.kernels[self.host.foreach]
                params = [table, np.int64(n), *(scalar_param(dt, args[s]) for s, dt in scalars)]
                dev.launch(self.host.foreach, (blocks, 1, 1), info.block, info.smem, params)
                dev.synchronize()
                for i in updated:  # in-place updates: back into the caller's arrays
                    for e, b in zip(args[i], bufs[i]):
                        np.copyto(e, dev.to_host(b).reshape(e.shape), casting="no")
        finally:
            for b in bufs:
                for e in b or ():
                    dev.free(e)
            if table is not None:
                dev.free(table)

    def _run(self, dev, args):
        if self.host.foreach is not None:
            raise TilecError(f"@{self.name} runs over lists in one launch: call HipKernel.foreach with lists of arrays")
        if len(args) != len(self._in_types):
            raise TilecError(f"@{self.name} takes {len(self._in_types)} input(s), got {len(args)}")
        host_inputs = []
        updated = self.func.updated_inputs()
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
                if i in updated and a is not args[i]:  # a copy: the update would not reach the caller
                    raise TilecError(f"input {name} (argument {i}) is updated in place: pass a numpy array")
                # (np.ascontiguousarray would turn a 0-d array into shape (1,))
                host_inputs.append(a if i in updated or a.flags.c_contiguous else np.ascontiguousarray(a))
            else:
                host_inputs.append(a)
        if updated:
            names = [a.name_hint or f"#{i}" for i, a in enumerate(self.func.input_args)]
            check_updated(f"@{self.name}", names, host_inputs, updated)
        out_specs, steps = self._plans.get(self._plans.key(host_inputs))
        slots: list = []
        try:
            for v, t in zip(host_inputs, self._in_types):
                slots.append(dev.to_device(v) if isinstance(t, tile.ArrayType) else v)
            outs = [dev.empty(s, d) for s, d in out_specs]
            if self.host.status:  # the status word of index checks: zeroed, read after the call
                dev.free(outs[-1])
                outs[-1] = dev.to_device(np.zeros(1, np.int32))
            slots += outs
            run(steps, slots, dev)
            dev.synchronize()
            results = [dev.to_host(o).view(d) for o, (_, d) in zip(outs, out_specs)]  # fp8 from CuPy's uint8
            if self.host.status:
                check_status(self.host, results.pop())
            for i in updated:  # in-place updates: back into the caller's arrays
                np.copyto(host_inputs[i], dev.to_host(slots[i]).view(host_inputs[i].dtype), casting="no")
            return tuple(results)
        finally:
            for b in slots:
                dev.free(b)


# --- devices ------------------------------------------------------------------------------------------


@dataclass
class _DevBuf:
    """A device allocation (or a view of one: owner=False)."""

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
        self._check(
            lib.hipModuleLoadData(ctypes.byref(self.module), self._image),
            "hipModuleLoadData (is the GPU the code object's arch?)",
        )
        self.functions = {}
        for name in kernels:
            f = ctypes.c_void_p()
            self._check(
                lib.hipModuleGetFunction(ctypes.byref(f), self.module, symbol(name).encode()),
                f"hipModuleGetFunction({name})",
            )
            self.functions[name] = f

    def _check(self, err: int, what: str) -> None:
        if err != 0:
            raise TilecError(f"HIP error in {what}: {self.lib.hipGetErrorString(err).decode()}")

    def to_device(self, a: np.ndarray) -> _DevBuf:
        b = self.empty(a.shape, a.dtype)
        if b.nbytes:
            self._check(
                self.lib.hipMemcpy(
                    ctypes.c_void_p(b.ptr), a.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(b.nbytes), self.H2D
                ),
                "hipMemcpy",
            )
        return b

    def empty(self, shape, dtype) -> _DevBuf:
        b = _DevBuf(0, tuple(shape), np.dtype(dtype))
        p = ctypes.c_void_p()
        self._check(self.lib.hipMalloc(ctypes.byref(p), ctypes.c_size_t(max(b.nbytes, 1))), "hipMalloc")
        b.ptr = p.value or 0
        return b

    def zeros(self, shape, dtype) -> _DevBuf:
        b = self.empty(shape, dtype)
        if b.nbytes:  # on the null stream, which the launches use: ordered before them
            self._check(
                self.lib.hipMemsetAsync(ctypes.c_void_p(b.ptr), 0, ctypes.c_size_t(b.nbytes), ctypes.c_void_p(0)),
                "hipMemsetAsync",
            )
        return b

    def view(self, b: _DevBuf, shape) -> _DevBuf:
        return _DevBuf(b.ptr, tuple(shape), b.dtype, owner=False)

    def address(self, b: _DevBuf) -> int:
        return b.ptr

    def to_host(self, b: _DevBuf) -> np.ndarray:
        out = np.empty(b.shape, b.dtype)
        if b.nbytes:
            self._check(
                self.lib.hipMemcpy(
                    out.ctypes.data_as(ctypes.c_void_p), ctypes.c_void_p(b.ptr), ctypes.c_size_t(b.nbytes), self.D2H
                ),
                "hipMemcpy",
            )
        return out

    def free(self, b) -> None:
        if isinstance(b, _DevBuf) and b.owner and b.ptr:
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
                self.functions[name],
                u(grid[0]),
                u(grid[1]),
                u(grid[2]),
                u(block[0]),
                u(block[1]),
                u(block[2]),
                u(smem),
                ctypes.c_void_p(0),
                ptrs,
                ctypes.c_void_p(0),
            ),
            f"hipModuleLaunchKernel({name})",
        )


class _CudaCompatDevice:
    """The same host program on an NVIDIA GPU: CuPy memory, the HIP source compiled by NVRTC."""

    def __init__(self, source: str, kernels: list[str]):
        from tilec.emit.hip import cuda_compat_source
        from tilec.runtime.cuda import cupy

        cp = cupy()
        self.cp = cp
        self.module = cp.RawModule(code=cuda_compat_source(source), backend="nvrtc", options=("-std=c++14",))
        self.functions = {name: self.module.get_function(symbol(name)) for name in kernels}

    def to_device(self, a: np.ndarray):
        return self.cp.asarray(a.view(on_device(a.dtype)))  # CuPy has no fp8 dtype: the codes

    def empty(self, shape, dtype):
        return self.cp.empty(tuple(shape), dtype=on_device(np.dtype(dtype)))

    def zeros(self, shape, dtype):
        return self.cp.zeros(tuple(shape), dtype=on_device(np.dtype(dtype)))

    def view(self, b, shape):
        return b.reshape(tuple(shape))

    def address(self, b) -> int:
        return b.data.ptr

    def to_host(self, b) -> np.ndarray:
        return self.cp.asnumpy(b)

    def free(self, b) -> None:
        pass

    def synchronize(self) -> None:
        self.cp.cuda.Device().synchronize()

    def launch(self, name: str, grid, block, smem: int, params: list) -> None:
        self.functions[name](tuple(grid), tuple(block), tuple(params), shared_mem=smem)


def load(entry: Entry, func: tile.FuncOp, options, meta: dict) -> HipKernel:
    return HipKernel(func, entry, meta, options.arch, options.wave, options.portable)


__all__ = ["HipKernel", "load"]
