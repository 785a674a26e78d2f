"""Accuracy of the math library (tilec.sin, ..., tilec.softplus) per function and dtype, in ulps.

    python benchmarks/math_accuracy.py                    # the C target (runs here)
    python benchmarks/math_accuracy.py --target cuda      # on an NVIDIA GPU (needs CuPy)
    python benchmarks/math_accuracy.py --target ptx-sim   # the PTX algorithms (mathlib.py) run by numpy
    python benchmarks/math_accuracy.py --target interp    # the interpreter

Inputs: random values over each function's wide range (log-uniform magnitudes from 1e-30 to the
range's end, both signs where the domain has them, plus uniform values in the interesting
interval) and edge values (+-0, +-inf, NaN, subnormals, the largest finite, domain edges).
Reference: float64 numpy for f32 results; for f64, mpmath at 120 bits when installed (else
numpy's long double). The error of a finite result is |got - ref| / ulp(ref) in the result's
dtype (ulp of 0 is the smallest subnormal); a special value (NaN, inf, the sign of a zero result
for sign-symmetric functions) counts as a mismatch when it differs from numpy's. Prints a
markdown table (the one in docs/dsl.md, "Math functions").
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np

import tilec

N = 4000  # random inputs per function and dtype
LIMIT_TRIG = 8.0e8  # PTX's argument reduction limit (mathlib.TRIG_LIMIT): beyond it NaN

# name: (random magnitude ranges as (lo, hi, signed), edge values, mpmath reference or None)
DOMAINS = {
    "sin": ([(1e-30, LIMIT_TRIG, True), (0, 10, True)], [1.5707963267948966, 3.141592653589793, 8.05e8]),
    "cos": ([(1e-30, LIMIT_TRIG, True), (0, 10, True)], [1.5707963267948966, 3.141592653589793]),
    "tan": ([(1e-30, LIMIT_TRIG, True), (0, 10, True)], [1.5707963267948966, 0.7853981633974483]),
    "asin": ([(1e-30, 1, True), (0.9, 1, True)], [1.0, -1.0, 0.5, 1.0000001]),
    "acos": ([(1e-30, 1, True), (0.9, 1, True)], [1.0, -1.0, 0.5, -1.0000001]),
    "atan": ([(1e-30, 1e30, True), (0, 4, True)], [1.0, -1.0]),
    "sinh": ([(1e-30, 720, True), (0, 3, True)], [88.7, 89.5, 710.4, 711.0]),
    "cosh": ([(1e-30, 720, True), (0, 3, True)], [88.7, 89.5, 710.4, 711.0]),
    "asinh": ([(1e-30, 1e30, True), (0, 4, True)], [2.0, 2.0**28]),
    "acosh": ([(1, 1e30, False), (1, 3, False)], [1.0, 2.0, 0.999]),
    "atanh": ([(1e-30, 1, True), (0.4, 1, True)], [1.0, -1.0, 0.5]),
    "expm1": ([(1e-30, 720, True), (0, 2, True)], [88.7, 89.0, 709.7, 710.0, -104.0, -746.0]),
    "log1p": ([(1e-30, 1e30, False), (-1, 1, False)], [-1.0, -0.9999999, -1.5, 1e-8]),
    "log2": ([(1e-320, 1e300, False), (0.5, 2, False)], [1.0, 2.0, 1024.0, -1.0]),
    "log10": ([(1e-320, 1e300, False), (0.5, 2, False)], [1.0, 10.0, 1000.0, -1.0]),
    "exp2": ([(1e-30, 1100, True), (0, 2, True)], [128.0, 127.9, -149.0, -150.0, 1024.0, -1074.0, -1075.0]),
    "sigmoid": ([(1e-30, 800, True), (0, 20, True)], [36.0, -36.0, 88.7, -88.7, -104.0, -745.0]),
    "softplus": ([(1e-30, 800, True), (0, 25, True)], [20.0, 20.0000019, 19.999998, -104.0, 88.7]),
    "floor": ([(1e-30, 1e20, True), (0, 8, True)], [0.5, -0.5, 2.5, 1.9999999, 2.0**52 + 0.5]),
    "ceil": ([(1e-30, 1e20, True), (0, 8, True)], [0.5, -0.5, 2.5]),
    "round": ([(1e-30, 1e20, True), (0, 8, True)], [0.5, 1.5, 2.5, -0.5, -2.5, 0.49999997, 2.0**52 + 1]),
    "trunc": ([(1e-30, 1e20, True), (0, 8, True)], [0.5, -0.5, 2.5]),
    "sign": ([(1e-30, 1e30, True)], [1e-45]),
    "atan2": ([(1e-30, 1e30, True), (0, 4, True)], [1.0, -1.0]),
}
EDGES = [0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, -5e-324, 1e-310, -1e-310, 1e-40, -1e-40, 1e-45]
EDGES += [1.7976931348623157e308, -1.7976931348623157e308, 3.4028234663852886e38, -3.4028234663852886e38]


def inputs(name: str, dt, rng) -> np.ndarray:
    ranges, edges = DOMAINS[name]
    parts = []
    for lo, hi, signed in ranges:
        n = N // len(ranges)
        if lo > 0 and hi / lo > 100:
            x = np.exp(rng.uniform(math.log(lo), math.log(hi), n))
        else:
            x = rng.uniform(lo, hi, n)
        if signed:
            x = x * rng.choice([-1.0, 1.0], n)
        parts.append(x)
    with np.errstate(all="ignore"):
        x = np.concatenate([*parts, EDGES, edges, [-e for e in edges]]).astype(dt)
    return x


def numpy_ref(name: str):
    from tilec.mathfns import BY_NAME

    return BY_NAME[name].numpy


def mp_ref(name: str):
    """An mpmath function of mpf arguments (None where numpy in long double is used instead)."""
    try:
        import mpmath
    except ImportError:
        return None
    mpmath.mp.prec = 120

    def softplus(x):
        return x if x > 20 else mpmath.log1p(mpmath.exp(x))

    fns = {
        "sin": mpmath.sin,
        "cos": mpmath.cos,
        "tan": mpmath.tan,
        "asin": mpmath.asin,
        "acos": mpmath.acos,
        "atan": mpmath.atan,
        "sinh": mpmath.sinh,
        "cosh": mpmath.cosh,
        "asinh": mpmath.asinh,
        "acosh": mpmath.acosh,
        "atanh": mpmath.atanh,
        "expm1": mpmath.expm1,
        "log1p": mpmath.log1p,
        "log2": lambda x: mpmath.log(x, 2),
        "log10": mpmath.log10,
        "exp2": lambda x: mpmath.power(2, x),
        "sigmoid": lambda x: 1 / (1 + mpmath.exp(-x)),
        "softplus": softplus,
        "atan2": mpmath.atan2,
    }
    return fns.get(name)


def reference(name: str, args: list[np.ndarray], dt) -> np.ndarray:
    """The reference as float64 (f32) or as a list of mpf / long double values (f64)."""
    with np.errstate(all="ignore"):
        base = np.asarray(numpy_ref(name)(*[a.astype(np.float64) for a in args]), np.float64)
    if dt == np.float32:
        return base
    mp = mp_ref(name)
    if mp is None:
        with np.errstate(all="ignore"):
            ld = [a.astype(np.longdouble) for a in args]
            f = numpy_ref(name)
            return np.asarray(f(*ld), np.longdouble) if name not in ("sigmoid", "softplus") else base
    import mpmath

    out = []
    for i in range(len(base)):
        xs = [float(a[i]) for a in args]
        if not all(math.isfinite(v) and v != 0 for v in xs) or not math.isfinite(base[i]):  # mpmath: no -0.0
            out.append(base[i])
            continue
        try:
            r = mp(*[mpmath.mpf(v) for v in xs])
            out.append(mpmath.nan if isinstance(r, mpmath.mpc) else r)
        except (ValueError, ZeroDivisionError):
            out.append(base[i])
    return out


def ulp_errors(got: np.ndarray, ref, base: np.ndarray, dt) -> tuple[float, int]:
    """(max ulp error over finite results, special-value mismatches against numpy's `base`)."""
    import mpmath

    finfo = np.finfo(dt)
    tiny = float(finfo.smallest_subnormal)
    g64 = got.astype(np.float64)
    with np.errstate(all="ignore"):
        expect = base.astype(dt).astype(np.float64)  # numpy's value in the dtype: NaN, inf, signed zeros
    worst, bad = 0.0, 0
    for g, r, e in zip(g64, ref, expect):
        if not math.isfinite(e) or not math.isfinite(g) or e == 0 or g == 0:
            if e == 0 and g == 0:
                bad += int(math.copysign(1, e) != math.copysign(1, g))
                continue
            if not (math.isfinite(e) and math.isfinite(g)):
                bad += int(not ((math.isnan(e) and math.isnan(g)) or e == g))
                continue
        rounded = float(np.asarray(float(r)).astype(dt))
        u = max(float(np.spacing(np.asarray(abs(rounded), dt))) if rounded != 0 else tiny, tiny)
        if isinstance(r, np.longdouble):
            err = float(abs(np.longdouble(g) - r) / np.longdouble(u))
        elif isinstance(r, float | np.floating):
            err = abs(g - float(r)) / u
        else:
            err = float(abs(mpmath.mpf(g) - r) / u)
        worst = max(worst, err)
    return worst, bad


def run(name: str, args: list[np.ndarray], dt, target: str) -> np.ndarray:
    if target == "ptx-sim":
        from tilec.conversion.mapped_to_hw.mathlib import FUNCTIONS
        from tilec.conversion.mapped_to_hw.mathlib_numpy import evaluate_numpy

        with np.errstate(all="ignore"):
            if name in FUNCTIONS:
                return evaluate_numpy(name, *args).astype(dt)
            x = args[0].astype(np.float64)  # the loop nest's compositions (in f64), on mathlib's exp/log1p
            if name == "sigmoid":
                e = evaluate_numpy("exp", -np.abs(x))
                return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e)).astype(dt)
            if name == "softplus":
                return np.where(x > 20.0, x, evaluate_numpy("log1p", evaluate_numpy("exp", x))).astype(dt)
        target = "interp"  # rounding functions and sign: exact, as the interpreter computes them
    fn = getattr(tilec, name)
    tdt = tilec.float32 if dt == np.float32 else tilec.float64
    if len(args) == 2:

        def f2(y, x):
            return fn(y, x)

        op = tilec.tile_op(dtype=tdt)(f2)
    else:

        def f1(x):
            return fn(x)

        op = tilec.tile_op(dtype=tdt)(f1)
    if target == "interp":
        return np.asarray(tilec.interpret(op, *args))
    if target == "cuda":
        import cupy as cp

        return cp.asnumpy(op(*[cp.asarray(a) for a in args]))
    return np.asarray(op(*args))


def measure(target: str, names: list[str], seed: int) -> list[tuple[str, dict]]:
    rows = []
    for name in names:
        res = {}
        for dt in (np.float32, np.float64):
            rng = np.random.default_rng(seed)
            x = inputs(name, dt, rng)
            args = [x]
            if name == "atan2":
                y = rng.permutation(x)
                args = [y, x]
            got = run(name, args, dt, target)
            with np.errstate(all="ignore"):
                base = np.asarray(numpy_ref(name)(*[a.astype(np.float64) for a in args]), np.float64)
            res[dt] = ulp_errors(got, reference(name, args, dt), base, dt)
        rows.append((name, res))
        print(f"  {name}: f32 {res[np.float32][0]:.2f} ulp, f64 {res[np.float64][0]:.2f} ulp", file=sys.stderr)
    return rows


def table(rows, target: str) -> str:
    out = [
        f"| function | f32 max ulp ({target}) | f64 max ulp ({target}) | special-value mismatches |",
        "|---|---|---|---|",
    ]
    for name, res in rows:
        e32, b32 = res[np.float32]
        e64, b64 = res[np.float64]
        out.append(f"| {name} | {e32:.2f} | {e64:.2f} | {b32 + b64} |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", default="cpu", choices=["cpu", "cuda", "ptx-sim", "interp"])
    ap.add_argument("--only", nargs="*", help="function names (default: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", help="also write the table to this file")
    a = ap.parse_args()
    names = a.only or list(DOMAINS)
    unknown = sorted(set(names) - set(DOMAINS))
    if unknown:
        sys.exit(f"math_accuracy: unknown functions {unknown} (known: {' '.join(DOMAINS)})")
    if a.target == "cuda":
        try:
            import cupy as cp

            cp.cuda.runtime.getDeviceCount()
        except Exception as e:  # noqa: BLE001 - any failure to reach a GPU
            sys.exit(f"math_accuracy: --target cuda needs CuPy and an NVIDIA GPU ({type(e).__name__}: {e})")
    text = table(measure(a.target, names, a.seed), a.target)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
