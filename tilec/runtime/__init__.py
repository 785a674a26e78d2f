"""Compiling tile modules to loaded kernels, per target, with a disk cache.

- `lower(module, level, target, **options) -> ModuleOp`: a NEW module at `level` ("tile",
  "mapped" or "hw") for `target` ("c", "cuda", "hip"); the input is not modified.
- `compile_module(module, target, **options) -> Kernel`: the tile module lowered, emitted,
  compiled and loaded (cached in memory and on disk).
- `Kernel.source`: the emitted text; `Kernel(*arrays)` runs it and returns the outputs (a tuple).
"""

from __future__ import annotations

import threading

from xdsl.dialects.builtin import ModuleOp

from tilec.diagnostics import NotSupportedYet, TilecError

LEVELS = ("tile", "mapped", "hw")
TARGETS = ("c", "cuda", "hip")

_memory: dict[str, object] = {}
_lock = threading.Lock()


def _pipeline(level: str, target: str, options: dict) -> str:
    from tilec.passes.pipelines import CPU_OPTIONS, GPU_OPTIONS, HIP_OPTIONS, lower_to_c, lower_to_hip, lower_to_ptx

    table = {"c": CPU_OPTIONS, "cuda": GPU_OPTIONS, "hip": HIP_OPTIONS}[target]
    known = {k.replace("-", "_") for k in table}
    unknown = set(options) - known
    if unknown:
        raise TilecError(f"unknown option(s) for target {target}: {', '.join(sorted(unknown))} (options: {', '.join(sorted(known))})")
    if level == "tile":
        return ""
    if target == "c":
        full = lower_to_c(**{k: options.get(k, d) for k, (_, d) in CPU_OPTIONS.items()})
    elif target == "hip":
        full = lower_to_hip(**options)
    else:
        full = lower_to_ptx(**options)
    if level == "hw":
        return full
    stages = full.split(",")
    to_hw = next(i for i, s in enumerate(stages) if s.startswith("mapped-to-hw"))
    return ",".join(stages[:to_hw])  # the mapped level: everything before the hw lowering


def lower(module: ModuleOp, level: str, target: str = "c", **options) -> ModuleOp:
    if level not in LEVELS:
        raise TilecError(f"unknown IR level '{level}' (levels: {', '.join(LEVELS)})")
    if target not in TARGETS:
        raise TilecError(f"unknown target '{target}' (targets: {', '.join(TARGETS)})")
    from tilec.passes import run_pipeline

    clone = module.clone()
    pipeline = _pipeline(level, target, options)
    if pipeline:
        run_pipeline(clone, pipeline)
    return clone


def compile_module(module: ModuleOp, target: str = "c", **options):
    """Compile a tile module with exactly one tile.func; returns a callable kernel."""
    from tilec.dialects import tile
    from tilec.ir import print_module

    funcs = [op for op in module.body.block.ops if isinstance(op, tile.FuncOp)]
    if len(funcs) != 1:
        raise TilecError(f"compile_module needs a module with exactly one tile.func, got {len(funcs)}")
    key = f"{target}|{sorted(options.items())}|{print_module(module)}"
    with _lock:
        if key in _memory:
            return _memory[key]
    if target == "cuda":
        from tilec.runtime.cuda import compile_cuda

        kernel = compile_cuda(module, **options)
        with _lock:
            _memory[key] = kernel
        return kernel
    if target == "hip":
        from tilec.runtime.hip import compile_hip

        kernel = compile_hip(module, **options)
        with _lock:
            _memory[key] = kernel
        return kernel
    if target != "c":
        raise NotSupportedYet(f"the '{target}' target")
    from tilec.runtime.cpu import CpuKernel, compile_c
    from tilec.emit.c import emit_c

    hw = lower(module, "hw", target, **options)
    source = emit_c(hw)
    library, hit = compile_c(source)
    kernel = CpuKernel(funcs[0].clone(), source, library, hit)
    with _lock:
        _memory[key] = kernel
    return kernel
