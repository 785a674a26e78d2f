"""A pass plugin with a syntax error (line 4)."""


def broken(:
    pass
