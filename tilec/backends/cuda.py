"""The CUDA backend: tile -> mapped (GPU, 32-lane warps) -> hw.nv -> PTX -> cubin (ptxas)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from tilec.archs import SM_ARCHS, SMEM_LIMIT
from tilec.backends.base import Backend
from tilec.conversion.tile_to_mapped.options import NvMapping
from tilec.options import knob

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

DEFAULT_SM = "sm_90"


@dataclass(frozen=True)
class CudaOptions(NvMapping):
    """Options of the cuda target: the GPU architecture and the NVIDIA mapping knobs."""

    what: ClassVar[str] = "target cuda"

    sm: str = knob(
        DEFAULT_SM,
        "GPU architecture; default: $TILEC_SM, else the current GPU's (sm_90a on an H100/H200), else sm_90",
        choices=SM_ARCHS,
    )

    @property
    def gemm_kernel(self) -> str:
        """The tensor-core GEMM this target builds: `gemm`, with auto resolved by the sm."""
        if self.gemm != "auto":
            return self.gemm
        return "wgmma" if self.sm == "sm_90a" else "mma"

    def problems(self) -> Iterator[str]:
        yield from super().problems()
        if self.gemm == "wgmma" and self.tensor_cores and self.sm != "sm_90a":
            yield f"gemm=wgmma needs sm=sm_90a (wgmma and setmaxnreg are sm_90a instructions), got sm={self.sm}"
        if self.gemm == "auto" and self.gemm_kernel == "wgmma" and self.tensor_cores:
            for p in self.wgmma_problems():  # the tiles must fit the kernel auto picks
                yield f"{p} (gemm=auto picks wgmma on sm_90a; gemm=mma keeps the mma.sync kernel)"
        smem = self.stages * (self.block_m + self.block_n) * self.block_k * 2  # (wgmma fits its stages itself)
        if self.tensor_cores and self.gemm_kernel == "mma" and smem > SMEM_LIMIT[self.sm]:
            yield (
                f"the tensor-core GEMM's {self.stages} stages of A and B tiles need {smem} bytes of "
                f"shared memory; {self.sm} has {SMEM_LIMIT[self.sm]} per block"
            )


def current_sm() -> str | None:
    """The current NVIDIA GPU's architecture, or None without CuPy or a GPU."""
    try:
        import cupy
    except ImportError:
        return None
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None
        cc = cupy.cuda.Device().compute_capability
        return "sm_90a" if cc == "90" else f"sm_{cc}"  # sm_90a code runs on exactly these chips
    except Exception:  # noqa: BLE001 - no driver, no device: there is no current GPU
        return None


def normalize_sm(sm: Any) -> Any:
    """`90` / `"90"` / `"sm_90"` -> `"sm_90"` (other values are left for validation)."""
    text = str(sm)
    if isinstance(sm, int | str) and not isinstance(sm, bool) and text and not text.startswith("sm_"):
        return f"sm_{text}"
    return sm


class CudaBackend(Backend):
    name = "cuda"
    language = "ptx"
    pipeline_name = "lower-to-ptx"
    description = "tile -> mapped (GPU) -> hw.nv, ready for the PTX emitter (-t ptx)"
    Options = CudaOptions
    binary = "kernel.cubin"
    runtime = "tilec.runtime.cuda"
    hw_dialect = "hw.nv"
    hw_top_ops = ("hw.nv.kernel", "mapped.host")  # the host program stays for the runtime

    def resolve(self, given: dict[str, Any]) -> dict[str, Any]:
        out = dict(given)
        sm = out.get("sm")
        if sm is None:
            sm = os.environ.get("TILEC_SM") or current_sm() or DEFAULT_SM
        out["sm"] = normalize_sm(sm)
        return out

    def predicted_gemm_seconds(self, options: CudaOptions, problem) -> float | None:
        """The wgmma kernels' tile model (gemm_nv_wgmma.predicted_seconds; the convolution's
        candidate widths as conv_nv_wgmma.conv_tile) for 16-bit inputs without batch axes on
        sm_90a; None for the others (mma.sync, SIMT, batched: no model)."""
        from tilec.conversion.tile_to_mapped.conv_nv_wgmma import conv_widths
        from tilec.conversion.tile_to_mapped.gemm_nv_wgmma import predicted_seconds
        from tilec.dialects.common import bitwidth, is_float

        p = problem
        if not (options.tensor_cores and options.gemm_kernel == "wgmma" and is_float(p.in_t)):
            return None
        if bitwidth(p.in_t) != 16 or p.b != 1:
            return None
        widths = conv_widths(p.n) if p.conv else (256, 128)
        return predicted_seconds(options, p.m, p.n, p.k, copies=p.conv, widths=widths)

    def predicted_stream_seconds(self, options: CudaOptions, nbytes: int) -> float:
        from tilec.conversion.tile_to_mapped.gemm_nv_wgmma import MEMORY_BYTES_PER_S

        return nbytes / MEMORY_BYTES_PER_S

    def stages(self, options: CudaOptions) -> dict[str, list[ModulePass]]:
        from tilec.conversion.mapped_to_hw.mapped_to_hw_nv import MappedToHwNv
        from tilec.conversion.tile_to_mapped.tile_to_mapped import TileToMapped
        from tilec.transforms.int_strength_reduce import IntStrengthReduce
        from tilec.transforms.mapped_expand_pipeline import MappedExpandPipeline
        from tilec.transforms.tile_canonicalize import TileCanonicalize
        from tilec.transforms.tile_conv_phases import TileConvPhases
        from tilec.transforms.tile_conv_unfold import TileConvUnfold
        from tilec.transforms.tile_fuse import TileFuse

        mapping = {k: v for k, v in options.items().items() if k != "sm"}
        mapping["gemm"] = options.gemm_kernel  # auto resolved: tile-to-mapped knows no sm
        weight_grad = options.conv_weight_grad and options.gemm_kernel == "wgmma" and options.tensor_cores
        unfold_wgrad = weight_grad and options.conv_unfold_weight_grad
        unfold = [TileConvUnfold(weight_grad=unfold_wgrad)] if options.conv_unfold and options.tensor_cores else []
        return {
            "mapped": [
                TileCanonicalize(),
                TileConvPhases(max_channels=options.conv_phase_channels),
                *unfold,
                TileFuse(
                    column_partials=options.column_partials,
                    attention=options.flash_attention and options.tensor_cores,
                    attention_flash=True,
                    conv_weight_grad=weight_grad,
                ),
                TileToMapped(target=self.name, **mapping),
            ],
            "hw": [MappedExpandPipeline(), MappedToHwNv(sm=options.sm), IntStrengthReduce()],
        }

    def emit(self, hw: ModuleOp) -> str:
        from tilec.emit.ptx import emit_ptx

        return emit_ptx(hw)

    def build(self, text: str, options: CudaOptions, out: Path) -> None:
        from tilec.toolchain.ptxas import assemble

        assemble(text, options.sm, out)

    def binary_name(self) -> str:
        from tilec.toolchain.ptxas import binary_name

        return binary_name()

    def toolchain(self, options: CudaOptions) -> str:
        from tilec.toolchain.ptxas import identity

        return identity()


__all__ = ["CudaBackend", "CudaOptions", "current_sm"]
