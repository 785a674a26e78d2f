from xdsl.ir import Dialect
Mapped = Dialect("mapped", [], [])
