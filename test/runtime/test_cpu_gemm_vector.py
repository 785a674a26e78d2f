"""The CPU GEMM's vector width (`vector` = 4, 8 or 16 f32 lanes: SSE/NEON, AVX2, AVX-512).

Every width computes correct contractions and convolutions on awkward shapes (1, primes,
non-multiples of the micro-tile and of 16/32) against float64 numpy / torch, whatever the host
(GCC vector types run at any width; on a host without AVX-512 the 16-lane kernel is split by the
compiler). The cpu backend's default is the host's width as the C compiler targets it
(-march=native), and the width shows in the mapped IR and, on an AVX-512 host, as zmm FMAs in the
assembly. torch (CPU) is the convolution reference; it is in pyproject's `test` extra.
"""

from __future__ import annotations

import platform
import subprocess

import numpy as np
import pytest
from cpu_util import check_contract, f64, rand, rng  # noqa: F401

import tilec
from tilec import float32, float64, tile_contract, tile_op
from tilec.backends import get_backend
from tilec.conversion.tile_to_mapped.options import CPU_MICRO_TILES, CPU_VECTORS
from tilec.toolchain.cc import compiler, vector_lanes

torch = pytest.importorskip("torch")


@tile_op(dtype=float32, dims=["M", "N", "K"])
def mm(A, B):
    return tile_contract(A, B, axes=[(-1, 0)])


@tile_op(dtype=float64, dims=["M", "N", "K"])
def mm64(A, B):
    return tile_contract(A, B, axes=[(-1, 0)])


def run(op, *arrays, **options):
    (out,) = op.compile("cpu", *arrays, **options)(*arrays)
    return out


def check_mm(op, A, B, dtype="float32", **options):
    A64, B64 = f64(A), f64(B)
    got = run(op, A, B, **options)
    check_contract(got, A64 @ B64, np.abs(A64) @ np.abs(B64), A.shape[1], dtype, dtype)


MM_SHAPES = [
    (1, 1, 1),
    (1, 31, 1),
    (13, 17, 29),
    (14, 32, 3),  # exactly one 14 x 32 tile
    (15, 33, 2),  # one row and one column past it
    (29, 47, 513),  # K across the kc=512 block, a partial last block
    (97, 65, 100),
    (3, 129, 7),
]


@pytest.mark.parametrize("vector", CPU_VECTORS)
@pytest.mark.parametrize("M,N,K", MM_SHAPES, ids=[f"{m}x{n}x{k}" for m, n, k in MM_SHAPES])
def test_matmul_each_width(vector, M, N, K, rng):
    check_mm(mm, rand(rng, (M, K)), rand(rng, (K, N)), vector=vector)


@pytest.mark.parametrize("vector", CPU_VECTORS)
def test_matmul_f64_each_width(vector, rng):
    """f64 keeps the bytes of a tile row: W/2 lanes, NR/2 columns."""
    for M, N, K in [(1, 1, 1), (15, 17, 19), (37, 9, 41)]:
        check_mm(mm64, rand(rng, (M, K), float64), rand(rng, (K, N), float64), "float64", vector=vector)


@pytest.mark.parametrize(
    "options",
    [
        dict(vector=16, mr=8, nr=48),
        dict(vector=16, mr=6, nr=64, mc=42, kc=7),
        dict(vector=16, mr=1, nr=16),
        dict(vector=8, mr=14, nr=8, mc=14),
        dict(vector=4, mr=3, nr=12, kc=5),
    ],
    ids=lambda o: " ".join(f"{k}={v}" for k, v in o.items()),
)
def test_matmul_other_micro_tiles(options, rng):
    for M, N, K in [(1, 1, 1), (23, 53, 31), (50, 97, 11)]:
        check_mm(mm, rand(rng, (M, K)), rand(rng, (K, N)), **options)


@pytest.mark.parametrize("vector", [8, 16])
@pytest.mark.parametrize("n", [1, 8, 13, 37, 64, 100])
def test_static_narrow_n_takes_one_vector_per_row(vector, n, rng):
    """With a static N, the default NR is one vector instead of two when that pads N to fewer
    columns (37 columns: 48 not 64 with 16 lanes, 40 not 48 with 8); the result is the same."""

    @tile_op(dtype=float32, dims=[23, n, 19])
    def mm_static(A, B):
        return A @ B

    A, B = rand(rng, (23, 19)), rand(rng, (19, n))
    check_mm(mm_static, A, B, vector=vector)
    mr, nr = CPU_MICRO_TILES[vector]
    pad = {w: -(-n // w) * w for w in (vector, nr)}
    want_nr = vector if pad[vector] < pad[nr] else nr
    assert mm_static.ir("mapped", A, B, vector=vector).count("vector.fma") == mr * want_nr // vector


@pytest.mark.parametrize("vector", [4, 8, 16])
@pytest.mark.parametrize("m, n, k", [(1, 16, 1), (1, 64, 1031), (5, 48, 7), (7, 32, 513), (16, 80, 33), (3, 4096, 19)])
def test_few_rows_read_b_in_place(vector, m, n, k, rng):
    """A GEMM of at most 16 static rows whose N whole vectors cover reads B in place (no packed
    copy of B) with M rows per micro-tile; with an epilogue, in float64, and against float64
    numpy. N that a vector does not cover, a transposed B, more rows or a batch axis: B packed."""

    @tile_op(dtype=float32, dims=[m, n, k])
    def mm_static(A, B):
        return A @ B

    @tile_op(dtype=float32, dims=[m, n, k])
    def mm_epilogue(A, B, bias):
        return tilec.maximum(A @ B + bias, 0.0)

    A, B = rand(rng, (m, k)), rand(rng, (k, n))
    if n % vector:
        assert "Bpack" in mm_static.source("cpu", A, B, vector=vector)
        return
    src = mm_static.source("cpu", A, B, vector=vector)
    assert "Bpack" not in src and "Apack" in src
    mr = min(m, CPU_MICRO_TILES[vector][0])  # fewer rows than the default MR: MR = M
    vectors = 2 if n % (2 * vector) == 0 else 1  # (whole panels only: no read past a row)
    assert mm_static.ir("mapped", A, B, vector=vector).count("vector.fma") == mr * vectors
    check_mm(mm_static, A, B, vector=vector)
    bias = rand(rng, (n,))
    got = run(mm_epilogue, A, B, bias, vector=vector)
    np.testing.assert_allclose(got, np.maximum(f64(A) @ f64(B) + f64(bias), 0.0), rtol=1e-4, atol=1e-4 * k)

    @tile_op(dtype=float64, dims=[m, n, k])
    def mm_static64(A, B):
        return A @ B

    A64, B64 = f64(A), f64(B)
    check_mm(mm_static64, A64, B64, "float64", vector=vector)


def test_b_in_place_only_where_it_applies(rng):
    """Transposed B, 17 rows, a batch axis or float16 inputs (B converted while packing): packed."""
    A, B = rand(rng, (4, 9)), rand(rng, (9, 32))

    @tile_op(dtype=float32, dims=[4, 32, 9])
    def mm_t(A, Bt):
        return tile_contract(A, Bt, axes=[(1, 1)])

    Bt = np.ascontiguousarray(B.T)
    assert "Bpack" in mm_t.source("cpu", A, Bt, vector=8)
    (got,) = mm_t.compile("cpu", A, Bt, vector=8)(A, Bt)
    np.testing.assert_allclose(got, f64(A) @ f64(B), rtol=1e-5, atol=1e-5)

    @tile_op(dtype=float32, dims=[17, 32, 9])
    def mm17(A, B):
        return A @ B

    assert "Bpack" in mm17.source("cpu", rand(rng, (17, 9)), B, vector=8)

    @tile_op(dtype=float32)
    def bmm(A, B):
        return tile_contract(A, B, axes=[(2, 1)], batch=[(0, 0)])

    A3, B3 = rand(rng, (3, 4, 9)), rand(rng, (3, 9, 32))
    assert "Bpack" in bmm.source("cpu", A3, B3, vector=8)
    (got,) = bmm.compile("cpu", A3, B3, vector=8)(A3, B3)
    np.testing.assert_allclose(got, f64(A3) @ f64(B3), rtol=1e-5, atol=1e-5)


def conv_op(**kw):
    @tile_op(dtype=float32)
    def f(x, w):
        return tilec.conv(x, w, **kw)

    return f


def torch_conv(x, w, last, **kw):
    F = torch.nn.functional
    tx, tw = torch.from_numpy(f64(x)), torch.from_numpy(f64(w))
    if last:
        tx, tw = torch.movedim(tx, -1, 1), torch.movedim(tw, -1, 1)
    y = F.conv2d(tx, tw, **kw)
    return (torch.movedim(y, 1, -1) if last else y).numpy()


# (x, w, kwargs) in channels_first shapes: O and the output positions not multiples of 14/16/32
CONV_CASES = [
    ((1, 1, 1, 1), (1, 1, 1, 1), {}),
    ((1, 3, 7, 5), (5, 3, 3, 3), dict(padding=1)),
    ((2, 17, 13, 11), (37, 17, 3, 3), dict(stride=2, padding=1)),
    ((1, 64, 9, 7), (33, 64, 3, 3), dict(padding="same", dilation=2)),
    ((2, 12, 6, 5), (18, 4, 3, 2), dict(padding=1, groups=3)),
    ((1, 261, 5, 3), (19, 261, 3, 3), dict(padding=1)),  # C/G > 256: packed element by element
]


@pytest.mark.parametrize("vector", [8, 16])
@pytest.mark.parametrize("last", [False, True], ids=["nchw", "nhwc"])
@pytest.mark.parametrize("xs,ws,kw", CONV_CASES, ids=[f"{x}-{w}" for x, w, _ in CONV_CASES])
def test_conv_each_width(vector, last, xs, ws, kw, rng):
    if last:
        xs, ws = (xs[0], *xs[2:], xs[1]), (ws[0], *ws[2:], ws[1])
    x, w = rand(rng, xs), rand(rng, ws)
    got = run(conv_op(layout="channels_last" if last else "channels_first", **kw), x, w, vector=vector)
    want = torch_conv(x, w, last, **kw)
    k = int(np.prod(ws[1:]))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=4e-6 * k)


def fma_vectors(text: str) -> set[str]:
    return {line.split(": ")[-1] for line in text.splitlines() if "vector.fma" in line}


@pytest.mark.parametrize("vector", CPU_VECTORS)
def test_the_width_shows_in_the_mapped_ir(vector, rng):
    A, B = rand(rng, (20, 7)), rand(rng, (7, 40))
    text = mm.ir("mapped", A, B, target="cpu", vector=vector)
    mr, nr = CPU_MICRO_TILES[vector]
    assert fma_vectors(text) == {f"vector<{vector}xf32>"}
    assert text.count("vector.fma") == mr * nr // vector  # one K step of the MR x NR tile


def test_the_default_width_is_the_hosts(rng):
    """The cpu backend resolves `vector` from the C compiler's target (-march=native); an explicit
    option wins; the raw tile-to-mapped pass keeps its own default (8)."""
    lanes = compiler().vector
    assert lanes in CPU_VECTORS
    backend = get_backend("cpu")
    assert backend.options().vector == lanes
    assert backend.options(vector=4).vector == 4
    A, B = rand(rng, (9, 5)), rand(rng, (5, 11))
    assert fma_vectors(mm.ir("mapped", A, B, target="cpu")) == {f"vector<{lanes}xf32>"}
    assert f"vector={lanes}" in backend.pipeline_text(backend.options()) or lanes == 8


X86_LEVELS = [("-march=x86-64", 4), ("-march=x86-64-v3", 8), ("-march=x86-64-v4", 16)]


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86-64 -march levels")
@pytest.mark.parametrize("flag,lanes", X86_LEVELS)
def test_vector_lanes_from_the_compilers_macros(flag, lanes):
    cc = compiler()
    flags = [f for f in cc.flags if not f.startswith("-march=")] + [flag]
    probe = subprocess.run([cc.path, *flags, "-E", "-x", "c", "/dev/null"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"{cc.path} does not take {flag}")
    assert vector_lanes(cc.path, flags) == lanes


@pytest.mark.skipif(compiler().vector != 16, reason="the host's C compiler does not target AVX-512")
@pytest.mark.parametrize("vector,register", [(16, "zmm"), (8, "ymm")])
def test_avx512_host_compiles_the_width_to_its_registers(vector, register, rng, tmp_path):
    """With -march=native on an AVX-512 host, vector=16 is zmm FMAs and vector=8 ymm FMAs."""
    A, B = rand(rng, (30, 20)), rand(rng, (20, 50))
    src = tmp_path / "k.c"
    src.write_text(mm.source("cpu", A, B, vector=vector))
    cc = compiler()
    asm = tmp_path / "k.s"
    subprocess.run([cc.path, *cc.flags, "-S", "-o", str(asm), str(src)], check=True)
    fmas = [line for line in asm.read_text().splitlines() if "vfmadd" in line and "ps" in line]
    assert fmas and any(f"%{register}" in line for line in fmas)
    other = "ymm" if register == "zmm" else "zmm"
    assert not any(f"%{other}" in line for line in fmas if "(" not in line)
