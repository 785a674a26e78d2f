"""`@tile_op`: a Python function traced into a `tile.func`, specialized, cached and run.

How `dims` is matched (see docs/dsl.md for the user's view):

1. The program is traced symbolically: every argument axis is a symbol; contraction pairs,
   broadcasting and elementwise operands unify symbols. Each resulting class of argument axes is
   one iteration axis.
2. The iteration space is ordered: the axes of the results (first result first, axis by axis),
   then every other class in the order its first argument axis appears (argument by argument,
   axis by axis). Classes made only by the program (keepdims' 1s, ...) are not part of it.
3. `dims[j]` gives the size of iteration axis j: an int makes it static, a string dynamic (`?`);
   equal strings are equal sizes. The lengths must agree.
4. The program is traced again, building IR with those static and dynamic sizes.
"""

from __future__ import annotations

import functools
import inspect
import os
import re
import sys
from collections.abc import Iterator, Sequence
from typing import NamedTuple

import numpy as np
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.ir import Region

from tilec.diagnostics import NotSupportedYet, SourceLocation, TilecError
from tilec.dialects.tile import FOREACH_ATTR, ArrayType, FuncOp, LoadOp, ReturnOp, StoreOp
from tilec.frontend.arrays import (
    CUDA,
    CUPY,
    DEVICE_KINDS,
    NUMPY,
    TORCH_CPU,
    TORCH_CUDA,
    array_dtype,
    from_host,
    kind_of,
    mixed_kinds,
    several_devices,
    stream_scope,
    to_caller,
    to_host,
    to_native,
    unsupported_tensor,
    write_back,
)
from tilec.frontend.dispatch import MISS, Dispatch
from tilec.frontend.dtypes import DType, ListType, ScalarType, as_arg_type, as_dtype, default_acc
from tilec.frontend.errors import TileError, frame_location, location_attr, user_error, user_location
from tilec.frontend.profiler import active as active_profile
from tilec.frontend.tracer import SizeUnknown, Tile, Tracer, current_tracer
from tilec.runtime.dtypes import numpy_dtype

MAX_RANK_CANDIDATES = 4096


def _shape_str(shape: Sequence) -> str:
    inner = ", ".join(str(d) for d in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def _array_state(e) -> tuple:
    """What a check of a list's array depends on and may change while the object stays the same:
    numpy arrays (their buffer cannot move) by shape, strides, dtype and writability; torch
    tensors and CuPy arrays also by data address."""
    if type(e) is np.ndarray:
        return (e.shape, e.strides, e.dtype, e.flags.writeable)
    if hasattr(e, "data_ptr"):  # torch
        return (e.data_ptr(), tuple(e.shape), e.stride(), e.dtype, e.device)
    return (e.data.ptr, e.shape, e.strides, e.dtype)  # CuPy


def _options_key(options: dict):
    try:
        key = tuple(sorted(options.items()))
        hash(key)
        return key
    except TypeError:
        return repr(sorted(options.items()))


class Specialization:
    """One traced version of a tile op: its module and, per target and options, its kernel."""

    def __init__(self, module: ModuleOp, func: FuncOp, arg_shapes, returns_tuple: bool, arg_dims=None):
        self.module = module
        self.func = func
        self.arg_shapes = arg_shapes  # per argument: a tuple of ints and dims names
        self.arg_dims = arg_dims  # per argument axis: its index in dims (dims mode), else None
        self.returns_tuple = returns_tuple
        self.returns_none = False  # the program returns nothing (it only updates arguments in place)
        self.updated = func.updated_inputs()  # argument indices written in place
        self.kernels: dict = {}
        # (target, shape bucket: dynamic dims only) -> the stored tuned options ({}: none)
        self.tuned: dict = {}
        self.eager_outputs: tuple | None = None  # the results, when this trace ran the program (TILEC_INTERPRET=1)
        self.eager_updates: dict[int, object] = {}  # argument index -> new value (TILEC_INTERPRET=1)

    def kernel(self, target: str, options: dict, pipeline=None):
        key = (target, _options_key(options), _options_key(pipeline) if isinstance(pipeline, dict) else pipeline)
        k = self.kernels.get(key)
        if k is None:
            from tilec import runtime

            k = runtime.compile_module(self.module, target, pipeline=pipeline, **options)
            self.kernels[key] = k
        return k

    def wrap(self, outs):
        outs = tuple(outs)
        if self.returns_none:
            return None
        return outs if self.returns_tuple else outs[0]


def _rank_combos(n: int, maxr: int, total: int) -> Iterator[tuple[int, ...]]:
    """Rank tuples of length n, entries in 0..maxr, with max == maxr and sum == total."""

    def rec(i: int, left: int, hit: bool):
        if i == n:
            if left == 0 and hit:
                yield ()
            return
        rest = n - i - 1
        for r in range(min(maxr, left), -1, -1):
            if left - r > rest * maxr:
                break
            for tail in rec(i + 1, left - r, hit or r == maxr):
                yield (r, *tail)

    if n == 0:
        if maxr == 0 and total == 0:
            yield ()
        return
    yield from rec(0, total, False)


class OutputSpecs(NamedTuple):
    """A call's results, known from the trace: per result (shape, numpy dtype); whether the op
    returns a tuple, or nothing; the parameters it updates in place."""

    results: tuple[tuple[tuple[int, ...], np.dtype], ...]
    returns_tuple: bool
    returns_none: bool
    updated: tuple[str, ...]


class TileFunction:
    """A tile op made by `@tile_op`: call it with arrays, or ask for its IR and code."""

    def __init__(
        self, fn, dtype: DType | None, dims, acc: DType | None, loc: SourceLocation | None, dtypes: dict | None = None
    ):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.dtype = dtype
        self.acc = acc
        self.dims = dims
        self.trace_count = 0
        self._cache: dict = {}
        self._signature = inspect.signature(fn)
        params = []
        for p in self._signature.parameters.values():
            if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or p.default is not p.empty:
                raise TileError(
                    f"tile op '{fn.__name__}': parameter '{p.name}' must be a plain parameter (each parameter is one array; "
                    f"no defaults, *args or **kwargs)",
                    loc,
                )
            params.append(p.name)
        self.params = params
        self.arg_types = _arg_types(fn, self._signature, dtype, dtypes or {}, loc)
        self._scalars = [isinstance(t, ScalarType) for t in self.arg_types]
        self._lists = [isinstance(t, ListType) for t in self.arg_types]
        # the last call's lists, checked and flattened (see _call_lists): (the arrays, their states,
        # the flattened elements per list argument, on a device)
        self._last_lists = None
        self._dispatch = Dispatch()  # argument signature -> prepared call (the fast path of __call__)
        if any(self._lists):
            if dims is not None:
                raise TileError(
                    f"tile op '{fn.__name__}': an op over lists (tilec.List arguments) takes no dims: each "
                    f"element is traced once as a 1-D array of any size",
                    loc,
                )
            arrays = [n for n, t in zip(params, self.arg_types) if isinstance(t, DType)]
            if arrays:
                raise TileError(
                    f"tile op '{fn.__name__}': not supported yet: array arguments ({', '.join(arrays)}) beside "
                    f"tilec.List arguments; make them lists too, or runtime scalars",
                    loc,
                )
        code = fn.__code__
        self._code = code
        self._def_loc = SourceLocation(code.co_filename, code.co_firstlineno, 1)
        self.name = fn.__name__
        self._func_name = re.sub(r"\W", "_", fn.__name__) or "tile_op"

    def __repr__(self) -> str:
        dims = "" if self.dims is None else f", dims={list(self.dims)}"
        dtype = "" if self.dtype is None else f" dtype={self.dtype.name}"
        return f"<tile_op {self.name}({', '.join(self.params)}){dtype}{dims}>"

    # -- calling ---------------------------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        """Run on arrays: numpy arrays run on the CPU (target "cpu"), CuPy / CUDA arrays on the GPU
        (target "cuda"). Compiles once per specialization; returns an array or a tuple. A repeat
        call with arguments of the same signature takes the fast path (tilec/frontend/dispatch.py)."""
        prof = active_profile()
        if not kwargs and prof is None:
            fast = self._dispatch.lookup(args)
            if fast is not None and current_tracer() is None and not interpreting():
                out = fast.run(args)
                if out is not MISS:
                    return out
        if any(self._lists):
            return self._call_lists(args, kwargs, interpret=interpreting())
        arrays, kind = self._bind(args, kwargs)
        if interpreting():
            return self._run_eagerly(arrays, kind)
        target = "cuda" if kind in DEVICE_KINDS else "cpu"
        spec = self._specialize_arrays(arrays)
        if spec.updated:
            self._check_updated(spec, arrays)
        kernel = spec.kernel(target, self._stored_choice(spec, target, arrays))
        run = kernel if prof is None else lambda *xs: prof.run(self.name, spec, target, xs, lambda: kernel(*xs))
        if kind in DEVICE_KINDS:  # fp8 results are CuPy uint8 arrays: torch callers get fp8 tensors
            dts = [numpy_dtype(t.element_type) for t in spec.func.function_type.outputs.data]
            with stream_scope(args, kwargs.values(), kind):  # torch: its device and current stream
                outs = run(*arrays)
            result = spec.wrap(to_caller(o, kind, d) for o, d in zip(outs, dts))
        else:
            result = spec.wrap(to_caller(o, kind) for o in run(*arrays))
        if not kwargs and len(args) == len(self.params):
            self._dispatch.remember(self, args, spec, kernel, kind, arrays)
        return result

    @property
    def fast_calls(self) -> int:
        """How many argument signatures have a prepared fast call (tilec/frontend/dispatch.py)."""
        return len(self._dispatch)

    def _check_updated(self, spec: Specialization, arrays) -> None:
        """Arguments updated in place must be written where the caller sees them: each must be a
        writable C-contiguous array (of its exact dtype, checked by _bind) sharing no memory with
        another argument."""
        from tilec.runtime.inplace import check_updated

        try:
            check_updated(self.name, self.params, arrays, spec.updated)
        except TilecError as e:
            raise user_error(e.message) from None

    def _run_eagerly(self, arrays, kind: str):
        """TILEC_INTERPRET=1: the program runs op by op in the interpreter while it is traced, so
        a debugger stepping through it (or `tilec.debug_print`, `tile.numpy()`) sees values."""
        host = [
            a if sc else to_host(a, CUPY if kind in DEVICE_KINDS else NUMPY, t.np)
            for a, sc, t in zip(arrays, self._scalars, self.arg_types)
        ]
        # one trace, with the arrays' own (static) shapes, that also runs each op as it is made
        shapes = [() if sc else tuple(int(d) for d in a.shape) for a, sc in zip(host, self._scalars)]
        spec = self._build(shapes, None, eager_values=host)
        if spec.updated:
            self._check_updated(spec, arrays)
            for i, v in spec.eager_updates.items():
                write_back(arrays[i], v)
        return spec.wrap(from_host(o, kind) for o in spec.eager_outputs)

    def compile(self, target: str = "cpu", *examples, shapes=None, pipeline=None, **options):
        """The runtime Kernel for `target` ("cpu", "cuda", "hip"). Ops without dims need example
        arrays (positional) or `shapes=[...]`. `options` are the target's options (docs/cpu.md,
        docs/cuda.md, docs/hip.md); `pipeline` adds your own passes: a pipeline string runs on the
        tile IR before the target's passes, a dict {"tile"|"mapped"|"hw": pipeline} at the end of
        each level (see docs/writing-a-pass.md)."""
        self._check_target(target)
        spec = self._specialize_static(examples, shapes)
        return spec.kernel(target, options, pipeline)

    def tune(
        self,
        *examples,
        target: str = "cpu",
        knobs=None,
        budget_s: float = 60.0,
        repeats: int = 5,
        progress: bool = True,
        store=None,
        workers: int | None = None,
        model_margin: float | None = 1.5,
        overlap: bool | None = None,
    ):
        """Measure variants of this op on `examples` and keep the fastest (docs/tuning.md): a
        coordinate search over the target's tunable options (`knobs` limits it to some),
        each candidate's results checked against the default's, within `budget_s` seconds, a
        progress bar unless `progress=False`; candidates the target's analytic model predicts
        more than `model_margin` times slower than the current best are skipped (None: none);
        each sweep's candidates are compiled by `workers` processes at once (default: one per
        CPU), before they are timed on the CPU, while the earlier ones are timed on a GPU
        (`overlap` overrides). The winner is stored (`store`: a
        `tilec.tuning.TuneStore`, default the user's tuning file); later calls with arguments of
        the same shape bucket, in this process or another, compile with it. Returns a
        `tilec.tuning.TuneResult`."""
        from tilec.tuning import tune

        self._check_target(target)
        if not examples:
            raise user_error(f"{self.name}.tune: pass example arrays (the shapes and dtypes to tune for)")
        spec = self._specialize_static(examples, None)
        try:
            return tune(
                self,
                spec,
                examples,
                target,
                knobs,
                budget_s,
                repeats,
                store=store,
                progress=progress,
                workers=workers,
                model_margin=model_margin,
                overlap=overlap,
            )
        except TilecError as e:
            raise user_error(f"{self.name}.tune: {e.message}") from None

    def tuned(self, *examples, target: str = "cpu", store=None) -> dict:
        """The options a call with these arguments compiles with from the tuning store ({}: the
        defaults; `TILEC_TUNED=0` ignores the store)."""
        from tilec.tuning.tuner import call_shapes, stored_options

        return stored_options(self._specialize_static(examples, None), target, store, call_shapes(examples))

    def _stored_choice(self, spec: Specialization, target: str, arrays=()) -> dict:
        """The first call of a signature: the tuned options stored for it, else {} (defaults).
        With `TILEC_AUTOTUNE=1` a CPU or CUDA call with nothing stored tunes first, on its own
        arrays, within `TILEC_AUTOTUNE_BUDGET` seconds (default 30)."""
        if os.environ.get("TILEC_TUNED", "1") == "0":
            return {}
        from tilec.tuning.store import shape_bucket
        from tilec.tuning.tuner import call_shapes

        shapes = call_shapes(arrays) if arrays else None
        at = (target, shape_bucket(shapes) if shapes is not None and spec.arg_dims is not None else None)
        choice = spec.tuned.get(at)
        if choice is None:
            import warnings

            from tilec.tuning.tuner import stored_options

            try:
                choice = stored_options(spec, target, shapes=shapes)
                if not choice and os.environ.get("TILEC_AUTOTUNE") == "1" and not spec.updated:
                    choice = self._autotune(spec, target, arrays)
            except TilecError as e:  # an unreadable store: said once, defaults used
                warnings.warn(f"tilec: tuned options not used: {e.message}", stacklevel=3)
                choice = {}
            spec.tuned[at] = choice
        return choice

    def _autotune(self, spec: Specialization, target: str, arrays) -> dict:
        import warnings

        from tilec.tuning import tune

        if target not in ("cpu", "cuda"):
            warnings.warn(
                f"tilec: TILEC_AUTOTUNE=1: not supported yet on target {target}; @{self.name} runs with the defaults",
                stacklevel=4,
            )
            return {}
        budget = float(os.environ.get("TILEC_AUTOTUNE_BUDGET", "30"))
        return tune(self, spec, arrays, target, budget_s=budget, progress=sys.stderr.isatty()).options

    def source(self, target: str = "cpu", *examples, shapes=None, pipeline=None, **options) -> str:
        """The code tilec emits for `target` (C, PTX, HIP C++). Only the compiler is needed: no GPU,
        no CuPy; the same text `tilec-opt -p lower-to-<t> -t <t>` prints for `ir("tile")`."""
        from tilec.backends import get_backend
        from tilec.runtime import user_passes

        self._check_target(target)
        spec = self._specialize_static(examples, shapes)
        backend = get_backend(target)
        return backend.emit(backend.lower(spec.module, backend.options(options), "hw", user_passes(pipeline)))

    def ir(
        self,
        level: str = "tile",
        *examples,
        target: str = "cpu",
        shapes=None,
        debuginfo: bool = False,
        pipeline=None,
        **options,
    ) -> str:
        """The IR text at `level` ("tile": the traced module; "mapped", "hw": lowered for
        `target` by its backend). With `debuginfo=True` each op shows its Python line."""
        from tilec.backends import LEVELS
        from tilec.ir import print_module

        if level not in LEVELS:
            raise user_error(f"unknown IR level '{level}' (expected one of {', '.join(LEVELS)})")
        self._check_target(target)
        spec = self._specialize_static(examples, shapes)
        if level == "tile" and pipeline is None:
            return print_module(spec.module, debuginfo=debuginfo)
        from tilec import runtime

        return print_module(
            runtime.lower(spec.module, level, target, pipeline=pipeline, **options), debuginfo=debuginfo
        )

    def output_specs(self, inputs) -> OutputSpecs:
        """What a call with these arguments returns, from the trace alone (nothing is compiled or
        run): `inputs` has, per parameter, the shape of an array argument (a tuple of ints) or the
        value of a runtime scalar. Used by the torch bridge's fake (meta) implementations."""
        if any(self._lists):
            raise NotSupportedYet(f"the output specs of '{self.name}', an op over lists (tilec.List)", user_location())
        if len(inputs) != len(self.params):
            raise user_error(f"{self.name}() takes {len(self.params)} argument(s), got {len(inputs)}")
        shapes = [() if sc else tuple(int(d) for d in s) for s, sc in zip(inputs, self._scalars)]
        spec = self._specialize(shapes)
        from tilec.runtime.shapes import check_shapes

        given = [v if sc else s for v, s, sc in zip(inputs, shapes, self._scalars)]
        try:
            out_shapes = check_shapes(spec.func, given)
        except TilecError as e:
            raise user_error(e.message) from None
        dtypes = [numpy_dtype(t.element_type) for t in spec.func.function_type.outputs.data]
        return OutputSpecs(
            tuple(zip(out_shapes, dtypes)),
            spec.returns_tuple,
            spec.returns_none,
            tuple(self.params[i] for i in spec.updated),
        )

    def module(self, *examples, shapes=None) -> ModuleOp:
        """The traced tile-level module (shared with the cache: clone it before changing it)."""
        return self._specialize_static(examples, shapes).module

    def _check_target(self, target: str) -> None:
        from tilec.backends import TARGETS

        if target not in TARGETS:
            raise user_error(f"unknown target '{target}' (expected one of {', '.join(TARGETS)})")

    # -- arguments -------------------------------------------------------------------------------

    def _bind(self, args, kwargs) -> tuple[list, str]:
        """The arguments as numpy or CuPy arrays (zero-copy views of torch tensors), and the kind
        of array the caller passed (what the results are returned as: tilec/frontend/arrays.py)."""
        given = self._given(args, kwargs)
        return self._natives(given)

    def _given(self, args, kwargs) -> list:
        """The arguments in parameter order, as given."""
        if current_tracer() is not None:
            raise user_error(
                f"calling tile op '{self.name}' while tracing another tile op is not supported; "
                f"call a plain (undecorated) Python helper function instead"
            )
        if not kwargs and len(args) == len(self.params):
            given = list(args)  # the common case, without inspect's binding
        else:
            try:
                bound = self._signature.bind(*args, **kwargs)
            except TypeError as e:
                raise user_error(
                    f"{self.name}() takes {len(self.params)} array argument(s) ({', '.join(self.params)}): {e}"
                ) from None
            given = [bound.arguments[p] for p in self.params]
        return given

    def _natives(self, given) -> tuple[list, str]:
        kinds = [
            None if is_scalar else self._kind(name, a) for name, a, is_scalar in zip(self.params, given, self._scalars)
        ]
        array_kinds = [k for k in kinds if k is not None]
        on_device = {k in DEVICE_KINDS for k in array_kinds}
        if len(on_device) > 1:
            raise user_error(
                f"{self.name}: arguments mix host (numpy) and device (CUDA) arrays; pass all of one kind (torch CPU tensors are host arrays)"
            )
        mixed = mixed_kinds(array_kinds)
        if mixed is None and TORCH_CUDA in array_kinds:
            mixed = several_devices(given)
        if mixed is not None:
            raise user_error(f"{self.name}: {mixed}")
        if not array_kinds:
            kind = NUMPY  # only scalars: run on the CPU
        else:
            kind = array_kinds[0] if len(set(array_kinds)) == 1 else (CUPY if True in on_device else NUMPY)
        arrays = []
        for i, (name, a, k) in enumerate(zip(self.params, given, kinds)):
            if k is None:
                arrays.append(self._scalar_value(name, self.arg_types[i], a))
            else:
                arrays.append(to_native(a, k))
                self._check_array(name, a, i)
        return arrays, kind

    # -- lists of arrays (multi-tensor apply) ----------------------------------------------------

    def _call_lists(self, args, kwargs, interpret: bool = False):
        """A call of an op over lists: the traced element program applied to every position of
        the lists (arrays flattened; matching shapes position by position). Returns None."""
        given = self._given(args, kwargs)
        if not interpret and self._last_lists is not None:
            per_arg = self._lists_again(given)
            if per_arg is not None:  # the same arrays as the last call, unchanged: no checks again
                self._list_spec().kernel("cuda" if self._last_lists[3] else "cpu", {}).foreach(per_arg)
                return None
        n, first = None, None
        for name, a, is_list in zip(self.params, given, self._lists):
            if not is_list:
                continue
            if not isinstance(a, list | tuple):
                raise user_error(
                    f"{self.name}: argument '{name}' is a list of arrays ({self.arg_types[self.params.index(name)]!r}): "
                    f"pass a list or tuple of arrays, got {type(a).__name__}"
                )
            if n is None:
                n, first = len(a), name
            elif len(a) != n:
                raise user_error(
                    f"{self.name}: list arguments must have the same length: '{first}' has {n} arrays but "
                    f"'{name}' has {len(a)}"
                )
        # flatten: one argument list per position, each element a 1-D view (numpy or CuPy)
        names: list[str] = []
        flat: list = []  # every array, for the memory checks
        per_arg: list = []
        kinds = set()
        for i, (name, a, t) in enumerate(zip(self.params, given, self.arg_types)):
            if not self._lists[i]:
                per_arg.append(self._scalar_value(name, t, a))
                continue
            elems = []
            want = t.dtype.np
            refs = given[self.params.index(first)]
            for j, e in enumerate(a):
                what = f"{name}[{j}]"
                if type(e) is np.ndarray:  # the common case, without the kind dispatch
                    kinds.add(False)
                else:
                    k = self._kind(what, e)
                    kinds.add(k in DEVICE_KINDS)
                    e = to_native(e, k)
                if e.dtype != want:
                    raise user_error(
                        f"{self.name}: argument '{what}' has dtype {np.dtype(e.dtype).name} but '{name}' is {t!r}; "
                        f"convert it with .astype(...)"
                    )
                ref = refs[j]
                if e.shape != ref.shape and tuple(e.shape) != tuple(ref.shape):
                    raise user_error(
                        f"{self.name}: the lists' arrays must match position by position: '{what}' has shape "
                        f"{_shape_str(tuple(e.shape))} but '{first}[{j}]' has {_shape_str(tuple(ref.shape))}"
                    )
                if not e.flags.c_contiguous:
                    raise user_error(
                        f"{self.name}: '{what}' is not C-contiguous: the arrays of a list are used flattened, in place"
                    )
                names.append(what)
                flat.append(e)
                elems.append(e.reshape(-1))
            per_arg.append(elems)
        if len(kinds) > 1:
            raise user_error(f"{self.name}: the lists mix host (numpy) and device (CUDA) arrays; pass all of one kind")
        spec = self._list_spec()
        if spec.updated:
            from tilec.runtime.inplace import check_updated

            upd = set(spec.updated)
            updated, k = [], 0
            for i, is_list in enumerate(self._lists):
                if is_list:
                    if i in upd:
                        updated += range(k, k + n)
                    k += n
            try:
                check_updated(self.name, names, flat, updated)
            except TilecError as e:
                raise user_error(e.message) from None
        if not n:
            return None
        device = True in kinds
        if interpret:
            from tilec.interpreter import interpret_func

            for j in range(n):
                ins = [a[j] if isl else a for a, isl in zip(per_arg, self._lists)]
                host = [to_host(a, CUPY) if device and isl else a for a, isl in zip(ins, self._lists)]
                interpret_func(spec.func, host)
                if device:
                    for i in spec.updated:
                        write_back(ins[i], host[i])
            return None
        # one C call on the CPU; one launch over every position on CUDA (CudaKernel.foreach)
        spec.kernel("cuda" if device else "cpu", {}).foreach(per_arg)
        lists = [list(a) for a, isl in zip(given, self._lists) if isl]
        self._last_lists = (lists, [[_array_state(e) for e in a] for a in lists], per_arg, device)
        return None

    def _lists_again(self, given) -> list | None:
        """The flattened arguments of the last call over lists when `given` holds the very same
        arrays (identity) in the same states (data address where it can change, shape, strides,
        dtype, writability): then every check of the last call still holds. Else None."""
        lists, states, per_arg, _ = self._last_lists
        out, k = [], 0
        for i, (name, a, t) in enumerate(zip(self.params, given, self.arg_types)):
            if not self._lists[i]:
                out.append(self._scalar_value(name, t, a))
                continue
            old = lists[k]
            if not isinstance(a, list | tuple) or len(a) != len(old) or any(x is not y for x, y in zip(a, old)):
                return None
            if any(_array_state(e) != st for e, st in zip(a, states[k])):
                return None
            out.append(per_arg[i])
            k += 1
        return out

    def _list_spec(self) -> Specialization:
        """The one trace of an op over lists: each list argument a 1-D array of a run-time size
        (shared by all lists: they match position by position), whatever the calls pass."""
        spec = self._cache.get(("lists",))
        if spec is None:
            spec = self._build([("len",) if isl else () for isl in self._lists], None)
            self._cache[("lists",)] = spec
        return spec

    def _scalar_value(self, name: str, t: ScalarType, a):
        """The Python number a runtime scalar argument takes (checked: no arrays, no lossy conversion)."""
        what = "int" if t.weak and t.dtype.is_int else ("float" if t.weak else t.dtype.name)
        if isinstance(a, np.generic) and not isinstance(a, np.bool_):
            a = a.item()
        if isinstance(a, bool | np.bool_) or not isinstance(a, int | float):
            got = type(a).__name__
            if hasattr(a, "shape") and hasattr(a, "dtype"):
                got = f"an array of shape {tuple(a.shape)} (pass a Python number, e.g. x.item())"
            raise user_error(
                f"{self.name}: argument '{name}' is a runtime scalar ({what}): it takes a number, got {got}"
            )
        if t.dtype.is_int:
            if isinstance(a, float):
                raise user_error(
                    f"{self.name}: argument '{name}' is an integer scalar ({what}) but got the float {a!r}; pass an int"
                )
            info = np.iinfo(t.dtype.np)  # unsigned: [0, 2**bits)
            lo, hi = int(info.min), int(info.max)
            if not lo <= a <= hi:
                raise user_error(f"{self.name}: argument '{name}' ({what}): {a} does not fit in {t.dtype.name}")
            return int(a)
        return float(a)

    def _kind(self, name: str, a) -> str:
        if isinstance(a, Tile):
            raise user_error(f"{self.name}: argument '{name}' is a tile; tile ops take arrays")
        kind = kind_of(a)
        unsupported = unsupported_tensor(a) if kind in (TORCH_CPU, TORCH_CUDA) else None
        if unsupported is not None:
            raise user_error(f"{self.name}: argument '{name}' {unsupported}")
        if kind is None:
            raise user_error(
                f"{self.name}: argument '{name}' must be an array (numpy, torch, or a CUDA array such as CuPy's), "
                f"got {type(a).__name__}"
                + (
                    f"; to pass a number, annotate the parameter as a runtime scalar (`{name}: float` or `{name}: int`)"
                    if isinstance(a, int | float | np.number)
                    else ""
                )
            )
        return kind

    def _check_array(self, name: str, a, i: int) -> None:
        """`a`: an array of any accepted kind (a call's argument or an example)."""
        k = kind_of(a)
        if k not in (NUMPY, CUPY, CUDA):
            k = self._kind(name, a)
        want = self.arg_types[i]
        assert isinstance(want, DType)
        dt = array_dtype(a, k)
        if k in (CUPY, CUDA) and want.is_float and want.bits == 8 and dt == np.uint8:
            return  # CuPy has no fp8 dtype: a CuPy fp8 array is a uint8 array of the codes
        if dt != want.np:
            if dt.newbyteorder("=") == want.np:
                raise user_error(
                    f"{self.name}: argument '{name}' is {want.name} in non-native byte order ({dt.str}); "
                    f"convert it with .astype('{want.np.str}')"
                )
            whose = "the op's dtype is" if want is self.dtype else "its declared dtype is"
            raise user_error(
                f"{self.name}: argument '{name}' has dtype {dt.name} but {whose} "
                f"{want.name}; convert it with .astype(...)"
            )

    def _norm_shapes(self, shapes) -> list[tuple]:
        try:
            items = list(shapes)
        except TypeError:
            raise user_error(f"shapes= must be a list with one shape per argument, got {shapes!r}") from None
        if len(items) != len(self.params):
            raise user_error(
                f"{self.name}: shapes= has {len(items)} entries but the op takes {len(self.params)} arguments ({', '.join(self.params)})"
            )
        out = []
        for i, (name, s) in enumerate(zip(self.params, items)):
            if self._scalars[i]:
                if s is not None and s != () and not isinstance(s, int | float | np.number):
                    raise user_error(
                        f"{self.name}: argument '{name}' is a runtime scalar: its shapes= entry is () or None, got {s!r}"
                    )
                out.append(())
                continue
            if hasattr(s, "shape") and hasattr(s, "dtype"):
                self._check_array(name, s, i)
                s = s.shape
            if isinstance(s, int | str):
                s = (s,)
            entries = []
            for d in s:
                if isinstance(d, str) or d is None:
                    entries.append(d)
                elif isinstance(d, int | np.integer) and not isinstance(d, bool) and d >= 0:
                    entries.append(int(d))
                else:
                    raise user_error(f"{self.name}: shape of argument '{name}' has an invalid size {d!r}")
            out.append(tuple(entries))
        return out

    # -- specializing ----------------------------------------------------------------------------

    def _specialize_arrays(self, arrays) -> Specialization:
        shapes = [() if sc else tuple(int(d) for d in a.shape) for a, sc in zip(arrays, self._scalars)]
        return self._specialize(shapes)

    def _specialize_static(self, examples, shapes) -> Specialization:
        if any(self._lists):
            return self._list_spec()  # one program for any lists: examples and shapes do not matter
        if examples and shapes is not None:
            raise user_error("pass example arrays or shapes=, not both")
        if examples:
            if len(examples) != len(self.params):
                raise user_error(
                    f"{self.name}: {len(examples)} example array(s) given but the op takes {len(self.params)} ({', '.join(self.params)})"
                )
            shapes = examples
        if shapes is None:
            if self.dims is None:
                raise user_error(
                    f"{self.name} has no dims, so it is specialized per shape: pass example arrays "
                    f"(e.g. op.ir('tile', A, B)) or shapes=[(M, K), (K, N)]"
                )
            return self._specialize_inferred()
        return self._specialize(self._norm_shapes(shapes))

    def _specialize(self, shapes: list[tuple]) -> Specialization:
        if self.dims is None:
            for name, s in zip(self.params, shapes):
                if any(not isinstance(d, int) for d in s):
                    raise user_error(
                        f"{self.name} has no dims: the shape of argument '{name}' must be all ints, got {s}"
                    )
            key = ("shapes", tuple(shapes))
            spec = self._cache.get(key)
            if spec is None:
                spec = self._build(shapes, None)
                self._cache[key] = spec
            return spec
        ranks = tuple(len(s) for s in shapes)
        key = ("ranks", ranks)
        spec = self._cache.get(key)
        if spec is None:
            provisional = [[d if isinstance(d, int) else None for d in s] for s in shapes]
            tr, results = self._symbolic(ranks, provisional)
            arg_dims = self._assign_dims(tr, results, ranks)
            self._check_shapes(arg_dims, shapes)
            spec = self._build([tuple(self.dims[j] for j in idx) for idx in arg_dims], arg_dims)
            self._cache[key] = spec
        else:
            self._check_shapes(spec.arg_dims, shapes)
        return spec

    def _specialize_inferred(self) -> Specialization:
        spec = self._cache.get(("inferred",))
        if spec is None:
            ranks, tr, results = self._infer_ranks()
            key = ("ranks", ranks)
            spec = self._cache.get(key)
            if spec is None:
                arg_dims = self._assign_dims(tr, results, ranks)
                spec = self._build([tuple(self.dims[j] for j in idx) for idx in arg_dims], arg_dims)
                self._cache[key] = spec
            self._cache[("inferred",)] = spec
        return spec

    def _check_shapes(self, arg_dims, shapes) -> None:
        """Each argument axis against its dims entry: ints must match, names bind consistently."""
        bound: dict[str, tuple[int, int, int]] = {}
        for i, (idx, shape) in enumerate(zip(arg_dims, shapes)):
            name = self.params[i]
            for k, (j, n) in enumerate(zip(idx, shape)):
                d = self.dims[j]
                if n is None:
                    continue
                if isinstance(n, str):
                    if n != d:
                        raise user_error(
                            f"{self.name}: argument '{name}' axis {k} is named '{n}' but dims[{j}] is {d!r}"
                        )
                    continue
                if isinstance(d, int):
                    if n != d:
                        raise user_error(
                            f"{self.name}: argument '{name}' axis {k} has size {n}, expected {d} (dims[{j}]); "
                            f"'{name}' has shape {_shape_str(shape)}"
                        )
                    continue
                prev = bound.get(d)
                if prev is None:
                    bound[d] = (n, i, k)
                elif prev[0] != n:
                    raise user_error(
                        f"{self.name}: argument '{name}' axis {k} has size {n}, expected {prev[0]}: dims[{j}] = '{d}' "
                        f"is {prev[0]} from argument '{self.params[prev[1]]}' axis {prev[2]}; '{name}' has shape {_shape_str(shape)}"
                    )

    # -- tracing ---------------------------------------------------------------------------------

    def _run(self, tiles):
        """Call the user's function; also note where it returned (for the stores' location)."""
        code = self._code
        where: list = [None]

        def hook(frame, event, arg):
            if event == "return" and frame.f_code is code:
                where[0] = frame_location(frame)

        old = sys.getprofile()
        if old is None:
            sys.setprofile(hook)
        try:
            out = self.fn(*tiles)
        finally:
            if old is None:
                sys.setprofile(None)
        return out, where[0] or self._def_loc

    def _results(self, tr: Tracer, out, loc) -> tuple[list[Tile], bool]:
        if out is None and tr.updates:
            return [], False  # only in-place updates: the call returns None
        if getattr(tr, "list_body", False):
            raise TileError(
                f"not supported yet: {self.name} returns tiles; an op over lists (tilec.List arguments) "
                f"updates its lists in place (params[...] = new) and returns nothing",
                loc,
            )
        as_tuple = isinstance(out, tuple | list)
        items = list(out) if as_tuple else [out]
        if not items:
            raise TileError(
                f"{self.name} must return a tile or a tuple of tiles, got an empty {type(out).__name__}", loc
            )
        for t in items:
            if not isinstance(t, Tile):
                raise TileError(
                    f"{self.name} must return a tile or a tuple of tiles, got {type(t).__name__} (an op that "
                    f"updates arguments in place, p[...] = new, may return nothing)",
                    loc,
                )
            if t.tracer is not tr:
                raise TileError(f"{self.name} returned a tile that belongs to another op or trace", loc)
        return items, as_tuple

    def _symbolic(self, ranks, provisional):
        tr = Tracer(self.name, self.dtype, self.acc, build=False)
        self.trace_count += 1
        with tr.activate():
            tiles = tr.make_args(self.params, self.arg_types, provisional, None)
            out, loc = self._run(tiles)
            results, _ = self._results(tr, out, loc)
        return tr, results

    @staticmethod
    def _iteration_space(tr: Tracer, results) -> list:
        order, seen = [], set()
        for t in results:
            for ax in t.axes:
                r = ax.root()
                if r.arg_axes and id(r) not in seen:
                    seen.add(id(r))
                    order.append(r)
        for syms in tr.arg_syms:
            for s in syms:
                r = s.root()
                if id(r) not in seen:
                    seen.add(id(r))
                    order.append(r)
        return order

    def _describe_space(self, space) -> str:
        parts = []
        for r in space:
            names = " = ".join(f"{self.params[i]}.shape[{k}]" for i, k in sorted(r.arg_axes))
            parts.append(f"[{names}]")
        return ", ".join(parts) if parts else "none"

    def _assign_dims(self, tr: Tracer, results, ranks) -> list[tuple[int, ...]]:
        """Per argument axis, the index of its iteration axis in dims."""
        space = self._iteration_space(tr, results)
        dims = self.dims
        if len(space) != len(dims):
            raise user_error(
                f"{self.name}: dims has {len(dims)} entries {list(dims)} but, for arguments of rank "
                f"{', '.join(str(r) for r in ranks) or '(none)'}, the program has {len(space)} iteration axes "
                f"(result axes first, then the others): {self._describe_space(space)}"
            )
        for j, r in enumerate(space):
            if r.const is not None and dims[j] != r.const:
                axes = ", ".join(f"{self.params[i]}.shape[{k}]" for i, k in sorted(r.arg_axes))
                raise user_error(
                    f"{self.name}: dims[{j}] is {dims[j]!r} but the program fixes that axis ({axes}) to size {r.const}; "
                    f"put {r.const} in dims"
                )
        index = {id(r): j for j, r in enumerate(space)}
        return [tuple(index[id(s.root())] for s in syms) for syms in tr.arg_syms]

    def _infer_ranks(self):
        """Argument ranks when only dims is known: among the rank tuples whose trace has exactly
        len(dims) iteration axes, the one with the smallest largest rank, then the largest total.
        A tie is an error that asks for shapes=."""
        L, n = len(self.dims), len(self.params) - sum(self._scalars)
        tried = 0
        first_error = None
        for maxr in range(0, L + 1):
            for total in range(n * maxr, maxr - 1, -1):
                found = []
                for array_ranks in _rank_combos(n, maxr, total):
                    it = iter(array_ranks)
                    ranks = tuple(0 if sc else next(it) for sc in self._scalars)
                    tried += 1
                    if tried > MAX_RANK_CANDIDATES:
                        raise user_error(
                            f"{self.name}: cannot infer the argument ranks from dims (too many candidates); pass shapes=[...]"
                        )
                    try:
                        tr, results = self._symbolic(ranks, [[None] * r for r in ranks])
                    except SizeUnknown:
                        raise
                    except Exception as e:  # a rank guess the program does not accept
                        if first_error is None or (isinstance(e, TileError) and not isinstance(first_error, TileError)):
                            first_error = e
                        continue
                    if len(self._iteration_space(tr, results)) == L:
                        found.append((ranks, tr, results))
                if len(found) == 1:
                    return found[0]
                if len(found) > 1:
                    options = "; ".join(", ".join(map(str, r[0])) for r in found)
                    raise user_error(
                        f"{self.name}: the argument ranks are ambiguous for dims {list(self.dims)} "
                        f"(ranks {options} all fit); pass example arrays or shapes=[...]"
                    )
        notes = ()
        if first_error is not None:
            notes = (f"while trying ranks, tracing failed with: {first_error}",)
        raise user_error(
            f"{self.name}: no argument ranks give {L} iteration axes for dims {list(self.dims)}; "
            f"pass example arrays or shapes=[...]",
            notes,
        )

    def _build(self, arg_shapes, arg_dims, eager_values=None) -> Specialization:
        tr = Tracer(self.name, self.dtype, self.acc, build=True)
        if eager_values is not None:
            from tilec.interpreter import StepInterpreter

            tr.eager = StepInterpreter()
        self.trace_count += 1
        with tr.activate():
            tr.list_body = any(self._lists)
            types = [t.dtype if isinstance(t, ListType) else t for t in self.arg_types]
            tiles = tr.make_args(self.params, types, arg_shapes, self._def_loc, eager_values)
            out, ret_loc = self._run(tiles)
            results, as_tuple = self._results(tr, out, ret_loc)
            block = tr.block
            n_in = len(self.params)
            for i, t in enumerate(results):
                arg = block.insert_arg(ArrayType(tr.ir_shape(t.axes), t.dtype.ir), n_in + i)
                arg.name_hint = "out" if len(results) == 1 else f"out{i}"
                tr.emit(lambda t=t, arg=arg: StoreOp(t.value, arg), ret_loc)
            for i, (t, upd_loc) in sorted(tr.updates.items()):
                arg = block.args[i]
                first = next((u.operation for u in arg.uses if isinstance(u.operation, LoadOp)), None)
                if first is not None and t.value is first.results[0]:
                    continue  # p[...] = p: nothing changes
                tr.emit(lambda t=t, arg=arg: StoreOp(t.value, arg), upd_loc)
            tr.emit(ReturnOp, ret_loc)
        _erase_dead(block)
        in_types = [a.type for a in block.args[:n_in]]
        out_types = [a.type for a in block.args[n_in:]]
        func = FuncOp(self._func_name, in_types, out_types, Region(block))
        func.location = location_attr(self._def_loc)
        if any(self._lists):
            func.attributes[FOREACH_ATTR] = UnitAttr()
        module = ModuleOp([func])
        module.location = location_attr(self._def_loc)
        from tilec.ir import verify_module

        try:
            verify_module(module)
        except TilecError as e:
            raise TileError(e.message, e.location, e.notes) from None
        spec = Specialization(module, func, [tuple(s) for s in arg_shapes], as_tuple, arg_dims)
        spec.returns_none = not results
        if tr.eager is not None:
            spec.eager_outputs = tuple(tr.eager.output(a) for a in block.args[n_in:])
            spec.eager_updates = {i: tr.eager.update(block.args[i]) for i in spec.updated}
        return spec


def interpreting() -> bool:
    """TILEC_INTERPRET=1 (or true/yes/on): every tile op call runs in the interpreter, eagerly."""
    return os.environ.get("TILEC_INTERPRET", "").strip().lower() in ("1", "true", "yes", "on")


def debug_print(t, label: str | None = None) -> None:
    """Print a tile's value while the program runs under TILEC_INTERPRET=1; a no-op when the
    program is traced for compilation (compiled kernels print nothing)."""
    if not isinstance(t, Tile):
        raise user_error(f"debug_print takes a tile, got {type(t).__name__}")
    if t.tracer.eager is None or t.value is None:
        return
    shape = "x".join(str(a) for a in t.axes) or "scalar"
    print(f"{label or 'tile'} ({shape} {t.dtype.name}):\n{t.tracer.eager.value(t.value)}", flush=True)


def _erase_dead(block) -> None:
    """Drop ops whose results are unused (unused argument loads, values the program discarded)."""
    for op in reversed(list(block.ops)):
        if isinstance(op, StoreOp | ReturnOp):
            continue
        if op.results and all(not r.uses for r in op.results):
            block.erase_op(op)


def _resolve_annotation(ann, fn):
    """An annotation as written, or its value when it is a string (`from __future__ import
    annotations`): evaluated in the function's module, else read as a dtype name."""
    if not isinstance(ann, str):
        return ann
    try:
        return eval(ann, getattr(fn, "__globals__", {}))  # noqa: S307  (what typing.get_type_hints does)
    except Exception:
        return ann  # a dtype name such as "float32" or "bf16", checked by as_arg_type


def _arg_types(fn, signature, dtype: DType | None, dtypes: dict, loc) -> list:
    """Per parameter: its DType (an array argument) or ScalarType (a runtime scalar), from its
    annotation, `dtypes=`, else the op's dtype."""
    names = list(signature.parameters)
    unknown = [k for k in dtypes if k not in names]
    if unknown:
        raise TileError(
            f"tile op '{fn.__name__}': dtypes= names {', '.join(repr(k) for k in unknown)}, which "
            f"{'is not a parameter' if len(unknown) == 1 else 'are not parameters'} (parameters: {', '.join(names)})",
            loc,
        )
    out = []
    for name, p in signature.parameters.items():
        from_ann = None
        ann = _resolve_annotation(p.annotation, fn)
        if ann is not p.empty and ann is not Tile and ann != "Tile":
            try:
                from_ann = as_arg_type(ann)
            except TileError as e:
                raise TileError(
                    f"tile op '{fn.__name__}': the annotation of parameter '{name}': {e.message}", loc
                ) from None
        from_kw = None
        if name in dtypes:
            try:
                from_kw = as_arg_type(dtypes[name])
            except TileError as e:
                raise TileError(f"tile op '{fn.__name__}': dtypes['{name}']: {e.message}", loc) from None
        if from_ann is not None and from_kw is not None and from_ann != from_kw:
            raise TileError(
                f"tile op '{fn.__name__}': parameter '{name}' is annotated {from_ann!r} but dtypes= gives {from_kw!r}; "
                f"give its type once",
                loc,
            )
        t = from_ann or from_kw or dtype
        if t is None:
            raise TileError(
                f"tile op '{fn.__name__}': parameter '{name}' needs an element type: annotate it (`{name}: tilec.float32`), "
                f"name it in dtypes=, or give the op a dtype: @tile_op(dtype=tilec.float32, ...)",
                loc,
            )
        out.append(t)
    return out


def tile_op(fn=None, *, dtype=None, dims=None, acc=None, dtypes=None):
    """Decorator: `@tile_op(dtype=float32, dims=[M, N, K], acc=None, dtypes=None)` turns a Python
    function over tiles into a tile op (see docs/dsl.md). `dtype` is the type of arguments
    without an annotation or `dtypes=` entry; it may be left out when every parameter has one."""
    loc = user_location()
    if fn is not None:
        return tile_op(dtype=dtype, dims=dims, acc=acc, dtypes=dtypes)(fn)
    if dtypes is not None and not isinstance(dtypes, dict):
        raise TileError(f"dtypes= must be a dict from parameter names to dtypes, got {type(dtypes).__name__}", loc)
    try:
        dt = None if dtype is None else as_dtype(dtype)
        acc_dt = None if acc is None else as_dtype(acc)
    except TileError as e:
        raise TileError(e.message, loc) from None
    if dt is None:
        if acc_dt is not None:
            raise TileError("acc= needs the op's dtype: write @tile_op(dtype=..., acc=...)", loc)
    elif acc_dt is None:
        acc_dt = default_acc(dt)
    elif dt.is_bool:
        raise TileError("acc has no meaning for bool ops", loc)
    elif dt.is_float and (not acc_dt.is_float or acc_dt.bits < dt.bits):
        raise TileError(f"acc must be a float at least as wide as dtype {dt.name}, got {acc_dt.name}", loc)
    elif dt.is_int and (not acc_dt.is_int or acc_dt.bits < 32):
        raise TileError(f"integer ops accumulate in int32 or int64, got acc={acc_dt.name}", loc)
    if dims is not None:
        if isinstance(dims, str | int):
            raise TileError(f"dims must be a list of sizes (ints or names), got {dims!r}", loc)
        try:
            dims = tuple(dims)
        except TypeError:
            raise TileError(f"dims must be a list of sizes (ints or names), got {dims!r}", loc) from None
        for d in dims:
            if isinstance(d, bool) or not (isinstance(d, int | np.integer | str)):
                raise TileError(f"dims entries must be ints or names (strings), got {d!r}", loc)
            if isinstance(d, str) and not d:
                raise TileError("dims names must not be empty", loc)
            if not isinstance(d, str) and d < 0:
                raise TileError(f"dims sizes must not be negative, got {d}", loc)
        dims = tuple(d if isinstance(d, str) else int(d) for d in dims)

    def decorate(f):
        if not callable(f) or not hasattr(f, "__code__"):
            raise TileError(f"@tile_op decorates a Python function, got {type(f).__name__}", loc)
        return TileFunction(f, dt, dims, acc_dt, loc, dtypes)

    return decorate


def interpret(op, *args, **kwargs):
    """Trace `op` for these arrays and run it with the reference interpreter (the oracle).
    Returns what calling `op` returns: an array, or a tuple for several results."""
    if not isinstance(op, TileFunction):
        raise user_error(f"tilec.interpret expects a @tile_op function, got {type(op).__name__}")
    if any(op._lists):
        return op._call_lists(args, kwargs, interpret=True)
    arrays, kind = op._bind(args, kwargs)
    host = [
        a if sc else to_host(a, CUPY if kind in DEVICE_KINDS else NUMPY, t.np)
        for a, sc, t in zip(arrays, op._scalars, op.arg_types)
    ]
    spec = op._specialize_arrays(host)
    try:
        from tilec.interpreter import interpret_func
    except ImportError:
        raise NotSupportedYet("the reference interpreter (tilec.interpreter)", user_location()) from None
    if spec.updated:
        op._check_updated(spec, arrays)
    ins = [a if sc else np.asarray(a) for a, sc in zip(host, op._scalars)]
    outs = interpret_func(spec.func, ins)
    if kind in DEVICE_KINDS:  # the interpreter updated host copies: write them back
        for i in spec.updated:
            write_back(arrays[i], ins[i])
    if spec.returns_none:
        return None
    if kind in (TORCH_CPU, TORCH_CUDA):  # the caller's kind, on the host
        return spec.wrap(to_caller(np.ascontiguousarray(o), TORCH_CPU) for o in outs)
    return spec.wrap(outs)
