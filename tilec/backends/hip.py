"""The HIP backend: tile -> mapped (GPU, 64-lane wavefronts) -> hw.amd -> HIP C++ -> code object (hipcc)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from tilec.archs import GFX_ARCH, is_wave64_only
from tilec.backends.base import Backend
from tilec.conversion.tile_to_mapped.options import AmdMapping
from tilec.options import knob

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

DEFAULT_ARCH = "gfx90a"
PORTABLE_ARCH = "gfx1030"
"""The wave-32 target that portable HIP (no matrix cores) names by default."""


@dataclass(frozen=True)
class HipOptions(AmdMapping):
    """Options of the hip target: the GPU architecture, portability and the AMD mapping knobs."""

    what: ClassVar[str] = "target hip"

    arch: str = knob(
        DEFAULT_ARCH,
        "AMD GPU architecture; wave-64 targets are gfx9 (CDNA)",
        legal_text="a gfx target: gfx90a, gfx942, gfx1030, ...",
    )
    portable: bool = knob(
        False,
        "HIP C++ without AMD-only builtins, for wave-32 targets (no MFMA, no DPP); the defaults of arch, wave and tensor-cores "
        "become gfx1030, 32 and false; the same source also compiles for NVIDIA GPUs",
    )

    def problems(self) -> Iterator[str]:
        yield from super().problems()
        if not GFX_ARCH.match(self.arch):
            yield f"unknown AMD GPU architecture '{self.arch}' (a gfx target such as gfx90a or gfx1030)"
        elif self.wave == 32 and is_wave64_only(self.arch):
            yield f"{self.arch} runs 64-lane wavefronts only (wave=32 needs an RDNA target such as gfx1030)"
        elif self.portable and self.wave == 64:
            yield "portable HIP is wave 32 (set wave=32 or portable=false)"


class HipBackend(Backend):
    name = "hip"
    language = "hip"
    pipeline_name = "lower-to-hip"
    description = "tile -> mapped (GPU, wave 64) -> hw.amd, ready for the HIP emitter (-t hip)"
    Options = HipOptions
    binary = "kernel.hsaco"
    runtime = "tilec.runtime.hip"
    hw_dialect = "hw.amd"
    hw_top_ops = ("hw.amd.kernel", "mapped.host")  # the host program stays for the runtime

    def resolve(self, given: dict[str, Any]) -> dict[str, Any]:
        out = dict(given)
        if out.get("portable"):  # the defaults of a portable build (explicit values are kept and checked)
            out.setdefault("arch", PORTABLE_ARCH)
            out.setdefault("wave", 32)
            out.setdefault("tensor_cores", False)
        return out

    def stages(self, options: HipOptions) -> dict[str, list[ModulePass]]:
        from tilec.conversion.mapped_to_hw.mapped_to_hw_amd import MappedToHwAmd
        from tilec.conversion.tile_to_mapped.tile_to_mapped import TileToMapped
        from tilec.transforms.mapped_expand_pipeline import MappedExpandPipeline
        from tilec.transforms.tile_canonicalize import TileCanonicalize
        from tilec.transforms.tile_conv_phases import TileConvPhases
        from tilec.transforms.tile_conv_unfold import TileConvUnfold
        from tilec.transforms.tile_fuse import TileFuse

        mapping = {k: v for k, v in options.items().items() if k not in ("arch", "portable")}
        unfold = [TileConvUnfold()] if options.conv_unfold and options.tensor_cores else []
        return {
            "mapped": [
                TileCanonicalize(),
                TileConvPhases(max_channels=options.conv_phase_channels),
                *unfold,
                TileFuse(column_partials=options.column_partials),
                TileToMapped(target=self.name, **mapping),
            ],
            "hw": [MappedExpandPipeline(), MappedToHwAmd(arch=options.arch, portable=options.portable)],
        }

    def emit(self, hw: ModuleOp) -> str:
        from tilec.emit.hip import emit_hip

        return emit_hip(hw)

    def can_build(self) -> bool:
        from tilec.toolchain.hipcc import find_hipcc

        return find_hipcc() is not None

    def build(self, text: str, options: HipOptions, out: Path) -> None:
        from tilec.toolchain.hipcc import compile_source

        compile_source(text, options.arch, out)

    def toolchain(self, options: HipOptions) -> str:
        from tilec.toolchain.hipcc import identity

        return identity()


__all__ = ["HipBackend", "HipOptions", "PORTABLE_ARCH"]
