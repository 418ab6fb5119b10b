"""dptheory: a symbolic and numeric verifier of differential-privacy theory.

The registry finds the papers (``dptheory/papers/*``) when it is asked for a key, and imports only the
paper that registers it (``dptheory/papers/index.json``); importing this package installs that discovery
(:mod:`dptheory.catalog`, the composition root) into the registry (:mod:`dptheory.core.registry`, the store)::

    >>> import dptheory
    >>> v = dptheory.get("yeshokri22.thm4_2").evaluate(alpha=10, eta="0.02", lam=1, beta=4, S_g=4, sigma=2,
    ...                                                n=50, b=2, K=50, dps=20)
    >>> v.decimal()
    '0.015459046162146385695'

``import dptheory`` is light (no sympy, numpy or scipy): the names below are imported on first use
(PEP 562 module ``__getattr__``), so ``dptheory --help`` and ``dptheory list`` start fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dptheory import catalog as _catalog  # noqa: F401  (the composition root: installs discovery into the registry)
from dptheory.core.lazy import lazy_module_attributes

__version__ = "0.1.0"

_LAZY = {
    "REGISTRY": "dptheory.core.registry",
    "get": "dptheory.core.registry",
    "BoundValue": "dptheory.core.values",
    "ConditionViolated": "dptheory.core.errors",
    "DPTheoryError": "dptheory.core.errors",
    "Direction": "dptheory.core.units",
    "Unit": "dptheory.core.units",
    "Theorem": "dptheory.core.theorem",
}

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

if TYPE_CHECKING:
    from dptheory.core.errors import ConditionViolated, DPTheoryError
    from dptheory.core.registry import REGISTRY, get
    from dptheory.core.theorem import Theorem
    from dptheory.core.units import Direction, Unit
    from dptheory.core.values import BoundValue


__getattr__, __dir__ = lazy_module_attributes("dptheory", globals(), _LAZY)
