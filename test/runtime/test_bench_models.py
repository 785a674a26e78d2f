"""`python -m tilec.bench.models` (tilec/bench/models.py): the model suite runs a model end to end
and writes its JSON, table and (with matplotlib) chart; unknown names are an error."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch", reason="torch is not installed (CI installs it: .ci/run)")

from tilec.bench import models  # noqa: E402


def test_one_model_end_to_end(tmp_path, capsys):
    assert models.main(["--models", "mlp", "--steps", "4", "--no-inductor", "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "models.json").read_text())
    (row,) = data["rows"]
    assert row["model"] == "mlp" and row["coverage"] == 1.0 and not row["fallbacks"]
    assert row["loss_rel_diff"] < 1e-4 and row["tilec_ms"] > 0 and row["eager_ms"] > 0
    assert 0 <= row["noise_rel_diff"] < 1e-4  # eager against eager, weights one ulp apart
    assert "| mlp |" in (tmp_path / "models.md").read_text()
    assert "mlp" in capsys.readouterr().out


def test_list_and_unknown_names(capsys):
    assert models.main(["--list"]) == 0
    names = capsys.readouterr().out.split()
    assert {"mlp", "small_cnn"} <= set(names)
    assert models.main(["--models", "no_such_model"]) == 1
    assert "unknown model(s) no_such_model" in capsys.readouterr().err


def test_published_size_models_are_listed_not_run_by_default(capsys):
    pytest.importorskip("transformers", reason="the published-size models are transformers models")
    assert models.main(["--list"]) == 0
    out = capsys.readouterr().out
    assert {"resnet50", "bert_base", "gpt2_124m"} <= set(out.split())
    (bert,) = [c for c in models.base_cases(batch=1) if c.name == "bert_base"]
    import torch

    batch = bert.batch(torch.Generator().manual_seed(0))
    assert tuple(batch["input_ids"].shape) == (1, 128)  # --batch changes the batch, not the length


def test_region_kernels_counts_gpu_kernels_without_a_gpu(capsys):
    """benchmarks/region_kernels.py: the MLP's two regions lowered for HIP (no GPU, no ptxas)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "region_kernels.py"
    spec = importlib.util.spec_from_file_location("region_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["mlp", "--target", "hip"]) == 0
    out = capsys.readouterr().out
    assert "region 1:" in out and "region 2:" in out and "mlp: 2 regions" in out
    assert mod.main(["no_such_model"]) == 1
