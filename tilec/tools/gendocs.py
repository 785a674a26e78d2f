"""Generate docs/dialects/{tile,mapped,hw}.md from the op and type docstrings, and the option
tables of docs/cpu.md, docs/cuda.md and docs/hip.md from the backends' options dataclasses.

    python -m tilec.tools.gendocs            # rewrite the files
    python -m tilec.tools.gendocs --check    # exit 1 if they are out of date (CI runs this via pytest)

Each op's docstring is its documentation: the first paragraph is the summary, indented lines are
examples of the custom syntax. Operands, results and properties come from the IRDL definition.
An option table sits between `<!-- options: TARGET -->` and `<!-- /options -->` in the target's page.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation

from tilec.ir import tilec_dialects

DOCS_DIR = Path(__file__).resolve().parents[2] / "docs" / "dialects"
TARGET_DOCS = {"cpu": "cpu.md", "cuda": "cuda.md", "hip": "hip.md"}
"""The page of each target (docs/): its option table is generated."""
OPTIONS_END = "<!-- /options -->"

_INTRO = {
    "tile": "The surface level: what the user means, with nothing about hardware. Whole-tile values "
    "with static or dynamic (`?`) shapes; function arguments are global arrays.",
    "mapped": "The middle level: the computation placed on a machine. Memory spaces, the thread "
    "hierarchy, explicit loops, copies, barriers and per-warp fragments appear; it is still "
    "target-family generic. Scalar/vector arithmetic uses upstream `arith`/`math`/`vector`, "
    "sequential loops and conditionals upstream `scf`.",
    "hw": "The bottom level: per-thread instructions of one target (`hw.nv.*` for PTX, "
    "`hw.amd.*` for HIP, `hw.cpu.*` for C), one SSA value per register. Scalar arithmetic uses "
    "upstream `arith`/`math`, control flow upstream `scf`. Emitters print it without deciding anything.",
}


def _doc_parts(obj) -> tuple[str, str]:
    """(summary, rest) of a class docstring; rest keeps example lines indented by 4 spaces.

    Classes are defined at module level, so their docstring body sits at 4 spaces and examples
    at 8 (inspect.getdoc would strip both to zero and lose the distinction)."""
    raw = obj.__dict__.get("__doc__") or ""
    first, _, tail = raw.partition("\n")
    tail_lines = [ln[4:] if ln.startswith("    ") else ln.lstrip() for ln in tail.split("\n")]
    doc = (first.strip() + "\n" + "\n".join(tail_lines)).strip()
    paras = doc.split("\n\n", 1)
    summary = " ".join(paras[0].split())
    rest = paras[1] if len(paras) > 1 else ""
    return summary, rest


# a paragraph starting with an op of tilec's dialects (or an SSA definition of one) is an IR
# example even when it is not indented: ruff's docstring formatting removes the indentation of a
# docstring whose whole body is one indented example
IR_EXAMPLE = re.compile(r"^(%[\w.#]+(, %[\w.#]+)* = )?(tile|mapped|hw)\.[a-z_.0-9]+(\s|$)")


def _indent_ir_paragraphs(rest: str) -> str:
    paras = rest.split("\n\n")
    for i, para in enumerate(paras):
        if IR_EXAMPLE.match(para):
            paras[i] = "\n".join("    " + line for line in para.split("\n"))
    return "\n\n".join(paras)


def _render_rest(rest: str) -> str:
    """Keep prose; turn example blocks (indented, or paragraphs of IR) into ```mlir fences."""
    rest = _indent_ir_paragraphs(rest)
    out: list[str] = []
    in_code = False
    for line in rest.split("\n"):
        is_code = line.startswith("    ") or (in_code and not line.strip())
        if is_code and not in_code:
            out.append("```mlir")
            in_code = True
        elif not is_code and in_code:
            while out and not out[-1].strip():
                out.pop()
            out.append("```")
            in_code = False
        out.append(line[4:] if in_code else line)
    if in_code:
        while out and not out[-1].strip():
            out.pop()
        out.append("```")
    return "\n".join(out).strip()


def _constraint_str(c) -> str:
    """A short human form of an IRDL constraint (`TileType`, `variadic IndexType`, ...)."""
    import re

    text = repr(c)
    variadic = text.startswith("RangeOf(")
    names = re.findall(r"BaseAttr\((\w+)\)|EqAttrConstraint\(attr=(\w+)", text)
    flat = [a or b for a, b in names]
    if not flat:
        return "any"
    out = " | ".join(dict.fromkeys(flat))
    return f"variadic {out}" if variadic else out


def _op_section(op: type[IRDLOperation]) -> str:
    summary, rest = _doc_parts(op)
    lines = [f"### `{op.name}`", "", summary, ""]
    body = _render_rest(rest)
    if body:
        lines += [body, ""]
    try:
        d = op.get_irdl_definition()
    except Exception:  # pragma: no cover - non-IRDL op
        d = None
    if d is not None:
        rows = []
        for name, o in d.operands:
            rows.append(f"| operand | `{name}` | {_constraint_str(o.constr)} |")
        for name, r in d.results:
            rows.append(f"| result | `{name}` | {_constraint_str(r.constr)} |")
        for name, p in d.properties.items():
            rows.append(f"| property | `{name}` | {_constraint_str(p.constr)} |")
        for name, _ in d.regions:
            rows.append(f"| region | `{name}` | |")
        if rows:
            lines += ["| kind | name | constraint |", "|---|---|---|", *rows, ""]
    return "\n".join(lines)


def _attr_section(attr) -> str:
    summary, rest = _doc_parts(attr)
    lines = [f"### `{attr.name}`", "", summary, ""]
    body = _render_rest(rest)
    if body:
        lines += [body, ""]
    return "\n".join(lines)


def render(dialect: Dialect) -> str:
    parts = [
        f"# The `{dialect.name}` dialect",
        "",
        "<!-- generated by `python -m tilec.tools.gendocs` from the docstrings; do not edit -->",
        "",
        _INTRO.get(dialect.name, ""),
        "",
    ]
    attrs = list(dialect.attributes)
    if attrs:
        parts += ["## Types and attributes", ""]
        parts += [_attr_section(a) for a in attrs]
    parts += ["## Operations", ""]
    ops = sorted(dialect.operations, key=lambda o: o.name)
    parts += [_op_section(op) for op in ops]
    return "\n".join(parts).rstrip() + "\n"


def with_options_table(text: str, target: str) -> str:
    """`text` (a target's page) with the table between its option markers regenerated."""
    from tilec.backends import get_backend
    from tilec.options import options_table

    start = f"<!-- options: {target} -->"
    if start not in text or OPTIONS_END not in text:
        raise SystemExit(f"docs page of target {target} has no '{start}' ... '{OPTIONS_END}' markers")
    head, rest = text.split(start, 1)
    _, tail = rest.split(OPTIONS_END, 1)
    return f"{head}{start}\n{options_table(get_backend(target).Options)}{OPTIONS_END}{tail}"


def generated_files(docs: Path = DOCS_DIR.parent) -> dict[Path, str]:
    """Every generated doc file under the `docs` folder and the text it must have."""
    out = {docs / "dialects" / f"{d.name}.md": render(d) for d in tilec_dialects()}
    for target, page in TARGET_DOCS.items():
        path = docs / page
        out[path] = with_options_table(path.read_text(), target)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="only check that the files are current")
    ap.add_argument("--docs", type=Path, default=DOCS_DIR.parent, help="the docs folder (default: the source tree's)")
    args = ap.parse_args(argv)
    stale = []
    (args.docs / "dialects").mkdir(parents=True, exist_ok=True)
    for path, text in generated_files(args.docs).items():
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path))
        else:
            path.write_text(text)
    if stale:
        print("out of date (run python -m tilec.tools.gendocs): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
