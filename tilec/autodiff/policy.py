"""Save or recompute: which primal values the forward keeps for the backward.

The backward needs some primal values (a rule's `ctx.primal(v)`). Each is either *saved* (the
forward-with-residuals stores it into an extra output, a residual, and the backward loads it)
or *recomputed* in the backward from the primal inputs and the saved values. The default policy:

- cheap ops are recomputed: elementwise math, comparisons, selects, casts, broadcasts,
  reshapes, transposes, slices, pads, concatenations, constants, iota, splats, `tile.dim`, the
  loads of the inputs (the backward gets the inputs) and `tile.random_bits` (regenerated from its
  seed and offset: dropout's mask is never saved);
- values computed from no input array (constants, sizes, the count `sum(ones(n))` of a dynamic
  axis) are recomputed;
- everything else is saved: reductions, contractions, convolutions, scans, sorts, pools,
  gathers and scatters (softmax's row max and sum, a matmul's result);
- a cheap value (elementwise, reshape, transpose) computed only from saved values and values
  that read no input (layernorm's mean `sum * (1/n)` and rstd `rsqrt(var + eps)`) is saved
  itself instead of the values it is computed from: it is no larger, and the backward does not
  redo the chain (reshapes, transposes, broadcasts and casts of saved values are recomputed).

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

_VIEWS = (tile.ReshapeOp, tile.TransposeOp, tile.BroadcastOp, tile.CastOp)
_CHAIN = (tile.UnaryOp, tile.BinaryOp, tile.CastOp, tile.SelectOp, tile.CmpOp, tile.ReshapeOp, tile.TransposeOp)

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
    """The default policy: recompute what is cheap or computed from no input array (a count of a
    dynamic axis: `sum(ones(n))`); save the rest, and cheap values computed only from saved
    values (see the module docstring)."""
    memo: dict[Operation, bool] = {}
    if input_free(op, memo):
        return False
    if not isinstance(op, CHEAP_OPS):
        return True
    if isinstance(op, _VIEWS):
        return False  # a view of a saved value is recomputed from it
    return _from_saved_only(op, memo, {})


def input_free(op: Operation, memo: dict[Operation, bool]) -> bool:
    """No array input is read on the way to `op`'s results (constants, sizes, scalars only)."""
    got = memo.get(op)
    if got is None:
        memo[op] = False
        got = not isinstance(op, tile.LoadOp | tile.RandomBitsOp) and all(
            not isinstance(v.owner, Operation) or input_free(v.owner, memo) for v in op.operands
        )
        memo[op] = got
    return got


def _from_saved_only(op: Operation, free: dict[Operation, bool], memo: dict[Operation, bool]) -> bool:
    """`op` (elementwise, or a reshape / transpose) computes only from saved values and values
    that read no input, at least one saved."""
    if not isinstance(op, _CHAIN):
        return False
    if op in memo:
        return memo[op]
    memo[op] = False
    saw_saved = False
    for v in op.operands:
        src = v.owner
        if not isinstance(src, Operation):
            if isinstance(v.type, tile.TileType | tile.ArrayType):
                return False
            continue  # a scalar argument
        if input_free(src, free):
            continue
        if isinstance(src, tile.LoadOp):
            return False  # an input: the value is not computed from saved values only
        if not isinstance(src, CHEAP_OPS) or _from_saved_only(src, free, memo):
            saw_saved = True
            continue
        return False
    memo[op] = saw_saved
    return saw_saved
