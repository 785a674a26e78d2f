"""A pass plugin that raises while it is imported (line 5)."""

raise RuntimeError("this plugin refuses to load")
