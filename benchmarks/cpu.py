"""tilec vs numpy on the CPU, measured in the same process.

    python benchmarks/cpu.py [--quick] [--repeats N] [--threads T] [--out DIR] [--no-plot] [--spin-test]

What runs (random inputs; each tilec result is checked against numpy before anything is timed):
- f32 matmul, square sizes 256 .. 2048: GFLOP/s (2*M*N*K / time), tilec vs numpy `a @ b`
  (OpenBLAS);
- softmax and layernorm over 4096 x 4096 f32: GB/s (bytes read + written once: input, gamma,
  beta, output), vs the usual numpy formulations
  `e = np.exp(x - x.max(-1, keepdims=True)); e / e.sum(-1, keepdims=True)` and
  `(x - mean) / np.sqrt(var + eps) * g + b`;
- a fused elementwise chain `gelu(x * a + b)` (tanh form) on 4096 x 4096 vs the numpy chain.

How it measures (the machine is small, shared and noisy):
- Threads: `--threads T` (default: $OMP_NUM_THREADS, else the number of CPUs) is written to both
  OMP_NUM_THREADS (tilec's OpenMP) and OPENBLAS_NUM_THREADS (numpy's BLAS) before numpy is
  imported; the counts the libraries report are recorded in the JSON. numpy's ufuncs and
  reductions (softmax, layernorm, the chain) run on one thread whatever T is: only `@` is
  threaded.
- Spinning threads: after a call, OpenBLAS's idle worker threads busy-wait (about 2^28 cycles by
  default), and so do libgomp's (GOMP_SPINCOUNT), so the *other* library's next call finds its
  cores taken. `--spin-test` measures it (matmul right after the other library's call): with
  the defaults tilec's matmul runs at a fraction of its speed right after a numpy matmul. By
  default (`--spin-env mitigated`) the script sets OPENBLAS_THREAD_TIMEOUT=4 and
  GOMP_SPINCOUNT=10000 (short spins for both; each library's calls in a row still find their
  threads awake); `--spin-env default` keeps both libraries' defaults.
- Rounds: compile, check, two warm-up calls each; then `--repeats` rounds. A round is a tilec
  block and a numpy block (the order alternates between rounds); a block is a pause
  (`--pause-ms`, 2 ms), one untimed call (wakes the library's threads) and 3 or more timed calls
  (enough for ~20 ms). Reported: each side's median time and its 25-75 % range over all timed
  calls, and the ratio numpy_time / tilec_time computed per round from the two block medians
  (neighbours in time see the same machine load) with its median and 25-75 % range. A ratio
  > 1 means tilec is faster.

Outputs: a table on stdout, `DIR/cpu.json` (every number, every timing) and `DIR/cpu.png`
(matplotlib, skipped with a note when it is not installed). DIR defaults to benchmarks/out/.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _parse() -> argparse.Namespace:
    p = argparse.ArgumentParser(description="tilec vs numpy on the CPU (same process, interleaved repeats)")
    p.add_argument("--quick", action="store_true", help="small sizes (seconds; for tests)")
    p.add_argument("--repeats", type=int, default=None, help="timed rounds per benchmark (default 15, quick 3)")
    p.add_argument(
        "--threads",
        type=int,
        default=None,
        help="threads for both OpenMP and OpenBLAS (default: $OMP_NUM_THREADS or all CPUs)",
    )
    p.add_argument(
        "--out", type=Path, default=HERE / "out", help="directory for cpu.json and cpu.png (default benchmarks/out/)"
    )
    p.add_argument("--no-plot", action="store_true", help="do not write the PNG chart")
    p.add_argument("--only", default=None, help="comma-separated subset: matmul,softmax,layernorm,gelu_chain")
    p.add_argument("--sizes", default=None, help="comma-separated matmul sizes (overrides the defaults)")
    p.add_argument(
        "--gemm-options",
        default="",
        help="tilec GEMM options for the matmuls, e.g. 'kc=256 mc=48' or 'vector=8' (mr, nr, kc, mc, vector)",
    )
    p.add_argument(
        "--spin-env",
        choices=["mitigated", "default"],
        default="mitigated",
        help="mitigated: short OpenBLAS/libgomp spin-waits (default); default: the libraries' own settings",
    )
    p.add_argument("--pause-ms", type=float, default=2.0, help="pause before each block of calls (default 2 ms)")
    p.add_argument(
        "--spin-test",
        action="store_true",
        help="also measure how each library's spinning threads slow the other (runs subprocesses)",
    )
    p.add_argument("--spin-child", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args()


ARGS = _parse() if __name__ == "__main__" else None
THREADS = (
    (ARGS.threads if ARGS and ARGS.threads else None)
    or int(os.environ.get("OMP_NUM_THREADS", "0") or 0)
    or os.cpu_count()
    or 1
)
if ARGS is not None:
    # must happen before numpy (OpenBLAS) and the first tilec kernel (libgomp) are loaded
    os.environ["OMP_NUM_THREADS"] = str(THREADS)
    os.environ["OPENBLAS_NUM_THREADS"] = str(THREADS)
    os.environ["MKL_NUM_THREADS"] = str(THREADS)
    if ARGS.spin_env == "mitigated":
        os.environ["OPENBLAS_THREAD_TIMEOUT"] = "4"
        os.environ["GOMP_SPINCOUNT"] = "10000"
    else:
        os.environ.pop("OPENBLAS_THREAD_TIMEOUT", None)
        os.environ.pop("GOMP_SPINCOUNT", None)

import numpy as np  # noqa: E402

sys.path.insert(0, str(HERE.parent))
import tilec  # noqa: E402
from tilec import float32, tile_contract, tile_op  # noqa: E402

EPS = 1e-5
GELU_C = math.sqrt(2.0 / math.pi)


# --- the tile programs ------------------------------------------------------------------------


@tile_op(dtype=float32, dims=["M", "N", "K"])
def matmul(A, B):
    return tile_contract(A, B, axes=[(-1, 0)])


@tile_op(dtype=float32, dims=["M", "N"])
def softmax(x):
    m = tilec.max(x, axis=-1, keepdims=True)
    e = tilec.exp(x - m)
    return e / tilec.sum(e, axis=-1, keepdims=True)


def make_layernorm(n: int):
    # the feature size is static (fixed by gamma/beta, as in a model); the row count is dynamic
    @tile_op(dtype=float32, dims=["M", n])
    def layernorm(x, g, b):
        mean = tilec.mean(x, axis=-1, keepdims=True)
        d = x - mean
        var = tilec.mean(d * d, axis=-1, keepdims=True)
        return d * tilec.rsqrt(var + EPS) * g + b

    return layernorm


@tile_op(dtype=float32, dims=["M", "N"])
def gelu_chain(x, a, b):
    y = x * a + b
    return 0.5 * y * (1.0 + tilec.tanh(GELU_C * (y + 0.044715 * y * y * y)))


# --- the numpy formulations -----------------------------------------------------------------


def np_matmul(A, B):
    return A @ B


def np_softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def np_layernorm(x, g, b):
    mean = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * g + b


def np_gelu_chain(x, a, b):
    y = x * a + b
    return 0.5 * y * (1.0 + np.tanh(GELU_C * (y + 0.044715 * y * y * y)))


# --- environment ----------------------------------------------------------------------------------


def _loaded_library(fragment: str) -> str | None:
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                if fragment in Path(path).name.lower() and ".so" in path:
                    return path
    except OSError:
        pass
    return None


def _openblas_info() -> dict:
    import ctypes

    path = _loaded_library("openblas")
    info: dict = {"library": path}
    if not path:
        return info
    lib = ctypes.CDLL(path)
    for prefix in ("scipy_openblas", "openblas"):
        for suffix in ("64_", "_64_", ""):
            try:
                fn = getattr(lib, f"{prefix}_get_num_threads{suffix}")
            except AttributeError:
                continue
            fn.restype = ctypes.c_int
            info["threads"] = fn()
            core = getattr(lib, f"{prefix}_get_corename{suffix}", None)
            if core is not None:
                core.restype = ctypes.c_char_p
                info["core"] = core().decode()
            return info
    return info


def _openmp_threads() -> int | None:
    import ctypes

    path = _loaded_library("libgomp") or _loaded_library("libomp")
    if not path:
        return None
    fn = ctypes.CDLL(path).omp_get_max_threads
    fn.restype = ctypes.c_int
    return fn()


def _cpu_model() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return platform.processor() or "unknown"


def machine_info() -> dict:
    from tilec.toolchain.cc import compiler

    cc = compiler()
    flags = ""
    try:
        flags = next(line for line in open("/proc/cpuinfo") if line.startswith("flags"))
    except (OSError, StopIteration):
        pass
    simd = [f for f in ("avx2", "fma", "avx512f") if f" {f}" in flags]
    return {
        "cpu": _cpu_model(),
        "cpus": os.cpu_count(),
        "simd": simd,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "c_compiler": f"{cc.version} {' '.join(cc.flags)}",
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "loadavg_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


# --- measuring ------------------------------------------------------------------------------------


def _stats(ts: list[float]) -> dict:
    a = np.asarray(ts)
    return {
        "median_s": float(np.median(a)),
        "p25_s": float(np.percentile(a, 25)),
        "p75_s": float(np.percentile(a, 75)),
        "min_s": float(a.min()),
        "times_s": [float(t) for t in a],
    }


def _timed(fn, args) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def _block(fn, args, inner: int, pause: float) -> list[float]:
    """One block: a pause, one untimed call (wakes the library's threads), `inner` timed calls."""
    if pause:
        time.sleep(pause)
    fn(*args)
    return [_timed(fn, args) for _ in range(inner)]


def measure(
    name: str,
    size: str,
    metric: str,
    work: float,
    op,
    ref,
    args: tuple,
    check,
    repeats: int,
    pause: float,
    options=None,
) -> dict:
    """Compile, check, warm up, then `repeats` rounds of (a tilec block, a numpy block)."""
    t0 = time.perf_counter()
    kernel = op.compile("cpu", *args, **(options or {}))
    compile_s = time.perf_counter() - t0
    got = kernel(*args)[0]
    want = ref(*args)
    ok, err = check(got, want)
    if not ok:
        print(f"  {name} {size}: tilec result differs from numpy (max error {err:.3g}); not timed", file=sys.stderr)
        return {"name": name, "size": size, "metric": metric, "correct": False, "max_error": err}
    est = []
    for _ in range(2):  # warm-up (page faults, caches, thread pools)
        est.append(_timed(kernel, args))
        est.append(_timed(ref, args))
    # calls per block: at least 3, and enough for ~20 ms (small sizes), at most 200
    inner = int(min(200, max(3, math.ceil(0.02 / max(min(est), 1e-7)))))
    tt, tn, ratios = [], [], []
    for r in range(repeats):
        blocks = [(kernel, tt), (ref, tn)]
        if r % 2:
            blocks.reverse()
        got_t: dict = {}
        for fn, out in blocks:
            ts = _block(fn, args, inner, pause)
            out += ts
            got_t[id(out)] = float(np.median(ts))
        ratios.append(got_t[id(tn)] / got_t[id(tt)])
    scale = 1e9
    row = {
        "name": name,
        "size": size,
        "metric": metric,
        "work": work,
        "loadavg_1min": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,  # after the rounds
        "correct": True,
        "max_error": err,
        "compile_s": compile_s,
        "calls_per_block": inner,
        "tilec": _stats(tt),
        "numpy": _stats(tn),
        "ratio": {
            "median": float(np.median(ratios)),
            "p25": float(np.percentile(ratios, 25)),
            "p75": float(np.percentile(ratios, 75)),
            "per_round": ratios,
            "best": float(min(tn) / min(tt)),  # fastest numpy call / fastest tilec call
        },
    }
    for side in ("tilec", "numpy"):
        s = row[side]
        s["rate_best"] = work / s["min_s"] / scale
        s["rate"] = work / s["median_s"] / scale
        s["rate_p25"] = work / s["p75_s"] / scale  # slower quartile time -> lower rate
        s["rate_p75"] = work / s["p25_s"] / scale
    return row


def _check_close(rtol: float, atol: float):
    def check(got, want):
        err = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64))))
        return bool(got.shape == want.shape and np.allclose(got, want, rtol=rtol, atol=atol)), err

    return check


def _check_matmul(got, want):
    # f32 sums of K products in a different order: relative to the largest |entry|
    err = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64))))
    scale = float(np.max(np.abs(want))) or 1.0
    return bool(got.shape == want.shape and err <= 1e-4 * scale), err


def gemm_options(args: argparse.Namespace) -> dict:
    out = {}
    for item in args.gemm_options.replace(",", " ").split():
        key, _, value = item.partition("=")
        out[key] = int(value)
    return out


def _gemm_vector(args: argparse.Namespace) -> int:
    """The f32 SIMD width of tilec's GEMM micro-kernel (the host's unless --gemm-options sets it)."""
    from tilec.backends import get_backend

    return get_backend("cpu").options(gemm_options(args)).vector


# --- the suite --------------------------------------------------------------------------------------


def run_suite(args: argparse.Namespace) -> list[dict]:
    quick = args.quick
    repeats = args.repeats or (3 if quick else 15)
    pause = args.pause_ms / 1e3
    only = set(args.only.split(",")) if args.only else {"matmul", "softmax", "layernorm", "gelu_chain"}
    rng = np.random.default_rng(0)
    rows: list[dict] = []

    def report(row: dict) -> None:
        rows.append(row)
        if row["correct"]:
            t, n, r = row["tilec"], row["numpy"], row["ratio"]
            print(
                f"  {row['name']:<11} {row['size']:>11}  tilec {t['rate']:7.1f}  numpy {n['rate']:7.1f} {row['metric']:<7} "
                f"ratio {r['median']:.2f} [{r['p25']:.2f}-{r['p75']:.2f}]",
                flush=True,
            )

    if "matmul" in only:
        sizes = (
            [int(s) for s in args.sizes.split(",")]
            if args.sizes
            else ([64, 128, 256] if quick else [256, 512, 1024, 1536, 2048])
        )
        for n in sizes:
            A = rng.uniform(-1, 1, (n, n)).astype(np.float32)
            B = rng.uniform(-1, 1, (n, n)).astype(np.float32)
            report(
                measure(
                    "matmul",
                    f"{n}^3",
                    "GFLOP/s",
                    2.0 * n**3,
                    matmul,
                    np_matmul,
                    (A, B),
                    _check_matmul,
                    repeats,
                    pause,
                    gemm_options(args),
                )
            )
    m = n = 256 if quick else 4096
    size = f"{m}x{n}"
    x = rng.standard_normal((m, n), dtype=np.float32)
    g = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    elems = 4.0 * m * n
    if "softmax" in only:
        report(
            measure(
                "softmax", size, "GB/s", 2 * elems, softmax, np_softmax, (x,), _check_close(1e-5, 1e-7), repeats, pause
            )
        )
    if "layernorm" in only:
        ln = make_layernorm(n)
        report(
            measure(
                "layernorm",
                size,
                "GB/s",
                2 * elems + 8.0 * n,
                ln,
                np_layernorm,
                (x, g, b),
                _check_close(1e-4, 1e-4),
                repeats,
                pause,
            )
        )
    if "gelu_chain" in only:
        a = rng.uniform(0.5, 1.5, n).astype(np.float32)
        report(
            measure(
                "gelu_chain",
                size,
                "GB/s",
                2 * elems + 8.0 * n,
                gelu_chain,
                np_gelu_chain,
                (x, a, b),
                _check_close(1e-5, 1e-5),
                repeats,
                pause,
            )
        )
    return rows


# --- spinning threads ---------------------------------------------------------------------------


def spin_child(args: argparse.Namespace) -> dict:
    """Matmul timings right after the other library's call (no pause) and after a 5 ms pause."""
    n = 256 if args.quick else 1024
    rng = np.random.default_rng(1)
    A = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    B = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    k = matmul.compile("cpu", A, B)
    for _ in range(3):
        k(A, B)
        A @ B
    reps = args.repeats or (3 if args.quick else 15)
    out = {"size": n}
    for pause in (0.0, 0.005):
        tt, tn = [], []
        for _ in range(reps):
            A @ B
            time.sleep(pause)
            tt.append(_timed(k, (A, B)))
            time.sleep(pause)
            tn.append(_timed(np_matmul, (A, B)))
        key = f"pause_{int(pause * 1e3)}ms"
        out[key] = {
            "tilec_gflops": 2.0 * n**3 / float(np.median(tt)) / 1e9,
            "numpy_gflops": 2.0 * n**3 / float(np.median(tn)) / 1e9,
        }
    return out


def spin_test(args: argparse.Namespace) -> dict:
    res = {}
    for env in ("default", "mitigated"):
        cmd = [sys.executable, __file__, "--spin-child", "--spin-env", env, "--threads", str(THREADS)]
        if args.quick:
            cmd.append("--quick")
        if args.repeats:
            cmd += ["--repeats", str(args.repeats)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            res[env] = {"error": r.stderr[-2000:]}
            continue
        res[env] = json.loads(r.stdout.strip().splitlines()[-1])
    return res


# --- output --------------------------------------------------------------------------------------


def print_table(rows: list[dict]) -> None:
    print()
    print(
        "| benchmark | size | unit | tilec median (25-75 %) | numpy median (25-75 %) | ratio median (25-75 %) | tilec best | numpy best | ratio of bests |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if not r["correct"]:
            print(f"| {r['name']} | {r['size']} | {r['metric']} | WRONG (max error {r['max_error']:.3g}) | | |")
            continue
        t, n, q = r["tilec"], r["numpy"], r["ratio"]
        print(
            f"| {r['name']} | {r['size']} | {r['metric']} | {t['rate']:.1f} ({t['rate_p25']:.1f}-{t['rate_p75']:.1f}) "
            f"| {n['rate']:.1f} ({n['rate_p25']:.1f}-{n['rate_p75']:.1f}) | {q['median']:.2f} ({q['p25']:.2f}-{q['p75']:.2f}) "
            f"| {t['rate_best']:.1f} | {n['rate_best']:.1f} | {q['best']:.2f} |"
        )
    print(
        "\nrates over all timed calls; ratio = numpy time / tilec time per round (> 1: tilec faster); best = fastest call"
    )


def plot(rows: list[dict], path: Path, title: str) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install -e '.[bench]'): no chart", file=sys.stderr)
        return False
    mm = [r for r in rows if r["correct"] and r["name"] == "matmul"]
    mem = [r for r in rows if r["correct"] and r["name"] != "matmul"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), gridspec_kw={"width_ratios": [max(len(mm), 1), max(len(mem), 1)]})
    for ax, group, ylabel in ((axes[0], mm, "GFLOP/s"), (axes[1], mem, "GB/s")):
        if not group:
            ax.set_visible(False)
            continue
        xs = np.arange(len(group))
        w = 0.38
        for off, side, color in ((-w / 2, "tilec", "tab:blue"), (w / 2, "numpy", "tab:orange")):
            vals = [r[side]["rate"] for r in group]
            lo = [r[side]["rate"] - r[side]["rate_p25"] for r in group]
            hi = [r[side]["rate_p75"] - r[side]["rate"] for r in group]
            ax.bar(xs + off, vals, w, yerr=[lo, hi], capsize=3, color=color, label=side)
        for x, r in zip(xs, group):
            top = max(r["tilec"]["rate_p75"], r["numpy"]["rate_p75"])
            ax.annotate(f"{r['ratio']['median']:.2f}x", (x, top), ha="center", va="bottom", fontsize=9)
        ax.set_xticks(xs)
        ax.set_xticklabels([r["size"] if r["name"] == "matmul" else f"{r['name']}\n{r['size']}" for r in group])
        ax.set_ylabel(ylabel)
        ax.set_title("f32 matmul" if group is mm else "memory-bound (f32)")
        ax.legend(loc="upper left")
        ax.margins(y=0.15)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main() -> int:
    args = ARGS
    assert args is not None
    if args.spin_child:
        print(json.dumps(spin_child(args)))
        return 0
    info = machine_info()
    print(
        f"{info['cpu']}, {info['cpus']} CPUs ({', '.join(info['simd'])}); numpy {info['numpy']}; "
        f"tilec GEMM vector={_gemm_vector(args)}"
    )
    load = info["loadavg_start"]
    if load and load[0] > 0.5:
        print(f"note: load average {load[0]:.1f} before starting: other processes compete for the CPUs")
    rows = run_suite(args)
    config = {
        "quick": args.quick,
        "repeats": args.repeats or (3 if args.quick else 15),
        "threads": THREADS,
        "pause_ms": args.pause_ms,
        "spin_env": args.spin_env,
        "gemm_options": gemm_options(args),
        "gemm_vector": _gemm_vector(args),
        "env": {
            k: os.environ.get(k)
            for k in (
                "OMP_NUM_THREADS",
                "OPENBLAS_NUM_THREADS",
                "OPENBLAS_THREAD_TIMEOUT",
                "GOMP_SPINCOUNT",
                "OMP_WAIT_POLICY",
            )
        },
        "openblas": _openblas_info(),
        "openmp_threads": _openmp_threads(),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "loadavg_end": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }
    ob = config["openblas"]
    print(
        f"threads: OpenMP {config['openmp_threads']}, OpenBLAS {ob.get('threads')} (core {ob.get('core')}); spin env: {args.spin_env}"
    )
    print_table(rows)
    data = {"machine": info, "config": config, "results": rows}
    if args.spin_test:
        print("\nspinning threads (matmul; tilec timed right after a numpy call, numpy right after a tilec call):")
        data["spin_test"] = st = spin_test(args)
        for env, r in st.items():
            if "error" in r:
                print(f"  {env}: failed: {r['error']}")
                continue
            parts = [
                f"{k}: tilec {v['tilec_gflops']:.0f} numpy {v['numpy_gflops']:.0f} GFLOP/s"
                for k, v in r.items()
                if k.startswith("pause")
            ]
            print(f"  {env:<9} n={r['size']}: " + "; ".join(parts))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "cpu.json").write_text(json.dumps(data, indent=1))
    print(f"\nwrote {args.out / 'cpu.json'}", end="")
    if not args.no_plot:
        title = f"tilec vs numpy, {info['cpu']}, {THREADS} thread(s), {info['date']}"
        if plot(rows, args.out / "cpu.png", title):
            print(f" and {args.out / 'cpu.png'}", end="")
    print()
    return 0 if all(r["correct"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
