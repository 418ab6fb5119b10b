"""Certified kl inversions and xi(n) on arb balls (dptheory/numerics/kl.py), and the ``arb=`` overrides of every
kl-inversion theorem.

Each enclosure is checked against values computed without the code under test:

* the mpmath bisection (``kl_inv_*_mp``, a different algorithm on mpf numbers) at twice the digits plus 20;
* a float64 root of the *reparametrised* equation (upper: ``p = 1 - (1-q) e^-x``, lower: ``p = q e^-x``,
  solved for ``x`` by scipy's brentq with kl written out here with ``math.log``), to 1e-11 relative;
* closed forms: ``c = 0`` gives ``q``; ``q = 0`` gives ``1 - e^-c`` (upper); ``q = 1`` gives ``e^-c`` (lower);
* xi(n) by its defining binomial sum in exact rational arithmetic (sympy) for small n, and by mpmath's
  binomial sum for larger n.
"""

from __future__ import annotations

import math
from fractions import Fraction as F
from typing import Any

import mpmath
import pytest
import sympy as sp

from dptheory.core.errors import DPTheoryError
from dptheory.core.registry import REGISTRY
from dptheory.numerics import kl as K
from dptheory.testing.oracles import xi_direct_mp

flint = pytest.importorskip("flint")

# (q, c): interior, tiny/huge budgets, q near 0 and 1, the closed-form edges
POINTS = [
    (F(1, 10), F(1, 2)), (F(1, 3), F(1, 100)), (F(1, 2), F(7, 3)), (F(1, 1000), 20), (F(1, 2), 10**6),
    (F(1, 7), F(1, 10**40)), (F(999, 1000), 3), (F(1, 10**12), F(1, 10)), (F(3, 4), F(1, 10**6)),
    (0, 1), (1, 1), (F(2, 5), 0), (0, 0), (1, 0), (0, F(1, 10**30)), (1, 50),
]


def _mpf(v: Any) -> mpmath.mpf:
    v = F(v)
    return mpmath.mpf(v.numerator) / v.denominator


def _ref_mp(q: Any, c: Any, upper: bool, dps: int) -> mpmath.mpf:
    with mpmath.workdps(2 * dps + 20):
        return (K.kl_inv_upper_mp if upper else K.kl_inv_lower_mp)(_mpf(q), _mpf(c))


@pytest.mark.parametrize("upper", [True, False], ids=["upper", "lower"])
@pytest.mark.parametrize(("q", "c"), POINTS, ids=[f"q={q},c={c}" for q, c in POINTS])
def test_enclosure_contains_the_mpmath_value_at_twice_the_digits(q: Any, c: Any, upper: bool) -> None:
    dps = 40
    enc = K.kl_inv_enclose(q, c, dps=dps, upper=upper)
    ref = _ref_mp(q, c, upper, dps)
    with mpmath.workdps(2 * dps + 20):
        lo, hi = mpmath.mpf(enc.lo_str), mpmath.mpf(enc.hi_str)
        assert lo <= ref <= hi, f"[{enc.lo_str}, {enc.hi_str}] misses {mpmath.nstr(ref, dps + 5)}"
        if ref != 0:
            assert hi - lo <= mpmath.mpf(10) ** (-dps + 1) * abs(ref)  # dps + 2 printed digits: width < 10^-(dps-1)
        else:
            assert lo == hi == 0


INTERIOR = [(0.1, 0.5), (1 / 3, 0.01), (0.5, 7 / 3), (0.001, 2.0), (0.75, 1e-6), (0.9, 0.05), (0.02, 0.3)]


@pytest.mark.parametrize(("q", "c"), INTERIOR)
def test_enclosure_agrees_with_brentq_on_another_parametrisation(q: float, c: float) -> None:
    from scipy.optimize import brentq

    # upper: p = 1 - (1-q) e^-x, x >= 0, kl = q ln(q/p) + (1-q) x (increasing in x);
    # lower: p = q e^-x, kl = q x + (1-q) ln((1-q)/(1-p))
    def up(x: float) -> float:
        return q * math.log(q / -math.expm1(math.log1p(-q) - x)) + (1 - q) * x - c

    def down(x: float) -> float:
        return q * x + (1 - q) * (math.log1p(-q) - math.log1p(-q * math.exp(-x))) - c

    x_up = brentq(up, 0.0, (c + 1) / (1 - q) + 60, xtol=1e-15, rtol=1e-15)
    x_lo = brentq(down, 0.0, (c + 1) / q + 60, xtol=1e-15, rtol=1e-15)
    fq, fc = F(q), F(c)  # the binary values of the floats, exactly
    for upper, ref in ((True, 1 - (1 - q) * math.exp(-x_up)), (False, q * math.exp(-x_lo))):
        enc = K.kl_inv_enclose(fq, fc, dps=20, upper=upper)
        assert float(enc.mid) == pytest.approx(ref, rel=1e-11), (upper, enc.lo_str, ref)


def test_closed_cases_are_exact() -> None:
    with flint.ctx.workprec(128):
        q = flint.arb(2) / 7
        y = K.kl_inv_upper_arb(q, 0)
        assert y.mid() == q.mid() and y.rad() == q.rad()
        assert K.kl_inv_lower_arb(flint.arb(0), flint.arb(3)).is_zero()
        assert K.kl_inv_upper_arb(flint.arb(1), flint.arb(3)) == 1
    for c in (F(1, 10), 1, 40):
        up = K.kl_inv_enclose(0, c, dps=30)
        lo = K.kl_inv_enclose(1, c, dps=30, upper=False)
        with mpmath.workdps(60):
            assert up.contains(-mpmath.expm1(-_mpf(c))) and lo.contains(mpmath.exp(-_mpf(c)))
    e = K.kl_inv_enclose(F(3, 10), 0, dps=30)
    assert e.contains(sp.Rational(3, 10))
    for upper in (True, False):
        e = K.kl_inv_enclose(F(1, 2), 0, dps=30, upper=upper)
        assert e.lo == e.hi == mpmath.mpf(0.5)  # c = 0: exactly q


def test_ball_inputs_enclose_every_point_of_the_ball() -> None:
    """A q ball of radius 1e-6 gives a ball containing the inverses at both of its ends (monotone in q)."""
    with flint.ctx.workprec(200):
        q = flint.arb("0.3") + flint.arb(0, "1e-6")
        c = flint.arb("0.2") + flint.arb(0, "1e-9")
        for upper in (True, False):
            y = (K.kl_inv_upper_arb if upper else K.kl_inv_lower_arb)(q, c)
            with mpmath.workdps(60):
                for qq in (mpmath.mpf("0.3") - mpmath.mpf("1e-6"), mpmath.mpf("0.3") + mpmath.mpf("1e-6")):
                    for cc in (mpmath.mpf("0.2") - mpmath.mpf("1e-9"), mpmath.mpf("0.2") + mpmath.mpf("1e-9")):
                        ref = (K.kl_inv_upper_mp if upper else K.kl_inv_lower_mp)(qq, cc)
                        assert y.contains(flint.arb(mpmath.nstr(ref, 50))), (upper, y, ref)


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(K.KLDomainError, match="q in \\[0, 1\\]"):
        K.kl_inv_enclose(F(3, 2), 1)
    with pytest.raises(K.KLDomainError, match="c >= 0"):
        K.kl_inv_enclose(F(1, 2), -1)
    with pytest.raises(K.KLDomainError, match="exact"):
        K.kl_inv_enclose(0.5, 1)
    with flint.ctx.workprec(64), pytest.raises(K.KLDomainError):
        K.kl_inv_upper_arb(flint.arb(2), flint.arb(1))


# ----------------------------------------------------------------------------- xi(n)
@pytest.mark.parametrize("n", [1, 2, 3, 7, 8, 30, 64, 65, 200])
def test_xi_arb_contains_the_exact_binomial_sum(n: int) -> None:
    exact = sum(sp.binomial(n, k) * sp.Rational(k, n) ** k * sp.Rational(n - k, n) ** (n - k) for k in range(n + 1))
    with flint.ctx.workprec(200):
        b = K.xi_arb(n)
        assert b.contains(flint.arb(exact.p) / exact.q) if exact.q != 1 else b.contains(exact.p)
        assert b.rad() < flint.arb(2) ** -180 * b.mid()


@pytest.mark.parametrize("n", [1000, 12345, 10**6])
def test_xi_arb_contains_mpmath_at_high_precision(n: int) -> None:
    with mpmath.workdps(80):
        ref = xi_direct_mp(n) if n <= 20000 else K.xi_mp(n)  # binomial sum; the Q integral above 10^5
        ref_s = mpmath.nstr(ref, 75)
    with flint.ctx.workprec(200):
        b = K.xi_arb(n)
        r = flint.arb(ref_s)
        assert b.overlaps(r) and abs(b.mid() - r.mid()) < flint.arb(2) ** -180 * r.mid()
        assert b.rad() < flint.arb(2) ** -180 * b.mid()


def test_xi_arb_refuses_inexact_n_and_huge_n() -> None:
    from dptheory.core.compile import Undecided

    with flint.ctx.workprec(64):
        with pytest.raises(Undecided):
            K.exact_int_arb(flint.arb(5) + flint.arb(0, 1), "n")
        with pytest.raises(DPTheoryError):
            K.xi_arb(K.XI_ARB_MAX + 1)


# ----------------------------------------------------------------------------- the theorems
THEOREM_POINTS = {
    "pacbayes.kl_inv_upper": dict(q="0.1", c="0.5"),
    "pacbayes.kl_inv_lower": dict(q="0.1", c="0.5"),
    "maurer04.kl": dict(emp_risk="0.1", KL=5, n=1000, delta="0.05"),
    "maurer04.kl_2sqrtn": dict(emp_risk="0.02", KL=3, n=37, delta="0.01"),
    "dr18.dp_prior": dict(emp_risk="0.1", KL=5, m=1000, delta="0.05", eps="0.1"),
    "pacbayes.dr18_maxinfo_variant_derived": dict(emp_risk="0.1", KL=5, m=1000, delta="0.05", eps="0.1"),
    "pacbayes.g2_maxinfo_prior_derived": dict(emp_risk="0.1", KL=5, n=1000, delta="0.05", beta="0.01", k=3),
    "pacbayes.g3_single_model_derived": dict(emp_risk="0", n=250, delta="0.05", beta="0.01", k="0.5"),
    "lz26.thm2_pacbayes_asymptotic": dict(emp_risk="0.1", KL=5, n=1000, E=2, zeta=1, sigma=100, delta="0.05",
                                          beta="0.01", C=1),
    "lz26.single_model_asymptotic": dict(emp_risk="0.3", n=5000, E=1, zeta="0.5", sigma=40, delta="0.001",
                                         beta="0.0001", C=2),
}


def test_every_kl_inversion_theorem_declares_an_arb_override() -> None:
    kl_keys = {t.key for t in REGISTRY.theorems() if "inverse of the binary kl" in (t.kernel_reason or "")}
    assert kl_keys == set(THEOREM_POINTS)
    assert all(REGISTRY.get(k).arb is not None for k in kl_keys)


@pytest.mark.parametrize("key", sorted(THEOREM_POINTS))
def test_theorem_enclosure_contains_its_mpmath_kernel_at_twice_the_digits(key: str) -> None:
    t = REGISTRY.get(key)
    dps = 30
    bv = t.evaluate(THEOREM_POINTS[key], dps=dps, certify=True)
    enc = bv.enclosure
    assert enc is not None and enc.relative
    exact = t.parse(THEOREM_POINTS[key])
    with mpmath.workdps(2 * dps + 20):
        ref = t.kernels().mp(t.kernel_args(exact))
        lo, hi = mpmath.mpf(enc.lo_str), mpmath.mpf(enc.hi_str)
        assert lo <= ref <= hi, f"{key}: [{enc.lo_str}, {enc.hi_str}] misses {mpmath.nstr(ref, dps + 5)}"
        assert hi - lo <= mpmath.mpf(10) ** (-dps + 1) * ref


def test_enclosures_contain_mpmath_on_seeded_random_points() -> None:
    """60 points with q and c drawn log-uniformly over many magnitudes (seeded), both inverses, dps 25."""
    import numpy as np

    rng = np.random.default_rng(20261201)
    for _ in range(30):
        q = F(int(rng.integers(1, 10**6)), 10 ** int(rng.integers(6, 40)))
        q = min(q, 1 - q) if rng.random() < 0.5 else max(q, 1 - q)
        c = F(int(rng.integers(1, 10**6)), 10 ** int(rng.integers(0, 30)))
        for upper in (True, False):
            enc = K.kl_inv_enclose(q, c, dps=25, upper=upper)
            ref = _ref_mp(q, c, upper, 25)
            with mpmath.workdps(70):
                assert mpmath.mpf(enc.lo_str) <= ref <= mpmath.mpf(enc.hi_str), (q, c, upper, enc.lo_str, ref)


@pytest.mark.parametrize("c", [1, 10**150])
def test_lower_inverse_far_below_every_float(c: int) -> None:
    """q ~ 1.1e-302 and c = 1 or 1e150: the root ~ 10^(-3.9e301) or 10^(-3.9e451) (exp of an argument beyond any
    fixed precision) still gets a relative enclosure. Reference: ln p = ln q - (c - (1-q) ln(1-q))/q, the exact
    equation without the term -(1-q) ln(1-p) ~ p, whose effect on p is a factor 1 + O(p/q) (below 10^-(10^300)),
    evaluated by mpmath at 1200 digits (the exponent has up to 452 digits)."""
    q = F(4450147717, 4 * 10**311)
    enc = K.kl_inv_enclose(q, c, dps=30, upper=False)
    assert enc.relative
    with mpmath.workdps(1200):
        qq = _mpf(q)
        ln_p = mpmath.log(qq) - (mpmath.mpf(c) - (1 - qq) * mpmath.log1p(-qq)) / qq
        ref = mpmath.exp(ln_p)
        assert mpmath.mpf(enc.lo_str) <= ref <= mpmath.mpf(enc.hi_str)
        assert abs(mpmath.log(mpmath.mpf(enc.hi_str) / mpmath.mpf(enc.lo_str))) < mpmath.mpf(10) ** -29
