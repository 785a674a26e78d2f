import cupy as cp, tilec, statistics
from tilec import tile_op, float16
x = cp.random.standard_normal((32768, 8192), dtype=cp.float32).astype(cp.float16)
def bench(f, n=10):
    for _ in range(3): f()
    ts=[]
    for _ in range(n):
        s, e = cp.cuda.Event(), cp.cuda.Event(); s.record()
        for _ in range(10): f()
        e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e)/10)
    return statistics.median(ts)
@tile_op(dtype=float16)
def scale(x):
    return x * 2.0
@tile_op(dtype=float16)
def gelu(x):
    y = x * 1.5 + 0.25
    return 0.5 * y * (1.0 + tilec.tanh(0.7978845608 * (y + 0.044715 * y * y * y)))
@tile_op(dtype=float16)
def expo(x):
    return tilec.exp(x)
def copy():
    y = cp.empty_like(x); y[...] = x
t = bench(copy); print(f"copy {2*x.nbytes/t/1e6:.0f} GB/s")
for name, op in (("scale", scale), ("exp", expo), ("gelu", gelu)):
    for th in (128, 256, 512):
        k = op.compile("cuda", x, threads=th)
        t = bench(lambda: k(x))
        print(f"{name} threads={th}: {2*x.nbytes/t/1e6:.0f} GB/s")
