"""A pass plugin that raises KeyboardInterrupt while it is imported (line 3)."""

raise KeyboardInterrupt
