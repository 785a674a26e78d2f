"""User-facing errors: `TilecError.render()`, source locations, and the located errors that
`tilec.ir.parse_module` / `verify_module` raise."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    UnknownLoc,
    f32,
)

from tilec.diagnostics import NotSupportedYet, SourceLocation, TilecError, op_location, register_source
from tilec.dialects import tile
from tilec.ir import make_context, parse_module, print_module, verify_module


@pytest.fixture(scope="module")
def ctx():
    return make_context()


def loc(file="f.mlir", line=1, col=1):
    return FileLineColLoc(StringAttr(file), IntAttr(line), IntAttr(col))


# --- render ------------------------------------------------------------------------------------------


def test_render_without_location():
    assert TilecError("something is off").render() == "error: something is off"


def test_render_quotes_the_registered_line_with_a_caret():
    register_source("diag-a.mlir", "first line\n  %c = tile.add %a, %b : !tile.tile<4xf32>\nlast")
    err = TilecError("add: operand types differ", SourceLocation("diag-a.mlir", 2, 8, 8))
    assert err.render() == (
        "diag-a.mlir:2:8: error: add: operand types differ\n  %c = tile.add %a, %b : !tile.tile<4xf32>\n       ^^^^^^^^"
    )
    # the exception's own text is the rendered message
    assert str(err) == err.render()
    assert err.message == "add: operand types differ"


def test_render_without_quote_and_with_notes():
    register_source("diag-b.mlir", "x\ny\n")
    err = TilecError("bad", SourceLocation("diag-b.mlir", 2, 1), notes=("first note", "second note"))
    assert err.render(quote_source=False) == "diag-b.mlir:2:1: error: bad\nnote: first note\nnote: second note"
    assert err.render() == "diag-b.mlir:2:1: error: bad\ny\n^\nnote: first note\nnote: second note"


def test_render_line_out_of_range_or_unknown_file():
    register_source("diag-c.mlir", "only one line")
    assert TilecError("e", SourceLocation("diag-c.mlir", 5, 1)).render() == "diag-c.mlir:5:1: error: e"
    assert TilecError("e", SourceLocation("/no/such/file.mlir", 3, 4)).render() == "/no/such/file.mlir:3:4: error: e"


def test_render_strips_carriage_returns():
    register_source("diag-d.mlir", "a\r\nbcd\r\n")
    assert TilecError("e", SourceLocation("diag-d.mlir", 2, 2, 2)).render() == "diag-d.mlir:2:2: error: e\nbcd\n ^^"


def test_render_reads_unregistered_files_from_disk(tmp_path):
    path = tmp_path / "kernel.py"
    path.write_text("import tilec\n\ndef kernel(x):\n    return x + 1\n")
    err = TilecError("cannot add", SourceLocation(str(path), 4, 12, 5))
    assert err.render().splitlines() == [f"{path}:4:12: error: cannot add", "    return x + 1", "           ^^^^^"]


def test_render_caret_is_at_least_one_column():
    register_source("diag-e.mlir", "abc")
    assert TilecError("e", SourceLocation("diag-e.mlir", 1, 1, 0)).render().endswith("\nabc\n^")
    assert TilecError("e", SourceLocation("diag-e.mlir", 1, 0)).render().endswith("\nabc\n^")


def test_not_supported_yet():
    err = NotSupportedYet("the 'x' emitter")
    assert isinstance(err, TilecError)
    assert err.render() == "error: not supported yet: the 'x' emitter"


# --- locations -------------------------------------------------------------------------------------


def test_source_location_str_and_attr_round_trip():
    s = SourceLocation("a.mlir", 3, 7, 2)
    assert str(s) == "a.mlir:3:7"
    attr = s.to_attr()
    assert attr == loc("a.mlir", 3, 7)
    back = SourceLocation.from_attr(attr)
    assert (back.file, back.line, back.col) == ("a.mlir", 3, 7)


def test_source_location_from_nested_location_attributes():
    inner = loc("k.py", 10, 5)
    assert SourceLocation.from_attr(NameLoc(StringAttr("x"), inner)).line == 10
    assert SourceLocation.from_attr(CallSiteLoc(inner, loc("caller.py", 2, 1))).file == "k.py"
    fused = FusedLoc(ArrayAttr([UnknownLoc(), loc("second.mlir", 4, 4)]), NoneAttr())
    assert SourceLocation.from_attr(fused).file == "second.mlir"
    assert SourceLocation.from_attr(UnknownLoc()) is None
    assert SourceLocation.from_attr(None) is None


def test_op_location_falls_back_to_the_parent():
    func = tile.FuncOp("f", [], [])
    func.location = loc("parent.mlir", 9, 1)
    c = tile.ConstantOp(1.0, tile.TileType([4], f32))  # made by a pass: no location of its own
    func.body.block.add_ops([c, tile.ReturnOp()])
    assert str(op_location(c)) == "parent.mlir:9:1"
    c.location = loc("own.mlir", 2, 3)
    assert str(op_location(c)) == "own.mlir:2:3"
    assert op_location(tile.ReturnOp()) is None
    assert op_location(None) is None


# --- parse errors are TilecErrors at file:line:col -------------------------------------------------------


def test_parse_error_location_and_quote(ctx):
    text = "tile.func @f() {\n  %a = tile.bogus : !tile.tile<4xf32>\n  tile.return\n}\n"
    with pytest.raises(TilecError) as info:
        parse_module(ctx, text, "p.mlir")
    err = info.value
    assert (err.location.file, err.location.line, err.location.col, err.location.length) == ("p.mlir", 2, 8, 10)
    assert err.render() == (
        "p.mlir:2:8: error: unknown operation 'tile.bogus'\n  %a = tile.bogus : !tile.tile<4xf32>\n       ^^^^^^^^^^"
    )


def test_parse_error_line_offset_for_a_chunk(ctx):
    # a chunk that starts after 10 lines of the original file; the file text is registered by the caller
    register_source(
        "big.mlir", "\n" * 10 + "tile.func @f() {\n  %x = tile.neg %y : !tile.tile<4xf32>\n  tile.return\n}\n"
    )
    chunk = "tile.func @f() {\n  %x = tile.neg %y : !tile.tile<4xf32>\n  tile.return\n}\n"
    with pytest.raises(TilecError) as info:
        parse_module(ctx, chunk, "big.mlir", line_offset=10, register=False)
    err = info.value
    assert str(err.location) == "big.mlir:12:17"
    assert err.message == "use of undefined value %y"
    assert err.render().splitlines()[1] == "  %x = tile.neg %y : !tile.tile<4xf32>"


def test_parsed_ops_carry_locations(ctx):
    text = "tile.func @f() {\n    %a = tile.constant 1.0 : !tile.tile<4xf32>\n  tile.return\n}\n"
    module = parse_module(ctx, text, "l.mlir")
    const = next(op for op in module.walk() if isinstance(op, tile.ConstantOp))
    assert str(op_location(const)) == "l.mlir:2:5"
    # the implicit module gets the location of the start of the input
    assert str(op_location(module)) == "l.mlir:1:1"
    assert 'loc("l.mlir":2:5)' in print_module(module, debuginfo=True)


@pytest.mark.parametrize(
    "text, where, message",
    [
        ("", "1:1", "empty input: expected an operation"),
        ("// just a comment\n", "1:1", "empty input: expected an operation"),
        ("}", "1:1", "expected an operation, found '}'"),
        ("tile.func @f() {\n", "2:1", "expected an operation or '}' to end the region, found end of input"),
        ("tile.func @f(%A: !zork.t) {\n  tile.return\n}", "1:18", "unknown type '!zork.t'"),
        (
            "tile.func @f() {\n  %a = tile.constant 1 : !tile.tile<4xf8>\n  tile.return\n}",
            "2:39",
            "tile.tile: element type must be",
        ),
        (
            "tile.func @f() {\n  %a = tile.constant 1 : !tile.tile<-2xf32>\n  tile.return\n}",
            "2:37",
            "tile.tile: negative dimension -2",
        ),
        (
            "tile.func @f() {\n  %a = tile.constant 1.0 : !tile.tile<4xf32>\n  %a = tile.constant 1.0 : !tile.tile<4xf32>\n  tile.return\n}",
            "3:3",
            "SSA value %a is already defined",
        ),
        ("`", "1:1", "Unexpected character: `"),
    ],
)
def test_parse_errors(ctx, text, where, message):
    with pytest.raises(TilecError) as info:
        parse_module(ctx, text, "e.mlir")
    err = info.value
    assert f"{err.location.line}:{err.location.col}" == where
    assert err.message.startswith(message)
    assert "\n" not in err.message


# --- verifier errors ---------------------------------------------------------------------------------


def test_verify_error_is_one_line_at_the_op(ctx):
    text = (
        "tile.func @f(%A: !tile.array<4xf32>) {\n"
        "  %a = tile.load %A : !tile.array<4xf32> -> !tile.array<4xf32>\n"
        "  tile.return\n}\n"
    )
    module = parse_module(ctx, text, "v.mlir")
    with pytest.raises(TilecError) as info:
        verify_module(module)
    err = info.value
    assert str(err.location) == "v.mlir:2:3"
    assert err.message == (
        "tile.load: result 'result' at position 0 does not verify: !tile.array<4xf32> should be of base attribute tile.tile"
    )


def test_verify_reports_the_outermost_first(ctx):
    text = "tile.func @f() outs(%Y: !tile.array<4xf32>) {\n  %a = tile.constant 1 : !tile.tile<4xi32>\n  %b = tile.exp %a : !tile.tile<4xi32>\n  tile.return\n}\n"
    with pytest.raises(TilecError) as info:
        verify_module(parse_module(ctx, text, "o.mlir"))
    assert info.value.message == "func: output %Y is never stored"
    assert str(info.value.location) == "o.mlir:1:1"


def test_verify_accepts_a_valid_module(ctx):
    text = "tile.func @f() {\n  tile.return\n}\n"
    module = parse_module(ctx, text)
    verify_module(module)
    assert isinstance(module, ModuleOp)
