"""mapped-to-hw-amd: gpu `mapped.kernel`s -> `hw.amd.kernel`s (HIP C++ level IR).

The algorithm is gpu_kernel.py's (shared with mapped-to-hw-nv); this file holds the pass and the
AMD answers to its questions (`AmdTarget`):
- Each kernel keeps its `wave` (32 or 64; gfx9 / CDNA targets run 64-lane wavefronts only and a
  wave-32 kernel for them is an error, never silently re-mapped). `launch_bounds` is the block
  size.
- Parameters: a global buffer becomes a typed `!hw.ptr<global, T>` (bools as i8) plus one i64
  per dynamic dimension; index scalars become i64. Inside the body `index` is narrowed to 32 bits
  (`index-bits=32`, the default, as on NVIDIA; the runtime checks buffer sizes).
- Thread hierarchy ops become `hw.amd.workitem_id` / `workgroup_id` / `workgroup_size` /
  `num_workgroups` / `lane_id`; the wave index is the work-item id / wave.
- Loads and stores: `hw.amd.global_load/store` at i64 addresses, `hw.amd.lds_load/store` at i32
  LDS addresses. Vector values stay vectors (`vector<8xf16>`: one 16-byte access); vectors of
  bools travel as bytes and live as per-lane i1 values.
- Shared buffers become static LDS arrays (`hw.amd.lds`, 16-byte aligned; the printer lays them
  out in one `__shared__` array, so an LDS address is a byte offset in the workgroup's LDS).
- `mapped.reduce` shuffles with `hw.amd.shfl_xor` over the whole wave (offsets wave/2 .. 1, so
  all 64 lanes of a CDNA wavefront take part); the block scratch has 8-byte slots (f64 / i64).
- `math` ops stay upstream `math` ops: the HIP printer calls the device library (`expf`, ...).
Fragments, `mapped.mma`, `frag_store` (MFMA builtins on per-lane vectors) and copies (synchronous
cooperative ones) are lowered in fragments_amd.py.

`portable=true` produces HIP C++ without AMD-only builtins (no MFMA, no DPP / ds_swizzle), for
wave-32 targets: the same source compiles for NVIDIA GPUs through tilec/emit/hip_compat_cuda.h.
The `mapped.host` is kept: the HIP runtime executes it in Python (allocations and launches).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, math, vector
from xdsl.dialects.builtin import IndexType, IntegerType, ModuleOp, VectorType, i1, i8
from xdsl.ir import Operation, SSAValue

from tilec.archs import GFX_ARCH
from tilec.conversion.mapped_to_hw import fragments_amd
from tilec.conversion.mapped_to_hw.fragments_amd import MAX_ACCESS, storage
from tilec.conversion.mapped_to_hw.gpu_kernel import (
    GpuKernelLowering,
    GpuTarget,
    lower_gpu_kernels,
)
from tilec.dialects import mapped
from tilec.dialects.common import bitwidth
from tilec.dialects.hw import PtrType, amd
from tilec.mathfns import MATH_FUNCTIONS
from tilec.passes.api import PassFailure, TilecPass, register_pass

REGISTERS = {
    mapped.ThreadIdOp: amd.WorkitemIdOp,
    mapped.BlockIdOp: amd.WorkgroupIdOp,
    mapped.BlockDimOp: amd.WorkgroupSizeOp,
    mapped.GridDimOp: amd.NumWorkgroupsOp,
}


class AmdTarget(GpuTarget):
    """The AMD (HIP) hooks of the GPU kernel lowering."""

    pass_name = "mapped-to-hw-amd"
    gpus = "AMD GPUs"
    lanes_message = "vectors of bools (and 1-element vectors) must come from loads, broadcasts, inserts or selects"
    addr_suffix = "_addr"
    scratch_slot = 8  # fits f64 / i64
    scratch_base_at_top = True
    guard_before_slot = True
    lowerings = fragments_amd.LOWERINGS
    math_ops = (math.ExpOp, math.LogOp, math.TanhOp, math.ErfOp, math.RsqrtOp, math.PowFOp, math.SqrtOp)
    math_ops += tuple(f.math for f in MATH_FUNCTIONS if f.math is not None)  # the math library: HIP's device functions

    def __init__(self, arch: str, portable: bool) -> None:
        self.arch = arch
        self.portable = portable

    # --- the kernel ------------------------------------------------------------------------------

    def kernel_problem(self, kernel: mapped.KernelOp) -> str | None:
        return arch_problem(self.arch, kernel.wave_size, self.portable)

    def buffer_param(self, t: mapped.BufType) -> PtrType:
        return PtrType("global", storage(t.element_type))

    def scalar_param(self, kernel: mapped.KernelOp, t):
        if t == i1:
            raise PassFailure(
                kernel, f"mapped-to-hw-amd: kernel @{kernel.sym_name.data} takes an i1 scalar; pass it as i8"
            )
        return t

    def warp_size(self, kernel: mapped.KernelOp) -> int:
        return kernel.wave_size

    def kernel_op(self, kernel, params, block_dims, threads) -> amd.KernelOp:
        wave = kernel.wave_size
        if threads % wave:
            raise PassFailure(
                kernel,
                f"mapped-to-hw-amd: kernel @{kernel.sym_name.data} has {threads} threads per block, not whole {wave}-lane waves",
            )
        return amd.KernelOp(kernel.sym_name.data, params, arch=self.arch, wave=wave, launch_bounds=threads)

    def return_op(self) -> Operation:
        return amd.ReturnOp()

    # --- registers and synchronization -----------------------------------------------------------

    def hierarchy_register(self, op) -> Operation:
        return REGISTERS[type(op)](op.dim.data)

    def tid_register(self) -> Operation:
        return amd.WorkitemIdOp("x")

    def lane_register(self) -> Operation:
        return amd.LaneIdOp()

    def lower_lane_id(self, k: GpuKernelLowering, op: mapped.LaneIdOp) -> None:
        op.results[0].replace_all_uses_with(k.lane_index())
        k.dead.append(op)

    def lower_warp_id(self, k: GpuKernelLowering, op: mapped.WarpIdOp) -> None:
        op.results[0].replace_all_uses_with(k.b.value(arith.DivUIOp(k.tid_index(), k.const(k.warp, IndexType())), op))
        k.dead.append(op)

    def barrier(self, scope: str, op: Operation) -> Operation:
        if scope != "block":
            raise PassFailure(op, "mapped-to-hw-amd: warp-scope barriers are not supported yet on AMD GPUs")
        return amd.BarrierOp()

    def shuffle_xor(self, x: SSAValue, offset: int) -> Operation:
        return amd.ShflXorOp(x, offset)

    def reduce_problem(self, t) -> str | None:
        return None if t in amd.SHFL_TYPES else "i32, i64, f32, f64"

    # --- memory ----------------------------------------------------------------------------------

    def shared_decl(self, name: str, size: int, align: int) -> Operation:
        return amd.LdsOp(name, size, align)

    def shared_addr(self, name: str) -> Operation:
        return amd.LdsAddrOp(name)

    def shared_alloc(self, k: GpuKernelLowering, t: mapped.BufType) -> SSAValue:
        """A static LDS array of its own (16-byte aligned)."""
        name = f"tilec_lds{len(k.decls)}"
        k.decls.append(self.shared_decl(name, max(16, -(-(t.size_bytes() or 0) // 16) * 16), 16))
        return k.b.top(self.shared_addr(name))

    def load_op(self, space: str, addr: SSAValue, t, read_only: bool) -> Operation:
        return (amd.GlobalLoadOp if space == "global" else amd.LdsLoadOp)(addr, t)

    def store_op(self, space: str, addr: SSAValue, v: SSAValue) -> Operation:
        return (amd.GlobalStoreOp if space == "global" else amd.LdsStoreOp)(addr, v)

    def atomic_load_op(self, addr: SSAValue, t, order: str) -> Operation:
        return amd.GlobalAtomicLoadOp(order, addr, t)

    def atomic_store_op(self, addr: SSAValue, v: SSAValue, order: str) -> Operation:
        return amd.GlobalAtomicStoreOp(order, addr, v)

    def fetch_add_op(self, addr: SSAValue, v: SSAValue) -> Operation:
        return amd.GlobalAtomicFetchAddOp(addr, v)

    def atomic_add_op(self, addr: SSAValue, v: SSAValue, op: Operation) -> Operation:
        t = v.type
        if str(t) not in ("f32", "f64") and not (isinstance(t, IntegerType) and t.width.data in (32, 64)):
            raise PassFailure(
                op,
                f"mapped-to-hw-amd: atomic adds of {t} are not supported yet on AMD GPUs (f32, f64, 32/64-bit ints); "
                "compile with deterministic=true",
            )
        return amd.GlobalAtomicAddOp(addr, v)

    def per_lane(self, t) -> bool:
        """Vectors of bools (bytes in memory) and 1-element vectors."""
        return isinstance(t, VectorType) and (t.get_element_type() == i1 or t.get_shape() == (1,))

    def load_lanes(self, k, space, addr, t, before, read_only) -> list[SSAValue]:
        elt = t.get_element_type()
        if t.get_shape() == (1,):
            x = k.load_value(space, addr, storage(elt), before)
            if elt == i1:
                x = k.b.value(arith.CmpiOp(x, k.const(0, i8), "ne"), before)
            return [x]
        n = t.get_shape()[0]
        raw = k.load_value(space, addr, VectorType(i8, [n]), before)
        lanes = []
        for i in range(n):
            b = k.b.value(vector.ExtractOp(raw, [i], i8), before)
            lanes.append(k.b.value(arith.CmpiOp(b, k.const(0, i8), "ne"), before))
        return lanes

    def store_lanes(self, k, space, addr, lanes, t, before) -> None:
        if t.get_shape() == (1,):
            (x,) = lanes
            k.store_value(space, addr, k.b.value(arith.ExtUIOp(x, i8), before) if x.type == i1 else x, before)
            return
        n = len(lanes)
        bytes_ = [k.b.value(arith.ExtUIOp(x, i8), before) for x in lanes]
        vec = k.b.value(vector.BroadcastOp(bytes_[0], VectorType(i8, [n])), before)
        for i in range(1, n):
            vec = k.b.value(vector.InsertOp(bytes_[i], vec, [i]), before)
        k.store_value(space, addr, vec, before)

    def check_vector(self, op: Operation, t: VectorType) -> None:
        n = t.get_shape()[0]
        nbytes = n * max(1, bitwidth(t.get_element_type()) // 8)
        if len(t.get_shape()) != 1 or n not in (2, 4, 8, 16) or nbytes > MAX_ACCESS:
            raise PassFailure(op, f"mapped-to-hw-amd: a {t} access is not one 2/4/8/16-byte access (not supported yet)")

    # --- the rest --------------------------------------------------------------------------------

    def lower_math(self, k: GpuKernelLowering, op: Operation) -> None:
        """Math ops stay (the device library); only their types are checked."""
        t = op.results[0].type
        if bitwidth(t) not in (32, 64) or isinstance(t, IntegerType):
            raise PassFailure(
                op, f"mapped-to-hw-amd: {op.name} on {t} is not supported yet on AMD GPUs (f32 and f64 only)"
            )


def arch_problem(arch: str, wave: int, portable: bool) -> str | None:
    """Why kernels of this wave size cannot run on `arch`, or None."""
    if not GFX_ARCH.match(arch):
        return f"unknown target '{arch}' (a gfx target such as gfx90a or gfx1030)"
    if wave == 32 and arch.startswith("gfx9"):
        hint = "" if portable else "; lower with tile-to-mapped{wave=64}"
        return f"{arch} runs 64-lane wavefronts only, but the kernel is mapped for wave 32{hint}"
    if wave == 64 and not arch.startswith("gfx9") and portable:
        return "portable HIP is wave 32, but the kernel is mapped for wave 64"
    return None


@register_pass
class MappedToHwAmd(TilecPass):
    """Lower gpu mapped kernels to hw.amd kernels for HIP (the mapped.host stays for the runtime)."""

    name = "mapped-to-hw-amd"
    arch: str = "gfx90a"
    portable: bool = False
    index_bits: int = 32

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not GFX_ARCH.match(self.arch):
            raise PassFailure(
                op, f"mapped-to-hw-amd: unknown target '{self.arch}' (a gfx target such as gfx90a or gfx1030)"
            )
        lower_gpu_kernels(op, AmdTarget(self.arch, self.portable), self.index_bits)


__all__ = ["AmdTarget", "MappedToHwAmd", "arch_problem"]
