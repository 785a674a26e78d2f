"""Every code block marked runnable (```python runnable) in README.md and docs/*.md runs, as
written, from the repository root: a doc example that fails is a bug."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```python runnable\n(.*?)^```", re.S | re.M)
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCKS = [(p, i, code) for p in PAGES for i, code in enumerate(BLOCK.findall(p.read_text()))]


def test_the_docs_have_runnable_examples():
    assert {p.name for p, _, _ in BLOCKS} >= {"README.md", "dsl.md", "cpu.md", "writing-a-pass.md"}


@pytest.mark.parametrize("page,index,code", BLOCKS, ids=[f"{p.name}#{i}" for p, i, _ in BLOCKS])
def test_runnable_block(page, index, code, tmp_path):
    env = {**os.environ, "TILEC_CACHE_DIR": str(tmp_path / "cache")}
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, f"{page.name} block {index} failed:\n{r.stderr[-3000:]}"
