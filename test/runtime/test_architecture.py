"""The shape of the tree (docs/architecture.md), checked: the import graph has no cycle except the
numpy-style frontend pair, no module imports another's `_private` names, lower layers never import
higher ones, and the NVIDIA/AMD and C/HIP twins share no block of six identical lines (the
`duplicates` tool also finds same-shape blocks; this test guards the identical ones in CI)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "tilec"

ALLOWED_CYCLES = [{"tilec.frontend.ops", "tilec.frontend.tracer"}]

# layer -> the layers it must not import (by module prefix)
FORBIDDEN = {
    "tilec.diagnostics": ["tilec."],
    "tilec.symbols": ["tilec."],
    "tilec.archs": ["tilec."],
    "tilec.options": [
        "tilec.dialects",
        "tilec.passes",
        "tilec.conversion",
        "tilec.backends",
        "tilec.runtime",
        "tilec.frontend",
        "tilec.cli",
    ],
    "tilec.cache": [
        "tilec.dialects",
        "tilec.passes",
        "tilec.conversion",
        "tilec.backends",
        "tilec.runtime",
        "tilec.frontend",
        "tilec.cli",
    ],
    "tilec.dialects": [
        "tilec.passes",
        "tilec.transforms",
        "tilec.conversion",
        "tilec.emit",
        "tilec.backends",
        "tilec.runtime",
        "tilec.frontend",
        "tilec.cli",
        "tilec.toolchain",
    ],
    "tilec.passes": [
        "tilec.transforms",
        "tilec.conversion",
        "tilec.emit",
        "tilec.backends",
        "tilec.runtime",
        "tilec.frontend",
        "tilec.cli",
    ],
    "tilec.transforms": [
        "tilec.conversion",
        "tilec.emit",
        "tilec.backends",
        "tilec.runtime",
        "tilec.frontend",
        "tilec.cli",
        "tilec.toolchain",
    ],
    "tilec.conversion": [
        "tilec.emit",
        "tilec.backends",
        "tilec.runtime",
        "tilec.frontend",
        "tilec.cli",
        "tilec.toolchain",
    ],
    "tilec.emit": [
        "tilec.passes",
        "tilec.transforms",
        "tilec.conversion",
        "tilec.backends",
        "tilec.runtime",
        "tilec.frontend",
        "tilec.cli",
        "tilec.toolchain",
    ],
    "tilec.toolchain": [
        "tilec.dialects",
        "tilec.passes",
        "tilec.conversion",
        "tilec.emit",
        "tilec.backends",
        "tilec.runtime",
        "tilec.frontend",
        "tilec.cli",
    ],
    "tilec.backends": ["tilec.runtime", "tilec.frontend", "tilec.cli"],
    "tilec.runtime": ["tilec.frontend", "tilec.cli"],
    "tilec.autodiff": ["tilec.cli"],  # on the DSL: its rules are written with the frontend's tracer
    "tilec.library": ["tilec.torch", "tilec.cli"],  # tile-level functions on the DSL; no torch
}

TWINS = [
    ("conversion/mapped_to_hw/mapped_to_hw_nv.py", "conversion/mapped_to_hw/mapped_to_hw_amd.py"),
    ("conversion/mapped_to_hw/fragments_nv.py", "conversion/mapped_to_hw/fragments_amd.py"),
    ("conversion/tile_to_mapped/gemm_nv_mma.py", "conversion/tile_to_mapped/gemm_amd_mfma.py"),
    ("dialects/hw/nv.py", "dialects/hw/amd.py"),
    ("emit/c.py", "emit/hip.py"),
    ("emit/ptx.py", "emit/hip.py"),
    ("runtime/cuda.py", "runtime/hip.py"),
    ("backends/cuda.py", "backends/hip.py"),
]


def _modules() -> dict[str, Path]:
    out = {}
    for p in ROOT.rglob("*.py"):
        parts = p.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = p
    return out


def _imports(name: str, path: Path, mods: dict[str, Path]) -> list[tuple[str, str]]:
    """(imported module, imported name or '') for every tilec import, function-level ones included."""
    pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = pkg.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            if base.startswith("tilec"):
                for a in node.names:
                    full = f"{base}.{a.name}"
                    out.append((full, "") if full in mods else (base, a.name))
        elif isinstance(node, ast.Import):
            out += [(a.name, "") for a in node.names if a.name.startswith("tilec")]
    return out


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    return {m: {t for t, _ in _imports(m, p, mods) if t in mods and t != m} for m, p in mods.items()}


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[set[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles():
    cycles = [c for c in _cycles(_graph()) if c not in ALLOWED_CYCLES]
    assert not cycles, f"import cycles: {cycles}"


def test_no_private_names_imported_across_modules():
    mods = _modules()
    bad = [
        f"{m} imports {t}.{n}"
        for m, p in mods.items()
        for t, n in _imports(m, p, mods)
        if n.startswith("_") and not n.startswith("__")
    ]
    assert not bad, bad


def test_lower_layers_do_not_import_higher_ones():
    graph = _graph()
    bad = []
    for m, targets in graph.items():
        layer = next((k for k in sorted(FORBIDDEN, key=len, reverse=True) if m == k or m.startswith(k + ".")), None)
        if layer is None:
            continue
        for t in targets:
            if any(
                t == f or t.startswith(f if f.endswith(".") else f + ".") or t == f.rstrip(".")
                for f in FORBIDDEN[layer]
            ):
                bad.append(f"{m} -> {t}")
    assert not bad, bad


def _code_lines(path: Path) -> list[str]:
    """Lines that count: stripped, without blank lines, comments, docstrings and imports."""
    text = path.read_text()
    skip: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import | ast.ImportFrom) or (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        ):
            skip.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if n in skip or not s or s.startswith("#") or re.fullmatch(r"[\)\]\}:,]+", s):
            continue
        out.append(re.sub(r"\s+", " ", s))
    return out


def test_twins_share_no_block_of_six_identical_lines():
    shared = []
    for a, b in TWINS:
        pa, pb = ROOT / a, ROOT / b
        if not (pa.exists() and pb.exists()):
            continue
        la, lb = _code_lines(pa), _code_lines(pb)
        windows = {tuple(lb[i : i + 6]) for i in range(len(lb) - 5)}
        for i in range(len(la) - 5):
            w = tuple(la[i : i + 6])
            if w in windows and sum(len(x) for x in w) > 60:  # not six lines of `else:` / `return x`
                shared.append(f"{a} ~ {b}: {w[0]!r} ...")
                break
    assert not shared, shared


def test_no_module_level_mutable_state_in_lowerings():
    """Passes are pure functions of (IR, options): no module-level lists/dicts/sets that change, and
    no `global` statements, in transforms/ and conversion/."""
    bad = []
    for folder in ("transforms", "conversion"):
        for p in (ROOT / folder).rglob("*.py"):
            tree = ast.parse(p.read_text())
            for node in ast.walk(tree):
                if isinstance(node, ast.Global):
                    bad.append(f"{p.name}: global {', '.join(node.names)}")
            for node in tree.body:
                if isinstance(node, ast.Assign | ast.AnnAssign) and "__all__" not in ast.unparse(node):
                    value = node.value
                    if isinstance(value, ast.List | ast.Set) or (
                        isinstance(value, ast.Call) and getattr(value.func, "id", "") in ("list", "set", "dict")
                    ):
                        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                        bad.append(f"{p.name}: {', '.join(ast.unparse(t) for t in targets)}")
    assert not bad, bad
