"""Reverse-mode differentiation of a `tile.func` (value semantics): the VJP of its outputs.

Given a `tile.func` (array inputs read by `tile.load`, outputs written by `tile.store`) and the
indices of its differentiable array inputs (`wrt`), this builds

- the combined VJP func: inputs = the primal inputs, then one cotangent array per output;
  outputs = one cotangent per `wrt` input (every primal value it needs is computed inside it);
- the forward-with-residuals func: the primal func with extra outputs, the residuals (the values
  the policy saves: tilec/autodiff/policy.py);
- the backward func: inputs = the primal inputs, the residuals, the output cotangents; outputs =
  the cotangents of the `wrt` inputs.

The reverse sweep walks the primal ops from last to first. A value's cotangent is the sum of the
contributions of its uses (fan-out adds); an input loaded several times gets the sum over its
loads. Only *varied* values (reached from a `wrt` input) get cotangents, so ops that do not
depend on a `wrt` input are not differentiated, and ops whose results reach no output get no
cotangent and are skipped. Integer and i1 values carry no cotangent: comparisons, `argmax` and
float-to-int casts are piecewise constant, so a path through them contributes zero (as in torch
and JAX: `where(x > 0, x, 0)` is relu). An op that receives a cotangent and cannot pass it on is a
located `AutodiffError`: one listed non-differentiable (e.g. a bitcast of integers to floats), or
one without a rule. Ops listed zero-cotangent (floor, sign, ...) pass nothing on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import FunctionType, ModuleOp, StringAttr
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue

from tilec.autodiff.context import AutodiffError, VjpContext
from tilec.autodiff.policy import Policy
from tilec.autodiff.rules import NON_DIFFERENTIABLE, RULES, ZERO_COTANGENT
from tilec.autodiff.shapes import analyze
from tilec.diagnostics import NotSupportedYet, TilecError, op_location
from tilec.dialects import tile
from tilec.dialects.common import is_float, shapes_compatible
from tilec.frontend import ops
from tilec.frontend.errors import TileError
from tilec.frontend.tracer import Tile


@dataclass
class Derived:
    """The funcs derived from one primal func (see the module docstring)."""

    vjp: tile.FuncOp
    forward: tile.FuncOp
    backward: tile.FuncOp
    residuals: list[SSAValue] = field(default_factory=list)  # primal values saved, in residual order


def arg_name(func: tile.FuncOp, i: int) -> str:
    return func.body.block.args[i].name_hint or f"arg{i}"


def wrt_indices(func: tile.FuncOp, wrt: Sequence[str | int]) -> list[int]:
    """The input indices of `wrt` (names of arguments or indices), checked: float array inputs."""
    names = [arg_name(func, i) for i in range(func.num_inputs)]
    loc = op_location(func)
    out = []
    for w in wrt:
        if isinstance(w, int) and not isinstance(w, bool):
            if not 0 <= w < func.num_inputs:
                raise AutodiffError(
                    f"wrt index {w} is out of range: @{func.sym_name.data} has {func.num_inputs} inputs", loc
                )
            i = w
        elif w in names:
            i = names.index(w)
        else:
            raise AutodiffError(
                f"wrt names '{w}', which is not an input of @{func.sym_name.data} (inputs: {', '.join(names)})", loc
            )
        t = func.function_type.inputs.data[i]
        if not isinstance(t, tile.ArrayType) or not is_float(t.element_type):
            raise AutodiffError(
                f"cannot differentiate with respect to '{names[i]}': only float array inputs have cotangents, it is {t}",
                loc,
            )
        if i in out:
            raise AutodiffError(f"wrt lists '{names[i]}' twice", loc)
        out.append(i)
    if not out:
        raise AutodiffError("wrt is empty: name at least one input to differentiate with respect to", loc)
    return out


def check_differentiable_form(func: tile.FuncOp) -> None:
    for op in func.body.block.ops:
        if isinstance(op, tile.FusedOp):
            raise NotSupportedYet(
                "differentiating fused IR (tile.fused): autodiff runs before tile-fuse", op_location(op)
            )
    updated = func.updated_inputs()
    if updated:
        raise NotSupportedYet(
            f"differentiating a program that updates its input '{arg_name(func, updated[0])}' in place",
            op_location(func),
        )


def _varied(func: tile.FuncOp, wrt: list[int]) -> dict[SSAValue, int]:
    """Values that depend on a wrt input -> the (first) wrt input they depend on."""
    block = func.body.block
    out: dict[SSAValue, int] = {block.args[i]: i for i in wrt}
    for op in block.ops:
        src = next((out[v] for v in op.operands if v in out), None)
        if src is not None:
            for r in op.results:
                out[r] = src
    return out


class _Sweep:
    """One reverse sweep, building one backward func with a BackwardTracer."""

    def __init__(self, func: tile.FuncOp, wrt: list[int], policy: Policy | None):
        self.func = func
        self.wrt = wrt
        self.policy = policy  # None: compute everything inside (the combined VJP func)
        self.info = analyze(func)
        self.varied = _varied(func, wrt)
        self.ctx = VjpContext(func, self.info, self._source, self.varied)
        self.block: Block = self.ctx.tracer.block
        self.residuals: list[SSAValue] = []
        self.n_in = func.num_inputs
        for i, arg in enumerate(func.input_args):
            self.block.insert_arg(arg.type, i).name_hint = arg.name_hint
        self.ct_args = []
        for k, out in enumerate(func.output_args):
            a = self.block.insert_arg(out.type, len(self.block.args))
            a.name_hint = f"ct_{out.name_hint or k}"
            self.ct_args.append(a)
        self.cts: dict[SSAValue, Tile] = {}

    # -- where primal values come from -----------------------------------------------------------

    def _source(self, v: SSAValue) -> SSAValue | None:
        if isinstance(v, BlockArgument):
            return self.block.args[v.index]  # a primal input (outputs are never read)
        if self.policy is None or not self.policy.saves(v.owner):
            return None
        self.residuals.append(v)
        pos = self.n_in + len(self.residuals) - 1
        arg = self.block.insert_arg(tile.ArrayType(v.type.get_shape(), v.type.element_type), pos)
        arg.name_hint = f"res{len(self.residuals) - 1}"
        return self.ctx.tracer.emit(lambda: tile.LoadOp(arg), op_location(v.owner)).results[0]

    # -- cotangents ------------------------------------------------------------------------------

    def add_ct(self, v: SSAValue, ct: Tile, op: Operation | None) -> None:
        if not isinstance(ct, Tile) or ct.value is None:
            what = f"the rule of {op.name}" if op is not None else "a cotangent"
            raise TypeError(f"internal: {what} returned {ct!r}, not a tile")
        vt, ctt = v.type, ct.value.type
        if ctt.element_type != vt.element_type or not shapes_compatible(ctt.get_shape(), vt.get_shape()):
            raise TilecError(
                f"internal: the VJP rule of {op.name if op else '?'} gave a cotangent of type {ctt} "
                f"for an operand of type {vt}",
                op_location(op) if op is not None else None,
            )
        ct = self.ctx.wrap(ct.value, v)
        old = self.cts.get(v)
        self.cts[v] = ct if old is None else ops.binary("add", old, ct)

    def run(self) -> tile.FuncOp:
        tr = self.ctx.tracer
        func = self.func
        with tr.activate():
            for op in reversed(list(func.body.block.ops)):
                tr.loc = op_location(op)
                self.visit(op)
            results = []
            for i in self.wrt:
                arg = func.body.block.args[i]
                ct = self.cts.get(arg)
                results.append(ct if ct is not None else self.ctx.zeros(arg))
            for i, (t, i_arg) in enumerate(zip(results, self.wrt)):
                out = self.block.insert_arg(func.body.block.args[i_arg].type, len(self.block.args))
                out.name_hint = f"d_{arg_name(func, i_arg)}"
                tr.loc = op_location(func)
                tr.emit(lambda t=t, out=out: tile.StoreOp(t.value, out))
            tr.emit(tile.ReturnOp)
        _erase_dead(self.block)
        self._drop_unused_residuals()
        n_out = len(self.wrt)
        types = list(self.block.arg_types)
        f = tile.FuncOp(func.sym_name.data + "_vjp", types[:-n_out], types[-n_out:], Region(self.block))
        f.location = func.location
        return f

    def _drop_unused_residuals(self) -> None:
        """Residuals whose loads were erased as dead (a rule read a primal it did not use)."""
        kept = []
        for k, v in enumerate(self.residuals):
            arg = self.block.args[self.n_in + len(kept)]
            if arg.uses:
                kept.append(v)
            else:
                self.block.erase_arg(arg)
        for k, v in enumerate(kept):
            self.block.args[self.n_in + k].name_hint = f"res{k}"
        self.residuals = kept

    def visit(self, op: Operation) -> None:
        if isinstance(op, tile.StoreOp):
            k = _output_index(self.func, op.dest)
            if k is not None and op.value in self.varied and is_float(op.value.type.element_type):
                ct = self.ctx.tracer.emit(lambda: tile.LoadOp(self.ct_args[k])).results[0]
                self.add_ct(op.value, self.ctx.wrap(ct, op.dest), None)
            return
        if isinstance(op, tile.LoadOp):
            ct = self.cts.get(op.result)
            if ct is not None:
                self.add_ct(op.source, ct, op)
            return
        cts = tuple(self.cts.get(r) for r in op.results)
        if all(c is None for c in cts):
            return
        rule = RULES.get(type(op))
        if rule is None:
            self.no_rule(op)
            return
        try:
            got = rule(self.ctx, op, cts)
        except TileError as e:
            raise TileError(f"while differentiating {op.name}: {e.message}", e.location or op_location(op)) from None
        got = tuple(got)
        if len(got) < len(op.operands) and not any(
            isinstance(v.type, tile.TileType) for v in op.operands[len(got) :]
        ):  # the trailing `sizes(...)` / scalar operands take none
            got += (None,) * (len(op.operands) - len(got))
        if len(got) != len(op.operands):
            raise TilecError(
                f"internal: the VJP rule of {op.name} returned {len(got)} cotangents for {len(op.operands)} operands"
            )
        for v, ct in zip(op.operands, got):
            if ct is None or v not in self.varied or not isinstance(v.type, tile.TileType | tile.ArrayType):
                continue
            if not is_float(v.type.element_type):
                continue
            self.add_ct(v, ct, op)

    def no_rule(self, op: Operation) -> None:
        if type(op) in ZERO_COTANGENT:
            return
        src = next((self.varied[v] for v in op.operands if v in self.varied), None)
        wrt = f"'{arg_name(self.func, src)}'" if src is not None else "a wrt input"
        reason = NON_DIFFERENTIABLE.get(type(op))
        if reason is not None:
            raise AutodiffError(
                f"{op.name} is not differentiable ({reason}), but it lies on a path from {wrt} to an output; "
                f"compute the output without it, or do not differentiate with respect to {wrt}",
                op_location(op),
            )
        raise AutodiffError(f"not supported yet: differentiating {op.name} (it has no VJP rule)", op_location(op))


def _output_index(func: tile.FuncOp, dest: SSAValue) -> int | None:
    if isinstance(dest, BlockArgument) and dest.index >= func.num_inputs:
        return dest.index - func.num_inputs
    return None


def _erase_dead(block: Block) -> None:
    for op in reversed(list(block.ops)):
        if isinstance(op, tile.StoreOp | tile.ReturnOp):
            continue
        if op.results and all(not r.uses for r in op.results):
            block.erase_op(op)


def _forward(func: tile.FuncOp, residuals: list[SSAValue]) -> tile.FuncOp:
    """The primal func with the residuals stored into extra outputs."""
    mapping: dict[SSAValue, SSAValue] = {}
    f = func.clone(value_mapper=mapping)
    block = f.body.block
    ret = block.last_op
    for k, v in enumerate(residuals):
        t = v.type
        arg = block.insert_arg(tile.ArrayType(t.get_shape(), t.element_type), len(block.args))
        arg.name_hint = f"res{k}"
        st = tile.StoreOp(mapping[v], arg)
        st.location = v.owner.location
        block.insert_op_before(st, ret)
    types = list(block.arg_types)
    _retype(f, func.sym_name.data + "_fwd", types[: func.num_inputs], types[func.num_inputs :])
    return f


def _retype(f: tile.FuncOp, name: str, inputs: list, outputs: list) -> None:
    f.properties["sym_name"] = StringAttr(name)
    f.properties["function_type"] = FunctionType.from_lists(inputs, outputs)


def derive(func: tile.FuncOp, wrt: Sequence[str | int], save=None) -> Derived:
    """The VJP, forward-with-residuals and backward funcs of `func` (see the module docstring).
    `save` is the policy override of tilec/autodiff/policy.py."""
    check_differentiable_form(func)
    idx = wrt_indices(func, wrt)
    policy = Policy.make(save)
    vjp = _Sweep(func, idx, None).run()
    sweep = _Sweep(func, idx, policy)
    backward = sweep.run()
    n = backward.num_inputs
    _retype(
        backward,
        func.sym_name.data + "_bwd",
        list(backward.function_type.inputs.data)[:n],
        list(backward.function_type.outputs.data),
    )
    forward = _forward(func, sweep.residuals)
    return Derived(vjp, forward, backward, list(sweep.residuals))


def as_module(func: tile.FuncOp) -> ModuleOp:
    m = ModuleOp([func])
    m.location = func.location
    return m
