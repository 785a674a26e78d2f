"""The ATen op table's machinery: a `Plan` per call, the `Library` that turns plans into tile ops.

An entry of the table is a function `plan(p)` over the call's arguments bound by name (`p`, from
the op's schema, defaults filled in). It returns a `Plan` (how tilec computes the call) or a
string: why tilec has no kernel for this call (an unsupported dtype, layout or argument), which
the caller reports as a fallback.

A Plan's `body` is traced into a tile op whose parameters are the plan's tensors (array
arguments) and Python numbers (runtime scalars: a new learning rate does not recompile). The
`Library` keeps one tile op per (op, static key, dtypes, argument pattern); tile ops keep their
compiled kernels per shape (and on disk, tilec's kernel cache).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

import tilec
from tilec.frontend.op import TileFunction
from tilec.library.nn import like


@dataclass(frozen=True)
class Plan:
    """How tilec computes one ATen call.

    - `body(*inputs)`: tiles for the tensors of `inputs` and rank-0 tiles for its numbers, in
      `inputs`' order; returns a tile or a tuple of tiles. It may close over static parameters
      only, all of them in `key`.
    - `key`: the static parameters (axes, flags, dtypes): one tile op per distinct key.
    - `updates`: the positions in `inputs` of the tensors the call writes in place (each must be
      contiguous and share memory with no other input). The body's last `len(updates)` results
      are their new values (cast to their dtypes); the results before them are the call's. A
      call with no other results returns the first updated tensor (`add_` returns `self`).
    - `returns(outputs)`: the ATen result from the tile op's results (default: as they come).
    """

    key: tuple
    body: Callable[..., Any]
    inputs: tuple
    updates: tuple[int, ...] = ()
    returns: Callable[[tuple], Any] | None = None


def masked(want: tuple[bool, ...]) -> Callable[[tuple], tuple]:
    """A Plan `returns` for ops with an output mask (the backward of norms and convolution): the
    computed results in the wanted slots, None in the others."""

    def returns(outs: tuple) -> tuple:
        it = iter(outs)
        return tuple(next(it) if on else None for on in want)

    return returns


def bind(func, args: tuple, kwargs: Mapping) -> dict:
    """The call's arguments by name, per the op's schema, defaults filled in."""
    out: dict = {}
    for i, a in enumerate(func._schema.arguments):
        if i < len(args) and not a.kwarg_only:
            out[a.name] = args[i]
        elif a.name in kwargs:
            out[a.name] = kwargs[a.name]
        elif a.has_default_value():
            out[a.name] = a.default_value
        else:
            out[a.name] = None
    return out


def table_key(func) -> str:
    """An ATen overload's name in the table: `add.Tensor`, `mm.default` (None outside aten)."""
    return f"{func._schema.name.removeprefix('aten::')}.{func._overloadname}" if func.namespace == "aten" else ""


def tilec_dtype(dt: torch.dtype):
    """tilec's dtype for a torch dtype (None when tilec has none: complex, quantized, ...)."""
    name = str(dt).removeprefix("torch.")
    try:
        return tilec.as_dtype(name)
    except tilec.TilecError:
        return None


def is_float(dt: torch.dtype) -> bool:
    return dt.is_floating_point and dt not in (torch.float8_e4m3fn, torch.float8_e5m2)


def _same_view(a: torch.Tensor, b: torch.Tensor) -> bool:
    return (
        a.device == b.device
        and a.dtype == b.dtype
        and a.data_ptr() == b.data_ptr()
        and a.shape == b.shape
        and a.stride() == b.stride()
    )


def _shares_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.device == b.device and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


class NoKernel(str):
    """A plan function's answer for a call that needs no kernel (its result is empty): torch
    allocates it, and reports count it with views and allocations, not as a fallback."""


class Decline(Exception):
    """Raised by Library.run when a call cannot run on tilec after all (the message says why)."""


@dataclass
class Library:
    """The ATen op table with its tile ops: `plan(func, args, kwargs)` then `run(func, plan)`."""

    table: Mapping[str, Callable[[dict], Plan | str]]
    kernels: dict = field(default_factory=dict)

    def has(self, func) -> bool:
        return table_key(func) in self.table

    def plan(self, func, args: tuple, kwargs: Mapping) -> Plan | str:
        """The Plan of this call, or why tilec has no kernel for it."""
        entry = self.table.get(table_key(func))
        if entry is None:
            return "no tilec kernel for this op"
        for v in (*args, *kwargs.values()):
            for t in v if isinstance(v, list | tuple) else (v,):
                if isinstance(t, torch.Tensor):
                    if t.device.type not in ("cpu", "cuda"):
                        return f"a tensor on {t.device.type}"
                    if tilec_dtype(t.dtype) is None:
                        return f"dtype {t.dtype}"
                    if t.is_sparse or t.layout != torch.strided:
                        return f"layout {t.layout}"
        return entry(bind(func, args, kwargs))

    def run(self, func, plan: Plan):
        """Compute the call with its tile op; returns what the ATen op returns."""
        arrays: list[torch.Tensor] = []
        scalars: list = []
        slots: list[tuple[str, int]] = []
        for x in plan.inputs:
            if isinstance(x, torch.Tensor):
                j = next((j for j, a in enumerate(arrays) if a is x or _same_view(a, x)), None)
                if j is None:
                    arrays.append(x)
                    j = len(arrays) - 1
                slots.append(("a", j))
            else:
                scalars.append(x)
                slots.append(("s", len(scalars) - 1))
        cuda = {a.device for a in arrays if a.device.type == "cuda"}
        if len(cuda) > 1:
            raise Decline(f"tensors on several devices ({', '.join(sorted(map(str, cuda)))})")
        if cuda:  # 0-dim CPU tensors go with CUDA ones (as in torch); larger ones do not
            (device,) = cuda
            written = {slots[u][1] for u in plan.updates}
            for j, a in enumerate(arrays):
                if a.device.type == "cpu":
                    if a.ndim or j in written:
                        raise Decline(f"tensors on {device} and on the CPU")
                    arrays[j] = a.to(device)
        for u in plan.updates:
            target, j = plan.inputs[u], slots[u][1]
            if not target.is_contiguous():
                raise Decline("an in-place update of a non-contiguous tensor")
            if any(_shares_memory(a, target) for i, a in enumerate(arrays) if i != j):
                raise Decline("an in-place update of a tensor that shares memory with another argument")
        key = (  # shapes too: a body may close over sizes its plan read (a tile op traces per shape anyway)
            func.name(),
            plan.key,
            tuple(a.dtype for a in arrays),
            tuple(tuple(a.shape) for a in arrays),
            tuple(slots),
            tuple(type(s).__name__ for s in scalars),
            plan.updates,
        )
        op = self.kernels.get(key)
        if op is None:
            op = self.kernels[key] = _tile_op(func, plan, [tilec_dtype(a.dtype) for a in arrays], scalars, slots)
        outs = op(*arrays, *scalars)
        if plan.returns is not None:
            return plan.returns(() if outs is None else outs if isinstance(outs, tuple) else (outs,))
        if plan.updates and outs is None:
            return plan.inputs[plan.updates[0]]
        return outs


def _tile_op(func, plan: Plan, array_dtypes: list, scalars: list, slots: list) -> TileFunction:
    """A tile op computing `plan` for arrays of these dtypes and numbers of these types."""
    body_fn, updates, n = plan.body, plan.updates, len(array_dtypes)
    names = [f"a{i}" for i in range(n)] + [f"s{k}" for k in range(len(scalars))]

    def body(*values):
        ins = [values[j] if kind == "a" else values[n + j] for kind, j in slots]
        out = body_fn(*ins)
        if not updates:
            return out
        out = out if isinstance(out, tuple) else (out,)
        keep, new = out[: len(out) - len(updates)], out[len(out) - len(updates) :]
        for u, v in zip(updates, new):
            ins[u][...] = like(v, ins[u].dtype)
        return keep if len(keep) > 1 else keep[0] if keep else None

    body.__signature__ = inspect.Signature(
        [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for name in names]
    )
    body.__name__ = re.sub(r"\W", "_", func.name().replace("::", "_"))
    dtypes = {f"a{i}": dt for i, dt in enumerate(array_dtypes)}
    dtypes.update({f"s{k}": (float if isinstance(s, float) else int) for k, s in enumerate(scalars)})
    return tilec.tile_op(dtypes=dtypes)(body)
