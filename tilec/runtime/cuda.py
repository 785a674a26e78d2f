"""The CUDA runtime: a cubin (or PTX for the driver's JIT) loaded with CuPy; the host program
(tilec/runtime/host.py) runs in Python.

Calling the kernel with CuPy arrays (or anything with `__cuda_array_interface__` / DLPack, e.g.
torch tensors) executes the host program: it allocates temporaries with CuPy, evaluates launch
grids from the actual sizes and launches each kernel on the current stream.
"""

from __future__ import annotations

import json

import numpy as np

from tilec.cache import Entry
from tilec.diagnostics import TilecError
from tilec.dialects import tile
from tilec.runtime.dtypes import device_dtype, on_device
from tilec.runtime.host import HostProgram, Plans, scalar_param
from tilec.runtime.inplace import LastLists, check_updated
from tilec.runtime.status import raise_status
from tilec.runtime.tma import TensorMaps
from tilec.symbols import symbol


def cupy():
    try:
        import cupy as cp
    except ImportError:
        raise TilecError("running on the cuda target needs CuPy (pip install 'tilec[cuda]')") from None
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            raise TilecError("no NVIDIA GPU found")
    except cp.cuda.runtime.CUDARuntimeError:
        raise TilecError("no NVIDIA GPU found (the CUDA driver reports none)") from None
    return cp


class _CupyDevice:
    """Buffers and launches of the host program, through CuPy."""

    def __init__(self, cp, functions: dict):
        self.cp = cp
        self.functions = functions
        self.launches = 0  # kernel launches so far (tests count them)
        self.maps = TensorMaps()

    def tensor_map(self, array, rows: int, cols: int):
        return self.maps.get(array, rows, cols)

    def empty(self, shape, dtype):
        return self.cp.empty(shape, dtype=on_device(np.dtype(dtype)))  # CuPy has no fp8 dtype: the codes

    def zeros(self, shape, dtype):
        return self.cp.zeros(shape, dtype=on_device(np.dtype(dtype)))  # a memset on the current stream

    def view(self, b, shape):
        return b.reshape(shape)

    def launch(self, name: str, grid, block, smem: int, params: list) -> None:
        self.functions[name](grid, block, tuple(params), shared_mem=smem)
        self.launches += 1


class CudaKernel:
    """A compiled tile.func for NVIDIA GPUs. Call it with device arrays; returns CuPy arrays."""

    def __init__(self, func: tile.FuncOp, entry: Entry, binary: str, source_name: str, sm: str):
        cp = cupy()
        self.func = func
        self.name = func.sym_name.data
        self.entry = entry
        self.binary = entry.file(binary)
        self.cache_hit = entry.hit
        self.sm = sm
        self._source_path = entry.file(source_name)
        self.host = HostProgram.from_json(json.loads(entry.file("host.json").read_text(encoding="utf-8")))
        self._module = cp.RawModule(path=str(self.binary))
        functions = {}
        for name, info in self.host.kernels.items():
            fn = self._module.get_function(symbol(name))
            if info.smem > 48 * 1024:
                fn.max_dynamic_shared_size_bytes = info.smem
            functions[name] = fn
        self._device = _CupyDevice(cp, functions)
        self._in_types = list(func.function_type.inputs.data)
        self._plans = Plans(self.host, func)
        self._in_dtypes = [
            device_dtype(t.element_type) if isinstance(t, tile.ArrayType) else None for t in self._in_types
        ]
        self._updated = func.updated_inputs()  # inputs written in place: the caller's device arrays
        self._names = [a.name_hint or f"#{i}" for i, a in enumerate(func.input_args)]
        self._last_lists = LastLists()  # the last foreach call's arrays and (device table, grid, scalars)
        self._launches: dict[tuple, CudaLaunch] = {}  # Plans.key -> prepared call

    @property
    def launches(self) -> int:
        """Kernel launches this kernel object made so far (one per call of a program over lists)."""
        return self._device.launches

    @property
    def source(self) -> str:
        """The PTX tilec wrote."""
        return self._source_path.read_text()

    def __repr__(self) -> str:
        return f"<CudaKernel @{self.name} {self.sm} from {self.binary.name}>"

    def _prepare(self, i: int, t, value):
        cp = self._device.cp
        arg = self.func.input_args[i]
        name = f"%{arg.name_hint}" if arg.name_hint else f"#{i}"
        if isinstance(t, tile.ArrayType):
            if not isinstance(value, cp.ndarray):
                if hasattr(value, "__cuda_array_interface__") or hasattr(value, "__dlpack__"):
                    value = cp.asarray(value) if hasattr(value, "__cuda_array_interface__") else cp.from_dlpack(value)
                else:
                    raise TilecError(
                        f"input {name} (argument {i}) must be a device array (CuPy, torch, ...), got {type(value).__name__}"
                    )
            want = self._in_dtypes[i]
            if value.dtype != want:
                raise TilecError(f"input {name} (argument {i}) must have dtype {want}, got {value.dtype}")
            if i in self._updated and not value.flags.c_contiguous:  # a copy would not be the caller's array
                raise TilecError(f"input {name} (argument {i}) is updated in place, so it must be C-contiguous")
            # (ascontiguousarray returns at least one axis: a 0-dim array, contiguous anyway, stays 0-dim)
            return value if value.flags.c_contiguous else cp.ascontiguousarray(value)
        return value

    def foreach(self, args) -> None:
        """Run a program over lists (`tilec.foreach`) on every position: `args` holds, per input,
        a list of 1-D C-contiguous device arrays of this dtype (all lists of one length, the arrays
        of a position of one size; the caller checked them and their overlaps) or a scalar. ONE
        launch over every position when the host program allows it (`HostProgram.foreach`: one
        kernel, no temporaries), the table of addresses and blocks uploaded once per distinct set
        of arrays (kept for the next call with the same ones); else one run per position."""
        cp = self._device.cp
        if tile.FOREACH_ATTR not in self.func.attributes:
            raise TilecError(f"@{self.name} is not a program over lists (it has no tilec.foreach attribute)")
        lists = [a if t is not None else None for a, t in zip(args, self._in_dtypes)]
        n = next((len(a) for a in lists if a is not None), 0)
        if n == 0:
            return
        if self.host.foreach is None:
            for j in range(n):
                self(*[a[j] if lst is not None else a for a, lst in zip(args, lists)])
            return
        arrays = [a for a in lists if a is not None]
        if not self._last_lists.same(arrays):  # the table, uploaded once for the same arrays
            ptrs = [None if a is None else [e.data.ptr for e in a] for a in lists]
            sizes = np.asarray([e.size for e in arrays[0]], dtype=np.int64)
            table, blocks, scalars = self.host.foreach_table(ptrs, sizes)
            self._last_lists.keep(arrays, (cp.asarray(table), blocks, scalars))
        table, blocks, scalars = self._last_lists.value
        if blocks == 0:
            return
        info = self.host.kernels[self.host.foreach]
        params = [table, np.int64(n), *(scalar_param(dt, args[s]) for s, dt in scalars)]
        self._device.launch(
            self.host.foreach, (blocks, *info.grid_extents(_ones(info.args))[1:]), info.block, info.smem, params
        )

    def __call__(self, *args):
        if self.host.foreach is not None:
            raise TilecError(
                f"@{self.name} runs over lists in one launch: call the op with lists of arrays (CudaKernel.foreach)"
            )
        if len(args) != len(self._in_types):
            raise TilecError(f"@{self.name} takes {len(self._in_types)} input(s), got {len(args)}")
        prepared = [self._prepare(i, t, a) for i, (t, a) in enumerate(zip(self._in_types, args))]
        if self._updated:
            check_updated(f"@{self.name}", self._names, prepared, self._updated)
        launch = self.prepare([p.shape if dt is not None else p for dt, p in zip(self._in_dtypes, prepared)])
        empty = self._device.cp.empty
        outs = [empty(s, dtype=d) for s, d in launch.out_specs]
        values = [p.data.ptr if dt is not None else p for dt, p in zip(self._in_dtypes, prepared)]
        launch(values, [o.data.ptr for o in outs], self._cupy_bytes)
        return tuple(outs)

    def _cupy_bytes(self, nbytes: int):
        """Device memory for temporaries and the status word, from CuPy's pool on its current stream."""
        m = self._device.cp.cuda.alloc(nbytes)
        return m, m.ptr

    def prepare(self, inputs) -> CudaLaunch:
        """The prepared call for these inputs (a shape per array input, the value per scalar
        input): sizes checked and the host program planned once per distinct set of shapes
        (and index scalars; other scalars are read at each call)."""
        key = self._plans.shapes_key(inputs)
        launch = self._launches.get(key)
        if launch is None:
            out_specs, steps = self._plans.get(key)
            launch = CudaLaunch(self, out_specs, steps)
            if len(self._launches) >= 1024:
                self._launches.clear()
            self._launches[key] = launch
        return launch

    @property
    def index_scalars(self) -> bool:
        """Whether sizes depend on the value of a scalar input (then `prepare` is per value)."""
        return any(self._plans.index_inputs)


class _Stream:
    """A CUDA stream by its handle, as CuPy's launches take one (they read `.ptr`)."""

    __slots__ = ("ptr",)

    def __init__(self, ptr: int):
        self.ptr = ptr


class CudaLaunch:
    """A CudaKernel call for one set of input shapes, prepared: the host program's plan with every
    buffer resolved to a device address at call time (views of contiguous buffers share their
    source's address), the kernels' parameter lists as templates, the output shapes and dtypes.

    `launch(values, out_addresses, alloc, stream=None)`: `values` has per input its device
    address (a C-contiguous array the caller keeps alive) or its scalar value; `out_addresses`
    one address per `out_specs` entry; `alloc(nbytes) -> (owner, address)` gives the
    temporaries and the status word (None will do when `needs_memory` is false), stream-ordered
    on `stream` (a CUDA stream handle; None: CuPy's current stream), on which every kernel is
    launched. A non-zero status word raises (IndexOutOfRange) after a synchronous read of the
    word, as before."""

    def __init__(self, kernel: CudaKernel, out_specs, steps):
        host = kernel.host
        self.name = kernel.name
        self._device = kernel._device
        n_out = host.num_outputs - (1 if host.status else 0)
        self.out_specs = [(tuple(s), on_device(d)) for s, d in out_specs[:n_out]]
        self._status = list(host.status)
        self._word_slot = host.num_inputs + n_out
        self._memory: list[tuple] = []  # in order: ("temp", slot, nbytes) | ("view", slot, source slot)
        self._launches: list[tuple] = []
        nslots = host.num_inputs + host.num_outputs
        for st in steps:
            if st.slot is not None:
                nslots = max(nslots, st.slot + 1)
            if st.kind == "temp":
                n = st.dtype.itemsize
                for d in st.shape:
                    n *= d
                self._memory.append(("temp", st.slot, (n, st.zeroed)))
            elif st.kind == "view":
                self._memory.append(("view", st.slot, st.source))
            else:
                params = list(st.params)
                buffers = tuple((i, params[i]) for i in st.buffers)
                scalars = tuple((i, params[i], dt) for i, dt in st.scalars)
                fn = self._device.functions[st.kernel]
                launch = (fn, tuple(st.grid), tuple(st.block), st.smem, params, buffers, scalars, st.tmaps)
                self._launches.append(launch)
        self._nslots = nslots
        self.needs_memory = bool(self._status) or any(m[0] == "temp" for m in self._memory)  # a call uses `alloc`

    def __call__(self, values, out_addresses, alloc, stream: int | None = None) -> None:
        slots = [*values, *out_addresses]
        keep = []
        runtime = self._device.cp.cuda.runtime
        sptr = 0
        if self._status:  # the status word of index checks: zeroed, read after the call
            sptr = stream if stream is not None else self._device.cp.cuda.get_current_stream().ptr
            word, addr = alloc(4)
            keep.append(word)
            slots.append(addr)
            runtime.memsetAsync(addr, 0, 4, sptr)
        if self._memory:
            slots += [None] * (self._nslots - len(slots))
            for kind, slot, what in self._memory:
                if kind == "temp":
                    nbytes, zeroed = what
                    b, addr = alloc(nbytes)
                    keep.append(b)
                    slots[slot] = addr
                    if zeroed and nbytes:  # a look-back workspace: cleared on the launches' stream
                        if not sptr:
                            sptr = stream if stream is not None else self._device.cp.cuda.get_current_stream().ptr
                        runtime.memsetAsync(addr, 0, nbytes, sptr)
                else:
                    slots[slot] = slots[what]
        on = None if stream is None else _Stream(stream)
        for fn, grid, block, smem, template, buffers, scalars, tmaps in self._launches:
            params = template.copy()
            for i, s in buffers:
                params[i] = slots[s]
            for i, s, dt in scalars:
                params[i] = scalar_param(dt, slots[s])
            if tmaps:  # TMA tensor maps of the kernel's 2-D operands, after its other parameters
                maps = self._device.maps
                params += [maps.get_raw(params[i], shape, dt, rows, cols) for i, rows, cols, shape, dt in tmaps]
            fn(grid, block, tuple(params), shared_mem=smem, stream=on)
        self._device.launches += len(self._launches)
        if self._status:
            host = np.zeros(1, np.int32)
            runtime.memcpyAsync(host.ctypes.data, slots[self._word_slot], 4, runtime.memcpyDeviceToHost, sptr)
            runtime.streamSynchronize(sptr)
            if host[0]:
                raise_status(int(host[0]), self._status)


def _ones(args: list[list]) -> list:
    """Argument values for the grid's constant y and z extents (foreach kernels: x comes from the table)."""
    return [(1,) if a[0] == "buf" else 1 for a in args]


def load(entry: Entry, func: tile.FuncOp, options, meta: dict) -> CudaKernel:
    return CudaKernel(func, entry, meta["binary"], meta["source"], options.sm)


__all__ = ["CudaKernel", "CudaLaunch", "cupy", "load"]
