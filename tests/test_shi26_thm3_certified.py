"""shi26.F_thm3_privacy: its lhs (Lemma 39, order optimised, at Theorem 3's sigma_b and T2) on arb balls.

Independent value: the paper's formulas written out here with mpmath (sigma_b = ||mu||^2/(eta m^3 max), T2 =
ceil(m/(eta ||mu||^2)), A = T (2||mu||^2 + 3 sigma_p^2 d)/(sigma_b^2 n^2 m), L = log(2/delta)) and the minimum
of g(lam) = lam A + L/(lam - 1) found by a bracketing root finder on g'(lam) = 0 (no closed form used).
"""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

import dptheory
from dptheory.verify.checking import Verdict, check_claim
from dptheory.verify.sides import side_ball_at

flint = pytest.importorskip("flint")

PIN = {"m": 100, "mu_norm": 1, "sigma_p": "0.5", "d": 2000, "n": 1000, "delta": "1e-5", "eta": 1}


def _direct(pt: dict, dps: int = 60) -> mpmath.mpf:
    with mpmath.workdps(dps):
        f = {k: mpmath.mpf(sp.Rational(v).p) / sp.Rational(v).q for k, v in pt.items()}
        M = max(f["mu_norm"] ** 2, f["sigma_p"] ** 2 * f["d"])
        sb = f["mu_norm"] ** 2 / (f["eta"] * f["m"] ** 3 * M)
        T = mpmath.ceil(f["m"] / (f["eta"] * f["mu_norm"] ** 2))
        A = T * (2 * f["mu_norm"] ** 2 + 3 * f["sigma_p"] ** 2 * f["d"]) / (sb**2 * f["n"] ** 2 * f["m"])
        L = mpmath.log(2 / f["delta"])
        # g'(1 + e^u) = A - L e^{-2u} is increasing in u: bracket the root and bisect
        lo, hi = mpmath.mpf(-200), mpmath.mpf(50)
        for _ in range(400):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if A - L * mpmath.exp(-2 * mid) < 0 else (lo, mid)
        lam = 1 + mpmath.exp((lo + hi) / 2)
        return lam * A + L / (lam - 1)


@pytest.mark.parametrize("pt", [PIN, {**PIN, "eta": "7/1000"}, {**PIN, "sigma_p": "1/100", "d": 50, "eta": "3/7"}])
def test_lhs_ball_contains_direct_minimum(pt: dict) -> None:
    c = dptheory.get("shi26.F_thm3_privacy")
    exact = {k: sp.Rational(v) for k, v in pt.items()}
    with flint.ctx.workprec(250):
        ball = side_ball_at(c.lhs, exact)
    ref = _direct(pt)
    with mpmath.workdps(60), flint.ctx.workprec(400):  # lower()/upper() round at the current precision
        lo = mpmath.mpf(ball.lower().str(70, radius=False, more=True).strip("[]"))
        hi = mpmath.mpf(ball.upper().str(70, radius=False, more=True).strip("[]"))
        assert lo - abs(ref) * mpmath.mpf(10) ** -50 <= ref <= hi + abs(ref) * mpmath.mpf(10) ** -50
        assert hi - lo <= abs(ref) * mpmath.mpf(10) ** -60


def test_pinned_counterexample_is_certified() -> None:
    c = dptheory.get("shi26.F_thm3_privacy")
    res = check_claim(c)
    assert res.verdict is Verdict.FALSIFIED
    assert res.method == "pinned counterexample (certified)"
    assert res.counterexample["certified"] is True


def test_compiled_sqrt_of_an_integer_parameter() -> None:
    """The arb backend receives exact integers as Python ints; sqrt of one (here from m^(5/2) after sympy's
    substitution) must still be a ball (it raised AttributeError: 'int' object has no attribute 'sqrt')."""
    from dptheory.core.compile import compile_expr

    m = sp.Symbol("m", integer=True, positive=True)
    c = compile_expr(sp.sqrt(m) + 1 / sp.sqrt(m), {"m": m}, integers=frozenset({"m"}))
    with flint.ctx.workprec(100):
        v = c.arb({"m": 2})
    assert v.overlaps(flint.arb(2).sqrt() + flint.arb(2).rsqrt())
