"""An embedding table: forward is a gather of rows, backward a scatter-add with repeated ids.

    python examples/embedding.py [--show-ir]

Forward: out[b, t] = weight[ids[b, t]] is `tilec.take(weight, ids, axis=0)`. Backward: the
gradient of the table adds every output gradient row into the row of its id; ids repeat (the
same token twice in a batch), so it is `tilec.index_add(zeros((V, D)), 0, ids, dy)` (torch's
`index_add`), which accumulates duplicates in order: deterministic, on every target. Checked
against numpy's `weight[ids]` and `np.add.at` on awkward shapes (V, D and the batch primes), with
dynamic sizes (one compile for every shape). An id outside [0, V) raises tilec.IndexOutOfRange.
"""

import sys

import numpy as np

import tilec
from tilec import float32, int64, tile_op


@tile_op(dims=["B", "T", "D", "V"])
def embedding(weight: float32, ids: int64):
    return tilec.take(weight, ids, axis=0)


@tile_op(dims=["V", "D", "L"])
def embedding_backward(dy: float32, ids: int64, weight: float32):
    """dy: (L, D) output gradients of L = B * T lookups, ids: (L,); returns the (V, D) table gradient."""
    return tilec.index_add(tilec.zeros_like(weight), 0, ids, dy)


def main() -> int:
    rng = np.random.default_rng(0)
    if "--show-ir" in sys.argv[1:]:
        for op in (embedding, embedding_backward):
            for level in ("tile", "mapped", "hw"):
                print(f"// ----- {level} IR -----\n{op.ir(level)}")
            print(f"// ----- C source -----\n{op.source()}")
    ok, traces = True, None
    for v, d, b, t in [(1, 1, 1, 1), (13, 7, 3, 5), (1009, 64, 4, 127), (30522, 96, 8, 31)]:
        weight = rng.standard_normal((v, d), dtype=np.float32)
        ids = rng.integers(0, min(v, 50), (b, t))  # few distinct ids: many repeats
        out = embedding(weight, ids)
        good = np.array_equal(out, weight[ids])
        dy = rng.standard_normal((b, t, d), dtype=np.float32)
        grad = embedding_backward(dy.reshape(-1, d), ids.reshape(-1), weight)
        want = np.zeros((v, d), np.float64)
        np.add.at(want, ids.reshape(-1), dy.reshape(-1, d).astype(np.float64))
        err = float(np.abs(grad - want).max())
        good &= bool(np.allclose(grad, want, rtol=1e-5, atol=1e-5))
        ok &= good
        print(
            f"embedding V={v} D={d} ids {b}x{t}: forward exact: {np.array_equal(out, weight[ids])}, "
            f"backward max error {err:.1e}"
        )
        if traces is None:
            traces = (embedding.trace_count, embedding_backward.trace_count)
    ok &= traces == (embedding.trace_count, embedding_backward.trace_count)  # dims: no trace per shape
    ids[0, 0] = v
    try:
        embedding(weight, ids)
        ok = False
    except tilec.IndexOutOfRange as e:
        print(f"an id of {v} for {v} rows: {e.render(quote_source=False)}")
    print(f"embedding forward and backward (float32, int64 ids with repeats, CPU): {'OK' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
