"""The attention reference the CPU and GPU attention tests share (float64 torch)."""

from __future__ import annotations

import numpy as np
import torch


def reference(q, k, v, scale, causal=False, mask=None):
    """softmax(q k^T * scale [+ mask]) v and the log-sum-exp, in float64."""
    q, k, v = (torch.from_numpy(np.asarray(a, np.float64)) for a in (q, k, v))
    s = q @ k.transpose(-1, -2) * scale
    if causal:
        n_l, n_s = s.shape[-2:]
        s = s.masked_fill(torch.ones(n_l, n_s, dtype=torch.bool).triu(1), float("-inf"))
    if mask is not None:
        m = torch.from_numpy(mask)
        s = s.masked_fill(~m, float("-inf")) if m.dtype == torch.bool else s + m.double()
    return (torch.softmax(s, -1) @ v).numpy(), torch.logsumexp(s, -1).numpy()


__all__ = ["reference"]
