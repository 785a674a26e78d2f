"""Layer normalization over the last axis, with a learned scale (gamma) and shift (beta).

    python examples/layernorm.py [--show-ir]

The row count M is dynamic; the feature size N is fixed by gamma and beta (dims=["M", N]).
Mean, variance and the normalization fuse into one loop nest per row.
"""

import sys

import numpy as np

import tilec
from tilec import float32, tile_op

N = 768  # features
EPS = 1e-5


@tile_op(dtype=float32, dims=["M", N])
def layernorm(x, gamma, beta):
    mean = tilec.mean(x, axis=-1, keepdims=True)
    d = x - mean
    var = tilec.mean(d * d, axis=-1, keepdims=True)
    return d * tilec.rsqrt(var + EPS) * gamma + beta


def reference(x, gamma, beta):
    mean = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * gamma + beta


def main() -> int:
    rng = np.random.default_rng(0)
    gamma = rng.standard_normal(N, dtype=np.float32)
    beta = rng.standard_normal(N, dtype=np.float32)
    if "--show-ir" in sys.argv[1:]:
        shapes = [("M", N), (N,), (N,)]  # the specialization the calls below run (1-D gamma and beta)
        for level in ("tile", "mapped", "hw"):
            print(f"// ----- {level} IR -----\n{layernorm.ir(level, shapes=shapes)}")
        print(f"// ----- C source -----\n{layernorm.source(shapes=shapes)}")
    ok = True
    for m in (512, 3):
        x = 3 + 2 * rng.standard_normal((m, N), dtype=np.float32)
        y = layernorm(x, gamma, beta)
        want = reference(x.astype(np.float64), gamma.astype(np.float64), beta.astype(np.float64))
        err = float(np.abs(y - want).max())
        good = y.shape == x.shape and np.allclose(y, want, rtol=1e-4, atol=1e-4)
        ok &= good
        print(f"layernorm {m}x{N}: max error {err:.2e} {'ok' if good else 'FAILED'}")
    print(f"layernorm (float32, CPU, dynamic M): {'OK' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
