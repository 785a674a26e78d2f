"""Errors of the Python DSL, located at the user's own file and line.

Every mistake in user code (a shape mismatch, an unsupported dtype, a Python construct the tracer
cannot follow, arrays that do not fit the op) raises `TileError`. Its location is the first stack
frame outside the tilec package: the user's expression while tracing, the call site otherwise.
"""

from __future__ import annotations

import itertools
import os
import sys
from types import FrameType

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr

from tilec.diagnostics import SourceLocation, TilecError

_TILEC_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class TileError(TilecError):
    """An error in a tile program or in how it is called, at the user's file and line."""


def _in_tilec(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_TILEC_DIR)


def user_frame() -> FrameType | None:
    """The innermost stack frame whose code lives outside the tilec package."""
    f = sys._getframe(1)
    while f is not None and _in_tilec(f.f_code.co_filename):
        f = f.f_back
    return f


def frame_location(f: FrameType) -> SourceLocation:
    """file:line:col of the expression a frame is executing (col 1 when Python cannot tell)."""
    line, col, length = f.f_lineno, 1, 1
    try:
        if f.f_lasti >= 0:
            pos = next(itertools.islice(f.f_code.co_positions(), f.f_lasti // 2, None))
            start_line, end_line, start_col, end_col = pos
            if start_line is not None:
                line = start_line
                if start_col is not None:
                    col = start_col + 1
                    if end_line == start_line and end_col is not None and end_col > start_col:
                        length = end_col - start_col
    except (AttributeError, StopIteration, ValueError):  # pragma: no cover - pre-3.11 or odd frames
        pass
    return SourceLocation(f.f_code.co_filename, line or 1, col, length)


def user_location() -> SourceLocation | None:
    f = user_frame()
    return None if f is None else frame_location(f)


def location_attr(loc: SourceLocation | None) -> FileLineColLoc | None:
    if loc is None:
        return None
    return FileLineColLoc(StringAttr(loc.file), IntAttr(loc.line), IntAttr(loc.col))


def user_error(message: str, notes: tuple[str, ...] | list[str] = ()) -> TileError:
    """A `TileError` at the user's current line."""
    return TileError(message, user_location(), tuple(notes))
