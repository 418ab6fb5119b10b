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


class InvalidKey(UnknownKey, TypeError):
    """A registry key or figure name that is not a string (``dptheory.get(None)``).

    An :class:`UnknownKey` (so ``except KeyError`` still catches it) and a ``TypeError``.
    """

    def __init__(self, key: object, *, what: str = "key", example: str = "rdp.gaussian") -> None:
        self.key = key  # type: ignore[assignment]
        self.known = []
        DPTheoryError.__init__(
            self, f"a registry {what} is a string such as {example!r} (see `dptheory list`); got {key!r} "
            f"({type(key).__name__})"
        )


class DuplicateKey(DPTheoryError):
    """Registering a second object under a key that is already taken (the message names both origins)."""


class OutputPathError(DPTheoryError):
    """An output file that cannot be written (its folder is missing, is a file or is not writable; two outputs
    name the same file); the message names the path as the user gave it (:mod:`dptheory.core.io`)."""


class PaperImportError(DPTheoryError, ImportError):
    """A paper package found by discovery (``DPTHEORY_PATH``, an entry point) that fails to import.

    Raised by ``REGISTRY.get(key)`` for a key of that paper; the other papers keep working, and discovery
    reports the failure as a :class:`PaperImportWarning`. ``package``, ``file``, ``line`` and ``cause`` (the
    original exception) say where it failed.
    """

    def __init__(self, *, package: str, file: str, line: int | None, cause: BaseException) -> None:
        self.package = package
        self.file = file
        self.line = line
        self.cause = cause
        if isinstance(cause, SyntaxError):
            what = f"{type(cause).__name__}: {cause.msg}"
        else:
            what = f"{type(cause).__name__}: {cause}"
        where = f"{file}, line {line}" if line else file
        DPTheoryError.__init__(self, f"paper package {package!r} ({where}) failed to import: {what}")
        self.name = package
        self.path = file

    def __str__(self) -> str:
        return str(self.args[0])


class DPTheoryWarning(UserWarning):
    """Base class of the warnings dptheory emits."""


class PaperImportWarning(DPTheoryWarning):
    """Discovery skipped something: a paper package that fails to import, one whose name an installed module
    already takes (it would shadow it), or a ``DPTHEORY_PATH`` entry that is not a folder."""


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


class ParameterOutOfRange(InvalidParameter, NumericalFailure):
    """A value in the parameter's domain that an evaluator cannot serve (a Renyi order above 10^8 for the
    subsampled Gaussian series); ``reason`` states the accepted range. ``Theorem.evaluate`` re-raises it with
    the theorem's key and the value as the user wrote it (also a :class:`NumericalFailure`, as it was)."""


class EmptyRegion(DPTheoryError, ValueError):
    """A claim whose region holds no point where the compared theorems' conditions (and the region's constraints)
    hold: every box of its certification box, or every point of its finite set, is outside. A claim about no point
    would be certified (or found exhaustive) vacuously; it is refused instead, naming a condition that fails."""


class RegimeNotSupported(DPTheoryError):
    """A request the theorem cannot serve (e.g. an asymptotic bound where an upper bound is required)."""


class InsufficientMemory(DPTheoryError, MemoryError):
    """A workload whose arrays, estimated from their shapes before any is allocated, exceed the memory available
    (:meth:`dptheory.core.memory.MemoryEstimate.check`); the message gives both figures and what to change."""


class PaperFileError(DPTheoryError, ValueError):
    """A paper file (``paper.toml``, ``--paper FILE``) that cannot be read as one: an unknown field or name, a wrong
    type, a condition that can never hold, a bound that is not real where the conditions hold, a claim comparing two
    units, a region outside a parameter's domain. One line, ``FILE:LINE: TABLE: PROBLEM; accepted: ...``.

    Attributes:
        source: the file as the user named it.
        where: the table (``[[theorem]] my26.thm1``, ``[[claim]] my26.C1: region``).
        field: the field the problem is in (``None``: the table itself).
        problem: what is wrong and what is accepted.
        line: the line of the field in the file (1-based; ``None`` when it cannot be found, e.g. before the file's
            text is known: :func:`dptheory.core.paperfile_fields.locate` finds it).
    """

    def __init__(self, source: str, where: str, field: str | None, problem: str, line: int | None = None) -> None:
        self.source = source
        self.where = where
        self.field = field
        self.problem = problem
        self.line = line
        at = f"{source}:{line}" if line else source
        super().__init__(f"{at}: {where}: {problem}" if where else f"{at}: {problem}")
