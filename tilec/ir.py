"""Reading, verifying and printing IR text, with source locations on every parsed operation.

xDSL's parser gives operations no location and reports undefined values at the end of the file;
`LocatedParser` records `file:line:col` on each op it parses and reports an undefined value at its
first use. `verify_module` checks op by op and turns the first failure into a `TilecError` at the
failing op's location.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from io import StringIO

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.utils.lexer import Span

from tilec.diagnostics import SourceLocation, TilecError, op_location, register_source
from tilec.dialects.common import OpVerifyError

# Dialects that xDSL ships under names tilec also uses. xDSL's `hw` is CIRCT's hardware dialect.
_CLASHING_UPSTREAM = {"hw"}


def tilec_dialects():
    """The dialects tilec defines, in lowering order."""
    from tilec.dialects.hw import HW
    from tilec.dialects.mapped import Mapped
    from tilec.dialects.tile import Tile

    return [Tile, Mapped, HW]


def make_context(upstream: bool = True) -> Context:
    """A context knowing tilec's dialects and (lazily) every upstream xDSL dialect except `hw`."""
    ctx = Context()
    if upstream:
        from xdsl.dialects import get_all_dialects

        for name, factory in get_all_dialects().items():
            if name not in _CLASHING_UPSTREAM:
                ctx.register_dialect(name, factory)
    for dialect in tilec_dialects():
        ctx.load_dialect(dialect)
    return ctx


class _LineIndex:
    """Offset -> (line, column) in O(log n), so locating 10,000 ops stays cheap."""

    def __init__(self, text: str):
        self.starts = [0]
        pos = text.find("\n")
        while pos != -1:
            self.starts.append(pos + 1)
            pos = text.find("\n", pos + 1)

    def line_col(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self.starts, offset) - 1
        return i + 1, offset - self.starts[i] + 1


class LocatedParser(Parser):
    """An xDSL parser that records where each operation and each forward reference appeared."""

    def __init__(self, ctx: Context, text: str, name: str, line_offset: int = 0):
        super().__init__(ctx, text, name)
        self._file = name
        self._line_offset = line_offset
        self._lines = _LineIndex(text)
        self._first_use: dict[str, Span] = {}

    def current_span(self) -> Span:
        """Where the parser is (the token it would read next)."""
        return self._current_token.span

    def location_at(self, offset: int) -> FileLineColLoc:
        line, col = self._lines.line_col(offset)
        return FileLineColLoc(StringAttr(self._file), IntAttr(line + self._line_offset), IntAttr(col))

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        try:
            op = super().parse_operation()
        except VerifyException as e:
            # An attribute or op constructor rejected what was written: report it at the op.
            raise ParseError(Span(start.start, start.end, start.input), str(e).split("\n\n")[0]) from e
        except ParseError as e:
            # xDSL reports an unknown op at the token after its name: point at the name itself.
            m = _UNREGISTERED_OP.fullmatch(e.msg)
            if m is None or getattr(e, "tilec_relocated", False):
                raise
            at = start.input.content.find(m.group(1), start.start)
            if at < 0:
                raise
            err = ParseError(Span(at, at + len(m.group(1)), start.input), f"unknown operation '{m.group(1)}'")
            err.tilec_relocated = True
            raise err from None
        if isinstance(op.location, UnknownLoc):
            op.location = self.location_at(start.start)
        return op

    def resolve_operand(self, operand, type):
        name = operand.operand_name
        if name not in self.ssa_values and name not in self._first_use:
            self._first_use[name] = operand.span
        return super().resolve_operand(operand, type)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError as e:
            if e.msg.startswith("values used but not defined") and self.forward_ssa_references:
                name = next(iter(self.forward_ssa_references))
                span = self._first_use.get(name)
                if span is not None:
                    raise ParseError(span, f"use of undefined value %{name}") from None
            m = _UNREGISTERED_ATTR.fullmatch(e.msg)
            if m is not None:
                # xDSL reports an unknown type/attribute at the token after its name: point at the name.
                content = e.span.input.content
                for sigil, what in (("!", "type"), ("#", "attribute")):
                    at = content.rfind(sigil + m.group(1), 0, e.span.start + 1)
                    if at >= 0:
                        raise ParseError(
                            Span(at, at + 1 + len(m.group(1)), e.span.input), f"unknown {what} '{sigil}{m.group(1)}'"
                        ) from None
            # xDSL's wording for these two says nothing useful.
            if e.msg.strip() == "in block definition":
                raise ParseError(
                    e.span, f"expected an operation or '}}' to end the region, found {_found(e.span)}"
                ) from None
            if e.msg == "Could not parse entire input!":
                if e.span.start >= len(e.span.input.content):  # at the end: only blanks and comments
                    raise ParseError(Span(0, 0, e.span.input), "empty input: expected an operation") from None
                raise ParseError(e.span, f"expected an operation, found {_found(e.span)}") from None
            raise


_UNREGISTERED_OP = re.compile(r"Operation (\S+) is not registered")
_UNREGISTERED_ATTR = re.compile(r"'(\S+)' is not registered")


def _found(span: Span) -> str:
    text = span.input.content[span.start : span.end]
    return f"'{text}'" if text else "end of input"


def _span_location(span: Span, line_offset: int = 0) -> SourceLocation:
    loc = span.get_location()
    return SourceLocation(loc.file, loc.line + line_offset, loc.col, max(span.end - span.start, 1))


def parse_error_to_tilec(e: ParseError, line_offset: int = 0) -> TilecError:
    msg = " ".join(e.msg.split()) if "\n" in e.msg else e.msg
    return TilecError(msg.strip(), _span_location(e.span, line_offset))


# Comments, well-formed string literals (xDSL's escapes: \" \n \t \\ and two hex digits), or a
# quote that starts neither: one alternative per position, so the scan is linear in the input.
_STRINGS = re.compile(r'//[^\n]*|"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"|"')


def check_string_literals(text: str, filename: str, line_offset: int = 0) -> None:
    """Refuse an unterminated string literal (or one with an escape xDSL does not know) before
    lexing: xDSL's string regex backtracks exponentially on those (30 characters: seconds)."""
    for m in _STRINGS.finditer(text):
        if m.group() != '"':
            continue
        line = text.count("\n", 0, m.start()) + 1
        col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        end = text.find("\n", m.start())
        rest = text[m.start() + 1 : end if end >= 0 else len(text)]
        what = (
            'invalid escape in string literal (\\" \\n \\t \\\\ or two hex digits)'
            if '"' in rest
            else "unterminated string literal"
        )
        raise TilecError(what, SourceLocation(filename, line + line_offset, col))


def parse_module(
    ctx: Context, text: str, filename: str = "<string>", line_offset: int = 0, register: bool = True
) -> ModuleOp:
    """Parse IR text into a module; any error is a `TilecError` at file:line:col.

    `line_offset` shifts reported lines (a chunk of a split file); `register` keeps the text for
    quoting source lines in diagnostics (callers that parse chunks register the whole file)."""
    if register:
        register_source(filename, "\n" * line_offset + text)
    check_string_literals(text, filename, line_offset)
    parser = None
    try:
        parser = LocatedParser(ctx, text, filename, line_offset)  # lexes the first token: may fail
        module = parser.parse_module()
    except ParseError as e:
        raise parse_error_to_tilec(e, line_offset) from None
    except RecursionError:
        loc = (
            _span_location(parser.current_span(), line_offset) if parser is not None else SourceLocation(filename, 1, 1)
        )
        raise TilecError(
            "the input nests regions, attributes or types too deeply for tilec's parser (about 100 levels)", loc
        ) from None
    if isinstance(module.location, UnknownLoc):
        module.location = parser.location_at(0)
    return module


def _walk_preorder(op: Operation) -> Iterator[Operation]:
    yield op
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                yield from _walk_preorder(child)


def verify_module(module: Operation) -> None:
    """Verify op by op (outer ops first); the first failure becomes a located `TilecError`."""
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except (VerifyException, DiagnosticException) as e:
            message = str(e.args[0]) if e.args else str(e)
            message = message.removeprefix("Operation does not verify: ")
            message = " ".join(message.split("\n\n")[0].split())  # one line, no IR dump
            if not isinstance(e, OpVerifyError):
                message = f"{op.name}: {message}"
            raise TilecError(message, op_location(op)) from None
    _verify_symbol_uses(module)
    _verify_defined_before_use(module)


def _verify_symbol_uses(module: Operation) -> None:
    """Ops that name another op of the module (launches, calls) check it against one table of the
    module's top-level symbols, built once (`verify_symbol_uses(symbols)` beside each such op)."""
    users = [op for op in module.walk() if hasattr(op, "verify_symbol_uses")]
    if not users:
        return
    symbols: dict[str, Operation] = {}
    root = module
    body = getattr(root, "body", None)
    for op in body.block.ops if body is not None and body.blocks else ():
        sym = op.properties.get("sym_name") or op.attributes.get("sym_name")
        if isinstance(sym, StringAttr):
            symbols.setdefault(sym.data, op)
    for op in users:
        try:
            op.verify_symbol_uses(symbols)
        except (VerifyException, DiagnosticException) as e:
            message = str(e.args[0]) if e.args else str(e)
            message = " ".join(message.removeprefix("Operation does not verify: ").split("\n\n")[0].split())
            if not isinstance(e, OpVerifyError):
                message = f"{op.name}: {message}"
            raise TilecError(message, op_location(op)) from None


def _verify_defined_before_use(root: Operation) -> None:
    """Every operand is defined before its use (xDSL's parser accepts `%b` used above `%b = ...`
    and xDSL checks no dominance). In a region of several blocks, order between blocks is not
    checked (branches decide it); within a block and into nested regions it is."""
    defined: set = set()

    def visit_region(region) -> None:
        blocks = list(region.blocks)
        added: list = []
        if len(blocks) > 1:  # any block's values may be visible in another: only nesting is checked
            for block in blocks:
                added.extend(block.args)
                for op in block.ops:
                    added.extend(op.results)
            defined.update(added)
        for block in blocks:
            visit_block(block)
        defined.difference_update(added)

    def visit_block(block) -> None:
        added = list(block.args)
        defined.update(added)
        for op in block.ops:
            for i, operand in enumerate(op.operands):
                if operand not in defined:
                    name = f"%{operand.name_hint}" if operand.name_hint else f"#{i}"
                    raise TilecError(
                        f"{op.name.split('.', 1)[-1]}: operand {name} is used before it is defined (or where it is not visible)",
                        op_location(op),
                    )
            for region in op.regions:
                visit_region(region)
            defined.update(op.results)
            added.extend(op.results)
        defined.difference_update(added)

    for region in root.regions:
        visit_region(region)


def print_module(module: Operation, generic: bool = False, debuginfo: bool = False) -> str:
    out = StringIO()
    Printer(stream=out, print_generic_format=generic, print_debuginfo=debuginfo).print_op(module)
    out.write("\n")
    return out.getvalue()
