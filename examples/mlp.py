"""An MLP layer: matmul + bias + GELU (tanh form), fused into one kernel.

    python examples/mlp.py [--show-ir]

The batch size M is dynamic; K (inputs) and N (outputs) are fixed by the weights. The bias and
the GELU run in the GEMM's epilogue, on each accumulator before it is stored: the pre-activation
never goes to memory.
"""

import math
import sys

import numpy as np

import tilec
from tilec import float32, tile_contract, tile_op

K, N = 256, 512  # input and output features


def gelu(y):
    """GELU, tanh approximation (a plain Python helper: it is traced inline)."""
    c = math.sqrt(2.0 / math.pi)
    return 0.5 * y * (1.0 + tilec.tanh(c * (y + 0.044715 * y * y * y)))


@tile_op(dtype=float32, dims=["M", N, K])
def mlp(x, w, b):
    return gelu(tile_contract(x, w, axes=[(-1, 0)]) + b)


def reference(x, w, b):
    y = x @ w + b
    return 0.5 * y * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (y + 0.044715 * y**3)))


def main() -> int:
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((K, N)) / math.sqrt(K)).astype(np.float32)
    b = rng.standard_normal(N, dtype=np.float32)
    if "--show-ir" in sys.argv[1:]:
        shapes = [("M", K), (K, N), (N,)]  # the specialization the calls below run (a 1-D bias)
        for level in ("tile", "mapped", "hw"):
            print(f"// ----- {level} IR -----\n{mlp.ir(level, shapes=shapes)}")
        print(f"// ----- C source -----\n{mlp.source(shapes=shapes)}")
    ok = True
    for m in (200, 7):
        x = rng.standard_normal((m, K), dtype=np.float32)
        y = mlp(x, w, b)
        want = reference(x.astype(np.float64), w.astype(np.float64), b.astype(np.float64))
        err = float(np.abs(y - want).max())
        good = y.shape == (m, N) and np.allclose(y, want, rtol=1e-4, atol=1e-4)
        ok &= good
        print(f"mlp {m}x{K} -> {m}x{N}: max error {err:.2e} {'ok' if good else 'FAILED'}")
    print(f"mlp: gelu(x @ w + b) (float32, CPU, dynamic M): {'OK' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
