"""`tilec.vjp` and `tilec.grad`: tile ops derived from a `@tile_op` by reverse-mode autodiff.

    vjp_op = tilec.vjp(op, wrt=("x", "w"), save=None)
    dx, dw = vjp_op(x, w, ct_out)                 # the primal arguments, then one cotangent per output
    out, *res = vjp_op.forward_with_residuals(x, w)
    dx, dw = vjp_op.backward(x, w, *res, ct_out)
    grad_op = tilec.grad(loss, wrt=("x",))        # `loss` has one output of one element
    dx = grad_op(x, w)

A derived op runs like any tile op: numpy / torch CPU arrays on the CPU, CUDA arrays on the GPU,
under TILEC_INTERPRET=1 (or `tilec.interpret`) in the interpreter; `.ir()`, `.compile()` and
`.source()` take the primal example arrays (or `shapes=` of the primal arguments) and a
`which=` ("vjp", "forward", "backward"). It is specialized through the primal op: one derived
program per specialization of the primal (its dims, or its shapes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument

from tilec.autodiff.shapes import analyze
from tilec.autodiff.transform import Derived, as_module, derive
from tilec.diagnostics import TilecError
from tilec.dialects import tile
from tilec.frontend.arrays import DEVICE_KINDS, NUMPY, from_host, kind_of, to_caller, to_host, to_native
from tilec.frontend.errors import TileError, user_error
from tilec.frontend.op import TileFunction, interpreting
from tilec.runtime.dtypes import numpy_dtype

WHICH = ("vjp", "forward", "backward")


@dataclass
class _Program:
    """One derived func, runnable: its module, and for each array input the size each of its
    axes must have (an int, or (input index, axis) of a primal input, or None)."""

    module: ModuleOp
    func: tile.FuncOp
    expected: list[tuple | None]
    kernels: dict


def _program(func: tile.FuncOp, primal: tile.FuncOp, values: list) -> _Program:
    """`func` runnable; `values` are the primal values (argument or tile) its inputs stand for, in
    order: the sizes each array input must have come from the primal's axis analysis."""
    func = func.clone()
    info = analyze(primal)
    expected: list[tuple | None] = []
    for v in values:
        if not isinstance(v.type, tile.ArrayType | tile.TileType):
            expected.append(None)
            continue
        sizes = []
        for a in info.axes[v]:
            p = info.providers.get(a) if isinstance(a, str) else None
            if isinstance(a, int):
                sizes.append(a)
            elif p is not None and p.axis is not None and isinstance(p.value, BlockArgument):
                sizes.append((p.value.index, p.axis))
            else:
                sizes.append(None)
        expected.append(tuple(sizes))
    return _Program(as_module(func), func, expected, {})


class DerivedOp:
    """Base of the ops derived from a primal `@tile_op` (see the module docstring)."""

    def __init__(self, op: TileFunction, wrt: Sequence[str] | str | None, save, what: str):
        if not isinstance(op, TileFunction):
            raise user_error(f"tilec.{what} takes a @tile_op function, got {type(op).__name__}")
        if wrt is None:
            wrt = [p for p, t in zip(op.params, op.arg_types) if getattr(t, "is_float", False)]
        elif isinstance(wrt, str):
            wrt = (wrt,)
        wrt = tuple(wrt)
        for w in wrt:
            if w not in op.params:
                raise user_error(
                    f"tilec.{what}: wrt names '{w}', which is not a parameter of {op.name} ({', '.join(op.params)})"
                )
        self.op = op
        self.wrt = wrt
        self.save = save
        self.name = f"{op.name}_{what}"
        self._derived: dict[int, tuple[tile.FuncOp, Derived, dict[str, _Program]]] = {}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self.op.name} wrt={list(self.wrt)}>"

    # -- deriving --------------------------------------------------------------------------------

    def _programs(self, primals: Sequence = (), shapes=None) -> dict[str, _Program]:
        n = len(self.op.params)
        if shapes is not None:
            shapes = list(shapes)[:n]
        module = self.op.module(*primals[:n], shapes=shapes)
        func = next(o for o in module.body.block.ops if isinstance(o, tile.FuncOp))
        got = self._derived.get(id(func))
        if got is None or got[0] is not func:
            try:
                derived = derive(func, self.wrt, self.save)
            except TileError:
                raise
            except TilecError as e:  # the API's typed error, at the primal op's line
                raise TileError(e.message, e.location, e.notes) from None
            programs = self._make_programs(derived, func)
            got = (func, derived, programs)
            self._derived[id(func)] = got
        return got[2]

    def _make_programs(self, derived: Derived, primal: tile.FuncOp) -> dict[str, _Program]:
        ins, outs = list(primal.input_args), list(primal.output_args)
        return {
            "vjp": _program(derived.vjp, primal, ins + outs),
            "forward": _program(derived.forward, primal, ins),
            "backward": _program(derived.backward, primal, ins + derived.residuals + outs),
        }

    def residual_count(self, *primals, shapes=None) -> int:
        """How many residuals the forward saves for these primal arguments (the default policy or `save=`)."""
        p = self._programs(primals, shapes)
        return p["forward"].func.num_outputs - self._num_outputs(p)

    def _num_outputs(self, p: dict[str, _Program]) -> int:
        return p["vjp"].func.num_inputs - len(self.op.params)

    # -- running ---------------------------------------------------------------------------------

    def _run(self, program: _Program, args: Sequence, returns_tuple: bool, target: str | None = None):
        func = program.func
        if target not in (None, "cpu", "cuda", "interpret"):
            raise user_error(f"{self.name}: target= is 'cpu', 'cuda' or 'interpret' (or left out), got {target!r}")
        if len(args) != func.num_inputs:
            raise user_error(f"{self.name}: takes {func.num_inputs} arguments, got {len(args)}")
        kinds = []
        natives = []
        for i, (a, t) in enumerate(zip(args, func.function_type.inputs.data)):
            if not isinstance(t, tile.ArrayType):
                natives.append(a)
                continue
            k = kind_of(a)
            if k is None:
                raise user_error(f"{self.name}: argument {i} must be an array, got {type(a).__name__}")
            kinds.append(k)
            natives.append(to_native(a, k))
        self._check(program, args, natives)
        kind = kinds[0] if kinds else NUMPY
        out_dts = [numpy_dtype(t.element_type) for t in func.function_type.outputs.data]
        if target is not None and target != "interpret" and (target == "cuda") != (kind in DEVICE_KINDS):
            raise user_error(f"{self.name}: target='{target}' but the arrays are {kind} arrays")
        if interpreting() or target == "interpret":
            from tilec.interpreter import interpret_func

            host = [to_host(a, k) if isinstance(t, tile.ArrayType) else a for a, k, t in _with_kinds(args, func)]
            outs = [from_host(o, kind) for o in interpret_func(func, host)]
        else:
            target = "cuda" if kind in DEVICE_KINDS else "cpu"
            kernel = program.kernels.get(target)
            if kernel is None:
                from tilec import runtime

                kernel = program.kernels[target] = runtime.compile_module(program.module, target)
            outs = [to_caller(o, kind, d) for o, d in zip(kernel(*natives), out_dts)]
        return tuple(outs) if returns_tuple or len(outs) != 1 else outs[0]

    def _check(self, program: _Program, args, natives) -> None:
        func = program.func
        for i, (t, exp) in enumerate(zip(func.function_type.inputs.data, program.expected)):
            if exp is None:
                continue
            a = natives[i]
            name = func.body.block.args[i].name_hint or f"#{i}"
            want_dt = numpy_dtype(t.element_type)
            if np.dtype(a.dtype) != want_dt:
                raise user_error(f"{self.name}: argument '{name}' has dtype {a.dtype} but {want_dt} is expected")
            shape = tuple(int(d) for d in a.shape)
            want = tuple(e if isinstance(e, int) else (int(natives[e[0]].shape[e[1]]) if e else None) for e in exp)
            if len(shape) != len(want) or any(w is not None and w != s for w, s in zip(want, shape)):
                shown = tuple("?" if w is None else w for w in want)
                raise user_error(
                    f"{self.name}: argument '{name}' has shape {shape} but {shown} is expected (the shape of the value it stands for)"
                )

    # -- IR and code -----------------------------------------------------------------------------

    def _pick(self, which: str, examples, shapes) -> _Program:
        if which not in WHICH:
            raise user_error(f"which= is one of {', '.join(WHICH)}, got {which!r}")
        return self._programs(examples, shapes)[which]

    def module(self, *examples, shapes=None, which: str = "vjp") -> ModuleOp:
        """The derived tile module (shared with the cache: clone it before changing it)."""
        return self._pick(which, examples, shapes).module

    def ir(
        self,
        level: str = "tile",
        *examples,
        target: str = "cpu",
        shapes=None,
        which: str = "vjp",
        debuginfo=False,
        **options,
    ) -> str:
        """The derived program's IR at `level` ("tile", "mapped", "hw") for `target`; the examples
        (or shapes=) are the primal arguments'."""
        from tilec import runtime
        from tilec.ir import print_module

        module = self.module(*examples, shapes=shapes, which=which)
        if level == "tile":
            return print_module(module, debuginfo=debuginfo)
        return print_module(runtime.lower(module, level, target, **options), debuginfo=debuginfo)

    def compile(self, target: str = "cpu", *examples, shapes=None, which: str = "vjp", **options):
        """The runtime kernel of the derived program for `target`."""
        from tilec import runtime

        return runtime.compile_module(self.module(*examples, shapes=shapes, which=which), target, **options)

    def source(self, target: str = "cpu", *examples, shapes=None, which: str = "vjp", **options) -> str:
        """The code emitted for the derived program (C, PTX, HIP C++)."""
        from tilec.backends import get_backend

        backend = get_backend(target)
        module = self.module(*examples, shapes=shapes, which=which)
        return backend.emit(backend.lower(module, backend.options(options), "hw", {}))


def _with_kinds(args, func):
    for a, t in zip(args, func.function_type.inputs.data):
        yield a, (kind_of(a) if isinstance(t, tile.ArrayType) else None), t


class VjpFunction(DerivedOp):
    """`tilec.vjp(op, wrt, save)`: the vector-Jacobian product of `op` (see the module docstring)."""

    def __init__(self, op: TileFunction, wrt=None, save=None):
        super().__init__(op, wrt, save, "vjp")

    def __call__(self, *args, target: str | None = None):
        """The cotangents of `wrt` (one array, or a tuple in `wrt` order) for the primal arguments
        followed by one cotangent per output. `target`: "cpu", "cuda" (must agree with the arrays)
        or "interpret"; left out, the arrays decide (and TILEC_INTERPRET=1)."""
        n = len(self.op.params)
        p = self._programs(args[:n])
        return self._run(p["vjp"], args, len(self.wrt) > 1, target)

    def interpret(self, *args):
        """Run the VJP with the reference interpreter."""
        return self(*args, target="interpret")

    def forward_with_residuals(self, *primals):
        """`(*outputs, *residuals)`: the primal outputs and the values the backward needs."""
        p = self._programs(primals)
        return self._run(p["forward"], primals, returns_tuple=True)

    def forward_output_specs(self, inputs) -> tuple[tuple[tuple[int, ...], np.dtype], ...]:
        """`(shape, dtype)` of each result of `forward_with_residuals` (outputs, then residuals)
        for `inputs`: per parameter, an array's shape (a tuple of ints) or a scalar's value. From
        the derived program alone, nothing compiled or run (the torch bridge's fake kernels)."""
        from tilec.runtime.shapes import check_shapes

        shapes = [tuple(int(d) for d in a) if isinstance(a, tuple | list) else () for a in inputs]
        func = self._programs(shapes=shapes)["forward"].func
        given = [s if isinstance(a, tuple | list) else a for a, s in zip(inputs, shapes)]
        try:
            out_shapes = check_shapes(func, given)
        except TilecError as e:
            raise user_error(e.message) from None
        return tuple(
            (shape, numpy_dtype(t.element_type)) for shape, t in zip(out_shapes, func.function_type.outputs.data)
        )

    def backward(self, *args):
        """The cotangents of `wrt` from `(*primals, *residuals, *cts)`."""
        n = len(self.op.params)
        p = self._programs(args[:n])
        return self._run(p["backward"], args, returns_tuple=len(self.wrt) > 1)


class GradFunction(DerivedOp):
    """`tilec.grad(op, wrt)`: the gradient of an op with one output of one element."""

    def __init__(self, op: TileFunction, wrt=None, save=None):
        super().__init__(op, wrt, save, "grad")

    def _make_programs(self, derived: Derived, primal: tile.FuncOp) -> dict[str, _Program]:
        programs = super()._make_programs(derived, primal)
        seeded = _seed_one(derived.vjp, primal.num_inputs, self.op.name)
        programs["vjp"] = _program(seeded, primal, list(primal.input_args))
        return programs

    def __call__(self, *primals, target: str | None = None):
        p = self._programs(primals)
        return self._run(p["vjp"], primals, len(self.wrt) > 1, target)

    def interpret(self, *primals):
        """Run the gradient with the reference interpreter."""
        return self(*primals, target="interpret")


def _seed_one(vjp: tile.FuncOp, n_primal: int, name: str) -> tile.FuncOp:
    """The VJP func with its one output cotangent replaced by the constant 1."""
    if vjp.num_inputs != n_primal + 1:
        raise user_error(f"tilec.grad: {name} must have exactly one output, it has {vjp.num_inputs - n_primal}")
    f = vjp.clone()
    block = f.body.block
    ct = block.args[n_primal]
    t = ct.type
    if not t.is_static() or (t.num_elements() or 0) != 1:
        raise user_error(
            f"tilec.grad: the output of {name} must have one element (a 0-d or 1-element array), it is {t}; use tilec.vjp"
        )
    for use in list(ct.uses):
        load = use.operation
        assert isinstance(load, tile.LoadOp)
        one = tile.ConstantOp(1.0, load.result.type)
        one.location = load.location
        block.insert_op_before(one, load)
        load.result.replace_all_uses_with(one.result)
        block.erase_op(load)
    block.erase_arg(ct)
    types = list(block.arg_types)
    from xdsl.dialects.builtin import FunctionType, StringAttr

    f.properties["function_type"] = FunctionType.from_lists(types[:n_primal], types[n_primal:])
    f.properties["sym_name"] = StringAttr(vjp.sym_name.data.removesuffix("_vjp") + "_grad")
    return f


def vjp(op: TileFunction, wrt: Sequence[str] | str | None = None, save=None) -> VjpFunction:
    """The VJP tile op of `op` with respect to `wrt` (parameter names; default: every float
    array parameter). `save=` overrides the save/recompute policy (tilec/autodiff/policy.py)."""
    return VjpFunction(op, wrt, save)


def grad(op: TileFunction, wrt: Sequence[str] | str | None = None, save=None) -> GradFunction:
    """The gradient tile op of `op`, which has one output of one element: `grad_op(*primals)`."""
    return GradFunction(op, wrt, save)


__all__ = ["GradFunction", "VjpFunction", "grad", "vjp"]
