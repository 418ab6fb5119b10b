"""Symbolic verification that returns verdicts, not booleans.

``None`` from sympy's assumption system is UNDECIDED, never True. Before asking, expressions are
rewritten into sign-decidable form (``factor``, substitutions such as ``1 - eta lam -> 1/(1+t)``
with ``t > 0``), as sympy 1.14 decides only simple sign facts: it leaves the sign of
``T a/(2 s^2) - a/(2 s^2)`` (``T`` a positive integer) undecided until the difference is factored, and it
cannot use ``q <= 1``, which is not expressible as an assumption.
An UNDECIDED verdict falls back to the numeric checks; reports say which route established a claim.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import sympy as sp


class SymbolicVerdict(StrEnum):
    PROVED = "proved"
    DISPROVED = "disproved"
    UNDECIDED = "undecided"


@dataclass(frozen=True)
class SymbolicResult:
    verdict: SymbolicVerdict
    detail: str


def prove_zero(expr: sp.Expr, what: str) -> SymbolicResult:
    """PROVED if ``expr`` simplifies to 0: first as a rational function of its atoms (``sympy.cancel``: most
    identities of the derivations, at a fraction of the cost), else by ``sympy.simplify``; DISPROVED when the
    simplified form is decided nonzero."""
    try:
        if sp.cancel(expr) == 0:
            return SymbolicResult(SymbolicVerdict.PROVED, f"{what}: simplifies to 0")
    except sp.PolynomialError:  # not a rational function of its atoms (e.g. a piecewise): simplify decides
        pass
    simp = sp.simplify(expr)
    if simp == 0:
        return SymbolicResult(SymbolicVerdict.PROVED, f"{what}: simplifies to 0")
    if simp.is_zero is False:
        return SymbolicResult(SymbolicVerdict.DISPROVED, f"{what}: simplifies to {sp.sstr(simp)} != 0")
    return SymbolicResult(SymbolicVerdict.UNDECIDED, f"{what}: simplifies to {sp.sstr(simp)}; sign unknown")


def prove_sign(expr: sp.Expr, want: str, what: str) -> SymbolicResult:
    """PROVED when sympy's assumptions decide that ``expr`` is ``want`` (positive, negative, nonnegative or
    nonpositive); UNDECIDED otherwise (``None`` from sympy is never taken for True)."""
    got = {
        "positive": expr.is_positive,
        "negative": expr.is_negative,
        "nonnegative": expr.is_nonnegative,
        "nonpositive": expr.is_nonpositive,
    }[want]
    if got is True:
        return SymbolicResult(SymbolicVerdict.PROVED, f"{what}: {sp.sstr(expr)} is {want}")
    return SymbolicResult(SymbolicVerdict.UNDECIDED, f"{what}: sign of {sp.sstr(expr)} not decided ({want} wanted)")


def all_proved(steps: Sequence[SymbolicResult], what: str, source: str) -> SymbolicResult:
    """PROVED when every step of a derivation is (the proof of ``what``, written out in ``source``, a docs path),
    saying how many checked steps it took (sympy identities and signs, or arb enclosures of constants:
    :func:`certify_positive_constant`); otherwise UNDECIDED naming the first step that is not."""
    bad = [st.detail for st in steps if st.verdict is not SymbolicVerdict.PROVED]
    if bad:
        return SymbolicResult(SymbolicVerdict.UNDECIDED, f"{what}: step not proved: {bad[0]}")
    return SymbolicResult(SymbolicVerdict.PROVED, f"{what} ({source}; {len(steps)} checked steps)")


def prove_finite_limit(expr: sp.Expr, var: sp.Symbol, what: str) -> SymbolicResult:
    """PROVED if ``limit(expr, var, oo)`` is finite (sympy's limit under the symbols' assumptions)."""
    try:
        lim = sp.limit(expr, var, sp.oo)
    except (NotImplementedError, ValueError) as exc:  # pragma: no cover - sympy limitation
        return SymbolicResult(SymbolicVerdict.UNDECIDED, f"{what}: sympy limit failed ({exc})")
    if lim.has(sp.oo, -sp.oo, sp.zoo, sp.nan) or isinstance(lim, sp.AccumBounds) or lim.has(sp.Limit):
        return SymbolicResult(SymbolicVerdict.UNDECIDED, f"{what}: limit is {sp.sstr(lim)}")
    if lim.is_finite is True or (lim.is_finite is None and not lim.has(sp.oo)):
        return SymbolicResult(SymbolicVerdict.PROVED, f"{what}: limit as {var} -> oo is {sp.sstr(lim)}")
    return SymbolicResult(SymbolicVerdict.UNDECIDED, f"{what}: limit {sp.sstr(lim)} not shown finite")


def symbolic_limit(thm: Any, param: str) -> tuple[SymbolicResult, sp.Expr | None]:
    """The limit of a theorem's bound as ``param`` -> oo, computed by sympy where it can.

    ``thm`` is a :class:`~dptheory.core.theorem.Theorem` (not imported here: the theorem module imports this one).

    Uses the substitutions declared on the theorem's :class:`~dptheory.core.theorem.Limit` (each
    justified by the theorem's conditions) and maps the result back to the paper's symbols.
    """
    lim = thm.limits[param]
    bound = thm.bound
    if bound is None:
        return SymbolicResult(SymbolicVerdict.UNDECIDED, "no closed-form bound to take the limit of"), None
    expr = bound.doit() if lim.sympy_doit else bound
    for old, new in lim.sympy_subs:
        expr = expr.subs(old, new)
    var = thm.notation.sym(param)
    try:
        value = sp.limit(expr, var, sp.oo)
    except (NotImplementedError, ValueError, TypeError) as exc:
        return SymbolicResult(SymbolicVerdict.UNDECIDED, f"sympy could not take the limit: {exc}"), None
    if value.has(sp.Limit) or isinstance(value, sp.AccumBounds):
        return SymbolicResult(SymbolicVerdict.UNDECIDED, f"sympy returned {sp.sstr(value)}"), None
    for old, new in lim.sympy_back:
        value = value.subs(old, new)
    verdict = SymbolicVerdict.PROVED if not value.has(sp.oo, sp.zoo) else SymbolicVerdict.DISPROVED
    return SymbolicResult(verdict, f"limit as {param} -> oo: {sp.sstr(value)}"), value


def certify_positive_constant(expr: sp.Expr, what: str, *, prec: int = 128) -> SymbolicResult:
    """PROVED when the constant ``expr`` (no free symbols) is enclosed by an arb ball (the statement compiler,
    :func:`dptheory.core.compile.compiled.compile_expr`) whose lower end is positive; the detail states that
    lower end rounded down."""
    from decimal import ROUND_FLOOR, Decimal

    import flint

    from dptheory.core.compile.compiled import compile_expr

    if expr.free_symbols:
        return SymbolicResult(SymbolicVerdict.UNDECIDED, f"{what}: {sp.sstr(expr)} is not a constant")
    with flint.ctx.workprec(prec):
        ball = compile_expr(expr, {}).arb({})
        lower = float(ball.lower())
    if ball > 0:
        exact = Decimal(lower)  # the float's exact value, at most the ball's lower end
        shown = exact.quantize(Decimal(1).scaleb(exact.adjusted() - 3), rounding=ROUND_FLOOR)  # 4 digits, down
        return SymbolicResult(SymbolicVerdict.PROVED, f"{what}: >= {shown} (arb)")
    return SymbolicResult(SymbolicVerdict.UNDECIDED, f"{what}: the arb enclosure {ball} is not positive")


def claim_states(claim: Any, lhs: str, rhs: str, relation: Any, lhs_term: str | None = None,
                 rhs_term: str | None = None, lhs_set: Any = None) -> str | None:
    """None when ``claim`` (a :class:`~dptheory.core.claims.Claim`) still compares the theorem ``lhs`` (its term
    ``lhs_term``, the values ``lhs_set`` set, none by default) with ``rhs`` (no value set) by ``relation`` and no
    factor, else why not: a proof that reads the registry checks this first, so that it does not prove a changed
    claim."""
    # a theorem side is the one side class with a ``theorem`` (core.claims imports this module: no import back)
    ref = [(q.theorem, q.term, dict(q.set)) if getattr(q, "theorem", None) else (None, None, {}) for q in claim.sides()]
    got = (ref[0][0], ref[0][1], ref[1][0], ref[1][1], claim.relation, ref[0][2], ref[1][2])
    want: tuple[Any, ...] = (lhs, lhs_term, rhs, rhs_term, relation, dict(lhs_set or {}), {})
    if got == want and claim.factor is None:
        return None
    return f"{claim.key} no longer states {lhs} {relation.value} {rhs}"


def prove_positive_polynomial(expr: sp.Expr, var: sp.Symbol, what: str) -> SymbolicResult:
    """PROVED when ``expr`` is a polynomial in the positive symbol ``var`` whose coefficients are constants, the
    constant term positive and every other coefficient positive or zero (each sign enclosed by arb:
    :func:`certify_positive_constant`), so that ``expr > 0`` for every ``var > 0``."""
    try:
        poly = sp.Poly(sp.expand(expr), var)
    except sp.PolynomialError:
        return SymbolicResult(SymbolicVerdict.UNDECIDED, f"{what}: not a polynomial in {var}")
    coeffs = poly.all_coeffs()[::-1]  # constant term first
    if var.is_positive is not True or any(c.free_symbols for c in coeffs):
        return SymbolicResult(SymbolicVerdict.UNDECIDED, f"{what}: coefficients not constant or {var} not positive")
    shown = []
    for k, c in enumerate(coeffs):
        if k > 0 and sp.simplify(c) == 0:
            continue
        res = certify_positive_constant(c, f"coefficient of {var}^{k}")
        if res.verdict is not SymbolicVerdict.PROVED:
            return SymbolicResult(SymbolicVerdict.UNDECIDED, f"{what}: {res.detail}")
        shown.append(res.detail)
    return SymbolicResult(SymbolicVerdict.PROVED, f"{what}: a polynomial in {var} > 0 with " + "; ".join(shown))
