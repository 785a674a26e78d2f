"""Remembered tool probes: what a compiler binary said about itself, kept per binary on disk.

Probing a compiler (its version, which flags it accepts) runs it several times: 50-300 ms. The
answer depends only on the binary, so it is kept in the cache under a key made of the tool's
path, size and modification time (`stat`, microseconds), and a new process reuses it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from tilec.cache import cache_key, enabled, get_or_build, lookup


def stat_identity(path: str) -> str:
    """path, size and mtime of the tool (following links): changes when the tool is replaced."""
    try:
        st = os.stat(path)
        return f"{os.path.realpath(path)}|{st.st_size}|{st.st_mtime_ns}"
    except OSError:
        return path


def remembered(what: str, path: str, extra: str, probe: Callable[[], dict]) -> dict:
    """`probe()` for this tool binary (and `extra`: environment that changes the answer), run once
    and then read back from the cache."""
    key = cache_key("probe", what, stat_identity(path), extra)
    hit = lookup(key)
    if hit is not None:
        try:
            return json.loads(hit.file("probe.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass
    result = probe()

    def write(folder: Path) -> None:
        (folder / "probe.json").write_text(json.dumps(result), encoding="utf-8")

    if enabled():
        get_or_build(key, write)
    return result


__all__ = ["remembered", "stat_identity"]
