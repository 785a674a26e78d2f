"""The pass API from Python: run_pipeline, PassManager options, writing PatternPass / TilecPass
subclasses, @register_pass, PassFailure, pipeline parsing, entry-point and file plugins."""

from __future__ import annotations

import dataclasses
import io
import textwrap
from types import SimpleNamespace

import pytest
from xdsl.dialects.builtin import StringAttr, f32
from xdsl.passes import ModulePass

import tilec.passes.registry as registry
from tilec.diagnostics import TilecError
from tilec.dialects import tile
from tilec.dialects.common import int_array
from tilec.ir import make_context, parse_module, print_module
from tilec.passes import (
    PassFailure,
    PassManager,
    PatternPass,
    PatternRewriter,
    RewritePattern,
    TilecPass,
    available_passes,
    build_from_text,
    get_pass,
    load_plugin,
    named_pipelines,
    op_type_rewrite_pattern,
    parse_pipeline,
    register_pass,
    run_pipeline,
)
from tilec.passes.pipeline import instantiate, pass_options

PROGRAM = """tile.func @f(%X: !tile.array<4x8xf32>) outs(%Y: !tile.array<8x4xf32>) {
  %x = tile.load %X : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
  %n = tile.neg %x : !tile.tile<4x8xf32>
  %m = tile.neg %n : !tile.tile<4x8xf32>
  %t = tile.transpose %m [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
  tile.store %t, %Y : !tile.tile<8x4xf32>, !tile.array<8x4xf32>
  tile.return
}
"""


@pytest.fixture(scope="module")
def ctx():
    return make_context()


@pytest.fixture
def module(ctx):
    return parse_module(ctx, PROGRAM, "prog.mlir")


@pytest.fixture(autouse=True)
def clean_registry():
    """Passes and named pipelines registered by a test are forgotten after it."""
    named_pipelines()  # the built-in ones are registered before the snapshot
    before, before_named = dict(registry._extra), dict(registry._NAMED)
    yield
    registry._extra.clear()
    registry._extra.update(before)
    registry._NAMED.clear()
    registry._NAMED.update(before_named)


def ops(module, cls):
    return [op for op in module.walk() if isinstance(op, cls)]


# --- run_pipeline and the PassManager ------------------------------------------------------------------


def test_run_pipeline_runs_in_place_and_returns_the_module(module):
    out = run_pipeline(module, "tile-canonicalize,cse")
    assert out is module
    assert ops(module, tile.NegOp) == []
    assert len(ops(module, tile.TransposeOp)) == 1


def test_run_pipeline_with_an_explicit_context(ctx, module):
    run_pipeline(module, "tile-canonicalize", ctx)
    assert ops(module, tile.NegOp) == []


def test_run_pipeline_empty_string_does_nothing(module):
    before = print_module(module)
    run_pipeline(module, "")
    run_pipeline(module, "   ")
    assert print_module(module) == before


def test_print_after_all_into_a_stringio(module):
    dump = io.StringIO()
    run_pipeline(module, "tile-canonicalize,cse", print_after_all=True, dump_to=dump)
    text = dump.getvalue()
    assert text.count("// -----// IR Dump After") == 2
    first, second = text.split("// -----// IR Dump After cse //----- //\n")
    assert first.startswith("// -----// IR Dump After tile-canonicalize //----- //\nbuiltin.module {")
    assert "tile.neg" not in second and "tile.transpose %x [1, 0]" in second


def test_print_before_and_after_chosen_passes(ctx, module):
    dump = io.StringIO()
    pm = PassManager(
        build_from_text("tile-canonicalize,cse"),
        print_before=frozenset({"tile-canonicalize"}),
        print_after=frozenset({"cse"}),
        print_generic=True,
        dump_to=dump,
    )
    pm.run(ctx, module)
    text = dump.getvalue()
    headers = [line for line in text.splitlines() if "IR Dump" in line]
    assert headers == [
        "// -----// IR Dump Before tile-canonicalize //----- //",
        "// -----// IR Dump After cse //----- //",
    ]
    assert '"tile.neg"' in text  # the dump before canonicalization, in generic form


def test_timings(ctx, module):
    pm = PassManager(build_from_text("tile-canonicalize,cse"), timing=True)
    pm.run(ctx, module)
    names = [name for name, _ in pm.timings]
    assert names == ["tile-canonicalize", "(verify after tile-canonicalize)", "cse", "(verify after cse)"]
    assert all(t >= 0 for _, t in pm.timings)
    report = pm.report_timing()
    assert "tilec pass execution timing" in report and "Total:" in report
    rows = [line for line in report.splitlines() if line.rstrip().endswith(tuple(names))]
    assert len(rows) == 4


def test_timings_without_verification(ctx, module):
    pm = PassManager(build_from_text("cse"), verify_each=False)
    pm.run(ctx, module)
    assert [name for name, _ in pm.timings] == ["cse"]


# --- writing passes --------------------------------------------------------------------------------------


class NegToMulByMinusOne(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tile.NegOp, rewriter: PatternRewriter) -> None:
        t = op.result.type
        minus_one = tile.ConstantOp(-1.0, t)
        rewriter.replace(op, [minus_one, tile.MulOp(op.operand, minus_one.result)])


def test_pattern_pass_registered_and_run_by_name(module):
    @register_pass
    class NegToMul(PatternPass):
        """Writes -x as x * -1."""

        name = "test-neg-to-mul"

        def patterns(self):
            return [NegToMulByMinusOne()]

    assert get_pass("test-neg-to-mul") is NegToMul
    assert "test-neg-to-mul" in available_passes()
    assert registry.describe_pass("test-neg-to-mul") == "Writes -x as x * -1."
    run_pipeline(module, "test-neg-to-mul")
    assert ops(module, tile.NegOp) == []
    assert len(ops(module, tile.MulOp)) == 2
    assert [c.splat_value() for c in ops(module, tile.ConstantOp)] == [-1.0, -1.0]
    # (run_pipeline verified the result) cse merges the two constants
    run_pipeline(module, "cse")
    assert len(ops(module, tile.ConstantOp)) == 1


def test_tilec_pass_with_options(module):
    @register_pass
    class Tag(TilecPass):
        name = "test-tag-funcs"
        label: str = "none"
        times: int = 1
        flags: tuple[int, ...] = ()

        def apply(self, ctx, op):
            for f in ops(op, tile.FuncOp):
                f.attributes["tag"] = StringAttr(f"{self.label}*{self.times}{list(self.flags)}")

    run_pipeline(module, "test-tag-funcs{label=hot times=3 flags=1,2}")
    assert ops(module, tile.FuncOp)[0].attributes["tag"] == StringAttr("hot*3[1, 2]")
    run_pipeline(module, "test-tag-funcs")
    assert ops(module, tile.FuncOp)[0].attributes["tag"] == StringAttr("none*1[]")


def test_register_pass_makes_a_frozen_dataclass_with_options():
    @register_pass
    class Plain(TilecPass):
        name = "test-plain"
        factor: int = 4
        ratio: float = 0.5
        enabled: bool = True
        mode: str = "fast"
        sizes: tuple[int, ...] = (1, 2)
        limit: int | None = None

        def apply(self, ctx, op):
            pass

    assert dataclasses.is_dataclass(Plain)
    p = Plain()
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.factor = 5
    assert pass_options(Plain) == {
        "factor": (int, 4),
        "ratio": (float, 0.5),
        "enabled": (bool, True),
        "mode": (str, "fast"),
        "sizes": (tuple[int, ...], (1, 2)),
        "limit": (int | None, None),
    }
    built = build_from_text("test-plain{factor=8 ratio=2 enabled=false mode=slow sizes=3 limit=7}")[0]
    assert built == Plain(factor=8, ratio=2.0, enabled=False, mode="slow", sizes=(3,), limit=7)
    assert build_from_text("test-plain{limit}")[0].limit is None

    # an already-frozen dataclass is registered as it is
    @register_pass
    @dataclasses.dataclass(frozen=True)
    class Already(ModulePass):
        name = "test-already"
        n: int = 2

        def apply(self, ctx, op):
            pass

    assert build_from_text("test-already{n=3}") == [Already(n=3)]


def test_register_pass_rejects_bad_classes():
    class NotAPass:
        name = "test-not-a-pass"

    with pytest.raises(TypeError, match="must subclass TilecPass, PatternPass or xdsl.passes.ModulePass"):
        register_pass(NotAPass)

    class Nameless(TilecPass):
        name = ""

        def apply(self, ctx, op):
            pass

    with pytest.raises(TypeError, match="needs a string `name`"):
        register_pass(Nameless)

    class Clash(TilecPass):
        name = "lower-to-c"

        def apply(self, ctx, op):
            pass

    named_pipelines()
    with pytest.raises(TypeError, match="'lower-to-c' is already a named pipeline"):
        register_pass(Clash)


def test_required_option():
    @register_pass
    @dataclasses.dataclass(frozen=True)
    class Needs(ModulePass):
        name = "test-needs"
        block: int

        def apply(self, ctx, op):
            pass

    with pytest.raises(TilecError) as info:
        build_from_text("test-needs")
    assert info.value.message == "pass 'test-needs' needs option(s) block"
    assert build_from_text("test-needs{block=64}") == [Needs(block=64)]


def test_pass_failure_gives_the_op_location(module):
    @register_pass
    class Reject(TilecPass):
        name = "test-reject"

        def apply(self, ctx, op):
            for t in ops(op, tile.TransposeOp):
                raise PassFailure(t, "transposes are not welcome")

    with pytest.raises(TilecError) as info:
        run_pipeline(module, "tile-canonicalize,test-reject")
    err = info.value
    assert err.message == "in pass 'test-reject': transposes are not welcome"
    assert str(err.location) == "prog.mlir:5:3"


def test_pass_failure_itself():
    c = tile.ConstantOp(1.0, tile.TileType([4], f32))
    err = PassFailure(c, "no")
    assert err.op is c and err.location is None and err.render() == "error: no"


def test_broken_ir_is_caught_after_the_pass(module):
    @register_pass
    class Break(TilecPass):
        name = "test-break"

        def apply(self, ctx, op):
            ops(op, tile.TransposeOp)[0].properties["permutation"] = int_array([1, 1])

    with pytest.raises(TilecError) as info:
        run_pipeline(module, "test-break")
    assert (
        info.value.message
        == "IR after pass 'test-break' does not verify: transpose: [1, 1] is not a permutation of the 2 axes"
    )
    assert str(info.value.location) == "prog.mlir:5:3"


def test_broken_ir_passes_without_verify_each(ctx):
    module = parse_module(ctx, PROGRAM, "prog.mlir")

    @register_pass
    class Break(TilecPass):
        name = "test-break2"

        def apply(self, ctx, op):
            ops(op, tile.TransposeOp)[0].properties["permutation"] = int_array([1, 1])

    run_pipeline(module, "test-break2", verify_each=False)
    assert "[1, 1]" in print_module(module)


def test_internal_error_in_a_pass(module):
    @register_pass
    class Boom(TilecPass):
        name = "test-boom"

        def apply(self, ctx, op):
            raise KeyError("missing")

    with pytest.raises(TilecError) as info:
        run_pipeline(module, "test-boom")
    err = info.value
    assert err.message == "internal error in pass 'test-boom': KeyError: 'missing'"
    assert err.notes == ("this is a bug in the pass; rerun with --debug for a traceback",)
    assert isinstance(err.__cause__, KeyError)
    # with debug=True the original exception escapes
    with pytest.raises(KeyError):
        run_pipeline(module, "test-boom", debug=True)


# --- pipeline strings ----------------------------------------------------------------------------------------


def test_parse_pipeline_specs_and_columns():
    specs = parse_pipeline('a, b{x=1 y=2.5 z flag=false s="q r" l=1,2,3 w=v-1} ,c')
    assert [s.name for s in specs] == ["a", "b", "c"]
    assert [s.col for s in specs] == [1, 4, 53]
    b = specs[1]
    assert [(o.name, o.values, o.col) for o in b.options] == [
        ("x", (1,), 6),
        ("y", (2.5,), 10),
        ("z", (), 16),
        ("flag", (False,), 18),
        ("s", ("q r",), 29),
        ("l", (1, 2, 3), 37),
        ("w", ("v-1",), 45),
    ]
    assert str(b) == 'b{x=1 y=2.5 z flag=false s="q r" l=1,2,3 w=v-1}'
    assert parse_pipeline("") == [] and parse_pipeline("  ") == []


@pytest.mark.parametrize(
    "text, col, message",
    [
        ("a{b=1,c=2}", 6, "options are separated by spaces, not commas (commas separate list values)"),
        ("a{", 3, "missing '}' at end of pass options"),
        ("a{b=1", 6, "missing '}' at end of pass options"),
        ("a,,b", 3, "expected a pass name, found ','"),
        ("a,", 3, "expected a pass name, found 'end of pipeline'"),
        ("a b", 3, "expected ',' between passes, found 'b'"),
        ("a{b=1 b=2}", 7, "option 'b' given twice"),
        ('a{b="x}', 5, "unterminated string in pass option"),
    ],
)
def test_parse_pipeline_errors(text, col, message):
    with pytest.raises(TilecError) as info:
        parse_pipeline(text)
    err = info.value
    assert err.message == message
    assert (err.location.file, err.location.line, err.location.col) == ("<pipeline>", 1, col)
    assert err.render().splitlines()[1] == text


def test_unknown_pass_did_you_mean():
    with pytest.raises(TilecError) as info:
        build_from_text("cse,tile-canonicalise")
    assert info.value.message == "unknown pass 'tile-canonicalise' (did you mean 'tile-canonicalize'?)"
    assert info.value.location.col == 5 and info.value.location.length == len("tile-canonicalise")
    with pytest.raises(TilecError, match=r"unknown pass 'qqq' \(see tilec-opt --list-passes\)"):
        build_from_text("qqq")


def test_instantiate_option_errors():
    @register_pass
    class Opt(TilecPass):
        name = "test-opt"
        n: int = 1

        def apply(self, ctx, op):
            pass

    spec = parse_pipeline("test-opt{n=x}")[0]
    with pytest.raises(TilecError) as info:
        instantiate(Opt, spec)
    assert info.value.message == "option 'n' of pass 'test-opt' expects an integer, got x"
    assert info.value.location.col == 12
    with pytest.raises(TilecError, match=r"pass 'test-opt' has no option 'm' \(options: n\)"):
        build_from_text("test-opt{m=1}")


def test_named_pipeline_expands_to_passes():
    assert {"lower-to-c", "lower-to-ptx", "lower-to-hip"} <= set(named_pipelines())
    passes = build_from_text("lower-to-c")
    assert len(passes) > 1
    assert all(isinstance(p, ModulePass) for p in passes)
    with pytest.raises(TilecError, match="pipeline 'lower-to-c' has no option 'bogus'"):
        build_from_text("lower-to-c{bogus=1}")


def test_registered_named_pipeline_with_options(module):
    from tilec.diagnostics import NotSupportedYet

    @registry.register_pipeline("test-pipe", "canonicalize, maybe twice", {"twice": (bool, False), "tag": (str, "t")})
    def test_pipe(twice: bool, tag: str) -> str:
        return "tile-canonicalize,cse" + (",tile-canonicalize" if twice else "")

    assert [p.name for p in build_from_text("test-pipe")] == ["tile-canonicalize", "cse"]
    assert [p.name for p in build_from_text("dce,test-pipe{twice}")] == [
        "dce",
        "tile-canonicalize",
        "cse",
        "tile-canonicalize",
    ]
    with pytest.raises(TilecError) as info:
        build_from_text("test-pipe{twice=maybe}")
    assert info.value.message == "option 'twice' of pipeline 'test-pipe' expects true or false, got maybe"
    assert info.value.location.col == 17
    run_pipeline(module, "test-pipe")
    assert ops(module, tile.NegOp) == []

    @registry.register_pipeline("test-unbuilt", "not there yet")
    def test_unbuilt() -> str:
        raise NotSupportedYet("the 'test-unbuilt' pipeline")

    with pytest.raises(NotSupportedYet, match="not supported yet: the 'test-unbuilt' pipeline"):
        build_from_text("cse,test-unbuilt")


def test_upstream_passes_are_available():
    names = available_passes()
    assert names == sorted(names)
    for name in ("tile-canonicalize", "canonicalize", "cse", "dce"):
        assert name in names
        assert issubclass(get_pass(name), ModulePass)
    assert get_pass("no-such-pass") is None


# --- plugins ------------------------------------------------------------------------------------------------


class FakeEntryPoint(SimpleNamespace):
    def load(self):
        if isinstance(self.obj, Exception):
            raise self.obj
        return self.obj


def test_entry_point_plugins(monkeypatch, module):
    @dataclasses.dataclass(frozen=True)
    class FromEP(TilecPass):
        """Installed through an entry point."""

        name = "test-from-entry-point"

        def apply(self, ctx, op):
            ops(op, tile.FuncOp)[0].attributes["ep"] = StringAttr("yes")

    @dataclasses.dataclass(frozen=True)
    class Second(TilecPass):
        name = "test-second-from-entry-point"

        def apply(self, ctx, op):
            pass

    seen = []

    def fake_entry_points(group):
        seen.append(group)
        return [
            FakeEntryPoint(name="one", value="pkg:FromEP", obj=FromEP),
            FakeEntryPoint(name="two", value="pkg:ALL", obj=[Second]),
        ]

    monkeypatch.setattr(registry, "entry_points", fake_entry_points)
    monkeypatch.setattr(registry, "_entry_points_loaded", False)
    assert get_pass("test-from-entry-point") is FromEP
    assert seen == ["tilec.passes"]
    assert "test-second-from-entry-point" in available_passes()
    run_pipeline(module, "test-from-entry-point")
    assert ops(module, tile.FuncOp)[0].attributes["ep"] == StringAttr("yes")
    # entry points are read once
    get_pass("still-unknown")
    assert seen == ["tilec.passes"]


def test_broken_entry_point(monkeypatch):
    monkeypatch.setattr(
        registry,
        "entry_points",
        lambda group: [FakeEntryPoint(name="bad", value="pkg:Bad", obj=ImportError("no module pkg"))],
    )
    monkeypatch.setattr(registry, "_entry_points_loaded", False)
    with pytest.raises(TilecError) as info:
        available_passes()
    assert info.value.message == "cannot load pass plugin entry point 'bad' (pkg:Bad): no module pkg"


def test_load_plugin_file(tmp_path, module):
    plugin = tmp_path / "my_plugin.py"
    plugin.write_text(
        textwrap.dedent(
            '''
            from tilec.dialects import tile
            from tilec.passes import TilecPass, register_pass

            @register_pass
            class CountOps(TilecPass):
                """Counts ops into an attribute."""
                name = "test-count-ops"

                def apply(self, ctx, op):
                    from xdsl.dialects.builtin import IntAttr
                    n = sum(1 for _ in op.walk())
                    for f in op.walk():
                        if isinstance(f, tile.FuncOp):
                            f.attributes["ops"] = IntAttr(n)
            '''
        )
    )
    load_plugin(str(plugin))
    run_pipeline(module, "test-count-ops")
    assert "ops = #builtin.int<8>" in print_module(module)


def test_load_plugin_errors(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1\ny = (\n")
    with pytest.raises(TilecError) as info:
        load_plugin(str(bad))
    assert info.value.message.startswith("syntax error in pass plugin:")
    assert info.value.location.file == str(bad)

    raising = tmp_path / "raising.py"
    raising.write_text("import os\n\n\nraise ValueError('nope')\n")
    with pytest.raises(TilecError) as info:
        load_plugin(str(raising))
    assert info.value.message == "pass plugin failed to load: ValueError: nope"
    assert (info.value.location.line, info.value.location.col) == (4, 1)

    with pytest.raises(TilecError, match="does not exist"):
        load_plugin(str(tmp_path / "missing.py"))
    with pytest.raises(TilecError, match="is a directory"):
        load_plugin(str(tmp_path))
