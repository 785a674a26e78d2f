"""How tilec's IR front end scales: parse, verify and print times of a long chain of elementwise
tile ops on `!tile.tile<64x64xf32>` (5,000 and 20,000 ops by default).

    python benchmarks/ir_scale.py            # 5000 and 20000 ops, best of 3
    python benchmarks/ir_scale.py 1000 --repeat 5

Each figure is the best of `--repeat` runs (seconds), measured in process with `tilec.ir`
(parse_module = xDSL parser + source locations; verify_module = op verifiers + the
defined-before-use check; print_module = custom-form printer).
"""

from __future__ import annotations

import argparse
import platform
import time

from tilec.ir import make_context, parse_module, print_module, verify_module

KINDS = ("add", "mul", "max", "sub", "exp", "neg", "tanh", "min")
UNARY = {"exp", "neg", "tanh"}


def chain_program(n_ops: int, shape: tuple[int, ...] = (64, 64)) -> str:
    """One tile.func: load, `n_ops` elementwise ops each using the previous one or two values, store."""
    dims = "x".join(map(str, shape))
    t, a = f"!tile.tile<{dims}xf32>", f"!tile.array<{dims}xf32>"
    lines = [f"tile.func @chain(%X: {a}) outs(%Y: {a}) {{", f"  %v0 = tile.load %X : {a} -> {t}"]
    for i in range(1, n_ops + 1):
        kind = KINDS[i % len(KINDS)]
        if kind in UNARY:
            lines.append(f"  %v{i} = tile.{kind} %v{i - 1} : {t}")
        else:
            lines.append(f"  %v{i} = tile.{kind} %v{i - 1}, %v{max(i - 2, 0)} : {t}")
    lines += [f"  tile.store %v{n_ops}, %Y : {t}, {a}", "  tile.return", "}"]
    return "\n".join(lines) + "\n"


def measure(n_ops: int, repeat: int) -> tuple[float, float, float]:
    ctx = make_context()
    text = chain_program(n_ops)
    best = [float("inf")] * 3
    for _ in range(repeat):
        t0 = time.perf_counter()
        module = parse_module(ctx, text, f"chain{n_ops}.mlir")
        t1 = time.perf_counter()
        verify_module(module)
        t2 = time.perf_counter()
        out = print_module(module)
        t3 = time.perf_counter()
        assert out.count("\n") == n_ops + 7
        best = [min(b, x) for b, x in zip(best, (t1 - t0, t2 - t1, t3 - t2))]
    return best[0], best[1], best[2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sizes", nargs="*", type=int, default=[5000, 20000], help="numbers of ops (default 5000 20000)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per size; the best is reported (default 3)")
    args = ap.parse_args()
    print(f"# tilec IR scale: chain of elementwise ops on !tile.tile<64x64xf32>, best of {args.repeat}")
    print(f"# {platform.python_implementation()} {platform.python_version()} on {platform.machine()}")
    print(f"{'ops':>8}  {'parse s':>9}  {'verify s':>9}  {'print s':>9}  {'total s':>9}  {'us/op':>7}")
    for n in args.sizes:
        p, v, w = measure(n, args.repeat)
        total = p + v + w
        print(f"{n:>8}  {p:>9.3f}  {v:>9.3f}  {w:>9.3f}  {total:>9.3f}  {1e6 * total / n:>7.1f}")


if __name__ == "__main__":
    main()
