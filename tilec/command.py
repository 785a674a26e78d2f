"""`tilec`: the user's command for things around the compiler (tilec-opt is the IR tool).

    tilec cache info     where the disk cache is, how many entries and bytes it holds
    tilec cache clear    delete every entry
    tilec targets        the targets, their named pipelines and options
    tilec tune run S.py  run the script S.py with TILEC_AUTOTUNE=1: each op's first call per shape
                         bucket with nothing stored tunes (--budget seconds each); then list what it stored
    tilec tune list      the tuned choices in the tuning file (docs/tuning.md)
    tilec tune export F  write every tuned choice to the file F (to ship with a model)
    tilec tune import F  add the tuned choices of the file F

Exit status 0 on success, 1 on an error (printed as one line), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import sys


def _cache_info(args) -> int:
    from tilec import cache

    info = cache.info()
    if info.get("error"):
        sys.stderr.write(f"tilec: error: {info['error']}\n")
        return 1
    state = "on" if info["enabled"] else "off (TILEC_CACHE=0)"
    sys.stdout.write(f"cache: {info['path']}\nstate: {state}\nentries: {info['entries']}\nbytes: {info['bytes']}\n")
    return 0


def _cache_clear(args) -> int:
    from tilec import cache

    n = cache.clear()
    sys.stdout.write(f"removed {n} entr{'y' if n == 1 else 'ies'}\n")
    return 0


def _targets(args) -> int:
    from tilec.backends import BACKENDS
    from tilec.options import dashed, option_infos

    for b in BACKENDS:
        opts = " ".join(dashed(i.name) for i in option_infos(b.Options))
        sys.stdout.write(f"{b.name}: -p {b.pipeline_name}, -t {b.language}; options: {opts}\n")
    return 0


def _tune_list(args) -> int:
    from tilec.tuning import TuneStore

    store = TuneStore()
    entries = store.entries()
    sys.stdout.write(f"tuning file: {store.path}\nentries: {len(entries)}\n")
    for key, r in sorted(entries.items(), key=lambda kv: (kv[1].get("op", ""), kv[0])):
        opts = " ".join(f"{k.replace('_', '-')}={v}" for k, v in r.get("options", {}).items()) or "(defaults)"
        speed = r.get("default_time_s", 0) / r["time_s"] if r.get("time_s") else 1.0
        sys.stdout.write(
            f"{r.get('op', '?')} {r.get('target', '?')} {r.get('bucket', '')}: {opts}, {speed:.2f}x the default on {r.get('device', '?')}\n"
        )
    return 0


def _tune_run(args) -> int:
    """The script in a child Python with TILEC_AUTOTUNE=1 (its own `__main__`, its arguments);
    then the entries it added to the tuning file. Exit status: the script's."""
    import os
    import subprocess
    from pathlib import Path

    from tilec.tuning import TuneStore

    if not Path(args.script).is_file():
        sys.stderr.write(f"tilec: error: no such script: {args.script}\n")
        return 1
    store = TuneStore()
    before = set(store.entries()) if store.path.exists() else set()
    env = {**os.environ, "TILEC_AUTOTUNE": "1", "TILEC_AUTOTUNE_BUDGET": str(args.budget)}
    code = subprocess.run([sys.executable, args.script, *args.args], env=env).returncode
    entries = store.entries() if store.path.exists() else {}
    new = {k: r for k, r in entries.items() if k not in before}
    sys.stdout.write(f"tuned {len(new)} new entr{'y' if len(new) == 1 else 'ies'} into {store.path}\n")
    for r in sorted(new.values(), key=lambda r: (r.get("op", ""), r.get("bucket", ""))):
        opts = " ".join(f"{k.replace('_', '-')}={v}" for k, v in r.get("options", {}).items()) or "(defaults)"
        speed = r.get("default_time_s", 0) / r["time_s"] if r.get("time_s") else 1.0
        sys.stdout.write(
            f"{r.get('op', '?')} {r.get('target', '?')} {r.get('bucket', '')}: {opts}, {speed:.2f}x the default\n"
        )
    return code


def _tune_export(args) -> int:
    from tilec.tuning import TuneStore

    n = TuneStore().export(args.file)
    sys.stdout.write(f"exported {n} entr{'y' if n == 1 else 'ies'} to {args.file}\n")
    return 0


def _tune_import(args) -> int:
    from tilec.tuning import TuneStore

    n = TuneStore().import_file(args.file)
    sys.stdout.write(f"imported {n} entr{'y' if n == 1 else 'ies'} from {args.file}\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tilec", description="tilec: the disk cache, the targets and tuned choices (tilec-opt works on IR)."
    )
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("cache", help="the disk cache of compiled kernels")
    csub = c.add_subparsers(dest="action", required=True)
    csub.add_parser("info", help="where the cache is and what it holds").set_defaults(run=_cache_info)
    csub.add_parser("clear", help="delete every entry").set_defaults(run=_cache_clear)
    sub.add_parser("targets", help="the targets, their pipelines and options").set_defaults(run=_targets)
    t = sub.add_parser("tune", help="the tuned choices of op.tune (docs/tuning.md)")
    tsub = t.add_subparsers(dest="action", required=True)
    r = tsub.add_parser("run", help="run a script with TILEC_AUTOTUNE=1, then list what it tuned")
    r.add_argument("--budget", type=float, default=30.0, help="seconds of tuning per op and shape bucket (default 30)")
    r.add_argument("script")
    r.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    r.set_defaults(run=_tune_run)
    tsub.add_parser("list", help="the entries of the tuning file").set_defaults(run=_tune_list)
    e = tsub.add_parser("export", help="write every entry to a file")
    e.add_argument("file")
    e.set_defaults(run=_tune_export)
    i = tsub.add_parser("import", help="add the entries of a file")
    i.add_argument("file")
    i.set_defaults(run=_tune_import)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except Exception as e:  # noqa: BLE001 - one line, no traceback
        from tilec.diagnostics import TilecError

        sys.stderr.write(f"tilec: error: {e.message if isinstance(e, TilecError) else e}\n")
        return 1


def main_exit() -> None:
    sys.exit(main())


if __name__ == "__main__":
    main_exit()
