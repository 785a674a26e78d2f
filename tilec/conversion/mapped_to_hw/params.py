"""Kernel parameters of the mapped -> hw lowerings (cpu, nv, amd): a buffer argument becomes a
pointer plus one parameter per dynamic dimension; other arguments become one parameter each."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from xdsl.ir import Attribute, SSAValue

from tilec.dialects import mapped
from tilec.dialects.common import DYNAMIC


def buffer_params(t: mapped.BufType, ptr: Attribute, dim: Attribute) -> list[Attribute]:
    """The parameter types of a buffer argument: `ptr`, then `dim` per dynamic dimension."""
    return [ptr] + [dim] * sum(1 for d in t.get_shape() if d == DYNAMIC)


def bind_args(
    args: Sequence[SSAValue], params: Sequence[SSAValue]
) -> Iterator[tuple[SSAValue, SSAValue, list[SSAValue | int]]]:
    """Pair each argument with its parameters, which take the argument's name (`X`, `X_d0`, ...):
    (argument, parameter, dims), where a buffer's dims are its dynamic dimensions' parameters
    and its static sizes, in order (empty for other arguments)."""
    it = iter(params)
    for a in args:
        p = next(it)
        if a.name_hint:
            p.name_hint = a.name_hint
        dims: list[SSAValue | int] = []
        if isinstance(a.type, mapped.BufType):
            for ax, d in enumerate(a.type.get_shape()):
                if d == DYNAMIC:
                    q = next(it)
                    if a.name_hint:
                        q.name_hint = f"{a.name_hint}_d{ax}"
                    dims.append(q)
                else:
                    dims.append(d)
        yield a, p, dims


__all__ = ["bind_args", "buffer_params"]
