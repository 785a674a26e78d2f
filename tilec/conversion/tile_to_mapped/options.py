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

GEMM_KERNELS = ("auto", "mma", "wgmma")
"""The NVIDIA tensor-core GEMM kernels (NvMapping.gemm)."""

WGMMA_BK = 64
"""K per stage of gemm=wgmma: one 128-byte row of 16-bit elements (the 128-byte swizzle's span)."""


def wgmma_stage_bytes(block_m: int, block_n: int) -> int:
    """Shared memory of one gemm=wgmma pipeline stage: A and B tiles of a WGMMA_BK-deep K step (16-bit)."""
    return (block_m + block_n) * WGMMA_BK * 2


MMA_TILE = 16  # the m and n granularity of one warp's fragment in both tensor-core kernels


CPU_VECTORS = (4, 8, 16)  # f32 lanes of the GEMM micro-kernel: SSE/NEON, AVX2, AVX-512
CPU_MICRO_TILES = {4: (6, 8), 8: (6, 16), 16: (14, 32)}
"""(MR, NR) of the GEMM micro-kernel per vector width: MR x NR/W accumulators plus the NR/W
vectors of a B row fill the register file (4 and 8 lanes: 12 + 2 of 16 registers; 16 lanes:
28 + 2 of AVX-512's 32); the A element is broadcast from memory into the FMA."""
CPU_TASK_ROWS = 96  # the default `mc` is the multiple of MR nearest this


@dataclass(frozen=True)
class CpuMapping(Options):
    """Knobs of the CPU mapping (OpenMP loop nests, the packed register-blocked GEMM)."""

    mr: int = knob(
        0,
        "GEMM micro-tile rows (accumulator rows kept in registers); 0: from `vector` (6 for 4 or 8 lanes, 14 for 16)",
        minimum=0,
        maximum=32,
        tunable=True,
        tune=(4, 6, 8, 12, 14),
    )
    nr: int = knob(
        0,
        "GEMM micro-tile columns, a multiple of `vector`; 0: two vectors (8, 16 or 32)",
        multiple_of=4,
        minimum=0,
        maximum=128,
        tunable=True,
        tune=(8, 16, 24, 32, 48),
    )
    kc: int = knob(
        512,
        "GEMM K block: the packed A and B panels of one block stay in cache",
        minimum=1,
        tunable=True,
        tune=(128, 256, 512, 1024),
    )
    mc: int = knob(
        0,
        f"GEMM rows per parallel task, a multiple of mr; 0: the multiple of mr nearest {CPU_TASK_ROWS}",
        minimum=0,
        tunable=True,
        tune=(0, 48, 192, 384),
    )
    parallel_work: int = knob(
        32768,
        "a kernel starts the OpenMP thread team only when its work (elements of its iteration domain; "
        "M x N x K / 16 for a GEMM) is at least this; smaller work runs on the calling thread",
        minimum=0,
        tunable=True,
        tune=(4096, 32768, 262144),
    )

    vector: int = knob(
        8,
        "f32 SIMD lanes of the GEMM micro-kernel: 16 (AVX-512), 8 (AVX2), 4 (SSE, NEON); the cpu target's default "
        "is the widest the host's C compiler targets (-march=native: 16 where it defines __AVX512F__)",
        choices=CPU_VECTORS,
        tunable=True,
    )

    def micro_tile(self, m: int | None = None) -> tuple[int, int, int]:
        """(MR, NR, MC) with the 0s (defaults) resolved from the vector width; with a static M
        (`m`) below the default MR, MR = M (no padding rows: a decode GEMM)."""
        mr, nr = CPU_MICRO_TILES[self.vector]
        if m and m < mr:
            mr = m
        mr = self.mr or mr
        nr = self.nr or nr
        mc = self.mc or mr * max(1, round(CPU_TASK_ROWS / mr))
        return mr, nr, mc

    def problems(self) -> Iterator[str]:
        if self.nr % self.vector:
            yield f"nr must be a multiple of the {self.vector}-lane vector (got nr={self.nr}, vector={self.vector})"
        mr, _, mc = self.micro_tile()
        if mc % mr:
            yield f"mc must be a multiple of mr (got mc={mc}, mr={mr})"


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
        "threads per block of rowwise kernels (softmax, layernorm) and of sort / top-k kernels; 0: chosen from "
        "the row length (register sorts: 4 warps)",
        multiple_of=32,
        minimum=0,
        maximum=1024,
        tunable=True,
    )
    conv_phase_channels: int = knob(
        16,
        "tile-conv-phases max-channels: a convolution of a stride-dilated input (a strided input gradient, "
        "conv_transpose) with at most this many output channels per group runs as one stride-1 convolution per "
        "phase of the stride plus an interleave (no products with the dilation's zeros: the 3-channel stem's input "
        "gradient 3.4x faster on the H200); wider ones stay one convolution (fewer kernels: faster there); 0: all",
        minimum=0,
    )
    conv_unfold: bool = knob(
        True,
        "tile-conv-unfold: a 16-bit channels-last convolution whose C is not a multiple of 8 (the 3-channel "
        "stem) runs over its input unfolded along the last spatial axis (x'[..., q, (j, c)], k x C channels "
        "padded once to a multiple of 8: the stem's 7 x 8 padded columns per kernel row become 24), where that "
        "at least halves the columns (CUDA: its weight gradient too, with conv-unfold-weight-grad); false: channels "
        "padded per tap",
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
    sort_registers: int = knob(
        1024,
        "sort / top-k rows of static length up to this (padded to a power of two P) are held in registers: "
        "a group of sort-lanes lanes per row, each lane P / lanes keys (the value's order bits packed with its "
        "position), compare-exchanges in registers and xor shuffles across the group; longer rows use shared "
        "memory; 0: never",
        choices=(0, 32, 64, 128, 256, 512, 1024),
        tunable=True,
    )
    sort_lanes: int = knob(
        0,
        "lanes per row of a register sort / top-k; 0: chosen from the padded row length P (P / 8 keys per "
        "lane, 1 to 32 lanes); at least P / 32 (at most 32 keys per lane)",
        choices=(0, 1, 2, 4, 8, 16, 32),
        tunable=True,
    )
    topk_method: str = knob(
        "auto",
        "register top-k: `rounds` (k rounds of a lane-group minimum, each taking out the winner), `sort` (the "
        "whole row's bitonic network, then the first k); auto: the cheaper by an operation count "
        "(k (2 keys per lane + 2 log2 lanes) against stages x keys per lane)",
        choices=("auto", "rounds", "sort"),
        tunable=True,
    )
    transpose_tile: int = knob(
        32,
        "elementwise kernels reading an input across its contiguous axis (a transpose that moves the last axis) "
        "go through shared memory in tiles of this many elements along that axis and the output's last axis "
        "(reads and stores coalesced); 0: the plain elementwise kernel (strided reads)",
        choices=(0, 16, 32, 64),
        tunable=True,
    )
    scan_items: int = knob(
        16,
        "elements each thread scans per tile of a GPU scan along the last axis (a tile: threads x scan-items; "
        "half as many for 64-bit values)",
        choices=(4, 8, 16, 32),
        tunable=True,
    )
    scan_tiles_per_block: int = knob(
        1,
        "tiles each block of a single-pass GPU scan (decoupled look-back) scans in a loop, taking the next "
        "tile's ticket while the current tile's loads are in flight (2-8 measured 10-90x slower on an H100, "
        "so not tunable)",
        choices=(1, 2, 4, 8),
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

    split_k: int = knob(
        0,
        "K splits of the tensor-core GEMMs and convolutions without batch axes (grid z; f32 partial sums, then "
        "one kernel adds them and runs the epilogue): 0 splits grids of fewer than 66 blocks, keeping at least "
        "32 K steps per split (weight gradients: few output tiles, a long K); 1 never splits",
        minimum=0,
        maximum=64,
        tunable=True,
        tune=(0, 1, 2, 4, 8, 16),
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
        4,
        "shared-memory stages of the tensor-core GEMM's pipeline (cp.async ring, or the TMA ring of gemm=wgmma)",
        minimum=2,
        maximum=8,
        tunable=True,
    )
    gemm: str = knob(
        "auto",
        "the tensor-core GEMM kernel: mma (cp.async + ldmatrix + mma.sync, every sm), wgmma (sm_90a: TMA ring, "
        "warp-specialized producer / consumer warpgroups, wgmma; block-k is then 64) or auto: wgmma when the "
        "cuda target's sm is sm_90a, else mma (tile-to-mapped alone, which knows no sm: mma)",
        choices=GEMM_KERNELS,
        tunable=True,
    )
    wgmma_m: int = knob(
        0,
        "rows of C per block of gemm=wgmma (64: one consumer warpgroup, two blocks per SM; 128, 256: two "
        "consumers, one block per SM); 0: chosen with wgmma-n from the shape (waves over the SMs, K steps)",
        choices=(0, 64, 128, 256),
        tunable=True,
    )
    wgmma_n: int = knob(
        0,
        "columns of C per block of gemm=wgmma; 0: chosen with wgmma-m from the shape",
        choices=(0, 64, 128, 192, 256),
        tunable=True,
    )
    flash_attention: bool = knob(
        True,
        "attention written as softmax(f(q k^T)) v with 16-bit q, k, v (head sizes multiples of 16 up to 256) "
        "is one flash kernel (mma.sync, an online softmax over key blocks, nothing L x S in memory); false: "
        "the contraction, rowwise and contraction kernels",
    )
    conv_unfold_weight_grad: bool = knob(
        True,
        "with conv-unfold and conv-weight-grad: a weight gradient of such a convolution also reads the unfolded "
        "input (the stem's on the H100: 0.79 of cuDNN in kernel time against 0.54 with channels padded per tap); "
        "false: padded per tap",
        tunable=True,
    )
    conv_weight_grad: bool = knob(
        True,
        "with gemm=wgmma: a channels-last, one-group, f16/bf16 convolution weight gradient (tilec.conv_backward_weight) "
        "is one kernel, dy^T x the forward's im2col window of x (tile-fuse conv-weight-grad); false: transposes of x "
        "and dy around a convolution, then a transpose of its result",
    )
    flash_block_m: int = knob(
        64,
        "queries per block of the flash-attention kernel (a warp per 16: 4 or 8 warps; 128 shares each K / V tile among twice the queries)",
        choices=(64, 128),
        tunable=True,
    )
    flash_block_n: int = knob(
        64, "keys per step of the flash-attention kernel's loop", choices=(32, 64, 128), tunable=True
    )
    flash_stages: int = knob(
        2, "shared-memory stages of the flash-attention kernel's K / V ring", minimum=2, maximum=4, tunable=True
    )
    wgmma_store: str = knob(
        "staged",
        "how gemm=wgmma kernels (GEMMs and convolutions) store C: staged (each consumer warpgroup passes its "
        "tile through the idle shared-memory ring and writes 16-byte chunks of whole rows) or direct (pairs of "
        "columns straight from the accumulator registers); staged applies to 16/32-bit outputs whose rows are "
        "whole 16-byte chunks, others store direct",
        choices=("staged", "direct"),
        tunable=True,
    )

    wave: ClassVar[int] = 32  # lanes per warp (an option of AmdMapping only)

    def problems(self) -> Iterator[str]:
        yield from self.gpu_problems(32)
        if self.gemm == "wgmma" and self.tensor_cores:
            yield from self.wgmma_problems()

    def wgmma_problems(self) -> Iterator[str]:
        """The tile constraints of the wgmma kernel."""
        if self.wgmma_m == 256 and self.wgmma_n > 128:
            yield (
                f"gemm=wgmma with wgmma-m 256 gives each consumer warpgroup 128 x {self.wgmma_n} f32 accumulators: "
                "more than its registers; use wgmma-n <= 128"
            )


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


__all__ = [
    "CPU_MICRO_TILES",
    "CPU_VECTORS",
    "GEMM_KERNELS",
    "WGMMA_BK",
    "AmdMapping",
    "CpuMapping",
    "GpuMapping",
    "MFMA_SHAPES",
    "NvMapping",
    "wgmma_stage_bytes",
]
