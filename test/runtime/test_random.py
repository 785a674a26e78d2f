"""tilec.random (Philox-4x32-10): the interpreter against tilec/philox.py, compiled C bit-identical
to the interpreter (awkward and dynamic shapes, counters that carry into the high word, seeds
above 2^63), the uniform/normal/bernoulli transforms, statistics, the offset contract, fusion
(dropout is one kernel, no mask array), located errors, PTX assembled by ptxas and HIP compiled
by hipcc. The CUDA runs are in test_gpu_random.py."""

from __future__ import annotations

import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest

import tilec
from tilec import TileError, float16, float32, float64, tile_op
from tilec.philox import philox4x32, random_bits
from tilec.toolchain.hipcc import find_hipcc

rng = np.random.default_rng()


def fresh_seed() -> int:
    return int(rng.integers(-(2**63), 2**63))


def as_u64(v: int) -> int:
    return v % 2**64


def kernels(op, *args, target="cpu") -> int:
    return op.ir("mapped", *args, target=target).count("mapped.kernel @")


@tile_op(dtype=float32, dims=["M", "N"])
def bits2(x, seed: int, offset: int):
    return tilec.random.bits(seed, offset, x.shape)


@tile_op(dtype=float32, dims=["M", "N"])
def samples(x, seed: int, offset: int):
    r = tilec.random
    return (
        r.uniform(seed, offset, x.shape),
        r.uniform(seed, offset, x.shape, float64),
        r.uniform(seed, offset, x.shape, float16),
        r.uniform(seed, offset, x.shape, tilec.bfloat16),
        r.bernoulli(0.3, seed, offset, x.shape),
    )


@tile_op(dtype=float32, dims=["M", "N"])
def normals(x, seed: int, offset: int):
    return tilec.random.normal(seed, offset, x.shape), tilec.random.normal(seed, offset, x.shape, float64)


SHAPES = [(1, 1), (1, 7), (13, 5), (3, 257), (2, 4)]
# (offset): 0, counters that cross 2^32 inside the tile, the top of the 64-bit range (wraps to 0)
OFFSETS = [0, 2**32 - 3, 2**64 - 5]


def test_random_bits_is_philox_of_the_counter_element_by_element():
    seed, offset = as_u64(fresh_seed()), 2**32 - 2
    got = random_bits(seed, offset, (3, 5))
    for i in range(15):
        c = offset + i // 4
        words = philox4x32((c % 2**32, c >> 32, 0, 0), (seed % 2**32, seed >> 32))
        assert int(got.reshape(-1)[i]) == int(words[i % 4]), i


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("offset", OFFSETS)
def test_bits_interpreter_and_c_equal_the_reference(shape, offset):
    x = np.zeros(shape, np.float32)
    seed = fresh_seed()
    off = offset - 2**64 if offset >= 2**63 else offset  # an int64 argument: the same 64 bits
    want = random_bits(as_u64(seed), offset, shape)
    got_i = tilec.interpret(bits2, x, seed, off)
    assert got_i.dtype == np.uint32 and np.array_equal(got_i, want)
    assert np.array_equal(bits2(x, seed, off), want)


@pytest.mark.parametrize("shape", [(1, 1), (11, 3), (7, 131)])
def test_uniform_and_bernoulli_are_bit_identical_and_follow_the_documented_formulas(shape):
    x = np.zeros(shape, np.float32)
    seed, off = fresh_seed(), int(rng.integers(0, 2**40))
    got = samples(x, seed, off)
    interp = tilec.interpret(samples, x, seed, off)
    for g, i in zip(got, interp):
        assert g.dtype == i.dtype and g.shape == shape
        assert np.array_equal(g.view(np.uint8), i.view(np.uint8))
    w1 = random_bits(as_u64(seed), off, shape).astype(np.uint64)
    w2 = random_bits(as_u64(seed), off, (*shape, 2)).astype(np.uint64)
    u32 = (w1 >> np.uint64(8)).astype(np.float64) * 2.0**-24
    u64 = (((w2[..., 0] >> np.uint64(11)) << np.uint64(32)) | w2[..., 1]).astype(np.float64) * 2.0**-53
    assert np.array_equal(got[0], u32.astype(np.float32))
    assert np.array_equal(got[1], u64)
    assert np.array_equal(got[2], ((w1 >> np.uint64(21)).astype(np.float64) * 2.0**-11).astype(np.float16))
    assert np.array_equal(got[3], ((w1 >> np.uint64(24)).astype(np.float64) * 2.0**-8).astype(ml_dtypes.bfloat16))
    assert np.array_equal(got[4], u32.astype(np.float32) < np.float32(0.3))
    assert all(float(g.astype(np.float64).max()) < 1.0 and float(g.astype(np.float64).min()) >= 0.0 for g in got[:4])


def box_muller(seed: int, off: int, shape, f64: bool) -> np.ndarray:
    """normal's documented transform in float64, from the reference bits."""
    if f64:
        w = random_bits(as_u64(seed), off, (*shape, 4)).astype(np.uint64)
        a = (((w[..., 0] >> np.uint64(11)) << np.uint64(32)) | w[..., 1]).astype(np.float64)
        b = (((w[..., 2] >> np.uint64(11)) << np.uint64(32)) | w[..., 3]).astype(np.float64)
        p = 53
    else:
        w = random_bits(as_u64(seed), off, (*shape, 2))
        a, b, p = (w[..., 0] >> 8).astype(np.float64), (w[..., 1] >> 8).astype(np.float64), 24
    u1, u2 = (a + 1.0) * 2.0**-p, b * 2.0**-p
    return np.sqrt(np.log(u1) * -2.0) * np.cos(u2 * (2 * np.pi))


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in units in the last place of a's type (a and b finite, same type)."""
    it = np.int32 if a.dtype == np.float32 else np.int64
    ia, ib = a.view(it).astype(np.int64), b.view(it).astype(np.int64)
    ia = np.where(ia < 0, np.iinfo(it).min - ia, ia)
    ib = np.where(ib < 0, np.iinfo(it).min - ib, ib)
    return np.abs(ia - ib)


def test_normal_c_against_the_interpreter_and_box_muller():
    shape = (257, 129)
    x = np.zeros(shape, np.float32)
    seed, off = fresh_seed(), int(rng.integers(0, 2**62))
    c32, c64 = normals(x, seed, off)
    i32, i64 = tilec.interpret(normals, x, seed, off)
    ref64 = box_muller(seed, off, shape, False)
    assert np.array_equal(i32, ref64.astype(np.float32))  # the interpreter is numpy's float64, rounded once
    assert np.array_equal(i64, box_muller(seed, off, shape, True))
    # libm's log/cos against numpy's: f32 results (computed in f64, rounded once) differ only where
    # the f64 value lies within an ulp or two of an f32 rounding boundary (docs/dsl.md)
    assert ulps(c32, i32).max() <= 1 and np.count_nonzero(c32 != i32) <= 20
    assert ulps(c64, i64).max() <= 4

    @tile_op(dtype=float16)
    def half_normals(seed: int):
        return tilec.random.normal(seed, 3, (64, 33)), tilec.random.normal(seed, 3, (64, 33), tilec.bfloat16)

    h, b = half_normals(seed)
    ih, ib = tilec.interpret(half_normals, seed)
    assert h.dtype == np.float16 and b.dtype == ml_dtypes.bfloat16
    assert np.array_equal(ih, box_muller(seed, 3, (64, 33), False).astype(np.float16))
    assert np.count_nonzero(h != ih) <= 1 and np.count_nonzero(b != ib) <= 1


def test_statistics():
    x = np.zeros((512, 513), np.float32)
    n = x.size
    u, u64, _, _, b = samples(x, fresh_seed(), 0)
    z, z64 = normals(x, fresh_seed(), 12345)
    for v in (u.astype(np.float64), u64):
        assert abs(v.mean() - 0.5) < 5 * np.sqrt(1 / 12 / n)
        assert abs(v.var() - 1 / 12) < 5 * np.sqrt(1 / 180 / n)  # var of (u - 1/2)^2 is 1/180
    for v in (z.astype(np.float64), z64):
        assert abs(v.mean()) < 5 / np.sqrt(n)
        assert abs(v.var() - 1) < 5 * np.sqrt(2 / n)
        assert abs(np.mean(np.abs(v) < 1.0) - 0.6826894921) < 5 * np.sqrt(0.22 / n)
    assert abs(b.mean() - 0.3) < 5 * np.sqrt(0.3 * 0.7 / n)
    # neighbouring elements (words of one counter, and consecutive counters) are uncorrelated
    flat = u.reshape(-1).astype(np.float64) - 0.5
    for lag in (1, 2, 3, 4, 5):
        assert abs(np.mean(flat[:-lag] * flat[lag:])) < 5 * (1 / 12) / np.sqrt(n)


def test_the_offset_contract_lets_calls_continue_a_stream():
    @tile_op(dtype=float32)
    def pieces(seed: int, offset: int):
        r = tilec.random
        return (
            r.uniform(seed, offset, (4, 6)),
            r.uniform(seed, offset, (8,)),
            r.uniform(seed, offset + 2, (16,)),  # 8 floats = 2 counters
            r.uniform(seed, offset, (5,), float64),
            r.uniform(seed, offset + 2, (3,), float64),  # 2 words each: 4 floats = 2 counters
        )

    seed, off = fresh_seed(), 2**32 - 1
    for a, b, c, d, e in (pieces(seed, off), tilec.interpret(pieces, seed, off)):
        assert np.array_equal(a.reshape(-1)[:8], b) and np.array_equal(a.reshape(-1)[8:], c)
        assert np.array_equal(d[4:], e[:1])


def test_dynamic_shapes_and_sizes_in_shapes():
    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x, seed: int):
        M, N = x.shape
        return tilec.random.bits(seed, 7, (N, 3, M)), x + tilec.random.uniform(seed, M, (M, 1))

    for shape in [(1, 1), (5, 3), (2, 17)]:
        x = rng.standard_normal(shape).astype(np.float32)
        seed = fresh_seed()
        got, want = f(x, seed), tilec.interpret(f, x, seed)
        assert np.array_equal(got[0], random_bits(as_u64(seed), 7, (shape[1], 3, shape[0])))
        assert np.array_equal(got[1], want[1])  # the offset is a dynamic size
        u = (random_bits(as_u64(seed), shape[0], (shape[0], 1)) >> 8).astype(np.float32) * np.float32(2**-24)
        assert np.array_equal(got[1], x + u)


def test_seed_and_offset_do_not_recompile_and_python_ints_work():
    x = np.zeros((3, 4), np.float32)
    assert samples.compile("cpu", x, 1, 2) is samples.compile("cpu", x, -5, 2**40)

    @tile_op(dtype=float32)
    def fixed(x):
        return tilec.random.bits(2**64 - 1, 2**63 + 3, x.shape), tilec.random.bits(-1, 5, x.shape)

    a, b = fixed(x)
    assert np.array_equal(a, random_bits(2**64 - 1, 2**63 + 3, x.shape))
    assert np.array_equal(b, random_bits(2**64 - 1, 5, x.shape))  # -1 and 2^64 - 1 are one seed


@tile_op(dtype=float32, dims=["M", "N"])
def dropout(x, seed: int, offset: int, p: float):
    keep = tilec.random.bernoulli(1.0 - p, seed, offset, x.shape)
    return tilec.where(keep, x / (1.0 - p), 0.0)


@tile_op(dtype=float32, dims=["M", "N"])
def dropout_rowsum(x, seed: int, offset: int):
    keep = tilec.random.bernoulli(0.75, seed, offset, x.shape)
    return tilec.sum(tilec.where(keep, x * (1 / 0.75), 0.0), axis=-1)


def test_dropout_is_one_kernel_and_matches_the_interpreter():
    x = rng.standard_normal((37, 131)).astype(np.float32)
    seed = fresh_seed()
    got = dropout(x, seed, 3, 0.25)
    assert np.array_equal(got, tilec.interpret(dropout, x, seed, 3, 0.25))
    keep = random_bits(as_u64(seed), 3, x.shape) >> 8 < np.uint32(0.75 * 2**24)
    assert np.array_equal(got, np.where(keep, x / np.float32(0.75), np.float32(0)))
    s = dropout_rowsum(x, seed, 3)
    np.testing.assert_allclose(s, np.where(keep, x.astype(np.float64) / 0.75, 0).sum(-1), rtol=1e-5, atol=1e-5)
    for target in ("cpu", "cuda"):
        assert kernels(dropout, x, 1, 2, 0.5, target=target) == 1
        assert kernels(dropout_rowsum, x, 1, 2, target=target) == 1
    assert "random_bits" in dropout.ir("tile", x, 1, 2, 0.5)


@pytest.mark.parametrize(
    "body, message",
    [
        (lambda x, s: tilec.random.uniform(1.5, 0, x.shape), "tilec.random.uniform: seed must be an int"),
        (lambda x, s: tilec.random.uniform(0, x, x.shape), "tilec.random.uniform: offset must be one value"),
        (lambda x, s: tilec.random.uniform(0, x.astype(float32), (2,)), "offset must be an int or an integer scalar"),
        (lambda x, s: tilec.random.uniform(s, 0, x.shape, tilec.int32), "dtype must be one of float16"),
        (lambda x, s: tilec.random.normal(s, 0, (2, -1)), "tilec.random.normal: invalid size -1"),
        (lambda x, s: tilec.random.bernoulli(1.5, s, 0, x.shape), "tilec.random.bernoulli: p must be in [0, 1]"),
        (lambda x, s: tilec.random.bernoulli(x > 0, s, 0, x.shape), "p must be a float or a run-time float scalar"),
        (lambda x, s: tilec.random.bernoulli("0.5", s, 0, x.shape), "p must be a float in [0, 1]"),
    ],
)
def test_located_errors(body, message):
    @tile_op(dtype=float32)
    def bad(x, s: int):
        return body(x, s)

    with pytest.raises(TileError) as e:
        bad(np.zeros((2, 3), np.float32), 1)
    assert message in str(e.value) and "test_random.py:" in str(e.value)


def gpu_programs():
    x = np.zeros((37, 129), np.float32)
    return [("bits", bits2, (x, 1, 2)), ("samples", samples, (x, 1, 2)), ("normals", normals, (x, 1, 2))] + [
        ("dropout", dropout, (x, 1, 2, 0.1)),
        ("dropout_rowsum", dropout_rowsum, (x, 1, 2)),
    ]


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
@pytest.mark.parametrize("sm", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name,op,args", gpu_programs(), ids=lambda p: p if isinstance(p, str) else "")
def test_ptx_assembles(name, op, args, sm, tmp_path):
    path = tmp_path / f"{name}.ptx"
    src = op.source("cuda", *args, sm=sm)
    assert "mul.wide.u32" in src or "mul.lo.s64" in src or "mul.lo.u64" in src
    path.write_text(src)
    r = subprocess.run(
        ["ptxas", f"-arch={sm}", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr


@pytest.mark.skipif(find_hipcc() is None, reason="hipcc is not installed (apt-get install hipcc)")
@pytest.mark.parametrize("name,op,args", gpu_programs(), ids=lambda p: p if isinstance(p, str) else "")
def test_hip_compiles(name, op, args):
    op.compile("hip", *args)


def test_bernoulli_p_as_strict_scalars_and_per_element_tiles():
    @tile_op(dtype=float32)
    def f(x, p: tilec.scalar(float64), q: tilec.scalar(float32), seed: int):
        r = tilec.random
        return r.bernoulli(p, seed, 4, x.shape), r.bernoulli(x, seed, 4, x.shape), r.bernoulli(q, seed, 4, x.shape)

    x = rng.random((5, 17)).astype(np.float32)
    seed, p = fresh_seed(), float(rng.random())
    a, b, c = f(x, p, p, seed)
    u = (random_bits(as_u64(seed), 4, x.shape) >> 8).astype(np.float32) * np.float32(2**-24)
    assert np.array_equal(a, u < np.float32(p)) and np.array_equal(c, a)
    assert np.array_equal(b, u < x)  # a probability per element
    for g, w in zip((a, b, c), tilec.interpret(f, x, p, p, seed)):
        assert np.array_equal(g, w)
