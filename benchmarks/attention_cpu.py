"""Attention on the CPU: tilec's attention group (one kernel, online softmax) against torch's
`scaled_dot_product_attention` on the CPU, and MLA decoding over a paged cache against torch
gathering the pages and calling SDPA; f32, in the same process, results checked first.

    python benchmarks/attention_cpu.py [--repeats N] [--quick]

Timing: `timing.cpu_pair_ms` (wall clock, alternating batches, medians); both libraries on every
core (torch.set_num_threads(os.cpu_count()); tilec's OpenMP default). Reported: each side's
median ms and torch_time / tilec_time (> 1: tilec is faster). Absolute times on a shared
machine are noise; the ratio of the same run is what to read.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from timing import cpu_pair_ms, machine_name  # noqa: E402

from tilec import float32, int32, tile_op  # noqa: E402
from tilec.library.attention import attention  # noqa: E402
from tilec.library.mla import mla_decode  # noqa: E402

F = torch.nn.functional


def sdpa_case(b, h, s, d, causal, repeats):
    @tile_op(dtype=float32)
    def attn(q, k, v):
        return attention(q, k, v, d**-0.5, causal=causal)[0]

    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((b, h, s, d)).astype(np.float32) for _ in range(3))
    tq, tk, tv = map(torch.from_numpy, (q, k, v))
    kernel = attn.compile("cpu", q, k, v)
    assert attn.ir("mapped", q, k, v).count("mapped.kernel @") == 1
    (got,) = kernel(q, k, v)
    with torch.no_grad():
        want = F.scaled_dot_product_attention(tq, tk, tv, is_causal=causal).numpy()
    err = float(np.abs(got - want).max())
    assert err < 1e-4, f"tilec differs from torch by {err}"

    def ref():
        with torch.no_grad():
            F.scaled_dot_product_attention(tq, tk, tv, is_causal=causal)

    t, r = cpu_pair_ms(lambda: kernel(q, k, v), ref, repeats)
    return f"SDPA B={b} H={h} S={s} D={d}{' causal' if causal else ''}", t, r


def mla_case(b, h, seqlen, repeats, d=576, dv=512, page=64):
    @tile_op(dtypes={"q": float32, "kv": float32, "table": int32, "lens": int32})
    def mla(q, kv, table, lens):
        return mla_decode(q, kv, table, lens, dv, d**-0.5)

    rng = np.random.default_rng(0)
    max_blocks = seqlen // page
    n_blocks = b * max_blocks
    q = rng.standard_normal((b, 1, h, d)).astype(np.float32)
    kv = rng.standard_normal((n_blocks, page, 1, d)).astype(np.float32)
    table = rng.permutation(n_blocks).reshape(b, max_blocks).astype(np.int32)
    lens = rng.integers(seqlen // 2, seqlen + 1, b).astype(np.int32)
    kernel = mla.compile("cpu", q, kv, table, lens)
    out, _ = kernel(q, kv, table, lens)
    tq, tkv, ttab = torch.from_numpy(q), torch.from_numpy(kv), torch.from_numpy(table).long()
    keep = torch.arange(seqlen)[None, :] < torch.from_numpy(lens).long()[:, None]  # (b, S)

    def ref():
        with torch.no_grad():
            keys = tkv[ttab].reshape(b, 1, seqlen, d)  # the pages gathered (a copy)
            return F.scaled_dot_product_attention(
                tq.transpose(1, 2), keys, keys[..., :dv], attn_mask=keep[:, None, None, :], scale=d**-0.5
            )

    want = ref().transpose(1, 2).numpy()
    err = float(np.abs(out - want).max())
    assert err < 1e-4, f"tilec differs from torch by {err}"
    t, r = cpu_pair_ms(lambda: kernel(q, kv, table, lens), ref, repeats)
    return f"MLA decode B={b} h_q={h} len<={seqlen} d={d} dv={dv}", t, r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="small shapes, 2 rounds (a smoke test)")
    args = ap.parse_args()
    torch.set_num_threads(os.cpu_count())
    reps = 2 if args.quick else args.repeats
    if args.quick:
        cases = [lambda: sdpa_case(1, 2, 96, 32, False, reps), lambda: mla_case(2, 4, 128, reps)]
    else:
        cases = [
            lambda: sdpa_case(1, 8, 1024, 64, False, reps),
            lambda: sdpa_case(1, 8, 1024, 64, True, reps),
            lambda: sdpa_case(4, 8, 256, 128, False, reps),
            lambda: mla_case(8, 16, 1024, reps),
        ]
    print(f"{machine_name('cpu')}, torch {torch.__version__}, {reps} rounds, load {os.getloadavg()[0]:.1f}")
    print("| case | tilec ms | torch ms | torch / tilec |")
    print("|---|---|---|---|")
    for case in cases:
        name, t, r = case()
        print(f"| {name} | {t:.2f} | {r:.2f} | {r / t:.2f} |")


if __name__ == "__main__":
    main()
