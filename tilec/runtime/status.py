"""The status word of programs with gathers/scatters: what a non-zero code after a call means.

Kernels that meet an out-of-range index store the op's code (1, 2, ...) in a one-element int32
buffer the runtime zeroed before the call (tilec/conversion/tile_to_mapped/host.py); the
runtimes read it after the call and raise here, from the [message, location] pairs of the
host program's `tilec.status` attribute (kept in meta.json and host.json).
"""

from __future__ import annotations

from tilec.diagnostics import IndexOutOfRange, SourceLocation, TilecError


def raise_status(code: int, checks: list[list[str]]) -> None:
    """After a call whose status word holds `code` (non-zero): the IndexOutOfRange it means."""
    if not 0 < code <= len(checks):
        raise TilecError(f"a kernel set the status word to {code}, which no index check uses (a bug in tilec)")
    message, loc = checks[code - 1]
    location = None
    if loc:
        file, line, col = loc.rsplit(":", 2)
        location = SourceLocation(file, int(line), int(col))
    raise IndexOutOfRange(message, location)


__all__ = ["raise_status"]
