"""The host side of a GPU program, as plain data, and the one executor both GPU runtimes use.

`HostProgram.from_mapped(module)` reads a mapped module's `mapped.host` (sizes, temporaries,
reshaped views, launches) and its kernels' launch facts (grid, block, shared memory, argument
types) into JSON-able data, so a kernel loaded from the disk cache needs no IR at all.
`HostProgram.plan(shapes)` runs the host program once for these input shapes and records it as
a list of steps (allocate, view, launch) that `run(steps, buffers, device)` replays for every call
with the same shapes; the `device` (CUDA through CuPy, HIP through libamdhip64, or NVRTC for
portable HIP) supplies `empty(shape, dtype)`, `zeros(shape, dtype)` (a `mapped.temp zeroed`:
cleared on the stream the launches go to, so no host synchronization), `view(buffer, shape)` and
`launch(kernel, grid, block, smem, params)`.
GPU kernels index with 32 bits: every buffer a launch passes must have fewer than 2^31 elements.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from tilec.diagnostics import TilecError
from tilec.runtime.status import raise_status

_ARITH = {
    "addi": lambda a, b: a + b,
    "subi": lambda a, b: a - b,
    "muli": lambda a, b: a * b,
    "divui": lambda a, b: a // b,
    "remui": lambda a, b: a % b,
    "ceildivui": lambda a, b: -(-a // b),
}
"""The host integer ops a host program may use, by name."""

INDEX_LIMIT = 2**31
"""GPU kernels index with 32 bits (index is narrowed to i32 inside kernels)."""


class Device(Protocol):
    def empty(self, shape: tuple, dtype: np.dtype) -> Any: ...

    def zeros(self, shape: tuple, dtype: np.dtype) -> Any:
        """A buffer of zero bytes, cleared in stream order before the next launch (no host sync)."""
        ...

    def view(self, buffer: Any, shape: tuple) -> Any: ...

    def launch(self, name: str, grid: tuple, block: tuple, smem: int, params: list) -> None: ...

    # only for kernels with TMA loads (CUDA): the parameter of the tensor map of a 2-D buffer
    def tensor_map(self, buffer: Any, rows: int, cols: int) -> Any: ...


@dataclass(frozen=True)
class KernelInfo:
    """What a launch needs to know about one kernel."""

    grid: list[list[list[int]]]  # per extent, the encoded factors (see mapped.GridFactor)
    block: tuple[int, int, int]
    smem: int
    args: list[
        list
    ]  # per argument: ["buf", shape (-1 = dynamic), dtype] | ["index"] | ["int", bits] | ["float", dtype]
    tmaps: list = ()  # TMA tensor maps after the arguments: [argument number, box rows, box cols] each

    def grid_extents(self, values: Sequence) -> tuple[int, int, int]:
        """The grid from argument values (a shape per buffer argument, an int per scalar)."""
        out = []
        for factors in self.grid:
            p = 1
            for f in factors:
                if len(f) == 1:
                    p *= f[0]
                    continue
                n = 1
                for i in range(1, len(f), 2):
                    a, axis = f[i], f[i + 1]
                    n *= int(values[a]) if axis < 0 else int(values[a][axis])
                p *= -(-n // f[0])
            out.append(p)
        return tuple(out)  # type: ignore[return-value]


@dataclass(frozen=True)
class HostProgram:
    """A `mapped.host` and its kernels as data (see the module docstring)."""

    num_inputs: int
    num_outputs: int
    ops: list[list]  # each [opname, result slot or None, ...operands]; slots number values
    kernels: dict[str, KernelInfo]
    # gathers/scatters: [message, location] per status code; the status word (1 x int32, zeroed
    # per call) is then the host's last output, after the tile.func's (num_outputs counts it)
    status: list = ()
    foreach: str | None = None  # the kernel of a program over lists launched once for all positions

    # --- from IR / to and from JSON ---------------------------------------------------------------

    @staticmethod
    def from_mapped(module) -> HostProgram:
        from xdsl.dialects import arith
        from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType

        from tilec.dialects import mapped
        from tilec.runtime.dtypes import numpy_dtype

        hosts = [op for op in module.body.block.ops if isinstance(op, mapped.HostOp)]
        if len(hosts) != 1:
            raise TilecError(f"a GPU program needs exactly one mapped.host, found {len(hosts)}")
        host = hosts[0]
        slot: dict = {}
        for a in host.body.block.args:
            slot[a] = len(slot)

        def new(v) -> int:
            slot[v] = len(slot)
            return slot[v]

        names = {
            arith.AddiOp: "addi",
            arith.SubiOp: "subi",
            arith.MuliOp: "muli",
            arith.DivUIOp: "divui",
            arith.RemUIOp: "remui",
            arith.CeilDivUIOp: "ceildivui",
        }
        ops: list[list] = []
        for op in host.body.block.ops:
            if isinstance(op, mapped.DimOp):
                ops.append(["dim", new(op.result), slot[op.source], op.axis.data])
            elif isinstance(op, arith.ConstantOp):
                v = op.value
                ops.append(
                    ["const", new(op.result), v.value.data if isinstance(v, IntegerAttr) else float(v.value.data)]
                )
            elif type(op) in names:
                ops.append([names[type(op)], new(op.results[0]), slot[op.operands[0]], slot[op.operands[1]]])
            elif isinstance(op, mapped.TempOp):
                t = op.result.type
                ops.append(
                    [
                        "temp",
                        new(op.result),
                        list(t.get_shape()),
                        numpy_dtype(t.element_type).str,
                        [slot[s] for s in op.sizes],
                        op.zeroed is not None,
                    ]
                )
            elif isinstance(op, mapped.ViewOp):
                t = op.result.type
                ops.append(["view", new(op.result), slot[op.source], list(t.get_shape()), [slot[s] for s in op.sizes]])
            elif isinstance(op, mapped.LaunchOp):
                ops.append(["launch", None, op.kernel_name.root_reference.data, [slot[a] for a in op.args]])
            elif isinstance(op, mapped.ReturnOp):
                break
            else:
                raise TilecError(f"the GPU runtimes cannot execute {op.name} on the host")
        kernels = {}
        for op in module.body.block.ops:
            if isinstance(op, mapped.KernelOp):
                args = []
                for t in op.function_type.inputs.data:
                    if isinstance(t, mapped.BufType):
                        args.append(["buf", list(t.get_shape()), numpy_dtype(t.element_type).str])
                    elif isinstance(t, IndexType):
                        args.append(["index"])
                    elif isinstance(t, IntegerType):
                        args.append(["int", t.width.data])
                    else:
                        args.append(["float", numpy_dtype(t).str])
                grid = [[[i.data for i in f.data] for f in dim.data] for dim in op.grid.dims.data]
                kernels[op.sym_name.data] = KernelInfo(
                    grid,
                    tuple(op.block_size.iter_values()),
                    op.smem_bytes or 0,
                    args,
                    [list(m) for m in mapped.tensor_maps(op)],
                )
        from tilec.conversion.mapped_to_hw.gpu_kernel import foreach_kernel
        from tilec.conversion.tile_to_mapped.host import status_checks

        n_out = len(host.body.block.args) - host.num_inputs
        return HostProgram(host.num_inputs, n_out, ops, kernels, status_checks(host), foreach_kernel(module))

    def to_json(self) -> dict:
        return {
            "num_inputs": self.num_inputs,
            "num_outputs": self.num_outputs,
            "ops": self.ops,
            "status": list(self.status),
            "kernels": {
                k: {"grid": v.grid, "block": list(v.block), "smem": v.smem, "args": v.args, "tmaps": list(v.tmaps)}
                for k, v in self.kernels.items()
            },
            "foreach": self.foreach,
        }

    @staticmethod
    def from_json(data: dict) -> HostProgram:
        kernels = {
            k: KernelInfo(v["grid"], tuple(v["block"]), v["smem"], v["args"], v.get("tmaps", []))
            for k, v in data["kernels"].items()
        }
        return HostProgram(
            data["num_inputs"], data["num_outputs"], data["ops"], kernels, data.get("status", []), data.get("foreach")
        )

    def foreach_table(self, lists: Sequence[Sequence], sizes: Sequence[int]) -> tuple[np.ndarray, int, list]:
        """For the one launch over lists (`foreach`): the table the kernel reads (int64 words:
        the K buffer arguments' addresses per position `ptrs[k * n + j]`, `sizes[j]`, `first[j]`
        (the position's first block), and per block its position), the grid size along x, and the
        launch's other parameters as slot numbers of scalar inputs with their dtype. `lists[i]`
        holds input i's device addresses per position (None for a scalar input)."""
        launch = next(op for op in self.ops if op[0] == "launch")
        info = self.kernels[launch[2]]
        n = len(sizes)
        words: list = []
        scalars = []
        for s, a in zip(launch[3], info.args):
            if a[0] == "buf":
                words.append(lists[s])
            elif a[0] in ("int", "float"):
                scalars.append((s, np.dtype(f"int{max(8, a[1])}") if a[0] == "int" else np.dtype(a[1])))
        per = np.fromiter((info.grid_extents(_sizes_as_args(info.args, m))[0] for m in sizes), np.int64, n)
        first = np.zeros(n, np.int64)
        np.cumsum(per[:-1], out=first[1:])
        pos = np.repeat(np.arange(n, dtype=np.int64), per)
        table = np.concatenate([np.asarray(words, dtype=np.uint64).reshape(-1).view(np.int64), sizes, first, pos])
        check_32bit(launch[2], (int(np.max(sizes)),))  # the kernel indexes a position and the table with 32 bits
        check_32bit(launch[2], table.shape)
        return table, int(per.sum()), scalars

    # --- running ---------------------------------------------------------------------------------

    def plan(self, input_shapes: Sequence, output_shapes: Sequence) -> list[Step]:
        """Run the host program once for these shapes and return its steps (see the module docstring).

        `input_shapes` has a shape tuple per array input and the value per scalar input. Every
        size, temporary shape, grid and scalar parameter depends only on them, so the steps can
        be replayed by every later call with the same shapes: `run(steps, slots, device)` with
        slots = the call's input and output buffers."""
        env: list = [_Shaped(s) if isinstance(s, tuple) else s for s in input_shapes]
        env += [_Shaped(tuple(s)) for s in output_shapes]
        steps: list[Step] = []
        for op in self.ops:
            kind = op[0]
            if kind == "dim":
                _set(env, op[1], int(env[op[2]].shape[op[3]]))
            elif kind == "const":
                _set(env, op[1], op[2])
            elif kind in _ARITH:
                _set(env, op[1], _ARITH[kind](env[op[2]], env[op[3]]))
            elif kind in ("temp", "view"):
                shape_spec, sizes = (op[2], op[4]) if kind == "temp" else (op[3], op[4])
                it = iter(env[s] for s in sizes)
                shape = tuple(int(next(it)) if d < 0 else d for d in shape_spec)
                _set(env, op[1], _Shaped(shape))
                if kind == "temp":
                    zeroed = len(op) > 5 and bool(op[5])
                    steps.append(Step("temp", op[1], shape=shape, dtype=np.dtype(op[3]), zeroed=zeroed))
                else:
                    steps.append(Step("view", op[1], source=op[2], shape=shape))
            elif kind == "launch":
                step = self._launch_step(op[2], op[3], env)
                if step is not None:
                    steps.append(step)
            else:
                raise TilecError(f"the GPU runtimes cannot execute host op '{kind}'")
        return steps

    def _launch_step(self, name: str, arg_slots: list[int], env: list) -> Step | None:
        info = self.kernels[name]
        values = [env[s] for s in arg_slots]
        grid = info.grid_extents([v.shape if a[0] == "buf" else v for v, a in zip(values, info.args)])
        if any(g == 0 for g in grid):
            return None  # an empty dimension: nothing to launch
        params: list = []  # a slot number (a buffer or a scalar input, filled per call) or a ready numpy scalar
        buffers = []
        scalars = []
        positions = []  # each argument's position in params
        for s, v, a in zip(arg_slots, values, info.args):
            positions.append(len(params))
            if a[0] in ("int", "float") and s < self.num_inputs:
                # a scalar input (a learning rate, a seed): read from the call's arguments each time
                scalars.append((len(params), np.dtype(f"int{max(8, a[1])}") if a[0] == "int" else np.dtype(a[1])))
                params.append(s)
            elif a[0] == "buf":
                check_32bit(name, v.shape)
                buffers.append(len(params))
                params.append(s)
                params += [np.int64(v.shape[ax]) for ax, d in enumerate(a[1]) if d < 0]
            elif a[0] == "index":
                params.append(np.int64(v))
            elif a[0] == "int":
                params.append(np.dtype(f"int{max(8, a[1])}").type(v))
            else:
                params.append(np.dtype(a[1]).type(v))
        return Step(
            "launch",
            None,
            kernel=name,
            grid=grid,
            block=info.block,
            smem=info.smem,
            params=params,
            buffers=tuple(buffers),
            scalars=tuple(scalars),
            tmaps=tuple(
                (positions[arg], rows, cols, tuple(values[arg].shape), np.dtype(info.args[arg][2]))
                for arg, rows, cols in info.tmaps
            ),
        )


def _sizes_as_args(args: list[list], m: int) -> list:
    """Kernel argument values for the grid of one list position of size `m`: every buffer 1-D of
    size m, every index argument m (foreach kernels take only the positions' sizes)."""
    return [(m,) if a[0] == "buf" else (m if a[0] == "index" else 0) for a in args]


@dataclass(frozen=True)
class _Shaped:
    """A buffer while planning: only its shape matters."""

    shape: tuple


@dataclass(frozen=True)
class Step:
    """One replayable step of a host program: allocate a temporary, view a buffer, launch a kernel."""

    kind: str  # "temp" | "view" | "launch"
    slot: int | None
    shape: tuple = ()
    dtype: Any = None
    source: int = 0
    kernel: str = ""
    grid: tuple = ()
    block: tuple = ()
    smem: int = 0
    params: list | None = None
    buffers: tuple = ()  # positions in params that are slot numbers
    scalars: tuple = ()  # (position in params, numpy dtype): slot numbers of scalar inputs
    tmaps: tuple = ()  # (position of a buffer in params, box rows, box cols, its shape, its dtype): tensor maps appended
    zeroed: bool = False  # a temporary that must be all zero bytes (cleared on the launches' stream)


class Plans:
    """A kernel's plans by input shapes: the output shapes and dtypes, and the host program's
    steps (each distinct set of input shapes is checked and planned once)."""

    def __init__(self, host: HostProgram, func):
        from tilec.dialects import tile
        from tilec.runtime.dtypes import numpy_dtype

        self.host = host
        self.func = func
        self._out_dtypes = [numpy_dtype(t.element_type) for t in func.function_type.outputs.data]
        from xdsl.dialects.builtin import IndexType

        types = func.function_type.inputs.data
        self._arrays = [isinstance(t, tile.ArrayType) for t in types]
        self._index = [isinstance(t, IndexType) for t in types]
        self._plans: dict = {}

    def key(self, inputs: Sequence) -> tuple:
        """A shape per array input, the value per index input (sizes may depend on it); other
        scalars are passed to the kernels at each call and are not part of the key."""
        return self.shapes_key([v.shape if is_array else v for v, is_array in zip(inputs, self._arrays)])

    def shapes_key(self, inputs: Sequence) -> tuple:
        """`key` from a shape per array input and the value per scalar input."""
        return tuple(
            tuple(v) if is_array else (v if is_index else None)
            for v, is_array, is_index in zip(inputs, self._arrays, self._index)
        )

    @property
    def index_inputs(self) -> list[bool]:
        """Per input, whether it is an index scalar (sizes may depend on its value)."""
        return list(self._index)

    def get(self, key: tuple) -> tuple[list[tuple[tuple, np.dtype]], list[Step]]:
        """(output shapes and dtypes, steps); with index checks the last output is the status word."""
        plan = self._plans.get(key)
        if plan is None:
            from tilec.runtime.shapes import check_shapes

            shapes = check_shapes(self.func, list(key))
            out_specs = [(tuple(s), d) for s, d in zip(shapes, self._out_dtypes)]
            if self.host.status:
                out_specs.append(((1,), np.dtype(np.int32)))  # the status word (see HostProgram)
            plan = (out_specs, self.host.plan(list(key), [s for s, _ in out_specs]))
            self._plans[key] = plan
        return plan


def run(steps: Sequence[Step], slots: list, device: Device) -> list:
    """Replay `steps` with `slots` (the call's inputs then outputs); returns every slot value
    (temporaries included, so a device that owns memory can free them)."""
    for st in steps:
        if st.kind == "temp":
            _set(slots, st.slot, device.zeros(st.shape, st.dtype) if st.zeroed else device.empty(st.shape, st.dtype))
        elif st.kind == "view":
            _set(slots, st.slot, device.view(slots[st.source], st.shape))
        else:
            params = list(st.params)
            for i in st.buffers:
                params[i] = slots[params[i]]
            for i, dt in st.scalars:
                params[i] = scalar_param(dt, slots[params[i]])
            params += [device.tensor_map(params[i], rows, cols) for i, rows, cols, *_ in st.tmaps]
            device.launch(st.kernel, st.grid, st.block, st.smem, params)
    return slots


def scalar_param(dt: np.dtype, v) -> np.generic:
    """A runtime scalar as the kernel parameter of dtype `dt`: integers are passed signless, so an
    unsigned value above the signed range (a uint64 seed of 2**64 - 5) keeps its bits."""
    if dt.kind == "i" and isinstance(v, int):
        half = 1 << (dt.itemsize * 8 - 1)
        v = (v + half) % (2 * half) - half
    return dt.type(v)


def check_status(host: HostProgram, word) -> None:
    """After a call of a program with index checks: raise what its status word (a host int32
    array of one element) reports, if anything."""
    code = int(np.asarray(word).reshape(-1)[0])
    if code:
        raise_status(code, list(host.status))


def _set(env: list, slot: int, value: Any) -> None:
    while len(env) <= slot:
        env.append(None)
    env[slot] = value


def check_32bit(kernel: str, shape: tuple) -> None:
    n = 1
    for d in shape:
        n *= d
    if n >= INDEX_LIMIT:
        raise TilecError(
            f"@{kernel}: a buffer of shape {shape} has {n} elements; GPU kernels index with 32 bits "
            f"(at most 2**31 - 1 elements per buffer) — split the problem"
        )


__all__ = ["Device", "HostProgram", "KernelInfo", "Plans", "Step", "check_32bit", "check_status", "run", "scalar_param"]
