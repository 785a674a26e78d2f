"""The external compilers tilec drives: the C compiler (CPU), ptxas (NVIDIA), hipcc (AMD).

Each module finds its tool, says who it is (`identity()`: part of every cache key, probed once
per tool binary and remembered on disk) and turns emitted text into a binary file. Nothing here
knows about IR; the backends (tilec/backends/) call these.
"""
