"""Classes of bad or unusual input that once broke tilec (issue 9), each closed and kept closed:
several outputs of one value (a silent wrong result), pathological text (a lexer that backtracked
exponentially, deep nesting), sizes past what tilec addresses, and tool misuse (-t on the wrong
level, plugins that exit, closed or full standard output)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tilec
from tilec import float32, tile_contract, tile_op
from tilec.diagnostics import TilecError
from tilec.ir import make_context, parse_module


def _gpu() -> bool:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - no CuPy, no driver, no device
        return False


TARGETS = ["cpu", *(["cuda"] if _gpu() else [])]


def _run(op, target, arrays):
    if target == "cuda":
        import cupy

        out = op(*[cupy.asarray(a) for a in arrays])
        out = out if isinstance(out, tuple) else (out,)
        return tuple(cupy.asnumpy(o) for o in out)
    out = op(*arrays)
    return out if isinstance(out, tuple) else (out,)


def _check(op, arrays, target):
    want = tilec.interpret(op, *arrays)
    want = want if isinstance(want, tuple) else (want,)
    got = _run(op, target, arrays)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64), rtol=2e-5, atol=2e-5)


# --- one value, several outputs ---------------------------------------------------------------------


def _dup(x):
    y = tilec.exp(x)
    return y, y


def _dup_mul1(x):
    y = tilec.exp(x)
    return y, y * 1.0


def _dup_astype(x):
    y = tilec.exp(x)
    return y, y.astype(float32)


def _dup_view(x):
    y = tilec.exp(x)
    return y.reshape(-1), y, y.T


def _dup_rowwise(x):
    e = tilec.exp(x - tilec.max(x, axis=-1, keepdims=True))
    s = e / tilec.sum(e, axis=-1, keepdims=True)
    return s, s, tilec.sum(x, axis=-1), tilec.sum(x, axis=-1)


def _dup_reduction(x):
    s = tilec.sum(x, axis=0)
    return s, s


def _dup_input(x):
    return x, x, x.T


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn", [_dup, _dup_mul1, _dup_astype, _dup_view, _dup_rowwise, _dup_reduction, _dup_input])
def test_every_output_of_a_shared_value_is_written(fn, target):
    op = tile_op(dtype=float32)(fn)
    x = np.random.default_rng().standard_normal((7, 13)).astype(np.float32)
    _check(op, [x], target)


@pytest.mark.parametrize("target", TARGETS)
def test_contraction_result_stored_twice(target):
    @tile_op(dtype=float32)
    def mm2(a, b):
        c = tile_contract(a, b, axes=[(-1, 0)])
        return c, c, c + 1.0

    rng = np.random.default_rng()
    _check(
        mm2, [rng.standard_normal((5, 9)).astype(np.float32), rng.standard_normal((9, 3)).astype(np.float32)], target
    )


UNARY = [tilec.exp, tilec.tanh, lambda t: t * 2.0, lambda t: t + 1.0, lambda t: -t, tilec.abs]


@st.composite
def programs(draw):
    """A random elementwise/row program: a pool of values built from the input, several of them
    returned (some twice, some as views), so outputs share subexpressions."""
    steps = draw(
        st.lists(st.tuples(st.integers(0, len(UNARY) - 1), st.integers(0, 8), st.booleans()), min_size=1, max_size=6)
    )
    outs = draw(
        st.lists(
            st.tuples(st.integers(0, 8), st.sampled_from(["plain", "T", "flat", "rowsum"])), min_size=1, max_size=5
        )
    )
    rows, cols = draw(st.integers(1, 9)), draw(st.integers(1, 17))
    return steps, outs, rows, cols


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_programs_with_several_outputs_match_the_interpreter(prog):
    steps, outs, rows, cols = prog

    def fn(x):
        pool = [x]
        for k, src, binary in steps:
            v = UNARY[k](pool[src % len(pool)])
            if binary:
                v = v + pool[(src + 1) % len(pool)]
            pool.append(v)
        results = []
        for i, view in outs:
            v = pool[i % len(pool)]
            results.append({"plain": v, "T": v.T, "flat": v.reshape(-1), "rowsum": tilec.sum(v, axis=-1)}[view])
        return tuple(results)

    op = tile_op(dtype=float32)(fn)
    x = np.random.default_rng().uniform(-1, 1, (rows, cols)).astype(np.float32)
    for target in TARGETS:
        _check(op, [x], target)


# --- pathological text ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,message",
    [
        ('builtin.module {\n  %x = "tile.neg(%a) : ' + "a" * 4000 + "\n}\n", "2:8: error: unterminated string literal"),
        ('%x = "ab' + "c" * 3000 + '\\q" : i32\n', "1:6: error: invalid escape in string literal"),
        ('"' + "x" * 5000, "1:1: error: unterminated string literal"),
    ],
)
def test_bad_string_literals_fail_fast_and_located(text, message):
    start = time.process_time()
    with pytest.raises(TilecError) as info:
        parse_module(make_context(), text, "t.mlir")
    assert time.process_time() - start < 1.0
    assert info.value.render().startswith(f"t.mlir:{message}")


def test_strings_and_comments_with_quotes_still_parse():
    text = '// a comment with a " quote\n"builtin.module"() ({\n}) {tag = "a//b \\"c\\" \\0A"} : () -> ()\n'
    parse_module(make_context(), text, "t.mlir")


def test_deep_nesting_is_a_located_error():
    n = 400
    text = "builtin.module {\n" + "".join("scf.execute_region {\n" for _ in range(n)) + "}\n" * n + "}\n"
    with pytest.raises(TilecError) as info:
        parse_module(make_context(), text, "deep.mlir")
    assert "nests regions, attributes or types too deeply" in info.value.message
    assert info.value.location is not None and info.value.location.file == "deep.mlir"


# --- sizes --------------------------------------------------------------------------------------------


def test_sizes_past_what_tilec_addresses_are_refused_at_the_users_line():
    @tile_op(dtype=float32, dims=[2**63])
    def f(x):
        return x + 1.0

    with pytest.raises(tilec.TileError) as info:
        f.ir()
    assert "more than tilec addresses (2^62 bytes)" in info.value.message
    assert info.value.location.file == __file__


def test_gpu_buffers_of_2_31_elements_are_refused_before_lowering():
    @tile_op(dtype=float32, dims=[2**31])
    def f(x):
        return x + 1.0

    for target in ("cuda", "hip"):
        with pytest.raises(TilecError, match="GPU kernels index with 32 bits"):
            f.source(target)
    assert "void" in f.source("cpu")  # 64-bit offsets on the CPU


# --- the command line ------------------------------------------------------------------------------------

PLAIN = """tile.func @f(%X: !tile.array<8xf32>) outs(%Y: !tile.array<8xf32>) {
  %x = tile.load %X : !tile.array<8xf32> -> !tile.tile<8xf32>
  %e = tile.exp %x : !tile.tile<8xf32>
  tile.store %e, %Y : !tile.tile<8xf32>, !tile.array<8xf32>
  tile.return
}
"""

PLUGIN = """import sys
from tilec.passes import TilecPass, register_pass


@register_pass
class Exit(TilecPass):
    name = "exit-pass"

    def apply(self, ctx, op):
        sys.exit(3)
"""


def _tilec_opt(*argv, **kw):
    return subprocess.run([sys.executable, "-m", "tilec.cli", *argv], capture_output=True, text=True, timeout=120, **kw)


@pytest.fixture
def plain(tmp_path):
    p = tmp_path / "plain.mlir"
    p.write_text(PLAIN)
    return p


@pytest.mark.parametrize(
    "argv,message",
    [
        (
            ["-t", "c"],
            "plain.mlir:1:1: error: -t c prints hw.cpu IR, but the input has tile.func (lower it first, e.g. -p lower-to-c)",
        ),
        (["-p", "lower-to-ptx", "-t", "hip"], "error: -t hip prints hw.amd IR, but the input has hw.nv.kernel"),
        (["-t", "c{foo=1}"], "<target>:1:3: error: -t c takes no options, got 'foo'"),
        (["-t", "mlir{x}"], "-t mlir takes no options"),
        (["-p", "lower-to-c{mr=٣}"], "option 'mr' of pipeline 'lower-to-c' expects an integer, got ٣"),
        (["-o", ""], "-o needs a file name"),
        (["--load-pass-plugin", "{plugin}", "-p", "exit-pass"], "error: pass 'exit-pass' called sys.exit(3)"),
    ],
)
def test_misuse_is_one_located_line_and_exit_1(plain, tmp_path, argv, message):
    plugin = tmp_path / "plugin.py"
    plugin.write_text(PLUGIN)
    r = _tilec_opt(str(plain), *[a.replace("{plugin}", str(plugin)) for a in argv])
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert message in r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr


def test_closed_or_full_standard_output(plain):
    closed = subprocess.run(f"{sys.executable} -m tilec.cli {plain} >&-", shell=True, capture_output=True, text=True)
    assert closed.returncode == 1 and "cannot write the output to standard output" in closed.stderr, closed.stderr
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w") as full:
            r = subprocess.run(
                [sys.executable, "-m", "tilec.cli", str(plain)], stdout=full, stderr=subprocess.PIPE, text=True
            )
        assert r.returncode == 1 and "cannot write the output to standard output" in r.stderr, r.stderr
        assert "Traceback" not in r.stderr


def test_huge_dense_constants_are_never_materialized():
    start = time.process_time()
    m = parse_module(make_context(), "%c = tile.constant dense<1.0> : !tile.tile<400000000xf32>\n", "c.mlir")
    assert time.process_time() - start < 2.0
    assert "tile.constant 1.000000e+00" in __import__("tilec.ir", fromlist=["print_module"]).print_module(m)
    text = "%c = tile.constant dense<[" + ", ".join(["1.0"] * 4) + "]> : !tile.tile<2000000xf32>\n"
    with pytest.raises(TilecError, match="dense literal has shape 4"):
        parse_module(make_context(), text, "c.mlir")


def test_foreign_ops_in_a_tile_func_are_refused_by_name(tmp_path):
    p = tmp_path / "foreign.mlir"
    p.write_text(
        PLAIN.replace(
            "%e = tile.exp %x", '%y = "test.foo"(%x) : (!tile.tile<8xf32>) -> !tile.tile<8xf32>\n  %e = tile.exp %y'
        )
    )
    r = _tilec_opt(str(p), "--allow-unregistered-dialect", "-p", "lower-to-c", "-t", "c")
    assert (
        r.returncode == 1
        and "foreign.mlir:3:3: error: in pass 'tile-fuse': tile-fuse: 'test.foo' is not a tile op" in r.stderr
    ), r.stderr
