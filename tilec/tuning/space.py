"""The search space of a target: its tunable knobs and the values the tuner tries."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from tilec.options import OptionError, Options


def knob_values(cls: type[Options], base: Options, only: list[str] | None = None) -> dict[str, tuple]:
    """Per tunable knob of `cls` (or of `only`), the values to try: the knob's `tune` values, else
    its `choices`; knobs with neither (an open range) are not searched. The base value is kept
    first, so a knob's first candidate is the default."""
    out: dict[str, tuple] = {}
    for f in dataclasses.fields(cls):
        k = f.metadata.get("knob")
        if k is None or not k.tunable or (only is not None and f.name not in only):
            continue
        values = k.tune if k.tune is not None else k.choices
        if not values:
            continue
        current = getattr(base, f.name)
        out[f.name] = (current, *[v for v in values if v != current])
    if only is not None:
        missing = sorted(set(only) - set(out))
        if missing:
            raise OptionError(
                f"not tunable here: {', '.join(m.replace('_', '-') for m in missing)} "
                f"(tunable: {', '.join(sorted(n.replace('_', '-') for n in knob_values(cls, base)))})"
            )
    return out


def legal(cls: type[Options], point: dict) -> bool:
    """True when `point` passes the options' own checks (values and cross-knob rules): an illegal
    point is pruned before anything is compiled."""
    try:
        cls(**point)
    except OptionError:
        return False
    return True


def search_points(cls: type[Options], base: Options, values: dict[str, tuple], best: dict) -> Iterator[dict]:
    """Coordinate search: from `best` (the options as a dict of the tunable knobs), each knob's other
    values one at a time, legal points only. The tuner calls it again from a new best."""
    for name, vals in values.items():
        for v in vals:
            if v == best.get(name):
                continue
            point = {**best, name: v}
            if legal(cls, {**dataclasses.asdict(base), **point}):
                yield point


__all__ = ["knob_values", "legal", "search_points"]
