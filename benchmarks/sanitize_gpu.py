"""Run the GEMM, softmax and flash-attention kernels once each, for compute-sanitizer (memcheck, racecheck).

    compute-sanitizer --tool memcheck python3 benchmarks/sanitize_gpu.py
    compute-sanitizer --tool racecheck python3 benchmarks/sanitize_gpu.py
Checks the results too, so a clean report is also a correct run.
"""

import sys
from pathlib import Path

import cupy as cp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import tilec  # noqa: E402
from tilec import float16, float32, tile_contract, tile_op  # noqa: E402
from tilec.library.attention import attention, repeat_heads  # noqa: E402


@tile_op(dtype=float16)
def mm(a, b):
    return tile_contract(a, b, axes=[(-1, 0)])


@tile_op(dtype=float16)
def softmax(x):
    e = tilec.exp(x - tilec.max(x, axis=-1, keepdims=True))
    return e / tilec.sum(e, axis=-1, keepdims=True)


@tile_op(dtype=float32)
def mm32(a, b):
    return tile_contract(a, b, axes=[(-1, 0)])


@tile_op(dtype=float16)
def flash(q, k, v):
    return attention(q, k, v, 0.125, causal=True)[0]


@tile_op(dtype=float16)
def flash_gqa(q, k, v):
    return attention(q, repeat_heads(k, 2), repeat_heads(v, 2), 0.125)[0]


def attention_ref(q, k, v, causal):
    q, k, v = (x.astype(cp.float32) for x in (q, k, v))
    s = q @ k.swapaxes(-1, -2) * 0.125
    if causal:
        s = cp.where(cp.tri(s.shape[-2], s.shape[-1], dtype=bool), s, -cp.inf)
    e = cp.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v


def check(name, got, ref, tol):
    err = float(cp.abs(got.astype(cp.float32) - ref.astype(cp.float32)).max() / max(1.0, float(cp.abs(ref).max())))
    print(f"{name}: max error {err:.2e}")
    assert err < tol, name


cp.random.seed(1)
for m, n, k in [(200, 136, 96), (256, 256, 128)]:  # partial tiles and full tiles (tensor cores)
    a = cp.random.standard_normal((m, k), dtype=cp.float32).astype(cp.float16)
    b = cp.random.standard_normal((k, n), dtype=cp.float32).astype(cp.float16)
    check(f"gemm f16 {m}x{n}x{k}", mm(a, b), a.astype(cp.float32) @ b.astype(cp.float32), 1e-2)
a = cp.random.standard_normal((70, 33), dtype=cp.float32)
b = cp.random.standard_normal((33, 90), dtype=cp.float32)
check("gemm f32 (simt) 70x90x33", mm32(a, b), a @ b, 1e-4)
for shape in [(64, 8192), (33, 1000)]:
    x = cp.random.standard_normal(shape, dtype=cp.float32).astype(cp.float16)
    xf = x.astype(cp.float32)
    e = cp.exp(xf - xf.max(-1, keepdims=True))
    check(f"softmax f16 {shape}", softmax(x), e / e.sum(-1, keepdims=True), 1e-2)
# the flash kernel: queries and keys past the last block, head sizes 96 and 32 (E != Ev)
q = cp.random.standard_normal((2, 2, 77, 96), dtype=cp.float32).astype(cp.float16)
k = cp.random.standard_normal((2, 2, 131, 96), dtype=cp.float32).astype(cp.float16)
v = cp.random.standard_normal((2, 2, 131, 32), dtype=cp.float32).astype(cp.float16)
check("flash attention f16 causal 77x131", flash(q, k, v), attention_ref(q, k, v, True), 1e-2)
kg, vg = cp.ascontiguousarray(k[:, :1]), cp.ascontiguousarray(v[:, :1])
check(
    "flash attention f16 GQA",
    flash_gqa(q, kg, vg),
    attention_ref(q, cp.repeat(kg, 2, 1), cp.repeat(vg, 2, 1), False),
    1e-2,
)
cp.cuda.Device().synchronize()
print("sanitize run: OK")
