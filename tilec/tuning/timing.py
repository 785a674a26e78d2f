"""How the tuner runs and times candidates on each target (`clock_for`).

- cpu: the arrays as numpy arrays; `repeats` calls after two warm-up calls, each timed with
  `time.perf_counter`; the median.
- cuda: the arrays copied to the GPU once (CuPy); two warm-up calls, then `repeats` calls, each
  after writing a buffer twice the size of the L2 cache (so no call finds its operands in L2 from
  the one before) and timed with CUDA events recorded on the current stream around the call
  alone; the median. Results come back to the host for the check against the default's.
- hip: not supported yet (no AMD GPU to time on).
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from tilec.diagnostics import NotSupportedYet


class CpuClock:
    """Candidates run on the host: numpy arrays, `time.perf_counter`."""

    def prepare(self, examples) -> list:
        return [np.asarray(a) for a in examples]

    def outputs(self, kernel, arrays) -> list[np.ndarray]:
        return [np.asarray(o) for o in kernel(*arrays)]

    def time(self, kernel, arrays, repeats: int) -> float:
        for _ in range(2):  # warm-up: the library's first calls (thread team, page faults) are slower
            kernel(*arrays)
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            kernel(*arrays)
            times.append(time.perf_counter() - t)
        return statistics.median(times)


class CudaClock:
    """Candidates run on the current CUDA device through CuPy, timed with CUDA events, the L2
    cache flushed before each timed call."""

    def __init__(self):
        from tilec.runtime.cuda import cupy

        self.cp = cp = cupy()
        dev = cp.cuda.Device()
        l2 = int(dev.attributes.get("L2CacheSize", 0)) or 64 << 20
        self.flush = cp.empty(2 * l2, dtype=cp.uint8)

    def prepare(self, examples) -> list:
        cp = self.cp  # CuPy arrays as they are, other GPU arrays (torch CUDA tensors) viewed without a copy
        return [
            a
            if isinstance(a, cp.ndarray)
            else cp.asarray(a if hasattr(a, "__cuda_array_interface__") else np.asarray(a))
            for a in examples
        ]

    def outputs(self, kernel, arrays) -> list[np.ndarray]:
        return [self.cp.asnumpy(o) for o in kernel(*arrays)]

    def time(self, kernel, arrays, repeats: int) -> float:
        cp = self.cp
        for _ in range(2):
            kernel(*arrays)
        start, end = cp.cuda.Event(), cp.cuda.Event()
        times = []
        for i in range(repeats):
            self.flush.fill(i & 0xFF)
            start.record()
            kernel(*arrays)
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end) * 1e-3)
        return statistics.median(times)


def clock_for(target: str):
    """The clock of `target` (see the module docstring)."""
    if target == "cpu":
        return CpuClock()
    if target == "cuda":
        return CudaClock()
    raise NotSupportedYet(f"tuning on target {target} (no AMD GPU to time candidates on); tune on cpu or cuda")


__all__ = ["CpuClock", "CudaClock", "clock_for"]
