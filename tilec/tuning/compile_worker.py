"""`python -m tilec.tuning.compile_worker`: builds tuning candidates into the disk cache.

Reads {"text": module text (with locations), "target": ..., "points": [[index, options], ...]}
as JSON on stdin and compiles each point with `tilec.runtime.compile_module`, in order; after
each one prints a JSON line {"i": index, "error": None or the message} and flushes, so that the
tuner can time a candidate as soon as it is built (`precompile.Precompiler.wait`). A separate
program, not a multiprocessing worker: the user's script (often without an `if __name__ ==
"__main__"` guard) is never imported again.
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    from tilec.diagnostics import TilecError
    from tilec.ir import make_context, parse_module
    from tilec.runtime import compile_module

    job = json.load(sys.stdin)
    module = parse_module(make_context(), job["text"])
    for index, options in job["points"]:
        try:
            compile_module(module, job["target"], **options)
            error = None
        except TilecError as e:
            error = e.message
        print(json.dumps({"i": index, "error": error}), flush=True)


if __name__ == "__main__":
    main()
