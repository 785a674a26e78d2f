"""User-facing errors with source locations.

Every error a user can cause (bad IR text, bad pipeline, bad DSL code, wrong arrays) is raised as a
`TilecError`. It carries an optional `SourceLocation` and renders as::

    file.mlir:3:8: error: contract: lhs axis 1 has size 64 but rhs axis 0 has size 32
      %c = tile.contract %a, %b axes [[1, 0]] : ...
           ^

The CLI prints `render()` and exits 1; Python users get the exception with the same text as its
message. Source lines come from texts registered with `register_source` (parsed .mlir input, stdin)
or, failing that, from the file on disk (Python files for the DSL).
"""

from __future__ import annotations

import linecache
from dataclasses import dataclass

from xdsl.dialects.builtin import CallSiteLoc, FileLineColLoc, FusedLoc, NameLoc
from xdsl.ir import Attribute, Operation

_sources: dict[str, str] = {}


def register_source(name: str, text: str) -> None:
    """Remember the text of an input so diagnostics can quote its lines."""
    _sources[name] = text


def _source_line(file: str, line: int) -> str | None:
    text = _sources.get(file)
    if text is not None:
        lines = text.split("\n")
        if 1 <= line <= len(lines):
            return lines[line - 1].rstrip("\r")
        return None
    got = linecache.getline(file, line)
    return got.rstrip("\n") if got else None


@dataclass(frozen=True)
class SourceLocation:
    """A point (and optional length) in a source file; lines and columns count from 1."""

    file: str
    line: int
    col: int
    length: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def to_attr(self) -> FileLineColLoc:
        from xdsl.dialects.builtin import IntAttr, StringAttr

        return FileLineColLoc(StringAttr(self.file), IntAttr(self.line), IntAttr(self.col))

    @staticmethod
    def from_attr(attr: Attribute | None) -> SourceLocation | None:
        """The first file:line:col found in a location attribute, if any."""
        if isinstance(attr, FileLineColLoc):
            return SourceLocation(attr.filename.data, attr.line.data, attr.column.data)
        if isinstance(attr, NameLoc):
            return SourceLocation.from_attr(attr.location)
        if isinstance(attr, CallSiteLoc):
            return SourceLocation.from_attr(attr.callee)
        if isinstance(attr, FusedLoc):
            for loc in attr.locations.data:
                found = SourceLocation.from_attr(loc)
                if found is not None:
                    return found
        return None


def op_location(op: Operation | None) -> SourceLocation | None:
    """The location of `op`, or of its nearest ancestor that has one (ops made by passes may not)."""
    while op is not None:
        loc = SourceLocation.from_attr(op.location)
        if loc is not None:
            return loc
        op = op.parent_op()
    return None


class TilecError(Exception):
    """An error the user can fix: a message, and where it happened when that is known."""

    def __init__(self, message: str, location: SourceLocation | None = None, notes: tuple[str, ...] = ()):
        self.message = message
        self.location = location
        self.notes = tuple(notes)
        super().__init__(self.render())

    def render(self, quote_source: bool = True) -> str:
        """`file:line:col: error: message`, then the source line and a caret under the column."""
        if self.location is None:
            text = f"error: {self.message}"
        else:
            text = f"{self.location}: error: {self.message}"
            if quote_source:
                src = _source_line(self.location.file, self.location.line)
                if src is not None:
                    col = max(self.location.col - 1, 0)
                    text += f"\n{src}\n{' ' * col}{'^' * max(self.location.length, 1)}"
        for note in self.notes:
            text += f"\nnote: {note}"
        return text


class IndexOutOfRange(TilecError, IndexError):
    """An index of a gather or scatter (`take`, `take_along_axis`, `scatter_add`, ...) outside its
    axis: raised by the interpreter at the op, and by compiled kernels after the call (the
    kernels never read or write out of bounds; they set the call's status word instead)."""


class NotSupportedYet(TilecError):
    """A feature that is planned but not built: raised instead of producing fake output."""

    def __init__(self, what: str, location: SourceLocation | None = None):
        super().__init__(f"not supported yet: {what}", location)
