"""docs/dialects/*.md are generated from the op docstrings and must be current."""

from pathlib import Path

from tilec.tools import gendocs

DOCS = Path(__file__).resolve().parents[2] / "docs"  # the checkout's, also when tilec is installed


def test_dialect_docs_are_current():
    assert gendocs.main(["--check", "--docs", str(DOCS)]) == 0, "run: python -m tilec.tools.gendocs"


def test_every_op_has_a_summary_and_an_example():
    from tilec.ir import tilec_dialects

    missing = []
    for dialect in tilec_dialects():
        for op in dialect.operations:
            summary, rest = gendocs._doc_parts(op)
            example = "```mlir" in gendocs._render_rest(rest)
            if not summary or (op.name not in summary and not example and "`" not in summary):
                missing.append(op.name)
    assert not missing, f"ops without a summary or example: {missing}"
