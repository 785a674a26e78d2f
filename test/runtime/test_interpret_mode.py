"""TILEC_INTERPRET=1: every tile op call runs in the interpreter while the program is traced, so
intermediate tiles have values (`tilec.debug_print`, `tile.numpy()`, a debugger); compiled runs
print nothing and refuse `numpy()` at the user's line."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
from tilec import float32, tile_contract, tile_op

SEEN: list = []


@tile_op(dtype=float32, dims=["M", "N", "K"])
def mlp(x, w):
    h = tile_contract(x, w, axes=[(-1, 0)])
    SEEN.append(h.numpy() if tilec_interpreting() else None)
    tilec.debug_print(h, "h")
    return tilec.tanh(h), tilec.sum(h, axis=-1)


def tilec_interpreting() -> bool:
    from tilec.frontend.op import interpreting

    return interpreting()


def test_values_while_tracing_and_results_match(monkeypatch, capsys):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    rng = np.random.default_rng()
    x, w = rng.standard_normal((5, 7)).astype(np.float32), rng.standard_normal((7, 3)).astype(np.float32)
    SEEN.clear()
    t, s = mlp(x, w)
    h = x.astype(np.float64) @ w.astype(np.float64)
    np.testing.assert_allclose(SEEN[-1], h, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(t, np.tanh(h), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(s, h.sum(-1), rtol=1e-5, atol=1e-4)
    out = capsys.readouterr().out
    assert out.startswith("h (5x3 float32):\n")
    # each call runs the program again (a debugger sees every call)
    SEEN.clear()
    mlp(x[:2], w)
    assert SEEN[-1].shape == (2, 3)


def test_compiled_runs_print_nothing_and_have_no_values(monkeypatch, capsys):
    monkeypatch.delenv("TILEC_INTERPRET", raising=False)

    @tile_op(dtype=float32)
    def f(x):
        tilec.debug_print(x, "x")
        return x + 1.0

    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(f(x), x + 1)
    assert capsys.readouterr().out == ""

    @tile_op(dtype=float32)
    def g(x):
        return x + x.numpy()

    with pytest.raises(
        tilec.TileError, match="a tile has a value only while its op runs under TILEC_INTERPRET=1"
    ) as info:
        g(x)
    assert info.value.location.file == __file__


def test_errors_in_interpret_mode_are_located(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")

    @tile_op(dtype=float32)
    def bad(x, y):
        return x + y

    with pytest.raises(tilec.TileError) as info:
        bad(np.zeros(3, np.float32), np.zeros(4, np.float32))
    assert info.value.location.file == __file__
