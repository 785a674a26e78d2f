"""A pass plugin that raises while it is imported (line 3)."""

raise RuntimeError("this plugin refuses to load")
