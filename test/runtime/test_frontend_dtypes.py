"""Argument dtypes (annotations, dtypes=), runtime scalar arguments, results that keep their
dtype, and sizes (x.shape[i]) in arithmetic: interpreter and C against numpy, the GPU host
plan with a recording device (no GPU needed), PTX/HIP text; the CUDA runs are in test_gpu.py.

No `from __future__ import annotations` here: the annotations are real objects (the string
form is tested through a module written on the fly).
"""

import importlib.util
import shutil
import subprocess

import numpy as np
import pytest
from cpu_util import rng  # noqa: F401  (the seeded fixture)
from test_frontend_util import expect_error, rand

import tilec
from tilec import float16, float32, float64, int32, int64, tile_contract, tile_op


def expect(marker, *phrases):
    return expect_error(__file__, marker, *phrases)


# --- mixed argument dtypes and runtime scalars: a cross-entropy-shaped op -------------------------


@tile_op(dims=["N", "C"])
def cross_entropy(logits: float32, labels: int64, classes: int64, scale: float):
    """Per-row -log softmax(logits)[label] * scale; `classes` is arange(C) (no iota/gather here)."""
    m = logits.max(axis=1, keepdims=True)
    lse = tilec.log(tilec.sum(tilec.exp(logits - m), axis=1)) + m.reshape(logits.shape[0])
    hit = labels.reshape(labels.shape[0], 1) == classes
    picked = tilec.sum(tilec.where(hit, logits, 0.0), axis=1)
    return (lse - picked) * scale


def cross_entropy_ref(logits, labels, scale):
    x = logits.astype(np.float64)
    m = x.max(axis=1, keepdims=True)
    lse = np.log(np.exp(x - m).sum(axis=1)) + m[:, 0]
    return (lse - x[np.arange(len(labels)), labels]) * scale


@pytest.mark.parametrize("N,C", [(1, 1), (7, 5), (33, 130)])
def test_cross_entropy_float_logits_int_labels(rng, N, C):
    logits = rand((N, C), rng=rng) * 3
    labels = rng.integers(0, C, N).astype(np.int64)
    classes = np.arange(C, dtype=np.int64)
    for scale in (1.0, rng.uniform(0.1, 2.0)):
        want = cross_entropy_ref(logits, labels, scale)
        got = cross_entropy(logits, labels, classes, scale)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)
        ref = tilec.interpret(cross_entropy, logits, labels, classes, scale)
        np.testing.assert_allclose(ref, want, rtol=2e-5, atol=2e-5)  # lse - picked cancels: absolute


def test_argument_types_in_the_ir():
    text = cross_entropy.ir("tile", shapes=[("N", "C"), ("N",), ("C",), ()])
    assert (
        "%logits: !tile.array<?x?xf32>, %labels: !tile.array<?xi64>, %classes: !tile.array<?xi64>, %scale: f64" in text
    )
    assert "tile.splat %scale : f64 to !tile.tile<f64>" in text


def test_annotation_spellings(rng, tmp_path):
    """numpy types, names, dtypes= entries, tilec.scalar, and string annotations."""

    @tile_op(dtype=float32, dtypes={"n": "int32"})
    def f(x: np.float64, y: "float16", z, n, s: tilec.scalar(float32)):
        return x + y.astype(float64), z * s, (n * 2).astype(float32)

    x, y, z = rand((3, 4), float64, rng=rng), rand((3, 4), float16, rng=rng), rand((4,), rng=rng)
    n = rng.integers(-50, 50, (5,)).astype(np.int32)
    a, b, c = f(x, y, z, n, 0.25)
    assert (a.dtype, b.dtype, c.dtype) == (np.float64, np.float32, np.float32)
    np.testing.assert_array_equal(a, x + y.astype(np.float64))
    np.testing.assert_array_equal(b, z * np.float32(0.25))
    np.testing.assert_array_equal(c, (n * 2).astype(np.float32))

    mod = tmp_path / "future_annotations_op.py"
    mod.write_text(
        "from __future__ import annotations\n"
        "import numpy as np\n"
        "import tilec\n"
        "from tilec import float32, tile_op\n\n"
        "@tile_op\n"
        "def g(x: float32, idx: np.int64, k: int, lr: float, h: tilec.float16, w: 'bf16'):\n"
        "    return x * lr + k, idx + k, h, w\n"
    )
    spec = importlib.util.spec_from_file_location("future_annotations_op", mod)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    assert [repr(t) for t in m.g.arg_types] == [
        "tilec.float32",
        "tilec.int64",
        "int",
        "float",
        "tilec.float16",
        "tilec.bfloat16",
    ]
    xs, idx = rand((6,), rng=rng), rng.integers(-9, 9, (2, 3)).astype(np.int64)
    h, w = rand((2,), float16, rng=rng), rand((2,), tilec.bfloat16, rng=rng)
    r1, r2, r3, r4 = m.g(xs, idx, 3, 0.5, h, w)
    np.testing.assert_array_equal(r1, xs * np.float32(0.5) + np.float32(3))
    np.testing.assert_array_equal(r2, idx + 3)
    np.testing.assert_array_equal(r3, h)
    np.testing.assert_array_equal(r4, w)


# --- runtime scalars: one compile for every value --------------------------------------------------


@tile_op(dtype=float32, dims=["N"])
def scaled(x, s: float):
    return x * s


def test_scalar_value_change_does_not_recompile(rng):
    x = rand((37,), rng=rng)
    first = scaled(x, 2.0)
    traces = scaled.trace_count
    specs = list(scaled._cache.values())
    for s in (rng.uniform(-3, 3), -0.5, 7, np.float32(1.25), np.float64(1e-3)):
        np.testing.assert_array_equal(scaled(x, s), x * np.float32(s))
        np.testing.assert_array_equal(tilec.interpret(scaled, x, s), x * np.float32(s))
    np.testing.assert_array_equal(first, x * np.float32(2.0))
    assert scaled.trace_count == traces
    assert list(scaled._cache.values()) == specs
    assert all(len(spec.kernels) == 1 for spec in specs)
    kernel = next(iter(specs[0].kernels.values()))
    assert len(kernel._launches) == 1  # the value is not part of the size-check cache either


def test_weak_scalars_take_the_tiles_dtype(rng):
    @tile_op(dtype=float16)
    def adam_like(p, g, lr: float, step: int):
        return p - lr * g * step

    p, g = rand((3, 17), float16, rng=rng), rand((3, 17), float16, rng=rng)
    got = adam_like(p, g, 0.01, 3)
    assert got.dtype == np.float16
    # computed in f16 as with Python literals: lr rounded to f16, each step rounded
    want = p - np.float16(0.01) * g * np.float16(3)
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=2e-3, atol=2e-3)
    # the interpreter rounds every f16 op, compiled code keeps f32 between ops
    np.testing.assert_allclose(tilec.interpret(adam_like, p, g, 0.01, 3).astype(np.float64), got, rtol=2e-3, atol=2e-3)

    @tile_op(dtype=int32)
    def shift(x, k: int):
        return x + k

    xi = rng.integers(-100, 100, (5, 3)).astype(np.int32)
    np.testing.assert_array_equal(shift(xi, -7), xi - 7)


def test_weak_scalars_stay_weak_through_where_and_float_literals(rng):
    @tile_op(dtype=float32)
    def f(x, k: int, lr: float):
        return x * (k * 0.5), x * tilec.where(x > 0, lr, 0.0), (k * 0.5) + lr

    x = rand((11,), rng=rng)
    a, b, c = f(x, 3, 0.125)
    assert a.dtype == b.dtype == np.float32 and c.dtype == np.float64
    np.testing.assert_array_equal(a, x * np.float32(1.5))
    np.testing.assert_array_equal(b, x * np.where(x > 0, np.float32(0.125), np.float32(0)))
    assert c == 1.625


def test_exact_scalar_types(rng):
    @tile_op(dtype=float16)
    def f(x, s: tilec.scalar(float16), t: tilec.scalar(float64)):
        return x * s, t * 2

    x = rand((9,), float16, rng=rng)
    a, b = f(x, 0.3, 1.5)
    np.testing.assert_array_equal(a, x * np.float16(0.3))
    assert b.dtype == np.float64 and b.shape == () and b == 3.0


@pytest.mark.parametrize("dt", [tilec.uint8, tilec.uint32, tilec.uint64])
def test_unsigned_runtime_scalars(rng, dt):
    """Unsigned runtime scalars over their whole range (values above the signed range keep their
    bits: a uint64 of 2**64 - 5), compiled and interpreted; one past the range is an error."""

    @tile_op(dtype=dt)
    def f(x, s: tilec.scalar(dt)):
        return (x ^ s) + s

    info = np.iinfo(dt.np)
    x = rng.integers(0, int(info.max), 13, dtype=dt.np, endpoint=True)
    for s in (0, 1, int(info.max) - 4, int(info.max)):
        want = (x ^ dt.np.type(s)) + dt.np.type(s)
        np.testing.assert_array_equal(f(x, s), want)
        np.testing.assert_array_equal(tilec.interpret(f, x, s), want)
    with pytest.raises(tilec.TilecError, match="does not fit in"):
        f(x, int(info.max) + 1)
    with pytest.raises(tilec.TilecError, match="does not fit in"):
        f(x, -1)


def test_scalars_under_tilec_interpret(rng, monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")

    @tile_op(dims=["N"])
    def f(x: float32, i: int64, s: float, k: int):
        return x * s / x.shape[0] + k, i * k

    x, i = rand((6,), rng=rng), np.arange(4, dtype=np.int64)
    a, b = f(x, i, 1.5, -2)
    np.testing.assert_allclose(a, x * np.float32(1.5) / np.float32(6) - 2, rtol=1e-6)
    np.testing.assert_array_equal(b, i * -2)


def test_gpu_plan_reads_scalars_per_call(rng):
    """The CUDA host plan for `x * s`: planned once for a shape, the scalar read at each call."""
    from tilec import runtime
    from tilec.runtime.host import HostProgram, Plans, run

    module = scaled.module()
    program = HostProgram.from_mapped(runtime.lower(module, "mapped", "cuda"))
    plans = Plans(program, module.body.block.first_op)
    launched = []

    class Recorder:
        def empty(self, shape, dtype):
            return np.empty(shape, dtype)

        def view(self, b, shape):
            return b.reshape(shape)

        def launch(self, name, grid, block, smem, params):
            launched.append(params)

    x = rand((1000,), rng=rng)
    for s in (0.5, -2.0):
        inputs = [x, s]
        specs, steps = plans.get(plans.key(inputs))
        out = np.empty(specs[0][0], specs[0][1])
        run(steps, [*inputs, out], Recorder())
    assert len(plans._plans) == 1
    assert [p[-1] for p in launched] == [np.float64(0.5), np.float64(-2.0)]
    assert all(type(p[-1]) is np.float64 for p in launched)


# --- results keep their dtype ----------------------------------------------------------------------


@tile_op(dtype=float16, dims=["M", "N", "K"])
def mm_f32(A, B):
    return tile_contract(A, B, axes=[(1, 0)]).astype(float32)


@pytest.mark.parametrize("M,N,K", [(1, 1, 1), (7, 13, 257), (31, 64, 100)])
def test_f16_contract_to_f32_is_exact(rng, M, N, K):
    A, B = rand((M, K), float16, rng=rng), rand((K, N), float16, rng=rng)
    exact = A.astype(np.float64) @ B.astype(np.float64)
    ref32 = A.astype(np.float32) @ B.astype(np.float32)  # numpy's f32 matmul of the f16 inputs
    for got in (mm_f32(A, B), tilec.interpret(mm_f32, A, B)):
        assert got.dtype == np.float32
        # f32 accumulation error only (~K * 2^-24 relative), far below one f16 rounding (2^-11)
        bound = 4 * K * 2.0**-24 * np.abs(A.astype(np.float64)) @ np.abs(B.astype(np.float64)) + 1e-30
        assert np.all(np.abs(got - exact) <= bound)
        np.testing.assert_allclose(got, ref32, rtol=1e-5, atol=1e-5 * np.abs(ref32).max())
    if K > 1:  # the same contraction rounded to f16 is measurably worse: the test can fail
        f16 = exact.astype(np.float16).astype(np.float64)
        assert np.abs(f16 - exact).max() > np.abs(mm_f32(A, B) - exact).max()


def test_contract_used_narrow_and_wide_is_one_gemm(rng):
    """C used as f16 and as f32/f64: one contraction in f32, each use one rounding of it."""

    @tile_op(dtype=float16, dims=["M", "N", "K"])
    def both(A, B):
        C = tile_contract(A, B, axes=[(1, 0)])
        D = C + 1.0
        return C, C.astype(float32), D, C.astype(float64)

    text = both.ir("tile")
    assert text.count("tile.contract") == 1 and "-> !tile.tile<?x?xf32>" in text
    assert both.ir("mapped").count("mapped.kernel @") == 1
    A, B = rand((13, 129), float16, rng=rng), rand((129, 6), float16, rng=rng)
    c, c32, d, c64 = both(A, B)
    assert (c.dtype, c32.dtype, d.dtype, c64.dtype) == (np.float16, np.float32, np.float16, np.float64)
    np.testing.assert_array_equal(c, c32.astype(np.float16))
    np.testing.assert_array_equal(c64, c32.astype(np.float64))
    np.testing.assert_array_equal(d, (c.astype(np.float32) + 1).astype(np.float16))
    exact = A.astype(np.float64) @ B.astype(np.float64)
    np.testing.assert_allclose(c32, exact, rtol=1e-5, atol=1e-5 * np.abs(exact).max())
    for got, ref in zip((c, c32, d, c64), tilec.interpret(both, A, B)):
        # the f16 results: the compiled and interpreted f32 sums may round to neighbouring f16
        # values (one ulp, 2**-10 relative); the wide ones agree to f32 rounding
        rtol = 2.0**-10 if got.dtype == np.float16 else 1e-5
        np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64), rtol=rtol, atol=1e-4)


def test_contract_to_f32_ir_and_gpu_code():
    text = mm_f32.ir("tile")
    assert "acc f32 : !tile.tile<?x?xf16>, !tile.tile<?x?xf16> -> !tile.tile<?x?xf32>" in text
    assert "tile.cast" not in text

    @tile_op(dtype=float16, dims=[128, 64, 64])
    def mm_static(A, B):
        return tile_contract(A, B, axes=[(1, 0)]).astype(float32)

    for op in (mm_f32, mm_static):
        ptx = op.source("cuda")
        assert "st.global.f32" in ptx or "st.global.v2.f32" in ptx
        assert "cvt.rn.f16.f32" not in ptx  # the accumulator is never rounded to f16
    assert "mma.sync" in mm_static.source("cuda")
    if shutil.which("ptxas"):
        for op in (mm_f32, mm_static):
            subprocess.run(
                ["ptxas", "-arch=sm_90a", "-o", "/dev/null", "-"],
                input=op.source("cuda").encode(),
                check=True,
            )


def test_contract_keeps_its_operands_dtype(rng):
    @tile_op(dtype=float32)
    def f(a, b):
        return tile_contract(a.astype(float64), b.astype(float64), 1), tile_contract(a, b, 1).astype(float64)

    a, b = rand((5, 3), rng=rng), rand((3, 2), rng=rng)
    wide, via_f32 = f(a, b)
    assert wide.dtype == np.float64 and via_f32.dtype == np.float64
    np.testing.assert_allclose(wide, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-13)
    np.testing.assert_allclose(via_f32, a @ b, rtol=1e-6)


# --- sizes in arithmetic ---------------------------------------------------------------------------


@pytest.mark.parametrize("dims", [None, ["M", "N"]])
@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (17, 130)])
def test_sizes_in_arithmetic(rng, dims, shape):
    @tile_op(dtype=float32, dims=dims)
    def f(x):
        M, N = x.shape
        return x / N, x * (1.0 / x.shape[-1]), M + x, x * (N * 2.0), x - M * N, (N - x) / (M + 1)

    x = rand(shape, rng=rng)
    M, N = shape
    want = [x / N, x * (1.0 / N), M + x, x * (N * 2.0), x - M * N, (N - x) / (M + 1)]
    for got in (f(x), tilec.interpret(f, x)):
        for g, w in zip(got, want):
            assert g.dtype == np.float32
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)


def test_static_sizes_are_python_ints():
    seen = []

    @tile_op(dtype=float32, dims=[4, "N"])
    def f(x):
        n = x.shape[0]
        seen.extend([1.0 / n, n * 2.0, n // 3, n % 3, n**2, -n, float(n), round(n), list(range(n)), n < 5])
        return x * (1.0 / n)

    f(rand((4, 3)))
    assert seen and seen[-10:] == [0.25, 8.0, 1, 1, 16, -4, 4.0, 4, [0, 1, 2, 3], True]
    assert all(type(v) is type(w) for v, w in zip(seen[-10:], [0.25, 8.0, 1, 1, 16, -4, 4.0, 4, [], True]))


def test_dynamic_size_in_f16_mean_like_program(rng):
    @tile_op(dtype=float16, dims=["M", "N"])
    def f(x):
        return tilec.sum(x, axis=1) / x.shape[1]

    x = rand((5, 300), float16, rng=rng)
    np.testing.assert_allclose(f(x).astype(np.float64), x.astype(np.float64).mean(axis=1), rtol=3e-3, atol=3e-3)


# --- errors ----------------------------------------------------------------------------------------


def test_dtypes_conflicts_are_located():
    with expect("conflict", "parameter 'x' is annotated tilec.float32 but dtypes= gives tilec.float16"):

        @tile_op(dtype=float32, dtypes={"x": float16})  # E:conflict
        def f(x: float32):
            return x

    with expect("unknown", "dtypes= names 'y'", "is not a parameter", "(parameters: x)"):

        @tile_op(dtype=float32, dtypes={"y": float16})  # E:unknown
        def g(x):
            return x

    with expect("bad-ann", "the annotation of parameter 'x'", "unsupported dtype"):

        @tile_op(dtype=float32)  # E:bad-ann
        def h(x: complex):
            return x

    with expect("no-dtype", "parameter 'y' needs an element type", "annotate it"):

        @tile_op  # E:no-dtype
        def k(x: float32, y):
            return x

    with expect("acc-no-dtype", "acc= needs the op's dtype"):

        @tile_op(acc=float32)  # E:acc-no-dtype
        def n(x: float16):
            return x

    with expect("bool-scalar", "bool scalars are not supported"):

        @tile_op(dtype=float32)
        def q(x, b: tilec.scalar(tilec.bool_)):  # E:bool-scalar
            return x

    with expect("bad-dtypes", "dtypes= must be a dict"):

        @tile_op(dtype=float32, dtypes=[float16])  # E:bad-dtypes
        def m(x):
            return x


def test_call_errors_name_the_argument(rng):
    x = rand((5,), rng=rng)
    with expect("arr-for-scalar", "argument 's' is a runtime scalar (float)", "an array of shape (5,)", ".item()"):
        scaled(x, x)  # E:arr-for-scalar
    with expect("0d-for-scalar", "argument 's' is a runtime scalar", "an array of shape ()"):
        scaled(x, np.array(2.0))  # E:0d-for-scalar
    with expect("num-for-arr", "argument 'x' must be an array", "got float", "`x: float`"):
        scaled(1.5, 2.0)  # E:num-for-arr
    with expect("bool-for-scalar", "argument 's' is a runtime scalar", "got bool"):
        scaled(x, True)  # E:bool-for-scalar

    @tile_op(dtype=int64)
    def add_k(v, k: int):
        return v + k

    v = np.arange(4, dtype=np.int64)
    with expect("float-for-int", "argument 'k' is an integer scalar (int) but got the float 2.5"):
        add_k(v, 2.5)  # E:float-for-int
    with expect("int-range", "argument 'k' (int): 9223372036854775808 does not fit in int64"):
        add_k(v, 2**63)  # E:int-range
    with expect("labels-dtype", "argument 'labels' has dtype float64 but its declared dtype is int64"):
        cross_entropy(rand((2, 3)), np.zeros(2), np.arange(3), 1.0)  # E:labels-dtype


def test_float_scalar_with_int_tile_is_located():
    @tile_op(dtype=int32)
    def f(x, s: float):
        return x * s  # E:float-int

    with expect("float-int", "a runtime float scalar cannot be combined with a int32 tile"):
        f(np.arange(3, dtype=np.int32), 2.0)


def test_dynamic_size_misuse_is_located():
    x = rand((3, 4))

    def check(marker, body, *phrases):
        @tile_op(dtype=float32, dims=["M", "N"])
        def f(x):
            body(x)
            return x

        with expect(marker, *phrases):
            tilec.interpret(f, x)

    def rng_loop(x):
        return [0 for _ in range(x.shape[0])]  # E:range

    def to_float(x):
        return float(x.shape[1])  # E:float

    def compare(x):
        return x.shape[0] < 3  # E:cmp

    def floordiv(x):
        return x.shape[0] // 2  # E:floordiv

    def mod(x):
        return x.shape[0] % 2  # E:mod

    def power(x):
        return x.shape[0] ** 2  # E:pow

    def text(x):
        return x.shape[0] + "a"  # E:str

    def floordiv_tile(x):
        return x.shape[0] // x  # E:fdt

    def reshape_by_value(x):
        return x.reshape(x.shape[0], x.shape[1] * 1)  # E:reshape-val

    dynamic = "the size 'M' is dynamic"
    check("reshape-val", reshape_by_value, "known only at run time", "must be ints or entries of x.shape")
    check("range", rng_loop, dynamic)
    check("float", to_float, "the size 'N' is dynamic", "tile arithmetic")
    check("cmp", compare, dynamic)
    check("floordiv", floordiv, dynamic)
    check("mod", mod, dynamic)
    check("pow", power, dynamic)
    check("str", text, "can be combined with ints, floats, other sizes and tiles, got str")
    check("fdt", floordiv_tile, "a size (x.shape[i]) // a tile is not supported")


def test_where_of_numbers_needs_a_dtype():
    @tile_op
    def f(x: float32):
        return tilec.where(x > 0, 1.0, 0.0)  # E:where

    with expect("where", "both branches are numbers and the op has no dtype"):
        f(rand((3,)))
