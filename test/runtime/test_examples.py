"""The examples (examples/*.py) and the CPU benchmark's --quick mode run as a user runs them: as
subprocesses of the current interpreter, from the repository root."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = [
    "matmul",
    "softmax",
    "layernorm",
    "mlp",
    "int4_dequant",
    "causal_softmax",
    "dropout",
    "cross_entropy",
    "embedding",
]


def _run(args: list[str], timeout: int = 600) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "2"))
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.mark.parametrize("name", EXAMPLES)
def test_example(name):
    r = _run([f"examples/{name}.py"])
    assert r.returncode == 0, r.stdout + r.stderr
    last = r.stdout.strip().splitlines()[-1]
    assert last.endswith(" OK"), r.stdout


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_show_ir(name):
    r = _run([f"examples/{name}.py", "--show-ir"])
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    for header in (
        "// ----- tile IR -----",
        "// ----- mapped IR -----",
        "// ----- hw IR -----",
        "// ----- C source -----",
    ):
        assert header in out
    assert "tile.func" in out and "mapped.kernel" in out and "hw.cpu.func" in out
    assert "#pragma omp parallel for" in out
    assert out.strip().splitlines()[-1].endswith(" OK")


def test_adamw_example():
    """AdamW over 120 arrays of different shapes, in place, vs numpy and torch.optim.AdamW."""
    r = _run(["examples/adamw.py"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().splitlines()[-1].endswith(" OK"), r.stdout
    assert "kernels: 1, one C call over all arrays: True, traces: 1" in r.stdout


def test_matmul_is_the_readme_example():
    src = (ROOT / "examples" / "matmul.py").read_text()
    assert (
        "@tile_op(dtype=float32, dims=[M, N, K])\ndef matrix_mul(A, B):\n    return tile_contract(A, B, axes=[(-1, 0)])"
        in src
    )
    assert "M, N, K = 256, 192, 128" in src


def test_cpu_benchmark_quick(tmp_path):
    r = _run(["benchmarks/cpu.py", "--quick", "--repeats", "1", "--no-plot", "--out", str(tmp_path)])
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads((tmp_path / "cpu.json").read_text())
    names = {row["name"] for row in data["results"]}
    assert {"matmul", "softmax", "layernorm", "gelu_chain"} <= names
    for row in data["results"]:
        assert row["correct"], row
        assert row["tilec"]["median_s"] > 0 and row["numpy"]["median_s"] > 0
