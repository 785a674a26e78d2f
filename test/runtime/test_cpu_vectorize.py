"""The inner loops tilec marks `#pragma omp simd` are really vectorized by the C compiler.

The emitted C of softmax and layernorm (dynamic sizes, f32 and f16) is compiled with exactly the
flags of `tilec.toolchain.cc.compiler()` plus `-fopt-info-vec-optimized`; GCC then reports
"LINE:COL: optimized: loop vectorized" for every loop it vectorized, at a line of the loop (the
`#pragma omp simd` of reductions, a statement of the body for others). Every such loop of these kernels (the per-row max / sum reductions and the
loop computing and storing the row) must be reported. GCC only: other compilers report
differently, so the test is skipped for them.
"""

from __future__ import annotations

import re
import subprocess

import pytest

import tilec
from tilec import float16, float32, tile_op
from tilec.toolchain.cc import compiler


def _is_gcc() -> bool:
    cc = compiler()
    r = subprocess.run([cc.path, "--version"], capture_output=True, text=True)
    return "Free Software Foundation" in r.stdout and "clang" not in r.stdout.lower()


pytestmark = pytest.mark.skipif(not _is_gcc(), reason="-fopt-info-vec is GCC's; the C compiler here is not GCC")


def softmax_(x):
    e = tilec.exp(x - tilec.max(x, axis=-1, keepdims=True))
    return e / tilec.sum(e, axis=-1, keepdims=True)


def layernorm_(x, g, b):
    mu = tilec.mean(x, axis=-1, keepdims=True)
    d = x - mu
    var = tilec.mean(d * d, axis=-1, keepdims=True)
    return d * tilec.rsqrt(var + 1e-5) * g + b


OPS = {
    "softmax-f32": tile_op(dtype=float32, dims=["M", "N"])(softmax_),
    "layernorm-f32": tile_op(dtype=float32, dims=["M", "N"])(layernorm_),
    "softmax-f16": tile_op(dtype=float16, dims=["M", "N"])(softmax_),
    "layernorm-f16": tile_op(dtype=float16, dims=["M", "N"])(layernorm_),
}


def _loop_end(lines: list[str], pragma: int) -> int:
    """The line (1-based) closing the `for` that follows the pragma at line `pragma`."""
    depth = 0
    for i in range(pragma, len(lines)):  # lines[pragma] is the `for` line (0-based index)
        depth += lines[i].count("{") - lines[i].count("}")
        if depth == 0:
            return i + 1
    return len(lines)


@pytest.mark.parametrize("name", list(OPS))
def test_inner_loops_are_vectorized(name, tmp_path):
    op = OPS[name]
    source = op.source()
    lines = source.splitlines()
    simd = [i + 1 for i, line in enumerate(lines) if line.strip().startswith("#pragma omp simd")]
    # per-row loops: inside the `#pragma omp parallel for` over rows
    par = next(i + 1 for i, line in enumerate(lines) if "#pragma omp parallel for" in line)
    row_loops = [ln for ln in simd if ln > par]
    assert len(row_loops) >= 3, f"expected the max/sum (or mean/var) and the store loops per row: {row_loops}"
    src = tmp_path / "kernel.c"
    src.write_text(source)
    cc = compiler()
    r = subprocess.run(
        [cc.path, *cc.flags, "-fopt-info-vec-optimized", "-shared", "-o", str(tmp_path / "k.so"), str(src), "-lm"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    vectorized = {int(m.group(1)) for m in re.finditer(r"kernel\.c:(\d+):\d+: optimized: loop vectorized", r.stderr)}
    missing = [ln for ln in simd if not any(ln <= v <= _loop_end(lines, ln) for v in vectorized)]
    context = "\n".join(f"{ln}: {lines[ln - 1].strip()} / {lines[ln].strip()}" for ln in missing)
    assert not missing, f"{name}: loops not vectorized:\n{context}\nGCC said:\n{r.stderr[-3000:]}"
