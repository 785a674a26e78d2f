from xdsl.ir import Dialect
HW = Dialect("hw", [], [])
