"""Pipeline strings and the pass manager.

A pipeline string names passes separated by commas; options go in braces, separated by spaces,
list values by commas (the xDSL convention)::

    tile-canonicalize,tile-to-mapped{target=cuda block-m=128},my-pass{sizes=32,16},cse

`parse_pipeline` returns `PassSpec`s with the column of every name and option, so a bad pipeline
is reported as `<pipeline>:1:COL: error: ...` with a caret. `PassManager` runs passes in process
(IR is never round-tripped through text), verifies after every pass by default, can print the IR
before/after chosen passes and time each pass. Named pipelines (`lower-to-c`, ...) expand to
several passes; they live in `tilec.passes.registry`.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import NoneType, UnionType
from typing import IO, Any, Union, get_args, get_origin, get_type_hints

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tilec.diagnostics import SourceLocation, TilecError, register_source
from tilec.options import OptionError

PIPELINE_SOURCE = "<pipeline>"

Value = str | int | float | bool


@dataclass
class OptionSpec:
    name: str
    values: tuple[Value, ...]
    col: int
    value_col: int


@dataclass
class PassSpec:
    """One element of a pipeline string: a pass (or named pipeline) name and its options."""

    name: str
    col: int
    options: list[OptionSpec] = field(default_factory=list)

    def __str__(self) -> str:
        if not self.options:
            return self.name
        opts = " ".join(
            o.name if not o.values else f"{o.name}={','.join(_fmt(v) for v in o.values)}" for o in self.options
        )
        return f"{self.name}{{{opts}}}"


def _fmt(v: Value) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v if v.replace("-", "").replace("_", "").replace(".", "").isalnum() else f'"{v}"'
    return str(v)


class _Scanner:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def error(self, message: str, pos: int | None = None, length: int = 1) -> TilecError:
        p = self.pos if pos is None else pos
        return TilecError(message, SourceLocation(PIPELINE_SOURCE, 1, p + 1, length))

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def ident(self, what: str) -> tuple[str, int]:
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos].isalnum() or self.text[self.pos] in "-_."):
            self.pos += 1
        if self.pos == start:
            found = self.peek() or "end of pipeline"
            raise self.error(f"expected {what}, found '{found}'")
        return self.text[start : self.pos], start

    def value(self) -> tuple[Value, int]:
        start = self.pos
        if self.peek() == '"':
            self.pos += 1
            out = []
            while self.peek() not in ('"', ""):
                if self.peek() == "\\" and self.pos + 1 < len(self.text):
                    self.pos += 1
                out.append(self.peek())
                self.pos += 1
            if self.peek() != '"':
                raise self.error("unterminated string in pass option", start)
            self.pos += 1
            return "".join(out), start
        while self.pos < len(self.text) and self.text[self.pos] not in " ,}{":
            self.pos += 1
        word = self.text[start : self.pos]
        if not word:
            raise self.error("expected an option value", start)
        if word in ("true", "false"):
            return word == "true", start
        if not word.isascii():  # int() and float() would read other scripts' digits ('٣' is 3)
            return word, start
        try:
            return int(word), start
        except ValueError:
            pass
        try:
            return float(word), start
        except ValueError:
            return word, start


def parse_pipeline(text: str, register: bool = True) -> list[PassSpec]:
    """Parse `a,b{opt=1 list=1,2 flag},c` into `PassSpec`s, raising located `TilecError`s.

    `register` keeps the text for quoting in diagnostics (off for tilec's own named pipelines)."""
    if register:
        register_source(PIPELINE_SOURCE, text)
    s = _Scanner(text)
    specs: list[PassSpec] = []
    if not text.strip():
        return specs
    while True:
        while s.peek() == " ":
            s.pos += 1
        name, col = s.ident("a pass name")
        spec = PassSpec(name, col + 1)
        if s.peek() == "{":
            s.pos += 1
            seen: set[str] = set()
            while True:
                while s.peek() == " ":
                    s.pos += 1
                if s.peek() == "}":
                    s.pos += 1
                    break
                if s.peek() == ",":
                    raise s.error("options are separated by spaces, not commas (commas separate list values)")
                if s.peek() == "":
                    raise s.error("missing '}' at end of pass options")
                key, kcol = s.ident("an option name")
                if key in seen:
                    raise s.error(f"option '{key}' given twice", kcol, len(key))
                seen.add(key)
                values: list[Value] = []
                vcol = kcol
                if s.peek() == "=":
                    s.pos += 1
                    v, vcol = s.value()
                    values.append(v)
                    while s.peek() == ",":
                        comma = s.pos
                        s.pos += 1
                        v, _ = s.value()
                        if isinstance(v, str) and "=" in v and not s.text[comma + 1 :].startswith('"'):
                            # `{a=1,b=2}`: a second option after a comma, not a list value
                            raise s.error(
                                "options are separated by spaces, not commas (commas separate list values)", comma
                            )
                        values.append(v)
                spec.options.append(OptionSpec(key, tuple(values), kcol + 1, vcol + 1))
                if s.peek() not in (" ", "}"):
                    raise s.error(
                        "expected a space or '}' after a pass option"
                        if s.peek()
                        else "missing '}' at end of pass options"
                    )
        specs.append(spec)
        while s.peek() == " ":
            s.pos += 1
        if s.peek() == "":
            return specs
        if s.peek() != ",":
            raise s.error(f"expected ',' between passes, found '{s.peek()}'")
        s.pos += 1


# --- turning specs into pass objects --------------------------------------------------------------


def convert_option_value(value: tuple[Value, ...], hint: Any) -> Any:
    """Fit the parsed values of one option to the dataclass field's type annotation."""
    origin = get_origin(hint)
    if origin in (Union, UnionType):
        args = [a for a in get_args(hint) if a is not NoneType]
        if not value and NoneType in get_args(hint):
            return None
        errors = []
        for a in args:
            try:
                return convert_option_value(value, a)
            except ValueError as e:
                errors.append(str(e))
        raise ValueError(errors[0] if errors else f"cannot convert {value}")
    if origin is tuple:
        inner = get_args(hint)[0] if get_args(hint) else Any
        return tuple(convert_option_value((v,), inner) for v in value)
    if not value:
        if hint is bool:
            return True  # `{flag}` means flag=true
        raise ValueError("needs a value")
    if len(value) != 1:
        raise ValueError(f"takes one value, got {len(value)}")
    v = value[0]
    if hint is bool:
        if isinstance(v, bool):
            return v
        raise ValueError(f"expects true or false, got {_fmt(v)}")
    if hint is int:
        if isinstance(v, int) and not isinstance(v, bool):
            return v
        raise ValueError(f"expects an integer, got {_fmt(v)}")
    if hint is float:
        if isinstance(v, int | float) and not isinstance(v, bool):
            return float(v)
        raise ValueError(f"expects a number, got {_fmt(v)}")
    if hint is str:
        return _fmt(v) if not isinstance(v, str) else v
    return v


def pass_options(pass_cls: type) -> dict[str, tuple[Any, Any]]:
    """Option name (dashes) -> (type hint, default) for a pass dataclass."""
    hints = get_type_hints(pass_cls)
    out = {}
    for f in dataclasses.fields(pass_cls):
        if f.name == "name" or not f.init:
            continue
        default = (
            f.default
            if f.default is not dataclasses.MISSING
            else (f.default_factory() if f.default_factory is not dataclasses.MISSING else dataclasses.MISSING)
        )
        out[f.name.replace("_", "-")] = (hints.get(f.name, Any), default)
    return out


def pass_text(p: ModulePass) -> str:
    """A pass object as pipeline text: its name and the options that differ from their defaults."""
    opts = []
    for f in dataclasses.fields(p):
        if f.name == "name" or not f.init:
            continue
        value = getattr(p, f.name)
        default = (
            f.default
            if f.default is not dataclasses.MISSING
            else (f.default_factory() if f.default_factory is not dataclasses.MISSING else dataclasses.MISSING)
        )
        if value != default:
            shown = ",".join(_fmt(v) for v in value) if isinstance(value, tuple) else _fmt(value)
            opts.append(f"{f.name.replace('_', '-')}={shown}")
    return f"{p.name}{{{' '.join(opts)}}}" if opts else p.name


def instantiate(pass_cls: type[ModulePass], spec: PassSpec) -> ModulePass:
    """Build a pass object from its spec, with located errors for unknown or ill-typed options."""
    known = pass_options(pass_cls)
    kwargs: dict[str, Any] = {}
    for opt in spec.options:
        key = opt.name.replace("_", "-")
        if key not in known:
            names = ", ".join(known) or "none"
            raise TilecError(
                f"pass '{spec.name}' has no option '{opt.name}' (options: {names})",
                SourceLocation(PIPELINE_SOURCE, 1, opt.col, len(opt.name)),
            )
        hint, _ = known[key]
        try:
            kwargs[key.replace("-", "_")] = convert_option_value(opt.values, hint)
        except ValueError as e:
            raise TilecError(
                f"option '{opt.name}' of pass '{spec.name}' {e}", SourceLocation(PIPELINE_SOURCE, 1, opt.value_col)
            ) from None
    missing = [k for k, (_, d) in known.items() if d is dataclasses.MISSING and k.replace("-", "_") not in kwargs]
    if missing:
        raise TilecError(
            f"pass '{spec.name}' needs option(s) {', '.join(missing)}",
            SourceLocation(PIPELINE_SOURCE, 1, spec.col, len(spec.name)),
        )
    try:
        return pass_cls(**kwargs)
    except OptionError as e:
        opt = next((o for o in spec.options if o.name.replace("_", "-") == e.option), None)
        col, length = (opt.col, len(opt.name)) if opt else (spec.col, len(spec.name))
        raise TilecError(e.message, SourceLocation(PIPELINE_SOURCE, 1, col, length)) from None
    except (ValueError, TypeError) as e:
        raise TilecError(
            f"pass '{spec.name}': {e}", SourceLocation(PIPELINE_SOURCE, 1, spec.col, len(spec.name))
        ) from None


# --- the pass manager -------------------------------------------------------------------------------


class PassFailure(TilecError):
    """Raised by a pass on input it cannot handle; names the op (and so the location)."""

    def __init__(self, op, message: str):
        from tilec.diagnostics import op_location

        self.op = op
        super().__init__(message, op_location(op))


# passes from these packages are tested with TILEC_VERIFY_EACH=1; the pass manager does not
# re-verify between them by default (see PassManager.verify_each)
TRUSTED_PASS_MODULES = ("tilec.", "xdsl.")


@dataclass
class PassManager:
    """Runs passes in order on one module, in process.

    verify_each: True verifies the IR after every pass; False never verifies it; None (the
    default) verifies after each pass that is not tilec's or xDSL's own (a plugin's, a user's) and
    after the last pass, so a broken pass is still caught at once while the built-in pipelines do
    not pay for re-verifying what their tested passes made. `TILEC_VERIFY_EACH=1` in the
    environment turns None into True (the test suite runs that way).
    print_before / print_after: pass names whose input / output IR is printed to `dump_to`;
    print_after_all: print after every pass. timing: collect seconds per pass (see `report_timing`).
    """

    passes: list[ModulePass]
    verify_each: bool | None = None
    print_before: frozenset[str] = frozenset()
    print_after: frozenset[str] = frozenset()
    print_after_all: bool = False
    print_generic: bool = False
    timing: bool = False
    dump_to: IO[str] | None = None
    debug: bool = False
    timings: list[tuple[str, float]] = field(default_factory=list)

    def _dump(self, when: str, name: str, module: ModuleOp) -> None:
        from tilec.ir import print_module

        out = self.dump_to or sys.stderr
        out.write(f"// -----// IR Dump {when} {name} //----- //\n")
        out.write(print_module(module, generic=self.print_generic))
        out.flush()

    def _verifies_after(self, p: ModulePass, last: bool) -> bool:
        if self.verify_each is not None:
            return self.verify_each
        if os.environ.get("TILEC_VERIFY_EACH", "") not in ("", "0"):
            return True
        return last or not type(p).__module__.startswith(TRUSTED_PASS_MODULES)

    def run(self, ctx: Context, module: ModuleOp) -> None:
        from tilec.ir import verify_module

        for n, p in enumerate(self.passes):
            verify = self._verifies_after(p, n == len(self.passes) - 1)
            if p.name in self.print_before:
                self._dump("Before", p.name, module)
            start = time.perf_counter()
            try:
                p.apply(ctx, module)
            except TilecError as e:
                from tilec.diagnostics import op_location

                # an error a pass raised without an op is placed at the module it ran on
                raise TilecError(
                    f"in pass '{p.name}': {e.message}", e.location or op_location(module), e.notes
                ) from None
            except SystemExit as e:  # a plugin's sys.exit() is not the tool's exit status
                raise TilecError(
                    f"pass '{p.name}' called sys.exit({e.code!r}) (a pass reports errors with PassFailure)"
                ) from None
            except Exception as e:
                if self.debug:
                    raise
                raise TilecError(
                    f"internal error in pass '{p.name}': {type(e).__name__}: {e}",
                    None,
                    ("this is a bug in the pass; rerun with --debug for a traceback",),
                ) from e
            elapsed = time.perf_counter() - start
            if verify:
                try:
                    verify_module(module)
                except TilecError as e:
                    raise TilecError(f"IR after pass '{p.name}' does not verify: {e.message}", e.location) from None
                elapsed_v = time.perf_counter() - start - elapsed
            else:
                elapsed_v = 0.0
            self.timings.append((p.name, elapsed))
            if verify:
                self.timings.append((f"(verify after {p.name})", elapsed_v))
            if self.print_after_all or p.name in self.print_after:
                self._dump("After", p.name, module)

    def report_timing(self) -> str:
        total = sum(t for _, t in self.timings) or 1e-12
        lines = [
            "===-------------------------------------------------------------------------===",
            "                         tilec pass execution timing",
            "===-------------------------------------------------------------------------===",
            f"  Total: {total * 1000:.3f} ms",
            "  ms        %      pass",
        ]
        for name, t in self.timings:
            lines.append(f"  {t * 1000:8.3f}  {100 * t / total:5.1f}%  {name}")
        return "\n".join(lines) + "\n"


def format_exception(e: BaseException) -> str:
    return "".join(traceback.format_exception(e))


def build_passes(
    specs: Sequence[PassSpec],
    lookup: Callable[[str], type[ModulePass] | None],
    expand_named: Callable[[PassSpec], list[ModulePass] | None],
    known_names: Callable[[], list[str]],
) -> list[ModulePass]:
    """Resolve each spec to pass objects (named pipelines expand to several)."""
    out: list[ModulePass] = []
    for spec in specs:
        expanded = expand_named(spec)
        if expanded is not None:
            out.extend(expanded)
            continue
        cls = lookup(spec.name)
        if cls is None:
            import difflib

            close = difflib.get_close_matches(spec.name, known_names(), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else " (see tilec-opt --list-passes)"
            raise TilecError(
                f"unknown pass '{spec.name}'{hint}", SourceLocation(PIPELINE_SOURCE, 1, spec.col, len(spec.name))
            )
        out.append(instantiate(cls, spec))
    return out
