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
