"""The engine: theorems, conditions, claims, citations, units, the registry.

The names below are imported on first use (PEP 562 module ``__getattr__``): importing a light module of
the engine (``dptheory.core.errors``, ``dptheory.core.registry``) does not load sympy or numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dptheory.core.lazy import lazy_module_attributes

_LAZY = {
    "Citation": "dptheory.core.citation",
    "Paper": "dptheory.core.citation",
    "Condition": "dptheory.core.conditions",
    "ConditionResult": "dptheory.core.conditions",
    "Status": "dptheory.core.conditions",
    "ConditionViolated": "dptheory.core.errors",
    "DPTheoryError": "dptheory.core.errors",
    "DuplicateKey": "dptheory.core.errors",
    "InvalidParameter": "dptheory.core.errors",
    "MissingParameter": "dptheory.core.errors",
    "NumericalFailure": "dptheory.core.errors",
    "RegimeNotSupported": "dptheory.core.errors",
    "UnexpectedParameter": "dptheory.core.errors",
    "UnknownKey": "dptheory.core.errors",
    "Domain": "dptheory.core.notation",
    "NotationTable": "dptheory.core.notation",
    "Param": "dptheory.core.notation",
    "parse_value": "dptheory.core.notation",
    "REGISTRY": "dptheory.core.registry",
    "Registry": "dptheory.core.registry",
    "get": "dptheory.core.registry",
    "Limit": "dptheory.core.theorem",
    "Term": "dptheory.core.theorem",
    "Theorem": "dptheory.core.theorem",
    "Direction": "dptheory.core.units",
    "Unit": "dptheory.core.units",
    "BoundValue": "dptheory.core.values",
}

__all__ = [
    "REGISTRY",
    "BoundValue",
    "Citation",
    "Condition",
    "ConditionResult",
    "ConditionViolated",
    "DPTheoryError",
    "Direction",
    "Domain",
    "DuplicateKey",
    "InvalidParameter",
    "Limit",
    "MissingParameter",
    "NotationTable",
    "NumericalFailure",
    "Paper",
    "Param",
    "RegimeNotSupported",
    "Registry",
    "Status",
    "Term",
    "Theorem",
    "UnexpectedParameter",
    "Unit",
    "UnknownKey",
    "get",
    "parse_value",
]

if TYPE_CHECKING:
    from dptheory.core.citation import Citation, Paper
    from dptheory.core.conditions import Condition, ConditionResult, Status
    from dptheory.core.errors import (
        ConditionViolated,
        DPTheoryError,
        DuplicateKey,
        InvalidParameter,
        MissingParameter,
        NumericalFailure,
        RegimeNotSupported,
        UnexpectedParameter,
        UnknownKey,
    )
    from dptheory.core.notation import Domain, NotationTable, Param, parse_value
    from dptheory.core.registry import REGISTRY, Registry, get
    from dptheory.core.theorem import Limit, Term, Theorem
    from dptheory.core.units import Direction, Unit
    from dptheory.core.values import BoundValue


__getattr__, __dir__ = lazy_module_attributes("dptheory.core", globals(), _LAZY)
