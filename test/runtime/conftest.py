"""The suite verifies the IR after every pass, tilec's own passes included (by default the pass
manager trusts them and verifies after plugin passes and at the end only)."""

import os

os.environ.setdefault("TILEC_VERIFY_EACH", "1")

# Tuned options: the suite reads and writes its own (empty) tuning file, never the user's, so a
# result tuned on this machine does not change what the tests compile.
if "TILEC_TUNE_FILE" not in os.environ:
    import tempfile

    os.environ["TILEC_TUNE_FILE"] = os.path.join(tempfile.mkdtemp(prefix="tilec-tune-"), "tuning.json")
