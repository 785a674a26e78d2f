"""`tilec.torch.dispatch()`: eager PyTorch with every ATen op tilec has a kernel for run on it.

A `TorchDispatchMode`: each ATen call below autograd (forward and backward, optimizer steps)
comes here. A call the op table (tilec/torch/aten/) can plan runs on its tile op; views and
allocations run in torch (they launch no kernel); anything else is a *fallback*: it runs in torch
and the report names it with the reason, never silently. `strict=True` (or `TILEC_STRICT=1`)
makes a fallback a `NotSupportedYet` error naming the op.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field

from torch.utils._python_dispatch import TorchDispatchMode

from tilec.diagnostics import NotSupportedYet
from tilec.torch.aten import Decline, Library, NoKernel, default_table

NO_KERNEL = frozenset(
    "aten::" + n
    for n in (
        "detach _unsafe_view empty empty_like empty_strided new_empty new_empty_strided lift_fresh "
        "_local_scalar_dense set_ resize_ is_same_size _has_compatible_shallow_copy_type _reshape_alias "
        "sym_size sym_stride sym_numel sym_storage_offset"
    ).split()
)
"""ATen ops that launch no kernel (besides views, `OpOverload.is_view`): allocations, metadata.
The `profiler::` markers of `record_function` launch none either."""


def overload_name(func) -> str:
    """`aten::add.Tensor`, `aten::mm.default`: the op and its overload."""
    return f"{func._schema.name}.{func._overloadname}"


@dataclass
class Report:
    """What ran where, per ATen overload: `kernels` (on tilec), `fallbacks` (in torch, with
    `reasons`), `no_kernel` (views, allocations: torch, no kernel to run); under torch.compile,
    `regions_seen` (graph nodes per fused region)."""

    kernels: Counter = field(default_factory=Counter)
    fallbacks: Counter = field(default_factory=Counter)
    reasons: dict = field(default_factory=dict)
    no_kernel: Counter = field(default_factory=Counter)
    regions_seen: list = field(default_factory=list)  # torch.compile: nodes per fused region

    @property
    def coverage(self) -> float:
        """The fraction of op instances with a kernel that ran on tilec (1.0 when none ran)."""
        done, missed = sum(self.kernels.values()), sum(self.fallbacks.values())
        return 1.0 if done + missed == 0 else done / (done + missed)

    def fallback(self, name: str, reason: str) -> None:
        self.fallbacks[name] += 1
        seen = self.reasons.setdefault(name, [])
        if reason not in seen and len(seen) < 3:
            seen.append(reason)

    def table(self) -> str:
        """A plain-text table: coverage, then each fallback op with its count and reasons, then
        the ops tilec ran."""
        done, missed = sum(self.kernels.values()), sum(self.fallbacks.values())
        lines = [
            f"tilec kernels: {done} op instances ({len(self.kernels)} ops); fallbacks to torch: {missed} "
            f"({len(self.fallbacks)} ops); coverage {100 * self.coverage:.1f}%; "
            f"views and allocations (no kernel): {sum(self.no_kernel.values())}"
        ]
        if self.regions_seen:
            lines.append(
                f"fused regions (torch.compile): {len(self.regions_seen)}, "
                f"{sum(self.regions_seen)} graph nodes, largest {max(self.regions_seen)}"
            )
        if self.fallbacks:
            lines.append("fallbacks:")
            for name, n in self.fallbacks.most_common():
                lines.append(f"  {name:44} {n:6}  {'; '.join(self.reasons.get(name, []))}")
        if self.kernels:
            lines.append("on tilec:")
            for name, n in self.kernels.most_common():
                lines.append(f"  {name:44} {n:6}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


class dispatch(TorchDispatchMode):  # noqa: N801  (used as `with tilec.torch.dispatch():`)
    """`with tilec.torch.dispatch() as d:` runs the ATen ops of the block on tilec's kernels;
    `d.report` says which ran where. `strict` (default: the environment's `TILEC_STRICT=1`)
    turns a fallback into an error; `library` shares compiled tile ops between blocks."""

    def __init__(self, strict: bool | None = None, library: Library | None = None):
        super().__init__()
        self.strict = os.environ.get("TILEC_STRICT", "0") == "1" if strict is None else strict
        self.library = library if library is not None else Library(default_table())
        self.report = Report()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = overload_name(func)
        if func.is_view or func._schema.name in NO_KERNEL or func.namespace == "profiler":
            self.report.no_kernel[name] += 1
            return func(*args, **kwargs)
        plan = self.library.plan(func, args, kwargs)
        if isinstance(plan, NoKernel):
            self.report.no_kernel[name] += 1
            return func(*args, **kwargs)
        if not isinstance(plan, str):
            try:
                out = self.library.run(func, plan)
            except (Decline, NotSupportedYet) as e:
                plan = e.message if isinstance(e, NotSupportedYet) else str(e)
            else:
                self.report.kernels[name] += 1
                return out
        if self.strict:
            raise NotSupportedYet(f"{name} on tilec ({plan}); TILEC_STRICT=1 makes every fallback an error")
        self.report.fallback(name, plan)
        return func(*args, **kwargs)
