"""nan never decides: the arb backend and the branch and bound on balls that contain 0.

python-flint 0.9.0 returns nan for an integer power of a ball whose midpoint is 0 (``arb(0, 1)**2``,
``arb(0, 1)**arb(2)``; flint issue 426) while ``arb(0, 1) * arb(0, 1)`` is finite. The compiled arb kernels
take such powers from the ball's ends (``dptheory.core.compile``, ``_ipow``): x^n is monotone in x (odd n) or
in |x| (even n). Where no enclosure exists (``1/x^2``, ``log x`` on a ball reaching 0) the result is a nan
ball, and a nan ball or one of infinite radius decides no comparison, no branch and no box.

The true ranges are checked against exact rational points (evaluated as exact balls at 256 bits) on a dense
grid of each input ball.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import flint
import pytest
import sympy as sp

from dptheory.core.citation import Paper
from dptheory.core.claims import Box, Claim, Region, Relation, Verdict, formula
from dptheory.core.compile import Undecided, compile_expr
from dptheory.verify.certify import certify_region
from dptheory.verify.margin import decide_ball, margin_of

arb = flint.arb
u, v = sp.symbols("u v", real=True)
x, y = sp.symbols("x y", positive=True)
K = sp.Symbol("K", integer=True, positive=True)
_P = Paper(key="toy", authors="dptheory", year=2026, title="toy claims: balls that contain 0")


def _ball(lo: Fraction, hi: Fraction) -> Any:
    """A ball containing [lo, hi] (the union of the exact ends); symmetric ends give midpoint 0."""
    def exact(f: Fraction) -> Any:
        return arb(f.numerator) / f.denominator

    return exact(lo).union(exact(hi))


def _grid(lo: Fraction, hi: Fraction, n: int = 40) -> list[Fraction]:
    return [lo + (hi - lo) * Fraction(i, n) for i in range(n + 1)]


def _exact_arb(c: Any, point: dict[str, Any]) -> Any:
    with flint.ctx.workprec(256):
        return c.arb({k: (val if isinstance(val, int) else arb(val.numerator) / val.denominator)
                      for k, val in point.items()})


CASES = [
    # (expression, symbols, the input ranges as exact ends)
    (u**2, {"u": u}, {"u": (Fraction(-1), Fraction(1))}),
    (u**3, {"u": u}, {"u": (Fraction(-1), Fraction(1))}),
    (u**4 - u, {"u": u}, {"u": (Fraction(-1, 3), Fraction(1, 3))}),
    ((u - 1) ** 4 * v, {"u": u, "v": v}, {"u": (Fraction(0), Fraction(2)), "v": (Fraction(1, 2), Fraction(3))}),
    (u**2 * v**3, {"u": u, "v": v}, {"u": (Fraction(-1), Fraction(1)), "v": (Fraction(-2), Fraction(2))}),
    (1 / (1 + u**2), {"u": u}, {"u": (Fraction(-5), Fraction(5))}),
    ((u - v) ** 6, {"u": u, "v": v}, {"u": (Fraction(0), Fraction(1)), "v": (Fraction(0), Fraction(1))}),
]


@pytest.mark.parametrize("expr,syms,ranges", CASES, ids=[str(c[0]) for c in CASES])
def test_integer_powers_of_balls_containing_0_are_finite_enclosures(expr, syms, ranges):
    c = compile_expr(expr, syms)
    balls = {k: _ball(*r) for k, r in ranges.items()}
    with flint.ctx.workprec(64):
        out = c.arb(balls)
    assert out.is_finite(), f"{expr} on {balls}: {out}"
    # the true range: every exact grid point's value lies in the enclosure
    names = list(ranges)
    pts = [{}]
    for k in names:
        pts = [{**p, k: g} for p in pts for g in _grid(*ranges[k], 40 if len(names) == 1 else 12)]
    for p in pts:
        val = _exact_arb(c, p)
        assert out.contains(val), (expr, p, val, out)
    # not merely finite: no wider than the range of the exact values by more than a factor (the old nan case
    # only became finite by splitting the box)
    vals = [_exact_arb(c, p) for p in pts]
    span = max(float(w.mid()) for w in vals) - min(float(w.mid()) for w in vals)
    assert float(out.rad()) <= 4 * max(span, 1e-30), (expr, out, span)


def test_the_flint_issue_is_worked_around_not_absent():
    """The nan of ball ** int is python-flint's (this test fails once a release fixes it: then the workaround
    can go); the compiled power of the same ball is finite."""
    b = arb(0, 1)
    assert (b**2).is_nan() and (b**3).is_nan() and (b ** arb(2)).is_nan()
    assert (b * b).is_finite()
    c2 = compile_expr(u**2, {"u": u})
    c3 = compile_expr(u**3, {"u": u})
    assert c2.arb({"u": b}).is_finite() and c3.arb({"u": b}).is_finite()
    assert c2.arb({"u": b}).contains(arb(1)) and c3.arb({"u": b}).contains(arb(-1))
    # a symbolic integer exponent given as an exact integer, as in x^K of an epoch count K
    cK = compile_expr(u**K, {"u": u, "K": K}, integers=frozenset({"K"}))
    assert cK.arb({"u": b, "K": 4}).is_finite() and cK.arb({"u": b, "K": 4}).contains(arb(1))
    assert cK.arb({"u": b, "K": arb(4)}).is_finite()


def test_no_enclosure_stays_nan_never_a_number():
    """1/u^2 and log u have no finite enclosure on a ball reaching 0: the kernel says nan (or an infinite
    ball), it does not return a finite number."""
    b = _ball(Fraction(-1), Fraction(1))
    for e in (1 / u**2, u**-3, sp.log(u**2)):
        out = compile_expr(e, {"u": u}).arb({"u": b})
        assert out.is_nan() or not out.is_finite(), (e, out)


# ----------------------------------------------------------------------------- comparisons (b)


def test_branch_on_a_power_of_a_ball_around_0_is_decided_correctly():
    """u^2 < 1/4 on u in [-1/4, 1/4] holds for every u: the branch is decided (it was Undecided: the nan of
    ball ** 2 compares neither way)."""
    c = compile_expr(sp.Piecewise((sp.Integer(1), u**2 < sp.Rational(1, 4)), (sp.Integer(2), True)), {"u": u})
    assert c.arb({"u": _ball(Fraction(-1, 4), Fraction(1, 4))}) == 1
    # and a ball where the branch really is open is not decided
    with pytest.raises(Undecided):
        c.arb({"u": _ball(Fraction(-1), Fraction(1))})


@pytest.mark.parametrize("cond", [sp.log(u**2) < 0, sp.log(u**2) <= 0, sp.log(u**2) > 0, sp.log(u**2) >= 0,
                                  sp.Eq(sp.log(u**2), 0), sp.Ne(sp.log(u**2), 0)], ids=str)
def test_a_nan_ball_decides_no_comparison(cond):
    c = compile_expr(sp.Piecewise((sp.Integer(1), cond), (sp.Integer(2), True)), {"u": u})
    with pytest.raises(Undecided):
        c.arb({"u": _ball(Fraction(-1), Fraction(1))})


def test_a_nan_floor_is_undecided():
    c = compile_expr(sp.floor(sp.log(u**2)), {"u": u})
    with pytest.raises(Undecided):
        c.arb({"u": _ball(Fraction(-1), Fraction(1))})


def test_the_margin_decision_ignores_nan_and_infinite_radius():
    for d in (arb("nan"), arb(0, float("inf")), arb(5, float("inf"))):
        assert decide_ball(d, strict=True) == (False, False)
        assert decide_ball(d, strict=False) == (False, False)
    assert decide_ball(arb("inf"), strict=True) == (True, False)  # an exact infinity is a value
    assert decide_ball(arb(-1), strict=False) == (False, True)


# ----------------------------------------------------------------------------- branch and bound (c)


def _claim(key: str, lhs: sp.Expr, rhs: sp.Expr, rel: Relation, box: Box) -> Claim:
    return Claim(key=f"toy.nan_{key}", title=key, citation=_P.item("tests"), statement=key, reading=key,
                 lhs=formula("lhs", lhs), rhs=formula("rhs", rhs), relation=rel,
                 region=Region(certify=box, description="toy box"), verdict=Verdict.CERTIFIED)


def test_root_box_around_0_is_certified_without_a_split():
    """u^2 v^3 < 2 on [-1, 1]^2 (|u^2 v^3| <= 1): the root box's balls have midpoint 0. Its margin is a finite
    ball, so one box decides it (with the nan, the budget of one box ran out: undecided)."""
    c = _claim("root", u**2 * v**3, sp.Integer(2), Relation.LT,
               Box(intervals={"u": (-1, 1), "v": (-1, 1)}, max_boxes=1))
    out = certify_region(c)
    assert out.status == "certified" and out.boxes == 1, (out.status, out.notes)


def test_diagonal_boxes_of_a_difference_are_decided():
    """(x - y)^4 < 1/8 on [0, 1/2]^2 (at most 1/16): on the diagonal boxes x - y is a ball with midpoint 0."""
    c = _claim("diag", (x - y) ** 4, sp.Rational(1, 8), Relation.LT,
               Box(intervals={"x": (0, sp.Rational(1, 2)), "y": (0, sp.Rational(1, 2))}, max_boxes=1))
    assert certify_region(c).status == "certified"


def test_a_false_claim_is_falsified_at_a_true_violation():
    """(u - 1)^4 v > 1/100 on u in [0, 2], v in [1, 2] fails near u = 1 (exact check of the point here)."""
    c = _claim("false", (u - 1) ** 4 * v, sp.Rational(1, 100), Relation.GT,
               Box(intervals={"u": (0, 2), "v": (1, 2)}, max_boxes=200))
    out = certify_region(c)
    assert out.status == "falsified"
    p = {k: sp.Rational(val) for k, val in out.counterexample["params"].items()}
    assert (p["u"] - 1) ** 4 * p["v"] <= sp.Rational(1, 100)


def test_a_singular_margin_is_left_undecided_within_the_budget():
    """1/(x - y)^2 > 0 on [0, 1]^2 has no value on the diagonal: the boxes there are nan for ever. They are
    split until the budget runs out and reported undecided: never certified, never falsified, no stall."""
    c = _claim("sing", 1 / (x - y) ** 2, sp.Integer(0), Relation.GT,
               Box(intervals={"x": (0, 1), "y": (0, 1)}, max_boxes=300))
    m = margin_of(c)
    assert m.kind == "symbolic"
    out = certify_region(c)
    assert out.status == "undecided" and out.boxes == 300 and out.n_undecided > 0
    assert out.counterexample is None


def test_a_side_with_no_enclosure_at_a_point_is_not_an_enclosure():
    """At x = 1, 1/(x - 1)^2 and log(x - 1) have no finite value: the counterexample certifier gets "no
    enclosure" and a reason (it took the nan ball and failed converting it to decimal bounds)."""
    from dptheory.verify.sides import certified_enclosure

    for e in (1 / (x - 1) ** 2, sp.log(x - 1)):
        ball, why = certified_enclosure(formula("lhs", e), {"x": sp.Integer(1)}, 30)
        assert ball is None and "encloses nothing" in why, (e, ball, why)
    ball, why = certified_enclosure(formula("lhs", (x - 1) ** 2), {"x": sp.Integer(1)}, 30)
    assert ball is not None and ball.is_zero() and why == ""
