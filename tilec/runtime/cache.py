"""The on-disk kernel cache.

Entries live under `TILEC_CACHE_DIR` (default: the user's cache directory from platformdirs),
one file per compiled artifact, named by a SHA-256 of everything that determines it (source text,
target, options, compiler identity and flags). Writes go to a temporary file in the same folder
and are renamed into place (atomic on POSIX); a file lock per key keeps concurrent processes from
compiling the same kernel twice. Each artifact has a sidecar with its own SHA-256: an entry whose
content does not match (truncated, corrupted, tampered) is deleted and rebuilt, never loaded.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock


def cache_dir() -> Path:
    env = os.environ.get("TILEC_CACHE_DIR")
    if env:
        path = Path(env)
    else:
        from platformdirs import user_cache_dir

        path = Path(user_cache_dir("tilec"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_key(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        b = p.encode() if isinstance(p, str) else p
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _valid(path: Path) -> bool:
    side = path.with_name(path.name + ".sha256")
    try:
        return path.is_file() and side.is_file() and side.read_text().strip() == _digest(path)
    except OSError:
        return False


def get_or_build(key: str, suffix: str, build: Callable[[Path], None]) -> tuple[Path, bool]:
    """The cached artifact for `key`, building it with `build(tmp_path)` if missing or corrupt.

    Returns (path, hit)."""
    folder = cache_dir() / key[:2]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{key}{suffix}"
    if _valid(path):
        return path, True
    with FileLock(str(folder / f"{key}.lock")):
        if _valid(path):
            return path, True
        for stale in (path, path.with_name(path.name + ".sha256")):
            stale.unlink(missing_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{key[:16]}-", suffix=suffix)
        os.close(fd)
        tmp_path = Path(tmp)
        try:
            build(tmp_path)
            digest = _digest(tmp_path)
            os.replace(tmp_path, path)
            side_tmp = folder / f".{key[:16]}.sha256.tmp"
            side_tmp.write_text(digest + "\n")
            os.replace(side_tmp, path.with_name(path.name + ".sha256"))
        finally:
            tmp_path.unlink(missing_ok=True)
    return path, False


def invalidate(path: Path) -> None:
    """Drop an entry that failed to load, so the next request rebuilds it."""
    for p in (path, path.with_name(path.name + ".sha256")):
        p.unlink(missing_ok=True)
