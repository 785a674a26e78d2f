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


GPU_OPTIONS = {
    "sm": (str, "sm_90"),
    "threads": (int, 256),
    "row-threads": (int, 0),
    "vector-bytes": (int, 16),
    "block-m": (int, 128),
    "block-n": (int, 128),
    "block-k": (int, 32),
    "warps-m": (int, 2),
    "warps-n": (int, 2),
    "stages": (int, 4),
    "tensor-cores": (bool, True),
}


def gpu_mapping_options(**options) -> str:
    parts = []
    for key, (_, default) in GPU_OPTIONS.items():
        if key == "sm":
            continue
        value = options.get(key.replace("-", "_"), default)
        parts.append(f"{key}={str(value).lower() if isinstance(value, bool) else value}")
    return " ".join(parts)


@register_pipeline("lower-to-ptx", "tile -> mapped (GPU) -> hw.nv, ready for the PTX emitter (-t ptx)", GPU_OPTIONS)
def lower_to_ptx(**options) -> str:
    sm = options.get("sm", "sm_90")
    return (
        f"tile-canonicalize,tile-fuse,tile-to-mapped{{target=gpu {gpu_mapping_options(**options)}}},"
        f"mapped-expand-pipeline,mapped-to-hw-nv{{sm={sm}}}"
    )


@register_pipeline("lower-to-hip", "tile -> mapped (GPU) -> hw.amd, ready for the HIP emitter")
def lower_to_hip() -> str:
    raise NotSupportedYet("the 'lower-to-hip' pipeline (tile -> mapped -> hw for AMD GPUs) is not built yet")
