"""The named pipelines, one per target: the only place where pass order lives.

Each takes options (`-p 'lower-to-ptx{sm=90}'`) and returns a pipeline string.
"""

from __future__ import annotations

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
        f"mapped-expand-pipeline,mapped-to-hw-nv{{sm={sm}}},int-strength-reduce"
    )


HIP_OPTIONS = {
    "arch": (str, "gfx90a"),
    "wave": (int, 64),
    "portable": (bool, False),
    "threads": (int, 256),
    "row-threads": (int, 0),
    "vector-bytes": (int, 16),
    "block-m": (int, 128),
    "block-n": (int, 128),
    "block-k": (int, 32),
    "warps-m": (int, 2),
    "warps-n": (int, 2),
    "mfma": (str, "m32n32k8"),
    "matrix-cores": (bool, True),
}
PORTABLE_ARCH = "gfx1030"
"""The wave-32 target that portable HIP (no matrix cores) names by default."""


def hip_settings(**options) -> tuple[str, int, bool, str]:
    """(arch, wave, portable, tile-to-mapped options) of lower-to-hip's options.

    portable=true means no matrix-core builtins and wave 32: with it the arch and wave defaults
    (gfx90a, 64) become gfx1030 (an RDNA2 wave-32 target) and 32; the same source also compiles for
    NVIDIA GPUs through tilec/emit/hip_compat_cuda.h."""
    get = lambda key: options.get(key.replace("-", "_"), HIP_OPTIONS[key][1])  # noqa: E731
    portable = bool(get("portable"))
    arch = str(get("arch"))
    wave = int(get("wave"))
    if portable:  # the defaults become gfx1030 / wave 32 (other explicit values are checked by the passes)
        arch = PORTABLE_ARCH if arch == HIP_OPTIONS["arch"][1] else arch
        wave = 32 if wave == HIP_OPTIONS["wave"][1] else wave
    tc = bool(get("matrix-cores")) and not portable
    parts = [f"wave={wave}", f"tensor-cores={str(tc).lower()}"]
    for key in ("threads", "row-threads", "vector-bytes", "block-m", "block-n", "block-k", "warps-m", "warps-n", "mfma"):
        parts.append(f"{key}={get(key)}")
    return arch, wave, portable, " ".join(parts)


@register_pipeline(
    "lower-to-hip", "tile -> mapped (GPU, wave 64) -> hw.amd, ready for the HIP emitter (-t hip)", HIP_OPTIONS
)
def lower_to_hip(**options) -> str:
    arch, _, portable, mapping = hip_settings(**options)
    return (
        f"tile-canonicalize,tile-fuse,tile-to-mapped{{target=gpu {mapping}}},"
        f"mapped-expand-pipeline,mapped-to-hw-amd{{arch={arch} portable={str(portable).lower()}}}"
    )
