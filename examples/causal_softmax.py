"""Causal-masked attention scores, sliced and padded: creation ops and views fused into one kernel.

    python examples/causal_softmax.py [--show-ir]

The mask `iota(axis 1) <= iota(axis 0)` is made inside the program (no mask array is passed):
it depends on no array, so tilec re-computes it inside the softmax's `rowwise` fusion group,
and the whole masked softmax is ONE kernel per target. A second op shows views: the last `W`
columns of each row (`s[:, -W:]`), reversed, padded on the left (`tilec.pad`), then a row sum;
the slice, flip and pad read `s` in place, with no copy.
"""

import sys

import numpy as np

import tilec
from tilec import float32, tile_op


@tile_op(dtype=float32, dims=["S", "T"])  # strings: sizes bound at each call
def causal_softmax(s):
    S, T = s.shape
    z = tilec.where(tilec.iota((S, T), 1) <= tilec.iota((S, T), 0), s, -np.inf)
    e = tilec.exp(z - tilec.max(z, axis=-1, keepdims=True))
    return e / tilec.sum(e, axis=-1, keepdims=True)


W = 8


@tile_op(dtype=float32, dims=["S", 64])
def window_sums(s):
    w = tilec.pad(s[:, -W:][:, ::-1], ((0, 0), (2, 0)), value=0.5)
    return tilec.sum(w, axis=-1)


def reference(s: np.ndarray) -> np.ndarray:
    z = np.where(np.tril(np.ones(s.shape, bool)), s, -np.inf)
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def main() -> int:
    rng = np.random.default_rng(0)
    if "--show-ir" in sys.argv[1:]:
        for level in ("tile", "mapped", "hw"):
            print(f"// ----- {level} IR -----\n{causal_softmax.ir(level)}")
        print(f"// ----- C source -----\n{causal_softmax.source()}")
    ok = True
    for shape in [(128, 128), (37, 37), (1, 1), (5, 200)]:
        s = 3 * rng.standard_normal(shape, dtype=np.float32)
        y = causal_softmax(s)
        want = reference(s.astype(np.float64))
        good = y.shape == shape and np.allclose(y, want, rtol=1e-5, atol=1e-6)
        ok &= good
        print(f"causal softmax {shape[0]}x{shape[1]}: max error {float(np.abs(y - want).max()):.2e}")
    kernels = causal_softmax.ir("mapped", s).count("mapped.kernel @")
    ok &= kernels == 1
    print(f"kernels for the masked softmax: {kernels}")
    s = rng.standard_normal((19, 64), dtype=np.float32)
    want = np.pad(s[:, -W:][:, ::-1].astype(np.float64), ((0, 0), (2, 0)), constant_values=0.5).sum(-1)
    got = window_sums(s)
    good = np.allclose(got, want, rtol=1e-5, atol=1e-6)
    ok &= good
    print(f"window sums 19x64: max error {float(np.abs(got - want).max()):.2e}")
    print(f"causal softmax and window sums (float32, CPU, dynamic sizes): {'OK' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
