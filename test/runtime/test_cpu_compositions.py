"""Compositions of groups compiled for the CPU: contractions of computed, transposed and broadcast
operands, results of contractions transposed / reshaped / reduced, multi-axis rowwise groups,
several results of mixed shapes and dtypes from one group. Compared with float64 numpy and the
interpreter at cpu_util.TOL (f32 1e-5; contractions scaled by sqrt(K) in the absolute tolerance)."""

from __future__ import annotations

import numpy as np
from cpu_util import check, f64, rand, rng  # noqa: F401

import tilec
from tilec import bool_, float16, float32, tile_contract, tile_op


def test_contract_computed_and_transposed_operands(rng):
    @tile_op(dtype=float32, dims=["M", "N", "K"])
    def f(A, B):  # A (K, M), B (K, N)
        return tile_contract(tilec.tanh(A).T, B * 0.5, axes=[(1, 0)])

    for M, N, K in [(1, 1, 1), (7, 13, 5), (33, 17, 70)]:
        A, B = rand(rng, (K, M)), rand(rng, (K, N))
        check(f, [A, B], np.tanh(f64(A)).T @ (f64(B) * 0.5), atol=1e-5 * np.sqrt(K))


def test_contract_broadcast_operand(rng):
    @tile_op(dtype=float32)
    def f(v, B):
        return tilec.broadcast_to(v, (5, v.shape[0])) @ B

    v, B = rand(rng, (9,)), rand(rng, (9, 21))
    check(f, [v, B], np.broadcast_to(f64(v), (5, 9)) @ f64(B))


def test_contract_result_transposed_reshaped_reduced(rng):
    @tile_op(dtype=float32, dims=[10, 6, 7])  # the first result is (N, M)
    def f(A, B):
        C = A @ B
        return (
            C.T,
            C.reshape(3, 20),
            tilec.sum(C),
            tilec.max(C, axis=0),
            tilec.exp(C - tilec.max(C, axis=1, keepdims=True)),
        )

    A, B = rand(rng, (6, 7)), rand(rng, (7, 10))
    C = f64(A) @ f64(B)
    check(f, [A, B], (C.T, C.reshape(3, 20), C.sum(), C.max(0), np.exp(C - C.max(1, keepdims=True))), atol=2e-5)


def test_contract_several_epilogue_results_mixed_dtypes(rng):
    @tile_op(dtype=float32, dims=["M", "N", "K"])
    def f(A, B, bias):
        C = A @ B + bias
        return C, C > 0.0, C.astype(float16), tilec.where(C > 0.0, C, 0.01 * C)

    for M, N, K in [(1, 1, 1), (13, 35, 9)]:
        A, B, bias = rand(rng, (M, K)), rand(rng, (K, N)), rand(rng, (N,))
        C = f64(A) @ f64(B) + f64(bias)
        got = f(A, B, bias)
        ref = tilec.interpret(f, A, B, bias)
        np.testing.assert_allclose(f64(got[0]), C, rtol=1e-5, atol=1e-5)
        assert got[1].dtype == np.bool_ and got[2].dtype == np.float16
        near0 = np.abs(C) < 1e-5  # the sign of C may differ from float64 there
        np.testing.assert_array_equal(got[1][~near0], (C > 0)[~near0])
        np.testing.assert_array_equal(got[1], ref[1])
        np.testing.assert_allclose(f64(got[2]), C, rtol=1e-3, atol=1e-3)
        np.testing.assert_allclose(f64(got[3]), np.where(C > 0, C, 0.01 * C), rtol=1e-5, atol=1e-5)


def test_batched_contraction_with_batch_bias_and_rowwise_after(rng):
    @tile_op(dtype=float32, dims=["B", "S", "T", "D"])
    def f(q, k, bias):  # q (B, S, D), k (B, T, D), bias (B, T)
        s = tile_contract(q, k, axes=[(2, 2)], batch=[(0, 0)]) + tilec.reshape(bias, (bias.shape[0], 1, bias.shape[1]))
        e = tilec.exp(s - tilec.max(s, axis=-1, keepdims=True))
        return e / tilec.sum(e, axis=-1, keepdims=True)

    for Bt, S, T, D in [(1, 1, 1, 1), (3, 5, 7, 16), (2, 13, 1, 3)]:
        q, k, bias = rand(rng, (Bt, S, D)), rand(rng, (Bt, T, D)), rand(rng, (Bt, T))
        s = np.einsum("bsd,btd->bst", f64(q), f64(k)) + f64(bias)[:, None, :]
        e = np.exp(s - s.max(-1, keepdims=True))
        check(f, [q, k, bias], e / e.sum(-1, keepdims=True))


def test_rowwise_over_two_trailing_axes(rng):
    @tile_op(dtype=float32, dims=["A", "B", "C"])
    def f(x):
        m = tilec.max(x, axis=(1, 2), keepdims=True)
        e = tilec.exp(x - m)
        return e / tilec.sum(e, axis=(1, 2), keepdims=True), tilec.mean(x, axis=(-2, -1))

    for shape in [(1, 1, 1), (3, 5, 7), (2, 1, 300)]:
        x = rand(rng, shape)
        X = f64(x)
        e = np.exp(X - X.max((1, 2), keepdims=True))
        check(f, [x], (e / e.sum((1, 2), keepdims=True), X.mean((1, 2))))


def test_unit_dims_in_the_middle(rng):
    """Domains with static unit axes between dynamic ones; reductions and broadcasts across them."""

    @tile_op(dtype=float32)
    def f(x, y):  # x (M, 1, N), y (1, N)
        s = tilec.sum(x * y, axis=-1, keepdims=True)  # (M, 1, 1)
        return x - s, s.reshape(x.shape[0]), tilec.max(x, axis=0)

    x, y = rand(rng, (5, 1, 9)), rand(rng, (1, 9))
    X, Y = f64(x), f64(y)
    s = (X * Y).sum(-1, keepdims=True)
    check(f, [x, y], (X - s, s.reshape(5), X.max(0)))


def test_many_independent_outputs_of_one_domain(rng):
    """Independent elementwise results over the same (dynamic) domain share one loop."""

    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x, y):
        return x + y, x * y, tilec.exp(x), y - 1.0, tilec.sqrt(tilec.abs(y))

    x, y = rand(rng, (7, 19)), rand(rng, (7, 19))
    X, Y = f64(x), f64(y)
    check(f, [x, y], (X + Y, X * Y, np.exp(X), Y - 1, np.sqrt(np.abs(Y))))
    assert f.ir("mapped").count("mapped.kernel") == 1


def test_mask_op_with_reductions(rng):
    """A bool op: masks combined, and a float op counting them."""

    @tile_op(dtype=bool_, dims=["M", "N"])
    def f(a, b):
        return (a & b) | ~a, a ^ b

    a, b = rng.random((6, 7)) < 0.5, rng.random((6, 7)) < 0.5
    got = f(a, b)
    np.testing.assert_array_equal(got[0], (a & b) | ~a)
    np.testing.assert_array_equal(got[1], a ^ b)

    @tile_op(dtype=float32, dims=["M", "N"])
    def count(x):
        return tilec.sum(tilec.where(x > 0.0, 1.0, 0.0), axis=1), tilec.max(tilec.where(x > 0.5, x, -1.0), axis=0)

    x = rand(rng, (13, 5))
    X = f64(x)
    check(count, [x], ((X > 0).sum(1), np.where(X > 0.5, X, -1).max(0)))
