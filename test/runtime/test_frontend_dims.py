"""dims binding and its errors, rank inference, caching, the traced IR (printing, re-parsing,
locations), and how calls, compile/source/ir reach tilec.runtime."""

from __future__ import annotations

import inspect
import shutil
import subprocess
import sys

import numpy as np
import pytest
from test_frontend_util import check, expect_error, f64, line_of, rand, same_file
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp

import tilec
from tilec import float32, tile_contract, tile_op
from tilec.diagnostics import NotSupportedYet


def expect(marker: str, *phrases: str):
    return expect_error(__file__, marker, *phrases)


@tile_op(dtype=float32, dims=[6, 5, 4])
def mm_static(A, B):
    return tile_contract(A, B, axes=[(-1, 0)])


@tile_op(dtype=float32, dims=["M", "N", "K"])
def mm_dynamic(A, B):
    return tile_contract(A, B, axes=[(-1, 0)])  # E:mm-dynamic-contract


# --- binding dims -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shapes,arg,axis,expected,given,j",
    [
        (((7, 4), (4, 5)), "A", 0, 6, 7, 0),
        (((6, 3), (4, 5)), "A", 1, 4, 3, 2),
        (((6, 4), (2, 5)), "B", 0, 4, 2, 2),
        (((6, 4), (4, 9)), "B", 1, 5, 9, 1),
    ],
)
def test_static_dims_mismatch_names_argument_axis_expected_given(shapes, arg, axis, expected, given, j):
    A, B = rand(shapes[0]), rand(shapes[1])
    with expect("static-mismatch", f"argument '{arg}' axis {axis} has size {given}, expected {expected} (dims[{j}])"):
        tilec.interpret(mm_static, A, B)  # E:static-mismatch


def test_static_dims_match():
    A, B = rand((6, 4)), rand((4, 5))
    check(tilec.interpret(mm_static, A, B), f64(A) @ f64(B), scale=5)


def test_dynamic_dims_bind_per_call_and_check_consistency():
    A, B = rand((3, 7)), rand((7, 2))
    check(tilec.interpret(mm_dynamic, A, B), f64(A) @ f64(B), scale=5)
    with expect("dyn-mismatch", "argument 'B' axis 0 has size 6, expected 7", "dims[2] = 'K'", "argument 'A' axis 1"):
        tilec.interpret(mm_dynamic, A, rand((6, 2)))  # E:dyn-mismatch


def test_same_name_twice_means_same_size():
    @tile_op(dtype=float32, dims=["N", "N", "N"])
    def square(A, B):
        return tile_contract(A, B, axes=[(1, 0)])

    A, B = rand((5, 5)), rand((5, 5))
    check(tilec.interpret(square, A, B), f64(A) @ f64(B), scale=5)
    with expect("same-name", "argument 'B' axis 1 has size 4, expected 5", "dims[1] = 'N'", "argument 'A' axis 0"):
        tilec.interpret(square, A, rand((5, 4)))  # E:same-name


def test_dims_order_is_result_axes_then_reduced_axes():
    # x: (R, C); the result has C's axis; R is reduced: dims = [C, R].
    @tile_op(dtype=float32, dims=[3, "R"])
    def colsum(x):
        return tilec.sum(x, axis=0)

    assert "!tile.array<?x3xf32>" in colsum.ir("tile")
    x = rand((8, 3))
    check(tilec.interpret(colsum, x), f64(x).sum(axis=0))
    with expect("order", "argument 'x' axis 1 has size 8, expected 3 (dims[0])"):
        tilec.interpret(colsum, rand((3, 8)))  # E:order


def test_dims_order_batched_contraction_and_first_seen_order():
    # result (B, M, N), then the contracted K; attention-like: result (S, E), then D, then T.
    @tile_op(dtype=float32, dims=[2, 3, 4, 5])
    def bmm(x, y):
        return tile_contract(x, y, axes=[(2, 1)], batch=[(0, 0)])

    text = bmm.ir("tile")
    assert "!tile.array<2x3x5xf32>" in text and "!tile.array<2x5x4xf32>" in text

    @tile_op(dtype=float32, dims=["S", "E", "D", "T"])
    def attn(q, k, v):
        return tile_contract(tile_contract(q, k, axes=[(1, 1)]), v, axes=[(1, 0)])

    q, k, v = rand((2, 3)), rand((7, 3)), rand((7, 5))
    check(tilec.interpret(attn, q, k, v), f64(q) @ f64(k).T @ f64(v), scale=5)
    with expect("attn", "argument 'k' axis 1 has size 4, expected 3", "dims[2] = 'D'", "argument 'q' axis 1"):
        tilec.interpret(attn, q, rand((7, 4)), v)  # E:attn


def test_dims_with_unused_argument_axes():
    @tile_op(dtype=float32, dims=["M", "N", "P"])
    def first(x, unused):
        return x

    x = rand((2, 3))
    np.testing.assert_array_equal(tilec.interpret(first, x, rand((4,))), x)
    assert "tile.load %unused" not in first.ir("tile", shapes=[(2, 3), (4,)])


def test_program_constant_conflicts_with_dims():
    @tile_op(dtype=float32, dims=[5])
    def f(x):
        return x + tilec.broadcast_to(tilec.sum(x, keepdims=True), (4,))

    with expect("const", "dims[0] is 5 but the program fixes that axis (x.shape[0]) to size 4"):
        f.ir("tile")  # E:const


def test_dims_name_bound_to_program_constant_is_an_error():
    @tile_op(dtype=float32, dims=["N"])
    def f(x):
        return tilec.broadcast_to(x, (4,))

    with expect("const-name", "dims[0] is 'N' but the program fixes that axis", "put 4 in dims"):
        f.ir("tile")  # E:const-name


# --- ranks without shapes -----------------------------------------------------------------------


def test_rank_inference_for_ir_without_shapes():
    @tile_op(dtype=float32, dims=["M", "N"])
    def add(x, y):
        return x + y

    assert "%x: !tile.array<?x?xf32>, %y: !tile.array<?x?xf32>" in add.ir("tile")
    text = mm_dynamic.ir("tile")
    assert "%A: !tile.array<?x?xf32>, %B: !tile.array<?x?xf32>" in text
    assert "!tile.array<6x4xf32>" in mm_static.ir("tile")


def test_rank_inference_ambiguous_asks_for_shapes():
    @tile_op(dtype=float32, dims=["A", "B", "C"])
    def f(x, y):
        return tilec.sum(x) + tilec.sum(y)

    with expect("ambiguous", "argument ranks are ambiguous", "2, 1; 1, 2", "shapes="):
        f.ir("tile")  # E:ambiguous
    assert "!tile.array<?x?xf32>, %y: !tile.array<?xf32>" in f.ir("tile", shapes=[("A", "B"), ("C",)])


def test_rank_inference_impossible():
    @tile_op(dtype=float32, dims=["A", "B"])
    def g(x):
        return x[x]  # indexing with a tile fails for every rank

    with expect("impossible", "no argument ranks give 2 iteration axes", "shapes="):
        g.ir("tile")  # E:impossible


def test_shapes_with_names_ints_and_arrays():
    text = mm_dynamic.ir("tile", shapes=[("M", "K"), ("K", "N")])
    assert "?x?" in text
    assert mm_static.ir("tile", shapes=[(6, 4), (4, 5)]) == mm_static.ir("tile")
    assert mm_static.ir("tile", rand((6, 4)), rand((4, 5))) == mm_static.ir("tile")
    with expect("shape-name", "argument 'B' axis 0 is named 'M' but dims[2] is 'K'"):
        mm_dynamic.ir("tile", shapes=[("M", "K"), ("M", "N")])  # E:shape-name
    with expect("shape-int", "argument 'A' axis 0 has size 2, expected 6"):
        mm_static.ir("tile", shapes=[(2, 4), (4, 5)])  # E:shape-int
    with expect("shape-count", "shapes= has 1 entries"):
        mm_static.ir("tile", shapes=[(6, 4)])  # E:shape-count
    with expect("both", "not both"):
        mm_static.ir("tile", rand((6, 4)), rand((4, 5)), shapes=[(6, 4), (4, 5)])  # E:both


def test_size_as_python_int_needs_shapes_for_ir():
    @tile_op(dtype=float32, dims=[3, 4])
    def f(x):
        return x.reshape(3, int(x.shape[1] + 0))  # E:size-unknown

    with expect("size-unknown", "known only at run time", "pass shapes="):
        f.ir("tile")
    x = rand((3, 4))
    check(tilec.interpret(f, x), f64(x))
    assert "!tile.array<3x4xf32>" in f.ir("tile", shapes=[(3, 4)])


def test_size_arithmetic_needs_no_shapes_for_ir():
    """Without shapes, sizes in tile arithmetic are run-time values while dims are matched; the
    built IR then has the static size as a constant."""

    @tile_op(dtype=float32, dims=[3, 4])
    def f(x):
        return x * (x.shape[1] + 0)

    text = f.ir("tile")
    assert "4.0" in text or "4.000000e+00" in text
    x = rand((3, 4))
    check(tilec.interpret(f, x), f64(x) * 4)


# --- specializing without dims ------------------------------------------------------------------


def test_no_dims_specializes_per_shape():
    @tile_op(dtype=float32)
    def mm(A, B):
        return tile_contract(A, B, axes=[(1, 0)])

    assert "!tile.array<3x5xf32>" in mm.ir("tile", shapes=[(3, 5), (5, 2)])
    A, B = rand((3, 5)), rand((5, 2))
    check(tilec.interpret(mm, A, B), f64(A) @ f64(B), scale=5)
    assert mm.trace_count == 1  # the call reused the ir() trace
    A2, B2 = rand((4, 5)), rand((5, 2))
    check(tilec.interpret(mm, A2, B2), f64(A2) @ f64(B2), scale=5)
    assert mm.trace_count == 2
    with expect("no-dims-names", "must be all ints"):
        mm.ir("tile", shapes=[("M", 5), (5, 2)])  # E:no-dims-names


# --- caching ------------------------------------------------------------------------------------


def test_second_call_does_not_retrace():
    calls = []

    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x):
        calls.append(1)
        return x * 2

    x = rand((3, 4))
    tilec.interpret(f, x)
    traced = (f.trace_count, len(calls))
    tilec.interpret(f, x)
    tilec.interpret(f, rand((3, 4)))
    tilec.interpret(f, rand((9, 1)))  # dynamic sizes: same specialization
    f.ir("tile", shapes=[(2, 2)])
    assert (f.trace_count, len(calls)) == traced == (2, 2)
    tilec.interpret(f, rand((2, 3, 4)).reshape(6, 4))
    assert f.trace_count == 2
    # A call through the runtime path shares the cache (it may not be able to compile yet).
    try:
        f(x)
    except NotSupportedYet:
        pass
    assert f.trace_count == 2


def test_no_dims_cache_is_per_shape():
    @tile_op(dtype=float32)
    def f(x):
        return -x

    for _ in range(3):
        tilec.interpret(f, rand((2, 3)))
    assert f.trace_count == 1
    tilec.interpret(f, rand((3, 2)))
    assert f.trace_count == 2


def test_failed_trace_is_not_cached():
    @tile_op(dtype=float32)
    def f(x, y):
        return x + y

    for _ in range(2):
        with pytest.raises(tilec.TileError):
            tilec.interpret(f, rand((2,)), rand((3,)))
    assert f.trace_count == 2  # each failing call traced again: nothing was cached
    x, y = rand((2,)), rand((2,))
    check(tilec.interpret(f, x, y), f64(x) + f64(y))


# --- the traced IR ------------------------------------------------------------------------------


def _tilec_opt() -> list[str]:
    exe = shutil.which("tilec-opt")
    return [exe] if exe else [sys.executable, "-m", "tilec.cli"]


def test_matmul_ir_text():
    text = mm_static.ir("tile")
    for piece in (
        "tile.func @mm_static(%A: !tile.array<6x4xf32>, %B: !tile.array<4x5xf32>) outs(%out: !tile.array<6x5xf32>)",
        "tile.load %A : !tile.array<6x4xf32> -> !tile.tile<6x4xf32>",
        "tile.contract",
        "axes [[1, 0]] acc f32 : !tile.tile<6x4xf32>, !tile.tile<4x5xf32> -> !tile.tile<6x5xf32>",
        "tile.store",
        "tile.return",
    ):
        assert piece in text, piece
    assert text == mm_static.ir()  # "tile" is the default level


def test_dynamic_ir_text_uses_question_marks_and_dim():
    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x, b):
        return x + b

    text = f.ir("tile", shapes=[("M", "N"), ("N",)])
    assert "%x: !tile.array<?x?xf32>, %b: !tile.array<?xf32>" in text
    assert "tile.dim %x 0" in text and "tile.broadcast" in text and "sizes(" in text and "tile.add" in text


@pytest.mark.parametrize("op", [mm_static, mm_dynamic], ids=["static", "dynamic"])
def test_ir_reparses_with_parse_module_and_tilec_opt(op):
    from tilec.ir import make_context, parse_module, print_module, verify_module

    text = op.ir("tile")
    module = parse_module(make_context(), text, "traced.mlir")
    verify_module(module)
    assert print_module(module) == text
    run = subprocess.run(_tilec_opt(), input=text, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == text.strip()
    # With locations too.
    text_loc = op.ir("tile", debuginfo=True)
    assert "loc(" in text_loc
    module = parse_module(make_context(), text_loc, "traced.mlir")
    assert print_module(module, debuginfo=True) == text_loc


def test_every_traced_op_is_located_in_the_users_file():
    @tile_op(dtype=float32, dims=["M", "N"])
    def f(x, b):
        y = x * 2.0 + b  # E:loc-mul-add
        return tilec.sum(y, axis=1, keepdims=True)  # E:loc-sum

    module = f.module(shapes=[("M", "N"), ("N",)])
    assert isinstance(module, ModuleOp)
    lines = {}
    for op in module.walk():
        loc = op.location
        assert isinstance(loc, FileLineColLoc), f"{op.name} has {loc}"
        assert same_file(loc.filename.data, __file__)
        lines.setdefault(op.name, set()).add(loc.line.data)
    mul_add, red = line_of(__file__, "E:loc-mul-add"), line_of(__file__, "E:loc-sum")
    assert lines["tile.mul"] == lines["tile.add"] == lines["tile.constant"] == {mul_add}
    assert lines["tile.reduce"] == {red} and lines["tile.reshape"] == {red}
    assert lines["tile.store"] == lines["tile.return"] == {red}  # the return statement


def test_column_comes_from_the_expression():
    module = mm_dynamic.module()
    contract = next(op for op in module.walk() if op.name == "tile.contract")
    line = line_of(__file__, "E:mm-dynamic-contract")
    src = inspect.getsource(sys.modules[__name__]).splitlines()[line - 1]
    assert contract.location.line.data == line
    assert contract.location.column.data == src.index("tile_contract(") + 1


# --- the runtime path (calls, compile, source, lower) -------------------------------------------


class _FakeKernel:
    def __init__(self, module, target, options):
        self.module, self.target, self.options = module, target, options
        self.source = f"// {target} kernel"

    def __call__(self, *arrays):
        from tilec.interpreter import interpret_module

        if self.target == "cpu":
            return interpret_module(self.module, list(arrays))
        return tuple(np.zeros(1, np.float32) for _ in range(len(self.module.body.block.first_op.function_type.outputs)))


class _FakeCudaArray:
    def __init__(self, a):
        self.shape, self.dtype = a.shape, a.dtype
        self.__cuda_array_interface__ = {"shape": a.shape, "typestr": a.dtype.str, "version": 3}


@pytest.fixture
def fake_runtime(monkeypatch):
    from tilec import runtime

    compiled = []

    def compile_module(module, target="cpu", pipeline=None, **options):
        compiled.append((target, options))
        return _FakeKernel(module, target, options)

    lowered = []

    def lower(module, level, target="cpu", pipeline=None, **options):
        lowered.append((level, target, options))
        return module.clone()

    monkeypatch.setattr(runtime, "compile_module", compile_module)
    monkeypatch.setattr(runtime, "lower", lower)
    return compiled, lowered


def test_call_compiles_once_for_c_and_returns_arrays(fake_runtime):
    compiled, _ = fake_runtime
    A, B = rand((3, 4)), rand((4, 2))
    check(mm_dynamic(A, B), f64(A) @ f64(B), scale=5)
    A2, B2 = rand((5, 4)), rand((4, 1))
    check(mm_dynamic(A2, B2), f64(A2) @ f64(B2), scale=5)
    assert compiled == [("cpu", {})]  # one kernel for both sizes (dynamic dims)


def test_call_with_cuda_arrays_uses_the_cuda_target(fake_runtime):
    compiled, _ = fake_runtime
    A, B = _FakeCudaArray(rand((3, 4))), _FakeCudaArray(rand((4, 2)))
    mm_dynamic(A, B)
    assert compiled[-1][0] == "cuda"
    with expect("mixed-devices", "mix host (numpy) and device (CUDA) arrays"):
        mm_dynamic(A, rand((4, 2)))  # E:mixed-devices


def test_several_results_through_the_call(fake_runtime):
    @tile_op(dtype=float32)
    def f(x):
        return x + 1, x * 2

    x = rand((3,))
    a, b = f(x)
    check(a, f64(x) + 1)
    check(b, f64(x) * 2)


def test_compile_and_lowered_ir_reach_the_runtime(fake_runtime):
    compiled, lowered = fake_runtime
    k = mm_dynamic.compile("cuda", sm=90)
    assert isinstance(k, _FakeKernel) and k.target == "cuda" and k.options == {"sm": 90}
    assert mm_dynamic.compile("cuda", sm=90) is k  # cached per target and options
    assert mm_dynamic.compile("hip").target == "hip"
    assert compiled == [("cuda", {"sm": 90}), ("hip", {})]
    text = mm_static.ir("mapped", target="cuda", tile=16)
    assert lowered == [("mapped", "cuda", {"tile": 16})]
    assert "tile.func @mm_static" in text


def test_source_needs_only_the_compiler():
    """op.source emits code through the backend alone: no runtime, no GPU, no toolchain."""

    @tile_op(dtype=float32)
    def f(x):
        return x

    assert "void" in f.source("cpu", rand((2, 2))) and ".visible .entry" in f.source("cuda", shapes=[(3,)], sm="sm_80")
    assert "__global__" in f.source("hip", shapes=[(3,)])


def test_real_runtime_path_is_wired_or_not_supported_yet():
    """Until tilec.runtime lands, calls and code generation raise NotSupportedYet; after, they must
    agree with numpy and produce IR that tilec-opt parses."""
    A, B = rand((6, 4)), rand((4, 5))
    try:
        C = mm_static(A, B)
    except NotSupportedYet:
        pass
    else:
        check(C, f64(A) @ f64(B), scale=5)
    for level in ("mapped", "hw"):
        try:
            text = mm_static.ir(level)
        except NotSupportedYet:
            continue
        run = subprocess.run(_tilec_opt(), input=text, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
    try:
        src = mm_static.source("cpu")
    except NotSupportedYet:
        return
    assert isinstance(src, str) and src


# --- the public API -----------------------------------------------------------------------------


def test_public_names():
    for name in (
        "tile_op tile_contract TileError TilecError NotSupportedYet interpret Tile Dim TileFunction DType "
        "float16 bfloat16 float32 float64 int8 int32 int64 bool_ exp log sqrt rsqrt tanh erf abs maximum "
        "minimum where sum max min mean transpose reshape broadcast_to astype as_dtype"
    ).split():
        assert hasattr(tilec, name), name
    assert issubclass(tilec.TileError, tilec.TilecError)
    import builtins

    assert builtins.sum is sum and builtins.max is max  # only tilec's namespace is shadowed


def test_dtypes_know_numpy_and_ir_types():
    from xdsl.dialects.builtin import BFloat16Type, IntegerType, f32

    assert tilec.float32.np == np.float32 and tilec.float32.ir == f32
    assert tilec.bfloat16.np == np.dtype(tilec.bfloat16.np) and isinstance(tilec.bfloat16.ir, BFloat16Type)
    assert tilec.bfloat16.np.name == "bfloat16"
    assert tilec.bool_.ir == IntegerType(1) and tilec.int8.ir == IntegerType(8)
    assert tilec.as_dtype("bf16") is tilec.bfloat16 and tilec.as_dtype(np.int64) is tilec.int64
    assert tilec.as_dtype(np.dtype("float16")) is tilec.float16 and tilec.as_dtype(bool) is tilec.bool_
    assert repr(tilec.float32) == "tilec.float32" and tilec.float32 == np.float32 and tilec.float32 != tilec.float64
    assert tilec.as_dtype(np.uint8) is tilec.uint8 and str(tilec.uint64.ir) == "ui64" and tilec.uint16.is_unsigned
    with pytest.raises(tilec.TileError):
        tilec.as_dtype(np.complex64)


def test_tile_op_repr_and_wrapping():
    assert repr(mm_dynamic) == "<tile_op mm_dynamic(A, B) dtype=float32, dims=['M', 'N', 'K']>"
    assert mm_dynamic.__name__ == "mm_dynamic" and mm_dynamic.params == ["A", "B"]
