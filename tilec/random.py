"""`tilec.random`: the DSL's counter-based random numbers (Philox-4x32-10), so that both
`tilec.random.uniform(...)` and `from tilec.random import uniform` work. The functions live in
tilec/frontend/random.py; docs/dsl.md, "Random numbers", has the contract."""

from tilec.frontend.random import bernoulli, bits, normal, uniform

__all__ = ["bernoulli", "bits", "normal", "uniform"]
