"""Philox-4x32-10, the counter-based random number generator of tilec (Salmon et al., SC'11).

One place for its constants and its reference implementation in numpy: the interpreter evaluates
random ops with `philox4x32`, and every compiled target builds the same rounds from the same
constants, so results are bit-identical for the same (seed, offset) everywhere. Checked against
the Random123 known-answer vectors (test/runtime/test_philox.py).

A round: (hi0, lo0) = M0 * c0 and (hi1, lo1) = M1 * c2 as 32x32 -> 64-bit products, then
c = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0); the key is bumped by the Weyl constants between
rounds (k0 += W0, k1 += W1, mod 2^32).
"""

from __future__ import annotations

import numpy as np

M0 = 0xD2511F53
M1 = 0xCD9E8D57
W0 = 0x9E3779B9
W1 = 0xBB67AE85
ROUNDS = 10


def _mulhilo(m: int, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    prod = np.uint64(m) * x.astype(np.uint64)
    return (prod >> np.uint64(32)).astype(np.uint32), (prod & np.uint64(0xFFFFFFFF)).astype(np.uint32)


def philox4x32(counter, key, rounds: int = ROUNDS) -> tuple[np.ndarray, ...]:
    """The four 32-bit output words for counters `counter` (four uint32 arrays, broadcast
    together) under `key` (two uint32 values or arrays)."""
    c0, c1, c2, c3 = (np.asarray(c, dtype=np.uint32) for c in counter)
    k0, k1 = (np.asarray(k, dtype=np.uint32) for k in key)
    c0, c1, c2, c3, k0, k1 = np.broadcast_arrays(c0, c1, c2, c3, k0, k1)
    with np.errstate(over="ignore"):
        for r in range(rounds):
            if r:
                k0 = (k0 + np.uint32(W0)).astype(np.uint32)
                k1 = (k1 + np.uint32(W1)).astype(np.uint32)
            hi0, lo0 = _mulhilo(M0, c0)
            hi1, lo1 = _mulhilo(M1, c2)
            c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    return c0, c1, c2, c3


def random_bits(seed: int, offset: int, shape) -> np.ndarray:
    """The bits of `tile.random_bits`: a uint32 array of `shape` whose element at row-major
    linear index i is word i % 4 of philox4x32(counter = (lo32(c), hi32(c), 0, 0), key =
    (lo32(seed), hi32(seed))) with c = offset + i // 4 (mod 2^64)."""
    shape = tuple(int(d) for d in shape)
    n = int(np.prod(shape, dtype=np.int64))
    seed, offset = seed % 2**64, offset % 2**64
    with np.errstate(over="ignore"):
        c = np.uint64(offset) + np.arange((n + 3) // 4, dtype=np.uint64)
    lo = (c & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    hi = (c >> np.uint64(32)).astype(np.uint32)
    words = philox4x32((lo, hi, 0, 0), (seed & 0xFFFFFFFF, seed >> 32))
    return np.stack(words, axis=-1).reshape(-1)[:n].reshape(shape)


__all__ = ["M0", "M1", "ROUNDS", "W0", "W1", "philox4x32", "random_bits"]
