"""The C compiler of the CPU target: C source -> shared library.

Flags: `-O3 -std=gnu11 -fno-math-errno -fno-trapping-math -fPIC` (no FP exceptions: GCC may then
if-convert a loop whose float -> int conversion follows a select, e.g. the inlined expf, so loops
with exp vectorize on AVX2 as they do with AVX-512's masks; values are unchanged), plus `-march=native` and `-fopenmp` where the
compiler accepts them (each probed with a tiny program; without OpenMP, `-fopenmp-simd` keeps the
vectorization pragmas), so the same code still builds. `CC` picks the compiler.

The probe also reads the compiler's predefined macros under those flags: the widest vector ISA
they enable gives `vector` (f32 lanes: 16 with __AVX512F__, 8 with __AVX__, 4 with SSE or NEON),
the cpu backend's default GEMM vector width. With `-march=native` that answer and the code depend
on the host CPU, so the probe is remembered per (compiler binary, host CPU) and the host CPU is
part of the compiler's identity (every kernel's cache key).
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tilec.diagnostics import TilecError
from tilec.toolchain.probe import remembered

BASE_FLAGS = ("-O3", "-std=gnu11", "-fno-math-errno", "-fno-trapping-math", "-fPIC")
PROBE_SOURCE = "#include <math.h>\nint f(float* x, int n) {\n#pragma omp parallel for\nfor (int i = 0; i < n; i++) x[i] = sqrtf(x[i]);\nreturn 0; }\n"


VECTOR_MACROS = (("__AVX512F__", 16), ("__AVX__", 8), ("__SSE__", 4), ("__ARM_NEON", 4))
"""(predefined macro, f32 lanes): the first one the compiler defines gives its vector width."""
UNKNOWN_VECTOR = 8  # a compiler that defines none of them: GCC/Clang vector types work at any width


@dataclass(frozen=True)
class CCompiler:
    path: str
    version: str
    flags: tuple[str, ...]
    vector: int = UNKNOWN_VECTOR  # f32 lanes of the widest vector ISA the flags enable
    host: str = ""  # the host CPU (-march=native code is made for it)

    def identity(self) -> str:
        return f"{self.path}|{self.version}|{' '.join(self.flags)}|{self.host}"


def host_cpu() -> str:
    """The host CPU: model and feature flags (from /proc/cpuinfo on Linux), shortened to a hash."""
    text = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key = line.split(":", 1)[0].strip()
                if key in ("vendor_id", "model name", "flags", "Features", "CPU part", "CPU implementer"):
                    text += line
                elif not line.strip() and text:
                    break  # the first processor is enough
    except OSError:
        pass
    text = text or f"{platform.machine()}|{platform.processor()}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def vector_lanes(cc: str, flags: list[str]) -> int:
    """The f32 lanes of the widest vector ISA `cc` targets with `flags` (from its predefined macros)."""
    try:
        r = subprocess.run([cc, *flags, "-dM", "-E", "-x", "c", os.devnull], capture_output=True, text=True)
    except OSError:
        return UNKNOWN_VECTOR
    defined = {line.split()[1] for line in r.stdout.splitlines() if line.startswith("#define ")}
    return next((lanes for macro, lanes in VECTOR_MACROS if macro in defined), UNKNOWN_VECTOR)


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
    return {"version": version, "flags": flags, "vector": vector_lanes(cc, flags)}


@functools.cache
def compiler() -> CCompiler:
    """The C compiler and its flags (probed once per compiler binary, remembered on disk)."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        raise TilecError("no C compiler found: install gcc or clang, or set CC")
    path = shutil.which(cc) or cc
    host = host_cpu()
    found = remembered("cc", path, f"{host}|{' '.join(BASE_FLAGS)}", lambda: _probe(path))  # new flags: a new probe
    return CCompiler(path, found["version"], tuple(found["flags"]), int(found.get("vector", UNKNOWN_VECTOR)), host)


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


__all__ = ["CCompiler", "compile_c", "compiler", "host_cpu", "vector_lanes"]
