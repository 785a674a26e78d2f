"""`tilec.torch.op`: a tile op as a `torch.library` custom op, with autograd through `tilec.vjp`.

`op(tile_op, wrt=("x",))` defines, in the `tilec` namespace (one unique name per op):

- `tilec::<name>(args) -> Tensor[]`: the tile op's results. Its real implementation calls the tile
  op on the tensors (tilec/frontend/arrays.py: no copies, the tensors' current stream); its fake
  (meta) implementation takes the results' shapes and dtypes from TRACING the tile op for the
  argument shapes (`TileFunction.output_specs`), so torch.compile traces it without running it.
- with `wrt`: `tilec::<name>_fwd(args) -> (Tensor[] outputs, Tensor[] residuals)`, the forward of
  `tilec.vjp(tile_op, wrt)` that keeps its residuals, with `torch.library.register_autograd`; and
  `tilec::<name>_bwd(args, Tensor[] residuals, Tensor[] cotangents) -> Tensor[]`, its backward, one
  cotangent per `wrt` argument. The wrapper calls `_fwd` when autograd records (grad mode on and a
  `wrt` tensor requiring grad), else the plain op.

Dynamic shapes: a fake implementation reads sizes as ints, so torch.compile specializes each
size (one graph per shape). Tile ops over lists (tilec.List) and ops that update an argument in
place are not supported yet as custom ops.
"""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import torch

import tilec
from tilec.diagnostics import NotSupportedYet, TilecError
from tilec.frontend.dtypes import DType, ListType, ScalarType
from tilec.frontend.op import TileFunction

NAMESPACE = "tilec"


def torch_dtype(dt) -> torch.dtype:
    """The torch dtype of a numpy (or ml_dtypes) dtype tilec uses."""
    dt = np.dtype(dt)
    special = {
        np.dtype(ml_dtypes.bfloat16): torch.bfloat16,
        np.dtype(ml_dtypes.float8_e4m3fn): torch.float8_e4m3fn,
        np.dtype(ml_dtypes.float8_e5m2): torch.float8_e5m2,
        np.dtype(np.bool_): torch.bool,
    }
    if dt in special:
        return special[dt]
    found = getattr(torch, dt.name, None)
    if not isinstance(found, torch.dtype):
        raise TilecError(f"no torch dtype for {dt.name}")
    return found


def _schema_type(t) -> str:
    if isinstance(t, ListType):
        raise NotSupportedYet("tile ops over lists (tilec.List) as torch custom ops")
    if isinstance(t, ScalarType):
        return "bool" if t.dtype.is_bool else ("float" if t.dtype.is_float else "int")
    assert isinstance(t, DType)
    return "Tensor"


def _unique_name(base: str) -> str:
    """`base`, or `base_2`, `base_3`, ... : the first name not yet defined in the tilec namespace
    (also checking the `_fwd` / `_bwd` companions)."""
    base = re.sub(r"\W", "_", base) or "op"
    ns = getattr(torch.ops, NAMESPACE)
    name, k = base, 1
    while any(hasattr(ns, n) for n in (name, f"{name}_fwd", f"{name}_bwd")):
        k += 1
        name = f"{base}_{k}"
    return name


def make_vjp(tile_op: TileFunction, wrt: tuple[str, ...], save):
    """The one place the bridge meets autodiff: `tilec.vjp(op, wrt=..., save=...)`
    (docs/torch.md), whose `forward_with_residuals(*primals)` returns (*outputs, *residuals) and
    `backward(*primals, *residuals, *cts)` the cotangents of `wrt`."""
    return tilec.vjp(tile_op, wrt=wrt, save=save)


def _as_list(result) -> list:
    if result is None:
        return []
    return list(result) if isinstance(result, tuple | list) else [result]


class TorchOp:
    """A tile op registered as torch custom ops (see the module docstring). Call it like the tile
    op, with tensors: returns a tensor, or a tuple for several results."""

    def __init__(self, tile_op: TileFunction, wrt=(), name: str | None = None, save=None):
        if not isinstance(tile_op, TileFunction):
            raise TilecError(f"tilec.torch.op takes a @tile_op function, got {type(tile_op).__name__}")
        self.tile_op = tile_op
        self.wrt = (wrt,) if isinstance(wrt, str) else tuple(wrt)
        self.save = save
        params = tile_op.params
        for w in self.wrt:
            if w not in params:
                raise TilecError(
                    f"tilec.torch.op({tile_op.name}): wrt names '{w}', not a parameter ({', '.join(params)})"
                )
            if not isinstance(tile_op.arg_types[params.index(w)], DType):
                raise TilecError(f"tilec.torch.op({tile_op.name}): wrt names '{w}', which is not an array argument")
        self._wrt_index = [params.index(w) for w in self.wrt]
        self._is_tensor = [isinstance(t, DType) for t in tile_op.arg_types]
        self.name = _unique_name(name or tile_op.name)
        self.qualname = f"{NAMESPACE}::{self.name}"
        self._vjp = None  # tilec.vjp's op, made at the first backward (or _fwd) call
        args = ", ".join(f"{_schema_type(t)} {p}" for p, t in zip(params, tile_op.arg_types))
        self.library = torch.library.Library(NAMESPACE, "FRAGMENT")  # kept: dropping it unregisters
        self._define(self.name, f"({args}) -> Tensor[]", self._forward, self._fake_forward)
        if self.wrt:
            self._define(
                f"{self.name}_fwd", f"({args}) -> (Tensor[], Tensor[])", self._forward_saving, self._fake_saving
            )
            self._define(
                f"{self.name}_bwd",
                f"({args}, Tensor[] residuals, Tensor[] cotangents) -> Tensor[]",
                self._backward,
                self._fake_backward,
            )
            torch.library.register_autograd(
                f"{self.qualname}_fwd", self._autograd_backward, setup_context=self._setup_context, lib=self.library
            )

    def __repr__(self) -> str:
        return f"<tilec.torch.op {self.qualname} wrt={list(self.wrt)}>"

    def _define(self, name: str, schema: str, impl, fake) -> None:
        self.library.define(name + schema)
        self.library.impl(name, impl, "CompositeExplicitAutograd")
        torch.library.register_fake(f"{NAMESPACE}::{name}", fake, lib=self.library)

    # -- calling -----------------------------------------------------------------------------------

    def __call__(self, *args):
        if len(args) != len(self.tile_op.params):
            raise TilecError(
                f"{self.qualname} takes {len(self.tile_op.params)} argument(s) ({', '.join(self.tile_op.params)}), got {len(args)}"
            )
        if self._records(args):
            outs, _ = getattr(torch.ops.tilec, f"{self.name}_fwd")(*args)
        else:
            outs = getattr(torch.ops.tilec, self.name)(*args)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _records(self, args) -> bool:
        """Whether autograd records this call; a tensor outside `wrt` that requires grad is an
        error (its gradient would silently be missing)."""
        if not torch.is_grad_enabled():
            return False
        for p, a, is_t in zip(self.tile_op.params, args, self._is_tensor):
            if is_t and isinstance(a, torch.Tensor) and a.requires_grad and p not in self.wrt:
                raise TilecError(
                    f"{self.qualname}: argument '{p}' requires grad but the op differentiates only "
                    f"wrt={list(self.wrt)}; pass '{p}'.detach() or register the op with '{p}' in wrt"
                )
        return any(isinstance(args[i], torch.Tensor) and args[i].requires_grad for i in self._wrt_index)

    # -- implementations ---------------------------------------------------------------------------

    def _specs(self, args, fn: TileFunction | None = None):
        fn = fn or self.tile_op
        specs = fn.output_specs([tuple(int(d) for d in a.shape) if t else a for a, t in zip(args, self._is_tensor)])
        if specs.updated:
            raise NotSupportedYet(
                f"{fn.name} updates {', '.join(specs.updated)} in place: tile ops that update arguments as torch custom ops"
            )
        return specs

    def _check_dtypes(self, args) -> None:
        for p, a, t in zip(self.tile_op.params, args, self.tile_op.arg_types):
            if isinstance(t, DType) and a.dtype != torch_dtype(t.np):
                raise TilecError(f"{self.qualname}: argument '{p}' has dtype {a.dtype} but the tile op takes {t.name}")

    def _empty(self, results, args) -> list:
        device = next((a.device for a, t in zip(args, self._is_tensor) if t), torch.device("cpu"))
        return [torch.empty(shape, dtype=torch_dtype(dt), device=device) for shape, dt in results]

    def _forward(self, *args):
        self._specs(args)  # the checks the fake implementation makes, in eager mode too
        return _as_list(self.tile_op(*args))

    def _fake_forward(self, *args):
        self._check_dtypes(args)
        return self._empty(self._specs(args).results, args)

    def vjp_op(self):
        """`tilec.vjp(tile_op, wrt=..., save=...)`, made once."""
        if self._vjp is None:
            self._vjp = make_vjp(self.tile_op, self.wrt, self.save)
        return self._vjp

    def _forward_saving(self, *args):
        n = len(self._specs(args).results)
        outs = _as_list(self.vjp_op().forward_with_residuals(*args))
        return outs[:n], outs[n:]

    def _fake_saving(self, *args):
        self._check_dtypes(args)
        outs = self._specs(args).results
        inputs = [tuple(int(d) for d in a.shape) if t else a for a, t in zip(args, self._is_tensor)]
        results = self.vjp_op().forward_output_specs(inputs)
        return self._empty(outs, args), self._empty(results[len(outs) :], args)

    def _backward(self, *args):
        *primals, residuals, cts = args
        return _as_list(self.vjp_op().backward(*primals, *residuals, *cts))

    def _fake_backward(self, *args):
        primals = args[:-2]
        return [torch.empty_like(primals[i], memory_format=torch.contiguous_format) for i in self._wrt_index]

    # -- autograd ----------------------------------------------------------------------------------

    def _setup_context(self, ctx, inputs, output) -> None:
        outs, residuals = output
        tensors = [a for a, t in zip(inputs, self._is_tensor) if t]
        ctx.save_for_backward(*tensors, *residuals)
        ctx.n_tensors = len(tensors)
        ctx.scalars = [None if t else a for a, t in zip(inputs, self._is_tensor)]
        ctx.out_meta = [(o.shape, o.dtype, o.device) for o in outs]

    def _autograd_backward(self, ctx, grad_outs, grad_residuals):
        saved = ctx.saved_tensors
        tensors, residuals = iter(saved[: ctx.n_tensors]), list(saved[ctx.n_tensors :])
        primals = [next(tensors) if s is None else s for s in ctx.scalars]
        cts = [
            torch.zeros(shape, dtype=dt, device=dev) if g is None else g.contiguous()
            for g, (shape, dt, dev) in zip(grad_outs, ctx.out_meta)
        ]
        grads = getattr(torch.ops.tilec, f"{self.name}_bwd")(*primals, residuals, cts)
        out: list = [None] * len(primals)
        for i, g in zip(self._wrt_index, grads):
            out[i] = g
        return tuple(out)


def op(tile_op: TileFunction | None = None, *, wrt=(), name: str | None = None, save=None):
    """`tilec.torch.op(tile_op, wrt=("x",))` -> a `TorchOp`; or `@tilec.torch.op(wrt=...)` above
    `@tile_op`. `name` picks the custom op's name (default: the tile op's; a suffix
    makes it unique), `save` goes to `tilec.vjp`."""
    if tile_op is None:
        return lambda f: TorchOp(f, wrt, name, save)
    return TorchOp(tile_op, wrt, name, save)


__all__ = ["NAMESPACE", "TorchOp", "make_vjp", "op", "torch_dtype"]
