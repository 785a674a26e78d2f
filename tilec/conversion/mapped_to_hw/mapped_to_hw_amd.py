"""mapped-to-hw-amd: gpu `mapped.kernel`s -> `hw.amd.kernel`s (HIP C++ level IR).

- Each kernel keeps its `wave` (32 or 64; gfx9 / CDNA targets run 64-lane wavefronts only and a
  wave-32 kernel for them is an error, never silently re-mapped). `launch_bounds` is the block
  size.
- Parameters: a global buffer becomes a typed `!hw.ptr<global, T>` (bools as i8) plus one i64
  per dynamic dimension; index scalars become i64. Inside the body `index` is narrowed to 32 bits
  (`index-bits=32`, the default, as on NVIDIA; the runtime checks buffer sizes).
- Thread hierarchy ops become `hw.amd.workitem_id` / `workgroup_id` / `workgroup_size` /
  `num_workgroups` / `lane_id`; the wave index is the work-item id / wave.
- Loads and stores compute byte addresses: i64 global addresses from the pointer
  (`hw.amd.global_load/store`), i32 LDS addresses (`hw.amd.lds_load/store`) with the buffer's XOR
  swizzle applied. Vector values stay vectors (`vector<8xf16>`: one 16-byte access); vectors of
  bools travel as bytes and live as per-lane i1 values.
- Shared buffers become static LDS arrays (`hw.amd.lds`, 16-byte aligned; the printer lays them
  out in one `__shared__` array, so an LDS address is a byte offset in the workgroup's LDS).
- `mapped.reduce` becomes an xor-butterfly of `hw.amd.shfl_xor` over the wave (offsets wave/2 ..
  1, so all 64 lanes of a CDNA wavefront take part) plus, across a block, one LDS slot per wave
  and a second butterfly.
- `mapped.copy` and `mapped.async_copy` (global -> LDS windows) become synchronous cooperative
  copies: 16-byte (or narrower) chunks dealt round-robin to the block's threads, zero-filled
  outside the source; `async_commit` / `async_wait` disappear (gfx90a has no asynchronous
  global->LDS copy: the data is in LDS when the copy returns, the barrier that mapped requires
  after a wait still orders it for the other threads).
- Fragments, `mapped.mma` and `frag_store` become MFMA builtins on per-lane vectors
  (tilec/conversion/mapped_to_hw/fragments_amd.py).
- `math` ops stay upstream `math` ops: the HIP printer calls the device library (`expf`, ...).

`portable=true` produces HIP C++ without AMD-only builtins (no MFMA, no DPP / ds_swizzle), for
wave-32 targets: the same source compiles for NVIDIA GPUs through tilec/emit/hip_compat_cuda.h.
The `mapped.host` is kept: the HIP runtime executes it in Python (allocations and launches).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, math, scf, vector
from xdsl.dialects.builtin import (
    IndexType,
    IntegerType,
    ModuleOp,
    VectorType,
    i1,
    i8,
    i32,
    i64,
)
from xdsl.ir import Block, Operation, Region, SSAValue

from tilec.dialects import mapped
from tilec.dialects.common import DYNAMIC, bitwidth
from tilec.dialects.hw import PtrToIntOp, PtrType
from tilec.dialects.hw import amd
from tilec.conversion.builder import neutral
from tilec.conversion.edit import guarded, insert_before, replace_with, value_before
from tilec.conversion.mapped_to_hw.gpu_kernel import GpuKernelLowering
from tilec.passes.api import PassFailure, TilecPass, register_pass

SCRATCH = "tilec_reduce_scratch"
SCRATCH_SLOT = 8  # bytes per wave in the block-reduction scratch (fits f64 / i64)
MAX_ACCESS = 16
WAVE32_ARCHS = ("gfx10", "gfx11", "gfx12")


def _storage(t):
    """The memory type of a buffer element: bools are bytes."""
    return i8 if t == i1 else t


class _Kernel(GpuKernelLowering):
    def __init__(self, k: mapped.KernelOp, arch: str, portable: bool):
        super().__init__(k)
        self.arch = arch
        self.portable = portable
        self.wave = k.wave_size
        params = []
        for a in k.args:
            t = a.type
            if isinstance(t, mapped.BufType):
                params.append(PtrType("global", _storage(t.element_type)))
                params += [i64] * sum(1 for d in t.get_shape() if d == DYNAMIC)
            elif isinstance(t, IndexType):
                params.append(i64)
            elif t == i1:
                raise PassFailure(k, f"mapped-to-hw-amd: kernel @{k.sym_name.data} takes an i1 scalar; pass it as i8")
            else:
                params.append(t)
        block_dims = list(k.block_size.iter_values()) if k.block_size is not None else [1, 1, 1]
        self.block_threads = 1
        for b in block_dims:
            self.block_threads *= b
        if self.block_threads % self.wave:
            raise PassFailure(
                k, f"mapped-to-hw-amd: kernel @{k.sym_name.data} has {self.block_threads} threads per block, "
                f"not whole {self.wave}-lane waves"
            )
        self.func = amd.KernelOp(k.sym_name.data, params, arch=arch, wave=self.wave, launch_bounds=self.block_threads)
        self.func.location = k.location
        self.block = self.func.body.block
        self.bufs: dict[SSAValue, tuple[SSAValue, list[SSAValue], str, object]] = {}  # base addr, dims, space, swizzle
        self.lanes: dict[SSAValue, list[SSAValue]] = {}  # vectors of bools, and fragments (per-tile vectors)
        self.lds_ops: list[amd.LdsOp] = []
        it = iter(self.block.args)
        for a in k.args:
            t = a.type
            p = next(it)
            if a.name_hint:
                p.name_hint = a.name_hint
            if isinstance(t, mapped.BufType):
                base = self._top(PtrToIntOp(p))
                if a.name_hint:
                    base.name_hint = f"{a.name_hint}_addr"
                dims = []
                for ax, d in enumerate(t.get_shape()):
                    if d == DYNAMIC:
                        q = next(it)
                        if a.name_hint:
                            q.name_hint = f"{a.name_hint}_d{ax}"
                        dims.append(self._top(arith.IndexCastOp(q, IndexType())))
                    else:
                        dims.append(self.const(d, IndexType()))
                self.bufs[a] = (base, dims, "global", None)
            elif isinstance(t, IndexType):
                a.replace_all_uses_with(self._top(arith.IndexCastOp(p, IndexType())))
            else:
                a.replace_all_uses_with(p)
        for o in list(k.body.block.ops):
            o.detach()
            self.block.add_op(o)

    def tid_index(self) -> SSAValue:
        def make():
            t = amd.WorkitemIdOp("x")
            return [t, arith.IndexCastOp(t.result, IndexType())]

        return self.top_value("tid", make)

    def lane_index(self) -> SSAValue:
        """This thread's lane in its wave, as an index (linear work-item id mod wave)."""
        def make():
            t = amd.LaneIdOp()
            return [t, arith.IndexCastOp(t.result, IndexType())]

        return self.top_value("lane", make)

    # --- running --------------------------------------------------------------------------------

    def run(self) -> amd.KernelOp:
        self.convert_all()
        if self.scratch:
            self.lds_ops.append(amd.LdsOp(SCRATCH, 32 * SCRATCH_SLOT, 16))
        self.place_at_top([*self.lds_ops, *self.top_ops])
        self.erase_dead()
        return self.func

    def convert(self, op: Operation) -> None:
        from tilec.conversion.mapped_to_hw import fragments_amd as frag

        if isinstance(op, scf.ForOp) and frag.expand_for(self, op):
            return
        if isinstance(op, scf.YieldOp) and frag.expand_yield(self, op):
            return
        if isinstance(op, mapped.ReturnOp):
            _replace(op, [amd.ReturnOp()])
        elif isinstance(op, mapped.ThreadIdOp | mapped.BlockIdOp | mapped.BlockDimOp | mapped.GridDimOp):
            cls = {
                mapped.ThreadIdOp: amd.WorkitemIdOp, mapped.BlockIdOp: amd.WorkgroupIdOp,
                mapped.BlockDimOp: amd.WorkgroupSizeOp, mapped.GridDimOp: amd.NumWorkgroupsOp,
            }[type(op)]
            s = cls(op.dim.data)
            _replace(op, [s, arith.IndexCastOp(s.results[0], IndexType())])
        elif isinstance(op, mapped.LaneIdOp):
            op.results[0].replace_all_uses_with(self.lane_index())
            self.dead.append(op)
        elif isinstance(op, mapped.WarpIdOp):
            w = _ins(arith.DivUIOp(self.tid_index(), self.const(self.wave, IndexType())), op)
            op.results[0].replace_all_uses_with(w)
            self.dead.append(op)
        elif isinstance(op, mapped.DimOp):
            op.result.replace_all_uses_with(self.bufs[op.source][1][op.axis.data])
            op.detach()
            op.erase()
        elif isinstance(op, mapped.AllocOp):
            self.alloc(op)
        elif isinstance(op, mapped.LoadOp):
            self.load(op)
        elif isinstance(op, mapped.StoreOp):
            self.store(op)
        elif isinstance(op, vector.ExtractOp) and op.vector in self.lanes:
            pos = list(op.static_position.iter_values())[0]
            op.result.replace_all_uses_with(self.lanes[op.vector][pos])
            self.dead.append(op)
        elif isinstance(op, vector.BroadcastOp) and _is_bool_vector(op.vector.type):
            self.lanes[op.vector] = [op.source] * op.vector.type.get_shape()[0]
            self.dead.append(op)
        elif isinstance(op, vector.InsertOp) and _is_bool_vector(op.result.type):
            lanes = list(self.lanes_of(op.dest, op))
            lanes[list(op.static_position.iter_values())[0]] = op.source
            self.lanes[op.result] = lanes
            self.dead.append(op)
        elif isinstance(op, arith.SelectOp) and _is_bool_vector(op.result.type):
            a, b = self.lanes_of(op.operands[1], op), self.lanes_of(op.operands[2], op)
            self.lanes[op.result] = [_ins(arith.SelectOp(op.operands[0], x, y), op) for x, y in zip(a, b)]
            self.dead.append(op)
        elif isinstance(op, mapped.BarrierOp):
            if op.scope.data != "block":
                raise PassFailure(op, "mapped-to-hw-amd: warp-scope barriers are not supported yet on AMD GPUs")
            _replace(op, [amd.BarrierOp()])
        elif isinstance(op, mapped.ReduceOp):
            self.reduce(op)
        elif isinstance(op, mapped.CopyOp | mapped.AsyncCopyOp):
            self.copy(op)
        elif isinstance(op, mapped.AsyncCommitOp | mapped.AsyncWaitOp):
            self.dead.append(op)  # copies are synchronous here
        elif isinstance(op, math.ExpOp | math.LogOp | math.TanhOp | math.ErfOp | math.RsqrtOp | math.PowFOp | math.SqrtOp):
            t = op.results[0].type
            if bitwidth(t) not in (32, 64) or isinstance(t, IntegerType):
                raise PassFailure(op, f"mapped-to-hw-amd: {op.name} on {t} is not supported yet on AMD GPUs (f32 and f64 only)")
        elif op.name.startswith("mapped."):
            from tilec.conversion.mapped_to_hw.fragments_amd import lower_fragment_op

            if not lower_fragment_op(self, op):
                raise PassFailure(op, f"mapped-to-hw-amd: {op.name} is not supported yet on AMD GPUs")

    # --- memory -----------------------------------------------------------------------------------

    def alloc(self, op: mapped.AllocOp) -> None:
        t = op.result.type
        if t.space_name != "shared":
            raise PassFailure(op, "mapped-to-hw-amd: register buffers are not supported yet on GPUs")
        name = f"tilec_lds{len(self.lds_ops)}"
        self.lds_ops.append(amd.LdsOp(name, max(16, -(-(t.size_bytes() or 0) // 16) * 16), 16))
        addr = self._top(amd.LdsAddrOp(name))
        self.bufs[op.result] = (addr, [self.const(d, IndexType()) for d in t.get_shape()], "shared", t.swizzle)
        self.dead.append(op)

    def address(self, buf: SSAValue, indices, before: Operation) -> tuple[SSAValue, str]:
        """(byte address, space) of element `indices` of `buf`: i64 global, i32 LDS (swizzled)."""
        base, dims, space, sw = self.bufs[buf]
        bt = buf.type
        ebytes = max(1, bitwidth(_storage(bt.element_type)) // 8)
        ins = lambda o: self.ins(o, before)  # noqa: E731
        indices = list(indices)
        if space == "global":
            off = None
            for i, d in zip(indices, dims):
                off = i if off is None else ins(arith.AddiOp(ins(arith.MuliOp(off, d)), i))
            if off is None:
                off = self.const(0, IndexType())
            off64 = ins(arith.IndexCastOp(off, i64))
            byte = ins(arith.MuliOp(off64, self.const(ebytes, i64))) if ebytes > 1 else off64
            return ins(arith.AddiOp(base, byte)), space
        # LDS: the last two axes (swizzled, usually loop-invariant) + the leading slot axes; a slot
        # offset is a multiple of the swizzle period (mapped.buf checks it), so it commutes
        inner_idx, lead_idx = indices[-2:], indices[:-2]
        inner_dims, lead_dims = dims[-2:], dims[:-2]
        off = None
        for i, d in zip(inner_idx, inner_dims):
            off = i if off is None else ins(arith.AddiOp(ins(arith.MuliOp(off, d)), i))
        off32 = ins(arith.IndexCastOp(off, i32))
        byte = ins(arith.MuliOp(off32, self.const(ebytes, i32))) if ebytes > 1 else off32
        if sw is not None:
            bits, base_, shift = sw.bits.data, sw.base.data, sw.shift.data
            mask = ((1 << bits) - 1) << base_
            hi = ins(arith.AndIOp(ins(arith.ShRUIOp(byte, self.const(shift, i32))), self.const(mask, i32)))
            byte = ins(arith.XOrIOp(byte, hi))
        addr = ins(arith.AddiOp(base, byte))
        if lead_idx:
            slice_bytes = ebytes
            for d in bt.get_shape()[-2:]:
                slice_bytes *= d
            lead = None
            for i, d in zip(lead_idx, lead_dims):
                lead = i if lead is None else ins(arith.AddiOp(ins(arith.MuliOp(lead, d)), i))
            lead32 = ins(arith.IndexCastOp(lead, i32))
            addr = ins(arith.AddiOp(addr, ins(arith.MuliOp(lead32, self.const(slice_bytes, i32)))))
        return addr, space

    def load_value(self, space: str, addr: SSAValue, t, before: Operation) -> SSAValue:
        cls = amd.GlobalLoadOp if space == "global" else amd.LdsLoadOp
        return _ins(cls(addr, t), before)

    def store_value(self, space: str, addr: SSAValue, v: SSAValue, before: Operation) -> None:
        cls = amd.GlobalStoreOp if space == "global" else amd.LdsStoreOp
        _insert(cls(addr, v), before)

    def load(self, op: mapped.LoadOp) -> None:
        addr, space = self.address(op.source, op.indices, op)
        t = op.result.type
        if _is_bool_vector(t) and t.get_shape() == (1,):
            x = self.load_value(space, addr, _storage(t.get_element_type()), op)
            if t.get_element_type() == i1:
                x = _ins(arith.CmpiOp(x, self.const(0, i8), "ne"), op)
            self.lanes[op.result] = [x]
            self.dead.append(op)
        elif _is_bool_vector(t):
            n = t.get_shape()[0]
            raw = self.load_value(space, addr, VectorType(i8, [n]), op)
            lanes = []
            for i in range(n):
                b = _ins(vector.ExtractOp(raw, [i], i8), op)
                lanes.append(_ins(arith.CmpiOp(b, self.const(0, i8), "ne"), op))
            self.lanes[op.result] = lanes
            self.dead.append(op)
        elif isinstance(t, VectorType):
            _check_vector(op, t)
            v = self.load_value(space, addr, t, op)
            op.result.replace_all_uses_with(v)
            self.dead.append(op)
        elif t == i1:  # bools are bytes in memory
            b = self.load_value(space, addr, i8, op)
            _replace(op, [arith.CmpiOp(b, self.const(0, i8), "ne")])
        else:
            op.result.replace_all_uses_with(self.load_value(space, addr, t, op))
            self.dead.append(op)

    def store(self, op: mapped.StoreOp) -> None:
        addr, space = self.address(op.dest, op.indices, op)
        t = op.value.type
        if _is_bool_vector(t) and t.get_shape() == (1,):
            (x,) = self.lanes_of(op.value, op)
            self.store_value(space, addr, _ins(arith.ExtUIOp(x, i8), op) if x.type == i1 else x, op)
        elif _is_bool_vector(t):
            lanes = self.lanes_of(op.value, op)
            n = len(lanes)
            vt = VectorType(i8, [n])
            bytes_ = [_ins(arith.ExtUIOp(x, i8), op) for x in lanes]
            vec = _ins(vector.BroadcastOp(bytes_[0], vt), op)
            for i in range(1, n):
                vec = _ins(vector.InsertOp(bytes_[i], vec, [i]), op)
            self.store_value(space, addr, vec, op)
        elif isinstance(t, VectorType):
            _check_vector(op, t)
            self.store_value(space, addr, op.value, op)
        elif t == i1:
            self.store_value(space, addr, _ins(arith.ExtUIOp(op.value, i8), op), op)
        else:
            self.store_value(space, addr, op.value, op)
        op.detach()
        op.erase()

    def lanes_of(self, v: SSAValue, at: Operation) -> list[SSAValue]:
        if v not in self.lanes:
            raise PassFailure(at, "mapped-to-hw-amd: vectors of bools (and 1-element vectors) must come from loads, broadcasts, inserts or selects")
        return self.lanes[v]

    # --- copies -------------------------------------------------------------------------------------

    def copy(self, op: mapped.CopyOp | mapped.AsyncCopyOp) -> None:
        """A cooperative global -> LDS window copy, synchronous: each thread loads its chunks
        (zeros outside the source) and stores them."""
        src, dst = op.source, op.dest
        st, dt = src.type, dst.type
        window = list(op.shape.iter_values())
        if st.space_name != "global" or dt.space_name != "shared" or len(window) != 2:
            raise PassFailure(op, "mapped-to-hw-amd: only 2-D global -> shared copies are supported yet on AMD GPUs")
        rows, cols = window
        elt = st.element_type
        ebytes = max(1, bitwidth(_storage(elt)) // 8)
        src_last = st.get_shape()[-1]
        dst_last = dt.get_shape()[-1]
        width = MAX_ACCESS // ebytes
        while width > 1 and (cols % width or src_last == DYNAMIC or src_last % width or dst_last % width or elt == i1):
            width //= 2
        per_row = cols // width
        chunks = rows * per_row
        T = self.block_threads
        _, sdims, _, _ = self.bufs[src]
        tid = self.tid_index()
        c = lambda v: self.const(v, IndexType())  # noqa: E731
        ins = lambda o: self.ins(o, op)  # noqa: E731
        src_idx, dst_idx = list(op.source_indices), list(op.dest_indices)
        vt = VectorType(_storage(elt), [width]) if width > 1 else _storage(elt)
        se = _storage(elt)
        zero = self.const(0 if isinstance(se, IntegerType) else 0.0, se)
        if width > 1:
            zero = _ins(vector.BroadcastOp(zero, vt), op)
        for it in range(-(-chunks // T)):
            ch = ins(arith.AddiOp(tid, c(it * T)))
            r = ins(arith.DivUIOp(ch, c(per_row)))
            cc = ins(arith.MuliOp(ins(arith.RemUIOp(ch, c(per_row))), c(width)))
            gr = ins(arith.AddiOp(src_idx[-2], r))
            gc = ins(arith.AddiOp(src_idx[-1], cc))
            ok = ins(arith.AndIOp(ins(arith.CmpiOp(gr, sdims[-2], "ult")), ins(arith.CmpiOp(gc, sdims[-1], "ult"))))
            sr = ins(arith.SelectOp(ok, gr, c(0)))
            sc = ins(arith.SelectOp(ok, gc, c(0)))
            saddr, _ = self.address(src, [*[ins(arith.SelectOp(ok, i, c(0))) for i in src_idx[:-2]], sr, sc], op)
            didx = [*dst_idx[:-2], ins(arith.AddiOp(dst_idx[-2], r)), ins(arith.AddiOp(dst_idx[-1], cc))]
            anchor = op
            if chunks % T and it == chunks // T:
                # threads past the last chunk copy nothing
                body = Block([scf.YieldOp()])
                _insert(scf.IfOp(ins(arith.CmpiOp(ch, c(chunks), "ult")), [], Region(body)), op)
                anchor = body.last_op
            v = self.load_value("global", saddr, vt, anchor)
            v = _ins(arith.SelectOp(ok, v, zero), anchor)
            daddr, _ = self.address(dst, didx, anchor)
            self.store_value("shared", daddr, v, anchor)
        self.dead.append(op)

    # --- reductions -------------------------------------------------------------------------------

    def wave_reduce(self, kind: str, x: SSAValue, before: Operation) -> SSAValue:
        """Xor butterfly over all lanes of the wave: log2(wave) shuffles, every lane gets the result."""
        off = self.wave // 2
        while off >= 1:
            y = _ins(amd.ShflXorOp(x, off), before)
            x = self.combine(kind, x, y, before)
            off //= 2
        return x

    def reduce(self, op: mapped.ReduceOp) -> None:
        kind = op.kind.data
        x = op.value
        if x.type not in amd.SHFL_TYPES:
            raise PassFailure(op, f"mapped-to-hw-amd: cross-thread reductions of {x.type} are not supported yet (i32, i64, f32, f64)")
        r = self.wave_reduce(kind, x, op)
        waves = -(-self.block_threads // self.wave)
        if op.scope.data == "block" and waves > 1:
            if waves * SCRATCH_SLOT > 32 * SCRATCH_SLOT:
                raise PassFailure(op, f"mapped-to-hw-amd: a block reduction over {waves} waves (at most 32)")
            self.scratch = True
            base = self.top_value("scratch", lambda: [amd.LdsAddrOp(SCRATCH)])
            tid = _ins(amd.WorkitemIdOp("x"), op)
            w = self.const(self.wave, i32)
            wid = _ins(arith.DivUIOp(tid, w), op)
            lane = _ins(arith.RemUIOp(tid, w), op)
            slot_bytes = self.const(SCRATCH_SLOT, i32)
            is_lane0 = _ins(arith.CmpiOp(lane, self.const(0, i32), "eq"), op)
            slot = _ins(arith.AddiOp(base, _ins(arith.MuliOp(wid, slot_bytes), op)), op)
            _if(op, is_lane0, [amd.LdsStoreOp(slot, r)])
            _insert(amd.BarrierOp(), op)
            live = _ins(arith.CmpiOp(lane, self.const(waves, i32), "ult"), op)
            lane_slot = _ins(arith.AddiOp(base, _ins(arith.MuliOp(lane, slot_bytes), op)), op)
            safe = _ins(arith.SelectOp(live, lane_slot, base), op)
            v = _ins(amd.LdsLoadOp(safe, x.type), op)
            v = _ins(arith.SelectOp(live, v, self.const(neutral(kind, x.type), x.type)), op)
            v = self.wave_reduce(kind, v, op)  # every wave reduces the partials: no second round
            _insert(amd.BarrierOp(), op)  # the scratch may be reused by the next reduction
            r = v
        op.result.replace_all_uses_with(r)
        op.detach()
        op.erase()


def _is_bool_vector(t) -> bool:
    """Vectors that live as per-lane scalars: vectors of bools (bytes in memory) and 1-element vectors."""
    return isinstance(t, VectorType) and (t.get_element_type() == i1 or t.get_shape() == (1,))


def _check_vector(op: Operation, t: VectorType) -> None:
    n = t.get_shape()[0]
    nbytes = n * max(1, bitwidth(t.get_element_type()) // 8)
    if len(t.get_shape()) != 1 or n not in (2, 4, 8, 16) or nbytes > MAX_ACCESS:
        raise PassFailure(op, f"mapped-to-hw-amd: a {t} access is not one 2/4/8/16-byte access (not supported yet)")


_insert = insert_before
_ins = value_before
_replace = replace_with
_if = guarded


def arch_problem(arch: str, wave: int, portable: bool) -> str | None:
    """Why kernels of this wave size cannot run on `arch`, or None."""
    if not amd._ARCH.match(arch):
        return f"unknown target '{arch}' (a gfx target such as gfx90a or gfx1030)"
    if wave == 32 and arch.startswith("gfx9"):
        hint = "" if portable else "; lower with tile-to-mapped{wave=64}"
        return f"{arch} runs 64-lane wavefronts only, but the kernel is mapped for wave 32{hint}"
    if wave == 64 and not arch.startswith("gfx9") and portable:
        return "portable HIP is wave 32, but the kernel is mapped for wave 64"
    return None


@register_pass
class MappedToHwAmd(TilecPass):
    """Lower gpu mapped kernels to hw.amd kernels for HIP (the mapped.host stays for the runtime)."""

    name = "mapped-to-hw-amd"
    arch: str = "gfx90a"
    portable: bool = False
    index_bits: int = 32

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from tilec.conversion.mapped_to_hw.mapped_to_hw_nv import narrow_index

        if not amd._ARCH.match(self.arch):
            raise PassFailure(op, f"mapped-to-hw-amd: unknown target '{self.arch}' (a gfx target such as gfx90a or gfx1030)")
        if self.index_bits not in (32, 64):
            raise PassFailure(op, f"mapped-to-hw-amd: index-bits must be 32 or 64, got {self.index_bits}")
        block = op.body.block
        for k in list(block.ops):
            if isinstance(k, mapped.KernelOp):
                if k.target.data != "gpu":
                    raise PassFailure(k, f"mapped-to-hw-amd: kernel @{k.sym_name.data} targets {k.target.data}")
                problem = arch_problem(self.arch, k.wave_size, self.portable)
                if problem:
                    raise PassFailure(k, f"mapped-to-hw-amd: kernel @{k.sym_name.data}: {problem}")
                new = _Kernel(k, self.arch, self.portable).run()
                if self.index_bits == 32:
                    narrow_index(new)
                block.insert_op_before(new, k)
                k.detach()
                k.erase(safe_erase=False)


__all__ = ["MappedToHwAmd", "arch_problem"]
