"""Tuned choices, kept: one JSON file, keyed by what decides the result.

The key (`tune_key`) hashes the traced tile IR of the op (so an edit of its Python source that
traces to the same program, a docstring or a comment, keeps the result; a dtype or an op change
does not), the shape bucket of the arguments (`shape_bucket`: each size rounded up to a power of
two, so a new batch size reuses its neighbour's result), the target, the device (`device_name`)
and tilec's version. The file (`TILEC_TUNE_FILE`, default `tuning.json` in the user's cache
directory from platformdirs) is rewritten whole under a file lock (filelock), so concurrent
writers in several processes each add their entries. `export` / `merge` move entries between
files (a team ships tuned results with a model: `tilec tune --export` / `--import`).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from pathlib import Path

from tilec.diagnostics import TilecError

FORMAT = 1


def default_path() -> Path:
    env = os.environ.get("TILEC_TUNE_FILE")
    if env:
        return Path(env)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("tilec")) / "tuning.json"


def shape_bucket(shapes) -> tuple:
    """Each static size rounded up to a power of two (1 stays 1); other entries (dims names) as they are."""
    out = []
    for shape in shapes:
        out.append(tuple(1 << (d - 1).bit_length() if isinstance(d, int) and d > 0 else d for d in shape))
    return tuple(out)


def device_name(target: str) -> str:
    """What the result was measured on: the CPU model and its logical cores, or the GPU's name and
    multiprocessor count."""
    if target == "cpu":
        model = platform.processor() or platform.machine()
        try:
            for line in Path("/proc/cpuinfo").read_text().splitlines():
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
        except OSError:
            pass
        return f"{model} x{os.cpu_count()}"
    from tilec.runtime.cuda import cupy

    cp = cupy()
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    return f"{name} x{props['multiProcessorCount']}"


def tune_key(tile_ir: str, bucket: tuple, dtypes: tuple, target: str, device: str) -> str:
    from tilec import __version__

    text = json.dumps([tile_ir, repr(bucket), list(map(str, dtypes)), target, device, __version__])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class TuneStore:
    """The JSON file of tuned choices: {"format": 1, "entries": {key: record}}; a record holds the
    options (Python spelling), the op's name, the bucket, the device and the measured times."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else default_path()

    def _read(self) -> dict:
        try:
            data = json.loads(self.path.read_text())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as e:
            raise TilecError(f"tuning store {self.path} cannot be read: {e}") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("entries"), dict):
            raise TilecError(f"tuning store {self.path} is not a tilec tuning file (format {FORMAT})")
        return data["entries"]

    def entries(self) -> dict:
        return self._read()

    def get(self, key: str) -> dict | None:
        return self._read().get(key)

    def put(self, key: str, record: dict) -> None:
        self.merge({key: record})

    def merge(self, entries: dict) -> int:
        """Adds (or replaces) `entries` under the file lock; returns how many were written."""
        from filelock import FileLock

        self.path.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(self.path) + ".lock", timeout=60):
            current = self._read()
            current.update(entries)
            tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps({"format": FORMAT, "entries": current}, indent=1, sort_keys=True))
            os.replace(tmp, self.path)
        return len(entries)

    def export(self, dest: str | os.PathLike) -> int:
        """Writes every entry to `dest` (a tuning file of its own); returns how many."""
        entries = self._read()
        Path(dest).write_text(json.dumps({"format": FORMAT, "entries": entries}, indent=1, sort_keys=True))
        return len(entries)

    def import_file(self, src: str | os.PathLike) -> int:
        """Adds the entries of the tuning file `src`; returns how many."""
        return self.merge(TuneStore(src)._read())


__all__ = ["TuneStore", "default_path", "device_name", "shape_bucket", "tune_key"]
