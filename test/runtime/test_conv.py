"""Convolutions (tilec.conv, conv_transpose, conv_backward_input / _weight): the interpreter and the
compiled targets against torch.nn.functional / torch.autograd on fresh random inputs with awkward
shapes (odd and prime sizes, stride 2, dilation 2, padding 'same', asymmetric and cropping padding,
groups, depthwise, channels_last); the epilogue (bias + residual + relu) fused into the
convolution's kernel; located errors for bad arguments; the generic GPU kernel assembled by ptxas,
compiled by hipcc, run in the HIP emulator (test_hip_emulated.py's) and, with a GPU, on CUDA.

torch (CPU) is the reference; it is in pyproject's `test` extra."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest
from cpu_util import rand, rng, run_benchmark  # noqa: F401
from gpu_util import HAVE_GPU, cp
from test_frontend_util import expect_error

import tilec
from tilec import float16, float32, float64, tile_op
from tilec.toolchain.hipcc import find_hipcc

torch = pytest.importorskip("torch")
F = torch.nn.functional

CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def expect(marker: str, *phrases: str):
    return expect_error(__file__, marker, *phrases)


def to_torch(a: np.ndarray, last: bool):
    t = torch.from_numpy(np.ascontiguousarray(a.astype(np.float64)))
    return torch.movedim(t, -1, 1) if last else t


def from_torch(t, last: bool) -> np.ndarray:
    return (torch.movedim(t, 1, -1) if last else t).detach().numpy()


def torch_conv(x, w, last=False, **kw) -> np.ndarray:
    """torch's convolution in float64 (the inputs are exact there); (lo, hi) padding pairs, which
    torch's convolutions do not take, pad the input first."""
    d = x.ndim - 2
    tx = to_torch(x, last)
    pad = kw.get("padding")
    if isinstance(pad, tuple) and any(isinstance(p, tuple) for p in pad):
        tx = F.pad(tx, [v for p in reversed(pad) for v in p])
        kw = {**kw, "padding": 0}
    return from_torch(CONV[d](tx, to_torch(w, last), **kw), last)


def conv_op(dtype=float32, **kw):
    @tile_op(dtype=dtype)
    def f(x, w):
        return tilec.conv(x, w, **kw)

    return f


def tol(dtype, k: int):
    """Tolerance of a length-k dot product of values in [-2, 2) accumulated in f32 (or f64)."""
    if dtype is float64:
        return 1e-11 * k
    if dtype is float16:
        return 4e-3 * k**0.5 + 2e-2
    return 4e-6 * k


# (x shape, w shape, kwargs): channels-first shapes; channels_last cases move the channel axis last
CASES = [
    ((2, 3, 17), (5, 3, 4), dict(padding="same", dilation=2)),
    ((1, 4, 13), (6, 2, 3), dict(stride=2, padding=(2,), groups=2)),
    ((2, 6, 13, 11), (4, 3, 3, 3), dict(stride=2, padding=1, groups=2)),
    ((1, 5, 9, 7), (5, 1, 3, 3), dict(padding="same", groups=5)),  # depthwise
    ((3, 2, 7, 8), (3, 2, 2, 3), dict(stride=(2, 1), padding=((1, 0), (2, 1)), dilation=(1, 2))),
    ((1, 1, 1, 1), (1, 1, 1, 1), {}),
    ((2, 6, 7, 4, 5), (6, 2, 3, 2, 1), dict(stride=(1, 2, 1), padding=(1, 0, 2), dilation=(2, 1, 1), groups=3)),
]


def move_last(shape):
    return (shape[0], *shape[2:], shape[1])


@pytest.mark.parametrize("last", [False, True], ids=["nchw", "nhwc"])
@pytest.mark.parametrize("xs,ws,kw", CASES)
def test_interpreter_vs_torch(rng, xs, ws, kw, last):
    if last:
        xs, ws = move_last(xs), move_last(ws)
    x, w = rand(rng, xs), rand(rng, ws)
    layout = "channels_last" if last else "channels_first"
    got = tilec.interpret(conv_op(layout=layout, **kw), x, w)
    want = torch_conv(x, w, last, **kw)
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=tol(float32, int(np.prod(ws[1:]))))


def test_f16_accumulates_in_f32(rng):
    """f16 in, f32 accumulation; `.astype(float32)` reads the accumulator without an f16 rounding."""

    @tile_op(dtype=float16)
    def f(x, w):
        return tilec.conv(x, w, padding=1).astype(float32)

    x, w = rand(rng, (2, 8, 6, 5), float16), rand(rng, (3, 8, 3, 3), float16)
    got = tilec.interpret(f, x, w)
    want = torch_conv(x, w, padding=1)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=0, atol=tol(float32, 72))
    assert "acc f32" in f.ir("tile", x, w) and "-> !tile.tile<2x3x6x5xf32>" in f.ir("tile", x, w)


# --- compiled: C ---------------------------------------------------------------------------------

C_CASES = [CASES[0], CASES[2], CASES[3], CASES[4], CASES[6]]


@pytest.mark.parametrize("last", [False, True], ids=["nchw", "nhwc"])
@pytest.mark.parametrize("xs,ws,kw", C_CASES)
def test_c_vs_torch(rng, xs, ws, kw, last):
    if last:
        xs, ws = move_last(xs), move_last(ws)
    x, w = rand(rng, xs), rand(rng, ws)
    op = conv_op(layout="channels_last" if last else "channels_first", **kw)
    got = op(x, w)
    want = torch_conv(x, w, last, **kw)
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=tol(float32, int(np.prod(ws[1:]))))


@pytest.mark.parametrize(
    "xs,ws,kw,last",
    [
        ((2, 7, 5, 100), (3, 3, 3, 100), dict(padding=1), True),  # runs of 100 channels, K blocks of 200 (last partial)
        ((1, 9, 260), (5, 3, 260), dict(stride=2), True),  # C/G > 256: element by element
        ((1, 260, 9), (5, 260, 3), dict(stride=2), False),  # the same in channels_first
        ((1, 3, 310), (4, 3, 300), dict(padding=2), False),  # runs of 3 channels, 300 kernel positions
        ((2, 40, 6, 6), (7, 40, 3, 3), dict(padding=1, stride=2), False),  # runs of 40 channels, K blocks of 240
    ],
)
def test_c_packing_blocks(rng, xs, ws, kw, last):
    """The CPU kernel packs A per task and K block in runs (the C/G channels of one kernel position,
    in both layouts) when they fit a block, else element by element; several K blocks, a partial
    last one."""
    x, w = rand(rng, xs), rand(rng, ws)
    got = conv_op(layout="channels_last" if last else "channels_first", **kw)(x, w)
    want = torch_conv(x, w, last, **kw)
    np.testing.assert_allclose(got, want, rtol=0, atol=tol(float32, int(np.prod(ws[1:]))))


@pytest.mark.parametrize("dtype", [float16, float64])
def test_c_other_dtypes(rng, dtype):
    xs, ws, kw = (2, 4, 11, 6), (6, 2, 3, 2), dict(stride=2, padding="valid", dilation=(1, 2), groups=2)
    x, w = rand(rng, xs, dtype), rand(rng, ws, dtype)
    op = conv_op(dtype, **kw)
    got = op(x, w)
    want = torch_conv(x, w, **kw)
    assert got.dtype == dtype.np
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=0, atol=tol(dtype, 12))
    np.testing.assert_allclose(
        got.astype(np.float64), tilec.interpret(op, x, w).astype(np.float64), atol=tol(dtype, 12)
    )


def kernels(op, *arrays, target="cpu") -> int:
    return op.ir("mapped", *arrays, target=target).count("mapped.kernel @")


def test_epilogue_fuses_into_one_kernel(rng):
    """bias + residual + relu after the convolution run in its epilogue: one kernel, on every target."""

    @tile_op(dtype=float32)
    def block(x, w, b, r):
        y = tilec.conv(x, w, stride=2, padding=1, layout="channels_last")
        return tilec.maximum(y + b + r, 0.0)

    x, w = rand(rng, (2, 9, 7, 5)), rand(rng, (6, 3, 3, 5))
    b, r = rand(rng, (6,)), rand(rng, (2, 5, 4, 6))
    for target in ("cpu", "cuda", "hip"):
        assert kernels(block, x, w, b, r, target=target) == 1, target
    got = block(x, w, b, r)
    want = np.maximum(torch_conv(x, w, True, stride=2, padding=1) + b + r, 0.0)
    np.testing.assert_allclose(got, want, rtol=0, atol=tol(float32, 45))


# --- transposed and backward convolutions ----------------------------------------------------------

CONV_T = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


def _check_strided_form(op, args, d: int, kw: dict) -> None:
    """The traced IR is one convolution of the input dilated by the stride; on the CPU, with a
    stride and dilation 1, tile-conv-phases makes it one convolution per phase of the stride that
    some tap reaches (no products with the dilation's zeros)."""
    stride = np.broadcast_to(kw.get("stride", 1), d)
    assert "lhs_dilation [" + ", ".join(map(str, stride)) + "]" in op.ir("tile", *args)
    kernels = re.findall(r"mapped\.kernel @\w+_(\w+?)\(", op.ir("mapped", *args))
    convs = kernels.count("contraction")
    if stride.max() > 1 and np.all(np.broadcast_to(kw.get("dilation", 1), d) == 1):
        assert 1 <= convs <= stride.prod(), kernels
    else:
        assert convs == 1, kernels


T_CASES = [
    ((2, 4, 7), (4, 3, 3), dict(stride=2, padding=1, output_padding=1), False),
    ((1, 6, 5, 6), (6, 2, 3, 2), dict(stride=(2, 3), padding=(1, 0), groups=3, dilation=(2, 1)), False),
    ((1, 5, 6, 6), (6, 2, 3, 3), dict(stride=2, groups=2), True),
    ((2, 3, 4, 3, 5), (3, 2, 3, 2, 2), dict(stride=(1, 2, 2), padding=(2, 0, 1), output_padding=(0, 1, 0)), False),
]


@pytest.mark.parametrize("xs,ws,kw,last", T_CASES)
def test_conv_transpose_vs_torch(rng, xs, ws, kw, last):
    """Interpreter and C (float64: exact up to summation order) against torch's conv_transpose."""
    x, w = rand(rng, xs, float64), rand(rng, ws, float64)

    @tile_op(dtype=float64)
    def f(x, w):
        return tilec.conv_transpose(x, w, layout="channels_last" if last else "channels_first", **kw)

    want = from_torch(CONV_T[len(xs) - 2](to_torch(x, last), to_torch(w, last), **kw), last)
    _check_strided_form(f, (x, w), len(xs) - 2, kw)
    for got in (tilec.interpret(f, x, w), f(x, w)):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-10)


B_CASES = [
    ((2, 4, 9), (6, 2, 3), dict(stride=2, padding=1, groups=2), False),
    ((2, 3, 8, 7), (4, 3, 3, 2), dict(stride=2, dilation=(2, 1), padding=(2, 1)), False),
    ((1, 4, 7, 7), (4, 1, 3, 3), dict(padding="same", groups=4), False),  # depthwise
    ((2, 7, 7, 4), (4, 3, 3, 1), dict(stride=2, padding=1, groups=4), True),  # depthwise, channels last
    ((2, 6, 5, 6), (6, 2, 2, 3), dict(stride=(2, 1), dilation=(1, 2), groups=2), True),
    ((1, 2, 5, 4, 3), (3, 2, 2, 3, 1), dict(stride=(2, 1, 1), padding=(1, 1, 0), dilation=(1, 1, 2)), False),
    # strides by phases: a 1-tap axis of stride 3 (two phases get zeros), sizes not multiples of the stride
    ((2, 10, 9, 5), (4, 1, 3, 5), dict(stride=3, padding=(0, 2)), True),
    ((3, 2, 13), (3, 2, 5), dict(stride=2, padding=4), False),
    ((1, 9, 8, 6, 4), (8, 3, 2, 3, 4), dict(stride=(2, 3, 2), padding=1), True),
    # 1x1 channels-last, stride 1, unpadded: the weight gradient is one GEMM dy^T x (1-, 2- and 3-d)
    ((3, 5, 7, 13), (9, 1, 1, 13), dict(), True),
    ((2, 11, 6), (5, 1, 6), dict(padding="same"), True),
    ((1, 2, 3, 1, 4), (7, 1, 1, 1, 4), dict(dilation=2), True),
]


@pytest.mark.parametrize("xs,ws,kw,last", B_CASES)
def test_backward_helpers_vs_autograd(rng, xs, ws, kw, last):
    """conv_backward_input / conv_backward_weight against torch.autograd.grad of the convolution,
    interpreted and compiled for the CPU (float64)."""
    x, w = rand(rng, xs, float64), rand(rng, ws, float64)
    tx, tw = to_torch(x, last).requires_grad_(), to_torch(w, last).requires_grad_()
    y = CONV[len(xs) - 2](tx, tw, **kw)
    dy = torch.from_numpy(rng.standard_normal(tuple(y.shape)))
    gx, gw = torch.autograd.grad(y, (tx, tw), dy)
    dyn = np.ascontiguousarray(from_torch(dy, last))
    layout = "channels_last" if last else "channels_first"

    @tile_op(dtype=float64)
    def grad_input(dy, w):
        return tilec.conv_backward_input(dy, w, xs, layout=layout, **kw)

    @tile_op(dtype=float64)
    def grad_weight(x, dy):
        return tilec.conv_backward_weight(x, dy, ws, layout=layout, **kw)

    pointwise = last and all(k == 1 for k in ws[1:-1]) and not kw.get("groups") and not kw.get("stride")
    assert ("tile.contract" in grad_weight.ir("tile", x, dyn)) == pointwise
    _check_strided_form(grad_input, (dyn, w), len(xs) - 2, kw)
    for op, args, want in ((grad_input, (dyn, w), gx), (grad_weight, (x, dyn), gw)):
        want = from_torch(want, last)
        for got in (tilec.interpret(op, *args), op(*args)):
            assert got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


# --- errors --------------------------------------------------------------------------------------


def test_errors_are_located(rng):
    @tile_op(dtype=float32)
    def bad_groups(x, w):
        return tilec.conv(x, w, groups=4)  # E:groups

    @tile_op(dtype=float32)
    def too_small(x, w):
        return tilec.conv(x, w, dilation=3)  # E:small

    @tile_op(dtype=float32)
    def same_strided(x, w):
        return tilec.conv(x, w, stride=2, padding="same")  # E:same

    @tile_op(dtype=float32)
    def bad_padding(x, w):
        return tilec.conv(x, w, padding=(1, 2))  # E:padding

    @tile_op(dtype=float32)
    def bad_layout(x, w):
        return tilec.conv(x, w, layout="NHWC")  # E:layout

    @tile_op(dtype=float32)
    def bad_rank(x, w):
        return tilec.conv(x, w)  # E:rank

    @tile_op(dtype=float32)
    def bad_output_padding(x, w):
        return tilec.conv_transpose(x, w, stride=2, output_padding=2)  # E:output-padding

    @tile_op(dtype=float32)
    def bad_dy(dy, w):
        return tilec.conv_backward_input(dy, w, (1, 6, 5, 5))  # E:dy-shape

    x, w = np.zeros((1, 6, 5, 5), np.float32), np.zeros((4, 6, 3, 3), np.float32)
    with expect("groups", "tilec.conv: input channels (6) are not divisible by groups (4)"):
        bad_groups(x, w)
    with expect("small", "tilec.conv: spatial axis 0: output size -1 < 1"):
        too_small(x, w)
    with expect("same", "padding='same' needs stride 1"):
        same_strided(x, w)
    with expect("padding", "padding needs one entry per spatial axis (1), got (1, 2)"):
        bad_padding(x[:, :, 0], w[:, :, 0])
    with expect("layout", "layout must be 'channels_first' or 'channels_last'"):
        bad_layout(x, w)
    with expect("output-padding", "output_padding must be smaller than stride or dilation"):
        bad_output_padding(x, w)
    with expect(
        "dy-shape", "dy has shape (1, 4, 5, 5), but the convolution of (1, 6, 5, 5) by (4, 6, 3, 3) gives (1, 4, 3, 3)"
    ):
        bad_dy(np.zeros((1, 4, 5, 5), np.float32), w)
    with expect("rank", "the input must have rank 3 to 5"):
        bad_rank(np.zeros((4, 5), np.float32), np.zeros((4, 5), np.float32))


def test_integer_convolution_compiled_is_not_supported_yet(rng):
    op = conv_op(tilec.int32)
    x, w = rand(rng, (1, 2, 6), tilec.int32), rand(rng, (3, 2, 3), tilec.int32)
    want = torch_conv(x, w).astype(np.int64)
    np.testing.assert_array_equal(tilec.interpret(op, x, w), want)
    with pytest.raises(tilec.TilecError, match="not supported yet: compiled integer convolutions"):
        op(x, w)


# --- GPU: PTX assembled, HIP compiled, run on an NVIDIA GPU when there is one ----------------------


def _gpu_programs():
    @tile_op(dtype=float16)
    def conv_f16(x, w, b):
        return tilec.maximum(tilec.conv(x, w, stride=2, padding=1, groups=2, layout="channels_last") + b, 0.0)

    @tile_op(dtype=float32)
    def conv_f32(x, w):
        return tilec.conv(x, w, padding="same", dilation=(2, 1, 1))

    return [
        (
            "f16_nhwc_groups",
            conv_f16,
            (np.zeros((2, 9, 9, 8), np.float16), np.zeros((6, 3, 3, 4), np.float16), np.zeros(6, np.float16)),
        ),
        ("f32_3d_same", conv_f32, (np.zeros((1, 3, 5, 4, 6), np.float32), np.zeros((4, 3, 3, 2, 3), np.float32))),
    ]


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
@pytest.mark.parametrize("name,op,arrays", _gpu_programs(), ids=lambda p: p if isinstance(p, str) else "")
@pytest.mark.parametrize("sm", ["sm_90a", "sm_80"])
def test_ptx_assembles(name, op, arrays, sm, tmp_path):
    path = tmp_path / f"{name}.ptx"
    path.write_text(op.source("cuda", *arrays, sm=sm))
    r = subprocess.run(
        ["ptxas", f"-arch={sm}", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr


@pytest.mark.skipif(find_hipcc() is None, reason="hipcc is not installed (apt-get install hipcc)")
@pytest.mark.parametrize("name,op,arrays", _gpu_programs(), ids=lambda p: p if isinstance(p, str) else "")
def test_hip_compiles(name, op, arrays):
    op.compile("hip", *arrays)


@pytest.mark.skipif(find_hipcc() is None, reason="hipcc (and its clang++) is not installed: no HIP emulator")
@pytest.mark.parametrize("dtype", [float32, float16])
def test_gpu_kernel_in_the_hip_emulator(rng, dtype):
    """The generic GPU kernel (the SIMT implicit GEMM, shared by CUDA and HIP) run on the CPU by
    test_hip_emulated's emulator: grouped channels-last conv + bias + residual + relu, and a 3-d
    transposed convolution (lhs_dilation, cropping padding), against the interpreter."""
    from test_hip_emulated import CLANGXX, emulate

    if CLANGXX is None:
        pytest.skip("hipcc's clang++ is missing: the HIP emulator cannot compile kernels")

    @tile_op(dtype=dtype)
    def block(x, w, b, r):
        return tilec.maximum(tilec.conv(x, w, stride=2, padding=1, groups=2, layout="channels_last") + b + r, 0.0)

    @tile_op(dtype=dtype)
    def up(x, w):
        return tilec.conv_transpose(x, w, stride=2, padding=1, output_padding=1, dilation=(1, 2, 1))

    cases = [
        (
            block,
            (
                rand(rng, (2, 9, 7, 6), dtype),
                rand(rng, (4, 3, 3, 3), dtype),
                rand(rng, (4,), dtype),
                rand(rng, (2, 5, 4, 4), dtype),
            ),
        ),
        (up, (rand(rng, (1, 4, 3, 4, 3), dtype), rand(rng, (4, 3, 2, 3, 2), dtype))),
    ]
    for op, arrays in cases:
        got, want = emulate(op, *arrays), tilec.interpret(op, *arrays)
        assert got.dtype == want.dtype and got.shape == want.shape
        # f16: the kernel keeps the epilogue in f32, the interpreter rounds after each op (a few ulp)
        rtol = 1e-2 if dtype is float16 else 0
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=tol(dtype, 27))


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
@pytest.mark.parametrize("xs,ws,kw", [CASES[2], CASES[3], CASES[6]])
@pytest.mark.parametrize("dtype", [float32, float16])
def test_gpu_vs_torch(rng, xs, ws, kw, dtype):
    x, w = rand(rng, xs, dtype), rand(rng, ws, dtype)
    got = cp.asnumpy(conv_op(dtype, **kw)(cp.asarray(x), cp.asarray(w)))
    want = torch_conv(x, w, **kw)
    assert got.dtype == dtype.np
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=0, atol=tol(dtype, int(np.prod(ws[1:]))))


def test_cpu_benchmark_quick():
    """benchmarks/conv_cpu.py runs (one small shape, results checked against torch inside)."""
    out = run_benchmark("conv_cpu.py", "--quick", "--threads", "1")
    assert out.count("x** |") == 2, out
