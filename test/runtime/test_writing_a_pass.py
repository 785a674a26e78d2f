"""The example of docs/writing-a-pass.md, used from Python."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from tilec.diagnostics import TilecError
from tilec.dialects import tile
from tilec.ir import make_context, parse_module
from tilec.passes import run_pipeline

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "passes" / "pow_to_mul.py"

PROGRAM = """
tile.func @f(%X: !tile.array<3x5xf32>) outs(%Y: !tile.array<3x5xf32>) {
  %x = tile.load %X : !tile.array<3x5xf32> -> !tile.tile<3x5xf32>
  %n = tile.constant {n} : !tile.tile<3x5xf32>
  %y = tile.pow %x, %n : !tile.tile<3x5xf32>
  tile.store %y, %Y : !tile.tile<3x5xf32>, !tile.array<3x5xf32>
  tile.return
}
"""


@pytest.fixture(scope="module", autouse=True)
def plugin():
    spec = importlib.util.spec_from_file_location("pow_to_mul_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _ops(module, cls):
    return [op for op in module.walk() if isinstance(op, cls)]


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 8])
def test_pow_becomes_the_right_number_of_multiplications(n):
    module = parse_module(make_context(), PROGRAM.replace("{n}", f"{float(n)}"))
    run_pipeline(module, "pow-to-mul")
    assert not _ops(module, tile.PowOp)
    # repeated squaring: floor(log2 n) squarings + (popcount(n) - 1) multiplies
    assert len(_ops(module, tile.MulOp)) == (n.bit_length() - 1) + (bin(n).count("1") - 1)


def test_result_matches_numpy_power():
    from tilec.interpreter import interpret_module

    x = np.random.default_rng().standard_normal((3, 5)).astype(np.float32)
    module = parse_module(make_context(), PROGRAM.replace("{n}", "5.0"))
    run_pipeline(module, "pow-to-mul")
    (y,) = interpret_module(module, [x])
    np.testing.assert_allclose(y, x**5, rtol=1e-5)


@pytest.mark.parametrize("value", ["9.0", "2.5", "0.0"])
def test_options_and_non_matches_leave_pow(value):
    module = parse_module(make_context(), PROGRAM.replace("{n}", value))
    run_pipeline(module, "pow-to-mul{max-exponent=8}")
    assert len(_ops(module, tile.PowOp)) == 1


def test_bad_option_value_is_a_located_error():
    module = parse_module(make_context(), PROGRAM.replace("{n}", "2.0"))
    with pytest.raises(TilecError, match="expects an integer"):
        run_pipeline(module, "pow-to-mul{max-exponent=many}")


def test_invalid_option_reported_by_the_pass():
    module = parse_module(make_context(), PROGRAM.replace("{n}", "2.0"))
    with pytest.raises(TilecError, match="max-exponent must be at least 1"):
        run_pipeline(module, "pow-to-mul{max-exponent=0}")
