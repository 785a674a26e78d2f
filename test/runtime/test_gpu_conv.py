"""GPU convolutions (tilec/conversion/tile_to_mapped/conv_gpu.py) against torch on random awkward
shapes: odd spatial sizes, stride 2, dilation 2, padding "same", channel counts that are not
multiples of 64 or of 8 (ResNet's stem, C = 3), grouped and depthwise, 1-3 spatial axes, the
bias + residual + relu epilogue.

Three ways, so most of it runs without a GPU:
- `run`: on an NVIDIA GPU through CuPy (marked `gpu`; skips, saying so, without one);
- `emulated`: the HIP kernels (the same kernels: implicit GEMMs, MFMA instead of mma.sync, the
  direct kernel of grouped convs with few channels per group, and the
  same window index math: GpuKernelLowering.window_chunks) on the CPU through test_hip_emulated's
  emulator (skips without hipcc's clang++, fails in CI where it is installed);
- PTX: every kernel assembles with ptxas for sm_80 and sm_90a, and the tensor-core one is an
  implicit GEMM: cp.async + mma.sync, and its only global buffers are x, w and y (no im2col buffer).
References: torch.nn.functional.conv{1,2,3}d in float64 on the CPU. Tolerances as test_gpu.py.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest
from gpu_util import HAVE_GPU, cp

import tilec
from tilec import bfloat16, float16, float32, tile_op
from tilec.emit.ptx import emit_ptx
from tilec.runtime import lower
from tilec.transforms.tile_conv_unfold import unfolded_channels

torch = pytest.importorskip("torch")
F = torch.nn.functional

needs_gpu = pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")
PTXAS = shutil.which("ptxas")

SEED = int(os.environ.get("TILEC_TEST_SEED", np.random.SeedSequence().entropy % 2**32))
print(f"test_gpu_conv seed: {SEED} (replay with TILEC_TEST_SEED={SEED})")
rng = np.random.default_rng(SEED)

NP = {float32: np.float32, float16: np.float16, bfloat16: ml_dtypes.bfloat16}
TOL = {float32: 2e-5, float16: 1e-2, bfloat16: 3e-2}


def rand(shape, dt, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(NP[dt])


def check(got, ref, dt):
    got = np.asarray(got).astype(np.float64)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    denom = max(1.0, float(np.abs(ref).max(initial=0)))
    err = float(np.abs(got - ref).max(initial=0)) / denom
    assert err <= TOL[dt], f"error {err} > {TOL[dt]}"


def _to_last(a):
    return np.ascontiguousarray(np.moveaxis(a, 1, -1))


def conv_case(dt, layout, n, c, o, spatial, kernel, stride=1, padding=0, dilation=1, groups=1):
    """(the tile op, its input arrays, the float64 torch reference in the op's layout)."""
    d = len(spatial)
    x = rand((n, c, *spatial), dt)
    w = rand((o, c // groups, *kernel), dt, 1.0 / np.sqrt(c // groups * np.prod(kernel)))
    fn = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[d]
    ref = fn(
        torch.tensor(x.astype(np.float64)),
        torch.tensor(w.astype(np.float64)),
        stride=stride,
        padding=padding,
        dilation=dilation,
        groups=groups,
    ).numpy()

    @tile_op(dtype=dt)
    def f(xv, wv):
        return tilec.conv(xv, wv, stride=stride, padding=padding, dilation=dilation, groups=groups, layout=layout)

    if layout == "channels_last":
        return f, (_to_last(x), _to_last(w)), np.moveaxis(ref, 1, -1)
    return f, (x, w), ref


# (layout, n, c, o, spatial, kernel, stride, padding, dilation, groups)
TENSOR_CORE = [
    ("channels_last", 2, 64, 64, (15, 15), (3, 3), 2, 1, 1, 1),  # a ResNet 3x3/2, odd size
    ("channels_last", 3, 24, 40, (9, 11), (3, 3), 1, "same", 2, 1),  # dilation 2, "same", C, O not /64
    ("channels_last", 1, 8, 72, (7, 5), (1, 1), 1, 0, 1, 1),  # a 1x1 with 8 channels
    ("channels_last", 2, 16, 24, (13,), (5,), 3, 2, 1, 1),  # 1-d
    ("channels_last", 1, 8, 8, (4, 5, 6), (3, 1, 2), (1, 2, 1), 1, 1, 1),  # 3-d
    ("channels_last", 1, 3, 16, (23, 20), (7, 7), 2, 3, 1, 1),  # the stem's C = 3: unfolded (7 x 3 -> 24 channels)
    ("channels_last", 2, 12, 24, (9, 8), (3, 3), 1, 1, 2, 1),  # C = 12: padded to 16 (unfolding would not pay)
    ("channels_last", 2, 1, 8, (17,), (5,), 1, 2, 2, 1),  # C = 1, dilation 2: unfolded to 8 channels
    ("channels_last", 1, 2, 8, (5, 6, 7), (3, 3, 3), (1, 1, 2), 1, 1, 1),  # 3-d, C = 2, stride 2 on the unfolded axis
]
SIMT = [
    ("channels_first", 2, 6, 10, (7, 8), (3, 2), 1, 1, 2, 2),  # channels-first, grouped
    ("channels_last", 2, 12, 12, (9, 7), (3, 3), 2, 1, 1, 12),  # depthwise
    ("channels_last", 1, 3, 16, (23, 20), (7, 7), 2, 3, 1, 1),  # the stem in f32
    ("channels_first", 1, 3, 4, (5, 4, 3), (3, 1, 3), 1, "same", 1, 1),  # 3-d "same"
    ("channels_last", 2, 8, 16, (9, 7), (3, 3), 2, 1, 2, 8),  # depthwise x2, stride 2, dilation 2
    ("channels_first", 2, 8, 32, (7, 6), (3, 3), 1, 1, 1, 2),  # 2 groups of 16: the GEMM over grid z
]
# which kernel each SIMT case takes: grouped convs with <= 8 output channels per group run the
# direct kernel (lower_conv_direct), the others the SIMT implicit GEMM
DIRECT = {0, 1, 4}


def _ids(cases):
    return ["-".join(map(str, (c[0][9:], c[3], "x".join(map(str, c[4])), f"k{c[5][0]}", f"s{c[6]}"))) for c in cases]


# --- on an NVIDIA GPU ----------------------------------------------------------------------------


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("dt", [float16, bfloat16])
@pytest.mark.parametrize("case", TENSOR_CORE, ids=_ids(TENSOR_CORE))
def test_tensor_core_conv_runs(dt, case):
    _run(dt, case)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("dt", [float32, float16])
@pytest.mark.parametrize("case", SIMT, ids=_ids(SIMT))
def test_simt_conv_runs(dt, case):
    _run(dt, case)


def _run(dt, case):
    op, arrays, ref = conv_case(dt, *case)
    (out,) = [op(*[cp.asarray(a) for a in arrays])]
    check(cp.asnumpy(out), ref, dt)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("dt", [float16, bfloat16])
def test_stem_unfolded_and_padded_run(dt):
    """The 3-channel stem both ways on the GPU: tile-conv-unfold's and the channels padded per tap,
    forward (conv_unfold) and weight gradient (conv_unfold_weight_grad), against torch."""
    op, arrays, ref = conv_case(dt, *TENSOR_CORE[5])
    wg, x, dy, gw = wgrad_case(dt, *WGRAD[8])
    for f, args, want, knob in ((op, arrays, ref, "conv_unfold"), (wg, (x, dy), gw, "conv_unfold_weight_grad")):
        dev = [cp.asarray(a) for a in args]
        for unfold in (True, False):
            (got,) = f.compile("cuda", *args, **{knob: unfold})(*dev)
            check(cp.asnumpy(got), want, dt)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("dt", [float16, float32])
def test_conv_epilogue_bias_residual_relu_runs(dt):
    op, arrays, ref = _epilogue_case(dt)
    check(cp.asnumpy(op(*[cp.asarray(a) for a in arrays])), ref, dt)


def _epilogue_case(dt):
    x, w = rand((2, 9, 7, 40), dt), rand((24, 3, 3, 40), dt, 0.1)
    b, r = rand((24,), dt), rand((2, 9, 7, 24), dt)

    @tile_op(dtype=dt)
    def block(xv, wv, bv, rv):
        return tilec.maximum(tilec.conv(xv, wv, padding=1, layout="channels_last") + bv + rv, 0.0)

    y = F.conv2d(
        torch.tensor(np.moveaxis(x, -1, 1).astype(np.float64)),
        torch.tensor(np.moveaxis(w, -1, 1).astype(np.float64)),
        padding=1,
    ).numpy()
    ref = np.maximum(np.moveaxis(y, 1, -1) + b.astype(np.float64) + r.astype(np.float64), 0.0)
    return block, (x, w, b, r), ref


def backward_case(dt, n, c, o, hw, k, stride, padding, dilation=1, groups=1):
    """(input-gradient op, its arrays, weight-gradient op, its arrays, torch.autograd's (gx, gw)),
    channels-last."""
    x = rand((n, *hw, c), dt)
    w = rand((o, k, k, c // groups), dt, 1.0 / np.sqrt(c // groups * k * k))
    xt = torch.tensor(np.moveaxis(x, -1, 1).astype(np.float64), requires_grad=True)
    wt = torch.tensor(np.moveaxis(w, -1, 1).astype(np.float64), requires_grad=True)
    y = F.conv2d(xt, wt, stride=stride, padding=padding, dilation=dilation, groups=groups)
    gy = rand(np.moveaxis(y.detach().numpy(), 1, -1).shape, dt)
    gx, gw = torch.autograd.grad(y, (xt, wt), torch.tensor(np.moveaxis(gy, -1, 1).astype(np.float64)))
    geo = dict(stride=stride, padding=padding, dilation=dilation, groups=groups, layout="channels_last")

    @tile_op(dtype=dt)
    def grad_input(gyv, wv):
        return tilec.conv_backward_input(gyv, wv, x.shape, **geo)

    @tile_op(dtype=dt)
    def grad_weight(xv, gyv):
        return tilec.conv_backward_weight(xv, gyv, w.shape, **geo)

    refs = (np.moveaxis(gx.numpy(), 1, -1), np.moveaxis(gw.numpy(), 1, -1))
    return grad_input, (gy, w), grad_weight, (x, gy), refs


BACKWARD = [(2, 16, 24, (9, 8), 3, 2, 1), (1, 8, 8, (7, 7), 3, 1, 2, 2), (2, 24, 16, (6, 5), 1, 1, 0)]


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("dt", [float16, bfloat16])
@pytest.mark.parametrize("case", BACKWARD, ids=["s2", "dil2", "1x1"])
def test_conv_backward_runs(dt, case):
    bi, bi_args, bw, bw_args, (gx, gw) = backward_case(dt, *case)
    check(cp.asnumpy(bi(*[cp.asarray(a) for a in bi_args])), gx, dt)
    check(cp.asnumpy(bw(*[cp.asarray(a) for a in bw_args])), gw, dt)


def _bias_relu_ref(x, w, b):
    """relu(conv(x, w, padding=1) + b) in float64 by torch, channels-last."""
    y = F.conv2d(
        torch.tensor(np.moveaxis(x, -1, 1).astype(np.float64)),
        torch.tensor(np.moveaxis(w, -1, 1).astype(np.float64)),
        padding=1,
    ).numpy()
    return np.maximum(np.moveaxis(y, 1, -1) + b.astype(np.float64), 0.0)


@pytest.mark.gpu
@needs_gpu
def test_conv_staged_store_matches_direct():
    """On sm_90a the wgmma convolution stores through the idle ring (wgmma-store=staged, the
    default): the same bits as the direct stores for a fused bias + relu forward with O = 200
    (partial column tiles) and a split-K weight gradient (f32 partial sums staged too)."""
    if cp.cuda.Device().compute_capability != "90":
        pytest.skip("the wgmma convolution needs an sm_90 GPU (H100/H200)")
    dt = float16
    x, w, b = rand((3, 13, 11, 64), dt), rand((200, 3, 3, 64), dt, 0.05), rand((200,), dt)

    @tile_op(dtype=dt)
    def fwd(xv, wv, bv):
        return tilec.maximum(tilec.conv(xv, wv, padding=1, layout="channels_last") + bv, 0.0)

    _, _, bw, bw_args, (_, gw) = backward_case(dt, 8, 64, 64, (30, 30), 3, 1, 1)  # gradient channels = batch
    ref = _bias_relu_ref(x, w, b)
    for op, args, want in ((fwd, (x, w, b), ref), (bw, bw_args, gw)):
        staged = op.compile("cuda", *args)
        direct = op.compile("cuda", *args, wgmma_store="direct")
        assert "wgmma.mma_async" in staged.source and "bar.sync 1, " in staged.source
        assert "bar.sync 1, " not in direct.source
        dev = [cp.asarray(a) for a in args]
        (got,), (other,) = staged(*dev), direct(*dev)
        assert cp.array_equal(got, other)
        check(cp.asnumpy(got), want, dt)


# --- the HIP kernels, emulated on the CPU ----------------------------------------------------------


@pytest.fixture
def emulate():
    emu = pytest.importorskip("test_hip_emulated")
    if emu.CLANGXX is None:
        if os.environ.get("CI"):
            pytest.fail("hipcc's clang++ is missing, but CI installs hipcc (.ci/run)")
        pytest.skip("hipcc (and its clang++) is not installed: the HIP emulator cannot compile kernels")
    return emu.emulate


@pytest.mark.parametrize(
    "dt,case",
    # (a lean subset: each emulated kernel costs a hipcc and a clang++ compile)
    [(float16, c) for c in TENSOR_CORE[1:6] + TENSOR_CORE[7:8]]
    + [(float32, SIMT[i]) for i in (3, 5)]
    + [(float16, SIMT[i]) for i in (0, 4)],
    ids=[f"tc-{i}" for i in _ids(TENSOR_CORE[1:6] + TENSOR_CORE[7:8])]
    + ["simt-3d-same", "simt-grouped"]
    + ["direct-f16-first-grouped", "direct-f16-depthwise2"],
)
def test_conv_emulated(emulate, dt, case):
    op, arrays, ref = conv_case(dt, *case)
    kernel = op.compile("hip", *arrays)
    assert kernel.code_object.stat().st_size > 0  # hipcc compiled it for gfx90a
    tensor_cores = dt is float16 and case in TENSOR_CORE
    assert ("__builtin_amdgcn_mfma" in kernel.source) == tensor_cores
    if not tensor_cores:  # the SIMT GEMM stages tiles through shared memory; the direct kernel does not
        direct = SIMT.index(case) in DIRECT
        assert ("__shared__" in kernel.source) != direct
    check(emulate(op, *arrays), ref, dt)


def test_conv_mfma_16x16_small_o_emulated(emulate):
    """mfma=m16n16k16 with 16 output channels: block-n shrinks only as far as the MFMA options allow."""
    op, arrays, ref = conv_case(float16, "channels_last", 2, 16, 16, (9, 7), (3, 3), 1, 1, 1, 1)
    assert "__builtin_amdgcn_mfma_f32_16x16x16f16" in op.compile("hip", *arrays, mfma="m16n16k16").source
    check(emulate(op, *arrays, mfma="m16n16k16"), ref, float16)


def test_split_k_conv_emulated(emulate):
    """A weight-gradient-shaped conv (few output tiles, a long K) splits K over grid z: partial
    sums in a workspace, then a second kernel adds them in order and runs the epilogue."""
    x, w, b = rand((1, 9, 9, 512), float16), rand((16, 3, 3, 512), float16, 0.02), rand((16,), float16)

    @tile_op(dtype=float16)
    def f(xv, wv, bv):
        return tilec.maximum(tilec.conv(xv, wv, padding=1, layout="channels_last") + bv, 0.0)

    assert f.compile("hip", x, w, b).source.count("__global__") == 2
    ref = _bias_relu_ref(x, w, b)
    check(emulate(f, x, w, b), ref, float16)
    ptx = _ptx(f, (x, w, b), "sm_90")
    assert re.findall(r"\.entry (\w+)", ptx) == ["tilec_u_f_0_contraction_partial", "tilec_u_f_0_contraction"]


def test_conv_backward_emulated(emulate):
    """The input and weight gradients (tilec.conv_backward_input / _weight: lhs-dilated and
    batch-contracted convolutions) on the tensor-core kernels, vs torch.autograd."""
    bi, bi_args, bw, bw_args, (gx, gw) = backward_case(float16, *BACKWARD[0])
    assert "__builtin_amdgcn_mfma" in bi.compile("hip", *bi_args).source
    check(emulate(bi, *bi_args), gx, float16)
    check(emulate(bw, *bw_args), gw, float16)


def test_conv_epilogue_emulated(emulate):
    op, arrays, ref = _epilogue_case(float16)
    src = op.compile("hip", *arrays).source
    assert src.count("__global__") == 1  # bias, residual and relu run in the conv's epilogue
    check(emulate(op, *arrays), ref, float16)


# --- PTX ----------------------------------------------------------------------------------------


def _ptx(op, arrays, sm, **options):
    return emit_ptx(lower(op.module(*arrays), "hw", "cuda", sm=sm, **options))


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
@pytest.mark.parametrize("sm", ["sm_80", "sm_90a"])
@pytest.mark.parametrize(
    "dt,case,unfold",
    [
        (float16, TENSOR_CORE[0], True),
        (bfloat16, TENSOR_CORE[3], True),
        (float16, TENSOR_CORE[5], True),
        (float16, TENSOR_CORE[5], False),
        (float32, SIMT[1], True),
    ],
    ids=["f16", "bf16", "f16-stem", "f16-stem-padded", "f32"],
)
def test_conv_ptx(sm, dt, case, unfold, tmp_path):
    op, arrays, _ = conv_case(dt, *case)
    ptx = _ptx(op, arrays, sm, conv_unfold=unfold)
    path = tmp_path / "conv.ptx"
    path.write_text(ptx)
    r = subprocess.run([PTXAS, f"-arch={sm}", "-v", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    if sm == "sm_90a":
        assert b" 0 bytes spill stores" in r.stderr, r.stderr.decode()
    entries = re.findall(r"\.visible \.entry (\w+)\(([^)]*)\)", ptx)
    hopper = sm == "sm_90a" and dt is not float32
    few = case[2] % 8 != 0 and dt is not float32
    # the stem (C = 3, 7 taps a row): tile-conv-unfold's copies of x and w (24 channels), then the
    # convolution; without it, on Hopper, x and w copied with channels padded to 16 bytes first
    unfolded, padded = few and unfold, few and not unfold and hopper
    if unfolded:
        assert [e[0].split("_")[-1] for e in entries] == ["elementwise", "elementwise", "contraction"], entries
    else:
        assert [e[0].endswith(("_pad0", "_pad1")) for e in entries] == [True, True, False] if padded else [False]
    if dt is float32:
        assert "mma.sync" not in ptx
        return
    # 16-byte cp.async chunks where a pixel's channels are whole chunks; else element by element
    staging = "cp.async.cg.shared.global" if case[2] % 8 == 0 or hopper or unfolded else "ld.global.b16"
    if hopper:  # a cp.async-fed warp-specialized wgmma pipeline
        needles = (staging, "cp.async.mbarrier.arrive.noinc", "fence.proxy.async", "wgmma.mma_async.sync.aligned")
        assert "mma.sync" not in ptx
    else:
        needles = (staging, "mma.sync.aligned.m16n8k16.row.col.f32", "ldmatrix.sync.aligned")
    for needle in needles:
        assert needle in ptx, needle
    # the conv's buffers: y, x, w (pointer parameters .u64); no im2col temporary in global memory
    assert entries[-1][1].count(".u64") == 3, entries[-1][1]


# --- the weight gradient as one Hopper kernel (conv_nv_wgmma.lower_conv_weight_grad) -------------

# (n, spatial, c, o, kernel, stride, padding, dilation): channels-last, one group, C and O multiples of 8
WGRAD = [
    (2, (15, 15), 64, 64, (3, 3), 2, 1, 1),  # a ResNet 3x3/2 at an odd size
    (3, (9, 11), 24, 40, (3, 3), 1, "same", 2),  # dilation 2, "same", C and O not multiples of 64
    (2, (7, 7), 16, 8, (1, 1), 2, 0, 1),  # a strided 1x1 (a downsample): not one plain GEMM
    (3, (7, 7), 8, 8, (3, 3), 1, 0, 1),  # no padding, 8 channels
    (2, (13,), 16, 24, (5,), 3, 2, 1),  # 1-d
    (1, (4, 5, 6), 8, 8, (3, 1, 2), (1, 2, 1), 1, 1),  # 3-d
    (2, (9, 9), 72, 200, (3, 3), 1, 1, 1),  # O = 200: a partial row panel
    (8, (28, 28), 64, 128, (3, 3), 1, 1, 1),  # a long P = 6272: K split over the grid
    (2, (23, 20), 3, 16, (7, 7), 2, 3, 1),  # the stem's C = 3: x padded to 8 channels (unfolded: 24), 3 stored
    (2, (9, 8), 12, 24, (3, 3), 1, 1, 2),  # C = 12: padded to 16
]


def wgrad_case(dt, n, spatial, c, o, kernel, stride, padding, dilation):
    """(the weight-gradient op (channels-last), x, dy, torch's float64 dw in (O, *K, C))."""
    d = len(spatial)
    x = rand((n, *spatial, c), dt)
    fn = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[d]
    xt = torch.tensor(np.moveaxis(x, -1, 1).astype(np.float64))
    wt = torch.zeros((o, c, *kernel), dtype=torch.float64, requires_grad=True)
    y = fn(xt, wt, stride=stride, padding=padding, dilation=dilation)
    dy = rand(np.moveaxis(y.detach().numpy(), 1, -1).shape, dt)
    (gw,) = torch.autograd.grad(y, (wt,), torch.tensor(np.moveaxis(dy, -1, 1).astype(np.float64)))
    shape = (o, *kernel, c)

    @tile_op(dtype=dt)
    def wgrad(xv, dyv):
        return tilec.conv_backward_weight(
            xv, dyv, shape, stride=stride, padding=padding, dilation=dilation, layout="channels_last"
        )

    return wgrad, x, dy, np.moveaxis(gw.numpy(), 1, -1)


def _wgrad_ids(cases):
    return ["x".join(map(str, c[1])) + f"-c{c[2]}o{c[3]}-k{'x'.join(map(str, c[4]))}" for c in cases]


def _kernels(op, arrays, sm, **options) -> list[str]:
    text = op.ir("mapped", *arrays, target="cuda", sm=sm, **options)
    return re.findall(r"mapped\.kernel @(\w+)\(", text)


@pytest.mark.parametrize("case", WGRAD, ids=_wgrad_ids(WGRAD))
def test_weight_gradient_is_one_hopper_kernel(case):
    """On sm_90a the weight gradient is one conv_weight_grad kernel (with split-K, its partial
    sums and their sum): no transposes of x, dy or dw; sm_80 keeps the convolution of transposed
    operands (transpose kernels around an implicit GEMM)."""
    op, x, dy, _ = wgrad_case(float16, *case)
    if unfolded_channels(case[2], case[4][-1]) is not None:  # the stem: tile-conv-unfold's x' first
        kernels = _kernels(op, (x, dy), "sm_90a")
        assert kernels[0].endswith("elementwise") and kernels[-1].endswith("elementwise"), kernels
        assert all("conv_weight_grad" in k for k in kernels[1:-1]) and len(kernels) in (3, 4), kernels
        # and with conv_unfold_weight_grad=False, x padded to 8 channels as below
        kernels = _kernels(op, (x, dy), "sm_90a", conv_unfold_weight_grad=False)
        assert kernels[0].endswith("_pad0"), kernels
        unsplit = _kernels(op, (x, dy), "sm_90a", conv_unfold_weight_grad=False, split_k=1)
        assert unsplit == kernels[:1] + kernels[-2:], unsplit
        return
    kernels = _kernels(op, (x, dy), "sm_90a")
    padded = case[2] % 8 != 0  # x first copied with its channels padded to 8 (a _pad kernel)
    assert all("conv_weight_grad" in k for k in kernels), kernels
    assert kernels[0].endswith("_pad0") == padded, kernels
    assert kernels[-1].endswith("conv_weight_grad") and len(kernels) in ((2, 3) if padded else (1, 2)), kernels
    unsplit = _kernels(op, (x, dy), "sm_90a", split_k=1)
    assert unsplit == (kernels[:1] + kernels[-2:] if padded else [kernels[-1]]), unsplit
    for old in (_kernels(op, (x, dy), "sm_80"), _kernels(op, (x, dy), "sm_90a", conv_weight_grad=False)):
        assert not any("conv_weight_grad" in k for k in old) and any("contraction" in k for k in old), old


def test_weight_gradient_pattern_needs_its_conditions():
    """Programs that are not the pattern keep the ordinary groups on sm_90a: f32, grouped, and an
    output channel count that is not whole 16-byte chunks (dy's rows)."""
    op, x, dy, _ = wgrad_case(float32, *WGRAD[0])
    assert not any("conv_weight_grad" in k for k in _kernels(op, (x, dy), "sm_90a"))
    n, c, o = 2, 16, 12
    x, dy = rand((n, 9, 9, c), float16), rand((n, 9, 9, o), float16)

    @tile_op(dtype=float16)
    def odd_channels(xv, dyv):
        return tilec.conv_backward_weight(xv, dyv, (o, 3, 3, c), padding=1, layout="channels_last")

    @tile_op(dtype=float16)
    def grouped(xv, dyv):
        return tilec.conv_backward_weight(xv, dyv, (o, 3, 3, c // 2), padding=1, groups=2, layout="channels_last")

    for op in (odd_channels, grouped):
        assert not any("conv_weight_grad" in k for k in _kernels(op, (x, dy), "sm_90a")), op


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not on PATH (install the CUDA toolkit)")
@pytest.mark.parametrize(
    "case", [WGRAD[0], WGRAD[5], WGRAD[7], WGRAD[8]], ids=_wgrad_ids([WGRAD[0], WGRAD[5], WGRAD[7], WGRAD[8]])
)
def test_weight_gradient_ptx(case, tmp_path):
    """The kernel assembles without spills: cp.async panels of dy and of x's window, wgmma with
    transposed A; its global buffers are dy, x and dw (or the f32 partial sums): no im2col buffer."""
    op, x, dy, _ = wgrad_case(bfloat16, *case)
    ptx = op.source("cuda", x, dy, sm="sm_90a")
    path = tmp_path / "wgrad.ptx"
    path.write_text(ptx)
    r = subprocess.run([PTXAS, "-arch=sm_90a", "-v", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    assert b" 0 bytes spill stores" in r.stderr, r.stderr.decode()
    for needle in ("cp.async.cg.shared.global", "cp.async.mbarrier.arrive.noinc", "wgmma.mma_async.sync.aligned"):
        assert needle in ptx, needle
    entries = re.findall(r"\.visible \.entry (\w+)\(([^)]*)\)", ptx)
    main = next(e for e in entries if "partial" in e[0] or e[0].endswith("conv_weight_grad"))
    assert main[1].count(".u64") == 3, main[1]
    # (the stem: tile-conv-unfold's copy of x first and dw's cut to 3 channels last)
    unfolded = unfolded_channels(case[2], case[4][-1]) is not None
    ours = [e[0] for e in entries if not (unfolded and e[0].endswith("elementwise"))]
    assert all("partial" in e or e.endswith(("conv_weight_grad", "_pad0")) for e in ours), entries
    assert len(ours) < len(entries) if unfolded else len(ours) == len(entries), entries


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("dt", [float16, bfloat16])
@pytest.mark.parametrize("case", WGRAD, ids=_wgrad_ids(WGRAD))
def test_weight_gradient_runs(dt, case):
    """Against torch.autograd on the GPU: the default (sm_90a: the one-kernel weight gradient;
    elsewhere the convolution of transposed operands), and on sm_90a K split 3 ways and not at all."""
    op, x, dy, ref = wgrad_case(dt, *case)
    dx, ddy = cp.asarray(x), cp.asarray(dy)
    check(cp.asnumpy(op(dx, ddy)), ref, dt)
    if cp.cuda.Device().compute_capability == "90":
        for split in (1, 3):
            (got,) = op.compile("cuda", x, dy, split_k=split)(dx, ddy)
            check(cp.asnumpy(got), ref, dt)


@pytest.mark.parametrize("c,phases", [(3, True), (64, False)], ids=["stem-3ch", "64ch"])
def test_strided_input_gradient_phases_by_channels(c, phases):
    """On CUDA, tile-conv-phases rewrites a strided input gradient with at most
    conv-phase-channels (16) output channels per group (the stem: 4 phase convolutions) and leaves
    wider ones one convolution of the stride-dilated dy; conv_phase_channels=0 rewrites every one."""
    n, hw, o = 2, 15, 16
    dy, w = rand((n, 8, 8, o), float16), rand((o, 3, 3, c), float16)

    @tile_op(dtype=float16)
    def dgrad(dyv, wv):
        return tilec.conv_backward_input(dyv, wv, (n, hw, hw, c), stride=2, padding=1, layout="channels_last")

    convs = [k for k in _kernels(dgrad, (dy, w), "sm_90a") if k.endswith("contraction")]
    assert len(convs) == (4 if phases else 1), convs
    every = [k for k in _kernels(dgrad, (dy, w), "sm_90a", conv_phase_channels=0) if k.endswith("contraction")]
    assert len(every) == 4, every
