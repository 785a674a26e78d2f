"""Options as data: each knob is a dataclass field with its default, doc line and legal values.

A pass's options, a backend's options and the mapping knobs are frozen dataclasses whose fields
are declared with `knob(...)`::

    @dataclass(frozen=True)
    class GemmKnobs(Options):
        block_m: int = knob(128, "rows of C per block", choices=(16, 32, 64, 128, 256))

The same declaration gives the pipeline syntax (`block-m=64`), the keyword checks of
`op.compile(..., block_m=64)`, "unknown option" errors with the legal names, validation of every
value up front (with the legal set in the message) and the option tables in docs/*.md.
Cross-field rules go in `Options.problems()`.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar, get_args, get_type_hints

from tilec.diagnostics import TilecError


class OptionError(TilecError):
    """An option name or value the user gave is not valid; `option` names it (dashes)."""

    def __init__(self, message: str, option: str | None = None, location=None):
        self.option = option
        super().__init__(message, location)


@dataclass(frozen=True)
class Knob:
    """What a knob means and which values it takes (the metadata of one option field)."""

    doc: str
    choices: tuple | None = None
    minimum: int | None = None
    maximum: int | None = None
    multiple_of: int | None = None
    tunable: bool = False  # a mapping decision the selection layer may search over
    tune: tuple | None = None  # the values a tuner tries (else `choices`; an open range is not searched)
    legal_text: str | None = None  # the legal values in words, where problems() checks them

    def legal(self) -> str:
        """The legal values in words: `one of 16, 32, 64`, `a multiple of 32 from 32 to 1024`, ..."""
        if self.legal_text is not None:
            return self.legal_text
        if self.choices is not None:
            return "one of " + ", ".join(_fmt(c) for c in self.choices)
        parts = []
        if self.multiple_of:
            parts.append(f"a multiple of {self.multiple_of}")
        if self.minimum is not None and self.maximum is not None:
            parts.append(f"from {self.minimum} to {self.maximum}")
        elif self.minimum is not None:
            parts.append(f"at least {self.minimum}")
        elif self.maximum is not None:
            parts.append(f"at most {self.maximum}")
        return " ".join(parts) if parts else "any value"

    def problem(self, value: Any, hint: Any) -> str | None:
        """Why `value` is not legal for this knob (of type `hint`), or None."""
        args = get_args(hint)
        if args and type(None) in args:  # `str | None`: None means "the backend decides"
            if value is None:
                return None
            hint = next(a for a in args if a is not type(None))
        if hint is bool:
            return None if isinstance(value, bool) else "expects true or false"
        if hint is int and (isinstance(value, bool) or not isinstance(value, int)):
            return "expects an integer"
        if hint is str and not isinstance(value, str):
            return "expects a string"
        if self.choices is not None:
            return None if value in self.choices else f"must be {self.legal()}"
        if isinstance(value, int):
            bad = (
                (self.minimum is not None and value < self.minimum)
                or (self.maximum is not None and value > self.maximum)
                or (self.multiple_of and value % self.multiple_of)
            )
            if bad:
                return f"must be {self.legal()}"
        return None


def knob(default: Any, doc: str, **constraints: Any) -> Any:
    """A dataclass field declaring one option: `block_m: int = knob(128, "rows of C per block", ...)`."""
    return field(default=default, metadata={"knob": Knob(doc, **constraints)})


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def dashed(name: str) -> str:
    """The option's spelling in pipeline strings and docs (`block_m` -> `block-m`)."""
    return name.replace("_", "-")


@dataclass(frozen=True)
class OptionInfo:
    name: str  # Python spelling (block_m)
    hint: Any
    default: Any
    knob: Knob


OptionsT = TypeVar("OptionsT", bound="Options")


@dataclass(frozen=True)
class Options:
    """Base of options dataclasses: validated on construction (every knob, then `problems()`)."""

    what: ClassVar[str] = "options"  # how errors name the owner: "target cuda", "pass 'tile-to-mapped'"

    def __post_init__(self) -> None:
        for info in option_infos(type(self)):
            why = info.knob.problem(getattr(self, info.name), info.hint)
            if why:
                raise OptionError(
                    f"option '{dashed(info.name)}' of {self.what} {why}, got {_fmt(getattr(self, info.name))}",
                    dashed(info.name),
                )
        for why in self.problems():
            raise OptionError(f"options of {self.what}: {why}")

    def problems(self) -> Iterator[str]:
        """Cross-field rules (override): yield one message per violated rule."""
        return iter(())

    @classmethod
    def create(cls: type[OptionsT], given: Mapping[str, Any]) -> OptionsT:
        """From keyword arguments (either spelling), with an error naming the legal options."""
        known = {i.name: i for i in option_infos(cls)}
        kwargs = {}
        for key, value in given.items():
            name = key.replace("-", "_")
            if name not in known:
                raise unknown_option(key, cls.what, [dashed(n) for n in known])
            kwargs[name] = value
        return cls(**kwargs)

    def items(self) -> dict[str, Any]:
        """Option name (Python spelling) -> value, in declaration order."""
        return {i.name: getattr(self, i.name) for i in option_infos(type(self))}

    def changed(self) -> dict[str, Any]:
        """The options that differ from their defaults."""
        return {i.name: getattr(self, i.name) for i in option_infos(type(self)) if getattr(self, i.name) != i.default}

    def replace(self: OptionsT, **changes: Any) -> OptionsT:
        return dataclasses.replace(self, **changes)

    def text(self) -> str:
        """`block-m=64 stages=3`: the options that differ from their defaults, in pipeline syntax."""
        return " ".join(f"{dashed(k)}={_fmt(v)}" for k, v in self.changed().items())


def unknown_option(key: str, what: str, names: list[str]) -> OptionError:
    close = difflib.get_close_matches(dashed(key), names, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return OptionError(f"{what} has no option '{key}' (options: {', '.join(names) or 'none'}){hint}", dashed(key))


def option_infos(cls: type) -> list[OptionInfo]:
    """The knob fields of an options dataclass, in declaration order."""
    hints = get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        k = f.metadata.get("knob")
        if k is None or not f.init:
            continue
        out.append(OptionInfo(f.name, hints.get(f.name, Any), f.default, k))
    return out


def options_table(cls: type) -> str:
    """A Markdown table of the knobs: option, default, legal values, meaning (for docs/*.md)."""
    rows = ["| option | default | legal values | meaning |", "|---|---|---|---|"]
    for i in option_infos(cls):
        default = "(see meaning)" if i.default is None else f"`{_fmt(i.default)}`"
        legal = i.knob.legal() if i.hint not in (bool,) else "true, false"
        rows.append(f"| `{dashed(i.name)}` | {default} | {legal} | {i.knob.doc} |")
    return "\n".join(rows) + "\n"


__all__ = [
    "Knob",
    "OptionError",
    "OptionInfo",
    "Options",
    "dashed",
    "knob",
    "option_infos",
    "options_table",
    "unknown_option",
]
