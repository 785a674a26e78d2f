"""The `hw` dialect: per-thread instructions of one target, one SSA value per machine register.

Three op families share the dialect and the `!hw.ptr` type:
- `hw.nv.*` (tilec/dialects/hw/nv.py): PTX for NVIDIA GPUs, sm_80 to sm_90a;
- `hw.amd.*` (amd.py): HIP C++ for AMD GPUs (gfx9 CDNA with MFMA, gfx10+);
- `hw.cpu.*` (cpu.py): C with GCC vector extensions and OpenMP.

Scalar arithmetic and conversions use upstream `arith`, CPU math upstream `math`, structured
control flow upstream `scf`. Emission is a printer: every op carries what its instruction needs.
"""

from xdsl.ir import Dialect

from tilec.dialects.hw.amd import AMD_OPS, AMD_TYPES
from tilec.dialects.hw.common import PtrToIntOp, PtrType
from tilec.dialects.hw.cpu import CPU_OPS, CPU_TYPES
from tilec.dialects.hw.nv import NV_OPS, NV_TYPES

HW = Dialect("hw", [PtrToIntOp, *NV_OPS, *AMD_OPS, *CPU_OPS], [PtrType, *NV_TYPES, *AMD_TYPES, *CPU_TYPES])

__all__ = ["HW", "PtrToIntOp", "PtrType"]
