"""Where a weight gradient's time goes: per-kernel CUDA times (torch.profiler) of tilec's
conv_backward_weight (default, and with transpose-tile=0) and torch's, ResNet-50 layers, batch 64
f16 channels-last; each result checked against torch first.

    python benchmarks/wgrad_profile.py
"""

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

import tilec
from tilec import float16, tile_op

gen = torch.Generator(device="cuda").manual_seed(0)


def nhwc(t):
    return t.permute(0, 2, 3, 1)


for n, c, h, o, k, s, p in [(64, 64, 56, 64, 3, 1, 1), (64, 64, 56, 256, 1, 1, 0), (64, 256, 14, 256, 3, 1, 1)]:
    x = torch.randn(n, c, h, h, device="cuda", generator=gen).half().contiguous(memory_format=torch.channels_last)
    w = torch.randn(o, c, k, k, device="cuda", generator=gen).half().contiguous(memory_format=torch.channels_last)
    gy = torch.randn_like(F.conv2d(x, w, stride=s, padding=p)).contiguous(memory_format=torch.channels_last)

    @tile_op(dtype=float16)
    def bwd_weight(xv, gyv):
        return tilec.conv_backward_weight(xv, gyv, (o, k, k, c), stride=s, padding=p, layout="channels_last")

    tin = (nhwc(x), nhwc(gy))
    kern = bwd_weight.compile("cuda", *tin)
    kern0 = bwd_weight.compile("cuda", *tin, transpose_tile=0)
    ref = torch.nn.grad.conv2d_weight(x, w.shape, gy, stride=s, padding=p).permute(0, 2, 3, 1).float()
    for kk in (kern, kern0):
        got = torch.as_tensor(kk(*tin)[0], device="cuda").float()
        err = float((got - ref).norm() / ref.norm())
        print("relative error against torch", err)
        assert err < 1e-2, f"weight gradient: relative error {err} against torch"
    for _ in range(3):
        kern(*tin)
        kern0(*tin)
        torch.nn.grad.conv2d_weight(x, w.shape, gy, stride=s, padding=p)
    torch.cuda.synchronize()
    for label, fn in (
        ("tilec", lambda: kern(*tin)),
        ("tilec transpose-tile=0", lambda: kern0(*tin)),
        ("torch", lambda: torch.nn.grad.conv2d_weight(x, w.shape, gy, stride=s, padding=p)),
    ):
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(5):
                fn()
            torch.cuda.synchronize()
        print(f"== {label} wgrad n{n} c{c} h{h} o{o} k{k}")
        tot = 0
        for e in sorted(prof.key_averages(), key=lambda e: -e.device_time_total)[:8]:
            us = e.device_time_total / 5
            tot += us
            print(f"  {us:9.1f} us  x{e.count // 5}  {e.key[:90]}")
        print(f"  total {tot:.1f} us/call")
