"""The proof of dwork15.C22 on its continuum (docs/max_information.md, Findings): Cor 22's route is at most
exp(-3x/4) at every tau, c > 0, n >= 1 with x = tau^2/(c^2 n) >= 79/10. It proves the registered claim; a changed
claim or theorem is not proved by it (the proof reads the registry; here the registry answers with mutated copies).

Independent check: route <= bound on a log grid of x in [7.9, 10^4] and at scattered (tau, c, n) with the
theorems' own mpmath evaluation (not the proof's sympy expressions), and route > bound just below 7.8.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import mpmath
import pytest
import sympy as sp

from dptheory.core.claims import Relation, combine, constant
from dptheory.core.conditions import Condition
from dptheory.core.registry import REGISTRY
from dptheory.core.symbolic import SymbolicVerdict
from dptheory.papers.maxinfo import claims as MC

CLAIM = REGISTRY.get("dwork15.C22")
tau, c, n = MC.tau, MC.c, MC.n
x = tau**2 / (c**2 * n)


def test_the_claim_is_proved() -> None:
    assert CLAIM.symbolic is MC._c22_symbolic
    res = MC._c22_symbolic()
    assert res.verdict is SymbolicVerdict.PROVED, res.detail
    assert "1 - g(79/10): >= 0.009892 (arb)" in res.detail and "g(39/5) - 1" in res.detail
    assert all(st.verdict is SymbolicVerdict.PROVED for st in MC.c22_steps(CLAIM))


def _with(monkeypatch: pytest.MonkeyPatch, key: str, obj: Any) -> None:
    real = REGISTRY.get
    monkeypatch.setattr(REGISTRY, "get", lambda k: obj if k == key else real(k))


THEOREM_MUTATIONS = {
    # the constant 39/5 < x* = 7.80...: false just above 7.8 (g(39/5) > 1)
    "constant 39/5": ("dwork15.cor22", lambda t: dataclasses.replace(t, conditions=(
        Condition(x >= sp.Rational(39, 5), "x >= 39/5"),))),
    # no constant at all
    "no condition": ("dwork15.cor22", lambda t: dataclasses.replace(t, conditions=())),
    # the bound exp(-4x/5) instead of exp(-3x/4): the route is not exp(-4x/5) g(x)
    "bound exp(-4x/5)": ("dwork15.cor22", lambda t: dataclasses.replace(t, bound=sp.exp(-sp.Rational(4, 5) * x))),
    # the route with 3 exp(-x) instead of 2 exp(-x)
    "route 3 exp(-x)": ("dwork15.cor22_route", lambda t: dataclasses.replace(
        t, bound=sp.exp(-(sp.Rational(3, 2) - 1 / sp.sqrt(2)) * x) + 3 * sp.exp(-x))),
}


@pytest.mark.parametrize("name", sorted(THEOREM_MUTATIONS))
def test_a_mutated_theorem_is_not_proved(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    key, change = THEOREM_MUTATIONS[name]
    _with(monkeypatch, key, change(REGISTRY.get(key)))
    assert MC._c22_symbolic().verdict is SymbolicVerdict.UNDECIDED


def test_a_mutated_claim_is_not_proved() -> None:
    flipped = dataclasses.replace(CLAIM, relation=Relation.GT)
    scaled = dataclasses.replace(CLAIM, lhs=combine("x 1.01", "*", CLAIM.lhs, constant("101/100", "101/100")))
    swapped = dataclasses.replace(CLAIM, lhs=CLAIM.rhs, rhs=CLAIM.lhs, relation=Relation.GE)
    for mut in (flipped, scaled, swapped):
        assert MC._c22_symbolic(mut).verdict is SymbolicVerdict.UNDECIDED


def _route_and_bound(xv: float, cc: str, nn: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The two theorems' own values (mpmath) at tau = c sqrt(n x), tau given to 30 digits."""
    t = mpmath.nstr(mpmath.mpf(cc) * mpmath.sqrt(mpmath.mpf(xv) * nn), 30)
    p = {"tau": t, "c": cc, "n": nn}
    return REGISTRY.get("dwork15.cor22_route").value(p), mpmath.exp(-mpmath.mpf(3) / 4 * mpmath.mpf(t) ** 2
                                                                     / (mpmath.mpf(cc) ** 2 * nn))


def test_route_below_the_bound_on_a_grid_and_above_it_below_x_star() -> None:
    with mpmath.workdps(40):
        for k in range(61):
            xv = 7.9 * (10**4 / 7.9) ** (k / 60)
            for cc, nn in (("1", 1), ("0.03", 50), ("7", 10**5)):
                route, bound = _route_and_bound(xv, cc, nn)
                assert route <= bound, (xv, cc, nn)
        for xv in (7.0, 7.5, 7.79):  # below x* = 7.8019...: the route is above exp(-3x/4)
            route, bound = _route_and_bound(xv, "1", 1)
            assert route > bound, xv


def test_c21_as_extracted_fails_exactly_for_n_at_least_2() -> None:
    """dwork15.C21_as_extracted's map: with y = tau^2/c^2 the route at k = y minus the bound is
    exp(-y/n) (exp(y (n - 1)/n) - 1): positive for every n >= 2, 0 at n = 1 (its companion, proved)."""
    y, w = sp.Symbol("y", positive=True), sp.Symbol("w", nonnegative=True)
    route, cor = REGISTRY.get("dwork15.cor21_route").bound, REGISTRY.get("dwork15.cor21").bound
    diff = (route.subs(MC.k, MC.K_EXTRACTED) - cor).subs(tau, c * sp.sqrt(y))
    assert sp.simplify(diff - sp.exp(-y / n) * (sp.exp(y * (n - 1) / n) - 1)) == 0
    at_n = sp.expand(y * (n - 1) / n).subs(n, 2 + w)
    assert sp.factor(at_n).is_positive  # so exp(...) - 1 > 0 for n >= 2
    assert MC._c21_extracted_at_1().verdict is SymbolicVerdict.PROVED
    moved = dataclasses.replace(REGISTRY.get("dwork15.C21_as_extracted_holds"), region=dataclasses.replace(
        REGISTRY.get("dwork15.C21_as_extracted_holds").region, fixed={"n": 2}))
    assert MC._c21_extracted_at_1(moved).verdict is SymbolicVerdict.UNDECIDED
