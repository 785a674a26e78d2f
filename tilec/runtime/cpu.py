"""The CPU runtime: the shared library the C compiler built (tilec/toolchain/cc.py), called with ctypes."""

from __future__ import annotations

import ctypes

import numpy as np
from xdsl.dialects.builtin import IndexType, IntegerType

from tilec.cache import Entry
from tilec.diagnostics import TilecError
from tilec.dialects import tile
from tilec.dialects.common import DYNAMIC
from tilec.runtime.dtypes import numpy_dtype
from tilec.runtime.inplace import LastLists, check_updated
from tilec.runtime.shapes import check_shapes
from tilec.runtime.status import raise_status
from tilec.symbols import foreach_symbol, symbol


def _ctype_of_scalar(t):
    if isinstance(t, IndexType):
        return ctypes.c_int64
    if isinstance(t, IntegerType):
        return {1: ctypes.c_bool, 8: ctypes.c_int8, 16: ctypes.c_int16, 32: ctypes.c_int32, 64: ctypes.c_int64}[
            t.width.data
        ]
    if str(t) == "f32":
        return ctypes.c_float
    if str(t) == "f64":
        return ctypes.c_double
    raise TilecError(f"scalar arguments of type {t} are not supported by the C runtime yet")


def _scalar_info(t) -> tuple[str, object]:
    kind = "index" if isinstance(t, IndexType) else ("int" if isinstance(t, IntegerType) else "float")
    try:
        return kind, _ctype_of_scalar(t)
    except TilecError:
        return kind, None  # raised when called (as before)


class CpuKernel:
    """A compiled tile.func for the CPU. Call it with numpy arrays (and scalars) for the inputs;
    it returns the outputs as a tuple of new arrays."""

    def __init__(self, func: tile.FuncOp, entry: Entry, library: str, source_name: str, status=()):
        self.func = func
        self.name = func.sym_name.data
        self.entry = entry
        self.library = entry.file(library)
        self.cache_hit = entry.hit
        self._source_path = entry.file(source_name)
        self._lib = ctypes.CDLL(str(self.library))  # an OSError here: the caller rebuilds the entry
        self._fn = getattr(self._lib, symbol(self.name))
        self._fn.restype = ctypes.c_int
        self._in_types = list(func.function_type.inputs.data)
        self._launches: dict[tuple, CpuLaunch] = {}  # input shapes (and index scalars) -> prepared call
        self._out_types = list(func.function_type.outputs.data)
        # per input, decided once (xdsl type checks cost ~10 us each): None for arrays, else
        # ("index" | "int" | "float", the ctypes type or None when the C runtime has none)
        self._scalars = [None if isinstance(t, tile.ArrayType) else _scalar_info(t) for t in self._in_types]
        self._in_dtypes = [
            numpy_dtype(t.element_type) if sc is None else None for t, sc in zip(self._in_types, self._scalars)
        ]
        self._in_read = [None if d is None else address_reader(d) for d in self._in_dtypes]  # address readers
        self._foreach = None  # the one-call wrapper of a program over lists, once looked up
        self._last_lists = LastLists()
        self._updated = func.updated_inputs()  # inputs written in place: the caller's arrays themselves
        self._names = [a.name_hint or f"#{i}" for i, a in enumerate(func.input_args)]
        # gathers/scatters: [message, location] per status code; the status word is one more
        # argument after the outputs, zeroed per call (runtime/status.py)
        self._status = list(status)

    @property
    def source(self) -> str:
        """The C tilec wrote."""
        return self._source_path.read_text()

    def __repr__(self) -> str:
        return f"<CpuKernel @{self.name} from {self.library.name}>"

    def _input_name(self, i: int) -> str:
        arg = self.func.input_args[i]
        return f"%{arg.name_hint}" if arg.name_hint else f"#{i}"

    def _prepare_input(self, i: int, t, value):
        scalar = self._scalars[i]
        if scalar is None:
            if not isinstance(value, np.ndarray):
                name = self._input_name(i)
                raise TilecError(f"input {name} (argument {i}) must be a numpy array, got {type(value).__name__}")
            want = self._in_dtypes[i]
            if value.dtype != want:
                raise TilecError(
                    f"input {self._input_name(i)} (argument {i}) must have dtype {want}, got {value.dtype}"
                )
            if value.flags.c_contiguous:
                return value
            if i in self._updated:  # a copy would take the update away from the caller's array
                raise TilecError(
                    f"input {self._input_name(i)} (argument {i}) is updated in place, so it must be C-contiguous"
                )
            # (np.ascontiguousarray would turn a 0-d array into shape (1,))
            return value.copy(order="C")
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value.item()
        kind = scalar[0]
        if (kind != "float" and not isinstance(value, int | np.integer)) or (
            kind == "float" and not isinstance(value, int | float | np.number)
        ):
            raise TilecError(
                f"input {self._input_name(i)} (argument {i}) must be a {t} scalar, got {type(value).__name__}"
            )
        return value

    def __call__(self, *args):
        if len(args) != len(self._in_types):
            raise TilecError(f"@{self.name} takes {len(self._in_types)} input(s), got {len(args)}")
        prepared = [self._prepare_input(i, t, a) for i, (t, a) in enumerate(zip(self._in_types, args))]
        if self._updated:
            check_updated(f"@{self.name}", self._names, prepared, self._updated)
        launch = self.prepare([p.shape if sc is None else p for sc, p in zip(self._scalars, prepared)])
        outs = [np.empty(s, dtype=d) for s, d in launch.out_specs]
        values = [_scalar_arg(sc, p) if r is None else r(p) for sc, r, p in zip(self._scalars, self._in_read, prepared)]
        launch(values, [r(o) for r, o in zip(launch.out_read, outs)])
        return tuple(outs)

    def prepare(self, inputs) -> CpuLaunch:
        """The prepared call for these inputs (a shape per array input, the value per scalar
        input): their size constraints checked (once per distinct set: sizes depend on array
        shapes and index scalars only, so other scalars, a learning rate, stay out of the key)."""
        key = tuple(
            tuple(v) if sc is None else (v if sc[0] == "index" else None) for sc, v in zip(self._scalars, inputs)
        )
        launch = self._launches.get(key)
        if launch is None:  # every size constraint, checked once per distinct set of inputs
            shapes = check_shapes(self.func, list(key))
            launch = CpuLaunch(self, key, shapes)
            if len(self._launches) >= 1024:
                self._launches.clear()
            self._launches[key] = launch
        return launch

    @property
    def index_scalars(self) -> bool:
        """Whether sizes depend on the value of a scalar input (then `prepare` is per value)."""
        return any(sc is not None and sc[0] == "index" for sc in self._scalars)

    def foreach(self, args) -> None:
        """Run a program over lists (`tilec.foreach`) on every position in ONE call of its C
        wrapper: `args` holds, per input, a list of 1-D C-contiguous arrays (all lists of one
        length, the arrays of a position of one size; the caller checked them, and the memory
        overlaps) or a scalar."""
        if tile.FOREACH_ATTR not in self.func.attributes:
            raise TilecError(f"@{self.name} is not a program over lists (it has no tilec.foreach attribute)")
        lists = [a for a, sc in zip(args, self._scalars) if sc is None]
        n = len(lists[0]) if lists else 0
        if n == 0:
            return
        if not self._last_lists.same(lists):  # the table of addresses: kept for the same arrays
            ptrs = np.array([a.ctypes.data for lst in lists for a in lst], dtype=np.uintp)
            self._last_lists.keep(lists, (ptrs, np.array([a.shape[0] for a in lists[0]], dtype=np.int64)))
        ptrs, sizes = self._last_lists.value
        c_args: list = [ctypes.c_int64(n), ctypes.c_void_p(ptrs.ctypes.data), ctypes.c_void_p(sizes.ctypes.data)]
        for t, v, sc in zip(self._in_types, args, self._scalars):
            if sc is not None:
                c_args.append((sc[1] or _ctype_of_scalar(t))(v))
        fn = self._foreach
        if fn is None:
            fn = self._foreach = getattr(self._lib, foreach_symbol(self.name))
            fn.restype = ctypes.c_int
        if fn(*c_args) != 0:
            raise MemoryError(f"@{self.name}: could not allocate its temporary buffers")


def address(a: np.ndarray) -> int:
    """The data address of a numpy array: through a ctypes view of its buffer (about 3x cheaper
    than `a.ctypes.data`), else (read-only, empty or non-contiguous arrays, dtypes numpy cannot
    export in a buffer) `a.ctypes.data`."""
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(a))
    except (TypeError, ValueError, BufferError):
        return a.ctypes.data


def address_reader(dtype):
    """The cheapest function reading the data address of numpy arrays of `dtype`: `address`, or
    for dtypes numpy cannot put in a buffer (ml_dtypes' bf16 and fp8) `address` of a view as
    unsigned integers of the same size."""
    dt = np.dtype(dtype)
    try:
        ctypes.c_char.from_buffer(np.zeros(1, dt))
        return address
    except (TypeError, ValueError, BufferError):
        pass
    if dt.itemsize not in (1, 2, 4, 8):
        return address
    bits = np.dtype(f"u{dt.itemsize}")
    return lambda a: address(a.view(bits))


def _scalar_arg(scalar: tuple, v):
    """A scalar input as the Python number its declared ctypes type converts."""
    return float(v) if scalar[0] == "float" else int(v)


class CpuLaunch:
    """A CpuKernel call for one set of input shapes, prepared: the output shapes and dtypes and
    the C entry's argument list with its types declared and its dynamic sizes filled in, so a
    call only puts in the addresses and scalar values (`launch(values, out_addresses)`: per input
    its data address or scalar value, per output the address of a C-contiguous array of
    `out_specs`' shape and dtype that the caller allocated and keeps alive)."""

    def __init__(self, kernel: CpuKernel, key: tuple, out_shapes: list):
        self.kernel = kernel
        self.out_specs = [(tuple(s), numpy_dtype(t.element_type)) for s, t in zip(out_shapes, kernel._out_types)]
        self.out_read = [address_reader(d) for _, d in self.out_specs]  # per output: its address reader
        template: list = []
        types: list = []
        self._in_pos: list[int] = []
        self._out_pos: list[int] = []
        shapes = [*key, *(s for s, _ in self.out_specs)]
        scalars = [*kernel._scalars, *([None] * len(self.out_specs))]
        for i, (t, shape, sc) in enumerate(zip([*kernel._in_types, *kernel._out_types], shapes, scalars)):
            (self._in_pos if i < len(kernel._in_types) else self._out_pos).append(len(template))
            if sc is None:
                template.append(None)
                types.append(ctypes.c_void_p)
                for a, d in enumerate(t.get_shape()):
                    if d == DYNAMIC:
                        template.append(int(shape[a]))
                        types.append(ctypes.c_int64)
            else:
                template.append(None)
                types.append(sc[1] or _ctype_of_scalar(t))
        self._status = kernel._status
        if self._status:
            template.append(None)
            types.append(ctypes.c_void_p)
        fn = kernel._fn
        if fn.argtypes is None:  # declared once: the types do not depend on the sizes
            fn.argtypes = types
        self._fn = fn
        self._template = template

    def __call__(self, values, out_addresses) -> None:
        args = self._template.copy()
        for pos, v in zip(self._in_pos, values):
            args[pos] = v
        for pos, v in zip(self._out_pos, out_addresses):
            args[pos] = v
        word = None
        if self._status:
            word = ctypes.c_int32(0)
            args[-1] = ctypes.addressof(word)
        if self._fn(*args) != 0:
            raise MemoryError(f"@{self.kernel.name}: could not allocate its temporary buffers")
        if word is not None and word.value:
            raise_status(word.value, self._status)


def load(entry: Entry, func: tile.FuncOp, options, meta: dict) -> CpuKernel:
    return CpuKernel(func, entry, meta["binary"], meta["source"], meta.get("status", ()))


__all__ = ["CpuKernel", "CpuLaunch", "address", "address_reader", "load"]
