"""Dropout, forward and backward, with counter-based random numbers: no mask array anywhere.

    python examples/dropout.py [--show-ir]

`tilec.random.bernoulli(1 - p, seed, offset, shape)` is a pure function of (seed, offset, index)
(Philox-4x32-10): the forward pass computes the mask inside its one kernel, and the backward pass
regenerates the very same mask from the same (seed, offset) instead of storing it. `seed`,
`offset` and `p` are run-time arguments: changing them does not recompile. The same (seed,
offset, shape) gives bit-identical masks in the interpreter, C, PTX and HIP (docs/dsl.md,
"Random numbers"); here the CPU result is checked against the interpreter, the mask against
tilec/philox.py, and the keep rate against 1 - p.
"""

import sys

import numpy as np

import tilec
from tilec import float32, tile_op
from tilec.philox import random_bits


@tile_op(dtype=float32, dims=["M", "N"])
def dropout_forward(x, seed: int, offset: int, p: float):
    keep = tilec.random.bernoulli(1.0 - p, seed, offset, x.shape)
    return tilec.where(keep, x / (1.0 - p), 0.0)


@tile_op(dtype=float32, dims=["M", "N"])
def dropout_backward(dy, seed: int, offset: int, p: float):
    keep = tilec.random.bernoulli(1.0 - p, seed, offset, dy.shape)  # the forward's mask, regenerated
    return tilec.where(keep, dy / (1.0 - p), 0.0)


def reference_mask(seed: int, offset: int, shape, p: float) -> np.ndarray:
    """bernoulli(1 - p) from the documented formula: uniform = (bits >> 8) * 2^-24 < 1 - p."""
    u = (random_bits(seed, offset, shape) >> 8).astype(np.float32) * np.float32(2.0**-24)
    return u < np.float32(1.0 - p)


def main() -> int:
    rng = np.random.default_rng(0)
    if "--show-ir" in sys.argv[1:]:
        x = np.zeros((4, 8), np.float32)
        for level in ("tile", "mapped", "hw"):
            print(f"// ----- {level} IR -----\n{dropout_forward.ir(level, x, 1, 0, 0.1)}")
        print(f"// ----- C source -----\n{dropout_forward.source('cpu', x, 1, 0, 0.1)}")
    ok = True
    offset = 0
    for shape, p in [((256, 1024), 0.1), ((37, 131), 0.5), ((1, 1), 0.2), ((1000, 7), 0.9)]:
        seed = int(rng.integers(0, 2**63))
        x = rng.standard_normal(shape, dtype=np.float32)
        dy = rng.standard_normal(shape, dtype=np.float32)
        y = dropout_forward(x, seed, offset, p)
        dx = dropout_backward(dy, seed, offset, p)
        keep = reference_mask(seed, offset, shape, p)
        scale = np.float32(1.0 - p)
        good = np.array_equal(y, np.where(keep, x / scale, np.float32(0)))
        good &= np.array_equal(dx, np.where(keep, dy / scale, np.float32(0)))
        good &= np.array_equal(y, tilec.interpret(dropout_forward, x, seed, offset, p))
        n = keep.size
        rate = float(keep.mean())
        sigma = np.sqrt(p * (1 - p) / n)
        good &= abs(rate - (1 - p)) <= 5 * sigma + 1e-12
        ok &= good
        print(f"dropout p={p} {shape[0]}x{shape[1]}: kept {rate:.4f} (expected {1 - p:.4f} +- {sigma:.4f})")
        offset += (n + 3) // 4  # the counters this call used: the next call draws fresh numbers
    kernels = dropout_forward.ir("mapped", x, 1, 0, 0.1).count("mapped.kernel @")
    ok &= kernels == 1
    print(f"kernels for the forward pass: {kernels} (the mask is computed inline)")
    print(
        f"dropout forward and backward (float32, CPU, mask regenerated from seed and offset): {'OK' if ok else 'FAILED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
