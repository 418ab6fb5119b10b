"""The engine: theorems, conditions, claims, citations, units, the registry."""

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
