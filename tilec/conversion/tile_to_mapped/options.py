"""The mapping knobs of tile -> mapped: the one place each knob, its default and its legal values live.

`tile-to-mapped`'s pass options are these fields; each backend's options dataclass inherits the
groups it uses (tilec/backends/*.py), so `-p lower-to-ptx{block-m=64}`, `op.compile("cuda",
block_m=64)` and the option tables of docs/cpu.md, docs/cuda.md and docs/hip.md all read them.
Defaults are the documented heuristics; the selection layer may search the `tunable` ones.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

from tilec.options import Options, knob

MMA_TILE = 16  # the m and n granularity of one warp's fragment in both tensor-core kernels


@dataclass(frozen=True)
class CpuMapping(Options):
    """Knobs of the CPU mapping (OpenMP loop nests, the packed register-blocked GEMM)."""

    mr: int = knob(6, "GEMM micro-tile rows (accumulator rows kept in registers)", minimum=1, maximum=16, tunable=True)
    nr: int = knob(
        16,
        "GEMM micro-tile columns (a multiple of the 8-lane f32 SIMD width)",
        multiple_of=8,
        minimum=8,
        maximum=64,
        tunable=True,
    )
    kc: int = knob(512, "GEMM K block: the packed A and B panels of one block stay in cache", minimum=1, tunable=True)
    mc: int = knob(96, "GEMM rows per parallel task (a multiple of mr)", minimum=1, tunable=True)
    parallel_work: int = knob(
        32768,
        "a kernel starts the OpenMP thread team only when its work (elements of its iteration domain; "
        "M x N x K / 16 for a GEMM) is at least this; smaller work runs on the calling thread",
        minimum=0,
        tunable=True,
    )

    vector: ClassVar[int] = 8  # f32 SIMD lanes the micro-kernel is shaped for (AVX2), not an option

    def problems(self) -> Iterator[str]:
        if self.mc % self.mr:
            yield f"mc must be a multiple of mr (got mc={self.mc}, mr={self.mr})"


@dataclass(frozen=True)
class GpuMapping(Options):
    """Knobs every GPU mapping has (NVIDIA and AMD)."""

    threads: int = knob(
        256,
        "threads per block of elementwise and reduction kernels (whole warps/wavefronts)",
        multiple_of=32,
        minimum=32,
        maximum=1024,
        tunable=True,
    )
    row_threads: int = knob(
        0,
        "threads per block of rowwise kernels (softmax, layernorm); 0: chosen from the row length",
        multiple_of=32,
        minimum=0,
        maximum=1024,
        tunable=True,
    )
    column_partials: bool = knob(
        True,
        "tile-fuse column-partials: a column reduction (sum / max / min over the leading axes, e.g. layernorm's "
        "dgamma / dbeta) joins the rowwise group over its rows; the rowwise kernel's blocks walk chunks of rows "
        "(multiples of 16 rows, at most about column-blocks blocks) accumulating the column partials (rows read "
        "once), a second kernel adds them; false: its own split column kernel (rows read again)",
    )
    row_cache: int = knob(
        4,
        "rowwise kernels: the most vectors per thread held in registers through every pass over a row "
        "(the row read once); a row of `?` length takes that form when it fits threads x vector x row-cache "
        "elements and whole vectors (checked per launch), else a strided loop per pass; 0: the loop",
        minimum=0,
        maximum=32,
        tunable=True,
    )
    vector_bytes: int = knob(16, "widest per-thread global access, in bytes", choices=(4, 8, 16), tunable=True)
    column_blocks: int = knob(
        1024,
        "reductions over leading axes (column sums such as a bias gradient): the blocks to aim for; the "
        "reduced extent is split into parts (each at least 8 rows per thread) over blocks of a wave of columns, "
        "and a second kernel combines each column's parts in a fixed order (deterministic)",
        minimum=1,
        tunable=True,
    )
    block_m: int = knob(
        128, "rows of C per block of the tensor-core GEMM", choices=(16, 32, 64, 128, 256), tunable=True
    )
    block_n: int = knob(
        128, "columns of C per block of the tensor-core GEMM", choices=(16, 32, 64, 128, 256), tunable=True
    )
    block_k: int = knob(
        32, "K step of the tensor-core GEMM (through shared memory)", choices=(16, 32, 64, 128), tunable=True
    )
    warps_m: int = knob(
        2, "warps (wavefronts) per block along M in the tensor-core GEMM", choices=(1, 2, 4, 8), tunable=True
    )
    warps_n: int = knob(
        2, "warps (wavefronts) per block along N in the tensor-core GEMM", choices=(1, 2, 4, 8), tunable=True
    )
    tensor_cores: bool = knob(
        True,
        "f16/bf16 contractions with f32 accumulation use the tensor cores (NVIDIA mma.sync, AMD MFMA) where the operand layout allows; false: the SIMT kernel",
    )

    deterministic: bool = knob(
        False,
        "scatter_add / index_add: true adds the updates of each output column in index order on one thread "
        "(bit-identical to the interpreter; slow when there are few columns); false: a copy kernel, then one "
        "thread per update element adding it atomically (float sums may differ in the last bits between runs; "
        "integer sums are exact)",
    )

    def gpu_problems(self, lanes: int) -> Iterator[str]:
        for name in ("threads", "row_threads"):
            if getattr(self, name) % lanes:
                yield f"{name.replace('_', '-')} must be a multiple of the {lanes}-lane {'wavefront' if lanes == 64 else 'warp'} (got {getattr(self, name)})"
        if self.block_m % (self.warps_m * MMA_TILE):
            yield f"block-m must be a multiple of {MMA_TILE} x warps-m (got block-m={self.block_m}, warps-m={self.warps_m})"
        if self.block_n % (self.warps_n * MMA_TILE):
            yield f"block-n must be a multiple of {MMA_TILE} x warps-n (got block-n={self.block_n}, warps-n={self.warps_n})"
        if self.warps_m * self.warps_n * lanes > 1024:
            yield f"warps-m x warps-n x {lanes} lanes must be at most 1024 threads (got {self.warps_m * self.warps_n * lanes})"


@dataclass(frozen=True)
class NvMapping(GpuMapping):
    """Knobs of the NVIDIA mapping (32-lane warps, the cp.async-pipelined mma.sync GEMM)."""

    stages: int = knob(
        4, "shared-memory stages of the tensor-core GEMM's cp.async pipeline", minimum=2, maximum=8, tunable=True
    )

    wave: ClassVar[int] = 32  # lanes per warp (an option of AmdMapping only)

    def problems(self) -> Iterator[str]:
        yield from self.gpu_problems(32)


MFMA_SHAPES = ("m32n32k8", "m16n16k16")


@dataclass(frozen=True)
class AmdMapping(GpuMapping):
    """Knobs of the AMD mapping (wavefronts, the MFMA GEMM)."""

    wave: int = knob(
        64, "lanes per wavefront: 64 (CDNA, with matrix cores) or 32 (RDNA; portable HIP)", choices=(32, 64)
    )
    mfma: str = knob("m32n32k8", "matrix-core instruction shape of the MFMA GEMM", choices=MFMA_SHAPES, tunable=True)

    def problems(self) -> Iterator[str]:
        yield from self.gpu_problems(self.wave)
        if self.tensor_cores and self.wave != 64:
            yield "tensor-cores (MFMA matrix cores) need 64-lane wavefronts: set wave=64 or tensor-cores=false"
        if self.tensor_cores:
            m, n, k = (int(x) for x in self.mfma[1:].replace("n", " ").replace("k", " ").split())
            wm, wn = self.block_m // self.warps_m, self.block_n // self.warps_n
            threads = 64 * self.warps_m * self.warps_n
            chunk = 8  # 16-byte chunks of 16-bit elements staged through registers
            if wm % m or wn % n or self.block_k % max(k, chunk):
                yield (
                    f"the {self.mfma} MFMA GEMM needs block-m/warps-m a multiple of {m}, block-n/warps-n a multiple of {n} "
                    f"and block-k a multiple of {max(k, chunk)} (got {self.block_m}/{self.warps_m}, {self.block_n}/{self.warps_n}, {self.block_k})"
                )
            elif (self.block_m * self.block_k // chunk) % threads or (self.block_n * self.block_k // chunk) % threads:
                yield (
                    f"the MFMA GEMM deals block-m x block-k and block-n x block-k tiles to its {threads} threads in 16-byte "
                    f"chunks: both chunk counts must be multiples of {threads} (got {self.block_m}x{self.block_k}, {self.block_n}x{self.block_k})"
                )


__all__ = ["AmdMapping", "CpuMapping", "GpuMapping", "MFMA_SHAPES", "NvMapping"]
