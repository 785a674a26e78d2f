"""Save or recompute: which primal values the forward keeps for the backward.

The backward needs some primal values (a rule's `ctx.primal(v)`). Each is either *saved* (the
forward-with-residuals stores it into an extra output, a residual, and the backward loads it)
or *recomputed* in the backward from the primal inputs and the saved values. The default policy:

- cheap ops are recomputed: elementwise math, comparisons, selects, casts, broadcasts,
  reshapes, transposes, slices, pads, concatenations, constants, iota, splats, `tile.dim`, the
  loads of the inputs (the backward gets the inputs) and `tile.random_bits` (regenerated from its
  seed and offset: dropout's mask is never saved);
- everything else is saved: reductions, contractions, convolutions, scans, sorts, pools,
  gathers and scatters (softmax's row max and sum, a matmul's result);
- a cheap elementwise value computed only from saved values and constants (layernorm's mean
  `sum * (1/n)` and rstd `rsqrt(var + eps)`, no array input in between) is saved itself instead
  of the values it is computed from: it is no larger, and the backward does not redo the chain.

`tilec.vjp(op, save=...)` overrides it:

- `save=None`: the default policy;
- `save="nothing"`: recompute everything but the inputs (a full rematerialization; random bits
  included); `save="everything"`: save every needed value that is not an input or random bits;
- `save=["tile.exp", "reduce"]`: op names (with or without `tile.`) whose results are saved, the
  rest by the default policy;
- `save=callable`: `callable(op) -> True` (save), `False` (recompute) or `None` (default), for
  each primal op whose result the backward needs.

`tile.random_bits` is always recomputed and loads of inputs are always read from the inputs,
whatever `save` says. The combined VJP op (`tilec.vjp(op)` called directly) computes everything
in one function; the policy shapes `forward_with_residuals` / `backward`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from xdsl.ir import Operation

from tilec.dialects import tile

CHEAP_OPS: tuple[type[Operation], ...] = (
    tile.UnaryOp,
    tile.BinaryOp,
    tile.CmpOp,
    tile.SelectOp,
    tile.CastOp,
    tile.BitcastOp,
    tile.BroadcastOp,
    tile.ReshapeOp,
    tile.TransposeOp,
    tile.SliceOp,
    tile.DynamicSliceOp,
    tile.PadOp,
    tile.ConcatOp,
    tile.ConstantOp,
    tile.IotaOp,
    tile.SplatOp,
    tile.DimOp,
    tile.RandomBitsOp,
)
"""Ops whose results the default policy recomputes."""

ALWAYS_RECOMPUTED: tuple[type[Operation], ...] = (tile.LoadOp, tile.RandomBitsOp, tile.DimOp)

_CONSTANT_LIKE = (tile.ConstantOp, tile.SplatOp, tile.IotaOp, tile.DimOp)
_ELEMENTWISE = (tile.UnaryOp, tile.BinaryOp, tile.CastOp, tile.SelectOp, tile.CmpOp)

SaveSpec = None | str | Iterable[str] | Callable[[Operation], "bool | None"]


def _norm_name(name: str) -> str:
    return name if name.startswith("tile.") else f"tile.{name}"


@dataclass(frozen=True)
class Policy:
    """A save/recompute decision per primal op (see the module docstring)."""

    mode: str = "default"  # default | nothing | everything | names | callable
    names: frozenset[str] = frozenset()
    decide: Callable[[Operation], bool | None] | None = None

    @staticmethod
    def make(save: SaveSpec) -> Policy:
        if save is None:
            return Policy()
        if isinstance(save, str):
            if save in ("nothing", "everything"):
                return Policy(mode=save)
            return Policy(mode="names", names=frozenset({_norm_name(save)}))
        if callable(save):
            return Policy(mode="callable", decide=save)
        try:
            names = [str(n) for n in save]
        except TypeError:
            raise TypeError(
                f"save= takes None, 'nothing', 'everything', op names or a callable, got {type(save).__name__}"
            ) from None
        return Policy(mode="names", names=frozenset(_norm_name(n) for n in names))

    def saves(self, op: Operation) -> bool:
        """Whether the result of `op` that the backward needs is saved (else recomputed)."""
        if isinstance(op, ALWAYS_RECOMPUTED):
            return False
        if self.mode == "nothing":
            return False
        if self.mode == "everything":
            return True
        if self.mode == "names" and op.name in self.names:
            return True
        if self.mode == "callable":
            got = self.decide(op)
            if got is not None:
                return bool(got)
        return default_saves(op)


def default_saves(op: Operation) -> bool:
    """The default policy: save what is not cheap, and cheap elementwise values computed only from
    saved values and constants."""
    if not isinstance(op, CHEAP_OPS):
        return True
    return isinstance(op, _ELEMENTWISE) and _from_saved_only(op, {})


def _from_saved_only(op: Operation, memo: dict[Operation, bool]) -> bool:
    """`op` (elementwise) computes only from saved values and constants, at least one saved."""
    if op in memo:
        return memo[op]
    memo[op] = False
    saw_saved = False
    for v in op.operands:
        src = v.owner
        if not isinstance(src, Operation):
            if isinstance(v.type, tile.TileType):
                return False
            continue  # a scalar argument
        if isinstance(src, tile.LoadOp):
            return False  # an input: the value is not computed from saved values only
        if isinstance(src, _CONSTANT_LIKE):
            continue
        if isinstance(src, tile.BroadcastOp) and isinstance(src.source.owner, _CONSTANT_LIKE):
            continue
        if not isinstance(src, CHEAP_OPS):
            saw_saved = True
            continue
        if isinstance(src, _ELEMENTWISE) and _from_saved_only(src, memo):
            saw_saved = True
            continue
        return False
    memo[op] = saw_saved
    return saw_saved
