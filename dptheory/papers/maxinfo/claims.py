"""Claims about the classic max-information results and our derived DP-SGD bounds.

Dwork et al. 2015 (arXiv 1506.02629v2): Corollaries 21 and 22 follow from Theorem 13 (and Thm 20);
we check that the stated conclusions follow from the stated hypotheses through the printed route,
and pin where they do not. Our own results (``docs/derivations/maxinfo_dpsgd.md``): its summary table
suggests Theorem B is the sharper bound; we check that ordering.

The claims are data, the ``[[claim]]`` tables of ``paper.toml`` (read by :mod:`dptheory.core.paperfile`),
registered at the end of this module; what they need as code is here: Corollary 21's two readings of the
hypothesis k (sympy expressions), the proof of ``dwork15.C21`` and the proof of ``dwork15.C22`` on its continuum
(``docs/max_information.md``, Findings).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from dptheory.core import paperfile
from dptheory.core.claims import Claim, Relation
from dptheory.core.registry import REGISTRY
from dptheory.core.symbolic import (
    SymbolicResult,
    SymbolicVerdict,
    all_proved,
    certify_positive_constant,
    claim_states,
    prove_sign,
    prove_zero,
)
from dptheory.papers.maxinfo import theorems as M
from dptheory.verify.sides import side_at_pin

tau, c, n, k = M.NOTATION.symbols("tau", "c", "n", "k")

K_CONCLUSION = tau**2 / (c**2 * n)
"""Corollary 21's hypothesis k (nats) as its conclusion needs it (``dwork15.C21``)."""
K_EXTRACTED = tau**2 / c**2
"""Corollary 21's hypothesis k as the text was extracted, log e tau^2/c^2 (``dwork15.C21_as_extracted``)."""


def _c21_symbolic() -> Any:
    assert M.COR21_ROUTE.bound is not None and M.COR21.bound is not None  # both are closed forms
    route = M.COR21_ROUTE.bound.subs(k, K_CONCLUSION)
    return prove_zero(route - M.COR21.bound, "Cor 21 route at k = tau^2/(c^2 n) minus Cor 21")


def _c21_extracted_at_1(claim: Claim | None = None) -> SymbolicResult:
    """dwork15.C21_as_extracted_holds: at n = 1 the route at k = tau^2/c^2 equals Cor 21's bound (so <= holds, with
    equality), for every tau, c > 0 and beta in (0, 1). (For n >= 2 the route exceeds it: the route minus the bound
    is exp(-y/n) (exp(y (n - 1)/n) - 1) > 0 with y = tau^2/c^2; tests/test_c22_proof.py checks that identity.)"""
    cl = claim or REGISTRY.get("dwork15.C21_as_extracted_holds")
    why = claim_states(cl, "dwork15.cor21_route", "dwork15.cor21", Relation.LE, lhs_set={"k": K_EXTRACTED})
    if why:
        return SymbolicResult(SymbolicVerdict.UNDECIDED, why)
    if dict(cl.region.fixed) != {"n": 1} or cl.region.choices:
        return SymbolicResult(SymbolicVerdict.UNDECIDED, f"{cl.key}'s region is no longer n = 1")
    route, cor = REGISTRY.get("dwork15.cor21_route").bound, REGISTRY.get("dwork15.cor21").bound
    if route is None or cor is None:
        return SymbolicResult(SymbolicVerdict.UNDECIDED, "a side has no closed form")
    return prove_zero((route.subs(k, K_EXTRACTED) - cor).subs(n, 1),
                      "at n = 1, the route at k = tau^2/c^2 minus Cor 21's bound (every tau, c > 0, beta)")


C22_NOTE = "docs/max_information.md, Findings (dwork15.C22)"
_A22_GAP = sp.Rational(3, 4) - 1 / sp.sqrt(2)
"""a = 3/4 - 1/sqrt 2: Cor 22's route is e^(-(3/4 + a) x) + 2 e^(-x), the bound e^(-3x/4)."""


def _route_over_bound(x: sp.Expr, a: sp.Expr = _A22_GAP) -> sp.Expr:
    """g(x) = e^(-a x) + 2 e^(-x/4): Cor 22's route over its bound exp(-3x/4)."""
    return sp.exp(-a * x) + 2 * sp.exp(-x / 4)


def c22_steps(claim: Claim) -> list[SymbolicResult]:
    """dwork15.C22 at every tau, c > 0, n >= 1 with x = tau^2/(c^2 n) >= X0 (X0 = 79/10, Cor 22's condition as
    encoded): both sides are functions of x alone (tau = c sqrt(n x)); the route over the bound is g(x) =
    e^(-a x) + 2 e^(-x/4) with a = 3/4 - 1/sqrt 2 > 0, decreasing; 1 - g(X0) > 0 (arb). Stops at the first step
    that does not go through (the list then ends with an UNDECIDED result)."""
    why = claim_states(claim, "dwork15.cor22_route", "dwork15.cor22", Relation.LE)
    if why:
        return [SymbolicResult(SymbolicVerdict.UNDECIDED, why)]
    route_t, cor_t = REGISTRY.get("dwork15.cor22_route"), REGISTRY.get("dwork15.cor22")
    route, cor = route_t.bound, cor_t.bound
    conds = [cd.relation for cd in cor_t.conditions]
    x = sp.Symbol("x", positive=True)
    if route is None or cor is None or route_t.conditions or len(conds) != 1 \
            or not isinstance(conds[0], sp.GreaterThan) or conds[0].lhs != tau**2 / (c**2 * n) \
            or not conds[0].rhs.is_Rational:
        return [SymbolicResult(SymbolicVerdict.UNDECIDED, "dwork15.cor22's condition is no longer tau^2/(c^2 n) >= a "
                               "rational constant (or a side has no closed form, or the route has conditions)")]
    x0 = conds[0].rhs
    on_x = {tau: c * sp.sqrt(n * x)}
    lhs_x, rhs_x = route.subs(on_x), cor.subs(on_x)
    a = sp.Symbol("a", positive=True)
    g = _route_over_bound(x, a)
    steps = [
        prove_zero(sp.simplify(lhs_x - rhs_x * _route_over_bound(x)),
                   "(1) at tau = c sqrt(n x): route - exp(-3x/4)-bound x g(x), g = e^(-a x) + 2 e^(-x/4), "
                   "a = 3/4 - 1/sqrt 2 (c and n cancel)"),
        prove_sign(rhs_x, "positive", "(2) the bound at x"),
        certify_positive_constant(_A22_GAP, "(3) a = 3/4 - 1/sqrt 2"),
        prove_sign(sp.diff(g, x), "negative", "(4) g'(x) with a > 0"),
        certify_positive_constant(1 - _route_over_bound(x0), f"(5) 1 - g({x0})"),
    ]
    return steps


def _c22_symbolic(claim: Claim | None = None) -> SymbolicResult:
    """dwork15.C22 on its continuum: bound - route = bound (1 - g(x)) > 0 for x >= X0 (:func:`c22_steps`); the
    detail adds g(39/5) > 1 (below 7.8 the route does not give the bound: the constant is sharp to 0.1)."""
    steps = c22_steps(claim or REGISTRY.get("dwork15.C22"))
    res = all_proved(steps, "the route <= exp(-3x/4) at every tau, c > 0, n >= 1 with x = tau^2/(c^2 n) at least "
                    "Cor 22's constant (dwork15.cor22's condition): both are functions of x, route = exp(-3x/4) g(x) "
                    "with g(x) = e^(-(3/4 - 1/sqrt 2) x) + 2 e^(-x/4) decreasing (sympy identity and sign), and 1 - g "
                    "at the constant > 0 (arb)", C22_NOTE)
    if res.verdict is not SymbolicVerdict.PROVED:
        return res
    sharp = certify_positive_constant(_route_over_bound(sp.Rational(39, 5)) - 1,
                                      "g(39/5) - 1 (at x = 7.8 the route is above the bound)")
    extra = f"; {sharp.detail}" if sharp.verdict is SymbolicVerdict.PROVED else ""
    return SymbolicResult(SymbolicVerdict.PROVED, f"{res.detail}: {steps[-1].detail}{extra}")


# dwork15.C21, dwork15.C21_as_extracted, dwork15.C22 and maxinfo.C1: the [[claim]] tables of paper.toml
for _claim in paperfile.load(__name__, "paper.toml").claims(side_at_pin=side_at_pin):
    REGISTRY.add(_claim)
