"""`tilec-opt` driven in process through `tilec.cli.run([...])` (return codes, stdout, stderr), plus
a few runs of the installed executable to check real exit statuses."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tilec.cli as cli
import tilec.passes.registry as registry

GOOD = """tile.func @f(%X: !tile.array<4x8xf32>) outs(%Y: !tile.array<8x4xf32>) {
  %x = tile.load %X : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
  %n = tile.neg %x : !tile.tile<4x8xf32>
  %m = tile.neg %n : !tile.tile<4x8xf32>
  %t = tile.transpose %m [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
  tile.store %t, %Y : !tile.tile<8x4xf32>, !tile.array<8x4xf32>
  tile.return
}
"""

BAD_VERIFY = """tile.func @f() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  %b = tile.exp %a : !tile.tile<4xi32>
  tile.return
}
"""

PLUGIN = Path(__file__).resolve().parents[1] / "filecheck" / "plugins" / "test_passes.py"


@pytest.fixture
def good(tmp_path):
    p = tmp_path / "good.mlir"
    p.write_text(GOOD)
    return str(p)


@pytest.fixture
def bad(tmp_path):
    p = tmp_path / "bad.mlir"
    p.write_text(BAD_VERIFY)
    return str(p)


@pytest.fixture(autouse=True)
def clean_registry():
    registry.named_pipelines()
    before, before_named = dict(registry._extra), dict(registry._NAMED)
    yield
    registry._extra.clear()
    registry._extra.update(before)
    registry._NAMED.clear()
    registry._NAMED.update(before_named)


@pytest.fixture
def unbuilt_pipeline():
    from tilec.diagnostics import NotSupportedYet

    @registry.register_pipeline("test-unbuilt", "a pipeline that is not built yet")
    def unbuilt() -> str:
        raise NotSupportedYet("the 'test-unbuilt' pipeline is not built yet")


def run(capsys, *argv):
    code = cli.run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- success paths ------------------------------------------------------------------------------------


def test_file_in_ir_out(capsys, good):
    code, out, err = run(capsys, good)
    assert code == 0 and err == ""
    assert out.startswith("builtin.module {\n  tile.func @f(")
    assert out.endswith("}\n")


def test_passes(capsys, good):
    code, out, err = run(capsys, good, "-p", "tile-canonicalize")
    assert code == 0 and err == ""
    assert "tile.neg" not in out and "%t = tile.transpose %x [1, 0]" in out


def test_stdin_text(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(GOOD))
    code, out, _ = run(capsys)
    assert code == 0 and "tile.func @f" in out


def test_stdin_dash_bytes(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(GOOD.encode())))
    code, out, _ = run(capsys, "-")
    assert code == 0 and "tile.func @f" in out


def test_stdin_not_utf8(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"tile.func @f() {\n  \xff\n")))
    code, out, err = run(capsys, "-")
    assert code == 1 and out == ""
    assert err == "<stdin>:2:3: error: input is not UTF-8 text (invalid start byte at byte 19)\n  \ufffd\n  ^\n"


def test_output_file(capsys, good, tmp_path):
    target = tmp_path / "out.mlir"
    code, out, err = run(capsys, good, "-o", str(target), "--print-op-generic")
    assert code == 0 and out == "" and err == ""
    assert target.read_text().startswith('"builtin.module"() ({')


def test_output_file_unwritable(capsys, good, tmp_path):
    code, out, err = run(capsys, good, "-o", str(tmp_path / "no" / "dir" / "x.mlir"))
    assert code == 1 and out == ""
    assert err.startswith("error: cannot write output file") and "No such file or directory" in err


def test_split_input_file(capsys, tmp_path):
    p = tmp_path / "split.mlir"
    p.write_text(GOOD + "\n// -----\n" + BAD_VERIFY + "// -----\n" + GOOD)
    code, out, err = run(capsys, str(p), "--split-input-file")
    assert code == 1
    assert out.count("builtin.module {") == 2 and out.count("// -----\n") == 1
    lines = err.splitlines()
    assert lines[0] == f"{p}:13:3: error: exp: needs a float tile, got i32"
    assert lines[1:] == ["  %b = tile.exp %a : !tile.tile<4xi32>", "  ^"]


def test_verify_diagnostics(capsys, tmp_path):
    p = tmp_path / "vd.mlir"
    p.write_text(
        BAD_VERIFY.replace("  %b = tile.exp", "  // expected-error @+1 {{needs a float tile}}\n  %b = tile.exp")
    )
    code, out, err = run(capsys, str(p), "--verify-diagnostics")
    assert (code, out, err) == (0, "", "")
    p.write_text(BAD_VERIFY.replace("  %b = tile.exp", "  // expected-error @+1 {{something else}}\n  %b = tile.exp"))
    code, out, err = run(capsys, str(p), "--verify-diagnostics")
    assert code == 1 and out == ""
    assert "unexpected error:" in err and 'expected error "something else" was not produced' in err


def test_print_ir_options_go_to_stderr(capsys, good):
    code, out, err = run(
        capsys, good, "-p", "tile-canonicalize,cse", "--print-ir-after-all", "--print-ir-before", "cse"
    )
    assert code == 0
    assert "IR Dump" not in out
    headers = [line for line in err.splitlines() if "IR Dump" in line]
    assert headers == [
        "// -----// IR Dump After tile-canonicalize //----- //",
        "// -----// IR Dump Before cse //----- //",
        "// -----// IR Dump After cse //----- //",
    ]


def test_print_ir_after_comma_separated(capsys, good):
    code, _, err = run(capsys, good, "-p", "tile-canonicalize,cse,dce", "--print-ir-after=dce, cse")
    assert code == 0
    assert [line for line in err.splitlines() if "IR Dump" in line] == [
        "// -----// IR Dump After cse //----- //",
        "// -----// IR Dump After dce //----- //",
    ]


def test_timing(capsys, good):
    code, out, err = run(capsys, good, "-p", "cse", "--timing")
    assert code == 0 and "timing" not in out
    assert "tilec pass execution timing" in err and "(verify after cse)" in err


def test_debuginfo(capsys, good):
    code, out, _ = run(capsys, good, "--print-debuginfo")
    assert code == 0
    assert f'tile.neg %x : !tile.tile<4x8xf32> loc("{good}":3:3)' in out


def test_list_passes_and_plugins(capsys):
    code, out, err = run(capsys, "--list-passes", "--load-pass-plugin", str(PLUGIN))
    assert code == 0 and err == ""
    assert out.startswith("passes:\n")
    assert "  test-tag " in out and "  tile-canonicalize " in out and "named pipelines:\n" in out


def test_plugin_pass(capsys, good):
    code, out, _ = run(capsys, good, "--load-pass-plugin", str(PLUGIN), "-p", "test-tag{label=z count=2}")
    assert code == 0 and 'tag = "label=z count=2 ' in out


def test_allow_unregistered_dialect(capsys, tmp_path):
    p = tmp_path / "u.mlir"
    p.write_text('"zork.op"() : () -> ()\n')
    assert run(capsys, str(p))[0] == 1
    code, out, _ = run(capsys, str(p), "--allow-unregistered-dialect")
    assert code == 0 and '"zork.op"() : () -> ()' in out


# --- error paths: return codes and messages -----------------------------------------------------------------


def test_verifier_error(capsys, bad):
    code, out, err = run(capsys, bad)
    assert code == 1 and out == ""
    assert err == f"{bad}:3:3: error: exp: needs a float tile, got i32\n  %b = tile.exp %a : !tile.tile<4xi32>\n  ^\n"


def test_pipeline_error_before_reading(capsys, tmp_path):
    code, out, err = run(capsys, str(tmp_path / "missing.mlir"), "-p", "cse{")
    assert code == 1 and out == ""
    assert err == "<pipeline>:1:5: error: missing '}' at end of pass options\ncse{\n    ^\n"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["{dir}"], "cannot open input file: it is a directory"),
        (["{dir}/missing.mlir"], "cannot open input file: no such file"),
        (["{good}", "-t", "nope"], "unknown target 'nope' (targets: mlir, c, ptx, hip)"),
        (["{good}", "-t", "hip"], "error: -t hip prints hw.amd IR, but the input has tile.func"),
        (
            ["{good}", "-p", "cse,test-unbuilt"],
            "error: not supported yet: the 'test-unbuilt' pipeline is not built yet",
        ),
        (["{good}", "--load-pass-plugin", "{dir}/nope.py"], "does not exist"),
    ],
)
def test_errors_exit_1(capsys, good, tmp_path, unbuilt_pipeline, argv, message):
    argv = [a.format(dir=tmp_path, good=good) for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 1 and out == ""
    assert message in err
    assert "Traceback" not in err


def test_internal_error_in_pass_without_and_with_debug(capsys, good):
    code, out, err = run(capsys, good, "--load-pass-plugin", str(PLUGIN), "-p", "test-boom")
    assert code == 1 and out == ""
    assert err == (
        "error: internal error in pass 'test-boom': ZeroDivisionError: integer division or modulo by zero\n"
        "note: this is a bug in the pass; rerun with --debug for a traceback\n"
    )
    with pytest.raises(ZeroDivisionError):
        cli.run([good, "--load-pass-plugin", str(PLUGIN), "-p", "test-boom", "--debug"])


def test_internal_error_outside_passes(capsys, good, monkeypatch):
    def explode(*args, **kwargs):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(cli.Driver, "process", explode)
    code, out, err = run(capsys, good)
    assert code == 1 and out == ""
    assert err == (
        "tilec-opt: internal error: RuntimeError: kaboom\n"
        "note: this is a bug in tilec; rerun with --debug for a traceback\n"
    )
    with pytest.raises(RuntimeError, match="kaboom"):
        cli.run([good, "--debug"])


def test_user_error_with_debug_raises(good):
    from tilec.diagnostics import TilecError

    with pytest.raises(TilecError, match="unknown pass 'nope'"):
        cli.run([good, "-p", "nope", "--debug"])


def test_keyboard_interrupt(capsys, good, monkeypatch):
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli.Driver, "process", interrupt)
    assert cli.run([good]) == 130


def test_version_and_help_exit_0(capsys):
    with pytest.raises(SystemExit) as info:
        cli.run(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith("tilec-opt ")
    with pytest.raises(SystemExit) as info:
        cli.run(["--help"])
    assert info.value.code == 0
    assert "--load-pass-plugin FILE" in capsys.readouterr().out


def test_bad_flag_exits_1(capsys):
    with pytest.raises(SystemExit) as info:
        cli.run(["--frobnicate"])
    assert info.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("usage: tilec-opt") and "tilec-opt: error: unrecognized arguments: --frobnicate" in err


# --- helpers --------------------------------------------------------------------------------------------


def test_split_chunks_only_at_marker_lines():
    text = "a\n// -----\nb\n  // -----  \nc // ----- not a marker\n"
    chunks = cli._split_chunks(text)
    assert [c for c, _ in chunks] == ["a\n", "\nb\n", "\nc // ----- not a marker\n"]
    assert [offset for _, offset in chunks] == [0, 1, 3]


def test_expected_errors_parsing():
    text = "x\n// expected-error @+2 {{a}}\n// expected-error @-1 {{b}}\ny // expected-error {{c}}\n// expected-error @above {{d}}\n// expected-error @below {{e}}\n"
    got = [(e.line, e.text) for e in cli._expected_errors(text, 10)]
    assert got == [(14, "a"), (12, "b"), (14, "c"), (14, "d"), (17, "e")]


# --- the real executable ------------------------------------------------------------------------------------


def _exe():
    exe = shutil.which("tilec-opt")
    return [exe] if exe else [sys.executable, "-m", "tilec.cli"]


def test_executable_exit_statuses(good, bad, tmp_path):
    env = dict(os.environ)
    ok = subprocess.run([*_exe(), good], capture_output=True, text=True, env=env)
    assert ok.returncode == 0 and ok.stderr == "" and "tile.func @f" in ok.stdout
    failed = subprocess.run([*_exe(), bad], capture_output=True, text=True, env=env)
    assert failed.returncode == 1 and failed.stdout == ""
    assert failed.stderr.startswith(f"{bad}:3:3: error: exp: needs a float tile")
    usage = subprocess.run([*_exe(), "--nope"], capture_output=True, text=True, env=env)
    assert usage.returncode == 1
    piped = subprocess.run([*_exe(), "-p", "tile-canonicalize"], input=GOOD, capture_output=True, text=True, env=env)
    assert piped.returncode == 0 and "tile.neg" not in piped.stdout


def test_plugin_raising_keyboard_interrupt_is_a_located_error(good):
    plugin = Path(__file__).parents[1] / "filecheck" / "plugins" / "interrupt.py"
    r = subprocess.run([*_exe(), good, "--load-pass-plugin", str(plugin)], capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith(f"{plugin}:3:1: error: pass plugin failed to load: KeyboardInterrupt"), r.stderr
    assert "Traceback" not in r.stderr
