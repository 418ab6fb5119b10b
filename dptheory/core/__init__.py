"""The engine: theorems, conditions, claims, citations, units, the registry."""

from .citation import Citation, Paper
from .conditions import Condition, ConditionResult, Status
from .errors import (
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
from .notation import Domain, NotationTable, Param, parse_value
from .registry import REGISTRY, Registry, get
from .theorem import Limit, Term, Theorem
from .units import Direction, Unit
from .values import BoundValue

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
