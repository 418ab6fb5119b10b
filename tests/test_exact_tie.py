"""A point where the two sides are exactly equal (dptheory.verify.points._exact_tie): balls can never separate them,
so the point decision asks sympy whether the difference at the exact point is 0; then a non-strict relation holds
and a strict one fails, decided exactly. (A finding's map needs this where a claim holds with equality only, e.g.
dwork15.C21_as_extracted at n = 1.)"""

from __future__ import annotations

import dataclasses

import sympy as sp

from dptheory.core.citation import Paper
from dptheory.core.claims import Claim, Region, Relation, Verdict, formula
from dptheory.core.registry import REGISTRY
from dptheory.verify.points import decide_point

X, N = sp.Symbol("x", positive=True), sp.Symbol("n", positive=True)
TOY = Paper(key="toy26", authors="A. Toy", year=2026, title="Toy")
CLAIM = Claim(key="toy26.tie", title="t", citation=TOY.item("1"), statement="s", reading="r",
              lhs=formula("e^x e^(-2x/n)", sp.exp(X) * sp.exp(-2 * X / N)), rhs=formula("e^(-x/n)", sp.exp(-X / N)),
              relation=Relation.LE,
              region=Region(), verdict=Verdict.NOT_FALSIFIED)


def test_a_tie_is_decided_exactly() -> None:
    dec = decide_point(CLAIM, {"x": "7/3", "n": 1})
    assert dec.holds is True and dec.certified and dec.evidence.startswith("exact: the two sides are equal")
    strict = decide_point(dataclasses.replace(CLAIM, relation=Relation.LT), {"x": "7/3", "n": 1})
    assert strict.holds is False and strict.certified


def test_a_near_tie_is_not_called_exact() -> None:
    """sides that differ by 10^-400 (no ball at 50 digits separates them): not equal, so no exact decision."""
    near = dataclasses.replace(CLAIM, rhs=formula("e^(-x/n) + 10^-400", sp.exp(-X / N) + sp.Rational(1, 10**400)))
    dec = decide_point(near, {"x": "7/3", "n": 1})
    assert not dec.evidence.startswith("exact")


def test_dwork15_c21_as_extracted_holds_exactly_at_n_1() -> None:
    dec = decide_point(REGISTRY.get("dwork15.C21_as_extracted"), {"tau": 1, "c": 1, "n": 1, "beta": "0.1"})
    assert dec.holds is True and dec.certified and dec.evidence.startswith("exact")
