"""`tilec-opt`: read IR text, run a pass pipeline, print IR or emit target code.

    tilec-opt input.mlir -p tile-canonicalize,cse
    tilec-opt input.mlir -p lower-to-c -t c -o kernel.c
    cat input.mlir | tilec-opt --print-ir-after-all -p tile-canonicalize

Every user error is printed as `file:line:col: error: message` with the source line and a caret,
and the exit status is 1; a Python traceback appears only with --debug.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass

from tilec.diagnostics import TilecError, register_source

SPLIT_MARKER = "// -----"


class _ArgumentParser(argparse.ArgumentParser):
    """argparse that exits with status 1 (not 2) and our error style."""

    def error(self, message: str):  # noqa: D401
        self.print_usage(sys.stderr)
        sys.stderr.write(f"tilec-opt: error: {message}\n")
        sys.exit(1)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        v = version("tilec")
    except PackageNotFoundError:
        v = "0.1.0 (not installed)"
    try:
        x = version("xdsl")
    except PackageNotFoundError:
        x = "?"
    return f"tilec-opt {v} (xDSL {x})"


def build_arg_parser() -> argparse.ArgumentParser:
    p = _ArgumentParser(
        prog="tilec-opt",
        description="Read tilec IR (tile / mapped / hw and upstream xDSL dialects), run passes, print IR or emit code.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="pipelines: passes separated by commas, options in braces separated by spaces, e.g.\n"
        "  -p 'tile-canonicalize,cse'   -p 'lower-to-ptx{sm=90}'\n"
        "named pipelines: lower-to-c, lower-to-ptx, lower-to-hip (see --list-passes; options in docs/cpu.md, docs/cuda.md, docs/hip.md)",
    )
    p.add_argument("input", nargs="?", default="-", help="input .mlir file ('-' or omitted: standard input)")
    p.add_argument("-p", "--passes", default="", metavar="PIPELINE", help="pass pipeline to run")
    p.add_argument("-t", "--target", default="mlir", metavar="TARGET", help="output: mlir (default), c, ptx, hip")
    p.add_argument("-o", "--output-file", metavar="FILE", help="write output here instead of standard output")
    p.add_argument(
        "--split-input-file", action="store_true", help=f"process each '{SPLIT_MARKER}'-separated chunk on its own"
    )
    p.add_argument(
        "--verify-diagnostics",
        action="store_true",
        help="check '// expected-error @+N {{text}}' comments against the errors produced; exit 0 iff they match",
    )
    p.add_argument("--print-op-generic", action="store_true", help="print operations in the generic form")
    p.add_argument("--print-debuginfo", action="store_true", help="print each operation's source location")
    p.add_argument("--print-ir-after-all", action="store_true", help="print the IR after every pass (to stderr)")
    p.add_argument(
        "--print-ir-after",
        action="append",
        default=[],
        metavar="PASS",
        help="print the IR after PASS (repeatable, or comma-separated)",
    )
    p.add_argument(
        "--print-ir-before",
        action="append",
        default=[],
        metavar="PASS",
        help="print the IR before PASS (repeatable, or comma-separated)",
    )
    p.add_argument("--timing", action="store_true", help="report time spent in each pass (to stderr)")
    p.add_argument(
        "--verify-each",
        action="store_true",
        help="verify the IR after every pass (default: after plugin passes and after the last pass)",
    )
    p.add_argument("--no-verify-each", action="store_true", help="do not verify the IR after any pass")
    p.add_argument(
        "--load-pass-plugin",
        action="append",
        default=[],
        metavar="FILE",
        help="load passes from a Python file (repeatable)",
    )
    p.add_argument("--list-passes", action="store_true", help="list passes and named pipelines, then exit")
    p.add_argument("--allow-unregistered-dialect", action="store_true", help="accept ops of unknown dialects")
    p.add_argument("--debug", action="store_true", help="show Python tracebacks for errors")
    p.add_argument("--version", action="version", version=_version())
    return p


@dataclass
class ExpectedError:
    line: int
    text: str
    matched: bool = False


_EXPECT_RE = re.compile(r"//\s*expected-error\s*(@[+-]?\d+|@above|@below)?\s*\{\{(.*?)\}\}")


def _expected_errors(text: str, line_offset: int) -> list[ExpectedError]:
    out = []
    for i, line in enumerate(text.split("\n")):
        for m in _EXPECT_RE.finditer(line):
            here = i + 1 + line_offset
            where = m.group(1)
            if where is None:
                target = here
            elif where == "@above":
                target = here - 1
            elif where == "@below":
                target = here + 1
            elif where[1] in "+-":
                target = here + int(where[1:])
            else:
                target = int(where[1:])
            out.append(ExpectedError(target, m.group(2)))
    return out


_SPLIT_LINE = re.compile(r"^[ \t]*" + re.escape(SPLIT_MARKER) + r"[ \t]*$", re.MULTILINE)


def _split_chunks(text: str) -> list[tuple[str, int]]:
    """(chunk text, number of lines before it) for each chunk between `// -----` lines (a line
    holding only the marker: `// -----` inside a longer comment does not split)."""
    chunks, start = [], 0
    for m in _SPLIT_LINE.finditer(text):
        chunks.append((text[start : m.start()], text.count("\n", 0, start)))
        start = m.end()
    chunks.append((text[start:], text.count("\n", 0, start)))
    return chunks


def _names(values: list[str]) -> frozenset[str]:
    return frozenset(n.strip() for v in values for n in v.split(",") if n.strip())


class Driver:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        from tilec.ir import make_context

        self.ctx = make_context()
        self.ctx.allow_unregistered = args.allow_unregistered_dialect
        for plugin in args.load_pass_plugin:
            from tilec.passes import load_plugin

            load_plugin(plugin)
        from tilec.passes import build_from_text

        self.passes = build_from_text(args.passes)
        self.target, self.backend = self._parse_target(args.target)

    @staticmethod
    def _parse_target(text: str):
        """`-t mlir` or the language of a backend (`c`, `ptx`, `hip`); emitters take no options."""
        from tilec.backends import LANGUAGES, backend_for_language
        from tilec.diagnostics import SourceLocation
        from tilec.passes.pipeline import parse_pipeline

        register_source("<target>", text)
        try:
            specs = parse_pipeline(text, register=False)
        except TilecError as e:
            raise TilecError(e.message, SourceLocation("<target>", 1, e.location.col if e.location else 1)) from None
        if len(specs) != 1:
            raise TilecError("-t takes exactly one target", SourceLocation("<target>", 1, 1))
        spec = specs[0]
        names = ("mlir", *LANGUAGES)
        if spec.name not in names:
            raise TilecError(
                f"unknown target '{spec.name}' (targets: {', '.join(names)})",
                SourceLocation("<target>", 1, 1, len(spec.name)),
            )
        if spec.options:
            o = spec.options[0]
            raise TilecError(
                f"-t {spec.name} takes no options, got '{o.name}'", SourceLocation("<target>", 1, o.col, len(o.name))
            )
        return spec.name, (None if spec.name == "mlir" else backend_for_language(spec.name))

    def process(self, text: str, filename: str, line_offset: int) -> str:
        from tilec.ir import parse_module, print_module, verify_module
        from tilec.passes import PassManager

        module = parse_module(self.ctx, text, filename, line_offset, register=False)
        verify_module(module)
        pm = PassManager(
            self.passes,
            verify_each=False if self.args.no_verify_each else (True if self.args.verify_each else None),
            print_before=_names(self.args.print_ir_before),
            print_after=_names(self.args.print_ir_after),
            print_after_all=self.args.print_ir_after_all,
            print_generic=self.args.print_op_generic,
            timing=self.args.timing,
            debug=self.args.debug,
        )
        try:
            pm.run(self.ctx, module)
        finally:
            if self.args.timing:
                sys.stderr.write(pm.report_timing())
        if self.target == "mlir":
            return print_module(module, generic=self.args.print_op_generic, debuginfo=self.args.print_debuginfo)
        misplaced = self.backend.not_hw_level(module)
        if misplaced is not None:
            from tilec.diagnostics import op_location

            raise TilecError(
                f"-t {self.target} prints {self.backend.hw_dialect} IR, but the input has {misplaced.name} "
                f"(lower it first, e.g. -p {self.backend.pipeline_name})",
                op_location(misplaced),
            )
        out = self.backend.emit(module)
        return out if out.endswith("\n") else out + "\n"


def _read_input(path: str) -> tuple[str, str]:
    from tilec.diagnostics import SourceLocation

    if path == "-":
        stdin = getattr(sys.stdin, "buffer", None)
        if stdin is None:  # a text-only stand-in (tests)
            return sys.stdin.read(), "<stdin>"
        return _decode(stdin.read(), "<stdin>"), "<stdin>"
    here = SourceLocation(path, 1, 1)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise TilecError("cannot open input file: no such file", here) from None
    except IsADirectoryError:
        raise TilecError("cannot open input file: it is a directory", here) from None
    except OSError as e:
        raise TilecError(f"cannot open input file: {e.strerror}", here) from None
    return _decode(data, path), path


def _decode(data: bytes, name: str) -> str:
    """UTF-8 text, or an error at the line and column of the first bad byte."""
    from tilec.diagnostics import SourceLocation

    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        register_source(name, data.decode("utf-8", errors="replace"))  # to quote the line, bad byte shown as U+FFFD
        before = data[: e.start]
        line = before.count(b"\n") + 1
        col = e.start - (before.rfind(b"\n") + 1) + 1
        raise TilecError(
            f"input is not UTF-8 text ({e.reason} at byte {e.start})", SourceLocation(name, line, col)
        ) from None


def _list_passes() -> str:
    from tilec.passes import available_passes, named_pipelines
    from tilec.passes.registry import describe_pass

    lines = ["passes:"]
    for name in available_passes():
        lines.append(f"  {name:28s} {describe_pass(name)}")
    lines.append("named pipelines:")
    for name, pipe in sorted(named_pipelines().items()):
        opts = f" {{{' '.join(pipe.options)}}}" if pipe.options else ""
        lines.append(f"  {name + opts:28s} {pipe.description}")
    return "\n".join(lines) + "\n"


def _write_stdout(text: str) -> None:
    """Standard output may be closed (`>&-`) or full (`> /dev/full`): that is a located error."""
    out = sys.stdout
    try:
        if out is None:
            raise OSError("standard output is closed")
        out.write(text)
        out.flush()
    except (OSError, ValueError) as e:
        raise TilecError(f"cannot write the output to standard output: {getattr(e, 'strerror', None) or e}") from None


def run(argv: list[str] | None = None) -> int:
    args = build_arg_parser().parse_args(argv)
    if args.output_file is not None and not args.output_file.strip():
        build_arg_parser().error("-o needs a file name (got an empty one)")
    try:
        for plugin in args.load_pass_plugin if args.list_passes else []:
            from tilec.passes import load_plugin

            load_plugin(plugin)
        if args.list_passes:
            _write_stdout(_list_passes())
            return 0
        driver = Driver(args)
        text, filename = _read_input(args.input)
        register_source(filename, text)
        chunks = _split_chunks(text) if args.split_input_file else [(text, 0)]
        outputs: list[str] = []
        status = 0
        for chunk, offset in chunks:
            if args.verify_diagnostics:
                status |= _verify_chunk(driver, chunk, filename, offset)
                continue
            try:
                outputs.append(driver.process(chunk, filename, offset))
            except TilecError as e:
                if not args.split_input_file:
                    raise
                if args.debug:
                    raise
                sys.stderr.write(e.render() + "\n")
                status = 1
        if not args.verify_diagnostics:
            result = "// -----\n".join(outputs)
            if args.output_file is not None:
                try:
                    with open(args.output_file, "w", encoding="utf-8") as f:
                        f.write(result)
                except OSError as e:
                    raise TilecError(f"cannot write output file '{args.output_file}': {e.strerror}") from None
            else:
                _write_stdout(result)
        return status
    except TilecError as e:
        if args.debug:
            raise
        sys.stderr.write(e.render() + "\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("tilec-opt: interrupted\n")
        return 130
    except Exception as e:  # a bug in tilec, not in the input
        if args.debug:
            raise
        sys.stderr.write(
            f"tilec-opt: internal error: {type(e).__name__}: {e}\n"
            "note: this is a bug in tilec; rerun with --debug for a traceback\n"
        )
        return 1


def _verify_chunk(driver: Driver, chunk: str, filename: str, offset: int) -> int:
    expected = _expected_errors(chunk, offset)
    status = 0
    try:
        driver.process(chunk, filename, offset)
    except TilecError as e:
        line = e.location.line if e.location else None
        hit = next((x for x in expected if not x.matched and x.line == line and x.text in e.message), None)
        if hit is None:
            sys.stderr.write(f"unexpected error: {e.render()}\n")
            status = 1
        else:
            hit.matched = True
    for x in expected:
        if not x.matched:
            sys.stderr.write(f'{filename}:{x.line}: error: expected error "{x.text}" was not produced\n')
            status = 1
    return status


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
