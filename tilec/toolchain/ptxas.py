"""ptxas, the PTX assembler of the CUDA toolkit: PTX -> cubin for one sm.

Without ptxas on PATH the PTX itself is the binary: the driver JIT-compiles it at load time.
`TILEC_PTXAS_FLAGS` adds flags (tuning experiments; part of the identity, so of cache keys).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tilec.diagnostics import TilecError
from tilec.toolchain.probe import remembered


@functools.cache
def find() -> tuple[str, str] | None:
    """(path, version line) of ptxas, or None when it is not installed."""
    path = shutil.which("ptxas")
    if not path:
        return None

    def probe() -> dict:
        r = subprocess.run([path, "--version"], capture_output=True, text=True)
        return {"version": r.stdout.strip().split("\n")[-1]}

    return path, remembered("ptxas", path, "", probe)["version"]


def extra_flags() -> list[str]:
    return os.environ.get("TILEC_PTXAS_FLAGS", "").split()


def identity() -> str:
    tool = find()
    return "driver-jit" if tool is None else f"{tool[0]}|{tool[1]}|{' '.join(extra_flags())}"


def binary_name() -> str:
    """The file name of the binary `assemble` writes: a cubin, or the PTX for the driver's JIT."""
    return "kernel.ptx" if find() is None else "kernel.cubin"


def assemble(ptx: str, sm: str, out: Path) -> None:
    """Write the binary for `ptx` on `sm` to `out` (a cubin, or the PTX when ptxas is missing)."""
    tool = find()
    if tool is None:
        out.write_text(ptx)
        return
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "kernel.ptx"
        src.write_text(ptx)
        try:
            r = subprocess.run(
                [tool[0], f"-arch={sm}", "-O3", *extra_flags(), str(src), "-o", str(out)],
                capture_output=True,
                text=True,
            )
        except OSError as e:
            raise TilecError(f"ptxas ({tool[0]}) does not run: {e}") from None
        if r.returncode != 0:
            raise TilecError("ptxas rejected tilec's generated PTX (a tilec bug):\n" + r.stderr[-4000:])


__all__ = ["assemble", "binary_name", "extra_flags", "find", "identity"]
