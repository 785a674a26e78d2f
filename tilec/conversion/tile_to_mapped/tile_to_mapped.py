"""tile-to-mapped: place fused tile programs on a machine.

Each `tile.func` (after `tile-fuse`) becomes:
- one `mapped.kernel` per `tile.fused` group (a loop nest on CPUs, a grid of blocks on GPUs), and
- a `mapped.host` of the same name that allocates the temporaries between groups, reshapes
  buffers where a group reads a reshaped array, and launches the kernels in program order.

`target` names the backend the program is placed for (`cpu`, `cuda` or `hip`); the other options
are the mapping knobs of tilec/conversion/tile_to_mapped/options.py (each applies to the targets
whose knob group declares it; docs/cpu.md, docs/cuda.md, docs/hip.md list them with their
defaults, which are the documented heuristics).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from tilec.conversion.tile_to_mapped.options import AmdMapping, CpuMapping, NvMapping
from tilec.dialects import tile
from tilec.options import knob
from tilec.passes.api import PassFailure, TilecPass, register_pass

MAPPINGS = {"cpu": CpuMapping, "cuda": NvMapping, "hip": AmdMapping}
"""The knob group of each target tile-to-mapped places programs for."""

GPU_INDEX_LIMIT = 2**31
"""GPU kernels index with 32 bits: a buffer holds fewer than 2^31 elements (the runtime checks
dynamic sizes before each launch; static ones are refused here)."""


def _check_32bit_indexing(func: tile.FuncOp) -> None:
    values = [(a, func) for a in func.body.block.args]
    values += [(r, o) for o in func.body.block.ops for r in o.results]
    for v, owner in values:
        t = v.type
        n = t.num_elements() if isinstance(t, tile.TileType | tile.ArrayType) else None
        if n is not None and n >= GPU_INDEX_LIMIT:
            what = f"%{v.name_hint}" if v.name_hint else "a value"
            raise PassFailure(
                owner,
                f"tile-to-mapped: {what} of type {t} has {n} elements; GPU kernels index with 32 bits "
                f"(fewer than 2^31 elements per buffer): split the problem",
            )


HOST_LEVEL_OPS = (
    tile.FusedOp,
    tile.LoadOp,
    tile.StoreOp,
    tile.ReturnOp,
    tile.DimOp,
    tile.TransposeOp,
    tile.BroadcastOp,
    tile.ReshapeOp,
    tile.ConstantOp,
)


@register_pass
@dataclass(frozen=True)
class TileToMapped(
    TilecPass, CpuMapping, AmdMapping, NvMapping
):  # AmdMapping first: its `wave` field wins over NvMapping's constant
    """Lower fused tile functions to mapped kernels plus a host launch sequence."""

    name = "tile-to-mapped"
    what: ClassVar[str] = "pass 'tile-to-mapped'"

    target: str = knob("cpu", "the backend the program is placed for", choices=tuple(MAPPINGS))

    def problems(self) -> Iterator[str]:
        return MAPPINGS[self.target].problems(self)  # the rules of the target's knob group

    def mapping(self) -> CpuMapping | NvMapping | AmdMapping:
        """This pass's knobs as the options object of its target (validated there)."""
        cls = MAPPINGS[self.target]
        return cls(**{f.name: getattr(self, f.name) for f in fields(cls)})

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from tilec.conversion.tile_to_mapped.host import HostBuilder
        from tilec.options import OptionError

        try:
            options = self.mapping()
        except OptionError as e:
            raise PassFailure(op, f"tile-to-mapped{{target={self.target}}}: {e.message}") from None
        if self.target == "cpu":
            from tilec.conversion.tile_to_mapped.groups_cpu import lower_group
        else:
            from tilec.conversion.tile_to_mapped.groups_gpu import lower_group  # type: ignore[assignment]
        for func in [f for f in op.body.block.ops if isinstance(f, tile.FuncOp)]:
            if self.target != "cpu":
                _check_32bit_indexing(func)
            body_ops = list(func.body.block.ops)
            for o in body_ops:
                if not isinstance(o, HOST_LEVEL_OPS):
                    raise PassFailure(o, f"tile-to-mapped: {o.name} is outside a fusion group (run tile-fuse first)")
            host = HostBuilder(func)
            kernels = []
            for i, fused in enumerate(o for o in body_ops if isinstance(o, tile.FusedOp)):
                name = f"{func.sym_name.data}_{i}_{fused.kind.data}"
                lowered = lower_group(name, fused, host, options)
                for kernel, args in lowered if isinstance(lowered, list) else [lowered]:  # a GPU scatter: 2 kernels
                    kernels.append(kernel)
                    host.launch(kernel, args)
            host_op = host.finish()
            if tile.FOREACH_ATTR in func.attributes:
                host_op.attributes[tile.FOREACH_ATTR] = func.attributes[tile.FOREACH_ATTR]
            block = op.body.block
            for k in kernels:
                block.insert_op_before(k, func)
            block.insert_op_before(host_op, func)
            func.detach()
            func.erase(safe_erase=False)
