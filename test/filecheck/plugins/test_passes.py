"""Passes used by the lit tests of tilec-opt (loaded with --load-pass-plugin)."""

from xdsl.dialects.builtin import StringAttr

from tilec.diagnostics import NotSupportedYet
from tilec.dialects import tile
from tilec.dialects.common import int_array
from tilec.passes import PassFailure, TilecPass, register_pass
from tilec.passes.registry import register_pipeline


@register_pass
class TagFuncs(TilecPass):
    """Sets a `tag` attribute on every tile.func, spelling out the pass options."""

    name = "test-tag"
    label: str = "x"
    count: int = 1
    scale: float = 1.0
    enable: bool = False
    sizes: tuple[int, ...] = ()
    max_depth: int = 0

    def apply(self, ctx, op):
        text = (
            f"label={self.label} count={self.count} scale={self.scale} enable={self.enable} "
            f"sizes={list(self.sizes)} max-depth={self.max_depth}"
        )
        for f in op.walk():
            if isinstance(f, tile.FuncOp):
                f.attributes["tag"] = StringAttr(text)


@register_pass
class Boom(TilecPass):
    """Fails with a plain Python exception: a bug in the pass."""

    name = "test-boom"

    def apply(self, ctx, op):
        return 1 // 0


@register_pass
class RejectTranspose(TilecPass):
    """Refuses the first tile.transpose it meets with a PassFailure."""

    name = "test-reject-transpose"

    def apply(self, ctx, op):
        for o in op.walk():
            if isinstance(o, tile.TransposeOp):
                raise PassFailure(o, "cannot handle this transpose")


@register_pass
class BreakTranspose(TilecPass):
    """Leaves invalid IR behind: the first transpose gets the non-permutation [0, 0]."""

    name = "test-break-transpose"

    def apply(self, ctx, op):
        for o in op.walk():
            if isinstance(o, tile.TransposeOp):
                o.properties["permutation"] = int_array([0, 0])
                return


@register_pipeline("test-unbuilt-pipeline", "a named pipeline that is not built yet")
def unbuilt_pipeline() -> str:
    raise NotSupportedYet("the 'test-unbuilt-pipeline' pipeline is not built yet")
