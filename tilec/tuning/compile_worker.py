"""`python -m tilec.tuning.compile_worker`: builds tuning candidates into the disk cache.

Reads {"text": module text (with locations), "target": ..., "points": [options, ...]} as JSON on
stdin and compiles each point with `tilec.runtime.compile_module`; prints a JSON list with, per
point, None or the error message. A separate program, not a multiprocessing worker: the user's
script (often without an `if __name__ == "__main__"` guard) is never imported again.
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
    out = []
    for options in job["points"]:
        try:
            compile_module(module, job["target"], **options)
            out.append(None)
        except TilecError as e:
            out.append(e.message)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
