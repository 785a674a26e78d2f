"""tilec passes: the registry, pipelines, the pass manager and the pass-authoring API.

from tilec.passes import run_pipeline
run_pipeline(module, "tile-canonicalize,cse")
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from tilec.passes.api import (
    PassFailure,
    PatternPass,
    PatternRewriter,
    RewritePattern,
    TilecPass,
    op_type_rewrite_pattern,
    register_pass,
)
from tilec.passes.pipeline import PassManager, parse_pipeline
from tilec.passes.registry import available_passes, build_from_text, get_pass, load_plugin, named_pipelines

__all__ = [
    "PassFailure",
    "PassManager",
    "PatternPass",
    "PatternRewriter",
    "RewritePattern",
    "TilecPass",
    "available_passes",
    "build_from_text",
    "get_pass",
    "load_plugin",
    "named_pipelines",
    "op_type_rewrite_pattern",
    "parse_pipeline",
    "register_pass",
    "run_pipeline",
]


def run_pipeline(module: ModuleOp, pipeline: str, ctx: Context | None = None, **manager_options) -> ModuleOp:
    """Run a pipeline string on `module` in place (verifying after each pass) and return it.

    `manager_options` are `PassManager` fields: verify_each, print_after_all, timing, ..."""
    from tilec.ir import make_context

    ctx = ctx or make_context()
    PassManager(build_from_text(pipeline), **manager_options).run(ctx, module)
    return module
