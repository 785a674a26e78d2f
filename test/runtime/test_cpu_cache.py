"""The CPU kernel cache (tilec/runtime/cache.py) across processes, in a private TILEC_CACHE_DIR:
a second process loads the compiled library from disk; a corrupted library or checksum sidecar
is rebuilt, never loaded; two processes compiling the same kernel at once both succeed (one
builds, the other waits for it and loads the result)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAM = """
import json, sys
import numpy as np
import tilec
from tilec import float32, tile_op

@tile_op(dtype=float32, dims=["M", "N"])
def cache_probe(x):
    e = tilec.exp(x - tilec.max(x, axis=1, keepdims=True))
    return e / tilec.sum(e, axis=1, keepdims=True) + 0.125

x = np.linspace(-3, 3, 35, dtype=np.float32).reshape(5, 7)
k = cache_probe.compile()
got = cache_probe(x)
e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
want = e / e.sum(1, keepdims=True) + 0.125
print(json.dumps({"hit": k.cache_hit, "library": str(k.library), "ok": bool(np.allclose(got, want, rtol=1e-5))}))
"""


def _run(cache: Path, script: Path) -> dict:
    env = {**os.environ, "TILEC_CACHE_DIR": str(cache)}
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def _start(cache: Path, script: Path) -> subprocess.Popen:
    env = {**os.environ, "TILEC_CACHE_DIR": str(cache)}
    return subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


@pytest.fixture
def script(tmp_path) -> Path:
    p = tmp_path / "probe.py"
    p.write_text(PROGRAM)
    return p


def test_second_process_hits_disk_cache_and_corruption_rebuilds(tmp_path, script):
    cache = tmp_path / "cache"
    first = _run(cache, script)
    assert first == {**first, "hit": False, "ok": True}
    lib = Path(first["library"])
    assert lib.is_file() and lib.parent.parent == cache
    sidecar = lib.with_name(lib.name + ".sha256")
    assert sidecar.is_file()

    second = _run(cache, script)
    assert second == {**first, "hit": True}

    # a corrupted library (same size, flipped bytes in the middle) is rebuilt, not loaded
    data = bytearray(lib.read_bytes())
    mid = len(data) // 2
    data[mid : mid + 64] = bytes(b ^ 0xFF for b in data[mid : mid + 64])
    lib.write_bytes(bytes(data))
    third = _run(cache, script)
    assert third == {**first, "hit": False}
    assert lib.read_bytes() != bytes(data)

    # a truncated library: rebuilt
    lib.write_bytes(lib.read_bytes()[:100])
    assert _run(cache, script) == {**first, "hit": False}

    # a wrong checksum, and a missing one: rebuilt
    sidecar.write_text("0" * 64 + "\n")
    assert _run(cache, script) == {**first, "hit": False}
    sidecar.unlink()
    assert _run(cache, script) == {**first, "hit": False}
    assert _run(cache, script) == {**first, "hit": True}


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
    # the file lock lets exactly one of them build; the other loads its result
    assert sorted(r["hit"] for r in results) == [False, True]
    leftovers = [p.name for p in cache.rglob("*") if p.is_file() and not p.name.endswith((".so", ".sha256", ".lock"))]
    assert leftovers == []  # no temporary files left behind
