"""hipcc, the HIP compiler (HIP_PLATFORM=amd): HIP C++ -> code object, and LLVM tools to read it.

Debian's `hipcc` package works; no GPU is needed to compile, disassemble (`disassemble`) or read
the kernels' register and scratch metadata (`kernel_metadata`).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tilec.diagnostics import TilecError
from tilec.toolchain.probe import remembered

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
    """hipcc and the clang it drives (probed once per hipcc binary, remembered on disk)."""
    hipcc = find_hipcc()
    if hipcc is None:
        raise TilecError(f"hipcc not found: the hip target compiles with hipcc; {INSTALL_HINT}")
    found = remembered(
        "hipcc", hipcc, os.environ.get("ROCM_PATH", "") + "|" + os.environ.get("HIP_PATH", ""), lambda: _probe(hipcc)
    )
    return HipCompiler(hipcc, found["clang"], found["version"])


def _probe(hipcc: str) -> dict:
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "probe.hip"
        src.write_text("__global__ void k() {}\n")
        r = subprocess.run(
            [hipcc, "-###", "--offload-arch=gfx90a", "--genco", str(src), "-o", str(Path(d) / "probe.co")],
            capture_output=True,
            text=True,
            env=hip_env(),
        )
    text = r.stdout + r.stderr
    m = re.search(r'"([^"\s]*/clang(?:-\d+)?(?:\+\+)?)"', text)
    if r.returncode != 0 or m is None:
        raise TilecError(f"hipcc ({hipcc}) does not run for AMD GPUs (HIP_PLATFORM=amd):\n{text[-2000:]}")
    version = next((ln.strip() for ln in text.splitlines() if "clang version" in ln), "unknown clang")
    return {"clang": m.group(1), "version": version}


FLAGS = ("--genco", "-O3")


def identity() -> str:
    cc = compiler()
    return f"{cc.hipcc}|{cc.version}|{' '.join(FLAGS)}"


def compile_source(source: str, arch: str, out: Path) -> None:
    """Write the code object (a clang offload bundle) for `arch` built from HIP C++ to `out`."""
    cc = compiler()
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "kernel.hip"
        src.write_text(source)
        try:
            r = subprocess.run(
                [cc.hipcc, *FLAGS, f"--offload-arch={arch}", str(src), "-o", str(out)],
                capture_output=True,
                text=True,
                env=hip_env(),
            )
        except OSError as e:
            raise TilecError(f"hipcc ({cc.hipcc}) does not run: {e}") from None
        if r.returncode != 0:
            raise TilecError(
                f"hipcc rejected tilec's generated HIP C++ for {arch} (a tilec bug):\n"
                + (r.stderr or r.stdout)[-4000:],
                notes=("op.source('hip') shows the HIP C++",),
            )


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
                capture_output=True,
                text=True,
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


__all__ = [
    "HipCompiler",
    "compile_source",
    "compiler",
    "device_elf",
    "disassemble",
    "find_hipcc",
    "hip_env",
    "identity",
    "kernel_metadata",
]
