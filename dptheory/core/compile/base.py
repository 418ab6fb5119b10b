"""The compiler's errors and the helpers every backend shares: the arb library on demand (:func:`require_flint`),
the "nan never decides" test (:func:`informative_ball`) and the cap on the terms of a compiled sum."""

from __future__ import annotations

from typing import Any

from dptheory.core.errors import DPTheoryError, MissingOptionalDependency, NumericalFailure

__all__ = [
    "MAX_SUM_TERMS",
    "CompileError",
    "MissingBackend",
    "Undecided",
    "check_sum_terms",
    "informative_ball",
    "require_flint",
]


class CompileError(DPTheoryError):
    """The expression uses something the compiler does not handle (the message says what)."""


class MissingBackend(NumericalFailure, MissingOptionalDependency):
    """The library of a backend cannot be imported: the arb backend (certified values, ``--certify``, the
    branch and bound of ``check``) needs python-flint. The message names the package to install
    (:func:`dptheory.core.extras.install_hint`). A :class:`NumericalFailure`, so that where a certified value
    is optional (``Theorem.evaluate`` without ``certify``) the mpmath kernel is used instead, as for any point
    without a certified enclosure."""


def require_flint() -> Any:
    """The ``flint`` module (python-flint), imported on first use; the float64 and mpmath backends never
    import it.

    Raises:
        MissingBackend: python-flint cannot be imported (one line naming what to install).
    """
    try:
        import flint
    except ImportError as exc:
        from dptheory.core.extras import install_hint

        raise MissingBackend(
            f"certified (arb ball) evaluation needs python-flint, which cannot be imported here ({exc}): "
            f"{install_hint('flint')}; values without --certify do not need it"
        ) from exc
    return flint


def informative_ball(x: Any) -> bool:
    """Whether an arb ball says anything about its value: finite, or an exact infinity; not a nan ball
    (python-flint's "no enclosure", e.g. ``log`` of a ball reaching 0) and not one of infinite radius. The one
    test behind "nan never decides": the compiled comparisons, the branch and bound's margin decisions
    (:mod:`dptheory.verify.certify`) and the search's side enclosures (:mod:`dptheory.verify.search`)."""
    return bool(not x.is_nan() and (x.is_finite() or x.is_exact()))


MAX_SUM_TERMS = 10**7  # a compiled sum is evaluated term by term: more terms would not finish


def check_sum_terms(lo: Any, hi: Any) -> None:
    """Refuse a sum of more than MAX_SUM_TERMS terms at once (a Thm 4.2 mean over floor(n/b) = 1e20 batches
    would otherwise run for ever) with a one-line error."""
    n = int(hi) - int(lo) + 1
    if n > MAX_SUM_TERMS:
        raise DPTheoryError(
            f"a sum in the statement has {n} terms here, which exceeds the {MAX_SUM_TERMS} terms the compiled "
            "kernels evaluate one by one; use smaller parameters"
        )


class Undecided(NumericalFailure):
    """A branch condition or a floor could not be decided on a ball (the ball straddles the point)."""
