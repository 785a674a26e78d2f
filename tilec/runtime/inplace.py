"""Checks for arguments updated in place (`p[...] = new` in a tile program, `tile.store` into an
input): the array the caller passed is the one written, so it must be writable, C-contiguous and
share no memory with another argument (else one argument's update would change another's value
halfway through a kernel). Used by the frontend before a call and by each runtime's kernels."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tilec.diagnostics import TilecError


def _interface(a) -> dict | None:
    iface = getattr(a, "__cuda_array_interface__", None)
    if iface is None:
        iface = getattr(a, "__array_interface__", None)
    return iface


def byte_range(a) -> tuple[int, int] | None:
    """[first, last) bytes an array (numpy, CuPy, or any with an array interface) may touch."""
    if isinstance(a, np.ndarray) and a.flags.c_contiguous:  # the common case, without the interface dict
        ptr = a.ctypes.data
        return (ptr, ptr + a.nbytes)
    iface = _interface(a)
    if iface is None:
        return None
    ptr = iface["data"][0]
    shape, item = tuple(iface["shape"]), np.dtype(iface["typestr"]).itemsize
    if any(n == 0 for n in shape):
        return (ptr, ptr)
    strides = iface.get("strides")
    if strides is None:  # C-contiguous
        n = 1
        for d in shape:
            n *= int(d)
        return (ptr, ptr + n * item)
    lo = ptr + sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    hi = ptr + sum((n - 1) * s for n, s in zip(shape, strides) if s > 0) + item
    return (lo, hi)


def is_c_contiguous(a) -> bool:
    flags = getattr(a, "flags", None)
    return bool(flags is not None and flags.c_contiguous)


def check_updated(op: str, names: Sequence[str], arrays: Sequence, updated: Sequence[int]) -> None:
    """Raise a TilecError naming `op` and the argument when an updated array cannot be written in
    place, or shares memory with another array argument. `arrays` holds every argument (scalars
    are skipped); `names` their names."""
    for i in updated:
        a = arrays[i]
        if not is_c_contiguous(a):
            raise TilecError(
                f"{op}: argument '{names[i]}' is updated in place, so it must be a C-contiguous array "
                f"(a copy would not be the caller's array); pass np.ascontiguousarray(x) and keep that array"
            )
        if isinstance(a, np.ndarray) and not a.flags.writeable:
            raise TilecError(f"{op}: argument '{names[i]}' is updated in place but its array is read-only")
    ranges = []
    for i, a in enumerate(arrays):
        if isinstance(a, int | float) or a is None:
            continue
        r = byte_range(a)
        if r is not None and r[1] > r[0]:
            ranges.append((r[0], r[1], i))
    if len(ranges) < 2:
        return
    upd = set(updated)
    ranges.sort()
    # sweep: each range against the open ones before it that it overlaps
    open_: list[tuple[int, int, int]] = []
    for lo, hi, i in ranges:
        open_ = [o for o in open_ if o[1] > lo]
        for _, _, j in open_:
            if (i in upd or j in upd) and _overlap(arrays[i], arrays[j]):
                a, b = sorted((i, j))
                w = a if a in upd else b
                other = b if w == a else a
                raise TilecError(
                    f"{op}: argument '{names[w]}' is updated in place but shares memory with argument "
                    f"'{names[other]}'; pass separate arrays (a copy of one of them)"
                )
        open_.append((lo, hi, i))


def _overlap(a, b) -> bool:
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        try:
            return bool(np.shares_memory(a, b, max_work=10_000))
        except np.exceptions.TooHardError:
            return True
    return True  # device arrays: overlapping byte ranges


class LastLists:
    """The lists of arrays of a kernel's last call over lists and a value derived from them (the
    table of their addresses), reused while a call passes the very same array objects: they are
    held here, so an unchanged identity means unchanged memory (numpy will not resize an array
    that is referenced; CuPy arrays cannot be re-pointed)."""

    def __init__(self):
        self._lists: list | None = None
        self.value = None

    def same(self, lists) -> bool:
        old = self._lists
        return (
            old is not None
            and len(old) == len(lists)
            and all(len(a) == len(b) and all(x is y for x, y in zip(a, b)) for a, b in zip(old, lists))
        )

    def keep(self, lists, value) -> None:
        self._lists = [list(a) for a in lists]
        self.value = value


__all__ = ["LastLists", "byte_range", "check_updated", "is_c_contiguous"]
