"""Building a sweep's candidates in worker processes while the tuner times them.

`Precompiler` starts `workers` programs (`python -m tilec.tuning.compile_worker`), worker w taking
candidates w, w + workers, ... in the sweep's order, each reporting every candidate it has built
into the disk cache. The tuner then either waits for all of them before timing anything (the CPU:
its timing needs the cores the compilers use) or, on a GPU, waits for candidate i only right
before timing it, so the compiles of the later candidates overlap the GPU timing of the earlier
ones (`Precompiler.wait`). `stop()` ends the workers (the tuning budget's end, an early stop).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

from tilec.diagnostics import TilecError


class Precompiler:
    """Worker processes building `points` (options dicts, the sweep's order) for `spec` on
    `target`; nothing to do (every `wait` returns at once) without the disk cache, with fewer
    than two points to build or `workers` < 2, where the sweep compiles in process."""

    def __init__(self, spec, target: str, points: list[dict], workers: int):
        from tilec import cache

        self._done: set[int] = set()
        self._cond = threading.Condition()
        self._procs: list[tuple[subprocess.Popen, list[int], threading.Thread]] = []
        if workers < 2 or not cache.enabled():
            return
        from tilec.backends import get_backend
        from tilec.ir import print_module
        from tilec.runtime import kernel_key

        backend = get_backend(target)

        def cached(p: dict) -> bool:
            try:
                return cache.lookup(kernel_key(spec.module, target, backend.options(p), {})) is not None
            except TilecError:
                return True  # (illegal options: the sweep meets the error itself)

        todo = [i for i, p in enumerate(points) if p and not cached(p)]
        workers = min(workers, len(todo))
        if workers < 2:
            return
        text = print_module(spec.module, debuginfo=True)  # (the kernel cache's key holds the locations)
        for w in range(workers):
            mine = todo[w::workers]
            job = json.dumps({"text": text, "target": target, "points": [[i, points[i]] for i in mine]})
            proc = subprocess.Popen(
                [sys.executable, "-m", "tilec.tuning.compile_worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            proc.stdin.write(job)
            proc.stdin.close()
            reader = threading.Thread(target=self._read, args=(proc,), daemon=True)
            reader.start()
            self._procs.append((proc, mine, reader))

    def _read(self, proc: subprocess.Popen) -> None:
        for line in proc.stdout:
            try:
                i = json.loads(line)["i"]
            except (ValueError, KeyError, TypeError):
                continue
            with self._cond:
                self._done.add(i)
                self._cond.notify_all()
        with self._cond:  # the worker ended (done, killed or crashed): nobody waits on it any longer
            self._cond.notify_all()

    def _pending(self, i: int) -> bool:
        """Candidate i is still being built by a live worker."""
        if i in self._done:
            return False
        return any(i in mine and reader.is_alive() for _, mine, reader in self._procs)

    def wait(self, i: int, deadline: float | None = None) -> None:
        """Return once candidate i is built (or its worker ended, or `deadline`, a
        time.perf_counter value, passed): then compiling it in process is a cache hit, or meets
        its error."""
        with self._cond:
            while self._pending(i):
                left = None if deadline is None else deadline - time.perf_counter()
                if left is not None and left <= 0:
                    return
                self._cond.wait(left)

    def wait_all(self, deadline: float | None = None) -> None:
        """Return once every worker has ended (or `deadline` passed; those still running are stopped)."""
        for proc, _, reader in self._procs:
            try:
                proc.wait(None if deadline is None else max(0.0, deadline - time.perf_counter()))
            except subprocess.TimeoutExpired:
                break
            reader.join()
        self.stop()

    def stop(self) -> None:
        """End the workers still building (what they finished stays in the cache)."""
        for proc, _, reader in self._procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            reader.join()


def precompile(spec, target: str, points: list[dict], workers: int, deadline: float | None = None) -> None:
    """Build `points` into the disk cache in `workers` processes and return when they are done
    (or at `deadline`)."""
    Precompiler(spec, target, points, workers).wait_all(deadline)


__all__ = ["Precompiler", "precompile"]
