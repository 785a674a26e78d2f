"""Where pass names and named pipelines are looked up.

Built-in tilec passes are listed here by module so that importing tilec stays cheap; plugins add
passes with `add_pass` (through `@register_pass`). The built-in named pipelines are the backends'
(tilec/backends/): the one place where pass order lives.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

from xdsl.passes import ModulePass

from tilec.diagnostics import SourceLocation, TilecError
from tilec.options import OptionError, dashed, option_infos
from tilec.passes.pipeline import PIPELINE_SOURCE, PassSpec, convert_option_value, parse_pipeline

# pass name -> "module:Class" for the built-in passes (loaded on first use)
_BUILTIN: dict[str, str] = {
    "tile-canonicalize": "tilec.transforms.tile_canonicalize:TileCanonicalize",
    "tile-fuse": "tilec.transforms.tile_fuse:TileFuse",
    "tile-conv-phases": "tilec.transforms.tile_conv_phases:TileConvPhases",
    "tile-conv-unfold": "tilec.transforms.tile_conv_unfold:TileConvUnfold",
    "tile-autodiff": "tilec.autodiff.tile_autodiff:TileAutodiff",
    "tile-to-mapped": "tilec.conversion.tile_to_mapped.tile_to_mapped:TileToMapped",
    "mapped-to-hw-cpu": "tilec.conversion.mapped_to_hw.mapped_to_hw_cpu:MappedToHwCpu",
    "mapped-to-hw-nv": "tilec.conversion.mapped_to_hw.mapped_to_hw_nv:MappedToHwNv",
    "mapped-to-hw-amd": "tilec.conversion.mapped_to_hw.mapped_to_hw_amd:MappedToHwAmd",
    "mapped-expand-pipeline": "tilec.transforms.mapped_expand_pipeline:MappedExpandPipeline",
    "int-strength-reduce": "tilec.transforms.int_strength_reduce:IntStrengthReduce",
}

# upstream xDSL passes that make sense on tilec IR
_UPSTREAM = {  # name -> its one-line description (xDSL's docstrings are missing or span lines)
    "canonicalize": "Apply every canonicalization pattern of the dialects (upstream xDSL).",
    "cse": "Eliminate common subexpressions: ops computing the same value once (upstream xDSL).",
    "dce": "Remove ops whose results are unused and that have no side effects (upstream xDSL).",
    "licm": "Move side-effect-free ops that do not depend on a loop out of it (upstream xDSL).",
    "scf-for-loop-unroll": "Fully unroll scf.for loops whose bounds and step are constants (upstream xDSL).",
    "convert-scf-to-cf": "Lower scf.for and scf.if to unstructured control flow (upstream xDSL).",
}

_extra: dict[str, type[ModulePass]] = {}
_entry_points_loaded = False


def add_pass(cls: type[ModulePass]) -> None:
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name:
        raise TypeError(f"pass class {cls.__name__} needs a string `name`")
    if name in named_pipelines():
        raise TypeError(f"pass name '{name}' is already a named pipeline")
    _extra[name] = cls


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for ep in entry_points(group="tilec.passes"):
        try:
            obj = ep.load()
        except Exception as e:  # an installed plugin that fails to import is the user's to fix
            raise TilecError(f"cannot load pass plugin entry point '{ep.name}' ({ep.value}): {e}") from None
        for cls in obj if isinstance(obj, list | tuple) else [obj]:
            add_pass(cls)


def get_pass(name: str) -> type[ModulePass] | None:
    if name in _extra:
        return _extra[name]
    if name in _BUILTIN:
        module, cls = _BUILTIN[name].split(":")
        return getattr(importlib.import_module(module), cls)
    if name in _UPSTREAM:
        from xdsl.transforms import get_all_passes

        return get_all_passes()[name]()
    _load_entry_points()
    return _extra.get(name)


def available_passes() -> list[str]:
    _load_entry_points()
    return sorted({*_BUILTIN, *_UPSTREAM, *_extra})


def describe_pass(name: str) -> str:
    """The first sentence of a pass's docstring, whole (what --list-passes shows)."""
    if name in _UPSTREAM:
        return _UPSTREAM[name]
    cls = get_pass(name)
    if cls is None:
        return ""
    doc = (cls.__doc__ or "").strip().split("\n\n")[0]
    if doc.startswith(f"{cls.__name__}("):  # the signature @dataclass writes when there is no docstring
        return ""
    return " ".join(doc.split())


def load_plugin(path: str) -> None:
    """Execute a Python file that registers passes with `@register_pass`."""
    p = Path(path)
    if p.is_dir():
        raise TilecError(f"pass plugin '{path}' is a directory, not a Python file")
    if not p.is_file():
        raise TilecError(f"pass plugin '{path}' does not exist")
    mod_name = f"tilec_plugin_{abs(hash(str(p.resolve())))}"
    spec = importlib.util.spec_from_file_location(mod_name, p)
    if spec is None or spec.loader is None:
        raise TilecError(f"pass plugin '{path}' is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
    except TilecError:
        raise
    except SystemExit as e:
        raise TilecError(
            f"pass plugin '{path}' called sys.exit({e.code!r}) while loading", SourceLocation(str(p), 1, 1)
        ) from None
    except SyntaxError as e:
        raise TilecError(
            f"syntax error in pass plugin: {e.msg}", SourceLocation(str(p), e.lineno or 1, e.offset or 1)
        ) from None
    except (Exception, KeyboardInterrupt) as e:  # a plugin raising KeyboardInterrupt is a plugin error too
        import traceback

        tb = traceback.extract_tb(e.__traceback__)
        frames = [f for f in tb if f.filename in (str(p), str(p.resolve()))]
        loc = SourceLocation(str(p), frames[-1].lineno or 1, 1) if frames else None
        raise TilecError(f"pass plugin failed to load: {type(e).__name__}: {e}", loc) from None


# --- named pipelines --------------------------------------------------------------------------------
#
# The built-in ones are the backends' (`lower-to-c`, `lower-to-ptx`, `lower-to-hip`): their options
# are the backend's options dataclass and their passes the backend's `passes()`, so nothing here
# spells a pass order. Plugins may register more with `@register_pipeline` (a function from its
# options to a pipeline string).

BACKENDS_MODULE = "tilec.backends"  # imported on first use, so that importing the registry stays cheap


@dataclass
class NamedPipeline:
    name: str
    description: str
    options: dict[str, tuple[type, object]]  # option (dashes) -> (type hint, default)
    build: Callable[..., str] | None = None  # a registered pipeline: options -> pipeline text
    backend: object | None = None  # a backend's pipeline

    def expand(self, spec: PassSpec) -> list[ModulePass]:
        """The passes `spec` (this pipeline's name with options) stands for."""
        kwargs = {}
        for opt in spec.options:
            key = opt.name.replace("_", "-")
            if key not in self.options:
                raise TilecError(
                    f"pipeline '{spec.name}' has no option '{opt.name}' (options: {', '.join(self.options) or 'none'})",
                    SourceLocation(PIPELINE_SOURCE, 1, opt.col, len(opt.name)),
                )
            hint, _ = self.options[key]
            try:
                kwargs[key.replace("-", "_")] = convert_option_value(opt.values, hint)
            except ValueError as e:
                raise TilecError(
                    f"option '{opt.name}' of pipeline '{spec.name}' {e}",
                    SourceLocation(PIPELINE_SOURCE, 1, opt.value_col),
                ) from None
        if self.backend is not None:
            try:
                options = self.backend.options(kwargs)
            except OptionError as e:
                opt = next((o for o in spec.options if o.name.replace("_", "-") == e.option), None)
                col, length = (opt.col, len(opt.name)) if opt else (spec.col, len(spec.name))
                raise TilecError(
                    f"pipeline '{spec.name}': {e.message}", SourceLocation(PIPELINE_SOURCE, 1, col, length)
                ) from None
            return self.backend.passes(options)
        for key, (_, default) in self.options.items():
            kwargs.setdefault(key.replace("-", "_"), default)
        return build_from_text(self.build(**kwargs), allow_named=False)


_NAMED: dict[str, NamedPipeline] = {}


def register_pipeline(name: str, description: str, options: dict[str, tuple[type, object]] | None = None):
    """Decorator for a function (options as keyword arguments) returning a pipeline string."""

    def wrap(fn: Callable[..., str]) -> Callable[..., str]:
        if name in _backend_pipelines():
            raise TypeError(f"'{name}' is a backend's pipeline")
        _NAMED[name] = NamedPipeline(name, description, options or {}, fn)
        return fn

    return wrap


def _backend_pipelines() -> dict[str, NamedPipeline]:
    backends = importlib.import_module(BACKENDS_MODULE)
    out = {}
    for b in backends.BACKENDS:
        infos = option_infos(b.Options)
        out[b.pipeline_name] = NamedPipeline(
            b.pipeline_name, b.description, {dashed(i.name): (i.hint, i.default) for i in infos}, backend=b
        )
    return out


def named_pipelines() -> dict[str, NamedPipeline]:
    """Every named pipeline: the backends' and the registered ones."""
    return {**_backend_pipelines(), **_NAMED}


def expand_named(spec: PassSpec) -> list[ModulePass] | None:
    pipe = named_pipelines().get(spec.name)
    return None if pipe is None else pipe.expand(spec)


def build_from_text(text: str, allow_named: bool = True) -> list[ModulePass]:
    """Pipeline string -> pass objects."""
    from tilec.passes.pipeline import build_passes

    specs = parse_pipeline(text) if allow_named else _parse_internal(text)
    return build_passes(
        specs,
        get_pass,
        expand_named if allow_named else (lambda s: None),
        lambda: [*available_passes(), *named_pipelines()],
    )


def _parse_internal(text: str) -> list[PassSpec]:
    """Registered pipelines' text is not the user's to be quoted."""
    return parse_pipeline(text, register=False)
