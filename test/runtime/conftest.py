"""The suite verifies the IR after every pass, tilec's own passes included (by default the pass
manager trusts them and verifies after plugin passes and at the end only)."""

import os

os.environ.setdefault("TILEC_VERIFY_EACH", "1")
