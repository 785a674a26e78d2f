"""int-strength-reduce: unsigned division and remainder by a power of two become shift and mask.

    %q = arith.divui %x, %c32 : i32   ->   %q = arith.shrui %x, %c5 : i32
    %r = arith.remui %x, %c4 : i32    ->   %r = arith.andi %x, %c3 : i32

Why a pass of our own: ptxas does not do this for us. The pipelined GEMM's main loop computes its
shared-memory slot as `((k - lb) / BK) % stages`; emitted as `div.u32`/`rem.u32` by registers
holding 32 and 4, ptxas 13.0 expanded both into its general unsigned-division sequence
(IMAD.HI, IMAD, two compare-and-correct steps each): about ten dependent instructions between the
barrier and the first `ldmatrix` of every iteration. The rewrite is exact for unsigned operands,
so it applies to every integer width (and to `index`). Signed division is left alone: `divsi`
rounds towards zero, a shift does not.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, SSAValue

from tilec.passes.api import PatternPass, PatternRewriter, RewritePattern, op_type_rewrite_pattern, register_pass


def _power_of_two_exponent(value: SSAValue) -> int | None:
    """log2 of `value` when it is an integer constant 2^k with k >= 0, else None."""
    owner = value.owner
    if not isinstance(owner, arith.ConstantOp) or not isinstance(owner.value, IntegerAttr):
        return None
    n = owner.value.value.data
    if n <= 0 or n & (n - 1):
        return None
    return n.bit_length() - 1


def _constant_like(value: SSAValue, n: int, at: Operation) -> arith.ConstantOp:
    c = arith.ConstantOp(IntegerAttr(n, value.type))
    c.location = at.location
    c.result.name_hint = f"c{n}"  # else the rewriter gives it the replaced value's name
    return c


class DivUIByPowerOfTwo(RewritePattern):
    """x /u 2^k -> x >>u k (x /u 1 -> x)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.DivUIOp, rewriter: PatternRewriter) -> None:
        k = _power_of_two_exponent(op.rhs)
        if k is None:
            return
        if k == 0:
            rewriter.replace(op, [], [op.lhs])
            return
        shift = _constant_like(op.rhs, k, op)
        new = arith.ShRUIOp(op.lhs, shift.result)
        new.location = op.location
        rewriter.replace(op, [shift, new], [new.result])


class RemUIByPowerOfTwo(RewritePattern):
    """x %u 2^k -> x & (2^k - 1)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.RemUIOp, rewriter: PatternRewriter) -> None:
        k = _power_of_two_exponent(op.rhs)
        if k is None:
            return
        mask = _constant_like(op.rhs, (1 << k) - 1, op)
        new = arith.AndIOp(op.lhs, mask.result)
        new.location = op.location
        rewriter.replace(op, [mask, new], [new.result])


@register_pass
class IntStrengthReduce(PatternPass):
    """Rewrite unsigned division/remainder by a constant power of two into shift/mask."""

    name = "int-strength-reduce"

    def patterns(self):
        return [DivUIByPowerOfTwo(), RemUIByPowerOfTwo()]
