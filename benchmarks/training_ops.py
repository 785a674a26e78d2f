"""Training-step ops of issue 10 vs the reference library, in one run: embedding forward,
cross-entropy forward and an AdamW step over a list of arrays (multi-tensor apply).

    python benchmarks/training_ops.py --target cuda [--quick] [--repeats N] [--out DIR]
    python benchmarks/training_ops.py --target cpu  [--quick] [--repeats N] [--out DIR]

Every tilec result is checked against the reference before anything is timed. The three ops are
memory-bound, so each row reports GB/s (bytes each op must read and write once, counted below)
and the fraction of a plain copy's bandwidth measured in the same run.
- cuda: references are torch on the same GPU (`F.embedding`, `F.cross_entropy(reduction="none")`,
  `torch.optim.AdamW(foreach=True)` and `(fused=True)`); timed with CUDA events around batches of
  back-to-back calls after warm-up, median of repeats.
- cpu: references are numpy (`np.take`, a logsumexp formulation, AdamW's formulas as numpy
  in-place ufuncs over the list); `time.perf_counter`, tilec and numpy alternating, median of
  repeats. tilec's CPU kernels run on OMP_NUM_THREADS threads, numpy's ufuncs on one.
Bytes: embedding = ids (8 B each) + the gathered rows + the output; cross-entropy = logits +
labels + the per-row losses; AdamW = p, g, m, v read and p, m, v written (28 B per f32 element).
Writes DIR/training_ops-<target>.json and prints a markdown table.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

from adamw import adamw_step as adamw  # noqa: E402  (examples/adamw.py: the op measured here)
from adamw import hyper, reference_step  # noqa: E402
from timing import bandwidth_args, cpu_copy_gbs, cpu_pair_ms, cuda_copy_gbs, cuda_ms, write_bandwidth_report  # noqa: E402  (benchmarks/timing.py)
from timing import bandwidth_row as row

import tilec  # noqa: E402
from tilec import float32, int64, tile_op  # noqa: E402


@tile_op(dtype=float32)
def embedding(weight, ids: int64):
    return tilec.take(weight, ids, axis=0)


@tile_op(dtype=float32)
def cross_entropy(logits, labels: int64):
    m = tilec.max(logits, axis=-1, keepdims=True)
    lse = tilec.log(tilec.sum(tilec.exp(logits - m), axis=-1)) + m[:, 0]
    picked = tilec.take_along_axis(logits, labels[:, None], axis=1)[:, 0]
    return lse - picked


def adamw_numpy(p, g, m, v, step):
    """torch.optim.AdamW's update in numpy, in place, array by array (examples/adamw.py's)."""
    h = hyper(step)
    for args in zip(p, g, m, v):
        reference_step(*args, *h)


def list_shapes(n_arrays: int, total: int, rng) -> list[tuple]:
    """Shapes like a transformer's parameters: matrices, vectors, odd sizes, a 3-D array."""
    shapes = [(1,), (7,), (13, 17, 3)]
    while len(shapes) < n_arrays:
        shapes.append((int(rng.integers(1, 1024)),) if len(shapes) % 3 else (int(rng.integers(64, 1024)), 97))
    scale = total / sum(math.prod(s) for s in shapes)
    out = []
    for s in shapes:
        if len(s) == 2 and scale > 1:
            s = (max(1, int(s[0] * scale)), s[1])
        out.append(s)
    return out


# --- CUDA -----------------------------------------------------------------------------------


def cuda_rows(args) -> list[dict]:
    import torch
    import torch.nn.functional as F

    def bench(fn, batch=10, warmup=3):
        return cuda_ms(torch, fn, args.repeats, batch, warmup)

    def copy_gbs(nbytes):
        return cuda_copy_gbs(torch, nbytes, args.repeats)

    rows = []
    gen = torch.Generator(device="cuda").manual_seed(0)
    q = args.quick
    # embedding: GPT-2's table, a batch of token ids with repeats
    V, D, N = (4096, 256, 2048) if q else (50257, 768, 16384)
    w = torch.randn(V, D, device="cuda", generator=gen)
    ids = torch.randint(0, V, (N // 8, 8), device="cuda", generator=gen)
    k = embedding.compile("cuda", w, ids)
    (got,) = k(w, ids)
    assert torch.equal(torch.as_tensor(got, device="cuda"), F.embedding(ids, w)), "embedding: wrong result"
    moved = ids.numel() * 8 + 2 * N * D * 4
    t, tr = bench(lambda: k(w, ids)), bench(lambda: F.embedding(ids, w))
    rows.append(row(f"embedding fwd f32 V={V} D={D} N={N}", moved, t, tr, copy_gbs(moved), "torch F.embedding"))
    # cross-entropy forward, per-row losses
    R, C = (1024, 1000) if q else (8192, 32000)
    logits = torch.randn(R, C, device="cuda", generator=gen) * 3
    labels = torch.randint(0, C, (R,), device="cuda", generator=gen)
    k = cross_entropy.compile("cuda", logits, labels)
    (got,) = k(logits, labels)
    ref = F.cross_entropy(logits, labels, reduction="none")
    err = float((torch.as_tensor(got, device="cuda") - ref).abs().max())
    assert err < 1e-3, f"cross-entropy: max error {err}"
    moved = R * C * 4 + R * 8 + R * 4
    t = bench(lambda: k(logits, labels))
    tr = bench(lambda: F.cross_entropy(logits, labels, reduction="none"))
    rows.append(row(f"cross-entropy fwd f32 {R}x{C}", moved, t, tr, copy_gbs(moved), "torch F.cross_entropy"))
    # AdamW over a list of arrays
    rng = np.random.default_rng(0)
    shapes = list_shapes(120 if not q else 100, 2_000_000 if q else 40_000_000, rng)
    n_el = sum(math.prod(s) for s in shapes)
    p = [torch.randn(s, device="cuda", generator=gen) for s in shapes]
    g = [torch.randn(s, device="cuda", generator=gen) for s in shapes]
    m = [torch.randn(s, device="cuda", generator=gen) * 0.1 for s in shapes]
    v = [torch.rand(s, device="cuda", generator=gen) * 0.01 for s in shapes]
    refs = {}
    for mode in ("foreach", "fused"):
        tp = [x.clone().requires_grad_(True) for x in p]
        for x, gi in zip(tp, g):
            x.grad = gi.clone()
        opt = torch.optim.AdamW(
            tp,
            lr=1e-3,  # hyper()'s defaults
            betas=(0.9, 0.999),
            eps=1e-8,
            weight_decay=1e-2,
            **{mode: True},
        )
        for x, mi, vi in zip(tp, m, v):  # start from the same moments, at step 3
            opt.state[x] = {
                "step": torch.tensor(2.0, device="cuda" if mode == "fused" else "cpu"),
                "exp_avg": mi.clone(),
                "exp_avg_sq": vi.clone(),
            }
        refs[mode] = (opt, tp)
    opt, tp = refs["foreach"]
    opt.step()  # step 3
    mp, mm, mv = [x.clone() for x in p], [x.clone() for x in m], [x.clone() for x in v]
    adamw(mp, g, mm, mv, *hyper(3))
    err = max(float((a - b.detach()).abs().max()) for a, b in zip(mp, tp))
    assert err < 1e-5, f"adamw: max error {err} against torch.optim.AdamW"
    moved = n_el * 28
    t = bench(lambda: adamw(mp, g, mm, mv, *hyper(3)))
    with torch.no_grad():
        tr = bench(refs["foreach"][0].step)
        tf = bench(refs["fused"][0].step)
    cg = copy_gbs(moved)
    rows.append(
        row(
            f"AdamW f32 {len(shapes)} arrays, {n_el / 1e6:.1f}M elements", moved, t, tr, cg, "torch AdamW(foreach=True)"
        )
    )
    rows.append(
        row(f"AdamW f32 {len(shapes)} arrays, {n_el / 1e6:.1f}M elements", moved, t, tf, cg, "torch AdamW(fused=True)")
    )
    return rows


# --- CPU ------------------------------------------------------------------------------------


def cpu_rows(args) -> list[dict]:
    def pair(f_tilec, f_ref, batch=3):
        return cpu_pair_ms(f_tilec, f_ref, args.repeats, batch)

    def copy_gbs(nbytes):
        return cpu_copy_gbs(np, nbytes, args.repeats)

    rng = np.random.default_rng(0)
    rows = []
    q = args.quick
    V, D, N = (4096, 256, 2048) if q else (50257, 768, 8192)
    w = rng.standard_normal((V, D), dtype=np.float32)
    ids = rng.integers(0, V, (N // 8, 8))
    k = embedding.compile("cpu", w, ids)
    (got,) = k(w, ids)
    assert np.array_equal(got, np.take(w, ids, axis=0)), "embedding: wrong result"
    moved = ids.size * 8 + 2 * N * D * 4
    t, tr = pair(lambda: k(w, ids), lambda: np.take(w, ids, axis=0))
    rows.append(row(f"embedding fwd f32 V={V} D={D} N={N}", moved, t, tr, copy_gbs(moved), "numpy np.take"))
    R, C = (512, 1000) if q else (2048, 32000)
    logits = 3 * rng.standard_normal((R, C), dtype=np.float32)
    labels = rng.integers(0, C, R)

    def ce_numpy():
        mx = logits.max(-1, keepdims=True)
        lse = np.log(np.exp(logits - mx).sum(-1)) + mx[:, 0]
        return lse - logits[np.arange(R), labels]

    k = cross_entropy.compile("cpu", logits, labels)
    (got,) = k(logits, labels)
    err = float(np.abs(got - ce_numpy()).max())
    assert err < 1e-3, f"cross-entropy: max error {err}"
    moved = R * C * 4 + R * 8 + R * 4
    t, tr = pair(lambda: k(logits, labels), ce_numpy)
    rows.append(row(f"cross-entropy fwd f32 {R}x{C}", moved, t, tr, copy_gbs(moved), "numpy logsumexp"))
    shapes = list_shapes(120 if not q else 100, 500_000 if q else 4_000_000, rng)
    n_el = sum(math.prod(s) for s in shapes)
    p = [rng.standard_normal(s, dtype=np.float32) for s in shapes]
    g = [rng.standard_normal(s, dtype=np.float32) for s in shapes]
    m = [0.1 * rng.standard_normal(s, dtype=np.float32) for s in shapes]
    v = [0.01 * rng.random(s, dtype=np.float32) for s in shapes]
    a = [[x.copy() for x in lst] for lst in (p, g, m, v)]
    b = [[x.copy() for x in lst] for lst in (p, g, m, v)]
    adamw(*a, *hyper(3))
    adamw_numpy(*b, 3)
    err = max(float(np.abs(x - y).max()) for x, y in zip(a[0], b[0]))
    assert err < 1e-5, f"adamw: max error {err}"
    moved = n_el * 28
    t, tr = pair(lambda: adamw(*a, *hyper(3)), lambda: adamw_numpy(*b, 3))
    rows.append(
        row(
            f"AdamW f32 {len(shapes)} arrays, {n_el / 1e6:.1f}M elements",
            moved,
            t,
            tr,
            copy_gbs(moved),
            "numpy ufuncs in place",
        )
    )
    return rows


def main() -> None:
    args = bandwidth_args(__doc__.split("\n")[0])
    rows = cuda_rows(args) if args.target == "cuda" else cpu_rows(args)
    write_bandwidth_report(rows, "training_ops", args)


if __name__ == "__main__":
    main()
