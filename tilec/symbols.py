"""The spelling of IR symbols in emitted code: ONE mangling for every target (C, HIP C++, PTX).

A symbol of the IR (a `tile.func` / `hw.cpu.func` / kernel name, a shared-memory array, the
callee of a call) may be any string (`@"x;y"`, `@"é"`, `@exp`, `@omp_get_num_threads`). The
emitters never print it as it is: `symbol(name)` is the identifier they print, and the runtimes
look the compiled function up by the same `symbol(name)`.

    symbol("softmax")              == "tilec_u_softmax"
    symbol("omp_get_num_threads")  == "tilec_u_omp_get_num_threads"
    symbol("my func")              == "tilec_u_myZ20Zfunc"
    symbol("é")                    == "tilec_u_ZE9Z"

The scheme:
- every symbol starts with `PREFIX` (`tilec_u_`), so it is never a C / C++ / PTX keyword or
  directive, never a libc / libm / libgomp / CUDA / HIP symbol, and never one of tilec's own
  names (the preludes' `tilec_expf`, `tilec_f16`, the emitters' `tilec_dsmem`, `tilec_lds`, ...:
  those must not start with `tilec_u_`);
- ASCII letters, digits and `_` are kept, so the IR name stays readable;
- every other character is `Z`, the upper-case hex of its code point, `Z` (`-` is `Z2DZ`), and a
  `Z` of the name is `ZZ`;
- a `_` that would follow another `_` is escaped (`Z5FZ`): C++ reserves every identifier with
  `__` in it (and the prefix ends with `_`, so a leading `_` of the name is escaped too).

The result matches `[A-Za-z][A-Za-z0-9_]*` (a C, C++ and PTX identifier), has no `__`, and the
mapping is injective: `demangle(symbol(name)) == name` for every string, so distinct names stay
distinct symbols. The escape is not `_XX_`: with `_` kept, `a_2D_b` and `a-b` would meet, and two
escapes in a row would make a `__`.

`display(name)` is how a name is shown to people, in comments of the emitted code (next to the
definition) and in messages: `@name`, or `@"..."` with MLIR's escapes where it is not a bare
identifier. It is printable ASCII without `*`, `/`, a newline or a trailing backslash, so it can
end neither a `/* */` nor a `//` comment and cannot inject text.

This module imports nothing of tilec and no xDSL: the emitters and the runtimes both use it.
"""

from __future__ import annotations

import re

PREFIX = "tilec_u_"
"""The start of every emitted user symbol (no name of tilec's own starts with it)."""

ESCAPE = "Z"
_KEPT = re.compile(r"[A-Za-z0-9_]")
_SYMBOL = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")  # MLIR's bare-id: printed @name
_SHOWN = re.compile(r"[ !#-)+-.0-\[\]-~]")  # printable ASCII but for " * / \ (shown as \HH)


def symbol(name: str) -> str:
    """The identifier that emitted code uses for the IR symbol `name` (module docstring)."""
    out = [PREFIX]
    prev = PREFIX[-1]
    for c in name:
        if c == ESCAPE:
            piece = ESCAPE + ESCAPE
        elif _KEPT.fullmatch(c) and not (c == "_" and prev == "_"):
            piece = c
        else:
            piece = f"{ESCAPE}{ord(c):X}{ESCAPE}"
        out.append(piece)
        prev = piece[-1]
    return "".join(out)


def demangle(sym: str) -> str:
    """The IR name of a `symbol(...)`; ValueError if `sym` is not one."""
    if not sym.startswith(PREFIX) or not _SYMBOL.fullmatch(sym):
        raise ValueError(f"{sym!r} is not a tilec symbol (they start with {PREFIX})")
    out: list[str] = []
    i, body = 0, sym[len(PREFIX) :]
    while i < len(body):
        c = body[i]
        if c != ESCAPE:
            out.append(c)
            i += 1
            continue
        end = body.find(ESCAPE, i + 1)
        if end < 0:
            raise ValueError(f"{sym!r}: an escape {ESCAPE}... that does not end")
        code = body[i + 1 : end]
        if not code:
            out.append(ESCAPE)
        elif re.fullmatch(r"[0-9A-F]+", code) and int(code, 16) <= 0x10FFFF:
            out.append(chr(int(code, 16)))
        else:
            raise ValueError(f"{sym!r}: {ESCAPE}{code}{ESCAPE} is not an escape")
        i = end + 1
    name = "".join(out)
    if symbol(name) != sym:  # e.g. an escaped letter: not what symbol() writes
        raise ValueError(f"{sym!r} is not the tilec symbol of any name")
    return name


def display(name: str) -> str:
    """`name` for people (comments, messages): @name, or @"..." with MLIR's \\HH escapes (UTF-8
    bytes) for what is not printable ASCII and for " * / \\ (module docstring)."""
    if _BARE.fullmatch(name):
        return "@" + name
    text = "".join(
        c if _SHOWN.fullmatch(c) else "".join(f"\\{b:02X}" for b in c.encode("utf-8", "surrogatepass")) for c in name
    )
    return f'@"{text}"'


def comment_text(text: str) -> str:
    """Any text (a location, a message) made safe inside a `//` or `/* */` comment of C, C++ or
    PTX: printable ASCII, other characters as \\HH (UTF-8 bytes), a backslash as \\5C (so
    none ends a line), and `*/` as `*\\2F`."""
    out = "".join(
        c if " " <= c <= "~" and c != "\\" else "".join(f"\\{b:02X}" for b in c.encode("utf-8", "surrogatepass"))
        for c in text
    )
    return out.replace("*/", "*\\2F")


def foreach_symbol(name: str) -> str:
    """The C identifier of the one-call wrapper of entry function `name` when it runs over lists
    (`tilec.foreach`): `tilec_foreach_` and the mangled name (tilec's own prefix, not PREFIX, so it
    meets no user symbol; injective as `symbol` is)."""
    return "tilec_foreach_" + symbol(name)[len(PREFIX) :]


__all__ = ["PREFIX", "comment_text", "demangle", "display", "foreach_symbol", "symbol"]
