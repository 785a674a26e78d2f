"""Every mistake in user code is a tilec.TileError located at the user's file and offending line.

Each offending line ends with a `# E:<name>` marker; the tests look the line up by its marker.
"""

from __future__ import annotations

import numpy as np
from test_frontend_util import expect_error, rand

import tilec
from tilec import float16, float32, int32, tile_contract, tile_op


def expect(marker: str, *phrases: str):
    return expect_error(__file__, marker, *phrases)


# --- shapes and types inside the program --------------------------------------------------------


def test_contraction_size_mismatch():
    @tile_op(dtype=float32)
    def mm(A, B):
        return tile_contract(A, B, axes=[(1, 0)])  # E:contract-size

    with expect("contract-size", "tile_contract", "lhs axis 1 has size 5", "rhs axis 0 has size 4"):
        tilec.interpret(mm, rand((3, 5)), rand((4, 2)))


def test_contraction_axis_out_of_range():
    @tile_op(dtype=float32)
    def mm(A, B):
        return tile_contract(A, B, axes=[(2, 0)])  # E:contract-range

    with expect("contract-range", "axis 2 is out of range", "rank 2"):
        tilec.interpret(mm, rand((3, 5)), rand((5, 2)))


def test_contraction_axis_used_twice():
    @tile_op(dtype=float32)
    def mm(A, B):
        return tile_contract(A, B, axes=[(1, 0)], batch=[(1, 1)])  # E:contract-twice

    with expect("contract-twice", "lhs axis 1 is used twice"):
        tilec.interpret(mm, rand((3, 5)), rand((5, 5)))


def test_contraction_bad_axes_spec():
    @tile_op(dtype=float32)
    def mm(A, B):
        return tile_contract(A, B, axes=[(1, 0, 2)])  # E:contract-spec

    with expect("contract-spec", "list of (lhs_axis, rhs_axis) pairs"):
        tilec.interpret(mm, rand((3, 5)), rand((5, 2)))


def test_contraction_operand_dtypes_differ():
    @tile_op(dtype=float32)
    def mm(A, B):
        return tile_contract(A, B.astype(float16), axes=[(1, 0)])  # E:contract-dtype

    with expect("contract-dtype", "lhs holds float32 but rhs holds float16"):
        tilec.interpret(mm, rand((3, 5)), rand((5, 2)))


def test_broadcast_mismatch():
    @tile_op(dtype=float32)
    def f(x, y):
        return x + y  # E:bcast

    with expect("bcast", "cannot broadcast shapes (3, 4) and (5,)"):
        tilec.interpret(f, rand((3, 4)), rand((5,)))


def test_broadcast_to_mismatch():
    @tile_op(dtype=float32)
    def f(x):
        return tilec.broadcast_to(x, (2, 5))  # E:bcast-to

    with expect("bcast-to", "neither 1 nor the target's 5"):
        tilec.interpret(f, rand((3,)))


def test_dtype_mismatch_between_operands():
    @tile_op(dtype=float32)
    def f(x):
        return x + x.astype(float16)  # E:mixed-dtypes

    with expect("mixed-dtypes", "different dtypes float32 and float16", ".astype"):
        tilec.interpret(f, rand((3,)))


def test_int_true_division():
    @tile_op(dtype=int32)
    def f(x):
        return x / 2  # E:int-div

    with expect("int-div", "true division of int32 tiles"):
        tilec.interpret(f, rand((3,), int32))


def test_float_function_on_int_tile():
    @tile_op(dtype=int32)
    def f(x):
        return tilec.exp(x)  # E:int-exp

    with expect("int-exp", "tilec.exp needs a float tile, got int32"):
        tilec.interpret(f, rand((3,), int32))


def test_float_scalar_with_int_tile():
    @tile_op(dtype=int32)
    def f(x):
        return x * 0.5  # E:int-float

    with expect("int-float", "the float 0.5 cannot be combined with a int32 tile"):
        tilec.interpret(f, rand((3,), int32))


def test_int_constant_out_of_range():
    @tile_op(dtype=tilec.int8)
    def f(x):
        return x + 300  # E:int-range

    with expect("int-range", "the constant 300 does not fit in int8"):
        tilec.interpret(f, rand((3,), tilec.int8))


def test_arithmetic_on_masks():
    @tile_op(dtype=float32)
    def f(x):
        m = x > 0
        return m + m  # E:mask-add

    with expect("mask-add", "bool (mask) tiles"):
        tilec.interpret(f, rand((3,)))


def test_where_mask_must_be_bool():
    @tile_op(dtype=float32)
    def f(x):
        return tilec.where(x, x, 0.0)  # E:where-mask

    with expect("where-mask", "the mask must be a bool tile"):
        tilec.interpret(f, rand((3,)))


def test_reduce_axis_errors():
    @tile_op(dtype=float32)
    def out_of_range(x):
        return tilec.sum(x, axis=2)  # E:reduce-range

    @tile_op(dtype=float32)
    def twice(x):
        return tilec.max(x, axis=(0, -2))  # E:reduce-twice

    @tile_op(dtype=int32)
    def int_mean(x):
        return tilec.mean(x)  # E:int-mean

    with expect("reduce-range", "axis 2 is out of range"):
        tilec.interpret(out_of_range, rand((3, 4)))
    with expect("reduce-twice", "listed twice"):
        tilec.interpret(twice, rand((3, 4)))
    with expect("int-mean", "tilec.mean needs a float tile"):
        tilec.interpret(int_mean, rand((3, 4), int32))


def test_transpose_bad_permutation():
    @tile_op(dtype=float32)
    def f(x):
        return tilec.transpose(x, (0, 0))  # E:perm

    with expect("perm", "is not a permutation"):
        tilec.interpret(f, rand((3, 4)))


def test_reshape_count_mismatch():
    @tile_op(dtype=float32)
    def f(x):
        return x.reshape(5, 3)  # E:reshape

    with expect("reshape", "cannot reshape (3, 4) into (5, 3)"):
        tilec.interpret(f, rand((3, 4)))


def test_reshape_dynamic_product_is_not_expressible():
    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x):
        return x.reshape(-1)  # E:reshape-dyn

    with expect("reshape-dyn", "product of dynamic sizes"):
        f.ir("tile")


def test_dynamic_size_as_python_int():
    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x):
        return x * int(x.shape[1])  # E:dyn-int

    with expect("dyn-int", "the size 'N' is dynamic"):
        tilec.interpret(f, rand((3, 4)))


# --- Python constructs the tracer cannot follow -------------------------------------------------


def test_if_on_a_tile():
    @tile_op(dtype=float32)
    def f(x):
        if x > 0:  # E:if
            return x
        return -x

    with expect("if", "no truth value", "tilec.where"):
        tilec.interpret(f, rand((3,)))


def test_and_or_on_tiles():
    @tile_op(dtype=float32)
    def f(x):
        return (x > 0) and (x < 1)  # E:and

    with expect("and", "no truth value"):
        tilec.interpret(f, rand((3,)))


def test_iterating_a_tile():
    @tile_op(dtype=float32)
    def f(x):
        total = 0
        for v in x:  # E:iter
            total = total + v
        return total

    with expect("iter", "cannot be iterated"):
        tilec.interpret(f, rand((3,)))


def test_indexing_a_tile_out_of_range_or_with_a_tile():
    @tile_op(dtype=float32)
    def f(x):
        return x[3]  # E:index

    @tile_op(dtype=float32)
    def g(x):
        return x[x]  # E:gather

    with expect("index", "index 3 is out of range for axis 0 of size 3"):
        tilec.interpret(f, rand((3,)))
    with expect("gather", "not supported yet: indexing a tile with a tile"):
        tilec.interpret(g, rand((3,)))


def test_len_and_float_of_a_tile():
    @tile_op(dtype=float32)
    def f(x):
        return x * len(x)  # E:len

    @tile_op(dtype=float32)
    def g(x):
        return x * float(tilec.sum(x))  # E:float

    with expect("len", "len() of a tile"):
        tilec.interpret(f, rand((3,)))
    with expect("float", "no Python value"):
        tilec.interpret(g, rand((3,)))


def test_numpy_ufunc_on_a_tile():
    @tile_op(dtype=float32)
    def f(x):
        return np.exp(x)  # E:np-exp

    with expect("np-exp", "numpy.exp cannot be applied to a tile", "use tilec.exp"):
        tilec.interpret(f, rand((3,)))


def test_numpy_function_on_a_tile():
    @tile_op(dtype=float32)
    def f(x):
        return np.sum(x, axis=0)  # E:np-sum

    with expect("np-sum", "numpy.sum cannot be applied", "use tilec.sum"):
        tilec.interpret(f, rand((3,)))


def test_numpy_array_of_a_tile():
    @tile_op(dtype=float32)
    def f(x):
        return np.asarray(x)  # E:np-asarray

    with expect("np-asarray", "no numpy value"):
        tilec.interpret(f, rand((3,)))


def test_captured_numpy_array():
    w = np.ones(3, np.float32)

    @tile_op(dtype=float32)
    def f(x):
        return x + w  # E:captured

    @tile_op(dtype=float32)
    def g(x):
        return w * x  # E:captured-left

    with expect("captured", "numpy arrays cannot be mixed with tiles"):
        tilec.interpret(f, rand((3,)))
    with expect("captured-left", "numpy arrays cannot be mixed with tiles"):
        tilec.interpret(g, rand((3,)))


def test_dsl_function_outside_a_tile_op():
    with expect("outside", "tilec.exp expects a tile, got a numpy array"):
        tilec.exp(np.ones(3))  # E:outside


def test_tile_from_another_op():
    kept = []

    @tile_op(dtype=float32)
    def first(x):
        kept.append(x)
        return x

    @tile_op(dtype=float32)
    def second(y):
        return y + kept[0]  # E:other-op

    tilec.interpret(first, rand((3,)))
    with expect("other-op", "has finished"):
        tilec.interpret(second, rand((3,)))


def test_tile_kept_from_an_earlier_trace_of_the_same_op():
    kept = []

    @tile_op(dtype=float32)
    def f(x):
        if kept:
            return x + kept[0]  # E:stale
        kept.append(x)
        return x

    tilec.interpret(f, rand((3,)))
    with expect("stale", "has finished"):
        tilec.interpret(f, rand((4,)))


def test_calling_a_tile_op_inside_another():
    @tile_op(dtype=float32)
    def inner(x):
        return x * 2

    @tile_op(dtype=float32)
    def outer(x):
        return inner(x)  # E:nested

    with expect("nested", "while tracing another tile op"):
        tilec.interpret(outer, rand((3,)))


def test_returning_a_non_tile():
    @tile_op(dtype=float32)
    def f(x):
        return 1.0  # E:return-float

    @tile_op(dtype=float32)
    def g(x):
        x * 2
        return  # E:return-none

    with expect("return-float", "must return a tile or a tuple of tiles, got float"):
        tilec.interpret(f, rand((3,)))
    with expect("return-none", "got NoneType"):
        tilec.interpret(g, rand((3,)))


# --- the verifier's own errors come out at the user's line --------------------------------------


def test_ir_verifier_error_becomes_tile_error():
    from tilec.dialects.tile import ExpOp
    from tilec.frontend.tracer import current_tracer

    @tile_op(dtype=int32)
    def f(x):
        tr = current_tracer()
        return tr.op(x.axes, x.dtype, lambda: ExpOp(x.value))  # E:verifier

    with expect("verifier", "exp: needs a float tile, got i32"):
        tilec.interpret(f, rand((3,), int32))


# --- declaring ops ------------------------------------------------------------------------------


def test_unsupported_dtype():
    with expect("dtype", "unsupported dtype", "complex64"):

        @tile_op(dtype=np.complex64)  # E:dtype
        def f(x):
            return x


def test_missing_dtype_and_bare_decorator():
    with expect("no-dtype", "needs an element type"):

        @tile_op(dims=[3])  # E:no-dtype
        def f(x):
            return x

    with expect("bare", "needs an element type"):

        @tile_op  # E:bare
        def g(x):
            return x


def test_bad_acc():
    with expect("acc", "acc must be a float at least as wide as dtype float32"):

        @tile_op(dtype=float32, acc=float16)  # E:acc
        def f(x):
            return x


def test_bad_dims_entries():
    with expect("dims-entry", "dims entries must be ints or names"):

        @tile_op(dtype=float32, dims=[4, 2.5])  # E:dims-entry
        def f(x):
            return x

    with expect("dims-scalar", "dims must be a list"):

        @tile_op(dtype=float32, dims=4)  # E:dims-scalar
        def g(x):
            return x


def test_parameters_must_be_plain():
    with expect("params", "parameter 'scale' must be a plain parameter"):

        @tile_op(dtype=float32)  # E:params
        def f(x, scale=2.0):
            return x


# --- calling ops --------------------------------------------------------------------------------


@tile_op(dtype=float32, dims=["M", "N", "K"])
def _mm(A, B):
    return tile_contract(A, B, axes=[(1, 0)])


def test_wrong_number_of_arguments():
    A = rand((2, 3))
    with expect("nargs", "_mm() takes 2 array argument(s) (A, B)"):
        _mm(A)  # E:nargs
    with expect("nargs-interp", "takes 2 array argument(s)"):
        tilec.interpret(_mm, A, A, A)  # E:nargs-interp


def test_wrong_array_dtype():
    with expect("arr-dtype", "argument 'B' has dtype float64 but the op's dtype is float32"):
        tilec.interpret(_mm, rand((2, 3)), np.ones((3, 4)))  # E:arr-dtype


def test_argument_not_an_array():
    with expect("not-array", "argument 'A' must be an array (numpy, torch, or a CUDA array", "got list"):
        _mm([[1.0]], rand((1, 1)))  # E:not-array


def test_shape_mismatch_between_arguments_with_dynamic_dims():
    with expect("dyn-bind", "argument 'B' axis 0 has size 4, expected 3", "'K'", "argument 'A' axis 1"):
        tilec.interpret(_mm, rand((2, 3)), rand((4, 5)))  # E:dyn-bind


def test_dims_iteration_count_mismatch():
    with expect(
        "rank",
        "dims has 3 entries",
        "4 iteration axes",
        "[A.shape[0]], [A.shape[2]], [B.shape[1]], [A.shape[1] = B.shape[0]]",
    ):
        tilec.interpret(_mm, rand((2, 3, 4)), rand((4, 5)))  # E:rank


def test_unknown_level_and_target():
    with expect("level", "unknown IR level 'llvm'"):
        _mm.ir("llvm")  # E:level
    with expect("target", "unknown target 'tpu'"):
        _mm.compile("tpu")  # E:target


def test_ir_without_shapes_for_op_without_dims():
    @tile_op(dtype=float32)
    def f(x):
        return x

    with expect("no-shapes", "has no dims", "shapes="):
        f.ir("tile")  # E:no-shapes


def test_errors_are_tilec_errors_with_rendered_location():
    @tile_op(dtype=float32)
    def f(x, y):
        return x * y  # E:render

    with expect("render") as info:
        tilec.interpret(f, rand((2,)), rand((3,)))
    text = str(info.value)
    assert text.splitlines()[0].startswith(info.value.location.file)
    assert ": error: " in text and "^" in text
