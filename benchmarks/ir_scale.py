"""How tilec's IR front end scales: parse, verify and print times of a long chain of elementwise
tile ops on `!tile.tile<64x64xf32>` (5,000 and 20,000 ops by default).

    python benchmarks/ir_scale.py            # 5000 and 20000 ops, best of 3
    python benchmarks/ir_scale.py 1000 --repeat 5
    python benchmarks/ir_scale.py --lower-to-c 100 1000 10000   # tilec-opt -p lower-to-c -t c
    python benchmarks/ir_scale.py --file-mb 50                  # tilec-opt on a 50 MB module

Each figure is the best of `--repeat` runs (seconds), measured in process with `tilec.ir`
(parse_module = xDSL parser + source locations; verify_module = op verifiers + the
defined-before-use check; print_module = custom-form printer).

`--lower-to-c N...` times the whole CLI (`tilec-opt FILE -p lower-to-c -t c`, a new process, once
per size) on a module of N small functions (load, exp, store); `--file-mb X` times `tilec-opt FILE`
(parse, verify, print) on a module of that many megabytes made of the same functions. Both report
wall time and the child's peak memory.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
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


def functions_program(n_funcs: int) -> str:
    """A module of `n_funcs` small functions (each: load, exp, store on 64 floats)."""
    a, t = "!tile.array<64xf32>", "!tile.tile<64xf32>"
    parts = ["builtin.module {"]
    for i in range(n_funcs):
        parts.append(
            f"  tile.func @f{i}(%X: {a}) outs(%Y: {a}) {{\n    %x = tile.load %X : {a} -> {t}\n"
            f"    %e = tile.exp %x : {t}\n    tile.store %e, %Y : {t}, {a}\n    tile.return\n  }}"
        )
    parts.append("}")
    return "\n".join(parts) + "\n"


def run_cli(text: str, *args: str) -> tuple[float, float, int]:
    """Wall seconds, the child's peak memory (MB) and output bytes of `tilec-opt FILE *args` in a new process."""
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    try:
        t0 = time.perf_counter()
        r = subprocess.run(
            [sys.executable, "-c", "from tilec.cli import main; main()", f.name, *args],
            capture_output=True,
        )
        wall = time.perf_counter() - t0
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        if r.returncode != 0:
            raise SystemExit(f"tilec-opt failed: {r.stderr.decode()[-2000:]}")
        # the largest child so far (KB on Linux): run sizes in increasing order
        return wall, peak / 1024, len(r.stdout)
    finally:
        os.unlink(f.name)


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
    ap.add_argument("--lower-to-c", nargs="+", type=int, metavar="N", help="time lower-to-c on N functions")
    ap.add_argument("--file-mb", type=float, help="time tilec-opt parse+verify+print on a module of this size (MB)")
    args = ap.parse_args()
    print(
        f"# {platform.python_implementation()} {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus"
    )
    if args.lower_to_c or args.file_mb:
        for n in args.lower_to_c or []:
            wall, mb, _ = run_cli(functions_program(n), "-p", "lower-to-c", "-t", "c")
            print(f"lower-to-c  {n:>7} functions  {wall:8.2f} s  {1e3 * wall / n:6.2f} ms/function  peak {mb:7.0f} MB")
        if args.file_mb:
            per = len(functions_program(1)) - len(functions_program(0))
            text = functions_program(int(args.file_mb * 1e6 / per))
            wall, mb, out = run_cli(text)
            print(
                f"parse+print {len(text) / 1e6:7.1f} MB in, {out / 1e6:.1f} MB out  {wall:8.2f} s  "
                f"{wall / (len(text) / 1e6):.2f} s/MB  peak {mb:7.0f} MB"
            )
        return
    print(f"# tilec IR scale: chain of elementwise ops on !tile.tile<64x64xf32>, best of {args.repeat}")
    print(f"{'ops':>8}  {'parse s':>9}  {'verify s':>9}  {'print s':>9}  {'total s':>9}  {'us/op':>7}")
    for n in args.sizes:
        p, v, w = measure(n, args.repeat)
        total = p + v + w
        print(f"{n:>8}  {p:>9.3f}  {v:>9.3f}  {w:>9.3f}  {total:>9.3f}  {1e6 * total / n:>7.1f}")


if __name__ == "__main__":
    main()
