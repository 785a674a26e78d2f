"""Benchmarks shipped with tilec: `python -m tilec.bench.models` (the PyTorch model suite)."""
