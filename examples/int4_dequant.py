"""int4 weight dequantization: signed 4-bit weights packed two per uint8, unpacked with shifts and
masks, then used in a matmul with per-row scales.

    python examples/int4_dequant.py [--show-ir]

Packing (as numpy below): byte k of row n holds weight 2k in its low nibble and weight 2k + 1 in
its high nibble, each a two's complement int4 in [-8, 7]. Two ways to unpack are shown:
- `dequant`: `(p >> shift) & 15` (logical shifts of uint8) and `- 8` after an offset-binary
  re-encoding (`^ 8` turns two's complement into offset binary), and
- `dequant_signed`: `tilec.bitcast(p, int8)`, then `(s << 4) >> 4` and `s >> 4` (arithmetic
  shifts of int8 sign-extend the nibble).
The nibble shift amounts [0, 4] come in as a tiny uint8 argument (the tile DSL has no iota yet),
broadcast against the packed bytes to give a (N, K/2, 2) tile that reshapes to (N, K).
"""

import sys

import numpy as np

import tilec
from tilec import float32, tile_contract, tile_op, uint8


@tile_op(dtype=uint8)
def dequant(packed, shifts):
    n, half = packed.shape
    p = packed.reshape(n, half, 1)
    nibble = (p >> shifts) & 15  # (N, K/2, 2): broadcast against the shift amounts [0, 4]
    w = (nibble ^ 8).astype(float32) - 8.0  # two's complement int4 -> [-8, 7]
    return w.reshape(n, 2 * half)


@tile_op(dtype=uint8)
def dequant_signed(packed):
    s = tilec.bitcast(packed, tilec.int8)
    return ((s << 4) >> 4).astype(float32), (s >> 4).astype(float32)  # the low and the high nibbles


@tile_op(dtype=float32)
def scaled_matmul(x, w, scales):
    return tile_contract(x, w, axes=[(1, 1)]) * scales  # x @ w.T, scaled per output column


def pack(w: np.ndarray) -> np.ndarray:
    """int4 values (N, K) in [-8, 7] -> (N, K/2) uint8, element 2k in the low nibble."""
    u = (w & 15).astype(np.uint8)
    return u[:, 0::2] | (u[:, 1::2] << 4)


def main() -> int:
    rng = np.random.default_rng(0)
    shifts = np.array([0, 4], np.uint8)
    if "--show-ir" in sys.argv[1:]:
        ex = np.zeros((4, 8), np.uint8)
        for level in ("tile", "mapped", "hw"):
            print(f"// ----- {level} IR -----\n{dequant.ir(level, ex, shifts)}")
        print(f"// ----- C source -----\n{dequant.source('cpu', ex, shifts)}")
    ok = True
    for m, n, k in [(5, 33, 64), (1, 7, 18), (16, 64, 250)]:
        w = rng.integers(-8, 8, (n, k))
        packed = pack(w)
        scales = (rng.random(n) * 0.1 + 0.01).astype(np.float32)
        x = rng.standard_normal((m, k), dtype=np.float32)
        wf = dequant(packed, shifts)
        lo, hi = dequant_signed(packed)
        y = scaled_matmul(x, wf, scales)
        want = (x.astype(np.float64) @ w.T.astype(np.float64)) * scales
        exact = np.array_equal(wf, w.astype(np.float32))
        signed = np.array_equal(lo, w[:, 0::2].astype(np.float32)) and np.array_equal(hi, w[:, 1::2].astype(np.float32))
        err = float(np.abs(y - want).max() / max(1.0, np.abs(want).max()))
        good = exact and signed and err < 1e-5
        ok &= good
        print(f"int4 dequant {n}x{k} (matmul with {m} rows): weights exact {exact}, signed nibbles {signed}, "
              f"matmul error {err:.1e} {'ok' if good else 'FAILED'}")  # fmt: skip
    print(f"int4 dequantization (uint8 shifts and masks, int8 arithmetic shifts, CPU): {'OK' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
