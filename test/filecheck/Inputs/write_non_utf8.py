"""Writes a .mlir file whose third line holds a byte that is not UTF-8: write_non_utf8.py OUT"""

import sys

with open(sys.argv[1], "wb") as f:
    f.write(b"tile.func @f() {\n  tile.return\n}  // caf\xe9\n")
