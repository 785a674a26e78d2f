"""Reverse-mode automatic differentiation of tile programs (docs/autodiff.md).

- `tilec.autodiff.transform`: the transformation of a `tile.func` into its VJP, forward with
  residuals and backward funcs;
- `tilec.autodiff.context`: `VjpContext`, what a rule gets;
- `tilec.autodiff.rules`: the rules table (`RULES`, `NON_DIFFERENTIABLE`, `ZERO_COTANGENT`);
- `tilec.autodiff.policy`: save vs recompute;
- `tilec.autodiff.api`: `tilec.vjp`, `tilec.grad`.
"""

from tilec.autodiff.api import GradFunction, VjpFunction, grad, vjp
from tilec.autodiff.context import AutodiffError, VjpContext
from tilec.autodiff.transform import Derived, derive

__all__ = ["AutodiffError", "Derived", "GradFunction", "VjpContext", "VjpFunction", "derive", "grad", "vjp"]
