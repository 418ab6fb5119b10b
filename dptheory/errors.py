"""Every exception (and warning) class of dptheory's Python API, importable from one place.

``from dptheory.errors import InvalidParameter, NumericalFailure, UsageError`` works for all of them; every
one is a subclass of :class:`DPTheoryError` (warnings: of :class:`DPTheoryWarning`), so ``except
DPTheoryError`` catches whatever the package raises for a user's mistake or a failed computation. The
classes are defined where they are raised (the hierarchy's root and most classes in
:mod:`dptheory.core.errors`); the ones that live in heavier modules are imported on first use, so importing
this module stays light. The README's section "Exceptions of the Python API" lists them with when each is
raised (``tests/test_api_inputs.py`` checks that the two agree with the classes that exist).
"""

from __future__ import annotations

import importlib
from typing import Any

from dptheory.core.errors import (
    ConditionViolated,
    DPTheoryError,
    DPTheoryWarning,
    DuplicateKey,
    EmptyRegion,
    InsufficientMemory,
    InvalidKey,
    InvalidParameter,
    MissingOptionalDependency,
    MissingParameter,
    NumericalFailure,
    OutputPathError,
    PaperFileError,
    PaperImportError,
    PaperImportWarning,
    ParameterOutOfRange,
    RegimeNotSupported,
    UnexpectedParameter,
    UnknownKey,
)

#: classes defined outside :mod:`dptheory.core.errors`, by the module that defines them (imported lazily)
_ELSEWHERE = {
    "UsageError": "dptheory.cli.params",
    "CompileError": "dptheory.core.compile",
    "ExpressionError": "dptheory.core.expressions",
    "RunError": "dptheory.core.run",
    "Undecided": "dptheory.core.compile",
    "MissingBackend": "dptheory.core.compile",
    "NoBallEvaluator": "dptheory.core.claims",
    "KLDomainError": "dptheory.numerics.kl",
    "ReportCompileError": "dptheory.report.build",
}

__all__ = [
    "ConditionViolated",
    "InsufficientMemory",
    "DPTheoryError",
    "DPTheoryWarning",
    "DuplicateKey",
    "EmptyRegion",
    "InvalidKey",
    "InvalidParameter",
    "MissingOptionalDependency",
    "MissingParameter",
    "NumericalFailure",
    "OutputPathError",
    "PaperFileError",
    "PaperImportError",
    "PaperImportWarning",
    "ParameterOutOfRange",
    "RegimeNotSupported",
    "UnexpectedParameter",
    "UnknownKey",
    *_ELSEWHERE,
]


def __getattr__(name: str) -> Any:
    module = _ELSEWHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'dptheory.errors' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
