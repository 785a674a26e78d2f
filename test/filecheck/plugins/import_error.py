"""A pass plugin that raises while it is imported (line 5)."""

import os

raise RuntimeError("this plugin refuses to load")
