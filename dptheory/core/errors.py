"""One exception hierarchy for the whole package.

Every error carries structured fields (theorem key, condition, values, citation) so that the CLI
can print them and tests can assert on them; the message is rendered from those fields, so the
text and the check that raised it cannot drift apart (dp-accounting 0.6.0 shows the failure mode:
``_laplace_rdp`` says "eps must be > 0" for a ``< 0`` test).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class DPTheoryError(Exception):
    """Base class of every error raised by dptheory."""


class UnknownKey(DPTheoryError, KeyError):
    """A theorem or claim key that is not in the registry."""

    def __init__(self, key: str, known: list[str] | None = None) -> None:
        self.key = key
        self.known = known or []
        import difflib

        hint = ""
        close = [k for k in self.known if k.endswith("." + key)][:5]  # an unqualified key: thm4_2
        close += [k for k in difflib.get_close_matches(key, self.known, n=5, cutoff=0.6) if k not in close]
        close += [k for k in self.known if k.startswith(key + ".") and k not in close][:5]
        if close:
            hint = f"; did you mean {', '.join(close)}"
        super().__init__(f"unknown key {key!r}{hint} (see `dptheory list`)")

    def __str__(self) -> str:  # KeyError quotes its argument; keep the plain sentence
        return str(self.args[0])


class MissingOptionalDependency(DPTheoryError, ImportError):
    """A feature needs a package that is not installed (an extra of ``pyproject.toml``, or a broken install);
    the message names it and how to install it (:mod:`dptheory.core.extras`)."""


class DuplicateKey(DPTheoryError):
    """Registering a second object under a key that is already taken."""


class InvalidParameter(DPTheoryError, ValueError):
    """A parameter value that is not a number of the right kind (NaN, inf, text, not an integer)."""

    def __init__(self, *, key: str, name: str, value: Any, reason: str, citation: str = "") -> None:
        self.key = key
        self.name = name
        self.value = value
        self.reason = reason
        self.citation = citation
        cite = f" ({citation})" if citation else ""
        super().__init__(f"{key}{cite}: parameter {name} = {value!r} is invalid: {reason}")


class MissingParameter(DPTheoryError, ValueError):
    """A parameter the theorem needs was not given."""

    def __init__(self, *, key: str, missing: list[str], expected: list[str]) -> None:
        self.key = key
        self.missing = missing
        self.expected = expected
        super().__init__(f"{key}: missing parameter(s) {', '.join(missing)}; this theorem takes {', '.join(expected)}")


class UnexpectedParameter(DPTheoryError, ValueError):
    """A parameter the theorem does not take."""

    def __init__(self, *, key: str, unexpected: list[str], expected: list[str]) -> None:
        self.key = key
        self.unexpected = unexpected
        self.expected = expected
        super().__init__(
            f"{key}: unexpected parameter(s) {', '.join(unexpected)}; this theorem takes {', '.join(expected)}"
        )


class ConditionViolated(DPTheoryError, ValueError):
    """A condition of a theorem is false at the given point.

    Attributes:
        key: the theorem key.
        condition: the condition's text (rendered from its sympy relational).
        gloss: the condition's short explanation.
        lhs, rhs: the two sides evaluated at the point (decimal strings).
        values: the parameter values involved.
        citation: where the condition comes from.
    """

    def __init__(
        self,
        *,
        key: str,
        condition: str,
        gloss: str,
        lhs: str,
        rhs: str,
        values: Mapping[str, Any],
        citation: str,
    ) -> None:
        self.key = key
        self.condition = condition
        self.gloss = gloss
        self.lhs = lhs
        self.rhs = rhs
        self.values = dict(values)
        self.citation = citation
        vals = ", ".join(f"{k} = {v}" for k, v in self.values.items())
        super().__init__(
            f"{key} requires {condition} ({gloss}; {citation}); got {vals}: left side {lhs}, right side {rhs}"
        )


class NumericalFailure(DPTheoryError, ArithmeticError):
    """A numerical computation failed (NaN, no convergence); never returned silently."""


class RegimeNotSupported(DPTheoryError):
    """A request the theorem cannot serve (e.g. an asymptotic bound where an upper bound is required)."""


class InsufficientMemory(DPTheoryError, MemoryError):
    """A workload whose arrays, estimated from their shapes before any is allocated, exceed the memory available
    (:func:`dptheory.core.memory.check_fits`); the message gives both figures and what to change."""
