"""The on-disk cache: compiled kernels and toolchain probes, one folder per entry.

Entries live under `TILEC_CACHE_DIR` (default: the user's cache directory from platformdirs),
`<dir>/<key[:2]>/<key>/`, where the key is a SHA-256 of everything that determines the entry (for
a kernel: the traced tile module with its locations, the target, the resolved options, the user's
extra passes, tilec's version and the toolchain's identity; see tilec/runtime/__init__.py). An entry
is built in a temporary folder beside it and renamed into place (atomic on POSIX); a file lock per
key keeps concurrent processes from building the same entry twice. `MANIFEST.json` holds the
SHA-256 of every file of the entry: an entry that does not match it (truncated, corrupted, edited,
replaced by something else) is deleted and rebuilt, never used.

Faults never become permanent failures: an unreadable entry is repaired (rebuilt); a cache folder
that cannot be used at all (not creatable, read-only, a file, a full disk) gives one warning and
the work is done without the cache, in a temporary folder. `TILEC_CACHE=0` turns the cache off.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MANIFEST = "MANIFEST.json"
LOCK_TIMEOUT_S = 600  # a build holding the lock longer than this is presumed dead


class CacheUnavailable(Exception):
    """The cache folder cannot be used (the caller builds without it)."""


def enabled() -> bool:
    return os.environ.get("TILEC_CACHE", "1").strip().lower() not in ("0", "off", "false", "no")


def cache_dir() -> Path:
    """The cache folder (created if needed); raises CacheUnavailable when it cannot be used."""
    env = os.environ.get("TILEC_CACHE_DIR")
    if env:
        path = Path(env)
    else:
        from platformdirs import user_cache_dir

        path = Path(user_cache_dir("tilec"))
    try:
        path.mkdir(parents=True, exist_ok=True)
        if not path.is_dir():
            raise NotADirectoryError(str(path))
    except (OSError, RuntimeError) as e:  # RuntimeError: a symlink loop on some Pythons
        raise CacheUnavailable(f"the cache folder {path} cannot be used ({e})") from None
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


def _valid(folder: Path) -> bool:
    """The entry exists and every file matches its manifest (any read problem: not valid)."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        files = manifest["files"]
        if not isinstance(files, dict) or not files:
            return False
        present = {p.name for p in folder.iterdir()} - {MANIFEST}
        if present != set(files):
            return False
        return all((folder / name).is_file() and _digest(folder / name) == digest for name, digest in files.items())
    except (OSError, ValueError, KeyError, TypeError, UnicodeError):
        return False


def _remove(path: Path) -> None:
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    except OSError:
        pass


def _write_manifest(folder: Path) -> None:
    files = {p.name: _digest(p) for p in sorted(folder.iterdir()) if p.is_file() and p.name != MANIFEST}
    (folder / MANIFEST).write_text(json.dumps({"files": files}, indent=1) + "\n", encoding="utf-8")


@dataclass(frozen=True)
class Entry:
    """A cache entry: its folder, and whether it was already there."""

    path: Path
    hit: bool
    cached: bool = True  # False: built in a temporary folder because the cache could not be used
    holder: object = None  # that temporary folder's owner: the folder lives as long as the entry

    def file(self, name: str) -> Path:
        return self.path / name


def lookup(key: str) -> Entry | None:
    """The valid entry for `key`, else None (a corrupt one is removed)."""
    if not enabled():
        return None
    try:
        folder = cache_dir() / key[:2] / key
    except CacheUnavailable:
        return None
    if _valid(folder):
        return Entry(folder, True)
    if folder.exists() or folder.is_symlink():
        _remove(folder)
    return None


def remove_entry(key: str) -> None:
    """Drop the entry of `key` (one that does not load), so the next request rebuilds it."""
    try:
        _remove(cache_dir() / key[:2] / key)
    except CacheUnavailable:
        pass


def get_or_build(key: str, build: Callable[[Path], None]) -> Entry:
    """The entry for `key`, running `build(folder)` to fill an empty folder when it is missing or
    corrupt. `build` raising leaves nothing behind."""
    if not enabled():
        return _build_uncached(build)
    try:
        shard = cache_dir() / key[:2]
        shard.mkdir(exist_ok=True)
        folder = shard / key
        if _valid(folder):
            return Entry(folder, True)
        from filelock import FileLock  # (imported here: a cache hit needs no lock)

        lock = FileLock(str(shard / f"{key}.lock"), timeout=LOCK_TIMEOUT_S)
        with lock:
            if _valid(folder):
                return Entry(folder, True)
            if folder.exists() or folder.is_symlink():
                _remove(folder)
            tmp = Path(tempfile.mkdtemp(dir=shard, prefix=f".{key[:16]}-"))
            try:
                build(tmp)  # its own errors (a compiler's) propagate as they are
                try:
                    _write_manifest(tmp)
                    os.replace(tmp, folder)
                except OSError as e:
                    raise CacheUnavailable(f"cannot write the entry {folder} ({e})") from None
            finally:
                if tmp.exists():
                    _remove(tmp)
        return Entry(folder, False)
    except CacheUnavailable as e:
        _warn(e)
        return _build_uncached(build)
    except TimeoutError as e:  # filelock's Timeout: a build that holds the lock for too long
        _warn(CacheUnavailable(f"waited {LOCK_TIMEOUT_S} s for another process's build ({e})"))
        return _build_uncached(build)
    except OSError as e:  # the shard folder or the lock file
        _warn(CacheUnavailable(str(e)))
        return _build_uncached(build)


def _build_uncached(build: Callable[[Path], None]) -> Entry:
    holder = tempfile.TemporaryDirectory(prefix="tilec-nocache-")
    build(Path(holder.name))
    return Entry(Path(holder.name), False, cached=False, holder=holder)


def _warn(e: BaseException) -> None:
    warnings.warn(f"tilec: compiling without the disk cache: {e}", RuntimeWarning, stacklevel=3)


def info() -> dict:
    """Where the cache is and what it holds: {'path', 'entries', 'bytes', 'enabled'}."""
    out = {"path": None, "entries": 0, "bytes": 0, "enabled": enabled()}
    try:
        root = cache_dir()
    except CacheUnavailable as e:
        out["error"] = str(e)
        return out
    out["path"] = str(root)
    for shard in root.iterdir() if root.is_dir() else []:
        if not shard.is_dir() or len(shard.name) != 2:
            continue
        for entry in shard.iterdir():
            if entry.is_dir() and not entry.name.startswith("."):
                out["entries"] += 1
                out["bytes"] += sum(f.stat().st_size for f in entry.iterdir() if f.is_file())
    return out


def clear() -> int:
    """Delete every entry; returns how many were removed."""
    try:
        root = cache_dir()
    except CacheUnavailable:
        return 0
    n = 0
    for shard in list(root.iterdir()):
        if shard.is_dir() and len(shard.name) == 2:
            n += sum(1 for e in shard.iterdir() if e.is_dir() and not e.name.startswith("."))
            _remove(shard)
    return n


__all__ = [
    "CacheUnavailable",
    "Entry",
    "cache_dir",
    "cache_key",
    "clear",
    "enabled",
    "get_or_build",
    "info",
    "lookup",
    "remove_entry",
]
