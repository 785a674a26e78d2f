"""tile-to-mapped: place fused tile programs on a machine.

Each `tile.func` (after `tile-fuse`) becomes:
- one `mapped.kernel` per `tile.fused` group (a loop nest on CPUs, a grid of blocks on GPUs), and
- a `mapped.host` of the same name that allocates the temporaries between groups, reshapes
  buffers where a group reads a reshaped array, and launches the kernels in program order.

Options are the mapping knobs; their defaults are the documented heuristics of each target
(docs/cpu.md, docs/cuda.md).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from tilec.dialects import tile
from tilec.passes.api import PassFailure, TilecPass, register_pass


@register_pass
class TileToMapped(TilecPass):
    """Lower fused tile functions to mapped kernels plus a host launch sequence."""

    name = "tile-to-mapped"

    target: str = "cpu"
    # cpu
    mr: int = 6
    nr: int = 16
    kc: int = 512
    mc: int = 96
    # gpu
    threads: int = 256
    row_threads: int = 0
    vector_bytes: int = 16
    block_m: int = 128
    block_n: int = 128
    block_k: int = 32
    warps_m: int = 2
    warps_n: int = 2
    stages: int = 4
    tensor_cores: bool = True
    wave: int = 32  # lanes per warp (NVIDIA) or wavefront (64 on AMD CDNA)
    mfma: str = "m32n32k8"  # wave-64 matrix-core shape: m32n32k8 or m16n16k16

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from tilec.conversion.tile_to_mapped.host import HostBuilder

        if self.target == "cpu":
            from tilec.conversion.tile_to_mapped.groups_cpu import CpuOptions, lower_group

            if self.nr % 8 or self.mr < 1 or self.mc % self.mr or self.kc < 1:
                raise PassFailure(op, f"tile-to-mapped: need nr % 8 == 0, mr >= 1, mc % mr == 0, kc >= 1 (got mr={self.mr} nr={self.nr} mc={self.mc} kc={self.kc})")
            options = CpuOptions(mr=self.mr, nr=self.nr, kc=self.kc, mc=self.mc)
        elif self.target == "gpu":
            from tilec.conversion.tile_to_mapped.groups_gpu import GpuOptions, lower_group  # type: ignore[assignment]

            w = self.wave
            if w not in (32, 64):
                raise PassFailure(op, f"tile-to-mapped: wave must be 32 or 64 (got {w})")
            if self.threads % w or not w <= self.threads <= 1024 or self.row_threads % w or self.row_threads > 1024:
                raise PassFailure(op, f"tile-to-mapped: threads and row-threads must be multiples of {w} up to 1024{'' if w == 32 else ' (whole wavefronts)'} (got {self.threads}, {self.row_threads})")
            if self.mfma not in ("m32n32k8", "m16n16k16"):
                raise PassFailure(op, f"tile-to-mapped: mfma must be m32n32k8 or m16n16k16 (got {self.mfma})")
            if self.vector_bytes not in (4, 8, 16) or self.stages < 2:
                raise PassFailure(op, f"tile-to-mapped: vector-bytes must be 4, 8 or 16 and stages >= 2 (got {self.vector_bytes}, {self.stages})")
            options = GpuOptions(
                threads=self.threads, row_threads=self.row_threads, vector_bytes=self.vector_bytes,
                block_m=self.block_m, block_n=self.block_n, block_k=self.block_k,
                warps_m=self.warps_m, warps_n=self.warps_n, stages=self.stages, tensor_cores=self.tensor_cores,
                wave=self.wave, mfma=self.mfma,
            )
        else:
            raise PassFailure(op, f"tile-to-mapped: unknown target '{self.target}' (cpu or gpu)")
        for func in [f for f in op.body.block.ops if isinstance(f, tile.FuncOp)]:
            body_ops = list(func.body.block.ops)
            for o in body_ops:
                if not isinstance(o, tile.FusedOp | tile.LoadOp | tile.StoreOp | tile.ReturnOp | tile.DimOp | tile.TransposeOp | tile.BroadcastOp | tile.ReshapeOp | tile.ConstantOp):
                    raise PassFailure(o, f"tile-to-mapped: {o.name} is outside a fusion group (run tile-fuse first)")
            host = HostBuilder(func)
            kernels = []
            for i, fused in enumerate(o for o in body_ops if isinstance(o, tile.FusedOp)):
                name = f"{func.sym_name.data}_{i}_{fused.kind.data}"
                kernel, args = lower_group(name, fused, host, options)
                kernels.append(kernel)
                host.launch(kernel, args)
            host_op = host.finish()
            block = op.body.block
            for k in kernels:
                block.insert_op_before(k, func)
            block.insert_op_before(host_op, func)
            func.detach()
            func.erase(safe_erase=False)
