"""ATen's `_foreach_` ops (the multi-tensor forms torch's optimizers and gradient clipping use)
on tilec: one tile op per call over all the lists' tensors, each element computed by the
single-tensor entry of the same op (`_foreach_addcdiv_.ScalarList` element i is
`addcdiv_.default(self[i], tensor1[i], tensor2[i], value=scalars[i])`)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from tilec.torch.aten.registry import Plan

# foreach argument name -> the single op's name for it (per single-op family)
_RENAME = {
    "scalar": "other",
    "scalars": "other",
    "tensors1": "end",
    "weights": "weight",
}
_ADDC_RENAME = {"scalar": "value", "scalars": "value"}


def _single_name(foreach: str, overload: str, in_place: bool) -> str:
    """The single-tensor overload computing one element of a foreach overload."""
    base = foreach + ("_" if in_place else "")
    if foreach in ("addcmul", "addcdiv"):
        return f"{base}.default"
    if foreach == "lerp":
        return f"{base}.Scalar"
    if foreach == "norm":
        return "linalg_vector_norm.default"
    if overload == "default":
        return f"{base}.default"
    return f"{base}.Tensor" if overload in ("List", "Scalar", "ScalarList", "Tensor") else ""


def _elements(p: dict, n: int, rename: dict) -> list[dict] | str:
    out = []
    for i in range(n):
        q = {}
        for k, v in p.items():
            key = rename.get(k, k)
            if isinstance(v, list | tuple):
                if len(v) != n:
                    return "lists of different lengths"
                q[key] = v[i]
            else:
                q[key] = v
        out.append(q)
    return out


def _foreach(single, foreach: str, in_place: bool):
    rename = _ADDC_RENAME if foreach in ("addcmul", "addcdiv") else _RENAME

    def plan(p):
        selves = p["self"]
        n = len(selves)
        if n == 0:
            return "an empty list"
        elems = _elements(p, n, rename)
        if isinstance(elems, str):
            return elems
        if foreach == "norm":
            elems = [
                {"self": q["self"], "ord": q.get("ord", 2), "dim": None, "keepdim": False, "dtype": q.get("dtype")}
                for q in elems
            ]
        subs = []
        for q in elems:
            sub = single(q)
            if isinstance(sub, str):
                return f"element {len(subs)}: {sub}"
            if sub.returns is not None:
                return "an element op with a custom result"
            subs.append(sub)
        sizes = [len(s.inputs) for s in subs]
        updates, offset = [], 0
        for s, k in zip(subs, sizes):
            updates.extend(offset + u for u in s.updates)
            offset += k
        bodies = [s.body for s in subs]

        def body(*vals):
            outs, start = [], 0
            for b, k in zip(bodies, sizes):
                r = b(*vals[start : start + k])
                outs.extend(r if isinstance(r, tuple) else (r,))
                start += k
            return tuple(outs)

        key = tuple((s.key, len(s.inputs), s.updates) for s in subs)
        returns = (lambda outs: None) if in_place else list
        return Plan(key, body, tuple(x for s in subs for x in s.inputs), updates=tuple(updates), returns=returns)

    return plan


_FOREACH = re.compile(r"_foreach_([a-z0-9]+?)(_?)\.(\w+)$")
OVERLOADS = (
    "add.List add.Scalar add.ScalarList add.Tensor add_.List add_.Scalar add_.ScalarList add_.Tensor "
    "sub.List sub.Scalar sub.ScalarList sub_.List sub_.Scalar sub_.ScalarList "
    "mul.List mul.Scalar mul.ScalarList mul.Tensor mul_.List mul_.Scalar mul_.ScalarList mul_.Tensor "
    "div.List div.Scalar div.ScalarList div.Tensor div_.List div_.Scalar div_.ScalarList div_.Tensor "
    "maximum_.List maximum_.Scalar minimum_.List minimum_.Scalar "
    "sqrt.default sqrt_.default neg.default neg_.default exp.default exp_.default reciprocal.default "
    "reciprocal_.default abs.default abs_.default "
    "addcmul.Scalar addcmul.ScalarList addcmul_.Scalar addcmul_.ScalarList "
    "addcdiv.Scalar addcdiv.ScalarList addcdiv_.Scalar addcdiv_.ScalarList "
    "lerp.Scalar lerp_.Scalar norm.Scalar"
).split()


def table(base: Mapping) -> dict:
    """The foreach overloads whose single-tensor op is in `base`."""
    out = {}
    for name in OVERLOADS:
        m = _FOREACH.match(f"_foreach_{name}")
        foreach, under, overload = m.group(1), m.group(2), m.group(3)
        single = _single_name(foreach, overload, bool(under))
        if single in base:
            out[f"_foreach_{name}"] = _foreach(base[single], foreach, bool(under))
    return out
