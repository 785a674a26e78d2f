"""The named pipelines, one per target: the only place where pass order lives.

Each takes options (`-p 'lower-to-ptx{sm=90}'`) and returns a pipeline string.
"""

from __future__ import annotations

from tilec.diagnostics import NotSupportedYet
from tilec.passes.registry import register_pipeline


@register_pipeline("lower-to-c", "tile -> mapped (CPU) -> hw.cpu, ready for the C emitter")
def lower_to_c() -> str:
    raise NotSupportedYet("the 'lower-to-c' pipeline (tile -> mapped -> hw for CPUs) is not built yet")


@register_pipeline("lower-to-ptx", "tile -> mapped (GPU) -> hw.nv, ready for the PTX emitter")
def lower_to_ptx() -> str:
    raise NotSupportedYet("the 'lower-to-ptx' pipeline (tile -> mapped -> hw for NVIDIA GPUs) is not built yet")


@register_pipeline("lower-to-hip", "tile -> mapped (GPU) -> hw.amd, ready for the HIP emitter")
def lower_to_hip() -> str:
    raise NotSupportedYet("the 'lower-to-hip' pipeline (tile -> mapped -> hw for AMD GPUs) is not built yet")
