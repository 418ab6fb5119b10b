"""Conditions: a sympy relational plus a short gloss, decided exactly at a point.

A condition is evaluated three-valued (HOLDS / VIOLATED / UNDECIDED, the semantics of sympy's
``_value_check``). Parameter values are exact rationals (see :mod:`.notation`), so for the
algebraic conditions of the papers (ratios, floors, square roots) the comparison is decided
exactly by sympy. Where sympy cannot decide (transcendental sides that are numerically very
close) both sides are compared with mpmath at two precisions; if they still cannot be separated
the status is UNDECIDED and nothing is assumed.

The message of a violation is rendered from the relational itself (plus its gloss), so the check
and the message cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

import mpmath
import sympy as sp

from .citation import Citation
from .notation import format_rational


class Status(StrEnum):
    HOLDS = "holds"
    VIOLATED = "violated"
    UNDECIDED = "undecided"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Condition:
    """A condition of a theorem.

    Attributes:
        relation: a sympy relational (``eta < 2/(lam + beta)``) or ``Eq(K, floor(K))`` for
            integrality.
        gloss: what the condition means, in words.
        text: display text overriding ``str(relation)`` (used for integrality).
        latex: LaTeX overriding ``sympy.latex(relation)``.
        citation: where the condition is stated, when it differs from the theorem's citation.
        kind: ``"domain"`` (what kind of number a parameter is) or ``"hypothesis"`` (a condition of
            the theorem as printed) or ``"consistency"`` (implied by the theorem's assumptions, e.g.
            a lambda-strongly convex beta-smooth loss has lambda <= beta).
    """

    relation: sp.Basic
    gloss: str
    text: str | None = None
    latex: str | None = None
    citation: Citation | None = None
    kind: str = "hypothesis"

    @property
    def symbols(self) -> frozenset[sp.Symbol]:
        return frozenset(self.relation.free_symbols)

    def render(self) -> str:
        return self.text if self.text is not None else sp.sstr(self.relation)

    def render_latex(self, symbol_names: Mapping[sp.Symbol, str]) -> str:
        if self.latex is not None:
            return self.latex
        from ..report.printer import latex

        return latex(self.relation, symbol_names)

    def evaluate(self, values: Mapping[sp.Symbol, sp.Rational]) -> ConditionResult:
        """Decide the condition at a point given as exact values of its symbols."""
        rel = self.relation
        if isinstance(rel, sp.Rel):
            lhs = rel.lhs.xreplace(dict(values))
            rhs = rel.rhs.xreplace(dict(values))
            if lhs.free_symbols or rhs.free_symbols:
                return ConditionResult(self, Status.UNDECIDED, _fmt(lhs), _fmt(rhs))
            decided = rel.func(lhs, rhs)
            if decided is sp.true:
                return ConditionResult(self, Status.HOLDS, _fmt(lhs), _fmt(rhs))
            if decided is sp.false:
                return ConditionResult(self, Status.VIOLATED, _fmt(lhs), _fmt(rhs))
            return ConditionResult(self, _numeric_decide(rel.func, lhs, rhs), _fmt(lhs), _fmt(rhs))
        decided = rel.xreplace(dict(values))
        if decided is sp.true:
            return ConditionResult(self, Status.HOLDS, "true", "true")
        if decided is sp.false:
            return ConditionResult(self, Status.VIOLATED, "false", "true")
        return ConditionResult(self, Status.UNDECIDED, sp.sstr(decided), "true")


def _numeric_decide(func: type, lhs: sp.Expr, rhs: sp.Expr) -> Status:
    """Compare two closed numbers at two precisions; UNDECIDED if they cannot be separated."""
    verdicts = []
    for dps in (60, 120):
        with mpmath.workdps(dps):
            a = mpmath.mpf(sp.N(lhs, dps))
            b = mpmath.mpf(sp.N(rhs, dps))
            scale = max(abs(a), abs(b), mpmath.mpf(1))
            if abs(a - b) <= scale * mpmath.mpf(10) ** (-(dps - 10)):
                return Status.UNDECIDED
            ok = bool(func(sp.Float(str(a), dps), sp.Float(str(b), dps)))
            verdicts.append(ok)
    if verdicts[0] != verdicts[1]:
        return Status.UNDECIDED
    return Status.HOLDS if verdicts[0] else Status.VIOLATED


def _fmt(x: sp.Basic) -> str:
    if isinstance(x, sp.Rational):
        return format_rational(x)
    if x.free_symbols:
        return sp.sstr(x)
    if x.is_number:
        try:
            return mpmath.nstr(mpmath.mpf(sp.N(x, 30)), 20)
        except (TypeError, ValueError):
            return sp.sstr(x)
    return sp.sstr(x)


@dataclass(frozen=True, slots=True)
class ConditionResult:
    """The status of one condition at one point, with both sides evaluated."""

    condition: Condition
    status: Status
    lhs: str
    rhs: str

    @property
    def text(self) -> str:
        return self.condition.render()

    def to_dict(self) -> dict[str, str]:
        return {
            "text": self.text,
            "gloss": self.condition.gloss,
            "status": self.status.value,
            "lhs": self.lhs,
            "rhs": self.rhs,
        }


def integer_condition(symbol: sp.Symbol, latex_name: str, gloss: str | None = None) -> Condition:
    """Condition that a parameter is an integer (rendered as ``K is an integer``)."""
    return Condition(
        sp.Eq(symbol, sp.floor(symbol, evaluate=False), evaluate=False),
        gloss or f"{symbol} must be a whole number",
        text=f"{symbol} is an integer",
        latex=rf"{latex_name} \in \mathbb{{Z}}",
        kind="domain",
    )
