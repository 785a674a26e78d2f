"""The named pipelines, one per target: the only place where pass order lives.

Each takes options (`-p 'lower-to-ptx{sm=90}'`) and returns a pipeline string.
"""

from __future__ import annotations

from tilec.diagnostics import NotSupportedYet
from tilec.passes.registry import register_pipeline


CPU_OPTIONS = {"mr": (int, 6), "nr": (int, 16), "kc": (int, 512), "mc": (int, 96)}


@register_pipeline("lower-to-c", "tile -> mapped (CPU) -> hw.cpu, ready for the C emitter (-t c)", CPU_OPTIONS)
def lower_to_c(mr: int, nr: int, kc: int, mc: int) -> str:
    return (
        "tile-canonicalize,tile-fuse,"
        f"tile-to-mapped{{target=cpu mr={mr} nr={nr} kc={kc} mc={mc}}},"
        "mapped-to-hw-cpu"
    )


@register_pipeline("lower-to-ptx", "tile -> mapped (GPU) -> hw.nv, ready for the PTX emitter")
def lower_to_ptx() -> str:
    raise NotSupportedYet("the 'lower-to-ptx' pipeline (tile -> mapped -> hw for NVIDIA GPUs) is not built yet")


@register_pipeline("lower-to-hip", "tile -> mapped (GPU) -> hw.amd, ready for the HIP emitter")
def lower_to_hip() -> str:
    raise NotSupportedYet("the 'lower-to-hip' pipeline (tile -> mapped -> hw for AMD GPUs) is not built yet")
