"""The backend object: everything tilec knows about one target, in one place.

A backend owns its options (a frozen dataclass of knobs: defaults, doc lines, legal values), its
ordered passes, and the three steps from a tile module to something loadable:

    lower(module, options) -> hw module      (the passes, level by level)
    emit(hw module)        -> text           (C, PTX, HIP C++)
    build(text, options)   -> binary file    (the target's toolchain)

The named pipeline (`-p lower-to-ptx{...}`), `-t`, `op.compile/source/ir`, the runtime, the
option tables in docs/ and (later) the autotuner's search space all read it; no other place
spells a pass order. Modelled on Triton's `third_party/*/backend/compiler.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from tilec.diagnostics import TilecError
from tilec.options import Options

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

LEVELS = ("tile", "mapped", "hw")
"""The IR levels a program is lowered through; `lower(level=...)` stops after one of them."""


class Backend:
    """One target. Subclasses set the class attributes and implement `stages`, `emit`, `build`."""

    name: ClassVar[str]  # the target name: op.compile(name), tile-to-mapped{target=name}
    language: ClassVar[str]  # what `-t` calls its output: c, ptx, hip
    pipeline_name: ClassVar[str]  # the named pipeline: lower-to-c, ...
    description: ClassVar[str]
    Options: ClassVar[type[Options]]
    binary: ClassVar[str]  # the file name `build` writes
    runtime: ClassVar[str]  # the module whose `load(entry, func, options)` turns a build into a kernel
    hw_dialect: ClassVar[str]  # the hw dialect the emitter prints: hw.cpu, hw.nv, hw.amd
    hw_top_ops: ClassVar[tuple[str, ...]]  # the top-level ops of a module at this target's hw level

    def __repr__(self) -> str:
        return f"<backend {self.name}>"

    # --- options ---------------------------------------------------------------------------------

    def resolve(self, given: dict[str, Any]) -> dict[str, Any]:
        """Defaults that depend on the other options or on the machine (override); `given` has
        the user's options, Python spelling."""
        return given

    def options(self, given: Mapping[str, Any] | None = None, **kwargs: Any) -> Options:
        """Validated, resolved options from keyword arguments (either spelling)."""
        raw = {k.replace("-", "_"): v for k, v in {**(given or {}), **kwargs}.items()}
        known = {n for n in self.Options.__dataclass_fields__}
        for k in raw:
            if k not in known:
                from tilec.options import dashed, option_infos, unknown_option

                raise unknown_option(k, f"target {self.name}", [dashed(i.name) for i in option_infos(self.Options)])
        return self.Options.create(self.resolve(raw))

    def tunable_values(self, base: Options, only: list[str] | None = None) -> dict[str, tuple]:
        """Per tunable knob, the values a tuner tries from `base` (its value first); override to
        drop values this machine cannot run."""
        from tilec.tuning.space import knob_values

        return knob_values(self.Options, base, only)

    def predicted_gemm_seconds(self, options: Options, problem: Any) -> float | None:
        """The analytic time of one contraction or convolution (`tilec.tuning.model.GemmProblem`)
        compiled with `options`, or None where this target has no model for it (override; the
        tuner skips candidates whose prediction cannot win, never those without one)."""
        return None

    def predicted_stream_seconds(self, options: Options, nbytes: int) -> float:
        """The time to stream `nbytes` through memory once: what the model charges for the ops
        it does not model (override with the target's bandwidth)."""
        return nbytes / 1e10

    # --- passes ----------------------------------------------------------------------------------

    def stages(self, options: Options) -> dict[str, list[ModulePass]]:  # pragma: no cover - abstract
        """The passes that produce each level after `tile`: {"mapped": [...], "hw": [...]}."""
        raise NotImplementedError

    def passes(
        self,
        options: Options,
        level: str = "hw",
        extra: Mapping[str, Sequence[ModulePass]] | None = None,
        start: str = "tile",
    ) -> list[ModulePass]:
        """The ordered passes from IR at level `start` to `level`; `extra[lvl]` (the user's
        passes) run at the end of level `lvl` (on the tile IR first, on the mapped IR before
        mapped -> hw, on the hw IR last)."""
        for lvl in (level, start):
            if lvl not in LEVELS:
                raise TilecError(f"unknown IR level '{lvl}' (levels: {', '.join(LEVELS)})")
        extra = extra or {}
        out: list[ModulePass] = list(extra.get("tile", ())) if start == "tile" else []
        stages = self.stages(options)
        for lvl in LEVELS[LEVELS.index(start) + 1 : LEVELS.index(level) + 1]:
            out += stages[lvl]
            out += list(extra.get(lvl, ()))
        return out

    def lower(
        self,
        module: ModuleOp,
        options: Options,
        level: str = "hw",
        extra: Mapping[str, Sequence[ModulePass]] | None = None,
        start: str = "tile",
        **manager: Any,
    ) -> ModuleOp:
        """A NEW module: `module` (IR at level `start`) lowered to `level`; the input is not
        changed. `manager` are PassManager fields (print_after_all, timing, ...)."""
        from tilec.ir import make_context
        from tilec.passes.pipeline import PassManager

        clone = module.clone()
        passes = self.passes(options, level, extra, start)
        if passes:
            PassManager(passes, **manager).run(make_context(), clone)
        return clone

    def pipeline_text(self, options: Options, level: str = "hw") -> str:
        """The pass pipeline as `tilec-opt -p` text (what `-p <pipeline_name>{...}` expands to)."""
        from tilec.passes.pipeline import pass_text

        return ",".join(pass_text(p) for p in self.passes(options, level))

    # --- code ------------------------------------------------------------------------------------

    def emit(self, hw: ModuleOp) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def not_hw_level(self, module: ModuleOp):
        """The first top-level op that is not of this target's hw level (None if all are)."""
        return next((op for op in module.body.block.ops if op.name not in self.hw_top_ops), None)

    def build(self, text: str, options: Options, out: Path) -> None:  # pragma: no cover - abstract
        """Compile emitted `text` into the binary file `out` (raises TilecError on failure)."""
        raise NotImplementedError

    def binary_name(self) -> str:
        """The file name `build` writes (override when it depends on the toolchain)."""
        return self.binary

    def can_build(self) -> bool:
        """Whether the toolchain is installed (a backend without one can still lower and emit)."""
        return True

    def toolchain(self, options: Options) -> str:  # pragma: no cover - abstract
        """Who builds: compiler path, version and flags (part of every cache key)."""
        raise NotImplementedError


__all__ = ["Backend", "LEVELS"]
