"""Row softmax with dynamic sizes: one compiled kernel serves every (M, N).

    python examples/softmax.py [--show-ir]

tilec fuses the row max, the exponentials, their sum and the division into one loop nest per
row (a `rowwise` fusion group), parallel over rows with OpenMP.
"""

import sys

import numpy as np

import tilec
from tilec import float32, tile_op


@tile_op(dtype=float32, dims=["M", "N"])  # strings: sizes bound at each call
def softmax(x):
    m = tilec.max(x, axis=-1, keepdims=True)
    e = tilec.exp(x - m)
    return e / tilec.sum(e, axis=-1, keepdims=True)


def reference(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def main() -> int:
    rng = np.random.default_rng(0)
    if "--show-ir" in sys.argv[1:]:
        for level in ("tile", "mapped", "hw"):
            print(f"// ----- {level} IR -----\n{softmax.ir(level)}")
        print(f"// ----- C source -----\n{softmax.source()}")
    ok = True
    for shape in [(300, 1000), (64, 37), (1, 4096)]:
        x = 4 * rng.standard_normal(shape, dtype=np.float32)
        y = softmax(x)
        want = reference(x.astype(np.float64))
        err = float(np.abs(y - want).max())
        good = y.shape == shape and np.allclose(y, want, rtol=1e-5, atol=1e-6)
        ok &= good
        print(f"softmax {shape[0]}x{shape[1]}: max error {err:.2e} {'ok' if good else 'FAILED'}")
    print(f"softmax (float32, CPU, dynamic M and N, 3 shapes): {'OK' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
