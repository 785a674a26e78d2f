"""The C compiler of the CPU target: C source -> shared library.

Flags: `-O3 -std=gnu11 -fno-math-errno -fPIC`, plus `-march=native` and `-fopenmp` where the
compiler accepts them (each probed with a tiny program; without OpenMP, `-fopenmp-simd` keeps the
vectorization pragmas), so the same code still builds. `CC` picks the compiler.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tilec.diagnostics import TilecError
from tilec.toolchain.probe import remembered

BASE_FLAGS = ("-O3", "-std=gnu11", "-fno-math-errno", "-fPIC")
PROBE_SOURCE = "#include <math.h>\nint f(float* x, int n) {\n#pragma omp parallel for\nfor (int i = 0; i < n; i++) x[i] = sqrtf(x[i]);\nreturn 0; }\n"


@dataclass(frozen=True)
class CCompiler:
    path: str
    version: str
    flags: tuple[str, ...]

    def identity(self) -> str:
        return f"{self.path}|{self.version}|{' '.join(self.flags)}"


def _accepts(cc: str, flags: list[str]) -> bool:
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "probe.c"
        src.write_text(PROBE_SOURCE)
        r = subprocess.run([cc, *flags, "-shared", "-o", str(Path(d) / "probe.so"), str(src)], capture_output=True)
        return r.returncode == 0


def _probe(cc: str) -> dict:
    try:
        version = subprocess.run([cc, "--version"], capture_output=True, text=True, check=True).stdout.split("\n")[0]
    except (OSError, subprocess.CalledProcessError) as e:
        raise TilecError(f"the C compiler '{cc}' does not run: {e}") from None
    flags = list(BASE_FLAGS)
    if _accepts(cc, [*flags, "-march=native"]):
        flags.append("-march=native")
    if _accepts(cc, [*flags, "-fopenmp"]):
        flags.append("-fopenmp")
    elif _accepts(cc, [*flags, "-fopenmp-simd"]):
        flags.append("-fopenmp-simd")
    return {"version": version, "flags": flags}


@functools.cache
def compiler() -> CCompiler:
    """The C compiler and its flags (probed once per compiler binary, remembered on disk)."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        raise TilecError("no C compiler found: install gcc or clang, or set CC")
    path = shutil.which(cc) or cc
    found = remembered("cc", path, "", lambda: _probe(path))
    return CCompiler(path, found["version"], tuple(found["flags"]))


def compile_c(source: str, out: Path) -> None:
    """Build the shared library `out` from C `source`."""
    cc = compiler()
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "kernel.c"
        src.write_text(source)
        try:
            r = subprocess.run(
                [cc.path, *cc.flags, "-shared", "-o", str(out), str(src), "-lm"], capture_output=True, text=True
            )
        except OSError as e:
            raise TilecError(f"the C compiler '{cc.path}' does not run: {e}") from None
        if r.returncode != 0:
            raise TilecError(
                "the C compiler rejected tilec's generated code (a tilec bug):\n" + r.stderr[-4000:],
                notes=("op.source('cpu') shows the C source",),
            )


__all__ = ["CCompiler", "compile_c", "compiler"]
