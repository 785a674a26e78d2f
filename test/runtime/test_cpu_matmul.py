"""Contractions compiled for the CPU (the packed GEMM of tilec/lowering/cpu_gemm.py: MR=6 rows,
NR=16 columns, KC=512) against float64 numpy and the interpreter.

Contraction results are checked with the dot-product error bound (cpu_util.check_contract):
|C - C64| <= 2 (K u_acc + u_out) (|A| |B|), u = unit roundoff of f32 (2^-24) for the
accumulator and of the result type for the final rounding. Against the interpreter (BLAS in
the same acc type) the bound is doubled. Integer contractions must be exact (modulo 2^width).
"""

from __future__ import annotations

import numpy as np
import pytest
from cpu_util import check_contract, f64, gelu64, rand, rng  # noqa: F401

import tilec
from tilec import bfloat16, float16, float32, float64, int8, int32, int64, tile_contract, tile_op


@tile_op(dtype=float32, dims=["M", "N", "K"])
def mm(A, B):
    return tile_contract(A, B, axes=[(-1, 0)])


def _check_mm(op, A, B, dtype="float32", acc="float32", transpose_a=False, transpose_b=False):
    A64, B64 = f64(A), f64(B)
    if transpose_a:
        A64 = A64.T
    if transpose_b:
        B64 = B64.T
    want = A64 @ B64
    mag = np.abs(A64) @ np.abs(B64)
    k = A64.shape[1]
    got = op(A, B)
    check_contract(got, want, mag, k, dtype, acc)
    ref = tilec.interpret(op, A, B)
    check_contract(got, f64(ref), mag, k, dtype, acc, factor=4.0)
    return got


SHAPES = [
    (1, 1, 1),
    (1, 7, 1),
    (1, 1, 13),
    (7, 1, 13),
    (1, 13, 7),
    (13, 7, 1),
    (1, 251, 1),
    (6, 16, 1),
    (5, 15, 3),
    (7, 17, 2),
    (12, 32, 8),
    (13, 127, 7),
    (127, 13, 251),
    (251, 251, 13),
    (97, 33, 600),
    (61, 19, 1100),  # K across the KC=512 block
    (2, 4096, 3),
    (4096, 2, 3),
]


@pytest.mark.parametrize("M,N,K", SHAPES, ids=[f"{m}x{n}x{k}" for m, n, k in SHAPES])
def test_matmul_dynamic_shapes(M, N, K, rng):
    A, B = rand(rng, (M, K)), rand(rng, (K, N))
    _check_mm(mm, A, B)


def test_matmul_dynamic_dims_compile_once(rng):
    """One kernel serves every size: calling with new sizes neither traces nor compiles again."""
    A, B = rand(rng, (3, 5)), rand(rng, (5, 4))
    mm(A, B)
    kernel = mm.compile()
    traces = mm.trace_count
    for M, N, K in [(9, 2, 31), (1, 1, 1), (40, 33, 7)]:
        _check_mm(mm, rand(rng, (M, K)), rand(rng, (K, N)))
    assert mm.trace_count == traces
    assert mm.compile() is kernel


def test_matmul_large(rng):
    A, B = rand(rng, (1000, 1000)), rand(rng, (1000, 1000))
    _check_mm(mm, A, B)


def test_matmul_big_packed_panels(rng):
    """Packed panels of 8 MiB or more are allocated on 2 MiB boundaries with MADV_HUGEPAGE (Linux)."""
    A, B = rand(rng, (2101, 1031)), rand(rng, (1031, 3))
    _check_mm(mm, A, B)


def test_matmul_empty_k(rng):
    """An empty contraction gives zeros."""
    got = mm(np.zeros((5, 0), np.float32), np.zeros((0, 3), np.float32))
    np.testing.assert_array_equal(got, np.zeros((5, 3), np.float32))


@pytest.mark.parametrize("M,N,K", [(1, 1, 1), (7, 13, 5), (6, 16, 8), (13, 33, 600)])
def test_matmul_static(M, N, K, rng):
    @tile_op(dtype=float32, dims=[M, N, K])
    def mm_s(A, B):
        return A @ B

    _check_mm(mm_s, rand(rng, (M, K)), rand(rng, (K, N)))


def test_matmul_f64(rng):
    @tile_op(dtype=float64, dims=["M", "N", "K"])
    def mm64(A, B):
        return tile_contract(A, B, axes=[(1, 0)])

    for M, N, K in [(1, 1, 1), (7, 13, 5), (37, 9, 41)]:
        _check_mm(mm64, rand(rng, (M, K), float64), rand(rng, (K, N), float64), "float64", "float64")


@tile_op(dtype=float32, dims=["M", "N", "K"])
def mm_at(A, B):  # A is (K, M)
    return tile_contract(A.T, B, axes=[(1, 0)])


@tile_op(dtype=float32, dims=["M", "N", "K"])
def mm_bt(A, B):  # B is (N, K)
    return tile_contract(A, B, axes=[(1, 1)])


@tile_op(dtype=float32, dims=["M", "N", "K"])
def mm_atbt(A, B):  # A is (K, M), B is (N, K)
    return A.T @ B.T


@pytest.mark.parametrize("M,N,K", [(1, 1, 1), (7, 13, 5), (13, 17, 19), (50, 3, 70)])
def test_matmul_transposed_operands(M, N, K, rng):
    _check_mm(mm_at, rand(rng, (K, M)), rand(rng, (K, N)), transpose_a=True)
    _check_mm(mm_bt, rand(rng, (M, K)), rand(rng, (N, K)), transpose_b=True)
    _check_mm(mm_atbt, rand(rng, (K, M)), rand(rng, (N, K)), transpose_a=True, transpose_b=True)


@tile_op(dtype=float32, dims=["B", "M", "N", "K"])
def bmm(x, y):
    return tile_contract(x, y, axes=[(2, 1)], batch=[(0, 0)])


@pytest.mark.parametrize("Bt,M,N,K", [(1, 1, 1, 1), (3, 7, 13, 5), (5, 1, 17, 9), (2, 20, 1, 33)])
def test_batched(Bt, M, N, K, rng):
    x, y = rand(rng, (Bt, M, K)), rand(rng, (Bt, K, N))
    want = np.einsum("bmk,bkn->bmn", f64(x), f64(y))
    mag = np.einsum("bmk,bkn->bmn", np.abs(f64(x)), np.abs(f64(y)))
    got = bmm(x, y)
    check_contract(got, want, mag, K)
    check_contract(got, f64(tilec.interpret(bmm, x, y)), mag, K, factor=4.0)


def test_batched_middle_axes(rng):
    """Batch axes that are not leading, on both sides, with a transposed free layout."""

    @tile_op(dtype=float32, dims=["B", "M", "N", "K"])
    def f(x, y):  # x (M, B, K), y (N, K, B)
        return tile_contract(x, y, axes=[(2, 1)], batch=[(1, 2)])

    for Bt, M, N, K in [(3, 7, 5, 11), (1, 13, 17, 2)]:
        x, y = rand(rng, (M, Bt, K)), rand(rng, (N, K, Bt))
        want = np.einsum("mbk,nkb->bmn", f64(x), f64(y))
        mag = np.einsum("mbk,nkb->bmn", np.abs(f64(x)), np.abs(f64(y)))
        got = f(x, y)
        check_contract(got, want, mag, K)
        check_contract(got, f64(tilec.interpret(f, x, y)), mag, K, factor=4.0)


def test_several_contracted_and_free_axes(rng):
    @tile_op(dtype=float32)
    def f(x, y):  # x (M1, K1, M2, K2), y (K2, N1, K1, N2)
        return tile_contract(x, y, axes=[(1, 2), (3, 0)])

    x, y = rand(rng, (5, 7, 3, 6)), rand(rng, (6, 4, 7, 17))
    want = np.einsum("aibj,jcid->abcd", f64(x), f64(y))
    mag = np.einsum("aibj,jcid->abcd", np.abs(f64(x)), np.abs(f64(y)))
    got = f(x, y)
    check_contract(got, want, mag, 42)
    check_contract(got, f64(tilec.interpret(f, x, y)), mag, 42, factor=4.0)


def test_vector_contractions(rng):
    """Rank-1 operands: dot product (a scalar result), matrix-vector, vector-matrix, outer."""

    @tile_op(dtype=float32)
    def f(v, w, A):
        return v @ w, A @ w, v @ A, tile_contract(v, w, axes=0)

    v, w, A = rand(rng, (13,)), rand(rng, (13,)), rand(rng, (13, 13))
    V, W, AA = f64(v), f64(w), f64(A)
    got = f(v, w, A)
    ref = tilec.interpret(f, v, w, A)
    wants = [V @ W, AA @ W, V @ AA, np.multiply.outer(V, W)]
    mags = [np.abs(V) @ np.abs(W), np.abs(AA) @ np.abs(W), np.abs(V) @ np.abs(AA), np.abs(np.multiply.outer(V, W))]
    for g, r, want, mag in zip(got, ref, wants, mags):
        check_contract(g, want, mag, 13)
        check_contract(g, f64(r), mag, 13, factor=4.0)


@pytest.mark.parametrize("dtype", [float16, bfloat16], ids=["f16", "bf16"])
def test_16bit_inputs_accumulate_in_f32(dtype, rng):
    @tile_op(dtype=dtype, dims=["M", "N", "K"])
    def mm16(A, B):
        return A @ B

    for M, N, K in [(1, 1, 1), (7, 13, 5), (29, 37, 300)]:
        A, B = rand(rng, (M, K), dtype), rand(rng, (K, N), dtype)
        _check_mm(mm16, A, B, dtype.name, "float32")
    # a long K: in a 16-bit accumulator this sum of K ones would stop growing at 2048 / 256
    K = 4099
    got = mm16(np.ones((2, K), dtype.np), np.ones((K, 3), dtype.np))
    want = np.full((2, 3), K, np.float64).astype(dtype.np)
    np.testing.assert_array_equal(got, want)


def test_16bit_inputs_cast_to_f64_inside(rng):
    """Operands cast to f64 inside the program accumulate in f64 (the wider operand type) and the
    result keeps f64 (results keep their dtype); `.astype(float16)` on it rounds the f64
    accumulator to f16 once."""

    @tile_op(dtype=float16, dims=["M", "N", "K"])
    def f(A, B):
        C = tile_contract(A.astype(float64), B.astype(float64), axes=[(1, 0)])
        return C, C.astype(float16)

    A, B = rand(rng, (9, 300), float16), rand(rng, (300, 5), float16)
    got, got16 = f(A, B)
    assert got.dtype == np.float64 and got16.dtype == np.float16
    exact = f64(A) @ f64(B)
    np.testing.assert_allclose(got, exact, rtol=1e-12, atol=1e-12)
    want = exact.astype(np.float16)  # one rounding of the (nearly) exact sum
    np.testing.assert_allclose(f64(got16), f64(want), rtol=2.0**-10, atol=1e-6)
    ref, ref16 = tilec.interpret(f, A, B)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(f64(got16), f64(ref16), rtol=2.0**-10, atol=1e-6)


@tile_op(dtype=float32, dims=["M", "N", "K"])
def mm_epilogues(A, B, bias):
    C = A @ B + bias
    gelu = 0.5 * C * (1.0 + tilec.erf(C * 0.7071067811865476))
    gelu_tanh = 0.5 * C * (1.0 + tilec.tanh(0.7978845608028654 * (C + 0.044715 * C * C * C)))
    relu = tilec.maximum(C, 0.0)
    return C, gelu, gelu_tanh, relu


@pytest.mark.parametrize("M,N,K", [(1, 1, 1), (7, 13, 5), (13, 127, 33), (64, 48, 17)])
def test_matmul_bias_activation_epilogues(M, N, K, rng):
    A, B, bias = rand(rng, (M, K)), rand(rng, (K, N)), rand(rng, (N,))
    C64 = f64(A) @ f64(B) + f64(bias)
    mag = np.abs(f64(A)) @ np.abs(f64(B)) + np.abs(f64(bias))
    got = mm_epilogues(A, B, bias)
    ref = tilec.interpret(mm_epilogues, A, B, bias)
    check_contract(got[0], C64, mag, K + 1)
    check_contract(got[0], f64(ref[0]), mag, K + 1, factor=4.0)
    # the activations amplify C's error by at most their slope (<= 1.13); absolute error
    # from the activation's own evaluation (a few ulp of the result) comes on top
    err = 2 * (K + 1) * 2.0**-24 * mag * 1.2
    wants = [
        gelu64(C64),
        0.5 * C64 * (1 + np.tanh(0.7978845608028654 * (C64 + 0.044715 * C64**3))),
        np.maximum(C64, 0),
    ]
    for i, (g, r, w) in enumerate(zip(got[1:], ref[1:], wants), 1):
        tol = err + 1e-6 * np.abs(w) + 1e-7
        assert np.all(np.abs(f64(g) - w) <= tol), f"result {i} vs numpy: max err {np.max(np.abs(f64(g) - w))}"
        assert np.all(np.abs(f64(g) - f64(r)) <= 2 * tol), f"result {i} vs interpreter"
    assert np.all(got[3] >= 0)


def test_matmul_epilogue_cast_to_f16(rng):
    """Epilogue with a cast: f16 result of an f32 contraction plus a bias."""

    @tile_op(dtype=float32, dims=["M", "N", "K"])
    def f(A, B, bias):
        return tilec.tanh(A @ B + bias).astype(float16)

    A, B, bias = rand(rng, (13, 21)), rand(rng, (21, 19)), rand(rng, (19,))
    got = f(A, B, bias)
    assert got.dtype == np.float16
    want = np.tanh(f64(A) @ f64(B) + f64(bias))
    np.testing.assert_allclose(f64(got), want, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(f64(got), f64(tilec.interpret(f, A, B, bias)), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize(
    "dtype,lo,hi", [(int8, -128, 127), (int32, -1000, 1000), (int64, -(10**6), 10**6)], ids=["i8", "i32", "i64"]
)
def test_integer_contractions(dtype, lo, hi, rng):
    @tile_op(dtype=dtype, dims=["M", "N", "K"])
    def imm(A, B):
        return A @ B

    acc = np.int32 if dtype in (int8, int32) else np.int64
    for M, N, K in [(1, 1, 1), (7, 13, 5), (17, 6, 129)]:
        A, B = rand(rng, (M, K), dtype, lo, hi), rand(rng, (K, N), dtype, lo, hi)
        want = (A.astype(np.int64) @ B.astype(np.int64)).astype(acc).astype(dtype.np)  # wraps
        np.testing.assert_array_equal(imm(A, B), want)
        np.testing.assert_array_equal(tilec.interpret(imm, A, B), want)


def test_integer_batched_contraction_with_epilogue(rng):
    @tile_op(dtype=int32, dims=["B", "M", "N", "K"])
    def f(x, y):
        c = tile_contract(x, y, axes=[(2, 1)], batch=[(0, 0)])
        return tilec.maximum(c, 0) - 3

    x, y = rand(rng, (3, 5, 7), int32, -50, 50), rand(rng, (3, 7, 4), int32, -50, 50)
    want = np.maximum(np.einsum("bmk,bkn->bmn", x.astype(np.int64), y.astype(np.int64)), 0) - 3
    np.testing.assert_array_equal(f(x, y), want.astype(np.int32))
    np.testing.assert_array_equal(tilec.interpret(f, x, y), want.astype(np.int32))


def test_attention_like_chain(rng):
    """Two contractions with a softmax between them (three groups, two temporaries)."""

    @tile_op(dtype=float32, dims=["S", "E", "D", "T"])
    def attn(q, k, v):
        s = tile_contract(q, k, axes=[(1, 1)]) * 0.125
        p = tilec.exp(s - tilec.max(s, axis=-1, keepdims=True))
        p = p / tilec.sum(p, axis=-1, keepdims=True)
        return p @ v

    for S, T, D, E in [(7, 13, 16, 5), (1, 1, 1, 1), (33, 70, 8, 17)]:
        q, k, v = rand(rng, (S, D)), rand(rng, (T, D)), rand(rng, (T, E))
        s = f64(q) @ f64(k).T * 0.125
        p = np.exp(s - s.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        want = p @ f64(v)
        got = attn(q, k, v)
        np.testing.assert_allclose(f64(got), want, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(f64(got), f64(tilec.interpret(attn, q, k, v)), rtol=1e-5, atol=1e-5)
