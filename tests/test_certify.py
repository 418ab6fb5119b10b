"""Branch and bound on boxes (dptheory.verify.certify) on toy claims whose answers are known by hand.

* true with a thin margin: x^2 - x + 1/4 + 1/10^6 > 0 on [0, 1] (minimum 10^-6 at x = 1/2);
* false in a corner only: x y < 3/4 on [0, 1]^2 fails only for x, y >= 3/4;
* integers: n^2 + 1 > 2 n on n = 0..50 holds (n^2 - 2n + 1 = (n-1)^2 >= 0 and +0 at n = 1: the strict
  form fails at n = 1 exactly), and the non-strict form holds.
Each answer is decided by the elementary algebra stated, not by our code.
"""

from __future__ import annotations

import sympy as sp

from dptheory.core.citation import Paper
from dptheory.core.claims import Box, Claim, Region, Relation, Verdict, formula
from dptheory.verify.certify import certify_region
from dptheory.verify.checking import check_claim

x, y = sp.symbols("x y", positive=True)
n = sp.Symbol("n", integer=True, nonnegative=True)
_P = Paper(key="toy", authors="dptheory", year=2026, title="toy claims for the branch and bound")


def _claim(key: str, lhs: sp.Expr, rhs: sp.Expr, rel: Relation, box: Box) -> Claim:
    return Claim(key=f"toy.{key}", title=key, citation=_P.item("tests"), statement=key, reading=key,
                 lhs=formula("lhs", lhs), rhs=formula("rhs", rhs), relation=rel,
                 region=Region(certify=box, description="toy box"), verdict=Verdict.CERTIFIED)


def test_thin_margin_is_certified():
    c = _claim("thin", x**2 - x + sp.Rational(1, 4) + sp.Rational(1, 10**6), sp.Integer(0), Relation.GT,
               Box(intervals={"x": (0, 1)}, max_boxes=20000))
    out = certify_region(c)
    assert out.status == "certified", (out.notes, out.undecided[:2])
    res = check_claim(c)
    assert res.verdict is Verdict.CERTIFIED and "x in [0, 1]" in res.region


def test_thin_margin_removed_is_not_certified():
    """Mutation: without the 10^-6 the minimum is exactly 0 and '>' fails at x = 1/2."""
    c = _claim("tie", x**2 - x + sp.Rational(1, 4), sp.Integer(0), Relation.GT,
               Box(intervals={"x": (0, 1)}, max_boxes=2000))
    out = certify_region(c)
    assert out.status != "certified"
    if out.status == "falsified":
        assert sp.Rational(out.counterexample["params"]["x"]) == sp.Rational(1, 2)


def test_false_in_a_corner_is_falsified_there():
    c = _claim("corner", x * y, sp.Rational(3, 4), Relation.LT,
               Box(intervals={"x": (0, 1), "y": (0, 1)}, max_boxes=5000))
    out = certify_region(c)
    assert out.status == "falsified"
    p = {k: sp.Rational(v) for k, v in out.counterexample["params"].items()}
    assert p["x"] * p["y"] >= sp.Rational(3, 4)  # a genuine violation, checked exactly here
    res = check_claim(c)
    assert res.verdict is Verdict.FALSIFIED


def test_integers_enumerated():
    box = Box(integers={"n": (0, 50)}, max_boxes=5000)
    strict = _claim("istrict", n**2 + 1, 2 * n, Relation.GT, box)
    out = certify_region(strict)
    assert out.status == "falsified" and out.counterexample["params"]["n"] == "1"
    loose = _claim("iloose", n**2 + 1, 2 * n, Relation.GE, box)
    assert certify_region(loose).status == "certified"


def test_budget_exhaustion_leaves_undecided_boxes():
    c = _claim("budget", x**2 - x + sp.Rational(1, 4) + sp.Rational(1, 10**12), sp.Integer(0), Relation.GT,
               Box(intervals={"x": (0, 1)}, max_boxes=3))
    out = certify_region(c)
    assert out.status == "undecided" and out.undecided
