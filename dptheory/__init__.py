"""dptheory: a symbolic and numeric verifier of differential-privacy theory.

The registry discovers the papers (``dptheory/papers/*``) the first time it is asked for a key::

    >>> import dptheory
    >>> v = dptheory.get("yeshokri22.thm4_2").evaluate(alpha=10, eta="0.02", lam=1, beta=4, S_g=4, sigma=2,
    ...                                                n=50, b=2, K=50, dps=20)
    >>> v.decimal()
    '0.015459046162146385695'
"""

from __future__ import annotations

from dptheory.core import (
    REGISTRY,
    BoundValue,
    ConditionViolated,
    Direction,
    DPTheoryError,
    Theorem,
    Unit,
    get,
)

__version__ = "0.1.0"

__all__ = [
    "REGISTRY",
    "BoundValue",
    "ConditionViolated",
    "DPTheoryError",
    "Direction",
    "Theorem",
    "Unit",
    "__version__",
    "get",
]
