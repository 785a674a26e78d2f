"""The derived backward kernels of benchmarks/autodiff_gpu.py (layernorm, softmax, GELU,
cross-entropy) on GPUs with `?` sizes, against torch's autograd: the rowwise kernels of a `?` row
(registers-held when the row fits `threads x vector x row-cache` and whole vectors, else the
strided loop: both paths, chosen per launch), the column reductions of dgamma / dbeta, the
elementwise kernels. The HIP C++ runs in the HIP emulator (test_hip_emulated.py; 64-lane waves and
the portable 32-lane form), the PTX goes through ptxas (sm_80, sm_90a), and, marked `gpu`, the CUDA
kernels run on an NVIDIA GPU. Each part skips without its tool, saying which."""

from __future__ import annotations

import math
import shutil
import subprocess

import numpy as np
import pytest
from cpu_util import rng  # noqa: F401
from gpu_util import HAVE_GPU, cp
from test_hip_emulated import CLANGXX, run_emulated

import tilec
from tilec import float32, tile_op
from tilec.emit.ptx import emit_ptx
from tilec.runtime import lower

torch = pytest.importorskip("torch")
F = torch.nn.functional
PTXAS = shutil.which("ptxas")

EPS = 1e-5


@tile_op(dtype=float32, dims=["M", "N"])
def layernorm(x, g, b):
    mu = x.mean(-1, keepdims=True)
    xc = x - mu
    return xc * tilec.rsqrt((xc * xc).mean(-1, keepdims=True) + EPS) * g + b


@tile_op(dtype=float32, dims=["M", "N"])
def softmax(x):
    e = tilec.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@tile_op(dtype=float32, dims=["M", "N"])
def gelu(x):
    return 0.5 * x * (1.0 + tilec.erf(x * (1.0 / math.sqrt(2.0))))


@tile_op(dtype=float32, dims=["M", "N"])
def cross_entropy(z, p):
    s = z - z.max(-1, keepdims=True)
    return -(p * (s - tilec.log(tilec.exp(s).sum(-1, keepdims=True)))).sum(-1)


def _torch_fn(name):
    return {
        "layernorm": lambda x, g, b: F.layer_norm(x, (x.shape[-1],), g, b, EPS),
        "softmax": lambda x: torch.softmax(x, -1),
        "gelu": lambda x: F.gelu(x),
        "cross_entropy": lambda z, p: F.cross_entropy(z, p, reduction="none"),
    }[name]


OPS = {"layernorm": layernorm, "softmax": softmax, "gelu": gelu, "cross_entropy": cross_entropy}
# rows of `?` length: tiny, odd (the loop path), fitting with a partial last vector per thread,
# exactly the cached capacity (256 threads x 4 lanes x 4 vectors), one vector over it (the loop)
SHAPES = [(1, 1), (3, 7), (5, 1000), (2, 4096), (2, 4100), (37, 129)]


def _inputs(rng, name, m, n):
    shapes = {"layernorm": [(m, n), (n,), (n,)], "cross_entropy": [(m, n), (m, n)]}.get(name, [(m, n)])
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    if name == "cross_entropy":
        e = np.exp(arrays[1])
        arrays[1] = (e / e.sum(-1, keepdims=True)).astype(np.float32)
    out_shape = (m,) if name == "cross_entropy" else (m, n)
    return arrays, rng.standard_normal(out_shape).astype(np.float32)


def _want(name, primals, ct):
    ts = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in primals]
    return [g.numpy() for g in torch.autograd.grad(_torch_fn(name)(*ts), ts, torch.tensor(ct, dtype=torch.float64))]


def _check(got, want, name):
    got = got if isinstance(got, tuple | list) else (got,)
    assert len(got) == len(want), name
    for g, w in zip(got, want):
        g = np.asarray(g, dtype=np.float64)
        scale = max(1.0, float(np.abs(w).max(initial=0)))
        np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-4 * scale, err_msg=name)


@pytest.mark.skipif(CLANGXX is None, reason="hipcc's clang++ is not installed (HIP emulator)")
@pytest.mark.parametrize("mode", [{}, {"portable": True}], ids=["wave64", "portable"])
@pytest.mark.parametrize("shape", SHAPES, ids=[f"{m}x{n}" for m, n in SHAPES])
@pytest.mark.parametrize("name", list(OPS))
def test_emulated_backward_matches_torch(rng, name, shape, mode):
    v = tilec.vjp(OPS[name])
    primals, ct = _inputs(rng, name, *shape)
    _, *res = v.forward_with_residuals(*primals)  # (CPU)
    k = v.compile("hip", *primals, which="backward", **mode)
    _check(run_emulated(k, [*primals, *res, ct]), _want(name, primals, ct), name)


@pytest.mark.skipif(CLANGXX is None, reason="hipcc's clang++ is not installed (HIP emulator)")
@pytest.mark.parametrize("row_cache", [0, 1])
def test_emulated_row_cache_option(rng, row_cache):
    """row-cache=0: always the strided loop; 1: one vector per thread held (a 1000-long row of
    f32 does not fit 256 x 4: the loop; a 600-long one does)."""
    for n in (600, 1000):
        v = tilec.vjp(softmax)
        primals, ct = _inputs(rng, "softmax", 3, n)
        _, *res = v.forward_with_residuals(*primals)
        k = v.compile("hip", *primals, which="backward", row_cache=row_cache)
        _check(run_emulated(k, [*primals, *res, ct]), _want("softmax", primals, ct), "softmax")


def _backward_ptx(name, sm, **options):
    v = tilec.vjp(OPS[name])
    primals, _ = _inputs(np.random.default_rng(0), name, 16, 4096)
    return emit_ptx(lower(v.module(*primals, which="backward"), "hw", "cuda", sm=sm, **options))


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
@pytest.mark.parametrize("sm", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name", list(OPS))
def test_ptxas_accepts(name, sm, tmp_path):
    path = tmp_path / "k.ptx"
    path.write_text(_backward_ptx(name, sm))
    r = subprocess.run(
        [PTXAS, f"-arch={sm}", "-v", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    if sm == "sm_90a" and name != "softmax":
        # (softmax's derived backward keeps 3 values per element through 4 passes: ptxas, aiming
        # at 64 registers for 256-thread blocks, spills 16 bytes)
        assert r.stderr.count(" 0 bytes spill stores") == r.stderr.count("spill stores"), r.stderr


def test_softmax_backward_reads_the_row_once_when_it_fits():
    """A `?` row: the registers-held form (16-byte loads of x and dy, 4 per thread each, one exp
    per element for all passes) in one branch, the strided loop of scalars in the other."""
    ptx = _backward_ptx("softmax", "sm_90a")
    assert ptx.count(".entry") == 1
    assert ptx.count("ld.global.nc.v4.f32") == 8 and ptx.count("st.global.v4.f32") == 4
    assert ptx.count("ex2.approx") == 16 + 3  # held: 16 elements; the loop: one per pass that needs it
    mapped_ir = tilec.vjp(softmax).ir("mapped", shapes=[("M", "N")], target="cuda", which="backward")
    assert "vector<4xf32>" in mapped_ir and mapped_ir.count("scf.if") >= 2


def test_layernorm_backward_kernels():
    """dx, dgamma and dbeta in one rowwise kernel reading x, dy and gamma once (16-byte vectors;
    gamma once per block of rows), the column partials in registers across the block's rows;
    then the kernel adding the blocks' partials (no temporary of the rows' size)."""
    ptx = _backward_ptx("layernorm", "sm_90a")
    assert ptx.count(".entry") == 2
    rowwise = ptx[ptx.index("layernorm_bwd_0_rowwise(") : ptx.index("layernorm_bwd_0_rowwise_columns(")]
    # held form: x and dy 4 vectors each per row, gamma 4 per block; stores: dx per row (4
    # vectors), then the 2 x 16 partials per thread
    assert rowwise.count("ld.global.nc.v4.f32") == 12 and rowwise.count("st.global.v4.f32") == 4


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
@pytest.mark.parametrize("shape", [*SHAPES, (1000, 8192), (64, 333)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", list(OPS))
def test_cuda_backward_matches_torch(rng, name, shape):
    v = tilec.vjp(OPS[name])
    primals, ct = _inputs(rng, name, *shape)
    dev = [cp.asarray(a) for a in primals]
    _, *res = v.forward_with_residuals(*dev)
    got = v.backward(*dev, *res, cp.asarray(ct))
    got = got if isinstance(got, tuple) else (got,)
    _check([cp.asnumpy(g) for g in got], _want(name, primals, ct), name)
