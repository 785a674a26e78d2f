"""Calling compiled CPU kernels wrongly: wrong dtype, shape, rank, argument count or kind give a
TileError (through the op) or TilecError (calling the runtime Kernel directly) with a message
that names the argument and what was expected; nothing runs out of bounds. Also: layouts that
are not C-contiguous are accepted (copied)."""

from __future__ import annotations

import numpy as np
import pytest
from cpu_util import f64, rand, rng  # noqa: F401

import tilec
from tilec import float32, tile_contract, tile_op


@tile_op(dtype=float32, dims=["M", "N", "K"])
def mm(A, B):
    return tile_contract(A, B, axes=[(1, 0)])


@tile_op(dtype=float32, dims=[3, 5])
def static_add(x, b):
    return x + b


A = np.ones((3, 4), np.float32)
B = np.ones((4, 5), np.float32)


@pytest.mark.parametrize(
    "args,phrases",
    [
        ((A.astype(np.float64), B), ["argument 'A' has dtype float64", "op's dtype is float32"]),
        ((A, B.astype(np.float16)), ["argument 'B' has dtype float16"]),
        ((A,), ["takes 2 array argument(s) (A, B)", "missing"]),
        ((A, B, B), ["takes 2 array argument(s)", "too many"]),
        (
            (A, np.ones((5, 5), np.float32)),
            ["argument 'B' axis 0 has size 5, expected 4", "'K' is 4 from argument 'A' axis 1"],
        ),
        (([[1.0]], B), ["argument 'A' must be an array (numpy, torch, or a CUDA array", "got list"]),
        ((A, 2.0), ["argument 'B' must be an array (numpy, torch, or a CUDA array", "got float"]),
        ((A[None], B), ["dims has 3 entries", "rank 3, 2"]),
    ],
    ids=["dtype-A", "dtype-B", "too-few", "too-many", "shape", "list", "scalar", "rank"],
)
def test_op_call_errors(args, phrases):
    with pytest.raises(tilec.TileError) as info:
        mm(*args)
    for p in phrases:
        assert p in str(info.value), f"{p!r} not in {info.value}"
    assert info.value.location is not None and info.value.location.file == __file__


def test_static_dims_mismatch():
    with pytest.raises(tilec.TileError, match=r"argument 'x' axis 1 has size 6, expected 5"):
        static_add(np.ones((3, 6), np.float32), np.ones((6,), np.float32))
    got = static_add(np.ones((3, 5), np.float32), np.arange(5, dtype=np.float32))
    np.testing.assert_array_equal(got, 1 + np.arange(5, dtype=np.float32)[None].repeat(3, 0))


@pytest.mark.parametrize(
    "args,phrases",
    [
        ((A.astype(np.float64), B), ["input %A (argument 0) must have dtype float32, got float64"]),
        ((A,), ["@mm takes 2 input(s), got 1"]),
        ((A, B, B), ["@mm takes 2 input(s), got 3"]),
        ((A, np.ones((5, 5), np.float32)), ["contract: lhs axis 1 has size 4 but rhs axis 0 has size 5"]),
        ((A[None], B), ["input %A (argument 0) must have rank 2, got shape (1, 3, 4)"]),
        (([[1.0]], B), ["input %A (argument 0) must be a numpy array, got list"]),
    ],
    ids=["dtype", "too-few", "too-many", "inconsistent-sizes", "rank", "list"],
)
def test_kernel_call_errors(args, phrases):
    """The runtime Kernel checks its inputs itself (it is reachable without the frontend)."""
    kernel = mm.compile()
    with pytest.raises(tilec.TilecError) as info:
        kernel(*args)
    for p in phrases:
        assert p in str(info.value), f"{p!r} not in {info.value}"


def test_kernel_rejects_inconsistent_broadcast(rng):
    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x, b):
        return x + b

    kernel = f.compile(shapes=[("M", "N"), ("N",)])
    for _ in range(2):  # checked results are cached per input shapes: errors are not
        with pytest.raises(
            tilec.TilecError, match=r"operand shapes differ at run time: \(3, 4\) vs \(3, 5\)|broadcast"
        ):
            kernel(rand(rng, (3, 4)), rand(rng, (5,)))
        assert kernel(rand(rng, (3, 5)), rand(rng, (5,)))[0].shape == (3, 5)


def test_non_contiguous_inputs_are_copied(rng):
    a = np.asfortranarray(rand(rng, (7, 9)))
    b = rand(rng, (9, 22))[:, ::2]
    np.testing.assert_allclose(f64(mm(a, b)), f64(a) @ f64(b), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(f64(mm.compile()(a, b)[0]), f64(a) @ f64(b), rtol=1e-5, atol=1e-5)


def test_unknown_options_and_targets():
    with pytest.raises(
        tilec.TilecError, match=r"target cpu has no option 'bogus' \(options: mr, nr, kc, mc, parallel-work, vector\)"
    ):
        mm.compile("cpu", bogus=3)
    with pytest.raises(
        tilec.TilecError, match=r"option 'block-m' of target cuda must be one of 16, 32, 64, 128, 256, got 100"
    ):
        mm.source("cuda", block_m=100)
    with pytest.raises(tilec.TileError, match="unknown target"):
        mm.compile("fortran")
