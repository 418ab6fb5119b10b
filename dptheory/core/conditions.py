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

import operator
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import mpmath
import sympy as sp

from dptheory.core.citation import Citation
from dptheory.core.notation import format_rational


class Status(StrEnum):
    HOLDS = "holds"
    VIOLATED = "violated"
    UNDECIDED = "undecided"


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
        from dptheory.core.latex import latex

        return latex(self.relation, symbol_names)

    def evaluate(self, values: Mapping[sp.Symbol, sp.Rational]) -> ConditionResult:
        """Decide the condition at a point given as exact values of its symbols.

        Both sides are first evaluated with mpmath at 60 digits; when they differ by more than
        1e-40 relative that decides it (a few operations at 60 digits cannot be off by that much).
        Otherwise (ties and near-ties, e.g. ``j0 = floor(n/b) - 1`` or integrality) sympy decides
        exactly in rational arithmetic. The numeric pass also avoids sympy's exact evaluation of
        powers such as ``m**(2q/(q-2))`` with rational ``q``, which can take minutes.
        """
        rel = self.relation
        fast = _fast_decide(self, values)
        if fast is not None:
            return fast
        if isinstance(rel, sp.Rel):
            # a side undefined at this point (m**(2q/(q - 2)) at q = 2, a Max of it: sympy raises on its NaN) says
            # nothing here: UNDECIDED, and another condition (q > 2) is the one violated
            try:
                lhs = rel.lhs.xreplace(dict(values))
                rhs = rel.rhs.xreplace(dict(values))
            except (TypeError, ValueError, ZeroDivisionError):
                return ConditionResult(self, Status.UNDECIDED, "undefined", "undefined")
            if lhs.free_symbols or rhs.free_symbols or lhs.has(sp.nan, sp.zoo) or rhs.has(sp.nan, sp.zoo):
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


_FAST_CACHE: dict[int, tuple[Any, Any, tuple[sp.Symbol, ...]] | None] = {}
#: the order relations, on the two 60-digit sides; which side is larger is settled before (they differ by more than
#: 1e-40 relative), so comparing the mpf values directly decides as comparing them rounded to 60 decimal digits would
_ORDER = {sp.StrictLessThan: operator.lt, sp.LessThan: operator.le, sp.StrictGreaterThan: operator.gt,
          sp.GreaterThan: operator.ge}
_FAST_KEEP: list[Condition] = []  # keeps cached conditions alive so their ids stay unique


def _fast_decide(cond: Condition, values: Mapping[sp.Symbol, sp.Rational]) -> ConditionResult | None:
    rel = cond.relation
    if not isinstance(rel, sp.Rel) or isinstance(rel, (sp.Eq, sp.Ne)):
        return None
    key = id(cond)
    if key in _FAST_CACHE:
        entry = _FAST_CACHE[key]
    else:
        syms = tuple(sorted(rel.free_symbols, key=lambda x: x.name))
        try:
            entry = (sp.lambdify(syms, rel.lhs, modules="mpmath"), sp.lambdify(syms, rel.rhs, modules="mpmath"), syms)
        except Exception:  # pragma: no cover - an expression lambdify cannot print: use the exact path
            entry = None
        _FAST_CACHE[key] = entry
        _FAST_KEEP.append(cond)
    if entry is None:
        return None
    f_lhs, f_rhs, syms = entry
    if not all(x in values for x in syms):
        return None
    with mpmath.workdps(60):
        args = [mpmath.mpf(int(values[x].p)) / int(values[x].q) for x in syms]
        try:
            a = mpmath.mpf(f_lhs(*args))
            b = mpmath.mpf(f_rhs(*args))
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            return None
        if not (mpmath.isfinite(a) and mpmath.isfinite(b)):
            return None
        scale = max(abs(a), abs(b))
        if scale == 0 or abs(a - b) <= scale * mpmath.mpf(10) ** -40:
            return None
        order = _ORDER.get(type(rel))
        holds = bool(order(a, b)) if order is not None else bool(rel.func(sp.Float(str(a), 60), sp.Float(str(b), 60)))
        la, lb = mpmath.nstr(a, 20), mpmath.nstr(b, 20)
    exact_l = rel.lhs if not rel.lhs.free_symbols else None
    exact_r = rel.rhs if not rel.rhs.free_symbols else None
    lhs_s = _fmt(exact_l) if exact_l is not None else _short(rel.lhs, values, la)
    rhs_s = _fmt(exact_r) if exact_r is not None else _short(rel.rhs, values, lb)
    return ConditionResult(cond, Status.HOLDS if holds else Status.VIOLATED, lhs_s, rhs_s)


def _short(expr: sp.Expr, values: Mapping[sp.Symbol, sp.Rational], numeric: str) -> str:
    """The exact value when the side is a rational function of the parameters (cheap), else 20 digits."""
    if all(p.exp.is_Integer for p in expr.atoms(sp.Pow)) and not expr.atoms(sp.Function) - expr.atoms(sp.floor):
        v = expr.xreplace({x: values[x] for x in expr.free_symbols})
        if isinstance(v, sp.Rational):
            return _fmt(v)
    return numeric


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
