"""tile-autodiff{wrt=x,w mode=vjp|split|backward func=name save=...}: replace a `tile.func` by
its reverse-mode derivative (tilec/autodiff/transform.py).

- `mode=vjp` (default): the combined VJP func `@<f>_vjp(inputs..., ct_<out>...) outs(d_<x>...)`;
- `mode=split`: the forward with residuals `@<f>_fwd` and the backward `@<f>_bwd(inputs...,
  res<k>..., ct_<out>...)`;
- `mode=backward`: only `@<f>_bwd`.

`wrt` names the differentiable array inputs (by their `%name` in the IR, or by index); `func`
picks the tile.func when the module has several (default: every tile.func); `save` is the policy
override (`nothing`, `everything`, or op names: docs/autodiff.md). The pass lives beside the
transformation (not in transforms/) because the rules are written with the DSL tracer.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from tilec.autodiff.transform import derive
from tilec.dialects import tile
from tilec.passes.api import PassFailure, TilecPass, register_pass

MODES = ("vjp", "split", "backward")


@register_pass
class TileAutodiff(TilecPass):
    """Replace tile.funcs by their reverse-mode derivative (VJP, or forward + backward)."""

    name = "tile-autodiff"

    wrt: tuple[str, ...] = ()
    mode: str = "vjp"
    func: str = ""
    save: tuple[str, ...] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.mode not in MODES:
            raise PassFailure(op, f"tile-autodiff: mode must be one of {', '.join(MODES)}, got '{self.mode}'")
        funcs = [f for f in op.body.block.ops if isinstance(f, tile.FuncOp)]
        if self.func:
            funcs = [f for f in funcs if f.sym_name.data == self.func.removeprefix("@")]
            if not funcs:
                raise PassFailure(op, f"tile-autodiff: the module has no tile.func named @{self.func}")
        if not self.wrt:
            raise PassFailure(op, "tile-autodiff needs wrt=<input names>, e.g. tile-autodiff{wrt=x,w}")
        save = None
        if self.save:
            save = self.save[0] if self.save in (("nothing",), ("everything",)) else list(self.save)
        for f in funcs:
            wrt = [int(w) if w.isdigit() else w.removeprefix("%") for w in self.wrt]
            d = derive(f, wrt, save)
            new = {"vjp": [d.vjp], "split": [d.forward, d.backward], "backward": [d.backward]}[self.mode]
            block = op.body.block
            for g in new:
                block.insert_op_before(g, f)
            block.erase_op(f)
