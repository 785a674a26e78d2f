"""Contraction groups on GPUs (tile.contract, and tile.conv as an implicit GEMM: implicit_gemm.py).

`simt` kernel (any element type, any operand layout): a block of 16x16 threads computes a
64x64 tile of C, each thread a 4x4 register tile; K advances 16 at a time through two shared
tiles (A 16x64 stored K-major, B 16x64) filled with bounds-checked loads (zeros outside), so any
shape, stride and batch works. The group's epilogue is evaluated on each accumulator before the
bounds-checked store. Batch indices run over grid z.

The tensor-core kernel for f16/bf16 (mma.sync m16n8k16 with a cp.async pipeline) is in
`lower_tensor_core` below.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import SSAValue

from tilec.conversion.builder import compute_type
from tilec.conversion.tile_to_mapped.gpu_kernelgen import GpuKernelGen
from tilec.conversion.tile_to_mapped.group_info import acc_to_result, yielded
from tilec.conversion.tile_to_mapped.host import HostBuilder
from tilec.conversion.tile_to_mapped.implicit_gemm import gemm_view
from tilec.dialects import mapped, tile
from tilec.dialects.common import bitwidth, is_float


def lower_simt(name: str, fused: tile.FusedOp, host: HostBuilder):
    """The SIMT kernel of a contraction group (any element type and operand layout)."""
    BM = BN = 64
    BK = 16
    TM = TN = 4
    view = gemm_view(fused)
    c = view.op
    g = GpuKernelGen(name, host, fused)
    g.block_threads = 256
    outputs = [(v, g.arg_for(host.buffer_for_result(r))) for v, r in zip(yielded(fused), fused.outputs)]
    acc_t = c.acc
    fl = is_float(acc_t)
    bsz, msz, nsz, ksz = view.sizes(g)
    M, N, K = g.product(msz), g.product(nsz), g.product(ksz)
    # grid: x over N tiles, y over M tiles, z over the batch (host-computed extents)
    hM, hN, hB = view.host_m(host), view.host_n(host), view.host_b(host)
    g.set_grid(
        [g.grid_factor(g.host_value(hN), BN)],
        [g.grid_factor(g.host_value(hM), BM)],
        [g.grid_factor(g.host_value(hB), 1)],
    )

    sA = g.emit(mapped.AllocOp(mapped.BufType([BK, BM], acc_t, "shared")), g.top).results[0]
    sB = g.emit(mapped.AllocOp(mapped.BufType([BK, BN], acc_t, "shared")), g.top).results[0]
    tid = g.ev(mapped.ThreadIdOp("x"))
    bx, by, bz = (g.ev(mapped.BlockIdOp(d)) for d in "xyz")
    tx = g.ev(arith.RemUIOp(tid, g.index(16)))
    ty = g.ev(arith.DivUIOp(tid, g.index(16)))
    m0 = g.ev(arith.MuliOp(by, g.index(BM)))
    n0 = g.ev(arith.MuliOp(bx, g.index(BN)))
    bidx = g.delinearize(bz, bsz) if bsz else []
    one = g.index(1)
    zero_acc = g.const(0.0 if fl else 0, acc_t)

    def operand(v: SSAValue, idx: list) -> SSAValue:
        x = g.value_at(v, idx)
        ct = compute_type(v.type.element_type)
        if ct != acc_t:
            if fl:
                x = g.ev(arith.ExtFOp(x, acc_t) if bitwidth(acc_t) > bitwidth(ct) else arith.TruncFOp(x, acc_t))
            else:
                x = g.ev(arith.ExtSIOp(x, acc_t) if bitwidth(acc_t) > bitwidth(ct) else arith.TruncIOp(x, acc_t))
        return x

    inits = [zero_acc] * (TM * TN)
    kloop, ks = g.open_for(g.top, g.index(0), K, g.index(BK), inits)
    k0 = ks.block.args[0]
    # each of the 256 threads loads 4 elements of each 16x64 tile
    for r in range(4):
        e = g.ev(arith.AddiOp(tid, g.index(256 * r)))
        kk = g.ev(arith.DivUIOp(e, g.index(BM)))  # 0..15
        mm = g.ev(arith.RemUIOp(e, g.index(BM)))  # 0..63
        for side, buf, base, size, fsz in (("l", sA, m0, M, msz), ("r", sB, n0, N, nsz)):
            f = g.ev(arith.AddiOp(base, mm))
            kg = g.ev(arith.AddiOp(k0, kk))
            ok = g.ev(arith.AndIOp(g.ev(arith.CmpiOp(f, size, "ult")), g.ev(arith.CmpiOp(kg, K, "ult"))))
            f_safe = g.ev(arith.SelectOp(ok, f, g.index(0)))
            k_safe = g.ev(arith.SelectOp(ok, kg, g.index(0)))
            f_idx, k_idx = g.delinearize(f_safe, fsz), g.delinearize(k_safe, ksz)
            if side == "l":
                x = view.lhs_at(g, bidx, f_idx, k_idx, operand)
            else:
                x = view.rhs_at(g, bidx, k_idx, f_idx, operand)
            x = g.ev(arith.SelectOp(ok, x, zero_acc))
            g.emit(mapped.StoreOp(x, buf, [kk, mm]))
    g.emit(mapped.BarrierOp(), ks)
    accs = list(ks.block.args[1:])
    inner, ins = g.open_for(ks, g.index(0), g.index(BK), one, accs)
    kk = ins.block.args[0]
    cur = list(ins.block.args[1:])
    a_vals = [
        g.ev(mapped.LoadOp(sA, [kk, g.ev(arith.AddiOp(g.ev(arith.MuliOp(ty, g.index(TM))), g.index(i)))]))
        for i in range(TM)
    ]
    b_vals = [
        g.ev(mapped.LoadOp(sB, [kk, g.ev(arith.AddiOp(g.ev(arith.MuliOp(tx, g.index(TN))), g.index(j)))]))
        for j in range(TN)
    ]
    new = []
    for i in range(TM):
        for j in range(TN):
            prod = g.ev(arith.MulfOp(a_vals[i], b_vals[j]) if fl else arith.MuliOp(a_vals[i], b_vals[j]))
            new.append(g.ev(arith.AddfOp(cur[i * TN + j], prod) if fl else arith.AddiOp(cur[i * TN + j], prod)))
    after_inner = g.close_for(ks, inner, ins, new)
    g.emit(mapped.BarrierOp(), ks)
    final = g.close_for(g.top, kloop, ks, after_inner)
    for i in range(TM):
        for j in range(TN):
            m = g.ev(arith.AddiOp(m0, g.ev(arith.AddiOp(g.ev(arith.MuliOp(ty, g.index(TM))), g.index(i)))))
            n = g.ev(arith.AddiOp(n0, g.ev(arith.AddiOp(g.ev(arith.MuliOp(tx, g.index(TN))), g.index(j)))))
            ok = g.ev(arith.AndIOp(g.ev(arith.CmpiOp(m, M, "ult")), g.ev(arith.CmpiOp(n, N, "ult"))))
            accv = acc_to_result(g, final[i * TN + j], acc_t, c.result.type.element_type)
            iff, body = g.open_if(g.top, ok)
            m_in, n_in = g.move_to(m, body), g.move_to(n, body)
            res_idx = view.result_index(g, bidx, g.delinearize(m_in, msz), g.delinearize(n_in, nsz))
            res_idx = [g.move_to(x, body) for x in res_idx]
            body.memo[(c.result, tuple(res_idx))] = accv
            for v, buf in outputs:
                val = g.to_storage(g.value_at(v, res_idx), v.type.element_type)
                g.emit(mapped.StoreOp(val, buf, res_idx), body)
            g.close_if(g.top, iff)
    return g.finish(), g.launch_args


__all__ = ["lower_simt"]
