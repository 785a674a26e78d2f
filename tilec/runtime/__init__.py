"""Compiling tile modules to loaded kernels, per target, through the backends and the disk cache.

- `lower(module, level, target, pipeline=None, **options) -> ModuleOp`: a NEW module at `level`
  ("tile", "mapped" or "hw") for `target` ("cpu", "cuda", "hip"); the input is not modified.
- `compile_module(module, target, pipeline=None, **options) -> Kernel`: the tile module lowered,
  emitted, built and loaded. The disk cache is looked up BEFORE lowering, under a key of what
  determines the result: the module's text with its source locations, the target, the resolved
  options, the user's extra passes (and their plugin files' contents), tilec's own source and the
  toolchain's identity. A hit runs no pass and no compiler.
- `Kernel.source`: the emitted text; `Kernel(*arrays)` runs it and returns the outputs (a tuple).

`pipeline` adds the user's own passes (plugins included) to what the kernel runs: a pipeline
string runs on the tile IR before the backend's passes; a dict `{"tile": ..., "mapped": ...,
"hw": ...}` runs each string at the end of that level (mapped: before mapped -> hw).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from tilec import cache
from tilec.backends import LEVELS, TARGETS, get_backend
from tilec.diagnostics import TilecError

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

__all__ = ["LEVELS", "TARGETS", "compile_module", "compiler_fingerprint", "kernel_key", "lower", "user_passes"]


def user_passes(pipeline: str | Mapping[str, str] | None) -> dict[str, list[ModulePass]]:
    """The user's extra passes per level (see the module docstring)."""
    if pipeline is None:
        return {}
    from tilec.passes import build_from_text

    if isinstance(pipeline, str):
        pipeline = {"tile": pipeline}
    if not isinstance(pipeline, Mapping):
        raise TilecError(f"pipeline= takes a pipeline string or a dict of them by level, got {type(pipeline).__name__}")
    out = {}
    for level, text in pipeline.items():
        if level not in LEVELS:
            raise TilecError(f"pipeline= has an unknown level '{level}' (levels: {', '.join(LEVELS)})")
        if not isinstance(text, str):
            raise TilecError(f"pipeline['{level}'] must be a pipeline string, got {type(text).__name__}")
        out[level] = build_from_text(text)
    return out


def lower(module: ModuleOp, level: str, target: str = "cpu", pipeline=None, **options) -> ModuleOp:
    if level not in LEVELS:
        raise TilecError(f"unknown IR level '{level}' (levels: {', '.join(LEVELS)})")
    backend = get_backend(target)
    return backend.lower(module, backend.options(options), level, user_passes(pipeline))


@functools.cache
def compiler_fingerprint() -> str:
    """A hash of tilec's own code (every .py and .h file of the package): a changed compiler
    never reuses what an older one built."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        files += [os.path.join(folder, n) for n in names if n.endswith((".py", ".h"))]
    h = hashlib.sha256()
    for path in sorted(files):
        h.update(os.path.relpath(path, root).encode())
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def _passes_key(extra: Mapping[str, list[ModulePass]]) -> str:
    """The user's passes as text, plus the contents of the files that define them."""
    if not any(extra.values()):
        return ""
    from tilec.passes.pipeline import pass_text

    parts = []
    for level in LEVELS:
        for p in extra.get(level, ()):
            parts.append(f"{level}:{pass_text(p)}")
            mod = type(p).__module__
            if not mod.startswith(("tilec.", "xdsl.")):
                try:
                    parts.append(hashlib.sha256(Path(inspect.getfile(type(p))).read_bytes()).hexdigest())
                except (OSError, TypeError):
                    parts.append(f"{mod}.{type(p).__qualname__}")
    return "\n".join(parts)


def kernel_key(module: ModuleOp, target: str, options, extra: Mapping[str, list[ModulePass]]) -> str:
    from tilec.ir import print_module

    backend = get_backend(target)
    toolchain = backend.toolchain(options) if backend.can_build() else "no-toolchain"
    return cache.cache_key(
        "kernel",
        compiler_fingerprint(),
        backend.name,
        repr(sorted(options.items().items())),
        _passes_key(extra),
        toolchain,
        print_module(module, debuginfo=True),
    )


def _single_func(module: ModuleOp):
    from tilec.dialects import tile

    funcs = [op for op in module.body.block.ops if isinstance(op, tile.FuncOp)]
    if len(funcs) != 1:
        raise TilecError(f"compile_module needs a module with exactly one tile.func, got {len(funcs)}")
    return funcs[0]


def compile_module(module: ModuleOp, target: str = "cpu", pipeline=None, **options):
    """Compile a tile module with exactly one tile.func; returns a callable kernel."""
    func = _single_func(module)
    backend = get_backend(target)
    opts = backend.options(options)
    extra = user_passes(pipeline)
    key = kernel_key(module, target, opts, extra)

    def build(folder: Path) -> None:
        _build_entry(folder, key, module, backend, opts, extra)

    loader = importlib.import_module(backend.runtime)
    for attempt in (0, 1):
        entry = cache.get_or_build(key, build)
        try:
            meta = json.loads(entry.file("meta.json").read_text(encoding="utf-8"))
            return loader.load(entry, func.clone(), opts, meta)
        except (OSError, ValueError, KeyError) as e:
            # an entry that passed its checksums but does not load (a foreign binary, a changed
            # loader): drop it and build it again, once
            if attempt or not entry.cached:
                raise TilecError(f"cannot load the kernel built for @{func.sym_name.data} on {target}: {e}") from None
            cache.remove_entry(key)
    raise AssertionError("unreachable")


def _build_entry(folder: Path, key: str, module: ModuleOp, backend, options, extra) -> None:
    """Lower, emit and build into an empty cache folder: the source, the binary, the host program
    (GPU targets) and meta.json."""
    mapped = backend.lower(module, options, "mapped", extra)
    hw = backend.lower(mapped, options, "hw", extra, start="mapped")
    text = backend.emit(hw)
    source = f"source.{backend.language}"
    (folder / source).write_text(text)
    meta = {"target": backend.name, "options": options.items(), "source": source, "binary": None}
    checks = index_checks(mapped)
    if checks:
        meta["status"] = checks
    if backend.name != "cpu":
        from tilec.runtime.host import HostProgram

        (folder / "host.json").write_text(json.dumps(HostProgram.from_mapped(mapped).to_json()))
    if backend.can_build():
        binary = backend.binary_name()
        try:
            backend.build(text, options, folder / binary)
        except TilecError as e:
            kept = _keep_failed_source(key, backend, text)
            notes = (*e.notes, f"the source is kept in {kept}") if kept else e.notes
            raise TilecError(e.message, e.location, notes) from None
        meta["binary"] = binary
    (folder / "meta.json").write_text(json.dumps(meta))


def index_checks(mapped_module: ModuleOp) -> list[list[str]]:
    """The status codes of a mapped module's host program: per code, [message, location]."""
    from tilec.conversion.tile_to_mapped.host import status_checks
    from tilec.dialects import mapped

    for op in mapped_module.body.block.ops:
        if isinstance(op, mapped.HostOp):
            return status_checks(op)
    return []


def _keep_failed_source(key: str, backend, text: str) -> Path | None:
    try:
        folder = cache.cache_dir() / "failed"
        folder.mkdir(exist_ok=True)
        path = folder / f"{key[:16]}.{backend.language}"
        path.write_text(text)
        return path
    except (OSError, cache.CacheUnavailable):
        return None
