"""`torch.compile(model, backend="tilec")`: FX graphs partitioned into fused tile programs.

AOT autograd (with the core ATen decompositions) hands the backend one forward and one backward
graph of ATen ops. `partition` walks each graph in order and grows a *region* from consecutive
nodes the ATen table (plus its view table: inside a region a view is a tile value) can plan;
a node it cannot plan closes the region and runs in torch, reported as a fallback (an error
with `strict` / `TILEC_STRICT=1`). Each region becomes ONE tile op: its body runs the nodes'
plan bodies in order over tiles, so the tile-level fusion passes see the whole region (an
elementwise chain after a matmul is its epilogue, a decomposed layer-norm backward one row
kernel plus column sums). Region inputs are the tensors it reads from outside; outputs the
values used after it.

`Backend(strict=None)` is the backend object (`torch.compile(model, backend=Backend())`),
with `report` (a `tilec.torch.Report`: kernels = nodes inside regions, fallbacks with reasons,
`regions`) and `graphs` (each compiled graph's `Partition`). The name "tilec" is registered
through the `torch_dynamo_backends` entry point; `tilec.torch.compile(model)` is
`torch.compile(model, backend=Backend())`.
"""

from __future__ import annotations

import inspect
import operator
import os
import warnings
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx
from functorch.compile import make_boxed_func
from torch._decomp import core_aten_decompositions
from torch._dynamo.backends.common import aot_autograd

import tilec
from tilec.diagnostics import NotSupportedYet
from tilec.torch.aten import Library, NoKernel, Plan, default_table
from tilec.torch.aten.registry import Decline, tilec_dtype
from tilec.torch.aten.views import view_table
from tilec.torch.dispatch import NO_KERNEL, Report, overload_name

# ATen reshapes that alias their operand without `OpOverload.is_view` (they may be made by torch
# from a region's output, as views are)
HOST_VIEW_OPS = frozenset({"aten::_unsafe_view", "aten::_reshape_alias", "aten::detach"})


@dataclass
class Region:
    """Consecutive graph nodes computed by one tile op."""

    steps: list = field(default_factory=list)  # (node, plan | None for getitem, refs)
    inputs: list = field(default_factory=list)  # nodes read from outside the region
    consts: list = field(default_factory=list)  # (dtype, device): empty device anchors of plans
    scalars: list = field(default_factory=list)  # Python numbers, runtime scalars of the op
    outputs: list = field(default_factory=list)  # nodes used after the region
    op: Any = None
    device: Any = None  # the CUDA device of a region on one; None on the CPU
    lift: tuple = ()  # positions of 0-dim CPU inputs of a CUDA region (moved there, as torch does)
    host_views: list = field(default_factory=list)  # view nodes of its outputs, run by torch after it
    # positions of outputs some host view reads: given the graph's strides (see `_run_region`)
    restride: tuple = ()
    # per input: None, or the permutation that makes it contiguous (a transposed weight saved for
    # the backward): the region reads `x.permute(p)` (a view) and transposes it back in the
    # tile program (a view there too), so no copy is made and the fast call applies
    perms: tuple = ()

    @property
    def nodes(self) -> list:
        return [s[0] for s in self.steps]


@dataclass
class Partition:
    """A compiled graph: regions and torch-run nodes in the graph's order."""

    graph: torch.fx.Graph
    steps: list  # Region | torch.fx.Node (a torch-run op, or a get_attr constant)
    module: torch.nn.Module | None = None  # holds the graph's get_attr constants

    @property
    def regions(self) -> list[Region]:
        return [s for s in self.steps if isinstance(s, Region)]

    def __call__(self, *args):
        return self.run(args)

    def run(self, args, region=None):
        """The graph's outputs for `args`. `region(step, env)` (default: call the region's tile
        op) binds each region's outputs in `env`, the values by graph node so far; a tool that
        inspects regions instead of running them passes its own (benchmarks/region_kernels.py)."""
        env: dict = {}
        placeholders = [n for n in self.graph.nodes if n.op == "placeholder"]
        env.update(zip(placeholders, args))
        for step in self.steps:
            if isinstance(step, Region):
                (region or _run_region)(step, env)
            elif step.op == "get_attr":
                env[step] = _attr(self.module, step.target)
            else:
                a = torch.fx.node.map_arg(step.args, env.__getitem__)
                k = torch.fx.node.map_arg(step.kwargs, env.__getitem__)
                env[step] = step.target(*a, **k)
        out = next(n for n in self.graph.nodes if n.op == "output")
        return torch.fx.node.map_arg(out.args[0], env.__getitem__)


def region_args(step: Region, env: dict) -> list:
    """A region's tile-op arguments: its input tensors (0-dim CPU ones moved to its device),
    empty device anchors, then its scalars."""
    consts = [torch.empty(0, dtype=dt, device=dev) for dt, dev in step.consts]
    perms = step.perms or (None,) * len(step.inputs)
    ins = [env[n] if p is None else env[n].permute(p) for n, p in zip(step.inputs, perms)]
    for i in step.lift:
        ins[i] = ins[i].to(step.device)
    return [*ins, *consts, *step.scalars]


def _run_region(step: Region, env: dict) -> None:
    outs = step.op(*region_args(step, env))
    outs = list(outs if isinstance(outs, tuple) else (outs,))
    for i in step.restride:  # tilec's results are contiguous; a traced view may need other strides
        fake = _val(step.outputs[i])
        if isinstance(fake, torch.Tensor) and outs[i].stride() != fake.stride() and outs[i].numel() > 1:
            laid = torch.empty_strided(fake.shape, fake.stride(), dtype=outs[i].dtype, device=outs[i].device)
            outs[i] = laid.copy_(outs[i])
    env.update(zip(step.outputs, outs))


def _attr(module, target: str):
    for part in target.split("."):
        module = getattr(module, part)
    return module


def _val(n):
    return n.meta.get("val") if isinstance(n, torch.fx.Node) else n


def _plan_node(library: Library, node: torch.fx.Node) -> Plan | str:
    func = node.target
    args = torch.fx.node.map_arg(node.args, _val)
    kwargs = torch.fx.node.map_arg(node.kwargs, _val)
    plan = library.plan(func, args, kwargs)
    if isinstance(plan, Plan) and plan.updates:
        return "an in-place update inside a graph"
    return plan


def _is_view_like(node) -> bool:
    f = node.target
    return isinstance(f, torch._ops.OpOverload) and (f.is_view or f._schema.name in NO_KERNEL)


def partition(gm: torch.fx.GraphModule, library: Library, report: Report, strict: bool) -> Partition:
    """Split the graph into regions of planned nodes and torch-run nodes; fill the report."""
    steps: list = []
    region: Region | None = None
    owner: dict = {}  # node -> its region

    def close():
        nonlocal region
        if region is not None and region.steps:
            steps.append(region)
        region = None

    for node in gm.graph.nodes:
        if node.op == "get_attr":  # a constant tensor of the graph: read from the module
            steps.append(node)
            continue
        if node.op != "call_function":
            continue
        if node.target is operator.getitem:
            src = node.args[0]
            if region is not None and owner.get(src) is region:
                region.steps.append((node, None, (src, node.args[1])))
                owner[node] = region
            else:
                close()
                steps.append(node)
            continue
        if not isinstance(node.target, torch._ops.OpOverload):
            close()
            steps.append(node)
            report.fallback(str(node.target), "not an ATen op")
            continue
        name = overload_name(node.target)
        if node.target.namespace == "profiler":
            report.no_kernel[name] += 1
            continue
        try:
            plan = _plan_node(library, node)
        except Decline as e:
            plan = str(e)
        if isinstance(plan, NoKernel):
            report.no_kernel[name] += 1
            close()
            steps.append(node)
            continue
        if isinstance(plan, str):
            if strict:
                raise NotSupportedYet(f"{name} on tilec ({plan}); TILEC_STRICT=1 makes every fallback an error")
            report.fallback(name, plan)
            close()
            steps.append(node)
            continue
        if region is None:
            region = Region()
        vals = {id(_val(a)): a for a in node.all_input_nodes}
        refs = []
        for x in plan.inputs:
            if isinstance(x, torch.Tensor):
                src = vals.get(id(x))
                if src is None:  # a tensor the plan made (an empty device anchor, fake while compiling)
                    if x.numel():
                        raise NotSupportedYet(f"{name}: a plan made a non-empty tensor")
                    region.consts.append((x.dtype, x.device))
                    refs.append(("const", len(region.consts) - 1))
                else:
                    refs.append(("node", src))
            else:
                region.scalars.append(x)
                refs.append(("scalar", len(region.scalars) - 1))
        region.steps.append((node, plan, refs))
        owner[node] = region
        (report.no_kernel if _is_view_like(node) else report.kernels)[name] += 1
    close()
    order = {n: i for i, n in enumerate(gm.graph.nodes)}
    for r in (s for s in steps if isinstance(s, Region)):
        inside = set(r.nodes)
        for node, plan, refs in r.steps:
            srcs = [refs[0]] if plan is None else [ref[1] for ref in refs if ref[0] == "node"]
            for s in srcs:
                if s not in inside and s not in r.inputs:
                    r.inputs.append(s)
        for n in r.nodes:
            if any(u not in inside for u in n.users) and n not in r.outputs:
                r.outputs.append(n)
        r.host_views = _host_views(r, inside)
        r.perms = tuple(_contiguous_perm(_val(n)) for n in r.inputs)
        r.outputs.sort(key=order.__getitem__)
        r.host_views.sort(key=order.__getitem__)
        devices = {_val(n).device for n in r.inputs} | {dev for _, dev in r.consts}
        cuda = {d for d in devices if d.type == "cuda"}
        if len(cuda) == 1:
            r.device = cuda.pop()
            r.lift = tuple(i for i, n in enumerate(r.inputs) if _val(n).device.type == "cpu" and _val(n).ndim == 0)
        r.op = _region_op(r, len(report.regions_seen))
        report.regions_seen.append(len(r.steps))
    # a view torch makes of a region output (here or as another region's input) needs the output
    # in the layout the graph traced (a `view` of a transposed value is only valid for its strides)
    bases = {_host_view_base(v) for r in steps if isinstance(r, Region) for v in r.host_views}
    for r in (s for s in steps if isinstance(s, Region)):
        r.restride = tuple(i for i, o in enumerate(r.outputs) if o in bases)
    # the host views run in torch right after their region (they launch no kernel)
    steps = [t for s in steps for t in ([s, *s.host_views] if isinstance(s, Region) else [s])]
    return Partition(gm.graph, steps, gm)


def _host_view_base(node):
    """The one tensor a view node reads, if it is an ATen view of it (else None)."""
    f = node.target
    if not isinstance(f, torch._ops.OpOverload) or not (f.is_view or f._schema.name in HOST_VIEW_OPS):
        return None
    base = node.args[0] if node.args else None
    return base if isinstance(base, torch.fx.Node) and node.all_input_nodes == [base] else None


def _host_views(r: Region, inside: set) -> list:
    """Outputs that are views (a reshape, a transpose, an expand, ... of another region value or
    input) are not materialized by the region: its output is their base (once), and torch makes
    the view after the region, aliasing it as in eager. Updates `r.outputs`; returns the view
    nodes in the order to run them (a view of a view after its base)."""
    host: list = []
    work = list(r.outputs)
    outputs: list = []
    while work:
        o = work.pop(0)
        base = _host_view_base(o)
        if base is None or not (base in inside or base in r.inputs):
            if o not in outputs:
                outputs.append(o)
            continue
        host.append(o)
        if base in inside and base not in outputs and base not in work:
            work.append(base)
    if not outputs:  # every output a view of an input: nothing left to compute, keep the copies
        return []
    r.outputs[:] = outputs
    return host


def _contiguous_perm(t) -> tuple | None:
    """The permutation p making `t.permute(p)` contiguous, where `t` is a non-contiguous tensor laid
    out as a permuted contiguous one (a transpose: strides a permutation of row-major strides);
    else None."""
    if not isinstance(t, torch.Tensor) or t.ndim < 2 or t.is_contiguous() or 0 in t.stride():
        return None
    p = tuple(sorted(range(t.ndim), key=lambda a: (-t.stride()[a], a)))
    return p if t.permute(p).is_contiguous() else None


def _region_op(r: Region, number: int):
    """The tile op of a region: parameters = its input tensors, consts, then scalars."""
    n_in, n_const = len(r.inputs), len(r.consts)
    names = (
        [f"x{i}" for i in range(n_in)] + [f"c{i}" for i in range(n_const)] + [f"s{i}" for i in range(len(r.scalars))]
    )
    dtypes = {f"x{i}": tilec_dtype(_val(n).dtype) for i, n in enumerate(r.inputs)}
    dtypes.update({f"c{i}": tilec_dtype(dt) for i, (dt, _) in enumerate(r.consts)})
    dtypes.update({f"s{i}": (float if isinstance(s, float) else int) for i, s in enumerate(r.scalars)})
    steps, inputs, outputs = r.steps, list(r.inputs), list(r.outputs)
    # an input passed permuted (Region.perms) is transposed back: result axis i = axis inv[i]
    back = [None if p is None else tuple(sorted(range(len(p)), key=p.__getitem__)) for p in r.perms or [None] * n_in]

    def body(*vals):
        env = {n: v if b is None else tilec.transpose(v, b) for n, v, b in zip(inputs, vals[:n_in], back)}
        consts, scalars = vals[n_in : n_in + n_const], vals[n_in + n_const :]
        for node, plan, refs in steps:
            if plan is None:
                env[node] = env[refs[0]][refs[1]]
                continue
            ins = [env[v] if kind == "node" else consts[v] if kind == "const" else scalars[v] for kind, v in refs]
            out = plan.body(*ins)
            if plan.returns is not None:
                out = plan.returns(out if isinstance(out, tuple) else (out,))
            env[node] = out
        res = tuple(env[o] for o in outputs)
        return res if len(res) > 1 else res[0]

    body.__signature__ = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names]
    )
    body.__name__ = f"tilec_region_{number}"
    return tilec.tile_op(dtypes=dtypes)(body)


class Backend:
    """A `torch.compile` backend on tilec: `torch.compile(model, backend=Backend())`."""

    def __init__(self, strict: bool | None = None, library: Library | None = None):
        self.strict = os.environ.get("TILEC_STRICT", "0") == "1" if strict is None else strict
        self.library = library if library is not None else Library({**default_table(), **view_table()})
        self.report = Report()
        self.graphs: list[Partition] = []

    def _compile(self, gm: torch.fx.GraphModule, example_inputs):
        part = partition(gm, self.library, self.report, self.strict)
        self.graphs.append(part)
        if self.report.fallbacks:
            warnings.warn(
                "tilec: ops run in torch (no tilec kernel): "
                + ", ".join(f"{n} x{c}" for n, c in self.report.fallbacks.items()),
                stacklevel=2,
            )
        return make_boxed_func(part)

    def __call__(self, gm: torch.fx.GraphModule, example_inputs):
        return aot_autograd(
            fw_compiler=self._compile, bw_compiler=self._compile, decompositions=core_aten_decompositions()
        )(gm, example_inputs)


def tilec_backend(gm, example_inputs):
    """The backend torch.compile finds by name ("tilec", the `torch_dynamo_backends` entry point)."""
    return Backend()(gm, example_inputs)


def compile(model, *, strict: bool | None = None, **kwargs):  # noqa: A001  (tilec.torch.compile)
    """`torch.compile(model, backend=Backend(strict), **kwargs)`."""
    return torch.compile(model, backend=Backend(strict), **kwargs)


__all__ = ["Backend", "Partition", "Region", "compile", "partition", "region_args", "tilec_backend"]
