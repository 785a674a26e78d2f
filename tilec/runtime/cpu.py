"""The CPU runtime: C source -> shared library (system C compiler, disk cache) -> ctypes call.

Compiler flags: `-O3 -march=native -fopenmp -fno-math-errno`; each of `-march=native` and
`-fopenmp` is probed once per process with a tiny program and dropped (with `-fopenmp-simd`
kept for vectorization pragmas) where the compiler refuses it, so the same code still builds.
"""

from __future__ import annotations

import ctypes
import functools
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from xdsl.dialects.builtin import IndexType, IntegerType

from tilec.diagnostics import TilecError
from tilec.dialects import tile
from tilec.dialects.common import DYNAMIC, is_float
from tilec.runtime.cache import cache_key, get_or_build, invalidate
from tilec.runtime.dtypes import numpy_dtype
from tilec.runtime.shapes import check_shapes


@dataclass(frozen=True)
class Compiler:
    path: str
    version: str
    flags: tuple[str, ...]


def _probe(cc: str, flags: list[str]) -> bool:
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "probe.c"
        src.write_text("#include <math.h>\nint f(float* x, int n) {\n#pragma omp parallel for\nfor (int i = 0; i < n; i++) x[i] = sqrtf(x[i]);\nreturn 0; }\n")
        r = subprocess.run([cc, *flags, "-shared", "-fPIC", "-o", str(Path(d) / "probe.so"), str(src)], capture_output=True)
        return r.returncode == 0


@functools.cache
def compiler() -> Compiler:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        raise TilecError("no C compiler found: install gcc or clang, or set CC")
    try:
        version = subprocess.run([cc, "--version"], capture_output=True, text=True, check=True).stdout.split("\n")[0]
    except (OSError, subprocess.CalledProcessError) as e:
        raise TilecError(f"the C compiler '{cc}' does not run: {e}") from None
    flags = ["-O3", "-std=gnu11", "-fno-math-errno", "-fPIC"]
    if _probe(cc, [*flags, "-march=native"]):
        flags.append("-march=native")
    if _probe(cc, [*flags, "-fopenmp"]):
        flags.append("-fopenmp")
    elif _probe(cc, [*flags, "-fopenmp-simd"]):
        flags.append("-fopenmp-simd")
    return Compiler(cc, version, tuple(flags))


def compile_c(source: str) -> tuple[Path, bool]:
    """A shared library built from `source` (cached); returns (path, cache hit)."""
    cc = compiler()
    key = cache_key("c", source, cc.path, cc.version, " ".join(cc.flags))

    def build(out: Path) -> None:
        with tempfile.TemporaryDirectory() as d:
            src = Path(d) / "kernel.c"
            src.write_text(source)
            r = subprocess.run([cc.path, *cc.flags, "-shared", "-o", str(out), str(src), "-lm"], capture_output=True, text=True)
            if r.returncode != 0:
                raise TilecError(
                    "the C compiler rejected tilec's generated code (a tilec bug):\n" + r.stderr[-4000:],
                    notes=("rerun with TILEC_KEEP_C=1 to keep the source",),
                )
            if os.environ.get("TILEC_KEEP_C"):
                out.with_suffix(".c").write_text(source)

    return get_or_build(key, ".so", build)


def _ctype_of_scalar(t):
    if isinstance(t, IndexType):
        return ctypes.c_int64
    if isinstance(t, IntegerType):
        return {1: ctypes.c_bool, 8: ctypes.c_int8, 16: ctypes.c_int16, 32: ctypes.c_int32, 64: ctypes.c_int64}[t.width.data]
    if str(t) == "f32":
        return ctypes.c_float
    if str(t) == "f64":
        return ctypes.c_double
    raise TilecError(f"scalar arguments of type {t} are not supported by the C runtime yet")


class CpuKernel:
    """A compiled tile.func for the CPU. Call it with numpy arrays (and scalars) for the inputs;
    it returns the outputs as a tuple of new arrays."""

    def __init__(self, func: tile.FuncOp, source: str, library: Path, cache_hit: bool):
        self.func = func
        self.name = func.sym_name.data
        self.source = source
        self.library = library
        self.cache_hit = cache_hit
        try:
            self._lib = ctypes.CDLL(str(library))
        except OSError:
            invalidate(library)
            raise TilecError(f"could not load the compiled kernel {library} (removed from the cache; try again)") from None
        self._fn = getattr(self._lib, self.name)
        self._fn.restype = ctypes.c_int
        self._in_types = list(func.function_type.inputs.data)
        self._shapes: dict[tuple, list] = {}  # input shapes (and scalars) -> output shapes
        self._out_types = list(func.function_type.outputs.data)

    def __repr__(self) -> str:
        return f"<CpuKernel @{self.name} from {self.library.name}>"

    def _prepare_input(self, i: int, t, value):
        arg = self.func.input_args[i]
        name = f"%{arg.name_hint}" if arg.name_hint else f"#{i}"
        if isinstance(t, tile.ArrayType):
            if not isinstance(value, np.ndarray):
                raise TilecError(f"input {name} (argument {i}) must be a numpy array, got {type(value).__name__}")
            want = numpy_dtype(t.element_type)
            if value.dtype != want:
                raise TilecError(f"input {name} (argument {i}) must have dtype {want}, got {value.dtype}")
            # (np.ascontiguousarray would turn a 0-d array into shape (1,))
            return value if value.flags.c_contiguous else value.copy(order="C")
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value.item()
        if isinstance(t, IndexType | IntegerType) and not isinstance(value, int | np.integer) or is_float(t) and not isinstance(value, int | float | np.number):
            raise TilecError(f"input {name} (argument {i}) must be a {t} scalar, got {type(value).__name__}")
        return value

    def __call__(self, *args):
        if len(args) != len(self._in_types):
            raise TilecError(f"@{self.name} takes {len(self._in_types)} input(s), got {len(args)}")
        prepared = [self._prepare_input(i, t, a) for i, (t, a) in enumerate(zip(self._in_types, args))]
        given = tuple(p.shape if isinstance(p, np.ndarray) else p for p in prepared)
        shapes = self._shapes.get(given)
        if shapes is None:  # every size constraint, checked once per distinct set of inputs
            shapes = check_shapes(self.func, list(given))
            if len(self._shapes) >= 1024:
                self._shapes.clear()
            self._shapes[given] = shapes
        outs = [np.empty(s, dtype=numpy_dtype(t.element_type)) for s, t in zip(shapes, self._out_types)]
        c_args: list = []
        keep = []
        for t, v in [*zip(self._in_types, prepared), *zip(self._out_types, outs)]:
            if isinstance(t, tile.ArrayType):
                keep.append(v)
                c_args.append(ctypes.c_void_p(v.ctypes.data))
                c_args += [ctypes.c_int64(v.shape[a]) for a, d in enumerate(t.get_shape()) if d == DYNAMIC]
            else:
                c_args.append(_ctype_of_scalar(t)(v))
        status = self._fn(*c_args)
        if status != 0:
            raise MemoryError(f"@{self.name}: could not allocate its temporary buffers")
        return tuple(outs)
