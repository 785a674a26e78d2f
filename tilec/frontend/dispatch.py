"""The fast path of calling a tile op (docs/dsl.md, "The cost of a call").

The first call of an op with a given *signature* of its arguments (per argument its Python type
and, for an array, its shape, strides, dtype and device; for a runtime scalar only its type) runs
the full path of op.py: binding, kinds, dtypes, specialization, size checks, compiling. When that
call succeeds and its arrays qualify (exactly numpy arrays, torch tensors or CuPy arrays, on the
current CUDA device; C-contiguous, except CPU arrays of an op that updates nothing in place,
which the fast call copies C-contiguous at each call as the full path does), the op keeps a
`FastCall` under that signature: the runtime's prepared launch (`CpuLaunch` / `CudaLaunch`: sizes checked once, host
plan and argument lists made), how to read each argument (its data address, or its checked
scalar value) and how to allocate the results as the caller's kind. A later call with the same
signature reads the addresses, allocates the results and launches.

Every check of the full path depends only on the signature, except these, which a FastCall
makes at every call: each runtime scalar's value (`TileFunction._scalar_value`: the same
errors), the in-place rules (a read-only numpy array, or memory shared with an argument updated
in place: the call takes the full path, which raises the error), the current CUDA device
(another one: the full path), and the index status word (read after every call, as before).
Calls while tracing or under TILEC_INTERPRET never get here (op.py checks first).
"""

from __future__ import annotations

import functools

import numpy as np

from tilec.frontend.arrays import CUPY, NUMPY, TORCH_CPU, TORCH_CUDA, raw_stream_of_torch, torch_output
from tilec.runtime.cpu import address_reader
from tilec.runtime.dtypes import numpy_dtype

MISS = object()
"""What a FastCall returns when this call must take the full path (it raises, or runs as before)."""


def _numpy_signature(a) -> tuple:
    return (a.shape, a.strides, a.dtype)


def _torch_signature(a) -> tuple:
    # is_neg: a lazily negated view holds the values un-negated (the full path resolves it)
    return (a.shape, a.stride(), a.dtype, a.device, a.is_neg())


def _cupy_signature(a) -> tuple:
    return (a.shape, a.strides, a.dtype, a.data.device_id)


def _cupy_address(a) -> int:
    return a.data.ptr


def _cupy_bytes(cupy, nbytes: int):
    m = cupy.cuda.alloc(nbytes)  # CuPy's pool, ordered on its current stream (where the launch goes)
    return m, m.ptr


def _torch_bytes(ref, uint8, nbytes: int):
    b = ref.new_empty((nbytes,), dtype=uint8)  # torch's allocator, ordered on its current stream
    return b, b.data_ptr()


class Dispatch:
    """One op's table: argument signature -> FastCall (at most LIMIT signatures; then it starts
    again). Lives on the TileFunction."""

    LIMIT = 256

    def __init__(self):
        self._readers: dict[type, object] = {}  # argument type -> its signature reader
        self._calls: dict[tuple, FastCall] = {}

    def __len__(self) -> int:
        return len(self._calls)

    def lookup(self, args) -> FastCall | None:
        if not self._calls:
            return None
        key = self._key(args)
        return None if key is None else self._calls.get(key)

    def _key(self, args) -> tuple | None:
        readers = self._readers
        key = []
        try:
            for a in args:
                t = type(a)
                r = readers.get(t)
                if r is None:
                    return None
                key.append(t)
                key.append(r(a))
        except Exception:  # a signature that cannot be read (a sparse tensor's strides): the full path says why
            return None
        return tuple(key)

    def remember(self, op, args, spec, kernel, kind: str, natives) -> FastCall | None:
        """After a successful full call of `op` with `args` (positional, one per parameter): keep
        its FastCall when the call qualifies."""
        call = FastCall.make(op, args, spec, kernel, kind, natives)
        if call is None:
            return None
        for a, is_scalar in zip(args, op._scalars):
            self._readers[type(a)] = type if is_scalar else call.signature
        key = self._key(args)
        if key is None:
            return None
        if len(self._calls) >= self.LIMIT:
            self._calls.clear()
        self._calls[key] = call
        return call


class FastCall:
    """A prepared call of an op for one argument signature (see the module docstring):
    `call(args)` -> the op's result, or MISS."""

    def __init__(self, kind: str, spec, launch, read, sizes, writable, signature, copies=()):
        self.kind = kind
        # non-contiguous CPU arguments: copied C-contiguous per call, as the full path does
        self._copies = tuple(copies)
        self.signature = signature
        self._launch = launch
        self._read = read  # per argument: its address, or its checked scalar value
        self._updated = tuple(spec.updated)
        self._sizes = sizes  # (argument index, bytes) per array argument
        self._writable = writable  # numpy arguments updated in place: their writability is checked per call
        self._returns_none = spec.returns_none
        self._returns_tuple = spec.returns_tuple
        self._outs: list = []
        self._device = -1
        self._get_device = None
        self._stream = None
        self._torch = None
        self._cupy = None
        self._ref = 0
        self.run = {
            NUMPY: self._numpy,
            TORCH_CPU: self._torch_cpu,
            CUPY: self._cupy_call,
            TORCH_CUDA: self._torch_cuda,
        }[kind]

    @staticmethod
    def make(op, args, spec, kernel, kind: str, natives) -> FastCall | None:
        if kind not in (NUMPY, TORCH_CPU, CUPY, TORCH_CUDA) or getattr(kernel, "index_scalars", True):
            return None  # (a kernel without prepared calls: no fast path)
        read: list = []
        sizes: list[tuple[int, int]] = []
        writable: list[int] = []
        copies: list[int] = []
        devices = set()
        signature = None
        for i, (a, is_scalar) in enumerate(zip(args, op._scalars)):
            if is_scalar:
                read.append(functools.partial(op._scalar_value, op.params[i], op.arg_types[i]))
                continue
            if kind == NUMPY:
                if type(a) is not np.ndarray or (not a.flags.c_contiguous and (spec.updated or a.ndim == 0)):
                    return None  # (with updates: the aliasing rules see the caller's arrays, not copies)
                if not a.flags.c_contiguous:
                    copies.append(i)
                read.append(address_reader(a.dtype))
                nbytes = a.nbytes
                signature = _numpy_signature
                if i in spec.updated:
                    writable.append(i)
            elif kind == CUPY:
                import cupy

                if type(a) is not cupy.ndarray or not a.flags.c_contiguous:
                    return None
                read.append(_cupy_address)
                nbytes = a.nbytes
                devices.add(a.data.device_id)
                signature = _cupy_signature
            else:
                import torch

                if type(a) not in (torch.Tensor, torch.nn.Parameter) or a.is_neg():
                    return None
                if not a.is_contiguous():  # CPU: copied per call, as the full path does (CUDA: the full path)
                    if kind == TORCH_CUDA or spec.updated:
                        return None
                    copies.append(i)
                read.append(torch.Tensor.data_ptr)
                nbytes = a.numel() * a.element_size()
                if kind == TORCH_CUDA:
                    devices.add(a.device.index)
                signature = _torch_signature
            sizes.append((i, nbytes))  # (an empty argument, e.g. a region's dtype anchor: never read)
        if signature is None:
            return None  # only scalars: nothing to key the kind on
        launch = kernel.prepare([v if sc else tuple(v.shape) for v, sc in zip(natives, op._scalars)])
        shapes = [s for s, _ in launch.out_specs]
        if any(0 in s for s in shapes):
            return None
        call = FastCall(kind, spec, launch, read, sizes, writable, signature, copies)
        if kind in (CUPY, TORCH_CUDA):
            import cupy

            call._cupy = cupy
            call._get_device = cupy.cuda.runtime.getDevice
            if len(devices) != 1 or devices.pop() != call._get_device():
                return None
            call._device = call._get_device()
        if kind == NUMPY:
            call._outs = list(launch.out_specs)
        elif kind == CUPY:
            call._outs = list(launch.out_specs)  # CuPy dtypes (fp8 as uint8 codes, as the full path)
        else:
            dtypes = [numpy_dtype(t.element_type) for t in spec.func.function_type.outputs.data]
            import torch

            call._torch = torch
            for shape, dt in zip(shapes, dtypes):
                tdt, storage = torch_output(dt)
                if tdt is None:
                    return None
                if kind == TORCH_CPU:  # numpy memory (cheaper than torch.empty), seen as the tensor
                    call._outs.append((shape, storage, None if storage == dt else tdt))
                else:
                    call._outs.append((shape, tdt))
            if kind == TORCH_CUDA:
                call._stream = raw_stream_of_torch()
                call._ref = next(i for i, sc in enumerate(op._scalars) if not sc)
        return call

    # -- per kind ----------------------------------------------------------------------------------

    def _values(self, args) -> list | None:
        """Per argument its address or scalar value; None: the full path. The caller keeps `args`
        (with `_contiguous`'s copies in it) alive until the launch returns."""
        values = [r(a) for r, a in zip(self._read, args)]
        if self._updated and not self._may_update(args, values):
            return None
        return values

    def _contiguous(self, args):
        """`args` with the non-contiguous CPU arrays replaced by C-contiguous copies."""
        args = list(args)
        for i in self._copies:
            a = args[i]
            args[i] = a.copy(order="C") if isinstance(a, np.ndarray) else a.contiguous()
        return args

    def _numpy(self, args):
        if self._copies:
            args = self._contiguous(args)
        values = self._values(args)
        if values is None:
            return MISS
        outs = [np.empty(s, d) for s, d in self._outs]
        self._launch(values, [r(o) for r, o in zip(self._launch.out_read, outs)])
        return self._result(outs)

    def _torch_cpu(self, args):
        if self._copies:
            args = self._contiguous(args)
        values = self._values(args)
        if values is None:
            return MISS
        from_numpy = self._torch.from_numpy
        outs = []
        for shape, storage, view in self._outs:
            t = from_numpy(np.empty(shape, storage))
            outs.append(t if view is None else t.view(view))
        self._launch(values, [t.data_ptr() for t in outs])
        return self._result(outs)

    def _cupy_call(self, args):
        if self._get_device() != self._device:
            return MISS
        values = self._values(args)
        if values is None:
            return MISS
        empty = self._cupy.empty
        outs = [empty(s, dtype=d) for s, d in self._outs]
        alloc = functools.partial(_cupy_bytes, self._cupy) if self._launch.needs_memory else None
        self._launch(values, [o.data.ptr for o in outs], alloc)
        return self._result(outs)

    def _torch_cuda(self, args):
        if self._get_device() != self._device:
            return MISS
        values = self._values(args)
        if values is None:
            return MISS
        ref = args[self._ref]
        outs = [ref.new_empty(s, dtype=d) for s, d in self._outs]
        alloc = functools.partial(_torch_bytes, ref, self._torch.uint8) if self._launch.needs_memory else None
        self._launch(values, [t.data_ptr() for t in outs], alloc, self._stream(self._device))
        return self._result(outs)

    # -- shared ------------------------------------------------------------------------------------

    def _may_update(self, args, values) -> bool:
        """The in-place rules at this call: updated numpy arrays writable, and no memory shared
        between an updated argument and another array argument (contiguous arrays: byte ranges
        overlap exactly when memory is shared). False: the full path raises the error."""
        for i in self._writable:
            if not args[i].flags.writeable:
                return False
        sizes = self._sizes
        for u, un in sizes:
            if u not in self._updated:
                continue
            lo, hi = values[u], values[u] + un
            for j, n in sizes:
                if j != u and values[j] < hi and lo < values[j] + n:
                    return False
        return True

    def _result(self, outs):
        if self._returns_none:
            return None
        return tuple(outs) if self._returns_tuple else outs[0]


__all__ = ["MISS", "Dispatch", "FastCall"]
