"""The suite verifies the IR after every pass, tilec's own passes included (by default the pass
manager trusts them and verifies after plugin passes and at the end only)."""

import os

import pytest

os.environ.setdefault("TILEC_VERIFY_EACH", "1")

# Tuned options: the suite reads and writes its own (empty) tuning file, never the user's, so a
# result tuned on this machine does not change what the tests compile.
if "TILEC_TUNE_FILE" not in os.environ:
    import tempfile

    os.environ["TILEC_TUNE_FILE"] = os.path.join(tempfile.mkdtemp(prefix="tilec-tune-"), "tuning.json")


@pytest.fixture
def full_calls(monkeypatch):
    """Counts the op calls that take the full path (argument binding and checking), not the
    per-signature fast path (tilec/frontend/dispatch.py)."""
    from tilec.frontend.op import TileFunction

    count = [0]
    real = TileFunction._bind

    def counting(self, args, kwargs):
        count[0] += 1
        return real(self, args, kwargs)

    monkeypatch.setattr(TileFunction, "_bind", counting)
    return count
