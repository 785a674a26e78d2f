"""The backend objects (tilec/backends/): one place for each target's options and pass order.

- `op.source(target)` is byte-identical to `tilec-opt -p lower-to-<t> -t <t>` on `op.ir("tile")`
  with the same options, for every program of the GPU test suites and every target (this would
  have caught op.compile("cuda") running a pipeline of its own without int-strength-reduce);
- options are validated up front from the dataclass (legal sets in the messages, located in
  pipelines), and the vocabulary (target names, option names) is defined once.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_hip import PROGRAMS as HIP_PROGRAMS  # noqa: E402  (test/runtime is on sys.path)
from test_ptx import PROGRAMS as PTX_PROGRAMS  # noqa: E402

import tilec
from tilec import cli, float16, tile_contract, tile_op
from tilec.backends import BACKENDS, LANGUAGES, TARGETS, get_backend
from tilec.conversion.tile_to_mapped.tile_to_mapped import MAPPINGS, TileToMapped
from tilec.options import OptionError, option_infos
from tilec.passes import build_from_text

PROGRAMS = [*PTX_PROGRAMS, *[p for p in HIP_PROGRAMS if p[0] not in {q[0] for q in PTX_PROGRAMS}]]
VARIANTS = {
    "cpu": [{}, {"mr": 4, "nr": 32, "mc": 64}],
    "cuda": [{"sm": "sm_90"}, {"sm": "sm_80", "block_m": 64, "warps_n": 4, "block_n": 64, "stages": 3}],
    "hip": [{}, {"portable": True}, {"mfma": "m16n16k16", "threads": 128}],
}


def _pipeline_text(backend, options: dict) -> str:
    opts = " ".join(f"{k.replace('_', '-')}={str(v).lower() if isinstance(v, bool) else v}" for k, v in options.items())
    return f"{backend.pipeline_name}{{{opts}}}" if opts else backend.pipeline_name


def _tilec_opt(tmp_path, capsys, text: str, *argv: str) -> tuple[int, str, str]:
    """tilec-opt (its `run`, in this process): (exit status, output, stderr)."""
    src = tmp_path / "in.mlir"
    out = tmp_path / "out.txt"
    src.write_text(text)
    capsys.readouterr()
    status = cli.run([str(src), *argv, "-o", str(out)])
    return status, out.read_text() if out.exists() else "", capsys.readouterr().err


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name,op,arrays", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_source_is_what_tilec_opt_prints(name, op, arrays, target, tmp_path, capsys):
    """The same text, or (a program the target does not support yet) the same error."""
    backend = get_backend(target)
    tile_text = op.ir("tile", *arrays, debuginfo=True)
    variants = (
        VARIANTS[target] if name in ("mm_tc_float16", "softmax_float16", "mlp_bfloat16") else VARIANTS[target][:1]
    )
    for options in variants:
        try:
            src = op.source(target, *arrays, **options)
        except tilec.TilecError as e:
            status, _, err = _tilec_opt(
                tmp_path, capsys, tile_text, "-p", _pipeline_text(backend, options), "-t", backend.language
            )
            assert status == 1 and e.message in err, (name, target, options, e.message, err)
            continue
        status, want, err = _tilec_opt(
            tmp_path, capsys, tile_text, "-p", _pipeline_text(backend, options), "-t", backend.language
        )
        assert status == 0, err
        assert src + ("" if src.endswith("\n") else "\n") == want, (name, target, options)


def test_the_runtime_runs_the_backends_pipeline():
    """The GEMM PTX of the runtime path has int-strength-reduce's shifts, not a division per k-step."""

    @tile_op(dtype=float16, dims=[4096, 4096, 4096])
    def mm(a, b):
        return tile_contract(a, b, axes=[(-1, 0)])

    ptx = mm.source("cuda", sm="sm_90")
    assert ptx.count("div.u32") <= 2 and ptx.count("rem.u32") <= 2, (ptx.count("div.u32"), ptx.count("rem.u32"))
    cuda = get_backend("cuda")
    assert [p.name for p in cuda.passes(cuda.options(sm="sm_90"))] == [
        "tile-canonicalize",
        "tile-conv-phases",
        "tile-conv-unfold",
        "tile-fuse",
        "tile-to-mapped",
        "mapped-expand-pipeline",
        "mapped-to-hw-nv",
        "int-strength-reduce",
    ]
    assert [p.name for p in cuda.passes(cuda.options(sm="sm_90"), "mapped")] == [
        "tile-canonicalize",
        "tile-conv-phases",
        "tile-conv-unfold",
        "tile-fuse",
        "tile-to-mapped",
    ]


def test_compiled_kernel_source_equals_op_source():
    @tile_op(dtype=tilec.float32)
    def f(x, y):
        return tilec.exp(x) * y + 1.0

    x = np.ones((3, 5), np.float32)
    assert f.compile("cpu", x, x).source == f.source("cpu", x, x)
    assert f.compile("cpu", x, x, mr=4, mc=64).source == f.source("cpu", x, x, mr=4, mc=64)


# --- one vocabulary -----------------------------------------------------------------------------------


def test_target_names_and_languages_are_defined_once():
    assert TARGETS == ("cpu", "cuda", "hip")
    assert LANGUAGES == ("c", "ptx", "hip")
    assert set(MAPPINGS) == set(TARGETS)
    target_knob = next(i for i in option_infos(TileToMapped) if i.name == "target")
    assert target_knob.knob.choices == TARGETS
    with pytest.raises(tilec.TilecError, match=r"unknown target 'c' \(targets: cpu, cuda, hip\)"):
        get_backend("c")
    with pytest.raises(
        tilec.TilecError, match=r"unknown target 'cdua' \(targets: cpu, cuda, hip\); did you mean 'cuda'\?"
    ):
        get_backend("cdua")


def test_every_knob_has_a_doc_line_and_a_legal_default():
    for b in BACKENDS:
        b.Options()  # defaults validate
        for info in option_infos(b.Options):
            assert info.knob.doc and not info.knob.doc.endswith("."), (b.name, info.name)
        names = {i.name for i in option_infos(b.Options)}
        assert not {"matrix_cores", "wave_size"} & names
    assert {i.name for i in option_infos(get_backend("hip").Options)} >= {
        "tensor_cores",
        "wave",
        "mfma",
        "arch",
        "portable",
    }


# --- options validated up front ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "target,options,message",
    [
        ("cuda", {"block_m": 0}, "option 'block-m' of target cuda must be one of 16, 32, 64, 128, 256, got 0"),
        ("cuda", {"warps_m": 0}, "option 'warps-m' of target cuda must be one of 1, 2, 4, 8, got 0"),
        ("cuda", {"warps_m": 3}, "option 'warps-m' of target cuda must be one of 1, 2, 4, 8, got 3"),
        ("cuda", {"block_k": 3}, "option 'block-k' of target cuda must be one of 16, 32, 64, 128, got 3"),
        (
            "cuda",
            {"block_m": 16, "warps_m": 2},
            "block-m must be a multiple of 16 x warps-m (got block-m=16, warps-m=2)",
        ),
        ("cuda", {"threads": 100}, "option 'threads' of target cuda must be a multiple of 32 from 32 to 1024, got 100"),
        (
            "cuda",
            {"sm": "sm_75"},
            "option 'sm' of target cuda must be one of sm_80, sm_86, sm_89, sm_90, sm_90a, got sm_75",
        ),
        (
            "cuda",
            {"sm": "sm_86", "stages": 8, "block_k": 128},
            "need 524288 bytes of shared memory; sm_86 has 101376 per block",
        ),
        ("cuda", {"tensor_cores": "yes"}, "option 'tensor-cores' of target cuda expects true or false"),
        ("hip", {"threads": 96}, "threads must be a multiple of the 64-lane wavefront (got 96)"),
        ("hip", {"wave": 32}, "tensor-cores (MFMA matrix cores) need 64-lane wavefronts"),
        ("hip", {"wave": 32, "tensor_cores": False}, "gfx90a runs 64-lane wavefronts only"),
        ("hip", {"arch": "sm_90"}, "unknown AMD GPU architecture 'sm_90'"),
        ("hip", {"block_m": 32, "warps_m": 2}, "the m32n32k8 MFMA GEMM needs block-m/warps-m a multiple of 32"),
        ("cpu", {"mr": 7, "mc": 96}, "mc must be a multiple of mr (got mc=96, mr=7)"),
        ("cpu", {"nr": 13}, "option 'nr' of target cpu must be a multiple of 4 from 0 to 128, got 13"),
        ("cpu", {"nr": 12, "vector": 8}, "nr must be a multiple of the 8-lane vector (got nr=12, vector=8)"),
        ("cpu", {"vector": 32}, "option 'vector' of target cpu must be one of 4, 8, 16, got 32"),
        (
            "cpu",
            {"block_m": 64},
            "target cpu has no option 'block_m' (options: mr, nr, kc, mc, parallel-work, vector)",
        ),
        ("hip", {"matrix_cores": False}, "target hip has no option 'matrix_cores'"),
    ],
)
def test_illegal_options_are_refused_with_the_legal_set(target, options, message):
    with pytest.raises(OptionError) as info:
        get_backend(target).options(options)
    assert message in info.value.message


def test_defaults_that_depend_on_other_options():
    hip = get_backend("hip")
    o = hip.options(portable=True)
    assert (o.arch, o.wave, o.tensor_cores) == ("gfx1030", 32, False)
    assert hip.options(portable=True, arch="gfx1100").arch == "gfx1100"
    cuda = get_backend("cuda")
    assert cuda.options(sm=90).sm == "sm_90" and cuda.options(sm="90a").sm == "sm_90a"


@pytest.mark.parametrize(
    "pipeline,col,message",
    [
        (
            "lower-to-ptx{block-m=0}",
            14,
            "pipeline 'lower-to-ptx': option 'block-m' of target cuda must be one of 16, 32, 64, 128, 256, got 0",
        ),
        ("lower-to-ptx{warps-m=3}", 14, "option 'warps-m' of target cuda must be one of 1, 2, 4, 8, got 3"),
        ("lower-to-ptx{block-m=16 warps-m=2}", 1, "block-m must be a multiple of 16 x warps-m"),
        ("lower-to-c{mr=33}", 12, "option 'mr' of target cpu must be from 0 to 32, got 33"),
        ("lower-to-hip{wave=32}", 1, "need 64-lane wavefronts"),
        (
            "tile-to-mapped{target=cuda block-k=3}",
            28,
            "option 'block-k' of pass 'tile-to-mapped' must be one of 16, 32, 64, 128, got 3",
        ),
    ],
)
def test_pipeline_options_are_checked_before_anything_runs(pipeline, col, message):
    with pytest.raises(tilec.TilecError) as info:
        build_from_text(pipeline)
    assert message in info.value.message
    assert info.value.location is not None and info.value.location.col == col, info.value.location


def test_pipeline_text_round_trips():
    for b in BACKENDS:
        for options in VARIANTS[b.name]:
            o = b.options(options)
            text = b.pipeline_text(o)
            assert [p.name for p in build_from_text(text)] == [p.name for p in b.passes(o)]
            if b.name != "cpu":  # (cpu is tile-to-mapped's default target)
                assert re.search(rf"tile-to-mapped\{{[^}}]*target={b.name}", text), text
