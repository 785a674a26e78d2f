"""The `mapped` dialect: types, attributes, ops, custom syntax, generic round trips and verifiers.

The lit files in test/filecheck/dialects/mapped/ are also run here, in-process: every round-trip
file must print back to itself (custom and generic), and every `expected-error` of the error files
must be raised at its line (an in-process stand-in for `tilec-opt --verify-diagnostics`). A final
test checks that every error message written in tilec/dialects/mapped.py is triggered somewhere.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import ArrayAttr, IndexType, IntAttr, IntegerAttr, ModuleOp, VectorType, f16, f32
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import VerifyException

from tilec.diagnostics import TilecError
from tilec.dialects import mapped as M
from tilec.dialects.common import DYNAMIC
from tilec.ir import make_context, parse_module, print_module, verify_module

ROOT = Path(__file__).resolve().parents[2]
LIT_DIR = ROOT / "test" / "filecheck" / "dialects" / "mapped"
ROUNDTRIP_FILES = [
    "structure",
    "hierarchy",
    "memory",
    "loops",
    "fragments",
    "fragment-math",
    "reduce",
    "host",
    "atomic",
    "scan",
    "copy-window",
    "lookback",
    "hopper",
    "shuffle",
]
ERROR_FILES = sorted(LIT_DIR.glob("*-errors.mlir"))


@pytest.fixture(scope="module")
def ctx():
    return make_context()


def parse(ctx, text: str, name: str = "<test>"):
    m = parse_module(ctx, text, name)
    verify_module(m)
    return m


def roundtrip(ctx, text: str) -> str:
    """Parse, verify and print; the printed text must reprint identically, also via the generic form."""
    m = parse(ctx, text)
    out = print_module(m)
    again = print_module(parse(ctx, out))
    assert again == out
    generic = print_module(m, generic=True)
    assert print_module(parse(ctx, generic)) == out
    return out


def kernel(body: str, header: str = "target gpu grid [1, 1, 1] block [128, 1, 1]", args: str = "") -> str:
    return f"mapped.kernel @k({args}) {header} {{\n{body}\n  mapped.return\n}}\n"


def error_of(ctx, text: str) -> TilecError:
    with pytest.raises(TilecError) as info:
        parse(ctx, text)
    return info.value


# --- types and attributes -----------------------------------------------------------------------


def test_buf_type_build_and_print(ctx):
    t = M.BufType([DYNAMIC, 64], f16, "global")
    assert str(t) == "!mapped.buf<?x64xf16, global>"
    assert t.space_name == "global" and t.swizzle is None and t.rank == 2 and not t.is_static()
    s = M.BufType([3, 128, 32], f16, "shared", M.SwizzleAttr(3, 4, 3))
    assert str(s) == "!mapped.buf<3x128x32xf16, shared, swizzle<3, 4, 3>>"
    assert s.size_bytes() == 3 * 128 * 32 * 2
    assert s.strides() == (128 * 32, 32, 1)
    assert s.element_bytes == 2
    r = M.BufType([4, 8], f32, "reg")
    assert str(r) == "!mapped.buf<4x8xf32, reg>"
    with pytest.raises(ValueError, match="dynamic dimensions"):
        t.strides()
    m = parse(ctx, f"func.func private @f({s}, {t}, {r})")
    assert print_module(m).count("!mapped.buf<3x128x32xf16, shared, swizzle<3, 4, 3>>") == 1


def test_swizzle_matches_formula_on_8x64_f16_tile():
    sw = M.SwizzleAttr(3, 4, 3)
    t = M.BufType([8, 64], f16, "shared", sw)
    assert (sw.chunk_bytes, sw.span_bytes, sw.period_bytes) == (16, 128, 1024)
    seen = set()
    for r in range(8):
        for c in range(64):
            off = (r * 64 + c) * 2
            expected = off ^ (((off >> (4 + 3)) & ((1 << 3) - 1)) << 4)
            assert t.swizzled_offset(off) == expected == sw.apply(off)
            assert t.byte_offset([r, c]) == expected
            seen.add(expected)
    assert seen == set(range(0, 1024, 2))  # a bijection on the tile's element offsets
    # Every byte offset of the 1024-byte period, too; 16-byte chunks move as a whole.
    assert sorted(sw.apply(o) for o in range(1024)) == list(range(1024))
    for o in range(0, 1024, 16):
        assert [sw.apply(o + i) for i in range(16)] == [sw.apply(o) + i for i in range(16)]
    # ldmatrix reads 8 rows x 16 bytes at one column: the 8 chunks land in 8 different bank groups.
    for col_chunk in range(8):
        chunks = {(t.byte_offset([r, col_chunk * 8]) % 128) // 16 for r in range(8)}
        assert len(chunks) == 8


def test_swizzle_is_bijective_per_period_and_slot():
    t = M.BufType([3, 128, 32], f16, "shared", M.SwizzleAttr(3, 4, 3))
    total = t.size_bytes()
    for base in range(0, total, 1024):
        assert sorted(t.swizzled_offset(o) for o in range(base, base + 1024)) == list(range(base, base + 1024))
    # Each stage slot swizzles exactly like slot 0.
    slot = 128 * 32 * 2
    for o in range(0, slot, 6):
        assert t.swizzled_offset(2 * slot + o) == 2 * slot + t.swizzled_offset(o)


def test_frag_type_helpers(ctx):
    a = M.FragType([64, 16], f16, "a", "m16n8k16")
    b = M.FragType([16, 32], f16, "b", "m16n8k16")
    c = M.FragType([64, 32], f32, "acc", "m16n8k16")
    h = M.FragType([16, 8], f16, "acc", "m16n8k16")
    assert str(c) == "!mapped.frag<64x32xf32, acc, m16n8k16>"
    assert a.instr_tile() == (16, 16) and b.instr_tile() == (16, 8) and c.instr_tile() == (16, 8)
    assert a.tile_counts() == (4, 1) and b.tile_counts() == (1, 4) and c.tile_counts() == (4, 4)
    assert (a.regs_per_tile(), b.regs_per_tile(), c.regs_per_tile(), h.regs_per_tile()) == (4, 2, 4, 2)
    assert a.regs_per_lane() == 16 and b.regs_per_lane() == 8 and c.regs_per_lane() == 64
    assert c.elements_per_lane() == 64 * 32 // 32
    tf = M.FragType([16, 8], f32, "a", "m16n8k8")
    assert tf.regs_per_tile() == 4 and tf.lanes == 32
    amd_a = M.FragType([32, 8], f16, "a", "m32n32k8")
    amd_c = M.FragType([32, 32], f32, "acc", "m32n32k8")
    assert amd_a.lanes == 64 and amd_a.regs_per_tile() == 2 and amd_c.regs_per_tile() == 16
    amd16 = M.FragType([16, 16], f32, "acc", "m16n16k16")
    assert amd16.regs_per_tile() == 4
    parse(ctx, f"func.func private @f({a}, {b}, {c}, {amd_c})")


def test_grid_attr_build_parse_and_evaluate(ctx):
    g = M.GridAttr(
        [
            [M.GridFactor.cdiv([(2, 1)], 128)],
            [M.GridFactor.cdiv([(2, 0), (3, None)], 128), 2],
            [1],
        ]
    )
    text = "#mapped.grid<[cdiv(arg2:1, 128), cdiv(arg2:0 * arg3, 128) * 2, 1]>"
    assert str(g) == text
    m = parse(ctx, f"func.func private @f() attributes {{g = {text}}}")
    assert text in print_module(m)
    # args: two unused, C of shape 1000x300, a scalar 3
    assert g.evaluate([None, None, (1000, 300), 3]) == (3, 2 * 24, 1)
    assert g.factors()[1][0] == M.GridFactor(terms=((2, 0), (3, None)), tile=128)


def test_dist_attr(ctx):
    d = M.DistAttr([8, 16], 8)
    assert str(d) == "#mapped.dist<threads = [8, 16], vector = 8>"
    assert d.thread_grid() == (8, 16) and d.num_threads() == 128
    parse(ctx, f"func.func private @f() attributes {{d = {d}}}")


# --- ops built in Python ------------------------------------------------------------------------


def _const(block: Block, v: int):
    op = arith.ConstantOp(IntegerAttr(v, IndexType()))
    block.add_op(op)
    return op.result


def test_build_gpu_kernel_in_python(ctx):
    gA = M.BufType([DYNAMIC, DYNAMIC], f16, "global")
    gC = M.BufType([DYNAMIC, DYNAMIC], f32, "global")
    sA_t = M.BufType([3, 64, 64], f16, "shared", M.SwizzleAttr(3, 4, 3))
    fa = M.FragType([64, 16], f16, "a")
    fb = M.FragType([16, 32], f16, "b")
    fc = M.FragType([64, 32], f32, "acc")
    k = M.KernelOp(
        "gemm",
        [gA, gC, IndexType()],
        "gpu",
        grid=[[M.GridFactor.cdiv([(1, 1)], 32)], [M.GridFactor.cdiv([(1, 0)], 64)], [1]],
        block=[128, 1, 1],
        smem=sA_t.size_bytes(),
    )
    A, C, n = k.args
    blk = k.body.block
    c0, c1, c16 = _const(blk, 0), _const(blk, 1), _const(blk, 16)
    K = M.DimOp(A, 1)
    sA = M.AllocOp(sA_t)
    bx, w, lane, wg = M.BlockIdOp("x"), M.WarpIdOp(), M.LaneIdOp(), M.WarpgroupIdOp()
    tid, bdim, gdim = M.ThreadIdOp("y"), M.BlockDimOp("x"), M.GridDimOp("z")
    z = M.FragFillOp(0.0, fc)
    for op in (K, sA, bx, w, lane, wg, tid, bdim, gdim, z):
        blk.add_op(op)

    pipe = M.PipelineOp(c0, K.result, c16, 3, [z.result])
    pk, pslot = pipe.produce.block.args
    pipe.produce.block.add_ops(
        [
            M.AsyncCopyOp(A, [bx.result, pk], sA.result, [pslot, c0, c0], [64, 64], M.DistAttr([16, 8], 8)),
            M.AsyncCommitOp(),
            M.YieldOp(),
        ]
    )
    ck, cslot, acc = pipe.consume.block.args
    la = M.FragLoadOp(sA.result, [cslot, c0, c0], fa)
    lb = M.FragLoadOp(sA.result, [cslot, c0, c0], fb, transposed=True)
    mma = M.MmaOp(la.result, lb.result, acc)
    pipe.consume.block.add_ops([M.AsyncWaitOp(1), M.BarrierOp(), la, lb, mma, M.YieldOp(mma.result)])
    blk.add_op(pipe)

    epi = Block(arg_types=[f32, IndexType(), IndexType()])
    ex = arith.AddfOp(epi.args[0], epi.args[0])
    epi.add_ops([ex, M.YieldOp(ex.result)])
    blk.add_op(M.FragStoreOp(pipe.res[0], C, [c0, c0], Region(epi)))
    blk.add_op(M.FragStoreOp(pipe.res[0], C, [c0, c16]))

    par = M.ParallelOp([c0], [n], [c1], "warps")
    x = M.LoadOp(C, [c0, c0])
    red = M.ReduceOp("max", x.result, "warp")
    par.body.block.insert_ops_before([x, red, M.BarrierOp("warp")], par.body.block.last_op)
    blk.add_op(par)
    v = M.LoadOp(A, [c0, c0], VectorType(f16, [8]))
    blk.add_ops([v, M.StoreOp(v.result, A, [c1, c0]), M.CopyOp(A, [c0, c0], A, [c1, c1], [4, 8]), M.ReturnOp()])

    module = ModuleOp([k])
    verify_module(module)
    text = print_module(module)
    assert "target gpu grid [cdiv(%1:1, 32), cdiv(%1:0, 64), 1] block [128, 1, 1] smem 24576" in text
    assert roundtrip(ctx, text) == text
    assert k.shared_bytes_used() == 24576 and k.block_threads == 128 and k.wave_size == 32
    assert la.stored_shape() == (64, 16) and lb.stored_shape() == (32, 16)


def test_build_cpu_kernel_in_python(ctx):
    g = M.BufType([DYNAMIC], f32, "global")
    k = M.KernelOp("saxpy", [g, f32, IndexType()], "cpu")
    X, a, n = k.args
    blk = k.body.block
    c0, c1 = _const(blk, 0), _const(blk, 1)
    par = M.ParallelOp([c0], [n], [c1], "cores")
    (i,) = par.induction_vars
    ld = M.LoadOp(X, [i])
    mul = arith.MulfOp(ld.result, a)
    par.body.block.insert_ops_before([ld, mul, M.StoreOp(mul.result, X, [i])], par.body.block.last_op)
    reg = M.AllocOp(M.BufType([8], f32, "reg"))
    blk.add_ops([par, reg, M.CopyOp(X, [c0], reg.result, [c0], [8]), M.ReturnOp()])
    module = ModuleOp([k])
    verify_module(module)
    text = print_module(module)
    assert "mapped.kernel @saxpy(%0: !mapped.buf<?xf32, global>, %1: f32, %2: index) target cpu {" in text
    assert "on cores" in text
    roundtrip(ctx, text)


# --- text round trips ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ROUNDTRIP_FILES)
def test_lit_roundtrip_file(ctx, name):
    text = (LIT_DIR / f"{name}.mlir").read_text()
    out = roundtrip(ctx, text)
    assert "mapped." in out


def test_roundtrip_small_snippets(ctx):
    snippets = [
        kernel("  %w = mapped.warp_id", "target gpu grid [1, 1, 1] block [64, 1, 1] wave 64"),
        kernel("  mapped.barrier warp\n  mapped.async_commit\n  mapped.async_wait 2"),
        kernel(
            "  %r = mapped.reduce prod %x across block : f64",
            args="%x: f64",
        ),
    ]
    for s in snippets:
        out = roundtrip(ctx, s)
        assert out.strip().startswith("builtin.module")


# --- verifier errors from the lit error files, run in-process -----------------------------------

_EXPECTED = re.compile(r"expected-error\s*(?:@([+-]\d+))?\s*\{\{(.*)\}\}")


def _chunks(path: Path):
    """(first line number - 1, chunk text, {line: expected substring}) for each `// -----` chunk."""
    lines = path.read_text().split("\n")
    out, start, cur = [], 0, []
    for i, line in enumerate(lines + ["// -----"]):
        if line.startswith("// -----"):
            text = "\n".join(cur)
            expected = {}
            for j, cl in enumerate(cur):
                m = _EXPECTED.search(cl)
                if m:
                    expected[start + j + 1 + int(m.group(1) or 0)] = m.group(2)
            out.append((start, text, expected))
            start, cur = i + 1, []
        else:
            cur.append(line)
    return out


ERROR_CASES = [
    pytest.param(path, off, text, expected, id=f"{path.stem}:{off + 1}")
    for path in ERROR_FILES
    for off, text, expected in _chunks(path)
]


@pytest.mark.parametrize("path,offset,text,expected", ERROR_CASES)
def test_lit_error_case(ctx, path, offset, text, expected):
    assert len(expected) == 1, "each error chunk expects exactly one error"
    ((line, message),) = expected.items()
    with pytest.raises(TilecError) as info:
        m = parse_module(ctx, text, path.name, offset)
        verify_module(m)
    err = info.value
    assert message in err.message
    assert err.location is not None and err.location.line == line, err.render()
    assert str(err).startswith(f"{path.name}:{line}:")


def test_error_files_cover_each_group():
    stems = {p.stem for p in ERROR_FILES}
    assert stems == {f"{n}-errors" for n in ROUNDTRIP_FILES}


# --- errors only reachable from Python ----------------------------------------------------------


def _verify_op_error(op, message: str):
    with pytest.raises(VerifyException, match=re.escape(message)):
        op.verify()


PY_ERRORS = {
    "unknown memory space 'local' (expected global, shared or reg)": lambda: M.BufType([4], f32, "local"),
    "unknown fragment role 'c' (expected a, b, acc or row)": lambda: M.FragType([16, 16], f16, "c"),
    "unknown instruction shape 'm8n8k4'": lambda: M.FragType([16, 16], f16, "a", "m8n8k4"),
    "mapped.grid: malformed factor encoding [128, 0]": lambda: M.GridAttr.new(
        [ArrayAttr([ArrayAttr([ArrayAttr([IntAttr(128), IntAttr(0)])])] * 3)]
    ),
    "mapped.grid: an extent needs at least one factor": lambda: M.GridAttr([[], [1], [1]]),
    "mapped.grid: a grid has 3 extents (x, y, z), got 2": lambda: M.GridAttr([[1], [1]]),
    "mapped.swizzle: swizzle<3, 4, 1> is not a bijection": lambda: M.SwizzleAttr(3, 4, 1),
    "mapped.dist: vector must be a power of two, got 3": lambda: M.DistAttr([32], 3),
    "wgmma reads a and b from shared memory (mapped.wgmma): only acc fragments have the wgmma layout": lambda: (
        M.FragType([64, 64], f16, "a", "wgmma")
    ),
}


@pytest.mark.parametrize("message", list(PY_ERRORS))
def test_python_only_type_errors(message):
    with pytest.raises(VerifyException, match=re.escape(message)):
        PY_ERRORS[message]()


def test_op_errors_outside_kernel():
    _verify_op_error(M.LaneIdOp(), "lane_id: must be inside a mapped.kernel with target gpu")
    _verify_op_error(M.BarrierOp(), "barrier: must be inside a mapped.kernel with target gpu")


# --- documentation ------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", list(M.Mapped.operations) + list(M.Mapped.attributes), ids=lambda c: c.name)
def test_docstrings_have_summary_and_example(cls):
    doc = cls.__doc__ or ""
    first = doc.strip().split("\n")[0]
    assert first and first.endswith("."), f"{cls.__name__}: one-line summary missing"
    short = cls.name.split(".", 1)[1]
    # an example block as docs/dialects renders it (indented, or a paragraph of IR)
    from tilec.tools import gendocs

    rendered = gendocs._render_rest(gendocs._doc_parts(cls)[1])
    assert re.search(rf"```mlir\n(.*\n)*.*{re.escape(short)}", rendered), f"{cls.__name__}: no example"


def test_every_op_and_type_is_registered():
    ops = {cls.name for cls in M.Mapped.operations}
    assert len(ops) == 45
    assert {"mapped.kernel", "mapped.pipeline", "mapped.mma", "mapped.frag_store", "mapped.reduce"} <= ops
    attrs = {cls.name for cls in M.Mapped.attributes}
    assert attrs == {"mapped.buf", "mapped.frag", "mapped.swizzle", "mapped.grid", "mapped.dist"}


# --- every message written in mapped.py is exercised --------------------------------------------


def _message_literals() -> list[str]:
    """The longest literal piece of each error message in tilec/dialects/mapped.py."""
    tree = ast.parse((ROOT / "tilec" / "dialects" / "mapped.py").read_text())
    pieces: list[str] = []

    def literal(node) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr):
            parts = [v.value for v in node.values if isinstance(v, ast.Constant)]
            return max(parts, key=len) if parts else None
        if isinstance(node, ast.BinOp):  # implicit concatenation inside parentheses
            return literal(node.left)
        return None

    for node in ast.walk(tree):
        msg = None
        if isinstance(node, ast.Call) and node.args:
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name in ("error", "raise_error", "VerifyException", "op_error"):
                msg = literal(node.args[0] if name != "op_error" else node.args[1])
        elif isinstance(node, ast.FunctionDef) and node.name.endswith("_problem"):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Return) and sub.value is not None:
                    m = literal(sub.value)
                    if m:
                        pieces.append(m.strip())
        if msg:
            pieces.append(msg.strip())
    return [p for p in pieces if len(p) >= 6 and p not in ("mapped.buf: ", "mapped.frag: ", "mapped.dist: ")]


def test_every_error_message_is_triggered():
    expected = [e for _, _, exp in (c for p in ERROR_FILES for c in _chunks(p)) for e in exp.values()]
    expected += list(PY_ERRORS)
    expected += ["must be inside a mapped.kernel with target gpu"]
    corpus = "\n".join(expected)
    missing = [p for p in _message_literals() if p not in corpus]
    assert not missing, f"error messages never triggered by a test: {missing}"
