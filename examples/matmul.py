"""The main example: a 3-line matrix multiplication, compiled for the CPU and checked against numpy.

    pip install -e . && python examples/matmul.py [--show-ir]

`--show-ir` prints every level the compiler goes through: the traced `tile` IR, the `mapped` IR
(a packed GEMM with OpenMP-parallel loops), the `hw` IR and the generated C.
"""

import sys

import numpy as np

from tilec import float32, tile_contract, tile_op

M, N, K = 256, 192, 128


@tile_op(dtype=float32, dims=[M, N, K])
def matrix_mul(A, B):
    return tile_contract(A, B, axes=[(-1, 0)])


def main() -> int:
    rng = np.random.default_rng(0)
    A = rng.standard_normal((M, K), dtype=np.float32)
    B = rng.standard_normal((K, N), dtype=np.float32)
    if "--show-ir" in sys.argv[1:]:
        for level in ("tile", "mapped", "hw"):
            print(f"// ----- {level} IR -----\n{matrix_mul.ir(level)}")
        print(f"// ----- C source -----\n{matrix_mul.source()}")
    C = matrix_mul(A, B)  # traced, lowered, compiled to a shared library (cached), then run
    expected = A.astype(np.float64) @ B.astype(np.float64)
    err = float(np.abs(C - expected).max())
    ok = C.shape == (M, N) and np.allclose(C, expected, rtol=1e-4, atol=1e-3)
    print(f"matmul {M}x{K} @ {K}x{N} (float32, CPU): max error {err:.2e} {'OK' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
