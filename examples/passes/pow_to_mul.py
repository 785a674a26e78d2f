"""An example tilec pass written outside the compiler: `pow(x, n)` -> multiplications.

`x ** 2` is common in user code (variance, squared error) and a multiplication is much cheaper
than a general power. This pass rewrites `tile.pow %x, %c` where `%c` is a splat constant holding
a small positive integer n (at most the `max-exponent` option) into a chain of `tile.mul`s by
repeated squaring.

Use it from the command line:

    tilec-opt --load-pass-plugin examples/passes/pow_to_mul.py -p 'pow-to-mul{max-exponent=8}' in.mlir

or from Python: `import pow_to_mul; tilec.passes.run_pipeline(module, "pow-to-mul")`.
"""

from tilec.dialects import tile
from tilec.passes import (
    PassFailure,
    PatternPass,
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
    register_pass,
)


class PowToMul(RewritePattern):
    """The rewrite: needs the exponent as a splat constant with an integral value."""

    def __init__(self, max_exponent: int):
        self.max_exponent = max_exponent

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tile.PowOp, rewriter: PatternRewriter) -> None:
        exponent_op = op.rhs.owner
        if not isinstance(exponent_op, tile.ConstantOp):
            return
        n = exponent_op.splat_value()
        if n is None or n != int(n) or not 1 <= n <= self.max_exponent:
            return
        n = int(n)
        new_ops = []
        result, square = None, op.lhs
        while n:  # repeated squaring: x**5 = x * (x**2)**2
            if n & 1:
                if result is None:
                    result = square
                else:
                    new_ops.append(tile.MulOp(result, square))
                    result = new_ops[-1].result
            n >>= 1
            if n:
                new_ops.append(tile.MulOp(square, square))
                square = new_ops[-1].result
        for new in new_ops:
            new.location = op.location  # keep the user's line for later diagnostics
        rewriter.replace(op, new_ops, [result])


@register_pass
class PowToMulPass(PatternPass):
    """Rewrite pow(x, n) with a small constant integer n into multiplications."""

    name = "pow-to-mul"
    max_exponent: int = 8

    def patterns(self):
        if self.max_exponent < 1:
            raise PassFailure(None, f"pow-to-mul: max-exponent must be at least 1, got {self.max_exponent}")
        return [PowToMul(self.max_exponent)]
