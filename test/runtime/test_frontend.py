"""The DSL's features, each compared with numpy through the reference interpreter (tilec.interpret).

Awkward shapes (1, primes, non-multiples), f32/f16/bf16, static, dynamic and per-call dims.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_frontend_util import FLOAT_DTYPES, check, erf, f64, rand

import tilec
from tilec import bfloat16, float16, float32, int8, int32, tile_contract, tile_op

DTYPE_IDS = [d.name for d in FLOAT_DTYPES]

# --- the example from the API contract ----------------------------------------------------------


def test_contract_example_matrix_mul():
    M, N, K = 256, 192, 128

    @tile_op(dtype=float32, dims=[M, N, K])
    def matrix_mul(A, B):
        return tile_contract(A, B, axes=[(-1, 0)])

    A = np.random.rand(M, K).astype(np.float32)
    B = np.random.rand(K, N).astype(np.float32)
    C = tilec.interpret(matrix_mul, A, B)
    check(C, f64(A) @ f64(B), float32, scale=10)


# --- contraction --------------------------------------------------------------------------------

MATMUL_SHAPES = [(1, 1, 1), (7, 13, 5), (17, 1, 31), (1, 29, 3), (33, 65, 129)]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("mnk", MATMUL_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("mode", ["static", "dynamic", "nodims"])
def test_matmul(dtype, mnk, mode):
    M, N, K = mnk
    dims = {"static": [M, N, K], "dynamic": ["M", "N", "K"], "nodims": None}[mode]

    @tile_op(dtype=dtype, dims=dims)
    def mm(A, B):
        return tile_contract(A, B, axes=[(-1, 0)])

    A, B = rand((M, K), dtype), rand((K, N), dtype)
    C = tilec.interpret(mm, A, B)
    check(C, f64(A) @ f64(B), dtype, scale=3 * np.sqrt(K))


def test_matmul_dynamic_one_trace_many_sizes():
    @tile_op(dtype=float32, dims=["M", "N", "K"])
    def mm(A, B):
        return tile_contract(A, B, axes=[(1, 0)])

    for M, N, K in [(3, 5, 7), (1, 1, 1), (31, 2, 17)]:
        A, B = rand((M, K)), rand((K, N))
        check(tilec.interpret(mm, A, B), f64(A) @ f64(B), float32, scale=10)
    assert mm.trace_count == 2  # one symbolic trace + one build, for all sizes


def test_matmul_mixed_static_dynamic():
    @tile_op(dtype=float32, dims=["M", 11, 7])
    def mm(A, B):
        return tile_contract(A, B, axes=[(1, 0)])

    assert "!tile.array<?x7xf32>" in mm.ir("tile")
    for M in (1, 5, 23):
        A, B = rand((M, 7)), rand((7, 11))
        check(tilec.interpret(mm, A, B), f64(A) @ f64(B), float32, scale=10)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_batched_contraction(dtype):
    @tile_op(dtype=dtype, dims=["B", "M", "N", "K"])
    def bmm(x, y):
        return tile_contract(x, y, axes=[(2, 1)], batch=[(0, 0)])

    x, y = rand((3, 5, 7), dtype), rand((3, 7, 2), dtype)
    check(tilec.interpret(bmm, x, y), np.einsum("bmk,bkn->bmn", f64(x), f64(y)), dtype, scale=5)


def test_contraction_batch_axes_lead_then_lhs_free_then_rhs_free():
    @tile_op(dtype=float32)
    def f(x, y):
        # x: (K, B, M), y: (N, K, B) -> (B, M, N)
        return tile_contract(x, y, axes=[(0, 1)], batch=[(1, 2)])

    x, y = rand((5, 3, 4)), rand((2, 5, 3))
    check(tilec.interpret(f, x, y), np.einsum("kbm,nkb->bmn", f64(x), f64(y)), float32, scale=10)


def test_contraction_several_axes_and_int_axes():
    @tile_op(dtype=float32)
    def two_pairs(x, y):
        return tile_contract(x, y, axes=[(1, 0), (2, 1)])

    @tile_op(dtype=float32)
    def tensordot2(x, y):
        return tile_contract(x, y, axes=2)

    x, y = rand((3, 4, 5)), rand((4, 5, 6))
    want = np.tensordot(f64(x), f64(y), axes=2)
    check(tilec.interpret(two_pairs, x, y), want, float32, scale=10)
    check(tilec.interpret(tensordot2, x, y), want, float32, scale=10)


def test_contraction_transposed_operands_and_single_pair():
    @tile_op(dtype=float32, dims=["M", "N", "K"])
    def at_b(A, B):  # A is (K, M): contract the leading axes
        return tile_contract(A, B, axes=(0, 0))

    A, B = rand((9, 4)), rand((9, 6))
    check(tilec.interpret(at_b, A, B), f64(A).T @ f64(B), float32, scale=10)


def test_contraction_vector_dot_and_outer():
    @tile_op(dtype=float32)
    def dot(x, y):
        return tile_contract(x, y, axes=[(0, 0)])

    @tile_op(dtype=float32)
    def outer(x, y):
        return tile_contract(x, y, axes=[])

    x, y = rand((13,)), rand((13,))
    got = tilec.interpret(dot, x, y)
    assert got.shape == ()
    check(got, np.dot(f64(x), f64(y)), float32, scale=10)
    check(tilec.interpret(outer, x, y[:5].copy()), np.outer(f64(x), f64(y[:5])), float32)


def test_matmul_operator():
    @tile_op(dtype=float32)
    def f(A, B, v):
        return A @ B, A @ v

    A, B, v = rand((4, 6)), rand((6, 3)), rand((6,))
    got_ab, got_av = tilec.interpret(f, A, B, v)
    check(got_ab, f64(A) @ f64(B), float32, scale=5)
    check(got_av, f64(A) @ f64(v), float32, scale=5)


def test_contraction_f16_accumulates_in_f32_and_result_in_dtype():
    @tile_op(dtype=float16, dims=["M", "N", "K"])
    def mm(A, B):
        return tile_contract(A, B, axes=[(1, 0)])

    text = mm.ir("tile")
    assert "acc f32" in text and "-> !tile.tile<?x?xf16>" in text
    # 4096 ones: an f16 accumulator would stop at 2048.
    A = np.ones((2, 4096), np.float16)
    B = np.ones((4096, 3), np.float16)
    np.testing.assert_array_equal(tilec.interpret(mm, A, B), np.full((2, 3), 4096, np.float16))


def test_contraction_acc_option():
    @tile_op(dtype=float32, acc=tilec.float64)
    def mm(A, B):
        return tile_contract(A, B, axes=[(1, 0)])

    assert "acc f64" in mm.ir("tile", shapes=[(2, 3), (3, 4)])
    A, B = rand((2, 3)), rand((3, 4))
    check(tilec.interpret(mm, A, B), f64(A) @ f64(B), float32, scale=5)


def test_contraction_int8_accumulates_in_int32():
    @tile_op(dtype=int8)
    def mm(A, B):
        return tile_contract(A, B, axes=[(1, 0)])

    assert "acc i32" in mm.ir("tile", shapes=[(3, 5), (5, 2)])
    A, B = rand((3, 5), int8, -3, 3), rand((5, 2), int8, -3, 3)
    check(tilec.interpret(mm, A, B), (A.astype(np.int32) @ B.astype(np.int32)).astype(np.int8), int8)


# --- elementwise --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_arithmetic_operators(dtype):
    @tile_op(dtype=dtype, dims=["M", "N"])
    def f(x, y):
        return x + y, x - y, x * y, x / y, -x, abs(x), x**y

    x = rand((7, 13), dtype, 0.5, 2.0)
    y = rand((7, 13), dtype, 0.5, 2.0)
    X, Y = f64(x), f64(y)
    wants = [X + Y, X - Y, X * Y, X / Y, -X, np.abs(X), X**Y]
    for got, want in zip(tilec.interpret(f, x, y), wants):
        check(got, want, dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_scalars_on_either_side(dtype):
    @tile_op(dtype=dtype)
    def f(x):
        return 2 * x + 1.5, 3.0 - x, 1 / x, x / 4, x**2, 2.0**x, x - True

    x = rand((5, 3), dtype, 0.5, 2.0)
    X = f64(x)
    wants = [2 * X + 1.5, 3.0 - X, 1 / X, X / 4, X**2, 2.0**X, X - 1]
    for got, want in zip(tilec.interpret(f, x), wants):
        check(got, want, dtype, scale=2)


def test_scalar_constants_round_to_the_dtype_like_numpy():
    @tile_op(dtype=float16)
    def f(x):
        return x * 1e10, x + 0.1, x - 10**400

    x = rand((4,), float16, 0.5, 2.0)
    big, tenth, minus_inf = tilec.interpret(f, x)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(big, x * np.float16(1e10))  # inf, as in numpy
    np.testing.assert_array_equal(tenth, x + np.float16(0.1))
    assert np.all(minus_inf == -np.inf)


def test_numpy_scalars_work_as_python_scalars():
    @tile_op(dtype=float32)
    def f(x):
        return np.float32(2) * x, x + np.float64(0.5), np.float32(1) - x

    x = rand((4,))
    a, b, c = tilec.interpret(f, x)
    check(a, 2 * f64(x))
    check(b, f64(x) + 0.5)
    check(c, 1 - f64(x))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_math_functions(dtype):
    @tile_op(dtype=dtype, dims=["N"])
    def f(x):
        return tilec.exp(x), tilec.log(x), tilec.sqrt(x), tilec.rsqrt(x), tilec.tanh(x), tilec.erf(x), tilec.abs(-x)

    x = rand((31,), dtype, 0.1, 3.0)
    X = f64(x)
    wants = [np.exp(X), np.log(X), np.sqrt(X), 1 / np.sqrt(X), np.tanh(X), erf(X), X]
    for got, want in zip(tilec.interpret(f, x), wants):
        check(got, want, dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_maximum_minimum_where(dtype):
    @tile_op(dtype=dtype)
    def f(x, y):
        return (
            tilec.maximum(x, y),
            tilec.minimum(x, 0.0),
            tilec.maximum(0, x),
            tilec.where(x > y, x, y * 2),
            tilec.where(x < 0, 0.0, x),
            tilec.where(x < 0, -1, 1),
        )

    x, y = rand((6, 5), dtype), rand((6, 5), dtype)
    X, Y = f64(x), f64(y)
    wants = [
        np.maximum(X, Y),
        np.minimum(X, 0),
        np.maximum(0, X),
        np.where(X > Y, X, Y * 2),
        np.where(X < 0, 0, X),
        np.where(X < 0, -1.0, 1.0),
    ]
    for got, want in zip(tilec.interpret(f, x, y), wants):
        check(got, want, dtype)


def test_comparisons_give_masks():
    @tile_op(dtype=float32)
    def f(x, y):
        return x < y, x <= y, x > y, x >= y, x == y, x != y, x > 0.5, 0.5 < x

    x = rand((4, 7), lo=0, hi=4).round().astype(np.float32)
    y = rand((4, 7), lo=0, hi=4).round().astype(np.float32)
    wants = [x < y, x <= y, x > y, x >= y, x == y, x != y, x > 0.5, 0.5 < x]
    for got, want in zip(tilec.interpret(f, x, y), wants):
        assert got.dtype == np.bool_
        np.testing.assert_array_equal(got, want)


def test_mask_logic():
    @tile_op(dtype=float32)
    def f(x, y):
        a, b = x > 0, y > 0
        return a & b, a | b, a ^ b, ~a, (x > 0) & True

    x, y = rand((5, 6)), rand((5, 6))
    a, b = x > 0, y > 0
    for got, want in zip(tilec.interpret(f, x, y), [a & b, a | b, a ^ b, ~a, a]):
        np.testing.assert_array_equal(got, want)


def test_int_tiles():
    @tile_op(dtype=int32, dims=["N"])
    def f(x, y):
        return x + y, x * y - 3, -x, abs(x), tilec.maximum(x, y), tilec.minimum(x, 0), x > y

    x, y = rand((17,), int32, -50, 50), rand((17,), int32, -50, 50)
    wants = [x + y, x * y - 3, -x, np.abs(x), np.maximum(x, y), np.minimum(x, 0)]
    outs = tilec.interpret(f, x, y)
    for got, want in zip(outs, wants):
        check(got, want, int32)
    np.testing.assert_array_equal(outs[-1], x > y)


def test_bool_op():
    @tile_op(dtype=tilec.bool_)
    def f(a, b):
        return (a & ~b) | (b & ~a), a == b

    a, b = rand((9,), tilec.bool_), rand((9,), tilec.bool_)
    x, e = tilec.interpret(f, a, b)
    np.testing.assert_array_equal(x, a ^ b)
    np.testing.assert_array_equal(e, a == b)


# --- broadcasting -------------------------------------------------------------------------------

BROADCAST_CASES = [
    ((4, 5), (5,)),
    ((4, 5), (4, 1)),
    ((1, 5), (4, 1)),
    ((3, 1, 5), (4, 1)),
    ((2, 3, 4), ()),
    ((1,), (7,)),
    ((1, 1), (1, 1)),
]


@pytest.mark.parametrize("sx,sy", BROADCAST_CASES, ids=str)
def test_broadcasting_static(sx, sy):
    @tile_op(dtype=float32)
    def f(x, y):
        return x + y, x * y, tilec.maximum(x, y), tilec.where(x > y, x, y)

    x, y = rand(sx), rand(sy)
    X, Y = f64(x), f64(y)
    for got, want in zip(tilec.interpret(f, x, y), [X + Y, X * Y, np.maximum(X, Y), np.where(X > Y, X, Y)]):
        check(got, want)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_broadcasting_dynamic_bias_and_keepdims(dtype):
    @tile_op(dtype=dtype, dims=["M", "N"])
    def f(x, b):
        centered = x - tilec.max(x, axis=1, keepdims=True)  # (M, 1) against (M, N)
        return centered + b  # b: (N,) against (M, N)

    text = f.ir("tile", shapes=[("M", "N"), ("N",)])
    assert "tile.broadcast" in text and "sizes(" in text and "tile.dim" in text
    for m, n in [(1, 1), (3, 7), (8, 1), (1, 9)]:
        x, b = rand((m, n), dtype), rand((n,), dtype)
        X = f64(x)
        check(tilec.interpret(f, x, b), (X - X.max(axis=1, keepdims=True)) + f64(b), dtype, scale=2)
    assert f.trace_count == 2  # ir(): symbolic + build for ranks (2, 1); the calls reuse it


def test_broadcast_to_and_scalar_splat_dynamic():
    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x, row):
        return tilec.broadcast_to(row, x.shape) * 2.0 + x

    x, row = rand((5, 3)), rand((3,))
    check(tilec.interpret(f, x, row), np.broadcast_to(f64(row), (5, 3)) * 2 + f64(x))


def test_broadcast_to_static_with_new_axes():
    @tile_op(dtype=float32)
    def f(x):
        return tilec.broadcast_to(x.reshape(3, 1), (2, 3, 4))

    x = rand((3,))
    check(tilec.interpret(f, x), np.broadcast_to(f64(x).reshape(3, 1), (2, 3, 4)))


# --- reductions ---------------------------------------------------------------------------------

REDUCE_AXES = [None, 0, 1, -1, (0, 2), (2, 0), (0, 1, 2), ()]


@pytest.mark.parametrize("axis", REDUCE_AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dims", [None, ["A", "B", "C"]], ids=["nodims", "dynamic"])
def test_reductions(axis, keepdims, dims):
    @tile_op(dtype=float32, dims=dims)
    def f(x):
        return (
            tilec.sum(x, axis=axis, keepdims=keepdims),
            tilec.max(x, axis=axis, keepdims=keepdims),
            tilec.min(x, axis=axis, keepdims=keepdims),
            tilec.mean(x, axis=axis, keepdims=keepdims),
        )

    x = rand((3, 1, 7))
    X = f64(x)
    wants = [
        X.sum(axis=axis, keepdims=keepdims),
        X.max(axis=axis, keepdims=keepdims),
        X.min(axis=axis, keepdims=keepdims),
        X.mean(axis=axis, keepdims=keepdims) if axis != () else X,
    ]
    for got, want in zip(tilec.interpret(f, x), wants):
        check(got, want, float32, scale=5)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_reductions_low_precision(dtype):
    @tile_op(dtype=dtype, dims=["M", "N"])
    def f(x):
        return tilec.sum(x, axis=1), tilec.mean(x, axis=0), x.max(axis=1), x.min()

    x = rand((37, 53), dtype, 0.0, 1.0)
    X = f64(x)
    wants = [X.sum(axis=1), X.mean(axis=0), X.max(axis=1), X.min()]
    for got, want in zip(tilec.interpret(f, x), wants):
        check(got, want, dtype, scale=2)


def test_sum_f16_accumulates_in_f32():
    @tile_op(dtype=float16, dims=["N"])
    def f(x):
        return tilec.sum(x)

    x = np.ones(5000, np.float16)  # an f16 running sum would stop at 2048
    assert tilec.interpret(f, x) == np.float16(5000)
    assert "tile.cast" in f.ir("tile")


def test_mean_dynamic_counts_on_device():
    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x):
        return tilec.mean(x, axis=1), tilec.mean(x)

    text = f.ir("tile")
    assert "tile.dim" in text and "tile.reduce sum" in text
    for shape in [(1, 1), (3, 17), (5, 2)]:
        x = rand(shape)
        a, b = tilec.interpret(f, x)
        check(a, f64(x).mean(axis=1), scale=2)
        check(b, f64(x).mean(), scale=2)


def test_method_reductions_and_int_sum():
    @tile_op(dtype=int32)
    def f(x):
        return x.sum(axis=0), x.max(), x.min(axis=1, keepdims=True)

    x = rand((4, 6), int32, -9, 9)
    a, b, c = tilec.interpret(f, x)
    check(a, x.sum(axis=0).astype(np.int32), int32)
    check(b, x.max(), int32)
    check(c, x.min(axis=1, keepdims=True), int32)


# --- shape and type -----------------------------------------------------------------------------


def test_transpose_forms():
    @tile_op(dtype=float32, dims=["A", "B", "C"])
    def f(x):
        return x.T, tilec.transpose(x, (1, 0, 2)), x.transpose(2, 0, 1), tilec.transpose(x, [-1, -2, -3])

    x = rand((2, 3, 5))
    X = f64(x)
    wants = [X.T, X.transpose(1, 0, 2), X.transpose(2, 0, 1), X.transpose(2, 1, 0)]
    for got, want in zip(tilec.interpret(f, x), wants):
        check(got, want)


def test_reshape_static():
    @tile_op(dtype=float32)
    def f(x):
        return tilec.reshape(x, (6, 5)), x.reshape(-1), x.reshape(3, -1, 1), tilec.reshape(x, 30)

    x = rand((2, 3, 5))
    X = f64(x)
    for got, want in zip(tilec.interpret(f, x), [X.reshape(6, 5), X.reshape(-1), X.reshape(3, -1, 1), X.reshape(30)]):
        check(got, want)


def test_reshape_dynamic_with_shape_entries():
    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x):
        m, n = x.shape
        return tilec.reshape(x, (m, 1, n)), x.reshape(1, -1, n), x.reshape(m, n, 1)

    text = f.ir("tile")
    assert "tile.reshape" in text
    x = rand((4, 3))
    X = f64(x)
    for got, want in zip(tilec.interpret(f, x), [X.reshape(4, 1, 3), X.reshape(1, 4, 3), X.reshape(4, 3, 1)]):
        check(got, want)


def test_astype():
    @tile_op(dtype=float32)
    def f(x):
        return (
            x.astype(float16),
            x.astype(bfloat16),
            x.astype(tilec.int32),
            (x > 0).astype(float32),
            x.astype("float64"),
        )

    x = rand((3, 4), lo=-5, hi=5)
    h, b, i, m, d = tilec.interpret(f, x)
    np.testing.assert_array_equal(h, x.astype(np.float16))
    np.testing.assert_array_equal(b, x.astype(bfloat16.np))
    np.testing.assert_array_equal(i, np.trunc(x).astype(np.int32))
    np.testing.assert_array_equal(m, (x > 0).astype(np.float32))
    np.testing.assert_array_equal(d, x.astype(np.float64))


def test_shape_dtype_ndim_properties():
    seen = {}

    @tile_op(dtype=bfloat16)
    def f(x):
        seen["shape"], seen["dtype"], seen["ndim"] = x.shape, x.dtype, x.ndim
        seen["sum_dtype"] = tilec.sum(x).dtype
        return x

    x = rand((3, 4), bfloat16)
    np.testing.assert_array_equal(tilec.interpret(f, x), x)
    assert seen["shape"] == (3, 4) and seen["ndim"] == 2
    assert seen["dtype"] is bfloat16 and seen["dtype"] == bfloat16.np and seen["sum_dtype"] is bfloat16


def test_dynamic_shape_entries_are_dims():
    seen = {}

    @tile_op(dtype=float32, dims=["M", 4])
    def f(x):
        seen["shape"] = x.shape
        return x

    f.ir("tile")
    m, n = seen["shape"]
    assert isinstance(m, tilec.Dim) and m.name == "M" and repr(m) == "M"
    assert n == 4 and isinstance(n, int)


# --- results ------------------------------------------------------------------------------------


def test_several_results_and_returning_inputs():
    @tile_op(dtype=float32, dims=["N"])
    def f(x, y):
        return y, x + y, x

    x, y = rand((5,)), rand((5,))
    a, b, c = tilec.interpret(f, x, y)
    np.testing.assert_array_equal(a, y)
    check(b, f64(x) + f64(y))
    np.testing.assert_array_equal(c, x)
    assert c is not x  # a copy


def test_single_result_tuple_stays_a_tuple():
    @tile_op(dtype=float32)
    def f(x):
        return (x * 2,)

    got = tilec.interpret(f, rand((3,)))
    assert isinstance(got, tuple) and len(got) == 1


def test_keyword_arguments():
    @tile_op(dtype=float32)
    def f(x, y):
        return x - y

    x, y = rand((3,)), rand((3,))
    check(tilec.interpret(f, y=y, x=x), f64(x) - f64(y))


def test_rank0_arguments():
    @tile_op(dtype=float32)
    def f(x, s):
        return x * s

    x = rand((4,))
    s = np.array(3.0, np.float32)
    check(tilec.interpret(f, x, s), f64(x) * 3)


# --- composite programs -------------------------------------------------------------------------


def _softmax(x, axis=-1):
    e = tilec.exp(x - tilec.max(x, axis=axis, keepdims=True))
    return e / tilec.sum(e, axis=axis, keepdims=True)


def _np_softmax(X, axis=-1):
    e = np.exp(X - X.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_softmax_plain_python_helper(dtype):
    @tile_op(dtype=dtype, dims=["M", "N"])
    def softmax(x):
        return _softmax(x)

    for shape in [(1, 1), (3, 17), (13, 1)]:
        x = rand(shape, dtype, -4, 4)
        check(tilec.interpret(softmax, x), _np_softmax(f64(x)), dtype, scale=2)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_layernorm(dtype):
    @tile_op(dtype=dtype, dims=["M", "N"])
    def layernorm(x, gamma, beta):
        mu = tilec.mean(x, axis=-1, keepdims=True)
        d = x - mu
        var = tilec.mean(d * d, axis=-1, keepdims=True)
        return d * tilec.rsqrt(var + 1e-5) * gamma + beta

    for m, n in [(1, 7), (5, 33)]:
        x, g, b = rand((m, n), dtype), rand((n,), dtype), rand((n,), dtype)
        X = f64(x)
        mu = X.mean(-1, keepdims=True)
        var = ((X - mu) ** 2).mean(-1, keepdims=True)
        want = (X - mu) / np.sqrt(var + 1e-5) * f64(g) + f64(b)
        check(tilec.interpret(layernorm, x, g, b), want, dtype, scale=4)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_attention(dtype):
    @tile_op(dtype=dtype, dims=["S", "E", "D", "T"])
    def attention(q, k, v):
        s = tile_contract(q, k, axes=[(1, 1)]) * (1.0 / 8)
        return tile_contract(_softmax(s), v, axes=[(1, 0)])

    q, k, v = rand((5, 8), dtype), rand((11, 8), dtype), rand((11, 3), dtype)
    S = f64(q) @ f64(k).T / 8
    check(tilec.interpret(attention, q, k, v), _np_softmax(S) @ f64(v), dtype, scale=4)


def test_gelu_erf_and_tanh_forms():
    @tile_op(dtype=float32, dims=["N"])
    def gelu(x):
        exact = 0.5 * x * (1 + tilec.erf(x * (1 / np.sqrt(2))))
        approx = 0.5 * x * (1 + tilec.tanh(0.7978845608 * (x + 0.044715 * x**3)))
        return exact, approx

    x = rand((41,), lo=-4, hi=4)
    X = f64(x)
    exact, approx = tilec.interpret(gelu, x)
    check(exact, 0.5 * X * (1 + erf(X / np.sqrt(2))), scale=5)
    check(approx, 0.5 * X * (1 + np.tanh(0.7978845608 * (X + 0.044715 * X**3))), scale=5)
