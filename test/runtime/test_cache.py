"""The kernel cache (tilec/cache.py, tilec/runtime/__init__.py) across processes, in a private
TILEC_CACHE_DIR: a second process finds the kernel before lowering (no pass runs, no compiler);
corrupt entries are rebuilt, never loaded; concurrent compiles of one kernel both succeed; the
key changes with options and user passes; TILEC_CACHE=0 and an unusable cache folder still work;
`tilec cache info|clear`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """
import json, os, sys, time
t0 = time.perf_counter()
import numpy as np
import tilec
from tilec import float32, tile_op
from tilec.passes.pipeline import PassManager

if os.environ.get("TILEC_TEST_NO_PASSES"):
    def refuse(self, ctx, module):
        raise RuntimeError("a pass ran although the kernel was in the disk cache")
    PassManager.run = refuse

@tile_op(dtype=float32, dims=["M", "N"])
def cache_probe(x):
    e = tilec.exp(x - tilec.max(x, axis=1, keepdims=True))
    return e / tilec.sum(e, axis=1, keepdims=True) + 0.125

x = np.linspace(-3, 3, 35, dtype=np.float32).reshape(5, 7)
options = json.loads(os.environ.get("TILEC_TEST_OPTIONS", "{}"))
t1 = time.perf_counter()
spec = cache_probe._specialize_arrays([x])  # tracing
t2 = time.perf_counter()
k = cache_probe.compile("cpu", **options)
got = k(x)[0]
t3 = time.perf_counter()
e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
want = e / e.sum(1, keepdims=True) + 0.125
print(json.dumps({"hit": k.cache_hit, "library": str(k.library), "ok": bool(np.allclose(got, want, rtol=1e-5)),
                  "trace_ms": (t2 - t1) * 1e3, "first_call_ms": (t3 - t2) * 1e3}))
"""


def _env(cache: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TILEC_")}
    return {**env, "TILEC_CACHE_DIR": str(cache), **extra}


def _run(cache: Path, script: Path, **extra: str) -> dict:
    r = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=_env(cache, **extra), timeout=300
    )
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    out["stderr"] = r.stderr
    return out


def _start(cache: Path, script: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(cache)
    )


def _same(a: dict, b: dict, **changes) -> bool:
    keys = ("hit", "library", "ok")
    return all(b[k] == changes.get(k, a[k]) for k in keys)


@pytest.fixture
def script(tmp_path) -> Path:
    p = tmp_path / "probe.py"
    p.write_text(PROGRAM)
    return p


def test_second_process_runs_no_pass_and_corrupt_entries_are_rebuilt(tmp_path, script):
    cache = tmp_path / "cache"
    first = _run(cache, script)
    assert first["hit"] is False and first["ok"]
    lib = Path(first["library"])
    entry = lib.parent
    assert lib.is_file() and entry.parent.parent == cache
    assert {p.name for p in entry.iterdir()} == {"MANIFEST.json", "kernel.so", "meta.json", "source.c"}

    # a warm disk cache: no pass runs (PassManager.run raises in that process), the kernel loads
    second = _run(cache, script, TILEC_TEST_NO_PASSES="1")
    assert _same(first, second, hit=True)

    # a corrupted library (same size, flipped bytes in the middle) is rebuilt, not loaded
    data = bytearray(lib.read_bytes())
    mid = len(data) // 2
    data[mid : mid + 64] = bytes(b ^ 0xFF for b in data[mid : mid + 64])
    lib.write_bytes(bytes(data))
    assert _same(first, _run(cache, script), hit=False)
    assert lib.read_bytes() != bytes(data)

    lib.write_bytes(lib.read_bytes()[:100])  # truncated
    assert _same(first, _run(cache, script), hit=False)
    (entry / "meta.json").write_bytes(b"\xff\xfe not json")  # garbage metadata (non-UTF-8)
    assert _same(first, _run(cache, script), hit=False)
    (entry / "MANIFEST.json").write_text('{"files": {"kernel.so": "' + "0" * 64 + '"}}')  # a wrong manifest
    assert _same(first, _run(cache, script), hit=False)
    (entry / "MANIFEST.json").unlink()  # no manifest
    assert _same(first, _run(cache, script), hit=False)
    (entry / "stray.txt").write_text("x")  # a file the manifest does not know
    assert _same(first, _run(cache, script), hit=False)
    import shutil

    shutil.rmtree(entry)  # the entry replaced by a file
    entry.write_text("not a folder")
    assert _same(first, _run(cache, script), hit=False)
    assert _same(first, _run(cache, script), hit=True)


def test_the_key_follows_options_and_the_cache_can_be_turned_off(tmp_path, script):
    cache = tmp_path / "cache"
    a = _run(cache, script)
    b = _run(cache, script, TILEC_TEST_OPTIONS=json.dumps({"mr": 4, "mc": 64}))
    assert a["library"] != b["library"] and not b["hit"] and b["ok"]
    off = tmp_path / "off"
    c = _run(off, script, TILEC_CACHE="0")
    assert c["ok"] and not c["hit"]
    assert not off.exists() or not any(p.is_dir() and len(p.name) == 2 for p in off.iterdir())


def test_an_unusable_cache_folder_warns_once_and_still_compiles(tmp_path, script):
    blocker = tmp_path / "a-file"
    blocker.write_text("the cache folder is a file")
    r = _run(blocker, script)
    assert r["ok"] and not r["hit"]
    assert "compiling without the disk cache" in r["stderr"]
    assert "Traceback" not in r["stderr"]


def test_concurrent_compiles_of_the_same_kernel(tmp_path, script):
    cache = tmp_path / "cache"
    procs = [_start(cache, script) for _ in range(2)]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-3000:]
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert all(r["ok"] for r in results)
    assert results[0]["library"] == results[1]["library"]
    # the file lock lets exactly one of them build the kernel; the other loads its result
    assert sorted(r["hit"] for r in results) == [False, True]
    leftovers = [p for p in cache.rglob(".*") if p.name != ".lock" and not p.name.endswith(".lock")]
    assert leftovers == []  # no temporary folders left behind


def test_user_passes_run_inside_the_kernel_and_are_part_of_the_key(tmp_path, monkeypatch):
    """op.compile(pipeline=...): a plugin pass (examples/passes/pow_to_mul.py) runs in what op(...)
    executes; its text and its file's contents are part of the cache key."""
    import numpy as np

    import tilec
    from tilec import float32, tile_op
    from tilec.passes import load_plugin

    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    load_plugin(str(ROOT / "examples" / "passes" / "pow_to_mul.py"))

    @tile_op(dtype=float32)
    def cube(x):
        return x**3.0

    x = np.linspace(-2, 2, 11, dtype=np.float32)
    plain = cube.compile("cpu", x)
    rewritten = cube.compile("cpu", x, pipeline="pow-to-mul")
    assert plain.library != rewritten.library
    assert "powf" in plain.source and "powf" not in rewritten.source
    np.testing.assert_allclose(rewritten(x)[0], x.astype(np.float64) ** 3, rtol=1e-6)
    mapped = cube.compile("cpu", x, pipeline={"mapped": "cse"})
    assert mapped.library not in (plain.library, rewritten.library)
    with pytest.raises(tilec.TilecError, match="unknown level 'gpu'"):
        cube.compile("cpu", x, pipeline={"gpu": "cse"})
    with pytest.raises(tilec.TilecError, match="unknown pass 'no-such-pass'"):
        cube.compile("cpu", x, pipeline="no-such-pass")


def test_tilec_cache_command(tmp_path, script):
    cache = tmp_path / "cache"
    _run(cache, script)
    env = _env(cache)
    info = subprocess.run(
        [sys.executable, "-m", "tilec.command", "cache", "info"], capture_output=True, text=True, env=env
    )
    assert info.returncode == 0, info.stderr
    assert f"cache: {cache}" in info.stdout and "entries: " in info.stdout
    n = int(info.stdout.split("entries: ")[1].split()[0])
    assert n >= 1
    clear = subprocess.run(
        [sys.executable, "-m", "tilec.command", "cache", "clear"], capture_output=True, text=True, env=env
    )
    assert clear.returncode == 0 and f"removed {n} entr" in clear.stdout
    again = subprocess.run(
        [sys.executable, "-m", "tilec.command", "cache", "info"], capture_output=True, text=True, env=env
    )
    assert "entries: 0" in again.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "tilec.command", "cache", "shred"], capture_output=True, text=True, env=env
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


@pytest.mark.parametrize("make", ["symlink-loop", "under-a-file", "non-utf8-manifest"])
def test_cache_faults_repair_or_compile_without_the_cache(tmp_path, script, make):
    if make == "symlink-loop":
        loop = tmp_path / "loop"
        loop.symlink_to(tmp_path / "loop")
        cache = loop
    elif make == "under-a-file":
        (tmp_path / "f").write_text("x")
        cache = tmp_path / "f" / "cache"
    else:
        cache = tmp_path / "cache"
        first = _run(cache, script)
        (Path(first["library"]).parent / "MANIFEST.json").write_bytes(b"\xff\xfe\x00 not text")
    r = _run(cache, script)
    assert r["ok"] and not r["hit"] and "Traceback" not in r["stderr"]
    if make == "non-utf8-manifest":
        assert _run(cache, script)["hit"]  # repaired: the next process hits
    else:
        assert "compiling without the disk cache" in r["stderr"]


def test_a_full_disk_while_writing_an_entry_compiles_without_the_cache(tmp_path, monkeypatch):
    import errno

    import numpy as np

    from tilec import cache, float32, tile_op

    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    real = os.replace

    def full(src, dst):
        if ".tilec" in str(src) or "-" in Path(src).name:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(cache.os, "replace", full)

    @tile_op(dtype=float32)
    def f(x):
        return x * 3.0

    x = np.arange(5, dtype=np.float32)
    with pytest.warns(RuntimeWarning, match="compiling without the disk cache.*No space left"):
        k = f.compile("cpu", x)
    np.testing.assert_array_equal(k(x)[0], x * 3)
    assert not k.entry.cached
