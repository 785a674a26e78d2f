"""The CPU backend: tile -> mapped (OpenMP loop nests, packed GEMM) -> hw.cpu -> C -> shared library."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from tilec.backends.base import Backend
from tilec.conversion.tile_to_mapped.options import CpuMapping

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass


def _threads() -> int:
    """The threads an OpenMP team gets here: $OMP_NUM_THREADS, else the CPUs this process may use."""
    env = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@dataclass(frozen=True)
class CpuOptions(CpuMapping):
    """Options of the cpu target: the CPU mapping knobs."""

    what: ClassVar[str] = "target cpu"


class CpuBackend(Backend):
    name = "cpu"
    language = "c"
    pipeline_name = "lower-to-c"
    description = "tile -> mapped (CPU) -> hw.cpu, ready for the C emitter (-t c)"
    Options = CpuOptions
    binary = "kernel.so"
    runtime = "tilec.runtime.cpu"
    hw_dialect = "hw.cpu"
    hw_top_ops = ("hw.cpu.func",)

    def resolve(self, given: dict[str, Any]) -> dict[str, Any]:
        """`vector` defaults to the host's widest f32 SIMD width, as the C compiler targets it
        (-march=native); without a C compiler (lowering only) the knob's default stays."""
        out = dict(given)
        if out.get("vector") is None:
            from tilec.diagnostics import TilecError
            from tilec.toolchain.cc import compiler

            try:
                out["vector"] = compiler().vector
            except TilecError:
                pass
        return out

    def tunable_values(self, base, only=None):
        """Vector widths wider than the host's (the resolved default) would not run here."""
        values = super().tunable_values(base, only)
        if "vector" in values:
            values["vector"] = tuple(v for v in values["vector"] if v <= base.vector)
        return values

    def predicted_gemm_seconds(self, options: CpuOptions, problem) -> float | None:
        """The packed GEMM's model (gemm_cpu.predicted_seconds) on every core OpenMP uses."""
        from tilec.conversion.tile_to_mapped.gemm_cpu import predicted_seconds

        p = problem
        return predicted_seconds(options, p.acc_t, p.b, p.m, p.n, p.k, _threads(), p.conv)

    def predicted_stream_seconds(self, options: CpuOptions, nbytes: int) -> float:
        from tilec.conversion.tile_to_mapped.gemm_cpu import MEMORY_BYTES_PER_S

        return nbytes / (MEMORY_BYTES_PER_S * _threads())

    def stages(self, options: CpuOptions) -> dict[str, list[ModulePass]]:
        from tilec.conversion.mapped_to_hw.mapped_to_hw_cpu import MappedToHwCpu
        from tilec.conversion.tile_to_mapped.tile_to_mapped import TileToMapped
        from tilec.transforms.tile_canonicalize import TileCanonicalize
        from tilec.transforms.tile_conv_phases import TileConvPhases
        from tilec.transforms.tile_fuse import TileFuse

        return {
            "mapped": [
                TileCanonicalize(),
                TileConvPhases(),
                TileFuse(attention=True),
                TileToMapped(target=self.name, **options.items()),
            ],
            "hw": [MappedToHwCpu()],
        }

    def emit(self, hw: ModuleOp) -> str:
        from tilec.emit.c import emit_c

        return emit_c(hw)

    def build(self, text: str, options: CpuOptions, out: Path) -> None:
        from tilec.toolchain.cc import compile_c

        compile_c(text, out)

    def toolchain(self, options: CpuOptions) -> str:
        from tilec.toolchain.cc import compiler

        return compiler().identity()


__all__ = ["CpuBackend", "CpuOptions"]
