"""The `hw` dialect: building ops from Python, parsing, printing (custom and generic), and every
verifier message of the three families (nv, amd, cpu)."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import FunctionType, IndexType, ModuleOp, VectorType, f16, f32, i1, i32, i64
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import VerifyException

from tilec.diagnostics import TilecError
from tilec.dialects.hw import HW, PtrToIntOp, PtrType, amd, cpu, nv
from tilec.ir import make_context, parse_module, print_module, verify_module

CTX = make_context()


def parse(text: str) -> ModuleOp:
    m = parse_module(CTX, text, "test.mlir")
    verify_module(m)
    return m


def assert_round_trip(text: str) -> str:
    """custom -> IR -> custom is stable, and the generic form parses back to the same custom text."""
    m = parse(text)
    custom = print_module(m)
    assert print_module(parse(custom)) == custom
    generic = print_module(m, generic=True)
    assert print_module(parse(generic)) == custom
    return custom


def expect_error(text: str, message: str) -> None:
    with pytest.raises(TilecError) as e:
        parse(text)
    assert message in e.value.message, e.value.message


def expect_verify_error(op, message: str) -> None:
    with pytest.raises(VerifyException) as e:
        op.verify_()
    assert message in str(e.value), str(e.value)


def test_dialect_is_registered_as_hw():
    assert HW.name == "hw"
    names = {op.name for op in HW.operations}
    assert {"hw.ptr_to_int", "hw.nv.kernel", "hw.amd.kernel", "hw.cpu.func"} <= names
    assert all(n == "hw.ptr_to_int" or n.split(".")[1] in ("nv", "amd", "cpu") for n in names)
    assert CTX.get_optional_op("hw.nv.mma_sync") is nv.MmaSyncOp


# --- pointer type and ptr_to_int ----------------------------------------------------------------


def test_ptr_type_forms():
    assert str(PtrType("global")) == "!hw.ptr<global>"
    assert str(PtrType("generic", f32)) == "!hw.ptr<generic, f32>"
    assert PtrType("generic", f32).pointee == f32 and PtrType("shared").pointee is None


def test_ptr_type_errors():
    with pytest.raises(VerifyException, match="unknown address space 'constant'"):
        PtrType("constant")
    with pytest.raises(VerifyException, match="element type must be"):
        PtrType("generic", i1)
    expect_error("hw.cpu.func @f(%p: !hw.ptr<texture>) {\n  hw.cpu.return\n}", "hw.ptr: expected an address space")
    expect_error("hw.cpu.func @f(%p: !hw.ptr<generic, i1>) {\n  hw.cpu.return\n}", "hw.ptr: element type must be")


def test_ptr_to_int_result_type():
    expect_error(
        nv_kernel("  %x = hw.ptr_to_int %A : !hw.ptr<global> -> i32"), "ptr_to_int: a global address is i64, got i32"
    )
    expect_error(nv_kernel("  %x = hw.ptr_to_int %q : i64 -> i64"), "expected a !hw.ptr type, got i64")
    m = parse(nv_kernel("  %x = hw.ptr_to_int %A : !hw.ptr<global> -> i64"))
    op = next(o for o in m.walk() if isinstance(o, PtrToIntOp))
    assert op.result.type == i64 and PtrToIntOp(op.ptr).result.type == i64


# --- NVIDIA -------------------------------------------------------------------------------------

NV_PARAMS = "%A: !hw.ptr<global>, %n: i32, %f: f32, %q: i64, %h: f16, %d: f64, %s: i16"


def nv_kernel(body: str, clauses: str = "sm 90", params: str = NV_PARAMS) -> str:
    return f"hw.nv.kernel @k({params}) {clauses} {{\n{body}\n  hw.nv.return\n}}\n"


NV_PROGRAM = """\
builtin.module {
  hw.nv.kernel @gemm(%A: !hw.ptr<global>, %n: i32, %eps: f32, %tm: !hw.nv.tensor_map) sm "90a" maxntid [128, 1, 1] smem 49152 align 128 {
    hw.nv.shared @sA 16384 align 128
    %a = hw.nv.shared_addr @sA : i32
    %dyn = hw.nv.dynamic_shared_addr : i32
    %g = hw.ptr_to_int %A : !hw.ptr<global> -> i64
    %t = hw.nv.sreg tid.x : i32
    %lane = hw.nv.sreg laneid : i32
    %v0, %v1, %v2, %v3 = hw.nv.ld global v4 %g : i64 -> f32, f32, f32, f32
    %w = hw.nv.ld global nc cg %g - 16 : i64 -> f32
    %x0, %x1 = hw.nv.ld shared v2 %a + 64 : i32 -> i32, i32
    hw.nv.st global cs v4 %g + 16, %v0, %v1, %v2, %v3 : i64, f32, f32, f32, f32
    hw.nv.st shared %a, %t : i32, i32
    hw.nv.cp_async %a, %g, 16 src_bytes %n : i32, i64, i32
    hw.nv.cp_async %a, %g, 8 : i32, i64
    hw.nv.cp_async ca %a, %g, 16 : i32, i64
    hw.nv.cp_async_commit
    hw.nv.cp_async_wait 1
    hw.nv.bar_sync 0
    %r0, %r1, %r2, %r3 = hw.nv.ldmatrix x4 %a : i32 -> i32, i32, i32, i32
    %b0, %b1 = hw.nv.ldmatrix x2 trans %a : i32 -> i32, i32
    %d0, %d1, %d2, %d3 = hw.nv.mma_sync m16n8k16 row col f32 bf16 bf16 f32 (%r0, %r1, %r2, %r3), (%b0, %b1), (%v0, %v1, %v2, %v3)
    %e0, %e1 = hw.nv.mma_sync m16n8k16 row col f16 f16 f16 f16 (%r0, %r1, %r2, %r3), (%b0, %b1), (%r2, %r3)
    %t0, %t1, %t2, %t3 = hw.nv.mma_sync m16n8k8 row col f32 tf32 tf32 f32 (%r0, %r1, %r2, %r3), (%b0, %b1), (%d0, %d1, %d2, %d3)
    hw.nv.wgmma_fence
    %desc = arith.constant 0 : i64
    %g0, %g1, %g2, %g3 = hw.nv.wgmma_mma_async m64n8k16 f32 bf16 bf16 %desc, %desc, (%t0, %t1, %t2, %t3) scale_d 1 scale_a 1 scale_b -1 trans_a 0 trans_b 1
    hw.nv.wgmma_commit_group
    hw.nv.wgmma_wait_group 0
    hw.nv.mbarrier_init %a, 1
    %state = hw.nv.mbarrier_arrive_expect_tx %a, 16384
    hw.nv.tma_load_2d %dyn, %tm[%t, %n], %a
    %done = hw.nv.mbarrier_try_wait %a, %n
    hw.nv.fence_proxy_async
    %s1 = hw.nv.shfl bfly %d0, 16 : f32
    %s2 = hw.nv.shfl idx %t, %lane mask 0x0000ffff : i32
    %s3 = hw.nv.shfl up %d1, 1 : f32
    hw.nv.bar_sync 1, 128
    hw.nv.bar_warp_sync
    hw.nv.bar_warp_sync 0x000000ff
    %y = hw.nv.math ex2 approx ftz %s1 : f32
    %z = hw.nv.math rcp rn %y : f32
    %hf = arith.truncf %z : f32 to f16
    %th = hw.nv.math tanh approx %hf : f16
    %p = hw.nv.pack %hf, %th : f16, f16 -> i32
    %lo, %hi = hw.nv.unpack %p : i32 -> f16, f16
    hw.nv.return
  }
}
"""


def test_nv_program_round_trips():
    assert assert_round_trip(NV_PROGRAM) == NV_PROGRAM


def test_nv_built_in_python_matches_text():
    kernel = nv.KernelOp("softmax", [PtrType("global"), i32], sm=90, maxntid=[128])
    X, n = kernel.params
    X.name_hint, n.name_hint = "X", "n"
    ops = [
        nv.SharedOp("red", 512, 16),
        addr := PtrToIntOp(X),
        tid := nv.SregOp("tid.x"),
        sa := nv.SharedAddrOp("red"),
        ld := nv.LdOp("global", addr.result, f32, width=4, offset=16),
        s := nv.ShflOp("bfly", ld.values[0], 16),
        add := arith.AddfOp(ld.values[0], s.result),
        e := nv.MathOp("ex2", "approx", add.result, ftz=True),
        nv.StOp("shared", sa.result, [e.result]),
        nv.BarSyncOp(0),
        nv.StOp("global", addr.result, list(ld.values), offset=-16, cache="cs"),
        nv.CpAsyncOp(sa.result, addr.result, 16, src_bytes=tid.result),
        nv.CpAsyncCommitOp(),
        nv.CpAsyncWaitOp(0),
        nv.ReturnOp(),
    ]
    kernel.body.block.add_ops(ops)
    module = ModuleOp([kernel])
    verify_module(module)
    text = print_module(module)
    assert text == (
        "builtin.module {\n"
        "  hw.nv.kernel @softmax(%X: !hw.ptr<global>, %n: i32) sm 90 maxntid [128] {\n"
        "    hw.nv.shared @red 512 align 16\n"
        "    %0 = hw.ptr_to_int %X : !hw.ptr<global> -> i64\n"
        "    %1 = hw.nv.sreg tid.x : i32\n"
        "    %2 = hw.nv.shared_addr @red : i32\n"
        "    %3, %4, %5, %6 = hw.nv.ld global v4 %0 + 16 : i64 -> f32, f32, f32, f32\n"
        "    %7 = hw.nv.shfl bfly %3, 16 : f32\n"
        "    %8 = arith.addf %3, %7 : f32\n"
        "    %9 = hw.nv.math ex2 approx ftz %8 : f32\n"
        "    hw.nv.st shared %2, %9 : i32, f32\n"
        "    hw.nv.bar_sync 0\n"
        "    hw.nv.st global cs v4 %0 - 16, %3, %4, %5, %6 : i64, f32, f32, f32, f32\n"
        "    hw.nv.cp_async %2, %0, 16 src_bytes %1 : i32, i64, i32\n"
        "    hw.nv.cp_async_commit\n"
        "    hw.nv.cp_async_wait 0\n"
        "    hw.nv.return\n"
        "  }\n"
        "}\n"
    )
    assert assert_round_trip(text) == text
    assert kernel.static_smem() == 512 and kernel.lookup_shared("red") is ops[0]
    assert ops[5].clamp == 0x1F


def test_nv_mma_built_in_python():
    kernel = nv.KernelOp("mma", [i32, f32], sm=80)
    r, c = kernel.params
    mma = nv.MmaSyncOp("m16n8k16", ("f32", "f16", "f16", "f32"), [r] * 4, [r] * 2, [c] * 4)
    kernel.body.block.add_ops([mma, nv.ReturnOp()])
    verify_module(ModuleOp([kernel]))
    assert [x.type for x in mma.d] == [f32] * 4
    assert mma.variant == ("m16n8k16", "f32", "f16", "f16", "f32")


def test_nv_attributes_and_extra_attrs_round_trip():
    text = nv_kernel(
        '  %t = hw.nv.sreg tid.x {tag = "x"} : i32\n  hw.nv.bar_sync 0 {tag = 1 : i64}',
        clauses='sm 80 attributes {note = "k"}',
    )
    out = assert_round_trip(text)
    assert '{tag = "x"}' in out and 'attributes {note = "k"}' in out


# Each case: (kernel body, kernel clauses, expected message). Parsed and verified from text.
NV_TEXT_ERRORS = [
    ("", "sm 75", 'unknown target sm_75 (expected sm 80, 86, 89, 90 or "90a")'),
    ("", "sm 90 maxntid [0]", "maxntid needs 1 to 3 positive sizes, got [0]"),
    ("", "sm 90 maxntid [64, 32]", "maxntid [64, 32] is 2048 threads; a block has at most 1024"),
    ("", "sm 90 smem 1024 align 3", "smem alignment must be a power of two, got 3"),
    ("  hw.nv.shared @sA 16\n  hw.nv.shared @sA 16", "sm 90", "shared array @sA is declared twice"),
    ("  hw.nv.shared @sA 65536", "sm 90", "65536 bytes of static shared memory; ptxas allows at most 49152 for 90"),
    ("", "sm 86 smem 200000", "200000 bytes of shared memory (0 static + 200000 dynamic) exceed the 101376 bytes"),
    ("  hw.nv.shared @sA 65536", 'sm "90a" smem 200000', "exceed the 232448 bytes a block may use on 90a"),
    ("  hw.nv.shared @sA 0", "sm 90", "shared: size must be a positive number of bytes, got 0"),
    ("  hw.nv.shared @sA 64 align 24", "sm 90", "shared: alignment must be a power of two, got 24"),
    (
        "  hw.nv.shared @sA 64\n  %a = hw.nv.shared_addr @sA : i64",
        "sm 90",
        "shared_addr: a shared address is i32, got i64",
    ),
    ("  %a = hw.nv.shared_addr @sB : i32", "sm 90", "shared_addr: no hw.nv.shared @sB in the enclosing kernel"),
    (
        "  %a = hw.nv.dynamic_shared_addr : i64",
        "sm 90 smem 64",
        "dynamic_shared_addr: a shared address is i32, got i64",
    ),
    ("  %a = hw.nv.dynamic_shared_addr : i32", "sm 90", "the kernel declares no dynamic shared memory (add `smem N`"),
    ("  %t = hw.nv.sreg tid.w : i32", "sm 90", "sreg: unknown special register 'tid.w'"),
    ("  %t = hw.nv.sreg tid.x : i64", "sm 90", "sreg: %tid.x is i32, got i64"),
    ("  %v:3 = hw.nv.ld global v3 %q : i64 -> f32, f32, f32", "sm 90", "ld: vector width must be 1, 2 or 4, got 3"),
    ("  %v:2 = hw.nv.ld global v4 %q : i64 -> f32, f32", "sm 90", "ld: a v4 access moves 4 register(s), got 2"),
    ("  %v:2 = hw.nv.ld global v2 %q : i64 -> f32, i32", "sm 90", "ld: all elements must have one type, got f32, i32"),
    (
        "  %v = hw.nv.ld global %q : i64 -> i1",
        "sm 90",
        "ld: element type must be i8 (a byte, held in a 16-bit register), i16, i32, i64, f16, bf16, f32 or f64, got i1",
    ),
    (
        "  %v:4 = hw.nv.ld global v4 %q : i64 -> f64, f64, f64, f64",
        "sm 90",
        "ld: v4 x f64 is 32 bytes; one access moves at most 16",
    ),
    ("  %v = hw.nv.ld global %n : i32 -> f32", "sm 90", "ld: a global address is i64, got i32"),
    ("  %v = hw.nv.ld shared %q : i64 -> f32", "sm 90", "ld: a shared address is i32, got i64"),
    ("  %v = hw.nv.ld local %f : f32 -> f32", "sm 90", "ld: a local address is i32 or i64, got f32"),
    ("  %v = hw.nv.ld global %q + 4294967296 : i64 -> f32", "sm 90", "ld: offset 4294967296 does not fit in 32 bits"),
    (
        "  %v = hw.nv.ld shared cg %n : i32 -> f32",
        "sm 90",
        "ld: cache qualifiers apply to global, local and generic loads, not shared",
    ),
    ("  %v = hw.nv.ld shared nc %n : i32 -> f32", "sm 90", "ld: nc (non-coherent) loads read global memory only"),
    ("  %v = hw.nv.ld global nc lu %q : i64 -> f32", "sm 90", "ld: nc loads take cache qualifier ca, cg, cs, got lu"),
    (
        "  hw.nv.st shared cg %n, %f : i32, f32",
        "sm 90",
        "st: cache qualifiers apply to global, local and generic stores, not shared",
    ),
    ("  hw.nv.st global v3 %q, %f, %f, %f : i64, f32, f32, f32", "sm 90", "st: vector width must be 1, 2 or 4, got 3"),
    (
        "  hw.nv.cp_async cg %n, %q, 8 : i32, i64",
        "sm 90",
        "cp_async: cg copies 16 bytes only, got 8 (use ca for 4 or 8)",
    ),
    ("  hw.nv.cp_async ca %n, %q, 2 : i32, i64", "sm 90", "cp_async: size must be 4, 8 or 16 bytes, got 2"),
    ("  hw.nv.cp_async %q, %q, 16 : i64, i64", "sm 90", "cp_async: destination is a shared address (i32), got i64"),
    ("  hw.nv.cp_async %n, %n, 16 : i32, i32", "sm 90", "cp_async: source is a global address (i64), got i32"),
    ("  hw.nv.cp_async %n, %q, 16 src_bytes %q : i32, i64, i64", "sm 90", "cp_async: src_bytes is i32, got i64"),
    ("  hw.nv.cp_async_wait -1", "sm 90", "cp_async_wait: the number of pending groups must be >= 0, got -1"),
    ("  %r:2 = hw.nv.ldmatrix x4 %n : i32 -> i32, i32", "sm 90", "ldmatrix: x4 gives 4 registers, got 2 results"),
    (
        "  %r = hw.nv.ldmatrix x1 %n : i32 -> f32",
        "sm 90",
        "ldmatrix: results are i32 registers (two 16-bit elements each), got f32",
    ),
    ("  %r = hw.nv.ldmatrix x1 %q : i64 -> i32", "sm 90", "ldmatrix: address is a shared address (i32), got i64"),
    (
        "  %o:4 = hw.nv.mma_sync m16n8k16 col row f32 f16 f16 f32 (%n, %n, %n, %n), (%n, %n), (%f, %f, %f, %f)",
        "sm 90",
        "mma_sync: m16n8k16 takes layouts row col only, got col row",
    ),
    (
        "  %o:4 = hw.nv.mma_sync m16n8k16 row col f32 f16 f16 f32 (%n, %n, %n), (%n, %n), (%f, %f, %f, %f)",
        "sm 90",
        "mma_sync: m16n8k16 f32.f16.f16.f32 takes 4 A register(s) (i32), got 3",
    ),
    (
        "  %o:2 = hw.nv.mma_sync m16n8k16 row col f16 f16 f16 f16 (%n, %n, %n, %n), (%n, %n, %n), (%n, %n)",
        "sm 90",
        "mma_sync: m16n8k16 f16.f16.f16.f16 takes 2 B register(s) (i32), got 3",
    ),
    ("  hw.nv.wgmma_fence", "sm 90", "wgmma_fence: wgmma needs sm 90a, but the kernel targets 90"),
    ("  hw.nv.wgmma_commit_group", "sm 80", "wgmma_commit_group: wgmma needs sm 90a, but the kernel targets 80"),
    ("  hw.nv.wgmma_wait_group 0", "sm 89", "wgmma_wait_group: wgmma needs sm 90a, but the kernel targets 89"),
    ("  hw.nv.wgmma_wait_group -2", 'sm "90a"', "wgmma_wait_group: the number of pending groups must be >= 0, got -2"),
    (
        "  %o:6 = hw.nv.wgmma_mma_async m64n12k16 f32 f16 f16 %q, %q, (%f, %f, %f, %f, %f, %f)",
        'sm "90a"',
        "wgmma_mma_async: N must be a multiple of 8 from 8 to 256, got 12",
    ),
    (
        "  %o:4 = hw.nv.wgmma_mma_async m64n8k16 f32 tf32 tf32 %q, %q, (%f, %f, %f, %f)",
        'sm "90a"',
        "wgmma_mma_async: unsupported types k16 f32.tf32.tf32 (supported: k16 f32.f16.f16",
    ),
    (
        "  %o:3 = hw.nv.wgmma_mma_async m64n8k16 f32 f16 f16 %q, %q, (%f, %f, %f)",
        'sm "90a"',
        "wgmma_mma_async: m64n8 f32 takes 4 accumulator registers (f32), got 3",
    ),
    (
        "  %o:4 = hw.nv.wgmma_mma_async m64n8k16 f32 f16 f16 %q, %q, (%f, %f, %f, %f)",
        'sm "90a"',
        "wgmma_mma_async: accumulators must be distinct values",
    ),
    (
        "  %c:4 = hw.nv.ld global v4 %q : i64 -> f32, f32, f32, f32\n"
        "  %o:4 = hw.nv.wgmma_mma_async m64n8k16 f32 f16 f16 %q, %q, (%c#0, %c#1, %c#2, %c#3) scale_d 2",
        'sm "90a"',
        "wgmma_mma_async: scale_d must be 0 or 1, got 2",
    ),
    (
        "  %c:4 = hw.nv.ld global v4 %q : i64 -> f32, f32, f32, f32\n"
        "  %o:4 = hw.nv.wgmma_mma_async m64n8k16 f32 f16 f16 %q, %q, (%c#0, %c#1, %c#2, %c#3) scale_b 0",
        'sm "90a"',
        "wgmma_mma_async: scale_b must be 1 or -1, got 0",
    ),
    (
        "  %c:4 = hw.nv.ld global v4 %q : i64 -> f32, f32, f32, f32\n"
        "  %o:4 = hw.nv.wgmma_mma_async m64n8k16 f32 f16 f16 %q, %q, (%c#0, %c#1, %c#2, %c#3) trans_a 2",
        'sm "90a"',
        "wgmma_mma_async: trans_a must be 0 or 1, got 2",
    ),
    (
        "  %c:4 = hw.nv.ld global v4 %q : i64 -> f32, f32, f32, f32\n"
        "  %o:4 = hw.nv.wgmma_mma_async m64n8k8 f32 tf32 tf32 %q, %q, (%c#0, %c#1, %c#2, %c#3) trans_b 1",
        'sm "90a"',
        "wgmma_mma_async: trans_b must be 0 for tf32 inputs",
    ),
    (
        "  %c:4 = hw.nv.ld global v4 %q : i64 -> f32, f32, f32, f32\n"
        "  %o:4 = hw.nv.wgmma_mma_async m64n8k16 f32 f16 f16 %q, %q, (%c#0, %c#1, %c#2, %c#3)",
        "sm 90",
        "wgmma_mma_async: wgmma needs sm 90a, but the kernel targets 90",
    ),
    ("  hw.nv.tma_load_2d %n, %tm[%n], %n", 'sm "90a"', "tma_load_2d: a 2-d load takes 2 coordinates, got 1"),
    (
        "  hw.nv.tma_load_2d %n, %tm[%n, %n], %n",
        "sm 80",
        "tma_load_2d: TMA needs sm 90 or 90a, but the kernel targets 80",
    ),
    ("  hw.nv.mbarrier_init %n, 0", "sm 80", "mbarrier_init: arrival count must be from 1 to 2^20 - 1, got 0"),
    (
        "  %s0 = hw.nv.mbarrier_arrive_expect_tx %n, 2000000",
        "sm 90",
        "transaction bytes must be from 0 to 2^20 - 1, got 2000000",
    ),
    (
        "  %s0 = hw.nv.mbarrier_arrive_expect_tx %n, 64",
        "sm 80",
        "mbarrier expect_tx needs sm 90 or 90a, but the kernel targets 80",
    ),
    (
        "  %ok = hw.nv.mbarrier_try_wait %n, %n",
        "sm 86",
        "mbarrier try_wait needs sm 90 or 90a, but the kernel targets 86",
    ),
    (
        "  hw.nv.fence_proxy_async",
        "sm 89",
        "fence_proxy_async: fence.proxy.async needs sm 90 or 90a, but the kernel targets 89",
    ),
    ("  %r = hw.nv.shfl bfly %q, 1 : i64", "sm 90", "shfl: shuffles one 32-bit register (i32 or f32), got i64"),
    ("  %r = hw.nv.shfl bfly %f, 32 : f32", "sm 90", "shfl: lane operand must be from 0 to 31, got 32"),
    ("  %r = hw.nv.shfl down %f, 1 mask 0 : f32", "sm 90", "shfl: member mask must be a nonzero 32-bit value, got 0x0"),
    ("  hw.nv.bar_sync 16", "sm 90", "bar_sync: barrier id must be from 0 to 15, got 16"),
    (
        "  hw.nv.bar_sync 1, 100",
        "sm 90",
        "bar_sync: thread count must be a positive multiple of 32 up to 1024, got 100",
    ),
    ("  hw.nv.bar_warp_sync 0", "sm 90", "bar_warp_sync: member mask must be a nonzero 32-bit value, got 0x0"),
    (
        "  %y = hw.nv.math lg2 approx %d : f64",
        "sm 90",
        "math: lg2.approx.f64 is not a PTX instruction (legal: ex2.approx.f32",
    ),
    ("  %y = hw.nv.math sqrt rn %h : f16", "sm 90", "math: sqrt.rn.f16 is not a PTX instruction"),
    ("  %y = hw.nv.math ex2 approx ftz %h : f16", "sm 90", "math: ftz applies to f32 only, got f16"),
    ("  %p = hw.nv.pack %h, %b : f16, bf16 -> i32", "sm 90", "pack: both halves must have one type, got f16 and bf16"),
    ("  %p = hw.nv.pack %f, %f : f32, f32 -> i32", "sm 90", "pack: halves are f16, bf16 or i16, got f32"),
    ("  %p = hw.nv.pack %h, %h : f16, f16 -> i64", "sm 90", "pack: the packed register is i32, got i64"),
    (
        "  %l, %u = hw.nv.unpack %n : i32 -> f16, bf16",
        "sm 90",
        "unpack: both halves must have one type, got f16 and bf16",
    ),
    ("  %l, %u = hw.nv.unpack %n : i32 -> i32, i32", "sm 90", "unpack: halves are f16, bf16 or i16, got i32"),
    ("  %l, %u = hw.nv.unpack %f : f32 -> f16, f16", "sm 90", "unpack: the packed register is i32, got f32"),
]

NV_ERROR_PARAMS = NV_PARAMS + ", %b: bf16, %tm: !hw.nv.tensor_map"


@pytest.mark.parametrize("body,clauses,message", NV_TEXT_ERRORS, ids=[m[:50] for _, _, m in NV_TEXT_ERRORS])
def test_nv_verifier_errors(body, clauses, message):
    expect_error(nv_kernel(body, clauses, NV_ERROR_PARAMS), message)


def test_nv_kernel_structure_errors():
    expect_error(
        nv_kernel("", params="%p: !hw.ptr<shared>"),
        "nv.kernel: parameter %p has type !hw.ptr<shared>; parameters must be !hw.ptr<global>, !hw.ptr<generic>",
    )
    expect_error("hw.nv.kernel @k() sm 90 {\n  hw.nv.bar_sync 0\n}", "nv.kernel: body must end with hw.nv.return")
    expect_error("%a = hw.nv.shared_addr @sA : i32", "shared_addr: must be inside a hw.nv.kernel")
    expect_error("%a = hw.nv.dynamic_shared_addr : i32", "dynamic_shared_addr: must be inside a hw.nv.kernel")


def test_nv_kernel_python_only_errors():
    k = nv.KernelOp("k", [i32], sm=90, smem=-4)
    k.body.block.add_op(nv.ReturnOp())
    expect_verify_error(k, "smem must be >= 0 bytes, got -4")
    k = nv.KernelOp("k", [i32], sm=90, body=Region(Block(arg_types=[f32])))
    k.body.block.add_op(nv.ReturnOp())
    expect_verify_error(k, "entry block arguments must match the parameter types")
    k = nv.KernelOp("k", [i32], sm=90)
    k.body.block.add_op(nv.ReturnOp())
    k.function_type = FunctionType.from_lists([i32], [i32])
    expect_verify_error(k, "returns nothing: results leave through pointers")


def _nv_values():
    """A block holding values of the types the Python-only checks need."""
    return Block(arg_types=[i32, i64, f32, f16, nv.TensorMapType(), i1]).args


def test_nv_python_only_errors():
    n, q, f, h, tm, b = _nv_values()
    expect_verify_error(nv.LdOp("const", q, f32), "ld: unknown state space 'const'")
    expect_verify_error(nv.LdOp("global", q, f32, cache="wb"), "ld: unknown load cache qualifier 'wb'")
    expect_verify_error(nv.StOp("global", q, [f], cache="lu"), "st: unknown store cache qualifier 'lu'")
    expect_verify_error(nv.CpAsyncOp(n, q, 16, cache="cs"), "cp_async: unknown cp.async cache qualifier 'cs'")
    expect_verify_error(nv.LdmatrixOp(3, n), "ldmatrix: loads x1, x2 or x4 matrices, got x3")
    expect_verify_error(
        nv.MmaSyncOp("m16n8k32", ("f32", "f16", "f16", "f32"), [n] * 4, [n] * 2, [f] * 4),
        "mma_sync: unsupported variant m16n8k32 f32.f16.f16.f32 (supported: m16n8k16 f32.f16.f16.f32;",
    )
    expect_verify_error(
        nv.MmaSyncOp("m16n8k16", ("f32", "f16", "f16", "f32"), [n] * 4, [n] * 2, [f, f, f, n]),
        "mma_sync: m16n8k16 f32.f16.f16.f32: C registers are f32, got i32",
    )
    expect_verify_error(
        nv.MmaSyncOp("m16n8k16", ("f32", "f16", "f16", "f32"), [n] * 4, [n] * 2, [f] * 4, result_types=[f] * 3),
        "mma_sync: m16n8k16 f32.f16.f16.f32 gives 4 D register(s) of type f32",
    )
    acc = list(Block(arg_types=[f32] * 4).args)
    expect_verify_error(
        nv.WgmmaMmaAsyncOp("m32n8k16", ("f32", "f16", "f16"), q, q, acc),
        "wgmma_mma_async: shape must be m64nNk16 or m64nNk8 (tf32), got m32n8k16",
    )
    iacc = list(Block(arg_types=[i32] * 4).args)
    expect_verify_error(
        nv.WgmmaMmaAsyncOp("m64n8k16", ("f32", "f16", "f16"), q, q, iacc),
        "wgmma_mma_async: accumulators are f32, got i32",
    )
    expect_verify_error(
        nv.WgmmaMmaAsyncOp("m64n8k16", ("f32", "f16", "f16"), q, q, acc, result_types=[f32] * 3),
        "wgmma_mma_async: gives 4 result registers of type f32",
    )
    expect_verify_error(
        nv.WgmmaMmaAsyncOp("m64n8k16", ("f32", "f16", "f16"), n, q, acc),
        "wgmma_mma_async: the A descriptor is i64, got i32",
    )
    expect_verify_error(
        nv.TmaLoad2dOp(n, q, [n, n], n), "tma_load_2d: the tensor map is a !hw.nv.tensor_map parameter, got i64"
    )
    expect_verify_error(nv.TmaLoad2dOp(n, tm, [n, q], n), "tma_load_2d: coordinate is i32, got i64")
    expect_verify_error(nv.MbarrierInitOp(q, 1), "mbarrier_init: the mbarrier address is i32, got i64")
    bad_state = nv.MbarrierArriveExpectTxOp(n, 8)
    bad_state.state._type = i32  # simulate a generic-form op with a wrong result type
    expect_verify_error(bad_state, "mbarrier_arrive_expect_tx: the state is i64, got i32")
    expect_verify_error(nv.MbarrierTryWaitOp(n, q), "mbarrier_try_wait: the phase parity is i32, got i64")
    wait = nv.MbarrierTryWaitOp(n, n)
    wait.done._type = i32
    expect_verify_error(wait, "mbarrier_try_wait: the result is i1, got i32")
    expect_verify_error(nv.ShflOp("rot", f, 1), "shfl: unknown shuffle mode 'rot'")
    expect_verify_error(nv.ShflOp("bfly", f, q), "shfl: lane operand is i32, got i64")
    both = nv.ShflOp("bfly", f, n)
    both.properties["lane"] = nv.IntAttr(1)
    expect_verify_error(both, "shfl: needs exactly one lane operand: an immediate or an i32 register")
    wrong = nv.ShflOp("bfly", f, 1)
    wrong.result._type = i32
    expect_verify_error(wrong, "shfl: result type i32 must equal the value type f32")
    expect_verify_error(nv.MathOp("exp", "approx", f), "math: unknown function 'exp'")
    m = nv.MathOp("ex2", "approx", f)
    m.result._type = f16
    expect_verify_error(m, "math: result type f16 must equal the operand type f32")
    expect_verify_error(nv.SregOp("tid.x", i64), "sreg: %tid.x is i32, got i64")


def test_nv_parse_errors():
    expect_error(
        nv_kernel("  %v = hw.nv.ld global w4 %q : i64 -> f32"),
        "expected a vector width (v1, v2, v4) or an operand, got 'w4'",
    )
    expect_error(
        nv_kernel("  %v = hw.nv.ld const %q : i64 -> f32"), "expected a state space (global, shared, local, generic)"
    )
    expect_error(nv_kernel("  hw.nv.st global v2 %q, %f : i64, f32"), "v2 store needs 2 value(s), got 1")
    expect_error(nv_kernel("  hw.nv.st global %q, %f : i64"), "2 operands but 1 type(s) after ':'")
    expect_error(nv_kernel("  %t = hw.nv.sreg : i32"), "expected a special register name")
    expect_error(nv_kernel("  %r = hw.nv.ldmatrix x8 %n : i32 -> i32"), "expected x1, x2 or x4")
    expect_error(
        nv_kernel("  %o:4 = hw.nv.mma_sync m16n8k32 row col f32 f16 f16 f32 (%n), (%n), (%f)"),
        "mma_sync: unsupported variant m16n8k32 f32.f16.f16.f32",
    )
    expect_error(
        nv_kernel(
            "  %o:4 = hw.nv.mma_sync m16n8k16 row col f32 f16 f16 f32 (%f, %f, %f, %f), (%n, %n), (%f, %f, %f, %f)"
        ),
        "operand is used with type i32, but has been previously used or defined with type f32",
    )
    expect_error(
        nv_kernel("  %o:4 = hw.nv.wgmma_mma_async m64x8k16 f32 f16 f16 %q, %q, (%f)", 'sm "90a"'),
        "wgmma_mma_async: expected m64nNkK and an f32 or f16 accumulator, got m64x8k16 f32",
    )
    expect_error(
        nv_kernel(
            "  %o:4 = hw.nv.wgmma_mma_async m64n8k16 f32 f16 f16 %q, %q, (%f, %f, %f, %f) trans_b 1 trans_b 0",
            'sm "90a"',
        ),
        "trans_b is given twice",
    )
    expect_error(nv_kernel("  %r = hw.nv.shfl rot %f, 1 : f32"), "expected a shuffle mode (bfly, down, up, idx)")
    expect_error(nv_kernel("  %y = hw.nv.math exp approx %f : f32"), "expected a math function (ex2, lg2, rsqrt")
    expect_error(nv_kernel("  %y = hw.nv.math ex2 rz %f : f32"), "expected a rounding mode (approx, rn)")


# --- AMD ----------------------------------------------------------------------------------------

AMD_PARAMS = "%A: !hw.ptr<global, f16>, %n: i32, %f: f32, %q: i64, %h: f16"


def amd_kernel(body: str, clauses: str = 'arch "gfx90a" wave 64', params: str = AMD_PARAMS) -> str:
    return f"hw.amd.kernel @k({params}) {clauses} {{\n{body}\n  hw.amd.return\n}}\n"


AMD_PROGRAM = """\
builtin.module {
  hw.amd.kernel @gemm(%A: !hw.ptr<global, f16>, %n: i32) arch "gfx90a" wave 64 launch_bounds 256 lds 32768 {
    hw.amd.lds @sA 16384 align 16
    %p = hw.amd.lds_addr @sA : i32
    %q = hw.amd.dynamic_lds_addr : i32
    %t = hw.amd.workitem_id x : i32
    %b = hw.amd.workgroup_id y : i32
    %s = hw.amd.workgroup_size z : i32
    %l = hw.amd.lane_id : i32
    %a = hw.ptr_to_int %A : !hw.ptr<global, f16> -> i64
    %g = hw.amd.global_load %a + 64 : i64 -> vector<4xf16>
    hw.amd.global_store %a - 8, %g : i64, vector<4xf16>
    hw.amd.lds_store %p, %g : i32, vector<4xf16>
    hw.amd.barrier
    %h = hw.amd.lds_load %p + 16 : i32 -> vector<4xf16>
    %w = hw.amd.lds_load %q : i32 -> f32
    %c = arith.constant dense<0.000000e+00> : vector<16xf32>
    %d = hw.amd.mfma f32_32x32x8f16 %g, %h, %c cbsz 0 abid 0 blgp 0 : vector<4xf16>, vector<4xf16>, vector<16xf32> -> vector<16xf32>
    %gi = vector.bitcast %g : vector<4xf16> to vector<4xi16>
    %c4 = arith.constant dense<0.000000e+00> : vector<4xf32>
    %e = hw.amd.mfma f32_16x16x16bf16_1k %gi, %gi, %c4 cbsz 2 abid 3 blgp 7 : vector<4xi16>, vector<4xi16>, vector<4xf32> -> vector<4xf32>
    %k = hw.amd.mfma f32_32x32x2f32 %w, %w, %d cbsz 0 abid 0 blgp 0 : f32, f32, vector<16xf32> -> vector<16xf32>
    %r = hw.amd.shfl_xor %w, 32 : f32
    %r2 = hw.amd.shfl_xor %t, %l : i32
    %r3 = hw.amd.ds_swizzle %t, 0x041f : i32
    %r4 = hw.amd.dpp %t ctrl 0x111 row_mask 0xf bank_mask 0xa bound_ctrl : i32
    %r5 = hw.amd.dpp %t ctrl 0x01b row_mask 0x3 bank_mask 0xf : i32
    hw.amd.return
  }
}
"""


def test_amd_program_round_trips():
    assert assert_round_trip(AMD_PROGRAM) == AMD_PROGRAM


def test_amd_built_in_python_matches_text():
    kernel = amd.KernelOp("copy", [PtrType("global", f32)], arch="gfx942", wave=64, launch_bounds=128)
    (X,) = kernel.params
    X.name_hint = "X"
    v4 = VectorType(f32, [4])
    ops = [
        amd.LdsOp("buf", 2048),
        a := PtrToIntOp(X),
        t := amd.WorkitemIdOp("x"),
        p := amd.LdsAddrOp("buf"),
        v := amd.GlobalLoadOp(a.result, v4, offset=32),
        amd.LdsStoreOp(p.result, v.result, offset=16),
        amd.BarrierOp(),
        w := amd.LdsLoadOp(p.result, v4),
        amd.GlobalStoreOp(a.result, w.result),
        amd.ShflXorOp(t.result, 1),
        amd.ReturnOp(),
    ]
    kernel.body.block.add_ops(ops)
    module = ModuleOp([kernel])
    verify_module(module)
    text = print_module(module)
    assert text == (
        "builtin.module {\n"
        '  hw.amd.kernel @copy(%X: !hw.ptr<global, f32>) arch "gfx942" wave 64 launch_bounds 128 {\n'
        "    hw.amd.lds @buf 2048 align 16\n"
        "    %0 = hw.ptr_to_int %X : !hw.ptr<global, f32> -> i64\n"
        "    %1 = hw.amd.workitem_id x : i32\n"
        "    %2 = hw.amd.lds_addr @buf : i32\n"
        "    %3 = hw.amd.global_load %0 + 32 : i64 -> vector<4xf32>\n"
        "    hw.amd.lds_store %2 + 16, %3 : i32, vector<4xf32>\n"
        "    hw.amd.barrier\n"
        "    %4 = hw.amd.lds_load %2 : i32 -> vector<4xf32>\n"
        "    hw.amd.global_store %0, %4 : i64, vector<4xf32>\n"
        "    %5 = hw.amd.shfl_xor %1, 1 : i32\n"
        "    hw.amd.return\n"
        "  }\n"
        "}\n"
    )
    assert assert_round_trip(text) == text
    assert kernel.static_lds() == 2048


def test_amd_mfma_immediates_in_any_order_print_canonically():
    text = amd_kernel(
        "  %c = arith.constant dense<0.0> : vector<16xf32>\n"
        "  %d = hw.amd.mfma f32_32x32x2f32 %f, %f, %c blgp 2 abid 1 cbsz 1 : f32, f32, vector<16xf32> -> vector<16xf32>"
    )
    assert "cbsz 1 abid 1 blgp 2 :" in assert_round_trip(text)


def test_amd_mfma_built_in_python():
    kernel = amd.KernelOp("m", [], arch="gfx90a")
    blk = Block(arg_types=[VectorType(f16, [4]), VectorType(f32, [4])])
    a, c = blk.args
    op = amd.MfmaOp("f32_16x16x16f16", a, a, c)
    op.verify_()
    assert op.d.type == VectorType(f32, [4])
    assert kernel.wave.data == 64


AMD_TEXT_ERRORS = [
    ("", 'arch "sm_90" wave 64', 'amd.kernel: arch must be a gfx target such as "gfx90a" or "gfx1100", got "sm_90"'),
    ("", 'arch "gfx1100" wave 16', "amd.kernel: wave must be 32 or 64, got 16"),
    ("", 'arch "gfx90a" wave 32', "amd.kernel: gfx90a runs wave 64 only (wave 32 needs gfx10 or later)"),
    (
        "",
        'arch "gfx90a" wave 64 launch_bounds 2048',
        "amd.kernel: launch_bounds must be from 1 to 1024 threads, got 2048",
    ),
    ("  hw.amd.lds @sA 64\n  hw.amd.lds @sA 64", 'arch "gfx90a"', "amd.kernel: LDS array @sA is declared twice"),
    (
        "  hw.amd.lds @sA 40000",
        'arch "gfx90a" lds 30000',
        "70000 bytes of LDS (40000 static + 30000 dynamic) exceed the 65536 bytes",
    ),
    ("  hw.amd.lds @sA 0", 'arch "gfx90a"', "amd.lds: size must be a positive number of bytes, got 0"),
    ("  hw.amd.lds @sA 64 align 12", 'arch "gfx90a"', "amd.lds: alignment must be a power of two, got 12"),
    (
        "  hw.amd.lds @sA 64\n  %p = hw.amd.lds_addr @sA : i64",
        'arch "gfx90a"',
        "amd.lds_addr: an LDS address is i32, got i64",
    ),
    ("  %p = hw.amd.lds_addr @sB : i32", 'arch "gfx90a"', "amd.lds_addr: no hw.amd.lds @sB in the enclosing kernel"),
    (
        "  %p = hw.amd.dynamic_lds_addr : i64",
        'arch "gfx90a" lds 64',
        "amd.dynamic_lds_addr: an LDS address is i32, got i64",
    ),
    (
        "  %p = hw.amd.dynamic_lds_addr : i32",
        'arch "gfx90a"',
        "the kernel declares no dynamic LDS (add `lds N` to hw.amd.kernel)",
    ),
    ("  %t = hw.amd.workitem_id x : i64", 'arch "gfx90a"', "amd.workitem_id: the result is i32, got i64"),
    ("  %t = hw.amd.workgroup_id y : f32", 'arch "gfx90a"', "amd.workgroup_id: the result is i32, got f32"),
    ("  %t = hw.amd.workgroup_size z : i16", 'arch "gfx90a"', "amd.workgroup_size: the result is i32, got i16"),
    ("  %t = hw.amd.lane_id : i64", 'arch "gfx90a"', "amd.lane_id: the result is i32, got i64"),
    (
        "  %v = hw.amd.global_load %q : i64 -> vector<3xf32>",
        'arch "gfx90a"',
        "amd.global_load: value must be i8, i16, i32, i64, f16, bf16, f32, f64 or a vector",
    ),
    ("  %v = hw.amd.global_load %q : i64 -> i1", 'arch "gfx90a"', "amd.global_load: value must be i8, i16"),
    (
        "  %v = hw.amd.lds_load %n : i32 -> vector<8xf32>",
        'arch "gfx90a"',
        "amd.lds_load: one access moves 1, 2, 4, 8 or 16 bytes; vector<8xf32> is 32",
    ),
    ("  %v = hw.amd.lds_load %q : i64 -> f32", 'arch "gfx90a"', "amd.lds_load: an LDS address is i32, got i64"),
    ("  %v = hw.amd.global_load %n : i32 -> f32", 'arch "gfx90a"', "amd.global_load: a global address is i64, got i32"),
    (
        "  %v = hw.amd.global_load %q + 4294967296 : i64 -> f32",
        'arch "gfx90a"',
        "amd.global_load: offset 4294967296 does not fit in 32 bits",
    ),
    ("  hw.amd.global_store %n, %f : i32, f32", 'arch "gfx90a"', "amd.global_store: a global address is i64, got i32"),
    (
        "  hw.amd.lds_store %n - 4294967296, %f : i32, f32",
        'arch "gfx90a"',
        "amd.lds_store: offset -4294967296 does not fit in 32 bits",
    ),
    (
        "  %d = hw.amd.mfma f32_4x4x1f16 %f, %f, %f cbsz 0 abid 0 blgp 0 : f32, f32, f32 -> f32",
        'arch "gfx90a"',
        "amd.mfma: unknown MFMA variant 'f32_4x4x1f16'",
    ),
    (
        "  %d = hw.amd.mfma f32_32x32x2f32 %h, %f, %f : f16, f32, f32 -> f32",
        'arch "gfx90a"',
        "amd.mfma: f32_32x32x2f32: A is f32, got f16",
    ),
    (
        "  %d = hw.amd.mfma f32_32x32x2f32 %f, %h, %f : f32, f16, f32 -> f32",
        'arch "gfx90a"',
        "amd.mfma: f32_32x32x2f32: B is f32, got f16",
    ),
    (
        "  %d = hw.amd.mfma f32_32x32x2f32 %f, %f, %f : f32, f32, f32 -> f32",
        'arch "gfx90a"',
        "amd.mfma: f32_32x32x2f32: C is vector<16xf32>, got f32",
    ),
    (
        "  %c = arith.constant dense<0.0> : vector<16xf32>\n"
        "  %d = hw.amd.mfma f32_32x32x2f32 %f, %f, %c : f32, f32, vector<16xf32> -> vector<4xf32>",
        'arch "gfx90a"',
        "amd.mfma: f32_32x32x2f32: D is vector<16xf32>, got vector<4xf32>",
    ),
    (
        "  %c = arith.constant dense<0.0> : vector<16xf32>\n"
        "  %d = hw.amd.mfma f32_32x32x2f32 %f, %f, %c cbsz 5 : f32, f32, vector<16xf32> -> vector<16xf32>",
        'arch "gfx90a"',
        "amd.mfma: cbsz must be from 0 to 4, got 5",
    ),
    (
        "  %c = arith.constant dense<0.0> : vector<16xf32>\n"
        "  %d = hw.amd.mfma f32_32x32x2f32 %f, %f, %c abid 1 : f32, f32, vector<16xf32> -> vector<16xf32>",
        'arch "gfx90a"',
        "amd.mfma: abid must be below 2^cbsz = 1, got 1",
    ),
    (
        "  %c = arith.constant dense<0.0> : vector<16xf32>\n"
        "  %d = hw.amd.mfma f32_32x32x2f32 %f, %f, %c blgp 8 : f32, f32, vector<16xf32> -> vector<16xf32>",
        'arch "gfx90a"',
        "amd.mfma: blgp must be from 0 to 7, got 8",
    ),
    (
        "  %a = arith.constant dense<0> : vector<4xi16>\n  %c = arith.constant dense<0.0> : vector<16xf32>\n"
        "  %d = hw.amd.mfma f32_32x32x8bf16_1k %a, %a, %c : vector<4xi16>, vector<4xi16>, vector<16xf32> -> vector<16xf32>",
        'arch "gfx908"',
        "amd.mfma: f32_32x32x8bf16_1k needs one of gfx90a, gfx940, gfx941, gfx942, gfx950, but the kernel targets gfx908",
    ),
    (
        "  %c = arith.constant dense<0.0> : vector<16xf32>\n"
        "  %d = hw.amd.mfma f32_32x32x2f32 %f, %f, %c : f32, f32, vector<16xf32> -> vector<16xf32>",
        'arch "gfx1100" wave 32',
        "but the kernel targets gfx1100",
    ),
    ("  %r = hw.amd.shfl_xor %h, 1 : f16", 'arch "gfx90a"', "amd.shfl_xor: shuffles i32, f32, i64 or f64, got f16"),
    ("  %r = hw.amd.shfl_xor %f, 64 : f32", 'arch "gfx90a"', "amd.shfl_xor: lane mask must be from 0 to 63, got 64"),
    (
        "  %r = hw.amd.shfl_xor %f, 32 : f32",
        'arch "gfx1100" wave 32',
        "amd.shfl_xor: lane mask must be from 0 to 31, got 32",
    ),
    (
        "  %r = hw.amd.ds_swizzle %f, 1 : f32",
        'arch "gfx90a"',
        "amd.ds_swizzle: swizzles an i32 (bitcast other types), got f32",
    ),
    (
        "  %r = hw.amd.ds_swizzle %n, 0x10000 : i32",
        'arch "gfx90a"',
        "amd.ds_swizzle: pattern must be a 16-bit value, got 0x10000",
    ),
    ("  %r = hw.amd.dpp %f ctrl 0x111 : f32", 'arch "gfx90a"', "amd.dpp: moves an i32 (bitcast other types), got f32"),
    ("  %r = hw.amd.dpp %n ctrl 0x110 : i32", 'arch "gfx90a"', "amd.dpp: 0x110 is not a DPP control value"),
    ("  %r = hw.amd.dpp %n ctrl 0x144 : i32", 'arch "gfx90a"', "amd.dpp: 0x144 is not a DPP control value"),
    (
        "  %r = hw.amd.dpp %n ctrl 0x101 row_mask 0x10 : i32",
        'arch "gfx90a"',
        "amd.dpp: row_mask must be from 0 to 0xf, got 0x10",
    ),
    (
        "  %r = hw.amd.dpp %n ctrl 0x101 bank_mask 0x1f : i32",
        'arch "gfx90a"',
        "amd.dpp: bank_mask must be from 0 to 0xf, got 0x1f",
    ),
]


@pytest.mark.parametrize("body,clauses,message", AMD_TEXT_ERRORS, ids=[m[:50] for _, _, m in AMD_TEXT_ERRORS])
def test_amd_verifier_errors(body, clauses, message):
    expect_error(amd_kernel(body, clauses), message)


def test_amd_store_value_errors():
    expect_error(
        amd_kernel("  %m = arith.constant dense<true> : vector<2xi1>\n  hw.amd.lds_store %n, %m : i32, vector<2xi1>"),
        "amd.lds_store: value must be i8, i16, i32, i64, f16, bf16, f32, f64 or a vector<N x one of them> (N = 2, 4, 8, 16), got vector<2xi1>",
    )
    expect_error(
        amd_kernel(
            "  %c = arith.constant dense<0.0> : vector<16xf32>\n  hw.amd.lds_store %n, %c : i32, vector<16xf32>"
        ),
        "amd.lds_store: one access moves 1, 2, 4, 8 or 16 bytes; vector<16xf32> is 64",
    )
    expect_error(
        amd_kernel("  %b = arith.constant true\n  hw.amd.global_store %q, %b : i64, i1"),
        "amd.global_store: value must be i8, i16, i32, i64, f16, bf16, f32, f64 or a vector",
    )
    expect_error(amd_kernel("  hw.amd.lds_store %q, %f : i64, f32"), "amd.lds_store: an LDS address is i32, got i64")


def test_amd_kernel_structure_errors():
    expect_error(
        amd_kernel("", params="%p: !hw.ptr<generic>"),
        "amd.kernel: parameter %p has type !hw.ptr<generic>; parameters must be !hw.ptr<global> (optionally typed) or scalars",
    )
    expect_error(
        'hw.amd.kernel @k() arch "gfx90a" {\n  hw.amd.barrier\n}', "amd.kernel: body must end with hw.amd.return"
    )
    expect_error("%p = hw.amd.lds_addr @sA : i32", "amd.lds_addr: must be inside a hw.amd.kernel")
    expect_error("%p = hw.amd.dynamic_lds_addr : i32", "amd.dynamic_lds_addr: must be inside a hw.amd.kernel")
    expect_error(amd_kernel("  %t = hw.amd.workitem_id w : i32"), "expected a dimension (x, y, z)")


def test_amd_python_only_errors():
    k = amd.KernelOp("k", [], lds=-1)
    k.body.block.add_op(amd.ReturnOp())
    expect_verify_error(k, "amd.kernel: lds must be >= 0 bytes, got -1")
    expect_verify_error(amd.WorkitemIdOp("w"), "amd.workitem_id: unknown dimension 'w'")
    f, n, q = Block(arg_types=[f32, i32, i64]).args
    expect_verify_error(amd.ShflXorOp(f, q), "amd.shfl_xor: lane mask is i32, got i64")
    both = amd.ShflXorOp(f, n)
    both.properties["mask"] = amd.IntAttr(1)
    expect_verify_error(both, "amd.shfl_xor: needs exactly one lane mask: an immediate or an i32 register")
    wrong = amd.ShflXorOp(f, 1)
    wrong.result._type = i32
    expect_verify_error(wrong, "amd.shfl_xor: result type i32 must equal the value type f32")


# --- CPU ----------------------------------------------------------------------------------------

CPU_PROGRAM = """\
builtin.module {
  hw.cpu.func @scale(%X: !hw.ptr<generic, f32>, %Y: !hw.ptr<generic, f64>, %n: i64, %s: f32) {
    %c0 = arith.constant 0 : i64
    %c8 = arith.constant 8 : i64
    %sv = hw.cpu.splat %s : f32 -> vector<8xf32>
    %buf = hw.cpu.alloca 4096 align 64 : !hw.ptr<local, f32>
    hw.cpu.parallel_for %i = %c0 to %n step %c8 : i64 {
      %x = hw.cpu.load %X[%i] : !hw.ptr<generic, f32> -> vector<8xf32>
      %y = arith.mulf %x, %sv : vector<8xf32>
      hw.cpu.store %y, %X[%i] : vector<8xf32>, !hw.ptr<generic, f32>
      %r = hw.cpu.vreduce max %y : vector<8xf32> -> f32
      %e = hw.cpu.extract %y[3] : vector<8xf32>
      hw.cpu.store %e, %buf[%i] : f32, !hw.ptr<local, f32>
      hw.cpu.yield
    }
    hw.cpu.parallel_for (%i_1, %j) = (%c0, %c0) to (%n, %n) step (%c8, %c8) schedule dynamic 4 : i64 {
      %x_1 = hw.cpu.load %Y[%j] : !hw.ptr<generic, f64> -> vector<4xf64>
      %m = hw.cpu.vreduce add %x_1 : vector<4xf64> -> f64
      scf.for %k = %c0 to %n step %c8 : i64 {
        hw.cpu.store %m, %Y[%k] : f64, !hw.ptr<generic, f64>
      }
      hw.cpu.yield
    }
    %n0 = arith.index_cast %n : i64 to index
    %z = arith.constant 0 : index
    %o = arith.constant 1 : index
    hw.cpu.parallel_for %i_2 = %z to %n0 step %o schedule static : index {
      hw.cpu.yield
    }
    hw.cpu.return
  }
}
"""


def test_cpu_program_round_trips():
    assert assert_round_trip(CPU_PROGRAM) == CPU_PROGRAM


def test_cpu_built_in_python_matches_text():
    func = cpu.FuncOp("axpy", [PtrType("generic", f32), i64, f32])
    X, n, a = func.params
    X.name_hint, n.name_hint, a.name_hint = "X", "n", "a"
    v8 = VectorType(f32, [8])
    zero = arith.ConstantOp.from_int_and_width(0, 64)
    eight = arith.ConstantOp.from_int_and_width(8, 64)
    loop = cpu.ParallelForOp([zero.result], [n], [eight.result], schedule="static")
    (i,) = loop.ivs
    i.name_hint = "i"
    x = cpu.LoadOp(X, i, v8)
    av = cpu.SplatOp(a, v8)
    y = arith.MulfOp(x.result, av.result)
    r = cpu.VReduceOp("add", y.result)
    e = cpu.ExtractOp(y.result, 7)
    loop.body.block.add_ops([x, av, y, cpu.StoreOp(y.result, X, i), r, e, cpu.YieldOp()])
    func.body.block.add_ops([zero, eight, loop, cpu.ReturnOp()])
    module = ModuleOp([func])
    verify_module(module)
    text = print_module(module)
    assert text == (
        "builtin.module {\n"
        "  hw.cpu.func @axpy(%X: !hw.ptr<generic, f32>, %n: i64, %a: f32) {\n"
        "    %0 = arith.constant 0 : i64\n"
        "    %1 = arith.constant 8 : i64\n"
        "    hw.cpu.parallel_for %i = %0 to %n step %1 schedule static : i64 {\n"
        "      %2 = hw.cpu.load %X[%i] : !hw.ptr<generic, f32> -> vector<8xf32>\n"
        "      %3 = hw.cpu.splat %a : f32 -> vector<8xf32>\n"
        "      %4 = arith.mulf %2, %3 : vector<8xf32>\n"
        "      hw.cpu.store %4, %X[%i] : vector<8xf32>, !hw.ptr<generic, f32>\n"
        "      %5 = hw.cpu.vreduce add %4 : vector<8xf32> -> f32\n"
        "      %6 = hw.cpu.extract %4[7] : vector<8xf32>\n"
        "      hw.cpu.yield\n"
        "    }\n"
        "    hw.cpu.return\n"
        "  }\n"
        "}\n"
    )
    assert assert_round_trip(text) == text
    assert cpu.AllocaOp(f32, 16).result.type == PtrType("local", f32)


CPU_PARAMS = "%X: !hw.ptr<generic, f32>, %n: i64, %f: f32, %k: i32"


def cpu_func(body: str, params: str = CPU_PARAMS) -> str:
    return f"hw.cpu.func @f({params}) {{\n{body}\n  hw.cpu.return\n}}\n"


CPU_TEXT_ERRORS = [
    (
        "  hw.cpu.parallel_for %i = %f to %f step %f : f32 {\n    hw.cpu.yield\n  }",
        "cpu.parallel_for: bounds must be an integer or index, got f32",
    ),
    (
        "  hw.cpu.parallel_for %i = %n to %n step %n schedule static 0 : i64 {\n    hw.cpu.yield\n  }",
        "cpu.parallel_for: chunk size must be positive, got 0",
    ),
    (
        "  hw.cpu.parallel_for %i = %n to %n step %n : i64 {\n    hw.cpu.store %f, %X[%i] : f32, !hw.ptr<generic, f32>\n  }",
        "cpu.parallel_for: body must end with hw.cpu.yield",
    ),
    (
        "  %v = hw.cpu.load %X[%n] : !hw.ptr<generic, f32> -> vector<8xf64>",
        "cpu.load: the pointer holds f32 but the value is vector<8xf64>",
    ),
    (
        "  %v = hw.cpu.load %X[%n] : !hw.ptr<generic, f32> -> vector<2x4xf32>",
        "cpu.load: vectors are 1-D with a fixed length, got vector<2x4xf32>",
    ),
    (
        "  %v = hw.cpu.load %X[%n] : !hw.ptr<generic, f32> -> vector<[4]xf32>",
        "cpu.load: vectors are 1-D with a fixed length, got vector<[4]xf32>",
    ),
    (
        "  %v = hw.cpu.load %X[%n] : !hw.ptr<generic, f32> -> vector<6xf32>",
        "cpu.load: vector length must be a power of two, got 6",
    ),
    (
        "  %v = hw.cpu.load %X[%n] : !hw.ptr<generic, f32> -> vector<32xf32>",
        "cpu.load: vector<32xf32> is 128 bytes; vectors are at most 64",
    ),
    (
        "  %h = arith.truncf %f : f32 to f16\n  %v = hw.cpu.splat %h : f16 -> vector<8xf16>",
        "cpu.splat: vector elements must be f32, f64, i8, i16, i32 or i64, got f16",
    ),
    (
        "  %p = hw.cpu.alloca 8 align 64 : !hw.ptr<local, f64>\n  hw.cpu.store %f, %p[%n] : f32, !hw.ptr<local, f64>",
        "cpu.store: the pointer holds f64 but the value is f32",
    ),
    (
        "  %p = hw.cpu.alloca 16 align 64 : !hw.ptr<generic, f32>",
        "cpu.alloca: the result is a typed local pointer (!hw.ptr<local, f32>), got !hw.ptr<generic, f32>",
    ),
    (
        "  %p = hw.cpu.alloca 0 align 64 : !hw.ptr<local, f32>",
        "cpu.alloca: count must be a positive number of elements, got 0",
    ),
    (
        "  %p = hw.cpu.alloca 8 align 2 : !hw.ptr<local, f32>",
        "cpu.alloca: alignment must be a power of two of at least the element size, got 2",
    ),
    (
        "  %p = hw.cpu.alloca 8 align 48 : !hw.ptr<local, f32>",
        "cpu.alloca: alignment must be a power of two of at least the element size, got 48",
    ),
    ("  %v = hw.cpu.splat %f : f32 -> f32", "cpu.splat: expected a vector type, got f32"),
    ("  %v = hw.cpu.splat %n : i64 -> vector<8xf32>", "cpu.splat: vector<8xf32> needs a f32 scalar, got i64"),
    (
        "  %v = hw.cpu.splat %f : f32 -> vector<8xf32>\n  %r = hw.cpu.vreduce add %v : vector<8xf32> -> f64",
        "cpu.vreduce: the result is the element type f32, got f64",
    ),
    (
        "  %v = hw.cpu.splat %f : f32 -> vector<8xf32>\n  %e = hw.cpu.extract %v[8] : vector<8xf32>",
        "cpu.extract: lane 8 is out of range for vector<8xf32>",
    ),
    ("  %e = hw.cpu.extract %f[0] : f32", "cpu.extract: expected a vector type, got f32"),
]


@pytest.mark.parametrize("body,message", CPU_TEXT_ERRORS, ids=[m[:50] for _, m in CPU_TEXT_ERRORS])
def test_cpu_verifier_errors(body, message):
    expect_error(cpu_func(body), message)


def test_cpu_structure_errors():
    expect_error(
        cpu_func("", params="%p: !hw.ptr<generic>"),
        "cpu.func: parameter %p has type !hw.ptr<generic>; parameters must be typed generic pointers",
    )
    expect_error(cpu_func("", params="%h: f16"), "cpu.func: parameter %h has type f16")
    expect_error(
        cpu_func("", params="%p: !hw.ptr<global, f32>"), "cpu.func: parameter %p has type !hw.ptr<global, f32>"
    )
    expect_error("hw.cpu.func @f() {\n  hw.cpu.yield\n}", "cpu.func: body must end with hw.cpu.return")
    expect_error("%p = hw.cpu.alloca 16 align 64 : !hw.ptr<local, f32>", "cpu.alloca: must be inside a hw.cpu.func")
    expect_error(cpu_func("  %p = hw.cpu.alloca 16 : f32"), "expected a !hw.ptr<local, T> type, got f32")
    expect_error(
        cpu_func("  hw.cpu.parallel_for (%i, %j) = (%n) to (%n, %n) step (%n, %n) : i64 {\n    hw.cpu.yield\n  }"),
        "2 induction variable(s) but 1 lower bound(s), 2 upper bound(s) and 2 step(s)",
    )
    expect_error(
        cpu_func("  hw.cpu.parallel_for %i = %n to %n step %n schedule auto : i64 {\n    hw.cpu.yield\n  }"),
        "expected a schedule kind (static, dynamic, guided)",
    )
    expect_error(cpu_func("  %v = hw.cpu.load %X[%k] : !hw.ptr<generic, f32> -> f32"), "operand is used with type i64")
    expect_error(
        nv_kernel("  %v = hw.cpu.load %A[%q] : !hw.ptr<global> -> f32"),
        "cpu.load: the pointer must be a !hw.ptr<generic, T> or !hw.ptr<local, T>, got !hw.ptr<global>",
    )


def test_cpu_python_only_errors():
    p, u, n, k, x, f = Block(arg_types=[PtrType("generic", f32), PtrType("generic"), i64, i32, IndexType(), f32]).args
    expect_verify_error(
        cpu.LoadOp(u, n, f32),
        "cpu.load: the pointer needs an element type (!hw.ptr<generic, f32>), got !hw.ptr<generic>",
    )
    expect_verify_error(cpu.LoadOp(p, k, f32), "cpu.load: the offset is an i64 element count, got i32")
    expect_verify_error(cpu.StoreOp(f, p, x), "cpu.store: the offset is an i64 element count, got index")
    expect_verify_error(cpu.ParallelForOp([], [], []), "cpu.parallel_for: needs at least one loop dimension")
    loop = cpu.ParallelForOp([n], [n, n], [n])
    expect_verify_error(loop, "cpu.parallel_for: needs as many upper bounds and steps as lower bounds (1)")
    loop = cpu.ParallelForOp([n], [k], [n])
    loop.body.block.add_op(cpu.YieldOp())
    expect_verify_error(loop, "cpu.parallel_for: all bounds and steps must have one type, got i64 and i32")
    loop = cpu.ParallelForOp([n], [n], [n], body=Region(Block(arg_types=[i32])))
    expect_verify_error(loop, "cpu.parallel_for: the body takes 1 induction variable(s) of type i64")
    loop = cpu.ParallelForOp([n], [n], [n], schedule="auto")
    expect_verify_error(loop, "cpu.parallel_for: unknown schedule 'auto'")
    loop = cpu.ParallelForOp([n], [n], [n], chunk=4)
    expect_verify_error(loop, "cpu.parallel_for: a chunk size needs a schedule kind")
    v = cpu.SplatOp(f, VectorType(f32, [4]))
    expect_verify_error(cpu.VReduceOp("xor", v.result), "cpu.vreduce: unknown reduction 'xor'")
    e = cpu.ExtractOp(v.result, 1)
    e.result._type = i32
    expect_verify_error(e, "cpu.extract: the result is the element type f32, got i32")


def test_dotted_op_names_parse_in_generic_form():
    text = '"hw.nv.bar_sync"() <{barrier = #builtin.int<3>}> : () -> ()\n'
    m = parse_module(CTX, text, "g.mlir")
    assert "hw.nv.bar_sync 3" in print_module(m)
