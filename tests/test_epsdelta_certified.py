"""Certified bracket of the best (epsilon, delta) over Renyi orders (yeshokri22.epsdelta.best_epsilon_ball) and
the certified counterexamples of yeshokri22.C7_epsdelta_rdp / C7_epsdelta_pld.

Independent values: every order's epsilon computed with the mpmath kernels (the MTZ19 series of privacy/sgm/mp.py;
Thm 4.3's mp recurrence) on a grid of orders must stay above the certified lower end, and the mpmath continuous
order search (dptheory.privacy.pld) must fall inside the bracket's ends (it is an epsilon at one order, so it is
at least the infimum). docs/derivations/epsdelta_order_bounds.md.
"""

from __future__ import annotations

import mpmath
import pytest

import dptheory
from dptheory.core.claims import NoBallEvaluator
from dptheory.papers.yeshokri22.claims_epsdelta import DELTA, _exact_of
from dptheory.papers.yeshokri22.epsdelta import best_epsilon_ball
from dptheory.papers.yeshokri22.theorems import FIGURE_SETTING
from dptheory.verify.checking import Verdict, check_claim

flint = pytest.importorskip("flint")

ORDERS = [
    1.02,
    1.1,
    1.3,
    1.6,
    2,
    2.5,
    3,
    4,
    5,
    6,
    8,
    10,
    12,
    14,
    15,
    16,
    16.5,
    16.8,
    16.9,
    17,
    17.5,
    18,
    20,
    24,
    28,
    32,
    40,
    48,
    64,
    80,
    128,
]


def _ends(ball):
    with flint.ctx.workprec(200):
        return float(ball.lower()), float(ball.upper())


def _improved(r: mpmath.mpf, a: mpmath.mpf) -> mpmath.mpf:
    return r + mpmath.log(1 - 1 / a) + (mpmath.log(100000) - mpmath.log(a)) / (a - 1)


@pytest.mark.parametrize("K", [50, 120])
def test_composition_bracket(K: int) -> None:
    from dptheory.privacy import sgm
    from dptheory.privacy.pld import rdp_epsilon_best

    p = {**FIGURE_SETTING, "K": K}
    lo, hi = _ends(best_epsilon_ball("yeshokri22.composition", p, "1/100000"))
    assert hi - lo <= 2e-3 * hi
    best = float(rdp_epsilon_best(0.04, 10.0, 25 * K, DELTA, dps=30).epsilon)
    assert lo <= best  # the search returns an epsilon at one order: at least the infimum
    with mpmath.workdps(30):
        for a in ORDERS:
            am = mpmath.mpf(a)
            eps = _improved(sgm.rdp_mp(am, mpmath.mpf(1) / 25, 10, 25 * K), am)
            assert eps >= lo, (a, eps, lo)


@pytest.mark.parametrize("K", [50, 200])
def test_thm43_bracket(K: int) -> None:
    from dptheory.privacy.pld import theorem_epsilon

    p = {**FIGURE_SETTING, "K": K}
    lo, hi = _ends(best_epsilon_ball("yeshokri22.thm4_3", p, "1/100000"))
    assert hi - lo <= 2e-3 * hi
    res = theorem_epsilon("yeshokri22.thm4_3", p, DELTA, dps=30)
    assert lo <= float(res.epsilon)
    thm = dptheory.get("yeshokri22.thm4_3")
    with mpmath.workdps(30):
        for a in [*ORDERS, float(res.order)]:
            am = mpmath.mpf(a)
            r = thm.evaluate({**p, "alpha": str(a)}, dps=25).value
            assert _improved(r, am) >= lo, (a, lo)


def test_exact_of_points_only() -> None:
    with flint.ctx.workprec(128):
        assert _exact_of(flint.arb(1) / 50, "eta") == dptheory.core.notation.parse_value("0.02", key="t", name="eta")
        assert _exact_of(7, "K") == 7
        with pytest.raises(NoBallEvaluator, match="not a point"):
            _exact_of(flint.arb(1).union(flint.arb(2)), "eta")


@pytest.mark.parametrize("key", ["yeshokri22.C7_epsdelta_rdp", "yeshokri22.C7_epsdelta_pld"])
def test_c7_counterexample_is_certified(key: str) -> None:
    res = check_claim(dptheory.get(key))
    assert res.verdict is Verdict.FALSIFIED
    assert res.method == "pinned counterexample (certified)"
    ce = res.counterexample
    assert ce["certified"] is True
    # Thm 4.3's certified lower end is above the other side's certified upper end
    assert float(ce["lhs"]["lo"]) > float(ce["rhs"]["hi"])


def test_c7_rdp_fresh_is_decided_on_balls() -> None:
    """Without the pin, the finite region (K = 50..200) is decided on balls at its first point: the checker's
    53-bit balls of the fixed values are mapped back to their exact fractions."""
    res = check_claim(dptheory.get("yeshokri22.C7_epsdelta_rdp"), use_pinned=False)
    assert res.verdict is Verdict.FALSIFIED
    assert res.method.startswith("exhaustive evaluation on arb balls")
    assert res.counterexample["params"]["K"] == "50" and res.counterexample["certified"] is True
